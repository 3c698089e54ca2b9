/* sm_cl_common.c: codelet-wide settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_cl_common.h"
#include "sm_error.h"
#include "sm_opencl.h"

int sm_cl_use_mpi;
static int cl_rank; /* this rank, under MPI */
sm_kernel_t sm_cl_kernel = SM_KERNEL_AUTO;
unsigned long long sm_cl_num_where = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
unsigned long long sm_cl_end_where = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
static int end_follows = 1;

void sm_codelets_set_devices(unsigned long long where)
{
  sm_cl_num_where = where;
  sm_cl_end_where = end_follows ? where : STARPU_CPU;
}

void sm_codelets_set_follow(int follow)
{
  end_follows = follow;
  sm_cl_end_where = follow ? sm_cl_num_where : STARPU_CPU;
}

#ifdef SM_USE_CUDA
static int cuda_sync; /* STARMET_CUDA_SYNC */

/* The function a call's text starts with ("sm_cuda_ccc2(A.ny, ...)"). */
static const char *call_name(const char *call, char *buf, size_t len)
{
  size_t n = 0;
  while (*call == ' ' || *call == '(')
    call++;
  while (n + 1 < len &&
         (call[n] == '_' || (call[n] >= 'a' && call[n] <= 'z') ||
          (call[n] >= 'A' && call[n] <= 'Z') || (call[n] >= '0' && call[n] <= '9'))) {
    buf[n] = call[n];
    n++;
  }
  buf[n] = 0;
  return buf;
}

/* What may help with CUDA error err. */
static const char *cuda_hint(int err)
{
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
    return ": this starmet has no code for this GPU's architecture (rebuild it with "
           "NVCC_ARCH_FLAGS naming it: docs/gpus.md)";
  if (!cuda_sync && err >= 700 && err <= 720)
    return " (the GPU reports such faults at the next synchronisation, so work queued "
           "before this codelet may have caused it: STARMET_CUDA_SYNC=1 names the "
           "kernel)";
  return "";
}

void sm_cl_cuda_ran(const char *codelet, const char *call, int err)
{
  char fn[64];
  const char *what = sm_cuda_take_failed();
  if (!err && cuda_sync) {
    /* what CALL queued, if it did not check it itself (a copy) */
    err = (int)cudaGetLastError();
    if (!err)
      err = (int)cudaStreamSynchronize(starpu_cuda_get_local_stream());
  }
  if (!err)
    return;
  call_name(call, fn, sizeof fn);
  if (!what)
    what = fn;
  STARPU_ABORT_MSG("codelet %s: %s%s%s failed on the GPU: %s (CUDA error %d)%s", codelet,
                   what, strcmp(what, fn) ? " in " : "", strcmp(what, fn) ? fn : "",
                   sm_cuda_error_string(err), err, cuda_hint(err));
}

static struct {
  uintptr_t p;
  size_t bytes;
} cuda_scratch[STARPU_NMAXWORKERS];

void *sm_cl_cuda_scratch(size_t bytes, const char *codelet)
{
  const int w = starpu_worker_get_id_check();
  const unsigned node = starpu_worker_get_memory_node((unsigned)w);
  if (cuda_scratch[w].bytes < bytes) {
    /* the stream may still use the old buffer: let it finish first */
    if (cuda_scratch[w].p) {
      const int err = (int)cudaStreamSynchronize(starpu_cuda_get_local_stream());
      if (err)
        STARPU_ABORT_MSG("codelet %s: the work queued before it on this GPU failed: %s "
                         "(CUDA error %d)%s",
                         codelet, sm_cuda_error_string(err), err, cuda_hint(err));
      starpu_free_on_node_flags(node, cuda_scratch[w].p, cuda_scratch[w].bytes,
                                STARPU_MALLOC_COUNT);
    }
    const size_t grown = bytes + bytes / 4; /* room for a slightly larger tile */
    cuda_scratch[w].p = starpu_malloc_on_node_flags(node, grown, STARPU_MALLOC_COUNT);
    cuda_scratch[w].bytes = cuda_scratch[w].p ? grown : 0;
    if (!cuda_scratch[w].p)
      STARPU_ABORT_MSG("codelet %s: no room for %zu bytes of scratch on the GPU (memory "
                       "node %u): use a smaller --block-size",
                       codelet, grown, node);
  }
  return (void *)cuda_scratch[w].p;
}

