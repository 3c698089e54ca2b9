/* codelet_ccc2.c: the CCC 2-way numerator codelets (dense and sparse
 * moments), CPU/CUDA adapters, performance models and insert function. */
#include <string.h>

#include "cuda/sm_i8_gemm.h"
#include "sm_cl_common.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include <starpu_cublas_v2.h>
#endif

static void cpu_ccc2(void *buffers[], void *cl_arg)
{
  sm_cl_ccc2_tile(cl_arg, sm_cl_mat(buffers, 0), sm_cl_mat(buffers, 1),
                  sm_cl_mat(buffers, 2), 1);
  sm_cl_check(buffers, cl_arg);
}

#ifdef SM_USE_CUDA
/* The same moments as int8 GEMMs through cuBLAS (tensor cores); StarPU's
 * history model picks between this and the popcount kernel per size. */
static void cuda_ccc2_gemm(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  const char *name = a->sparse ? "sm_ccc2_sparse (cuBLAS int8)" : "sm_ccc2 (cuBLAS int8)";
  void *scratch =
      sm_cl_cuda_scratch(sm_cuda_ccc2_gemm_scratch(A.ny, B.ny, a->nf, a->sparse), name);
  SM_CUDA_RUN(name,
              sm_cuda_ccc2_gemm(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, a->sparse,
                                C.ptr, C.ld, scratch, starpu_cuda_get_local_stream(),
                                starpu_cublas_get_local_handle()));
  sm_cl_check(buffers, cl_arg);
}

static void cuda_ccc2(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  SM_CUDA_RUN(a->sparse ? "sm_ccc2_sparse" : "sm_ccc2",
              sm_cuda_ccc2(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, a->sparse, C.ptr,
                           C.ld, starpu_cuda_get_local_stream()));
  sm_cl_check(buffers, cl_arg);
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_ccc2(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const size_t m = STARPU_MATRIX_GET_NY(buffers[0]), n = STARPU_MATRIX_GET_NY(buffers[1]);
  sm_ocl_arg_t args[13] = {sm_ocl_int((long)m), sm_ocl_int((long)n),
                           sm_ocl_int((long)a->nf)};
  int k = sm_ocl_matrix(args, 3, buffers[0], 8, 0, 1);
  k = sm_ocl_matrix(args, k, buffers[1], 8, 0, 1);
  k = sm_ocl_matrix(args, k, buffers[2], 4, 0, 1);
  const size_t groups[2] = {sm_ocl_groups(n, SM_DEV_C2_COLS),
                            sm_ocl_groups(m, SM_DEV_C2_ROWS)};
  sm_ocl_run(a->sparse ? "sm_ccc2_sparse" : "sm_ccc2_dense", k, args, 2, groups);
  sm_cl_check(buffers, cl_arg);
}
#endif

/* Comparisons of a task: its tile pair, or under LD windows the strips a
 * CPU computes (the moments and the tally alike) */
static double work_ccc2(const struct starpu_task *t)
{
  const sm_cl_num_t *a = t->cl_arg;
  return (double)sm_band_area(&a->band,
                              starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 0)),
                              starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 1))) *
         (double)a->nf;
}

