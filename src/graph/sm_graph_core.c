/* sm_graph_core.c: tiles, sums, tokens and StarPU-MPI registration shared
 * by the 2-way and 3-way graphs, and the lockstep walk that submits either
 * graph row by row. */
#include "sm_graph_core.h"
#include "sm_mpi.h"

#include "sm_starpu_mpi.h"
#include <stdlib.h>

#include "sm_codelets.h"
#include "sm_csr.h"
#include "sm_observe.h"
#include "sm_sched.h"
#include "sm_timer.h"

void sm_gcore_register(sm_gcore_t *g, starpu_data_handle_t h, int owner)
{
  int64_t tag = g->tag++;
  if (g->o->use_mpi)
    starpu_mpi_data_register(h, tag, owner);
}

uint64_t sm_gcore_local_tasks(const sm_gcore_t *g, int I, int r, int ffin, int fin,
                              int checked)
{
  const uint64_t each = checked && sm_codelets_resilience_tasks() ? 2 : 1;
  uint64_t n = 0;
  for (int f = 0; f < g->d->npf; f++)
    n += sm_decomp_rank(g->d, I, f, r) == g->me ? each : 0;
  if (sm_decomp_rank(g->d, I, ffin, r) ==
      g->me) /* reductions, finalize, [format,] output */
    n += (uint64_t)(g->d->npf - 1) +
         (fin ? 2 + (uint64_t)(g->o->emit && sm_sink_text(g->sink)) : 0);
  return n;
}

int sm_gcore_add_type(const sm_gcore_t *g)
{
  return g->ccc ? SM_ADD_U32 : (g->o->single ? SM_ADD_F32 : SM_ADD_F64);
}

void sm_gcore_throttle(const sm_gcore_t *g)
{
  /* the window of tasks in flight for this rank */
  starpu_task_wait_for_n_submitted(sm_graph_in_flight(
      starpu_worker_get_count(), (unsigned)g->d->npf, g->o->ld_win != NULL));
}

static size_t slice_ld(const sm_gcore_t *g, int f)
{
  size_t f0, nf;
  sm_decomp_slice(g->d, f, &f0, &nf);
  return sm_vectors_ld(g->v->metric, g->v->elem_size, nf);
}

static void register_tiles(sm_gcore_t *g)
{
  const sm_decomp_t *d = g->d;
  const size_t es = g->v->elem_size;
  const size_t sum_elem = g->ccc ? sizeof(uint32_t) : es;
  for (int I = 0; I < d->npv; I++)
    for (int t = 0; t < sm_decomp_ntiles(d, I); t++) {
      size_t tv0, tn;
      sm_decomp_tile(d, I, t, &tv0, &tn);
      int tile = g->tile_base[I] + t;
      for (int f = 0; f < d->npf; f++)
        for (int r = 0; r < d->npr; r++) {
          int owner = sm_decomp_rank(d, I, f, r);
          size_t ld = slice_ld(g, f), k = sm_gcore_hidx(g, tile, f, r);
          if (g->o->czek_sparse) { /* a packed sparse tile (sm_csr.h) */
            size_t f0, nf;
            sm_decomp_slice(d, f, &f0, &nf);
            const size_t bytes = sm_csr_bytes(
                tn, nf, (size_t)g->o->csr_nnz[(size_t)tile * d->npf + f], es);
            if (owner == g->me)
              starpu_variable_data_register(&g->x[k], STARPU_MAIN_RAM,
                                            (uintptr_t)g->o->csr_local[t], bytes);
            else
              starpu_variable_data_register(&g->x[k], -1, 0, bytes);
          } else if (owner == g->me)
            starpu_matrix_data_register(&g->x[k], STARPU_MAIN_RAM,
                                        (uintptr_t)sm_vectors_row(g->v, tv0), ld, ld, tn,
                                        es);
          else
            starpu_matrix_data_register(&g->x[k], -1, 0, ld, ld, tn, es);
          sm_gcore_register(g, g->x[k], owner);
          size_t snx = g->ccc ? 2 * tn : tn;
          starpu_matrix_data_register(&g->sums[k], -1, 0, snx, snx, 1, sum_elem);
          sm_gcore_register(g, g->sums[k], owner);
        }
    }
}

