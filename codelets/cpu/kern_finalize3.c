/* kern_finalize3.c: metric values of a 3-way piece (a group of planes
 * against tiles X and Y) from its plane numerators, the 2-way numerators
 * and the vector sums; records with ascending indices, histogram counts
 * and the checksum. */
/* The whole file (the inline formulas too, so that they still inline) at
 * -O3, where GCC vectorizes loops; no-trapping-math lets it if-convert
 * selects: no value changes (as kern_finalize2.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math", "fp-contract=off")
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern_finalize_simd.h"
#include "sm_formulas.h"
#include "sm_kern.h"

/* ---- a (plane, x) row's triples in runs of y over which the order of the
 * three indices does not change (at most three per row). CCC values are
 * computed in role order (p, x, y bits of the table entry): the CCC value
 * of a table cell does not depend on the order its three vectors are given
 * in (sm_f_ccc3 sorts its factors), so they are the values of
 * sm_ccc3_values, only labelled by role; lab[u] is the entry's label in
 * ascending-index order, as written. The instruction-set loops
 * (kern_finalize_simd_impl.h) or the portable ones below compute them and
 * their checksum terms; records and histogram counts follow only when
 * wanted. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_FIN3_CLONES                                                                   \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SM_FIN3_CLONES
#endif

/* What the triples of one (plane, x) row share. */
typedef struct row3 {
  const uint32_t *m3;        /* moments of (p, x, y = 0) */
  const uint32_t *n2xy;      /* dense: rr of (x, y = 0) */
  const uint32_t *n2ay;      /* dense: rr of (p, y = 0) */
  const uint32_t *sy;        /* sums of y = 0: s1, c */
  uint64_t n2ax;             /* dense: rr of (p, x) */
  uint64_t s1p, cp, s1x, cx; /* sums of p and x */
  uint32_t gy0;              /* global index of y = 0 */
  uint32_t gfix[3];          /* the sorted indices, where not y */
  int ysel[3];               /* 1 where the sorted index is y's */
  uint32_t lab[8];           /* entry label of role-order cell u */
} row3_t;

/* Values of one triple in role order into w0..w7 at c, from its moments
 * t (turned into tallies here) and the sums of y. */
#define SM_CCC3_CELL(U, W)                                                               \
  do {                                                                                   \
    const uint64_t sp_ = ((U)&4) ? s1p : 2 * cp - s1p;                                   \
    const uint64_t sx_ = ((U)&2) ? s1x : 2 * cx - s1x;                                   \
    const uint64_t sy_ = ((U)&1) ? s1y : 2 * cy - s1y;                                   \
    const double v_ =                                                                    \
        sm_f_ccc3((uint64_t)t[U], sp_, sx_, sy_, rp, rx, ry, rs, mult, param);           \
    W[c] = none ? 0.0 : v_;                                                              \
  } while (0)
#define SM_CCC3_VALUES                                                                   \
  do {                                                                                   \
    sm_ccc3_tallies(t);                                                                  \
    const uint64_t s1y = r->sy[2 * (size_t)y], cy = r->sy[2 * (size_t)y + 1];            \
    uint64_t cijk = 0;                                                                   \
    for (int u = 0; u < 8; u++)                                                          \
      cijk += (uint64_t)t[u];                                                            \
    const int none =                                                                     \
        (cp == 0) | (cx == 0) | (cy == 0) | (nf == 0) | (sparse & (cijk == 0));          \
    const double rp = sparse ? 1.0 / (double)cp : recip_m;                               \
    const double rx = sparse ? 1.0 / (double)cx : recip_m;                               \
    const double ry = sparse ? 1.0 / (double)cy : recip_m;                               \
    const double rs = sparse ? 1.0 / (double)cijk : 0.125 * recip_m;                     \
    SM_CCC3_CELL(0, w0);                                                                 \
    SM_CCC3_CELL(1, w1);                                                                 \
    SM_CCC3_CELL(2, w2);                                                                 \
    SM_CCC3_CELL(3, w3);                                                                 \
    SM_CCC3_CELL(4, w4);                                                                 \
    SM_CCC3_CELL(5, w5);                                                                 \
    SM_CCC3_CELL(6, w6);                                                                 \
    SM_CCC3_CELL(7, w7);                                                                 \
    /* the key of the sorted indices */                                                  \
    const uint64_t gy = r->gy0 + y;                                                      \
    const uint64_t i0 = ysel0 ? gy : g0, i1 = ysel1 ? gy : g1, i2 = ysel2 ? gy : g2;     \
    key[c] = sm_cksum_key3(i0, i1, i2);                                                  \
  } while (0)

