/* codelet_czek2.c: the Czekanowski 2-way numerator codelets (single and
 * double), their CPU/CUDA adapters, performance models and insert function. */
#include "sm_cl_common.h"
#include "sm_opencl.h"

/* The CPU and CUDA adapters of one precision (SFX d or s); a diagonal tile
 * pair (B = A) runs the symmetric kernel where one exists: half the work. */
#define SM_CZEK2_CPU(SFX)                                                                \
  static void cpu_czek2_##SFX(void *buffers[], void *cl_arg)                             \
  {                                                                                      \
    const sm_cl_num_t *a = cl_arg;                                                       \
    const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1);              \
    const sm_cl_mat_t C = sm_cl_mat(buffers, 2);                                         \
    sm_czek2_syrk_##SFX##_fn sy =                                                        \
        sm_cl_mat_same(A, B) ? sm_cl_czek2_syrk_##SFX() : NULL;                          \
    if (sy)                                                                              \
      sy(B.ny, a->nf, A.ptr, A.ld, C.ptr, C.ld);                                         \
    else                                                                                 \
      sm_cl_czek2_##SFX()(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, C.ptr, C.ld);     \
    sm_cl_check(buffers, cl_arg);                                                        \
  }
#define SM_CZEK2_CUDA(SFX)                                                               \
  static void cuda_czek2_##SFX(void *buffers[], void *cl_arg)                            \
  {                                                                                      \
    const sm_cl_num_t *a = cl_arg;                                                       \
    const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1);              \
    const sm_cl_mat_t C = sm_cl_mat(buffers, 2);                                         \
    SM_CUDA_RUN("sm_czek2_" #SFX,                                                        \
                sm_cuda_czek2_##SFX(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, C.ptr,  \
                                    C.ld, starpu_cuda_get_local_stream()));              \
    sm_cl_check(buffers, cl_arg);                                                        \
  }

SM_CZEK2_CPU(d)
SM_CZEK2_CPU(s)
#ifdef SM_USE_CUDA
SM_CZEK2_CUDA(d)
SM_CZEK2_CUDA(s)
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_czek2(void *buffers[], void *cl_arg, int single)
{
  const sm_cl_num_t *a = cl_arg;
  const size_t es = single ? 4 : 8;
  const size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  sm_ocl_arg_t args[12] = {sm_ocl_int((long)m), sm_ocl_int((long)n),
                           sm_ocl_int((long)a->nf)};
  int k = sm_ocl_matrix(args, 3, buffers[0], es, 0, 1);
  k = sm_ocl_matrix(args, k, buffers[1], es, 0, 1);
  k = sm_ocl_matrix(args, k, buffers[2], es, 0, 1);
  const size_t groups[2] = {sm_ocl_groups(n, SM_DEV_CZ_COLS),
                            sm_ocl_groups(m, SM_DEV_CZ_ROWS)};
  sm_ocl_run(single ? "sm_czek2_s" : "sm_czek2_d", k, args, 2, groups);
  sm_cl_check(buffers, cl_arg);
}
static void ocl_czek2_d(void *buffers[], void *cl_arg)
{
  ocl_czek2(buffers, cl_arg, 0);
}
static void ocl_czek2_s(void *buffers[], void *cl_arg)
{
  ocl_czek2(buffers, cl_arg, 1);
}
#endif

static double work_czek2(const struct starpu_task *t)
{
  return sm_cl_work_2way(t, ((const sm_cl_num_t *)t->cl_arg)->nf);
}

SM_CODELET(czek2_d, cpu_czek2_d, SM_CL_CUDA(cuda_czek2_d) SM_CL_OPENCL(ocl_czek2_d), 3,
           STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(czek2_s, cpu_czek2_s, SM_CL_CUDA(cuda_czek2_s) SM_CL_OPENCL(ocl_czek2_s), 3,
           STARPU_R, STARPU_R, STARPU_W);

SM_CL_WORK(czek2_d, work_czek2);
SM_CL_WORK(czek2_s, work_czek2);

int sm_task_czek2(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                  int single, size_t nf, uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(single ? SM_VF_CZEK2_S : SM_VF_CZEK2_D, nf, block);
  args.single = single;
  return sm_cl_insert_pair(single ? &cl_czek2_s : &cl_czek2_d, &args, A, B, C, prio,
                           "czek2");
}
