/* sm_observe.h: what a run tells about its tasks: per-codelet counts and
 * durations, tasks run with uncalibrated performance models, the progress
 * line (tasks done / total, rate, ETA), and with --trace one record per
 * task; gathered from every rank for the summary. */
#ifndef SM_OBSERVE_H
#define SM_OBSERVE_H

#include <stdint.h>

#include "sm_error.h"
#include "sm_runtime.h"

/* One task as the trace keeps it (times: seconds since the graph started
 * on the task's rank). */
typedef struct sm_task_rec {
  uint64_t id;     /* insertion number, the same on every rank */
  int32_t i, j, k; /* block: global tile indices, -1 where none */
  int16_t worker;  /* StarPU worker on this rank; -1: ran elsewhere */
  int16_t codelet; /* index into sm_runtime_stats_t.cl of its rank */
  int32_t priority;
  double start_s, end_s;
} sm_task_rec_t;

/** Observe the tasks inserted from now on (after sm_runtime_init, before
 * the graph; collective, so that the ranks' clocks start together): reset
 * the worker counters; with trace keep one record per task; with progress
 * print the progress line on stderr. */
sm_err_t sm_observe_start(int trace, int progress) SM_MUST_CHECK;

/** The block the tasks inserted next belong to (global tile indices of its
 * rows, columns and, 3-way, planes; -1 where none). */
void sm_observe_block(int i, int j, int k);

/** The number of tasks this rank will run (for the progress line). */
void sm_observe_expect(uint64_t ntasks);

/** Stop observing (after the graph completed, before sm_runtime_shutdown):
 * fills the codelet fields, tasks_done and uncalibrated of st. */
void sm_observe_stop(sm_runtime_stats_t *st);

/** Log (error lines) the tasks that have been running for at least min_s
 * seconds on this rank's workers: number, codelet, block, worker, time.
 * Returns how many. */
int sm_observe_report_running(double min_s);

/** The trace records kept (insertion order; worker -1 for the tasks that
 * ran on other ranks) and their number. */
const sm_task_rec_t *sm_observe_record(uint64_t id);
uint64_t sm_observe_ninserted(void);

/** Release the trace records. */
void sm_observe_free(void);

/** Collective: every rank's stats to rank 0 (*all: malloc'd, one entry per
 * rank, on rank 0; NULL elsewhere). */
sm_err_t sm_observe_gather(const sm_runtime_stats_t *mine,
                           sm_runtime_stats_t **all) SM_MUST_CHECK;

/** Codelet stats of all ranks merged by codelet name (at most max). */
int sm_observe_merge_codelets(const sm_runtime_stats_t *all, int nranks,
                              sm_codelet_stats_t *out, int max);

/** On rank 0 after the gather: the calibration line (--calibrate) or the
 * warning that a model-based policy ran with uncalibrated models. */
void sm_observe_report_calibration(const sm_runtime_stats_t *all, int nranks);

#endif
