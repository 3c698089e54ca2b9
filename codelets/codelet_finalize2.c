/* codelet_finalize2.c: finalize codelets of a 2-way block: metric values,
 * threshold, checksum and histogram counts from numerators and vector sums
 * (with --top-k also the block's candidate neighbours), and the merge of
 * candidates into a tile's neighbour lists. */
#include "sm_cl_devfin.h"
#include "sm_cl_families.h"

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

/* ---- on a device (CUDA, OpenCL): the kernels of codelets/device in two
 * passes (sm_cl_devfin.h); only the records (and the header) cross to the
 * host. Blocks with a histogram, top-k or per-entry thresholds run on CPUs
 * (sm_task_finalize2). */
#if defined(SM_USE_CUDA) || defined(STARPU_USE_OPENCL)
static int fin2_flags(const sm_fin2_args_t *a)
{
  return (a->diag ? SM_FIN_DIAG : 0) | (a->swap ? SM_FIN_SWAP : 0) |
         (a->emit ? SM_FIN_EMIT : 0) | (a->keep_all ? SM_FIN_KEEPALL : 0) |
         (a->thr_f32 ? SM_FIN_THRF32 : 0) | (a->sparse ? SM_FIN_SPARSE : 0) |
         (a->form == SM_FORM_BC ? SM_FIN_BC : 0) |
         (a->form == SM_FORM_JACCARD ? SM_FIN_JACCARD : 0) |
         (a->zero_nan ? SM_FIN_ZNAN : 0);
}

static void fin2_header(const void *a, uint64_t count, const uint64_t sums[4],
                        sm_recbuf_t *h)
{
  sm_kern_fin2_header(a, count, sums, h);
}

static sm_devfin_t fin2_devfin(const sm_fin2_args_t *a)
{
  return (sm_devfin_t){.codelet = "sm_finalize2",
                       .rows = a->m,
                       .emit = a->emit,
                       .header = fin2_header,
                       .args = a};
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  const int fam = sm_devfin_family(a->metric, a->single);
  sm_ocl_arg_t args[24] = {
      sm_ocl_int(a->m),        sm_ocl_int(a->n),          sm_ocl_int(a->i0),
      sm_ocl_int(a->j0),       sm_ocl_int(fin2_flags(a)), sm_ocl_int((long)a->nf),
      sm_ocl_dbl(a->ccc_mult), sm_ocl_dbl(a->ccc_param),  sm_ocl_dbl(a->threshold)};
  int k = sm_ocl_matrix(args, 9, buffers[0], sm_devfin_elem[fam], 0, 1);
  k = sm_ocl_matrix(args, k, buffers[1], sm_devfin_elem[fam], 0, 0);
  k = sm_ocl_matrix(args, k, buffers[2], sm_devfin_elem[fam], 0, 0);
  const sm_devfin_t f = fin2_devfin(a);
  sm_ocl_finalize(&f, "sm_fin2", fam, args, k, buffers[3]);
}
#endif

#ifdef SM_USE_CUDA
static int fin2_count(const void *l, uint32_t *rowcnt, uint64_t *part, unsigned groups,
                      sm_cuda_stream_t s)
{
  return sm_cuda_fin2_count(l, rowcnt, part, groups, s);
}

static int fin2_emit(const void *l, const uint64_t *rowoff, void *rec, unsigned groups,
                     sm_cuda_stream_t s)
{
  return sm_cuda_fin2_emit(l, rowoff, rec, groups, s);
}

static void cuda_finalize2(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  const sm_cuda_fin2_t launch = {.family = sm_devfin_family(a->metric, a->single),
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
  const sm_devfin_t f = fin2_devfin(a);
  sm_cuda_finalize(&f, fin2_count, fin2_emit, &launch, buffers[3]);
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

/* PLINK's r and r^2: the moments, the homozygous-called tallies, the
 * sums; on CPUs. */
static void cpu_finalize2_ld(void *buffers[], void *cl_arg)
{
  const sm_fin2_args_t *a = cl_arg;
  sm_kern_finalize2_ld(
      a, (const uint32_t *)STARPU_MATRIX_GET_PTR(buffers[0]),
      STARPU_MATRIX_GET_LD(buffers[0]),
      (const uint32_t *)STARPU_MATRIX_GET_PTR(buffers[1]),
      STARPU_MATRIX_GET_LD(buffers[1]), (const void *)STARPU_MATRIX_GET_PTR(buffers[2]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[3]),
      (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[4]),
      a->topk.k ? (sm_topk_ent_t *)STARPU_VARIABLE_GET_PTR(buffers[5]) : NULL);
}

SM_CODELET(finalize2_ld, cpu_finalize2_ld, , 5, STARPU_R, STARPU_R, STARPU_R, STARPU_R,
           STARPU_W);
SM_CODELET(finalize2_ld_topk, cpu_finalize2_ld, , 6, STARPU_R, STARPU_R, STARPU_R,
           STARPU_R, STARPU_W, STARPU_W);

int sm_task_finalize2(starpu_data_handle_t num, starpu_data_handle_t hom,
                      starpu_data_handle_t si, starpu_data_handle_t sj,
                      starpu_data_handle_t R, starpu_data_handle_t cand,
                      const sm_fin2_args_t *args, int prio)
{
  if (hom && args->topk.k)
    return SM_INSERT(&cl_finalize2_ld_topk, STARPU_R, num, STARPU_R, hom, STARPU_R, si,
                     STARPU_R, sj, STARPU_W, R, STARPU_W, cand, STARPU_CL_ARGS,
                     sm_cl_args_dup(R, args, sizeof *args), sizeof *args, STARPU_PRIORITY,
                     prio, STARPU_NAME, "finalize2", 0);
  if (hom)
    return SM_INSERT(&cl_finalize2_ld, STARPU_R, num, STARPU_R, hom, STARPU_R, si,
                     STARPU_R, sj, STARPU_W, R, STARPU_CL_ARGS,
                     sm_cl_args_dup(R, args, sizeof *args), sizeof *args, STARPU_PRIORITY,
                     prio, STARPU_NAME, "finalize2", 0);
  if (args->topk.k)
    return SM_INSERT(&cl_finalize2_topk, STARPU_R, num, STARPU_R, si, STARPU_R, sj,
                     STARPU_W, R, STARPU_W, cand, STARPU_CL_ARGS,
                     sm_cl_args_dup(R, args, sizeof *args), sizeof *args, STARPU_PRIORITY,
                     prio, STARPU_NAME, "finalize2", 0);
  /* where the numerators are made (on a device only the records come
   * back), unless the block needs what only the CPU finalize does */
  const unsigned long long where =
      sm_devfin_where(&cl_finalize2, args->hist.bins || args->thr_ent.n || args->ld_win);
  sm_devfin_records_on_host(&cl_finalize2, 3);
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