/* Denominators: sums of every tile on every field slice, then the field
 * reduction into the f = 0 handle, slices added in order. */
static int submit_sums(sm_gcore_t *g, uint64_t *ntasks)
{
  const sm_decomp_t *d = g->d;
  const int prio = sm_sched_prio(g->o->prio, SM_TK_SUMS);
  int ret = 0;
  for (int I = 0; I < d->npv && !ret; I++)
    for (int t = 0; t < sm_decomp_ntiles(d, I) && !ret; t++)
      for (int r = 0; r < d->npr && !ret; r++) {
        int tile = g->tile_base[I] + t;
        sm_observe_block(tile, -1, -1);
        g->local_tasks += sm_gcore_local_tasks(g, I, r, 0, 0, 0);
        for (int f = 0; f < d->npf && !ret; f++) {
          size_t f0, nf, k = sm_gcore_hidx(g, tile, f, r);
          sm_decomp_slice(d, f, &f0, &nf);
          ret = g->ccc ? sm_task_sums_ccc(g->x[k], g->sums[k], g->o->sparse, nf, prio)
                : g->o->czek_sparse
                    ? sm_task_sums_czek_sparse(g->x[k], g->sums[k], g->o->single, prio)
                    : sm_task_sums_czek(g->x[k], g->sums[k], g->o->single, nf, prio);
          ++*ntasks;
        }
        for (int f = 1; f < d->npf && !ret; f++) {
          ret = sm_task_add(g->sums[sm_gcore_hidx(g, tile, 0, r)],
                            g->sums[sm_gcore_hidx(g, tile, f, r)], sm_gcore_add_type(g),
                            0, prio);
          ++*ntasks;
        }
      }
  return ret;
}

/* The neighbour lists of every tile's vectors, on rank 0 (in topk_acc,
 * filled with empty places); registered after the tokens, on every rank. */
static sm_err_t register_topk(sm_gcore_t *g)
{
  const sm_topk_spec_t *t = &g->o->topk;
  const uint64_t per = (uint64_t)t->lists * t->k;
  g->topk = calloc((size_t)g->ntiles, sizeof *g->topk);
  if (!g->topk)
    return SM_ENOMEM;
  if (g->me == 0)
    for (uint64_t p = 0; p < g->d->nv * per; p++)
      g->o->topk_acc[p] = (sm_topk_ent_t){0, SM_TOPK_EMPTY, 0};
  for (int I = 0; I < g->d->npv; I++)
    for (int tI = 0; tI < g->tile_base[I + 1] - g->tile_base[I]; tI++) {
      size_t p0, pn, t0, m;
      sm_decomp_part(g->d, I, &p0, &pn);
      sm_decomp_tile(g->d, I, tI, &t0, &m);
      starpu_data_handle_t *h = &g->topk[g->tile_base[I] + tI];
      const size_t bytes = m * per * sizeof(sm_topk_ent_t);
      if (g->me == 0)
        starpu_variable_data_register(
            h, STARPU_MAIN_RAM, (uintptr_t)(g->o->topk_acc + (p0 + t0) * per), bytes);
      else
        starpu_variable_data_register(h, -1, 0, bytes);
      sm_gcore_register(g, *h, 0);
    }
  return SM_OK;
}

static void unregister_all(sm_gcore_t *g)
{
  size_t nh = (size_t)g->ntiles * g->d->npf * g->d->npr;
  for (size_t k = 0; k < nh; k++) {
    if (g->x && g->x[k])
      starpu_data_unregister(g->x[k]);
    if (g->sums && g->sums[k])
      starpu_data_unregister(g->sums[k]);
  }
  for (size_t k = 0; g->x8 && k < nh * (size_t)g->d->npv; k++)
    if (g->x8[k])
      starpu_data_unregister(g->x8[k]);
  free(g->x8);
  free(g->x8_last);
  g->x8 = NULL;
  g->x8_last = NULL;
  if (g->pinned)
    starpu_memory_unpin(g->v->data, g->pinned);
  g->pinned = 0;
  for (int k = 0; g->token && k < g->nranks; k++)
    if (g->token[k])
      starpu_data_unregister(g->token[k]);
  for (int t = 0; g->topk && t < g->ntiles; t++)
    if (g->topk[t])
      starpu_data_unregister(g->topk[t]); /* rank 0: the lists are back in topk_acc */
  free(g->topk);
  g->topk = NULL;
  free(g->x);
  free(g->sums);
  free(g->token);
  free(g->tile_base);
  g->x = g->sums = g->token = NULL;
  g->tile_base = NULL;
}

