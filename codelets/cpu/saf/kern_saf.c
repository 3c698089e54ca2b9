/* kern_saf.c: per-site SAF likelihoods as GAMA's associative tree reduction
 * in an extended-range representation (a mantissa and a binary exponent per
 * bin), with optional banding; the log-factorial tables and the workspace
 * the SAF kernels share. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern_saf_ws.h"
#include "sm_cpu.h"

/* Exponents within a run lie within this many bits: a product of two run
 * mantissas is then >= 2^-402, and with SKIP below the output's largest
 * exponent it stays a normal double. */
#define SEG_RANGE 200
/* A run pair below an output bin's largest exponent by more than SKIP bits
 * adds less than 2^-60 of that bin (2 x 200 + 2 for the run mantissas,
 * 7 for up to 64 terms, 60 for the margin). */
#define SKIP (2 * SEG_RANGE + 2 + 7 + 60)

/* Banding starts at nodes of this many individuals (smaller nodes have
 * little to drop and would only pay for the test). */
#define BAND_MIN_IND 8

static const long double LN2L = 0.693147180559945309417232121458176568L;

/* 2^d for -1022 <= d <= 1023, built from its bits. */
static inline double pow2i(int d)
{
  union {
    uint64_t u;
    double x;
  } v = {.u = (uint64_t)(d + 1023) << 52};
  return v.x;
}

/* log2(m) for m in [0.5, 1), within 0.005: banding decisions only. */
static inline double log2_approx(double m)
{
  double x = 2.0 * m;
  return (-0.34484843 * x + 2.02466578) * x - 0.67487759 - 1.0;
}

sm_saf_tab_t *sm_saf_tab_create(size_t nind)
{
  sm_saf_tab_t *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->nind = nind;
  t->lfact = malloc((2 * nind + 1) * sizeof *t->lfact);
  t->lfact2 = malloc((2 * nind + 1) * sizeof *t->lfact2);
  if (!t->lfact || !t->lfact2) {
    sm_saf_tab_destroy(t);
    return NULL;
  }
  for (size_t k = 0; k <= 2 * nind; k++) {
    t->lfact[k] = lgammal((long double)k + 1.0L);
    t->lfact2[k] = (double)(t->lfact[k] / LN2L);
  }
  return t;
}

void sm_saf_tab_destroy(sm_saf_tab_t *t)
{
  if (!t)
    return;
  free(t->lfact);
  free(t->lfact2);
  free(t);
}

sm_saf_ws_t *sm_saf_ws_create(size_t nind)
{
  sm_saf_ws_t *ws = calloc(1, sizeof *ws);
  if (!ws)
    return NULL;
  const size_t nb = 2 * nind + 1;
  ws->nind = nind;
  /* a level holds at most 3N bins; the root, the no-data node and their
   * product need 2N + 1 each more */
  ws->cap = 4 * nind + 4;
  int ok = 1;
  for (int k = 0; k < 2; k++) {
    ok &= (ws->m[k] = calloc(ws->cap, sizeof(double))) != NULL;
    ok &= (ws->e[k] = calloc(ws->cap, sizeof(int32_t))) != NULL;
    ok &= (ws->node[k] = calloc(nind + 1, sizeof(saf_node_t))) != NULL;
    ok &= (ws->u[k] = calloc(nb, sizeof(double))) != NULL;
  }
  ok &= (ws->xa = calloc(nb, sizeof(double))) != NULL;
  ok &= (ws->xb = calloc(nb, sizeof(double))) != NULL;
  ok &= (ws->sa = calloc(nb, sizeof(saf_seg_t))) != NULL;
  ok &= (ws->sb = calloc(nb, sizeof(saf_seg_t))) != NULL;
  ok &= (ws->R = calloc(nb, sizeof(int32_t))) != NULL;
  ok &= (ws->acc = calloc(nb + 32, sizeof(double))) != NULL; /* conv_runs rounds up */
  if (!ok) {
    sm_saf_ws_destroy(ws);
    return NULL;
  }
  return ws;
}

void sm_saf_ws_destroy(sm_saf_ws_t *ws)
{
  if (!ws)
    return;
  for (int k = 0; k < 2; k++) {
    free(ws->m[k]);
    free(ws->e[k]);
    free(ws->node[k]);
    free(ws->u[k]);
  }
  free(ws->xa);
  free(ws->xb);
  free(ws->sa);
  free(ws->sb);
  free(ws->R);
  free(ws->acc);
  free(ws);
}

