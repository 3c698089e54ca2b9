/* sm_graph3.c: the 3-way task graph. Each rank row's slab is cut into
 * (npv+1)(npv+2) slices (sm_decomp_slices3); a slice's planes (restricted
 * to the stages asked for) are walked tile by tile of the plane partition,
 * against tile pairs (tX, tY) of the two other partitions. Per tile triple:
 * the 2-way numerators it needs (once, as tasks); per group of planes: the
 * plane numerators per field slice, their reduction in a fixed order, a
 * finalize and an output task. */
#include "sm_graph.h"
#include "sm_graph_core.h"

#include <starpu.h>
#include <stdlib.h>

#include "sm_codelets.h"
#include "sm_observe.h"
#include "sm_sched.h"
#include "sm_timer.h"

size_t sm_graph_auto_block3(size_t nv)
{
  /* Tiles of the diagonal and face blocks compute whole tile triples of
   * which only the ordered part (a < x < y) is kept, so smaller tiles waste
   * less; 32..64 keeps the per-plane modified GEMMs efficient (measured:
   * 300 x 4000 czekanowski single, 1.0e10 comparisons/s at 32 vs 3.5e9 at
   * 256 on 2 cores). */
  size_t bs = nv / 8 / 16 * 16; /* whole register tiles */
  return bs < 16 ? 16 : bs > 64 ? 64 : bs;
}

typedef struct piece {
  int row_repl;           /* replica of the row */
  const sm_slice3_t *sl;
  size_t lo, hi;          /* planes of this stage (partition-local) */
} piece_t;

/* 2-way numerators of tile A (rows) against tile B, per field slice,
 * reduced into the slice ffin; returns the reduced handle in *out and the
 * per-slice handles to unregister in h[]. */
static int submit_n2(sm_gcore_t *g, int tileA, int tileB, int r, int I, int ffin,
                     starpu_data_handle_t *h, sm_graph_stats_t *st)
{
  const sm_decomp_t *d = g->d;
  const sm_graph_opts_t *o = g->o;
  starpu_data_handle_t A0 = g->x[sm_gcore_hidx(g, tileA, 0, r)];
  starpu_data_handle_t B0 = g->x[sm_gcore_hidx(g, tileB, 0, r)];
  size_t m = starpu_matrix_get_ny(A0), n = starpu_matrix_get_ny(B0);
  size_t elem = g->ccc ? SM_CCC2_NMOM(o->sparse) * sizeof(uint32_t) : g->v->elem_size;
  int ret = 0;
  for (int f = 0; f < d->npf && !ret; f++) {
    size_t f0, nf;
    sm_decomp_slice(d, f, &f0, &nf);
    starpu_matrix_data_register(&h[f], -1, 0, n, n, m, elem);
    sm_gcore_register(g, h[f], sm_decomp_rank(d, I, f, r));
    starpu_data_handle_t A = g->x[sm_gcore_hidx(g, tileA, f, r)],
                         B = g->x[sm_gcore_hidx(g, tileB, f, r)];
    ret = g->ccc ? sm_task_ccc2(A, B, h[f], o->sparse, nf, sm_sched_prio(o->prio, SM_TK_PAIR3))
                 : sm_task_czek2(A, B, h[f], o->single, nf, sm_sched_prio(o->prio, SM_TK_PAIR3));
    st->ntasks++;
    if (!ret && sm_codelets_resilience_on()) {
      ret = sm_task_verify2(h[f], A, B, g->ccc, g->ccc ? o->sparse : o->single, nf,
                            st->nblocks, sm_sched_prio(o->prio, SM_TK_PAIR3));
      st->ntasks++;
    }
  }
  for (int f = 0; f < d->npf && !ret; f++) {
    if (f == ffin)
      continue;
    ret = sm_task_add(h[ffin], h[f], sm_gcore_add_type(g), sm_sched_prio(o->prio, SM_TK_REDUCE));
    st->ntasks++;
  }
  return ret;
}

/* Planes per task: enough work per task, bounded record buffers. */
static size_t plane_group(const sm_graph_opts_t *o, size_t mx, size_t my)
{
  size_t target = o->emit ? ((size_t)1 << 16) : ((size_t)1 << 18);
  size_t pairs = mx * my;
  size_t g = target / (pairs ? pairs : 1);
  return g ? g : 1;
}

