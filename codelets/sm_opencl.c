/* sm_opencl.c: builds starmet's OpenCL program once for every OpenCL
 * device StarPU uses, and launches its kernels from the codelets. */
#include "sm_opencl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_error.h"

#ifdef STARPU_USE_OPENCL
extern const char sm_opencl_source[]; /* sm_opencl_src.c, from codelets/device */

static struct starpu_opencl_program program;
static int loaded;
static size_t max_groups = SM_DEV_MAX_GROUPS;

size_t sm_ocl_groups(size_t n, size_t tile)
{
  return sm_dev_groups(n, tile, max_groups);
}

/* The text of file path (NUL-terminated, malloc'ed), or NULL after
 * saying why. */
static char *read_program(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) &&
      fread(text, 1, (size_t)n, f) == (size_t)n)
    text[n] = '\0';
  else {
    sm_log_error("STARMET_OPENCL_PROGRAM=%s: cannot read the OpenCL program text (%s)",
                 path, f ? "read error" : strerror(errno));
    free(text);
    text = NULL;
  }
  if (f)
    fclose(f);
  return text;
}

int sm_opencl_init(void)
{
  if (loaded || starpu_opencl_worker_get_count() == 0)
    return 0;
  const char *cap = getenv("STARMET_DEV_MAX_GROUPS");
  if (cap && atol(cap) > 0 && (size_t)atol(cap) < max_groups)
    max_groups = (size_t)atol(cap);
  const char *alt = getenv("STARMET_OPENCL_PROGRAM");
  char *text = NULL;
  if (alt && *alt && !(text = read_program(alt)))
    return -1;
  int ret =
      starpu_opencl_load_opencl_from_string(text ? text : sm_opencl_source, &program, "");
  if (ret && text)
    sm_log_error("the OpenCL program of STARMET_OPENCL_PROGRAM=%s did not build on this "
                 "device (%d)",
                 alt, ret);
  else if (ret)
    sm_log_error("the OpenCL kernels did not build on this device (%d); run without "
                 "OpenCL workers (STARPU_NOPENCL=0)",
                 ret);
  free(text);
  if (ret)
    return -1;
  loaded = 1;
  return 0;
}

void sm_opencl_shutdown(void)
{
  if (loaded)
    starpu_opencl_unload_opencl(&program);
  loaded = 0;
}

void sm_ocl_run(const char *name, int nargs, const sm_ocl_arg_t *args, int dims,
                const size_t *groups)
{
  const size_t local2[3] = {SM_DEV_TX, SM_DEV_TY, 1}, local1[1] = {SM_DEV_SAF_THREADS};
  const size_t *local = dims == 1 ? local1 : local2;
  cl_kernel kernel;
  cl_command_queue queue;
  int devid = starpu_worker_get_devid(starpu_worker_get_id());
  cl_int err = starpu_opencl_load_kernel(&kernel, &queue, &program, name, devid);
  if (err != CL_SUCCESS)
    STARPU_OPENCL_REPORT_ERROR(err);
  for (int k = 0; k < nargs && err == CL_SUCCESS; k++)
    err = args[k].is_mem == 1
              ? clSetKernelArg(kernel, (cl_uint)k, sizeof(cl_mem), &args[k].mem)
          : args[k].is_mem == 2
              ? clSetKernelArg(kernel, (cl_uint)k, sizeof(double), &args[k].dval)
              : clSetKernelArg(kernel, (cl_uint)k, sizeof(int), &args[k].ival);
  if (err != CL_SUCCESS)
    STARPU_OPENCL_REPORT_ERROR(err);
  size_t g[3];
  for (int d = 0; d < dims; d++)
    g[d] = groups[d] * local[d];
  cl_event ev;
  err =
      clEnqueueNDRangeKernel(queue, kernel, (cl_uint)dims, NULL, g, local, 0, NULL, &ev);
  if (err != CL_SUCCESS)
    STARPU_OPENCL_REPORT_ERROR(err);
  clWaitForEvents(1, &ev);
  clReleaseEvent(ev);
  starpu_opencl_release_kernel(kernel);
}

static int my_devid(void)
{
  return starpu_worker_get_devid(starpu_worker_get_id());
}

cl_mem sm_ocl_scratch(size_t bytes, const char *codelet)
{
  cl_context ctx;
  starpu_opencl_get_context(my_devid(), &ctx);
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 8, NULL, &err);
  if (err != CL_SUCCESS)
    STARPU_ABORT_MSG("codelet %s: the OpenCL device refused %zu bytes of scratch (%d)",
                     codelet, bytes, (int)err);
  return m;
}

void sm_ocl_release(cl_mem m)
{
  if (m)
    clReleaseMemObject(m);
}

void sm_ocl_read(cl_mem m, size_t off, size_t bytes, void *host)
{
  cl_command_queue q;
  starpu_opencl_get_queue(my_devid(), &q);
  cl_int err = bytes ? clEnqueueReadBuffer(q, m, CL_TRUE, off, bytes, host, 0, NULL, NULL)
                     : CL_SUCCESS;
  if (err != CL_SUCCESS)
    STARPU_OPENCL_REPORT_ERROR(err);
}

void sm_ocl_write(cl_mem m, size_t off, size_t bytes, const void *host)
{
  cl_command_queue q;
  starpu_opencl_get_queue(my_devid(), &q);
  cl_int err = bytes
                   ? clEnqueueWriteBuffer(q, m, CL_TRUE, off, bytes, host, 0, NULL, NULL)
                   : CL_SUCCESS;
  if (err != CL_SUCCESS)
    STARPU_OPENCL_REPORT_ERROR(err);
}
#else
int sm_opencl_init(void)
{
  return 0;
}
void sm_opencl_shutdown(void) {}
#endif
