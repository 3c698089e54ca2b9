/* sm_kern.h: the CPU kernels (modified GEMMs, vector sums, finalize). Plain
 * C: no runtime header in here. Every optimized kernel has a _ref twin.
 *
 * Layouts. A tile of vectors is vector-major: vector v's field q is at
 * X[v * ldx + q] (czekanowski, elements) or 2-bit code q of row X + v * ldx
 * (ccc, 64-bit words, 32 fields per word, bits past nf are zero). Results of
 * a 2-way block are row-major: pair (i, j) at C[i * ldc + j]. */
#ifndef SM_KERN_H
#define SM_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "sm_csr.h"
#include "sm_kern_variants.h"
#include "sm_types.h"

/* ---- LD windows (kern_band.c): the pairs of a tile pair in PLINK's
 * windows. win[x] is the last vector in x's window (never decreasing);
 * the tile pair is rows a0.. (m of them) against columns b0.. (n): a0 ==
 * b0 a diagonal tile (pairs j > i), else two disjoint runs of vectors.
 * Rows are cut into strips, each a rectangle of rows [r0, r1) and
 * columns [c0, c1) holding its rows' pairs in the windows (and a few
 * others), computed as a tile of its own. sm_band_t: sm_types.h. */
typedef struct sm_strip {
  size_t r0, r1, c0, c1;
} sm_strip_t;
/** The pairs of the tile pair in the windows (with an index: its strips'
 * areas). */
uint64_t sm_band_pairs(const sm_band_t *b, size_t m, size_t n);
/** Whether to compute the whole tile (b NULL or without windows, or the
 * windows hold half its pairs or more) rather than strips. */
int sm_band_whole(const sm_band_t *b, size_t m, size_t n);
/** The next strip from row *row (0 at first) into *s, *row moved past it;
 * 0 when no row left has a pair in the windows. */
int sm_band_next(const sm_band_t *b, size_t m, size_t n, size_t *row, sm_strip_t *s);
/** The columns [*lo, *hi) of row i in the windows (*lo >= *hi: none);
 * without an index, both ends never decrease from row to row. */
void sm_band_run(const sm_band_t *b, size_t n, size_t i, size_t *lo, size_t *hi);
/** Windows without an index: rows [*r0, *r1) hold the pairs in the
 * windows, within columns [*c0, *c1), the longest run *run long (all 0
 * without a pair); 0 without windows or with an index. */
int sm_band_span(const sm_band_t *b, size_t m, size_t n, size_t *r0, size_t *r1,
                 size_t *c0, size_t *c1, size_t *run);
/** Runs of at most this many columns are computed pair by pair (the
 * default window's 9 partners a variant), longer ones as strips. */
#define SM_BAND_DIRECT_RUN 48
/** Whether the tile pair's pairs in the windows are computed pair by pair,
 * row by row over its run (sm_kern_ccc2_band, sm_kern_ld_hom_band,
 * checked by sm_kern_abft_ld_band): windows without an index, under half
 * the tile's pairs, no run longer than SM_BAND_DIRECT_RUN. Then rows
 * [*r0, *r1) hold every pair in the windows, within columns [*c0, *c1). */
int sm_band_direct(const sm_band_t *b, size_t m, size_t n, size_t *r0, size_t *r1,
                   size_t *c0, size_t *c1);
/** What a direct band kernel packs (sm_band_plan): rows [r0, r1) hold the
 * pairs in the windows; rows ra.. of A (na of them) and columns cb.. of B
 * (nb) are packed, or, one (A is B: a diagonal tile pair), A's rows
 * serve as the columns too (cb = ra, nb = 0). */
typedef struct sm_band_plan {
  size_t r0, r1, ra, na, cb, nb;
  int one;
} sm_band_plan_t;
int sm_band_plan(const sm_band_t *b, size_t m, size_t n, int one, sm_band_plan_t *p);
/** The pairs a CPU computes for the tile pair: m n when whole, else the
 * strips' areas (the work of its tasks: summaries, simulations). */
