/* sm_xcnt512.h: tallies over a partner's missing fields with AVX-512
 * (kern_xcnt512.c; internal to codelets/cpu): PLINK's homozygous tally
 * (kern_ld.c) and CCC's sparse moments beside a dense product
 * (kern_mfix.c), when missing calls are few. */
#ifndef SM_XCNT512_H
#define SM_XCNT512_H

#include <stddef.h>
#include <stdint.h>

#include "sm_kern.h"
#include "sm_mfix.h"
#include "sm_sidecache.h"

/* Whether this build and CPU run them (x86-64 with AVX-512 F and BW). */
int sm_xc_usable(void);
/* Whether the moments' planes of m and n vectors of nf fields (3 bits a
 * field, vectors by 256) stay within SM_XC_PLANES_MAX bytes a side: the
 * counters do not block the fields, so longer vectors keep the other
 * methods. */
#define SM_XC_PLANES_MAX ((size_t)64 << 20)
int sm_xc_fits(size_t m, size_t n, size_t nf);

/* PLINK's homozygous tally of A x B (sm_kern_ld_hom's layout: C[(i ldc +
 * j) 2 + 0] = nS_i - |S_i & X_j|, [+ 1] = nS_j - |X_i & S_j|; same: B is
 * A). 0 done, -1 out of memory (C partly written). */
int sm_xc_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
              const uint64_t *B, size_t ldb, int same, uint32_t *C, size_t ldc);

/* CCC's sparse moments of A x B into C (4 a pair, sm_kern.h's layout)
 * from the dense product rr (m x n at ldr) of A and B with missing calls
 * read as 00: rm = R_i less r_i over j's missing fields, mr the same the
 * other way, mm = nf - nX_i - nX_j + |X_i & X_j|. sym: B is A. H not
 * NULL: PLINK's homozygous tally too (sm_xc_hom's layout at ldh), from
 * the same counts (the S plane's). 0 done, -1 out of memory (C, H partly
 * written). */
int sm_xc_moments(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                  const uint64_t *B, size_t ldb, int sym, const uint32_t *rr, size_t ldr,
                  uint32_t *C, size_t ldc, uint32_t *H, size_t ldh);
/* Both tiles' kept sides of the strips (sm_sidecache.h), held. */
typedef struct sm_xc_kept {
  sm_side_ref_t r[2];
  const void *s[2];
} sm_xc_kept_t;
/* 1 when both tiles' sides are kept (held in k until
 * sm_xc_moments_strips or sm_xc_kept_release), their missing calls in
 * *xa and *xb; else 0 (nothing held). */
int sm_xc_kept(sm_xc_kept_t *k, size_t m, size_t n, size_t nf, const uint64_t *A,
               size_t lda, const uint64_t *B, size_t ldb, size_t *xa, size_t *xb);
void sm_xc_kept_release(sm_xc_kept_t *k);
/* The moments as sm_xc_moments with the dense product computed here strip
 * by strip (16 rows x 256 columns, in L1 when the counters read it), for
 * A and B apart (sm_xc_strips), from kept (released here) or, when NULL,
 * from each tile's planes, lists and lanes got from sm_side_get (built,
 * then kept for the tile's next pairs). band not NULL (LD windows without
 * an index; A may be B, a diagonal tile pair): only the pairs in its
 * windows, by 16 rows x the 16 columns their runs reach (the other pairs
 * of C and H untouched). 0 done; -1 out of memory (C, H partly
 * written). */
int sm_xc_moments_strips(sm_xc_kept_t *kept, const sm_band_t *band, size_t m, size_t n,
                         size_t nf, const uint64_t *A, size_t lda, const uint64_t *B,
                         size_t ldb, uint32_t *C, size_t ldc, uint32_t *H, size_t ldh);
/* Whether sm_xc_moments_strips serves: not for the symmetric form (the
 * product of half the pairs, mirrored, is less work) nor for long vectors
 * (256 columns' dense planes past 256 KB: the product's own blocking then
 * does better). */
int sm_xc_strips(size_t nf, int sym);

#endif
