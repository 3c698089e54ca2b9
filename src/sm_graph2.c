/* sm_graph2.c: the 2-way task graph on one rank. Tiles I <= J give one
 * block each; the diagonal block keeps only i < j. Per block: numerator
 * task -> finalize task -> output task (ordered by a token), and the block's
 * buffers are unregistered as soon as its output is submitted. */
#include "sm_graph.h"

#include <math.h>
#include <starpu.h>
#include <stdlib.h>

#include "sm_codelets.h"
#include "sm_timer.h"

size_t sm_graph_auto_block(size_t nv, int nworkers, int emit, int metric_ccc)
{
  if (nworkers < 1)
    nworkers = 1;
  /* enough blocks to keep every worker busy with a few to spare */
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

typedef struct tiles {
  size_t n, bs;
  starpu_data_handle_t *x, *sums;
} tiles_t;

static void tiles_unregister(tiles_t *t)
{
  for (size_t k = 0; k < t->n; k++) {
    if (t->x && t->x[k])
      starpu_data_unregister(t->x[k]);
    if (t->sums && t->sums[k])
      starpu_data_unregister(t->sums[k]);
  }
  free(t->x);
  free(t->sums);
}

static size_t tile_rows(const tiles_t *t, size_t nv, size_t k)
{
  size_t r0 = k * t->bs;
  return nv - r0 < t->bs ? nv - r0 : t->bs;
}

sm_err_t sm_graph2_run(const sm_vectors_t *v, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st)
{
  const int ccc = v->metric == SM_METRIC_CCC;
  const int nworkers = (int)starpu_worker_get_count();
  tiles_t t = {0};
  t.bs = o->block_size ? o->block_size : sm_graph_auto_block(v->nv, nworkers, o->emit, ccc);
  if (t.bs > v->nv)
    t.bs = v->nv;
  t.n = (v->nv + t.bs - 1) / t.bs;
  st->block_size = t.bs;
  st->ntiles = t.n;
  st->nblocks = 0;
  st->ntasks = 0;
  t.x = calloc(t.n, sizeof *t.x);
  t.sums = calloc(t.n, sizeof *t.sums);
  if (!t.x || !t.sums) {
    free(t.x);
    free(t.sums);
    return SM_ENOMEM;
  }
  const int pr_sums = o->prio ? 3 : 0, pr_num = 0, pr_fin = o->prio ? 1 : 0,
            pr_out = o->prio ? 2 : 0;
  double t0 = sm_now(), t_sub = 0, ts;
  ts = sm_now();
  const size_t sum_elem = ccc ? 2 * sizeof(uint32_t) : v->elem_size;
  for (size_t k = 0; k < t.n; k++) {
    size_t rows = tile_rows(&t, v->nv, k);
    starpu_matrix_data_register(&t.x[k], STARPU_MAIN_RAM,
                                (uintptr_t)sm_vectors_row(v, k * t.bs), v->ld, v->ld,
                                rows, v->elem_size);
    starpu_vector_data_register(&t.sums[k], -1, 0, rows, sum_elem);
    int ret = ccc ? sm_task_sums_ccc(t.x[k], t.sums[k], o->sparse, v->nf, pr_sums)
                  : sm_task_sums_czek(t.x[k], t.sums[k], o->single, v->nf, pr_sums);
    if (ret) {
      sm_log_error("task insertion failed (%d)", ret);
      starpu_task_wait_for_all();
      tiles_unregister(&t);
      return SM_ERUNTIME;
    }
    st->ntasks++;
  }
  int token_value = 0;
  starpu_data_handle_t token;
  starpu_variable_data_register(&token, STARPU_MAIN_RAM, (uintptr_t)&token_value,
                                sizeof token_value);
  /* blocks in flight are bounded: each holds a numerator and a record
   * buffer until its output task ran */
  const unsigned window = (unsigned)(3 * (4 * nworkers + 4));
  const size_t nmom = SM_CCC2_NMOM(o->sparse);
  sm_err_t err = SM_OK;
  sink->blocks_total = (uint64_t)t.n * (t.n + 1) / 2;
  t_sub += sm_now() - ts;
  for (size_t I = 0; I < t.n && !err; I++) {
    for (size_t J = I; J < t.n && !err; J++) {
      ts = sm_now();
      const size_t m = tile_rows(&t, v->nv, I), n = tile_rows(&t, v->nv, J);
      starpu_data_handle_t num, rec;
      size_t num_elem = ccc ? nmom * sizeof(uint32_t) : v->elem_size;
      starpu_matrix_data_register(&num, -1, 0, n, n, m, num_elem);
      sm_fin2_args_t fa = {
          .metric = ccc,
          .single = o->single,
          .sparse = o->sparse,
          .diag = I == J,
          .i0 = (uint32_t)(I * t.bs),
          .j0 = (uint32_t)(J * t.bs),
          .m = (uint32_t)m,
          .n = (uint32_t)n,
          .nf = v->nf,
          .ccc_mult = o->ccc_mult,
          .ccc_param = o->ccc_param,
          .keep_all = o->keep_all,
          .threshold = o->threshold,
          .thr_f32 = o->thr_f32,
          .emit = o->emit,
      };
      size_t rec_bytes = sizeof(sm_recbuf_t) +
                         (o->emit ? sm_fin2_max_records(&fa) : 0) * sizeof(sm_rec_t);
      starpu_variable_data_register(&rec, -1, 0, rec_bytes);
      int ret = ccc ? sm_task_ccc2(t.x[I], t.x[J], num, o->sparse, v->nf, pr_num)
                    : sm_task_czek2(t.x[I], t.x[J], num, o->single, v->nf, pr_num);
      if (!ret)
        ret = sm_task_finalize2(num, t.sums[I], t.sums[J], rec, &fa, pr_fin);
      if (!ret)
        ret = sm_task_output(rec, token, sm_sink_put, sink, st->nblocks, pr_out);
      starpu_data_unregister_submit(num);
      starpu_data_unregister_submit(rec);
      if (ret) {
        sm_log_error("task insertion failed (%d)", ret);
        err = SM_ERUNTIME;
      }
      st->ntasks += 3;
      st->nblocks++;
      t_sub += sm_now() - ts;
      starpu_task_wait_for_n_submitted(window);
    }
  }
  starpu_task_wait_for_all();
  starpu_data_unregister(token);
  tiles_unregister(&t);
  st->t_submit = t_sub;
  st->t_run = sm_now() - t0;
  if (!err && sink->err)
    err = (sm_err_t)sink->err;
  return err;
}
