/* sm_starpu_mpi.h: StarPU-MPI, or its one-rank meaning where this StarPU
 * has none. A simulation build (StarPU configured with SimGrid, see
 * scripts/setup-sim) has no StarPU-MPI: SimGrid's MPI (SMPI) would need a
 * static StarPU and starmet compiled with smpicc. There starmet runs one
 * rank, and these calls mean what they mean for a job of one rank. */
#ifndef SM_STARPU_MPI_H
#define SM_STARPU_MPI_H

#include "config.h"

#include <mpi.h>
#include <starpu.h>

#ifdef SM_HAVE_STARPU_MPI
#include <starpu_mpi.h>
#else
#include <errno.h>
#include <stddef.h>

static inline int sm_one_rank_(MPI_Comm comm, int *v, int value)
{
  (void)comm;
  *v = value;
  return 0;
}
#define starpu_mpi_comm_rank(comm, rank) sm_one_rank_((comm), (rank), 0)
#define starpu_mpi_comm_size(comm, size) sm_one_rank_((comm), (size), 1)
#define starpu_mpi_data_get_rank(h) ((void)(h), 0)
#define starpu_mpi_data_register(h, tag, owner) ((void)(h), (void)(tag), (void)(owner))
#define starpu_mpi_wait_for_all(comm) ((void)(comm), starpu_task_wait_for_all())
#define starpu_mpi_task_insert(comm, cl, ...)                                            \
  ((void)(comm), starpu_task_insert((cl), __VA_ARGS__))
#define starpu_mpi_shutdown() ((void)0)
/* StarPU-MPI is never started here (one rank: no StarPU-MPI init). */
#define starpu_mpi_init_conf(argc, argv, init, comm, conf)                               \
  ((void)(argc), (void)(argv), (void)(init), (void)(comm), (void)(conf), -ENOSYS)
/* nothing is sent (the 1.3 and the 1.4 name, sm_starpu_compat.h) */
#define starpu_mpi_comm_amounts_retrieve(amounts) ((void)(amounts))
#define starpu_mpi_comm_stats_retrieve(amounts) ((void)(amounts))
#endif

#endif