uint64_t sm_band_area(const sm_band_t *b, size_t m, size_t n);

/* ---- Czekanowski 2-way mGEMM: C[i,j] = sum_{q<k} min(A[i,q], B[j,q]) */
void sm_kern_czek2_ref_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                         const double *B, size_t ldb, double *C, size_t ldc);
void sm_kern_czek2_ref_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                         const float *B, size_t ldb, float *C, size_t ldc);
/* Cache-blocked, register-tiled portable kernel (vectorized by the compiler
 * for the widest ISA found at run time). */
void sm_kern_czek2_blocked_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                             const double *B, size_t ldb, double *C, size_t ldc);
void sm_kern_czek2_blocked_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                             const float *B, size_t ldb, float *C, size_t ldc);

/* ---- Czekanowski 2-way over packed sparse tiles (sm_csr.h, A and B
 * 64-byte aligned): C[i,j] = sum over the fields both have of min(a, b),
 * in ascending field order, for the rows i of A and j of B. When A and B
 * are the same buffer (a diagonal tile pair) only the pairs j > i are
 * computed (what the finalize reads), the others are 0. The _ref twin
 * merges the two rows' field lists. */
void sm_kern_czek2_sparse_d(const void *A, const void *B, double *C, size_t ldc);
void sm_kern_czek2_sparse_s(const void *A, const void *B, float *C, size_t ldc);
void sm_kern_czek2_sparse_ref_d(const void *A, const void *B, double *C, size_t ldc);
void sm_kern_czek2_sparse_ref_s(const void *A, const void *B, float *C, size_t ldc);
/* Vector sums of a packed tile (the dense sums' values, bit for bit). */
void sm_kern_sums_czek_sparse_d(const void *X, double *s);
void sm_kern_sums_czek_sparse_s(const void *X, float *s);
/* --verify: 1 when C equals the reference's numerators bit for bit (the
 * same sums in the same order); 0 otherwise or when memory is short. */
int sm_kern_verify_czek2_sparse_d(const void *A, const void *B, const double *C,
                                  size_t ldc);
int sm_kern_verify_czek2_sparse_s(const void *A, const void *B, const float *C,
                                  size_t ldc);

/* ---- vector sums: s[v] = sum_q X[v,q] (czekanowski) */
void sm_kern_sums_czek_d(size_t nv, size_t k, const double *X, size_t ldx, double *s);
void sm_kern_sums_czek_s(size_t nv, size_t k, const float *X, size_t ldx, float *s);

/* ---- CCC. Moments of a pair (sm_formulas.h, sm_ccc2_tally):
 * dense: 1 moment per pair, sum r_i r_j (code 10 counts as 1 copy);
 * sparse: 4 per pair {rr, rm, mr, mm} (missing entries have r = 0, m = 0).
 * C[(i * ldc + j) * nmom + x], nmom = SM_CCC2_NMOM(sparse). */
#define SM_CCC2_NMOM(sparse) ((sparse) ? 4 : 1)
void sm_kern_ccc2_ref(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc);
/* Bit-plane AND + popcount kernel on packed planes (64 fields per word),
 * portable (64-bit popcount): the short-vector form below a length
 * measured per ISA and method (sm_kern_pick.c), the long one above. */
void sm_kern_ccc2_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                       size_t ldc);
/* The same on a diagonal block (B = A, n x n): the pairs on and above the
 * diagonal computed, those below mirrored. */
void sm_kern_ccc2_syrk_popc(size_t n, size_t nf, const uint64_t *A, size_t lda,
                            int sparse, uint32_t *C, size_t ldc);
/* Its two forms: long vectors (row x column tiles, one sum per pair) and
 * short ones (sm_ccc_short.h: columns packed in lanes, the register tile's
 * counts kept per lane over the whole field loop). */
