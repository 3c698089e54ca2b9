/* kern_czek3.cu: Czekanowski 3-way planes on the GPU: for each plane p of
 * a group, n3(p, x, y) = sum_q min(p_q, x_q, y_q) as a tiled min-plus GEMM of
 * min(p, X) against Y (the plane vector is staged in shared memory). */
#include "sm_kern_cuda.h"
#include "sm_kern_cuda_impl.cuh"

namespace
{

using sm_cuda::dmin;
using sm_cuda::TILE;

template <typename T>
__global__ void czek3_kernel(int mx, int my, int k, const T *__restrict__ P, size_t ldp,
                             const T *__restrict__ X, size_t ldx, const T *__restrict__ Y,
                             size_t ldy, T *__restrict__ out)
{
  __shared__ T xs[TILE][TILE + 1];
  __shared__ T ys[TILE][TILE + 1];
  const int a = blockIdx.z;
  const T *p = P + (size_t)a * ldp;
  const int x = blockIdx.y * TILE + threadIdx.y, y = blockIdx.x * TILE + threadIdx.x;
  const int xr = blockIdx.y * TILE + threadIdx.y, yr = blockIdx.x * TILE + threadIdx.y;
  T acc = 0;
  for (int q0 = 0; q0 < k; q0 += TILE) {
    int q = q0 + threadIdx.x;
    T pq = q < k ? p[q] : T(0);
    xs[threadIdx.y][threadIdx.x] =
        (xr < mx && q < k) ? dmin(pq, X[(size_t)xr * ldx + q]) : T(0);
    ys[threadIdx.y][threadIdx.x] = (yr < my && q < k) ? Y[(size_t)yr * ldy + q] : T(0);
    __syncthreads();
#pragma unroll
    for (int t = 0; t < TILE; t++)
      acc += dmin(xs[threadIdx.y][t], ys[threadIdx.x][t]);
    __syncthreads();
  }
  if (x < mx && y < my)
    out[((size_t)a * mx + x) * my + y] = acc;
}

template <typename T>
void launch(size_t g, size_t mx, size_t my, size_t k, const T *P, size_t ldp, const T *X,
            size_t ldx, const T *Y, size_t ldy, T *out, cudaStream_t s)
{
  dim3 threads(TILE, TILE);
  dim3 grid((unsigned)((my + TILE - 1) / TILE), (unsigned)((mx + TILE - 1) / TILE),
            (unsigned)g);
  czek3_kernel<T>
      <<<grid, threads, 0, s>>>((int)mx, (int)my, (int)k, P, ldp, X, ldx, Y, ldy, out);
}

} // namespace

extern "C" void sm_cuda_czek3_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                                size_t ldp, const double *X, size_t ldx, const double *Y,
                                size_t ldy, double *out, sm_cuda_stream_t stream)
{
  launch<double>(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out, (cudaStream_t)stream);
}

extern "C" void sm_cuda_czek3_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                                size_t ldp, const float *X, size_t ldx, const float *Y,
                                size_t ldy, float *out, sm_cuda_stream_t stream)
{
  launch<float>(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out, (cudaStream_t)stream);
}
