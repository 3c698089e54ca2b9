/* sm_cl_model.c: what the performance models and the simulation's cost
 * model see of a task: the footprint class of a 3-way task, and the work
 * of a task (element comparisons where its codelet says, SM_CL_WORK;
 * the bytes of its buffers otherwise). */
#include "sm_cl_common.h"

/* Pieces of one buffer size keep very different shares of their tile
 * triple: all of it, half when X and Y are one tile, down to a sixth on
 * the diagonal, depending on where the planes lie in tile X. Without that
 * class in the footprint StarPU's history mixes their times (and, on runs
 * without STARPU_SILENT, flushes it with a warning per task). */
uint32_t sm_cl_keep3_footprint(struct starpu_task *t, const sm_keep3_t *k, uint32_t mx)
{
  const uint32_t h = starpu_task_data_footprint(t);
  const uint32_t xy = k->x0 == k->y0, ax = k->a0 >= k->x0 && k->a0 < k->x0 + mx;
  const uint32_t where = ax ? 4 * (k->a0 - k->x0) / mx : 0;
  return starpu_hash_crc32c_be(k->kind | xy << 2 | ax << 3 | where << 4, h);
}

/* weak: a program without the numerator codelets has no such section */
extern const sm_cl_work_entry_t __start_sm_cl_work[] __attribute__((weak));
extern const sm_cl_work_entry_t __stop_sm_cl_work[] __attribute__((weak));

double sm_cl_work_2way(const struct starpu_task *t, size_t nf)
{
  return (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 0)) *
         (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 1)) * (double)nf;
}

double sm_cl_work_3way(const struct starpu_task *t, size_t g, size_t nf)
{
  return (double)g * (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 1)) *
         (double)starpu_matrix_get_ny(STARPU_TASK_GET_HANDLE(t, 2)) * (double)nf;
}

double sm_cl_work(const struct starpu_task *t)
{
  if (!t || !t->cl)
    return 0;
  for (const sm_cl_work_entry_t *e = __start_sm_cl_work; e < __stop_sm_cl_work; e++)
    if (e->cl == t->cl)
      return t->cl_arg ? e->work(t) : 0;
  double bytes = 0;
  const unsigned n = STARPU_TASK_GET_NBUFFERS(t);
  for (unsigned k = 0; k < n; k++)
    bytes += (double)starpu_data_get_size(STARPU_TASK_GET_HANDLE(t, k));
  return bytes;
}
