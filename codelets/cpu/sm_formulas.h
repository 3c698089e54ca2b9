/* sm_formulas.h: every metric formula, once, for C and CUDA. Symmetric
 * operands are ordered (min first) so a value never depends on argument
 * order; the CCC evaluation order follows CoMet's so float32 outputs agree. */
#ifndef SM_FORMULAS_H
#define SM_FORMULAS_H

#include <stdint.h>

#ifdef __CUDACC__
#define SM_HD __host__ __device__ static inline
#else
#define SM_HD static inline
#endif

/* CoMet's defaults (SPEC 10). */
#define SM_CCC_PARAM_DEFAULT (2.0 / 3.0)
#define SM_CCC_MULT_DEFAULT (9.0 / 2.0)

/** Czekanowski 2-way: 2 n2 / (s_i + s_j); 0 when both vectors are zero. */
SM_HD double sm_f_czek2(double n2, double si, double sj)
{
  double lo = si < sj ? si : sj, hi = si < sj ? sj : si;
  double d = lo + hi;
  return d > 0 ? 2.0 * n2 / d : 0.0;
}

/** Czekanowski 3-way: (3/2)(n2ij + n2ik + n2jk - n3) / (s_i + s_j + s_k). */
SM_HD double sm_f_czek3(double n2ij, double n2ik, double n2jk, double n3,
                        double si, double sj, double sk)
{
  /* order the three numerator terms and the three sums */
  double a = n2ij, b = n2ik, c = n2jk, t;
  if (a > b) { t = a; a = b; b = t; }
  if (b > c) { t = b; b = c; c = t; }
  if (a > b) { t = a; a = b; b = t; }
  double x = si, y = sj, z = sk;
  if (x > y) { t = x; x = y; y = t; }
  if (y > z) { t = y; y = z; z = t; }
  if (x > y) { t = x; x = y; y = t; }
  double d = x + y + z;
  return d > 0 ? 1.5 * (a + b + c - n3) / d : 0.0;
}

/** CCC 2-way value from the tally t of entry (a,b), the allele sums s_i(a),
 * s_j(b) of the entry, the reciprocals of the vectors' counted entries
 * (recip_ci = 1/c_i) and of the pair's tally total (recip_sum = 1/c_ij). */
SM_HD double sm_f_ccc2(uint64_t t, uint64_t si, uint64_t sj, double recip_ci,
                       double recip_cj, double recip_sum, double mult,
                       double param)
{
  const double fi = 0.5 * recip_ci * (double)si;
  const double fj = 0.5 * recip_cj * (double)sj;
  const double fij = recip_sum * (double)t;
  const double fmin = fi < fj ? fi : fj;
  const double fmax = fi < fj ? fj : fi;
  return mult * fij * (1.0 - param * fmin) * (1.0 - param * fmax);
}

/** CCC 3-way value (fmin, fmid, fmax ordered). */
SM_HD double sm_f_ccc3(uint64_t t, uint64_t si, uint64_t sj, uint64_t sk,
                       double recip_ci, double recip_cj, double recip_ck,
                       double recip_sum, double mult, double param)
{
  double a = 0.5 * recip_ci * (double)si;
  double b = 0.5 * recip_cj * (double)sj;
  double c = 0.5 * recip_ck * (double)sk;
  double tmp;
  if (a > b) { tmp = a; a = b; b = tmp; }
  if (b > c) { tmp = b; b = c; c = tmp; }
  if (a > b) { tmp = a; a = b; b = tmp; }
  const double fijk = recip_sum * (double)t;
  return mult * fijk * (1.0 - param * a) * (1.0 - param * b) * (1.0 - param * c);
}

/** The 2x2 CCC tally table of a pair from its moments.
 * rr = sum r_i r_j, rm = sum r_i m_j, mr = sum m_i r_j, mm = sum m_i m_j over
 * the fields (r: copies of allele 1 on present entries, 0 on missing ones;
 * m: 1 when present). Dense data have m = 1 everywhere.
 * t[a*2+b] = sum rho_i(a) rho_j(b), rho(1) = r, rho(0) = 2 - r. */
