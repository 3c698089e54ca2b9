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

/* ---- bit planes (sm_ccc_planes.h): AND + popcount, 64 fields per word */
SM_POPC_CLONES
void sm_kern_ccc2_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc)
{
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
