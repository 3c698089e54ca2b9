/* sm_opencl.h: the OpenCL side of the codelets: the program built once at
 * start-up from codelets/opencl/sm_kernels.cl, and a helper that runs one
 * of its kernels on the calling OpenCL worker's device. */
#ifndef SM_OPENCL_H
#define SM_OPENCL_H

#include <starpu.h>

#ifdef STARPU_USE_OPENCL
#include <starpu_opencl.h>

/* One kernel argument: a device buffer with its byte offset turned into an
 * element offset (size of the element), or a plain int. */
typedef struct sm_ocl_arg {
  int is_mem;
  cl_mem mem;
  int ival;
} sm_ocl_arg_t;

static inline sm_ocl_arg_t sm_ocl_mem(void *buffer_interface, size_t elem, int *offset)
{
  struct starpu_matrix_interface *m = buffer_interface;
  sm_ocl_arg_t a = {.is_mem = 1, .mem = (cl_mem)m->dev_handle};
  *offset = (int)(m->offset / elem);
  return a;
}
static inline sm_ocl_arg_t sm_ocl_int(long v)
{
  sm_ocl_arg_t a = {.is_mem = 0, .ival = (int)v};
  return a;
}

/** Run kernel `name` with the arguments on an NDRange of `dims` dimensions
 * (global sizes rounded up to the local sizes), and wait for it. */
void sm_ocl_run(const char *name, int nargs, const sm_ocl_arg_t *args, int dims,
                const size_t *global, const size_t *local);
#endif

/** Build the program when OpenCL workers exist (after starpu_init). */
int sm_opencl_init(void);
/** Release it (before starpu_shutdown). */
void sm_opencl_shutdown(void);

#endif
