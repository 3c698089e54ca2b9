/* sm_cl_common.h: what the codelet files share: the insertion switch
 * (plain StarPU or StarPU-MPI) and the selected CPU kernel. */
#ifndef SM_CL_COMMON_H
#define SM_CL_COMMON_H

#include <starpu.h>
#include <starpu_mpi.h>

#include "sm_codelets.h"

extern int sm_cl_use_mpi;
extern sm_kernel_t sm_cl_kernel;

/* Insert a task on one rank or, under MPI, on the rank that owns the
 * written data (every rank submits the same graph). */
#define SM_INSERT(cl, ...)                                                     \
  (sm_cl_use_mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, (cl), __VA_ARGS__)  \
                 : starpu_task_insert((cl), __VA_ARGS__))

/* Copy an args struct for STARPU_CL_ARGS (StarPU frees it). */
void *sm_cl_args_dup(const void *args, size_t size);

#endif
