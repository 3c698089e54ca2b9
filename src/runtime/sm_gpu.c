/* sm_gpu.c: which CUDA devices a rank takes (see sm_gpu.h): the local rank
 * from the launcher's variables, the split of a node's devices between its
 * ranks, and the plan that puts both together under MPI. */
#include "sm_gpu.h"

#include "sm_error.h"
#include "sm_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A non-negative decimal integer, the whole string; -1 otherwise. */
static int parse_count(const char *s)
{
  if (!s || *s < '0' || *s > '9')
    return -1;
  char *end;
  const long v = strtol(s, &end, 10);
  return *end || v > INT_MAX ? -1 : (int)v;
}

int sm_gpu_slurm_tasks(const char *list, int node)
{
  if (!list || node < 0)
    return -1;
  const char *p = list;
  int at = 0; /* first node of the current entry */
  while (*p) {
    char *end;
    const long n = strtol(p, &end, 10);
    if (end == p || n < 0 || n > INT_MAX)
      return -1;
    long times = 1;
    p = end;
    if (*p == '(') { /* "N(xM)": M nodes of N tasks */
      if (p[1] != 'x')
        return -1;
      times = strtol(p + 2, &end, 10);
      if (end == p + 2 || *end != ')' || times < 1)
        return -1;
      p = end + 1;
    }
    if (node < at + times)
      return (int)n;
    at += (int)times;
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return -1;
}

int sm_gpu_local_from_env(sm_gpu_getenv_t get, void *ctx, sm_gpu_local_t *out,
                          const char **bad)
{
  static const char *const pairs[][2] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},
      {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},
      {"JSM_NAMESPACE_LOCAL_RANK", "JSM_NAMESPACE_LOCAL_SIZE"},
  };
  *out = (sm_gpu_local_t){.rank = 0, .size = 1};
  if (bad)
    *bad = NULL;
  for (size_t k = 0; k <= sizeof pairs / sizeof pairs[0]; k++) {
    const char *name, *rs;
    int rank, size;
    if (k < sizeof pairs / sizeof pairs[0]) {
      name = pairs[k][0];
      rs = get(name, ctx);
      if (!rs)
        continue;
      rank = parse_count(rs);
      size = parse_count(get(pairs[k][1], ctx));
    } else { /* Slurm: the task count of this node of the step */
      name = "SLURM_LOCALID";
      rs = get(name, ctx);
      if (!rs)
        continue;
      rank = parse_count(rs);
      const int node = parse_count(get("SLURM_NODEID", ctx));
      const char *list = get("SLURM_STEP_TASKS_PER_NODE", ctx);
      size = sm_gpu_slurm_tasks(list ? list : get("SLURM_TASKS_PER_NODE", ctx), node);
    }
    if (rank < 0 || size < 1 || rank >= size) {
      if (bad && !*bad)
        *bad = name;
      continue;
    }
    out->rank = rank;
    out->size = size;
    snprintf(out->from, sizeof out->from, "%s", name);
    return 1;
  }
  return 0;
}

int sm_gpu_choose(int rank, int size, int ndev, sm_gpu_choice_t *out)
{
  memset(out, 0, sizeof *out);
  if (size < 1 || rank < 0 || rank >= size || ndev < 0)
    return -1;
  out->peer_first = out->peer_last = rank;
  if (ndev == 0)
    return 0;
  if (ndev >= size) {
    /* blocks of ndev / size, the first ndev % size ranks one more */
    const int q = ndev / size, extra = ndev % size;
    const int first = rank * q + (rank < extra ? rank : extra);
    int n = q + (rank < extra);
    if (n > SM_GPU_MAX)
      n = SM_GPU_MAX;
    for (int k = 0; k < n; k++)
      out->dev[k] = first + k;
    out->ndev = n;
    return 0;
  }
  /* fewer devices than ranks: consecutive ranks share one */
  const int d = (int)((long)rank * ndev / size);
  out->dev[0] = d;
  out->ndev = 1;
  /* the ranks r with r * ndev / size == d: from ceil(d * size / ndev) */
  out->peer_first = (int)(((long)d * size + ndev - 1) / ndev);
  out->peer_last = (int)(((long)(d + 1) * size + ndev - 1) / ndev) - 1;
  out->shared = out->peer_last > out->peer_first;
  return 0;
}

void sm_gpu_format(const sm_gpu_choice_t *c, char *buf, size_t len)
{
  if (!len)
    return;
  buf[0] = 0;
  for (int k = 0; k < c->ndev; k++) {
    const size_t at = strlen(buf);
    if (snprintf(buf + at, len - at, "%s%d", k ? "," : "", c->dev[k]) >= (int)(len - at))
      break;
  }
}

