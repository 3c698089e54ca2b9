/* sm_gpu.h: which CUDA devices a rank takes. Ranks on one node each take
 * their own devices by local rank (their index among the job's processes
 * on that node), read from the launcher's variables and checked against
 * MPI, unless the user pinned them. No StarPU or CUDA in here:
 * sm_runtime.c counts the devices and gives StarPU the choice. */
#ifndef SM_GPU_H
#define SM_GPU_H

#include <stddef.h>

/* Most devices one rank takes (StarPU's own limit is lower). */
#define SM_GPU_MAX 64

/** A lookup of environment variables: getenv in starmet, a table in the
 * tests. Returns NULL when the variable is unset. */
typedef const char *(*sm_gpu_getenv_t)(const char *name, void *ctx);

/* A process's place among the job's processes on its node. */
typedef struct sm_gpu_local {
  int rank, size;
  char from[96]; /* the variable it was read from (e.g. OMPI_COMM_WORLD_LOCAL_RANK) */
} sm_gpu_local_t;

/** The local rank and size the launcher set, from the first of these pairs
 * that is set and valid (0 <= rank < size):
 *   1. Open MPI: OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE
 *   2. MVAPICH2: MV2_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_SIZE
 *   3. MPICH and Intel MPI (Hydra): MPI_LOCALRANKID, MPI_LOCALNRANKS
 *   4. Cray PMI: PMI_LOCAL_RANK, PMI_LOCAL_SIZE
 *   5. HPE PALS: PALS_LOCAL_RANKID, PALS_LOCAL_SIZE
 *   6. LSF jsrun: JSM_NAMESPACE_LOCAL_RANK, JSM_NAMESPACE_LOCAL_SIZE
 *   7. Slurm's srun: SLURM_LOCALID, and the node's task count: entry
 *      SLURM_NODEID of SLURM_STEP_TASKS_PER_NODE (else
 *      SLURM_TASKS_PER_NODE), a list such as "4(x2),3".
 * Launchers that run under Slurm (mpirun inside a batch job) come first.
 * Returns 1 and fills out when one is found; 0 when none is (out: rank 0
 * of 1, from ""). A pair set but invalid is skipped, and *bad (when not
 * NULL) names its first variable. */
int sm_gpu_local_from_env(sm_gpu_getenv_t get, void *ctx, sm_gpu_local_t *out,
                          const char **bad);

/** The node's task count in a Slurm tasks-per-node list ("2(x3),1" is
 * 2, 2, 2, 1) at node index node; -1 when the list is malformed or
 * shorter. */
int sm_gpu_slurm_tasks(const char *list, int node);

/* The devices of one rank. */
typedef struct sm_gpu_choice {
  int ndev;                  /* devices for this rank: 0 when none is visible */
  int dev[SM_GPU_MAX];       /* their indices among the visible devices, ascending */
  int shared;                /* 1: other ranks of the node use dev[0] too */
  int peer_first, peer_last; /* the local ranks on dev[0] (this one among them) */
} sm_gpu_choice_t;

/** Devices for local rank `rank` of `size` ranks sharing `ndev` visible
 * devices. With ndev >= size, each rank takes a contiguous block of
 * ndev / size devices, the first ndev % size ranks one more (8 on 3:
 * 0-2, 3-5, 6-7), nobody shares. With fewer devices than ranks, rank r
 * takes device r * ndev / size, so consecutive ranks share one (4 ranks on
 * 2: 0, 0, 1, 1) and shared is set. ndev 0: no device. Returns 0, or -1
 * (out: no device) when rank, size or ndev are out of range. */
int sm_gpu_choose(int rank, int size, int ndev, sm_gpu_choice_t *out);

/** The device list as text ("0,1"; "" for none). */
void sm_gpu_format(const sm_gpu_choice_t *c, char *buf, size_t len);

/* What a rank was given, for StarPU and the run summary. */
typedef struct sm_gpu_plan {
  sm_gpu_local_t local; /* local rank, size and where they came from */
  int applied;          /* 1: devices chosen here (choice); 0: see how */
  char how[96];         /* "by local rank", or why nothing was chosen */
  sm_gpu_choice_t choice;
  int visible; /* devices the process sees */
} sm_gpu_plan_t;

/** This rank's plan (collective over the node's ranks when MPI runs). Its
 * local rank: the launcher's (sm_gpu_local_from_env) when MPI's view of
 * the node (MPI_COMM_TYPE_SHARED) agrees, else MPI's (from says so);
 * without MPI the process is alone (0 of 1). Its devices, in a CUDA build
 * (visible >= 0: the count CUDA sees, after CUDA_VISIBLE_DEVICES): none
 * chosen when STARPU_WORKERS_CUDAID is set (the user's) or STARPU_NCUDA
 * is 0, nor when no other rank of the node has this rank's
 * CUDA_VISIBLE_DEVICES (the launcher gave each rank its own: it keeps them
 * all); otherwise the ranks of the node that see the same devices split
 * them (sm_gpu_choose, in rank order). The first rank of a group that
 * shares a device warns on stderr, naming them and the fixes. visible < 0:
 * no CUDA in this build (the local rank only). */
void sm_gpu_plan(int visible, sm_gpu_plan_t *plan);

#endif
