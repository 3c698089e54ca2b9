/* kern_finalize_avx512.c: the finalize kernels' inner loops with AVX-512
 * (F, DQ, VL, BW): 8 pairs or triples a vector, 64-bit multiplies and
 * double -> int64 conversions in hardware (kern_finalize_simd_impl.h). */
#include "kern_finalize_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#define SM_ID(x) x##_avx512
#define SM_ISA_NAME "avx512"

typedef __m512d vd;
typedef __m512i vi;
typedef __mmask8 vm;
enum { VL = 8 };
#define SM_FIN_CK_LIMIT ((int64_t)1 << 55) /* |q| at most */

/* ---- doubles */
SM_TARGET static inline vd vd_set(double x)
{
  return _mm512_set1_pd(x);
}
SM_TARGET static inline vd vd_ld(const double *p)
{
  return _mm512_loadu_pd(p);
}
SM_TARGET static inline void vd_st(double *p, vd a)
{
  _mm512_storeu_pd(p, a);
}
SM_TARGET static inline vd vd_add(vd a, vd b)
{
  return _mm512_add_pd(a, b);
}
SM_TARGET static inline vd vd_sub(vd a, vd b)
{
  return _mm512_sub_pd(a, b);
}
SM_TARGET static inline vd vd_mul(vd a, vd b)
{
  return _mm512_mul_pd(a, b);
}
SM_TARGET static inline vd vd_min(vd a, vd b)
{
  return _mm512_min_pd(a, b);
}
SM_TARGET static inline vd vd_max(vd a, vd b)
{
  return _mm512_max_pd(a, b);
}
/* a / b where m, 0 elsewhere */
SM_TARGET static inline vd vd_div_mz(vm m, vd a, vd b)
{
  return _mm512_maskz_div_pd(m, a, b);
}
SM_TARGET static inline vd vd_div(vd a, vd b)
{
  return _mm512_div_pd(a, b);
}
SM_TARGET static inline vd vd_sqrt(vd a)
{
  return _mm512_sqrt_pd(a);
}
/* a where m, 0 elsewhere */
SM_TARGET static inline vd vd_mz(vm m, vd a)
{
  return _mm512_maskz_mov_pd(m, a);
}
/* a * b where m, 0 elsewhere */
SM_TARGET static inline vd vd_mul_mz(vm m, vd a, vd b)
{
  return _mm512_maskz_mul_pd(m, a, b);
}
/* VL uint32 -> double (exact) */
SM_TARGET static inline vd vd_u32(const uint32_t *p)
{
  return _mm512_cvtepu32_pd(_mm256_loadu_si256((const __m256i *)p));
}
/* VL floats -> double (exact) */
SM_TARGET static inline vd vd_f32(const float *p)
{
  return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}
/* VL records of 4 uint32 -> their 4 fields as doubles */
SM_TARGET static inline void vd_u32x4(const uint32_t *p, vd f[4])
{
  const __m512i a = _mm512_loadu_si512(p), b = _mm512_loadu_si512(p + 16);
  const __m512i i01 =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i i23 =
      _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
  const __m512i x = _mm512_permutex2var_epi32(a, i01, b);
  const __m512i y = _mm512_permutex2var_epi32(a, i23, b);
  f[0] = _mm512_cvtepu32_pd(_mm512_castsi512_si256(x));
  f[1] = _mm512_cvtepu32_pd(_mm512_extracti64x4_epi64(x, 1));
  f[2] = _mm512_cvtepu32_pd(_mm512_castsi512_si256(y));
  f[3] = _mm512_cvtepu32_pd(_mm512_extracti64x4_epi64(y, 1));
}

/* VL records of 12 uint32 (3-way sparse moments) -> their 12 fields as
 * doubles: the records' 128-bit quarters gathered by kind (two permutes
 * each), then each kind's 4 x 8 transposed (one permute per two fields) */
