/* sm_formulas.h: every formula of the metrics, once, for C, CUDA and OpenCL
 * C: the 2-bit genotype algebra (code -> allele count, presence, bit planes,
 * per-word moments), the CCC tallies and the CCC and Czekanowski values.
 * Symmetric operands are ordered (min first) so a value never depends on
 * argument order; the CCC evaluation order follows CoMet's so float32
 * outputs agree. The OpenCL program text starts with this file (Makefile.am
 * prepends it), so under OpenCL it includes nothing. */
#ifndef SM_FORMULAS_H
#define SM_FORMULAS_H

#if defined(__OPENCL_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef ulong sm_u64;
typedef uint sm_u32;
#if __OPENCL_C_VERSION__ >= 120 /* static: no external definition needed */
#define SM_FN static inline
#else
#define SM_FN inline
#endif
#define SM_POPC64(x) ((sm_u32)popcount(x))
typedef long sm_s64;
#define SM_TRUNC(x) trunc(x)
#define SM_FABS(x) fabs(x)
#define SM_SQRT(x) sqrt(x)
#pragma OPENCL FP_CONTRACT OFF /* the CPU's roundings, operation by operation */
#else
#include <stddef.h>
#include <stdint.h>
typedef uint64_t sm_u64;
typedef uint32_t sm_u32;
#ifdef __CUDACC__
#define SM_FN __host__ __device__ static inline
#else
#define SM_FN static inline
#endif
typedef int64_t sm_s64;
#ifdef __CUDA_ARCH__
#define SM_POPC64(x) ((sm_u32)__popcll(x))
#define SM_TRUNC(x) trunc(x)
#define SM_FABS(x) fabs(x)
#define SM_SQRT(x) sqrt(x)
#else
#define SM_POPC64(x) ((sm_u32)__builtin_popcountll(x))
#define SM_TRUNC(x) __builtin_trunc(x)
#define SM_FABS(x) __builtin_fabs(x)
#define SM_SQRT(x) __builtin_sqrt(x)
#endif
#endif

/* ---- the run checksum's pieces of one value (SPEC 5; the sums are in
 * src/common/sm_cksum.c), for the CPU and the device finalize alike */

/** Fixed-point scale of the checksum: 2^-40 resolution. */
#define SM_CKSUM_SCALE 1099511627776.0
/** The same hash constant separates a result's table entries. */
#define SM_CKSUM_ENTRY_STEP ((sm_u64)0x9e3779b97f4a7c15UL)

/** The fixed-point rendering of a value in the checksum: llround(v 2^40)
 * exactly (half away from zero; the most negative integer where llround
 * overflows, that plus 1 for NaN, so that a NaN's hash term depends on
 * where it is: (2^63 + 1) k is not the same for every odd key k, 2^63 k
 * is), in operations a compiler can vectorize. */
SM_FN sm_s64 sm_cksum_q(double v)
{
  const double x = v * SM_CKSUM_SCALE;
  const double t = SM_TRUNC(x), d = x - t; /* exact */
  const double r = t + (d >= 0.5 ? 1.0 : d <= -0.5 ? -1.0 : 0.0);
  /* -2^63 converts to the most negative integer exactly: one
   * unconditional conversion */
  return (sm_s64)(SM_FABS(x) < 9223372036854775808.0 ? r : -9223372036854775808.0) +
         (sm_s64)(x != x);
}

/** splitmix64's finalizer: a well-mixed 64-bit hash (checksum keys, the
 * fault injection's random stream). */
SM_FN sm_u64 sm_mix64(sm_u64 x)
{
  x += (sm_u64)0x9e3779b97f4a7c15UL;
  x = (x ^ (x >> 30)) * (sm_u64)0xbf58476d1ce4e5b9UL;
  x = (x ^ (x >> 27)) * (sm_u64)0x94d049bb133111ebUL;
  return x ^ (x >> 31);
}

