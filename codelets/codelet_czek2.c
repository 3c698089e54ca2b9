/* codelet_czek2.c: the Czekanowski 2-way numerator codelets (single and
 * double), their CPU/CUDA adapters, performance models and insert function. */
#include "sm_cl_common.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include "cuda/sm_kern_cuda.h"
#endif

typedef struct czek2_args {
  size_t nf;
} czek2_args_t;

static void cpu_czek2_d(void *buffers[], void *cl_arg)
{
  const czek2_args_t *a = cl_arg;
  const double *A = (const double *)STARPU_MATRIX_GET_PTR(buffers[0]);
  const double *B = (const double *)STARPU_MATRIX_GET_PTR(buffers[1]);
  double *C = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
  size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  size_t lda = STARPU_MATRIX_GET_LD(buffers[0]), ldb = STARPU_MATRIX_GET_LD(buffers[1]);
  size_t ldc = STARPU_MATRIX_GET_LD(buffers[2]);
  sm_czek2_syrk_d_fn sy = A == B && m == n && lda == ldb ? sm_cl_czek2_syrk_d() : NULL;
  if (sy) /* a diagonal block: half the work */
    sy(n, a->nf, A, lda, C, ldc);
  else
    sm_cl_czek2_d()(m, n, a->nf, A, lda, B, ldb, C, ldc);
}

static void cpu_czek2_s(void *buffers[], void *cl_arg)
{
  const czek2_args_t *a = cl_arg;
  const float *A = (const float *)STARPU_MATRIX_GET_PTR(buffers[0]);
  const float *B = (const float *)STARPU_MATRIX_GET_PTR(buffers[1]);
  float *C = (float *)STARPU_MATRIX_GET_PTR(buffers[2]);
  size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  size_t lda = STARPU_MATRIX_GET_LD(buffers[0]), ldb = STARPU_MATRIX_GET_LD(buffers[1]);
  size_t ldc = STARPU_MATRIX_GET_LD(buffers[2]);
  sm_czek2_syrk_s_fn sy = A == B && m == n && lda == ldb ? sm_cl_czek2_syrk_s() : NULL;
  if (sy) /* a diagonal block: half the work */
    sy(n, a->nf, A, lda, C, ldc);
  else
    sm_cl_czek2_s()(m, n, a->nf, A, lda, B, ldb, C, ldc);
}

#ifdef SM_USE_CUDA
static void cuda_czek2_d(void *buffers[], void *cl_arg)
{
  const czek2_args_t *a = cl_arg;
  sm_cuda_czek2_d(STARPU_MATRIX_GET_NY(buffers[0]), STARPU_MATRIX_GET_NY(buffers[1]),
                  a->nf, (const double *)STARPU_MATRIX_GET_PTR(buffers[0]),
                  STARPU_MATRIX_GET_LD(buffers[0]),
                  (const double *)STARPU_MATRIX_GET_PTR(buffers[1]),
                  STARPU_MATRIX_GET_LD(buffers[1]),
                  (double *)STARPU_MATRIX_GET_PTR(buffers[2]),
                  STARPU_MATRIX_GET_LD(buffers[2]), starpu_cuda_get_local_stream());
}
static void cuda_czek2_s(void *buffers[], void *cl_arg)
{
  const czek2_args_t *a = cl_arg;
  sm_cuda_czek2_s(STARPU_MATRIX_GET_NY(buffers[0]), STARPU_MATRIX_GET_NY(buffers[1]),
                  a->nf, (const float *)STARPU_MATRIX_GET_PTR(buffers[0]),
                  STARPU_MATRIX_GET_LD(buffers[0]),
                  (const float *)STARPU_MATRIX_GET_PTR(buffers[1]),
                  STARPU_MATRIX_GET_LD(buffers[1]),
                  (float *)STARPU_MATRIX_GET_PTR(buffers[2]),
                  STARPU_MATRIX_GET_LD(buffers[2]), starpu_cuda_get_local_stream());
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_czek2(void *buffers[], void *cl_arg, int single)
{
  const czek2_args_t *a = cl_arg;
  const size_t es = single ? 4 : 8;
  int oa, ob, oc;
  sm_ocl_arg_t args[12];
  args[3] = sm_ocl_mem(buffers[0], es, &oa);
  args[6] = sm_ocl_mem(buffers[1], es, &ob);
  args[9] = sm_ocl_mem(buffers[2], es, &oc);
  size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  args[0] = sm_ocl_int((long)m);
  args[1] = sm_ocl_int((long)n);
  args[2] = sm_ocl_int((long)a->nf);
  args[4] = sm_ocl_int(oa);
  args[5] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[0]));
  args[7] = sm_ocl_int(ob);
  args[8] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[1]));
  args[10] = sm_ocl_int(oc);
  args[11] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[2]));
  const size_t global[2] = {n, m}, local[2] = {16, 16};
  sm_ocl_run(single ? "sm_czek2_s" : "sm_czek2_d", 12, args, 2, global, local);
}
static void ocl_czek2_d(void *buffers[], void *cl_arg) { ocl_czek2(buffers, cl_arg, 0); }
static void ocl_czek2_s(void *buffers[], void *cl_arg) { ocl_czek2(buffers, cl_arg, 1); }
#endif

static struct starpu_perfmodel model_czek2_d = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "sm_czek2_d",
};
static struct starpu_perfmodel model_czek2_s = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "sm_czek2_s",
};

static struct starpu_codelet cl_czek2_d = {
    .name = "sm_czek2_d",
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_czek2_d},
#endif
    .cpu_funcs = {cpu_czek2_d},
    .cpu_funcs_name = {"cpu_czek2_d"},
#ifdef SM_USE_CUDA
    .cuda_funcs = {cuda_czek2_d},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &model_czek2_d,
};
static struct starpu_codelet cl_czek2_s = {
    .name = "sm_czek2_s",
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_czek2_s},
#endif
    .cpu_funcs = {cpu_czek2_s},
    .cpu_funcs_name = {"cpu_czek2_s"},
#ifdef SM_USE_CUDA
    .cuda_funcs = {cuda_czek2_s},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &model_czek2_s,
};

int sm_task_czek2(starpu_data_handle_t A, starpu_data_handle_t B,
                  starpu_data_handle_t C, int single, size_t nf, int prio)
{
  czek2_args_t args = {.nf = nf};
  return SM_INSERT(single ? &cl_czek2_s : &cl_czek2_d, STARPU_R, A, STARPU_R, B,
                   STARPU_W, C, STARPU_CL_ARGS, sm_cl_args_dup(&args, sizeof args),
                   sizeof args, STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, sm_cl_num_where, STARPU_NAME, "czek2", 0);
}