static int submit_piece(sm_gcore_t *g, const piece_t *pc, sm_sink_t *sink,
                        sm_graph_stats_t *st, uint64_t *counter)
{
  const sm_decomp_t *d = g->d;
  const sm_graph_opts_t *o = g->o;
  const sm_slice3_t *sl = pc->sl;
  const int r = pc->row_repl, I = sl->I, npf = d->npf;
  const int ntx = sm_decomp_ntiles(d, sl->px), nty = sm_decomp_ntiles(d, sl->py);
  size_t pa0, pan, px0, pxn, py0, pyn;
  sm_decomp_part(d, sl->pa, &pa0, &pan);
  sm_decomp_part(d, sl->px, &px0, &pxn);
  sm_decomp_part(d, sl->py, &py0, &pyn);
  const int need_n2 = !(g->ccc && o->sparse); /* sparse CCC uses plane moments only */
  const size_t nmom3 = SM_CCC3_NMOM(o->sparse);
  const size_t e3 = g->ccc ? nmom3 * sizeof(uint32_t) : g->v->elem_size;
  int ret = 0;
  starpu_data_handle_t *hax = calloc((size_t)npf, sizeof *hax);
  starpu_data_handle_t *hay = calloc((size_t)npf, sizeof *hay);
  starpu_data_handle_t *hxy = calloc((size_t)npf, sizeof *hxy);
  starpu_data_handle_t *h3 = calloc((size_t)npf, sizeof *h3);
  if (!hax || !hay || !hxy || !h3) {
    free(hax), free(hay), free(hxy), free(h3);
    return -ENOMEM;
  }
  for (size_t a = pc->lo; a < pc->hi && !ret;) {
    const int ta = (int)(a / d->block_size);
    size_t ta0, tan;
    sm_decomp_tile(d, sl->pa, ta, &ta0, &tan);
    const size_t aend = pc->hi < ta0 + tan ? pc->hi : ta0 + tan;
    const int tileA = g->tile_base[sl->pa] + ta;
    for (int tx = 0; tx < ntx && !ret; tx++)
      for (int ty = 0; ty < nty && !ret; ty++) {
        if (sl->kind != SM_SLICE_VOLUME && ty < tx)
          continue; /* x < y */
        if (sl->kind == SM_SLICE_DIAG && tx < ta)
          continue; /* a < x */
        const int tileX = g->tile_base[sl->px] + tx, tileY = g->tile_base[sl->py] + ty;
        size_t tx0, txn, ty0, tyn;
        sm_decomp_tile(d, sl->px, tx, &tx0, &txn);
        sm_decomp_tile(d, sl->py, ty, &ty0, &tyn);
        sm_observe_block(tileA, tileX, tileY);
        const int f2 = (int)((*counter)++ % (uint64_t)npf);
        if (need_n2) {
          ret = submit_n2(g, tileA, tileX, r, I, f2, hax, st);
          if (!ret)
            ret = submit_n2(g, tileA, tileY, r, I, f2, hay, st);
          if (!ret)
            ret = submit_n2(g, tileX, tileY, r, I, f2, hxy, st);
        }
        const size_t gsz = plane_group(o, txn, tyn);
        for (size_t p0 = a; p0 < aend && !ret; p0 += gsz) {
          const size_t gn = aend - p0 < gsz ? aend - p0 : gsz;
          const int ffin = (int)((*counter)++ % (uint64_t)npf);
          if (sm_graph_skipped(o, st->nblocks)) { /* done by an interrupted run */
            st->nblocks++;
            continue;
          }
          const int fin_rank = sm_decomp_rank(d, I, ffin, r);
          starpu_data_handle_t rec;
          for (int f = 0; f < npf; f++) {
            starpu_matrix_data_register(&h3[f], -1, 0, txn * tyn, txn * tyn, gn, e3);
            sm_gcore_register(g, h3[f], sm_decomp_rank(d, I, f, r));
          }
          sm_fin3_args_t fa = {
              .metric = g->ccc,
              .single = o->single,
              .sparse = o->sparse,
              .kind = sl->kind,
              .g = (uint32_t)gn,
              .mx = (uint32_t)txn,
              .my = (uint32_t)tyn,
              .a_glob = (uint32_t)(pa0 + p0),
              .a_off = (uint32_t)(p0 - ta0),
              .x0 = (uint32_t)(px0 + tx0),
              .y0 = (uint32_t)(py0 + ty0),
              .nf = d->nf,
              .ccc_mult = o->ccc_mult,
              .ccc_param = o->ccc_param,
              .keep_all = o->keep_all,
              .threshold = o->threshold,
              .thr_f32 = o->thr_f32,
              .emit = o->emit,
          };
          size_t rec_bytes = sizeof(sm_recbuf_t) +
                             (o->emit ? sm_fin3_max_records(&fa) : 0) * sizeof(sm_rec_t);
          starpu_variable_data_register(&rec, -1, 0, rec_bytes);
          sm_gcore_register(g, rec, fin_rank);
          for (int f = 0; f < npf && !ret; f++) {
            size_t f0, nf;
            sm_decomp_slice(d, f, &f0, &nf);
            starpu_data_handle_t A = g->x[sm_gcore_hidx(g, tileA, f, r)],
                                 X = g->x[sm_gcore_hidx(g, tileX, f, r)],
                                 Y = g->x[sm_gcore_hidx(g, tileY, f, r)];
            const int pr = sm_sched_prio(o->prio, SM_TK_PLANE3);
            ret = g->ccc ? sm_task_ccc3(A, p0 - ta0, gn, X, Y, h3[f], o->sparse, nf, pr)
                         : sm_task_czek3(A, p0 - ta0, gn, X, Y, h3[f], o->single, nf, pr);
            st->ntasks++;
            if (!ret && sm_codelets_resilience_on()) {
              ret = sm_task_verify3(h3[f], A, p0 - ta0, gn, X, Y, g->ccc,
                                    g->ccc ? o->sparse : o->single, nf, st->nblocks, pr);
              st->ntasks++;
            }
            if (sm_decomp_rank(d, I, f, r) == g->me) {
              st->my_subblocks++;
              st->my_pairs += (uint64_t)gn * txn * tyn;
            }
          }
          for (int f = 0; f < npf && !ret; f++) {
            if (f == ffin)
              continue;
            ret = sm_task_add(h3[ffin], h3[f], sm_gcore_add_type(g),
                              sm_sched_prio(o->prio, SM_TK_REDUCE));
            st->ntasks++;
          }
          /* sparse CCC reads no 2-way numerators: the plane handle stands in */
          starpu_data_handle_t nax = need_n2 ? hax[f2] : h3[ffin],
                               nay = need_n2 ? hay[f2] : h3[ffin],
                               nxy = need_n2 ? hxy[f2] : h3[ffin];
          if (!ret)
            ret = sm_task_finalize3(h3[ffin], nax, nay, nxy,
                                    g->sums[sm_gcore_hidx(g, tileA, 0, r)],
                                    g->sums[sm_gcore_hidx(g, tileX, 0, r)],
                                    g->sums[sm_gcore_hidx(g, tileY, 0, r)], rec, &fa,
                                    sm_sched_prio(o->prio, SM_TK_FINALIZE));
          if (!ret)
            ret = sm_task_output(rec, g->token[fin_rank], sm_sink_put, sink, st->nblocks,
                                 sm_sched_prio(o->prio, SM_TK_OUTPUT));
          st->ntasks += 2;
          st->nblocks++;
          if (fin_rank == g->me)
            st->my_outputs++;
          for (int f = 0; f < npf; f++)
            starpu_data_unregister_submit(h3[f]);
          starpu_data_unregister_submit(rec);
          starpu_task_wait_for_n_submitted(sm_gcore_window(g));
        }
        if (need_n2)
          for (int f = 0; f < npf; f++) {
            if (hax[f])
              starpu_data_unregister_submit(hax[f]);
            if (hay[f])
              starpu_data_unregister_submit(hay[f]);
            if (hxy[f])
              starpu_data_unregister_submit(hxy[f]);
            hax[f] = hay[f] = hxy[f] = NULL;
          }
      }
    a = aend;
  }
  free(hax), free(hay), free(hxy), free(h3);
  return ret;
}

