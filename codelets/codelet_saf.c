/* codelet_saf.c: the SAF codelets: a block of sites' genotype likelihoods
 * to their SAF vectors, by the tree (exact or banded) or the iterative
 * reference; CPU adapters, a CUDA adapter for the exact codelet,
 * performance models and the insert function. */
#include "sm_cl_common.h"
#include "sm_codelets_saf.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include "cuda/sm_kern_saf_cuda.h"
#endif

typedef struct saf_args {
  const sm_saf_tab_t *tab;
  double band_tol;
} saf_args_t;

static void cpu_saf(void *buffers[], void *cl_arg, int ref)
{
  const saf_args_t *a = cl_arg;
  const double *gl = (const double *)STARPU_MATRIX_GET_PTR(buffers[0]);
  double *out = (double *)STARPU_MATRIX_GET_PTR(buffers[1]);
  sm_saf_site_t *info = (sm_saf_site_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
  const size_t ns = STARPU_MATRIX_GET_NY(buffers[0]);
  const size_t ldgl = STARPU_MATRIX_GET_LD(buffers[0]),
               ldo = STARPU_MATRIX_GET_LD(buffers[1]);
  sm_saf_ws_t *ws = sm_saf_ws_create(a->tab->nind);
  STARPU_ASSERT_MSG(ws, "sm_saf: out of memory for the workspace");
  if (ref)
    sm_kern_saf_ref(a->tab, ws, ns, gl, ldgl, out, ldo, info);
  else
    sm_kern_saf_tree(a->tab, ws, a->band_tol, ns, gl, ldgl, out, ldo, info);
  sm_saf_ws_destroy(ws);
}

static void cpu_saf_tree(void *buffers[], void *cl_arg)
{
  cpu_saf(buffers, cl_arg, 0);
}
static void cpu_saf_ref(void *buffers[], void *cl_arg)
{
  cpu_saf(buffers, cl_arg, 1);
}

#ifdef SM_USE_CUDA
static void cuda_saf(void *buffers[], void *cl_arg)
{
  const saf_args_t *a = cl_arg;
  SM_CUDA_RUN("sm_saf", sm_cuda_saf(STARPU_MATRIX_GET_NY(buffers[0]), a->tab->nind,
                                    (const double *)STARPU_MATRIX_GET_PTR(buffers[0]),
                                    STARPU_MATRIX_GET_LD(buffers[0]),
                                    (double *)STARPU_MATRIX_GET_PTR(buffers[1]),
                                    STARPU_MATRIX_GET_LD(buffers[1]),
                                    (sm_saf_site_t *)STARPU_VECTOR_GET_PTR(buffers[2]),
                                    starpu_cuda_get_local_stream()));
}
#endif

#ifdef STARPU_USE_OPENCL
/* The same kernel (codelets/device/sm_dev_kernels.h) as OpenCL. */
static void ocl_saf(void *buffers[], void *cl_arg)
{
  const saf_args_t *a = cl_arg;
  const size_t ns = STARPU_MATRIX_GET_NY(buffers[0]);
  if (ns == 0)
    return;
  struct starpu_vector_interface *info = buffers[2];
  sm_ocl_arg_t args[10] = {sm_ocl_int((long)ns), sm_ocl_int((long)a->tab->nind)};
  int k = sm_ocl_matrix(args, 2, buffers[0], sizeof(double), 0, 1);
  k = sm_ocl_matrix(args, k, buffers[1], sizeof(double), 0, 1);
  args[k++] = (sm_ocl_arg_t){.is_mem = 1, .mem = (cl_mem)info->dev_handle};
  args[k++] = sm_ocl_int((long)(info->offset / sizeof(uint32_t)));
  const size_t groups[1] = {sm_ocl_groups(ns, 1)};
  sm_ocl_run("sm_saf", k, args, 1, groups);
}
#endif

/* Exact, banded and reference runs cost differently: one model each. */
SM_CODELET(saf, cpu_saf_tree, SM_CL_CUDA(cuda_saf) SM_CL_OPENCL(ocl_saf), 3, STARPU_R,
           STARPU_W, STARPU_W);
SM_CODELET(saf_band, cpu_saf_tree, , 3, STARPU_R, STARPU_W, STARPU_W);
SM_CODELET(saf_ref, cpu_saf_ref, , 3, STARPU_R, STARPU_W, STARPU_W);

int sm_task_saf(starpu_data_handle_t GL, starpu_data_handle_t OUT,
                starpu_data_handle_t INFO, const sm_saf_tab_t *tab,
                sm_saf_method_t method, double band_tol, int prio)
{
  saf_args_t args = {.tab = tab, .band_tol = method == SM_SAF_TREE ? band_tol : 0.0};
  struct starpu_codelet *cl = method == SM_SAF_REF ? &cl_saf_ref
                              : args.band_tol > 0  ? &cl_saf_band
                                                   : &cl_saf;
  return SM_INSERT(cl, STARPU_R, GL, STARPU_W, OUT, STARPU_W, INFO, SM_CL_ARGS(OUT, args),
                   STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE,
                   cl == &cl_saf ? sm_cl_num_where : STARPU_CPU, STARPU_NAME, "saf", 0);
}
