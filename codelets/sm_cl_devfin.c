/* sm_cl_devfin.c: the host side of a finalize on a device (sm_cl_devfin.h). */
#include "sm_cl_devfin.h"

#include <stdio.h>
#include <stdlib.h>

const size_t sm_devfin_elem[3] = {4, 8, 4};

unsigned long long sm_devfin_where(const struct starpu_codelet *cl, int cpu_only)
{
  unsigned long long where = cpu_only ? STARPU_CPU : sm_cl_end_where;
#ifdef SM_SIMULATION
  if (!cl->cuda_funcs[0])
    where |= STARPU_CPU;
#else
  (void)cl;
#endif
  return where;
}

#if defined(SM_USE_CUDA) || defined(STARPU_USE_OPENCL)
/* Host buffers of one finalize: the rows' counts and first records, the
 * groups' sums. */
typedef struct host_bufs {
  uint32_t *rowcnt;
  uint64_t *part, *rowoff;
} host_bufs_t;

static host_bufs_t host_alloc(const sm_devfin_t *f, size_t groups)
{
  const size_t m = f->rows ? f->rows : 1;
  host_bufs_t b = {malloc(m * 4), malloc(groups * 32), malloc(m * 8)};
  if (!b.rowcnt || !b.part || !b.rowoff)
    STARPU_ABORT_MSG("codelet %s: out of host memory", f->codelet);
  return b;
}

static void host_free(host_bufs_t *b)
{
  free(b->rowcnt), free(b->part), free(b->rowoff);
}

/* rowoff[i]: the first record of row i; the header from the group sums.
 * Returns the records. */
static uint64_t host_offsets(const sm_devfin_t *f, host_bufs_t *b, size_t groups,
                             sm_recbuf_t *h)
{
  uint64_t total = 0, sums[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < f->rows; i++) {
    b->rowoff[i] = total;
    total += b->rowcnt[i];
  }
  for (size_t g = 0; g < groups; g++)
    for (int k = 0; k < 4; k++)
      sums[k] += b->part[4 * g + k];
  f->header(f->args, total, sums, h);
  return total;
}
#endif

#ifdef STARPU_USE_OPENCL
void sm_ocl_finalize(const sm_devfin_t *f, const char *prefix, int family,
                     sm_ocl_arg_t *args, int k, void *rec)
{
  static const char *const sfx[] = {"ccc", "czek_d", "czek_s"};
  char count_k[64], emit_k[64];
  snprintf(count_k, sizeof count_k, "%s_count_%s", prefix, sfx[family]);
  snprintf(emit_k, sizeof emit_k, "%s_emit_%s", prefix, sfx[family]);
  size_t groups = sm_ocl_groups(f->rows, 1); /* $STARMET_DEV_MAX_GROUPS applies */
  if (groups > SM_FIN_MAX_GROUPS)
    groups = SM_FIN_MAX_GROUPS;
  const size_t m = f->rows ? f->rows : 1;
  cl_mem dcnt = sm_ocl_scratch(m * 4, f->codelet),
         dpart = sm_ocl_scratch(groups * 32, f->codelet);
  args[k] = sm_ocl_buf(dcnt), args[k + 1] = sm_ocl_buf(dpart);
  sm_ocl_run(count_k, k + 2, args, 1, &groups);
  host_bufs_t b = host_alloc(f, groups);
  sm_ocl_read(dcnt, 0, f->rows * 4, b.rowcnt);
  sm_ocl_read(dpart, 0, groups * 32, b.part);
  sm_recbuf_t h;
  const uint64_t total = host_offsets(f, &b, groups, &h);
  cl_mem rmem = (cl_mem)STARPU_VARIABLE_GET_DEV_HANDLE(rec);
  const size_t roff = STARPU_VARIABLE_GET_OFFSET(rec);
  sm_ocl_write(rmem, roff, sizeof h, &h);
  if (f->emit && total) {
    cl_mem doff = sm_ocl_scratch(m * 8, f->codelet);
    sm_ocl_write(doff, 0, f->rows * 8, b.rowoff);
    args[k] = sm_ocl_buf(doff), args[k + 1] = sm_ocl_buf(rmem);
    args[k + 2] = sm_ocl_int((long)(roff + sizeof h));
    sm_ocl_run(emit_k, k + 3, args, 1, &groups);
    sm_ocl_release(doff);
  }
  sm_ocl_release(dcnt);
  sm_ocl_release(dpart);
  host_free(&b);
}
#endif

#ifdef SM_USE_CUDA
void sm_cuda_finalize(const sm_devfin_t *f, sm_devfin_count_fn count,
                      sm_devfin_emit_fn emit, const void *launch, void *rec)
{
  const char *name = f->codelet;
  const size_t m = f->rows ? f->rows : 1;
  const size_t groups = m > SM_FIN_MAX_GROUPS ? SM_FIN_MAX_GROUPS : m;
  /* scratch: row counts, group sums, row offsets (8-byte aligned) */
  const size_t cnt_b = (m * 4 + 7) / 8 * 8, part_b = groups * 32;
  char *scr = sm_cl_cuda_scratch(cnt_b + part_b + m * 8, name);
  uint32_t *dcnt = (uint32_t *)scr;
  uint64_t *dpart = (uint64_t *)(scr + cnt_b), *doff = (uint64_t *)(scr + cnt_b + part_b);
  cudaStream_t st = starpu_cuda_get_local_stream();
  SM_CUDA_RUN(name, count(launch, dcnt, dpart, (unsigned)groups, st));
  host_bufs_t b = host_alloc(f, groups);
  SM_CUDA_RUN(name,
              cudaMemcpyAsync(b.rowcnt, dcnt, f->rows * 4, cudaMemcpyDeviceToHost, st));
  SM_CUDA_RUN(name,
              cudaMemcpyAsync(b.part, dpart, groups * 32, cudaMemcpyDeviceToHost, st));
  SM_CUDA_RUN(name, cudaStreamSynchronize(st));
  sm_recbuf_t h;
  const uint64_t total = host_offsets(f, &b, groups, &h);
  void *r = (void *)STARPU_VARIABLE_GET_PTR(rec);
  SM_CUDA_RUN(name, cudaMemcpyAsync(r, &h, sizeof h, cudaMemcpyHostToDevice, st));
  if (f->emit && total) {
    SM_CUDA_RUN(name,
                cudaMemcpyAsync(doff, b.rowoff, f->rows * 8, cudaMemcpyHostToDevice, st));
    SM_CUDA_RUN(name, emit(launch, doff, (char *)r + sizeof h, (unsigned)groups, st));
  }
  SM_CUDA_RUN(name, cudaStreamSynchronize(st)); /* h and rowoff are read until here */
  host_free(&b);
}
#endif