/* Output blocks of this rank (for the progress line): counts the plane
 * groups a piece makes without submitting anything; adds the tasks this
 * rank will run to *tasks. */
static uint64_t count_outputs(const sm_gcore_t *g, const piece_t *pc, uint64_t *counter,
                              uint64_t *tasks)
{
  const sm_decomp_t *d = g->d;
  const sm_slice3_t *sl = pc->sl;
  const int ntx = sm_decomp_ntiles(d, sl->px), nty = sm_decomp_ntiles(d, sl->py);
  uint64_t mine = 0;
  for (size_t a = pc->lo; a < pc->hi;) {
    const int ta = (int)(a / d->block_size);
    size_t ta0, tan;
    sm_decomp_tile(d, sl->pa, ta, &ta0, &tan);
    const size_t aend = pc->hi < ta0 + tan ? pc->hi : ta0 + tan;
    for (int tx = 0; tx < ntx; tx++)
      for (int ty = 0; ty < nty; ty++) {
        if (sl->kind != SM_SLICE_VOLUME && ty < tx)
          continue;
        if (sl->kind == SM_SLICE_DIAG && tx < ta)
          continue;
        size_t tx0, txn, ty0, tyn;
        sm_decomp_tile(d, sl->px, tx, &tx0, &txn);
        sm_decomp_tile(d, sl->py, ty, &ty0, &tyn);
        const int f2 = (int)((*counter)++ % (uint64_t)d->npf);
        if (!(g->ccc && g->o->sparse)) /* the triple's three 2-way numerators */
          *tasks += 3 * sm_gcore_local_tasks(g, sl->I, pc->row_repl, f2, 0);
        const size_t gsz = plane_group(g->o, txn, tyn);
        for (size_t p0 = a; p0 < aend; p0 += gsz) {
          int ffin = (int)((*counter)++ % (uint64_t)d->npf);
          mine += sm_decomp_rank(d, sl->I, ffin, pc->row_repl) == g->me;
          *tasks += sm_gcore_local_tasks(g, sl->I, pc->row_repl, ffin, 1);
        }
      }
    a = aend;
  }
  return mine;
}

sm_err_t sm_graph3_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st)
{
  const sm_decomp_t *d = o->d;
  *st = (sm_graph_stats_t){.block_size = d->block_size};
  double t0 = sm_now(), t_sub = 0, ts = sm_now();
  sm_gcore_t g;
  sm_err_t err = sm_gcore_init(&g, local, o, st);
  if (err)
    return err;
  const int nrows = d->npv * d->npr;
  sm_slice3_t **list = calloc((size_t)nrows, sizeof *list);
  size_t *len = calloc((size_t)nrows, sizeof *len), maxlen = 0;
  uint64_t *counter = calloc((size_t)nrows, sizeof *counter);
  if (!list || !len || !counter)
    err = SM_ENOMEM;
  for (int row = 0; row < nrows && !err; row++) {
    list[row] = sm_decomp_slices3(d, row % d->npv, row / d->npv, &len[row], &err);
    if (len[row] > maxlen)
      maxlen = len[row];
  }
  /* pieces: slices in phase, each cut to the stages asked for; rows are
   * walked in lockstep so every rank submits the same graph in step */
  for (int pass = 0; pass < 2 && !err; pass++) {
    for (int row = 0; row < nrows; row++)
      counter[row] = 0;
    if (pass == 1)
      sm_observe_expect(g.local_tasks);
    for (size_t p = 0; p < maxlen && !err; p++)
      for (int row = 0; row < nrows && !err; row++) {
        if (p >= len[row])
          continue;
        const sm_slice3_t *sl = &list[row][p];
        if (sl->phase < o->phase_min || sl->phase > o->phase_max)
          continue;
        for (int stg = o->stage_min; stg <= o->stage_max && !err; stg++) {
          piece_t pc = {.row_repl = row / d->npv, .sl = sl};
          sm_decomp_stage(sl->a0, sl->a1, stg, o->num_stage, &pc.lo, &pc.hi);
          if (pass == 0) {
            sink->blocks_total += count_outputs(&g, &pc, &counter[row], &g.local_tasks);
            continue;
          }
          ts = sm_now();
          if (submit_piece(&g, &pc, sink, st, &counter[row])) {
            sm_log_error("task insertion failed");
            err = SM_ERUNTIME;
          }
          t_sub += sm_now() - ts;
        }
      }
  }
  for (int row = 0; list && row < nrows; row++)
    free(list[row]);
  free(list);
  free(len);
  free(counter);
  sm_gcore_fini(&g);
  st->t_submit = t_sub;
  st->t_run = sm_now() - t0;
  if (!err && sink->err)
    err = (sm_err_t)sink->err;
  return err;
}
