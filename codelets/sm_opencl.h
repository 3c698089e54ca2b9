/* sm_opencl.h: the OpenCL side of the codelets: the program built once at
 * start-up from codelets/device/ (sm_dev_kernels.h), and a helper that runs one
 * of its kernels on the calling OpenCL worker's device. */
#ifndef SM_OPENCL_H
#define SM_OPENCL_H

#include <starpu.h>

#include "device/sm_dev.h"
#include "sm_kern.h" /* sm_keep3_t */

#ifdef STARPU_USE_OPENCL
#include <starpu_opencl.h>

/* One kernel argument: a device buffer with its byte offset turned into an
 * element offset (size of the element), or a plain int. */
typedef struct sm_ocl_arg {
  int is_mem; /* 1: mem, 0: ival, 2: dval */
  cl_mem mem;
  int ival;
  double dval;
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
static inline sm_ocl_arg_t sm_ocl_dbl(double v)
{
  sm_ocl_arg_t a = {.is_mem = 2, .dval = v};
  return a;
}
static inline sm_ocl_arg_t sm_ocl_buf(cl_mem m)
{
  sm_ocl_arg_t a = {.is_mem = 1, .mem = m};
  return a;
}

/* Append the arguments of matrix buffer (elem-byte elements) at args[n]:
 * the buffer, the element offset of its row `row`, and its ld when with_ld.
 * Returns the next free index. */
static inline int sm_ocl_matrix(sm_ocl_arg_t *args, int n, void *buffer_interface,
                                size_t elem, size_t row, int with_ld)
{
  const long ld = (long)STARPU_MATRIX_GET_LD(buffer_interface);
  int offset;
  args[n++] = sm_ocl_mem(buffer_interface, elem, &offset);
  args[n++] = sm_ocl_int(offset + (long)row * ld);
  if (with_ld)
    args[n++] = sm_ocl_int(ld);
  return n;
}

/* The leading arguments of a 3-way plane kernel (buffers: tile A, X, Y of
 * elem-byte elements): g, mx, my, nf, then planes [a_off, a_off + g) of A,
 * X and Y with their lds. Returns the next free index (13). */
static inline int sm_ocl_planes(sm_ocl_arg_t *args, void *buffers[], size_t elem,
                                size_t g, size_t nf, size_t a_off)
{
  args[0] = sm_ocl_int((long)g);
  args[1] = sm_ocl_int((long)STARPU_MATRIX_GET_NY(buffers[1]));
  args[2] = sm_ocl_int((long)STARPU_MATRIX_GET_NY(buffers[2]));
  args[3] = sm_ocl_int((long)nf);
  int n = sm_ocl_matrix(args, 4, buffers[0], elem, a_off, 1);
  n = sm_ocl_matrix(args, n, buffers[1], elem, 0, 1);
  return sm_ocl_matrix(args, n, buffers[2], elem, 0, 1);
}

/** args[k..k+4) = a 3-way piece's kind, a0, x0, y0 (sm_keep3_t): its device
 * kernels skip the blocks with no kept triple. Returns k + 4. */
static inline int sm_ocl_keep3(sm_ocl_arg_t *args, int k, const sm_keep3_t *keep)
{
  args[k] = sm_ocl_int((long)keep->kind);
  args[k + 1] = sm_ocl_int((long)keep->a0);
  args[k + 2] = sm_ocl_int((long)keep->x0);
  args[k + 3] = sm_ocl_int((long)keep->y0);
  return k + 4;
}

/** Groups along one dimension for n items, tile per group: sm_dev.h's,
 * capped at SM_DEV_MAX_GROUPS or $STARMET_DEV_MAX_GROUPS (lower, to test
 * the kernels' striding over groups; read at start-up). */
size_t sm_ocl_groups(size_t n, size_t tile);

/** Run kernel `name` with the arguments on `dims` dimensions of groups[d]
 * work-groups of SM_DEV_TX x SM_DEV_TY (x 1) work-items, or of
 * SM_DEV_SAF_THREADS when dims is 1, and wait for it. */
void sm_ocl_run(const char *name, int nargs, const sm_ocl_arg_t *args, int dims,
                const size_t *groups);

/** A scratch buffer of bytes on the calling OpenCL worker's device (abort
 * naming the codelet when the device refuses), its release, and blocking
 * copies between it (or any buffer, at byte offset off) and the host. */
cl_mem sm_ocl_scratch(size_t bytes, const char *codelet);
void sm_ocl_release(cl_mem m);
void sm_ocl_read(cl_mem m, size_t off, size_t bytes, void *host);
void sm_ocl_write(cl_mem m, size_t off, size_t bytes, const void *host);
#endif

/** Build the program when OpenCL workers exist (after starpu_init): the
 * built-in text (codelets/device/, see Makefile.am), or the text of the
 * file $STARMET_OPENCL_PROGRAM names (checking tools run mutated kernels
 * that way; tests/cli/oclgrind.sh). */
int sm_opencl_init(void);
/** Release it (before starpu_shutdown). */
void sm_opencl_shutdown(void);

#endif
