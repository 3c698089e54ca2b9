/* kern_ccc2.cu: CCC 2-way moments on the GPU with __popcll on bit planes
 * derived from the 2-bit codes (same algebra as the CPU popcount kernel:
 * sm_kern.h). One thread per pair; rows are read through the L1 cache. */
#include "sm_kern_cuda.h"

namespace {

constexpr unsigned long long EVEN = 0x5555555555555555ull;

__global__ void ccc2_kernel(int m, int n, size_t nf, const unsigned long long *A,
                            size_t lda, const unsigned long long *B, size_t ldb,
                            int sparse, unsigned *C, size_t ldc)
{
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n)
    return;
  const unsigned long long *a = A + (size_t)i * lda, *b = B + (size_t)j * ldb;
  const size_t nw = (nf + 31) / 32;
  unsigned rr = 0, rm = 0, mr = 0, mm = 0;
  for (size_t w = 0; w < nw; w++) {
    size_t left = nf - w * 32;
    unsigned long long valid = left >= 32 ? EVEN : ((1ull << (2 * left)) - 1) & EVEN;
    unsigned long long alo = a[w] & EVEN, ahi = (a[w] >> 1) & EVEN;
    unsigned long long blo = b[w] & EVEN, bhi = (b[w] >> 1) & EVEN;
    unsigned long long a1 = (sparse ? alo : (alo | ahi)) & valid, a2 = alo & ahi;
    unsigned long long b1 = (sparse ? blo : (blo | bhi)) & valid, b2 = blo & bhi;
    rr += __popcll(a1 & b1) + __popcll((a1 & b2) | (a2 & b1)) + 2 * __popcll(a2 & b2);
    if (sparse) {
      unsigned long long am = (alo | (~ahi & EVEN)) & valid;
      unsigned long long bm = (blo | (~bhi & EVEN)) & valid;
      rm += __popcll(a1 & bm) + __popcll(a2 & bm);
      mr += __popcll(am & b1) + __popcll(am & b2);
      mm += __popcll(am & bm);
    }
  }
  unsigned *c = C + ((size_t)i * ldc + j) * (sparse ? 4 : 1);
  c[0] = rr;
  if (sparse) {
    c[1] = rm;
    c[2] = mr;
    c[3] = mm;
  }
}

} // namespace

extern "C" void sm_cuda_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc, sm_cuda_stream_t stream)
{
  dim3 threads(16, 16);
  dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  ccc2_kernel<<<grid, threads, 0, (cudaStream_t)stream>>>(
      (int)m, (int)n, nf, (const unsigned long long *)A, lda,
      (const unsigned long long *)B, ldb, sparse, C, ldc);
}
