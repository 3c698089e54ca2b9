/* codelet_czek3.c: Czekanowski 3-way plane codelets (single and double): a
 * group of planes of tile A against tiles X and Y; CPU adapters, models and
 * insert function. */
#include "sm_cl_common.h"

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

static struct starpu_perfmodel model_czek3_d = {.type = STARPU_HISTORY_BASED,
                                                .symbol = "sm_czek3_d"};
static struct starpu_perfmodel model_czek3_s = {.type = STARPU_HISTORY_BASED,
                                                .symbol = "sm_czek3_s"};

static struct starpu_codelet cl_czek3_d = {
    .name = "sm_czek3_d",
    .cpu_funcs = {cpu_czek3_d},
    .cpu_funcs_name = {"cpu_czek3_d"},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &model_czek3_d,
};
static struct starpu_codelet cl_czek3_s = {
    .name = "sm_czek3_s",
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
                   sizeof args, STARPU_PRIORITY, prio, STARPU_NAME, "czek3", 0);
}
