/* kern_ccc2.c: CCC 2-way moments of genotype pairs (plain reference loops,
 * and the long-vector form of the portable bit-plane AND + popcount
 * kernel, sm_kern_ccc2_long_popc: sm_kern_pick.c chooses it or the short-
 * vector form by length) and the per-vector allele sums. */
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

/* Rows i, i + 1 against columns j, j + 1 (2 x 2 pairs per 4 words
 * loaded), one sum per pair: 16 registers hold it all. */
static inline __attribute__((always_inline)) void
dense_tile2(size_t nw, const uint64_t *a0, const uint64_t *a1, const uint64_t *b0,
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

/* ---- the planes of sm_ccc_planes.h: the fewest popcounts per word pair,
 * two rows by two columns (dense) or one row by two columns (sparse) per
 * loaded word, in tiles whose planes stay in L2; an odd last row or column
 * pairs with itself in the sparse loop (computed twice, kept once). */
#define SM_CCC2_TB 32

/* One pair, for the edges of the dense 2 x 2 tiles. */
static inline __attribute__((always_inline)) int64_t
dense_one(size_t nw, const uint64_t *a, const uint64_t *b)
{
  int64_t c = 0;
  for (size_t w = 0; w < 2 * nw; w += 2)
    c += SM_DS_TERM(a[w], a[w + 1], b[w], b[w + 1]);
  return c;
}

SM_POPC_CLONES
static void dense_tiles(size_t m, size_t n, size_t nf, const sm_cplanes_t *pa,
                        const sm_cplanes_t *pb, uint32_t *C, size_t ldc, int sym)
{
  /* whole 2 x 2 tiles, then the edges pair by pair (pairing an odd row or
   * column with itself, as the sparse loop does, costs the dense one 6%) */
  const size_t nw = pa->nw, st = 2 * nw, TB = SM_CCC2_TB;
  const int64_t n0 = (int64_t)nf;
  const int64_t *ra = pa->marg, *rb = pb->marg;
  for (size_t i0 = 0; i0 < m; i0 += TB)
    for (size_t j0 = sym ? i0 : 0; j0 < n; j0 += TB) {
      const size_t i1 = i0 + TB < m ? i0 + TB : m, j1 = j0 + TB < n ? j0 + TB : n;
      size_t i = i0;
      for (; i + 1 < i1; i += 2) {
        size_t j = j0;
        for (; j + 1 < j1; j += 2) {
          int64_t acc[4];
          dense_tile2(nw, pa->p + i * st, pa->p + (i + 1) * st, pb->p + j * st,
                      pb->p + (j + 1) * st, acc);
          for (int k = 0; k < 4; k++) {
            const size_t r = i + (size_t)(k >> 1), c = j + (size_t)(k & 1);
            C[r * ldc + c] = (uint32_t)(ra[3 * r] + rb[3 * c] - n0 + acc[k]);
          }
        }
        for (; j < j1; j++)
          for (size_t r = i; r < i + 2; r++)
            C[r * ldc + j] = (uint32_t)(ra[3 * r] + rb[3 * j] - n0 +
                                        dense_one(nw, pa->p + r * st, pb->p + j * st));
      }
      for (; i < i1; i++)
        for (size_t j = j0; j < j1; j++)
          C[i * ldc + j] = (uint32_t)(ra[3 * i] + rb[3 * j] - n0 +
                                      dense_one(nw, pa->p + i * st, pb->p + j * st));
    }
}

SM_CPLANES_SPARSE_TILES(SM_POPC_CLONES, sparse_tiles, sm_cplanes_sparse2, 1)
SM_CPLANES_SPARSE_BAND(SM_POPC_CLONES, sparse_band, sm_cplanes_sparse2, 1)

SM_POPC_CLONES
int sm_kern_ccc2_band_popc(const sm_band_t *b, size_t m, size_t n, size_t nf,
                           const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                           uint32_t *C, size_t ldc)
{
  return sm_cplanes_band(1, sparse_band, b, m, n, nf, A, lda, B, ldb, C, ldc);
}

/* A against B; the symmetric form on a diagonal block (B = A): the tiles on
 * and above the diagonal, the rest mirrored. */
SM_POPC_CLONES
void sm_kern_ccc2_long_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                            const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                            size_t ldc)
{
  sm_cplanes_run(1, dense_tiles, sparse_tiles, m, n, nf, A, lda, B, ldb, sparse, C, ldc,
                 0);
}

SM_POPC_CLONES
void sm_kern_ccc2_syrk_long_popc(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                 int sparse, uint32_t *C, size_t ldc)
{
  sm_cplanes_run(1, dense_tiles, sparse_tiles, n, n, nf, A, lda, A, lda, sparse, C, ldc,
                 1);
}
