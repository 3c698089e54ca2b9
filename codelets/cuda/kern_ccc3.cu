/* kern_ccc3.cu: CCC 3-way plane moments on the GPU with __popcll: the
 * fields split by the plane vector's genotype, 2-way moments of x and y on
 * each part (sm_formulas.h, as codelets/cpu/ccc/kern_ccc3.c). One thread per
 * (plane, x, y). */
#include "sm_formulas.h"
#include "sm_kern_cuda.h"

namespace
{

__global__ void ccc3_kernel(int g, int mx, int my, long nf, const uint64_t *P, size_t ldp,
                            const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy,
                            int sparse, unsigned *out)
{
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  const int x = blockIdx.y * blockDim.y + threadIdx.y, a = blockIdx.z;
  if (x >= mx || y >= my || a >= g)
    return;
  const uint64_t *p = P + (size_t)a * ldp, *xr = X + (size_t)x * ldx,
                 *yr = Y + (size_t)y * ldy;
  const long nw = (nf + 31) / 32;
  sm_u32 mom[12] = {0};
  for (long w = 0; w < nw; w++)
    sm_ccc3_word(p[w], xr[w], yr[w], (sm_u64)(nf - w * 32), sparse, mom);
  const int nmom = sparse ? 12 : 2;
  unsigned *o = out + (((size_t)a * mx + x) * my + y) * nmom;
  for (int t = 0; t < nmom; t++)
    o[t] = mom[t];
}

} // namespace

extern "C" void sm_cuda_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                             size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                             size_t ldy, int sparse, uint32_t *out,
                             sm_cuda_stream_t stream)
{
  dim3 threads(16, 16);
  dim3 grid((unsigned)((my + 15) / 16), (unsigned)((mx + 15) / 16), (unsigned)g);
  ccc3_kernel<<<grid, threads, 0, (cudaStream_t)stream>>>(
      (int)g, (int)mx, (int)my, (long)nf, P, ldp, X, ldx, Y, ldy, sparse, out);
}