SM_FIN3_CLONES
static void ccc3_run(const sm_fin3_args_t *a, const row3_t *r, uint32_t ya, uint32_t n,
                     sm_fin_ck_t *ck, double *restrict out)
{
  double w0[SM_FIN_RUN3], w1[SM_FIN_RUN3], w2[SM_FIN_RUN3], w3[SM_FIN_RUN3],
      w4[SM_FIN_RUN3], w5[SM_FIN_RUN3], w6[SM_FIN_RUN3], w7[SM_FIN_RUN3];
  uint64_t key[SM_FIN_RUN3];
  const double mult = a->ccc_mult, param = a->ccc_param;
  const uint64_t nf = a->nf, s1p = r->s1p, cp = r->cp, s1x = r->s1x, cx = r->cx;
  const int64_t n2ax = (int64_t)r->n2ax;
  const int ysel0 = r->ysel[0], ysel1 = r->ysel[1], ysel2 = r->ysel[2];
  const uint64_t g0 = r->gfix[0], g1 = r->gfix[1], g2 = r->gfix[2];
  const double recip_m = 1.0 / (double)nf;
  const int sparse = a->sparse;
  /* one loop per method: no branch inside, so that it vectorizes */
  if (sparse)
    for (uint32_t c = 0; c < n; c++) {
      const uint32_t y = ya + c;
      sm_s64 t[8];
      sm_ccc3_moments_sparse(r->m3 + (size_t)y * 12, t);
      SM_CCC3_VALUES;
    }
  else
    for (uint32_t c = 0; c < n; c++) {
      const uint32_t y = ya + c;
      const uint32_t *m = r->m3 + (size_t)y * 2;
      sm_s64 t[8] = {(int64_t)nf,  r->sy[2 * (size_t)y],
                     (int64_t)s1x, r->n2xy[y],
                     (int64_t)s1p, r->n2ay[y],
                     n2ax,         (int64_t)m[0] + 2 * (int64_t)m[1]};
      SM_CCC3_VALUES;
    }
  double *const w[8] = {w0, w1, w2, w3, w4, w5, w6, w7};
  for (int u = 0; u < 8; u++)
    sm_fin_ck_terms(ck, w[u], key, n, (uint64_t)r->lab[u] * SM_CKSUM_ENTRY_STEP);
  if (out)
    for (int u = 0; u < 8; u++)
      memcpy(out + u * SM_FIN_RUN3, w[u], n * sizeof *out);
}

/* ---- what a piece's runs share */
typedef struct fin3_blk {
  const sm_fin3_args_t *a;
  const void *num3, *n2ax, *n2ay, *n2xy, *sums_a, *sums_x, *sums_y;
  size_t ldax, lday, ldxy;
  int ccc, ne;
  const sm_fin_isa_t *isa; /* value loops (NULL: portable) */
  double *ycol[4];         /* per y: CCC g(0), g(1), cy, s1y; Czekanowski sy */
  double *ay, *xy;         /* the row's 2-way numerators of (p, y), (x, y) */
  int keep_all;
  sm_fin_thr_t thr;
  sm_fin_keep_fn keep;
  sm_fin_hc_t hc;
  sm_fin_ck_t ck;
} fin3_blk_t;

/* sm_f_ccc3's factor 1 - param (0.5 r s) of a vector's bit (s its sum
 * for that bit, r = 1 / c or 1 / nf), as the portable loops compute it. */
static double ccc3_factor(const sm_fin3_args_t *a, uint64_t s1, uint64_t c, int bit)
{
  const double r = a->sparse ? 1.0 / (double)c : 1.0 / (double)a->nf;
  const uint64_t s = bit ? s1 : 2 * c - s1;
  return 1.0 - a->ccc_param * (0.5 * r * (double)s);
}

/* The per-y arrays of the instruction-set loops (my + 8 each, zero past
 * my); 0 when memory is refused. */
