/* sm_graph2.c: the 2-way task graph over the npv x npf x npr rank grid.
 * Handles are registered in the same order on every rank, so a running
 * counter gives each its StarPU-MPI tag. Tile pairs are submitted rank row
 * by rank row in lockstep, with a bounded number in flight. */
#include "sm_graph.h"

#include <math.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include <stdlib.h>

#include "sm_codelets.h"
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

typedef struct graph {
  const sm_decomp_t *d;
  const sm_graph_opts_t *o;
  const sm_vectors_t *v;
  int ccc, me, pv, pf, pr;
  int64_t tag;                 /* next StarPU-MPI tag */
  int *tile_base;              /* first tile index of partition I */
  int ntiles;                  /* tiles over all partitions */
  starpu_data_handle_t *x;     /* [(tile * npf + f) * npr + r] */
  starpu_data_handle_t *sums;  /* same index; f = 0 holds the reduced sums */
  starpu_data_handle_t *token; /* one per rank */
  int token_value;
} graph_t;

static size_t hidx(const graph_t *g, int tile, int f, int r)
{
  return ((size_t)tile * g->d->npf + (size_t)f) * g->d->npr + (size_t)r;
}

/* Tell StarPU-MPI who owns a handle (every rank, same order, same tag). */
static void mpi_register(graph_t *g, starpu_data_handle_t h, int owner)
{
  int64_t tag = g->tag++;
  if (g->o->use_mpi)
    starpu_mpi_data_register(h, tag, owner);
}

static size_t slice_ld(const graph_t *g, int f)
{
  size_t f0, nf;
  sm_decomp_slice(g->d, f, &f0, &nf);
  return sm_vectors_ld(g->v->metric, g->v->elem_size, nf);
}

static void register_tiles(graph_t *g)
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
          size_t ld = slice_ld(g, f), k = hidx(g, tile, f, r);
          if (owner == g->me)
            starpu_matrix_data_register(&g->x[k], STARPU_MAIN_RAM,
                                        (uintptr_t)sm_vectors_row(g->v, tv0), ld, ld, tn, es);
          else
            starpu_matrix_data_register(&g->x[k], -1, 0, ld, ld, tn, es);
          mpi_register(g, g->x[k], owner);
          size_t snx = g->ccc ? 2 * tn : tn;
          starpu_matrix_data_register(&g->sums[k], -1, 0, snx, snx, 1, sum_elem);
          mpi_register(g, g->sums[k], owner);
        }
    }
}

/* Denominators: sums of every tile on every field slice, then the field
 * reduction into the f = 0 handle, slices added in order. */
static int submit_sums(graph_t *g, uint64_t *ntasks)
{
  const sm_decomp_t *d = g->d;
  const int prio = g->o->prio ? 3 : 0;
  int ret = 0;
  for (int I = 0; I < d->npv && !ret; I++)
    for (int t = 0; t < sm_decomp_ntiles(d, I) && !ret; t++)
      for (int r = 0; r < d->npr && !ret; r++) {
        int tile = g->tile_base[I] + t;
        for (int f = 0; f < d->npf && !ret; f++) {
          size_t f0, nf, k = hidx(g, tile, f, r);
          sm_decomp_slice(d, f, &f0, &nf);
          ret = g->ccc ? sm_task_sums_ccc(g->x[k], g->sums[k], g->o->sparse, nf, prio)
                       : sm_task_sums_czek(g->x[k], g->sums[k], g->o->single, nf, prio);
          ++*ntasks;
        }
        for (int f = 1; f < d->npf && !ret; f++) {
          ret = sm_task_add(g->sums[hidx(g, tile, 0, r)], g->sums[hidx(g, tile, f, r)],
                            g->ccc ? SM_ADD_U32 : (g->o->single ? SM_ADD_F32 : SM_ADD_F64),
                            prio);
          ++*ntasks;
        }
      }
  return ret;
}

