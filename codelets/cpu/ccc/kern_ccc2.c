/* kern_ccc2.c: CCC 2-way moments of genotype pairs (plain reference loops,
 * and the bit-plane AND + popcount kernel) and the per-vector allele sums. */
#include <stdlib.h>
#include <string.h>

#include "sm_ccc_planes.h"
#include "sm_kern.h"

void sm_kern_ccc2_ref(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      uint32_t rr = 0, rm = 0, mr = 0, mm = 0;
      for (size_t q = 0; q < nf; q++) {
        unsigned ci = sm_gt_code(A + i * lda, q), cj = sm_gt_code(B + j * ldb, q);
        unsigned ri = sm_gt_r(ci, sparse), rj = sm_gt_r(cj, sparse);
        unsigned mi = sm_gt_m(ci, sparse), mj = sm_gt_m(cj, sparse);
        rr += ri * rj;
        rm += ri * mj;
        mr += mi * rj;
        mm += mi * mj;
      }
      uint32_t *c = C + (i * ldc + j) * nmom;
      c[0] = rr;
      if (sparse) {
        c[1] = rm;
        c[2] = mr;
        c[3] = mm;
      }
    }
}

/* Word at a time: lo/hi bits of the 32 codes of a word, pad bits zero. */
SM_POPC_CLONES
void sm_kern_sums_ccc(size_t nv, size_t nf, const uint64_t *X, size_t ldx, int sparse,
                      uint32_t *s)
{
  const size_t ncw = (nf + 31) / 32;
  for (size_t v = 0; v < nv; v++) {
    uint32_t s1 = 0, nmiss = 0;
    for (size_t w = 0; w < ncw; w++) {
      uint64_t lo, hi, valid, p1, p2, pm;
      sm_code_bits(X + v * ldx, w, nf, &lo, &hi, &valid);
      sm_gt_planes(lo, hi, valid, sparse, &p1, &p2, &pm);
      s1 += SM_POPC64(p1) + SM_POPC64(p2); /* r = P1 + P2 */
      nmiss += SM_POPC64(hi & ~lo & valid);
    }
    s[2 * v] = s1;
    s[2 * v + 1] = sparse ? (uint32_t)nf - nmiss : (uint32_t)nf;
  }
}

/* ---- dense, two popcounts per word pair: with u = r - 1 in {-1, 0, 1},
 * D = (u != 0) and S = (u > 0) (fields that exist only),
 *   sum r_i r_j = sum_i r + sum_j r - n + |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)|
 * (bench/README.md). Planes 64 fields per word, as sm_planes_pack's. */
typedef struct ds_planes {
  size_t nw;
  uint64_t *p; /* [v][w][D, S]: a word's two planes side by side */
  int64_t *sr; /* sum of r per vector */
} ds_planes_t;

static int ds_pack(ds_planes_t *pl, size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  const size_t ncw = (nf + 31) / 32;
  pl->nw = (ncw + 1) / 2;
  pl->p = malloc((nv ? nv : 1) * 2 * (pl->nw ? pl->nw : 1) * sizeof *pl->p);
  pl->sr = malloc((nv ? nv : 1) * sizeof *pl->sr);
  if (!pl->p || !pl->sr) {
    free(pl->p), free(pl->sr);
    return -1;
  }
  for (size_t v = 0; v < nv; v++) {
    uint64_t *d = pl->p + v * 2 * pl->nw;
    int64_t sr = 0;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t dw = 0, sw = 0;
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t lo, hi, valid, p1, p2, pm;
        sm_code_bits(X + v * ldx, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
        sm_gt_planes(lo, hi, valid, 0, &p1, &p2, &pm);
        sr += SM_POPC64(p1) + SM_POPC64(p2);
        dw |= (~(p1 ^ p2) & valid) << half; /* r = 0 or 2 */
        sw |= p2 << half;                   /* r = 2 */
      }
      d[2 * w] = dw;
      d[2 * w + 1] = sw;
    }
    pl->sr[v] = sr;
  }
  return 0;
}