/** The checksum key of result (a, b, c) as written (2-way: c = 2^32 - 1). */
SM_FN sm_u64 sm_cksum_key3(sm_u64 a, sm_u64 b, sm_u64 c)
{
  return sm_mix64(sm_mix64((a << 32) | b) ^ c);
}
SM_FN sm_u64 sm_cksum_key2(sm_u64 a, sm_u64 b)
{
  return sm_cksum_key3(a, b, (sm_u64)0xffffffffUL);
}

/* CoMet's defaults (SPEC 10). */
#define SM_CCC_PARAM_DEFAULT (2.0 / 3.0)
#define SM_CCC_MULT_DEFAULT (9.0 / 2.0)

/* ---- 2-bit genotype codes, 32 fields per 64-bit word (field f in bits
 * 2f, 2f+1; lo = bit 0, hi = bit 1): 00 no copy of allele 1, 01 one,
 * 11 two, 10 missing. The dense method counts a missing call as one copy
 * (present); the sparse method leaves it out (r = 0, m = 0). Bits past the
 * last field are zero. */
#define SM_EVEN64 ((sm_u64)0x5555555555555555UL)

/** Code of field f of a row of codes. */
SM_FN unsigned sm_gt_code(const sm_u64 *row, size_t f)
{
  return (unsigned)(row[f / 32] >> (2 * (f % 32))) & 3u;
}

/** Copies of allele 1 counted for code c (r = P1 + P2 of the planes below). */
SM_FN unsigned sm_gt_r(unsigned c, int sparse)
{
  const unsigned lo = c & 1u, hi = c >> 1;
  return sparse ? lo + (lo & hi) : lo + hi;
}

/** Presence m of code c: 1 unless sparse and missing. */
SM_FN unsigned sm_gt_m(unsigned c, int sparse)
{
  return !sparse || c != 2u;
}

/** Bytes of a row of a tile's int8 form (r, m: one byte per field, the
 * CCC int8 GEMMs' operands): nf rounded up to 16, so that rows stay
 * aligned for int8 GEMMs (cuBLAS wants leading dimensions of 4). */
SM_FN size_t sm_ccc_i8_kpad(size_t nf)
{
  return (nf + 15) / 16 * 16;
}

/** The fields of one code word w, of which `left` (> 0) still exist: lo and
 * hi bits in the even positions and the mask of existing fields. */
SM_FN void sm_gt_bits(sm_u64 w, sm_u64 left, sm_u64 *lo, sm_u64 *hi, sm_u64 *valid)
{
  *lo = w & SM_EVEN64;
  *hi = (w >> 1) & SM_EVEN64;
  *valid = left >= 32 ? SM_EVEN64 : (((sm_u64)1 << (2 * left)) - 1) & SM_EVEN64;
}

/** Bit planes of a code word's fields (even positions):
 *   dense:  P1 = lo | hi (r >= 1), P2 = lo & hi (r == 2), r = P1 + P2
 *   sparse: P1 = lo (r >= 1 and present), P2 = lo & hi, M = lo | ~hi
 * (M, presence, is only used by the sparse method). */
SM_FN void sm_gt_planes(sm_u64 lo, sm_u64 hi, sm_u64 valid, int sparse, sm_u64 *p1,
                        sm_u64 *p2, sm_u64 *pm)
{
  *p1 = (sparse ? lo : (lo | hi)) & valid;
  *p2 = lo & hi & valid;
  *pm = (lo | (~hi & SM_EVEN64)) & valid;
}

/** sum r_x r_y over a word of planes. P2 is a subset of P1, so it is
 * |P1&P1| + |(P1x&P2y) | (P2x&P1y)| + 2 |P2&P2|: three popcounts, not four. */
SM_FN sm_u32 sm_ccc_rr_word(sm_u64 x1, sm_u64 x2, sm_u64 y1, sm_u64 y2)
{
  return SM_POPC64(x1 & y1) + SM_POPC64((x1 & y2) | (x2 & y1)) + 2 * SM_POPC64(x2 & y2);
}

