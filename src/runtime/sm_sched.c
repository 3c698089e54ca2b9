/* sm_sched.c: StarPU policies, task priorities and heteroprio buckets by
 * task kind, performance model directory and calibration. */
#ifdef HAVE_CONFIG_H /* SM_SIMULATION (the fuzz targets build without it) */
#include "config.h"
#endif
#include "sm_sched.h"

#include <errno.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_mpi.h"
#include "sm_starpu_compat.h"

/* StarPU's policies (STARPU_SCHED=help) that run starmet's graph: 1.3's,
 * and those 1.4 adds (sm_starpu_compat.h); those of refused[] below do
 * not run it. */
/* clang-format off */
const char *const sm_sched_policies[] = {
    "eager", "prio", "random", "ws", "lws", "dm", "dmda", "dmdap", "dmdar", "dmdas",
    "dmdasd", "heteroprio", "peager", "pheft", "modular-eager",
    "modular-eager-prefetching", "modular-eager-prio", "modular-gemm", "modular-prio",
    "modular-prio-prefetching", "modular-random", "modular-random-prio",
    "modular-random-prefetching", "modular-random-prio-prefetching", "modular-prandom",
    "modular-prandom-prio", "modular-ws", "modular-heft", "modular-heft-prio",
    "modular-heft2", "modular-heteroprio", "modular-pheft", SM_STARPU_POLICIES_14 NULL};

/* Policies StarPU has but that never finish starmet's graph, or that this
 * StarPU lacks. */
static const struct {
  const char *name, *why;
} refused[] = {
    {"graph_test", "it holds every task until starpu_do_schedule() is called"},
    SM_STARPU_REFUSED_13};

static const char *const model_policies[] = {
    "dm", "dmda", "dmdap", "dmdar", "dmdas", "dmdasd", "pheft", "modular-heft",
    "modular-heft-prio", "modular-heft2", "modular-pheft", NULL};
/* clang-format on */

static sm_sched_opts_t opts = {.priorities = 1};
static char model_dir[4096];
static int auto_hp; /* autoheteroprio: heteroprio in its automatic mode */

int sm_sched_known(const char *name)
{
  for (int k = 0; name && sm_sched_policies[k]; k++)
    if (!strcmp(name, sm_sched_policies[k]))
      return 1;
  return 0;
}

sm_err_t sm_sched_check(const char *what, const char *name)
{
  if (sm_sched_known(name))
    return SM_OK;
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
    if (name && !strcmp(name, refused[k].name)) {
      if (sm_mpi_rank() == 0)
        sm_log_error("%s: policy %s cannot run starmet: %s", what, name, refused[k].why);
      return SM_EOPTION;
    }
  char list[1024] = "";
  for (int k = 0; sm_sched_policies[k]; k++) {
    if (k)
      strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, sm_sched_policies[k], sizeof list - strlen(list) - 1);
  }
  if (sm_mpi_rank() == 0) /* every rank finds the same */
    sm_log_error("%s: unknown scheduling policy '%s' (use one of: %s)", what, name, list);
  return SM_EOPTION;
}

int sm_sched_uses_models(const char *name)
{
  for (int k = 0; name && model_policies[k]; k++)
    if (!strcmp(name, model_policies[k]))
      return 1;
  return 0;
}

void sm_sched_configure(const sm_sched_opts_t *o)
{
  opts = *o;
}

int sm_sched_calibrating(void)
{
  return opts.calibrate;
}

const char *sm_sched_perfmodel_dir(void)
{
  return model_dir;
}

/* Heteroprio buckets, in the order CPU workers visit them: what unblocks
 * the end of a block first (finalize and output, then reductions and
 * sums), then the numerators, 2-way before 3-way planes. */
enum { B_END = 0, B_REDUCE, B_BLOCK, B_PLANE, SM_NBUCKETS };

static int bucket_of(sm_task_kind_t k)
{
  switch (k) {
  case SM_TK_FINALIZE:
  case SM_TK_OUTPUT:
  case SM_TK_VERIFY:
    return B_END;
  case SM_TK_SUMS:
  case SM_TK_REDUCE:
    return B_REDUCE;
  case SM_TK_BLOCK2:
  case SM_TK_PAIR3:
    return B_BLOCK;
  default:
    return B_PLANE;
  }
}

/* Worker types that can run every task of bucket b (of nb buckets). */
static unsigned bucket_where(int b, int nb)
{
  unsigned where = ~0u;
  for (int k = 0; k < SM_TK_COUNT; k++)
    if (nb == 1 || bucket_of((sm_task_kind_t)k) == b)
      where &= sm_codelets_where((sm_task_kind_t)k);
  return where;
}

