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

void sm_cl_settings(int use_mpi, sm_kernel_t kernel)
{
  sm_cl_use_mpi = use_mpi;
  if (use_mpi)
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &cl_rank);
  sm_cl_kernel = kernel;
}

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

/* weak: a program without the numerator codelets has no such section */
extern const sm_cl_work_entry_t __start_sm_cl_work[] __attribute__((weak));
extern const sm_cl_work_entry_t __stop_sm_cl_work[] __attribute__((weak));

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