/* LD windows (sm_band_direct), sparse moments: each row's pairs in the
 * windows, pair by pair (the other pairs of C untouched); 1 done, 0 not a
 * direct band (nothing done), -1 out of memory. _avx2: the AVX2 kernel's
 * word pairs (sm_kern_simd.h's sm_kern_ccc2_band_avx2). */
int sm_kern_ccc2_band_popc(const sm_band_t *b, size_t m, size_t n, size_t nf,
                           const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                           uint32_t *C, size_t ldc);
int sm_kern_ccc2_band_avx2(const sm_band_t *b, size_t m, size_t n, size_t nf,
                           const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                           uint32_t *C, size_t ldc);
/** The band kernel of the CCC kernel variant v picks (NULL: the reference
 * kernels, which compute strips). */
typedef int (*sm_ccc2_band_fn)(const sm_band_t *b, size_t m, size_t n, size_t nf,
                               const uint64_t *A, size_t lda, const uint64_t *B,
                               size_t ldb, uint32_t *C, size_t ldc);
sm_ccc2_band_fn sm_kern_pick_ccc2_band(sm_kvar_t v);
void sm_kern_ccc2_long_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                            const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                            size_t ldc);
void sm_kern_ccc2_syrk_long_popc(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                 int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_short_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc);
void sm_kern_ccc2_syrk_short_popc(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                  int sparse, uint32_t *C, size_t ldc);

/* Tiles in int8 form (the CCC int8 GEMMs' operands, kpad =
 * sm_ccc_i8_kpad(nf) bytes per row at ld ldr): rows 0..rows-1 hold r of
 * each vector, sparse rows rows..2 rows-1 its m; fields past nf are 0.
 * sm_kern_ccc2_i8rows: the moments of m x n pairs from two such tiles. */
void sm_kern_ccc_i8_expand(size_t rows, size_t nf, size_t kpad, const uint64_t *X,
                           size_t ldx, int sparse, int8_t *R, size_t ldr);
void sm_kern_ccc2_i8rows(size_t m, size_t n, size_t kpad, const int8_t *A8, size_t lda8,
                         const int8_t *B8, size_t ldb8, int sparse, uint32_t *C,
                         size_t ldc);

/* Per-vector CCC sums: s[2v] = allele-1 count (sum of r over counted
 * entries), s[2v+1] = counted entries (dense: nf; sparse: present calls). */
/* The tally of PLINK's r and r^2 beside CCC's sparse moments (kern_ld.c):
 * C[(i ldc + j) 2 + 0] = samples called in both that A's row i has
 * homozygous for allele 1, [+ 1] the same for B's row j. -1 without
 * memory for its planes. */
int sm_kern_ld_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                   const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc);
/* The same for LD windows pair by pair (sm_band_direct): only each row's
 * run of columns written; 1 done, 0 not a direct band, -1 out of memory. */
int sm_kern_ld_hom_band(const sm_band_t *b, size_t m, size_t n, size_t nf,
                        const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                        uint32_t *C, size_t ldc);
/* The same by one method (tests): how -1 the cheaper (sm_kern_ld_hom), 0
 * popcounts of every word pair (AVX-512 where the CPU has it), 2 the same
 * without SIMD, 1 counts over the missing fields (AVX-512 counters where
 * the CPU has it, else as 3), 3 sums over the missing fields
 * (kern_mfix.c). */
int sm_kern_ld_hom_by(int how, size_t m, size_t n, size_t nf, const uint64_t *A,
                      size_t lda, const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc);
void sm_kern_sums_ccc(size_t nv, size_t nf, const uint64_t *X, size_t ldx, int sparse,
                      uint32_t *s);

