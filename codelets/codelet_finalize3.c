/* codelet_finalize3.c: finalize codelet of a 3-way piece: metric values,
 * threshold and checksum from plane numerators, 2-way numerators and sums,
 * on CPUs or, in two passes (sm_cl_devfin.h), on a device. */
#include "sm_cl_devfin.h"
#include "sm_cl_families.h"

static void cpu_finalize3(void *buffers[], void *cl_arg)
{
  const sm_fin3_args_t *a = cl_arg;
  sm_kern_finalize3(
      a, (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[1]), STARPU_MATRIX_GET_LD(buffers[1]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[2]), STARPU_MATRIX_GET_LD(buffers[2]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[3]), STARPU_MATRIX_GET_LD(buffers[3]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[4]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[5]),
      (const void *)STARPU_MATRIX_GET_PTR(buffers[6]),
      (sm_recbuf_t *)STARPU_VARIABLE_GET_PTR(buffers[7]));
}

/* ---- on a device: sm_fin3_count_* and sm_fin3_emit_* of codelets/device
 * over the piece's (plane, x) rows; pieces with a histogram or per-entry
 * thresholds run on CPUs (sm_task_finalize3) */
#if defined(SM_USE_CUDA) || defined(STARPU_USE_OPENCL)
static int fin3_flags(const sm_fin3_args_t *a)
{
  return (a->emit ? SM_FIN_EMIT : 0) | (a->keep_all ? SM_FIN_KEEPALL : 0) |
         (a->thr_f32 ? SM_FIN_THRF32 : 0) | (a->sparse ? SM_FIN_SPARSE : 0);
}

static void fin3_header(const void *a, uint64_t count, const uint64_t sums[4],
                        sm_recbuf_t *h)
{
  sm_kern_fin3_header(a, count, sums, h);
}

static sm_devfin_t fin3_devfin(const sm_fin3_args_t *a)
{
  return (sm_devfin_t){.codelet = "sm_finalize3",
                       .rows = (size_t)a->g * a->mx,
                       .emit = a->emit,
                       .header = fin3_header,
                       .args = a};
}
#endif

#ifdef STARPU_USE_OPENCL
static void ocl_finalize3(void *buffers[], void *cl_arg)
{
  const sm_fin3_args_t *a = cl_arg;
  const int fam = sm_devfin_family(a->metric, a->single);
  sm_ocl_arg_t args[40] = {
      sm_ocl_int(a->g),        sm_ocl_int(a->mx),       sm_ocl_int(a->my),
      sm_ocl_int(a->a_glob),   sm_ocl_int(a->a_off),    sm_ocl_int(a->x0),
      sm_ocl_int(a->y0),       sm_ocl_int(a->kind),     sm_ocl_int(fin3_flags(a)),
      sm_ocl_int((long)a->nf), sm_ocl_dbl(a->ccc_mult), sm_ocl_dbl(a->ccc_param),
      sm_ocl_dbl(a->threshold)};
  int k = 13;
  for (int b = 0; b < 4; b++) /* plane and 2-way numerators, with their lds */
    k = sm_ocl_matrix(args, k, buffers[b], sm_devfin_elem[fam], 0, 1);
  for (int b = 4; b < 7; b++) /* sums */
    k = sm_ocl_matrix(args, k, buffers[b], sm_devfin_elem[fam], 0, 0);
  const sm_devfin_t f = fin3_devfin(a);
  sm_ocl_finalize(&f, "sm_fin3", fam, args, k, buffers[7]);
}
#endif

#ifdef SM_USE_CUDA
static int fin3_count(const void *l, uint32_t *rowcnt, uint64_t *part, unsigned groups,
                      sm_cuda_stream_t s)
{
  return sm_cuda_fin3_count(l, rowcnt, part, groups, s);
}

static int fin3_emit(const void *l, const uint64_t *rowoff, void *rec, unsigned groups,
                     sm_cuda_stream_t s)
{
  return sm_cuda_fin3_emit(l, rowoff, rec, groups, s);
}

