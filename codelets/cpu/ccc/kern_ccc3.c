/* kern_ccc3.c: CCC 3-way planes. For a plane vector p, the fields split by
 * p's genotype (0, 1 or 2 copies; missing fields excluded when sparse); the
 * 2-way moments of x and y restricted to each part give every 3-way tally
 * exactly (the CCC paper's X_{j,xi} construction, as masks on bit planes). */
#include <string.h>

#include "sm_ccc_short.h"
#include "sm_kern.h"
#include "sm_kern_simd.h"

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

/* The plane kernel on the short-vector tiles of isa (sm_ccc_short.h): X
 * and Y packed in lanes once per task, then per plane and part e the rows
 * of X restricted to the part (outside it x is missing, sparse, or has no
 * copy, dense; its sums recounted) against Y, tile by tile, the tiles
 * holding no kept triple skipped (keep: NULL, all; the others get 0). */
static int ccc3_lanes(const sm_short_isa_t *isa, const sm_keep3_t *keep, size_t g,
                      size_t mx, size_t my, size_t nf, const uint64_t *P, size_t ldp,
                      const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy,
                      int sparse, uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), ncw = (nf + 31) / 32, nw = (ncw + 1) / 2;
  const int nparts = sparse ? 3 : 2;
  sm_clanes_t px = {0}, py = {0}, xr = {0};
  const int bad = sm_clanes_pack(isa, &px, mx, nf, X, ldx, sparse) ||
                  sm_clanes_pack(isa, &py, my, nf, Y, ldy, sparse) ||
                  sm_clanes_alloc(&xr, mx, nf, sparse, isa->L);
  uint64_t *V = malloc((nw ? nw : 1) * sizeof *V), *mask = malloc(3 * (nw ? nw : 1) * 8);
  size_t *lo = malloc((mx ? mx : 1) * sizeof *lo);
  if (bad || !V || !mask || !lo) {
    sm_clanes_free(&px), sm_clanes_free(&py), sm_clanes_free(&xr);
    free(V), free(mask), free(lo);
    return -1;
  }
  for (size_t w = 0; w < nw; w++) { /* the fields that exist, packed */
    V[w] = 0;
    for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
      uint64_t l, h, valid;
      sm_gt_bits(0, nf - (2 * w + (size_t)half) * 32, &l, &h, &valid);
      V[w] |= valid << half;
    }
  }
  for (size_t a = 0; a < g; a++) {
    const uint64_t *prow = P + a * ldp;
    for (size_t w = 0; w < nw; w++) {
      uint64_t part[3] = {0, 0, 0};
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t l, h, valid, ph[3];
        sm_code_bits(prow, 2 * w + (size_t)half, nf, &l, &h, &valid);
        sm_ccc3_parts(l, h, valid, sparse, ph);
        for (int e = 0; e < 3; e++)
          part[e] |= ph[e] << half;
      }
      for (int e = 0; e < 3; e++)
        mask[(size_t)e * nw + w] = part[e];
    }
    size_t xf = mx; /* the first row that keeps a triple */
    for (size_t x = 0; x < mx; x++) {
      lo[x] = keep ? sm_keep3_lo(keep, a, x, my) : 0;
      if (lo[x] < my && xf == mx)
        xf = x;
    }
    uint32_t *oa = out + a * mx * my * nmom;
    for (int e = 0; e < nparts && xf < mx; e++) {
      isa->restrict3(&px, mx, mask + (size_t)e * nw, V, &xr);
      sm_ccc2_short_tiles(isa, mx, my, &xr, &py, nf, sparse,
                          oa + (sparse ? 4 * (size_t)e : (size_t)e), my * nmom, nmom, lo,
                          0);
    }
    for (size_t x = 0; x < mx; x++) /* the triples not kept (the tiles computed some) */
      memset(oa + x * my * nmom, 0, (lo[x] < my ? lo[x] : my) * nmom * sizeof *oa);
  }
  sm_clanes_free(&px), sm_clanes_free(&py), sm_clanes_free(&xr);
  free(V), free(mask), free(lo);
  return 0;
}

void sm_kern_ccc3_popc_isa(sm_kvar_t v, const sm_keep3_t *keep, size_t g, size_t mx,
                           size_t my, size_t nf, const uint64_t *P, size_t ldp,
                           const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy,
                           int sparse, uint32_t *out)
{
  if (ccc3_lanes(sm_short_isa(v), keep, g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse,
                 out))
    sm_kern_ccc3_ref(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, out);
}

void sm_kern_ccc3_popc_keep(const sm_keep3_t *keep, size_t g, size_t mx, size_t my,
                            size_t nf, const uint64_t *P, size_t ldp, const uint64_t *X,
                            size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
                            uint32_t *out)
{
  if (ccc3_lanes(sm_short_best(), keep, g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse,
                 out))
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
