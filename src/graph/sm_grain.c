/* sm_grain.c: the numerators' rate and a block's fixed cost, from StarPU's
 * history-based models when they are calibrated, else from defaults. */
#ifdef HAVE_CONFIG_H /* SM_SIMULATION */
#include "config.h"
#endif
#include "sm_grain.h"

#include <math.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Comparisons per second of one core in the numerator kernels this
 * machine picks (2-core AVX-512 Xeon, VPOPCNTDQ; CPU time of bench/kernels
 * for 2-way: sparse CCC 1.3e11 at 724 x 724 x 1000, dense 3.7e11, double
 * Czekanowski 1.8e10 and single 3.7e10 at 512 x 512 x 4000; 3-way: whole
 * runs' plane tasks). An AVX2 machine is 2 to 3 times slower: its tasks
 * are then longer than aimed at, never shorter. */
static const struct {
  int way, ccc, sparse, single;
  double rate;
} defaults[] = {
    {2, 1, 0, 0, 3.5e11}, {2, 1, 1, 0, 1.3e11}, {2, 0, 0, 0, 1.8e10},
    {2, 0, 0, 1, 3.6e10}, {3, 1, 0, 0, 1.3e11}, {3, 1, 1, 0, 4.0e10},
    {3, 0, 0, 0, 1.0e10}, {3, 0, 0, 1, 2.0e10},
};

/* At least this many samples with their work make a model calibrated
 * (StarPU's own minimum per footprint, STARPU_CALIBRATE_MINIMUM). */
enum { MIN_SAMPLES = 10 };

static void set_target(sm_grain_t *g)
{
  const double least = g->way == 3 ? SM_GRAIN_T3 : SM_GRAIN_T2;
  g->target = fmax(least, SM_GRAIN_K * g->overhead);
  g->min_work = g->rate * g->target;
}

void sm_grain_default(sm_grain_t *g, int way, int ccc, int sparse, int single)
{
  memset(g, 0, sizeof *g);
  g->way = way == 3 ? 3 : 2;
  sparse = ccc && sparse;
  single = !ccc && single;
  for (size_t k = 0; k < sizeof defaults / sizeof defaults[0]; k++)
    if (defaults[k].way == g->way && defaults[k].ccc == (ccc != 0) &&
        defaults[k].sparse == (sparse != 0) && defaults[k].single == (single != 0))
      g->rate = defaults[k].rate;
  g->overhead = SM_GRAIN_RUNTIME_COST;
  snprintf(g->source, sizeof g->source, "default");
  snprintf(g->block_from, sizeof g->block_from, "auto");
  set_target(g);
}

#ifndef SM_SIMULATION /* a simulation's times come from its platform */
/* A model's history entries of one worker type fitted to t = a + x / rate
 * (x: the work as flops when use_flops, else the data size), weighted by
 * their samples. */
typedef struct fit {
  double rate, a; /* a < 0: the fixed cost could not be told apart */
  uint64_t n;     /* samples used */
} fit_t;

static void fit_list(const struct starpu_perfmodel_history_list *l, int use_flops,
                     double *s)
{
  /* s: sums of n, n x, n t, n x x, n x t; x seen: s[5] min, s[6] max; s[7]:
   * the shortest mean time */
  for (; l; l = l->next) {
    const struct starpu_perfmodel_history_entry *e = l->entry;
    const double x = e ? (use_flops ? e->flops : (double)e->size) : 0;
    if (!e || !e->nsample || !(x > 0) || !isfinite(x) || !(e->mean > 0))
      continue;
    const double n = e->nsample, t = e->mean * 1e-6;
    s[0] += n, s[1] += n * x, s[2] += n * t, s[3] += n * x * x, s[4] += n * x * t;
    s[5] = s[5] > 0 && s[5] < x ? s[5] : x;
    s[6] = s[6] > x ? s[6] : x;
    s[7] = s[7] > 0 && s[7] < t ? s[7] : t;
  }
}

static fit_t fit_sums(const double *s)
{
  fit_t f = {0, -1, (uint64_t)s[0]};
  if (s[0] <= 0 || s[2] <= 0)
    return f;
  const double det = s[0] * s[3] - s[1] * s[1];
  /* the fixed cost needs sizes at least a factor 2 apart */
  if (s[6] >= 2 * s[5] && det > 0) {
    const double b = (s[0] * s[4] - s[1] * s[2]) / det, a = (s[2] - b * s[1]) / s[0];
    if (b > 0 && a >= 0) {
      f.rate = 1 / b;
      f.a = a < s[7] ? a : s[7]; /* no more than the shortest task took */
      return f;
    }
  }
  f.rate = s[1] / s[2]; /* work over time: the fixed cost counted in */
  return f;
}

/* The model of codelet `symbol` for the first worker of type `type`. */
static fit_t read_model(const char *symbol, enum starpu_worker_archtype type,
                        int use_flops)
{
  fit_t none = {0, -1, 0};
  int ids[STARPU_NMAXWORKERS];
  char path[4096] = "";
  if (starpu_worker_get_count_by_type(type) <= 0 ||
      starpu_worker_get_ids_by_type(type, ids, STARPU_NMAXWORKERS) < 1)
    return none;
  /* StarPU says so on stderr when a model is missing: look first */
  starpu_perfmodel_get_model_path(symbol, path, sizeof path);
  if (!path[0] || access(path, R_OK) != 0)
    return none;
  struct starpu_perfmodel m;
  memset(&m, 0, sizeof m);
  if (starpu_perfmodel_load_symbol(symbol, &m) != 0)
    return none;
  struct starpu_perfmodel_arch *arch =
      starpu_worker_get_perf_archtype(ids[0], STARPU_NMAX_SCHED_CTXS);
  fit_t best = none;
  for (unsigned impl = 0; arch && impl < STARPU_MAXIMPLEMENTATIONS; impl++) {
    struct starpu_perfmodel_per_arch *pa =
        starpu_perfmodel_get_model_per_arch(&m, arch, impl);
    double s[8] = {0};
    if (pa)
      fit_list(pa->list, use_flops, s);
    const fit_t f = fit_sums(s);
    if (f.n >= MIN_SAMPLES && f.rate > best.rate) /* the fastest implementation */
      best = f;
  }
  starpu_perfmodel_unload_model(&m);
  return best;
}
#endif

void sm_grain_measure(sm_grain_t *g, int way, int ccc, int sparse, int single, int i8,
                      int cpus_run_numerators)
{
  sm_grain_default(g, way, ccc, sparse, single);
#ifndef SM_SIMULATION
  /* The models change with every calibrated run (a model-based scheduler,
   * --calibrate), and the tile size orders the output's blocks: only when
   * asked ($STARMET_GRAIN=model) does a run read them, so that two runs of
   * the same command write the same files. */
  const char *ask = getenv("STARMET_GRAIN");
  if (!ask || strcmp(ask, "model") != 0)
    return;
  char num[32];
  snprintf(num, sizeof num, "sm_%s%d%s%s", ccc ? "ccc" : "czek", g->way,
           ccc && i8 && g->way == 2 ? "_i8" : "",
           ccc ? (sparse ? "_sparse" : "") : (single ? "_s" : "_d"));
  const char *fin = g->way == 3 ? "sm_finalize3" : "sm_finalize2";
  const enum starpu_worker_archtype type =
      cpus_run_numerators || starpu_opencl_worker_get_count() == 0 ? STARPU_CPU_WORKER
                                                                   : STARPU_OPENCL_WORKER;
  const fit_t f = read_model(num, type, 1);
  const fit_t gpu = read_model(num, STARPU_CUDA_WORKER, 1);
  g->gpu_rate = gpu.rate;
  if (!(f.rate > 0))
    return;
  snprintf(g->source, sizeof g->source, "model");
  snprintf(g->model, sizeof g->model, "%s", num);
  g->rate = f.rate;
  g->samples = f.n;
  /* the codelets' fixed costs, where the models tell them apart */
  const fit_t ff = read_model(fin, STARPU_CPU_WORKER, 0);
  if (ff.n)
    snprintf(g->fin_model, sizeof g->fin_model, "%s", fin), g->fin_samples = ff.n;
  const double a = (f.a > 0 ? f.a : 0) + (ff.a > 0 ? ff.a : 0);
  g->model_overhead = f.a >= 0 || ff.a >= 0;
  g->overhead = SM_GRAIN_RUNTIME_COST + a;
  set_target(g);
#else
  (void)i8, (void)cpus_run_numerators;
#endif
}