static int fin3_columns(fin3_blk_t *b)
{
  const sm_fin3_args_t *a = b->a;
  const size_t np = (size_t)a->my + 16, ncol = b->ccc ? 4 : 1;
  double *mem = calloc((ncol + 2) * np, sizeof(double));
  if (!mem)
    return 0;
  for (size_t k = 0; k < ncol; k++)
    b->ycol[k] = mem + k * np;
  b->ay = mem + ncol * np, b->xy = mem + (ncol + 1) * np;
  for (uint32_t y = 0; y < a->my; y++) {
    if (!b->ccc) {
      b->ycol[0][y] = a->single ? (double)((const float *)b->sums_y)[y]
                                : ((const double *)b->sums_y)[y];
      continue;
    }
    const uint32_t *sy = (const uint32_t *)b->sums_y + 2 * (size_t)y;
    b->ycol[0][y] = ccc3_factor(a, sy[0], sy[1], 0);
    b->ycol[1][y] = ccc3_factor(a, sy[0], sy[1], 1);
    b->ycol[2][y] = (double)sy[1], b->ycol[3][y] = (double)sy[0];
  }
  return 1;
}

/* The row (p, x)'s 2-way numerators along y as doubles (dense CCC,
 * Czekanowski). */
static void fin3_rowcols(fin3_blk_t *b, size_t ra, uint32_t x)
{
  const sm_fin3_args_t *a = b->a;
  if (b->ccc && a->sparse)
    return;
  for (uint32_t y = 0; y < a->my; y++) {
    const size_t iay = ra * b->lday + y, ixy = (size_t)x * b->ldxy + y;
    if (b->ccc) {
      b->ay[y] = ((const uint32_t *)b->n2ay)[iay];
      b->xy[y] = ((const uint32_t *)b->n2xy)[ixy];
    } else if (a->single) {
      b->ay[y] = ((const float *)b->n2ay)[iay];
      b->xy[y] = ((const float *)b->n2xy)[ixy];
    } else {
      b->ay[y] = ((const double *)b->n2ay)[iay];
      b->xy[y] = ((const double *)b->n2xy)[ixy];
    }
  }
}

/* A run: where its values come from and how they are labelled. */
typedef struct run3 {
  uint32_t p, x, y, n; /* triples (p, x, y .. y + n - 1) of the piece */
  int ord[3];          /* sm_order3 of (plane, x, y) */
  uint32_t lab[8];     /* entry label of role-order cell u */
  uint32_t cell[8];    /* role-order cell of label e */
} run3_t;

/* The run for the instruction-set loops. */
static void fin3_run(const fin3_blk_t *b, const run3_t *u, const row3_t *r,
                     sm_fin3_run_t *v)
{
  const sm_fin3_args_t *a = b->a;
  const uint64_t g3[3] = {a->a_glob + u->p, a->x0 + u->x, a->y0 + u->y};
  const int ypos = u->ord[0] == 2 ? 0 : u->ord[1] == 2 ? 1 : 2;
  uint64_t s[3]; /* the sorted indices, y's as the run's first */
  for (int k = 0; k < 3; k++)
    s[k] = g3[u->ord[k]];
  const size_t nmom3 = b->ccc ? SM_CCC3_NMOM(a->sparse) : 1;
  const size_t t3 = ((size_t)u->p * a->mx + u->x) * a->my + u->y;
  *v = (sm_fin3_run_t){.kind = b->ccc ? (a->sparse ? SM_FIN3_SPARSE : SM_FIN3_DENSE)
                                      : (a->single ? SM_FIN3_CZEK_S : SM_FIN3_CZEK_D),
                       .pneg = a->ccc_param < 0,
                       .n = u->n,
                       .mult = a->ccc_mult,
                       .rs = 0.125 * (1.0 / (double)a->nf),
                       .kx = s[0] << 32 | s[1],
                       .kxs = ypos == 0   ? (uint64_t)1 << 32
                              : ypos == 1 ? 1
                                          : 0,
                       .kc = s[2],
                       .kcs = ypos == 2,
                       .pr = u->ord[2]};
  v->m3 = b->ccc      ? (const void *)((const uint32_t *)b->num3 + t3 * nmom3)
          : a->single ? (const void *)((const float *)b->num3 + t3)
                      : (const void *)((const double *)b->num3 + t3);
  for (int k = 0; k < 3; k++)
    v->w[u->ord[k]] = (uint64_t)1 << (2 - k);
  for (int k = 0; k < 4; k++)
    v->col[k] = b->ycol[k] ? b->ycol[k] + u->y : NULL;
  v->col[4] = b->ay + u->y, v->col[5] = b->xy + u->y;
  const size_t ra = a->a_off + u->p;
  if (!b->ccc) {
    v->row[0] = a->single ? (double)((const float *)b->n2ax)[ra * b->ldax + u->x]
                          : ((const double *)b->n2ax)[ra * b->ldax + u->x];
    v->row[1] = a->single ? (double)((const float *)b->sums_a)[ra]
                          : ((const double *)b->sums_a)[ra];
    v->row[2] = a->single ? (double)((const float *)b->sums_x)[u->x]
                          : ((const double *)b->sums_x)[u->x];
    return;
  }
  v->row[0] = (double)a->nf, v->row[1] = (double)r->s1x, v->row[2] = (double)r->s1p;
  v->row[3] = (double)r->n2ax;
  for (int bp = 0; bp < 2; bp++)
    for (int bx = 0; bx < 2; bx++) {
      const double gp = ccc3_factor(a, r->s1p, r->cp, bp),
                   gx = ccc3_factor(a, r->s1x, r->cx, bx);
      v->pxlo[2 * bp + bx] = gp < gx ? gp : gx;
      v->pxhi[2 * bp + bx] = gp < gx ? gx : gp;
    }
}

