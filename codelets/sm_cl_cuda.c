/* sm_cl_cuda.c: what the CUDA adapters share: the device count, the
 * per-worker scratch on the GPU, and running a launcher or library call
 * with a failure that names the codelet and the kernel (STARMET_CUDA_SYNC:
 * synchronise after each one). */
#include <string.h>

#include "sm_cl_common.h"

#ifdef SM_USE_CUDA
#include <stdlib.h>

static int cuda_sync; /* STARMET_CUDA_SYNC */

/* The function a call's text starts with ("sm_cuda_ccc2(A.ny, ...)"). */
static const char *call_name(const char *call, char *buf, size_t len)
{
  size_t n = 0;
  while (*call == ' ' || *call == '(')
    call++;
  while (n + 1 < len &&
         (call[n] == '_' || (call[n] >= 'a' && call[n] <= 'z') ||
          (call[n] >= 'A' && call[n] <= 'Z') || (call[n] >= '0' && call[n] <= '9'))) {
    buf[n] = call[n];
    n++;
  }
  buf[n] = 0;
  return buf;
}

/* What may help with CUDA error err. */
static const char *cuda_hint(int err)
{
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
    return ": this starmet has no code for this GPU's architecture (rebuild it with "
           "NVCC_ARCH_FLAGS naming it: docs/gpus.md)";
  if (!cuda_sync && err >= 700 && err <= 720)
    return " (the GPU reports such faults at the next synchronisation, so work queued "
           "before this codelet may have caused it: STARMET_CUDA_SYNC=1 names the "
           "kernel)";
  return "";
}

void sm_cl_cuda_ran(const char *codelet, const char *call, int err)
{
  char fn[64];
  const char *what = sm_cuda_take_failed();
  if (!err && cuda_sync) {
    /* what CALL queued, if it did not check it itself (a copy) */
    err = (int)cudaGetLastError();
    if (!err)
      err = (int)cudaStreamSynchronize(starpu_cuda_get_local_stream());
  }
  if (!err)
    return;
  call_name(call, fn, sizeof fn);
  if (!what)
    what = fn;
  STARPU_ABORT_MSG("codelet %s: %s%s%s failed on the GPU: %s (CUDA error %d)%s", codelet,
                   what, strcmp(what, fn) ? " in " : "", strcmp(what, fn) ? fn : "",
                   sm_cuda_error_string(err), err, cuda_hint(err));
}

static struct {
  uintptr_t p;
  size_t bytes;
} cuda_scratch[STARPU_NMAXWORKERS];

void *sm_cl_cuda_scratch(size_t bytes, const char *codelet)
{
  const int w = starpu_worker_get_id_check();
  const unsigned node = starpu_worker_get_memory_node((unsigned)w);
  if (cuda_scratch[w].bytes < bytes) {
    /* the stream may still use the old buffer: let it finish first */
    if (cuda_scratch[w].p) {
      const int err = (int)cudaStreamSynchronize(starpu_cuda_get_local_stream());
      if (err)
        STARPU_ABORT_MSG("codelet %s: the work queued before it on this GPU failed: %s "
                         "(CUDA error %d)%s",
                         codelet, sm_cuda_error_string(err), err, cuda_hint(err));
      starpu_free_on_node_flags(node, cuda_scratch[w].p, cuda_scratch[w].bytes,
                                STARPU_MALLOC_COUNT);
    }
    const size_t grown = bytes + bytes / 4; /* room for a slightly larger tile */
    cuda_scratch[w].p = starpu_malloc_on_node_flags(node, grown, STARPU_MALLOC_COUNT);
    cuda_scratch[w].bytes = cuda_scratch[w].p ? grown : 0;
    if (!cuda_scratch[w].p)
      STARPU_ABORT_MSG("codelet %s: no room for %zu bytes of scratch on the GPU (memory "
                       "node %u): use a smaller --block-size",
                       codelet, grown, node);
  }
  return (void *)cuda_scratch[w].p;
}

static void cuda_scratch_free(void *arg)
{
  (void)arg;
  const int w = starpu_worker_get_id_check();
  if (cuda_scratch[w].p)
    starpu_free_on_node_flags(starpu_worker_get_memory_node((unsigned)w),
                              cuda_scratch[w].p, cuda_scratch[w].bytes,
                              STARPU_MALLOC_COUNT);
  cuda_scratch[w].p = 0;
  cuda_scratch[w].bytes = 0;
}

void sm_cl_cuda_init(void)
{
  starpu_cublas_init(); /* a cuBLAS handle per CUDA worker (int8 CCC GEMMs) */
  const char *sync = getenv("STARMET_CUDA_SYNC");
  cuda_sync = sync && *sync && strcmp(sync, "0");
  sm_cuda_set_sync(cuda_sync);
}

void sm_cl_cuda_fini(void)
{
  starpu_execute_on_each_worker(cuda_scratch_free, NULL, STARPU_CUDA);
  starpu_cublas_shutdown();
}
#endif

int sm_codelets_cuda_devices(void)
{
#if defined(SM_USE_CUDA) && !defined(SM_SIMULATION)
  return sm_cuda_device_count();
#else
  return 0;
#endif
}
