/* kern_ccc3.c: CCC 3-way planes. For a plane vector p, the fields split by
 * p's genotype (0, 1 or 2 copies; missing fields excluded when sparse); the
 * 2-way moments of x and y restricted to each part give every 3-way tally
 * exactly (the CCC paper's X_{j,xi} construction, as masks on bit planes). */
#include <string.h>

#include "sm_ccc_planes.h"
#include "sm_kern.h"

static inline unsigned code_at(const uint64_t *row, size_t f)
{
  return (unsigned)(row[f / 32] >> (2 * (f % 32))) & 3u;
}

/* copies of allele 1 of code c (dense: missing counts as one) */
static inline unsigned r_of(unsigned c, int sparse)
{
  static const unsigned rd[4] = {0, 1, 1, 2}, rs[4] = {0, 1, 0, 2};
  return sparse ? rs[c] : rd[c];
}

void sm_kern_ccc3_ref(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                      size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                      size_t ldy, int sparse, uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse);
  for (size_t a = 0; a < g; a++)
    for (size_t x = 0; x < mx; x++)
      for (size_t y = 0; y < my; y++) {
        uint32_t *o = out + ((a * mx + x) * my + y) * nmom;
        memset(o, 0, nmom * sizeof *o);
        for (size_t q = 0; q < nf; q++) {
          unsigned cp = code_at(P + a * ldp, q), cx = code_at(X + x * ldx, q),
                   cy = code_at(Y + y * ldy, q);
          if (sparse) {
            if (cp == 2)
              continue; /* p missing: in no part */
            unsigned e = r_of(cp, 1); /* part E0, E1, E2 */
            unsigned rx = r_of(cx, 1), ry = r_of(cy, 1), px = cx != 2, py = cy != 2;
            o[4 * e + 0] += rx * ry;
            o[4 * e + 1] += rx * py;
            o[4 * e + 2] += px * ry;
            o[4 * e + 3] += px * py;
          } else {
            unsigned e = r_of(cp, 0);
            if (e)
              o[e - 1] += r_of(cx, 0) * r_of(cy, 0);
          }
        }
      }
}

SM_POPC_CLONES
void sm_kern_ccc3_popc(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                       size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                       size_t ldy, int sparse, uint32_t *out)
{
  sm_planes_t px, py;
  if (sm_planes_pack(&px, mx, nf, X, ldx, sparse)) {
    sm_kern_ccc3_ref(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
    return;
  }
  if (sm_planes_pack(&py, my, nf, Y, ldy, sparse)) {
    free(px.p);
    sm_kern_ccc3_ref(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
    return;
  }
  const size_t nw = px.nw, np = (size_t)px.np, nmom = SM_CCC3_NMOM(sparse);
  const int nparts = sparse ? 3 : 2;
  /* masks of the plane's parts, and x's planes restricted to them */
  uint64_t *mask = malloc(3 * (nw ? nw : 1) * sizeof *mask);
  uint64_t *xm = malloc(3 * np * (nw ? nw : 1) * sizeof *xm);
  if (!mask || !xm) {
    free(mask), free(xm), free(px.p), free(py.p);
    sm_kern_ccc3_ref(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
    return;
  }
  const size_t ncw = (nf + 31) / 32;
  for (size_t a = 0; a < g; a++) {
    const uint64_t *prow = P + a * ldp;
    for (size_t w = 0; w < nw; w++) {
      uint64_t e0 = 0, e1 = 0, e2 = 0;
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t lo, hi, valid;
        sm_code_bits(prow, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
        if (sparse) {
          e0 |= (~lo & ~hi & valid) << half; /* 00 */
          e1 |= (lo & ~hi & valid) << half;  /* 01 */
        } else {
          e1 |= ((lo ^ hi) & valid) << half; /* 01 or 10: one copy */
        }
        e2 |= (lo & hi & valid) << half;     /* 11 */
      }
      /* parts in output order: sparse E0, E1, E2; dense E1, E2 */
      if (sparse) {
        mask[w] = e0;
        mask[nw + w] = e1;
        mask[2 * nw + w] = e2;
      } else {
        mask[w] = e1;
        mask[nw + w] = e2;
      }
    }
    for (size_t x = 0; x < mx; x++) {
      const uint64_t *xp = px.p + x * np * nw;
      for (int e = 0; e < nparts; e++)
        for (size_t k = 0; k < np; k++)
          for (size_t w = 0; w < nw; w++)
            xm[((size_t)e * np + k) * nw + w] = xp[k * nw + w] & mask[(size_t)e * nw + w];
      for (size_t y = 0; y < my; y++) {
        const uint64_t *yp = py.p + y * np * nw;
        uint32_t *o = out + ((a * mx + x) * my + y) * nmom;
        for (int e = 0; e < nparts; e++) {
          const uint64_t *m = xm + (size_t)e * np * nw;
          if (sparse)
            sm_planes_moments(nw, m, m + nw, m + 2 * nw, yp, yp + nw, yp + 2 * nw,
                              o + 4 * e);
          else
            o[e] = sm_planes_rr(nw, m, m + nw, yp, yp + nw);
        }
      }
    }
  }
  free(mask), free(xm), free(px.p), free(py.p);
}