/* |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)| of one word */
#define SM_DS_TERM(d0, s0, d1, s1)                                                       \
  ((int64_t)SM_POPC64((d0) & (d1)) - 2 * (int64_t)SM_POPC64((d0) & (d1) & ((s0) ^ (s1))))

/* Rows i, i + 1 against columns j, j + 1 (2 x 2 pairs per 4 words
 * loaded), one sum per pair: 16 registers hold it all. */
static inline __attribute__((always_inline)) void
ds_tile2(size_t nw, const uint64_t *a0, const uint64_t *a1, const uint64_t *b0,
         const uint64_t *b1, int64_t acc[4])
{
  int64_t c00 = 0, c01 = 0, c10 = 0, c11 = 0;
  for (size_t w = 0; w < 2 * nw; w += 2) {
    const uint64_t da = a0[w], dA = a1[w], db = b0[w], dB = b1[w];
    const uint64_t sa = a0[w + 1], sA = a1[w + 1], sb = b0[w + 1], sB = b1[w + 1];
    c00 += SM_DS_TERM(da, sa, db, sb);
    c01 += SM_DS_TERM(da, sa, dB, sB);
    c10 += SM_DS_TERM(dA, sA, db, sb);
    c11 += SM_DS_TERM(dA, sA, dB, sB);
  }
  acc[0] = c00, acc[1] = c01, acc[2] = c10, acc[3] = c11;
}

static inline __attribute__((always_inline)) int64_t ds_one(size_t nw, const uint64_t *a,
                                                            const uint64_t *b)
{
  int64_t c = 0;
  for (size_t w = 0; w < 2 * nw; w += 2)
    c += SM_DS_TERM(a[w], a[w + 1], b[w], b[w + 1]);
  return c;
}

SM_POPC_CLONES
static int ccc2_dense_ds(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                         const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc)
{
  ds_planes_t pa, pb;
  if (ds_pack(&pa, m, nf, A, lda))
    return -1;
  if (ds_pack(&pb, n, nf, B, ldb)) {
    free(pa.p), free(pa.sr);
    return -1;
  }
  const size_t nw = pa.nw, st = 2 * nw, TB = 32; /* tiles whose planes stay in L2 */
  const int64_t n0 = (int64_t)nf;
  for (size_t i0 = 0; i0 < m; i0 += TB)
    for (size_t j0 = 0; j0 < n; j0 += TB) {
      const size_t i1 = i0 + TB < m ? i0 + TB : m, j1 = j0 + TB < n ? j0 + TB : n;
      size_t i = i0;
      for (; i + 1 < i1; i += 2) {
        size_t j = j0;
        for (; j + 1 < j1; j += 2) {
          int64_t acc[4];
          ds_tile2(nw, pa.p + i * st, pa.p + (i + 1) * st, pb.p + j * st,
                   pb.p + (j + 1) * st, acc);
          for (int k = 0; k < 4; k++) {
            const size_t r = i + (size_t)(k >> 1), c = j + (size_t)(k & 1);
            C[r * ldc + c] = (uint32_t)(pa.sr[r] + pb.sr[c] - n0 + acc[k]);
          }
        }
        for (; j < j1; j++)
          for (size_t r = i; r < i + 2; r++)
            C[r * ldc + j] = (uint32_t)(pa.sr[r] + pb.sr[j] - n0 +
                                        ds_one(nw, pa.p + r * st, pb.p + j * st));
      }
      for (; i < i1; i++)
        for (size_t j = j0; j < j1; j++)
          C[i * ldc + j] = (uint32_t)(pa.sr[i] + pb.sr[j] - n0 +
                                      ds_one(nw, pa.p + i * st, pb.p + j * st));
    }
  free(pa.p), free(pa.sr), free(pb.p), free(pb.sr);
  return 0;
}

