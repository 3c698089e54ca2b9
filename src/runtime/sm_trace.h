/* sm_trace.h: --trace FILE: one CSV line per task of the graph (kind,
 * block, rank, worker, start, end), gathered from every rank (the format
 * is documented in the README). */
#ifndef SM_TRACE_H
#define SM_TRACE_H

#include "sm_error.h"
#include "sm_runtime.h"

/** Collective: gather the task records of every rank (sm_observe.h) and
 * write them on rank 0 to path (under a temporary name, renamed when
 * complete), ordered by start time. all: every rank's stats (rank 0), for
 * the codelet and worker names. */
sm_err_t sm_trace_write(const char *path, const sm_runtime_stats_t *all) SM_MUST_CHECK;

#endif
