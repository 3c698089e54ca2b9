/* codelet_safem.c: the SFS EM codelet: one E-step over a block of sites
 * (posterior sums, log-likelihood, per-site allele frequency); CPU adapter,
 * performance model and insert function. */
#include "sm_cl_common.h"
#include "sm_codelets_saf.h"

typedef struct safem_args {
  int convert;
} safem_args_t;

static void cpu_safem(void *buffers[], void *cl_arg)
{
  const safem_args_t *a = cl_arg;
  const size_t nbins = STARPU_MATRIX_GET_NX(buffers[0]);
  double *part = (double *)STARPU_VECTOR_GET_PTR(buffers[3]);
  sm_kern_safem(STARPU_MATRIX_GET_NY(buffers[0]), nbins,
                (double *)STARPU_MATRIX_GET_PTR(buffers[0]),
                STARPU_MATRIX_GET_LD(buffers[0]),
                (const sm_saf_site_t *)STARPU_VECTOR_GET_PTR(buffers[1]), a->convert,
                (const double *)STARPU_VECTOR_GET_PTR(buffers[2]), part, part + nbins,
                (double *)STARPU_VECTOR_GET_PTR(buffers[4]));
}

SM_CODELET(safem, cpu_safem, , 5, STARPU_RW, STARPU_R, STARPU_R, STARPU_W, STARPU_W);

int sm_task_safem(starpu_data_handle_t L, starpu_data_handle_t INFO,
                  starpu_data_handle_t PHI, starpu_data_handle_t PART,
                  starpu_data_handle_t MAF, int convert, int prio)
{
  safem_args_t args = {.convert = convert};
  return SM_INSERT(&cl_safem, STARPU_RW, L, STARPU_R, INFO, STARPU_R, PHI, STARPU_W, PART,
                   STARPU_W, MAF, SM_CL_ARGS(L, args), STARPU_PRIORITY, prio, STARPU_NAME,
                   "safem", 0);
}
