/* kern_ccc3.c: CCC 3-way planes. For a plane vector p, the fields split by
 * p's genotype (0, 1 or 2 copies; missing fields excluded when sparse); the
 * 2-way moments of x and y restricted to each part give every 3-way tally
 * exactly (the CCC paper's X_{j,xi} construction, as masks on bit planes). */
#include <string.h>

#include "sm_ccc_planes.h"
#include "sm_kern.h"

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
          unsigned cp = sm_gt_code(P + a * ldp, q), cx = sm_gt_code(X + x * ldx, q),
                   cy = sm_gt_code(Y + y * ldy, q);
          if (sparse) {
            if (cp == 2)
              continue;                  /* p missing: in no part */
            unsigned e = sm_gt_r(cp, 1); /* part E0, E1, E2 */
            unsigned rx = sm_gt_r(cx, 1), ry = sm_gt_r(cy, 1);
            unsigned px = sm_gt_m(cx, 1), py = sm_gt_m(cy, 1);
            o[4 * e + 0] += rx * ry;
            o[4 * e + 1] += rx * py;
            o[4 * e + 2] += px * ry;
            o[4 * e + 3] += px * py;
          } else {
            unsigned e = sm_gt_r(cp, 0);
            if (e)
              o[e - 1] += sm_gt_r(cx, 0) * sm_gt_r(cy, 0);
          }
        }
      }
}

/* The plane kernel: X and Y packed once per task (sm_ccc_planes.h, with
 * each vector's sums), then per plane, row x
 * and part e the row's planes restricted to the part in the packed form
 * (outside the part x is missing, sparse, or has no copy, dense) with its
 * sums recounted, and the fewest popcounts per word pair against each y
 * it keeps (keep: NULL, all; the others get 0). */
SM_POPC_CLONES
static int ccc3_packed(const sm_keep3_t *keep, size_t g, size_t mx, size_t my, size_t nf,
                       const uint64_t *P, size_t ldp, const uint64_t *X, size_t ldx,
                       const uint64_t *Y, size_t ldy, int sparse, uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), ncw = (nf + 31) / 32, nw = (ncw + 1) / 2;
  const int nparts = sparse ? 3 : 2, np = sparse ? 3 : 2;
  const int64_t n0 = (int64_t)nf;
  sm_cplanes_t px = {0}, py = {0};
  const int bad = sm_cplanes_pack(&px, mx, nf, X, ldx, sparse) ||
                  sm_cplanes_pack(&py, my, nf, Y, ldy, sparse);
  uint64_t *V = malloc((nw ? nw : 1) * sizeof *V), *mask = malloc(3 * (nw ? nw : 1) * 8);
  uint64_t *xr = malloc((size_t)np * (nw ? nw : 1) * sizeof *xr);
  if (bad || !V || !mask || !xr) {
    sm_cplanes_free(&px), sm_cplanes_free(&py);
    free(V), free(mask), free(xr);
    return -1;
  }
  for (size_t w = 0; w < nw; w++) { /* the fields that exist, packed */
    V[w] = 0;
    for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
      uint64_t lo, hi, valid;
      sm_gt_bits(0, nf - (2 * w + (size_t)half) * 32, &lo, &hi, &valid);
      V[w] |= valid << half;
    }
  }
  for (size_t a = 0; a < g; a++) {
    const uint64_t *prow = P + a * ldp;
    for (size_t w = 0; w < nw; w++) {
      uint64_t part[3] = {0, 0, 0};
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t lo, hi, valid, ph[3];
        sm_code_bits(prow, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
        sm_ccc3_parts(lo, hi, valid, sparse, ph);
        for (int e = 0; e < 3; e++)
          part[e] |= ph[e] << half;
      }
      for (int e = 0; e < 3; e++)
        mask[(size_t)e * nw + w] = part[e];
    }
    for (size_t x = 0; x < mx; x++) {
      uint32_t *orow = out + (a * mx + x) * my * nmom;
      const size_t lo = keep ? sm_keep3_lo(keep, a, x, my) : 0;
      memset(orow, 0, (lo < my ? lo : my) * nmom * sizeof *orow);
      if (lo >= my)
        continue;
      for (int e = 0; e < nparts; e++) {
        const uint64_t *E = mask + (size_t)e * nw;
        if (sparse) { /* x' = x with the fields outside E missing */
          const uint64_t *xp = px.p + x * 3 * nw;
          int64_t g3[3] = {0, 0, 0}; /* R, nX, nZ of x' */
          for (size_t w = 0; w < nw; w++) {
            const uint64_t Xw = xp[3 * w], Sw = xp[3 * w + 1], Dw = xp[3 * w + 2];
            const uint64_t X2 = (Xw & E[w]) | (V[w] & ~E[w]), S2 = Sw & E[w],
                           D2 = Dw & E[w];
            xr[3 * w] = X2, xr[3 * w + 1] = S2, xr[3 * w + 2] = D2;
            g3[0] += 2 * (int64_t)SM_POPC64(S2) + SM_POPC64(V[w] & E[w] & ~Xw & ~Dw);
            g3[1] += SM_POPC64(X2);
            g3[2] += SM_POPC64(D2 & ~S2);
          }
          for (size_t y = lo; y < my; y += 2) { /* two y per loaded x' word */
            const size_t y2 = y + 1 < my ? y + 1 : y;
            int64_t c0[4], c1[4];
            uint32_t m4[4];
            sm_cplanes_sparse2(nw, xr, py.p + y * 3 * nw, py.p + y2 * 3 * nw, c0, c1);
            sm_cplanes_moments(g3, py.marg + 3 * y, n0, c0, m4);
            memcpy(orow + y * nmom + 4 * (size_t)e, m4, sizeof m4);
            if (y2 != y) {
              sm_cplanes_moments(g3, py.marg + 3 * y2, n0, c1, m4);
              memcpy(orow + y2 * nmom + 4 * (size_t)e, m4, sizeof m4);
            }
          }
        } else { /* x' = x with no copy outside E */
          const uint64_t *xp = px.p + x * 2 * nw;
          int64_t R = 0;
          for (size_t w = 0; w < nw; w++) {
            const uint64_t Dw = xp[2 * w], Sw = xp[2 * w + 1];
            xr[2 * w] = (Dw & E[w]) | (V[w] & ~E[w]);
            xr[2 * w + 1] = Sw & E[w];
            R += 2 * (int64_t)SM_POPC64(Sw & E[w]) + SM_POPC64(V[w] & E[w] & ~Dw);
          }
          for (size_t y = lo; y < my; y++) {
            const uint64_t *yp = py.p + y * 2 * nw;
            int64_t c = 0;
            for (size_t w = 0; w < 2 * nw; w += 2)
              c += SM_DS_TERM(xr[w], xr[w + 1], yp[w], yp[w + 1]);
            orow[y * nmom + (size_t)e] = (uint32_t)(R + py.marg[3 * y] - n0 + c);
          }
        }
      }
    }
  }
  sm_cplanes_free(&px), sm_cplanes_free(&py);
  free(V), free(mask), free(xr);
  return 0;
}