static const char *env_get(const char *name, void *ctx)
{
  (void)ctx;
  return getenv(name);
}

/* What sets this rank apart in the split of the node's devices: ranks
 * with equal keys see the same devices and split them. */
#define SM_GPU_KEY_BYTES 512
static void group_key(char key[SM_GPU_KEY_BYTES])
{
  memset(key, 0, SM_GPU_KEY_BYTES);
  const char *ncuda = getenv("STARPU_NCUDA"), *vis = getenv("CUDA_VISIBLE_DEVICES");
  if (getenv("STARPU_WORKERS_CUDAID"))
    snprintf(key, SM_GPU_KEY_BYTES, "pinned %d", sm_mpi_rank()); /* nobody's peer */
  else if (ncuda && parse_count(ncuda) == 0)
    snprintf(key, SM_GPU_KEY_BYTES, "no cuda");
  else if (vis)
    snprintf(key, SM_GPU_KEY_BYTES, "visible %s", vis);
  else
    snprintf(key, SM_GPU_KEY_BYTES, "all");
}

void sm_gpu_plan(int visible, sm_gpu_plan_t *plan)
{
  memset(plan, 0, sizeof *plan);
  plan->visible = visible;
  /* the node's ranks as MPI sees them (0 of 1 without MPI): every rank
   * takes part in both collectives, whatever it finds */
  static const char node_key[SM_GPU_KEY_BYTES];
  int mpi_rank = 0, mpi_size = 1;
  sm_mpi_node_peers(node_key, sizeof node_key, &mpi_rank, &mpi_size);
  char key[SM_GPU_KEY_BYTES];
  group_key(key);
  int g_rank = 0, g_size = 1;
  sm_mpi_node_peers(key, sizeof key, &g_rank, &g_size);

  sm_gpu_local_t env;
  const char *bad = NULL;
  const int found = sm_gpu_local_from_env(env_get, NULL, &env, &bad);
  if (!sm_mpi_active()) {
    plan->local = (sm_gpu_local_t){.rank = 0, .size = 1, .from = "no MPI"};
  } else if (found && env.rank == mpi_rank && env.size == mpi_size) {
    plan->local = env;
  } else {
    plan->local = (sm_gpu_local_t){.rank = mpi_rank, .size = mpi_size};
    if (found)
      snprintf(plan->local.from, sizeof plan->local.from, "MPI (%.40s said %d of %d)",
               env.from, env.rank, env.size);
    else if (bad)
      snprintf(plan->local.from, sizeof plan->local.from, "MPI (%.40s is not valid)",
               bad);
    else
      snprintf(plan->local.from, sizeof plan->local.from, "MPI");
  }

  const char *how = NULL;
  if (visible < 0)
    how = "no CUDA in this build";
  else if (getenv("STARPU_WORKERS_CUDAID"))
    how = "STARPU_WORKERS_CUDAID (the user's)";
  else if (getenv("STARPU_NCUDA") && parse_count(getenv("STARPU_NCUDA")) == 0)
    how = "none (STARPU_NCUDA=0)";
  else if (getenv("CUDA_VISIBLE_DEVICES") && g_size == 1 && plan->local.size > 1)
    how = "CUDA_VISIBLE_DEVICES of this rank's own (all it shows)";
  if (how) {
    snprintf(plan->how, sizeof plan->how, "%s", how);
    return;
  }
  if (sm_gpu_choose(g_rank, g_size, visible, &plan->choice) != 0)
    return;
  plan->applied = 1;
  snprintf(plan->how, sizeof plan->how, "%s",
           visible == 0          ? "none (no CUDA device visible)"
           : plan->choice.shared ? "by local rank (shared)"
                                 : "by local rank");
  if (!plan->choice.shared || plan->choice.peer_first != g_rank)
    return;
  char host[256] = "this node";
  if (gethostname(host, sizeof host) != 0)
    snprintf(host, sizeof host, "this node");
  host[sizeof host - 1] = 0;
  sm_log_warn(
      "%d ranks on %s share %d CUDA device%s: ranks %d to %d of them (local, in rank "
      "order) all run on device %d, each beside the others. Run at most %d rank%s "
      "per node (e.g. mpirun --map-by ppr:%d:node, srun --ntasks-per-node=%d), or "
      "give each rank its devices (CUDA_VISIBLE_DEVICES or STARPU_WORKERS_CUDAID "
      "per rank), or set STARPU_NCUDA=0 on the ranks that should not use a GPU",
      g_size, host, visible, visible == 1 ? "" : "s", plan->choice.peer_first,
      plan->choice.peer_last, plan->choice.dev[0], visible, visible == 1 ? "" : "s",
      visible, visible);
}
