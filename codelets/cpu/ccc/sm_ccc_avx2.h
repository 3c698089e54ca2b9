/* sm_ccc_avx2.h: the byte popcounts of the AVX2 CCC kernels, long and short
 * vectors (kern_ccc2_avx2.c, kern_ccc2_short_avx2.c): AVX2 has no vector
 * popcount, so each byte is counted with the nibble table (vpshufb) into
 * byte counters that vpsadbw empties into 64-bit lanes. Included inside
 * their x86 sections, after SM_TARGET and SM_INLINE. */
#ifndef SM_CCC_AVX2_H
#define SM_CCC_AVX2_H

#include <immintrin.h>

/* Per-byte popcounts of x (lut: the nibble table, or twice it; m4: 0x0f
 * in every byte). */
SM_TARGET SM_INLINE __m256i pc8(__m256i x, __m256i lut, __m256i m4)
{
  const __m256i lo = _mm256_and_si256(x, m4);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m4);
  return _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
}

/* The popcount of every nibble value, in both 128-bit halves. */
SM_TARGET SM_INLINE __m256i nibble_table(void)
{
  return _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1,
                          2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
}

/* Each 64-bit lane's byte sum of c added to its total in t. */
SM_TARGET SM_INLINE __m256i drain(__m256i t, __m256i c)
{
  return _mm256_add_epi64(t, _mm256_sad_epu8(c, _mm256_setzero_si256()));
}

#endif