/* Called by heteroprio when it starts: without this set-up it aborts.
 * Each worker type visits the buckets whose tasks it can all run (a task
 * must be runnable by every type its bucket is mapped to): CPU workers in
 * bucket order, accelerators heaviest work first. An accelerator is taken
 * as the faster type of its buckets. A CPU still takes such a task when
 * more are waiting per accelerator than its slow factor: 1 for an OpenCL
 * device (PoCL's is no faster than a core), SM_GPU_CPU_SLOW for a GPU,
 * whose numerator kernels run hundreds of times faster than a core's (a
 * core that takes one holds the end of the run: docs/scheduling.md, "Simulated GPU
 * nodes"). */
#define SM_GPU_CPU_SLOW 100.0f
static void heteroprio_init(unsigned ctx)
{
  static const struct {
    sm_hp_arch_t idx;
    unsigned mask;
    enum starpu_worker_archtype type;
  } arch[] = {{SM_HP_CPU, STARPU_CPU, STARPU_CPU_WORKER},
              {SM_HP_CUDA, STARPU_CUDA, STARPU_CUDA_WORKER},
              {SM_HP_OPENCL, STARPU_OPENCL, STARPU_OPENCL_WORKER}};
  const int nb = opts.priorities ? SM_NBUCKETS : 1;
  for (size_t a = 0; a < sizeof arch / sizeof arch[0]; a++) {
    if (starpu_worker_get_count_by_type(arch[a].type) <= 0)
      continue;
    const int cpu = arch[a].mask == STARPU_CPU;
    unsigned n = 0;
    for (int b = 0; b < nb; b++)
      n += (bucket_where(b, nb) & arch[a].mask) != 0;
    starpu_heteroprio_set_nb_prios(ctx, arch[a].idx, n);
    n = 0;
    for (int k = 0; k < nb; k++) {
      const int b = cpu ? k : nb - 1 - k;
      if (!(bucket_where(b, nb) & arch[a].mask))
        continue;
      starpu_heteroprio_set_mapping(ctx, arch[a].idx, n++, (unsigned)b);
      starpu_heteroprio_set_faster_arch(ctx, arch[a].idx, (unsigned)b);
      if (!cpu && (bucket_where(b, nb) & STARPU_CPU))
        starpu_heteroprio_set_arch_slow_factor(
            ctx, SM_HP_CPU, (unsigned)b,
            arch[a].type == STARPU_CUDA_WORKER ? SM_GPU_CPU_SLOW : 1.0f);
    }
  }
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
      *p = '/';
    }
  return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The directory StarPU keeps its performance models in. */
static sm_err_t setup_model_dir(void)
{
  const char *dir = opts.perfmodel_dir;
  if (dir) {
    struct stat sb;
    const char *why = make_dirs(dir) != 0      ? strerror(errno)
                      : stat(dir, &sb) != 0    ? strerror(errno)
                      : !S_ISDIR(sb.st_mode)   ? "not a directory"
                      : access(dir, W_OK) != 0 ? "not writable"
                                               : NULL;
    if (why) {
      if (sm_mpi_rank() == 0)
        sm_log_error("--perfmodel-dir %s: %s (give a writable directory; it is created "
                     "if missing)",
                     dir, why);
      return SM_EIO;
    }
    setenv("STARPU_PERF_MODEL_DIR", dir, 1);
    sm_starpu_models_only_in(dir);
    snprintf(model_dir, sizeof model_dir, "%s", dir);
  } else {
    sm_sched_model_dir(NULL, model_dir, sizeof model_dir);
  }
  return SM_OK;
}

int sm_sched_platform_file(const char *dir, const char *ext, char *buf, size_t len)
{
  const char *host = getenv("STARPU_HOSTNAME");
  char mdir[4096];
  sm_sched_model_dir(dir, mdir, sizeof mdir);
  snprintf(buf, len, "%s/bus/%s.%s", mdir, host && *host ? host : "NAME", ext);
  return host && *host ? 0 : -1;
}

void sm_sched_model_dir(const char *dir, char *buf, size_t len)
{
  /* StarPU's home, in its order (1.3 and 1.4 alike): XDG_CACHE_HOME before
   * STARPU_HOME, then HOME, then the temporary directory */
  static const char *const vars[] = {"XDG_CACHE_HOME", "STARPU_HOME", "HOME",
                                     "TMPDIR",         "TEMP",        "TMP"};
  const char *home = NULL;
  for (size_t k = 0; !home && k < sizeof vars / sizeof vars[0]; k++)
    if (getenv(vars[k]) && *getenv(vars[k]))
      home = getenv(vars[k]);
  if (!home)
    home = "/tmp";
  if (dir)
    snprintf(buf, len, "%s", dir);
  else if (getenv("STARPU_PERF_MODEL_DIR"))
    snprintf(buf, len, "%s", getenv("STARPU_PERF_MODEL_DIR"));
  else
    snprintf(buf, len, "%s/.starpu/sampling", home);
}

