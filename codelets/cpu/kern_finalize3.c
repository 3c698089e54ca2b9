/* kern_finalize3.c: metric values of a 3-way piece (a group of planes
 * against tiles X and Y) from its plane numerators, the 2-way numerators
 * and the vector sums; records with ascending indices and the checksum. */
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

/* The 2x2x2 tallies in role order (p, x, y) from the moments
 * M[up][ux][uy] (index 1: r, the copies of allele 1 on present entries;
 * 0: m, presence): rho(1) = r and rho(0) = 2m - r, applied one axis at a
 * time (three butterflies of four pairs instead of expanding 64 terms). */
static void tallies_from_moments(const int64_t M[2][2][2], uint64_t T[8])
{
  int64_t t[8];
  for (int u = 0; u < 8; u++)
    t[u] = M[(u >> 2) & 1][(u >> 1) & 1][u & 1];
  for (int axis = 0; axis < 3; axis++) {
    int bit = 4 >> axis;
    for (int u = 0; u < 8; u++)
      if (!(u & bit)) {
        int64_t m = t[u], r = t[u | bit];
        t[u] = 2 * m - r; /* entry 0 of this axis */
      }
  }
  for (int e = 0; e < 8; e++)
    T[e] = (uint64_t)t[e];
}

uint64_t sm_kern_finalize3(const sm_fin3_args_t *a, const void *num3, const void *n2ax,
                           size_t ldax, const void *n2ay, size_t lday, const void *n2xy,
                           size_t ldxy, const void *sums_a, const void *sums_x,
                           const void *sums_y, sm_recbuf_t *out)
{
  sm_fin_begin(out, &a->hist, a->emit ? sm_fin3_max_records(a) : 0);
  const size_t nmom3 = SM_CCC3_NMOM(a->sparse);
  sm_fin_ck_t ck = {0, 0, 0, 0};
  for (uint32_t p = 0; p < a->g; p++)
    for (uint32_t x = 0; x < a->mx; x++)
      for (uint32_t y = 0; y < a->my; y++) {
        const uint32_t gp = a->a_glob + p, gx = a->x0 + x, gy = a->y0 + y;
        if (a->kind == 0 && !(gp < gx && gx < gy))
          continue;
        if (a->kind == 1 && !(gx < gy))
          continue;
        const size_t t3 = ((size_t)p * a->mx + x) * a->my + y, ra = a->a_off + p;
        /* ascending order of the three vectors: role of each position */
        uint32_t g3[3] = {gp, gx, gy};
        int ord[3] = {0, 1, 2}, tmp;
        if (g3[ord[0]] > g3[ord[1]]) {
          tmp = ord[0];
          ord[0] = ord[1];
          ord[1] = tmp;
        }
        if (g3[ord[1]] > g3[ord[2]]) {
          tmp = ord[1];
          ord[1] = ord[2];
          ord[2] = tmp;
        }
        if (g3[ord[0]] > g3[ord[1]]) {
          tmp = ord[0];
          ord[0] = ord[1];
          ord[1] = tmp;
        }
        const uint32_t idx[3] = {g3[ord[0]], g3[ord[1]], g3[ord[2]]};
        const uint64_t key = sm_cksum_key(idx, 3);
        if (a->metric == 0) {
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
          emit3(a, out, &ck, idx, key, 0, NULL,
                sm_f_czek3(nax, nay, nxy, n3, sa, sx, sy));
          continue;
        }
        const uint32_t *m3 = (const uint32_t *)num3 + t3 * nmom3;
        const uint32_t *su[3] = {(const uint32_t *)sums_a + 2 * ra,
                                 (const uint32_t *)sums_x + 2 * (size_t)x,
                                 (const uint32_t *)sums_y + 2 * (size_t)y};
        int64_t M[2][2][2];
        if (a->sparse) {
          /* M[1][.][.]: parts E1 + 2 E2; M[0][.][.]: E0 + E1 + E2 */
          for (int bx = 0; bx < 2; bx++)
            for (int by = 0; by < 2; by++) {
              int k = (bx ? 0 : 2) + (by ? 0 : 1); /* rr, rm, mr, mm */
              M[1][bx][by] = (int64_t)m3[4 + k] + 2 * (int64_t)m3[8 + k];
              M[0][bx][by] = (int64_t)m3[k] + m3[4 + k] + m3[8 + k];
            }
        } else {
          M[1][1][1] = (int64_t)m3[0] + 2 * (int64_t)m3[1];
          M[0][1][1] = ((const uint32_t *)n2xy)[(size_t)x * ldxy + y];
          M[1][1][0] = ((const uint32_t *)n2ax)[ra * ldax + x];
          M[1][0][1] = ((const uint32_t *)n2ay)[ra * lday + y];
          M[1][0][0] = su[0][0];
          M[0][1][0] = su[1][0];
          M[0][0][1] = su[2][0];
          M[0][0][0] = (int64_t)a->nf;
        }
        uint64_t Tr[8], T[8], s1[3], c[3];
        tallies_from_moments(M, Tr);
        /* entry bits in ascending-index order */
        for (int e = 0; e < 8; e++) {
          int bits[3] = {0, 0, 0};
          for (int k = 0; k < 3; k++)
            bits[ord[k]] = (e >> (2 - k)) & 1;
          T[e] = Tr[bits[0] * 4 + bits[1] * 2 + bits[2]];
        }
        for (int k = 0; k < 3; k++) {
          s1[k] = su[ord[k]][0];
          c[k] = su[ord[k]][1];
        }
        double v[8];
        sm_ccc3_values(T, s1, c, a->nf, !a->sparse, a->ccc_mult, a->ccc_param, v);
        for (uint32_t e = 0; e < 8; e++)
          emit3(a, out, &ck, idx, key, e, v, v[e]);
      }
  sm_fin_ck_flush(&out->cksum, &ck);
  out->nvalues += ck.n;
  return out->count;
}
