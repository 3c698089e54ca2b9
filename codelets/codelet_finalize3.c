/* codelet_finalize3.c: finalize codelet of a 3-way piece: metric values,
 * threshold and checksum from plane numerators, 2-way numerators and sums. */
#include "sm_cl_common.h"

static void cpu_finalize3(void *buffers[], void *cl_arg)
{
  const sm_fin3_args_t *a = cl_arg;
  sm_kern_finalize3(
      a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[1]), STARPU_MATRIX_GET_LD(buffers[1]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[2]), STARPU_MATRIX_GET_LD(buffers[2]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[3]), STARPU_MATRIX_GET_LD(buffers[3]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[4]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[5]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[6]),
      (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[7]));
}

/* Pieces of one buffer size keep very different shares of their tile
 * triple: all of it, half when X and Y are one tile, down to a sixth on
 * the diagonal, depending on where the planes lie in tile X. Without that
 * class in the footprint StarPU's history mixes their times (and, on runs
 * without STARPU_SILENT, flushes it with a warning per task). */
static uint32_t finalize3_footprint(struct starpu_task *t)
{
  const sm_fin3_args_t *a = t->cl_arg;
  if (!a)
    return starpu_task_data_footprint(t);
  const sm_keep3_t k = {a->kind, a->a_glob, a->x0, a->y0};
  return sm_cl_keep3_footprint(t, &k, a->mx);
}

SM_CODELET(finalize3, cpu_finalize3, , 8, STARPU_R, STARPU_R, STARPU_R, STARPU_R,
           STARPU_R, STARPU_R, STARPU_R, STARPU_W);

void sm_cl_finalize3_setup(void)
{
  model_finalize3.footprint = finalize3_footprint;
}

#ifdef SM_SIMULATION
void sm_cl_sim_gpu_finalize3(starpu_cpu_func_t f)
{
  cl_finalize3.cuda_funcs[0] = f;
}
#endif

int sm_task_finalize3(starpu_data_handle_t num3, starpu_data_handle_t n2ax,
                      starpu_data_handle_t n2ay, starpu_data_handle_t n2xy,
                      starpu_data_handle_t sa, starpu_data_handle_t sx,
                      starpu_data_handle_t sy, starpu_data_handle_t R,
                      const sm_fin3_args_t *args, int prio)
{
  return SM_INSERT(&cl_finalize3, STARPU_R, num3, STARPU_R, n2ax, STARPU_R, n2ay,
                   STARPU_R, n2xy, STARPU_R, sa, STARPU_R, sx, STARPU_R, sy, STARPU_W, R,
                   STARPU_CL_ARGS, sm_cl_args_dup(R, args, sizeof *args), sizeof *args,
                   STARPU_PRIORITY, prio, STARPU_NAME, "finalize3", 0);
}