/* Cut bins [lo, hi] into runs of non-zero bins (at most SM_SAF_SEG_MAX long,
 * exponents within SEG_RANGE) and scale each bin to its run's largest
 * exponent: x[k] = m[k] 2^(e[k] - E) lies in [2^-201, 1). */
static int segments(const double *m, const int32_t *e, int lo, int hi, double *x,
                    saf_seg_t *seg)
{
  int ns = 0, k = lo;
  while (k <= hi) {
    if (m[k] == 0) {
      k++;
      continue;
    }
    int start = k, emax = e[k], emin = e[k];
    for (k++; k <= hi && k - start < SM_SAF_SEG_MAX && m[k] != 0; k++) {
      int up = e[k] > emax ? e[k] : emax, down = e[k] < emin ? e[k] : emin;
      if (up - down > SEG_RANGE)
        break;
      emax = up;
      emin = down;
    }
    for (int i = start; i < k; i++)
      x[i] = m[i] * pow2i(e[i] - emax);
    seg[ns++] = (saf_seg_t){start, k - start, emax};
  }
  return ns;
}

typedef double v8d __attribute__((vector_size(64)));
typedef double v8du __attribute__((vector_size(64), aligned(8))); /* unaligned */

/* Zeros around the inner run, so blocks of 32 outputs load whole vectors. */
#define PAD 32

/* out[0 .. la + lb - 2] = x (x) y in linear space, 32 outputs at a time in
 * registers (out has room for a multiple of 32). yp: scratch of lb + 2 PAD. */
static SM_TARGETS void conv_runs(const double *restrict x, int la,
                                 const double *restrict y, int lb, double *restrict out,
                                 double *restrict yp)
{
  memset(yp, 0, PAD * sizeof *yp);
  memcpy(yp + PAD, y, (size_t)lb * sizeof *yp);
  memset(yp + PAD + lb, 0, PAD * sizeof *yp);
  const int nout = la + lb - 1;
  for (int j0 = 0; j0 < nout; j0 += 32) {
    v8d c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
    const int k0 = j0 - lb + 1 > 0 ? j0 - lb + 1 : 0;
    const int k1 = j0 + 31 < la - 1 ? j0 + 31 : la - 1;
    for (int k = k0; k <= k1; k++) {
      const double a = x[k];
      const double *p = yp + PAD + j0 - k;
      c0 += a * *(const v8du *)p;
      c1 += a * *(const v8du *)(p + 8);
      c2 += a * *(const v8du *)(p + 16);
      c3 += a * *(const v8du *)(p + 24);
    }
    *(v8du *)(out + j0) = c0;
    *(v8du *)(out + j0 + 8) = c1;
    *(v8du *)(out + j0 + 16) = c2;
    *(v8du *)(out + j0 + 24) = c3;
  }
}

/* The same for short runs, without padding. */
static void conv_small(const double *restrict x, int la, const double *restrict y, int lb,
                       double *restrict out)
{
  for (int i = 0; i < la + lb - 1; i++)
    out[i] = 0;
  for (int k = 0; k < la; k++)
    for (int t = 0; t < lb; t++)
      out[k + t] += x[k] * y[t];
}

/* Split a positive normal double into m in [0.5, 1) and its exponent. */
static inline double split(double x, int *ex)
{
  union {
    double x;
    uint64_t u;
  } v = {.x = x};
  *ex = (int)((v.u >> 52) & 0x7ff) - 1022;
  v.u = (v.u & ~(0x7ffull << 52)) | (1022ull << 52);
  return v.x;
}

/* Vectorized helpers of a merge (the loops over a run pair's outputs). */
#if defined(__GNUC__) && !defined(__clang__)
#define SM_VECTORIZE                                                                     \
  __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define SM_VECTORIZE
#endif

/* R[j] = max(R[j], r). */
static SM_TARGETS SM_VECTORIZE void raise_to(int32_t *restrict R, int n, int32_t r)
{
  for (int j = 0; j < n; j++)
    R[j] = R[j] > r ? R[j] : r;
}

