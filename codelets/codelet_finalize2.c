/* codelet_finalize2.c: finalize codelets of a 2-way block: metric values,
 * threshold, checksum and histogram counts from numerators and vector sums
 * (with --top-k also the block's candidate neighbours), and the merge of
 * candidates into a tile's neighbour lists. */
#include "sm_cl_common.h"
#include "sm_opencl.h"

#include <stdlib.h>

static void cpu_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  sm_kern_finalize2(
      a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
      STARPU_MATRIX_GET_LD(buffers[0]), (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[2]),
      (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[3]),
      a->topk.k ? (sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[4]) : NULL);
}

/* ---- on a device (CUDA, OpenCL): the kernels of codelets/device compute
 * the values, the checksum sums per group of rows and each row's kept
 * values; here the counts become each row's first record and the group
 * sums the block's header, then the records are written on the device.
 * Only the records (and the header) cross to the host. Blocks with a
 * histogram, top-k or per-entry thresholds run on CPUs (sm_task_finalize2). */
#if defined(SM_USE_CUDA) || defined(STARPU_USE_OPENCL)
static int fin2_flags(const sm_fin2_args_t *a)
{
  return (a->diag ? SM_FIN_DIAG : 0) | (a->swap ? SM_FIN_SWAP : 0) |
         (a->emit ? SM_FIN_EMIT : 0) | (a->keep_all ? SM_FIN_KEEPALL : 0) |
         (a->thr_f32 ? SM_FIN_THRF32 : 0) | (a->sparse ? SM_FIN_SPARSE : 0);
}

/* kernel family: 0 CCC, 1 Czekanowski double, 2 single */
static int fin2_family(const sm_fin2_args_t *a)
{
  return a->metric == 1 ? 0 : a->single ? 2 : 1;
}

/* rowoff[i]: the first record of row i; the header from the group sums.
 * Returns the records. */
static uint64_t fin2_host(const sm_fin2_args_t *a, const uint32_t *rowcnt,
                          const uint64_t *part, size_t groups, uint64_t *rowoff,
                          sm_recbuf_t *h)
{
  uint64_t total = 0, sums[4] = {0, 0, 0, 0};
  for (uint32_t i = 0; i < a->m; i++) {
    rowoff[i] = total;
    total += rowcnt[i];
  }
  for (size_t g = 0; g < groups; g++)
    for (int k = 0; k < 4; k++)
      sums[k] += part[4 * g + k];
  sm_kern_fin2_header(a, total, sums, h);
  return total;
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  static const char *const count_k[] = {"sm_fin2_count_ccc", "sm_fin2_count_czek_d",
                                        "sm_fin2_count_czek_s"};
  static const char *const emit_k[] = {"sm_fin2_emit_ccc", "sm_fin2_emit_czek_d",
                                       "sm_fin2_emit_czek_s"};
  static const size_t elem[] = {4, 8, 4}; /* the kernels' element of num and sums */
  const int fam = fin2_family(a);
  size_t groups = sm_ocl_groups(a->m, 1);
  if (groups > SM_FIN_MAX_GROUPS)
    groups = SM_FIN_MAX_GROUPS;
  sm_ocl_arg_t args[24] = {
      sm_ocl_int(a->m),        sm_ocl_int(a->n),          sm_ocl_int(a->i0),
      sm_ocl_int(a->j0),       sm_ocl_int(fin2_flags(a)), sm_ocl_int((long)a->nf),
      sm_ocl_dbl(a->ccc_mult), sm_ocl_dbl(a->ccc_param),  sm_ocl_dbl(a->threshold)};
  int k = sm_ocl_matrix(args, 9, buffers[0], elem[fam], 0, 1);
  k = sm_ocl_matrix(args, k, buffers[1], elem[fam], 0, 0);
  k = sm_ocl_matrix(args, k, buffers[2], elem[fam], 0, 0);
  const size_t m = a->m ? a->m : 1;
  cl_mem dcnt = sm_ocl_scratch(m * 4, "sm_finalize2"),
         dpart = sm_ocl_scratch(groups * 32, "sm_finalize2");
  args[k] = sm_ocl_buf(dcnt), args[k + 1] = sm_ocl_buf(dpart);
  sm_ocl_run(count_k[fam], k + 2, args, 1, &groups);
  uint32_t *rowcnt = malloc(m * 4);
  uint64_t *part = malloc(groups * 32), *rowoff = malloc(m * 8);
  if (!rowcnt || !part || !rowoff)
    STARPU_ABORT_MSG("codelet sm_finalize2: out of host memory");
  sm_ocl_read(dcnt, 0, a->m * 4, rowcnt);
  sm_ocl_read(dpart, 0, groups * 32, part);
  sm_recbuf_t h;
  const uint64_t total = fin2_host(a, rowcnt, part, groups, rowoff, &h);
  cl_mem rmem = (cl_mem)STARPU_VARIABLE_GET_DEV_HANDLE(buffers[3]);
  const size_t roff = STARPU_VARIABLE_GET_OFFSET(buffers[3]);
  sm_ocl_write(rmem, roff, sizeof h, &h);
  if (a->emit && total) {
    cl_mem doff = sm_ocl_scratch(m * 8, "sm_finalize2");
    sm_ocl_write(doff, 0, a->m * 8, rowoff);
    args[k] = sm_ocl_buf(doff), args[k + 1] = sm_ocl_buf(rmem);
    args[k + 2] = sm_ocl_int((long)(roff + sizeof h));
    sm_ocl_run(emit_k[fam], k + 3, args, 1, &groups);
    sm_ocl_release(doff);
  }
  sm_ocl_release(dcnt);
  sm_ocl_release(dpart);
  free(rowcnt), free(part), free(rowoff);
}
#endif

