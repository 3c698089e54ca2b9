/* kern_czek2.cu: Czekanowski 2-way mGEMM on the GPU: C[i,j] = sum_q
 * min(A[i,q], B[j,q]), tiled in shared memory, float and double from one
 * template. */
#include "sm_kern_cuda.h"
#include "sm_kern_cuda_impl.cuh"

namespace
{

using sm_cuda::dmin;
using sm_cuda::TILE;

template <typename T>
__global__ void czek2_kernel(int m, int n, int k, const T *__restrict__ A, size_t lda,
                             const T *__restrict__ B, size_t ldb, T *__restrict__ C,
                             size_t ldc)
{
  __shared__ T as[TILE][TILE + 1];
  __shared__ T bs[TILE][TILE + 1];
  const int i = blockIdx.y * TILE + threadIdx.y;
  const int j = blockIdx.x * TILE + threadIdx.x;
  T acc = 0;
  for (int q0 = 0; q0 < k; q0 += TILE) {
    /* stage a TILE x TILE piece of the rows of A and of B */
    int ai = blockIdx.y * TILE + threadIdx.y, bj = blockIdx.x * TILE + threadIdx.y;
    int q = q0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] = (ai < m && q < k) ? A[(size_t)ai * lda + q] : T(0);
    bs[threadIdx.y][threadIdx.x] = (bj < n && q < k) ? B[(size_t)bj * ldb + q] : T(0);
    __syncthreads();
#pragma unroll
    for (int t = 0; t < TILE; t++)
      acc += dmin(as[threadIdx.y][t], bs[threadIdx.x][t]);
    __syncthreads();
  }
  if (i < m && j < n)
    C[(size_t)i * ldc + j] = acc;
}

template <typename T>
void launch(size_t m, size_t n, size_t k, const T *A, size_t lda, const T *B, size_t ldb,
            T *C, size_t ldc, cudaStream_t s)
{
  dim3 threads(TILE, TILE);
  dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
  czek2_kernel<T>
      <<<grid, threads, 0, s>>>((int)m, (int)n, (int)k, A, lda, B, ldb, C, ldc);
}

} // namespace

extern "C" void sm_cuda_czek2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                                const double *B, size_t ldb, double *C, size_t ldc,
                                sm_cuda_stream_t stream)
{
  launch<double>(m, n, k, A, lda, B, ldb, C, ldc, (cudaStream_t)stream);
}

extern "C" void sm_cuda_czek2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                                const float *B, size_t ldb, float *C, size_t ldc,
                                sm_cuda_stream_t stream)
{
  launch<float>(m, n, k, A, lda, B, ldb, C, ldc, (cudaStream_t)stream);
}