/* min_j R[j]. */
static SM_TARGETS SM_VECTORIZE int32_t lowest(const int32_t *restrict R, int n)
{
  int32_t v = INT32_MAX;
  for (int j = 0; j < n; j++)
    v = R[j] < v ? R[j] : v;
  return v;
}

/* acc[j] += local[j] 2^(r - R[j]), terms below 2^-SKIP left out. */
static SM_TARGETS SM_VECTORIZE void add_aligned(double *restrict acc,
                                                const int32_t *restrict R,
                                                const double *restrict local, int n,
                                                int32_t r)
{
  for (int j = 0; j < n; j++) {
    const int32_t d = r - R[j];
    const int64_t bits = d >= -SKIP ? (int64_t)(d + 1023) << 52 : 0;
    double f;
    memcpy(&f, &bits, sizeof f);
    acc[j] += local[j] * f;
  }
}

/* C = A (x) B over their windows (bins are node-local indices). */
static void merge(sm_saf_ws_t *ws, const double *ma, const int32_t *ea,
                  const saf_node_t *A, const double *mb, const int32_t *eb,
                  const saf_node_t *B, double *mc, int32_t *ec, saf_node_t *C)
{
  const int na = segments(ma, ea, A->lo, A->hi, ws->xa, ws->sa);
  const int nb = segments(mb, eb, B->lo, B->hi, ws->xb, ws->sb);
  const int lo = A->lo + B->lo, hi = A->hi + B->hi;
  int32_t *R = ws->R;
  double *acc = ws->acc;
  if (na == 1 && nb == 1) { /* one run each (small nodes): one product */
    const saf_seg_t *a = &ws->sa[0], *b = &ws->sb[0];
    const int j0 = a->start + b->start, j1 = j0 + a->len + b->len - 2;
    if (a->len + b->len <= 24) /* tiny: plain loops beat padding */
      conv_small(ws->xa + a->start, a->len, ws->xb + b->start, b->len, acc + j0);
    else
      conv_runs(ws->xa + a->start, a->len, ws->xb + b->start, b->len, acc + j0, ws->ypad);
    for (int j = lo; j <= hi; j++)
      R[j] = j < j0 || j > j1 ? INT32_MIN : a->E + b->E;
    for (int j = lo; j < j0; j++)
      acc[j] = 0;
    for (int j = j1 + 1; j <= hi; j++)
      acc[j] = 0;
    goto out;
  }
  for (int j = lo; j <= hi; j++) {
    R[j] = INT32_MIN;
    acc[j] = 0;
  }
  /* pass 1: every output bin's largest exponent over the run pairs */
  for (int s = 0; s < na; s++)
    for (int t = 0; t < nb; t++) {
      const saf_seg_t *a = &ws->sa[s], *b = &ws->sb[t];
      const int32_t r = a->E + b->E;
      const int j0 = a->start + b->start, j1 = j0 + a->len + b->len - 2;
      raise_to(R + j0, j1 - j0 + 1, r);
    }
  /* pass 2: convolve run pairs, add them aligned on R (log-sum-exp) */
  for (int s = 0; s < na; s++)
    for (int t = 0; t < nb; t++) {
      const saf_seg_t *a = &ws->sa[s], *b = &ws->sb[t];
      const int32_t r = a->E + b->E;
      const int j0 = a->start + b->start, j1 = j0 + a->len + b->len - 2;
      if (r < lowest(R + j0, j1 - j0 + 1) - SKIP) /* negligible in every bin */
        continue;
      conv_runs(ws->xa + a->start, a->len, ws->xb + b->start, b->len, ws->local,
                ws->ypad);
      add_aligned(acc + j0, R + j0, ws->local, j1 - j0 + 1, r);
    }
out:; /* back to mantissa + exponent; zero bins at the ends leave the window */
  const int nbins = 2 * (A->nind + B->nind) + 1;
  int clo = hi + 1, chi = lo - 1;
  for (int j = 0; j < nbins; j++) {
    if (j < lo || j > hi || acc[j] <= 0) {
      mc[j] = 0;
      ec[j] = 0;
      continue;
    }
    int ex;
    mc[j] = split(acc[j], &ex);
    ec[j] = R[j] + ex;
    if (j < clo)
      clo = j;
    chi = j;
  }
  C->nind = A->nind + B->nind;
  C->lo = clo;
  C->hi = chi;
}

