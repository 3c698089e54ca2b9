/* sm_maf_fit.h: how the site frequency spectrum moves from one EM E-step to
 * the next: plain EM (realSFS -m 0) or Anderson-accelerated EM, unfolded or
 * folded (realSFS -fold 1), and when it stops (realSFS -tole). Arithmetic on
 * the E-step's sums only: the caller runs the E-steps (sm_maf_em.c with
 * StarPU tasks, or a test with a loop). */
#ifndef SM_MAF_FIT_H
#define SM_MAF_FIT_H

#include <stddef.h>
#include <stdint.h>

/* How the EM is accelerated (--em-accel). */
typedef enum sm_maf_accel {
  SM_MAF_ACCEL_ANDERSON = 0, /* Anderson mixing of the last 10 EM steps, kept when
                                the log-likelihood does not drop, else the EM step */
  SM_MAF_ACCEL_NONE,         /* plain EM: every step is the EM update */
} sm_maf_accel_t;

/* What sm_maf_fit_update decided. */
typedef enum sm_maf_fit_status {
  SM_MAF_FIT_MORE = 0,  /* evaluate sm_maf_fit_point next */
  SM_MAF_FIT_CONVERGED, /* done: an EM step changed the log-likelihood by less
                           than tole (realSFS's test; an accelerated step that
                           does is followed by an EM step, which decides), or
                           could not raise it (rounding) */
} sm_maf_fit_status_t;

/* Where the fit stands; fields valid once a point was accepted. */
typedef struct sm_maf_fit_state {
  double loglik;    /* the accepted spectrum's log-likelihood (ln, over sites) */
  double change;    /* what the last accepted iteration added to it (NaN: none
                       yet; 0 when an EM step could not raise it) */
  double gap_bound; /* the maximum is at most this above loglik: nsites ln max_j
                       g_j / nsites, g the gradient sums (0 at the optimum) */
  double nsites;    /* sites in the likelihood */
  uint64_t accepted, rejected; /* points kept; extrapolations refused */
} sm_maf_fit_state_t;

typedef struct sm_maf_fit sm_maf_fit_t;

/** A fit over nbins = 2N + 1 bins from the flat spectrum; fold: the folded
 * spectrum (the unfolded one the E-steps see is kept symmetric); tole: the
 * stopping tolerance on the log-likelihood's change (> 0). NULL without
 * memory. */
sm_maf_fit_t *sm_maf_fit_create(size_t nbins, int fold, sm_maf_accel_t accel,
                                double tole);

/** Free a fit; accepts NULL. */
void sm_maf_fit_destroy(sm_maf_fit_t *f);

/** The spectrum the next E-step evaluates: nbins values summing to 1,
 * unfolded (symmetric when folded). Valid until the next update. */
const double *sm_maf_fit_point(const sm_maf_fit_t *f);

/** Give the fit the E-step at sm_maf_fit_point: grad (nbins) the sums over
 * sites of L_j / Z, loglik the sum of ln Z, nsites the sites in them. Sets
 * *accepted to whether that point became the fit's spectrum (the caller
 * keeps the E-step's per-site values then). Returns what to do next. */
sm_maf_fit_status_t sm_maf_fit_update(sm_maf_fit_t *f, const double *grad, double loglik,
                                      double nsites, int *accepted);

/** Where the fit stands (sm_maf_fit_state_t). */
sm_maf_fit_state_t sm_maf_fit_state(const sm_maf_fit_t *f);

/** The accepted spectrum as written (out: nbins, sums to 1): unfolded, or
 * folded as realSFS -fold 1 writes it: bin k of 0..N holds the classes k
 * and 2N - k, bin N alone, bins N + 1 .. 2N are 0. */
void sm_maf_fit_spectrum(const sm_maf_fit_t *f, double *out);

#endif