/* ---- sparse, five popcounts per word pair (the fewest, bench/README.md):
 * planes X = missing, S = (r == 2), D = S | Z with Z = present 0, and per
 * vector R = sum of r, nX, nZ; per pair the raw counts
 *   tu = |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)|, fy = |Xj ? Si : Zi|,
 *   fx = |Xi ? Sj : Zj|, xx = |Xi & Xj|
 * give mm = n - nXi - nXj + xx, rm = Ri - nXj + xx - fy + nZi,
 * mr = Rj - nXi + xx - fx + nZj, rr = rm + mr - mm + tu. */
typedef struct xsd_planes {
  size_t nw;
  uint64_t *p;   /* [v][w][X, S, D] */
  int64_t *marg; /* [v][R, nX, nZ] */
} xsd_planes_t;

static int xsd_pack(xsd_planes_t *pl, size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  const size_t ncw = (nf + 31) / 32;
  pl->nw = (ncw + 1) / 2;
  pl->p = malloc((nv ? nv : 1) * 3 * (pl->nw ? pl->nw : 1) * sizeof *pl->p);
  pl->marg = malloc((nv ? nv : 1) * 3 * sizeof *pl->marg);
  if (!pl->p || !pl->marg) {
    free(pl->p), free(pl->marg);
    return -1;
  }
  for (size_t v = 0; v < nv; v++) {
    uint64_t *o = pl->p + v * 3 * pl->nw;
    int64_t R = 0, nX = 0, nZ = 0;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t px = 0, ps = 0, pd = 0;
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t lo, hi, valid;
        sm_code_bits(X + v * ldx, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
        lo &= valid, hi &= valid;
        const uint64_t sv = lo & hi, xv = hi & ~lo, zv = valid & ~lo & ~hi;
        R += SM_POPC64(lo) + SM_POPC64(sv);
        nX += SM_POPC64(xv);
        nZ += SM_POPC64(zv);
        px |= xv << half;
        ps |= sv << half;
        pd |= (sv | zv) << half;
      }
      o[3 * w] = px, o[3 * w + 1] = ps, o[3 * w + 2] = pd;
    }
    pl->marg[3 * v] = R, pl->marg[3 * v + 1] = nX, pl->marg[3 * v + 2] = nZ;
  }
  return 0;
}

/* The moments of pair (i, j) from its raw counts c = {tu, fy, fx, xx}. */
static inline void xsd_moments(const int64_t *gi, const int64_t *gj, int64_t n0,
                               const int64_t c[4], uint32_t *out)
{
  const int64_t mm = n0 - gi[1] - gj[1] + c[3];
  const int64_t rm = gi[0] - gj[1] + c[3] - c[1] + gi[2];
  const int64_t mr = gj[0] - gi[1] + c[3] - c[2] + gj[2];
  out[0] = (uint32_t)(rm + mr - mm + c[0]);
  out[1] = (uint32_t)rm;
  out[2] = (uint32_t)mr;
  out[3] = (uint32_t)mm;
}

/* Row i against columns j, j + 1: each row word loaded once for both. */
static inline __attribute__((always_inline)) void xsd_tile2(size_t nw, const uint64_t *a,
                                                            const uint64_t *b0,
                                                            const uint64_t *b1,
                                                            int64_t c0[4], int64_t c1[4])
{
  int64_t t0 = 0, y0 = 0, x0 = 0, q0 = 0, t1 = 0, y1 = 0, x1 = 0, q1 = 0;
  for (size_t w = 0; w < 3 * nw; w += 3) {
    const uint64_t xa = a[w], sa = a[w + 1], da = a[w + 2], za = da & ~sa;
    {
      const uint64_t xb = b0[w], sb = b0[w + 1], db = b0[w + 2], dd = da & db;
      t0 += (int64_t)SM_POPC64(dd) - 2 * (int64_t)SM_POPC64(dd & (sa ^ sb));
      y0 += SM_POPC64((xb & sa) | (~xb & za));
      x0 += SM_POPC64((xa & sb) | (~xa & db & ~sb));
      q0 += SM_POPC64(xa & xb);
    }
    {
      const uint64_t xb = b1[w], sb = b1[w + 1], db = b1[w + 2], dd = da & db;
      t1 += (int64_t)SM_POPC64(dd) - 2 * (int64_t)SM_POPC64(dd & (sa ^ sb));
      y1 += SM_POPC64((xb & sa) | (~xb & za));
      x1 += SM_POPC64((xa & sb) | (~xa & db & ~sb));
      q1 += SM_POPC64(xa & xb);
    }
  }
  c0[0] = t0, c0[1] = y0, c0[2] = x0, c0[3] = q0;
  c1[0] = t1, c1[1] = y1, c1[2] = x1, c1[3] = q1;
}

