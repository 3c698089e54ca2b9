/* sm_cl_force.c: STARMET_FORCE_IMPL, codelets kept to one implementation
 * for checking each of them (scripts/gpu-selftest): every codelet's
 * can_execute, the count of what ran at each task's start, and the report
 * of it at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_cl_common.h"
#include "sm_error.h"

enum { MAX_FORCED = 32 };
static struct forced {
  const struct starpu_codelet *cl;
  int type;      /* STARPU_*_WORKER, or -1: implementation impl of any type */
  unsigned impl; /* StarPU's implementation number */
  char what[80]; /* codelet=implementation, as given */
  /* tasks it ran, tasks another implementation ran, tasks it could not
   * run (inserted for worker types without it: the vector sums' additions
   * run on CPUs) */
  uint64_t ran, others, exempt;
} forced[MAX_FORCED];
static int nforced;

/* The number of the implementation `name` in the list "<field> = {a, b}"
 * of an expanded implementation text, or -1. */
static int impl_index(const char *impls, const char *field, const char *name)
{
  const char *p = strstr(impls, field);
  if (!p || !(p = strchr(p, '{')))
    return -1;
  const char *end = strchr(p, '}');
  const size_t len = strlen(name);
  int k = 0;
  for (p++; end && p < end; k++) {
    while (p < end && (*p == ' ' || *p == ','))
      p++;
    const char *q = p;
    while (q < end && *q != ',' && *q != ' ')
      q++;
    if ((size_t)(q - p) == len && !strncmp(p, name, len))
      return k;
    p = q;
  }
  return -1;
}

static const char *type_name(int type)
{
  return type == STARPU_CPU_WORKER    ? "CPU"
         : type == STARPU_CUDA_WORKER ? "CUDA"
                                      : "OpenCL";
}

/* One item "codelet=function" or "codelet:N" into f; 0, or -1 logged. */
static int force_one(const char *item, struct forced *f)
{
  char name[64];
  const char *sep = item + strcspn(item, "=:");
  if (!*sep || sep == item || (size_t)(sep - item) >= sizeof name) {
    sm_log_error("STARMET_FORCE_IMPL: '%s' is not codelet=implementation or codelet:N",
                 item);
    return -1;
  }
  memcpy(name, item, (size_t)(sep - item));
  name[sep - item] = 0;
  const sm_cl_entry_t *e = __start_sm_codelets;
  for (; e < __stop_sm_codelets; e++)
    if (!strcmp(e->cl->name, name) ||
        (!strncmp(e->cl->name, "sm_", 3) && !strcmp(e->cl->name + 3, name)))
      break;
  if (e == __stop_sm_codelets) {
    sm_log_error("STARMET_FORCE_IMPL: no codelet %s in this starmet (starmet --version "
                 "lists them)",
                 name);
    return -1;
  }
  const struct starpu_codelet *cl = e->cl;
  *f = (struct forced){.cl = cl, .type = -1};
  snprintf(f->what, sizeof f->what, "%s", item);
  const char *v = sep + 1;
  int k = -1;
  if (*sep == ':') {
    char *end;
    const long n = strtol(v, &end, 10);
    if (*v && !*end && n >= 0 && n < STARPU_MAXIMPLEMENTATIONS &&
        (cl->cpu_funcs[n] || cl->cuda_funcs[n] || cl->opencl_funcs[n]))
      k = (int)n;
    if (k < 0) {
      sm_log_error("STARMET_FORCE_IMPL: %s has no implementation number %s here "
                   "(starmet --version lists them)",
                   cl->name, v);
      return -1;
    }
    f->impl = (unsigned)k;
    if ((cl->cpu_funcs[k] && starpu_cpu_worker_get_count()) ||
        (cl->cuda_funcs[k] && starpu_cuda_worker_get_count()) ||
        (cl->opencl_funcs[k] && starpu_opencl_worker_get_count()))
      return 0;
    sm_log_error(
        "STARMET_FORCE_IMPL: no worker StarPU started has implementation %d of %s", k,
        cl->name);
    return -1;
  }
  if (cl->cpu_funcs_name[0] && !strcmp(cl->cpu_funcs_name[0], v))
    f->type = STARPU_CPU_WORKER, k = 0;
  else if (cl->cuda_funcs[0] && (k = impl_index(e->impls, ".cuda_funcs", v)) >= 0)
    f->type = STARPU_CUDA_WORKER;
  else if (cl->opencl_funcs[0] && (k = impl_index(e->impls, ".opencl_funcs", v)) >= 0)
    f->type = STARPU_OPENCL_WORKER;
  if (k < 0) {
    sm_log_error("STARMET_FORCE_IMPL: %s has no implementation %s in this starmet "
                 "(starmet --version lists them)",
                 cl->name, v);
    return -1;
  }
  f->impl = (unsigned)k;
  if (starpu_worker_get_count_by_type((enum starpu_worker_archtype)f->type) <= 0) {
    sm_log_error("STARMET_FORCE_IMPL: %s runs on %s workers and StarPU started none",
                 f->what, type_name(f->type));
    return -1;
  }
  return 0;
}

