/* sm_output.h: result files. Records go to a temporary file that is
 * renamed to its final name only when the run completes, so a file that
 * looks finished is finished. Formats: tsv, bin (starmet's), comet, none,
 * npy (the 2-way matrix, written in place, and its ids) and lsmat (the
 * distance matrix as text); the matrices are sm_matrix.c's. */
#ifndef SM_OUTPUT_H
#define SM_OUTPUT_H

#include <stdio.h>

#include "sm_ldtab.h"
#include "sm_matrix.h"
#include "sm_types.h"
#include "sm_vectors.h"

typedef enum sm_outfmt {
  SM_OUT_TSV = 0, /* text: id_i id_j [id_k] [a b [c]] value */
  SM_OUT_BIN,     /* starmet binary (docs/outputs.md, "Binary output") */
  SM_OUT_COMET,   /* CoMet's record layout: uint32 coords, float32 value */
  SM_OUT_NONE,    /* nothing written (checksum and summary only) */
  SM_OUT_NPY,     /* 2-way n x n [x 4 for CCC] NumPy matrix, one rank (below) */
  SM_OUT_LSMAT,   /* 2-way distance matrix, scikit-bio's lsmat text (below) */
  SM_OUT_LD,      /* PLINK 1.9's .ld table of r2 or r (sm_ldtab.h), one rank */
} sm_outfmt_t;

/* --output-format npy: PREFIX.npy, a NumPy 1.0 file of the square
 * symmetric matrix, float64 (float32 with --precision single), C order;
 * CCC adds a last axis of 4, the table entry a*2+b, with (i,j,a,b) equal
 * to (j,i,b,a). Values not computed or not kept by --threshold are NaN; the
 * diagonal holds the metric's self-value (sm_matrix_self_value: 1 for
 * Czekanowski, NaN for CCC). The file is preallocated and filled when
 * opened, then every record is written at its offset, at (i,j) and (j,i),
 * so the block order does not matter. Beside it PREFIX.ids.txt, one id a
 * line (names escaped as in the TSV, or 0-based indices), committed with
 * it. 2-way and one rank only, no --resume, and at most SM_NPY_MAX_BYTES
 * of matrix data.
 *
 * --output-format lsmat: PREFIX.lsmat, what scikit-bio's
 * DistanceMatrix.read reads: a header line (an empty cell, then the ids),
 * then per vector its id and its distances to every vector, tab
 * separated, 17 significant digits (9 with --precision single), the
 * diagonal 0. The distances are sm_matrix_distance's: a similarity's
 * 1 - value (Czekanowski: 1 - PS, the Bray-Curtis dissimilarity); CCC has
 * none and is refused. The matrix is held in memory (at most
 * SM_LSMAT_MAX_BYTES) and written when the run completes; 2-way, one
 * rank, every pair (no --threshold, every phase), no --resume, and ids
 * that scikit-bio reads back as written (sm_matrix_lsmat_ids). */

typedef struct sm_writer sm_writer_t;

typedef struct sm_writer_info {
  sm_outfmt_t fmt;
  int way; /* 2 or 3 */
  sm_metric_t metric;
  int single;            /* float32 values (bin, npy; tsv prints them to 9 digits) */
  size_t nv, nf;         /* whole problem */
  char **names;          /* global vector names or NULL (indices used) */
  int rank, nranks;      /* this rank and the rank count (0 or 1: one rank) */
  const sm_loci_t *loci; /* ld: the variants' chromosomes and positions */
  const unsigned char *ld_index; /* ld: PLINK's --ld-snp (sm_ldtab_index), or NULL */
  size_t ld_width;               /* ld: the SNP columns' width (0: from names) */
  int loci_cols;                 /* tsv: chr and pos columns after the ids (from loci) */
  int gz;                        /* ld: gzip-compressed (PLINK's --r2 gz: PREFIX.ld.gz) */
  const double *ld_freq; /* ld: MAF_A, MAF_B columns of these (with-freqs), or NULL */
} sm_writer_info_t;

