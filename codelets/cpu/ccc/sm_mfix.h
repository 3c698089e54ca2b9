/* sm_mfix.h: sums over a partner's missing fields (kern_mfix.c; internal to
 * codelets/cpu): CCC's sparse moments as a dense product plus these sums
 * when missing calls are few, and PLINK's homozygous tally (kern_ld.c). */
#ifndef SM_MFIX_H
#define SM_MFIX_H

#include <stddef.h>
#include <stdint.h>

#include "sm_kern_simd.h"

/* Rows per chunk of transposed values; fields per block of them (a
 * chunk's block of values, at most 2 MB, is built, summed over, and
 * dropped: memory does not grow with the vectors' length, and a block's
 * sums fit int16); partners with at most SM_MFIX_NARROW missing fields in
 * a block: int8 values and sums. */
#define SM_MFIX_CHUNK 64
#define SM_MFIX_FIELDS 8192
#define SM_MFIX_NARROW 127

/* Per vector of a set, its missing fields (code 10), ascending: those of v
 * at idx[off[v] .. off[v + 1]). */
typedef struct sm_mfix_miss {
  size_t *off;
  uint32_t *idx;
} sm_mfix_miss_t;

/* The vectors whose values are summed: nv rows of nf codes at X (ldx
 * words apart), value q (< nq <= 2) of a field tab[q][code] (-1, 0, 1). */
typedef struct sm_mfix_src {
  const uint64_t *X;
  size_t ldx, nv, nf;
  int nq;
  const int8_t (*tab)[4];
} sm_mfix_src_t;

/* a[j] bit i = a[i] bit j (a 64 x 64 bit block). */
void sm_mfix_transpose64(uint64_t a[64]);
/* -1 when out of memory (nothing held). */
int sm_mfix_lists(sm_mfix_miss_t *ml, size_t nv, size_t nf, const uint64_t *X,
                  size_t ldx);
/* The lists in two steps: the counts (ml->off; idx NULL), which decide
 * whether the lists are worth writing, then the lists (ml->idx). -1 when
 * out of memory (sm_mfix_lists_free frees what is held). */
int sm_mfix_count(sm_mfix_miss_t *ml, size_t nv, size_t nf, const uint64_t *X,
                  size_t ldx);
int sm_mfix_fill(sm_mfix_miss_t *ml, size_t nv, size_t nf, const uint64_t *X, size_t ldx);
void sm_mfix_lists_free(sm_mfix_miss_t *ml);
/* Per vector v of nv at g[4v ..]: R (the sum of r over its present
 * calls), nX (missing calls), nZ (code 00) and nS (code 11). */
void sm_mfix_margins(size_t nv, size_t nf, const uint64_t *X, size_t ldx, int64_t *g);
/* For every vector r of src and j < n of ml: the sum of r's value q over
 * j's missing fields into out[q][r rs + j cs] (out[q] NULL: not stored).
 * -1 when out of memory (out partly written). */
int sm_mfix_sums(const sm_mfix_src_t *src, const sm_mfix_miss_t *ml, size_t n,
                 int32_t *const out[2], size_t rs, size_t cs);
/* Which popcounts the sums compete with: the sparse planes' 3 extra ones
 * per word pair of a CCC kernel (sm_ccc2_sparse_fix), or the homozygous
 * tally's 2 (kern_ld.c, without AVX-512); and the instruction set that
 * counts them. */
typedef enum { SM_MFIX_MOMENTS, SM_MFIX_LD } sm_mfix_kind_t;
typedef enum { SM_MFIX_ISA_popc, SM_MFIX_ISA_avx2, SM_MFIX_ISA_avx512 } sm_mfix_isa_t;
/* Whether the sums are less work than those popcounts for m x n pairs of
 * nf fields with nxa and nxb missing calls on the two sides (a cost model
 * in seconds, measured: kern_mfix.c). */
int sm_mfix_worth(sm_mfix_kind_t kind, sm_mfix_isa_t isa, size_t m, size_t n, size_t nf,
                  size_t nxa, size_t nxb);

/* CCC's sparse moments of A x B (sym: B is A, m = n) into C (sm_kern.h's
 * layout, nmom 4) with dense (dsyrk when sym; isa's kernels) for the
 * product: 0 done, 1 not worth it (never when force), -1 out of memory (C
 * untouched or partly written: compute it again). H not NULL: PLINK's
 * homozygous tally too (sm_kern_ld_hom's layout at ldh), from the same
 * counts: done only by the AVX-512 counters (else 1, nothing written). */
int sm_ccc2_sparse_fix(sm_ccc2_fn dense, sm_ccc2_syrk_fn dsyrk, sm_mfix_isa_t isa,
                       size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sym, int force, uint32_t *C,
                       size_t ldc, uint32_t *H, size_t ldh);
/* The same with the AVX-512 counters for the pairs of LD windows without
 * an index alone (sm_xc_moments_strips with band; A may be B, a diagonal
 * tile pair), C and H both: 0 done, 1 not for them (no AVX-512, windows
 * with an index, long vectors, too many missing calls: nothing written),
 * -1 out of memory (C, H partly written). */
int sm_ccc2_band_fix(const sm_band_t *band, size_t m, size_t n, size_t nf,
                     const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                     uint32_t *C, size_t ldc, uint32_t *H, size_t ldh);

#endif