/** Adds the sparse moments {rr, rm, mr, mm} of a word of planes to mom. */
SM_FN void sm_ccc_moments_word(sm_u64 x1, sm_u64 x2, sm_u64 xm, sm_u64 y1, sm_u64 y2,
                               sm_u64 ym, sm_u32 mom[4])
{
  mom[0] += sm_ccc_rr_word(x1, x2, y1, y2);
  mom[1] += SM_POPC64(x1 & ym) + SM_POPC64(x2 & ym);
  mom[2] += SM_POPC64(xm & y1) + SM_POPC64(xm & y2);
  mom[3] += SM_POPC64(xm & ym);
}

/** The parts of a 3-way plane vector's code word (its fields split by its
 * genotype), in output order: sparse E0, E1, E2 (0, 1, 2 copies, present);
 * dense E1 (one copy or missing), E2 (part[2] = 0). Returns the count. */
SM_FN int sm_ccc3_parts(sm_u64 lo, sm_u64 hi, sm_u64 valid, int sparse, sm_u64 part[3])
{
  if (sparse) {
    part[0] = ~lo & ~hi & valid; /* 00 */
    part[1] = lo & ~hi & valid;  /* 01 */
    part[2] = lo & hi & valid;   /* 11 */
    return 3;
  }
  part[0] = (lo ^ hi) & valid; /* 01 or 10 */
  part[1] = lo & hi & valid;   /* 11 */
  part[2] = 0;
  return 2;
}

/** Adds the CCC 2-way moments of code words a and b (left > 0 fields still
 * exist) to mom: dense mom[0] += sum r_a r_b; sparse mom[0..3] += {rr, rm,
 * mr, mm}. The one-word-at-a-time form the GPU kernels run. */
SM_FN void sm_ccc2_word(sm_u64 a, sm_u64 b, sm_u64 left, int sparse, sm_u32 mom[4])
{
  sm_u64 alo, ahi, av, blo, bhi, bv, a1, a2, am, b1, b2, bm;
  sm_gt_bits(a, left, &alo, &ahi, &av);
  sm_gt_bits(b, left, &blo, &bhi, &bv);
  sm_gt_planes(alo, ahi, av, sparse, &a1, &a2, &am);
  sm_gt_planes(blo, bhi, bv, sparse, &b1, &b2, &bm);
  if (sparse)
    sm_ccc_moments_word(a1, a2, am, b1, b2, bm, mom);
  else
    mom[0] += sm_ccc_rr_word(a1, a2, b1, b2);
}

/** Adds the CCC 3-way plane moments of code words p (the plane vector), x
 * and y to mom (layout of sm_kern.h: sparse 12, [E0 rr rm mr mm][E1][E2];
 * dense 2, [rr over E1, rr over E2]). */
SM_FN void sm_ccc3_word(sm_u64 p, sm_u64 x, sm_u64 y, sm_u64 left, int sparse,
                        sm_u32 mom[12])
{
  sm_u64 plo, phi, pv, xlo, xhi, xv, ylo, yhi, yv, x1, x2, xm, y1, y2, ym, part[3];
  sm_gt_bits(p, left, &plo, &phi, &pv);
  sm_gt_bits(x, left, &xlo, &xhi, &xv);
  sm_gt_bits(y, left, &ylo, &yhi, &yv);
  const int nparts = sm_ccc3_parts(plo, phi, pv, sparse, part);
  sm_gt_planes(xlo, xhi, xv, sparse, &x1, &x2, &xm);
  sm_gt_planes(ylo, yhi, yv, sparse, &y1, &y2, &ym);
  for (int e = 0; e < nparts; e++) {
    const sm_u64 E = part[e];
    if (sparse)
      sm_ccc_moments_word(x1 & E, x2 & E, xm & E, y1, y2, ym, mom + 4 * e);
    else
      mom[e] += sm_ccc_rr_word(x1 & E, x2 & E, y1, y2);
  }
}

