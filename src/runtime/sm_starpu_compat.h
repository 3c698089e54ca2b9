/* sm_starpu_compat.h: everything that differs between StarPU 1.3 and 1.4
 * for starmet, in one place, keyed on StarPU's own version macros: names
 * that changed, what 1.4 adds (task retry, policies), and what 1.4 does
 * by default that starmet must set back to 1.3's behaviour. The rest of
 * the code calls these names and tests the SM_STARPU_HAS_* features; it
 * never tests a version. */
#ifndef SM_STARPU_COMPAT_H
#define SM_STARPU_COMPAT_H

#include <starpu.h>
#include <starpu_heteroprio.h>
#include <stdlib.h>

#if STARPU_MAJOR_VERSION > 1 || (STARPU_MAJOR_VERSION == 1 && STARPU_MINOR_VERSION >= 4)
#define SM_STARPU_14 1
#else
#define SM_STARPU_14 0
#endif

#if SM_STARPU_14
/* heteroprio's calls name worker types by their starpu_worker_archtype */
typedef enum starpu_worker_archtype sm_hp_arch_t;
#define SM_HP_CPU STARPU_CPU_WORKER
#define SM_HP_CUDA STARPU_CUDA_WORKER
#define SM_HP_OPENCL STARPU_OPENCL_WORKER
/* the function a policy calls at its start to be set up (heteroprio) */
#define SM_CONF_SCHED_INIT(conf) ((conf)->sched_policy_callback)
/* bytes sent to each rank by StarPU-MPI (the statistics must be on) */
#define sm_starpu_mpi_sent(amounts) starpu_mpi_comm_stats_retrieve(amounts)
/* task retry (starpu_task_ft_*: TaskRetry) */
#define SM_STARPU_HAS_FT 1
/* the SimGrid mode simulates CUDA workers without CUDA (STARPU_USE_CUDA
 * is not defined there): codelets bring stand-in CUDA functions */
#define SM_STARPU_SIM_CUDA_STANDINS 1
/* policies only 1.4 has that run starmet's graph; autoheteroprio is
 * heteroprio in its automatic mode (sm_starpu_heteroprio_auto), and
 * modular-heteroprio-heft no longer hangs on tasks whose models lack
 * samples */
#define SM_STARPU_POLICIES_14                                                            \
  "modular-dmda", "modular-dmdap", "modular-dmdar", "modular-dmdas", "autoheteroprio",   \
      "modular-heteroprio-heft",
#define SM_STARPU_REFUSED_13
#else
typedef enum starpu_heteroprio_types sm_hp_arch_t;
#define SM_HP_CPU STARPU_CPU_IDX
#define SM_HP_CUDA STARPU_CUDA_IDX
#define SM_HP_OPENCL STARPU_OPENCL_IDX
#define SM_CONF_SCHED_INIT(conf) ((conf)->sched_policy_init)
#define sm_starpu_mpi_sent(amounts) starpu_mpi_comm_amounts_retrieve(amounts)
#define SM_STARPU_HAS_FT 0
#define SM_STARPU_SIM_CUDA_STANDINS 0
#define SM_STARPU_POLICIES_14
/* policies 1.3 has (or lacks) that cannot run starmet here, with why */
#define SM_STARPU_ONLY_14 "it is StarPU 1.4's (this starmet runs on StarPU 1.3)"
#define SM_STARPU_REFUSED_13                                                             \
  {"modular-heteroprio-heft",                                                            \
   "in StarPU 1.3 it never schedules a task whose performance model has too few "        \
   "samples, and output tasks always have some: the run hangs (use modular-heft-prio "   \
   "or "                                                                                 \
   "modular-heteroprio, or StarPU 1.4)"},                                                \
      {"autoheteroprio", SM_STARPU_ONLY_14}, {"modular-dmda", SM_STARPU_ONLY_14},        \
      {"modular-dmdap", SM_STARPU_ONLY_14}, {"modular-dmdar", SM_STARPU_ONLY_14},        \
      {"modular-dmdas", SM_STARPU_ONLY_14},
#endif

/** heteroprio in its automatic mode (1) or on starmet's buckets (0): 1.4
 * orders its buckets itself unless told not to (before starpu_init). */
static inline void sm_starpu_heteroprio_auto(int automatic)
{
#if SM_STARPU_14
  setenv("STARPU_HETEROPRIO_USE_AUTO_CALIBRATION", automatic ? "1" : "0", 1);
#else
  (void)automatic;
#endif
}

/** StarPU's models in dir only (set with STARPU_PERF_MODEL_DIR): 1.4 also
 * reads, and writes back, models found under $STARPU_HOME/.starpu/sampling,
 * so point that inside dir too (before starpu_init). */
static inline void sm_starpu_models_only_in(const char *dir)
{
#if SM_STARPU_14
  setenv("STARPU_HOME", dir, 1);
  unsetenv("XDG_CACHE_HOME"); /* StarPU would take it first */
#else
  (void)dir;
#endif
}

/** starmet binds the workers itself: StarPU keeps its view of the whole
 * machine (1.4 would restrict it to the process's binding, and warn when
 * that is one core; the bus model is per machine). Before starpu_init. */
static inline void sm_starpu_whole_machine(void)
{
#if SM_STARPU_14
  setenv("STARPU_WORKERS_GETBIND", "0", 1);
#endif
}

#endif
