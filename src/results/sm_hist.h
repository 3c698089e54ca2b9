/* sm_hist.h: the value histograms of a run (--histogram): their entries'
 * names, the PREFIX.hist.tsv file, the JSON member and the gnuplot
 * picture. The counts themselves are made by the finalize kernels (per
 * block, sm_types.h) and summed by the sink and across ranks. */
#ifndef SM_HIST_H
#define SM_HIST_H

#include <stdint.h>

#include "sm_error.h"
#include "sm_json.h"
#include "sm_types.h"

/* metric: the values' sm_metric_t (sm_vectors.h: czekanowski's
 * dissimilarities have their own), named in the files. */

/** The table entry e's name: "-" for czekanowski (way ignored), the bits
 * a b [c] for CCC ("01", "101"). buf holds at least 4 bytes. */
void sm_hist_entry_name(int metric, int way, uint32_t e, char *buf);

/** Write path (atomically): a header, then per entry and slot
 * `metric way entry bin lo hi count`; bin -1 counts values below the
 * range, bins above it, bins + 1 NaN values. Logs its errors. */
sm_err_t sm_hist_write_tsv(const char *path, const sm_hist_spec_t *h, int metric, int way,
                           const uint64_t *counts) SM_MUST_CHECK;

/** The "histogram" member of a JSON summary. */
void sm_hist_json(sm_json_t *j, const sm_hist_spec_t *h, int metric, int way,
                  const uint64_t *counts);

/** Draw the counts into png with gnuplot, when gnuplot is on the PATH:
 * one curve per table entry over the bins, counts on a log scale. gnuplot
 * opens no file: it reads its script and the counts on one pipe and writes
 * the picture to another, copied into a temporary file of the output
 * policy (sm_commit_open, unique: nothing planted at png.part is opened or
 * removed), renamed to png once gnuplot succeeded and the PNG is whole.
 * Returns 1 when the picture was made, 0 without gnuplot, -1 when it was
 * not (gnuplot failed, no value is in the bins, a file error: a warning is
 * logged and no file is left; the run does not fail for it). */
int sm_hist_plot(const char *png, const sm_hist_spec_t *h, int metric, int way,
                 const uint64_t *counts);

#endif
