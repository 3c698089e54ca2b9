/* kern_finalize_avx2.c: the finalize kernels' inner loops with AVX2: 4
 * pairs or triples a vector; 64-bit multiplies from 32-bit ones, the
 * checksum's fixed-point values summed as exact doubles
 * (kern_finalize_simd_impl.h). */
#include "kern_finalize_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx2")))
#define SM_ID(x) x##_avx2
#define SM_ISA_NAME "avx2"

typedef __m256d vd;
typedef __m256i vi;
typedef __m256d vm; /* all ones where true */
enum { VL = 4 };

/* ---- doubles */
SM_TARGET static inline vd vd_set(double x)
{
  return _mm256_set1_pd(x);
}
SM_TARGET static inline vd vd_ld(const double *p)
{
  return _mm256_loadu_pd(p);
}
SM_TARGET static inline void vd_st(double *p, vd a)
{
  _mm256_storeu_pd(p, a);
}
SM_TARGET static inline vd vd_add(vd a, vd b)
{
  return _mm256_add_pd(a, b);
}
SM_TARGET static inline vd vd_sub(vd a, vd b)
{
  return _mm256_sub_pd(a, b);
}
SM_TARGET static inline vd vd_mul(vd a, vd b)
{
  return _mm256_mul_pd(a, b);
}
SM_TARGET static inline vd vd_min(vd a, vd b)
{
  return _mm256_min_pd(a, b);
}
SM_TARGET static inline vd vd_max(vd a, vd b)
{
  return _mm256_max_pd(a, b);
}
SM_TARGET static inline vd vd_div(vd a, vd b)
{
  return _mm256_div_pd(a, b);
}
SM_TARGET static inline vd vd_sqrt(vd a)
{
  return _mm256_sqrt_pd(a);
}
/* a where m, +0 elsewhere */
SM_TARGET static inline vd vd_mz(vm m, vd a)
{
  return _mm256_and_pd(m, a);
}
SM_TARGET static inline vd vd_mul_mz(vm m, vd a, vd b)
{
  return vd_mz(m, vd_mul(a, b));
}
SM_TARGET static inline vd vd_div_mz(vm m, vd a, vd b)
{
  return vd_mz(m, vd_div(a, b));
}
/* uint32 lanes -> double, exactly (AVX2 converts signed ones only) */
SM_TARGET static inline vd vd_cvtu(__m128i u)
{
  const __m128i s = _mm_xor_si128(u, _mm_set1_epi32((int)0x80000000u));
  return _mm256_add_pd(_mm256_cvtepi32_pd(s), _mm256_set1_pd(2147483648.0));
}
SM_TARGET static inline vd vd_u32(const uint32_t *p)
{
  return vd_cvtu(_mm_loadu_si128((const __m128i *)p));
}
SM_TARGET static inline vd vd_f32(const float *p)
{
  return _mm256_cvtps_pd(_mm_loadu_ps(p));
}
/* VL records of 4 uint32 -> their 4 fields as doubles (a 4 x 4 transpose) */
SM_TARGET static inline void vd_u32x4(const uint32_t *p, vd f[4])
{
  const __m128i r0 = _mm_loadu_si128((const __m128i *)p),
                r1 = _mm_loadu_si128((const __m128i *)(p + 4)),
                r2 = _mm_loadu_si128((const __m128i *)(p + 8)),
                r3 = _mm_loadu_si128((const __m128i *)(p + 12));
  const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3),
                t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
  f[0] = vd_cvtu(_mm_unpacklo_epi64(t0, t1));
  f[1] = vd_cvtu(_mm_unpackhi_epi64(t0, t1));
  f[2] = vd_cvtu(_mm_unpacklo_epi64(t2, t3));
  f[3] = vd_cvtu(_mm_unpackhi_epi64(t2, t3));
}

/* VL records of 12 uint32 (3-way sparse moments) -> their 12 fields */
SM_TARGET static inline void vd_u32x12(const uint32_t *p, vd f[12])
{
  for (int k = 0; k < 3; k++) { /* fields 4 k .. 4 k + 3 of the 4 records */
    const __m128i r0 = _mm_loadu_si128((const __m128i *)(p + 4 * k)),
                  r1 = _mm_loadu_si128((const __m128i *)(p + 12 + 4 * k)),
                  r2 = _mm_loadu_si128((const __m128i *)(p + 24 + 4 * k)),
                  r3 = _mm_loadu_si128((const __m128i *)(p + 36 + 4 * k));
    const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3),
                  t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
    f[4 * k] = vd_cvtu(_mm_unpacklo_epi64(t0, t1));
    f[4 * k + 1] = vd_cvtu(_mm_unpackhi_epi64(t0, t1));
    f[4 * k + 2] = vd_cvtu(_mm_unpacklo_epi64(t2, t3));
    f[4 * k + 3] = vd_cvtu(_mm_unpackhi_epi64(t2, t3));
  }
}
SM_TARGET static inline void vd_u32x2(const uint32_t *p, vd f[2])
{
  const __m256i x = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256((const __m256i *)p), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  f[0] = vd_cvtu(_mm256_castsi256_si128(x));
  f[1] = vd_cvtu(_mm256_extracti128_si256(x, 1));
}