/** The 64-byte header of starmet's binary files (results, --top-k): the
 * 8-byte magic, version 1, way, metric, value bytes (4 single, 8 double),
 * vectors, fields and records, little endian; bytes 48..63 are left zero
 * for the file's own fields. */
#define SM_BIN_HEADER 64
void sm_bin_header(unsigned char h[SM_BIN_HEADER], const char *magic, int way, int metric,
                   int single, uint64_t nv, uint64_t nf, uint64_t count);

/** A vector's id in text outputs: its name, or its 0-based index without
 * names. Returns < 0 on a write error. */
int sm_put_vector_id(FILE *f, char *const *names, uint32_t i);

/** sm_output_path's name, ".gz" added when gz (PLINK's --r2 gz). */
void sm_output_path_gz(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int gz,
                       int rank, int nranks);

/** Parse "tsv", "bin", "comet", "none", "npy". */
sm_err_t sm_outfmt_parse(const char *s, sm_outfmt_t *fmt) SM_MUST_CHECK;

/** Whether format fmt cannot hold a run's results: 1 with the reason in
 * why (a message for the user), else 0. Only npy and lsmat have limits
 * (2-way, one rank, no resume, their size; lsmat: a metric with distances,
 * and every pair: partial names the option that leaves pairs without a
 * value, or is NULL); nv 0 skips the size check, nranks 0 or 1 is one
 * rank. Logs nothing. */
int sm_output_check(char *why, size_t len, sm_outfmt_t fmt, int way, sm_metric_t metric,
                    int single, size_t nv, int nranks, int resume, const char *partial);

/** The ids file written beside the output of prefix in format fmt:
 * PREFIX.ids.txt for npy (returns 1), none for the others (buf "", 0). */
int sm_output_ids_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt);

/** Final path of the output of rank `rank` of `nranks` for prefix:
 * PREFIX.<ext> on one rank, PREFIX_<rank>.<ext> on several (ext: tsv, bin
 * for bin and comet, npy, lsmat). */
void sm_output_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int rank,
                    int nranks);

/** Open a writer on the temporary name PATH.part (SM_OUT_NONE: no file).
 * resume_off 0 starts a new file; otherwise the existing PATH.part is
 * truncated to resume_off bytes (what an interrupted run completed, holding
 * resume_count records, whose CRC-32C is resume_crc) and appended to.
 * SM_OUT_NPY and SM_OUT_LSMAT refuse (SM_EOPTION, logged by rank 0) what
 * sm_output_check does (resume_off != 0 is a resume), and lsmat names
 * scikit-bio would not read back, before creating anything. */
sm_err_t sm_writer_open(sm_writer_t **w, const char *path, const sm_writer_info_t *info,
                        uint64_t resume_off, uint64_t resume_count,
                        uint32_t resume_crc) SM_MUST_CHECK;

/** Flush buffered records to the file; *off gets the file size, *fd the
 * descriptor (-1 without a file) and *crc the CRC-32C of the bytes appended
 * since the previous flush (or since the file was created or reopened;
 * 0 for npy, written in place). */
sm_err_t sm_writer_flush(sm_writer_t *w, uint64_t *off, int *fd,
                         uint32_t *crc) SM_MUST_CHECK;

/** Append records. */
sm_err_t sm_writer_put(sm_writer_t *w, const sm_rec_t *rec, size_t n) SM_MUST_CHECK;

/** Text outputs (TSV, ld): the records can be formatted ahead of their
 * turn, on any thread (the writer is only read), and written as text. */
int sm_writer_formats_text(const sm_writer_t *w);
/** Whether the writer takes blocks as pieces whose lines it puts in order
 * across blocks (ld): sm_writer_piece on any thread, then
 * sm_writer_put_piece in the blocks' order. */
