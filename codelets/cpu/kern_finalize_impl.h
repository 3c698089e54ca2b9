/* kern_finalize_impl.h: what the 2-way and 3-way finalize kernels
 * (kern_finalize2.c, kern_finalize3.c) share: starting a block's record
 * buffer and the checksum terms of its values as the portable loops sum
 * them. Private to them (and their tests). */
#ifndef KERN_FINALIZE_IMPL_H
#define KERN_FINALIZE_IMPL_H

#include <string.h>

#include "sm_types.h"

/* An empty record buffer: no records, no values, a zero checksum and,
 * with a histogram, zero counts after room for max_rec records. */
static inline void sm_fin_begin(sm_recbuf_t *out, const sm_hist_spec_t *h,
                                uint64_t max_rec)
{
  out->count = 0;
  out->nvalues = 0;
  out->cksum = (sm_cksum_t){0, 0, 0, 0};
  out->hist_off = h->bins ? sm_recbuf_hist_offset(max_rec) : 0;
  if (h->bins)
    memset(sm_recbuf_hist(out), 0, sm_hist_words(h) * sizeof(uint64_t));
}

/* A block's checksum terms summed locally and added to its checksum once
 * (sm_cksum_add_key's arithmetic: the fixed-point value sm_cksum_q, the
 * entry's key, the hash): the 128-bit sum is kept as sums of the values'
 * 32-bit halves, which cannot overflow below 2^32 values. */
typedef struct sm_fin_ck {
  uint64_t lo, hash, n;
  int64_t hi;
} sm_fin_ck_t;

static inline void sm_fin_ck_add(sm_fin_ck_t *c, uint64_t key, uint32_t e, double v)
{
  const int64_t q = sm_cksum_q(v);
  c->lo += (uint64_t)q & 0xffffffffu;
  c->hi += q >> 32;
  c->hash += (uint64_t)q * ((key + (uint64_t)e * SM_CKSUM_ENTRY_STEP) | 1);
  c->n++;
}

/* uint32 -> double through the signed conversion every SIMD ISA has (the
 * finalize loops count in exact doubles: AVX2 has no 64-bit integer
 * conversion). */
static inline double sm_u32d(uint32_t x)
{
  return (double)(int32_t)(x ^ 0x80000000u) + 2147483648.0;
}

/* c += the checksum terms of n values v[] of one entry (key step `step`,
 * SM_CKSUM_ENTRY_STEP x the entry) with keys key[]: sm_fin_ck_add's
 * arithmetic in loops that vectorize on every SIMD ISA (inlined into the
 * callers' ISA clones). AVX2 has no double -> int64 conversion and no
 * 64-bit arithmetic shift: a rounded value r below 2^51 in magnitude is
 * read from the low bits of r + 1.5 2^52 (exact), and the high halves are
 * summed unsigned, less 2^32 per negative value. Blocks holding a larger
 * fixed-point value (or a NaN) take sm_cksum_q itself. */
static inline __attribute__((always_inline)) void
sm_fin_ck_terms(sm_fin_ck_t *c, const double *v, const uint64_t *key, uint32_t n,
                uint64_t step)
{
  uint64_t lo = 0, uhi = 0, neg = 0, hash = 0;
  int big = 0;
  for (uint32_t i = 0; i < n; i++)
    big |= !(__builtin_fabs(v[i] * SM_CKSUM_SCALE) < 0x1p51);
  if (big)
    for (uint32_t i = 0; i < n; i++) {
      const int64_t q = sm_cksum_q(v[i]);
      lo += (uint64_t)q & 0xffffffffu;
      uhi += (uint64_t)q >> 32;
      neg += q < 0;
      hash += (uint64_t)q * ((key[i] + step) | 1);
    }
  else
    for (uint32_t i = 0; i < n; i++) {
      const double x = v[i] * SM_CKSUM_SCALE;
      const double t = __builtin_trunc(x), d = x - t; /* as sm_cksum_q */
      const double r = t + (d >= 0.5 ? 1.0 : d <= -0.5 ? -1.0 : 0.0);
      const double m = r + 0x1.8p52;
      uint64_t b;
      memcpy(&b, &m, sizeof b);
      const uint64_t q = b - 0x4338000000000000ull; /* bits of 1.5 2^52 */
      lo += q & 0xffffffffu;
      uhi += q >> 32;
      neg += q >> 63;
      hash += q * ((key[i] + step) | 1);
    }
  c->lo += lo;
  c->hi += (int64_t)(uhi - (neg << 32));
  c->hash += hash;
  c->n += n;
}

/* ck += the terms of c (sum: hi 2^32 + lo, sign-extended to 128 bits). */
static inline void sm_fin_ck_flush(sm_cksum_t *ck, const sm_fin_ck_t *c)
{
  const unsigned __int128 add =
      (unsigned __int128)((__int128)c->hi * 4294967296 + (__int128)c->lo);
  const unsigned __int128 sum =
      (((unsigned __int128)ck->sum_hi << 64) | ck->sum_lo) + add;
  ck->sum_lo = (uint64_t)sum;
  ck->sum_hi = (uint64_t)(sum >> 64);
  ck->hash += c->hash;
  ck->count += c->n;
}

/* A device finalize's record buffer header: count records, nvalues
 * values, checksum from the sums of their terms as sm_fin_ck_terms keeps
 * them ({lo, unsigned high halves, negative values, hash}), no histogram. */
static inline void sm_fin_header(sm_recbuf_t *h, uint64_t count, uint64_t nvalues,
                                 const uint64_t sums[4])
{
  h->count = count;
  h->nvalues = nvalues;
  h->cksum = (sm_cksum_t){0, 0, 0, 0};
  h->hist_off = 0;
  const sm_fin_ck_t ck = {.lo = sums[0],
                          .hash = sums[3],
                          .n = nvalues,
                          .hi = (int64_t)(sums[1] - (sums[2] << 32))};
  sm_fin_ck_flush(&h->cksum, &ck);
}

#endif
