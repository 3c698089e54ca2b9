/* kern_finalize_simd.h: the finalize kernels' inner loops for one
 * instruction set (kern_finalize_avx512.c, kern_finalize_avx2.c, one source
 * in kern_finalize_simd_impl.h) and the run-time choice among them and the
 * portable loops of kern_finalize2.c and kern_finalize3.c. Each gives
 * exactly the portable loops' values, checksum terms, kept values,
 * histogram slots and neighbour candidates (same operations in the same
 * order, no contraction). Private to the finalize kernels, their tests and
 * the benchmark. */
#ifndef KERN_FINALIZE_SIMD_H
#define KERN_FINALIZE_SIMD_H

#include <stdint.h>

#include "kern_finalize_impl.h"
#include "sm_kern.h"
#include "sm_kern_variants.h"

/* Pairs of a 2-way row chunk and triples of a 3-way run (multiples of
 * every vector length; the checksum sums of a lane stay below 2^63). */
enum { SM_FIN_CHUNK = 256, SM_FIN_RUN3 = 128 };

/* ---- 2-way: the values of a row chunk and their checksum terms */
enum { SM_FIN2_SPARSE, SM_FIN2_DENSE, SM_FIN2_CZEK_D, SM_FIN2_CZEK_S, SM_FIN2_LD };

/* Row i's pairs with columns j0 .. j0 + nc - 1. The column arrays hold one
 * double per column from j0, zero past the block's last column up to a
 * multiple of 8 (a zero column gives values 0):
 *   sparse: col = {s1, s0 = 2c - s1, c}, row = {s1i, s0i, ci};
 *   dense:  col = {g0, g1, 2 s1, c}, row = {g0i, g1i, 2 s1i, 4 nf - 2 s1i},
 *           g(b) = 1 - param (0.5 / nf) s(b) (the factor of the value);
 *   czek:   col = {s}, row = {si}; form (SM_FORM_*) and zero_nan as
 *           sm_f_minsum2 has them;
 *   ld:     PLINK's r^2 (form SM_FORM_R2) or r (SM_FORM_R) of sm_f_ld from
 *           the sparse moments (num) and the homozygous tallies (hom, 2 a
 *           pair); r: col = {the column's sign}, row = {the row's}.
 * A CCC row whose values are all 0 (ci = 0 or nf = 0) is left to the
 * caller. */
typedef struct sm_fin2_chunk {
  int kind;
  int swap;           /* entries labelled (b, a) */
  int pneg;           /* param < 0 */
  int form, zero_nan; /* czek: sm_f_minsum2's */
  uint32_t nc;
  const void *num;     /* the numerators of pair (i, j0) */
  const uint32_t *hom; /* ld: its homozygous tallies */
  const double *col[4];
  double row[4];
  double mult, param;
  double rs;                 /* dense: 1 / (4 nf) as sm_ccc2_values_d has it */
  uint64_t key_in, key_step; /* sm_cksum_key2's packed indices: column j0's, step */
} sm_fin2_chunk_t;

/* ---- the chunks' passes after the values (kern_finalize_pass.c and the
 * instruction-set loops): kept values (one threshold, or CoMet's per-entry
 * list), histogram slots and counts, top-k candidates */
typedef struct sm_fin_thr {
  double thr;        /* values > thr (thr >= 0) */
  const double *lst; /* or the per-entry thresholds (sm_thr_list_t.t), NULL */
  int f32;           /* compare float32-rounded values */
  int le;            /* one threshold, of a dissimilarity: values <= thr */
} sm_fin_thr_t;

/* The kept entries of n results (values ve[e][c], e < ne, readable up to n
 * rounded up to 8) by groups of 8: returns how many groups keep
 * some, their numbers in gl[] (ascending); for those, mk[8 g + e] has bit l
 * when entry e of result 8 g + l is kept (sm_threshold_keep_dis,
 * sm_thr_list_keep of a way-way result). */
