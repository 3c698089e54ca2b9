/* sm_maf_output.h: the files of `starmet maf`: per-site SAF vectors (TSV or
 * starmet's SAF binary), per-site allele frequencies (TSV) and the site
 * frequency spectrum. Written under a temporary name (PATH.part) and
 * renamed when complete. */
#ifndef SM_MAF_OUTPUT_H
#define SM_MAF_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"

typedef enum sm_maf_file {
  SM_MAF_FILE_SAF_TSV = 0, /* chrom pos then 2N + 1 natural-log values */
  SM_MAF_FILE_SAF_BIN,     /* header, then per site chrom, pos and the finite bins */
  SM_MAF_FILE_MAF_TSV,     /* chrom pos allele1 allele2 n_data alt_freq minor_freq */
  SM_MAF_FILE_SFS,         /* one line of 2N + 1 values (sm_maf_write_sfs) */
} sm_maf_file_t;

/* SAF binary layout (little endian), header of 64 bytes. */
#define SM_SAF_BIN_MAGIC "STARSAF\0"
#define SM_SAF_BIN_VERSION 1u
#define SM_SAF_BIN_HEADER 64

typedef struct sm_maf_writer sm_maf_writer_t;

/** Open a writer for nind individuals on PATH.part (band_tol goes into the
 * binary header). */
sm_err_t sm_maf_writer_open(sm_maf_writer_t **w, const char *path, sm_maf_file_t kind,
                            size_t nind, double band_tol) SM_MUST_CHECK;

/** One site's SAF: saf[0 .. 2N], finite in [lo, hi] (-inf elsewhere). */
sm_err_t sm_maf_writer_saf(sm_maf_writer_t *w, const char *chrom, uint64_t pos,
                           const double *saf, uint32_t lo, uint32_t hi) SM_MUST_CHECK;

/** One site's allele frequency line: freq, allele2's (ALT's) frequency,
 * then the minor allele's, min(freq, 1 - freq). */
sm_err_t sm_maf_writer_maf(sm_maf_writer_t *w, const char *chrom, uint64_t pos,
                           const char *a1, const char *a2, uint32_t ndata,
                           double freq) SM_MUST_CHECK;

/** The spectrum as realSFS writes it: one line of 2N + 1 expected site
 * counts (phi_j x nsites), into a writer opened as SM_MAF_FILE_SFS. */
sm_err_t sm_maf_writer_sfs(sm_maf_writer_t *w, const double *phi, size_t nbins,
                           double nsites) SM_MUST_CHECK;

/** Before the commit: flush and sync the file, then check it holds what
 * was written (sm_commit_verify). SM_OK or SM_EIO (logged). Accepts NULL. */
sm_err_t sm_maf_writer_verify(sm_maf_writer_t *w) SM_MUST_CHECK;

/** Complete the file (the binary header's site count), sync and close it
 * under its temporary name. SM_OK or SM_EIO (logged; the file removed).
 * Accepts NULL. */
sm_err_t sm_maf_writer_seal(sm_maf_writer_t *w) SM_MUST_CHECK;

/** Rename the sealed file to its final name; on failure it is kept under
 * its temporary name and the message says how to finish. Accepts NULL. */
sm_err_t sm_maf_writer_rename(sm_maf_writer_t *w) SM_MUST_CHECK;

/** Free the writer; a file still open (not sealed) is removed. Accepts
 * NULL. */
void sm_maf_writer_close(sm_maf_writer_t *w);

#endif
