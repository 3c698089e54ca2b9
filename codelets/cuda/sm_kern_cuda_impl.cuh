/* sm_kern_cuda_impl.cuh: what the Czekanowski CUDA kernels (kern_czek2.cu,
 * kern_czek3.cu) share: the shared-memory tile edge and the minimum of the
 * min-plus product, one template for float and double. Device code only. */
#ifndef SM_KERN_CUDA_IMPL_CUH
#define SM_KERN_CUDA_IMPL_CUH

namespace sm_cuda {

constexpr int TILE = 16;

template <typename T> __device__ inline T dmin(T a, T b);
template <> __device__ inline float dmin<float>(float a, float b) { return fminf(a, b); }
template <> __device__ inline double dmin<double>(double a, double b) { return fmin(a, b); }

} // namespace sm_cuda

#endif