static void cuda_finalize3(void *buffers[], void *cl_arg)
{
  const sm_fin3_args_t *a = cl_arg;
  const sm_cuda_fin3_t launch = {.family = sm_devfin_family(a->metric, a->single),
                                 .g = (int)a->g,
                                 .mx = (int)a->mx,
                                 .my = (int)a->my,
                                 .a_glob = (int)a->a_glob,
                                 .a_off = (int)a->a_off,
                                 .x0 = (int)a->x0,
                                 .y0 = (int)a->y0,
                                 .kind = a->kind,
                                 .flags = fin3_flags(a),
                                 .nf = (int)a->nf,
                                 .mult = a->ccc_mult,
                                 .param = a->ccc_param,
                                 .thr = a->threshold,
                                 .num3 = (const void *)STARPU_MATRIX_GET_PTR(buffers[0]),
                                 .nax = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
                                 .nay = (const void *)STARPU_MATRIX_GET_PTR(buffers[2]),
                                 .nxy = (const void *)STARPU_MATRIX_GET_PTR(buffers[3]),
                                 .sa = (const void *)STARPU_MATRIX_GET_PTR(buffers[4]),
                                 .sx = (const void *)STARPU_MATRIX_GET_PTR(buffers[5]),
                                 .sy = (const void *)STARPU_MATRIX_GET_PTR(buffers[6]),
                                 .ld3 = STARPU_MATRIX_GET_LD(buffers[0]),
                                 .ldax = STARPU_MATRIX_GET_LD(buffers[1]),
                                 .lday = STARPU_MATRIX_GET_LD(buffers[2]),
                                 .ldxy = STARPU_MATRIX_GET_LD(buffers[3])};
  const sm_devfin_t f = fin3_devfin(a);
  sm_cuda_finalize(&f, fin3_count, fin3_emit, &launch, buffers[7]);
}
#endif

/* Pieces of one buffer size keep very different shares of their tile
 * triple: all of it, half when X and Y are one tile, down to a sixth on
 * the diagonal, depending on where the planes lie in tile X. Without that
 * class in the footprint StarPU's history mixes their times (and, on runs
 * without STARPU_SILENT, flushes it with a warning per task). */
static uint32_t finalize3_footprint(struct starpu_task *t)
{
  const sm_fin3_args_t *a = t->cl_arg;
  if (!a)
    return starpu_task_data_footprint(t);
  const sm_keep3_t k = {a->kind, a->a_glob, a->x0, a->y0};
  return sm_cl_keep3_footprint(t, &k, a->mx);
}

SM_CODELET(finalize3, cpu_finalize3,
           SM_CL_CUDA(cuda_finalize3) SM_CL_OPENCL(ocl_finalize3), 8, STARPU_R, STARPU_R,
           STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W);

void sm_cl_finalize3_setup(void)
{
  model_finalize3.footprint = finalize3_footprint;
}

#ifdef SM_SIMULATION
void sm_cl_sim_gpu_finalize3(starpu_cpu_func_t f)
{
  cl_finalize3.cuda_funcs[0] = f;
}
#endif

int sm_task_finalize3(starpu_data_handle_t num3, starpu_data_handle_t n2ax,
                      starpu_data_handle_t n2ay, starpu_data_handle_t n2xy,
                      starpu_data_handle_t sa, starpu_data_handle_t sx,
                      starpu_data_handle_t sy, starpu_data_handle_t R,
                      const sm_fin3_args_t *args, int prio)
{
  /* where the numerators are made (on a device only the records come
   * back), unless the piece needs what only the CPU finalize does */
  const unsigned long long where =
      sm_devfin_where(&cl_finalize3, args->hist.bins || args->thr_ent.n);
  sm_devfin_records_on_host(&cl_finalize3, 7);
  return SM_INSERT(&cl_finalize3, STARPU_R, num3, STARPU_R, n2ax, STARPU_R, n2ay,
                   STARPU_R, n2xy, STARPU_R, sa, STARPU_R, sx, STARPU_R, sy, STARPU_W, R,
                   STARPU_CL_ARGS, sm_cl_args_dup(R, args, sizeof *args), sizeof *args,
                   STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, where, STARPU_NAME,
                   "finalize3", 0);
}
