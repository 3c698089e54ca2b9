/* codelet_ccc3.c: CCC 3-way plane codelets (dense and sparse moments of a
 * group of planes of tile A against tiles X and Y); CPU adapter, models
 * and insert function. */
#include "sm_cl_common.h"
#include "sm_cl_families.h"
#include "sm_opencl.h"

static void cpu_ccc3(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), X = sm_cl_mat(buffers, 1);
  const sm_cl_mat_t Y = sm_cl_mat(buffers, 2), N = sm_cl_mat(buffers, 3);
  /* Up to this length the plane kernel (short-vector tiles, X and Y
   * packed once per task) beats running the 2-way kernel on each part
   * (measured, 16 planes x 64 x 64 on one AVX-512 core: dense 2.06e11
   * against 1.21e11 triple-fields/s at 5,000 fields, 2.15e11 against
   * 1.63e11 at 16,384; sparse 5.33e10 against 3.43e10 at 5,000): the
   * automatic choice takes it there, and everywhere when the automatic
   * 2-way kernel is the portable popcount one; a forced --kernel always
   * runs on its 2-way kernel. */
  const size_t short_nf = 16384;
  if (sm_cl_kernel == SM_KERNEL_REF)
    sm_kern_ccc3_ref(a->g, X.ny, Y.ny, a->nf, sm_cl_mat_row(A, a->a_off), A.ld, X.ptr,
                     X.ld, Y.ptr, Y.ld, a->sparse, N.ptr);
  else if (sm_cl_kernel == SM_KERNEL_AUTO &&
           (a->nf <= short_nf || sm_cl_ccc2(a->sparse) == sm_kern_ccc2_popc))
    /* the plane kernel packs X and Y once per task: where the 2-way kernel
     * is the popcount one too it is the faster at any length */
    sm_kern_ccc3_popc_keep(&a->keep, a->g, X.ny, Y.ny, a->nf, sm_cl_mat_row(A, a->a_off),
                           A.ld, X.ptr, X.ld, Y.ptr, Y.ld, a->sparse, N.ptr);
  else /* on the 2-way kernel --kernel picks (SIMD) */
    sm_kern_ccc3_on(sm_cl_ccc2(a->sparse), &a->keep, a->g, X.ny, Y.ny, a->nf,
                    sm_cl_mat_row(A, a->a_off), A.ld, X.ptr, X.ld, Y.ptr, Y.ld, a->sparse,
                    N.ptr);
  sm_cl_check(buffers, cl_arg);
}

#ifdef STARPU_USE_OPENCL
static void ocl_ccc3(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const size_t mx = STARPU_MATRIX_GET_NY(buffers[1]),
               my = STARPU_MATRIX_GET_NY(buffers[2]);
  sm_ocl_arg_t args[24];
  int k = sm_ocl_planes(args, buffers, 8, a->g, a->nf, a->a_off);
  k = sm_ocl_matrix(args, k, buffers[3], 4, 0, 0);
  k = sm_ocl_keep3(args, k, &a->keep);
  const size_t groups[3] = {sm_ocl_groups(my, SM_DEV_C3_COLS),
                            sm_ocl_groups(mx, SM_DEV_C3_ROWS), sm_ocl_groups(a->g, 1)};
  sm_ocl_run(a->sparse ? "sm_ccc3_sparse" : "sm_ccc3_dense", k, args, 3, groups);
  sm_cl_check(buffers, cl_arg);
}
#endif

#ifdef SM_USE_CUDA
static void cuda_ccc3(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), X = sm_cl_mat(buffers, 1);
  const sm_cl_mat_t Y = sm_cl_mat(buffers, 2), N = sm_cl_mat(buffers, 3);
  const uint32_t keep[4] = {a->keep.kind, a->keep.a0, a->keep.x0, a->keep.y0};
  SM_CUDA_RUN(a->sparse ? "sm_ccc3_sparse" : "sm_ccc3",
              sm_cuda_ccc3(a->g, X.ny, Y.ny, a->nf, sm_cl_mat_row(A, a->a_off), A.ld,
                           X.ptr, X.ld, Y.ptr, Y.ld, a->sparse, N.ptr, keep,
                           starpu_cuda_get_local_stream()));
  sm_cl_check(buffers, cl_arg);
}
#endif

/* Dense and sparse are different kernels: one codelet and model each. */
static double work_ccc3(const struct starpu_task *t)
{
  const sm_cl_num_t *a = t->cl_arg;
  return sm_cl_work_3way(t, a->g, a->nf);
}

SM_CODELET(ccc3, cpu_ccc3, SM_CL_CUDA(cuda_ccc3) SM_CL_OPENCL(ocl_ccc3), 4, STARPU_R,
           STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(ccc3_sparse, cpu_ccc3, SM_CL_CUDA(cuda_ccc3) SM_CL_OPENCL(ocl_ccc3), 4,
           STARPU_R, STARPU_R, STARPU_R, STARPU_W);

SM_CL_WORK(ccc3, work_ccc3);
SM_CL_WORK(ccc3_sparse, work_ccc3);

/* Tasks of one size skip different shares of their triples: the class
 * keeps StarPU's history of them apart. */
static uint32_t ccc3_footprint(struct starpu_task *t)
{
  const sm_cl_num_t *a = t->cl_arg;
  return a ? sm_cl_keep3_footprint(t, &a->keep, STARPU_MATRIX_GET_NY(t->handles[1]))
           : starpu_task_data_footprint(t);
}

void sm_cl_ccc3_setup(void)
{
  model_ccc3.footprint = ccc3_footprint;
  model_ccc3_sparse.footprint = ccc3_footprint;
}

int sm_task_ccc3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                 starpu_data_handle_t Y, starpu_data_handle_t N3, int sparse, size_t nf,
                 const sm_keep3_t *keep, uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(sparse ? SM_VF_CCC3_SPARSE : SM_VF_CCC3, nf, block);
  args.sparse = sparse;
  return sm_cl_insert_planes(sparse ? &cl_ccc3_sparse : &cl_ccc3, &args, A, a_off, g, X,
                             Y, N3, keep, prio, "ccc3");
}
