/* sm_runtime.h: starting and stopping StarPU (and StarPU-MPI), and what
 * the run summary reports about workers, codelets and transfers. */
#ifndef SM_RUNTIME_H
#define SM_RUNTIME_H

#include <stdint.h>

#include "sm_error.h"
#include "sm_gpu.h"

#define SM_MAX_WORKERS 64
#define SM_MAX_BUSES 32
#define SM_MAX_CODELETS 32

typedef struct sm_worker_stats {
  char name[64];
  char arch[8];   /* cpu, cuda, opencl */
  int executed;   /* tasks executed */
  double busy_s;  /* time executing tasks */
  double total_s; /* profiling interval (the task graph's run) */
} sm_worker_stats_t;

typedef struct sm_bus_stats {
  int src, dst; /* memory nodes */
  char src_name[24], dst_name[24];
  uint64_t bytes;
  int transfers;
} sm_bus_stats_t;

/* Tasks of one codelet that ran on this rank (see sm_observe.h). */
typedef struct sm_codelet_stats {
  char name[48]; /* codelet */
  char kind[16]; /* task name: sums, add, ccc2, finalize2, output, ... */
  uint64_t count;
  uint64_t uncalibrated; /* ran while its performance model had too few samples */
  double uncalibrated_s; /* their time */
  double total_s, min_s, max_s;
  double work; /* sm_cl_work of its tasks: comparisons, or bytes */
} sm_codelet_stats_t;

typedef struct sm_runtime_stats {
  int nworkers, ncpu, ncuda, nopencl;
  sm_worker_stats_t w[SM_MAX_WORKERS];
  int nbuses;
  sm_bus_stats_t bus[SM_MAX_BUSES];
  uint64_t bus_bytes; /* bytes moved between memory nodes, fin_bytes included */
  uint64_t fin_bytes; /* of which the device finalize copied (sm_cl_devfin_bytes) */
  uint64_t mpi_bytes; /* bytes this rank sent through StarPU-MPI */
  uint64_t kept_reused, kept_built; /* sm_codelets_kept_stats */
  char sched[64];
  int ncodelets;
  sm_codelet_stats_t cl[SM_MAX_CODELETS];
  uint64_t tasks_done;   /* tasks of the graph that ran on this rank */
  uint64_t uncalibrated; /* of which without a calibrated model */
  char bind_mode[12];    /* where the workers run: see sm_bind_info_t */
  char bind_cpus[256];
  sm_gpu_plan_t gpu; /* local rank and CUDA devices (sm_gpu.h) */
} sm_runtime_stats_t;

/** Start StarPU with the given policy (NULL: STARPU_SCHED or StarPU's
 * default; see sm_sched_conf for the checks, heteroprio and calibration) and
 * profiling on; with use_mpi, StarPU-MPI too (MPI itself already
 * initialized, see sm_mpi.h). In a CUDA build each rank of a node gets its
 * own CUDA devices by local rank, unless the user pinned them (sm_gpu.h). Fails with
 * SM_ERUNTIME (or the error of sm_sched_conf) and a message when no worker can run the
 * codelets. */
sm_err_t sm_runtime_init(const char *sched, int use_mpi) SM_MUST_CHECK;

/** --task-timeout: StarPU's watchdog (STARPU_WATCHDOG_TIMEOUT) for the next
 * sm_runtime_init; 0 leaves it as the environment says. When no task of
 * the rank finished for that long although tasks remain, its running tasks
 * are logged (codelet, block, worker, time) and the stall handler ends the
 * process: the run fails instead of hanging. */
void sm_runtime_set_watchdog(double seconds);

/** What ends the process on a stall (main.c: every rank, status 1). */
void sm_runtime_set_stall_handler(void (*stall)(void));

/** What logs the tasks running on a stall and says how many (the
 * observation sets it when it starts: sm_observe_report_running; none
 * before, when no task of the graph runs yet). */
void sm_runtime_set_running_report(int (*report)(double min_s));

/** Restart the worker and bus profiling counters (the task graph starts). */
void sm_runtime_reset_counters(void);

/** Read the per-worker and bus profiling counters (call after the graph
 * completed, before sm_runtime_shutdown). Leaves the codelet fields alone. */
void sm_runtime_collect(sm_runtime_stats_t *st);

/** Stop StarPU. */
void sm_runtime_shutdown(void);

#endif
