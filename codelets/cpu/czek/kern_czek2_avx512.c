/* kern_czek2_avx512.c: Czekanowski 2-way mGEMM with an AVX-512 min + add
 * micro-kernel (sm_kern_czek2_avx512_{d,s}; tiles 8x16 double, 8x32 float). */
#include <stdlib.h>

#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx512f")))
/* cache blocks: KC fields (a 32-column panel of B, 32 KB in float, in L1),
 * MC rows of A (in L2), NC columns; micro-tiles 8 x 16 (double) and 8 x 32
 * (float): 16 accumulators, 2 panel vectors, a broadcast */
#define SM_KC 256
#define SM_MC 128
#define SM_NC 4096

#define SM_T double
#define SM_ID(x) x##_avx512_d
#define SM_FNAME sm_kern_czek2_avx512_d
#define SM_REF sm_kern_czek2_ref_d
#define SM_SYRK sm_kern_czek2_syrk_avx512_d
#define SM_LOFN sm_kern_czek2_lo_avx512_d
#define SM_V __m512d
#define SM_VL 8
#define SM_VZERO() _mm512_setzero_pd()
#define SM_VLOADU(p) _mm512_loadu_pd(p)
#define SM_VSTOREU(p, v) _mm512_storeu_pd(p, v)
#define SM_VBCAST(p) _mm512_set1_pd(*(p))
#define SM_VMIN(a, b) _mm512_min_pd(a, b)
#define SM_VADD(a, b) _mm512_add_pd(a, b)
#define SM_MR 8
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
#define SM_ID(x) x##_avx512_s
#define SM_FNAME sm_kern_czek2_avx512_s
#define SM_REF sm_kern_czek2_ref_s
#define SM_SYRK sm_kern_czek2_syrk_avx512_s
#define SM_LOFN sm_kern_czek2_lo_avx512_s
#define SM_V __m512
#define SM_VL 16
#define SM_VZERO() _mm512_setzero_ps()
#define SM_VLOADU(p) _mm512_loadu_ps(p)
#define SM_VSTOREU(p, v) _mm512_storeu_ps(p, v)
#define SM_VBCAST(p) _mm512_set1_ps(*(p))
#define SM_VMIN(a, b) _mm512_min_ps(a, b)
#define SM_VADD(a, b) _mm512_add_ps(a, b)
#define SM_MR 8
#define SM_NV 2
#include "kern_czek2_simd_impl.h"

#else /* not x86-64: never picked; the reference keeps the symbols whole */
void sm_kern_czek2_lo_avx512_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                               const double *B, size_t ldb, double *C, size_t ldc,
                               const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek2_ref_d(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_lo_avx512_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                               const float *B, size_t ldb, float *C, size_t ldc,
                               const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek2_ref_s(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_syrk_avx512_d(size_t n, size_t k, const double *A, size_t lda,
                                 double *C, size_t ldc)
{
  sm_kern_czek2_ref_d(n, n, k, A, lda, A, lda, C, ldc);
}
void sm_kern_czek2_syrk_avx512_s(size_t n, size_t k, const float *A, size_t lda, float *C,
                                 size_t ldc)
{
  sm_kern_czek2_ref_s(n, n, k, A, lda, A, lda, C, ldc);
}
void sm_kern_czek2_avx512_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                            const double *B, size_t ldb, double *C, size_t ldc)
{
  sm_kern_czek2_ref_d(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_avx512_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                            const float *B, size_t ldb, float *C, size_t ldc)
{
  sm_kern_czek2_ref_s(m, n, k, A, lda, B, ldb, C, ldc);
}
#endif
