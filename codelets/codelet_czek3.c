/* codelet_czek3.c: Czekanowski 3-way plane codelets (single and double): a
 * group of planes of tile A against tiles X and Y; CPU adapters, models and
 * insert function. */
#include "sm_cl_common.h"
#include "sm_cl_families.h"
#include "sm_opencl.h"

/* The CPU and CUDA adapters of one precision (SFX d or s): planes
 * [a_off, a_off + g) of tile A against tiles X and Y. */
#define SM_CZEK3_CPU(SFX)                                                                \
  static void cpu_czek3_##SFX(void *buffers[], void *cl_arg)                             \
  {                                                                                      \
    const sm_cl_num_t *a = cl_arg;                                                       \
    const sm_cl_mat_t A = sm_cl_mat(buffers, 0), X = sm_cl_mat(buffers, 1);              \
    const sm_cl_mat_t Y = sm_cl_mat(buffers, 2), N = sm_cl_mat(buffers, 3);              \
    if (sm_cl_kernel == SM_KERNEL_REF)                                                   \
      sm_kern_czek3_ref_##SFX(a->g, X.ny, Y.ny, a->nf, sm_cl_mat_row(A, a->a_off), A.ld, \
                              X.ptr, X.ld, Y.ptr, Y.ld, N.ptr);                          \
    else if (sm_cl_czek3_##SFX()) /* the planes kernel of --kernel (SIMD) */             \
      sm_kern_czek3_keep_##SFX(sm_cl_czek3_##SFX(), &a->keep, a->g, X.ny, Y.ny, a->nf,   \
                               sm_cl_mat_row(A, a->a_off), A.ld, X.ptr, X.ld, Y.ptr,     \
                               Y.ld, N.ptr);                                             \
    else /* on the 2-way kernel --kernel picks (blocked) */                              \
      sm_kern_czek3_on_##SFX(sm_cl_czek2_##SFX(), sm_cl_czek2_lo_##SFX(), &a->keep,      \
                             a->g, X.ny, Y.ny, a->nf, sm_cl_mat_row(A, a->a_off), A.ld,  \
                             X.ptr, X.ld, Y.ptr, Y.ld, N.ptr);                           \
    sm_cl_check(buffers, cl_arg);                                                        \
  }
#define SM_CZEK3_CUDA(SFX)                                                               \
  static void cuda_czek3_##SFX(void *buffers[], void *cl_arg)                            \
  {                                                                                      \
    const sm_cl_num_t *a = cl_arg;                                                       \
    const sm_cl_mat_t A = sm_cl_mat(buffers, 0), X = sm_cl_mat(buffers, 1);              \
    const sm_cl_mat_t Y = sm_cl_mat(buffers, 2), N = sm_cl_mat(buffers, 3);              \
    const uint32_t keep[4] = {a->keep.kind, a->keep.a0, a->keep.x0, a->keep.y0};         \
    SM_CUDA_RUN("sm_czek3_" #SFX,                                                        \
                sm_cuda_czek3_##SFX(a->g, X.ny, Y.ny, a->nf, sm_cl_mat_row(A, a->a_off), \
                                    A.ld, X.ptr, X.ld, Y.ptr, Y.ld, N.ptr, keep,         \
                                    starpu_cuda_get_local_stream()));                    \
    sm_cl_check(buffers, cl_arg);                                                        \
  }

SM_CZEK3_CPU(d)
SM_CZEK3_CPU(s)
#ifdef SM_USE_CUDA
SM_CZEK3_CUDA(d)
SM_CZEK3_CUDA(s)
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_czek3(void *buffers[], void *cl_arg, int single)
{
  const sm_cl_num_t *a = cl_arg;
  const size_t es = single ? 4 : 8;
  const size_t mx = STARPU_MATRIX_GET_NY(buffers[1]),
               my = STARPU_MATRIX_GET_NY(buffers[2]);
  sm_ocl_arg_t args[24];
  int k = sm_ocl_planes(args, buffers, es, a->g, a->nf, a->a_off);
  k = sm_ocl_matrix(args, k, buffers[3], es, 0, 0);
  k = sm_ocl_keep3(args, k, &a->keep);
  const size_t groups[3] = {sm_ocl_groups(my, SM_DEV_CZ_COLS),
                            sm_ocl_groups(mx, SM_DEV_CZ_ROWS), sm_ocl_groups(a->g, 1)};
  sm_ocl_run(single ? "sm_czek3_s" : "sm_czek3_d", k, args, 3, groups);
  sm_cl_check(buffers, cl_arg);
}
static void ocl_czek3_d(void *buffers[], void *cl_arg)
{
  ocl_czek3(buffers, cl_arg, 0);
}
static void ocl_czek3_s(void *buffers[], void *cl_arg)
{
  ocl_czek3(buffers, cl_arg, 1);
}
#endif

static double work_czek3(const struct starpu_task *t)
{
  const sm_cl_num_t *a = t->cl_arg;
  return sm_cl_work_3way(t, a->g, a->nf);
}

SM_CODELET(czek3_d, cpu_czek3_d, SM_CL_CUDA(cuda_czek3_d) SM_CL_OPENCL(ocl_czek3_d), 4,
           STARPU_R, STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(czek3_s, cpu_czek3_s, SM_CL_CUDA(cuda_czek3_s) SM_CL_OPENCL(ocl_czek3_s), 4,
           STARPU_R, STARPU_R, STARPU_R, STARPU_W);

SM_CL_WORK(czek3_d, work_czek3);
SM_CL_WORK(czek3_s, work_czek3);

/* Tasks of one size skip different shares of their triples: the class
 * keeps StarPU's history of them apart. */
static uint32_t czek3_footprint(struct starpu_task *t)
{
  const sm_cl_num_t *a = t->cl_arg;
  return a ? sm_cl_keep3_footprint(t, &a->keep, STARPU_MATRIX_GET_NY(t->handles[1]))
           : starpu_task_data_footprint(t);
}

void sm_cl_czek3_setup(void)
{
  model_czek3_d.footprint = czek3_footprint;
  model_czek3_s.footprint = czek3_footprint;
}

int sm_task_czek3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                  starpu_data_handle_t Y, starpu_data_handle_t N3, int single, size_t nf,
                  const sm_keep3_t *keep, uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(single ? SM_VF_CZEK3_S : SM_VF_CZEK3_D, nf, block);
  args.single = single;
  return sm_cl_insert_planes(single ? &cl_czek3_s : &cl_czek3_d, &args, A, a_off, g, X, Y,
                             N3, keep, prio, "czek3");
}
