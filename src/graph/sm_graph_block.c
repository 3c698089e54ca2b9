/* sm_graph_block.c: the task sequences of one output block that the 2-way
 * and 3-way graphs share: partial numerators per field slice, 2-way
 * numerator tasks, the field reduction in a fixed order, the record buffer
 * and the output task with the block's unregistration. */
#include "sm_graph_core.h"

#include "sm_sched.h"

void sm_gcore_register_parts(sm_gcore_t *g, starpu_data_handle_t *h, int I, int r,
                             size_t nx, size_t ny, size_t elem)
{
  for (int f = 0; f < g->d->npf; f++) {
    starpu_matrix_data_register(&h[f], -1, 0, nx, nx, ny, elem);
    sm_gcore_register(g, h[f], sm_decomp_rank(g->d, I, f, r));
  }
}

starpu_data_handle_t sm_gcore_register_records(sm_gcore_t *g, size_t max_records,
                                               int fin_rank)
{
  starpu_data_handle_t rec;
  /* the records, then the block's histogram counts (sm_fin_begin) */
  size_t bytes = sm_recbuf_hist_offset(g->o->emit ? max_records : 0) +
                 sm_hist_words(&g->o->hist) * sizeof(uint64_t);
  starpu_variable_data_register(&rec, -1, 0, bytes);
  sm_gcore_register(g, rec, fin_rank);
  return rec;
}

void sm_gcore_count_mine(sm_gcore_t *g, int I, int r, uint64_t pairs)
{
  for (int f = 0; f < g->d->npf; f++)
    if (sm_decomp_rank(g->d, I, f, r) == g->me) {
      g->st->my_subblocks++;
      g->st->my_pairs += pairs;
    }
}

static size_t x8_index(const sm_gcore_t *g, int tile, int f, int r, int I)
{
  return sm_gcore_hidx(g, tile, f, r) * (size_t)g->d->npv + (size_t)I;
}

void sm_gcore_count_i8(sm_gcore_t *g, int tileA, int tileB, int I, int r)
{
  if (!g->x8_last)
    return;
  for (int f = 0; f < g->d->npf; f++)
    for (int t = 0; t < 2; t++) {
      uint64_t *last = &g->x8_last[x8_index(g, t ? tileB : tileA, f, r, I)];
      if (*last == UINT64_MAX && sm_decomp_rank(g->d, I, f, r) == g->me)
        g->local_tasks++;
      *last = g->x8_items;
    }
  g->x8_items++;
}

/* After item `item`'s products: the int8 tiles it used last go (StarPU
 * frees them once those products ran). */
static void release_i8(sm_gcore_t *g, int tileA, int tileB, int I, int r, uint64_t item)
{
  for (int f = 0; f < g->d->npf; f++)
    for (int t = 0; t < 2; t++) {
      const size_t k = x8_index(g, t ? tileB : tileA, f, r, I);
      if (g->x8[k] && g->x8_last[k] == item) {
        starpu_data_unregister_submit(g->x8[k]);
        g->x8[k] = NULL;
      }
    }
}

/* The int8 form of tile (tile, f, r) for rank row I: at its first use,
 * registered on the rank that multiplies it and filled from the tile
 * there. NULL when the insertion fails. */
static starpu_data_handle_t tile_i8(sm_gcore_t *g, int tile, int f, int r, int I,
                                    size_t nf, int prio)
{
  starpu_data_handle_t *h = &g->x8[x8_index(g, tile, f, r, I)];
  if (*h)
    return *h;
  starpu_data_handle_t x = g->x[sm_gcore_hidx(g, tile, f, r)];
  sm_ccc_i8_register(h, starpu_matrix_get_ny(x), nf, g->o->sparse);
  sm_gcore_register(g, *h, sm_decomp_rank(g->d, I, f, r));
  g->st->ntasks++;
  return sm_task_ccc_i8(x, *h, g->o->sparse, nf, g->st->nblocks, prio) ? NULL : *h;
}

/* Vectors of global tile `tile`. */
static size_t tile_rows(const sm_gcore_t *g, int tile)
{
  int I = 0;
  while (g->tile_base[I + 1] <= tile)
    I++;
  size_t t0, tn;
  sm_decomp_tile(g->d, I, tile - g->tile_base[I], &t0, &tn);
  return tn;
}

