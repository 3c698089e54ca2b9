/* sm_synth.c: synthetic problems (random and analytic) and the closed-form
 * results of the analytic ones. */
#include "sm_synth.h"

#include "config.h"

#include <math.h>

#include <string.h>

static inline uint64_t mix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A counter-based random word for (seed, stream, a, b). */
static inline uint64_t h4(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b)
{
  return mix64(mix64(mix64(seed ^ (stream << 56)) ^ a) ^ (b * 0xd6e8feb86659fd93ull));
}

/* ---- analytic czekanowski: v[i][q] = a_i + b_q, integers, so
 * n2(i,j) = nf min(a_i, a_j) + B and s_i = nf a_i + B with B = sum_q b_q. */
static double czek_a(const sm_synth_t *s, size_t i)
{
  return (double)(1 + h4(s->seed, 1, i, 0) % 64);
}
static double czek_b(size_t q)
{
  return (double)(q % 7);
}
static double czek_B(const sm_synth_t *s)
{
  size_t full = s->nf / 7, rest = s->nf % 7;
  return (double)(full * 21 + rest * (rest - 1) / 2);
}

/* ---- analytic ccc: vector i is piecewise constant along the fields:
 * [0,t) two copies, [t,u) one copy, [u,p) none, [p,nf) missing. */
typedef struct seg4 {
  size_t t, u, p;
} seg4_t;

static seg4_t ccc_seg(const sm_synth_t *s, size_t i)
{
  seg4_t g;
  size_t nf = s->nf, d = 0;
  if (s->missing_rate > 0) {
    size_t span = (size_t)(2.0 * s->missing_rate * (double)nf) + 1;
    d = h4(s->seed, 2, i, 0) % span;
    if (d > nf)
      d = nf;
  }
  g.p = nf - d;
  g.t = h4(s->seed, 3, i, 0) % (g.p + 1);
  g.u = g.t + h4(s->seed, 4, i, 0) % (g.p - g.t + 1);
  return g;
}

static unsigned ccc_code_at(const seg4_t *g, size_t q)
{
  if (q < g->t)
    return SM_GT_2;
  if (q < g->u)
    return SM_GT_1;
  if (q < g->p)
    return SM_GT_0;
  return SM_GT_MISSING;
}

static unsigned random_code(const sm_synth_t *s, size_t i, size_t q)
{
  uint64_t h = h4(s->seed, 5, i, q);
  double u = (double)(h >> 11) * 0x1.0p-53;
  if (u < s->missing_rate)
    return SM_GT_MISSING;
  static const unsigned codes[3] = {SM_GT_0, SM_GT_1, SM_GT_2};
  return codes[(h & 0xffff) % 3];
}

sm_err_t sm_synth_make(const sm_synth_t *s, size_t elem_size, size_t v0, size_t vcount,
                       size_t f0, size_t fcount, sm_vectors_t *out)
{
  if (v0 > s->nv || f0 > s->nf) {
    sm_log_error("synthetic problem: slice starts past the problem (%zu x %zu)", s->nv,
                 s->nf);
    return SM_EOPTION;
  }
  if (!vcount)
    vcount = s->nv - v0;
  if (!fcount)
    fcount = s->nf - f0;
  if (v0 + vcount > s->nv || f0 + fcount > s->nf) {
    sm_log_error("synthetic problem: slice beyond the problem (%zu x %zu)", s->nv, s->nf);
    return SM_EOPTION;
  }
  sm_err_t err = sm_vectors_alloc(out, s->metric, elem_size, vcount, fcount);
  if (err)
    return err;
#ifdef SM_SIMULATION
  /* kernels do not run: only the shape counts, and whether calls are
   * missing (CCC's sparse method follows); the values are not made */
  out->nmissing = s->metric == SM_METRIC_CCC && s->missing_rate > 0
                      ? (size_t)ceil(s->missing_rate * (double)vcount * (double)fcount)
                      : 0;
  return SM_OK;
#endif
  for (size_t iv = 0; iv < vcount; iv++) {
    size_t i = v0 + iv;
    void *row = sm_vectors_row(out, iv);
    if (s->metric == SM_METRIC_CZEK) {
      for (size_t qf = 0; qf < fcount; qf++) {
        size_t q = f0 + qf;
        double x = s->kind == SM_SYNTH_ANALYTIC
                       ? czek_a(s, i) + czek_b(q)
                       : (double)(h4(s->seed, 6, i, q) >> 54) / 1024.0;
        if (elem_size == 4)
          ((float *)row)[qf] = (float)x;
        else
          ((double *)row)[qf] = x;
      }
    } else {
      seg4_t g = ccc_seg(s, i);
      for (size_t qf = 0; qf < fcount; qf++) {
        size_t q = f0 + qf;
        unsigned c =
            s->kind == SM_SYNTH_ANALYTIC ? ccc_code_at(&g, q) : random_code(s, i, q);
        sm_gt_set(row, qf, c);
      }
    }
  }
  sm_vectors_count_missing(out);
  return SM_OK;
}

