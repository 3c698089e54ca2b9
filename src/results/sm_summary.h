/* sm_summary.h: the run summary: a JSON file beside the output and a
 * human-readable block on stdout (SPEC 5, 7). */
#ifndef SM_SUMMARY_H
#define SM_SUMMARY_H

#include <stdio.h>

#include "sm_codelets.h"
#include "sm_graph.h"
#include "sm_options.h"
#include "sm_runtime.h"

/* What each rank reports to rank 0 at the end. */
typedef struct sm_rank_stats {
  sm_cksum_t cksum;
  uint64_t nvalues, nwritten, nchecked, nbad;
  uint64_t subblocks, pairs, outputs;
  uint64_t mpi_bytes, bus_bytes;
  double t_compute, max_rel_err;
  int nworkers;
  uint64_t checks, failures, reexecuted, injected;
  /* --retry runtime: per codelet, tries by worker type (sm_codelets.h) */
  sm_retry_stats_t retry[SM_RETRY_CODELETS];
} sm_rank_stats_t;

/** Add the retry counts of `from` to `to`, codelet by codelet (by name). */
void sm_summary_merge_retries(sm_retry_stats_t *to, const sm_retry_stats_t *from);

typedef struct sm_summary {
  const sm_options_t *opt;
  const char *command;    /* the command line */
  const char *input_desc; /* file name or synthetic description */
  /* text input: "yes"/"no" as read (auto or asked), or NULL */
  const char *text_header, *text_row_names;
  /* a BIOM input: the axis compared, "samples" or "observations", or NULL */
  const char *compare;
  uint64_t mem_estimate, mem_peak; /* rank 0: bytes estimated before, peak RSS */
  size_t nv, nf;
  double npairs; /* the pairs of PLINK's LD windows (0: every tuple) */
  int sparse;
  size_t nmissing;
  const char *kernel; /* kernel that ran */
  /* Czekanowski 2-way: "dense" or "sparse" (--czek-method), NULL for the
   * others; the fraction of non-zero entries of the input */
  const char *czek_method;
  double density;
  int nranks;
  const sm_decomp_t *decomp; /* the rank grid and phases */
  int phase_min, phase_max;
  const sm_rank_stats_t *ranks;  /* nranks entries (rank 0 only) */
  sm_rank_stats_t total;         /* sums over ranks, merged checksum */
  const sm_graph_stats_t *graph; /* NULL for the reference method */
  const sm_runtime_stats_t *rt;  /* NULL for the reference method */
  const sm_runtime_stats_t *rts; /* every rank's (rank 0), or NULL */
  int prio_mode;                 /* sm_prio_mode_t of the task graph */
  const sm_sink_t *sink;
  double t_input, t_init, t_compute, t_output, t_total;
  int names;                   /* text output keyed by vector names (else indices) */
  double t_readback;           /* the commit's read-back of the outputs (slowest rank) */
  const char *out_check;       /* how rank 0's output was checked (sm_writer_check) */
  double t_agree;              /* rank 0's time in the commit's agreements */
  const char *output_path;     /* or NULL */
  const sm_hist_spec_t *hist;  /* --histogram, or NULL ... */
  const uint64_t *hist_counts; /* ... its counts over every rank */
  const char *hist_path, *hist_png; /* the files written, or NULL */
  const char *topk_path;            /* --top-k's file, or NULL ... */
  unsigned long long topk_rows;     /* ... and its rows */
  const char *status;               /* "ok" or the error */
  const char *retry;                /* "runtime" or "check" (--verify) */
  int verify;                       /* sm_verify_t, as the run decided it */
  int verify_default;               /* ... by default (no --verify, --no-verify) */
} sm_summary_t;

/** Number of results (pairs or triples) of nv vectors. */
double sm_summary_nresults(size_t nv, int way);

/** Write the JSON summary (to a temporary name, renamed when complete). */
sm_err_t sm_summary_write_json(const sm_summary_t *s, const char *path) SM_MUST_CHECK;

/** Print the human summary. */
void sm_summary_print(const sm_summary_t *s, FILE *f);

#endif
