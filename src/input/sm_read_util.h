/* sm_read_util.h: small helpers shared by the input readers (sm_read_*.c):
 * slice checks, exact positioned reads, reading a slice of fixed-size
 * vectors, czekanowski value storing and checking. Internal to the
 * readers; not part of sm_read.h's interface. */
#ifndef SM_READ_UTIL_H
#define SM_READ_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "sm_error.h"
#include "sm_read.h"
#include "sm_stream.h"

/** The start of every reader: *out emptied, and *dims when not NULL. */
void sm_read_begin(sm_vectors_t *out, sm_dims_t *dims);

/** The end of every reader, given its status err: on success a CCC slice's
 * missing calls are counted and *dims (when not NULL) gets the whole
 * input's sizes nv x nf; on failure *out is freed and emptied. Returns err. */
sm_err_t sm_read_end(sm_err_t err, sm_vectors_t *out, sm_dims_t *dims, size_t nv,
                     size_t nf);

/** Check [start, start + count) against an axis of n items (count 0 = to
 * the end) and set *kept to the number of items kept. what names the items
 * ("vector", "field") in the message; a slice outside the axis is logged
 * (naming path) and is SM_EOPTION. */
sm_err_t sm_read_slice_axis(const char *path, const char *what, size_t n, size_t start,
                            size_t count, size_t *kept) SM_MUST_CHECK;

/** Open path read-only (*fd) and get its size (*size); a stream (a pipe,
 * a FIFO, a device) is read once into memory by rule (sm_stream.h) and
 * its copy opened. Logs and returns SM_EIO when it cannot be opened (*fd
 * is then -1), or sm_stream_source's error. */
sm_err_t sm_read_open(const char *path, const sm_stream_rule_t *rule, int *fd,
                      size_t *size) SM_MUST_CHECK;

/** pread exactly n bytes at off into buf, retrying on EINTR and short
 * reads; 0 or an errno value (EIO at end of file). Logs nothing. */
int sm_read_at(int fd, void *buf, size_t n, off_t off);

/** The haploid chromosomes of PLINK 1.9's human default (its
 * haploid_mask), by their name as PLINK reads it (an optional "chr"
 * prefix): SM_HAP_X for X or 23, SM_HAP_Y for Y or 24, SM_HAP_NONE for any
 * other (XY, 25, is diploid). */
enum { SM_HAP_NONE = 0, SM_HAP_X = 1, SM_HAP_Y = 2 };
int sm_read_haploid_chrom(const char *name);

/** PLINK's --set-missing-var-ids: the id of a variant named "." made from
 * tmpl ('@' its chromosome as written, '#' its bp position, "$1" and
 * "$2" its alleles in ASCII order, each cut to 23 characters as plink1.9
 * cuts them); other ids, or tmpl NULL: id as it is. malloc'd (NULL
 * without memory). */
char *sm_read_var_id(const char *tmpl, const char *id, const char *chrom, uint64_t bp,
                     const char *a1, const char *a2);

/* A file of fixed-size vectors (npy, raw, PLINK .bed) read one slice row
 * at a time: vector v's bytes to read are nbytes at first + v * stride. */
typedef struct sm_read_rows {
  const char *path; /* the file, for messages */
  const char *what; /* what a vector is called in messages ("vector", "SNP") */
  int fd;
  off_t first;         /* offset of vector 0's first byte to read */
  size_t stride;       /* bytes from one vector to the next */
  size_t nbytes;       /* bytes read per vector */
  const uint32_t *map; /* vector v is the file's vector map[v] (NULL: v) */
} sm_read_rows_t;

/* Turns one vector's bytes into row i of the slice; v is the vector's index
 * in the file (after r->map) and off where its bytes were read (for messages). */
typedef sm_err_t (*sm_read_row_fn)(void *ctx, const unsigned char *buf, size_t v,
                                   off_t off, size_t i);

/** Read vectors [v0, v0 + n) of r, calling fn on each in order. Logs (naming
 * r->path) and returns SM_ENOMEM or SM_EIO when the row buffer cannot be
 * had or a row cannot be read; returns fn's first error as is. */
sm_err_t sm_read_rows(const sm_read_rows_t *r, size_t v0, size_t n, sm_read_row_fn fn,
                      void *ctx) SM_MUST_CHECK;

/** Czekanowski: NULL when x is an allowed value in the working precision
 * (elem_size 4: float, 8: double): finite and >= 0, and in single
 * precision within float32's normal range (0, or 1.2e-38 to 3.4e38), where
 * it keeps float32's relative precision. Otherwise why not, and what to
 * do, as the end of a sentence "value X ...". */
const char *sm_read_czek_why(double x, size_t elem_size);

/** Czekanowski: store x as field f of row (a vector's row of elem_size-wide
 * values, 4: float, 8: double), rounded to that precision. */
void sm_read_store_czek(void *row, size_t elem_size, size_t f, double x);

#endif