/* The CUDA workers starpu_init will start: STARPU_NCUDA when set, else
 * the GPUs there are (in a simulation build, the simulated machine's:
 * the second line of its platform's .config file, scripts/sim-platform). */
int sm_sched_expected_gpus(void)
{
  const char *n = getenv("STARPU_NCUDA");
  if (n && *n)
    return atoi(n);
#ifdef SM_SIMULATION
  char path[4400], line[256];
  int gpus = 0;
  FILE *f = sm_sched_platform_file(opts.perfmodel_dir, "config", path, sizeof path) == 0
                ? fopen(path, "r")
                : NULL;
  for (int k = 0; f && k < 3 && fgets(line, sizeof line, f);)
    if (line[0] != '#' && ++k == 2)
      gpus = atoi(line);
  if (f)
    fclose(f);
  return gpus;
#else
  return sm_codelets_cuda_devices();
#endif
}

sm_err_t sm_sched_conf(struct starpu_conf *conf, const char *sched)
{
  const char *env = getenv("STARPU_SCHED");
  if (sched) {
    if (sm_sched_check("--sched", sched))
      return SM_EOPTION;
    conf->sched_policy_name = sched;
    setenv("STARPU_SCHED", sched, 1); /* the option wins over the environment */
  } else if (env && sm_sched_check("STARPU_SCHED", env)) {
    return SM_EOPTION;
  } else if (!env && sm_sched_expected_gpus() > 0) {
    /* a GPU node: policies without performance models let CPU workers take
     * numerator tiles they run hundreds of times slower than a GPU, and the
     * run waits for them (docs/scheduling.md, "Simulated GPU nodes") */
    conf->sched_policy_name = SM_GPU_DEFAULT_SCHED;
  }
  const char *name =
      getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : conf->sched_policy_name;
  auto_hp = name && !strcmp(name, "autoheteroprio");
  SM_CONF_SCHED_INIT(conf) = heteroprio_init; /* only heteroprio calls it */
  /* starmet's buckets for heteroprio, its own order for autoheteroprio */
  sm_starpu_heteroprio_auto(auto_hp);
  if (auto_hp) {
    conf->sched_policy_name = "heteroprio";
    setenv("STARPU_SCHED", "heteroprio", 1);
    SM_CONF_SCHED_INIT(conf) = NULL;
  }
  if (opts.calibrate)
    conf->calibrate = 1;
  return setup_model_dir();
}

const char *sm_sched_policy_name(void)
{
  struct starpu_sched_policy *sp = starpu_sched_ctx_get_sched_policy(0);
  const char *name = sp && sp->policy_name ? sp->policy_name : "?";
  return auto_hp && !strcmp(name, "heteroprio") ? "autoheteroprio" : name;
}

int sm_sched_heteroprio(void)
{
  struct starpu_sched_policy *sp = starpu_sched_ctx_get_sched_policy(0);
  return sp && sp->policy_name && !strcmp(sp->policy_name, "heteroprio");
}

sm_prio_mode_t sm_sched_prio_mode(void)
{
  if (!opts.priorities)
    return SM_PRIO_OFF;
  return sm_sched_heteroprio() ? SM_PRIO_BUCKETS : SM_PRIO_DAG;
}

int sm_sched_prio(int mode, sm_task_kind_t kind)
{
  if (mode == SM_PRIO_BUCKETS)
    return bucket_of(kind);
  if (mode != SM_PRIO_DAG)
    return 0;
  /* Larger runs sooner. Output tasks are serialized per rank and free the
   * record buffers; a check gates every reader of its numerator and reads
   * the numerator tile while it is still in cache (a 713 x 713 sparse CCC
   * tile's check took 0.82 ms behind other numerators, 0.68 ms first);
   * reductions, sums and finalize unblock the end of a block; a 3-way
   * triple's 2-way numerators gate all its planes. */
  switch (kind) {
  case SM_TK_OUTPUT:
  case SM_TK_VERIFY:
    return 3;
  case SM_TK_FINALIZE:
  case SM_TK_REDUCE:
  case SM_TK_SUMS:
    return 2;
  case SM_TK_PAIR3:
    return 1;
  default:
    return 0;
  }
}
