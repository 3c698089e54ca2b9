/* codelet_ccc2.c: the CCC 2-way numerator codelets (dense and sparse
 * moments), CPU/CUDA adapters, performance models and insert function. */
#include "sm_cl_common.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include <starpu_cublas_v2.h>

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
  sm_ccc2_syrk_fn sy = A == B && m == n && lda == ldb ? sm_cl_ccc2_syrk(a->sparse) : NULL;
  if (sy) /* a diagonal block: half the work */
    sy(n, a->nf, A, lda, a->sparse, C, ldc);
  else
    sm_cl_ccc2(a->sparse)(m, n, a->nf, A, lda, B, ldb, a->sparse, C, ldc);
}

#ifdef SM_USE_CUDA
/* The same moments as int8 GEMMs through cuBLAS (tensor cores); StarPU's
 * history model picks between this and the popcount kernel per size. */
static void cuda_ccc2_gemm(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  cudaStream_t s = starpu_cuda_get_local_stream();
  void *scratch = NULL;
  if (cudaMallocAsync(&scratch, sm_cuda_ccc2_gemm_scratch(m, n, a->nf, a->sparse), s) !=
      cudaSuccess)
    STARPU_ABORT_MSG("cannot allocate the int8 GEMM scratch on the GPU");
  if (sm_cuda_ccc2_gemm(m, n, a->nf, (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                        STARPU_MATRIX_GET_LD(buffers[0]),
                        (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
                        STARPU_MATRIX_GET_LD(buffers[1]), a->sparse,
                        (uint32_t *)STARPU_MATRIX_GET_PTR(buffers[2]),
                        STARPU_MATRIX_GET_LD(buffers[2]), scratch, s,
                        starpu_cublas_get_local_handle()) != 0)
    STARPU_ABORT_MSG("cublasGemmEx refused the int8 GEMM");
  cudaFreeAsync(scratch, s);
}

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
#ifdef STARPU_USE_OPENCL
static void ocl_ccc2(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  int oa, ob, oc;
  sm_ocl_arg_t args[13];
  args[3] = sm_ocl_mem(buffers[0], 8, &oa);
  args[6] = sm_ocl_mem(buffers[1], 8, &ob);
  args[10] = sm_ocl_mem(buffers[2], 4, &oc);
  size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  args[0] = sm_ocl_int((long)m);
  args[1] = sm_ocl_int((long)n);
  args[2] = sm_ocl_int((long)a->nf);
  args[4] = sm_ocl_int(oa);
  args[5] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[0]));
  args[7] = sm_ocl_int(ob);
  args[8] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[1]));
  args[9] = sm_ocl_int(a->sparse);
  args[11] = sm_ocl_int(oc);
  args[12] = sm_ocl_int((long)STARPU_MATRIX_GET_LD(buffers[2]));
  const size_t global[2] = {n, m}, local[2] = {16, 16};
  sm_ocl_run("sm_ccc2", 13, args, 2, global, local);
}
#endif

static struct starpu_perfmodel model_ccc2 = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "sm_ccc2",
};
static struct starpu_perfmodel model_ccc2_sparse = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "sm_ccc2_sparse",
};

#ifdef SM_USE_CUDA
#define SM_CCC2_CUDA                                                            \
  .cuda_funcs = {cuda_ccc2, cuda_ccc2_gemm}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define SM_CCC2_CUDA
#endif

static struct starpu_codelet cl_ccc2 = {
    .name = "sm_ccc2",
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_ccc2},
#endif
    .cpu_funcs = {cpu_ccc2},
    .cpu_funcs_name = {"cpu_ccc2"},
    SM_CCC2_CUDA
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &model_ccc2,
};
static struct starpu_codelet cl_ccc2_sparse = {
    .name = "sm_ccc2_sparse",
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_ccc2},
#endif
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
                   sizeof args, STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, sm_cl_num_where, STARPU_NAME, "ccc2", 0);
}