/* ---- 3-way planes. A plane is one vector p; for every x of X (mx rows)
 * and y of Y (my rows) the kernel computes numerators over the fields:
 * czekanowski: out[(g * mx + x) * my + y] = sum_q min(p_q, x_q, y_q) for
 * the g planes P[g * ldp ...];
 * ccc: moments of x and y restricted to the fields where plane p has
 * 0, 1 or 2 copies (masks E0, E1, E2; sparse: and is present):
 *   sparse: 12 per triple, [E0 rr rm mr mm][E1 ...][E2 ...];
 *   dense: 2 per triple, [rr over E1, rr over E2].
 * out[((g * mx + x) * my + y) * nmom + k], nmom = SM_CCC3_NMOM(sparse). */
#define SM_CCC3_NMOM(sparse) ((sparse) ? 12 : 2)
void sm_kern_czek3_ref_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                         size_t ldp, const double *X, size_t ldx, const double *Y,
                         size_t ldy, double *out);
void sm_kern_czek3_ref_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                         size_t ldp, const float *X, size_t ldx, const float *Y,
                         size_t ldy, float *out);
void sm_kern_czek3_blocked_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                             size_t ldp, const double *X, size_t ldx, const double *Y,
                             size_t ldy, double *out);
void sm_kern_czek3_blocked_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                             size_t ldp, const float *X, size_t ldx, const float *Y,
                             size_t ldy, float *out);
void sm_kern_ccc3_ref(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                      size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                      size_t ldy, int sparse, uint32_t *out);
void sm_kern_ccc3_popc(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                       size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                       size_t ldy, int sparse, uint32_t *out);
/* The plane kernel on the triples keep keeps (NULL: all; the others 0). */
struct sm_keep3;
void sm_kern_ccc3_popc_keep(const struct sm_keep3 *keep, size_t g, size_t mx, size_t my,
                            size_t nf, const uint64_t *P, size_t ldp, const uint64_t *X,
                            size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
                            uint32_t *out);

/* The same planes on any 2-way kernel of the family (the SIMD ones too):
 * per plane p, Czekanowski runs kern2 on X' = min(p, X) against Y; CCC on
 * X masked to each part of p's fields (the fields outside the part made
 * missing, sparse, or 0 copies, dense: they add nothing) against Y, the
 * 2-way moments then placed in the 3-way layout. The portable kernel runs
 * where memory for X' is refused. */
typedef void (*sm_czek2_d_kern_fn)(size_t, size_t, size_t, const double *, size_t,
                                   const double *, size_t, double *, size_t);
typedef void (*sm_czek2_s_kern_fn)(size_t, size_t, size_t, const float *, size_t,
                                   const float *, size_t, float *, size_t);
/* Row-bounded 2-way kernels: row i needs only its columns j >= lo[i];
 * the others are 0 or exact (whole micro-tiles are skipped). */
typedef void (*sm_czek2_lo_d_kern_fn)(size_t, size_t, size_t, const double *, size_t,
                                      const double *, size_t, double *, size_t,
                                      const uint32_t *);
typedef void (*sm_czek2_lo_s_kern_fn)(size_t, size_t, size_t, const float *, size_t,
                                      const float *, size_t, float *, size_t,
                                      const uint32_t *);
typedef void (*sm_ccc2_kern_fn)(size_t, size_t, size_t, const uint64_t *, size_t,
                                const uint64_t *, size_t, int, uint32_t *, size_t);
/* The triples of a plane task its slice keeps (the others need no
 * numerator): kind 0 (diagonal slice) a < x < y, 1 (face) x < y, 2
 * (volume) all, by the global indices of the first plane, x and y. */
typedef struct sm_keep3 {
  uint32_t kind, a0, x0, y0;
} sm_keep3_t;
/* The first y that row (plane p, x) keeps; my when none. */
static inline size_t sm_keep3_lo(const sm_keep3_t *k, size_t p, size_t x, size_t my)
{
  return (size_t)sm_keep3_first((int)k->kind, (uint64_t)k->a0 + p, (uint64_t)k->x0 + x,
                                k->y0, my);
}
/* keep (NULL: all) and kern2lo (NULL: none) let the kernel skip the
 * triples not kept: their numerators are then 0 or exact (CCC: keep alone,
 * the skipped triples' moments 0). */
