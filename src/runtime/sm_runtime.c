/* sm_runtime.c: StarPU start/stop and profiling counters. */
#include "sm_runtime.h"

#include "config.h"
#include "sm_bind.h"
#include "sm_codelets.h"
#include "sm_crash.h"
#include "sm_gpu.h"
#include "sm_mpi.h"
#include "sm_sched.h"

#include <starpu.h>
#include "sm_starpu_mpi.h"
#include "sm_starpu_compat.h"
#include <starpu_profiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static double ts_s(struct timespec t)
{
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int with_mpi, quiet_comm_stats;
static FILE *catch_stderr_begin(void);
static void catch_stderr_end(FILE *f);
static double watchdog_s;
static void (*stall_handler)(void);
static int (*running_report)(double min_s);

void sm_runtime_set_watchdog(double seconds)
{
  watchdog_s = seconds;
}

void sm_runtime_set_stall_handler(void (*stall)(void))
{
  stall_handler = stall;
}

void sm_runtime_set_running_report(int (*report)(double min_s))
{
  running_report = report;
}

/* StarPU's watchdog thread: no task finished for watchdog_s seconds. */
static void on_stall(void *arg)
{
  (void)arg;
  static int idle_stalls;
  const int me = with_mpi ? sm_mpi_rank() : 0;
  sm_log_error("no task finished for %g s on rank %d (--task-timeout %g): the run stops",
               watchdog_s, me, watchdog_s);
  if (!running_report || !running_report(0)) {
    sm_log_error("no task runs on rank %d: it waits for data from another rank, or for "
                 "a task the scheduler never started",
                 me);
    /* the rank whose task hangs names it first: wait one period more */
    if (with_mpi && ++idle_stalls < 2)
      return;
  }
  if (stall_handler)
    stall_handler();
}

/* A simulation build needs the simulated machine's platform files where
 * StarPU looks for them (scripts/sim-platform writes them) and task times
 * for every codelet it may run; say so before StarPU aborts. */
static sm_err_t check_simulation(void)
{
#ifdef SM_SIMULATION
  char path[4500];
  const int plat = sm_sched_platform_file(sm_sched_perfmodel_dir(), "platform.v4.xml",
                                          path, sizeof path) == 0;
  if (!plat || access(path, R_OK) != 0) {
    sm_log_error(
        "this starmet is a simulation build (StarPU with SimGrid): it needs a "
        "simulated machine; %s (looked for %s). Write one with scripts/sim-platform "
        "NAME --model-dir %s and run with STARPU_HOSTNAME=NAME",
        plat ? "its platform files are missing" : "STARPU_HOSTNAME is not set", path,
        sm_sched_perfmodel_dir());
    return SM_ERUNTIME;
  }
  char why[1400];
  if (sm_cl_sim_check(sm_sched_expected_gpus(), why, sizeof why)) {
    sm_log_error("simulation: %s", why);
    return SM_EFORMAT;
  }
#endif
  return SM_OK;
}

static sm_gpu_plan_t gpu_plan;

/* Before StarPU starts (collective over the node's ranks): this rank's
 * local rank and, in a CUDA build, its own CUDA devices unless the user
 * pinned them (sm_gpu.h); returns the GPUs it will drive. */
static int place_gpus(struct starpu_conf *conf)
{
#if defined(SM_USE_CUDA) && !defined(SM_SIMULATION)
  sm_gpu_plan(sm_codelets_cuda_devices(), &gpu_plan);
  const sm_gpu_choice_t *c = &gpu_plan.choice;
  if (gpu_plan.applied && c->ndev > 0 && conf->ncuda != 0) {
    /* the same fields in StarPU 1.3 and 1.4; STARPU_NCUDA=N takes at
     * most N of them */
    for (int w = 0; w < STARPU_NMAXWORKERS; w++)
      conf->workers_cuda_gpuid[w] = (unsigned)c->dev[w % c->ndev];
    conf->use_explicit_workers_cuda_gpuid = 1;
    if (conf->ncuda < 0 || conf->ncuda > c->ndev)
      conf->ncuda = c->ndev;
    return conf->ncuda;
  }
#else
  sm_gpu_plan(-1, &gpu_plan);
  (void)conf;
#endif
  return sm_sched_expected_gpus();
}

/* With CUDA workers StarPU pins the buffers it allocates in RAM, and
 * carves the small ones (up to 4 MiB) out of 32 MiB chunks that it pins
 * when the first is needed (cudaHostAlloc: 20.8 ms in StarPU's simulation,
 * 650 us per MiB, holding the allocator's lock). Left to the first tasks,
 * that stalled every worker whose task needed a small buffer (the tiles'
 * sums, the records): on a simulated Summit-like node the six GPUs sat
 * idle for 21 ms of a 114 ms run, twice. One chunk taken here, while StarPU
 * starts, and given back (StarPU keeps free chunks) is there for them. */
static void warm_pinned(void)
{
  if (starpu_cuda_worker_get_count() == 0)
    return;
  const size_t least = 16384; /* StarPU's smallest suballocation */
  const uintptr_t p =
      starpu_malloc_on_node_flags(STARPU_MAIN_RAM, least, STARPU_MALLOC_PINNED);
  if (p)
    starpu_free_on_node_flags(STARPU_MAIN_RAM, p, least, STARPU_MALLOC_PINNED);
}

sm_err_t sm_runtime_init(const char *sched, int use_mpi)
{
#ifdef SM_SMPI
  use_mpi = 1; /* SimGrid's MPI: StarPU-MPI runs from before main, on one rank too */
#endif
  /* StarPU's own notes (its bus being sampled, each model "not calibrated
   * enough", "too big deviation") would stand beside starmet's account of
   * the same (the warning on uncalibrated models, the summary's codelets and
   * models lines): silent unless the user sets STARPU_SILENT (0 shows
   * them); StarPU's errors are printed either way */
  setenv("STARPU_SILENT", "1", 0);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  /* first: every rank on the machine takes part */
  const int gpus = place_gpus(&conf);
  sm_bind_prepare(use_mpi, gpus, &conf);
  sm_err_t err = sm_sched_conf(&conf, sched);
  if (!err)
    err = check_simulation();
  if (err)
    return err;
  int ret;
  with_mpi = use_mpi;
  if (watchdog_s > 0) {
    char us[32];
    snprintf(us, sizeof us, "%lld", (long long)(watchdog_s * 1e6 + 0.5));
    setenv("STARPU_WATCHDOG_TIMEOUT", us, 1);
  }
  if (use_mpi) {
    /* bytes sent, for the summary; StarPU then prints its own report at
     * shutdown, which we silence unless the user asked for it */
    quiet_comm_stats = getenv("STARPU_COMM_STATS") == NULL;
#ifdef SM_SMPI
    quiet_comm_stats = 0; /* the simulated ranks share one stderr: none is caught */
#endif
    setenv("STARPU_COMM_STATS", "1", 0);
    /* StarPU-MPI 1.4 warns at start-up that the statistics are on */
    FILE *caught = quiet_comm_stats ? catch_stderr_begin() : NULL;
    ret = starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, &conf);
    if (caught)
      catch_stderr_end(caught);
  } else {
#ifdef SM_SIMULATION
    /* StarPU 1.3.10 starts SimGrid from starpu_init's argv, which must not
     * be NULL there */
    static char name[] = "starmet", *args[] = {name, NULL};
    int argc = 1;
    char **argv = args;
    ret = starpu_initialize(&conf, &argc, &argv);
#else
    ret = starpu_init(&conf);
#endif
  }
  if (ret == -ENODEV) {
    sm_log_error("StarPU found no worker to run on (check STARPU_NCPU and friends)");
    return SM_ERUNTIME;
  }
  if (ret != 0) {
    sm_log_error("StarPU initialization failed (%d)", ret);
    return SM_ERUNTIME;
  }
  sm_crash_install(); /* before Open MPI's and StarPU's handlers */
  if (starpu_cpu_worker_get_count() == 0) {
    sm_log_error("no CPU worker: starmet needs at least one (unset STARPU_NCPU=0)");
    sm_runtime_shutdown();
    return SM_ERUNTIME;
  }
  /* buffers StarPU allocates (tiles received from other ranks, copies)
   * start on a cache line, as starmet's own do: StarPU's default is the
   * pointer size, which leaves SIMD loads straddling lines */
  starpu_malloc_set_align(64);
  warm_pinned();
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  starpu_task_watchdog_set_hook(watchdog_s > 0 ? on_stall : NULL, NULL);
  return SM_OK;
}

