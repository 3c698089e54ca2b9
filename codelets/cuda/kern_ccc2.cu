/* kern_ccc2.cu: CCC 2-way moments on the GPU with __popcll on bit planes
 * derived from the 2-bit codes (sm_formulas.h, as the CPU popcount kernel).
 * One thread per pair; rows are read through the L1 cache. */
#include "sm_formulas.h"
#include "sm_kern_cuda.h"

namespace
{

__global__ void ccc2_kernel(int m, int n, size_t nf, const uint64_t *A, size_t lda,
                            const uint64_t *B, size_t ldb, int sparse, unsigned *C,
                            size_t ldc)
{
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n)
    return;
  const uint64_t *a = A + (size_t)i * lda, *b = B + (size_t)j * ldb;
  const size_t nw = (nf + 31) / 32;
  sm_u32 mom[4] = {0, 0, 0, 0};
  for (size_t w = 0; w < nw; w++)
    sm_ccc2_word(a[w], b[w], nf - w * 32, sparse, mom);
  unsigned *c = C + ((size_t)i * ldc + j) * (sparse ? 4 : 1);
  for (int t = 0; t < (sparse ? 4 : 1); t++)
    c[t] = mom[t];
}

} // namespace

extern "C" void sm_cuda_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc, sm_cuda_stream_t stream)
{
  dim3 threads(16, 16);
  dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  ccc2_kernel<<<grid, threads, 0, (cudaStream_t)stream>>>((int)m, (int)n, nf, A, lda, B,
                                                          ldb, sparse, C, ldc);
}
