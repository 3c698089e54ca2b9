/* codelet_czek2_sparse.c: the sparse Czekanowski 2-way numerator codelets
 * (single and double) on packed tiles (sm_csr.h, variable handles), their
 * CPU adapters, performance models and insert function. CPU only: each
 * entry of a row scatters into the row of C at the columns of the other
 * tile's field list, an irregular, memory-bound scatter that GPUs and
 * OpenCL devices do poorly without atomics or a per-row sort, and this
 * machine has no GPU to measure one on; a device runs the dense codelet
 * (--czek-method dense). */
#include "sm_cl_common.h"
#include "sm_cl_families.h"

#define SM_CZEK2_SPARSE_CPU(SFX, T)                                                      \
  static void cpu_czek2_sparse_##SFX(void *buffers[], void *cl_arg)                      \
  {                                                                                      \
    const void *A = (const void *)STARPU_VARIABLE_GET_PTR(buffers[0]);                   \
    const void *B = (const void *)STARPU_VARIABLE_GET_PTR(buffers[1]);                   \
    const sm_cl_mat_t C = sm_cl_mat(buffers, 2);                                         \
    sm_kern_czek2_sparse_##SFX(A, B, (T *)C.ptr, C.ld);                                  \
    sm_cl_check(buffers, cl_arg);                                                        \
  }
SM_CZEK2_SPARSE_CPU(d, double)
SM_CZEK2_SPARSE_CPU(s, float)

SM_CODELET(czek2_sparse_d, cpu_czek2_sparse_d, , 3, STARPU_R, STARPU_R, STARPU_W);
SM_CODELET(czek2_sparse_s, cpu_czek2_sparse_s, , 3, STARPU_R, STARPU_R, STARPU_W);

/* History models are keyed on a footprint of the data: the packed
 * tiles' sizes follow their non-zero entries, so that every tile pair
 * would be a size of its own, never calibrated; the numerators' shape
 * (the tile pair's vectors, m x n) keys them instead. */
static uint32_t czek2_sparse_footprint(struct starpu_task *t)
{
  starpu_data_handle_t C = STARPU_TASK_GET_HANDLE(t, 2);
  return starpu_hash_crc32c_be((uint32_t)starpu_matrix_get_nx(C),
                               (uint32_t)starpu_matrix_get_ny(C));
}

void sm_cl_czek2_sparse_setup(void)
{
  model_czek2_sparse_d.footprint = czek2_sparse_footprint;
  model_czek2_sparse_s.footprint = czek2_sparse_footprint;
}

int sm_task_czek2_sparse(starpu_data_handle_t A, starpu_data_handle_t B,
                         starpu_data_handle_t C, int single, size_t nf, uint64_t block,
                         int prio)
{
  sm_cl_num_t args =
      sm_cl_num(single ? SM_VF_CZEK2_SPARSE_S : SM_VF_CZEK2_SPARSE_D, nf, block);
  args.single = single;
  return sm_cl_insert_pair(single ? &cl_czek2_sparse_s : &cl_czek2_sparse_d, &args, A, B,
                           C, prio, "czek2_sparse");
}