void sm_runtime_reset_counters(void)
{
  for (int w = 0; w < (int)starpu_worker_get_count(); w++)
    starpu_profiling_worker_get_info(w, NULL);
  struct starpu_profiling_bus_info bi;
  for (int b = 0; b < starpu_bus_get_count(); b++)
    starpu_bus_get_profiling_info(b, &bi); /* reading resets */
}

static const char *arch_name(enum starpu_worker_archtype t)
{
  return t == STARPU_CPU_WORKER      ? "cpu"
         : t == STARPU_CUDA_WORKER   ? "cuda"
         : t == STARPU_OPENCL_WORKER ? "opencl"
                                     : "other";
}

void sm_runtime_collect(sm_runtime_stats_t *st)
{
  st->nbuses = 0;
  st->bus_bytes = st->mpi_bytes = 0;
  sm_codelets_kept_stats(&st->kept_reused, &st->kept_built);
  const sm_bind_info_t *bind = sm_bind_info();
  snprintf(st->bind_mode, sizeof st->bind_mode, "%s", bind->mode);
  snprintf(st->bind_cpus, sizeof st->bind_cpus, "%s", bind->cpus);
  st->gpu = gpu_plan;
  st->nworkers = (int)starpu_worker_get_count();
  if (st->nworkers > SM_MAX_WORKERS)
    st->nworkers = SM_MAX_WORKERS;
  st->ncpu = (int)starpu_cpu_worker_get_count();
  st->ncuda = (int)starpu_cuda_worker_get_count();
  st->nopencl = (int)starpu_opencl_worker_get_count();
  snprintf(st->sched, sizeof st->sched, "%s", sm_sched_policy_name());
  for (int w = 0; w < st->nworkers; w++) {
    struct starpu_profiling_worker_info info;
    starpu_worker_get_name(w, st->w[w].name, sizeof st->w[w].name);
    snprintf(st->w[w].arch, sizeof st->w[w].arch, "%s",
             arch_name(starpu_worker_get_type(w)));
    if (starpu_profiling_worker_get_info(w, &info) == 0) {
      st->w[w].executed = info.executed_tasks;
      st->w[w].busy_s = ts_s(info.executing_time);
      st->w[w].total_s = ts_s(info.total_time);
    }
  }
  if (with_mpi) {
    int size = 1;
    starpu_mpi_comm_size(MPI_COMM_WORLD, &size);
    size_t *amounts = calloc((size_t)size + 1, sizeof *amounts);
    if (amounts) {
      sm_starpu_mpi_sent(amounts);
      for (int r = 0; r < size; r++)
        st->mpi_bytes += amounts[r];
      free(amounts);
    }
  }
  int nbus = starpu_bus_get_count();
  for (int b = 0; b < nbus; b++) {
    struct starpu_profiling_bus_info bi;
    if (starpu_bus_get_profiling_info(b, &bi) != 0)
      continue;
    st->bus_bytes += (uint64_t)bi.transferred_bytes;
    if (st->nbuses == SM_MAX_BUSES)
      continue;
    sm_bus_stats_t *x = &st->bus[st->nbuses++];
    *x = (sm_bus_stats_t){.src = starpu_bus_get_src(b),
                          .dst = starpu_bus_get_dst(b),
                          .bytes = (uint64_t)bi.transferred_bytes,
                          .transfers = bi.transfer_count};
    starpu_memory_node_get_name((unsigned)x->src, x->src_name, sizeof x->src_name);
    starpu_memory_node_get_name((unsigned)x->dst, x->dst_name, sizeof x->dst_name);
  }
  st->fin_bytes = sm_cl_devfin_bytes();
  st->bus_bytes += st->fin_bytes;
}