/* ---- metric values */
/** Czekanowski 2-way: 2 n2 / (s_i + s_j); 0 when both vectors are zero. */
SM_FN double sm_f_czek2(double n2, double si, double sj)
{
  double lo = si < sj ? si : sj, hi = si < sj ? sj : si;
  double d = lo + hi;
  return d > 0 ? 2.0 * n2 / d : 0.0;
}

/* The forms of a 2-way value of the min-sum family (one numerator
 * n2 = sum_q min(x_iq, x_jq), the sums s_i, s_j; d = s_i + s_j):
 * Czekanowski's proportional similarity 2 n2 / d; the Bray-Curtis
 * dissimilarity (d - 2 n2) / d; the quantitative Jaccard (Ruzicka)
 * dissimilarity (d - 2 n2) / (d - n2) = 1 - sum min / sum max. */
#define SM_FORM_PS 0
#define SM_FORM_BC 1
#define SM_FORM_JACCARD 2
/* CCC's numerators read as PLINK's LD: the squared correlation r^2 of the
 * allele counts (--metric r2) and r itself (--metric r). */
#define SM_FORM_R2 3
#define SM_FORM_R 4

/** A quiet NaN with the sign bit clear (printed "nan", not "-nan"),
 * whatever the hardware's default NaN. */
#if defined(__OPENCL_VERSION__)
#define SM_NAN_D() as_double((sm_u64)0x7ff8000000000000UL)
#elif defined(__CUDA_ARCH__)
#define SM_NAN_D() __longlong_as_double(0x7ff8000000000000LL)
#else
#define SM_NAN_D() __builtin_nan("")
#endif

/** The value of a pair whose two sums are 0 (0/0): NaN with zero_nan,
 * else the value of two vectors with nothing in common (PS 0, a
 * dissimilarity 1). */
SM_FN double sm_f_minsum2_zero(int form, int zero_nan)
{
  return zero_nan ? SM_NAN_D() : form == SM_FORM_PS ? 0.0 : 1.0;
}

/** The 2-way value of form `form` (SM_FORM_*). The dissimilarities are
 * computed as written, not as 1 - PS: for integer counts (exact below
 * 2^53) each is the correctly rounded quotient of two exact integers.
 * PS with !zero_nan is sm_f_czek2 exactly. */
SM_FN double sm_f_minsum2(int form, int zero_nan, double n2, double si, double sj)
{
  const double lo = si < sj ? si : sj, hi = si < sj ? sj : si;
  const double d = lo + hi;
  if (!(d > 0))
    return sm_f_minsum2_zero(form, zero_nan);
  if (form == SM_FORM_PS)
    return 2.0 * n2 / d;
  const double u = d - 2.0 * n2;
  return form == SM_FORM_BC ? u / d : u / (d - n2);
}

/** Czekanowski 3-way: (3/2)(n2ij + n2ik + n2jk - n3) / (s_i + s_j + s_k). */
SM_FN double sm_f_czek3(double n2ij, double n2ik, double n2jk, double n3, double si,
                        double sj, double sk)
{
  /* order the three numerator terms and the three sums */
  double a = n2ij, b = n2ik, c = n2jk, t;
  if (a > b) {
    t = a;
    a = b;
    b = t;
  }
  if (b > c) {
    t = b;
    b = c;
    c = t;
  }
  if (a > b) {
    t = a;
    a = b;
    b = t;
  }
  double x = si, y = sj, z = sk;
  if (x > y) {
    t = x;
    x = y;
    y = t;
  }
  if (y > z) {
    t = y;
    y = z;
    z = t;
  }
  if (x > y) {
    t = x;
    x = y;
    y = t;
  }
  double d = x + y + z;
  return d > 0 ? 1.5 * (a + b + c - n3) / d : 0.0;
}

