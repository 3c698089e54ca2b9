/* kern_ccc2_gemm.cu: CCC 2-way moments as standard GEMMs on per-entry
 * allele counts (the papers' tensor-core method): the 2-bit codes are
 * expanded to int8 matrices (r: copies of allele 1, 0..2; m: presence),
 * and cublasGemmEx with int8 inputs and int32 accumulation gives
 * sum r_i r_j exactly for any practical length. Sparse runs one GEMM on
 * stacked operands, [r; m] of the rows of A against [r; m] of the rows of
 * B, whose four blocks are rr, rm, mr and mm. Asynchronous on the given
 * stream; checked at every step. The int8 operands and the int32 result
 * live in the caller's scratch (the worker's, from StarPU's allocator). */
#include <cublas_v2.h>

#include "sm_formulas.h"
#include "sm_kern_cuda.h"

namespace
{

/* rows of codes -> int8 rows of r (and, sparse, of m, `rows` rows further),
 * kpad columns (zero padded) */
__global__ void expand(int rows, long nf, long kpad, const uint64_t *X, size_t ldx,
                       int sparse, signed char *R)
{
  for (int v = blockIdx.y; v < rows; v += gridDim.y)
    for (long q = blockIdx.x * (long)blockDim.x + threadIdx.x; q < kpad;
         q += (long)gridDim.x * blockDim.x) {
      signed char r = 0, m = 0;
      if (q < nf) {
        const unsigned c = sm_gt_code(X + (size_t)v * ldx, (size_t)q);
        r = (signed char)sm_gt_r(c, sparse);
        m = (signed char)sm_gt_m(c, sparse);
      }
      R[(size_t)v * kpad + q] = r;
      if (sparse)
        R[((size_t)rows + v) * kpad + q] = m;
    }
}

/* the int32 GEMM result (G column-major, ldg; G[j' + i' ldg] for left row
 * i' and right row j') -> the interleaved moments of sm_kern.h */
__global__ void gather(int m, int n, int nmom, const int *G, size_t ldg, unsigned *C,
                       size_t ldc)
{
  for (int i = blockIdx.y; i < m; i += gridDim.y)
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += gridDim.x * blockDim.x)
      for (int k = 0; k < nmom; k++) {
        /* rr, rm, mr, mm: left block k / 2, right block k % 2 */
        const size_t li = (size_t)(k / 2) * m + i, rj = (size_t)(k % 2) * n + j;
        C[((size_t)i * ldc + j) * nmom + k] = (unsigned)G[rj + li * ldg];
      }
}

unsigned cap(size_t g)
{
  return (unsigned)(g == 0 ? 1 : g > 65535 ? 65535 : g);
}

} // namespace

namespace
{
struct gemm_layout {
  size_t kpad, lm, rn, ldg, ops, gbytes;
};

gemm_layout layout(size_t m, size_t n, size_t nf, int sparse)
{
  gemm_layout g;
  const size_t blocks = sparse ? 2 : 1;
  g.kpad = (nf + 15) / 16 * 16;
  g.lm = blocks * m, g.rn = blocks * n; /* stacked rows, left and right */
  g.ldg = (g.rn + 3) / 4 * 4;           /* int32 results: ld a multiple of 4 */
  g.ops = (g.lm + g.rn) * g.kpad, g.gbytes = g.ldg * g.lm * sizeof(int);
  return g;
}
} // namespace

extern "C" size_t sm_cuda_ccc2_gemm_scratch(size_t m, size_t n, size_t nf, int sparse)
{
  const gemm_layout g = layout(m, n, nf, sparse);
  return (g.ops + 255) / 256 * 256 + g.gbytes;
}

extern "C" int sm_cuda_ccc2_gemm(size_t m, size_t n, size_t nf, const uint64_t *A,
                                 size_t lda, const uint64_t *B, size_t ldb, int sparse,
                                 uint32_t *C, size_t ldc, void *scratch,
                                 sm_cuda_stream_t stream, void *cublas_handle)
{
  cudaStream_t s = (cudaStream_t)stream;
  cublasHandle_t h = (cublasHandle_t)cublas_handle;
  const gemm_layout g = layout(m, n, nf, sparse);
  const size_t kpad = g.kpad, lm = g.lm, rn = g.rn, ldg = g.ldg;
  signed char *L = (signed char *)scratch, *R = L + lm * kpad;
  int *G = (int *)((char *)scratch + (g.ops + 255) / 256 * 256);
  const dim3 t(256);
  expand<<<dim3(cap((kpad + 255) / 256), cap(m)), t, 0, s>>>((int)m, (long)nf, (long)kpad,
                                                             A, lda, sparse, L);
  expand<<<dim3(cap((kpad + 255) / 256), cap(n)), t, 0, s>>>((int)n, (long)nf, (long)kpad,
                                                             B, ldb, sparse, R);
  int err = (int)cudaGetLastError();
  if (!err) {
    const int one = 1, zero = 0;
    /* G (rn x lm, column-major) = R^T L: G[j', i'] = sum_q R[j', q] L[i', q] */
    cublasStatus_t st = cublasSetStream(h, s);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)rn, (int)lm, (int)kpad, &one, R,
                        CUDA_R_8I, (int)kpad, L, CUDA_R_8I, (int)kpad, &zero, G,
                        CUDA_R_32I, (int)ldg, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
      err = -1;
  }
  if (!err) {
    gather<<<dim3(cap((n + 255) / 256), cap(m)), t, 0, s>>>(
        (int)m, (int)n, sparse ? 4 : 1, G, ldg, C, ldc);
    err = (int)cudaGetLastError();
  }
  return err;
}