/* Czekanowski values of a run and their checksum terms (portable). */
SM_FIN3_CLONES
static void czek3_run(const fin3_blk_t *b, const run3_t *u, sm_fin_ck_t *ck, double *w)
{
  const sm_fin3_args_t *a = b->a;
  const size_t ra = a->a_off + u->p;
  uint64_t key[SM_FIN_RUN3];
  for (uint32_t c = 0; c < u->n; c++) {
    const uint32_t y = u->y + c;
    const size_t t3 = ((size_t)u->p * a->mx + u->x) * a->my + y;
    double n3, nax, nay, nxy, sa, sx, sy;
    if (a->single) {
      n3 = ((const float *)b->num3)[t3];
      nax = ((const float *)b->n2ax)[ra * b->ldax + u->x];
      nay = ((const float *)b->n2ay)[ra * b->lday + y];
      nxy = ((const float *)b->n2xy)[(size_t)u->x * b->ldxy + y];
      sa = ((const float *)b->sums_a)[ra];
      sx = ((const float *)b->sums_x)[u->x];
      sy = ((const float *)b->sums_y)[y];
    } else {
      n3 = ((const double *)b->num3)[t3];
      nax = ((const double *)b->n2ax)[ra * b->ldax + u->x];
      nay = ((const double *)b->n2ay)[ra * b->lday + y];
      nxy = ((const double *)b->n2xy)[(size_t)u->x * b->ldxy + y];
      sa = ((const double *)b->sums_a)[ra];
      sx = ((const double *)b->sums_x)[u->x];
      sy = ((const double *)b->sums_y)[y];
    }
    w[c] = sm_f_czek3(nax, nay, nxy, n3, sa, sx, sy);
    const uint32_t g3[3] = {a->a_glob + u->p, a->x0 + u->x, a->y0 + y};
    key[c] = sm_cksum_key3(g3[u->ord[0]], g3[u->ord[1]], g3[u->ord[2]]);
  }
  sm_fin_ck_terms(ck, w, key, u->n, 0);
}

/* The checksum terms of a run's CCC values w (role order), portable. */
static void ccc3_terms(const fin3_blk_t *b, const run3_t *u, const double *w,
                       sm_fin_ck_t *ck)
{
  const sm_fin3_args_t *a = b->a;
  uint64_t key[SM_FIN_RUN3];
  for (uint32_t c = 0; c < u->n; c++) {
    const uint32_t g3[3] = {a->a_glob + u->p, a->x0 + u->x, a->y0 + u->y + c};
    key[c] = sm_cksum_key3(g3[u->ord[0]], g3[u->ord[1]], g3[u->ord[2]]);
  }
  for (int e = 0; e < 8; e++)
    sm_fin_ck_terms(ck, w + (size_t)u->cell[e] * SM_FIN_RUN3, key, u->n,
                    (uint64_t)e * SM_CKSUM_ENTRY_STEP);
}