/** CCC 2-way value from the tally t of entry (a,b), the allele sums s_i(a),
 * s_j(b) of the entry, the reciprocals of the vectors' counted entries
 * (recip_ci = 1/c_i) and of the pair's tally total (recip_sum = 1/c_ij).
 * The counts as doubles (exact: they are integers below 2^53), so that
 * loops over pairs vectorize on CPUs without 64-bit integer conversions. */
SM_FN double sm_f_ccc2_d(double t, double si, double sj, double recip_ci, double recip_cj,
                         double recip_sum, double mult, double param)
{
  const double fi = 0.5 * recip_ci * si;
  const double fj = 0.5 * recip_cj * sj;
  const double fij = recip_sum * t;
  const double fmin = fi < fj ? fi : fj;
  const double fmax = fi < fj ? fj : fi;
  return mult * fij * (1.0 - param * fmin) * (1.0 - param * fmax);
}

SM_FN double sm_f_ccc2(sm_u64 t, sm_u64 si, sm_u64 sj, double recip_ci, double recip_cj,
                       double recip_sum, double mult, double param)
{
  return sm_f_ccc2_d((double)t, (double)si, (double)sj, recip_ci, recip_cj, recip_sum,
                     mult, param);
}

/** CCC 3-way value (fmin, fmid, fmax ordered). */
SM_FN double sm_f_ccc3(sm_u64 t, sm_u64 si, sm_u64 sj, sm_u64 sk, double recip_ci,
                       double recip_cj, double recip_ck, double recip_sum, double mult,
                       double param)
{
  double a = 0.5 * recip_ci * (double)si;
  double b = 0.5 * recip_cj * (double)sj;
  double c = 0.5 * recip_ck * (double)sk;
  double tmp;
  if (a > b) {
    tmp = a;
    a = b;
    b = tmp;
  }
  if (b > c) {
    tmp = b;
    b = c;
    c = tmp;
  }
  if (a > b) {
    tmp = a;
    a = b;
    b = tmp;
  }
  const double fijk = recip_sum * (double)t;
  return mult * fijk * (1.0 - param * a) * (1.0 - param * b) * (1.0 - param * c);
}

/** PLINK 1.9's r (r2 = 0) or r^2 (r2 = 1) of the allele counts x, y of two
 * variants over the samples where both are called, from the sparse
 * moments rr = sum x y, rm = sum x, mr = sum y, mm = n (jointly called) and
 * hx, hy = the jointly called samples homozygous for allele 1 in x, in y
 * (so sum x^2 = rm + 2 hx). As plink_ld.c's ld_block_thread: the integer
 * covariance and variances exactly (below 2^53 for n < 4.7e7: shifting
 * PLINK's centred counts changes no integer), their product rounded once,
 * r^2 = cov^2 / (var_x var_y), r = cov / sqrt(var_x var_y); a variant with
 * no variance over the shared samples gives 0/0, NaN (PLINK prints no line
 * for it). */
SM_FN double sm_f_ld(double rr, double rm, double mr, double mm, double hx, double hy,
                     int r2)
{
  const double cov = mm * rr - rm * mr;
  const double vx = mm * (rm + 2.0 * hx) - rm * rm;
  const double vy = mm * (mr + 2.0 * hy) - mr * mr;
  const double den = vx * vy;
  return r2 ? (cov * cov) / den : cov / SM_SQRT(den);
}

/** The 2x2 CCC tally table of a pair from its moments.
 * rr = sum r_i r_j, rm = sum r_i m_j, mr = sum m_i r_j, mm = sum m_i m_j over
 * the fields (r: copies of allele 1 on present entries, 0 on missing ones;
 * m: 1 when present). Dense data have m = 1 everywhere.
 * t[a*2+b] = sum rho_i(a) rho_j(b), rho(1) = r, rho(0) = 2 - r.
 * In doubles (sm_ccc2_tally_d) every term is an integer below 2^53: exact,
 * the same numbers. */
