/* kern_ccc2_gemm.cu: CCC 2-way moments as standard GEMMs on per-entry
 * allele counts (the papers' tensor-core method): the 2-bit codes in int8
 * form (sm_i8_expand of codelets/device: r, copies of allele 1, 0..2; m,
 * presence; rows padded to 16), and cublasGemmEx with int8 inputs and
 * int32 accumulation gives sum r_i r_j exactly for any practical length.
 * Sparse runs one GEMM on stacked operands, [r; m] of the rows of A
 * against [r; m] of the rows of B, whose four blocks are rr, rm, mr and
 * mm (sm_i8_gather takes them apart). Every shape, leading dimension and
 * scratch offset is a plan of sm_i8_gemm.h (plain C, whose unit test
 * checks cuBLAS's int8 rules on every machine). Asynchronous on the given
 * stream; checked at every step. The int32 result (and, without cached
 * int8 tiles, both tiles' int8 form) live in the caller's scratch (the
 * worker's, from StarPU's allocator). */
#include <cublas_v2.h>

#include "sm_i8_gemm.h"
#include "sm_kern_cuda.h"

namespace
{
const int no_plan = -2; /* sm_cuda_error_string's code */

cublasOperation_t op_of(sm_i8_op_t op)
{
  return op == SM_I8_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
}

cudaDataType_t type_of(sm_i8_type_t t)
{
  return t == SM_I8_S8 ? CUDA_R_8I : CUDA_R_32I;
}

/* the planned G = R^T L (cuBLAS's A is the right tile's form R, its B the
 * left's L), then the moments of m x n pairs */
int gemm_gather(const sm_i8_gemm_t *p, size_t m, size_t n, int sparse,
                const signed char *L, const signed char *R, int *G, uint32_t *C,
                size_t ldc, cudaStream_t s, cublasHandle_t h)
{
  if (!sm_i8_gemm_aligned(L) || !sm_i8_gemm_aligned(R) || !sm_i8_gemm_aligned(G) ||
      p->compute != SM_I8_S32)
    return no_plan;
  const int alpha = p->alpha, beta = p->beta; /* int32: the scale type of 32I */
  cublasStatus_t st = cublasSetStream(h, s);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasGemmEx(h, op_of(p->transa), op_of(p->transb), p->m, p->n, p->k, &alpha, R,
                      type_of(p->atype), p->lda, L, type_of(p->btype), p->ldb, &beta, G,
                      type_of(p->ctype), p->ldc, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
  const int err = sm_cuda_lib_done("cublasGemmEx", (int)st, (sm_cuda_stream_t)s);
  if (err) /* -1: refused (sm_cuda_error_string names the status) */
    return err;
  return sm_cuda_i8_gather(m, n, sparse, G, (size_t)p->ldc, C, ldc, (sm_cuda_stream_t)s);
}
} // namespace

extern "C" size_t sm_cuda_ccc2_i8_scratch(size_t m, size_t n, size_t kpad, int sparse,
                                          size_t arows, size_t lda8, size_t brows,
                                          size_t ldb8)
{
  sm_i8_gemm_t p;
  return sm_i8_gemm_plan(&p, m, n, kpad, sparse, arows, lda8, brows, ldb8)
             ? 0
             : p.scratch_bytes;
}

extern "C" int sm_cuda_ccc2_i8(size_t m, size_t n, size_t kpad, const signed char *A8,
                               size_t arows, size_t lda8, const signed char *B8,
                               size_t brows, size_t ldb8, int sparse, uint32_t *C,
                               size_t ldc, void *scratch, sm_cuda_stream_t stream,
                               void *cublas_handle)
{
  sm_i8_gemm_t p;
  if (m == 0 || n == 0)
    return 0;
  if (sm_i8_gemm_plan(&p, m, n, kpad, sparse, arows, lda8, brows, ldb8))
    return no_plan;
  return gemm_gather(&p, m, n, sparse, A8, B8, (int *)((char *)scratch + p.g_off), C, ldc,
                     (cudaStream_t)stream, (cublasHandle_t)cublas_handle);
}

extern "C" size_t sm_cuda_ccc2_gemm_scratch(size_t m, size_t n, size_t nf, int sparse)
{
  sm_i8_gemm_t p;
  return sm_i8_gemm_plan_scratch(&p, m, n, nf, sparse) ? 0 : p.scratch_bytes;
}

extern "C" int sm_cuda_ccc2_gemm(size_t m, size_t n, size_t nf, const uint64_t *A,
                                 size_t lda, const uint64_t *B, size_t ldb, int sparse,
                                 uint32_t *C, size_t ldc, void *scratch,
                                 sm_cuda_stream_t stream, void *cublas_handle)
{
  sm_i8_gemm_t p;
  if (m == 0 || n == 0)
    return 0;
  if (sm_i8_gemm_plan_scratch(&p, m, n, nf, sparse))
    return no_plan;
  /* the left tile's form: p.n rows of p.ldb bytes; the right one's: p.m of p.lda */
  signed char *L = (signed char *)scratch + p.l_off,
              *R = (signed char *)scratch + p.r_off;
  int err = sm_cuda_i8_expand(m, (size_t)p.n, nf, (size_t)p.k, A, lda, sparse, L,
                              (size_t)p.ldb, stream);
  if (!err)
    err = sm_cuda_i8_expand(n, (size_t)p.m, nf, (size_t)p.k, B, ldb, sparse, R,
                            (size_t)p.lda, stream);
  if (!err)
    err = gemm_gather(&p, m, n, sparse, L, R, (int *)((char *)scratch + p.g_off), C, ldc,
                      (cudaStream_t)stream, (cublasHandle_t)cublas_handle);
  return err;
}
