/* kern_czek3_avx2.c: the Czekanowski 3-way planes on AVX2
 * (sm_kern_czek3_avx2_{d,s}): the 2-way micro-kernel and tiles (4 x 8
 * double, 4 x 16 float) on rows min(p, x) formed per cache block
 * (kern_czek2_simd_impl.h). */
#include <stdlib.h>

#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx2")))
#define SM_KC 256
#define SM_MC 128
#define SM_NC 4096

#define SM_T double
#define SM_ID(x) x##_avx2_planes_d
#define SM_REF sm_kern_czek2_ref_d
#define SM_PLANESFN sm_kern_czek3_avx2_d
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
#undef SM_REF
#undef SM_PLANESFN
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
#define SM_ID(x) x##_avx2_planes_s
#define SM_REF sm_kern_czek2_ref_s
#define SM_PLANESFN sm_kern_czek3_avx2_s
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
void sm_kern_czek3_avx2_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                          size_t ldp, const double *X, size_t ldx, const double *Y,
                          size_t ldy, double *out, const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek3_ref_d(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out);
}
void sm_kern_czek3_avx2_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                          size_t ldp, const float *X, size_t ldx, const float *Y,
                          size_t ldy, float *out, const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek3_ref_s(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out);
}
#endif
