/* kern_ccc2_gemm.cu: CCC 2-way moments as standard GEMMs on per-entry
 * allele counts (the papers' tensor-core method): the 2-bit codes in int8
 * form (sm_i8_expand of codelets/device: r, copies of allele 1, 0..2; m,
 * presence), and cublasGemmEx with int8 inputs and int32 accumulation
 * gives sum r_i r_j exactly for any practical length. Sparse runs one
 * GEMM on stacked operands, [r; m] of the rows of A against [r; m] of the
 * rows of B, whose four blocks are rr, rm, mr and mm (sm_i8_gather takes
 * them apart). Asynchronous on the given stream; checked at every step.
 * The int32 result (and, without cached int8 tiles, both tiles' int8
 * form) live in the caller's scratch (the worker's, from StarPU's
 * allocator). */
#include <cublas_v2.h>

#include "sm_formulas.h"
#include "sm_kern_cuda.h"

namespace
{
/* the int32 result of m x n pairs: blocks x blocks moments' rows */
size_t g_ld(size_t n, int sparse)
{
  return ((sparse ? 2 : 1) * n + 3) / 4 * 4; /* a multiple of 4 */
}

size_t g_bytes(size_t m, size_t n, int sparse)
{
  return g_ld(n, sparse) * (sparse ? 2 : 1) * m * sizeof(int);
}

size_t round256(size_t b)
{
  return (b + 255) / 256 * 256;
}

/* G (rn x lm, column-major, ldg) = R^T L: G[j', i'] = sum_q R[j', q] L[i', q],
 * then the moments */
int gemm_gather(size_t m, size_t n, size_t kpad, const signed char *L, size_t ldl,
                const signed char *R, size_t ldr, int sparse, uint32_t *C, size_t ldc,
                int *G, cudaStream_t s, cublasHandle_t h)
{
  const size_t blocks = sparse ? 2 : 1, ldg = g_ld(n, sparse);
  const int one = 1, zero = 0;
  cublasStatus_t st = cublasSetStream(h, s);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)(blocks * n), (int)(blocks * m),
                      (int)kpad, &one, R, CUDA_R_8I, (int)ldr, L, CUDA_R_8I, (int)ldl,
                      &zero, G, CUDA_R_32I, (int)ldg, CUBLAS_COMPUTE_32I,
                      CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS)
    return -1;
  return sm_cuda_i8_gather(m, n, sparse, G, ldg, C, ldc, (sm_cuda_stream_t)s);
}
} // namespace

extern "C" size_t sm_cuda_ccc2_i8_scratch(size_t m, size_t n, int sparse)
{
  return g_bytes(m, n, sparse);
}

extern "C" int sm_cuda_ccc2_i8(size_t m, size_t n, size_t kpad, const signed char *A8,
                               size_t lda8, const signed char *B8, size_t ldb8,
                               int sparse, uint32_t *C, size_t ldc, void *scratch,
                               sm_cuda_stream_t stream, void *cublas_handle)
{
  return gemm_gather(m, n, kpad, A8, lda8, B8, ldb8, sparse, C, ldc, (int *)scratch,
                     (cudaStream_t)stream, (cublasHandle_t)cublas_handle);
}

extern "C" size_t sm_cuda_ccc2_gemm_scratch(size_t m, size_t n, size_t nf, int sparse)
{
  const size_t blocks = sparse ? 2 : 1;
  return round256(blocks * (m + n) * sm_ccc_i8_kpad(nf)) + g_bytes(m, n, sparse);
}

extern "C" int sm_cuda_ccc2_gemm(size_t m, size_t n, size_t nf, const uint64_t *A,
                                 size_t lda, const uint64_t *B, size_t ldb, int sparse,
                                 uint32_t *C, size_t ldc, void *scratch,
                                 sm_cuda_stream_t stream, void *cublas_handle)
{
  const size_t blocks = sparse ? 2 : 1, kpad = sm_ccc_i8_kpad(nf);
  signed char *L = (signed char *)scratch, *R = L + blocks * m * kpad;
  int *G = (int *)((char *)scratch + round256(blocks * (m + n) * kpad));
  int err = sm_cuda_i8_expand(m, nf, kpad, A, lda, sparse, L, kpad, stream);
  if (!err)
    err = sm_cuda_i8_expand(n, nf, kpad, B, ldb, sparse, R, kpad, stream);
  if (!err)
    err = gemm_gather(m, n, kpad, L, kpad, R, kpad, sparse, C, ldc, G,
                      (cudaStream_t)stream, (cublasHandle_t)cublas_handle);
  return err;
}