SM_HD void sm_ccc2_tally(uint64_t rr, uint64_t rm, uint64_t mr, uint64_t mm,
                         uint64_t t[4])
{
  t[3] = rr;
  t[2] = 2 * rm - rr;                 /* (1,0): r_i (2 - r_j) */
  t[1] = 2 * mr - rr;                 /* (0,1): (2 - r_i) r_j */
  t[0] = 4 * mm - 2 * rm - 2 * mr + rr; /* (0,0) */
}

/** All four CCC 2-way values of a pair. s1i/s1j: allele-1 sums of the
 * vectors; ci/cj: counted entries (n_f when dense); dense: 1 for the dense
 * method (normalized by n_f), 0 for sparse (normalized by present counts). */
SM_HD void sm_ccc2_values(const uint64_t t[4], uint64_t s1i, uint64_t s1j,
                          uint64_t ci, uint64_t cj, uint64_t nf, int dense,
                          double mult, double param, double out[4])
{
  if (ci == 0 || cj == 0 || nf == 0) {
    out[0] = out[1] = out[2] = out[3] = 0.0;
    return;
  }
  const uint64_t s0i = 2 * ci - s1i, s0j = 2 * cj - s1j;
  double recip_ci, recip_cj, recip_sum;
  if (dense) {
    const double recip_m = 1.0 / (double)nf;
    recip_ci = recip_m;
    recip_cj = recip_m;
    recip_sum = 0.25 * recip_m;
  } else {
    const uint64_t cij = t[0] + t[1] + t[2] + t[3];
    if (cij == 0) {
      out[0] = out[1] = out[2] = out[3] = 0.0;
      return;
    }
    /* one divide for three reciprocals (as CoMet does) */
    const double f_ci = (double)ci, f_cj = (double)cj, f_cij = (double)cij;
    const double cmin = f_ci < f_cj ? f_ci : f_cj;
    const double cmax = f_ci < f_cj ? f_cj : f_ci;
    const double r = 1.0 / (cmin * cmax * f_cij);
    recip_ci = f_cj * f_cij * r;
    recip_cj = f_ci * f_cij * r;
    recip_sum = cmin * cmax * r;
  }
  for (int e = 0; e < 4; e++) {
    const int a = e >> 1, b = e & 1;
    out[e] = sm_f_ccc2(t[e], a ? s1i : s0i, b ? s1j : s0j, recip_ci, recip_cj,
                       recip_sum, mult, param);
  }
}

/** All eight CCC 3-way values of a triple from its 2x2x2 tallies
 * t[a*4+b*2+c], the vectors' allele-1 sums s1[3] and counted entries c[3]. */
SM_HD void sm_ccc3_values(const uint64_t t[8], const uint64_t s1[3],
                          const uint64_t c[3], uint64_t nf, int dense,
                          double mult, double param, double out[8])
{
  for (int e = 0; e < 8; e++)
    out[e] = 0.0;
  if (c[0] == 0 || c[1] == 0 || c[2] == 0 || nf == 0)
    return;
  double recip[3], recip_sum;
  if (dense) {
    const double recip_m = 1.0 / (double)nf;
    recip[0] = recip[1] = recip[2] = recip_m;
    recip_sum = 0.125 * recip_m;
  } else {
    uint64_t cijk = 0;
    for (int e = 0; e < 8; e++)
      cijk += t[e];
    if (cijk == 0)
      return;
    for (int x = 0; x < 3; x++)
      recip[x] = 1.0 / (double)c[x];
    recip_sum = 1.0 / (double)cijk;
  }
  for (int e = 0; e < 8; e++) {
    uint64_t s[3];
    for (int x = 0; x < 3; x++) {
      int bit = (e >> (2 - x)) & 1;
      s[x] = bit ? s1[x] : 2 * c[x] - s1[x];
    }
    out[e] = sm_f_ccc3(t[e], s[0], s[1], s[2], recip[0], recip[1], recip[2],
                       recip_sum, mult, param);
  }
}

#endif