SM_TARGET static inline void vd_u32x12(const uint32_t *p, vd f[12])
{
  __m512i z[6], q[6];
  for (int i = 0; i < 6; i++)
    z[i] = _mm512_loadu_si512(p + 16 * i);
  const __m512i ia = _mm512_setr_epi64(0, 1, 6, 7, 12, 13, 0, 0),
                ib = _mm512_setr_epi64(2, 3, 8, 9, 14, 15, 0, 0),
                ic = _mm512_setr_epi64(4, 5, 10, 11, 0, 0, 0, 0),
                ja = _mm512_setr_epi64(0, 0, 0, 0, 0, 0, 2, 3),
                jb = _mm512_setr_epi64(0, 0, 0, 0, 0, 0, 4, 5),
                jc = _mm512_setr_epi64(0, 0, 0, 0, 0, 1, 6, 7);
  for (int h = 0; h < 2; h++) { /* records 0-3, then 4-7 */
    const __m512i a = z[3 * h], b = z[3 * h + 1], c = z[3 * h + 2];
    q[h] =
        _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(a, ia, b), 0xC0, ja, c);
    q[2 + h] =
        _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(a, ib, b), 0xC0, jb, c);
    q[4 + h] =
        _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(a, ic, b), 0xF0, jc, c);
  }
  const __m512i i01 =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i i23 =
      _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
  for (int k = 0; k < 3; k++) {
    const __m512i x = _mm512_permutex2var_epi32(q[2 * k], i01, q[2 * k + 1]);
    const __m512i y = _mm512_permutex2var_epi32(q[2 * k], i23, q[2 * k + 1]);
    f[4 * k] = _mm512_cvtepu32_pd(_mm512_castsi512_si256(x));
    f[4 * k + 1] = _mm512_cvtepu32_pd(_mm512_extracti64x4_epi64(x, 1));
    f[4 * k + 2] = _mm512_cvtepu32_pd(_mm512_castsi512_si256(y));
    f[4 * k + 3] = _mm512_cvtepu32_pd(_mm512_extracti64x4_epi64(y, 1));
  }
}
/* VL records of 2 uint32 -> their 2 fields as doubles */
SM_TARGET static inline void vd_u32x2(const uint32_t *p, vd f[2])
{
  const __m512i x = _mm512_permutexvar_epi32(
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15),
      _mm512_loadu_si512(p));
  f[0] = _mm512_cvtepu32_pd(_mm512_castsi512_si256(x));
  f[1] = _mm512_cvtepu32_pd(_mm512_extracti64x4_epi64(x, 1));
}

/* ---- masks */
SM_TARGET static inline vm vm_eq(vd a, vd b)
{
  return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ);
}
SM_TARGET static inline vm vm_gt(vd a, vd b)
{
  return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ);
}
SM_TARGET static inline vm vm_or(vm a, vm b)
{
  return (vm)(a | b);
}
SM_TARGET static inline vm vm_not(vm a)
{
  return (vm)~a;
}

SM_TARGET static inline vm vm_ge(vd a, vd b)
{
  return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ);
}
SM_TARGET static inline vm vm_lt(vd a, vd b)
{
  return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ);
}
SM_TARGET static inline vm vm_le(vd a, vd b)
{
  return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ);
}
SM_TARGET static inline vm vm_nan(vd a)
{
  return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q);
}
SM_TARGET static inline vm vm_and(vm a, vm b)
{
  return (vm)(a & b);
}
SM_TARGET static inline vm vm_none(void)
{
  return 0;
}
SM_TARGET static inline vm vm_all(void)
{
  return 0xff;
}
/* lane l's truth in bit l */
SM_TARGET static inline unsigned vm_bits(vm a)
{
  return a;
}
/* m ? b : a */
SM_TARGET static inline vd vd_blend(vm m, vd a, vd b)
{
  return _mm512_mask_blend_pd(m, a, b);
}
/* (double)(float)a */
SM_TARGET static inline vd vd_f32r(vd a)
{
  return _mm512_cvtps_pd(_mm512_cvtpd_ps(a));
}
SM_TARGET static inline vd vd_floor(vd a)
{
  return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
/* integer-valued doubles (int32 range) to int32 */
SM_TARGET static inline void vd_sti32(int32_t *p, vd a)
{
  _mm256_storeu_si256((__m256i *)p, _mm512_cvttpd_epi32(a));
}

/* lane l: l */
SM_TARGET static inline vd vd_iota(void)
{
  return _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7);
}
/* the largest lane (no NaN lanes) */
SM_TARGET static inline double vd_hmax(vd a)
{
  return _mm512_reduce_max_pd(a);
}

