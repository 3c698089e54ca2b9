/* kern_czek3_avx512.c: the Czekanowski mGEMM of the 3-way planes in single
 * precision, AVX-512, on 16 x 16 micro-tiles (sm_kern_czek2_avx512_16x16_s
 * and its row-bounded variant). The 2-way kernel's 8 x 32 tile pads the
 * planes' 48- and 16-column tiles to 64 and 32 columns; 16 columns fit them
 * and the kept triangle of diagonal slices, at the same min + add rate. */
#include <stdlib.h>

#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx512f")))
/* cache blocks as the 2-way kernel's: KC fields, MC rows, NC columns */
#define SM_KC 256
#define SM_MC 128
#define SM_NC 4096

/* 16 x 16: 16 accumulators, 1 panel vector, a broadcast */
#define SM_T float
#define SM_ID(x) x##_avx512_16x16_s
#define SM_FNAME sm_kern_czek2_avx512_16x16_s
#define SM_REF sm_kern_czek2_ref_s
#define SM_LOFN sm_kern_czek2_lo_avx512_16x16_s
#define SM_V __m512
#define SM_VL 16
#define SM_VZERO() _mm512_setzero_ps()
#define SM_VLOADU(p) _mm512_loadu_ps(p)
#define SM_VSTOREU(p, v) _mm512_storeu_ps(p, v)
#define SM_VBCAST(p) _mm512_set1_ps(*(p))
#define SM_VMIN(a, b) _mm512_min_ps(a, b)
#define SM_VADD(a, b) _mm512_add_ps(a, b)
#define SM_MR 16
#define SM_NV 1
#include "kern_czek2_simd_impl.h"

#else /* not x86-64: never picked; the reference keeps the symbols whole */
void sm_kern_czek2_avx512_16x16_s(size_t m, size_t n, size_t k, const float *A,
                                  size_t lda, const float *B, size_t ldb, float *C,
                                  size_t ldc)
{
  sm_kern_czek2_ref_s(m, n, k, A, lda, B, ldb, C, ldc);
}
void sm_kern_czek2_lo_avx512_16x16_s(size_t m, size_t n, size_t k, const float *A,
                                     size_t lda, const float *B, size_t ldb, float *C,
                                     size_t ldc, const uint32_t *lo)
{
  (void)lo;
  sm_kern_czek2_ref_s(m, n, k, A, lda, B, ldb, C, ldc);
}
#endif
