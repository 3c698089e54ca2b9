/* codelet_output.c: the output codelets: format a block's records as
 * text (any worker, blocks in parallel), and hand a block's records (and
 * text) to the output sink. A shared token handle accessed RW orders the
 * output tasks as they were submitted, so output files are
 * deterministic. */
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
  (void)a->sink(a->ctx, rb, NULL, a->block); /* the sink records its own errors */
}

static void cpu_output_text(void *buffers[], void *cl_arg)
{
  const output_args_t *a = cl_arg;
  const sm_recbuf_t *rb = (const sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[0]);
  const sm_textbuf_t *t = (const sm_textbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[1]);
  (void)a->sink(a->ctx, rb, t, a->block);
}

SM_CODELET(output, cpu_output, , 2, STARPU_R, STARPU_RW);
SM_CODELET(output_text, cpu_output_text, , 3, STARPU_R, STARPU_R, STARPU_RW);

int sm_task_output(starpu_data_handle_t R, starpu_data_handle_t T,
                   starpu_data_handle_t token, sm_sink_fn sink, void *ctx, uint64_t block,
                   int prio)
{
  output_args_t args = {.sink = sink, .ctx = ctx, .block = block};
  if (T)
    return SM_INSERT(&cl_output_text, STARPU_R, R, STARPU_R, T, STARPU_RW, token,
                     SM_CL_ARGS(token, args), STARPU_PRIORITY, prio, STARPU_NAME,
                     "output", 0);
  return SM_INSERT(&cl_output, STARPU_R, R, STARPU_RW, token, SM_CL_ARGS(token, args),
                   STARPU_PRIORITY, prio, STARPU_NAME, "output", 0);
}

typedef struct format_args {
  sm_format_fn format;
  void *ctx;
} format_args_t;

static void cpu_format(void *buffers[], void *cl_arg)
{
  const format_args_t *a = cl_arg;
  const sm_recbuf_t *rb = (const sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[0]);
  sm_textbuf_t *t = (sm_textbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[1]);
  a->format(a->ctx, rb, t);
}

SM_CODELET(format, cpu_format, , 2, STARPU_R, STARPU_W);

int sm_task_format(starpu_data_handle_t R, starpu_data_handle_t T, sm_format_fn format,
                   void *ctx, int prio)
{
  format_args_t args = {.format = format, .ctx = ctx};
  return SM_INSERT(&cl_format, STARPU_R, R, STARPU_W, T, SM_CL_ARGS(T, args),
                   STARPU_PRIORITY, prio, STARPU_NAME, "format", 0);
}