void sm_kern_ccc3_popc_keep(const sm_keep3_t *keep, size_t g, size_t mx, size_t my,
                            size_t nf, const uint64_t *P, size_t ldp, const uint64_t *X,
                            size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
                            uint32_t *out)
{
  if (ccc3_packed(keep, g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out))
    sm_kern_ccc3_ref(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
}

void sm_kern_ccc3_popc(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                       size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                       size_t ldy, int sparse, uint32_t *out)
{
  sm_kern_ccc3_popc_keep(NULL, g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
}

void sm_kern_ccc3_on(sm_ccc2_kern_fn kern2, const sm_keep3_t *keep, size_t g, size_t mx,
                     size_t my, size_t nf, const uint64_t *P, size_t ldp,
                     const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy,
                     int sparse, uint32_t *out)
{
  const size_t nw = (nf + 31) / 32, nmom = SM_CCC3_NMOM(sparse), nm2 = sparse ? 4 : 1;
  const int nparts = sparse ? 3 : 2;
  uint64_t *Z = malloc((mx ? mx : 1) * ldx * sizeof *Z);
  uint64_t *parts = malloc(3 * (nw ? nw : 1) * sizeof *parts);
  uint32_t *T = malloc((mx && my ? mx * my : 1) * nm2 * sizeof *T);
  size_t *lo = malloc((mx ? mx : 1) * sizeof *lo);
  if (!Z || !parts || !T || !lo) {
    free(Z);
    free(parts);
    free(T);
    free(lo);
    sm_kern_ccc3_popc(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
    return;
  }
  if (ldx > nw) /* the padding words SIMD kernels may read: no fields */
    for (size_t x = 0; x < mx; x++)
      memset(Z + x * ldx + nw, 0, (ldx - nw) * sizeof *Z);
  for (size_t a = 0; a < g; a++) {
    const uint64_t *p = P + a * ldp;
    /* the first y each row keeps (keep: the slice's share of the triple) */
    size_t lo_min = my;
    for (size_t x = 0; x < mx; x++) {
      lo[x] = keep ? sm_keep3_lo(keep, a, x, my) : 0;
      lo_min = lo[x] < lo_min ? lo[x] : lo_min;
    }
    if (lo_min >= my) { /* the plane keeps nothing here */
      memset(out + a * mx * my * nmom, 0, mx * my * nmom * sizeof *out);
      continue;
    }
    /* one 2-way call per part (the kernels pack both operands per call) on
     * the rows from the first that keeps a y, the columns from the first y
     * any of them keeps: a third of the triple on the diagonal */
    size_t xf = 0;
    while (lo[xf] >= my)
      xf++;
    for (size_t w = 0; w < nw; w++) {
      uint64_t lw, hw, valid, pt[3];
      sm_gt_bits(p[w], nf - 32 * w, &lw, &hw, &valid);
      sm_ccc3_parts(lw, hw, valid, sparse, pt);
      for (int e = 0; e < 3; e++)
        parts[e * nw + w] = pt[e];
    }
    for (int e = 0; e < nparts; e++) {
      /* x restricted to part e: the other fields add nothing (missing when
       * sparse, no copy of allele 1 when dense) */
      for (size_t x = xf; x < mx; x++)
        for (size_t w = 0; w < nw; w++) {
          uint64_t lw, hw, valid;
          sm_gt_bits(0, nf - 32 * w, &lw, &hw, &valid);
          const uint64_t E = parts[e * nw + w], km = E | (E << 1);
          const uint64_t xw = X[x * ldx + w];
          Z[x * ldx + w] = sparse ? (xw & km) | ((~E & valid) << 1) : xw & km;
        }
      kern2(mx - xf, my - lo_min, nf, Z + xf * ldx, ldx, Y + lo_min * ldy, ldy, sparse,
            T + (xf * my + lo_min) * nm2, my);
      for (size_t x = 0; x < mx; x++)
        for (size_t y = 0; y < my; y++)
          for (size_t t = 0; t < nm2; t++)
            out[((a * mx + x) * my + y) * nmom +
                (sparse ? 4 * (size_t)e + t : (size_t)e)] =
                y >= lo[x] ? T[(x * my + y) * nm2 + t] : 0;
    }
  }
  free(Z);
  free(parts);
  free(T);
  free(lo);
}
