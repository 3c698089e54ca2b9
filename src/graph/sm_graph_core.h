/* sm_graph_core.h: what the 2-way and 3-way task graphs share: the tile
 * handles of every vector partition per field slice and replica, their
 * sums (denominators) with the field reduction, the per-rank output tokens,
 * StarPU-MPI registration with tags from a counter that runs the same on
 * every rank, the lockstep walk over the rank rows' work lists with its
 * wait and unregistration, and the task sequences of one output block
 * (numerators per field slice, their reduction, output). Internal to src/. */
#ifndef SM_GRAPH_CORE_H
#define SM_GRAPH_CORE_H

#include <starpu.h>

#include "sm_codelets.h"
#include "sm_graph.h"

typedef struct sm_gcore {
  const sm_decomp_t *d;
  const sm_graph_opts_t *o;
  const sm_vectors_t *v;
  sm_sink_t *sink;      /* where the output tasks hand records */
  sm_graph_stats_t *st; /* counters of this run */
  int ccc, me, pv, pf, pr, nranks;
  int64_t tag;                 /* next StarPU-MPI tag */
  int *tile_base;              /* first tile index of partition I */
  int ntiles;                  /* tiles over all partitions */
  starpu_data_handle_t *x;     /* [(tile * npf + f) * npr + r] */
  starpu_data_handle_t *sums;  /* same index; f = 0 holds the reduced sums */
  starpu_data_handle_t *token; /* one per rank */
  starpu_data_handle_t *topk;  /* per tile: its vectors' neighbour lists (rank 0) */
  /* --ccc-gemm int8: the int8 form of tile (tile, f, r) for rank row I,
   * [hidx(tile, f, r) * npv + I], owned by the rank of (I, f, r) that
   * multiplies it; registered and filled at its first use, released after
   * its last (x8_last: the item of the last use, from the first pass;
   * UINT64_MAX unused; x8_items counts that pass's items) */
  starpu_data_handle_t *x8;
  uint64_t *x8_last, x8_items;
  int token_value;
  size_t pinned;        /* bytes of the vectors pinned for CUDA transfers (0: none) */
  uint64_t local_tasks; /* tasks this rank runs (progress line) */
} sm_gcore_t;

/* The work of a graph: one list of items (tile pairs, slices) per rank row
 * (row = replica * npv + partition), walked in lockstep so that every rank
 * submits the same graph in step. */
typedef struct sm_gcore_rows {
  size_t item_size; /* bytes of one list item */
  /* the items of rank row (I, pr), malloc'ed; NULL with *err on failure */
  void *(*list)(const sm_decomp_t *d, int I, int pr, size_t *n, sm_err_t *err);
  /* the phase of an item (items outside the phases asked for are skipped) */
  int (*phase)(const void *item);
  /* first pass: add the item's output blocks on this rank to
   * g->sink->blocks_total and the tasks this rank runs to g->local_tasks */
  void (*count)(sm_gcore_t *g, void *ctx, int row, const void *item);
  /* second pass: submit the item's tasks */
  sm_err_t (*submit)(sm_gcore_t *g, void *ctx, int row, const void *item);
  void *ctx; /* passed to count and submit */
} sm_gcore_rows_t;

/* The fields the 2-way and 3-way finalize arguments (sm_fin2_args_t,
 * sm_fin3_args_t) take from the graph, in a designated initializer. */
#define SM_GCORE_FIN_ARGS(g)                                                             \
  .metric = (g)->ccc, .single = (g)->o->single, .sparse = (g)->o->sparse,                \
  .nf = (g)->d->nf, .ccc_mult = (g)->o->ccc_mult, .ccc_param = (g)->o->ccc_param,        \
  .keep_all = (g)->o->keep_all, .threshold = (g)->o->threshold,                          \
  .thr_ent = (g)->o->thr_ent, .thr_f32 = (g)->o->thr_f32, .emit = (g)->o->emit,          \
  .hist = (g)->o->hist

/** Run a graph: register the tiles, sums and tokens and submit the sums;
 * walk the rows' items twice in lockstep (count, then submit with a bounded
 * number of tasks in flight); wait for everything and unregister. local,
 * o, sink, st: as sm_graph2_run. Returns the first error (task insertion,
 * memory, or the sink's). */
sm_err_t sm_gcore_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                      sm_sink_t *sink, sm_graph_stats_t *st,
                      const sm_gcore_rows_t *rows) SM_MUST_CHECK;