/* All tasks of one tile pair. */
static int submit_subblock(graph_t *g, const sm_subblock_t *s, int r, sm_sink_t *sink,
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
    mpi_register(g, nump[f], sm_decomp_rank(d, s->I, f, r));
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
  mpi_register(g, rec, fin_rank);
  const int pr_fin = o->prio ? 1 : 0, pr_out = o->prio ? 2 : 0;
  for (int f = 0; f < npf && !ret; f++) {
    size_t f0, nf;
    sm_decomp_slice(d, f, &f0, &nf);
    starpu_data_handle_t A = g->x[hidx(g, tileI, f, r)], B = g->x[hidx(g, tileJ, f, r)];
    ret = g->ccc ? sm_task_ccc2(A, B, nump[f], o->sparse, nf, 0)
                 : sm_task_czek2(A, B, nump[f], o->single, nf, 0);
    st->ntasks++;
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
                      g->ccc ? SM_ADD_U32 : (o->single ? SM_ADD_F32 : SM_ADD_F64), pr_fin);
    st->ntasks++;
  }
  if (!ret)
    ret = sm_task_finalize2(nump[ffin], g->sums[hidx(g, tileI, 0, r)],
                            g->sums[hidx(g, tileJ, 0, r)], rec, &fa, pr_fin);
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

static void unregister_all(graph_t *g, int nranks)
{
  size_t nh = (size_t)g->ntiles * g->d->npf * g->d->npr;
  for (size_t k = 0; k < nh; k++) {
    if (g->x && g->x[k])
      starpu_data_unregister(g->x[k]);
    if (g->sums && g->sums[k])
      starpu_data_unregister(g->sums[k]);
  }
  for (int k = 0; g->token && k < nranks; k++)
    if (g->token[k])
      starpu_data_unregister(g->token[k]);
  free(g->x);
  free(g->sums);
  free(g->token);
  free(g->tile_base);
}

sm_err_t sm_graph2_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st)
{
  const sm_decomp_t *d = o->d;
  const int nranks = d->npv * d->npf * d->npr;
  graph_t g = {.d = d, .o = o, .v = local, .ccc = local->metric == SM_METRIC_CCC,
               .me = o->rank};
  sm_decomp_coords(d, o->rank, &g.pv, &g.pf, &g.pr);
  *st = (sm_graph_stats_t){.block_size = d->block_size};
  g.tile_base = calloc((size_t)d->npv + 1, sizeof(int));
  if (!g.tile_base)
    return SM_ENOMEM;
  for (int I = 0; I < d->npv; I++)
    g.tile_base[I + 1] = g.tile_base[I] + sm_decomp_ntiles(d, I);
  g.ntiles = g.tile_base[d->npv];
  st->ntiles = (size_t)g.ntiles;
  size_t nh = (size_t)g.ntiles * d->npf * d->npr;
  g.x = calloc(nh, sizeof *g.x);
  g.sums = calloc(nh, sizeof *g.sums);
  g.token = calloc((size_t)nranks, sizeof *g.token);
  if (!g.x || !g.sums || !g.token) {
    unregister_all(&g, nranks);
    return SM_ENOMEM;
  }
  double t0 = sm_now(), t_sub = 0, ts = sm_now();
  register_tiles(&g);
  for (int k = 0; k < nranks; k++) {
    if (k == g.me)
      starpu_variable_data_register(&g.token[k], STARPU_MAIN_RAM,
                                    (uintptr_t)&g.token_value, sizeof g.token_value);
    else
      starpu_variable_data_register(&g.token[k], -1, 0, sizeof g.token_value);
    mpi_register(&g, g.token[k], k);
  }
  sm_err_t err = SM_OK;
  if (submit_sums(&g, &st->ntasks)) {
    sm_log_error("task insertion failed");
    err = SM_ERUNTIME;
  }
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
    }
  const unsigned window = (unsigned)(3 * (4 * starpu_worker_get_count() + 4) * d->npf);
  t_sub += sm_now() - ts;
  for (size_t p = 0; p < maxlen && !err; p++)
    for (int row = 0; row < nrows && !err; row++) {
      if (p >= len[row])
        continue;
      const sm_subblock_t *s = &list[row][p];
      if (s->phase < o->phase_min || s->phase > o->phase_max)
        continue;
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
  starpu_task_wait_for_all();
  if (o->use_mpi)
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  unregister_all(&g, nranks);
  st->t_submit = t_sub;
  st->t_run = sm_now() - t0;
  if (!err && sink->err)
    err = (sm_err_t)sink->err;
  return err;
}
