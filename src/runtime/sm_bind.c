/* sm_bind.c: the cores this process's StarPU workers run on.
 *
 * StarPU 1.3 binds its workers to the machine's first cores whatever the
 * process's own binding: two ranks on one machine both put their first
 * worker on core 0 and share it, and a process started with taskset or
 * bound by its launcher has workers outside its cores. Here, before
 * StarPU starts, ranks on one machine bound to the same cores (or not
 * bound at all) split those cores between them, the workers are bound to
 * the process's cores, and a StarPU-MPI rank with few cores runs a worker
 * on every core instead of leaving one to the communication thread (which
 * sleeps when there is nothing to do).
 *
 * StarPU keeps its view of the whole machine (its bus performance model
 * is per machine: a rank that saw fewer CPUs would recalibrate it). */
#include "sm_bind.h"

#include "config.h"
#include "sm_mpi.h"
#include "sm_starpu_compat.h"

#include <starpu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SM_SIMULATION
#include <hwloc.h>
#endif

static sm_bind_info_t info = {"none", ""};

/* Room for the list of any CPU set ranks compare ("0,2,4,..." of 1024
 * CPUs takes under 4 KiB). */
#define SM_BIND_KEY_BYTES 8192

const sm_bind_info_t *sm_bind_info(void)
{
  return &info;
}

/* The user placed the workers: StarPU's own variables decide. */
static const char *user_setting(void)
{
  static const char *const vars[] = {"STARPU_WORKERS_CPUID", "STARPU_WORKERS_COREID",
                                     "STARPU_WORKERS_NOBIND", "STARPU_WORKERS_GETBIND"};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
    if (getenv(vars[k]))
      return vars[k];
  return NULL;
}

#ifndef SM_SIMULATION
/* CPU workers for a process with this many cores, under StarPU-MPI or
 * not, driving this many GPUs. */
static int sm_bind_workers(int cores, int starpu_mpi, int gpus)
{
  /* a GPU's worker thread takes a core; StarPU-MPI's communication thread
   * gets one when there are many, or GPUs to feed */
  const int reserve = starpu_mpi && (cores >= SM_BIND_RESERVE_MIN_CORES || gpus > 0);
  const int n = cores - gpus - reserve;
  return n > 0 ? n : 1;
}

/* The cores of topo whose PUs meet set, in order: their count; with pick,
 * the union of the PUs in set of cores [first, last) among them; with pu,
 * the logical index of each one's first PU in set (room for max). */
static int cores_in(hwloc_topology_t topo, hwloc_const_bitmap_t set, int first, int last,
                    hwloc_bitmap_t pick, unsigned *pu, int max)
{
  int n = 0;
  hwloc_obj_t core = NULL;
  const hwloc_obj_type_t type =
      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  while ((core = hwloc_get_next_obj_by_type(topo, type, core)) != NULL) {
    if (!hwloc_bitmap_intersects(core->cpuset, set))
      continue;
    if (pick && n >= first && n < last) {
      hwloc_bitmap_t mine = hwloc_bitmap_dup(core->cpuset);
      hwloc_bitmap_and(mine, mine, set);
      hwloc_bitmap_or(pick, pick, mine);
      hwloc_bitmap_free(mine);
    }
    if (pu && n < max) {
      hwloc_obj_t p = hwloc_get_next_obj_inside_cpuset_by_type(topo, core->cpuset,
                                                               HWLOC_OBJ_PU, NULL);
      while (p && !hwloc_bitmap_isset(set, p->os_index))
        p = hwloc_get_next_obj_inside_cpuset_by_type(topo, core->cpuset, HWLOC_OBJ_PU, p);
      pu[n] = p ? p->logical_index : 0;
    }
    n++;
  }
  return n;
}

/* Split cur between the npeers ranks that share it: this rank (peer)
 * takes its share, in rank order (a core each, round robin, when there
 * are more ranks than cores), and binds the whole process to it. */
