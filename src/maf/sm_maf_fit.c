/* sm_maf_fit.c: the spectrum's updates between E-steps: the EM update
 * (realSFS's), Anderson acceleration over the last steps with the EM update
 * instead whenever an extrapolation lowers the log-likelihood, folding by keeping
 * the unfolded spectrum symmetric, and the stopping rule. */
#include "sm_maf_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Anderson mixing depth: the EM steps whose differences it combines. */
#define DEPTH 10
/* Ridge on the mixing's normal equations, relative to their trace. */
#define RIDGE 1e-10
/* A bin that an extrapolation would make negative keeps this fraction of
 * its EM value: a bin pushed near zero takes EM many steps to grow back
 * (zero is final), and a deep cut strands the fit short of its maximum. */
#define FLOOR 0.5

struct sm_maf_fit {
  size_t nb;
  int fold;
  sm_maf_accel_t accel;
  double tole;
  double *x;                  /* the accepted spectrum */
  double *mx;                 /* its EM update */
  double *c;                  /* the point being evaluated */
  double *px, *pf;            /* the accepted point before x, and its EM step */
  double *dx, *df;            /* the last DEPTH differences of successive accepted points
                                 and of their EM steps: slots of nb, a ring */
  double gram[DEPTH * DEPTH]; /* df_a . df_b, by slot */
  size_t nd, d0;              /* differences in the ring, the slot of the oldest */
  int have;                   /* points accepted, counted up to 2 (2: px and pf hold
                                 the one before x) */
  int plain;                  /* c is the EM update of x (no extrapolation) */
  sm_maf_fit_state_t st;
};

sm_maf_fit_t *sm_maf_fit_create(size_t nbins, int fold, sm_maf_accel_t accel, double tole)
{
  sm_maf_fit_t *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  f->nb = nbins;
  f->fold = fold;
  f->accel = accel;
  f->tole = tole;
  f->x = malloc(nbins * sizeof *f->x);
  f->mx = malloc(nbins * sizeof *f->mx);
  f->c = malloc(nbins * sizeof *f->c);
  const int aa = accel == SM_MAF_ACCEL_ANDERSON;
  if (aa) {
    f->px = malloc(nbins * sizeof *f->px);
    f->pf = malloc(nbins * sizeof *f->pf);
    f->dx = malloc(DEPTH * nbins * sizeof *f->dx);
    f->df = malloc(DEPTH * nbins * sizeof *f->df);
  }
  if (!f->x || !f->mx || !f->c || (aa && (!f->px || !f->pf || !f->dx || !f->df))) {
    sm_maf_fit_destroy(f);
    return NULL;
  }
  for (size_t j = 0; j < nbins; j++) /* the flat spectrum, as realSFS starts */
    f->c[j] = f->x[j] = 1.0 / (double)nbins;
  f->plain = 1;
  f->st.change = NAN;
  return f;
}

void sm_maf_fit_destroy(sm_maf_fit_t *f)
{
  if (!f)
    return;
  free(f->x);
  free(f->mx);
  free(f->c);
  free(f->px);
  free(f->pf);
  free(f->dx);
  free(f->df);
  free(f);
}

const double *sm_maf_fit_point(const sm_maf_fit_t *f)
{
  return f->c;
}

sm_maf_fit_state_t sm_maf_fit_state(const sm_maf_fit_t *f)
{
  return f->st;
}

/* The ring slot of difference k (0 the oldest). */
static size_t slot(const sm_maf_fit_t *f, size_t k)
{
  return (f->d0 + k) % DEPTH;
}

/* Solve the k x k system a y = b (symmetric positive definite) by Cholesky,
 * in place (b becomes y). 0, or -1 when a is not positive definite. */
static int solve_spd(double *a, double *b, size_t k)
{
  for (size_t i = 0; i < k; i++) {
    for (size_t j = 0; j <= i; j++) {
      double s = a[i * k + j];
      for (size_t p = 0; p < j; p++)
        s -= a[i * k + p] * a[j * k + p];
      if (i == j) {
        if (!(s > 0) || !isfinite(s))
          return -1;
        a[i * k + i] = sqrt(s);
      } else
        a[i * k + j] = s / a[j * k + j];
    }
  }
  for (size_t i = 0; i < k; i++) { /* L z = b */
    double s = b[i];
    for (size_t p = 0; p < i; p++)
      s -= a[i * k + p] * b[p];
    b[i] = s / a[i * k + i];
  }
  for (size_t i = k; i-- > 0;) { /* L^T y = z */
    double s = b[i];
    for (size_t p = i + 1; p < k; p++)
      s -= a[p * k + i] * b[p];
    b[i] = s / a[i * k + i];
  }
  return 0;
}

/* The Anderson point into c: with f = M(x) - x the EM step at x and dX, dF
 * the differences of successive accepted points and of their EM steps,
 * gamma minimizes |f - dF gamma| (a small ridge) and c = M(x) - (dX + dF)
 * gamma. Bins that come out non-positive keep FLOOR of their EM value; the
 * result sums to 1. 0, or -1 when no extrapolation is possible (then c is
 * left alone). */
