/* kern_ccc2_gemm.cu: CCC 2-way moments as standard GEMMs on per-entry
 * allele counts (the papers' tensor-core method): the 2-bit codes are
 * expanded to int8 matrices (r: copies of allele 1, 0..2; m: presence),
 * and cublasGemmEx with int8 inputs and int32 accumulation gives
 * sum r_i r_j (and, sparse, r m, m r, m m) exactly for any practical length.
 * Asynchronous on the given stream; the scratch buffer comes from StarPU. */
#include <cublas_v2.h>

#include "sm_formulas.h"
#include "sm_kern_cuda.h"

namespace
{

/* rows of codes -> int8 rows of r (and m), kpad columns (zero padded) */
__global__ void expand(int rows, long nf, long kpad, const uint64_t *X, size_t ldx,
                       int sparse, signed char *R, signed char *M)
{
  const long q = blockIdx.x * (long)blockDim.x + threadIdx.x;
  const int v = blockIdx.y;
  if (v >= rows || q >= kpad)
    return;
  signed char r = 0, m = 0;
  if (q < nf) {
    const unsigned c = sm_gt_code(X + (size_t)v * ldx, (size_t)q);
    r = (signed char)sm_gt_r(c, sparse);
    m = (signed char)sm_gt_m(c, sparse);
  }
  R[(size_t)v * kpad + q] = r;
  if (M)
    M[(size_t)v * kpad + q] = m;
}

/* int32 GEMM results (G: n x m column-major, G[j + i n] for pair (i, j))
 * -> the interleaved moment layout of sm_kern.h */
__global__ void gather(int m, int n, int nmom, int k, const int *G, unsigned *C,
                       size_t ldc)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (i >= m || j >= n)
    return;
  C[((size_t)i * ldc + j) * nmom + k] = (unsigned)G[(size_t)i * n + j];
}

} // namespace

extern "C" size_t sm_cuda_ccc2_gemm_scratch(size_t m, size_t n, size_t nf, int sparse)
{
  size_t kpad = (nf + 15) / 16 * 16, mats = sparse ? 2 : 1;
  return mats * (m + n) * kpad + (m * n) * sizeof(int) + 256;
}

extern "C" int sm_cuda_ccc2_gemm(size_t m, size_t n, size_t nf, const uint64_t *A,
                                 size_t lda, const uint64_t *B, size_t ldb, int sparse,
                                 uint32_t *C, size_t ldc, void *scratch,
                                 sm_cuda_stream_t stream, void *cublas_handle)
{
  cudaStream_t s = (cudaStream_t)stream;
  cublasHandle_t h = (cublasHandle_t)cublas_handle;
  const size_t kpad = (nf + 15) / 16 * 16;
  signed char *Ar = (signed char *)scratch, *Br = Ar + m * kpad;
  signed char *Am = sparse ? Br + n * kpad : nullptr,
              *Bm = sparse ? Am + m * kpad : nullptr;
  int *G = (int *)(((uintptr_t)((sparse ? Bm + n * kpad : Br + n * kpad)) + 255) &
                   ~(uintptr_t)255);
  dim3 t(256), ga((unsigned)((kpad + 255) / 256), (unsigned)m),
      gb((unsigned)((kpad + 255) / 256), (unsigned)n);
  expand<<<ga, t, 0, s>>>((int)m, (long)nf, (long)kpad, A, lda, sparse, Ar, Am);
  expand<<<gb, t, 0, s>>>((int)n, (long)nf, (long)kpad, B, ldb, sparse, Br, Bm);
  cublasSetStream(h, s);
  const int one = 1, zero = 0, nmom = sparse ? 4 : 1;
  /* moments: rr, rm, mr, mm as (left, right) operand pairs */
  const signed char *L[4] = {Ar, Ar, Am, Am}, *Rt[4] = {Br, Bm, Br, Bm};
  for (int k = 0; k < nmom; k++) {
    /* G (n x m, column-major) = Rt^T L: G[j, i] = sum_q R[j, q] L[i, q] */
    cublasStatus_t st =
        cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)kpad, &one, Rt[k],
                     CUDA_R_8I, (int)kpad, L[k], CUDA_R_8I, (int)kpad, &zero, G,
                     CUDA_R_32I, (int)n, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
      return -1;
    dim3 gg((unsigned)((n + 255) / 256), (unsigned)m);
    gather<<<gg, t, 0, s>>>((int)m, (int)n, nmom, k, G, C, ldc);
  }
  return 0;
}