/* ---- 64-bit integers */
SM_TARGET static inline vi vi_set(uint64_t x)
{
  return _mm512_set1_epi64((long long)x);
}
SM_TARGET static inline vi vi_add(vi a, vi b)
{
  return _mm512_add_epi64(a, b);
}
SM_TARGET static inline vi vi_xor(vi a, vi b)
{
  return _mm512_xor_si512(a, b);
}
/* lane l: x + l d */
SM_TARGET static inline vi vi_iota(uint64_t x, uint64_t d)
{
  const vi l = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  return vi_add(vi_set(x), _mm512_mullo_epi64(l, vi_set(d)));
}
SM_TARGET static inline vi vi_ld(const uint64_t *p)
{
  return _mm512_loadu_si512(p);
}
SM_TARGET static inline void vi_st(uint64_t *p, vi a)
{
  _mm512_storeu_si512(p, a);
}
/* sm_mix64 */
SM_TARGET static inline vi vi_mix(vi x)
{
  x = vi_add(x, vi_set(0x9e3779b97f4a7c15ull));
  x = _mm512_mullo_epi64(vi_xor(x, _mm512_srli_epi64(x, 30)),
                         vi_set(0xbf58476d1ce4e5b9ull));
  x = _mm512_mullo_epi64(vi_xor(x, _mm512_srli_epi64(x, 27)),
                         vi_set(0x94d049bb133111ebull));
  return vi_xor(x, _mm512_srli_epi64(x, 31));
}
SM_TARGET static inline uint64_t vi_sum(vi a)
{
  /* modular: the mix terms wrap, and _mm512_reduce_add_epi64 adds
   * signed scalars (undefined on overflow) */
  uint64_t l[8];
  _mm512_storeu_si512(l, a);
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* ---- checksum terms: sm_cksum_q's llround(v 2^40) (half away from zero)
 * is trunc(x + copysign(0.5 - 2^-54, x)): below 2^52 the addition rounds
 * up exactly the values whose fraction is at least one half, above it x
 * is an integer and the addition gives x. vcvttpd2qq truncates, and gives
 * INT64_MIN for NaN and out-of-range values (a `big` chunk: sm_cksum_q's
 * own terms, INT64_MIN + 1 for NaN). The sums are
 * int64 lanes: |q| <= 2^55 (checked on the smallest and largest q: NaN
 * and infinities are INT64_MIN), at most 4 values a result and 32 results
 * a lane (SM_FIN_CHUNK / VL) or 8 and 16 (SM_FIN_RUN3 / VL): below 2^63.
 * Larger values make the chunk `big`. */
typedef vi ckv; /* a value's fixed-point q */

typedef struct ck {
  vi q, s0, s1, s2, h; /* sums of q, of the results' A0, A1, A2 (ck_result); hash */
  vi qmin, qmax;       /* the smallest and largest q */
} ck_t;

SM_TARGET static inline void ck_init(ck_t *c)
{
  c->q = c->s0 = c->s1 = c->s2 = c->h = c->qmin = c->qmax = _mm512_setzero_si512();
}
SM_TARGET static inline ckv ck_val(ck_t *c, vd v)
{
  const vd x = _mm512_mul_pd(v, _mm512_set1_pd(SM_CKSUM_SCALE));
  /* (x & sign) | (0.5 - 2^-54) */
  const vd h = _mm512_castsi512_pd(
      _mm512_ternarylogic_epi64(_mm512_castpd_si512(x), vi_set(0x8000000000000000ull),
                                vi_set(0x3fdfffffffffffffull), 0xEA));
  const vi q = _mm512_cvttpd_epi64(_mm512_add_pd(x, h));
  c->qmin = _mm512_min_epi64(c->qmin, q);
  c->qmax = _mm512_max_epi64(c->qmax, q);
  return q;
}
SM_TARGET static inline ckv ckv_add(ckv a, ckv b)
{
  return _mm512_add_epi64(a, b);
}
SM_TARGET static inline ckv ckv_zero(void)
{
  return _mm512_setzero_si512();
}
/* One result of key `key`: Q its sum of q, P the sum over its entries with
 * an odd label, A0..A2 sums whose weighted total (ck_done's w) is
 * sum_e label(e) q_e. Its terms q ((key + e STEP) | 1) sum to key Q +
 * STEP sum_e e q + (key odd ? P : Q - P): the STEP term is added once a
 * chunk (ck_done). */
__attribute__((always_inline)) SM_TARGET static inline void
ck_result(ck_t *c, vi key, ckv Q, ckv P, ckv A0, ckv A1, ckv A2, const int has_a2)
{
  const vm odd = _mm512_test_epi64_mask(key, vi_set(1));
  const vi par = _mm512_mask_blend_epi64(odd, _mm512_sub_epi64(Q, P), P);
  c->h = vi_add(c->h, vi_add(_mm512_mullo_epi64(key, Q), par));
  c->q = vi_add(c->q, Q);
  c->s0 = vi_add(c->s0, A0);
  c->s1 = vi_add(c->s1, A1);
  if (has_a2)
    c->s2 = vi_add(c->s2, A2);
}
/* A result of one value, entry 0. */
SM_TARGET static inline void ck_result1(ck_t *c, vi key, ckv q)
{
  const vm odd = _mm512_test_epi64_mask(key, vi_set(1));
  c->h =
      vi_add(c->h, vi_add(_mm512_mullo_epi64(key, q), _mm512_maskz_mov_epi64(~odd, q)));
  c->q = vi_add(c->q, q);
}
/* The chunk's sums into out (label sums w0 A0 + w1 A1 + w2 A2); 1 (nothing
 * added) when a value was too large. */
SM_TARGET static inline int ck_done(const ck_t *c, sm_fin_ck_t *out, uint64_t nvalues,
                                    const uint64_t w[3])
{
  if (_mm512_cmplt_epi64_mask(c->qmin, vi_set((uint64_t)-SM_FIN_CK_LIMIT)) |
      _mm512_cmpgt_epi64_mask(c->qmax, vi_set((uint64_t)SM_FIN_CK_LIMIT)))
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