/* Banding: drop the bins of C whose likelihood given C's data (the bin
 * divided by C(2n, k)) is below the largest by more than tol_bits; the
 * window shrinks to the bins kept. */
static void band(const sm_saf_tab_t *tab, double tol_bits, double *v, double *m,
                 int32_t *e, saf_node_t *C)
{
  const double *lf2 = tab->lfact2;
  const int n2 = 2 * C->nind;
  double vmax = -INFINITY;
  for (int k = C->lo; k <= C->hi; k++) {
    v[k] = m[k] == 0 ? -INFINITY
                     : e[k] + log2_approx(m[k]) - (lf2[n2] - lf2[k] - lf2[n2 - k]);
    if (v[k] > vmax)
      vmax = v[k];
  }
  const double thr = vmax - tol_bits;
  int lo = C->lo, hi = C->hi;
  while (lo < hi && v[lo] < thr)
    m[lo++] = 0;
  while (hi > lo && v[hi] < thr)
    m[hi--] = 0;
  C->lo = lo;
  C->hi = hi;
}

/* Leaf of an individual with data: (P0, 2 P1, P2) scaled so the largest
 * likelihood is 1. */
static void leaf(const double *p, double *m, int32_t *e, saf_node_t *nd)
{
  double mx = p[0] > p[1] ? p[0] : p[1];
  mx = mx > p[2] ? mx : p[2];
  const double v[3] = {p[0] / mx, 2.0 * (p[1] / mx), p[2] / mx};
  int lo = 3, hi = -1;
  for (int g = 0; g < 3; g++) {
    int ex = 0;
    m[g] = v[g] > 0 ? frexp(v[g], &ex) : 0.0;
    e[g] = ex;
    if (m[g] != 0) {
      lo = g < lo ? g : lo;
      hi = g;
    }
  }
  nd->nind = 1;
  nd->lo = lo;
  nd->hi = hi;
}

/* The individuals without data: (1 + x)^(2 nmiss), bins C(2 nmiss, k). */
static void nodata_node(const sm_saf_tab_t *tab, int nmiss, double *m, int32_t *e,
                        saf_node_t *nd)
{
  const long double *lf = tab->lfact;
  const int n2 = 2 * nmiss;
  for (int k = 0; k <= n2; k++) {
    long double l2 = (lf[n2] - lf[k] - lf[n2 - k]) / LN2L;
    long double ex = floorl(l2) + 1.0L;
    m[k] = exp2((double)(l2 - ex)); /* in [0.5, 1) */
    e[k] = (int32_t)ex;
  }
  nd->nind = nmiss;
  nd->lo = 0;
  nd->hi = n2;
}

/* The root (all N individuals) to natural-log SAF values, max exactly 0:
 * differences to a reference bin near the maximum are formed in long
 * double, so exponents and binomials of thousands of nats cancel exactly. */
static void finish(const sm_saf_tab_t *tab, const double *m, const int32_t *e,
                   const saf_node_t *rt, double *out)
{
  const long double *lf = tab->lfact;
  const double *lf2 = tab->lfact2;
  const int n2 = 2 * rt->nind;
  int jr = rt->lo;
  double best = -INFINITY;
  for (int j = rt->lo; j <= rt->hi; j++) {
    if (m[j] == 0)
      continue;
    double v = e[j] + log2_approx(m[j]) - (lf2[n2] - lf2[j] - lf2[n2 - j]);
    if (v > best) {
      best = v;
      jr = j;
    }
  }
  const double lmr = log(m[jr]);
  const long double lbr = lf[jr] + lf[n2 - jr];
  double mx = -INFINITY;
  for (int j = 0; j <= n2; j++) {
    if (j < rt->lo || j > rt->hi || m[j] == 0) {
      out[j] = -INFINITY;
      continue;
    }
    long double d = (long double)(e[j] - e[jr]) * LN2L - (lbr - lf[j] - lf[n2 - j]);
    out[j] = (double)d + (log(m[j]) - lmr);
    if (out[j] > mx)
      mx = out[j];
  }
  for (int j = rt->lo; j <= rt->hi; j++)
    out[j] -= mx;
}