void sm_kern_czek3_on_d(sm_czek2_d_kern_fn kern2, sm_czek2_lo_d_kern_fn kern2lo,
                        const sm_keep3_t *keep, size_t g, size_t mx, size_t my, size_t k,
                        const double *P, size_t ldp, const double *X, size_t ldx,
                        const double *Y, size_t ldy, double *out);
void sm_kern_czek3_on_s(sm_czek2_s_kern_fn kern2, sm_czek2_lo_s_kern_fn kern2lo,
                        const sm_keep3_t *keep, size_t g, size_t mx, size_t my, size_t k,
                        const float *P, size_t ldp, const float *X, size_t ldx,
                        const float *Y, size_t ldy, float *out);
/* A 3-way planes kernel (sm_kern_czek3_avx512_d, ...): the czek numerators
 * above, for the rows (plane a, x) i = a * mx + x with lo (NULL: all) only
 * the columns y >= lo[i] (the others 0 or exact). */
typedef void (*sm_czek3_d_kern_fn)(size_t, size_t, size_t, size_t, const double *, size_t,
                                   const double *, size_t, const double *, size_t,
                                   double *, const uint32_t *);
typedef void (*sm_czek3_s_kern_fn)(size_t, size_t, size_t, size_t, const float *, size_t,
                                   const float *, size_t, const float *, size_t, float *,
                                   const uint32_t *);
/* A planes kernel on the triples keep keeps (NULL: all). */
void sm_kern_czek3_keep_d(sm_czek3_d_kern_fn planes, const sm_keep3_t *keep, size_t g,
                          size_t mx, size_t my, size_t k, const double *P, size_t ldp,
                          const double *X, size_t ldx, const double *Y, size_t ldy,
                          double *out);
void sm_kern_czek3_keep_s(sm_czek3_s_kern_fn planes, const sm_keep3_t *keep, size_t g,
                          size_t mx, size_t my, size_t k, const float *P, size_t ldp,
                          const float *X, size_t ldx, const float *Y, size_t ldy,
                          float *out);
void sm_kern_ccc3_on(sm_ccc2_kern_fn kern2, const sm_keep3_t *keep, size_t g, size_t mx,
                     size_t my, size_t nf, const uint64_t *P, size_t ldp,
                     const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy,
                     int sparse, uint32_t *out);

/* ---- field-axis reduction: y[x] += a[x] */
void sm_kern_add_f64(size_t n, const double *a, double *y);
void sm_kern_add_f32(size_t n, const float *a, float *y);
void sm_kern_add_u32(size_t n, const uint32_t *a, uint32_t *y);

/* ---- results: records, checksum and finalize arguments are sm_types.h's */
/* Form the metric values of a block from its numerators (czek: double or
 * float matrix; ccc: moments) and the row/column sums; write the records
 * (row-major pair order, CCC entries 0..3), the checksum and the histogram
 * counts into out and, with a->topk.k, every row's and column's best
 * neighbours in the block into cand (sm_fin2_topk_places entries; NULL
 * without). Returns the number of records. */
uint64_t sm_kern_finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j, sm_recbuf_t *out,
                           sm_topk_ent_t *cand);

/* The same for PLINK's r and r^2 (a->form SM_FORM_R2, SM_FORM_R): the
 * sparse CCC moments num, the homozygous-called tallies hom
 * (sm_kern_ld_hom, ld ldhom pairs), one value per pair (sm_f_ld), only the
 * pairs in a->ld_win's windows, a->ld_min's filter. */
uint64_t sm_kern_finalize2_ld(const sm_fin2_args_t *a, const uint32_t *num, size_t ldnum,
                              const uint32_t *hom, size_t ldhom, const void *sums_i,
                              const void *sums_j, sm_recbuf_t *out, sm_topk_ent_t *cand);