/* Dense and sparse are different kernels: one codelet and model each. */
SM_CODELET(ccc2, cpu_ccc2, SM_CL_CUDA(cuda_ccc2, cuda_ccc2_gemm) SM_CL_OPENCL(ocl_ccc2),
           3, STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(ccc2_sparse, cpu_ccc2,
           SM_CL_CUDA(cuda_ccc2, cuda_ccc2_gemm) SM_CL_OPENCL(ocl_ccc2), 3, STARPU_R,
           STARPU_R, STARPU_W);

SM_CL_WORK(ccc2, work_ccc2);
SM_CL_WORK(ccc2_sparse, work_ccc2);

/* ---- cached int8 tiles (--ccc-gemm int8): sm_ccc_i8 expands a tile of
 * codes into its int8 form once (sm_kern.h's layout, on the device that
 * runs the products), sm_ccc2_i8 multiplies two such tiles: on CUDA by
 * cublasGemmEx, under OpenCL and on CPUs by plain loops. The forms have
 * their rows padded with zero rows to the shapes cuBLAS's int8 kernels
 * want (sm_i8_gemm_rows): a product takes its m x n pairs from C's shape. */

static size_t i8_blocks(int sparse)
{
  return sparse ? 2 : 1;
}

static void cpu_ccc_i8(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t X = sm_cl_mat(buffers, 0), R = sm_cl_mat(buffers, 1);
  const size_t used = i8_blocks(a->sparse) * X.ny;
  sm_kern_ccc_i8_expand(X.ny, a->nf, R.nx, X.ptr, X.ld, a->sparse, R.ptr, R.ld);
  /* the padding rows, zero as the device expansion leaves them */
  memset((int8_t *)R.ptr + used * R.ld, 0, (R.ny - used) * R.ld);
  sm_cl_check(buffers, cl_arg);
}

static void cpu_ccc2_i8(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  sm_kern_ccc2_i8rows(C.ny, C.nx, A.nx, A.ptr, A.ld, B.ptr, B.ld, a->sparse, C.ptr, C.ld);
  sm_cl_check(buffers, cl_arg);
}

#ifdef SM_USE_CUDA
static void cuda_ccc_i8(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t X = sm_cl_mat(buffers, 0), R = sm_cl_mat(buffers, 1);
  SM_CUDA_RUN("sm_ccc_i8",
              sm_cuda_i8_expand(X.ny, R.ny, a->nf, R.nx, X.ptr, X.ld, a->sparse, R.ptr,
                                R.ld, starpu_cuda_get_local_stream()));
  sm_cl_check(buffers, cl_arg);
}

static void cuda_ccc2_i8(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  const char *name = a->sparse ? "sm_ccc2_i8_sparse" : "sm_ccc2_i8";
  void *scratch = sm_cl_cuda_scratch(
      sm_cuda_ccc2_i8_scratch(C.ny, C.nx, A.nx, a->sparse, A.ny, A.ld, B.ny, B.ld), name);
  SM_CUDA_RUN(name, sm_cuda_ccc2_i8(C.ny, C.nx, A.nx, A.ptr, A.ny, A.ld, B.ptr, B.ny,
                                    B.ld, a->sparse, C.ptr, C.ld, scratch,
                                    starpu_cuda_get_local_stream(),
                                    starpu_cublas_get_local_handle()));
  sm_cl_check(buffers, cl_arg);
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_ccc_i8(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const size_t rows = STARPU_MATRIX_GET_NY(buffers[0]),
               prows = STARPU_MATRIX_GET_NY(buffers[1]),
               kpad = STARPU_MATRIX_GET_NX(buffers[1]);
  sm_ocl_arg_t args[11] = {sm_ocl_int((long)rows), sm_ocl_int((long)prows),
                           sm_ocl_int((long)a->nf), sm_ocl_int((long)kpad)};
  int k = sm_ocl_matrix(args, 4, buffers[0], 8, 0, 1);
  args[k++] = sm_ocl_int(a->sparse);
  k = sm_ocl_matrix(args, k, buffers[1], 1, 0, 1);
  const size_t groups[2] = {sm_ocl_groups(kpad, SM_DEV_TX),
                            sm_ocl_groups(rows, SM_DEV_TY)};
  sm_ocl_run("sm_i8_expand", k, args, 2, groups);
  sm_cl_check(buffers, cl_arg);
}

/* sm_i8_gemm stands in for cuBLAS, on the plan cublasGemmEx would run
 * (sm_i8_gemm.h: G = R^T L over the padded rows, ld p.ldc); sm_i8_gather
 * is the GPUs' own */
static void ocl_ccc2_i8(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  if (C.ny == 0 || C.nx == 0) {
    sm_cl_check(buffers, cl_arg);
    return;
  }
  const char *name = a->sparse ? "sm_ccc2_i8_sparse" : "sm_ccc2_i8";
  sm_i8_gemm_t p;
  if (sm_i8_gemm_plan(&p, C.ny, C.nx, A.nx, a->sparse, A.ny, A.ld, B.ny, B.ld))
    STARPU_ABORT_MSG("codelet %s: no int8 GEMM within cuBLAS's rules for %zu x %zu pairs "
                     "of %zu-byte rows (sm_i8_gemm.h)",
                     name, C.ny, C.nx, A.nx);
  cl_mem G = sm_ocl_scratch(p.scratch_bytes, name);
  sm_ocl_arg_t args[11] = {sm_ocl_int(p.n), sm_ocl_int(p.m), sm_ocl_int(p.k)};
  int n = sm_ocl_matrix(args, 3, buffers[0], 1, 0, 1); /* L: ld p.ldb */
  n = sm_ocl_matrix(args, n, buffers[1], 1, 0, 1);     /* R: ld p.lda */
  args[n++] = sm_ocl_buf(G);
  args[n++] = sm_ocl_int(p.ldc);
  const size_t g1[2] = {sm_ocl_groups((size_t)p.m, SM_DEV_TX),
                        sm_ocl_groups((size_t)p.n, SM_DEV_TY)};
  sm_ocl_run("sm_i8_gemm", n, args, 2, g1);
  sm_ocl_arg_t gargs[9] = {sm_ocl_int((long)C.ny), sm_ocl_int((long)C.nx),
                           sm_ocl_int(a->sparse),  sm_ocl_buf(G),
                           sm_ocl_int(0),          sm_ocl_int(p.ldc)};
  n = sm_ocl_matrix(gargs, 6, buffers[2], 4, 0, 1);
  const size_t g2[2] = {sm_ocl_groups(C.nx, SM_DEV_TX), sm_ocl_groups(C.ny, SM_DEV_TY)};
  sm_ocl_run("sm_i8_gather", n, gargs, 2, g2);
  sm_ocl_release(G);
  sm_cl_check(buffers, cl_arg);
}
#endif

/* the work of a product: vector pairs (C's shape: the int8 tiles' rows
 * are padded) x fields, as for sm_ccc2 */
static double work_ccc2_i8(const struct starpu_task *t)
{
  const starpu_data_handle_t C = STARPU_TASK_GET_HANDLE(t, 2);
  return (double)starpu_matrix_get_ny(C) * (double)starpu_matrix_get_nx(C) *
         (double)((const sm_cl_num_t *)t->cl_arg)->nf;
}

SM_CODELET(ccc_i8, cpu_ccc_i8, SM_CL_CUDA(cuda_ccc_i8) SM_CL_OPENCL(ocl_ccc_i8), 2,
           STARPU_R, STARPU_W);
SM_CODELET(ccc2_i8, cpu_ccc2_i8, SM_CL_CUDA(cuda_ccc2_i8) SM_CL_OPENCL(ocl_ccc2_i8), 3,
           STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(ccc2_i8_sparse, cpu_ccc2_i8,
           SM_CL_CUDA(cuda_ccc2_i8) SM_CL_OPENCL(ocl_ccc2_i8), 3, STARPU_R, STARPU_R,
           STARPU_W);
SM_CL_WORK(ccc2_i8, work_ccc2_i8);
SM_CL_WORK(ccc2_i8_sparse, work_ccc2_i8);

void sm_ccc_i8_register(starpu_data_handle_t *h, size_t rows, size_t nf, int sparse)
{
  const size_t kpad = sm_ccc_i8_kpad(nf);
  starpu_matrix_data_register(h, -1, 0, kpad, kpad, sm_i8_gemm_rows(rows, sparse), 1);
}

int sm_task_ccc_i8(starpu_data_handle_t X, starpu_data_handle_t X8, int sparse, size_t nf,
                   uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(SM_VF_CCC_I8, nf, block);
  args.sparse = sparse;
  const starpu_data_handle_t h[2] = {X, X8};
  static const enum starpu_data_access_mode modes[2] = {STARPU_R, STARPU_W};
  return sm_cl_insert_num(&cl_ccc_i8, X8, &args, 2, h, modes, prio, "ccc_i8");
}

int sm_task_ccc2_i8(starpu_data_handle_t A8, starpu_data_handle_t B8,
                    starpu_data_handle_t C, int sparse, size_t nf, uint64_t block,
                    int prio)
{
  sm_cl_num_t args = sm_cl_num(SM_VF_CCC2_I8, nf, block);
  args.sparse = sparse;
  return sm_cl_insert_pair(sparse ? &cl_ccc2_i8_sparse : &cl_ccc2_i8, &args, A8, B8, C,
                           prio, "ccc2");
}

int sm_task_ccc2(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                 int sparse, size_t nf, const sm_band_t *band, uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(sparse ? SM_VF_CCC2_SPARSE : SM_VF_CCC2, nf, block);
  args.sparse = sparse;
  if (band)
    args.band = *band;
  return sm_cl_insert_pair(sparse ? &cl_ccc2_sparse : &cl_ccc2, &args, A, B, C, prio,
                           "ccc2");
}

/* ---- PLINK's r and r^2: beside the sparse moments, the homozygous-called
 * tally of each pair (sm_kern_ld_hom); CPU only, checked as the moments
 * are (sm_kern_abft_ld_hom). */
static void cpu_ld_hom(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2);
  if (sm_cl_ld_hom_tile(a, A, B, C))
    STARPU_ABORT_MSG("codelet ld_hom: out of memory for the planes of %zu x %zu "
                     "variants of %zu samples",
                     A.ny, B.ny, a->nf);
  sm_cl_check(buffers, cl_arg);
}

SM_CODELET(ld_hom, cpu_ld_hom, , 3, STARPU_R, STARPU_R, STARPU_W);
SM_CL_WORK(ld_hom, work_ccc2);

/* Both by one task (CPU only): one pass of the counters with AVX-512. */
static void cpu_ccc2_ld(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
  const sm_cl_mat_t A = sm_cl_mat(buffers, 0), B = sm_cl_mat(buffers, 1),
                    C = sm_cl_mat(buffers, 2), H = sm_cl_mat(buffers, 3);
  if (sm_cl_ccc2_ld_tile(a, A, B, C, H))
    STARPU_ABORT_MSG("codelet ccc2_ld: out of memory for the planes of %zu x %zu "
                     "vectors of %zu fields",
                     A.ny, B.ny, a->nf);
  sm_cl_check(buffers, cl_arg);
}

SM_CODELET(ccc2_ld, cpu_ccc2_ld, , 4, STARPU_R, STARPU_R, STARPU_W, STARPU_W);
SM_CL_WORK(ccc2_ld, work_ccc2);

int sm_task_ccc2_ld(starpu_data_handle_t A, starpu_data_handle_t B,
                    starpu_data_handle_t C, starpu_data_handle_t H, size_t nf,
                    const sm_band_t *band, uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(SM_VF_CCC2_LD, nf, block);
  args.sparse = 1;
  if (band)
    args.band = *band;
  const starpu_data_handle_t h[4] = {A, B, C, H};
  static const enum starpu_data_access_mode modes[4] = {STARPU_R, STARPU_R, STARPU_W,
                                                        STARPU_W};
  return sm_cl_insert_num(&cl_ccc2_ld, C, &args, 4, h, modes, prio, "ccc2");
}

int sm_task_ld_hom(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                   size_t nf, const sm_band_t *band, uint64_t block, int prio)
{
  sm_cl_num_t args = sm_cl_num(SM_VF_LD_HOM, nf, block);
  args.sparse = 1;
  if (band)
    args.band = *band;
  return sm_cl_insert_pair(&cl_ld_hom, &args, A, B, C, prio, "ld_hom");
}
