/* codelet_ccc2.c: the CCC 2-way numerator codelets (dense and sparse
 * moments), CPU/CUDA adapters, performance models and insert function. */
#include "sm_cl_common.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include <starpu_cublas_v2.h>
#endif

typedef struct ccc2_args {
  size_t nf;
  int sparse;
} ccc2_args_t;

static void cpu_ccc2(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  sm_ccc2_syrk_fn sy = sm_cl_mat_same(A, B) ? sm_cl_ccc2_syrk(a->sparse) : NULL;
  if (sy) /* a diagonal block: half the work */
    sy(B.ny, a->nf, A.ptr, A.ld, a->sparse, C.ptr, C.ld);
  else
    sm_cl_ccc2(a->sparse)(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, a->sparse, C.ptr,
                          C.ld);
}

#ifdef SM_USE_CUDA
/* The same moments as int8 GEMMs through cuBLAS (tensor cores); StarPU's
 * history model picks between this and the popcount kernel per size. */
static void cuda_ccc2_gemm(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  const char *name = a->sparse ? "sm_ccc2_sparse (cuBLAS int8)" : "sm_ccc2 (cuBLAS int8)";
  void *scratch =
      sm_cl_cuda_scratch(sm_cuda_ccc2_gemm_scratch(A.ny, B.ny, a->nf, a->sparse), name);
  SM_CUDA_RUN(name,
              sm_cuda_ccc2_gemm(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, a->sparse,
                                C.ptr, C.ld, scratch, starpu_cuda_get_local_stream(),
                                starpu_cublas_get_local_handle()));
}

static void cuda_ccc2(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  SM_CUDA_RUN(a->sparse ? "sm_ccc2_sparse" : "sm_ccc2",
              sm_cuda_ccc2(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, a->sparse, C.ptr,
                           C.ld, starpu_cuda_get_local_stream()));
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_ccc2(void *buffers[], void *cl_arg)
{
  const ccc2_args_t *a = cl_arg;
  const size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  sm_ocl_arg_t args[13] = {sm_ocl_int((long)m), sm_ocl_int((long)n),
                           sm_ocl_int((long)a->nf)};
  int k = sm_ocl_matrix(args, 3, buffers[0], 8, 0, 1);
  k = sm_ocl_matrix(args, k, buffers[1], 8, 0, 1);
  k = sm_ocl_matrix(args, k, buffers[2], 4, 0, 1);
  const size_t groups[2] = {sm_ocl_groups(n, SM_DEV_C2_COLS),
                            sm_ocl_groups(m, SM_DEV_C2_ROWS)};
  sm_ocl_run(a->sparse ? "sm_ccc2_sparse" : "sm_ccc2_dense", k, args, 2, groups);
}
#endif

static double work_ccc2(const struct starpu_task *t)
{
  return sm_cl_work_2way(t, ((const ccc2_args_t *)t->cl_arg)->nf);
}

/* Dense and sparse are different kernels: one codelet and model each. */
SM_CODELET(ccc2, cpu_ccc2, SM_CL_CUDA(cuda_ccc2, cuda_ccc2_gemm) SM_CL_OPENCL(ocl_ccc2),
           3, STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(ccc2_sparse, cpu_ccc2,
           SM_CL_CUDA(cuda_ccc2, cuda_ccc2_gemm) SM_CL_OPENCL(ocl_ccc2), 3, STARPU_R,
           STARPU_R, STARPU_W);

SM_CL_WORK(ccc2, work_ccc2);
SM_CL_WORK(ccc2_sparse, work_ccc2);

int sm_task_ccc2(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                 int sparse, size_t nf, int prio)
{
  ccc2_args_t args = {.nf = nf, .sparse = sparse};
  return SM_INSERT(sparse ? &cl_ccc2_sparse : &cl_ccc2, STARPU_R, A, STARPU_R, B,
                   STARPU_W, C, SM_CL_ARGS(C, args), STARPU_PRIORITY, prio,
                   STARPU_EXECUTE_WHERE, sm_cl_num_where, STARPU_NAME, "ccc2", 0);
}
