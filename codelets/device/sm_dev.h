/* sm_dev.h: the thin layer under starmet's device kernels, so that each is
 * written once (sm_dev_kernels.h) and compiled both as CUDA (by nvcc, in
 * codelets/cuda/kern_device.cu) and as OpenCL C (the program text built at
 * start-up: sm_formulas.h, this file and sm_dev_kernels.h, see Makefile.am).
 *
 * Kernels use only: SM_DEV_KERNEL, SM_G (global pointers), SM_SHARED (local
 * / shared arrays, declared at kernel scope) and SM_L (pointers to them),
 * SM_BARRIER() (and SM_BARRIER_G(), which also orders global memory
 * within the group), SM_LID(d) (thread in its group, d = 0, 1, 2 = CUDA's x, y,
 * z), SM_GRP(d) and SM_NGRP(d) (group and number of groups), SM_FMIN_D/_F,
 * and SM_POPC64 (sm_formulas.h). Buffers come with an element offset (0
 * under CUDA, StarPU's sub-buffer offset under OpenCL).
 *
 * The launch geometry is shared by both launchers (host C includes this
 * file for it): work-groups of SM_DEV_TX x SM_DEV_TY threads; every kernel
 * walks its groups in strides of the number of groups, so any problem size
 * runs with the grid capped (CUDA allows 65535 groups in y and z). */
#ifndef SM_DEV_H
#define SM_DEV_H

/* ---- launch geometry (host and device) */
#define SM_DEV_TX 16 /* threads of a group along dimension 0 */
#define SM_DEV_TY 16 /* along dimension 1 */
/* Czekanowski min-plus tiles: each thread computes SM_DEV_CZ_R x SM_DEV_CZ_R
 * outputs; a group a (TY*R) x (TX*R) block; SM_DEV_CZ_K fields per stage. */
#define SM_DEV_CZ_R 4
#define SM_DEV_CZ_K 16
/* CCC popcount tiles: 2-way SM_DEV_C2_R x SM_DEV_C2_R pairs per thread,
 * 3-way SM_DEV_C3_R x SM_DEV_C3_R (x, y) per thread (12 moments each);
 * SM_DEV_CC_W 64-bit words of each row staged at a time (as bit planes). */
#define SM_DEV_C2_R 4
#define SM_DEV_C3_R 2
#define SM_DEV_CC_W 8
/* rows and columns of the block of outputs a group computes */
#define SM_DEV_CZ_ROWS (SM_DEV_TY * SM_DEV_CZ_R)
#define SM_DEV_CZ_COLS (SM_DEV_TX * SM_DEV_CZ_R)
#define SM_DEV_C2_ROWS (SM_DEV_TY * SM_DEV_C2_R)
#define SM_DEV_C2_COLS (SM_DEV_TX * SM_DEV_C2_R)
#define SM_DEV_C3_ROWS (SM_DEV_TY * SM_DEV_C3_R)
#define SM_DEV_C3_COLS (SM_DEV_TX * SM_DEV_C3_R)
#define SM_DEV_SAF_THREADS 256 /* one group of these per site (and per finalize row) */
/* flags of the 2-way finalize kernels (sm_fin2_args_t's fields) */
#define SM_FIN_DIAG 1          /* diagonal block: j > i only */
#define SM_FIN_SWAP 2          /* records (j, i), CCC entry bits swapped */
#define SM_FIN_EMIT 4          /* records are wanted */
#define SM_FIN_KEEPALL 8       /* every value is a record */
#define SM_FIN_THRF32 16       /* the threshold compares float32-rounded values */
#define SM_FIN_SPARSE 32       /* CCC sparse method */
#define SM_FIN_BC 64           /* Czekanowski numerators: Bray-Curtis values */
#define SM_FIN_JACCARD 128     /* Czekanowski numerators: Jaccard values */
#define SM_FIN_ZNAN 256        /* a pair of two zero sums is NaN */
#define SM_FIN_MAX_GROUPS 1024 /* groups of a finalize launch at most */
#define SM_FIN_PART_WORDS 5    /* per group: 4 checksum sums, kept values */
#define SM_DEV_MAX_GROUPS 65535

#if defined(__OPENCL_VERSION__)
#define SM_DEV_KERNEL __kernel
#define SM_G __global
#define SM_L __local
#define SM_SHARED __local
#define SM_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define SM_BARRIER_G() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define SM_LID(d) ((int)get_local_id(d))
#define SM_GRP(d) ((int)get_group_id(d))
#define SM_NGRP(d) ((int)get_num_groups(d))
#define SM_FMIN_D(a, b) fmin((a), (b))
#define SM_FMIN_F(a, b) fmin((a), (b))
#define SM_DEVFN SM_FN
typedef long sm_i64;
typedef char sm_i8; /* signed in OpenCL C */
#elif defined(__CUDACC__)
#define SM_DEV_KERNEL extern "C" __global__
#define SM_G
#define SM_L
#define SM_SHARED __shared__
#define SM_BARRIER() __syncthreads()
#define SM_BARRIER_G() __syncthreads()
#define SM_LID(d) ((int)((d) == 0 ? threadIdx.x : (d) == 1 ? threadIdx.y : threadIdx.z))
#define SM_GRP(d) ((int)((d) == 0 ? blockIdx.x : (d) == 1 ? blockIdx.y : blockIdx.z))
#define SM_NGRP(d) ((int)((d) == 0 ? gridDim.x : (d) == 1 ? gridDim.y : gridDim.z))
#define SM_FMIN_D(a, b) fmin((a), (b))
#define SM_FMIN_F(a, b) fminf((a), (b))
#define SM_DEVFN __device__ static inline
typedef long long sm_i64;
typedef signed char sm_i8;
#else
/* host C: the geometry only */
#include <stddef.h>
/** Groups along one dimension for n items, tile items per group, capped
 * (the kernels stride over the rest). */
static inline size_t sm_dev_groups(size_t n, size_t tile, size_t cap)
{
  size_t g = (n + tile - 1) / tile;
  if (g > cap)
    g = cap;
  return g ? g : 1;
}
#endif

#endif