static int anderson(sm_maf_fit_t *f)
{
  const size_t k = f->nd, nb = f->nb;
  double a[DEPTH * DEPTH], g[DEPTH], tr = 0;
  for (size_t p = 0; p < k; p++) {
    const double *dfp = f->df + slot(f, p) * nb;
    for (size_t q = 0; q < k; q++)
      a[p * k + q] = f->gram[slot(f, p) * DEPTH + slot(f, q)];
    double s = 0;
    for (size_t j = 0; j < nb; j++)
      s += dfp[j] * (f->mx[j] - f->x[j]);
    g[p] = s;
    tr += a[p * k + p];
  }
  if (!(tr > 0) || !isfinite(tr))
    return -1;
  for (size_t p = 0; p < k; p++)
    a[p * k + p] += RIDGE * tr;
  if (solve_spd(a, g, k))
    return -1;
  memcpy(f->c, f->mx, nb * sizeof *f->c);
  for (size_t p = 0; p < k; p++) {
    const double *dxp = f->dx + slot(f, p) * nb, *dfp = f->df + slot(f, p) * nb;
    for (size_t j = 0; j < nb; j++)
      f->c[j] -= g[p] * (dxp[j] + dfp[j]);
  }
  double sum = 0;
  for (size_t j = 0; j < nb; j++) {
    if (!(f->c[j] > 0) || !isfinite(f->c[j]))
      f->c[j] = FLOOR * f->mx[j];
    sum += f->c[j];
  }
  if (!(sum > 0) || !isfinite(sum))
    return -1;
  for (size_t j = 0; j < nb; j++)
    f->c[j] /= sum;
  return 0;
}

/* x was accepted (mx its EM update): the differences from the accepted
 * point before it join the ring (the oldest leaves a full one), with their
 * products with the others. */
static void remember(sm_maf_fit_t *f)
{
  const size_t nb = f->nb;
  if (f->have > 1) {
    if (f->nd == DEPTH) { /* the ring is full: drop the oldest */
      f->d0 = (f->d0 + 1) % DEPTH;
      f->nd--;
    }
    const size_t sn = slot(f, f->nd);
    double *dx = f->dx + sn * nb, *df = f->df + sn * nb;
    for (size_t j = 0; j < nb; j++) {
      dx[j] = f->x[j] - f->px[j];
      df[j] = (f->mx[j] - f->x[j]) - f->pf[j];
    }
    f->nd++;
    for (size_t q = 0; q < f->nd; q++) {
      const size_t sq = slot(f, q);
      const double *dfq = f->df + sq * nb;
      double s = 0;
      for (size_t j = 0; j < nb; j++)
        s += df[j] * dfq[j];
      f->gram[sn * DEPTH + sq] = f->gram[sq * DEPTH + sn] = s;
    }
  }
  memcpy(f->px, f->x, nb * sizeof *f->px);
  for (size_t j = 0; j < nb; j++)
    f->pf[j] = f->mx[j] - f->x[j];
}

/* The next point after x was accepted: Anderson's, or the EM update (also
 * when check: an extrapolation gained less than tole, and the EM step says
 * whether the EM has converged). */
static void next_point(sm_maf_fit_t *f, int check)
{
  f->plain = 1;
  if (f->accel == SM_MAF_ACCEL_ANDERSON) {
    remember(f);
    if (!check && f->nd >= 1 && anderson(f) == 0) {
      f->plain = 0;
      return;
    }
  }
  memcpy(f->c, f->mx, f->nb * sizeof *f->c);
}

/* x's EM update from its gradient sums (symmetric when folded: the folded
 * class k's posterior shared by its bins k and 2N - k), and the bound on
 * the distance to the maximum: for every spectrum q, by Jensen's inequality,
 * ll(q) - ll(x) <= n ln sum_j q_j g_j / n <= n ln max_j g_j / n. */
static void em_update(sm_maf_fit_t *f, const double *grad, double nsites)
{
  const size_t nb = f->nb;
  double gmax = 0;
  for (size_t j = 0; j < nb; j++) {
    const double g = f->fold ? 0.5 * (grad[j] + grad[nb - 1 - j]) : grad[j];
    f->mx[j] = nsites > 0 ? f->x[j] * g / nsites : f->x[j];
    gmax = g > gmax ? g : gmax;
  }
  const double b = nsites > 0 ? nsites * log(gmax / nsites) : 0.0;
  f->st.gap_bound = b > 0 ? b : 0.0;
}

sm_maf_fit_status_t sm_maf_fit_update(sm_maf_fit_t *f, const double *grad, double loglik,
                                      double nsites, int *accepted)
{
  if (f->have && !(loglik >= f->st.loglik)) { /* lower (or NaN): refused */
    *accepted = 0;
    f->st.rejected++;
    if (f->plain) { /* not even an EM step raises it: rounding has the last word */
      f->st.change = 0.0;
      return SM_MAF_FIT_CONVERGED;
    }
    /* the EM update instead; the mixing goes on from the point after it */
    memcpy(f->c, f->mx, f->nb * sizeof *f->c);
    f->plain = 1;
    return SM_MAF_FIT_MORE;
  }
  *accepted = 1;
  int small = 0;
  if (f->have) {
    f->st.change = loglik - f->st.loglik;
    small = f->st.change < f->tole;
  }
  f->have = f->have < 2 ? f->have + 1 : 2;
  f->st.loglik = loglik;
  f->st.nsites = nsites;
  f->st.accepted++;
  memcpy(f->x, f->c, f->nb * sizeof *f->x);
  em_update(f, grad, nsites);
  if (small && f->plain) /* an EM step changed it by less than tole: realSFS's test */
    return SM_MAF_FIT_CONVERGED;
  next_point(f, small);
  return SM_MAF_FIT_MORE;
}

void sm_maf_fit_spectrum(const sm_maf_fit_t *f, double *out)
{
  const size_t nb = f->nb, n = nb / 2; /* N, the middle bin */
  if (!f->fold) {
    memcpy(out, f->x, nb * sizeof *out);
    return;
  }
  for (size_t k = 0; k < n; k++)
    out[k] = f->x[k] + f->x[nb - 1 - k];
  out[n] = f->x[n];
  for (size_t k = n + 1; k < nb; k++)
    out[k] = 0.0;
}
