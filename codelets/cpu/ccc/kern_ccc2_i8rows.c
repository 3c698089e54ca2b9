/* kern_ccc2_i8rows.c: CCC 2-way moments from tiles in int8 form, the CPU
 * side of the cached int8 tiles (`--ccc-gemm int8`): the expansion of a
 * tile of codes (the layout of sm_i8_expand in codelets/device, which
 * the GPUs run) and the int8 products of two expanded tiles, exact in
 * int32 as cuBLAS computes them. */
#include "sm_cpu.h"
#include "sm_formulas.h"
#include "sm_kern_simd.h"

void sm_kern_ccc_i8_expand(size_t rows, size_t nf, size_t kpad, const uint64_t *X,
                           size_t ldx, int sparse, int8_t *R, size_t ldr)
{
  for (size_t v = 0; v < rows; v++) {
    int8_t *r = R + v * ldr, *p = R + (rows + v) * ldr;
    for (size_t q = 0; q < kpad; q++) {
      const unsigned c = q < nf ? sm_gt_code(X + v * ldx, q) : 0u;
      r[q] = (int8_t)(q < nf ? sm_gt_r(c, sparse) : 0u);
      if (sparse)
        p[q] = (int8_t)(q < nf ? sm_gt_m(c, sparse) : 0u);
    }
  }
}

/* sums over q < k of a0 b0, a0 b1, a1 b0, a1 b1 (two rows against two;
 * the operands are 0, 1 or 2) */
typedef void (*dot2x2_fn)(const uint8_t *a0, const uint8_t *a1, const uint8_t *b0,
                          const uint8_t *b1, size_t k, uint32_t s[4]);

static void dot2x2_ref(const uint8_t *a0, const uint8_t *a1, const uint8_t *b0,
                       const uint8_t *b1, size_t k, uint32_t s[4])
{
  uint32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
  for (size_t q = 0; q < k; q++) {
    s00 += (uint32_t)a0[q] * b0[q], s01 += (uint32_t)a0[q] * b1[q];
    s10 += (uint32_t)a1[q] * b0[q], s11 += (uint32_t)a1[q] * b1[q];
  }
  s[0] = s00, s[1] = s01, s[2] = s10, s[3] = s11;
}

#if SM_BUILD_X86
#include <immintrin.h>

/* 32 bytes at a time: vpmaddubsw multiplies bytes and adds pairs (at most
 * 8, no saturation), vpmaddwd adds pairs again into int32 lanes; k is a
 * multiple of 16 (kpad) */
__attribute__((target("avx2"))) static inline __m256i load32(const uint8_t *p,
                                                             size_t left)
{
  return left >= 32 ? _mm256_loadu_si256((const __m256i *)p)
                    : _mm256_inserti128_si256(_mm256_setzero_si256(),
                                              _mm_loadu_si128((const __m128i *)p), 0);
}

__attribute__((target("avx2"))) static uint32_t hsum(__m256i v)
{
  __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
  return (uint32_t)_mm_cvtsi128_si32(x);
}

__attribute__((target("avx2"))) static void
dot2x2_avx2(const uint8_t *a0, const uint8_t *a1, const uint8_t *b0, const uint8_t *b1,
            size_t k, uint32_t s[4])
{
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00;
  for (size_t q = 0; q < k; q += 32) {
    const __m256i x0 = load32(a0 + q, k - q), x1 = load32(a1 + q, k - q);
    const __m256i y0 = load32(b0 + q, k - q), y1 = load32(b1 + q, k - q);
    s00 = _mm256_add_epi32(s00, _mm256_madd_epi16(_mm256_maddubs_epi16(x0, y0), ones));
    s01 = _mm256_add_epi32(s01, _mm256_madd_epi16(_mm256_maddubs_epi16(x0, y1), ones));
    s10 = _mm256_add_epi32(s10, _mm256_madd_epi16(_mm256_maddubs_epi16(x1, y0), ones));
    s11 = _mm256_add_epi32(s11, _mm256_madd_epi16(_mm256_maddubs_epi16(x1, y1), ones));
  }
  s[0] = hsum(s00), s[1] = hsum(s01), s[2] = hsum(s10), s[3] = hsum(s11);
}
#endif

static dot2x2_fn pick_dot(size_t k)
{
#if SM_BUILD_X86
  if (k % 16 == 0 && sm_cpu_get()->avx2)
    return dot2x2_avx2;
#endif
  (void)k;
  return dot2x2_ref;
}

void sm_kern_ccc2_i8rows(size_t m, size_t n, size_t kpad, const int8_t *A8, size_t lda8,
                         const int8_t *B8, size_t ldb8, int sparse, uint32_t *C,
                         size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse);
  const uint8_t *A = (const uint8_t *)A8, *B = (const uint8_t *)B8;
  const dot2x2_fn dot = pick_dot(kpad);
  for (size_t k = 0; k < nmom; k++) /* rr, rm, mr, mm: blocks k / 2 and k % 2 */
    for (size_t i = 0; i < m; i += 2)
      for (size_t j = 0; j < n; j += 2) {
        /* an odd last row or column repeats the one before (not stored) */
        const size_t i1 = i + 1 < m ? i + 1 : i, j1 = j + 1 < n ? j + 1 : j;
        const uint8_t *a = A + (k / 2) * m * lda8, *b = B + (k % 2) * n * ldb8;
        uint32_t s[4];
        dot(a + i * lda8, a + i1 * lda8, b + j * ldb8, b + j1 * ldb8, kpad, s);
        C[(i * ldc + j) * nmom + k] = s[0];
        C[(i * ldc + j1) * nmom + k] = s[1];
        C[(i1 * ldc + j) * nmom + k] = s[2];
        C[(i1 * ldc + j1) * nmom + k] = s[3];
      }
}
