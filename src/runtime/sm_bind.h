/* sm_bind.h: the cores this process's StarPU workers run on (see
 * sm_bind.c). */
#ifndef SM_BIND_H
#define SM_BIND_H

/* Under StarPU-MPI, ranks with at least this many cores (or with GPUs)
 * leave one to the communication thread (StarPU's default); ranks with
 * fewer run a worker on every core. */
#define SM_BIND_RESERVE_MIN_CORES 8

typedef struct sm_bind_info {
  char mode[12];  /* user, bound (by the launcher or taskset), split, machine, none */
  char cpus[256]; /* the CPUs (OS numbers, e.g. "0-3,8"), or the user's variable */
} sm_bind_info_t;

struct starpu_conf;

/** Before StarPU starts (collective over the ranks on this machine): ranks
 * on this machine bound to the same cores split them; the workers are
 * bound to this process's cores and, when conf->ncpus is unset (< 0),
 * their count set to one per core, less one per GPU and, see
 * SM_BIND_RESERVE_MIN_CORES, one for StarPU-MPI (a lone process on the
 * whole machine without StarPU-MPI keeps StarPU's own placement). Nothing changes when
 * the user set STARPU_WORKERS_CPUID, _COREID, _NOBIND or _GETBIND. */
void sm_bind_prepare(int starpu_mpi, int expected_gpus, struct starpu_conf *conf);

/** What sm_bind_prepare did. */
const sm_bind_info_t *sm_bind_info(void);

#endif
