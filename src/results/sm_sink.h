/* sm_sink.h: where computed records go: the threshold (when the finalize
 * did not apply it), the analytic self-check, the run checksum, the output
 * writer and progress. Fed by output tasks (serialized) or the reference
 * implementation. */
#ifndef SM_SINK_H
#define SM_SINK_H

#include "sm_output.h"
#include "sm_resume.h"
#include "sm_synth.h"

typedef struct sm_sink {
  sm_writer_t *writer; /* NULL: records are kept in capture (below) */
  int way;
  sm_metric_t metric;
  int single, sparse;
  double ccc_mult, ccc_param;
  int apply_threshold;        /* records arrive unthresholded */
  double threshold;           /* keep > threshold; < 0: keep all */
  int dis;                    /* the values are dissimilarities: keep <= threshold */
  sm_thr_list_t thr_ent;      /* or CoMet's thresholds per table entry (CCC) */
  int thr_f32;                /* compare float32-rounded values (float outputs) */
  sm_hist_spec_t hist;        /* value histograms (hist.bins > 0) ... */
  uint64_t *hist_counts;      /* ... summed here (sm_hist_words entries) */
  const sm_synth_t *analytic; /* check every value against it, or NULL */
  uint64_t nf;                /* fields per vector (the analytic check's bound) */
  /* results */
  sm_cksum_t cksum;
  uint64_t nvalues, nwritten;
  uint64_t nchecked, nbad;
  double max_rel_err;
  uint64_t blocks_done, blocks_total;
  int progress; /* print progress on stderr */
  double t_start;
  int err;                 /* first error code seen */
  sm_manifest_t *manifest; /* record completed blocks for --resume, or NULL */
  uint64_t stop_after;     /* tests: SIGKILL itself after this many blocks (0: never) */
  uint64_t pause_after;    /* tests: SIGSTOP itself once after this many (0: never) */
  uint64_t stop_count;     /* blocks taken by this process */
  /* pieces' order (sm_writer_pieces): per output block, the lowest first
   * variant it may hold; then, from the first block put, the lowest of the
   * blocks after it (rows below are complete once it is written) */
  uint32_t *upto;
  uint64_t nupto, cap_upto;
  int upto_ready, upto_lost; /* lost: no memory, every piece waits for the end */
  /* optional copy of every record passed on (tests, small problems) */
  sm_rec_t *capture;
  size_t capture_n, capture_cap;
} sm_sink_t;

/** How far (relative) a value computed in this precision may be from the
 * exact one, with vectors of nf fields: for Czekanowski a ratio of sums of
 * nf non-negative terms, each sum within (nf - 1) units of roundoff of
 * its exact value whatever the order of the additions, hence 2 nf u, and
 * at least 1e-6 (single) or 1e-12 (double) for the formula's rounding; CCC
 * adds integer tallies exactly. The analytic check's tolerance. */
double sm_sink_rel_bound(sm_metric_t metric, int single, uint64_t nf);

/** Release the captured records. */
void sm_sink_capture_free(sm_sink_t *s);
/** Release what the sink holds (captured records, the blocks' order). */
void sm_sink_release(sm_sink_t *s);

/** The graph, before it inserts its output blocks, announces each of them
 * in its order with the lowest first variant its lines may have, for the
 * outputs written in order across blocks (ld). Without memory for that,
 * or without the announcements, every block's lines wait for the end. */
void sm_sink_expect_block(sm_sink_t *s, uint32_t lowest);

/** sm_sink_fn: take one block's records (text: their lines from
 * sm_sink_format, or NULL). Returns 0, or -1 on error (the error is logged
 * and kept in sink->err). */
int sm_sink_put(void *sink, const sm_recbuf_t *rb, const sm_textbuf_t *text,
                uint64_t block);

/** Whether the sink writes text that sm_sink_format can prepare. */
int sm_sink_text(const sm_sink_t *s);

/** sm_format_fn: the lines the sink will write for a block's records (the
 * threshold applied), on any thread, in parallel with other blocks. */
void sm_sink_format(void *sink, const sm_recbuf_t *rb, sm_textbuf_t *text);

#endif
