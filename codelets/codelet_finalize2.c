/* codelet_finalize2.c: finalize codelet of a 2-way block: metric values,
 * threshold and checksum, from numerators and vector sums. */
#include "sm_cl_common.h"

static void cpu_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  sm_kern_finalize2(a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                    STARPU_MATRIX_GET_LD(buffers[0]),
                    (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
                    (const void *)STARPU_MATRIX_GET_PTR(buffers[2]),
                    (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[3]));
}

SM_CODELET(finalize2, cpu_finalize2, , 4, STARPU_R, STARPU_R, STARPU_R, STARPU_W);

int sm_task_finalize2(starpu_data_handle_t num, starpu_data_handle_t si,
                      starpu_data_handle_t sj, starpu_data_handle_t R,
                      const sm_fin2_args_t *args, int prio)
{
  return SM_INSERT(&cl_finalize2, STARPU_R, num, STARPU_R, si, STARPU_R, sj, STARPU_W, R,
                   STARPU_CL_ARGS, sm_cl_args_dup(R, args, sizeof *args), sizeof *args,
                   STARPU_PRIORITY, prio, STARPU_NAME, "finalize2", 0);
}
