/* sm_kern_cuda.h: C launchers of the CUDA kernels. Asynchronous on the
 * given stream (StarPU's per-worker stream); no device-wide sync. */
#ifndef SM_KERN_CUDA_H
#define SM_KERN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *sm_cuda_stream_t;

void sm_cuda_czek2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                     const double *B, size_t ldb, double *C, size_t ldc,
                     sm_cuda_stream_t stream);
void sm_cuda_czek2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                     const float *B, size_t ldb, float *C, size_t ldc,
                     sm_cuda_stream_t stream);
void sm_cuda_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                  const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
                  sm_cuda_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif
