/* kern_finalize3.c: metric values of a 3-way piece (a group of planes
 * against tiles X and Y) from its plane numerators, the 2-way numerators
 * and the vector sums; records with ascending indices and the checksum. */
/* The whole file (the inline formulas too, so that they still inline) at
 * -O3, where GCC vectorizes loops; no-trapping-math lets it if-convert
 * selects: no value changes (as kern_finalize2.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif
#include "kern_finalize_impl.h"
#include "sm_formulas.h"
#include "sm_kern.h"

/* Value v of entry e (all[] the result's values per entry, NULL for
 * czekanowski) into the piece's checksum terms ck and, when wanted, its
 * records and histogram. */
static inline void emit3(const sm_fin3_args_t *a, sm_recbuf_t *out, sm_fin_ck_t *ck,
                         const uint32_t idx[3], uint64_t key, uint32_t e,
                         const double *all, double v)
{
  sm_fin_ck_add(ck, key, e, v);
  if (a->emit || a->hist.bins)
    sm_fin_emit(out, &a->hist, SM_FIN_KEEP(a, 3, all, e, v), idx, e, v);
}

/* ---- CCC: a (plane, x) row's triples in runs of y over which the order of
 * the three indices does not change (at most three per row). The values
 * are computed in role order (p, x, y bits of the table entry): the CCC
 * value of a table cell does not depend on the order its three vectors
 * are given in (sm_f_ccc3 sorts its factors), so they are the values of
 * sm_ccc3_values, only labelled by role; lab[u] is the entry's label in
 * ascending-index order, as written. Loops GCC vectorizes compute them
 * and the checksum terms; records and histogram counts follow only when
 * wanted. */
enum { RUN3 = 128 };

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
  double w0[RUN3], w1[RUN3], w2[RUN3], w3[RUN3], w4[RUN3], w5[RUN3], w6[RUN3], w7[RUN3];
  uint64_t key[RUN3];
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
      memcpy(out + u * RUN3, w[u], n * sizeof *out);
}

