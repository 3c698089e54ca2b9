/* sm_output.h: result files. Records go to a temporary file that is
 * renamed to its final name only when the run completes, so a file that
 * looks finished is finished. Formats: tsv, bin (starmet's), comet, none. */
#ifndef SM_OUTPUT_H
#define SM_OUTPUT_H

#include "sm_types.h"
#include "sm_vectors.h"

typedef enum sm_outfmt {
  SM_OUT_TSV = 0, /* text: id_i id_j [id_k] [a b [c]] value */
  SM_OUT_BIN,     /* starmet binary (README: "Binary output") */
  SM_OUT_COMET,   /* CoMet's record layout: uint32 coords, float32 value */
  SM_OUT_NONE,    /* nothing written (checksum and summary only) */
} sm_outfmt_t;

typedef struct sm_writer sm_writer_t;

typedef struct sm_writer_info {
  sm_outfmt_t fmt;
  int way; /* 2 or 3 */
  sm_metric_t metric;
  int single;    /* values as float32 in bin */
  size_t nv, nf; /* whole problem */
  char **names;  /* global vector names or NULL (indices used) */
} sm_writer_info_t;

/** Parse "tsv", "bin", "comet", "none". */
sm_err_t sm_outfmt_parse(const char *s, sm_outfmt_t *fmt) SM_MUST_CHECK;

/** Final path of the output of rank `rank` of `nranks` for prefix:
 * PREFIX.<ext> on one rank, PREFIX_<rank>.<ext> on several. */
void sm_output_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int rank,
                    int nranks);

/** Open a writer on the temporary name PATH.part (SM_OUT_NONE: no file).
 * resume_off 0 starts a new file; otherwise the existing PATH.part is
 * truncated to resume_off bytes (what an interrupted run completed, holding
 * resume_count records) and appended to. */
sm_err_t sm_writer_open(sm_writer_t **w, const char *path, const sm_writer_info_t *info,
                        uint64_t resume_off, uint64_t resume_count) SM_MUST_CHECK;

/** Flush buffered records to the file; *off gets the file size and *fd the
 * descriptor (-1 without a file). */
sm_err_t sm_writer_flush(sm_writer_t *w, uint64_t *off, int *fd) SM_MUST_CHECK;

/** Append records. */
sm_err_t sm_writer_put(sm_writer_t *w, const sm_rec_t *rec, size_t n) SM_MUST_CHECK;

/** Number of records written so far. */
uint64_t sm_writer_count(const sm_writer_t *w);

/** Close: commit != 0 flushes, syncs and renames to the final name;
 * commit == 0 removes the temporary file, commit < 0 keeps it (an
 * interrupted run's partial output, for --resume). Accepts NULL. */
sm_err_t sm_writer_close(sm_writer_t *w, int commit);

#endif
