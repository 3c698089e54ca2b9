/* ocl_shadow.c: a library preloaded before Oclgrind's OpenCL runtime by
 * tests/cli/oclgrind.sh, so that Oclgrind's uninitialised-value checker
 * (--uninitialized, Oclgrind 21.10) follows starmet's global buffers
 * exactly, and a log of the kernels that ran.
 *
 * That checker gives a buffer shadow state only when the host writes it,
 * and sizes the buffer's shadow by that write: StarPU's 1-byte write after
 * each allocation leaves a shadow 1 byte long, so that what one kernel
 * writes past it is lost and the next kernel's reads of it look
 * uninitialised; a buffer the host never writes (a codelet's scratch) has
 * no shadow at all. Here:
 *  - a new buffer is written whole once (its shadow gets its size), then a
 *    kernel copies never-written private bytes over it: every byte is
 *    uninitialised again until a kernel or the host writes it (struct
 *    copies: Oclgrind moves their shadow without a report);
 *  - a partial host write, or a copy between buffers, runs as a kernel's
 *    struct copy from a scratch buffer holding the host's bytes, so that
 *    exactly the bytes written become initialised;
 *  - what cannot be made exact (rectangular writes and copies, fills,
 *    partial maps for writing) goes through unchanged and says so on
 *    stderr ("ocl_shadow: ..."; the test fails on it);
 *  - probes of vendor extensions (the PCI bus of NVIDIA devices, the
 *    topology and board name of AMD ones: hwloc's, through StarPU), which
 *    Oclgrind's --check-api reports as errors, are answered
 *    CL_INVALID_VALUE here without asking it.
 * With $OCL_SHADOW_LOG set, lines are appended to that file: "kernel
 * NAME" for every kernel of a program built, "ran NAME G0 G1 G2" (its
 * work-groups per dimension) for every kernel enqueued (this library's
 * own aside).
 *
 * Build: cc -shared -fPIC -o ocl_shadow.so ocl_shadow.c -ldl -lpthread;
 * preload it before Oclgrind's runtime, so that its functions are found
 * first (the real ones are the next definitions): the oclgrind wrapper
 * puts its runtime first in LD_PRELOAD, so under the wrapper run
 *   sh -c 'LD_PRELOAD="/path/ocl_shadow.so:$LD_PRELOAD" exec "$0" "$@"' CMD
 * (docs/gpus.md, "Oclgrind"). */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each work-item copies one block of SH_BLK bytes (the last one, fewer
 * bytes one at a time), from s or, poison, from its never-written private
 * bytes. The copies are struct assignments, which become llvm.memcpy:
 * Oclgrind's checker copies the shadow of their bytes and reports nothing
 * (their source, once casts are stripped, is no struct). Built with
 * -cl-opt-disable: optimised, a copy of never-written memory is removed. */
#define SH_BLK 64
static const char *sh_source =
    "typedef struct { uchar b[64]; } sh_blk_t;\n"
    "typedef struct { uchar b[1]; } sh_byte_t;\n"
    "/* d[doff, doff + n) = s[soff, ...), or never-written bytes */\n"
    "__kernel void ocl_shadow_copy(__global uchar *d, ulong doff,\n"
    "                              __global const uchar *s, ulong soff, ulong n,\n"
    "                              int poison)\n"
    "{\n"
    "  const ulong i = get_global_id(0) * 64;\n"
    "  uchar u[64];\n"
    "  if (i >= n)\n"
    "    return;\n"
    "  if (n - i >= 64) {\n"
    "    if (poison)\n"
    "      *(__global sh_blk_t *)(d + doff + i) = *(sh_blk_t *)u;\n"
    "    else\n"
    "      *(__global sh_blk_t *)(d + doff + i) =\n"
    "          *(__global const sh_blk_t *)(s + soff + i);\n"
    "    return;\n"
    "  }\n"
    "  for (ulong k = 0; k < n - i; k++) {\n"
    "    if (poison)\n"
    "      *(__global sh_byte_t *)(d + doff + i + k) = *(sh_byte_t *)(u + k);\n"
    "    else\n"
    "      *(__global sh_byte_t *)(d + doff + i + k) =\n"
    "          *(__global const sh_byte_t *)(s + soff + i + k);\n"
    "  }\n"
    "}\n";