#ifdef SM_USE_CUDA
static void cuda_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  const char *name = "sm_finalize2";
  const size_t m = a->m ? a->m : 1;
  size_t groups = a->m ? a->m : 1;
  if (groups > SM_FIN_MAX_GROUPS)
    groups = SM_FIN_MAX_GROUPS;
  /* scratch: row counts, group sums, row offsets (8-byte aligned) */
  const size_t cnt_b = (m * 4 + 7) / 8 * 8, part_b = groups * 32;
  char *scr = sm_cl_cuda_scratch(cnt_b + part_b + m * 8, name);
  uint32_t *dcnt = (uint32_t *)scr;
  uint64_t *dpart = (uint64_t *)(scr + cnt_b), *doff = (uint64_t *)(scr + cnt_b + part_b);
  const sm_cuda_fin2_t f = {.family = fin2_family(a),
                            .m = (int)a->m,
                            .n = (int)a->n,
                            .i0 = (int)a->i0,
                            .j0 = (int)a->j0,
                            .flags = fin2_flags(a),
                            .nf = (int)a->nf,
                            .mult = a->ccc_mult,
                            .param = a->ccc_param,
                            .thr = a->threshold,
                            .num = (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                            .ldn = STARPU_MATRIX_GET_LD(buffers[0]),
                            .si = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
                            .sj = (const void *)STARPU_MATRIX_GET_PTR(buffers[2])};
  cudaStream_t st = starpu_cuda_get_local_stream();
  SM_CUDA_RUN(name, sm_cuda_fin2_count(&f, dcnt, dpart, (unsigned)groups, st));
  uint32_t *rowcnt = malloc(m * 4);
  uint64_t *part = malloc(groups * 32), *rowoff = malloc(m * 8);
  if (!rowcnt || !part || !rowoff)
    STARPU_ABORT_MSG("codelet %s: out of host memory", name);
  SM_CUDA_RUN(name, cudaMemcpyAsync(rowcnt, dcnt, a->m * 4, cudaMemcpyDeviceToHost, st));
  SM_CUDA_RUN(name,
              cudaMemcpyAsync(part, dpart, groups * 32, cudaMemcpyDeviceToHost, st));
  SM_CUDA_RUN(name, cudaStreamSynchronize(st));
  sm_recbuf_t h;
  const uint64_t total = fin2_host(a, rowcnt, part, groups, rowoff, &h);
  void *rec = (void *)STARPU_VARIABLE_GET_PTR(buffers[3]);
  SM_CUDA_RUN(name, cudaMemcpyAsync(rec, &h, sizeof h, cudaMemcpyHostToDevice, st));
  if (a->emit && total) {
    SM_CUDA_RUN(name,
                cudaMemcpyAsync(doff, rowoff, a->m * 8, cudaMemcpyHostToDevice, st));
    SM_CUDA_RUN(
        name, sm_cuda_fin2_emit(&f, doff, (char *)rec + sizeof h, (unsigned)groups, st));
  }
  SM_CUDA_RUN(name, cudaStreamSynchronize(st)); /* h and rowoff are read until here */
  free(rowcnt), free(part), free(rowoff);
}
#endif

