/* sm_graph.h: building and running the task graph of a computation on one
 * rank: tiles of vectors as StarPU handles, one numerator task per 2-way
 * block, denominator (sums) tasks per tile, a finalize and an output task
 * per block, with a bounded number of blocks in flight. */
#ifndef SM_GRAPH_H
#define SM_GRAPH_H

#include "sm_sink.h"
#include "sm_vectors.h"

typedef struct sm_graph_opts {
  int single;          /* czekanowski in float */
  int sparse;          /* ccc sparse method */
  double ccc_mult, ccc_param;
  size_t block_size;   /* vectors per tile; 0 = automatic */
  double threshold;    /* < 0: none */
  int thr_f32;         /* threshold on float32-rounded values */
  int emit;            /* produce records (0 when output is none and no check) */
  int keep_all;        /* records unthresholded (sink thresholds) */
  int prio;            /* use task priorities */
} sm_graph_opts_t;

typedef struct sm_graph_stats {
  size_t block_size, ntiles;
  uint64_t nblocks, ntasks;
  double t_submit;     /* time spent inserting tasks */
  double t_run;        /* from first insertion to the last task's end */
} sm_graph_stats_t;

/** Automatic tile size for nv vectors on nworkers workers. */
size_t sm_graph_auto_block(size_t nv, int nworkers, int emit, int metric_ccc);

/** Run the 2-way graph over all vectors of v (StarPU initialized). */
sm_err_t sm_graph2_run(const sm_vectors_t *v, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st) SM_MUST_CHECK;

#endif