static void split(hwloc_topology_t topo, hwloc_bitmap_t cur, int peer, int npeers)
{
  const int n = cores_in(topo, cur, 0, 0, NULL, NULL, 0);
  if (n <= 0)
    return;
  const int first = n >= npeers ? (int)((long)peer * n / npeers) : peer % n;
  const int last = n >= npeers ? (int)((long)(peer + 1) * n / npeers) : first + 1;
  hwloc_bitmap_t mine = hwloc_bitmap_alloc();
  if (mine)
    cores_in(topo, cur, first, last, mine, NULL, 0);
  if (mine && !hwloc_bitmap_iszero(mine) &&
      hwloc_set_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) == 0) {
    hwloc_bitmap_copy(cur, mine);
    snprintf(info.mode, sizeof info.mode, "split");
  } else {
    fprintf(stderr,
            "starmet: warning: could not bind this rank to its share of cores %s; its "
            "workers share them with %d other ranks' (bind the ranks with the launcher, "
            "e.g. mpirun --bind-to core)\n",
            info.cpus, npeers - 1);
  }
  hwloc_bitmap_free(mine);
}

/* Bind the workers to the cores of cur and, unless the user said how many
 * workers to run, run one per core (sm_bind_workers). */
static void place(hwloc_topology_t topo, hwloc_const_bitmap_t cur, int starpu_mpi,
                  int gpus, struct starpu_conf *conf)
{
  static unsigned pu[STARPU_NMAXWORKERS];
  const int n = cores_in(topo, cur, 0, 0, NULL, pu, STARPU_NMAXWORKERS);
  hwloc_bitmap_list_snprintf(info.cpus, sizeof info.cpus, cur);
  if (n <= 0)
    return;
  for (int w = 0; w < STARPU_NMAXWORKERS; w++)
    conf->workers_bindid[w] = pu[w % (n < STARPU_NMAXWORKERS ? n : STARPU_NMAXWORKERS)];
  conf->use_explicit_workers_bindid = 1;
  if (conf->ncpus < 0)
    conf->ncpus = sm_bind_workers(n, starpu_mpi, gpus);
  /* no core of its own: the communication thread runs (rarely) on the
   * workers' cores, unbound, rather than bound to one it shares with a
   * worker while StarPU warns that it does */
  if (starpu_mpi && conf->ncpus + gpus >= n && !getenv("STARPU_MPI_THREAD_CPUID") &&
      !getenv("STARPU_MPI_THREAD_COREID"))
    setenv("STARPU_MPI_NOBIND", "1", 0);
}
#endif

void sm_bind_prepare(int starpu_mpi, int expected_gpus, struct starpu_conf *conf)
{
  /* the process's CPUs as a list, whole (the ranks on this machine compare
   * them below, every rank whatever it finds here; the summary's copy may
   * be cut) */
  static char key[SM_BIND_KEY_BYTES];
  memset(key, 0, sizeof key);
  const char *user = user_setting();
#ifndef SM_SIMULATION
  hwloc_topology_t topo = NULL;
  hwloc_bitmap_t cur = NULL;
  if (!user && hwloc_topology_init(&topo) == 0) {
    cur = hwloc_bitmap_alloc();
    if (hwloc_topology_load(topo) != 0 || !cur ||
        hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(cur)) {
      hwloc_bitmap_free(cur);
      cur = NULL;
    } else {
      hwloc_bitmap_list_snprintf(key, sizeof key, cur);
    }
  }
#endif
  int peer = 0, npeers = 1;
  sm_mpi_node_peers(key, sizeof key, &peer, &npeers);
  if (user) {
    snprintf(info.mode, sizeof info.mode, "user");
    snprintf(info.cpus, sizeof info.cpus, "%s=%s", user, getenv(user));
    return;
  }
#ifdef SM_SIMULATION
  (void)starpu_mpi;
  (void)expected_gpus;
  (void)conf;
#else
  if (!cur) {
    if (topo)
      hwloc_topology_destroy(topo);
    return; /* StarPU's default placement */
  }
  const int whole =
      hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), cur);
  snprintf(info.mode, sizeof info.mode, "%s", whole ? "machine" : "bound");
  hwloc_bitmap_list_snprintf(info.cpus, sizeof info.cpus, cur);
  if (npeers > 1)
    split(topo, cur, peer, npeers);
  /* a lone process on the whole machine keeps StarPU's own placement */
  if (starpu_mpi || strcmp(info.mode, "machine") != 0) {
    place(topo, cur, starpu_mpi, expected_gpus, conf);
    sm_starpu_whole_machine();
  }
  hwloc_bitmap_free(cur);
  hwloc_topology_destroy(topo);
#endif
}
