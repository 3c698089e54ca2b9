/* codelet_sums.c: denominator codelets: per-vector sums of a tile
 * (czekanowski s_i; ccc allele-1 count and counted entries). */
#include "sm_cl_common.h"

typedef struct sums_args {
  size_t nf;
  int sparse;
} sums_args_t;

static void cpu_sums_czek_d(void *buffers[], void *cl_arg)
{
  const sums_args_t *a = cl_arg;
  sm_kern_sums_czek_d(STARPU_MATRIX_GET_NY(buffers[0]), a->nf,
                      (const double *)STARPU_MATRIX_GET_PTR(buffers[0]),
                      STARPU_MATRIX_GET_LD(buffers[0]),
                      (double *)STARPU_MATRIX_GET_PTR(buffers[1]));
}

static void cpu_sums_czek_s(void *buffers[], void *cl_arg)
{
  const sums_args_t *a = cl_arg;
  sm_kern_sums_czek_s(STARPU_MATRIX_GET_NY(buffers[0]), a->nf,
                      (const float *)STARPU_MATRIX_GET_PTR(buffers[0]),
                      STARPU_MATRIX_GET_LD(buffers[0]),
                      (float *)STARPU_MATRIX_GET_PTR(buffers[1]));
}

static void cpu_sums_ccc(void *buffers[], void *cl_arg)
{
  const sums_args_t *a = cl_arg;
  sm_kern_sums_ccc(STARPU_MATRIX_GET_NY(buffers[0]), a->nf,
                   (const uint64_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
                   STARPU_MATRIX_GET_LD(buffers[0]), a->sparse,
                   (uint32_t *)STARPU_MATRIX_GET_PTR(buffers[1]));
}

static struct starpu_perfmodel model_sums_czek_d = {.type = STARPU_HISTORY_BASED,
                                                    .symbol = "sm_sums_czek_d"};
static struct starpu_perfmodel model_sums_czek_s = {.type = STARPU_HISTORY_BASED,
                                                    .symbol = "sm_sums_czek_s"};
static struct starpu_perfmodel model_sums_ccc = {.type = STARPU_HISTORY_BASED,
                                                 .symbol = "sm_sums_ccc"};

static struct starpu_codelet cl_sums_czek_d = {
    .name = "sm_sums_czek_d",
    .cpu_funcs = {cpu_sums_czek_d},
    .cpu_funcs_name = {"cpu_sums_czek_d"},
    .nbuffers = 2,
    .modes = {STARPU_R, STARPU_W},
    .model = &model_sums_czek_d,
};
static struct starpu_codelet cl_sums_czek_s = {
    .name = "sm_sums_czek_s",
    .cpu_funcs = {cpu_sums_czek_s},
    .cpu_funcs_name = {"cpu_sums_czek_s"},
    .nbuffers = 2,
    .modes = {STARPU_R, STARPU_W},
    .model = &model_sums_czek_s,
};
static struct starpu_codelet cl_sums_ccc = {
    .name = "sm_sums_ccc",
    .cpu_funcs = {cpu_sums_ccc},
    .cpu_funcs_name = {"cpu_sums_ccc"},
    .nbuffers = 2,
    .modes = {STARPU_R, STARPU_W},
    .model = &model_sums_ccc,
};

int sm_task_sums_czek(starpu_data_handle_t X, starpu_data_handle_t S, int single,
                      size_t nf, int prio)
{
  sums_args_t args = {.nf = nf};
  return SM_INSERT(single ? &cl_sums_czek_s : &cl_sums_czek_d, STARPU_R, X,
                   STARPU_W, S, STARPU_CL_ARGS, sm_cl_args_dup(&args, sizeof args),
                   sizeof args, STARPU_PRIORITY, prio, STARPU_NAME, "sums", 0);
}

int sm_task_sums_ccc(starpu_data_handle_t X, starpu_data_handle_t S, int sparse,
                     size_t nf, int prio)
{
  sums_args_t args = {.nf = nf, .sparse = sparse};
  return SM_INSERT(&cl_sums_ccc, STARPU_R, X, STARPU_W, S, STARPU_CL_ARGS,
                   sm_cl_args_dup(&args, sizeof args), sizeof args,
                   STARPU_PRIORITY, prio, STARPU_NAME, "sums", 0);
}