/* The header of a 2-way block's record buffer from a device finalize:
 * count records, and the sums of the block's checksum terms as
 * sm_fin_ck_terms keeps them: {lo, unsigned high halves, negative values,
 * hash} (no histogram). */
void sm_kern_fin2_header(const sm_fin2_args_t *a, uint64_t count, const uint64_t sums[4],
                         sm_recbuf_t *h);
/* The same for a 3-way piece. */
void sm_kern_fin3_header(const sm_fin3_args_t *a, uint64_t count, const uint64_t sums[4],
                         sm_recbuf_t *h);

/* Merge n sorted candidate lists of k places (cand) into the n lists of
 * acc: each keeps its k first in sm_topk_before's order. */
void sm_kern_topk_merge(sm_topk_ent_t *acc, const sm_topk_ent_t *cand, size_t n,
                        uint32_t k);

/* num3: plane numerators (above). n2ax: 2-way numerators of tile A against
 * X (rows of A, ld ldax), n2ay likewise, n2xy of X against Y (ld ldxy; not
 * read for sparse CCC); sums_a/x/y: the tiles' sums (sm_kern_sums_*).
 * Records are written with ascending indices (CCC entry bits permuted to
 * match). Returns the number of records. */
uint64_t sm_kern_finalize3(const sm_fin3_args_t *a, const void *num3, const void *n2ax,
                           size_t ldax, const void *n2ay, size_t lday, const void *n2xy,
                           size_t ldxy, const void *sums_a, const void *sums_x,
                           const void *sums_y, sm_recbuf_t *out);

/* ---- resilience (--verify, --inject-faults): each returns 1 when the
 * result satisfies its invariants (exact row sums for CCC; a recomputation
 * within rounding, exact on integers, for Czekanowski: kern_verify.c), 0
 * when it does not or could not be checked. */
int sm_kern_verify_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                        size_t ldc);
/* The same on int8 tiles (sm_kern_ccc_i8_expand's form, nf fields): the
 * moments of an int8 product against its own operands. */
int sm_kern_verify_ccc2_i8(size_t m, size_t n, size_t nf, const int8_t *A8, size_t lda8,
                           const int8_t *B8, size_t ldb8, int sparse, const uint32_t *C,
                           size_t ldc);
/* The checksum check of a 2-way tally tile (--verify's default,
 * ccc/kern_abft_ccc.c): every row sum and column sum of C against its
 * operands' bit planes dotted with the other side's column sums, exact.
 * Any change confined to one row or one column of C, and any change of at
 * most 3 tallies, is caught. _i8: on the int8 forms of the tiles. */
int sm_kern_abft_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                      size_t ldc);
/* The same for PLINK's homozygous-called tallies (sm_kern_ld_hom's C, 2
 * tallies a pair): each row's sum of its first tallies, each column's of
 * its second, against a row's homozygous plane dotted with the other
 * side's column sums of calls. */
int sm_kern_abft_ld_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, const uint32_t *C, size_t ldc);
/* LD windows without an index (sm_band_span), however the pairs were
 * computed: each row's sum over its run against the run's column sums,
 * as the run slides; hom 0 the sparse moments (4 per pair, one check of
 * their sum), 1 PLINK's homozygous tallies (2 per pair). Only the pairs
 * in the windows are read. 0 also when not such a band. */
int sm_kern_abft_ld_band(const sm_band_t *b, size_t m, size_t n, size_t nf,
                         const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                         const uint32_t *C, size_t ldc, int hom);
/* The variant of the checksum checks (CCC and Czekanowski) the next calls
 * use: REF and BLOCKED the portable one, AVX2 and AVX512 those (when the
 * CPU runs them: returns 0 and keeps the fastest otherwise), anything
 * else the fastest this CPU runs. Not thread-safe: set before the run. */