static void saf_site(const sm_saf_tab_t *tab, sm_saf_ws_t *ws, double tol_bits,
                     const double *gl, double *out, sm_saf_site_t *info)
{
  const int N = (int)ws->nind, nbins = 2 * N + 1;
  int cur = 0, count = 0, nmiss = 0;
  for (int i = 0; i < N; i++) {
    const double *p = gl + 3 * (size_t)i;
    if (p[0] == p[1] && p[1] == p[2]) {
      nmiss++;
      continue;
    }
    saf_node_t *nd = &ws->node[0][count];
    nd->off = 3 * count;
    leaf(p, ws->m[0] + nd->off, ws->e[0] + nd->off, nd);
    count++;
  }
  memset(info, 0, sizeof *info);
  if (count == 0) { /* no individual has data: skipped */
    for (int j = 0; j < nbins; j++)
      out[j] = -INFINITY;
    return;
  }
  const int ndata = count;
  /* the tree: adjacent nodes merged pairwise, level by level */
  while (count > 1) {
    const int nxt = cur ^ 1;
    int nc = 0;
    int32_t off = 0;
    for (int t = 0; t + 1 < count; t += 2) {
      const saf_node_t *A = &ws->node[cur][t], *B = &ws->node[cur][t + 1];
      saf_node_t *C = &ws->node[nxt][nc++];
      C->off = off;
      merge(ws, ws->m[cur] + A->off, ws->e[cur] + A->off, A, ws->m[cur] + B->off,
            ws->e[cur] + B->off, B, ws->m[nxt] + off, ws->e[nxt] + off, C);
      if (tol_bits > 0 && C->nind >= BAND_MIN_IND)
        band(tab, tol_bits, ws->acc, ws->m[nxt] + off, ws->e[nxt] + off, C);
      off += 2 * C->nind + 1;
    }
    if (count % 2) { /* the odd node moves up as it is */
      const saf_node_t *A = &ws->node[cur][count - 1];
      saf_node_t *C = &ws->node[nxt][nc++];
      const int len = 2 * A->nind + 1;
      *C = *A;
      C->off = off;
      memcpy(ws->m[nxt] + off, ws->m[cur] + A->off, len * sizeof(double));
      memcpy(ws->e[nxt] + off, ws->e[cur] + A->off, len * sizeof(int32_t));
    }
    cur = nxt;
    count = nc;
  }
  saf_node_t root = ws->node[cur][0];
  const double *rm = ws->m[cur] + root.off;
  const int32_t *re = ws->e[cur] + root.off;
  if (nmiss) { /* individuals without data join as one binomial node */
    saf_node_t nd, C;
    double *mm = ws->m[cur ^ 1];
    int32_t *me = ws->e[cur ^ 1];
    nodata_node(tab, nmiss, mm, me, &nd);
    const int32_t off = root.off + 2 * root.nind + 1;
    merge(ws, rm, re, &root, mm, me, &nd, ws->m[cur] + off, ws->e[cur] + off, &C);
    if (tol_bits > 0)
      band(tab, tol_bits, ws->acc, ws->m[cur] + off, ws->e[cur] + off, &C);
    root = C;
    rm = ws->m[cur] + off;
    re = ws->e[cur] + off;
  }
  finish(tab, rm, re, &root, out);
  int lo = root.lo, hi = root.hi;
  while (lo < hi && out[lo] == -INFINITY)
    lo++;
  while (hi > lo && out[hi] == -INFINITY)
    hi--;
  info->lo = (uint32_t)lo;
  info->hi = (uint32_t)hi;
  info->ndata = (uint32_t)ndata;
  info->dropped = tol_bits > 0 ? (uint32_t)(nbins - (root.hi - root.lo + 1)) : 0;
}

void sm_kern_saf_tree(const sm_saf_tab_t *tab, sm_saf_ws_t *ws, double band_tol,
                      size_t nsites, const double *gl, size_t ldgl, double *out,
                      size_t ldout, sm_saf_site_t *info)
{
  const double tol_bits = band_tol > 0 ? band_tol / (double)LN2L : 0.0;
  for (size_t s = 0; s < nsites; s++)
    saf_site(tab, ws, tol_bits, gl + s * ldgl, out + s * ldout, info + s);
}