/* the real functions: the next definitions after this library's */
#define REAL(name) ((__typeof__(&name))real_fn(#name))
static void *real_fn(const char *name)
{
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "ocl_shadow: no %s after this library (preload it first)\n", name);
    abort();
  }
  return f;
}

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* per context: a queue and the copy kernel */
typedef struct sh_ctx {
  cl_context ctx;
  cl_command_queue q;
  cl_kernel copy;
} sh_ctx_t;
static sh_ctx_t ctxs[16];
static int nctx;

static void complain(const char *what, cl_int err)
{
  fprintf(stderr, "ocl_shadow: %s (%d): Oclgrind's shadow of a buffer may be wrong\n",
          what, (int)err);
}

static sh_ctx_t *ctx_of(cl_context ctx)
{
  for (int c = 0; c < nctx; c++)
    if (ctxs[c].ctx == ctx)
      return &ctxs[c];
  if (nctx == (int)(sizeof ctxs / sizeof ctxs[0]))
    return NULL;
  cl_device_id dev;
  cl_int err = clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL);
  sh_ctx_t c = {ctx, NULL, NULL};
  cl_program p = NULL;
  if (err == CL_SUCCESS)
    c.q = clCreateCommandQueue(ctx, dev, 0, &err);
  if (err == CL_SUCCESS)
    p = clCreateProgramWithSource(ctx, 1, &sh_source, NULL, &err);
  if (err == CL_SUCCESS)
    err = REAL(clBuildProgram)(p, 1, &dev, "-cl-opt-disable", NULL, NULL);
  if (err == CL_SUCCESS)
    c.copy = clCreateKernel(p, "ocl_shadow_copy", &err);
  if (p)
    clReleaseProgram(p);
  if (err != CL_SUCCESS) {
    complain("cannot build the copy kernel", err);
    return NULL;
  }
  clRetainContext(ctx);
  ctxs[nctx] = c;
  return &ctxs[nctx++];
}

static size_t mem_size(cl_mem m)
{
  size_t n = 0;
  clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof n, &n, NULL);
  return n;
}

static cl_context mem_ctx(cl_mem m)
{
  cl_context c = NULL;
  clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL);
  return c;
}

/* d[doff, doff + n) = s[soff, ...) (s NULL: never-written bytes), by the
 * copy kernel, waited for */
static cl_int kernel_copy(sh_ctx_t *c, cl_mem d, size_t doff, cl_mem s, size_t soff,
                          size_t n)
{
  const cl_ulong a[3] = {doff, soff, n};
  const cl_int poison = s == NULL;
  const size_t global = (n + SH_BLK - 1) / SH_BLK;
  cl_int err = clSetKernelArg(c->copy, 0, sizeof d, &d);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->copy, 1, sizeof a[0], &a[0]);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->copy, 2, sizeof s, s ? (const void *)&s : (const void *)&d);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->copy, 3, sizeof a[1], &a[1]);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->copy, 4, sizeof a[2], &a[2]);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->copy, 5, sizeof poison, &poison);
  if (err == CL_SUCCESS && n)
    err = clEnqueueNDRangeKernel(c->q, c->copy, 1, NULL, &global, NULL, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clFinish(c->q);
  return err;
}

/* a buffer's first state: its whole size known to the checker, every
 * byte uninitialised (or the host's bytes it was created with) */
