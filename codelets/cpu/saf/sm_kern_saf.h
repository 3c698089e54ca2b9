/* sm_kern_saf.h: the CPU kernels of `starmet maf`: per-site sample allele
 * frequency likelihoods (ANGSD -doSaf 1) as GAMA's tree reduction and as the
 * N-step iterative reference, and one E-step of the site frequency spectrum
 * EM (realSFS). Plain C: no runtime header in here.
 *
 * A site of N diploid individuals holds 3N linear genotype likelihoods,
 * individual i's at gl[3i + g], g = copies of the counted (derived / minor /
 * ALT) allele. Its SAF is the 2N+1 natural-log values
 *   saf[j] = ln( [x^j] prod_i (P_i0 + 2 P_i1 x + P_i2 x^2) / C(2N, j) ) - max,
 * so the largest is exactly 0. An individual whose three likelihoods are
 * equal has no data: its factor is (1 + x)^2 up to a constant, which the
 * binomial division makes flat (it adds no information but keeps its two
 * chromosomes). A site where no individual has data is skipped (ndata 0). */
#ifndef SM_KERN_SAF_H
#define SM_KERN_SAF_H

#include <stddef.h>
#include <stdint.h>

/* What a kernel says about one site. Bins outside [lo, hi] are -inf (an
 * impossible count, or dropped by banding). */
typedef struct sm_saf_site {
  uint32_t lo, hi;  /* finite bins */
  uint32_t ndata;   /* individuals with data; 0: the site is skipped */
  uint32_t dropped; /* bins dropped by banding (0 in exact mode) */
} sm_saf_site_t;

/* Log-factorial tables for N individuals, shared read-only by every task. */
typedef struct sm_saf_tab {
  size_t nind;
  long double *lfact; /* ln k!, k = 0..2N */
  double *lfact2;     /* log2 k!, k = 0..2N (banding decisions) */
} sm_saf_tab_t;

/** Tables for nind individuals; NULL when out of memory. */
sm_saf_tab_t *sm_saf_tab_create(size_t nind);
void sm_saf_tab_destroy(sm_saf_tab_t *t); /* accepts NULL */

/* Scratch memory of one kernel call (one per task). */
typedef struct sm_saf_ws sm_saf_ws_t;

/** Workspace for sites of nind individuals; NULL when out of memory. */
sm_saf_ws_t *sm_saf_ws_create(size_t nind);
void sm_saf_ws_destroy(sm_saf_ws_t *ws); /* accepts NULL */

/** GAMA's tree reduction: the individuals' three-term vectors are merged
 * pairwise, level by level, by polynomial convolution. Each bin is held as
 * a mantissa and a binary exponent (log space split into its integer and
 * fractional parts), so N in the thousands neither underflows nor
 * overflows; a merge cuts each operand into runs of at most 64 bins whose
 * exponents lie within 200 of each other, convolves runs in linear space
 * (skipping zero entries of the outer run) and adds the run pairs' results
 * into each output bin aligned on that bin's largest exponent (log-sum-exp),
 * skipping run pairs below it by more than 2^-60 relative.
 * band_tol > 0 (nats): after every merge, bins whose likelihood given the
 * node's data is below the node's maximum by more than band_tol are dropped
 * (ANGSD's score tolerance); 0 is exact.
 * nsites sites: gl rows of 3 * nind (leading dimension ldgl), out rows of
 * 2 * nind + 1 (leading dimension ldout), info one per site. */
void sm_kern_saf_tree(const sm_saf_tab_t *tab, sm_saf_ws_t *ws, double band_tol,
                      size_t nsites, const double *gl, size_t ldgl, double *out,
                      size_t ldout, sm_saf_site_t *info);

/** The reference: the N-step iterative update in natural-log space, one
 * individual at a time, on the likelihood given the individuals so far
 * (bins divided by C(2i, j) at every step, i.e. hypergeometric weights),
 * sums formed with log-sum-exp. Same arguments as the tree (exact only). */
void sm_kern_saf_ref(const sm_saf_tab_t *tab, sm_saf_ws_t *ws, size_t nsites,
                     const double *gl, size_t ldgl, double *out, size_t ldout,
                     sm_saf_site_t *info);

/** One E-step of the SFS EM over a block of sites. L: nsites rows of nbins
 * (leading dimension ld) holding exp(saf) in [lo, hi] of each site; with
 * convert != 0 they still hold saf (natural log) and are converted in place
 * first. phi: the spectrum (nbins, sums to 1). Writes grad[j] = sum over the
 * block's sites of L_j / Z (Z = sum_k phi_k L_k: the log-likelihood's
 * gradient; phi_j grad[j] is bin j's posterior sum), stats[0] = sum of ln Z,
 * stats[1] = sites used, and maf[s] = the posterior mean frequency of the
 * counted allele, sum_j (j / (nbins - 1)) phi_j L_j / Z (NaN for a skipped
 * site). */
void sm_kern_safem(size_t nsites, size_t nbins, double *L, size_t ld,
                   const sm_saf_site_t *info, int convert, const double *phi,
                   double *grad, double *stats, double *maf);

#endif