int sm_writer_pieces(const sm_writer_t *w);
/** A block's (thresholded) records as a piece (-1 without memory). */
int sm_writer_piece(const sm_writer_t *w, const sm_rec_t *rec, size_t n, void **piece);
void sm_writer_piece_free(void *piece);
/** Take piece (made of n records) and write every line of it and of the
 * pieces before it whose first variant is below upto (no later piece
 * holds one). */
sm_err_t sm_writer_put_piece(sm_writer_t *w, void *piece, uint64_t n, uint32_t upto);
/** ld under mpirun: rank 0 writes the table, and the other ranks' pieces
 * reach it when every block is done: sm_writer_pack on each other rank
 * (its held pieces, malloc'd into *buf; nothing on rank 0), then
 * sm_writer_unpack on rank 0 of what rank from sent (logged errors). */
int sm_writer_gathers(const sm_writer_t *w);
sm_err_t sm_writer_pack(sm_writer_t *w, unsigned char **buf, size_t *len) SM_MUST_CHECK;
sm_err_t sm_writer_unpack(sm_writer_t *w, int from, const void *buf,
                          size_t len) SM_MUST_CHECK;
/** Append record x's line to *buf (*len bytes used of *cap, grown with
 * realloc). Returns 0, or -1 out of memory. */
int sm_writer_text_append(const sm_writer_t *w, const sm_rec_t *x, char **buf,
                          size_t *len, size_t *cap);
/** Append n records already formatted as len bytes of text. */
sm_err_t sm_writer_put_text(sm_writer_t *w, const char *text, size_t len,
                            uint64_t n) SM_MUST_CHECK;

/** Number of records written so far. */
uint64_t sm_writer_count(const sm_writer_t *w);

/** Flush the output and sync it to disk; lsmat: first write the matrix,
 * once (call it when every record is in). SM_OK or SM_EIO (logged). */
sm_err_t sm_writer_sync(sm_writer_t *w) SM_MUST_CHECK;

/** Before the output is committed: flush and sync it, then read it back
 * and check that the file holds exactly what was written (its size and
 * the CRC-32C of every byte; npy: its header and a sum over every value
 * written at its place, and the ids file's size and CRC-32C), so that a
 * file another process truncated or wrote to is never renamed as
 * complete. SM_OK, or SM_EIO logged with the file's name. Accepts NULL. */
sm_err_t sm_writer_verify(sm_writer_t *w) SM_MUST_CHECK;

/** The open temporary file's descriptor and name (-1 / NULL without one). */
int sm_writer_fd(const sm_writer_t *w);
const char *sm_writer_part(const sm_writer_t *w);
/** How sm_writer_verify found the output whole: "read back" (its bytes read
 * and their CRC compared), "leased" (written straight to the disk under a
 * lease that no other process broke: not read back, sm_dio.h), or "none"
 * (no file, or not verified). */
const char *sm_writer_check(const sm_writer_t *w);

/** The final file's name (NULL for SM_OUT_NONE). */
const char *sm_writer_path(const sm_writer_t *w);

/** CRC-32C of the first header_end bytes of the file as sm_writer_seal
 * will leave them (the binary header then holds the final record count). */
uint32_t sm_writer_final_crc(const sm_writer_t *w, uint64_t header_end);

/** Complete the temporary file (the binary header's record count), sync
 * and close it; it keeps its temporary name. SM_OK or SM_EIO (logged).
 * Accepts NULL. */
sm_err_t sm_writer_seal(sm_writer_t *w) SM_MUST_CHECK;

/** Rename the sealed file to its final name (sm_commit_rename); npy: its
 * ids file first. On failure the complete file stays under its temporary
 * name; errno says why (ENOTSUP: the final path is taken by what is not a
 * regular file). Logs nothing but a failure of the ids file (naming it;
 * the matrix is then left under its temporary name too). */
sm_err_t sm_writer_rename(sm_writer_t *w) SM_MUST_CHECK;

/** Free the writer; a file still open is kept as the partial output of an
 * interrupted run (keep != 0, for --resume) or removed. Accepts NULL. */
void sm_writer_close(sm_writer_t *w, int keep);

#endif