typedef uint32_t (*sm_fin_keep_fn)(const sm_fin_thr_t *t, const double *const *ve,
                                   uint32_t n, int ne, int way, uint8_t *mk, uint8_t *gl);
uint32_t sm_fin_keep_port(const sm_fin_thr_t *t, const double *const *ve, uint32_t n,
                          int ne, int way, uint8_t *mk, uint8_t *gl);

typedef struct sm_fin_hist {
  double lo, hi, rw, bins; /* rw = 1 / (hi - lo) */
  int32_t nbins;
} sm_fin_hist_t;

/* The histogram's loops for h: 1 when sm_fin_hist_slots can run. */
int sm_fin_hist_init(sm_fin_hist_t *f, const sm_hist_spec_t *h);

/* slot[c] = sm_hist_slot of v[c] (c < n; v and slot have room up to n
 * rounded up to 8), or -1 where the caller must call sm_hist_slot itself
 * (too near a bin's edge to be sure without its division); returns 1 when
 * there is such a -1. */
typedef int (*sm_fin_slots_fn)(const sm_fin_hist_t *h, const double *v, uint32_t n,
                               int32_t *slot);
int sm_fin_slots_port(const sm_fin_hist_t *h, const double *v, uint32_t n, int32_t *slot);

/* A block's histogram counts: slots (sm_fin_slots_fn, or sm_hist_slot)
 * counted into local copies, added to the record buffer's counts by
 * sm_fin_hc_flush (NULL cnt: counted there directly). With few bins,
 * entries 2 k and 2 k + 1 are counted together, one count per pair of
 * slots (jc, 2^(2 shift) counts per pair of entries). */
typedef struct sm_fin_hc {
  const sm_hist_spec_t *spec;
  sm_fin_hist_t f;
  int vec; /* f usable */
  sm_fin_slots_fn slots;
  uint32_t *cnt, *jc;
  uint32_t shift;
  uint64_t row, words, jwords, since;
} sm_fin_hc_t;
struct sm_fin_isa;
/* 1 when h counts anything; the slots of isa's loops (NULL: portable). */
int sm_fin_hc_init(sm_fin_hc_t *hc, const sm_hist_spec_t *h,
                   const struct sm_fin_isa *isa);
/* Counts v[c] (c < n) into the row of entry ent; out: the buffer's counts. */
void sm_fin_hc_add(sm_fin_hc_t *hc, const double *v, uint32_t n, uint32_t ent,
                   uint64_t *out);
/* Counts the values of entries 2 k and 2 k + 1 (ve[2 k], ve[2 k + 1]),
 * every k < nent / 2. */
void sm_fin_hc_add_all(sm_fin_hc_t *hc, const double *const *ve, uint32_t n,
                       uint64_t *out);
void sm_fin_hc_flush(sm_fin_hc_t *hc, uint64_t *out);
void sm_fin_hc_free(sm_fin_hc_t *hc);

/* Top-k candidates among n results (values v[e * ld + c], e < ne, readable
 * up to n rounded up to 8; NaN values are never neighbours). Entry e is
 * offered to row list lr[e] (< nl; floors rthr[]) and to column list
 * lc[e] (floors cthr[lc[e]][c], readable as far). Per group g of 8
 * results: cm[g] (rm[g]) has bit l when a value of result 8 g + l is at
 * least its column (row) list's floor, and rv[4 g + l] is the group's
 * largest value offered to row list l (-inf when none). */
typedef void (*sm_fin_topk_fn)(const double *v, size_t ld, uint32_t n, int ne,
                               const int *lr, const int *lc, int nl, const double *rthr,
                               const double *const *cthr, uint8_t *rm, uint8_t *cm,
                               double *rv);
void sm_fin_topk_port(const double *v, size_t ld, uint32_t n, int ne, const int *lr,
                      const int *lc, int nl, const double *rthr,
                      const double *const *cthr, uint8_t *rm, uint8_t *cm, double *rv);