/* A run's values (w, role order for CCC) and their checksum terms. */
static void fin3_values(fin3_blk_t *b, const run3_t *u, row3_t *r, int none, double *w)
{
  const sm_fin3_args_t *a = b->a;
  if (none) { /* no counted entries in the plane or x (or nf = 0) */
    memset(w, 0, (size_t)b->ne * SM_FIN_RUN3 * sizeof(double));
    b->ck.n += (uint64_t)u->n * b->ne;
    return;
  }
  if (b->isa) {
    sm_fin3_run_t v;
    fin3_run(b, u, r, &v);
    const int st = b->isa->values3(&v, w, &b->ck);
    if (st == SM_FIN_DONE)
      return;
    if (st == SM_FIN_BIG) {
      if (b->ccc)
        ccc3_terms(b, u, w, &b->ck);
      else
        czek3_run(b, u, &b->ck, w);
      return;
    }
  }
  if (!b->ccc) {
    czek3_run(b, u, &b->ck, w);
    return;
  }
  const uint32_t g3[3] = {a->a_glob + u->p, 0, 0};
  const uint32_t gx = a->x0 + u->x, gfix[3] = {g3[0], gx, 0};
  for (int k = 0; k < 3; k++) {
    r->ysel[k] = u->ord[k] == 2;
    r->gfix[k] = u->ord[k] == 2 ? 0 : gfix[u->ord[k]];
  }
  for (int t = 0; t < 8; t++)
    r->lab[t] = u->lab[t];
  ccc3_run(a, r, u->y, u->n, &b->ck, w);
}

/* Records and histogram counts of a run, in the order of the triples and
 * their entries. */
static void fin3_emit(fin3_blk_t *b, const run3_t *u, sm_recbuf_t *out, const double *w)
{
  const sm_fin3_args_t *a = b->a;
  const double *ve[8];
  for (int e = 0; e < b->ne; e++)
    ve[e] = w + (size_t)(b->ccc ? u->cell[e] : 0) * SM_FIN_RUN3;
  if (a->emit) {
    uint8_t mk[SM_FIN_RUN3], gl[SM_FIN_RUN3 / 8];
    uint32_t ng;
    if (b->keep_all) {
      ng = (u->n + 7) / 8;
      for (uint32_t g = 0; g < ng; g++) {
        gl[g] = (uint8_t)g;
        memset(mk + 8 * g, u->n - 8 * g >= 8 ? 0xff : (1 << (u->n - 8 * g)) - 1, 8);
      }
    } else
      ng = b->keep(&b->thr, ve, u->n, b->ne, 3, mk, gl);
    const uint32_t gp = a->a_glob + u->p, gx = a->x0 + u->x;
    for (uint32_t k = 0; k < ng; k++) {
      const uint32_t c8 = gl[k] * 8u;
      const uint8_t *g = mk + c8;
      unsigned any = 0;
      for (int e = 0; e < b->ne; e++)
        any |= g[e];
      for (; any; any &= any - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(any), c = c8 + l;
        const uint32_t g3[3] = {gp, gx, a->y0 + u->y + c};
        const uint32_t idx[3] = {g3[u->ord[0]], g3[u->ord[1]], g3[u->ord[2]]};
        for (int e = 0; e < b->ne; e++)
          if (g[e] >> l & 1) {
            sm_rec_t *r = &out->rec[out->count++];
            memcpy(r->idx, idx, sizeof r->idx);
            r->entry = (uint32_t)e;
            r->value = ve[e][c];
          }
      }
    }
  }
  if (a->hist.bins)
    sm_fin_hc_add_all(&b->hc, ve, u->n, sm_recbuf_hist(out));
}

/* The (plane p, x) row's shared values for the portable CCC loops. */
static row3_t fin3_row(const fin3_blk_t *b, uint32_t p, uint32_t x)
{
  const sm_fin3_args_t *a = b->a;
  const size_t ra = a->a_off + p, nmom3 = SM_CCC3_NMOM(a->sparse);
  return (row3_t){
      .m3 = (const uint32_t *)b->num3 + ((size_t)p * a->mx + x) * a->my * nmom3,
      .n2xy = (const uint32_t *)b->n2xy + (size_t)x * b->ldxy,
      .n2ay = (const uint32_t *)b->n2ay + ra * b->lday,
      .sy = (const uint32_t *)b->sums_y,
      .n2ax = a->sparse ? 0 : ((const uint32_t *)b->n2ax)[ra * b->ldax + x],
      .s1p = ((const uint32_t *)b->sums_a)[2 * ra],
      .cp = ((const uint32_t *)b->sums_a)[2 * ra + 1],
      .s1x = ((const uint32_t *)b->sums_x)[2 * (size_t)x],
      .cx = ((const uint32_t *)b->sums_x)[2 * (size_t)x + 1],
      .gy0 = a->y0,
  };
}

