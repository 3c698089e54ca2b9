/* sm_saf_step.h: one step of the iterative SAF update (realSFS's
 * algorithm), for C and CUDA: the reference CPU kernel (kern_saf_ref.c) and
 * the device kernel (codelets/device/sm_dev_kernels.h) run these, one bin or one
 * individual at a time. Natural-log space throughout. */
#ifndef SM_SAF_STEP_H
#define SM_SAF_STEP_H

#ifndef __OPENCL_VERSION__ /* the OpenCL program text already starts with them */
#include <math.h>

#include "sm_formulas.h"
#endif

/** ln(w0 e^t0 + w1 e^t1 + w2 e^t2), terms at -inf allowed (addProtect). */
SM_FN double sm_saf_lse3(double t0, double w0, double t1, double w1, double t2, double w2)
{
  double M = t0 > t1 ? t0 : t1;
  M = M > t2 ? M : t2;
  if (M == -INFINITY)
    return -INFINITY;
  return M + log(w0 * exp(t0 - M) + w1 * exp(t1 - M) + w2 * exp(t2 - M));
}

/** The log genotype likelihoods lp[g] of one individual from its linear
 * ones p[0..2], scaled to a maximum of 1; returns 0 (lp all 0: every
 * genotype equally likely) when the three are equal (no data), else 1. */
SM_FN int sm_saf_gl_logs(const double *p, double lp[3])
{
  lp[0] = lp[1] = lp[2] = 0.0;
  if (p[0] == p[1] && p[1] == p[2])
    return 0;
  double mx = p[0] > p[1] ? p[0] : p[1];
  mx = mx > p[2] ? mx : p[2];
  for (int g = 0; g < 3; g++)
    lp[g] = log(p[g] / mx);
  return 1;
}

/** Bin j (0 <= j <= n) of the row after adding an individual with log
 * likelihoods lp, n = 2 (individuals so far, this one included), from bins
 * u0 = u[j], u1 = u[j-1], u2 = u[j-2] of the previous row u (any value
 * where that bin does not exist): g of the 2 new chromosomes carry the
 * allele, with the hypergeometric weights C(2, g) C(n - 2, j - g) / C(n, j). */
SM_FN double sm_saf_bin3(double u0, double u1, double u2, const double *lp, int n, int j)
{
  const double dn = (double)n * (double)(n - 1);
  double t0 = -INFINITY, t1 = -INFINITY, t2 = -INFINITY;
  double w0 = 0, w1 = 0, w2 = 0;
  if (j <= n - 2) {
    t0 = u0 + lp[0];
    w0 = (double)(n - j) * (double)(n - j - 1) / dn;
  }
  if (j >= 1 && j <= n - 1) {
    t1 = u1 + lp[1];
    w1 = 2.0 * (double)j * (double)(n - j) / dn;
  }
  if (j >= 2) {
    t2 = u2 + lp[2];
    w2 = (double)j * (double)(j - 1) / dn;
  }
  return sm_saf_lse3(t0, w0, t1, w1, t2, w2);
}

/** The same from the previous row u (bins 0 .. n - 2). */
SM_FN double sm_saf_bin(const double *u, const double *lp, int n, int j)
{
  return sm_saf_bin3(j <= n - 2 ? u[j] : 0.0, j >= 1 && j <= n - 1 ? u[j - 1] : 0.0,
                     j >= 2 ? u[j - 2] : 0.0, lp, n, j);
}

#endif
