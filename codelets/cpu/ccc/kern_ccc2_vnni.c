/* kern_ccc2_vnni.c: CCC 2-way moments as an int8 GEMM with AVX-512 VNNI
 * (sm_kern_ccc2_vnni): the int8 driver of kern_ccc2_i8.c around a
 * register-blocked VPDPBUSD tile product (8 rows x 32 columns of int32
 * accumulators, 4 fields per instruction and lane). */
#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>
#include <string.h>

#define SM_MR 8

__attribute__((target("avx512f,avx512bw,avx512vnni"))) int
sm_i8tile_vnni(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
               const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds)
{
  for (size_t j0 = 0; j0 < cols; j0 += 32)
    for (size_t i0 = 0; i0 < rows; i0 += SM_MR) {
      __m512i acc[SM_MR][2];
#pragma GCC unroll 8
      for (int r = 0; r < SM_MR; r++) {
        acc[r][0] = _mm512_loadu_si512(S + (i0 + r) * lds + j0);
        acc[r][1] = _mm512_loadu_si512(S + (i0 + r) * lds + j0 + 16);
      }
      const uint8_t *a = A8 + i0 * lda8;
      const uint32_t *b = B8 + j0 / 32 * ldb8;
      for (size_t q = 0; q < kb; q += 4, b += 32) {
        __m512i b0 = _mm512_loadu_si512(b), b1 = _mm512_loadu_si512(b + 16);
#pragma GCC unroll 8
        for (int r = 0; r < SM_MR; r++) {
          int32_t quad;
          memcpy(&quad, a + r * lda8 + q, 4);
          __m512i av = _mm512_set1_epi32(quad);
          acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, b0);
          acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, b1);
        }
      }
#pragma GCC unroll 8
      for (int r = 0; r < SM_MR; r++) {
        _mm512_storeu_si512(S + (i0 + r) * lds + j0, acc[r][0]);
        _mm512_storeu_si512(S + (i0 + r) * lds + j0 + 16, acc[r][1]);
      }
    }
  return 0;
}
#else
int sm_i8tile_vnni(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
                   const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds)
{
  return sm_i8tile_ref(rows, cols, kb, A8, lda8, B8, ldb8, S, lds);
}
#endif

void sm_kern_ccc2_vnni(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc)
{
  if (sm_kern_ccc2_i8(m, n, nf, A, lda, B, ldb, sparse, C, ldc, sm_i8tile_vnni, 1, 0) !=
      0)
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

void sm_kern_ccc2_syrk_vnni(size_t n, size_t nf, const uint64_t *A, size_t lda,
                            int sparse, uint32_t *C, size_t ldc)
{
  if (sm_kern_ccc2_i8(n, n, nf, A, lda, A, lda, sparse, C, ldc, sm_i8tile_vnni, 1, 1) !=
      0)
    sm_kern_ccc2_ref(n, n, nf, A, lda, A, lda, sparse, C, ldc);
}