static void cuda_scratch_free(void *arg)
{
  (void)arg;
  const int w = starpu_worker_get_id_check();
  if (cuda_scratch[w].p)
    starpu_free_on_node_flags(starpu_worker_get_memory_node((unsigned)w),
                              cuda_scratch[w].p, cuda_scratch[w].bytes,
                              STARPU_MALLOC_COUNT);
  cuda_scratch[w].p = 0;
  cuda_scratch[w].bytes = 0;
}
#endif

/* ---- STARMET_FORCE_IMPL: codelets kept to one implementation */
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

extern const sm_cl_entry_t __start_sm_codelets[], __stop_sm_codelets[];

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
static int force_setup(void)
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
static void force_report(void)
{
  for (int k = 0; k < nforced; k++)
    sm_log_warn("STARMET_FORCE_IMPL %s: %llu tasks ran it, %llu another implementation, "
                "%llu inserted for workers without it",
                forced[k].what, (unsigned long long)forced[k].ran,
                (unsigned long long)forced[k].others,
                (unsigned long long)forced[k].exempt);
  nforced = 0;
}

void sm_codelets_fini(void)
{
  force_report();
  sm_opencl_shutdown();
#ifdef SM_USE_CUDA
  starpu_execute_on_each_worker(cuda_scratch_free, NULL, STARPU_CUDA);
  starpu_cublas_shutdown();
#endif
}

sm_err_t sm_codelets_init(int use_mpi, sm_kernel_t kernel)
{
  sm_cl_use_mpi = use_mpi;
  if (use_mpi)
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &cl_rank);
  sm_cl_kernel = kernel;
  sm_cl_finalize3_setup();
  sm_cl_czek3_setup();
  sm_cl_czek2_sparse_setup();
  sm_cl_sums_sparse_setup();
  sm_cl_ccc3_setup();
#ifdef SM_SIMULATION
  sm_cl_sim_setup();
#endif
  const int ocl_err = sm_opencl_init(); /* the OpenCL program (OpenCL workers) */
#ifdef SM_USE_CUDA
  starpu_cublas_init(); /* a cuBLAS handle per CUDA worker (int8 CCC GEMMs) */
  const char *sync = getenv("STARMET_CUDA_SYNC");
  cuda_sync = sync && *sync && strcmp(sync, "0");
  sm_cuda_set_sync(cuda_sync);
#endif
  if (ocl_err)
    return SM_ERUNTIME;
  return force_setup() ? SM_EOPTION : SM_OK;
}

const char *sm_codelets_kernel_check(sm_kernel_t kernel, int ccc)
{
  return sm_kern_unusable((sm_kvar_t)kernel, ccc);
}

/* A forced kernel this CPU cannot run was refused with the options; should
 * one get here anyway, the portable kernel runs. */
sm_czek2_d_fn sm_cl_czek2_d(void)
{
  sm_czek2_d_fn f = sm_kern_czek2_blocked_d;
  sm_kern_pick_czek2_d((sm_kvar_t)sm_cl_kernel, &f);
  return f;
}

sm_czek2_s_fn sm_cl_czek2_s(void)
{
  sm_czek2_s_fn f = sm_kern_czek2_blocked_s;
  sm_kern_pick_czek2_s((sm_kvar_t)sm_cl_kernel, &f);
  return f;
}

sm_ccc2_fn sm_cl_ccc2(int sparse)
{
  sm_ccc2_fn f = sm_kern_ccc2_popc;
  sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, sparse, &f);
  return f;
}

sm_czek2_lo_d_fn sm_cl_czek2_lo_d(void)
{
  return sm_kern_lo_czek2_d((sm_kvar_t)sm_cl_kernel);
}

sm_czek2_lo_s_fn sm_cl_czek2_lo_s(void)
{
  return sm_kern_lo_czek2_s((sm_kvar_t)sm_cl_kernel);
}

sm_czek3_d_kern_fn sm_cl_czek3_d(void)
{
  sm_czek3_d_kern_fn f = NULL;
  return sm_kern_pick_czek3_d((sm_kvar_t)sm_cl_kernel, &f) ? f : NULL;
}

