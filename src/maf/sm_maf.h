/* sm_maf.h: `starmet maf`: per-site sample allele frequency likelihoods
 * (SAF), allele frequencies and the site frequency spectrum from genotype
 * likelihoods, as StarPU tasks over blocks of sites (SPEC 6). */
#ifndef SM_MAF_H
#define SM_MAF_H

#include "sm_maf_options.h"

/** Run `starmet maf`; returns an sm_err_t. command is the whole command
 * line, for the summary. Under an MPI launcher the sites are dealt to the
 * ranks in chunks and the EM reduces over every rank. */
int sm_maf_main(const sm_maf_options_t *o, const char *command);

#endif
