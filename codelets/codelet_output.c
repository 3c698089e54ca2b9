/* codelet_output.c: the output codelet: hands a block's records to the
 * output sink. A shared token handle accessed RW orders these tasks as
 * they were submitted, so output files are deterministic. */
#include "sm_cl_common.h"

typedef struct output_args {
  sm_sink_fn sink;
  void *ctx;
  uint64_t block;
} output_args_t;

static void cpu_output(void *buffers[], void *cl_arg)
{
  const output_args_t *a = cl_arg;
  const sm_recbuf_t *rb = (const sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[0]);
  (void)a->sink(a->ctx, rb, a->block); /* the sink records its own errors */
}

static struct starpu_perfmodel model_output = {.type = STARPU_HISTORY_BASED,
                                               .symbol = "sm_output"};

static struct starpu_codelet cl_output = {
    .name = "sm_output",
    .cpu_funcs = {cpu_output},
    .cpu_funcs_name = {"cpu_output"},
    .nbuffers = 2,
    .modes = {STARPU_R, STARPU_RW},
    .model = &model_output,
};

int sm_task_output(starpu_data_handle_t R, starpu_data_handle_t token,
                   sm_sink_fn sink, void *ctx, uint64_t block, int prio)
{
  output_args_t args = {.sink = sink, .ctx = ctx, .block = block};
  return SM_INSERT(&cl_output, STARPU_R, R, STARPU_RW, token, STARPU_CL_ARGS,
                   sm_cl_args_dup(&args, sizeof args), sizeof args,
                   STARPU_PRIORITY, prio, STARPU_NAME, "output", 0);
}