#define SM_CCC2_TALLY(rr, rm, mr, mm, t)                                                 \
  do {                                                                                   \
    (t)[3] = (rr);                                                                       \
    (t)[2] = 2 * (rm) - (rr);                   /* (1,0): r_i (2 - r_j) */               \
    (t)[1] = 2 * (mr) - (rr);                   /* (0,1): (2 - r_i) r_j */               \
    (t)[0] = 4 * (mm)-2 * (rm)-2 * (mr) + (rr); /* (0,0) */                              \
  } while (0)
SM_FN void sm_ccc2_tally(sm_u64 rr, sm_u64 rm, sm_u64 mr, sm_u64 mm, sm_u64 t[4])
{
  SM_CCC2_TALLY(rr, rm, mr, mm, t);
}
SM_FN void sm_ccc2_tally_d(double rr, double rm, double mr, double mm, double t[4])
{
  SM_CCC2_TALLY(rr, rm, mr, mm, t);
}

/** All four CCC 2-way values of a pair from its tallies (sm_ccc2_tally_d).
 * s1i/s1j: allele-1 sums of the vectors; ci/cj: counted entries (n_f when
 * dense); dense: 1 for the dense method (normalized by n_f), 0 for sparse
 * (normalized by present counts). Counts as exact doubles (sm_f_ccc2_d). */
SM_FN void sm_ccc2_values_d(const double t[4], double s1i, double s1j, double ci,
                            double cj, double nf, int dense, double mult, double param,
                            double out[4])
{
  /* Written without early returns, so that loops over pairs vectorize:
   * both normalizations are computed and the method's is selected; a pair
   * with no counted entry gets 0. */
  const double s0i = 2 * ci - s1i, s0j = 2 * cj - s1j;
  const double cij = t[0] + t[1] + t[2] + t[3];
  /* dense: normalized by n_f */
  const double recip_m = 1.0 / nf;
  /* sparse: one divide for three reciprocals (as CoMet does) */
  const double cmin = ci < cj ? ci : cj;
  const double cmax = ci < cj ? cj : ci;
  const double r = 1.0 / (cmin * cmax * cij);
  const double recip_ci = dense ? recip_m : cj * cij * r;
  const double recip_cj = dense ? recip_m : ci * cij * r;
  const double recip_sum = dense ? 0.25 * recip_m : cmin * cmax * r;
  const int none = ci == 0 || cj == 0 || nf == 0 || (!dense && cij == 0);
  for (int e = 0; e < 4; e++) {
    const int a = e >> 1, b = e & 1;
    const double v = sm_f_ccc2_d(t[e], a ? s1i : s0i, b ? s1j : s0j, recip_ci, recip_cj,
                                 recip_sum, mult, param);
    out[e] = none ? 0.0 : v;
  }
}

/** sm_ccc2_values_d of integer tallies and counts. */
SM_FN void sm_ccc2_values(const sm_u64 t[4], sm_u64 s1i, sm_u64 s1j, sm_u64 ci, sm_u64 cj,
                          sm_u64 nf, int dense, double mult, double param, double out[4])
{
  const double td[4] = {(double)t[0], (double)t[1], (double)t[2], (double)t[3]};
  sm_ccc2_values_d(td, (double)s1i, (double)s1j, (double)ci, (double)cj, (double)nf,
                   dense, mult, param, out);
}

/** The role-order moments t[4 bp + 2 bx + by] (M[bp][bx][by]: index 1 r,
 * the copies of allele 1 on present entries, 0 m, presence) of a sparse
 * triple from its 12 plane moments (parts E0, E1, E2 of the plane vector
 * p, each rr rm mr mm of x and y): M[1][.][.] = E1 + 2 E2, M[0][.][.] =
 * E0 + E1 + E2. */