int sm_kern_abft_use(sm_kvar_t v);
/* The variant in use: 0 portable, 1 AVX2, 2 AVX-512. */
int sm_kern_abft_isa(void);
int sm_kern_abft_ccc2_i8(size_t m, size_t n, size_t nf, const int8_t *A8, size_t lda8,
                         const int8_t *B8, size_t ldb8, int sparse, const uint32_t *C,
                         size_t ldc);
/* The same for 3-way planes (sm_kern_verify_ccc3's arguments): each row
 * (p, x) summed over the y it keeps, class by class, against x's planes
 * dotted with those y's column sums; a row's other y all 0 or summing to
 * the rest. Any change confined to one row (p, x) is caught. */
int sm_kern_abft_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                      size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                      size_t ldy, int sparse, const sm_keep3_t *keep,
                      const uint32_t *out);
/* An int8 expansion R of a tile X of codes: 1 when it is X's, exactly. */
int sm_kern_verify_ccc_i8(size_t rows, size_t nf, size_t kpad, const uint64_t *X,
                          size_t ldx, int sparse, const int8_t *R, size_t ldr);
/* The checksum check of a 2-way Czekanowski numerator tile (--verify's
 * default, czek/kern_abft_czek.c): every row sum and column sum of C
 * against per-field prefix sums over the other side's sorted values, and
 * every result finite without sign bit. Integer data: exact (any change of
 * one result, or confined to one row or column, is caught); real data:
 * within the row's (column's) summed rounding bound. */
int sm_kern_abft_czek2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                         const double *B, size_t ldb, const double *C, size_t ldc);
int sm_kern_abft_czek2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                         const float *B, size_t ldb, const float *C, size_t ldc);
/* What the check compares C's sums with (tests): want[i] for row i and
 * want[m + j] for column j, sum over the fields of the prefix sums. */
int sm_kern_abft_czek2_sums_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                              const double *B, size_t ldb, double *want);
/* Czekanowski 2-way: kern recomputes the block (the kernel the run uses). */
int sm_kern_verify_czek2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                           const double *B, size_t ldb, const double *C, size_t ldc,
                           sm_czek2_d_kern_fn kern);
int sm_kern_verify_czek2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                           const float *B, size_t ldb, const float *C, size_t ldc,
                           sm_czek2_s_kern_fn kern);
/* Czekanowski 3-way; keep (or NULL): the triples the slice keeps, the
 * others may also be +0 (sm_kern_czek3_on skips them). */
int sm_kern_verify_czek3_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                           size_t ldp, const double *X, size_t ldx, const double *Y,
                           size_t ldy, const sm_keep3_t *keep, const double *out);
int sm_kern_verify_czek3_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                           size_t ldp, const float *X, size_t ldx, const float *Y,
                           size_t ldy, const sm_keep3_t *keep, const float *out);
int sm_kern_verify_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                        size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                        size_t ldy, int sparse, const sm_keep3_t *keep,
                        const uint32_t *out);
/* Whether to corrupt attempt `attempt` of task `task` (deterministic in
 * seed); *pick chooses what. Then flip one random bit of one element of an
 * ny x nx result (leading dimension ld; nx and ld in words for u32). */
int sm_kern_inject_decide(double rate, uint64_t seed, uint64_t task, unsigned attempt,
                          uint64_t *pick);
void sm_kern_inject_u32(uint32_t *v, size_t ny, size_t nx, size_t ld, uint64_t pick);
void sm_kern_inject_f64(double *v, size_t ny, size_t nx, size_t ld, uint64_t pick);
void sm_kern_inject_f32(float *v, size_t ny, size_t nx, size_t ld, uint64_t pick);
/* A whole row of an ny-row result (row and ld in bytes), chosen by pick,
 * overwritten with random bytes (a GPU's bad row). */
void sm_kern_inject_row(void *v, size_t ny, size_t row, size_t ld, uint64_t pick);

#endif
