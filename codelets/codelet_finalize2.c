/* codelet_finalize2.c: finalize codelets of a 2-way block: metric values,
 * threshold, checksum and histogram counts from numerators and vector sums
 * (with --top-k also the block's candidate neighbours), and the merge of
 * candidates into a tile's neighbour lists. */
#include "sm_cl_common.h"

static void cpu_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  sm_kern_finalize2(
      a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
      STARPU_MATRIX_GET_LD(buffers[0]), (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[2]),
      (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[3]),
      a->topk.k ? (sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[4]) : NULL);
}

SM_CODELET(finalize2, cpu_finalize2, , 4, STARPU_R, STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(finalize2_topk, cpu_finalize2, , 5, STARPU_R, STARPU_R, STARPU_R, STARPU_W,
           STARPU_W);

#ifdef SM_SIMULATION
void sm_cl_sim_gpu_finalize2(starpu_cpu_func_t f)
{
  cl_finalize2.cuda_funcs[0] = f;
  cl_finalize2_topk.cuda_funcs[0] = f;
}
#endif

int sm_task_finalize2(starpu_data_handle_t num, starpu_data_handle_t si,
                      starpu_data_handle_t sj, starpu_data_handle_t R,
                      starpu_data_handle_t cand, const sm_fin2_args_t *args, int prio)
{
  if (args->topk.k)
    return SM_INSERT(&cl_finalize2_topk, STARPU_R, num, STARPU_R, si, STARPU_R, sj,
                     STARPU_W, R, STARPU_W, cand, STARPU_CL_ARGS,
                     sm_cl_args_dup(R, args, sizeof *args), sizeof *args, STARPU_PRIORITY,
                     prio, STARPU_NAME, "finalize2", 0);
  return SM_INSERT(&cl_finalize2, STARPU_R, num, STARPU_R, si, STARPU_R, sj, STARPU_W, R,
                   STARPU_CL_ARGS, sm_cl_args_dup(R, args, sizeof *args), sizeof *args,
                   STARPU_PRIORITY, prio, STARPU_NAME, "finalize2", 0);
}

typedef struct topk_merge_args {
  uint64_t from; /* first candidate list merged */
  uint32_t n, k; /* lists merged, places per list */
} topk_merge_args_t;

static void cpu_topk_merge(void *buffers[], void *cl_arg)
{
  const topk_merge_args_t *a = cl_arg;
  sm_kern_topk_merge((sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[0]),
                     (const sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[1]) +
                         a->from * a->k,
                     a->n, a->k);
}

SM_CODELET(topk_merge, cpu_topk_merge, , 2, STARPU_RW, STARPU_R);

int sm_task_topk_merge(starpu_data_handle_t acc, starpu_data_handle_t cand, uint64_t from,
                       uint32_t n, uint32_t k, int prio)
{
  topk_merge_args_t args = {.from = from, .n = n, .k = k};
  return SM_INSERT(&cl_topk_merge, STARPU_RW, acc, STARPU_R, cand, SM_CL_ARGS(acc, args),
                   STARPU_PRIORITY, prio, STARPU_NAME, "topk_merge", 0);
}