static void fin3_rows(fin3_blk_t *b, sm_recbuf_t *out)
{
  const sm_fin3_args_t *a = b->a;
  const sm_keep3_t kept = {(uint32_t)a->kind, a->a_glob, a->x0, a->y0};
  double w[8 * SM_FIN_RUN3];
  for (uint32_t p = 0; p < a->g; p++)
    for (uint32_t x = 0; x < a->mx; x++) {
      const uint32_t gp = a->a_glob + p, gx = a->x0 + x;
      /* the kept y: all, or those above x (diagonal and face blocks) */
      uint32_t y = (uint32_t)sm_keep3_lo(&kept, p, x, a->my);
      if (y >= a->my)
        continue;
      row3_t r = {0};
      int none = 0;
      if (b->ccc) {
        r = fin3_row(b, p, x);
        none = r.cp == 0 || r.cx == 0 || a->nf == 0;
      }
      if (b->isa && !none)
        fin3_rowcols(b, a->a_off + p, x);
      while (y < a->my) {
        run3_t u = {.p = p, .x = x, .y = y};
        sm_order3(gp, gx, a->y0 + y, u.ord);
        /* the run of y with this order */
        uint32_t end = y + 1;
        while (end < a->my && end - y < SM_FIN_RUN3) {
          int o2[3];
          sm_order3(gp, gx, a->y0 + end, o2);
          if (o2[0] != u.ord[0] || o2[1] != u.ord[1])
            break;
          end++;
        }
        u.n = end - y;
        for (int t = 0; t < 8; t++) { /* role bits -> bits in sorted order */
          u.lab[t] = sm_label3(t, u.ord);
          u.cell[u.lab[t]] = (uint32_t)t;
        }
        fin3_values(b, &u, &r, none, w);
        if (a->emit || a->hist.bins)
          fin3_emit(b, &u, out, w);
        y = end;
      }
    }
}

void sm_kern_fin3_header(const sm_fin3_args_t *a, uint64_t count, const uint64_t sums[4],
                         sm_recbuf_t *h)
{
  const sm_keep3_t kept = {(uint32_t)a->kind, a->a_glob, a->x0, a->y0};
  uint64_t triples = 0;
  for (uint32_t p = 0; p < a->g; p++)
    for (uint32_t x = 0; x < a->mx; x++)
      triples += a->my - sm_keep3_lo(&kept, p, x, a->my);
  sm_fin_header(h, count, triples * (a->metric == 1 ? 8u : 1u), sums);
}

uint64_t sm_kern_finalize3(const sm_fin3_args_t *a, const void *num3, const void *n2ax,
                           size_t ldax, const void *n2ay, size_t lday, const void *n2xy,
                           size_t ldxy, const void *sums_a, const void *sums_x,
                           const void *sums_y, sm_recbuf_t *out)
{
  sm_fin_begin(out, &a->hist, a->emit ? sm_fin3_max_records(a) : 0);
  fin3_blk_t b = {.a = a,
                  .num3 = num3,
                  .n2ax = n2ax,
                  .n2ay = n2ay,
                  .n2xy = n2xy,
                  .sums_a = sums_a,
                  .sums_x = sums_x,
                  .sums_y = sums_y,
                  .ldax = ldax,
                  .lday = lday,
                  .ldxy = ldxy,
                  .ccc = a->metric == 1,
                  .ne = a->metric == 1 ? 8 : 1};
  const sm_fin_isa_t *isa = sm_fin_isa();
  b.keep = isa ? isa->keep : sm_fin_keep_port;
  b.isa = isa;
  if (b.ccc &&
      !(isfinite(a->ccc_mult) && isfinite(a->ccc_param) && a->nf < (uint64_t)1 << 32))
    b.isa = NULL; /* the factors' order is then the comparisons' alone */
  if (b.isa && !fin3_columns(&b))
    b.isa = NULL;
  b.keep_all = a->keep_all || (!(b.ccc && a->thr_ent.n) && !(a->threshold >= 0));
  b.thr = (sm_fin_thr_t){a->threshold, b.ccc && a->thr_ent.n ? a->thr_ent.t : NULL,
                         a->thr_f32, 0};
  sm_fin_hc_init(&b.hc, &a->hist, isa);
  fin3_rows(&b, out);
  if (a->hist.bins)
    sm_fin_hc_flush(&b.hc, sm_recbuf_hist(out));
  sm_fin_hc_free(&b.hc);
  free(b.ycol[0]);
  sm_fin_ck_flush(&out->cksum, &b.ck);
  out->nvalues += b.ck.n;
  return out->count;
}