/* Register every tile, sums and token handle and submit the sums tasks
 * with their field reduction. */
static sm_err_t init(sm_gcore_t *g, const sm_vectors_t *local, const sm_graph_opts_t *o,
                     sm_sink_t *sink, sm_graph_stats_t *st)
{
  const sm_decomp_t *d = o->d;
  *g = (sm_gcore_t){.d = d,
                    .o = o,
                    .v = local,
                    .sink = sink,
                    .st = st,
                    .ccc = local->metric == SM_METRIC_CCC,
                    .me = o->rank,
                    .nranks = d->npv * d->npf * d->npr};
  sm_decomp_coords(d, o->rank, &g->pv, &g->pf, &g->pr);
  g->tile_base = calloc((size_t)d->npv + 1, sizeof(int));
  if (!g->tile_base)
    return SM_ENOMEM;
  for (int I = 0; I < d->npv; I++)
    g->tile_base[I + 1] = g->tile_base[I] + sm_decomp_ntiles(d, I);
  g->ntiles = g->tile_base[d->npv];
  st->ntiles = (size_t)g->ntiles;
  size_t nh = (size_t)g->ntiles * d->npf * d->npr;
  g->x = calloc(nh, sizeof *g->x);
  g->sums = calloc(nh, sizeof *g->sums);
  g->token = calloc((size_t)g->nranks, sizeof *g->token);
  if (o->ccc_i8 && g->ccc) {
    g->x8 = calloc(nh * (size_t)d->npv, sizeof *g->x8);
    g->x8_last = malloc(nh * (size_t)d->npv * sizeof *g->x8_last);
    if (!g->x8 || !g->x8_last) {
      unregister_all(g);
      return SM_ENOMEM;
    }
    for (size_t k = 0; k < nh * (size_t)d->npv; k++)
      g->x8_last[k] = UINT64_MAX;
  }
  if (!g->x || !g->sums || !g->token) {
    unregister_all(g);
    return SM_ENOMEM;
  }
  /* tiles move to GPUs by DMA from pinned memory (asynchronous copies) */
  const size_t bytes = g->v->ld * g->v->elem_size * g->v->nv;
  if (starpu_cuda_worker_get_count() > 0 && bytes && !o->czek_sparse &&
      starpu_memory_pin(g->v->data, bytes) == 0)
    g->pinned = bytes;
  register_tiles(g);
  for (int k = 0; k < g->nranks; k++) {
    if (k == g->me)
      starpu_variable_data_register(&g->token[k], STARPU_MAIN_RAM,
                                    (uintptr_t)&g->token_value, sizeof g->token_value);
    else
      starpu_variable_data_register(&g->token[k], -1, 0, sizeof g->token_value);
    sm_gcore_register(g, g->token[k], k);
  }
  if (o->topk.k && register_topk(g) != SM_OK) {
    unregister_all(g);
    return SM_ENOMEM;
  }
  if (submit_sums(g, &st->ntasks)) {
    sm_log_error("task insertion failed");
    starpu_task_wait_for_all();
    unregister_all(g);
    return SM_ERUNTIME;
  }
  return SM_OK;
}

/* Wait for every task (and StarPU-MPI request) and unregister. */
static void fini(sm_gcore_t *g)
{
  starpu_task_wait_for_all();
  if (g->o->use_mpi)
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  unregister_all(g);
}

/* Item p of a row's list, or NULL when the list is shorter or the item is
 * outside the phases asked for. */
static const void *row_item(const sm_gcore_t *g, const sm_gcore_rows_t *rows,
                            void *const *list, const size_t *len, int row, size_t p)
{
  if (p >= len[row])
    return NULL;
  const void *item = (const char *)list[row] + p * rows->item_size;
  const int phase = rows->phase(item);
  return phase >= g->o->phase_min && phase <= g->o->phase_max ? item : NULL;
}

