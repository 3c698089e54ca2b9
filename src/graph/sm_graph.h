/* sm_graph.h: building and running the task graph of a computation. Every
 * rank registers the same handles (tiles of vector partitions per field
 * slice and replica, partial numerators, sums, record buffers) and submits
 * the same tasks; StarPU-MPI runs each task on the rank that owns the data
 * it writes and moves partitions where they are needed. Per tile pair:
 * numerator tasks per field slice, reduction tasks in a fixed order,
 * finalize, then output (ordered per rank by a token). */
#ifndef SM_GRAPH_H
#define SM_GRAPH_H

#include "sm_decomp.h"
#include "sm_grain.h"
#include "sm_sink.h"
#include "sm_vectors.h"

typedef struct sm_graph_opts {
  const sm_decomp_t *d;     /* decomposition (npv = npf = npr = 1 on one rank) */
  int rank;                 /* this rank */
  int use_mpi;              /* insert through StarPU-MPI */
  int phase_min, phase_max; /* phases to compute (0-based, inclusive) */
  int num_stage, stage_min, stage_max; /* 3-way stages (0-based, inclusive) */
  int single;                          /* czekanowski in float */
  int form, zero_nan;            /* czekanowski 2-way, PLINK's r and r^2: the values'
                                    form (sm_fin2_args_t) */
  double ld_min;                 /* r, r^2: sm_fin2_args_t's filter (< 0: none) */
  int ld_a1;                     /* and its sign rule */
  const unsigned char *ld_rev;   /* and its alleles decided (sm_fin2_args_t), or NULL */
  const uint32_t *ld_win;        /* and windows (NULL: every pair) */
  const unsigned char *ld_index; /* PLINK's --ld-snp (sm_band_t's index), or NULL */
  int sparse;                    /* ccc sparse method */
  int ccc_i8;                    /* ccc 2-way: cached int8 tiles and int8 products */
  /* czekanowski 2-way on packed sparse tiles (sm_csr.h) instead of the
   * dense slice: this rank's tiles of its partition and field slice
   * (csr_local[t], tile t of the partition) and the non-zero entries of
   * every tile on every field slice, [global tile * npf + f], the same on
   * every rank (the size of the handles of other ranks' tiles) */
  int czek_sparse;
  void *const *csr_local;
  const uint64_t *csr_nnz;
  double ccc_mult, ccc_param;
  double threshold;        /* < 0: none */
  sm_thr_list_t thr_ent;   /* or CoMet's thresholds per table entry */
  int thr_f32;             /* threshold on float32-rounded values */
  sm_hist_spec_t hist;     /* value histograms (hist.bins > 0) */
  sm_topk_spec_t topk;     /* nearest neighbours (topk.k > 0; 2-way) ... */
  sm_topk_ent_t *topk_acc; /* ... their lists: nv x lists x k places, on rank 0
                              (sm_topk_before order once the graph ran) */
  int emit;                /* produce records (0 when output is none and no check) */
  int keep_all;            /* records unthresholded (sink thresholds) */
  int prio;                /* use task priorities */
  int ngpus; /* GPUs that may run the products (rank 0's, the same on every rank) */
  /* PLINK's r and r^2: a tile pair's moments and homozygous tallies by one
   * CPU task (sm_task_ccc2_ld): no accelerator runs the products, no int8
   * tiles; the same on every rank */
  int ld_fused;
  /* output blocks an interrupted run completed (--resume), sorted: their
   * tasks are not submitted */
  const uint64_t *skip;
  size_t nskip;
} sm_graph_opts_t;

/** 1 when output block id is in o->skip. */
int sm_graph_skipped(const sm_graph_opts_t *o, uint64_t id);

typedef struct sm_graph_stats {
  size_t block_size, ntiles; /* tiles over all partitions */
  uint64_t nblocks;          /* tile pairs in the whole graph (these phases) */
  uint64_t ntasks;           /* tasks in the whole graph */
  uint64_t my_subblocks;     /* tile pairs whose numerators ran here */
  uint64_t my_pairs;         /* vector pairs computed here (per field slice) */
  uint64_t my_outputs;       /* blocks finalized and written here */
  double t_submit;           /* time spent inserting tasks */
  double t_run;              /* from first insertion to the end */
  sm_grain_t grain;          /* what the task grain was chosen from (rank 0) */
} sm_graph_stats_t;

/** The largest automatic 2-way tile: the bounds of a block's buffers
 * (emit: records are made; pair_bytes: the numerator bytes of one pair,
 * 0: not bounded by them). */
size_t sm_graph_auto_block_cap(int ngpus, int emit, int metric_ccc, size_t pair_bytes);

/** Automatic tile size for a partition of nv vectors of nf fields on
 * nworkers workers, ngpus of them GPUs that may run the modified GEMMs
 * (CUDA workers under --devices all or accel): GPUs get fewer, larger
 * tiles; at most sm_graph_auto_block_cap. CPU tile pairs of at least
 * min_work comparisons (sm_grain.h; 0: none) while the bounds allow. */
size_t sm_graph_auto_block_cost(size_t nv, size_t nf, int nworkers, int ngpus, int emit,
                                int metric_ccc, size_t pair_bytes, double min_work);

/** sm_graph_auto_block_cost without a least work per task. */
size_t sm_graph_auto_block(size_t nv, int nworkers, int ngpus, int emit, int metric_ccc,
                           size_t pair_bytes);

/** Automatic tile size for a 3-way partition of nv vectors of nf fields,
 * ngpus GPUs that may run the products; CPU tile triples of at least
 * min_work comparisons (sm_grain.h; 0: none) where 3 tiles remain. */
size_t sm_graph_auto_block3(size_t nv, size_t nf, int ngpus, double min_work);

/** Planes of one 3-way task (a group of planes against an mx x my tile
 * pair, nf fields): enough work per task (GPUs: millions of triples),
 * record buffers bounded when emit. */
size_t sm_graph_plane_group(int emit, int ngpus, size_t nf, size_t mx, size_t my);

/** Run the 3-way graph (same conventions as sm_graph2_run): slices of the
 * rank's slab, their planes in groups, stages. */
sm_err_t sm_graph3_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st) SM_MUST_CHECK;

/** Run the 2-way graph. local holds this rank's partition slice: the
 * vectors of partition pv restricted to field slice pf (StarPU, and
 * StarPU-MPI when use_mpi, initialized). */
sm_err_t sm_graph2_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st) SM_MUST_CHECK;

/** The tasks a rank keeps in flight (sm_gcore_throttle): 3 (4 workers + 4)
 * per field slice, a third of them finalize tasks; with LD windows four
 * times that (a tile pair's seven tasks hold few pairs each: a short
 * window let the workers wait for the tasks' insertion). The memory
 * estimate counts the same (sm_memory.c). */
static inline unsigned sm_graph_in_flight(unsigned workers, unsigned npf, int windowed)
{
  return (windowed ? 12u : 3u) * (4u * workers + 4u) * npf;
}

#endif
