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

SM_CODELET(output, cpu_output, , 2, STARPU_R, STARPU_RW);

int sm_task_output(starpu_data_handle_t R, starpu_data_handle_t token, sm_sink_fn sink,
                   void *ctx, uint64_t block, int prio)
{
  output_args_t args = {.sink = sink, .ctx = ctx, .block = block};
  return SM_INSERT(&cl_output, STARPU_R, R, STARPU_RW, token, SM_CL_ARGS(token, args),
                   STARPU_PRIORITY, prio, STARPU_NAME, "output", 0);
}