static void finalize3_ccc(const sm_fin3_args_t *a, const void *num3, const void *n2ax,
                          size_t ldax, const void *n2ay, size_t lday, const void *n2xy,
                          size_t ldxy, const void *sums_a, const void *sums_x,
                          const void *sums_y, sm_recbuf_t *out)
{
  const size_t nmom3 = SM_CCC3_NMOM(a->sparse);
  const int emit = a->emit || a->hist.bins;
  sm_fin_ck_t ck = {0, 0, 0, 0};
  double vals[8 * RUN3];
  const sm_keep3_t kept = {(uint32_t)a->kind, a->a_glob, a->x0, a->y0};
  for (uint32_t p = 0; p < a->g; p++)
    for (uint32_t x = 0; x < a->mx; x++) {
      const uint32_t gp = a->a_glob + p, gx = a->x0 + x;
      /* the kept y: all, or those above x (diagonal and face blocks) */
      uint32_t y = (uint32_t)sm_keep3_lo(&kept, p, x, a->my);
      if (y >= a->my)
        continue;
      const size_t ra = a->a_off + p;
      row3_t r = {
          .m3 = (const uint32_t *)num3 + ((size_t)p * a->mx + x) * a->my * nmom3,
          .n2xy = (const uint32_t *)n2xy + (size_t)x * ldxy,
          .n2ay = (const uint32_t *)n2ay + ra * lday,
          .sy = (const uint32_t *)sums_y,
          .n2ax = a->sparse ? 0 : ((const uint32_t *)n2ax)[ra * ldax + x],
          .s1p = ((const uint32_t *)sums_a)[2 * ra],
          .cp = ((const uint32_t *)sums_a)[2 * ra + 1],
          .s1x = ((const uint32_t *)sums_x)[2 * (size_t)x],
          .cx = ((const uint32_t *)sums_x)[2 * (size_t)x + 1],
          .gy0 = a->y0,
      };
      while (y < a->my) {
        int ord[3];
        sm_order3(gp, gx, a->y0 + y, ord);
        /* the run of y with this order */
        uint32_t end = y + 1;
        while (end < a->my && end - y < RUN3) {
          int o2[3];
          sm_order3(gp, gx, a->y0 + end, o2);
          if (o2[0] != ord[0] || o2[1] != ord[1])
            break;
          end++;
        }
        const uint32_t g3[3] = {gp, gx, 0};
        for (int k = 0; k < 3; k++) {
          r.ysel[k] = ord[k] == 2;
          r.gfix[k] = ord[k] == 2 ? 0 : g3[ord[k]];
        }
        for (int u = 0; u < 8; u++) /* role bits -> bits in sorted order */
          r.lab[u] = sm_label3(u, ord);
        ccc3_run(a, &r, y, end - y, &ck, emit ? vals : NULL);
        if (emit) {
          uint32_t cell[8]; /* role-order cell of each label */
          for (int u = 0; u < 8; u++)
            cell[r.lab[u]] = (uint32_t)u;
          for (uint32_t c = 0; c < end - y; c++) {
            const uint32_t g3y[3] = {gp, gx, a->y0 + y + c};
            const uint32_t idx[3] = {g3y[ord[0]], g3y[ord[1]], g3y[ord[2]]};
            double all[8];
            for (int e = 0; e < 8; e++)
              all[e] = vals[cell[e] * RUN3 + c];
            for (uint32_t e = 0; e < 8; e++) {
              const int keep =
                  a->emit &&
                  (a->keep_all ||
                   (a->thr_ent.n ? sm_thr_list_keep(&a->thr_ent, 3, a->thr_f32, all, e)
                                 : sm_threshold_keep(a->threshold, a->thr_f32, all[e])));
              sm_fin_emit(out, &a->hist, keep, idx, e, all[e]);
            }
          }
        }
        y = end;
      }
    }
  sm_fin_ck_flush(&out->cksum, &ck);
  out->nvalues += ck.n;
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
  if (a->metric == 1) {
    finalize3_ccc(a, num3, n2ax, ldax, n2ay, lday, n2xy, ldxy, sums_a, sums_x, sums_y,
                  out);
    return out->count;
  }
  sm_fin_ck_t ck = {0, 0, 0, 0};
  const sm_keep3_t kept = {(uint32_t)a->kind, a->a_glob, a->x0, a->y0};
  for (uint32_t p = 0; p < a->g; p++)
    for (uint32_t x = 0; x < a->mx; x++)
      for (uint32_t y = (uint32_t)sm_keep3_lo(&kept, p, x, a->my); y < a->my; y++) {
        const uint32_t gp = a->a_glob + p, gx = a->x0 + x, gy = a->y0 + y;
        const size_t t3 = ((size_t)p * a->mx + x) * a->my + y, ra = a->a_off + p;
        /* ascending order of the three vectors: role of each position */
        const uint32_t g3[3] = {gp, gx, gy};
        int ord[3];
        sm_order3(gp, gx, gy, ord);
        const uint32_t idx[3] = {g3[ord[0]], g3[ord[1]], g3[ord[2]]};
        const uint64_t key = sm_cksum_key(idx, 3);
        double n3, nax, nay, nxy, sa, sx, sy;
        if (a->single) {
          n3 = ((const float *)num3)[t3];
          nax = ((const float *)n2ax)[ra * ldax + x];
          nay = ((const float *)n2ay)[ra * lday + y];
          nxy = ((const float *)n2xy)[(size_t)x * ldxy + y];
          sa = ((const float *)sums_a)[ra];
          sx = ((const float *)sums_x)[x];
          sy = ((const float *)sums_y)[y];
        } else {
          n3 = ((const double *)num3)[t3];
          nax = ((const double *)n2ax)[ra * ldax + x];
          nay = ((const double *)n2ay)[ra * lday + y];
          nxy = ((const double *)n2xy)[(size_t)x * ldxy + y];
          sa = ((const double *)sums_a)[ra];
          sx = ((const double *)sums_x)[x];
          sy = ((const double *)sums_y)[y];
        }
        emit3(a, out, &ck, idx, key, 0, NULL, sm_f_czek3(nax, nay, nxy, n3, sa, sx, sy));
      }
  sm_fin_ck_flush(&out->cksum, &ck);
  out->nvalues += ck.n;
  return out->count;
}
