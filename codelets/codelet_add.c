/* codelet_add.c: the field-axis reduction codelets: C += B elementwise on
 * partial numerators or sums of two field slices. Inserted in a fixed
 * order by the graph, so floating sums are reproducible run to run. */
#include "sm_cl_common.h"

static void add_rows(void *buffers[], int type)
{
  const size_t nx = STARPU_MATRIX_GET_NX(buffers[0]),
               ny = STARPU_MATRIX_GET_NY(buffers[0]);
  const size_t ldc = STARPU_MATRIX_GET_LD(buffers[0]),
               ldb = STARPU_MATRIX_GET_LD(buffers[1]);
  const size_t elem = STARPU_MATRIX_GET_ELEMSIZE(buffers[0]);
  char *c = (char *)STARPU_MATRIX_GET_PTR(buffers[0]);
  const char *b = (const char *)STARPU_MATRIX_GET_PTR(buffers[1]);
  for (size_t y = 0; y < ny; y++) {
    void *crow = c + y * ldc * elem;
    const void *brow = b + y * ldb * elem;
    if (type == SM_ADD_F64)
      sm_kern_add_f64(nx, brow, crow);
    else if (type == SM_ADD_F32)
      sm_kern_add_f32(nx, brow, crow);
    else /* moments and sums: elem / 4 uint32 per element */
      sm_kern_add_u32(nx * (elem / 4), brow, crow);
  }
}

static void cpu_add_f64(void *buffers[], void *cl_arg)
{
  add_rows(buffers, SM_ADD_F64);
}
static void cpu_add_f32(void *buffers[], void *cl_arg)
{
  add_rows(buffers, SM_ADD_F32);
}
static void cpu_add_u32(void *buffers[], void *cl_arg)
{
  add_rows(buffers, SM_ADD_U32);
}

SM_CODELET(add_f64, cpu_add_f64, , 2, STARPU_RW, STARPU_R);
SM_CODELET(add_f32, cpu_add_f32, , 2, STARPU_RW, STARPU_R);
SM_CODELET(add_u32, cpu_add_u32, , 2, STARPU_RW, STARPU_R);

int sm_task_add(starpu_data_handle_t C, starpu_data_handle_t B, int type, int prio)
{
  struct starpu_codelet *cl = type == SM_ADD_F64   ? &cl_add_f64
                              : type == SM_ADD_F32 ? &cl_add_f32
                                                   : &cl_add_u32;
  return SM_INSERT(cl, STARPU_RW, C, STARPU_R, B, STARPU_PRIORITY, prio, STARPU_NAME,
                   "add", 0);
}