/* First pass: the output blocks and tasks of this rank (progress line). */
static void count_rows(sm_gcore_t *g, const sm_gcore_rows_t *rows, void *const *list,
                       const size_t *len, size_t maxlen)
{
  const int nrows = g->d->npv * g->d->npr;
  for (size_t p = 0; p < maxlen; p++)
    for (int row = 0; row < nrows; row++) {
      const void *item = row_item(g, rows, list, len, row, p);
      if (item)
        rows->count(g, rows->ctx, row, item);
    }
  sm_observe_expect(g->local_tasks);
}

/* Second pass: the rows' items in lockstep, with a bounded number of tasks
 * in flight; adds the time spent inserting to *t_sub. */
/* This rank could not insert a task: the other ranks' tasks would wait for
 * data it never sends (and they may be waiting for their tasks in flight,
 * so they cannot be asked to agree): the whole job ends now, non-zero.
 * Partial outputs and manifests stay for --resume. */
static void stop_all_ranks(sm_err_t err)
{
  sm_log_error("this rank could not insert its tasks (%s): stopping every rank; the "
               "partial outputs and manifests stay for --resume",
               sm_strerror(err));
  sm_mpi_abort(err);
}

static sm_err_t submit_rows(sm_gcore_t *g, const sm_gcore_rows_t *rows, void *const *list,
                            const size_t *len, size_t maxlen, double *t_sub)
{
  const int nrows = g->d->npv * g->d->npr;
  sm_err_t err = SM_OK;
  for (size_t p = 0; p < maxlen && !err; p++)
    for (int row = 0; row < nrows && !err; row++) {
      const void *item = row_item(g, rows, list, len, row, p);
      if (!item)
        continue;
      const double ts = sm_now();
      err = rows->submit(g, rows->ctx, row, item);
      if (err) {
        sm_log_error("task insertion failed on rank %d", g->o->rank);
        if (g->o->use_mpi)
          stop_all_ranks(err);
      }
      *t_sub += sm_now() - ts;
      sm_gcore_throttle(g);
    }
  return err;
}

/* The run's clock: wall time, or in a simulation build the simulated time
 * (StarPU's clock is SimGrid's there; kernels do not run). */
static double graph_now(void)
{
#ifdef SM_SIMULATION
  return starpu_timing_now() * 1e-6;
#else
  return sm_now();
#endif
}

sm_err_t sm_gcore_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                      sm_sink_t *sink, sm_graph_stats_t *st, const sm_gcore_rows_t *rows)
{
  const sm_decomp_t *d = o->d;
  *st = (sm_graph_stats_t){.block_size = d->block_size};
  const double t0 = graph_now();
  sm_gcore_t g;
  sm_err_t err = init(&g, local, o, sink, st);
  if (err)
    return err;
  const int nrows = d->npv * d->npr;
  void **list = calloc((size_t)nrows, sizeof *list);
  size_t *len = calloc((size_t)nrows, sizeof *len), maxlen = 0;
  if (!list || !len)
    err = SM_ENOMEM;
  for (int row = 0; row < nrows && !err; row++) {
    list[row] = rows->list(d, row % d->npv, row / d->npv, &len[row], &err);
    if (len[row] > maxlen)
      maxlen = len[row];
  }
  if (!err)
    count_rows(&g, rows, list, len, maxlen);
  double t_sub = graph_now() - t0; /* the sums and the lists count as submission */
  if (!err)
    err = submit_rows(&g, rows, list, len, maxlen, &t_sub);
  for (int row = 0; list && row < nrows; row++)
    free(list[row]);
  free(list);
  free(len);
  fini(&g);
  st->t_submit = t_sub;
  st->t_run = graph_now() - t0;
  if (!err && sink->err)
    err = (sm_err_t)sink->err;
  return err;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int sm_graph_skipped(const sm_graph_opts_t *o, uint64_t id)
{
  return o->nskip && bsearch(&id, o->skip, o->nskip, sizeof id, cmp_u64) != NULL;
}
