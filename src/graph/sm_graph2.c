/* sm_graph2.c: the 2-way task graph over the npv x npf x npr rank grid.
 * Handles are registered in the same order on every rank, so a running
 * counter gives each its StarPU-MPI tag. Tile pairs are submitted rank row
 * by rank row in lockstep, with a bounded number in flight. */
#include "sm_graph.h"
#include "sm_graph_core.h"

#include <math.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include <stdlib.h>

#include "sm_codelets.h"
#include "sm_observe.h"
#include "sm_sched.h"
#include "sm_timer.h"

size_t sm_graph_auto_block(size_t nv, int nworkers, int emit, int metric_ccc)
{
  if (nworkers < 1)
    nworkers = 1;
  /* enough tile pairs to keep every worker busy with a few to spare */
  size_t tiles = (size_t)ceil(sqrt(16.0 * nworkers));
  size_t bs = (nv + tiles - 1) / tiles;
  /* bound the per-block buffers (records are 24 bytes per value) */
  size_t cap = emit ? (metric_ccc ? 512 : 1024) : 2048;
  if (bs > cap)
    bs = cap;
  if (bs < 16)
    bs = 16;
  return bs;
}

/* All tasks of one tile pair. */
static int submit_subblock(sm_gcore_t *g, const sm_subblock_t *s, int r, sm_sink_t *sink,
                           sm_graph_stats_t *st)
{
  const sm_decomp_t *d = g->d;
  const sm_graph_opts_t *o = g->o;
  const int npf = d->npf;
  size_t pI0, pIn, pJ0, pJn, tI0, m, tJ0, n;
  sm_decomp_part(d, s->I, &pI0, &pIn);
  sm_decomp_part(d, s->J, &pJ0, &pJn);
  sm_decomp_tile(d, s->I, s->tI, &tI0, &m);
  sm_decomp_tile(d, s->J, s->tJ, &tJ0, &n);
  const int tileI = g->tile_base[s->I] + s->tI, tileJ = g->tile_base[s->J] + s->tJ;
  const size_t nmom = SM_CCC2_NMOM(o->sparse);
  const size_t num_elem = g->ccc ? nmom * sizeof(uint32_t) : g->v->elem_size;
  /* the field slice whose rank reduces, finalizes and writes this pair */
  const int ffin = (int)(s->seq % (uint64_t)npf);
  const int fin_rank = sm_decomp_rank(d, s->I, ffin, r);
  starpu_data_handle_t num[64], *nump = num, rec;
  if (npf > 64 && !(nump = malloc((size_t)npf * sizeof *nump)))
    return -ENOMEM;
  int ret = 0;
  for (int f = 0; f < npf; f++) {
    starpu_matrix_data_register(&nump[f], -1, 0, n, n, m, num_elem);
    sm_gcore_register(g, nump[f], sm_decomp_rank(d, s->I, f, r));
  }
  sm_fin2_args_t fa = {
      .metric = g->ccc,
      .single = o->single,
      .sparse = o->sparse,
      .diag = s->I == s->J && s->tI == s->tJ,
      .swap = pI0 > pJ0,
      .i0 = (uint32_t)(pI0 + tI0),
      .j0 = (uint32_t)(pJ0 + tJ0),
      .m = (uint32_t)m,
      .n = (uint32_t)n,
      .nf = d->nf,
      .ccc_mult = o->ccc_mult,
      .ccc_param = o->ccc_param,
      .keep_all = o->keep_all,
      .threshold = o->threshold,
      .thr_f32 = o->thr_f32,
      .emit = o->emit,
  };
  size_t rec_bytes =
      sizeof(sm_recbuf_t) + (o->emit ? sm_fin2_max_records(&fa) : 0) * sizeof(sm_rec_t);
  starpu_variable_data_register(&rec, -1, 0, rec_bytes);
  sm_gcore_register(g, rec, fin_rank);
  const int pr_num = sm_sched_prio(o->prio, SM_TK_BLOCK2),
            pr_add = sm_sched_prio(o->prio, SM_TK_REDUCE),
            pr_fin = sm_sched_prio(o->prio, SM_TK_FINALIZE),
            pr_out = sm_sched_prio(o->prio, SM_TK_OUTPUT);
  sm_observe_block(tileI, tileJ, -1);
  for (int f = 0; f < npf && !ret; f++) {
    size_t f0, nf;
    sm_decomp_slice(d, f, &f0, &nf);
    starpu_data_handle_t A = g->x[sm_gcore_hidx(g, tileI, f, r)], B = g->x[sm_gcore_hidx(g, tileJ, f, r)];
    ret = g->ccc ? sm_task_ccc2(A, B, nump[f], o->sparse, nf, pr_num)
                 : sm_task_czek2(A, B, nump[f], o->single, nf, pr_num);
    st->ntasks++;
    if (!ret && sm_codelets_resilience_on()) {
      ret = sm_task_verify2(nump[f], A, B, g->ccc, g->ccc ? o->sparse : o->single, nf,
                            st->nblocks, pr_num);
      st->ntasks++;
    }
    if (sm_decomp_rank(d, s->I, f, r) == g->me) {
      st->my_subblocks++;
      st->my_pairs += fa.diag ? (uint64_t)m * (m - 1) / 2 : (uint64_t)m * n;
    }
  }
  /* reduction in a fixed order: the finalizing slice, then the others */
  for (int f = 0; f < npf && !ret; f++) {
    if (f == ffin)
      continue;
    ret = sm_task_add(nump[ffin], nump[f],
                      sm_gcore_add_type(g), pr_add);
    st->ntasks++;
  }
  if (!ret)
    ret = sm_task_finalize2(nump[ffin], g->sums[sm_gcore_hidx(g, tileI, 0, r)],
                            g->sums[sm_gcore_hidx(g, tileJ, 0, r)], rec, &fa, pr_fin);
  if (!ret)
    ret = sm_task_output(rec, g->token[fin_rank], sm_sink_put, sink, st->nblocks, pr_out);
  st->ntasks += 2;
  if (fin_rank == g->me)
    st->my_outputs++;
  for (int f = 0; f < npf; f++)
    starpu_data_unregister_submit(nump[f]);
  starpu_data_unregister_submit(rec);
  if (nump != num)
    free(nump);
  return ret;
}

