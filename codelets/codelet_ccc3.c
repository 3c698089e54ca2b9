/* codelet_ccc3.c: CCC 3-way plane codelets (dense and sparse moments of a
 * group of planes of tile A against tiles X and Y); CPU adapter, models
 * and insert function. */
#include "sm_cl_common.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include "cuda/sm_kern_cuda.h"
#endif

typedef struct ccc3_args {
  size_t nf, a_off, g;
  int sparse;
} ccc3_args_t;

static void cpu_ccc3(void *buffers[], void *cl_arg)
{
  const ccc3_args_t *a = cl_arg;
  const size_t lda = STARPU_MATRIX_GET_LD(buffers[0]);
  const uint64_t *P = (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->a_off * lda;
  (sm_cl_kernel == SM_KERNEL_REF ? sm_kern_ccc3_ref : sm_kern_ccc3_popc)(
      a->g, STARPU_MATRIX_GET_NY(buffers[1]), STARPU_MATRIX_GET_NY(buffers[2]), a->nf, P,
      lda, (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
      STARPU_MATRIX_GET_LD(buffers[1]), (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
      STARPU_MATRIX_GET_LD(buffers[2]), a->sparse,
      (uint32_t *)STARPU_MATRIX_GET_PTR(buffers[3]));
}

#ifdef STARPU_USE_OPENCL
static void ocl_ccc3(void *buffers[], void *cl_arg)
{
  const ccc3_args_t *a = cl_arg;
  int op, ox, oy, oo;
  sm_ocl_arg_t args[16];
  args[4] = sm_ocl_mem(buffers[0], 8, &op);
  args[7] = sm_ocl_mem(buffers[1], 8, &ox);
  args[10] = sm_ocl_mem(buffers[2], 8, &oy);
  args[14] = sm_ocl_mem(buffers[3], 4, &oo);
  size_t ldp = STARPU_MATRIX_GET_LD(buffers[0]);
  size_t mx = STARPU_MATRIX_GET_NY(buffers[1]), my = STARPU_MATRIX_GET_NY(buffers[2]);
  args[0] = sm_ocl_int((long)a->g);
  args[1] = sm_ocl_int((long)mx);
  args[2] = sm_ocl_int((long)my);
  args[3] = sm_ocl_int((long)a->nf);
  args[5] = sm_ocl_int(op + (long)(a->a_off * ldp));
  args[6] = sm_ocl_int((long)ldp);
  args[8] = sm_ocl_int(ox);
  args[9] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[1]));
  args[11] = sm_ocl_int(oy);
  args[12] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[2]));
  args[13] = sm_ocl_int(a->sparse);
  args[15] = sm_ocl_int(oo);
  const size_t global[3] = {my, mx, a->g}, local[3] = {8, 8, 1};
  sm_ocl_run("sm_ccc3", 16, args, 3, global, local);
}
#endif

#ifdef SM_USE_CUDA
static void cuda_ccc3(void *buffers[], void *cl_arg)
{
  const ccc3_args_t *a = cl_arg;
  const size_t lda = STARPU_MATRIX_GET_LD(buffers[0]);
  sm_cuda_ccc3(a->g, STARPU_MATRIX_GET_NY(buffers[1]), STARPU_MATRIX_GET_NY(buffers[2]), a->nf,
               (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->a_off * lda, lda,
               (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
               STARPU_MATRIX_GET_LD(buffers[1]),
               (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
               STARPU_MATRIX_GET_LD(buffers[2]), a->sparse,
               (uint32_t *)STARPU_MATRIX_GET_PTR(buffers[3]), starpu_cuda_get_local_stream());
}
#endif

static struct starpu_perfmodel model_ccc3 = {.type = STARPU_HISTORY_BASED,
                                             .symbol = "sm_ccc3"};
static struct starpu_perfmodel model_ccc3_sparse = {.type = STARPU_HISTORY_BASED,
                                                    .symbol = "sm_ccc3_sparse"};

static struct starpu_codelet cl_ccc3 = {
    .name = "sm_ccc3",
#ifdef SM_USE_CUDA
    .cuda_funcs = {cuda_ccc3},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_ccc3},
#endif
    .cpu_funcs = {cpu_ccc3},
    .cpu_funcs_name = {"cpu_ccc3"},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &model_ccc3,
};
static struct starpu_codelet cl_ccc3_sparse = {
    .name = "sm_ccc3_sparse",
#ifdef SM_USE_CUDA
    .cuda_funcs = {cuda_ccc3},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_ccc3},
#endif
    .cpu_funcs = {cpu_ccc3},
    .cpu_funcs_name = {"cpu_ccc3"},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &model_ccc3_sparse,
};

int sm_task_ccc3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                 starpu_data_handle_t Y, starpu_data_handle_t N3, int sparse, size_t nf,
                 int prio)
{
  ccc3_args_t args = {.nf = nf, .a_off = a_off, .g = g, .sparse = sparse};
  return SM_INSERT(sparse ? &cl_ccc3_sparse : &cl_ccc3, STARPU_R, A, STARPU_R, X, STARPU_R,
                   Y, STARPU_W, N3, STARPU_CL_ARGS, sm_cl_args_dup(&args, sizeof args),
                   sizeof args, STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, sm_cl_num_where, STARPU_NAME, "ccc3", 0);
}