SM_POPC_CLONES
static int ccc2_sparse_xsd(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                           const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc)
{
  xsd_planes_t pa, pb;
  if (xsd_pack(&pa, m, nf, A, lda))
    return -1;
  if (xsd_pack(&pb, n, nf, B, ldb)) {
    free(pa.p), free(pa.marg);
    return -1;
  }
  const size_t nw = pa.nw, st = 3 * nw, TB = 32; /* tiles whose planes stay in L2 */
  const int64_t n0 = (int64_t)nf;
  for (size_t i0 = 0; i0 < m; i0 += TB)
    for (size_t j0 = 0; j0 < n; j0 += TB) {
      const size_t i1 = i0 + TB < m ? i0 + TB : m, j1 = j0 + TB < n ? j0 + TB : n;
      for (size_t i = i0; i < i1; i++) {
        const int64_t *gi = pa.marg + 3 * i;
        for (size_t j = j0; j < j1; j += 2) {
          int64_t c0[4], c1[4];
          /* an odd last column pairs with itself (computed twice, kept once) */
          const size_t j2 = j + 1 < j1 ? j + 1 : j;
          xsd_tile2(nw, pa.p + i * st, pb.p + j * st, pb.p + j2 * st, c0, c1);
          xsd_moments(gi, pb.marg + 3 * j, n0, c0, C + (i * ldc + j) * 4);
          if (j2 != j)
            xsd_moments(gi, pb.marg + 3 * j2, n0, c1, C + (i * ldc + j2) * 4);
        }
      }
    }
  free(pa.p), free(pa.marg), free(pb.p), free(pb.marg);
  return 0;
}

/* ---- bit planes (sm_ccc_planes.h): AND + popcount, 64 fields per word */
SM_POPC_CLONES
void sm_kern_ccc2_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc)
{
  if (!sparse && ccc2_dense_ds(m, n, nf, A, lda, B, ldb, C, ldc) == 0)
    return;
  if (sparse && ccc2_sparse_xsd(m, n, nf, A, lda, B, ldb, C, ldc) == 0)
    return;
  sm_planes_t pa, pb;
  if (sm_planes_pack(&pa, m, nf, A, lda, sparse) != 0) {
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  if (sm_planes_pack(&pb, n, nf, B, ldb, sparse) != 0) {
    free(pa.p);
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  const size_t nmom = SM_CCC2_NMOM(sparse);
  const size_t stride = (size_t)pa.np * pa.nw;
  /* tiles of rows x columns whose planes stay in L2 */
  const size_t TB = 32;
  for (size_t i0 = 0; i0 < m; i0 += TB)
    for (size_t j0 = 0; j0 < n; j0 += TB)
      for (size_t i = i0; i < m && i < i0 + TB; i++)
        for (size_t j = j0; j < n && j < j0 + TB; j++) {
          const uint64_t *a = pa.p + i * stride, *b = pb.p + j * stride;
          const size_t nw = pa.nw;
          uint32_t *c = C + (i * ldc + j) * nmom;
          if (sparse)
            sm_planes_moments(nw, a, a + nw, a + 2 * nw, b, b + nw, b + 2 * nw, c);
          else
            c[0] = sm_planes_rr(nw, a, a + nw, b, b + nw);
        }
  free(pa.p);
  free(pb.p);
}
