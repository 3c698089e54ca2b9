/* sm_cl_settings.c: the settings of the run every codelet file reads
 * (sm_cl_common.h: MPI or not, the CPU kernel asked for, where the tasks
 * may run) and the copy of a task's arguments for StarPU. */
#include <stdlib.h>
#include <string.h>

#include "sm_cl_common.h"

int sm_cl_use_mpi;
static int cl_rank; /* this rank, under MPI */
sm_kernel_t sm_cl_kernel = SM_KERNEL_AUTO;
unsigned long long sm_cl_num_where = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
unsigned long long sm_cl_end_where = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
static int end_follows = 1;

void sm_cl_settings(int use_mpi, sm_kernel_t kernel)
{
  sm_cl_use_mpi = use_mpi;
  if (use_mpi)
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &cl_rank);
  sm_cl_kernel = kernel;
}

void sm_codelets_set_devices(unsigned long long where)
{
  sm_cl_num_where = where;
  sm_cl_end_where = end_follows ? where : STARPU_CPU;
}

void sm_codelets_set_follow(int follow)
{
  end_follows = follow;
  sm_cl_end_where = follow ? sm_cl_num_where : STARPU_CPU;
}

void *sm_cl_args_dup(starpu_data_handle_t W, const void *args, size_t size)
{
  if (sm_cl_use_mpi) {
    const int owner = starpu_mpi_data_get_rank(W);
    if (owner >= 0 && owner != cl_rank)
      return NULL;
  }
  void *p = malloc(size);
  if (p)
    memcpy(p, args, size);
  return p;
}
