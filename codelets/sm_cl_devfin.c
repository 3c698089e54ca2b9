/* sm_cl_devfin.c: the host side of a finalize on a device (sm_cl_devfin.h). */
#include "sm_cl_devfin.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const size_t sm_devfin_elem[3] = {4, 8, 4};

/* bytes the device finalize copied between a device and the host */
static _Atomic uint64_t moved;

uint64_t sm_cl_devfin_bytes(void)
{
  return atomic_load(&moved);
}

void sm_devfin_records_on_host(struct starpu_codelet *cl, int rec)
{
  if (cl->specific_nodes)
    return;
  for (int b = 0; b < cl->nbuffers; b++)
    cl->nodes[b] = b == rec ? STARPU_SPECIFIC_NODE_CPU : STARPU_SPECIFIC_NODE_LOCAL;
  cl->specific_nodes = 1;
}

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
 * sums of the groups' sums (sm_fin_parts). */
typedef struct host_bufs {
  uint32_t *rowcnt;
  uint64_t *part, *rowoff;
} host_bufs_t;

#define PART_BYTES (SM_FIN_PART_WORDS * sizeof(uint64_t)) /* a group's sums */

static host_bufs_t host_alloc(const sm_devfin_t *f)
{
  const size_t m = f->rows ? f->rows : 1;
  host_bufs_t b = {malloc(m * 4), malloc(PART_BYTES), malloc(m * 8)};
  if (!b.rowcnt || !b.part || !b.rowoff)
    STARPU_ABORT_MSG("codelet %s: out of host memory", f->codelet);
  return b;
}

static void host_free(host_bufs_t *b)
{
  free(b->rowcnt), free(b->part), free(b->rowoff);
}

/* The header from the sums of the groups' sums (read from the device).
 * Returns the kept values: the records to write when f->emit. */
static uint64_t host_header(const sm_devfin_t *f, const host_bufs_t *b, sm_recbuf_t *h)
{
  const uint64_t records = f->emit ? b->part[4] : 0;
  f->header(f->args, records, b->part, h);
  atomic_fetch_add(&moved, PART_BYTES);
  return records;
}

/* rowoff[i]: the first record of row i, from the rows' counts (read from
 * the device); the offsets go back and the records will come. */
static void host_offsets(const sm_devfin_t *f, host_bufs_t *b, uint64_t records)
{
  uint64_t total = 0;
  for (size_t i = 0; i < f->rows; i++) {
    b->rowoff[i] = total;
    total += b->rowcnt[i];
  }
  if (total != records)
    STARPU_ABORT_MSG("codelet %s: the device's row counts add up to %llu records, its "
                     "group counts to %llu",
                     f->codelet, (unsigned long long)total, (unsigned long long)records);
  atomic_fetch_add(&moved, f->rows * 12 + records * sizeof(sm_rec_t));
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
         dpart = sm_ocl_scratch((groups + 1) * PART_BYTES, f->codelet);
  args[k] = sm_ocl_buf(dcnt), args[k + 1] = sm_ocl_buf(dpart);
  sm_ocl_run(count_k, k + 2, args, 1, &groups);
  const sm_ocl_arg_t pargs[2] = {sm_ocl_int((long)groups), sm_ocl_buf(dpart)};
  const size_t one = 1;
  sm_ocl_run("sm_fin_parts", 2, pargs, 1, &one);
  host_bufs_t b = host_alloc(f);
  sm_ocl_read(dpart, groups * PART_BYTES, PART_BYTES, b.part);
  sm_recbuf_t *h = (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(rec);
  const uint64_t total = host_header(f, &b, h);
  if (total) {
    sm_ocl_read(dcnt, 0, f->rows * 4, b.rowcnt);
    host_offsets(f, &b, total);
    cl_mem doff = sm_ocl_scratch(m * 8, f->codelet),
           drec = sm_ocl_scratch(total * sizeof(sm_rec_t), f->codelet);
    sm_ocl_write(doff, 0, f->rows * 8, b.rowoff);
    args[k] = sm_ocl_buf(doff), args[k + 1] = sm_ocl_buf(drec),
    args[k + 2] = sm_ocl_int(0);
    sm_ocl_run(emit_k, k + 3, args, 1, &groups);
    sm_ocl_read(drec, 0, total * sizeof(sm_rec_t), h->rec);
    sm_ocl_release(doff);
    sm_ocl_release(drec);
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
  /* scratch: row counts, group sums and their sum (8-byte aligned) */
  const size_t cnt_b = (m * 4 + 7) / 8 * 8, part_b = (groups + 1) * PART_BYTES;
  char *scr = sm_cl_cuda_scratch(cnt_b + part_b, name);
  uint32_t *dcnt = (uint32_t *)scr;
  uint64_t *dpart = (uint64_t *)(scr + cnt_b);
  cudaStream_t st = starpu_cuda_get_local_stream();
  SM_CUDA_RUN(name, count(launch, dcnt, dpart, (unsigned)groups, st));
  SM_CUDA_RUN(name, sm_cuda_fin_parts((unsigned)groups, dpart, st));
  host_bufs_t b = host_alloc(f);
  SM_CUDA_RUN(name, cudaMemcpyAsync(b.part, dpart + SM_FIN_PART_WORDS * groups,
                                    PART_BYTES, cudaMemcpyDeviceToHost, st));
  /* the one wait of a finalize: whether to write records and how many */
  SM_CUDA_RUN(name, cudaStreamSynchronize(st));
  sm_recbuf_t *h = (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(rec);
  const uint64_t total = host_header(f, &b, h);
  if (total) {
    SM_CUDA_RUN(name,
                cudaMemcpyAsync(b.rowcnt, dcnt, f->rows * 4, cudaMemcpyDeviceToHost, st));
    SM_CUDA_RUN(name, cudaStreamSynchronize(st)); /* (pageable: done already) */
    host_offsets(f, &b, total);
    /* row offsets, then the records, in the scratch (grown: the counts
     * are on the host now) */
    const size_t rec_b = total * sizeof(sm_rec_t);
    scr = sm_cl_cuda_scratch(m * 8 + rec_b, name);
    uint64_t *doff = (uint64_t *)scr;
    void *drec = scr + m * 8;
    SM_CUDA_RUN(name,
                cudaMemcpyAsync(doff, b.rowoff, f->rows * 8, cudaMemcpyHostToDevice, st));
    SM_CUDA_RUN(name, emit(launch, doff, drec, (unsigned)groups, st));
    /* no wait: the codelet is asynchronous, StarPU ends the task when the
     * stream has copied the records; rowoff was staged by the call (a
     * copy from pageable memory) */
    SM_CUDA_RUN(name, cudaMemcpyAsync(h->rec, drec, rec_b, cudaMemcpyDeviceToHost, st));
  }
  host_free(&b);
}
#endif
