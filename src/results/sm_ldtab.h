/* sm_ldtab.h: PLINK 1.9's .ld table (--output-format ld): one line per pair
 * of variants, `CHR_A BP_A SNP_A CHR_B BP_B SNP_B R2` (or R; CCC: its four
 * entries as columns), in PLINK's
 * columns, order (by the first variant, then the second) and number
 * formatting, so that tools reading PLINK's .ld read it, and a diff against
 * plink1.9's own table is empty. Two ways to build it: the blocks' lines
 * formatted as they come (sm_ldtab_block, on any thread) and written in
 * order as soon as no later block can hold a line before them
 * (sm_ldtab_stream); or every pair held (16 bytes each, sm_ldtab_put) and
 * the whole table written at the end (sm_ldtab_text). */
#ifndef SM_LDTAB_H
#define SM_LDTAB_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"
#include "sm_read.h"
#include "sm_types.h"

typedef struct sm_ldtab sm_ldtab_t;
typedef struct sm_ldpiece sm_ldpiece_t;

/** PLINK's width of the SNP columns for these ids, as plink1.9 sets it
 * over the ids in order: 4, or the longest id + 2 once an id is longer. */
size_t sm_ldtab_width(char *const *names, size_t n);
/** A table of r^2 (r2 = 1), r (0) or CCC (2: the four table entries of a
 * pair as columns CCC_00 CCC_01 CCC_10 CCC_11, a the first variant's
 * allele, b the second's; an entry a threshold left out is nan) values of
 * the variants named names[] (nv of them) at loci; width: the SNP
 * columns' (0: sm_ldtab_width of names; PLINK's is of every variant it
 * read, more than the table's with --ld-snp). SM_ENOMEM without memory. */
sm_err_t sm_ldtab_open(sm_ldtab_t **t, int r2, const sm_loci_t *loci, char *const *names,
                       const double *freq, size_t nv, size_t width);
/** PLINK's --ld-snp: index[v] holds SM_LDTAB_INDEX for an index variant,
 * whose pairs are lines with it first (a pair of two index variants: two
 * lines), the other pairs left out; SM_LDTAB_SELF for one whose line with
 * itself (r = 1) is written, among its lines by its second variant, as
 * plink1.9 --ld-snp writes it. index is read until sm_ldtab_free. */
enum { SM_LDTAB_INDEX = 1, SM_LDTAB_SELF = 2 };
void sm_ldtab_index(sm_ldtab_t *t, const unsigned char *index);
/** Add n records (NaN values are not written: PLINK writes no line for
 * them). -1 without memory. */
int sm_ldtab_put(sm_ldtab_t *t, const sm_rec_t *rec, size_t n);
/** A block's lines (its pairs' NaN values left out), sorted, as text with
 * the index of its rows, into *piece; t is only read (blocks are formatted
 * in parallel). -1 without memory. */
int sm_ldtab_block(const sm_ldtab_t *t, const sm_rec_t *rec, size_t n,
                   sm_ldpiece_t **piece);
void sm_ldtab_piece_free(sm_ldpiece_t *piece);
/** Take piece (owned from now on; NULL: none), and write through put the
 * header, once, and every line whose first variant is below upto, in
 * PLINK's order: the caller promises that no later piece holds such a
 * line. 0, or -1 (errno: ENOMEM, or put's). */
int sm_ldtab_stream(sm_ldtab_t *t, sm_ldpiece_t *piece, uint32_t upto,
                    int (*put)(void *ctx, const void *p, size_t n), void *ctx);
/** Hold piece (owned from now on; NULL: none) among the pending ones,
 * writing nothing: under mpirun every rank holds its blocks' pieces until
 * rank 0 has them all. 0, or -1 (errno ENOMEM). */
int sm_ldtab_hold(sm_ldtab_t *t, sm_ldpiece_t *piece);
/** The pieces held, packed into *buf (malloc'd, *len bytes) and dropped
 * from t, to be sent to the rank that writes the table. 0, or -1 (ENOMEM). */
int sm_ldtab_pack(sm_ldtab_t *t, unsigned char **buf, size_t *len);
/** Hold the pieces packed in buf (another rank's sm_ldtab_pack of the same
 * table). 0, or -1: errno EINVAL when buf is not such a pack (then nothing
 * is held), ENOMEM. */
int sm_ldtab_unpack(sm_ldtab_t *t, const unsigned char *buf, size_t len);
/** The table as text through put (0 on success): the whole table, or
 * after sm_ldtab_stream the lines not yet written; SM_EIO when put fails,
 * SM_ENOMEM. */
sm_err_t sm_ldtab_text(sm_ldtab_t *t, int (*put)(void *ctx, const void *p, size_t n),
                       void *ctx);
void sm_ldtab_free(sm_ldtab_t *t);

/** A value as PLINK 1.9 prints it (its "%g": 6 significant digits, a tie
 * within 5e-9 of the last digit's half rounded to the even digit, no
 * trailing zeros, exponent below 1e-4): into buf (at least 16 bytes);
 * returns the length. */
size_t sm_ldtab_fmt_g(double v, char *buf);
/** sm_ldtab_fmt_g of v[0..8) into buf[0..8), NUL-terminated: the eight
 * values of vector lanes, as the table's lines are formatted. */
void sm_ldtab_fmt_g8(const double *v, char (*buf)[16]);
/** Tests: 0 formats the table's values one at a time as sm_ldtab_fmt_g
 * does, 1 (the default) eight at a time in AVX-512 lanes when the CPU has
 * them. */
void sm_ldtab_fmt_lanes(int on);

#endif
