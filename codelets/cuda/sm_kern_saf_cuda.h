/* sm_kern_saf_cuda.h: C launcher of the CUDA SAF kernel. Asynchronous on
 * the given stream (StarPU's per-worker stream). */
#ifndef SM_KERN_SAF_CUDA_H
#define SM_KERN_SAF_CUDA_H

#include <stddef.h>

#include "sm_kern_saf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *sm_cuda_saf_stream_t;

/* Exact SAF of nsites sites of nind individuals (sm_kern_saf.h layouts),
 * one thread block per site running the iterative update in log space
 * with every bin of a step in parallel. */
int sm_cuda_saf(size_t nsites, size_t nind, const double *gl, size_t ldgl, double *out,
                size_t ldout, sm_saf_site_t *info, sm_cuda_saf_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif
