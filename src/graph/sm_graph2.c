/* sm_graph2.c: the 2-way task graph over the npv x npf x npr rank grid.
 * Handles are registered in the same order on every rank, so a running
 * counter gives each its StarPU-MPI tag. Tile pairs are submitted rank row
 * by rank row in lockstep, with a bounded number in flight. */
#include "sm_graph.h"
#include "sm_graph_core.h"

#include <math.h>
#include <starpu.h>
#include <stdlib.h>

#include "sm_codelets.h"
#include "sm_formulas.h"
#include "sm_observe.h"
#include "sm_sched.h"

/* The numerator buffer of a CPU tile pair at most: below the heap's mmap
 * threshold (16 MB, src/cli/main.c), buffers are reused from the heap;
 * above it every task maps fresh pages and faults on each 4 KiB of them
 * (sparse CCC at 1000 samples, blocks of 1024 = 16 MB: 4 s of system time
 * in a 13 s run, 30% slower than blocks of 724). */
#define SM_NUM_BUDGET ((size_t)8 << 20)

size_t sm_graph_auto_block_cap(int ngpus, int emit, int metric_ccc, size_t pair_bytes)
{
  if (ngpus > 0)
    return emit ? (metric_ccc ? 1024 : 2048) : 4096;
  /* bound the per-block buffers (records are 24 bytes per value, and a
   * threshold's buffers are no exception: CCC sparse 40000 x 1000 keeping
   * none of its values, 1% missing, 2 cores, ran in 13.3-13.5 s with tiles
   * of 507 and 19.9-21.3 s with 715, numerators and finalize both twice as
   * long per pair) */
  size_t cap = emit ? (metric_ccc ? 512 : 1024) : 2048;
  if (pair_bytes) {
    const size_t num_cap = (size_t)sqrt((double)SM_NUM_BUDGET / (double)pair_bytes);
    if (num_cap < cap)
      cap = num_cap;
  }
  return cap;
}

size_t sm_graph_auto_block_cost(size_t nv, size_t nf, int nworkers, int ngpus, int emit,
                                int metric_ccc, size_t pair_bytes, double min_work)
{
  if (nworkers < 1)
    nworkers = 1;
  /* enough tile pairs to keep every worker busy with a few to spare */
  size_t tiles = (size_t)ceil(sqrt(16.0 * nworkers)), floor = 16;
  const size_t cap = sm_graph_auto_block_cap(ngpus, emit, metric_ccc, pair_bytes);
  if (ngpus > 0) {
    /* a GPU needs large products to be busy (a 512 x 512 tile pair is a
     * few microseconds of work for it) and pays a transfer per tile: tiles
     * of 512 at least, and about 16 tile pairs per GPU so that the GPUs
     * end together (on simulated 6- and 8-GPU nodes, 36 tile pairs of 4096
     * left the GPUs idle a quarter of the run; 2048 cut the makespan by a
     * third: docs/scheduling.md, "Simulated GPU nodes") */
    tiles = (size_t)ceil(sqrt(32.0 * ngpus));
    floor = 512;
  }
  size_t bs = (nv + tiles - 1) / tiles, need = 0, least = 1;
  /* CPU tasks worth their fixed cost: a tile pair of at least min_work
   * comparisons (sm_grain.h), so short vectors get more of them per tile,
   * down to 4 tile pairs per worker (ceil(sqrt(8 w)) tiles): below that
   * the workers do not end together (CCC 800 x 8192 on 2 cores: 3 tile
   * pairs of 400 took 0.05-0.12 s, 21 of 134 0.01-0.07 s) */
  if (ngpus <= 0 && nf > 0 && min_work > 0) {
    least = (size_t)ceil((sqrt(1.0 + 32.0 * nworkers) - 1) / 2); /* T(T+1)/2 >= 4 w */
    const double v = ceil(sqrt(min_work / (double)nf));
    const size_t most = (nv + least - 1) / least;
    need = v < (double)most ? (size_t)v : most;
    if (need > bs)
      bs = need;
  }
  if (bs > cap)
    bs = cap;
  /* tiles of one size: a remainder tile of a few vectors makes narrow
   * tasks that pack whole tiles for little work (CCC 16000 x 32768 on 2
   * cores: tiles of 1448 and one of 72, 2.05-2.34e11 comparisons/s; 12
   * tiles of 1334, 2.30-2.48e11); one tile fewer when evening out fell
   * below the work a task needs */
  if (bs > 0 && nv > bs) {
    const size_t n = (nv + bs - 1) / bs, even = (nv + n - 1) / n;
    const size_t fewer = n > least && n > 1 ? (nv + n - 2) / (n - 1) : even;
    bs = even < need && fewer <= cap ? fewer : even;
  }
  if (bs < floor)
    bs = floor;
  if (bs > nv && nv >= 16)
    bs = nv; /* one tile */
  return bs < 16 ? 16 : bs;
}

size_t sm_graph_auto_block(size_t nv, int nworkers, int ngpus, int emit, int metric_ccc,
                           size_t pair_bytes)
{
  return sm_graph_auto_block_cost(nv, 0, nworkers, ngpus, emit, metric_ccc, pair_bytes,
                                  0);
}

/* PLINK's r or r^2 (CCC's numerators read as LD): each tile pair has the
 * homozygous-called tallies beside its moments. */
static int sm_graph_ld(const sm_gcore_t *g)
{
  return g->ccc && (g->o->form == SM_FORM_R2 || g->o->form == SM_FORM_R);
}

/* All tasks of one tile pair; num: room for two handles per field slice. */
static sm_err_t submit_subblock(sm_gcore_t *g, const sm_subblock_t *s, int r,
                                starpu_data_handle_t *num)
{
  const sm_decomp_t *d = g->d;
  const sm_graph_opts_t *o = g->o;
  size_t pI0, pIn, pJ0, pJn, tI0, m, tJ0, n;
  sm_decomp_part(d, s->I, &pI0, &pIn);
  sm_decomp_part(d, s->J, &pJ0, &pJn);
  sm_decomp_tile(d, s->I, s->tI, &tI0, &m);
  sm_decomp_tile(d, s->J, s->tJ, &tJ0, &n);
  const int tileI = g->tile_base[s->I] + s->tI, tileJ = g->tile_base[s->J] + s->tJ;
  /* the field slice whose rank reduces, finalizes and writes this pair */
  const int ffin = (int)(s->seq % (uint64_t)d->npf);
  const int fin_rank = sm_decomp_rank(d, s->I, ffin, r);
  sm_fin2_args_t fa = {
      SM_GCORE_FIN_ARGS(g),
      .topk = o->topk,
      .form = o->form,
      .zero_nan = o->zero_nan,
      .ld_min = o->ld_min,
      .ld_a1 = o->ld_a1,
      .ld_rev = o->ld_rev,
      .ld_win = o->ld_win,
      .ld_index = o->ld_index,
      .diag = s->I == s->J && s->tI == s->tJ,
      .swap = pI0 > pJ0,
      .i0 = (uint32_t)(pI0 + tI0),
      .j0 = (uint32_t)(pJ0 + tJ0),
      .m = (uint32_t)m,
      .n = (uint32_t)n,
  };
  sm_observe_block(tileI, tileJ, -1);
  const int ld = sm_graph_ld(g);
  starpu_data_handle_t *hom = num + d->npf; /* ld: the homozygous-called tallies */
  /* LD windows: the CPUs compute the strips of the tile pair that hold its
   * pairs in the windows (what the finalize reads) */
  const sm_band_t band = {
      .win = o->ld_win, .index = o->ld_index, .a0 = fa.i0, .b0 = fa.j0};
  const sm_band_t *bp = o->ld_win ? &band : NULL;
  /* r and r^2: PLINK's tallies by the moments' tasks, or by their own */
  const int fused = ld && o->ld_fused;
  sm_err_t err = sm_gcore_pair(g, tileI, tileJ, s->I, r, ffin, SM_TK_BLOCK2, bp, num,
                               fused ? hom : NULL);
  if (!err && ld && !fused)
    err = sm_gcore_ld_hom(g, tileI, tileJ, s->I, r, ffin, bp, hom);
  sm_gcore_count_mine(g, s->I, r, fa.diag ? (uint64_t)m * (m - 1) / 2 : (uint64_t)m * n);
  starpu_data_handle_t rec =
      sm_gcore_register_records(g, sm_fin2_max_records(&fa), fin_rank);
  starpu_data_handle_t cand = NULL; /* the block's candidate neighbours */
  if (o->topk.k) {
    starpu_variable_data_register(&cand, -1, 0,
                                  sm_fin2_topk_places(&fa) * sizeof(sm_topk_ent_t));
    sm_gcore_register(g, cand, fin_rank);
  }
  if (!err && sm_task_finalize2(num[ffin], ld ? hom[ffin] : NULL,
                                g->sums[sm_gcore_hidx(g, tileI, 0, r)],
                                g->sums[sm_gcore_hidx(g, tileJ, 0, r)], rec, cand, &fa,
                                sm_sched_prio(o->prio, SM_TK_FINALIZE)))
    err = SM_ERUNTIME;
  for (int f = 0; ld && f < d->npf; f++)
    if (hom[f])
      starpu_data_unregister_submit(hom[f]), hom[f] = NULL;
  if (cand) {
    /* merged into the row tile's lists, then the column tile's: a fixed
     * order (the lists do not depend on it anyway: a total order) */
    const int prio = sm_sched_prio(o->prio, SM_TK_REDUCE);
    const uint32_t L = o->topk.lists, k = o->topk.k;
    if (!err && (sm_task_topk_merge(g->topk[tileI], cand, 0, (uint32_t)m * L, k, prio) ||
                 sm_task_topk_merge(g->topk[tileJ], cand, (uint64_t)m * L,
                                    (uint32_t)n * L, k, prio)))
      err = SM_ERUNTIME;
    g->st->ntasks += 2;
    starpu_data_unregister_submit(cand);
  }
  return sm_gcore_output(g, err, num, rec, fin_rank);
}

static void *list_subblocks(const sm_decomp_t *d, int I, int pr, size_t *n, sm_err_t *err)
{
  return sm_decomp_subblocks2(d, I, pr, n, err);
}