/* ---- 3-way: a run of y of one (plane p, x) row over which the order of
 * the three indices is the same: triples (p, x, y0 + c), c < n. Values in
 * role order (cell u = 4 bp + 2 bx + by, CCC) into w[u * SM_FIN_RUN3 + c].
 * Per y from the run's first (zero past the tile's last y up to a
 * multiple of 8): CCC col = {g(y bit 0), g(y bit 1), cy, dense s1y}, the
 * factors g = 1 - param f of sm_f_ccc3; Czekanowski col = {sy}; both
 * col[4], col[5] the 2-way numerators of (p, y), (x, y) (dense CCC and
 * Czekanowski). Row:
 * CCC dense the tallies' row terms {nf, s1x, s1p, n2ax}, the min and max
 * of the plane's and x's factors (index 2 bp + bx); Czekanowski {nax, sa,
 * sx}. A CCC row whose values are all 0 (cp, cx or nf 0) is left to the
 * caller. */
enum { SM_FIN3_SPARSE, SM_FIN3_DENSE, SM_FIN3_CZEK_D, SM_FIN3_CZEK_S };

typedef struct sm_fin3_run {
  int kind, pneg;
  uint32_t n;
  const void *m3;       /* numerators of (p, x, y0): 12, 2 or 1 */
  const double *col[6]; /* per y from y0 */
  double row[4], pxlo[4], pxhi[4];
  double mult, rs; /* dense CCC: 1 / (8 nf) */
  /* keys: sm_mix64(sm_mix64(kx + c kxs) ^ (kc + c kcs)) */
  uint64_t kx, kxs, kc, kcs;
  int pr;        /* the role (0 p, 1 x, 2 y) of the labels' bit 0 */
  uint64_t w[3]; /* the labels' weight of each role's bit */
} sm_fin3_run_t;

/* What the 3-way loops return: done, values written but the checksum
 * terms not added (a value too large or NaN), or nothing usable (a
 * negative tally, which sm_f_ccc3 reads as a 64-bit unsigned count: the
 * portable loops). */
enum { SM_FIN_DONE, SM_FIN_BIG, SM_FIN_PORT };

/* The inner loops of one instruction set. values2 returns 0 after adding
 * the checksum terms of the values it wrote to ck, or 1 when a value is too
 * large (or NaN) for its fixed-point sums: the caller then adds the terms
 * itself (sm_fin_ck_terms); values3 returns SM_FIN_DONE, SM_FIN_BIG (the
 * same case) or SM_FIN_PORT. */
typedef struct sm_fin_isa {
  const char *name;
  int (*values2)(const sm_fin2_chunk_t *ch, double *v, sm_fin_ck_t *ck);
  sm_fin_keep_fn keep;
  sm_fin_slots_fn slots;
  sm_fin_topk_fn topk;
  int (*values3)(const sm_fin3_run_t *r, double *w, sm_fin_ck_t *ck);
} sm_fin_isa_t;

extern const sm_fin_isa_t sm_fin_isa_avx512, sm_fin_isa_avx2;

/** The inner loops in use: the widest this CPU runs (AVX-512 with DQ,
 * AVX2), NULL for the portable ones, unless sm_kern_fin_variant chose. */
const sm_fin_isa_t *sm_fin_isa(void);

/** Chooses the finalize kernels' instruction set for the whole process (tests
 * and benchmarks; call before any finalize runs): SM_KVAR_AUTO the widest
 * usable, SM_KVAR_BLOCKED (or REF) the portable loops, SM_KVAR_AVX2 or
 * SM_KVAR_AVX512. Returns the name of the loops now in use ("avx512",
 * "avx2", "portable"), or NULL (nothing changed) when this CPU or build
 * cannot run v. */
const char *sm_kern_fin_variant(sm_kvar_t v);

#endif