sm_err_t sm_graph2_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st)
{
  const sm_decomp_t *d = o->d;
  *st = (sm_graph_stats_t){.block_size = d->block_size};
  double t0 = sm_now(), t_sub = 0, ts = sm_now();
  sm_gcore_t g;
  sm_err_t err = sm_gcore_init(&g, local, o, st);
  if (err)
    return err;
  /* the tile pairs of every rank row, submitted in lockstep */
  const int nrows = d->npv * d->npr;
  sm_subblock_t **list = calloc((size_t)nrows, sizeof *list);
  size_t *len = calloc((size_t)nrows, sizeof *len), maxlen = 0;
  if (!list || !len)
    err = SM_ENOMEM;
  for (int row = 0; row < nrows && !err; row++) {
    list[row] = sm_decomp_subblocks2(d, row % d->npv, row / d->npv, &len[row], &err);
    if (len[row] > maxlen)
      maxlen = len[row];
  }
  /* blocks for this rank's output, for the progress line */
  for (int row = 0; row < nrows && !err; row++)
    for (size_t k = 0; k < len[row]; k++) {
      const sm_subblock_t *s = &list[row][k];
      int fin = sm_decomp_rank(d, s->I, (int)(s->seq % (uint64_t)d->npf), row / d->npv);
      if (fin == g.me && s->phase >= o->phase_min && s->phase <= o->phase_max)
        sink->blocks_total++;
      if (s->phase >= o->phase_min && s->phase <= o->phase_max)
        g.local_tasks += sm_gcore_local_tasks(&g, s->I, row / d->npv,
                                              (int)(s->seq % (uint64_t)d->npf), 1);
    }
  sm_observe_expect(g.local_tasks);
  const unsigned window = sm_gcore_window(&g);
  t_sub += sm_now() - ts;
  for (size_t p = 0; p < maxlen && !err; p++)
    for (int row = 0; row < nrows && !err; row++) {
      if (p >= len[row])
        continue;
      const sm_subblock_t *s = &list[row][p];
      if (s->phase < o->phase_min || s->phase > o->phase_max)
        continue;
      if (sm_graph_skipped(o, st->nblocks)) { /* done by an interrupted run */
        st->nblocks++;
        continue;
      }
      ts = sm_now();
      if (submit_subblock(&g, s, row / d->npv, sink, st)) {
        sm_log_error("task insertion failed");
        err = SM_ERUNTIME;
      }
      st->nblocks++;
      t_sub += sm_now() - ts;
      starpu_task_wait_for_n_submitted(window);
    }
  for (int row = 0; list && row < nrows; row++)
    free(list[row]);
  free(list);
  free(len);
  sm_gcore_fini(&g);
  st->t_submit = t_sub;
  st->t_run = sm_now() - t0;
  if (!err && sink->err)
    err = (sm_err_t)sink->err;
  return err;
}