static void shadow_init(cl_context ctx, cl_mem m, size_t n, cl_mem_flags flags,
                        const void *host)
{
  sh_ctx_t *c = ctx_of(ctx);
  if (!c)
    return;
  const int from_host = host && (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR));
  void *bytes = calloc(n, 1);
  if (!bytes) {
    complain("out of memory", CL_OUT_OF_HOST_MEMORY);
    return;
  }
  if (from_host)
    memcpy(bytes, host, n);
  cl_int err = REAL(clEnqueueWriteBuffer)(c->q, m, CL_TRUE, 0, n, bytes, 0, NULL, NULL);
  free(bytes);
  if (err == CL_SUCCESS && !from_host)
    err = kernel_copy(c, m, 0, NULL, 0, n);
  if (err != CL_SUCCESS)
    complain("a new buffer's shadow", err);
}

cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t n, void *host,
                      cl_int *errp)
{
  cl_int err;
  cl_mem m = REAL(clCreateBuffer)(ctx, flags, n, host, &err);
  if (errp)
    *errp = err;
  if (m && n) {
    pthread_mutex_lock(&lock);
    shadow_init(ctx, m, n, flags, host);
    pthread_mutex_unlock(&lock);
  }
  return m;
}

/* wait for the queue's earlier commands and the wait list */
static cl_int settle(cl_command_queue q, cl_uint nw, const cl_event *wl)
{
  cl_int err = nw ? clWaitForEvents(nw, wl) : CL_SUCCESS;
  return err == CL_SUCCESS ? clFinish(q) : err;
}

/* the event of a command done here: a marker on the caller's queue */
static cl_int done_event(cl_command_queue q, cl_event *ev)
{
  return ev ? clEnqueueMarkerWithWaitList(q, 0, NULL, ev) : CL_SUCCESS;
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                            size_t n, const void *host, cl_uint nw, const cl_event *wl,
                            cl_event *ev)
{
  if (off == 0 && n == mem_size(m)) /* the whole buffer: exact as it is */
    return REAL(clEnqueueWriteBuffer)(q, m, blocking, off, n, host, nw, wl, ev);
  pthread_mutex_lock(&lock);
  sh_ctx_t *c = ctx_of(mem_ctx(m));
  cl_int err = c ? settle(q, nw, wl) : CL_INVALID_CONTEXT;
  cl_mem tmp = NULL;
  if (err == CL_SUCCESS)
    tmp = REAL(clCreateBuffer)(mem_ctx(m), CL_MEM_READ_WRITE, n ? n : 1, NULL, &err);
  if (err == CL_SUCCESS && n)
    err = REAL(clEnqueueWriteBuffer)(c->q, tmp, CL_TRUE, 0, n, host, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = kernel_copy(c, m, off, tmp, 0, n);
  if (tmp)
    clReleaseMemObject(tmp);
  pthread_mutex_unlock(&lock);
  if (err != CL_SUCCESS) {
    complain("a partial write", err);
    return REAL(clEnqueueWriteBuffer)(q, m, blocking, off, n, host, nw, wl, ev);
  }
  return done_event(q, ev);
}

cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t soff,
                           size_t doff, size_t n, cl_uint nw, const cl_event *wl,
                           cl_event *ev)
{
  pthread_mutex_lock(&lock);
  sh_ctx_t *c = ctx_of(mem_ctx(d));
  cl_int err = c ? settle(q, nw, wl) : CL_INVALID_CONTEXT;
  if (err == CL_SUCCESS)
    err = kernel_copy(c, d, doff, s, soff, n);
  pthread_mutex_unlock(&lock);
  if (err != CL_SUCCESS) {
    complain("a copy between buffers", err);
    return REAL(clEnqueueCopyBuffer)(q, s, d, soff, doff, n, nw, wl, ev);
  }
  return done_event(q, ev);
}

cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                const size_t *bo, const size_t *ho, const size_t *r,
                                size_t brp, size_t bsp, size_t hrp, size_t hsp,
                                const void *host, cl_uint nw, const cl_event *wl,
                                cl_event *ev)
{
  complain("clEnqueueWriteBufferRect is not handled", CL_SUCCESS);
  return REAL(clEnqueueWriteBufferRect)(q, m, blocking, bo, ho, r, brp, bsp, hrp, hsp,
                                        host, nw, wl, ev);
}

