/* codelet_add.c: the field-axis reduction codelets: C += B elementwise on
 * partial numerators or sums of two field slices. Inserted in a fixed
 * order by the graph, so floating sums are reproducible run to run. */
#include "sm_cl_common.h"
#include "sm_opencl.h"

/* DEV_add_f64/_f32/_u32: the codelet functions of one device, on FN */
#define SM_ADD_TYPES(DEV, FN)                                                            \
  static void DEV##_add_f64(void *buffers[], void *cl_arg)                               \
  {                                                                                      \
    (void)cl_arg;                                                                        \
    FN(buffers, SM_ADD_F64);                                                             \
  }                                                                                      \
  static void DEV##_add_f32(void *buffers[], void *cl_arg)                               \
  {                                                                                      \
    (void)cl_arg;                                                                        \
    FN(buffers, SM_ADD_F32);                                                             \
  }                                                                                      \
  static void DEV##_add_u32(void *buffers[], void *cl_arg)                               \
  {                                                                                      \
    (void)cl_arg;                                                                        \
    FN(buffers, SM_ADD_U32);                                                             \
  }

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

SM_ADD_TYPES(cpu, add_rows)

/* The device kernels (sm_add_f64/_f32/_u32 of codelets/device) see a
 * buffer as rows of nx elements of their type: moments (elem bytes of
 * uint32) are elem / 4 of them per element. */
#if defined(SM_USE_CUDA) || defined(STARPU_USE_OPENCL)
static size_t per_elem(void *buffers[], int type)
{
  return type == SM_ADD_U32 ? STARPU_MATRIX_GET_ELEMSIZE(buffers[0]) / 4 : 1;
}
#endif

#ifdef SM_USE_CUDA
static void cuda_add(void *buffers[], int type)
{
  const size_t k = per_elem(buffers, type);
  SM_CUDA_RUN("sm_add", sm_cuda_add(type, STARPU_MATRIX_GET_NX(buffers[0]) * k,
                                    STARPU_MATRIX_GET_NY(buffers[0]),
                                    (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                                    STARPU_MATRIX_GET_LD(buffers[0]) * k,
                                    (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
                                    STARPU_MATRIX_GET_LD(buffers[1]) * k,
                                    starpu_cuda_get_local_stream()));
}
SM_ADD_TYPES(cuda, cuda_add)
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_add(void *buffers[], int type)
{
  static const char *const kernel[] = {"sm_add_f64", "sm_add_f32", "sm_add_u32"};
  static const size_t size[] = {8, 4, 4};
  const size_t k = per_elem(buffers, type), nx = STARPU_MATRIX_GET_NX(buffers[0]) * k,
               ny = STARPU_MATRIX_GET_NY(buffers[0]);
  if (nx == 0 || ny == 0)
    return;
  sm_ocl_arg_t args[8] = {sm_ocl_int((long)nx), sm_ocl_int((long)ny)};
  int n = 2;
  for (int b = 0; b < 2; b++) { /* the buffer, its offset and ld in kernel elements */
    int off;
    args[n++] = sm_ocl_mem(buffers[b], size[type], &off);
    args[n++] = sm_ocl_int(off);
    args[n++] = sm_ocl_int((long)(STARPU_MATRIX_GET_LD(buffers[b]) * k));
  }
  const size_t groups[2] = {sm_ocl_groups(nx, SM_DEV_TX), sm_ocl_groups(ny, SM_DEV_TY)};
  sm_ocl_run(kernel[type], n, args, 2, groups);
}
SM_ADD_TYPES(ocl, ocl_add)
#endif

SM_CODELET(add_f64, cpu_add_f64, SM_CL_CUDA(cuda_add_f64) SM_CL_OPENCL(ocl_add_f64), 2,
           STARPU_RW, STARPU_R);
SM_CODELET(add_f32, cpu_add_f32, SM_CL_CUDA(cuda_add_f32) SM_CL_OPENCL(ocl_add_f32), 2,
           STARPU_RW, STARPU_R);
SM_CODELET(add_u32, cpu_add_u32, SM_CL_CUDA(cuda_add_u32) SM_CL_OPENCL(ocl_add_u32), 2,
           STARPU_RW, STARPU_R);

int sm_task_add(starpu_data_handle_t C, starpu_data_handle_t B, int type, int numerators,
                int prio)
{
  struct starpu_codelet *cl = type == SM_ADD_F64   ? &cl_add_f64
                              : type == SM_ADD_F32 ? &cl_add_f32
                                                   : &cl_add_u32;
  /* numerators are summed where --devices puts the products (on a GPU
   * they stay there); the vector sums, which CPU tasks make and read,
   * anywhere */
  return SM_INSERT(cl, STARPU_RW, C, STARPU_R, B, STARPU_PRIORITY, prio,
                   STARPU_EXECUTE_WHERE, numerators ? sm_cl_end_where : STARPU_CPU,
                   STARPU_NAME, "add", 0);
}
