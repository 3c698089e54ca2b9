/* codelet_czek3.c: Czekanowski 3-way plane codelets (single and double): a
 * group of planes of tile A against tiles X and Y; CPU adapters, models and
 * insert function. */
#include "sm_cl_common.h"
#include "sm_opencl.h"
#ifdef SM_USE_CUDA
#include "cuda/sm_kern_cuda.h"
#endif

typedef struct czek3_args {
  size_t nf, a_off, g;
} czek3_args_t;

#define SM_CZEK3_CPU(T, SFX)                                                   \
  static void cpu_czek3_##SFX(void *buffers[], void *cl_arg)                   \
  {                                                                            \
    const czek3_args_t *a = cl_arg;                                            \
    const size_t lda = STARPU_MATRIX_GET_LD(buffers[0]);                       \
    const T *P = (const T *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->a_off * lda; \
    const T *X = (const T *)STARPU_MATRIX_GET_PTR(buffers[1]);                 \
    const T *Y = (const T *)STARPU_MATRIX_GET_PTR(buffers[2]);                 \
    T *out = (T *)STARPU_MATRIX_GET_PTR(buffers[3]);                           \
    size_t mx = STARPU_MATRIX_GET_NY(buffers[1]), my = STARPU_MATRIX_GET_NY(buffers[2]); \
    (sm_cl_kernel == SM_KERNEL_REF ? sm_kern_czek3_ref_##SFX                   \
                                   : sm_kern_czek3_blocked_##SFX)(             \
        a->g, mx, my, a->nf, P, lda, X, STARPU_MATRIX_GET_LD(buffers[1]), Y,   \
        STARPU_MATRIX_GET_LD(buffers[2]), out);                                \
  }
SM_CZEK3_CPU(double, d)
SM_CZEK3_CPU(float, s)

#ifdef STARPU_USE_OPENCL
static void ocl_czek3(void *buffers[], void *cl_arg, int single)
{
  const czek3_args_t *a = cl_arg;
  const size_t es = single ? 4 : 8;
  int op, ox, oy, oo;
  sm_ocl_arg_t args[15];
  args[4] = sm_ocl_mem(buffers[0], es, &op);
  args[7] = sm_ocl_mem(buffers[1], es, &ox);
  args[10] = sm_ocl_mem(buffers[2], es, &oy);
  args[13] = sm_ocl_mem(buffers[3], es, &oo);
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
  args[14] = sm_ocl_int(oo);
  const size_t global[3] = {my, mx, a->g}, local[3] = {8, 8, 1};
  sm_ocl_run(single ? "sm_czek3_s" : "sm_czek3_d", 15, args, 3, global, local);
}
static void ocl_czek3_d(void *buffers[], void *cl_arg) { ocl_czek3(buffers, cl_arg, 0); }
static void ocl_czek3_s(void *buffers[], void *cl_arg) { ocl_czek3(buffers, cl_arg, 1); }
#endif

#ifdef SM_USE_CUDA
static void cuda_czek3_d(void *buffers[], void *cl_arg)
{
  const czek3_args_t *a = cl_arg;
  const size_t lda = STARPU_MATRIX_GET_LD(buffers[0]);
  sm_cuda_czek3_d(a->g, STARPU_MATRIX_GET_NY(buffers[1]), STARPU_MATRIX_GET_NY(buffers[2]),
                  a->nf, (const double *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->a_off * lda,
                  lda, (const double *)STARPU_MATRIX_GET_PTR(buffers[1]),
                  STARPU_MATRIX_GET_LD(buffers[1]),
                  (const double *)STARPU_MATRIX_GET_PTR(buffers[2]),
                  STARPU_MATRIX_GET_LD(buffers[2]), (double *)STARPU_MATRIX_GET_PTR(buffers[3]),
                  starpu_cuda_get_local_stream());
}
static void cuda_czek3_s(void *buffers[], void *cl_arg)
{
  const czek3_args_t *a = cl_arg;
  const size_t lda = STARPU_MATRIX_GET_LD(buffers[0]);
  sm_cuda_czek3_s(a->g, STARPU_MATRIX_GET_NY(buffers[1]), STARPU_MATRIX_GET_NY(buffers[2]),
                  a->nf, (const float *)STARPU_MATRIX_GET_PTR(buffers[0]) + a->a_off * lda,
                  lda, (const float *)STARPU_MATRIX_GET_PTR(buffers[1]),
                  STARPU_MATRIX_GET_LD(buffers[1]),
                  (const float *)STARPU_MATRIX_GET_PTR(buffers[2]),
                  STARPU_MATRIX_GET_LD(buffers[2]), (float *)STARPU_MATRIX_GET_PTR(buffers[3]),
                  starpu_cuda_get_local_stream());
}
#endif

static struct starpu_perfmodel model_czek3_d = {.type = STARPU_HISTORY_BASED,
                                                .symbol = "sm_czek3_d"};
static struct starpu_perfmodel model_czek3_s = {.type = STARPU_HISTORY_BASED,
                                                .symbol = "sm_czek3_s"};

static struct starpu_codelet cl_czek3_d = {
    .name = "sm_czek3_d",
#ifdef SM_USE_CUDA
    .cuda_funcs = {cuda_czek3_d},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_czek3_d},
#endif
    .cpu_funcs = {cpu_czek3_d},
    .cpu_funcs_name = {"cpu_czek3_d"},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &model_czek3_d,
};
static struct starpu_codelet cl_czek3_s = {
    .name = "sm_czek3_s",
#ifdef SM_USE_CUDA
    .cuda_funcs = {cuda_czek3_s},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
#ifdef STARPU_USE_OPENCL
    .opencl_funcs = {ocl_czek3_s},
#endif
    .cpu_funcs = {cpu_czek3_s},
    .cpu_funcs_name = {"cpu_czek3_s"},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &model_czek3_s,
};

int sm_task_czek3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                  starpu_data_handle_t Y, starpu_data_handle_t N3, int single, size_t nf,
                  int prio)
{
  czek3_args_t args = {.nf = nf, .a_off = a_off, .g = g};
  return SM_INSERT(single ? &cl_czek3_s : &cl_czek3_d, STARPU_R, A, STARPU_R, X, STARPU_R,
                   Y, STARPU_W, N3, STARPU_CL_ARGS, sm_cl_args_dup(&args, sizeof args),
                   sizeof args, STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, sm_cl_num_where, STARPU_NAME, "czek3", 0);
}
