/* sm_cl_sim.c: the cost model of a simulation build (StarPU with SimGrid,
 * SM_SIMULATION): kernels do not run; StarPU asks each codelet's model
 * how long a task takes on a worker type and SimGrid advances its clock by
 * that. A task takes overhead + work / rate on one worker, its work from
 * sm_cl_work (element comparisons for the numerators, bytes otherwise) and
 * rate and overhead from the models file for the simulated platform:
 *
 *   # platform  device  codelet  rate  overhead_us  source...
 *   summit      cuda    sm_ccc2  2.1e13  10  CoMet paper: ...
 *   summit      cpu     *        4e9     2   ...
 *
 * device is cpu, cuda or opencl; codelet a codelet's name or * for every
 * other codelet of that device; rate is work per second per worker. The
 * platform is $STARPU_HOSTNAME (the name of StarPU's platform files, see
 * scripts/sim-platform); the file is $STARMET_SIM_MODELS, else
 * sim/models.tsv of the source tree. */
#include "sm_cl_common.h"

#ifdef SM_SIMULATION
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "sm_error.h"

#ifndef SM_SIM_DIR
#define SM_SIM_DIR "sim"
#endif

typedef struct sim_rate {
  char device[16];
  char codelet[64];
  double rate, overhead_us;
} sim_rate_t;

static struct {
  int loaded; /* by sm_cl_sim_check, before StarPU starts */
  int nrates;
  sim_rate_t rates[128];
  char path[1024], platform[128];
} sim;

const char *sm_cl_sim_models_path(void)
{
  const char *p = getenv("STARMET_SIM_MODELS");
  return p && *p ? p : SM_SIM_DIR "/models.tsv";
}

const char *sm_cl_sim_platform(void)
{
  const char *h = getenv("STARPU_HOSTNAME");
  return h && *h ? h : NULL;
}

/* Load the platform's rows, or say in why what is wrong with the file. */
static int load(char *why, size_t len)
{
  snprintf(sim.path, sizeof sim.path, "%s", sm_cl_sim_models_path());
  const char *plat = sm_cl_sim_platform();
  snprintf(sim.platform, sizeof sim.platform, "%s", plat ? plat : "");
  sim.nrates = 0;
  FILE *f = fopen(sim.path, "r");
  if (!f) {
    snprintf(why, len, "cannot read the models file %s: %s (set STARMET_SIM_MODELS)",
             sim.path, strerror(errno));
    return -1;
  }
  char line[2048];
  int lineno = 0, bad = 0;
  while (!bad && fgets(line, sizeof line, f)) {
    lineno++;
    char p[128], dev[16], cl[64];
    double rate, over;
    if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line))
      continue;
    if (sscanf(line, "%127s %15s %63s %lf %lf", p, dev, cl, &rate, &over) != 5 ||
        !(rate > 0) || !(over >= 0) || !isfinite(rate) || !isfinite(over)) {
      snprintf(why, len,
               "%s line %d: expected 'platform device codelet rate overhead_us source' "
               "with a rate > 0 and an overhead >= 0 (scripts/sim-calibrate writes this "
               "file)",
               sim.path, lineno);
      bad = 1;
    } else if (!strcmp(p, sim.platform)) {
      if (sim.nrates == (int)(sizeof sim.rates / sizeof sim.rates[0])) {
        snprintf(why, len, "%s: more than %d rows for platform %s", sim.path,
                 (int)(sizeof sim.rates / sizeof sim.rates[0]), p);
        bad = 1;
        continue;
      }
      sim_rate_t *r = &sim.rates[sim.nrates++];
      snprintf(r->device, sizeof r->device, "%s", dev);
      snprintf(r->codelet, sizeof r->codelet, "%s", cl);
      r->rate = rate;
      r->overhead_us = over;
    }
  }
  fclose(f);
  if (!bad && !sim.nrates) {
    snprintf(why, len, "%s has no row for platform '%s' (STARPU_HOSTNAME)", sim.path,
             sim.platform);
    bad = 1;
  }
  return bad ? -1 : 0;
}