sm_err_t sm_gcore_pair(sm_gcore_t *g, int tileA, int tileB, int I, int r, int ffin,
                       sm_task_kind_t kind, const sm_band_t *band,
                       starpu_data_handle_t *h, starpu_data_handle_t *hom)
{
  const sm_graph_opts_t *o = g->o;
  const int prio = sm_sched_prio(o->prio, kind);
  const int variant = g->ccc ? o->sparse : o->single | (o->czek_sparse ? 2 : 0);
  const size_t m = tile_rows(g, tileA), n = tile_rows(g, tileB);
  size_t elem = g->ccc ? SM_CCC2_NMOM(o->sparse) * sizeof(uint32_t) : g->v->elem_size;
  const uint64_t blk = g->st->nblocks;
  sm_gcore_register_parts(g, h, I, r, n, m, elem);
  if (hom)
    sm_gcore_register_parts(g, hom, I, r, n, m, 2 * sizeof(uint32_t));
  int ret = 0;
  for (int f = 0; f < g->d->npf && !ret; f++) {
    size_t f0, nf;
    sm_decomp_slice(g->d, f, &f0, &nf);
    starpu_data_handle_t A = g->x[sm_gcore_hidx(g, tileA, f, r)],
                         B = g->x[sm_gcore_hidx(g, tileB, f, r)];
    if (g->x8) {
      starpu_data_handle_t A8 = tile_i8(g, tileA, f, r, I, nf, prio),
                           B8 = A8 ? tile_i8(g, tileB, f, r, I, nf, prio) : NULL;
      ret = B8 ? sm_task_ccc2_i8(A8, B8, h[f], o->sparse, nf, blk, prio) : -1;
    } else if (hom)
      ret = sm_task_ccc2_ld(A, B, h[f], hom[f], nf, band, blk, prio);
    else
      ret = g->ccc           ? sm_task_ccc2(A, B, h[f], o->sparse, nf, band, blk, prio)
            : o->czek_sparse ? sm_task_czek2_sparse(A, B, h[f], o->single, nf, blk, prio)
                             : sm_task_czek2(A, B, h[f], o->single, nf, blk, prio);
    g->st->ntasks++;
    if (!ret && sm_codelets_resilience_tasks()) {
      ret = sm_task_verify2(h[f], A, B, g->ccc, variant, nf, g->x8 ? NULL : band,
                            g->st->nblocks, sm_sched_prio(o->prio, SM_TK_VERIFY));
      g->st->ntasks++;
    }
    if (!ret && hom && sm_codelets_resilience_tasks()) { /* checked as ld_hom's are */
      ret = sm_task_verify2(hom[f], A, B, 1, 2, nf, band, g->st->nblocks,
                            sm_sched_prio(o->prio, SM_TK_VERIFY));
      g->st->ntasks++;
    }
  }
  if (g->x8)
    release_i8(g, tileA, tileB, I, r, g->st->nblocks);
  if (ret)
    return SM_ERUNTIME;
  sm_err_t err = sm_gcore_reduce(g, h, ffin);
  return !err && hom ? sm_gcore_reduce(g, hom, ffin) : err;
}

sm_err_t sm_gcore_ld_hom(sm_gcore_t *g, int tileA, int tileB, int I, int r, int ffin,
                         const sm_band_t *band, starpu_data_handle_t *h)
{
  const int prio = sm_sched_prio(g->o->prio, SM_TK_BLOCK2);
  sm_gcore_register_parts(g, h, I, r, tile_rows(g, tileB), tile_rows(g, tileA),
                          2 * sizeof(uint32_t));
  for (int f = 0; f < g->d->npf; f++) {
    size_t f0, nf;
    sm_decomp_slice(g->d, f, &f0, &nf);
    starpu_data_handle_t A = g->x[sm_gcore_hidx(g, tileA, f, r)],
                         B = g->x[sm_gcore_hidx(g, tileB, f, r)];
    g->st->ntasks++;
    if (sm_task_ld_hom(A, B, h[f], nf, band, g->st->nblocks, prio))
      return SM_ERUNTIME;
    if (sm_codelets_resilience_tasks()) { /* checked as the moments are */
      g->st->ntasks++;
      if (sm_task_verify2(h[f], A, B, 1, 2, nf, band, g->st->nblocks,
                          sm_sched_prio(g->o->prio, SM_TK_VERIFY)))
        return SM_ERUNTIME;
    }
  }
  return sm_gcore_reduce(g, h, ffin);
}

sm_err_t sm_gcore_reduce(sm_gcore_t *g, starpu_data_handle_t *h, int ffin)
{
  const int prio = sm_sched_prio(g->o->prio, SM_TK_REDUCE);
  for (int f = 0; f < g->d->npf; f++) {
    if (f == ffin)
      continue;
    int ret = sm_task_add(h[ffin], h[f], sm_gcore_add_type(g), 1, prio);
    g->st->ntasks++;
    if (ret)
      return SM_ERUNTIME;
  }
  return SM_OK;
}

sm_err_t sm_gcore_output(sm_gcore_t *g, sm_err_t err, starpu_data_handle_t *h,
                         starpu_data_handle_t rec, int fin_rank)
{
  const int prio = sm_sched_prio(g->o->prio, SM_TK_OUTPUT);
  /* text outputs: the block's lines are formatted by a task of their own,
   * blocks in parallel, before the output task's turn to write them */
  starpu_data_handle_t text = NULL;
  if (!err && g->o->emit && sm_sink_text(g->sink)) {
    starpu_variable_data_register(&text, -1, 0, sizeof(sm_textbuf_t));
    sm_gcore_register(g, text, fin_rank);
    if (sm_task_format(rec, text, sm_sink_format, g->sink, prio))
      err = SM_ERUNTIME;
    g->st->ntasks++;
  }
  if (!err && sm_task_output(rec, text, g->token[fin_rank], sm_sink_put, g->sink,
                             g->st->nblocks, prio))
    err = SM_ERUNTIME;
  g->st->ntasks += 2; /* finalize and output */
  if (text)
    starpu_data_unregister_submit(text);
  if (fin_rank == g->me)
    g->st->my_outputs++;
  for (int f = 0; f < g->d->npf; f++)
    starpu_data_unregister_submit(h[f]);
  starpu_data_unregister_submit(rec);
  return err;
}
