/* codelet_sums.c: denominator codelets: per-vector sums of a tile
 * (czekanowski s_i; ccc allele-1 count and counted entries). */
#include "sm_cl_common.h"
#include "sm_cl_families.h"

typedef struct sums_args {
  size_t nf;
  int sparse;
} sums_args_t;

/* The CPU adapter of one Czekanowski precision (SFX d or s). */
#define SM_SUMS_CZEK_CPU(SFX)                                                            \
  static void cpu_sums_czek_##SFX(void *buffers[], void *cl_arg)                         \
  {                                                                                      \
    const sums_args_t *a = cl_arg;                                                       \
    const sm_cl_mat_t X = sm_cl_mat(buffers, 0), S = sm_cl_mat(buffers, 1);              \
    sm_kern_sums_czek_##SFX(X.ny, a->nf, X.ptr, X.ld, S.ptr);                            \
  }
SM_SUMS_CZEK_CPU(d)
SM_SUMS_CZEK_CPU(s)

/* The same from a packed sparse tile (sm_csr.h, a variable handle). */
#define SM_SUMS_CZEK_SPARSE_CPU(SFX)                                                     \
  static void cpu_sums_czek_sparse_##SFX(void *buffers[], void *cl_arg)                  \
  {                                                                                      \
    (void)cl_arg;                                                                        \
    const sm_cl_mat_t S = sm_cl_mat(buffers, 1);                                         \
    sm_kern_sums_czek_sparse_##SFX((const void *)STARPU_VARIABLE_GET_PTR(buffers[0]),    \
                                   S.ptr);                                               \
  }
SM_SUMS_CZEK_SPARSE_CPU(d)
SM_SUMS_CZEK_SPARSE_CPU(s)

static void cpu_sums_ccc(void *buffers[], void *cl_arg)
{
  const sums_args_t *a = cl_arg;
  const sm_cl_mat_t X = sm_cl_mat(buffers, 0), S = sm_cl_mat(buffers, 1);
  sm_kern_sums_ccc(X.ny, a->nf, X.ptr, X.ld, a->sparse, S.ptr);
}

SM_CODELET(sums_czek_d, cpu_sums_czek_d, , 2, STARPU_R, STARPU_W);
SM_CODELET(sums_czek_s, cpu_sums_czek_s, , 2, STARPU_R, STARPU_W);
SM_CODELET(sums_czek_sparse_d, cpu_sums_czek_sparse_d, , 2, STARPU_R, STARPU_W);
SM_CODELET(sums_czek_sparse_s, cpu_sums_czek_sparse_s, , 2, STARPU_R, STARPU_W);
SM_CODELET(sums_ccc, cpu_sums_ccc, , 2, STARPU_R, STARPU_W);

int sm_task_sums_czek(starpu_data_handle_t X, starpu_data_handle_t S, int single,
                      size_t nf, int prio)
{
  sums_args_t args = {.nf = nf};
  return SM_INSERT(single ? &cl_sums_czek_s : &cl_sums_czek_d, STARPU_R, X, STARPU_W, S,
                   SM_CL_ARGS(S, args), STARPU_PRIORITY, prio, STARPU_NAME, "sums", 0);
}

int sm_task_sums_ccc(starpu_data_handle_t X, starpu_data_handle_t S, int sparse,
                     size_t nf, int prio)
{
  sums_args_t args = {.nf = nf, .sparse = sparse};
  return SM_INSERT(&cl_sums_ccc, STARPU_R, X, STARPU_W, S, SM_CL_ARGS(S, args),
                   STARPU_PRIORITY, prio, STARPU_NAME, "sums", 0);
}

/* The sums of a packed tile by its vectors (the sums' handle), not by its
 * packed size (codelet_czek2_sparse.c says why). */
static uint32_t sums_sparse_footprint(struct starpu_task *t)
{
  return starpu_hash_crc32c_be(
      (uint32_t)starpu_matrix_get_nx(STARPU_TASK_GET_HANDLE(t, 1)), 0);
}

void sm_cl_sums_sparse_setup(void)
{
  model_sums_czek_sparse_d.footprint = sums_sparse_footprint;
  model_sums_czek_sparse_s.footprint = sums_sparse_footprint;
}

int sm_task_sums_czek_sparse(starpu_data_handle_t X, starpu_data_handle_t S, int single,
                             int prio)
{
  return SM_INSERT(single ? &cl_sums_czek_sparse_s : &cl_sums_czek_sparse_d, STARPU_R, X,
                   STARPU_W, S, STARPU_PRIORITY, prio, STARPU_NAME, "sums", 0);
}
