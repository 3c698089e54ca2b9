/* sm_cl_common.h: what the codelet files share: the insertion switch
 * (plain StarPU or StarPU-MPI) and the selected CPU kernel. */
#ifndef SM_CL_COMMON_H
#define SM_CL_COMMON_H

#include <starpu.h>
#include <starpu_mpi.h>

#include "sm_codelets.h"
#include "sm_kern_simd.h"

extern int sm_cl_use_mpi;
extern sm_kernel_t sm_cl_kernel;
/* Worker types the numerator tasks may run on (--devices). */
extern unsigned long long sm_cl_num_where;

/* The 2-way CPU kernels sm_cl_kernel selects on this CPU (sm_kern_simd.h). */
sm_czek2_d_fn sm_cl_czek2_d(void);
sm_czek2_s_fn sm_cl_czek2_s(void);
sm_ccc2_fn sm_cl_ccc2(int sparse);
/* Their symmetric variants for diagonal blocks (B = A), or NULL. */
sm_czek2_syrk_d_fn sm_cl_czek2_syrk_d(void);
sm_czek2_syrk_s_fn sm_cl_czek2_syrk_s(void);
sm_ccc2_syrk_fn sm_cl_ccc2_syrk(int sparse);

/* Every task gets a number and reports when it ran (sm_cl_observe.c). */
void *sm_cl_task_id(void);
void sm_cl_task_done(void *id);
#define SM_CL_OBSERVE STARPU_CALLBACK_WITH_ARG_NFREE, sm_cl_task_done, sm_cl_task_id()

/* Insert a task on one rank or, under MPI, on the rank that owns the
 * written data (every rank submits the same graph). */
#define SM_INSERT(cl, ...)                                                     \
  (sm_cl_use_mpi                                                               \
       ? starpu_mpi_task_insert(MPI_COMM_WORLD, (cl), SM_CL_OBSERVE, __VA_ARGS__) \
       : starpu_task_insert((cl), SM_CL_OBSERVE, __VA_ARGS__))

/* Copy an args struct for STARPU_CL_ARGS (StarPU frees it). */
void *sm_cl_args_dup(const void *args, size_t size);

#endif
