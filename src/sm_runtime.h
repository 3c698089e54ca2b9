/* sm_runtime.h: starting and stopping StarPU (and, later, StarPU-MPI), and
 * what the run summary reports about workers and transfers. */
#ifndef SM_RUNTIME_H
#define SM_RUNTIME_H

#include <stdint.h>

#include "sm_error.h"

#define SM_MAX_WORKERS 64

typedef struct sm_worker_stats {
  char name[64];
  int executed;      /* tasks executed */
  double busy_s;     /* time executing tasks */
  double total_s;    /* profiling interval */
} sm_worker_stats_t;

typedef struct sm_runtime_stats {
  int nworkers, ncpu, ncuda, nopencl;
  sm_worker_stats_t w[SM_MAX_WORKERS];
  uint64_t bus_bytes;  /* bytes moved between memory nodes */
  uint64_t mpi_bytes;  /* bytes this rank sent through StarPU-MPI */
  char sched[64];
} sm_runtime_stats_t;

/** Start StarPU with the given policy (NULL: StarPU's default or
 * STARPU_SCHED) and profiling on; with use_mpi, StarPU-MPI too (MPI itself
 * already initialized, see sm_mpi.h). Fails with SM_ERUNTIME and a message when
 * no worker can run the codelets. */
sm_err_t sm_runtime_init(const char *sched, int use_mpi) SM_MUST_CHECK;

/** Read the per-worker and bus profiling counters (call after the graph
 * completed, before sm_runtime_shutdown). */
void sm_runtime_collect(sm_runtime_stats_t *st);

/** Stop StarPU. */
void sm_runtime_shutdown(void);

#endif