sm_czek3_s_kern_fn sm_cl_czek3_s(void)
{
  sm_czek3_s_kern_fn f = NULL;
  return sm_kern_pick_czek3_s((sm_kvar_t)sm_cl_kernel, &f) ? f : NULL;
}

/* Pieces of one buffer size keep very different shares of their tile
 * triple: all of it, half when X and Y are one tile, down to a sixth on
 * the diagonal, depending on where the planes lie in tile X. Without that
 * class in the footprint StarPU's history mixes their times (and, on runs
 * without STARPU_SILENT, flushes it with a warning per task). */
uint32_t sm_cl_keep3_footprint(struct starpu_task *t, const sm_keep3_t *k, uint32_t mx)
{
  const uint32_t h = starpu_task_data_footprint(t);
  const uint32_t xy = k->x0 == k->y0, ax = k->a0 >= k->x0 && k->a0 < k->x0 + mx;
  const uint32_t where = ax ? 4 * (k->a0 - k->x0) / mx : 0;
  return starpu_hash_crc32c_be(k->kind | xy << 2 | ax << 3 | where << 4, h);
}

sm_czek2_syrk_d_fn sm_cl_czek2_syrk_d(void)
{
  return sm_kern_syrk_czek2_d((sm_kvar_t)sm_cl_kernel);
}

sm_czek2_syrk_s_fn sm_cl_czek2_syrk_s(void)
{
  return sm_kern_syrk_czek2_s((sm_kvar_t)sm_cl_kernel);
}

sm_ccc2_syrk_fn sm_cl_ccc2_syrk(int sparse)
{
  return sm_kern_syrk_ccc2((sm_kvar_t)sm_cl_kernel, sparse);
}

const char *sm_codelets_kernel_name(const char *family)
{
  int ref = sm_cl_kernel == SM_KERNEL_REF;
  sm_czek2_d_fn fd;
  sm_czek2_s_fn fs;
  sm_ccc2_fn fc;
  const char *name;
  if (!strcmp(family, "czek2_d"))
    return (name = sm_kern_pick_czek2_d((sm_kvar_t)sm_cl_kernel, &fd)) ? name
                                                                       : "unavailable";
  if (!strcmp(family, "czek2_s"))
    return (name = sm_kern_pick_czek2_s((sm_kvar_t)sm_cl_kernel, &fs)) ? name
                                                                       : "unavailable";
  if (!strcmp(family, "ccc2_sparse"))
    return (name = sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, 1, &fc)) ? name
                                                                       : "unavailable";
  if (!strcmp(family, "ccc2")) {
    static char both[96];
    const char *d = sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, 0, &fc);
    const char *sp = sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, 1, &fc);
    if (!d || !sp)
      return "unavailable";
    if (!strcmp(d, sp))
      return d;
    snprintf(both, sizeof both, "%s (dense), %s (sparse)", d, sp);
    return both;
  }
  if (ref)
    return !strncmp(family, "czek3", 5)  ? "sm_kern_czek3_ref"
           : !strncmp(family, "ccc3", 4) ? "sm_kern_ccc3_ref"
                                         : "unknown";
  /* 3-way planes run on their own kernel (czekanowski, SIMD) or on the 2-way
   * kernel of the run's precision or method */
  static char on[128];
  if (!strncmp(family, "czek3", 5)) {
    const int single = !strcmp(family, "czek3_s");
    sm_czek3_d_kern_fn f3d;
    sm_czek3_s_kern_fn f3s;
    const char *k3 = single ? sm_kern_pick_czek3_s((sm_kvar_t)sm_cl_kernel, &f3s)
                            : sm_kern_pick_czek3_d((sm_kvar_t)sm_cl_kernel, &f3d);
    if (k3)
      return k3;
    const char *k2 = sm_codelets_kernel_name(single ? "czek2_s" : "czek2_d");
    snprintf(on, sizeof on, "sm_kern_czek3 on %s", k2);
    return on;
  }
  if (!strncmp(family, "ccc3", 4)) {
    const int sparse = !strcmp(family, "ccc3_sparse");
    const char *k2 = sm_codelets_kernel_name(sparse ? "ccc2_sparse" : "ccc2");
    if (sm_cl_kernel == SM_KERNEL_AUTO && sm_cl_ccc2(sparse) == sm_kern_ccc2_popc)
      return "sm_kern_ccc3_popc";       /* codelet_ccc3.c: the plane kernel throughout */
    if (sm_cl_kernel == SM_KERNEL_AUTO) /* codelet_ccc3.c: by vector length */
      snprintf(on, sizeof on, "sm_kern_ccc3 on %s (sm_kern_ccc3_popc below %d fields)",
               k2, sparse ? 1000 : 3000);
    else
      snprintf(on, sizeof on, "sm_kern_ccc3 on %s", k2);
    return on;
  }
  return "unknown";
}

