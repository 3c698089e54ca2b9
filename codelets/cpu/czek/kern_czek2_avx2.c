/* kern_czek2_avx2.c: Czekanowski 2-way mGEMM with an AVX2 min + add
 * micro-kernel (sm_kern_czek2_avx2_{d,s}; tiles 4x8 double, 4x16 float:
 * 16 ymm registers hold 8 accumulators, 2 panel vectors and a broadcast). */
#include <stdlib.h>

#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx2")))
#define SM_KC 256
#define SM_MC 128
#define SM_NC 4096
#define SM_T double
#define SM_ID(x) x##_avx2_d
#define SM_FNAME sm_kern_czek2_avx2_d
#define SM_REF sm_kern_czek2_ref_d
#define SM_SYRK sm_kern_czek2_syrk_avx2_d
#define SM_LOFN sm_kern_czek2_lo_avx2_d
#define SM_V __m256d
#define SM_VL 4
#define SM_VZERO() _mm256_setzero_pd()
#define SM_VLOADU(p) _mm256_loadu_pd(p)
#define SM_VSTOREU(p, v) _mm256_storeu_pd(p, v)
#define SM_VBCAST(p) _mm256_broadcast_sd(p)
#define SM_VMIN(a, b) _mm256_min_pd(a, b)
#define SM_VADD(a, b) _mm256_add_pd(a, b)
#define SM_MR 4
#define SM_NV 2
#include "kern_czek2_simd_impl.h"
#undef SM_T
#undef SM_ID
#undef SM_FNAME
#undef SM_REF
#undef SM_SYRK
#undef SM_LOFN
#undef SM_V
#undef SM_VL
#undef SM_VZERO
#undef SM_VLOADU
#undef SM_VSTOREU
#undef SM_VBCAST
#undef SM_VMIN
#undef SM_VADD
#undef SM_MR
#undef SM_NV

#define SM_T float
#define SM_ID(x) x##_avx2_s
#define SM_FNAME sm_kern_czek2_avx2_s
#define SM_REF sm_kern_czek2_ref_s
#define SM_SYRK sm_kern_czek2_syrk_avx2_s
#define SM_LOFN sm_kern_czek2_lo_avx2_s
#define SM_V __m256
#define SM_VL 8
#define SM_VZERO() _mm256_setzero_ps()
#define SM_VLOADU(p) _mm256_loadu_ps(p)
#define SM_VSTOREU(p, v) _mm256_storeu_ps(p, v)
#define SM_VBCAST(p) _mm256_broadcast_ss(p)
#define SM_VMIN(a, b) _mm256_min_ps(a, b)
#define SM_VADD(a, b) _mm256_add_ps(a, b)
#define SM_MR 4
#define SM_NV 2
#include "kern_czek2_simd_impl.h"

#else /* not x86-64: never picked; the reference keeps the symbols whole */
void sm_kern_czek2_lo_avx2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                             const double *B, size_t ldb, double *C, size_t ldc,
                             const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek2_ref_d(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_lo_avx2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                             const float *B, size_t ldb, float *C, size_t ldc,
                             const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek2_ref_s(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_syrk_avx2_d(size_t n, size_t k, const double *A, size_t lda, double *C,
                               size_t ldc)
{
  sm_kern_czek2_ref_d(n, n, k, A, lda, A, lda, C, ldc);
}
void sm_kern_czek2_syrk_avx2_s(size_t n, size_t k, const float *A, size_t lda, float *C,
                               size_t ldc)
{
  sm_kern_czek2_ref_s(n, n, k, A, lda, A, lda, C, ldc);
}
void sm_kern_czek2_avx2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                          const double *B, size_t ldb, double *C, size_t ldc)
{
  sm_kern_czek2_ref_d(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_avx2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc)
{
  sm_kern_czek2_ref_s(m, n, k, A, lda, B, ldb, C, ldc);
}
#endif
