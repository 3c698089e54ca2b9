/* kern_saf.cu: exact SAF likelihoods on the GPU: one thread block per
 * site runs the iterative update of kern_saf_ref.c (sm_saf_step.h; likelihood
 * given the individuals so far, hypergeometric weights), the bins of each
 * step in parallel, the row shifted to a maximum of 0 after every step. */
#include "sm_kern_saf_cuda.h"
#include "sm_saf_step.h"

namespace
{

constexpr int THREADS = 256;

/* Block-wide maximum of v (every thread gets it). */
__device__ double block_max(double v, double *red)
{
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  double m = red[0];
  __syncthreads();
  return m;
}

__global__ void saf_kernel(int nind, const double *__restrict__ gl, size_t ldgl,
                           double *__restrict__ out, size_t ldout, double *scratch,
                           sm_saf_site_t *info)
{
  __shared__ double red[THREADS];
  __shared__ double lp[3];
  __shared__ int ndata;
  const int s = blockIdx.x, nbins = 2 * nind + 1;
  const double *p = gl + (size_t)s * ldgl;
  double *u = out + (size_t)s * ldout, *v = scratch + (size_t)s * nbins;
  if (threadIdx.x == 0) {
    u[0] = 0.0;
    ndata = 0;
  }
  for (int i = 0; i < nind; i++) {
    if (threadIdx.x == 0)
      ndata += sm_saf_gl_logs(p + 3 * (size_t)i, lp);
    __syncthreads();
    const int n = 2 * (i + 1);
    double vmax = -INFINITY;
    for (int j = threadIdx.x; j <= n; j += blockDim.x) {
      v[j] = sm_saf_bin(u, lp, n, j);
      vmax = fmax(vmax, v[j]);
    }
    vmax = block_max(vmax, red);
    for (int j = threadIdx.x; j <= n; j += blockDim.x)
      v[j] -= vmax;
    __syncthreads();
    double *w = u;
    u = v;
    v = w;
  }
  double *row = out + (size_t)s * ldout;
  if (u != row)
    for (int j = threadIdx.x; j < nbins; j += blockDim.x)
      row[j] = u[j];
  __syncthreads();
  if (threadIdx.x == 0) {
    int lo = nbins, hi = -1;
    for (int j = 0; j < nbins; j++)
      if (ndata == 0)
        row[j] = -INFINITY;
      else if (row[j] != -INFINITY) {
        lo = j < lo ? j : lo;
        hi = j;
      }
    sm_saf_site_t in = {0, 0, 0, 0};
    if (ndata) {
      in.lo = (uint32_t)lo;
      in.hi = (uint32_t)hi;
      in.ndata = (uint32_t)ndata;
    }
    info[s] = in;
  }
}

} // namespace

extern "C" void sm_cuda_saf(size_t nsites, size_t nind, const double *gl, size_t ldgl,
                            double *out, size_t ldout, sm_saf_site_t *info,
                            sm_cuda_saf_stream_t stream)
{
  if (nsites == 0)
    return;
  cudaStream_t st = (cudaStream_t)stream;
  double *scratch = nullptr;
  cudaMallocAsync((void **)&scratch, nsites * (2 * nind + 1) * sizeof(double), st);
  saf_kernel<<<(unsigned)nsites, THREADS, 0, st>>>((int)nind, gl, ldgl, out, ldout,
                                                   scratch, info);
  cudaFreeAsync(scratch, st);
}
