/* sm_cl_registry.c: the codelet layer as the graph sees it start and stop:
 * the settings of the run, the set-up of the families that need one
 * (their model footprints), the OpenCL program, CUDA's handles, the forced
 * implementations; and --version's list of every codelet (the table the
 * families fill, SM_CL_REGISTER). It knows the families; they do not
 * know it. */
#include <stdio.h>
#include <stdlib.h>

#include "sm_cl_common.h"
#include "sm_cl_families.h"
#include "sm_opencl.h"
#include "sm_sidecache.h"

void sm_codelets_fini(void)
{
  sm_cl_force_report();
  sm_side_flush(); /* the tiles' derived data, now that no task runs */
  sm_opencl_shutdown();
#ifdef SM_USE_CUDA
  sm_cl_cuda_fini();
#endif
}

void sm_codelets_kept_stats(uint64_t *reused, uint64_t *built)
{
  sm_side_stats(reused, built);
}

sm_err_t sm_codelets_init(int use_mpi, sm_kernel_t kernel)
{
  sm_cl_settings(use_mpi, kernel);
  sm_cl_finalize3_setup();
  sm_cl_czek3_setup();
  sm_cl_czek2_sparse_setup();
  sm_cl_sums_sparse_setup();
  sm_cl_ccc3_setup();
#ifdef SM_SIMULATION
  /* the finalize codelets on CUDA workers, modeled only */
  const int gpu_finalize = sm_cl_sim_gpu_finalize();
  sm_cl_sim_gpu_finalize2(gpu_finalize ? sm_cl_sim_modeled_only : NULL);
  sm_cl_sim_gpu_finalize3(gpu_finalize ? sm_cl_sim_modeled_only : NULL);
#endif
  const int ocl_err = sm_opencl_init(); /* the OpenCL program (OpenCL workers) */
#ifdef SM_USE_CUDA
  sm_cl_cuda_init();
#endif
  if (ocl_err)
    return SM_ERUNTIME;
  return sm_cl_force_setup() ? SM_EOPTION : SM_OK;
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
