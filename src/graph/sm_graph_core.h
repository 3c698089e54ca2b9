/* sm_graph_core.h: what the 2-way and 3-way task graphs share: the tile
 * handles of every vector partition per field slice and replica, their
 * sums (denominators) with the field reduction, the per-rank output tokens,
 * StarPU-MPI registration with tags from a counter that runs the same on
 * every rank, and the final wait and unregistration. Internal to src/. */
#ifndef SM_GRAPH_CORE_H
#define SM_GRAPH_CORE_H

#include <starpu.h>

#include "sm_graph.h"

typedef struct sm_gcore {
  const sm_decomp_t *d;
  const sm_graph_opts_t *o;
  const sm_vectors_t *v;
  int ccc, me, pv, pf, pr, nranks;
  int64_t tag;                 /* next StarPU-MPI tag */
  int *tile_base;              /* first tile index of partition I */
  int ntiles;                  /* tiles over all partitions */
  starpu_data_handle_t *x;     /* [(tile * npf + f) * npr + r] */
  starpu_data_handle_t *sums;  /* same index; f = 0 holds the reduced sums */
  starpu_data_handle_t *token; /* one per rank */
  int token_value;
  uint64_t local_tasks;        /* tasks this rank runs (progress line) */
} sm_gcore_t;

/** Register every tile, sums and token handle and submit the sums tasks
 * with their field reduction. */
sm_err_t sm_gcore_init(sm_gcore_t *g, const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_graph_stats_t *st) SM_MUST_CHECK;

/** Tell StarPU-MPI who owns h (same call order on every rank). */
void sm_gcore_register(sm_gcore_t *g, starpu_data_handle_t h, int owner);

/** Handle index of (global tile, field slice, replica). */
static inline size_t sm_gcore_hidx(const sm_gcore_t *g, int tile, int f, int r)
{
  return ((size_t)tile * g->d->npf + (size_t)f) * g->d->npr + (size_t)r;
}

/** Tasks of one result piece that run on this rank: its numerators per
 * field slice (each on its slice's rank) and, on the rank of slice ffin,
 * the reduction plus finalize and output when fin. */
uint64_t sm_gcore_local_tasks(const sm_gcore_t *g, int I, int r, int ffin, int fin);

/** Field reduction codelet type of the numerators and sums. */
int sm_gcore_add_type(const sm_gcore_t *g);

/** Window of tasks in flight for this rank. */
unsigned sm_gcore_window(const sm_gcore_t *g);

/** Wait for every task (and StarPU-MPI request) and unregister. */
void sm_gcore_fini(sm_gcore_t *g);

#endif
