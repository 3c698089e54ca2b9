/* sm_cl_families.h: what the registry (sm_codelets_init,
 * sm_cl_registry.c) calls in the codelet families that need a set-up
 * before any task; each of those families includes it, no helper does. */
#ifndef SM_CL_FAMILIES_H
#define SM_CL_FAMILIES_H

#include "config.h" /* SM_SIMULATION */

#include <starpu.h>

/* The finalize3, czek3 and ccc3 models' footprints (codelet_finalize3.c,
 * codelet_czek3.c, codelet_ccc3.c): with the class of the share of its
 * tile triple a 3-way task keeps (sm_cl_keep3_footprint). */
void sm_cl_finalize3_setup(void);
void sm_cl_czek3_setup(void);
void sm_cl_ccc3_setup(void);
/* The sparse Czekanowski models' footprints (codelet_czek2_sparse.c,
 * codelet_sums.c): the vectors of the tiles, not their packed bytes. */
void sm_cl_czek2_sparse_setup(void);
void sm_cl_sums_sparse_setup(void);

#ifdef SM_SIMULATION
/* The finalize codelets' CUDA implementation in a simulation build
 * (codelet_finalize2.c, codelet_finalize3.c): f, the modeled-only stand-in
 * when STARMET_SIM_GPU_FINALIZE=1 (sm_cl_sim_gpu_finalize), else NULL. */
void sm_cl_sim_gpu_finalize2(starpu_cpu_func_t f);
void sm_cl_sim_gpu_finalize3(starpu_cpu_func_t f);
#endif

#endif
