/* sm_matrix.h: the square matrices of a 2-way run, written by sm_output.c:
 * the npy file, filled in place (a block's values gathered in dense tiles,
 * each tile row one pwrite), and the lsmat text, a distance matrix held in
 * memory and written once complete. Their diagonal is the metric's value
 * of a vector with itself (sm_matrix_self_value). */
#ifndef SM_MATRIX_H
#define SM_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"
#include "sm_types.h"
#include "sm_vectors.h"

/* npy: at most this many bytes of matrix data (16 GiB). */
#define SM_NPY_MAX_BYTES (UINT64_C(1) << 34)
/* lsmat: at most this many bytes of distances held in memory (1 GiB: the
 * n(n-1)/2 values of 16384 vectors in double precision, 23170 in single),
 * some 5 GB of text, as much as scikit-bio's reader is made for. */
#define SM_LSMAT_MAX_BYTES (UINT64_C(1) << 30)

typedef struct sm_matrix sm_matrix_t;

/** The metric's value of a vector with itself, which the matrices'
 * diagonal holds: 1 for a similarity (Czekanowski's PS), 0 for a
 * dissimilarity; NaN where it is not a constant (CCC: a vector's table
 * with itself depends on its allele counts). */
double sm_matrix_self_value(sm_metric_t metric);

/** The distance lsmat writes for value v of metric: v for a dissimilarity
 * (self-value 0), 1 - v for a similarity (self-value 1: Czekanowski's
 * 1 - PS is the Bray-Curtis dissimilarity); NaN for a metric that gives
 * no distance (CCC). */
double sm_matrix_distance(sm_metric_t metric, double v);

/** Bytes of a matrix: npy, the n x n values [x 4 CCC entries]; lsmat, the
 * n(n-1)/2 distances held in memory. 0 when over the format's limit
 * (SM_NPY_MAX_BYTES, SM_LSMAT_MAX_BYTES). */
uint64_t sm_matrix_bytes(int lsmat, sm_metric_t metric, int single, size_t nv);

/** Open the npy matrix of nv vectors on the empty file fd: its header
 * (NumPy format 1.0), every value NaN but the diagonal, the self-value.
 * Written with pwrite. SM_OK, SM_ENOMEM, or SM_EIO with errno set. Logs
 * nothing. */
sm_err_t sm_matrix_npy_open(sm_matrix_t **m, int fd, sm_metric_t metric, int single,
                            size_t nv) SM_MUST_CHECK;

/** Open the lsmat matrix of nv vectors in memory, every distance unset.
 * SM_OK or SM_ENOMEM. */
sm_err_t sm_matrix_lsmat_open(sm_matrix_t **m, sm_metric_t metric, int single,
                              size_t nv) SM_MUST_CHECK;

/** Records at (i,j[,a,b]) and (j,i[,b,a]). The records of one call with
 * n > 1 must be one block's, as the sink hands them over: every cell
 * between them (in the rectangle their indices span, and its transpose)
 * is theirs or one the block does not keep (a tile pair, a diagonal
 * tile's triangle, a row of the reference loops); npy writes that
 * rectangle whole, each row with one pwrite. Single records (one call
 * each, what the sink keeps of a block it thresholds) are gathered and
 * only they are written. 0, or -1 with errno set on a write error. */
int sm_matrix_put(sm_matrix_t *m, const sm_rec_t *rec, size_t n);

/** Write every gathered value (npy). 0, or -1 with errno set. */
int sm_matrix_flush(sm_matrix_t *m);

/** npy: the file's size (header and matrix). */
uint64_t sm_matrix_end(const sm_matrix_t *m);

/** npy: the file fd against what was written: its header, then a sum over
 * every value at its offset; 0 when they agree, 1 when not (*at: the
 * offset of a failed read, else 0), -1 out of memory. */
int sm_matrix_differs(const sm_matrix_t *m, int fd, uint64_t *at);

/** Why an lsmat id would not read back as written: scikit-bio strips the
 * white space (Python's str.strip) around an id and takes a header line
 * whose first id starts with '#' for a comment. ids: the nv ids as
 * written (escaped names). 1 with the reason in why (for the user), or 0. */
int sm_matrix_lsmat_ids(char *why, size_t len, char *const *ids, size_t nv);

/** lsmat: the text, through put(ctx, bytes, n) (0, or -1 with errno set):
 * a header line (an empty cell, then the ids), then per vector its id and
 * its nv distances, tab separated, 17 significant digits (9 in single
 * precision), the diagonal 0. ids: the nv ids as written (escaped names,
 * or NULL for the 0-based indices). SM_OK; SM_EIO when put failed;
 * SM_EDEGEN when a pair has no distance (the count in why). */
sm_err_t sm_matrix_lsmat_text(const sm_matrix_t *m, char *const *ids,
                              int (*put)(void *ctx, const void *p, size_t n), void *ctx,
                              char *why, size_t len) SM_MUST_CHECK;

/** Free the matrix (accepts NULL). */
void sm_matrix_free(sm_matrix_t *m);

#endif
