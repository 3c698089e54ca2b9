/* sm_summary.h: the run summary: a JSON file beside the output and a
 * human-readable block on stdout (SPEC 5, 7). */
#ifndef SM_SUMMARY_H
#define SM_SUMMARY_H

#include <stdio.h>

#include "sm_graph.h"
#include "sm_options.h"
#include "sm_runtime.h"

typedef struct sm_summary {
  const sm_options_t *opt;
  const char *command;     /* the command line */
  const char *input_desc;  /* file name or synthetic description */
  size_t nv, nf;
  int sparse;
  size_t nmissing;
  const char *kernel;      /* kernel that ran */
  int nranks;
  const sm_graph_stats_t *graph; /* NULL for the reference method */
  const sm_runtime_stats_t *rt;  /* NULL for the reference method */
  const sm_sink_t *sink;
  double t_input, t_init, t_compute, t_output, t_total;
  const char *output_path; /* or NULL */
  const char *status;      /* "ok" or the error */
} sm_summary_t;

/** Number of results (pairs or triples) of nv vectors. */
double sm_summary_nresults(size_t nv, int way);

/** Write the JSON summary (to a temporary name, renamed when complete). */
sm_err_t sm_summary_write_json(const sm_summary_t *s, const char *path) SM_MUST_CHECK;

/** Print the human summary. */
void sm_summary_print(const sm_summary_t *s, FILE *f);

#endif