void *sm_cl_args_dup(starpu_data_handle_t W, const void *args, size_t size)
{
  if (sm_cl_use_mpi) {
    const int owner = starpu_mpi_data_get_rank(W);
    if (owner >= 0 && owner != cl_rank)
      return NULL;
  }
  void *p = malloc(size);
  if (p)
    memcpy(p, args, size);
  return p;
}

/* The names inside "<field> = {a, b}" of an expanded implementation list. */
static void list_impls(FILE *f, const char *impls, const char *field, const char *label)
{
  const char *p = strstr(impls, field);
  if (!p || !(p = strchr(p, '{')))
    return;
  const char *end = strchr(p, '}');
  if (!end)
    return;
  fprintf(f, " %s(", label);
  int first = 1;
  for (p++; p < end;) {
    while (p < end && (*p == ' ' || *p == ','))
      p++;
    const char *q = p;
    while (q < end && *q != ',' && *q != ' ')
      q++;
    if (q > p)
      fprintf(f, "%s%.*s", first ? "" : " ", (int)(q - p), p);
    first = 0;
    p = q;
  }
  fputc(')', f);
}

static int by_name(const void *a, const void *b)
{
  return strcmp((*(const sm_cl_entry_t *const *)a)->cl->name,
                (*(const sm_cl_entry_t *const *)b)->cl->name);
}

void sm_codelets_list(FILE *f)
{
  enum { MAX_CODELETS = 64 };
  const sm_cl_entry_t *sorted[MAX_CODELETS];
  size_t n = 0;
  for (const sm_cl_entry_t *e = __start_sm_codelets; e < __stop_sm_codelets; e++)
    if (n < MAX_CODELETS)
      sorted[n++] = e;
  qsort(sorted, n, sizeof sorted[0], by_name);
  for (size_t k = 0; k < n; k++) {
    const sm_cl_entry_t *e = sorted[k];
    fprintf(f, "  %-18s cpu", e->cl->name);
    if (e->cl->cuda_funcs[0])
      list_impls(f, e->impls, ".cuda_funcs", "cuda");
    if (e->cl->opencl_funcs[0])
      list_impls(f, e->impls, ".opencl_funcs", "opencl");
    fputc('\n', f);
  }
}

/* weak: a program without the numerator codelets has no such section */
extern const sm_cl_work_entry_t __start_sm_cl_work[] __attribute__((weak));
extern const sm_cl_work_entry_t __stop_sm_cl_work[] __attribute__((weak));

int sm_codelets_cuda_devices(void)
{
#if defined(SM_USE_CUDA) && !defined(SM_SIMULATION)
  return sm_cuda_device_count();
#else
  return 0;
#endif
}

double sm_cl_work_2way(const struct starpu_task *t, size_t nf)
{
  return (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 0)) *
         (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 1)) * (double)nf;
}

double sm_cl_work_3way(const struct starpu_task *t, size_t g, size_t nf)
{
  return (double)g * (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 1)) *
         (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 2)) * (double)nf;
}

double sm_cl_work(const struct starpu_task *t)
{
  if (!t || !t->cl)
    return 0;
  for (const sm_cl_work_entry_t *e = __start_sm_cl_work; e < __stop_sm_cl_work; e++)
    if (e->cl == t->cl)
      return t->cl_arg ? e->work(t) : 0;
  double bytes = 0;
  const unsigned n = STARPU_TASK_GET_NBUFFERS(t);
  for (unsigned k = 0; k < n; k++)
    bytes += (double)starpu_data_get_size(STARPU_TASK_GET_HANDLE(t, k));
  return bytes;
}