static int subblock_phase(const void *item)
{
  return ((const sm_subblock_t *)item)->phase;
}

/* With LD windows (o->ld_win: per vector the last one in its window, never
 * decreasing), whether a tile pair holds a pair in a window: only those
 * are built, so a windowed run's tasks grow with the pairs in its windows,
 * not with the square of the variants. */
/* The first vectors of a tile pair's two tiles (a0 <= b0) and its sizes. */
static void tile_pair(const sm_gcore_t *g, const sm_subblock_t *s, size_t *a0, size_t *m,
                      size_t *b0, size_t *n)
{
  size_t pI0, pIn, pJ0, pJn, tI0, tJ0;
  sm_decomp_part(g->d, s->I, &pI0, &pIn);
  sm_decomp_part(g->d, s->J, &pJ0, &pJn);
  sm_decomp_tile(g->d, s->I, s->tI, &tI0, m);
  sm_decomp_tile(g->d, s->J, s->tJ, &tJ0, n);
  *a0 = pI0 + tI0, *b0 = pJ0 + tJ0;
  if (*a0 > *b0) { /* the earlier vectors first */
    size_t t = *a0;
    *a0 = *b0, *b0 = t, t = *m, *m = *n, *n = t;
  }
}

static int in_window(const sm_gcore_t *g, const sm_subblock_t *s)
{
  const uint32_t *win = g->o->ld_win;
  const unsigned char *ix = g->o->ld_index;
  if (!win)
    return 1;
  size_t a0, m, b0, n;
  tile_pair(g, s, &a0, &m, &b0, &n);
  if (!m || !n)
    return 0;
  if (!ix) {
    if (a0 == b0) { /* a diagonal tile: a vector with a partner after it */
      for (size_t x = a0; x + 1 < a0 + m; x++)
        if (win[x] > x)
          return 1;
      return 0;
    }
    return win[a0 + m - 1] >= b0;
  }
  /* --ld-snp: a pair in a window with an index vector: an index row with a
   * partner among the columns, or an index column some row reaches (the
   * last row before it reaches furthest) */
  for (size_t x = a0; x < a0 + m; x++)
    if ((ix[x] & 1) && win[x] >= (a0 == b0 ? x + 1 : b0) &&
        (a0 == b0 ? x + 1 < a0 + m : 1))
      return 1;
  for (size_t y = b0; y < b0 + n; y++) {
    const size_t last = y - 1 < a0 + m - 1 ? y - 1 : a0 + m - 1;
    if ((ix[y] & 1) && y > a0 && last >= a0 && win[last] >= y)
      return 1;
  }
  return 0;
}

/* Output block and tasks of a tile pair on this rank (progress line). */
static void count_subblock(sm_gcore_t *g, void *ctx, int row, const void *item)
{
  (void)ctx;
  const sm_subblock_t *s = item;
  if (!in_window(g, s))
    return;
  const int r = row / g->d->npv, ffin = (int)(s->seq % (uint64_t)g->d->npf);
  if (sm_decomp_rank(g->d, s->I, ffin, r) == g->me)
    g->sink->blocks_total++;
  size_t a0, m, b0, n; /* outputs written in order across blocks: its first rows */
  tile_pair(g, s, &a0, &m, &b0, &n);
  sm_sink_expect_block(g->sink, (uint32_t)a0);
  g->local_tasks += sm_gcore_local_tasks(g, s->I, r, ffin, 1, 1);
  if (sm_graph_ld(g)) { /* the homozygous-called tallies, checks and reductions */
    g->local_tasks += sm_gcore_local_tasks(g, s->I, r, ffin, 0, 1);
    for (int f = 0; g->o->ld_fused && f < g->d->npf; f++) /* made by the moments' tasks */
      g->local_tasks -= sm_decomp_rank(g->d, s->I, f, r) == g->me;
  }
  sm_gcore_count_i8(g, g->tile_base[s->I] + s->tI, g->tile_base[s->J] + s->tJ, s->I, r);
  if (g->o->topk.k && g->me == 0) /* the two merges of its candidates */
    g->local_tasks += 2;
}

static sm_err_t submit_item(sm_gcore_t *g, void *ctx, int row, const void *item)
{
  sm_err_t err = SM_OK;
  if (!in_window(g, item)) /* not an output block */
    return SM_OK;
  if (!sm_graph_skipped(g->o, g->st->nblocks)) /* else done by an interrupted run */
    err = submit_subblock(g, item, row / g->d->npv, ctx);
  g->st->nblocks++;
  return err;
}

sm_err_t sm_graph2_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st)
{
  starpu_data_handle_t *num = calloc(2 * (size_t)o->d->npf, sizeof *num);
  if (!num)
    return SM_ENOMEM;
  const sm_gcore_rows_t rows = {
      .item_size = sizeof(sm_subblock_t),
      .list = list_subblocks,
      .phase = subblock_phase,
      .count = count_subblock,
      .submit = submit_item,
      .ctx = num,
  };
  sm_err_t err = sm_gcore_run(local, o, sink, st, &rows);
  free(num);
  return err;
}