SM_FN void sm_ccc3_moments_sparse(const sm_u32 m[12], sm_s64 t[8])
{
  for (int bx = 0; bx < 2; bx++)
    for (int by = 0; by < 2; by++) {
      const int k = (bx ? 0 : 2) + (by ? 0 : 1); /* rr, rm, mr, mm */
      t[4 + 2 * bx + by] = (sm_s64)m[4 + k] + 2 * (sm_s64)m[8 + k];
      t[2 * bx + by] = (sm_s64)m[k] + m[4 + k] + m[8 + k];
    }
}

/** Role-order moments -> the 2x2x2 tallies, in place: rho(1) = r and
 * rho(0) = 2m - r, one axis at a time (three butterflies of four pairs). */
SM_FN void sm_ccc3_tallies(sm_s64 t[8])
{
  for (int bit = 4; bit > 0; bit >>= 1)
    for (int u = 0; u < 8; u++)
      if (!(u & bit))
        t[u] = 2 * t[u] - t[u | bit];
}

/** The ascending order of three global indices: ord[k] is the position (0,
 * 1 or 2) of the k-th smallest (a sorting network: ties keep positions). */
SM_FN void sm_order3(sm_u64 g0, sm_u64 g1, sm_u64 g2, int ord[3])
{
  const sm_u64 g[3] = {g0, g1, g2};
  int tmp;
  ord[0] = 0, ord[1] = 1, ord[2] = 2;
  if (g[ord[0]] > g[ord[1]]) {
    tmp = ord[0];
    ord[0] = ord[1];
    ord[1] = tmp;
  }
  if (g[ord[1]] > g[ord[2]]) {
    tmp = ord[1];
    ord[1] = ord[2];
    ord[2] = tmp;
  }
  if (g[ord[0]] > g[ord[1]]) {
    tmp = ord[0];
    ord[0] = ord[1];
    ord[1] = tmp;
  }
}

/** The table entry, in ascending-index order, of role-order cell u (bits
 * p, x, y) when the roles sort as ord (sm_order3). */
SM_FN sm_u32 sm_label3(int u, const int ord[3])
{
  sm_u32 e = 0;
  for (int k = 0; k < 3; k++)
    e |= (sm_u32)((u >> (2 - ord[k])) & 1) << (2 - k);
  return e;
}

/** The first y of a 3-way piece's row (global plane a, global x) that its
 * kind keeps (0, diagonal: a < x < y; 1, face: x < y; 2, volume: all),
 * for the my vectors y from global index y0; my when none. */
SM_FN sm_u64 sm_keep3_first(int kind, sm_u64 a, sm_u64 gx, sm_u64 y0, sm_u64 my)
{
  if (kind == 2)
    return 0;
  if (kind == 0 && !(a < gx))
    return my;
  if (gx + 1 <= y0)
    return 0;
  return gx + 1 - y0 < my ? gx + 1 - y0 : my;
}

/** All eight CCC 3-way values of a triple from its 2x2x2 tallies
 * t[a*4+b*2+c], the vectors' allele-1 sums s1[3] and counted entries c[3]. */
SM_FN void sm_ccc3_values(const sm_u64 t[8], const sm_u64 s1[3], const sm_u64 c[3],
                          sm_u64 nf, int dense, double mult, double param, double out[8])
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
    sm_u64 cijk = 0;
    for (int e = 0; e < 8; e++)
      cijk += t[e];
    if (cijk == 0)
      return;
    for (int x = 0; x < 3; x++)
      recip[x] = 1.0 / (double)c[x];
    recip_sum = 1.0 / (double)cijk;
  }
  for (int e = 0; e < 8; e++) {
    sm_u64 s[3];
    for (int x = 0; x < 3; x++) {
      int bit = (e >> (2 - x)) & 1;
      s[x] = bit ? s1[x] : 2 * c[x] - s1[x];
    }
    out[e] = sm_f_ccc3(t[e], s[0], s[1], s[2], recip[0], recip[1], recip[2], recip_sum,
                       mult, param);
  }
}

#endif