/* Read $STARMET_FORCE_IMPL (comma-separated items); 0, or -1 logged. */
int sm_cl_force_setup(void)
{
  nforced = 0;
  const char *env = getenv("STARMET_FORCE_IMPL");
  if (!env || !*env)
    return 0;
  char buf[1024];
  if (strlen(env) >= sizeof buf) {
    sm_log_error("STARMET_FORCE_IMPL: longer than %zu characters", sizeof buf - 1);
    return -1;
  }
  snprintf(buf, sizeof buf, "%s", env);
  struct forced f[MAX_FORCED];
  int n = 0;
  char *save = NULL;
  for (char *it = strtok_r(buf, ", ", &save); it; it = strtok_r(NULL, ", ", &save)) {
    if (n == MAX_FORCED) {
      sm_log_error("STARMET_FORCE_IMPL: more than %d codelets", MAX_FORCED);
      return -1;
    }
    if (force_one(it, &f[n]))
      return -1;
    for (int k = 0; k < n; k++)
      if (f[k].cl == f[n].cl) {
        sm_log_error("STARMET_FORCE_IMPL: %s is named twice", f[n].cl->name);
        return -1;
      }
    n++;
  }
  memcpy(forced, f, (size_t)n * sizeof f[0]);
  nforced = n;
  return 0;
}

static struct forced *forced_of(const struct starpu_codelet *cl)
{
  for (int k = 0; k < nforced; k++)
    if (forced[k].cl == cl)
      return &forced[k];
  return NULL;
}

static int forced_allows(const struct forced *f, int workerid, unsigned nimpl)
{
  return nimpl == f->impl &&
         (f->type < 0 || (int)starpu_worker_get_type(workerid) == f->type);
}

/* Whether the task may run the forced implementation at all (the worker
 * types it was inserted for have it): else it is left alone, for a task
 * that no worker may run is lost (StarPU-MPI drops it without an error). */
static int forced_applies(const struct forced *f, const struct starpu_task *t)
{
  const int64_t tw = (int64_t)t->where;
  uint64_t where = tw == -1 ? (uint64_t)t->cl->where : (uint64_t)(uint32_t)tw;
  if (!where)
    where = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
  const unsigned k = f->impl;
  if (f->type >= 0)
    return !!(where & (f->type == STARPU_CPU_WORKER    ? STARPU_CPU
                       : f->type == STARPU_CUDA_WORKER ? STARPU_CUDA
                                                       : STARPU_OPENCL));
  return ((where & STARPU_CPU) && f->cl->cpu_funcs[k]) ||
         ((where & STARPU_CUDA) && f->cl->cuda_funcs[k]) ||
         ((where & STARPU_OPENCL) && f->cl->opencl_funcs[k]);
}

int sm_cl_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
  const struct forced *f = nforced ? forced_of(task->cl) : NULL;
  return !f || !forced_applies(f, task) || forced_allows(f, (int)workerid, nimpl);
}

void sm_cl_task_popped(void *unused)
{
  struct starpu_task *t = nforced ? starpu_task_get_current() : NULL;
  struct forced *f = t ? forced_of(t->cl) : NULL;
  if (f) {
    uint64_t *n =
        !forced_applies(f, t) ? &f->exempt
        : forced_allows(f, starpu_worker_get_id(), starpu_task_get_implementation(t))
            ? &f->ran
            : &f->others;
    __atomic_fetch_add(n, 1, __ATOMIC_RELAXED);
  }
  sm_cl_task_started(unused);
}

/* What the forced codelets ran, one line each (scripts/gpu-selftest reads
 * them). */
void sm_cl_force_report(void)
{
  for (int k = 0; k < nforced; k++)
    sm_log_warn("STARMET_FORCE_IMPL %s: %llu tasks ran it, %llu another implementation, "
                "%llu inserted for workers without it",
                forced[k].what, (unsigned long long)forced[k].ran,
                (unsigned long long)forced[k].others,
                (unsigned long long)forced[k].exempt);
  nforced = 0;
}