/* starmet turns StarPU-MPI's communication statistics on for its summary;
 * StarPU-MPI then prints them at shutdown (and 1.4 warns at start-up). What it prints to
 * stderr meanwhile is caught in a temporary file and passed on, all but those statistics
 * lines, so that no message of the shutdown is lost. */
static int saved_stderr = -1;

static FILE *catch_stderr_begin(void)
{
  FILE *f = tmpfile();
  if (!f)
    return NULL;
  fflush(stderr);
  saved_stderr = dup(2);
  if (saved_stderr < 0 || dup2(fileno(f), 2) < 0) {
    if (saved_stderr >= 0)
      close(saved_stderr);
    saved_stderr = -1;
    fclose(f);
    return NULL;
  }
  sm_crash_caught(saved_stderr, fileno(f)); /* a crash meanwhile shows it */
  return f;
}

static void catch_stderr_end(FILE *f)
{
  fflush(stderr);
  dup2(saved_stderr, 2);
  sm_crash_released();
  close(saved_stderr);
  saved_stderr = -1;
  char line[4096];
  rewind(f);
  while (fgets(line, sizeof line, f))
    if (!strstr(line, "[starpu_comm_stats") && !strstr(line, "with STARPU_MPI_STATS=1") &&
        strcmp(line, "\n") != 0)
      fputs(line, stderr);
  fclose(f);
}

void sm_runtime_shutdown(void)
{
  sm_codelets_fini(); /* the OpenCL program, while StarPU still runs */
  if (with_mpi) {
    FILE *caught = quiet_comm_stats ? catch_stderr_begin() : NULL;
    starpu_mpi_shutdown();
    if (caught)
      catch_stderr_end(caught);
  }
  if (starpu_is_initialized())
    starpu_shutdown();
  with_mpi = 0;
}