static const sim_rate_t *rate_of(const char *dev, const char *name)
{
  const sim_rate_t *hit = NULL;
  for (int k = 0; k < sim.nrates; k++) {
    const sim_rate_t *r = &sim.rates[k];
    if (strcmp(r->device, dev))
      continue;
    if (!strcmp(r->codelet, name))
      return r;
    if (!hit && !strcmp(r->codelet, "*"))
      hit = r;
  }
  return hit;
}

extern const sm_cl_entry_t __start_sm_codelets[], __stop_sm_codelets[];

/* STARMET_SIM_GPU_FINALIZE=1: the finalize codelets may run on the GPUs */
static int gpu_finalize(void)
{
  const char *g = getenv("STARMET_SIM_GPU_FINALIZE");
  return g && !strcmp(g, "1");
}

int sm_cl_sim_check(int gpus, char *why, size_t len)
{
  if (load(why, len))
    return -1;
  const int gpufin = gpu_finalize();
  for (const sm_cl_entry_t *e = __start_sm_codelets; e < __stop_sm_codelets; e++) {
    const char *name = e->cl->name;
    /* with the GPU finalize, the finalize codelets but r's and r2's (CPU
     * only: sm_cl_sim_gpu_finalize2) */
    const int cuda =
        gpus > 0 &&
        (e->cl->cuda_funcs[0] ||
         (gpufin && !strncmp(name, "sm_finalize", 11) && !strstr(name, "_ld")));
    const char *dev = !rate_of("cpu", name)            ? "cpu"
                      : cuda && !rate_of("cuda", name) ? "cuda"
                                                       : NULL;
    if (dev) {
      snprintf(
          why, len,
          "%s has no rate for codelet %s on %s workers of platform %s (add a row, or "
          "a '*' row for that device)",
          sim.path, name, dev, sim.platform);
      return -1;
    }
  }
  sim.loaded = 1;
  return 0;
}

static const char *device_of(const struct starpu_perfmodel_arch *arch)
{
  switch (arch->devices[0].type) {
  case STARPU_CPU_WORKER:
    return "cpu";
  case STARPU_CUDA_WORKER:
    return "cuda";
  case STARPU_OPENCL_WORKER:
    return "opencl";
  default:
    return "other";
  }
}

/* A CUDA implementation a simulation models (StarPU's SimGrid mode runs
 * none: it only needs one to exist for CUDA workers): the finalize's, and
 * on StarPU 1.4, whose SimGrid builds have no CUDA, every codelet's. */
void sm_cl_sim_modeled_only(void *buffers[], void *cl_arg)
{
  (void)buffers;
  (void)cl_arg;
  STARPU_ABORT_MSG("a modeled-only implementation ran: only a simulation may use it");
}

int sm_cl_sim_gpu_finalize(void)
{
  return gpu_finalize();
}

double sm_cl_sim_cost(struct starpu_task *t, struct starpu_perfmodel_arch *arch,
                      unsigned nimpl)
{
  (void)nimpl;
  if (!sim.loaded) /* sm_runtime_init checks the file before StarPU starts */
    STARPU_ABORT_MSG("simulation: the models file was not checked before the run");
  const char *dev = device_of(arch), *name = t->cl->name;
  const sim_rate_t *hit = rate_of(dev, name);
  if (!hit)
    STARPU_ABORT_MSG(
        "simulation: %s has no rate for codelet %s on %s workers of platform "
        "%s (add a row, or a '*' row for that device)",
        sim.path, name, dev, sim.platform);
  /* microseconds; never 0 (SimGrid's StarPU takes 0 for "not calibrated") */
  const double us = hit->overhead_us + 1e6 * sm_cl_work(t) / hit->rate;
  return us > 1e-3 ? us : 1e-3;
}
#endif