SM_CODELET(finalize2, cpu_finalize2,
           SM_CL_CUDA(cuda_finalize2) SM_CL_OPENCL(ocl_finalize2), 4, STARPU_R, STARPU_R,
           STARPU_R, STARPU_W);
SM_CODELET(finalize2_topk, cpu_finalize2, , 5, STARPU_R, STARPU_R, STARPU_R, STARPU_W,
           STARPU_W);

#ifdef SM_SIMULATION
void sm_cl_sim_gpu_finalize2(starpu_cpu_func_t f)
{
  cl_finalize2.cuda_funcs[0] = f;
  cl_finalize2_topk.cuda_funcs[0] = f;
}
#endif

int sm_task_finalize2(starpu_data_handle_t num, starpu_data_handle_t si,
                      starpu_data_handle_t sj, starpu_data_handle_t R,
                      starpu_data_handle_t cand, const sm_fin2_args_t *args, int prio)
{
  if (args->topk.k)
    return SM_INSERT(&cl_finalize2_topk, STARPU_R, num, STARPU_R, si, STARPU_R, sj,
                     STARPU_W, R, STARPU_W, cand, STARPU_CL_ARGS,
                     sm_cl_args_dup(R, args, sizeof *args), sizeof *args, STARPU_PRIORITY,
                     prio, STARPU_NAME, "finalize2", 0);
  /* where the numerators are made (on a device only the records come
   * back), unless the block needs what only the CPU finalize does */
  unsigned long long where =
      args->hist.bins || args->thr_ent.n ? STARPU_CPU : sm_cl_num_where;
  /* a simulation that keeps the finalize on CPUs removes the CUDA one
   * (sm_cl_sim_setup): then CPUs take it, even under --devices accel */
  if (!cl_finalize2.cuda_funcs[0])
    where |= STARPU_CPU;
  return SM_INSERT(&cl_finalize2, STARPU_R, num, STARPU_R, si, STARPU_R, sj, STARPU_W, R,
                   STARPU_CL_ARGS, sm_cl_args_dup(R, args, sizeof *args), sizeof *args,
                   STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, where, STARPU_NAME,
                   "finalize2", 0);
}

typedef struct topk_merge_args {
  uint64_t from; /* first candidate list merged */
  uint32_t n, k; /* lists merged, places per list */
} topk_merge_args_t;

static void cpu_topk_merge(void *buffers[], void *cl_arg)
{
  const topk_merge_args_t *a = cl_arg;
  sm_kern_topk_merge((sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[0]),
                     (const sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[1]) +
                         a->from * a->k,
                     a->n, a->k);
}

SM_CODELET(topk_merge, cpu_topk_merge, , 2, STARPU_RW, STARPU_R);

int sm_task_topk_merge(starpu_data_handle_t acc, starpu_data_handle_t cand, uint64_t from,
                       uint32_t n, uint32_t k, int prio)
{
  topk_merge_args_t args = {.from = from, .n = n, .k = k};
  return SM_INSERT(&cl_topk_merge, STARPU_RW, acc, STARPU_R, cand, SM_CL_ARGS(acc, args),
                   STARPU_PRIORITY, prio, STARPU_NAME, "topk_merge", 0);
}
