/* kern_ccc3.cu: CCC 3-way plane moments on the GPU with __popcll: the
 * fields split by the plane vector's genotype, 2-way moments of x and y on
 * each part (same algebra as codelets/cpu/kern_ccc3.c). One thread per
 * (plane, x, y). */
#include "sm_kern_cuda.h"

namespace {

constexpr unsigned long long EVEN = 0x5555555555555555ull;

__device__ inline void bits(unsigned long long w, long left, unsigned long long *lo,
                            unsigned long long *hi, unsigned long long *valid)
{
  *lo = w & EVEN;
  *hi = (w >> 1) & EVEN;
  *valid = left >= 32 ? EVEN : ((1ull << (2 * left)) - 1) & EVEN;
}

__global__ void ccc3_kernel(int g, int mx, int my, long nf, const unsigned long long *P,
                            size_t ldp, const unsigned long long *X, size_t ldx,
                            const unsigned long long *Y, size_t ldy, int sparse,
                            unsigned *out)
{
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  const int x = blockIdx.y * blockDim.y + threadIdx.y, a = blockIdx.z;
  if (x >= mx || y >= my || a >= g)
    return;
  const unsigned long long *p = P + (size_t)a * ldp, *xr = X + (size_t)x * ldx,
                           *yr = Y + (size_t)y * ldy;
  const long nw = (nf + 31) / 32;
  const int nparts = sparse ? 3 : 2;
  unsigned mom[12] = {0};
  for (long w = 0; w < nw; w++) {
    unsigned long long plo, phi, pv, xlo, xhi, xv, ylo, yhi, yv;
    bits(p[w], nf - w * 32, &plo, &phi, &pv);
    bits(xr[w], nf - w * 32, &xlo, &xhi, &xv);
    bits(yr[w], nf - w * 32, &ylo, &yhi, &yv);
    unsigned long long part[3];
    if (sparse) {
      part[0] = ~plo & ~phi & pv;
      part[1] = plo & ~phi & pv;
      part[2] = plo & phi & pv;
    } else {
      part[0] = (plo ^ phi) & pv;
      part[1] = plo & phi & pv;
      part[2] = 0;
    }
    unsigned long long x1 = (sparse ? xlo : (xlo | xhi)) & xv, x2 = xlo & xhi;
    unsigned long long y1 = (sparse ? ylo : (ylo | yhi)) & yv, y2 = ylo & yhi;
    unsigned long long xm = (xlo | (~xhi & EVEN)) & xv, ym = (ylo | (~yhi & EVEN)) & yv;
    for (int e = 0; e < nparts; e++) {
      unsigned long long E = part[e], a1 = x1 & E, a2 = x2 & E;
      unsigned rr = __popcll(a1 & y1) + __popcll((a1 & y2) | (a2 & y1)) + 2 * __popcll(a2 & y2);
      if (sparse) {
        unsigned long long am = xm & E;
        mom[4 * e] += rr;
        mom[4 * e + 1] += __popcll(a1 & ym) + __popcll(a2 & ym);
        mom[4 * e + 2] += __popcll(am & y1) + __popcll(am & y2);
        mom[4 * e + 3] += __popcll(am & ym);
      } else {
        mom[e] += rr;
      }
    }
  }
  const int nmom = sparse ? 12 : 2;
  unsigned *o = out + (((size_t)a * mx + x) * my + y) * nmom;
  for (int t = 0; t < nmom; t++)
    o[t] = mom[t];
}

} // namespace

extern "C" void sm_cuda_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                             size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                             size_t ldy, int sparse, uint32_t *out, sm_cuda_stream_t stream)
{
  dim3 threads(16, 16);
  dim3 grid((unsigned)((my + 15) / 16), (unsigned)((mx + 15) / 16), (unsigned)g);
  ccc3_kernel<<<grid, threads, 0, (cudaStream_t)stream>>>(
      (int)g, (int)mx, (int)my, (long)nf, (const unsigned long long *)P, ldp,
      (const unsigned long long *)X, ldx, (const unsigned long long *)Y, ldy, sparse, out);
}
