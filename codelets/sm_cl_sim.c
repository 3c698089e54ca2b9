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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  pthread_once_t once;
  int nrates;
  sim_rate_t rates[128];
  char path[1024], platform[128];
} sim = {.once = PTHREAD_ONCE_INIT};

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

/* Load the platform's rows; a file that cannot be read or has no row for
 * the platform stops the run with what to do (StarPU would only say that a
 * codelet has no calibrated model). */
static void load(void)
{
  snprintf(sim.path, sizeof sim.path, "%s", sm_cl_sim_models_path());
  const char *plat = sm_cl_sim_platform();
  snprintf(sim.platform, sizeof sim.platform, "%s", plat ? plat : "");
  FILE *f = fopen(sim.path, "r");
  if (!f)
    STARPU_ABORT_MSG(
        "simulation: cannot read the models file %s (set STARMET_SIM_MODELS)", sim.path);
  char line[2048];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char p[128], dev[16], cl[64];
    double rate, over;
    if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line))
      continue;
    if (sscanf(line, "%127s %15s %63s %lf %lf", p, dev, cl, &rate, &over) != 5 ||
        !(rate > 0) || !(over >= 0) || !isfinite(rate) || !isfinite(over))
      STARPU_ABORT_MSG("simulation: %s line %d: expected 'platform device codelet rate "
                       "overhead_us source', rate > 0 and overhead >= 0",
                       sim.path, lineno);
    if (strcmp(p, sim.platform))
      continue;
    if (sim.nrates == (int)(sizeof sim.rates / sizeof sim.rates[0]))
      STARPU_ABORT_MSG("simulation: %s: too many rows for platform %s", sim.path, p);
    sim_rate_t *r = &sim.rates[sim.nrates++];
    snprintf(r->device, sizeof r->device, "%s", dev);
    snprintf(r->codelet, sizeof r->codelet, "%s", cl);
    r->rate = rate;
    r->overhead_us = over;
  }
  fclose(f);
  if (!sim.nrates)
    STARPU_ABORT_MSG("simulation: %s has no row for platform '%s' (STARPU_HOSTNAME)",
                     sim.path, sim.platform);
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

/* The CUDA finalize a simulation models (StarPU's SimGrid mode runs no
 * implementation: it only needs one to exist for CUDA workers). */
static void modeled_only(void *buffers[], void *cl_arg)
{
  (void)buffers;
  (void)cl_arg;
  STARPU_ABORT_MSG("a modeled-only implementation ran: only a simulation may use it");
}

void sm_cl_sim_setup(void)
{
  const char *g = getenv("STARMET_SIM_GPU_FINALIZE");
  const int on = g && !strcmp(g, "1");
  sm_cl_sim_gpu_finalize2(on ? modeled_only : NULL);
  sm_cl_sim_gpu_finalize3(on ? modeled_only : NULL);
}

double sm_cl_sim_cost(struct starpu_task *t, struct starpu_perfmodel_arch *arch,
                      unsigned nimpl)
{
  (void)nimpl;
  pthread_once(&sim.once, load);
  const char *dev = device_of(arch), *name = t->cl->name;
  const sim_rate_t *hit = NULL;
  for (int k = 0; k < sim.nrates; k++) {
    const sim_rate_t *r = &sim.rates[k];
    if (strcmp(r->device, dev))
      continue;
    if (!strcmp(r->codelet, name)) {
      hit = r;
      break;
    }
    if (!hit && !strcmp(r->codelet, "*"))
      hit = r;
  }
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