/* ---- masks */
SM_TARGET static inline vm vm_eq(vd a, vd b)
{
  return _mm256_cmp_pd(a, b, _CMP_EQ_OQ);
}
SM_TARGET static inline vm vm_gt(vd a, vd b)
{
  return _mm256_cmp_pd(a, b, _CMP_GT_OQ);
}
SM_TARGET static inline vm vm_or(vm a, vm b)
{
  return _mm256_or_pd(a, b);
}
SM_TARGET static inline vm vm_not(vm a)
{
  return _mm256_xor_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
}

SM_TARGET static inline vm vm_ge(vd a, vd b)
{
  return _mm256_cmp_pd(a, b, _CMP_GE_OQ);
}
SM_TARGET static inline vm vm_lt(vd a, vd b)
{
  return _mm256_cmp_pd(a, b, _CMP_LT_OQ);
}
SM_TARGET static inline vm vm_le(vd a, vd b)
{
  return _mm256_cmp_pd(a, b, _CMP_LE_OQ);
}
SM_TARGET static inline vm vm_nan(vd a)
{
  return _mm256_cmp_pd(a, a, _CMP_UNORD_Q);
}
SM_TARGET static inline vm vm_and(vm a, vm b)
{
  return _mm256_and_pd(a, b);
}
SM_TARGET static inline vm vm_none(void)
{
  return _mm256_setzero_pd();
}
SM_TARGET static inline vm vm_all(void)
{
  return _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
}
SM_TARGET static inline unsigned vm_bits(vm a)
{
  return (unsigned)_mm256_movemask_pd(a);
}
SM_TARGET static inline vd vd_blend(vm m, vd a, vd b)
{
  return _mm256_blendv_pd(a, b, m);
}
SM_TARGET static inline vd vd_f32r(vd a)
{
  return _mm256_cvtps_pd(_mm256_cvtpd_ps(a));
}
SM_TARGET static inline vd vd_floor(vd a)
{
  return _mm256_round_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
SM_TARGET static inline void vd_sti32(int32_t *p, vd a)
{
  _mm_storeu_si128((__m128i *)p, _mm256_cvttpd_epi32(a));
}

/* lane l: l */
SM_TARGET static inline vd vd_iota(void)
{
  return _mm256_setr_pd(0, 1, 2, 3);
}
/* the largest lane (no NaN lanes) */
SM_TARGET static inline double vd_hmax(vd a)
{
  const __m128d m = _mm_max_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
  return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
}

/* ---- 64-bit integers */
SM_TARGET static inline vi vi_set(uint64_t x)
{
  return _mm256_set1_epi64x((long long)x);
}
SM_TARGET static inline vi vi_add(vi a, vi b)
{
  return _mm256_add_epi64(a, b);
}
SM_TARGET static inline vi vi_xor(vi a, vi b)
{
  return _mm256_xor_si256(a, b);
}
SM_TARGET static inline vi vi_iota(uint64_t x, uint64_t d)
{
  return _mm256_setr_epi64x((long long)x, (long long)(x + d), (long long)(x + 2 * d),
                            (long long)(x + 3 * d));
}
/* a b mod 2^64 from three 32 x 32 -> 64 products */
SM_TARGET static inline vi vi_mul(vi a, vi b)
{
  const vi lo = _mm256_mul_epu32(a, b);
  const vi m1 = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b);
  const vi m2 = _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(_mm256_add_epi64(m1, m2), 32));
}
/* a c for a constant c */
SM_TARGET static inline vi vi_mulc(vi a, uint64_t c)
{
  const vi clo = vi_set(c & 0xffffffffu), chi = vi_set(c >> 32);
  const vi lo = _mm256_mul_epu32(a, clo);
  const vi m1 = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), clo);
  const vi m2 = _mm256_mul_epu32(a, chi);
  return _mm256_add_epi64(lo, _mm256_slli_epi64(_mm256_add_epi64(m1, m2), 32));
}
SM_TARGET static inline vi vi_ld(const uint64_t *p)
{
  return _mm256_loadu_si256((const __m256i *)p);
}
SM_TARGET static inline void vi_st(uint64_t *p, vi a)
{
  _mm256_storeu_si256((__m256i *)p, a);
}
/* sm_mix64 */
SM_TARGET static inline vi vi_mix(vi x)
{
  x = vi_add(x, vi_set(0x9e3779b97f4a7c15ull));
  x = vi_mulc(vi_xor(x, _mm256_srli_epi64(x, 30)), 0xbf58476d1ce4e5b9ull);
  x = vi_mulc(vi_xor(x, _mm256_srli_epi64(x, 27)), 0x94d049bb133111ebull);
  return vi_xor(x, _mm256_srli_epi64(x, 31));
}
SM_TARGET static inline uint64_t vi_sum(vi a)
{
  const __m128i s =
      _mm_add_epi64(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

/* ---- checksum terms: sm_cksum_q's llround(x = v 2^40) (half away from
 * zero) is trunc(x + copysign(0.5 - 2^-54, x)) (below 2^52 the addition
 * rounds up exactly the values whose fraction is at least one half),
 * kept as a double. With |x| < 2^48 (checked, NaN and infinities through
 * the sum `fin`), a result's 8 values sum exactly to below 2^51 in
 * magnitude, read as int64 from the low bits of sum + 1.5 2^52; a lane
 * sums at most 64 results (SM_FIN_CHUNK / VL): below 2^58. */
#define SM_FIN_CK_LIMIT 0x1p48 /* |x| below */
typedef vd ckv;                /* a value's fixed-point q, as an exact double */

typedef struct ck {
  vi q, s0, s1, s2, h; /* sums of q, of q over labels with bit 0, 1, 2 set; hash */
  vd amax, fin;        /* largest |x|; sum of the results' sums (NaN, inf kept) */
} ck_t;

SM_TARGET static inline void ck_init(ck_t *c)
{
  c->q = c->s0 = c->s1 = c->s2 = c->h = _mm256_setzero_si256();
  c->amax = c->fin = _mm256_setzero_pd();
}
SM_TARGET static inline ckv ck_val(ck_t *c, vd v)
{
  const vd x = _mm256_mul_pd(v, _mm256_set1_pd(SM_CKSUM_SCALE));
  const vd s = _mm256_and_pd(x, _mm256_castsi256_pd(vi_set(0x8000000000000000ull)));
  c->amax = _mm256_max_pd(c->amax, _mm256_xor_pd(x, s));
  const vd h = _mm256_or_pd(s, _mm256_castsi256_pd(vi_set(0x3fdfffffffffffffull)));
  return _mm256_round_pd(_mm256_add_pd(x, h), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
SM_TARGET static inline ckv ckv_add(ckv a, ckv b)
{
  return _mm256_add_pd(a, b);
}
SM_TARGET static inline ckv ckv_zero(void)
{
  return _mm256_setzero_pd();
}
/* an exact integer double below 2^51 in magnitude as int64 */
SM_TARGET static inline vi ck_int(vd d)
{
  const vd m = _mm256_add_pd(d, _mm256_set1_pd(0x1.8p52));
  return _mm256_sub_epi64(_mm256_castpd_si256(m), vi_set(0x4338000000000000ull));
}
/* One result: as kern_finalize_avx512.c's ck_result. */
__attribute__((always_inline)) SM_TARGET static inline void
ck_result(ck_t *c, vi key, ckv Qd, ckv Pd, ckv A0, ckv A1, ckv A2, const int has_a2)
{
  c->fin = _mm256_add_pd(c->fin, Qd);
  const vi Q = ck_int(Qd), P = ck_int(Pd);
  const vi odd = _mm256_cmpeq_epi64(_mm256_and_si256(key, vi_set(1)), vi_set(1));
  const vi par = _mm256_blendv_epi8(_mm256_sub_epi64(Q, P), P, odd);
  c->h = vi_add(c->h, vi_add(vi_mul(key, Q), par));
  c->q = vi_add(c->q, Q);
  c->s0 = vi_add(c->s0, ck_int(A0));
  c->s1 = vi_add(c->s1, ck_int(A1));
  if (has_a2)
    c->s2 = vi_add(c->s2, ck_int(A2));
}
SM_TARGET static inline void ck_result1(ck_t *c, vi key, ckv qd)
{
  c->fin = _mm256_add_pd(c->fin, qd);
  const vi q = ck_int(qd);
  const vi odd = _mm256_cmpeq_epi64(_mm256_and_si256(key, vi_set(1)), vi_set(1));
  c->h = vi_add(c->h, vi_add(vi_mul(key, q), _mm256_andnot_si256(odd, q)));
  c->q = vi_add(c->q, q);
}
SM_TARGET static inline int ck_done(const ck_t *c, sm_fin_ck_t *out, uint64_t nvalues,
                                    const uint64_t w[3])
{
  const vd lim = _mm256_set1_pd(SM_FIN_CK_LIMIT);
  const vd absfin =
      _mm256_andnot_pd(_mm256_castsi256_pd(vi_set(0x8000000000000000ull)), c->fin);
  if (_mm256_movemask_pd(_mm256_cmp_pd(c->amax, lim, _CMP_NLT_UQ)) |
      _mm256_movemask_pd(_mm256_cmp_pd(absfin, _mm256_set1_pd(0x1p62), _CMP_NLT_UQ)))
    return 1;
  const int64_t sum = (int64_t)vi_sum(c->q);
  out->lo += (uint64_t)sum & 0xffffffffu;
  out->hi += sum >> 32;
  out->hash += vi_sum(c->h) +
               SM_CKSUM_ENTRY_STEP *
                   (w[0] * vi_sum(c->s0) + w[1] * vi_sum(c->s1) + w[2] * vi_sum(c->s2));
  out->n += nvalues;
  return 0;
}

#include "kern_finalize_simd_impl.h"

#endif
