/* codelet_ccc2.c: the CCC 2-way numerator codelets (dense and sparse
 * moments), CPU/CUDA adapters, performance models and insert function. */
#include "sm_cl_common.h"
#ifdef SM_USE_CUDA
#include "cuda/sm_kern_cuda.h"
#endif

typedef struct ccc2_args {
  size_t nf;
  int sparse;
} ccc2_args_t;

static void cpu_ccc2(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  const uint64_t *A = (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[0]);
  const uint64_t *B = (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[1]);
  uint32_t *C = (uint32_t *)STARPU_MATRIX_GET_PTR(buffers[2]);
  size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  size_t lda = STARPU_MATRIX_GET_LD(buffers[0]), ldb = STARPU_MATRIX_GET_LD(buffers[1]);
  size_t ldc = STARPU_MATRIX_GET_LD(buffers[2]);
  if (sm_cl_kernel == SM_KERNEL_REF)
    sm_kern_ccc2_ref(m, n, a->nf, A, lda, B, ldb, a->sparse, C, ldc);
  else
    sm_kern_ccc2_popc(m, n, a->nf, A, lda, B, ldb, a->sparse, C, ldc);
}

#ifdef SM_USE_CUDA
static void cuda_ccc2(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  sm_cuda_ccc2(STARPU_MATRIX_GET_NY(buffers[0]), STARPU_MATRIX_GET_NY(buffers[1]),
               a->nf, (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
               STARPU_MATRIX_GET_LD(buffers[0]),
               (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
               STARPU_MATRIX_GET_LD(buffers[1]), a->sparse,
               (uint32_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
               STARPU_MATRIX_GET_LD(buffers[2]), starpu_cuda_get_local_stream());
}
#endif

/* Dense and sparse are different kernels: separate models. */
static struct starpu_perfmodel model_ccc2 = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "sm_ccc2",
};
static struct starpu_perfmodel model_ccc2_sparse = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "sm_ccc2_sparse",
};

#ifdef SM_USE_CUDA
#define SM_CCC2_CUDA .cuda_funcs = {cuda_ccc2}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define SM_CCC2_CUDA
#endif

static struct starpu_codelet cl_ccc2 = {
    .name = "sm_ccc2",
    .cpu_funcs = {cpu_ccc2},
    .cpu_funcs_name = {"cpu_ccc2"},
    SM_CCC2_CUDA
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &model_ccc2,
};
static struct starpu_codelet cl_ccc2_sparse = {
    .name = "sm_ccc2_sparse",
    .cpu_funcs = {cpu_ccc2},
    .cpu_funcs_name = {"cpu_ccc2"},
    SM_CCC2_CUDA
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &model_ccc2_sparse,
};

int sm_task_ccc2(starpu_data_handle_t A, starpu_data_handle_t B,
                 starpu_data_handle_t C, int sparse, size_t nf, int prio)
{
  ccc2_args_t args = {.nf = nf, .sparse = sparse};
  return SM_INSERT(sparse ? &cl_ccc2_sparse : &cl_ccc2, STARPU_R, A, STARPU_R, B,
                   STARPU_W, C, STARPU_CL_ARGS, sm_cl_args_dup(&args, sizeof args),
                   sizeof args, STARPU_PRIORITY, prio, STARPU_NAME, "ccc2", 0);
}
