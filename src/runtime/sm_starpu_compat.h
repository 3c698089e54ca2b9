/* sm_starpu_compat.h: the differences between StarPU 1.3 and 1.4 that
 * starmet meets, in one place, keyed on StarPU's own version macros.
 * Everything else is the same API in both generations. */
#ifndef SM_STARPU_COMPAT_H
#define SM_STARPU_COMPAT_H

#include <starpu.h>

#if STARPU_MAJOR_VERSION > 1 || (STARPU_MAJOR_VERSION == 1 && STARPU_MINOR_VERSION >= 4)
#define SM_STARPU_14 1
#else
#define SM_STARPU_14 0
#endif

#include <starpu_heteroprio.h>

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
/* task retry (starpu_task_ft_*) and the watchdog hook exist */
#define SM_STARPU_HAS_FT 1
#else
typedef enum starpu_heteroprio_types sm_hp_arch_t;
#define SM_HP_CPU STARPU_CPU_IDX
#define SM_HP_CUDA STARPU_CUDA_IDX
#define SM_HP_OPENCL STARPU_OPENCL_IDX
#define SM_CONF_SCHED_INIT(conf) ((conf)->sched_policy_init)
#define sm_starpu_mpi_sent(amounts) starpu_mpi_comm_amounts_retrieve(amounts)
#define SM_STARPU_HAS_FT 0
#endif

#endif
