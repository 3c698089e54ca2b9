/* sm_compute.h: the two commands, `starmet compute` and `starmet synth`,
 * from parsed options to files and summaries. */
#ifndef SM_COMPUTE_H
#define SM_COMPUTE_H

#include "sm_options.h"

/** Run a computation; returns an sm_err_t (SM_OK on success). command is
 * the whole command line, for the summary. */
int sm_compute_main(const sm_options_t *o, const char *command);

/** The files of o's input in paths: the three of a PLINK fileset, else the
 * one; none for a synthetic problem. Returns how many. */
int sm_compute_input_files(const sm_options_t *o, char paths[3][4200]);

/** Write a synthetic problem to o->output in the format of
 * o->input_format (tsv, npy, raw, plink). */
int sm_synth_main(const sm_options_t *o);

#endif
