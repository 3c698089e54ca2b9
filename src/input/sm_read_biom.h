/* sm_read_biom.h: BIOM tables (what QIIME 2 and Qiita hand out): version
 * 2.1, HDF5, read through the HDF5 C library where the build has it. The
 * text form (`biom convert --to-tsv`) is read by sm_read_tsv. */
#ifndef SM_READ_BIOM_H
#define SM_READ_BIOM_H

#include "sm_read.h"

/* The signature HDF5 files start with. */
#define SM_HDF5_MAGIC "\x89HDF\r\n\x1a\n"

/** BIOM 2.1 (HDF5), for czekanowski: counts or relative abundances of
 * observations (OTUs, ASVs, genes) in samples. The vectors are the samples,
 * named by their ids (o->compare SM_COMPARE_OBSERVATIONS: the
 * observations), the fields the other axis; dims->compare says which. Read:
 * the slice's ids, the offsets (indptr) of the matrix stored along the
 * vectors (sample/matrix, or observation/matrix) and the slice's nonzeros
 * only. A value that is not finite or is negative is SM_EVALUE, naming its
 * sample and observation ids; a damaged file (ids, shape and matrix that
 * disagree, offsets that are not rising, indices out of range, an entry
 * listed twice, a truncated file) is SM_EFORMAT or SM_EINCONSIST saying
 * what is wrong. A BIOM 1.0 (JSON) table is refused with the command
 * converting it; so is any BIOM 2.1 table in a build without HDF5. */
sm_err_t sm_read_biom(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                      sm_dims_t *dims) SM_MUST_CHECK;

#endif