/** Wait until this rank's tasks in flight fit its window (the number of
 * tasks inserted ahead of execution stays bounded). */
void sm_gcore_throttle(const sm_gcore_t *g);

/** Tell StarPU-MPI who owns h (same call order on every rank). */
void sm_gcore_register(sm_gcore_t *g, starpu_data_handle_t h, int owner);

/** Handle index of (global tile, field slice, replica). */
static inline size_t sm_gcore_hidx(const sm_gcore_t *g, int tile, int f, int r)
{
  return ((size_t)tile * g->d->npf + (size_t)f) * g->d->npr + (size_t)r;
}

/** Tasks of one result piece that run on this rank: its numerators per
 * field slice (each on its slice's rank; with its check task when checked
 * and the graph has them, sm_codelets_resilience_tasks) and, on the rank
 * of slice ffin, the reduction plus finalize and output when fin. */
uint64_t sm_gcore_local_tasks(const sm_gcore_t *g, int I, int r, int ffin, int fin,
                              int checked);

/** Field reduction codelet type of the numerators and sums. */
int sm_gcore_add_type(const sm_gcore_t *g);

/** Register h[f] for every field slice f: an unallocated nx x ny matrix of
 * elem-byte elements, owned by the rank of (I, f, r). */
void sm_gcore_register_parts(sm_gcore_t *g, starpu_data_handle_t *h, int I, int r,
                             size_t nx, size_t ny, size_t elem);

/** Register the record buffer of a block finalized on rank fin_rank, room
 * for max_records records when records are emitted. */
starpu_data_handle_t sm_gcore_register_records(sm_gcore_t *g, size_t max_records,
                                               int fin_rank);

/** First pass, for each item in turn (none without --ccc-gemm int8): the
 * int8 expansions the 2-way numerators of tiles tileA and tileB for
 * replica r of partition I add, and the last item to use each int8 tile. */
void sm_gcore_count_i8(sm_gcore_t *g, int tileA, int tileB, int I, int r);

/** Count the numerator tasks of replica r of partition I that run here
 * (one per field slice on this rank) and their vector pairs. */
void sm_gcore_count_mine(sm_gcore_t *g, int I, int r, uint64_t pairs);

/** 2-way numerators of global tile tileA (rows) against tileB for replica
 * r of partition I: registers h[f] per field slice, submits the numerator
 * (and resilience) tasks at the priority of kind and reduces them into
 * h[ffin]. With int8 tiles, g->st->nblocks must be the item's index (as
 * counted by sm_gcore_count_i8). band (NULL: every pair): the tile pair's
 * place among LD windows, for the CCC tasks (sm_task_ccc2). hom (not
 * NULL: o->ld_fused): PLINK's homozygous tallies beside, by the same
 * tasks (sm_task_ccc2_ld), each result checked and reduced as the
 * numerators are. Returns SM_ERUNTIME when an insertion fails. */
sm_err_t sm_gcore_pair(sm_gcore_t *g, int tileA, int tileB, int I, int r, int ffin,
                       sm_task_kind_t kind, const sm_band_t *band,
                       starpu_data_handle_t *h, starpu_data_handle_t *hom) SM_MUST_CHECK;

/** Reduce the field slices' partial numerators h[f] into h[ffin], in a
 * fixed order (the others, ascending). Returns SM_ERUNTIME when an
 * insertion fails. */
sm_err_t sm_gcore_reduce(sm_gcore_t *g, starpu_data_handle_t *h, int ffin) SM_MUST_CHECK;

/** After a block's finalize task (err: the insertions so far): its output
 * task on rank fin_rank in token order, counted with the finalize; then
 * h[f] of every field slice and rec are released. */
/* PLINK's r and r^2 (--metric r2, r): the homozygous-called tallies of
 * the tile pair (sm_task_ld_hom) into h[0 .. npf), reduced into h[ffin] as
 * the numerators are. */
sm_err_t sm_gcore_ld_hom(sm_gcore_t *g, int tileA, int tileB, int I, int r, int ffin,
                         const sm_band_t *band, starpu_data_handle_t *h);
sm_err_t sm_gcore_output(sm_gcore_t *g, sm_err_t err, starpu_data_handle_t *h,
                         starpu_data_handle_t rec, int fin_rank) SM_MUST_CHECK;

#endif