cl_int clEnqueueCopyBufferRect(cl_command_queue q, cl_mem s, cl_mem d, const size_t *so,
                               const size_t *dof, const size_t *r, size_t srp, size_t ssp,
                               size_t drp, size_t dsp, cl_uint nw, const cl_event *wl,
                               cl_event *ev)
{
  complain("clEnqueueCopyBufferRect is not handled", CL_SUCCESS);
  return REAL(clEnqueueCopyBufferRect)(q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, wl,
                                       ev);
}

cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pat, size_t psz,
                           size_t off, size_t n, cl_uint nw, const cl_event *wl,
                           cl_event *ev)
{
  complain("clEnqueueFillBuffer is not handled", CL_SUCCESS);
  return REAL(clEnqueueFillBuffer)(q, m, pat, psz, off, n, nw, wl, ev);
}

void *clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                         cl_map_flags flags, size_t off, size_t n, cl_uint nw,
                         const cl_event *wl, cl_event *ev, cl_int *errp)
{
  /* a map for writing only resets the shadow to the mapped bytes */
  if (!(flags & CL_MAP_READ) && (off != 0 || n != mem_size(m)))
    complain("a partial map for writing is not handled", CL_SUCCESS);
  return REAL(clEnqueueMapBuffer)(q, m, blocking, flags, off, n, nw, wl, ev, errp);
}

cl_int clGetDeviceInfo(cl_device_id dev, cl_device_info what, size_t n, void *value,
                       size_t *ret)
{
  switch (what) {
  case 0x4008: /* CL_DEVICE_PCI_BUS_ID_NV */
  case 0x4009: /* CL_DEVICE_PCI_SLOT_ID_NV */
  case 0x400A: /* CL_DEVICE_PCI_DOMAIN_ID_NV */
  case 0x4037: /* CL_DEVICE_TOPOLOGY_AMD */
  case 0x4038: /* CL_DEVICE_BOARD_NAME_AMD */
    return CL_INVALID_VALUE;
  default:
    return REAL(clGetDeviceInfo)(dev, what, n, value, ret);
  }
}

/* one line into $OCL_SHADOW_LOG: what, the name of kernel k (unless it
 * is this library's) and the rest */
static void log_kernel(const char *what, cl_kernel k, const char *rest)
{
  const char *log = getenv("OCL_SHADOW_LOG");
  char name[128] = "";
  if (!log || !*log ||
      clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL) !=
          CL_SUCCESS ||
      strcmp(name, "ocl_shadow_copy") == 0)
    return;
  pthread_mutex_lock(&lock);
  FILE *f = fopen(log, "a");
  if (f) {
    fprintf(f, "%s %s%s\n", what, name, rest);
    fclose(f);
  }
  pthread_mutex_unlock(&lock);
}

cl_int clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                      const char *opts, void(CL_CALLBACK *notify)(cl_program, void *),
                      void *data)
{
  cl_int err = REAL(clBuildProgram)(p, ndev, devs, opts, notify, data);
  cl_uint n = 0;
  if (err == CL_SUCCESS && clCreateKernelsInProgram(p, 0, NULL, &n) == CL_SUCCESS && n) {
    cl_kernel *k = calloc(n, sizeof *k);
    if (k && clCreateKernelsInProgram(p, n, k, NULL) == CL_SUCCESS)
      for (cl_uint i = 0; i < n; i++) {
        log_kernel("kernel", k[i], "");
        clReleaseKernel(k[i]);
      }
    free(k);
  }
  return err;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                              const size_t *off, const size_t *global,
                              const size_t *local, cl_uint nw, const cl_event *wl,
                              cl_event *ev)
{
  char groups[96] = "";
  for (cl_uint d = 0; d < 3; d++) {
    const size_t g = d >= dims ? 1 : local && local[d] ? global[d] / local[d] : 0;
    snprintf(groups + strlen(groups), sizeof groups - strlen(groups), " %zu", g);
  }
  log_kernel("ran", k, groups);
  return REAL(clEnqueueNDRangeKernel)(q, k, dims, off, global, local, nw, wl, ev);
}
