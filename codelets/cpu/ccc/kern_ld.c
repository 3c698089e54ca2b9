/* kern_ld.c: the tally PLINK's r and r^2 need beside CCC's sparse moments:
 * per pair of variants, the samples called in both where the first is
 * homozygous for allele 1, and where the second is (sum x^2 over the
 * shared samples = sum x + 2 of them; sm_f_ld). */
#include <stdlib.h>

#include "sm_ccc_planes.h"
#include "sm_kern.h"

/* Planes of one row, 64 fields per word (code words 2w and 2w + 1 in the
 * even and odd bits): H = homozygous for allele 1 (code 11), M = called
 * (not code 10), zero past nf. */
static void row_planes(const uint64_t *row, size_t nf, size_t nw, uint64_t *h,
                       uint64_t *mk)
{
  for (size_t w = 0; w < nw; w++) {
    uint64_t ph = 0, pm = 0;
    for (int half = 0; half < 2; half++) {
      const size_t cw = 2 * w + (size_t)half;
      if (cw * 32 >= nf)
        break;
      uint64_t lo, hi, valid;
      sm_code_bits(row, cw, nf, &lo, &hi, &valid);
      ph |= (lo & hi & valid) << half;
      pm |= ((lo | ~hi) & valid) << half;
    }
    h[w] = ph, mk[w] = pm;
  }
}

SM_POPC_CLONES
static void hom_pairs(size_t m, size_t n, size_t nw, const uint64_t *ha,
                      const uint64_t *ma, const uint64_t *hb, const uint64_t *mb,
                      uint32_t *C, size_t ldc)
{
  for (size_t i = 0; i < m; i++) {
    const uint64_t *hi_ = ha + i * nw, *mi = ma + i * nw;
    for (size_t j = 0; j < n; j++) {
      const uint64_t *hj = hb + j * nw, *mj = mb + j * nw;
      uint32_t x = 0, y = 0;
      for (size_t w = 0; w < nw; w++) {
        x += SM_POPC64(hi_[w] & mj[w]);
        y += SM_POPC64(mi[w] & hj[w]);
      }
      uint32_t *c = C + (i * ldc + j) * 2;
      c[0] = x, c[1] = y;
    }
  }
}

int sm_kern_ld_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                   const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc)
{
  const size_t nw = (nf + 63) / 64;
  uint64_t *mem = malloc((2 * (m + n) * nw + 1) * sizeof *mem);
  if (!mem)
    return -1;
  uint64_t *ha = mem, *ma = ha + m * nw, *hb = ma + m * nw, *mb = hb + n * nw;
  for (size_t i = 0; i < m; i++)
    row_planes(A + i * lda, nf, nw, ha + i * nw, ma + i * nw);
  for (size_t j = 0; j < n; j++)
    row_planes(B + j * ldb, nf, nw, hb + j * nw, mb + j * nw);
  hom_pairs(m, n, nw, ha, ma, hb, mb, C, ldc);
  free(mem);
  return 0;
}