void sm_synth_expect_czek2(const sm_synth_t *s, size_t i, size_t j, double *n2,
                           double *si, double *sj)
{
  double ai = czek_a(s, i), aj = czek_a(s, j), B = czek_B(s), nf = (double)s->nf;
  *n2 = nf * (ai < aj ? ai : aj) + B;
  *si = nf * ai + B;
  *sj = nf * aj + B;
}

double sm_synth_expect_czek3_n3(const sm_synth_t *s, size_t i, size_t j, size_t k)
{
  double a = czek_a(s, i), b = czek_a(s, j), c = czek_a(s, k);
  double m = a < b ? a : b;
  m = m < c ? m : c;
  return (double)s->nf * m + czek_B(s);
}

/* rho_i(a) of a code, and whether the entry counts (sparse: present). */
static unsigned code_r(unsigned c, int sparse)
{
  if (c == SM_GT_MISSING)
    return sparse ? 0 : 1;
  return c == SM_GT_2 ? 2 : c == SM_GT_1 ? 1 : 0;
}

/* Sweep the union of the breakpoints of up to three vectors: on each
 * segment every vector has one code, so tallies are length x products. */
static void ccc_sweep(const sm_synth_t *s, int sparse, int way, const size_t *ids,
                      uint64_t *t)
{
  seg4_t g[3];
  size_t bp[12];
  size_t nb = 0;
  for (int x = 0; x < way; x++) {
    g[x] = ccc_seg(s, ids[x]);
    bp[nb++] = g[x].t;
    bp[nb++] = g[x].u;
    bp[nb++] = g[x].p;
  }
  bp[nb++] = 0;
  bp[nb++] = s->nf;
  /* insertion sort of the breakpoints */
  for (size_t a = 1; a < nb; a++)
    for (size_t b = a; b > 0 && bp[b - 1] > bp[b]; b--) {
      size_t tmp = bp[b];
      bp[b] = bp[b - 1];
      bp[b - 1] = tmp;
    }
  memset(t, 0, sizeof(uint64_t) * (way == 3 ? 8 : 4));
  for (size_t a = 0; a + 1 < nb; a++) {
    size_t lo = bp[a], hi = bp[a + 1];
    if (hi <= lo)
      continue;
    unsigned r[3], present = 1;
    for (int x = 0; x < way; x++) {
      unsigned c = ccc_code_at(&g[x], lo);
      r[x] = code_r(c, sparse);
      if (sparse && c == SM_GT_MISSING)
        present = 0;
    }
    if (!present)
      continue;
    uint64_t len = hi - lo;
    for (unsigned e = 0; e < (way == 3 ? 8u : 4u); e++) {
      uint64_t prod = 1;
      for (int x = 0; x < way; x++) {
        unsigned bit = (e >> (way - 1 - x)) & 1;
        prod *= bit ? r[x] : 2 - r[x];
      }
      t[e] += len * prod;
    }
  }
}

void sm_synth_expect_ccc_sums(const sm_synth_t *s, int sparse, size_t i, uint64_t *s1,
                              uint64_t *c)
{
  seg4_t g = ccc_seg(s, i);
  uint64_t miss = s->nf - g.p;
  *s1 = 2 * (uint64_t)g.t + (g.u - g.t) + (sparse ? 0 : miss);
  *c = sparse ? g.p : s->nf;
}

void sm_synth_expect_ccc2(const sm_synth_t *s, int sparse, size_t i, size_t j,
                          uint64_t t[4], uint64_t s1[2], uint64_t c[2])
{
  size_t ids[2] = {i, j};
  ccc_sweep(s, sparse, 2, ids, t);
  sm_synth_expect_ccc_sums(s, sparse, i, &s1[0], &c[0]);
  sm_synth_expect_ccc_sums(s, sparse, j, &s1[1], &c[1]);
}

void sm_synth_expect_ccc3(const sm_synth_t *s, int sparse, size_t i, size_t j, size_t k,
                          uint64_t t[8])
{
  size_t ids[3] = {i, j, k};
  ccc_sweep(s, sparse, 3, ids, t);
}
