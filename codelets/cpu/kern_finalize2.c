/* kern_finalize2.c: metric values of a 2-way block from its numerators and
 * vector sums, thresholding, and the order-independent checksum. */
#include <math.h>

#include "sm_formulas.h"
#include "sm_kern.h"

/* splitmix64 finalizer: a well-mixed 64-bit hash of the result's indices. */
static inline uint64_t mix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t sm_cksum_key(const uint32_t idx[3], int way)
{
  uint64_t key = mix64(((uint64_t)idx[0] << 32) | idx[1]);
  return mix64(key ^ (way == 3 ? idx[2] : 0xffffffffu));
}

void sm_cksum_add_key(sm_cksum_t *c, uint64_t key, uint32_t entry, double value)
{
  /* fixed-point rendering; metric values are bounded (|v| < 2^20) */
  int64_t q = (int64_t)llround(value * SM_CKSUM_SCALE);
  /* entries of one result differ in their key by an odd multiple of a
   * large odd constant, so moving a value to another entry changes it */
  uint64_t k = key + (uint64_t)entry * 0x9e3779b97f4a7c15ull;
  uint64_t lo = c->sum_lo + (uint64_t)q;
  c->sum_hi += (lo < c->sum_lo) + (q < 0 ? UINT64_MAX : 0);
  c->sum_lo = lo;
  c->hash += (uint64_t)q * (k | 1);
  c->count++;
}

void sm_cksum_add(sm_cksum_t *c, const uint32_t idx[3], int way, uint32_t entry,
                  double value)
{
  sm_cksum_add_key(c, sm_cksum_key(idx, way), entry, value);
}

void sm_cksum_merge(sm_cksum_t *into, const sm_cksum_t *from)
{
  uint64_t lo = into->sum_lo + from->sum_lo;
  into->sum_hi += from->sum_hi + (lo < into->sum_lo);
  into->sum_lo = lo;
  into->hash += from->hash;
  into->count += from->count;
}

/* One value of pair (i, j) of the block, entry e, with the pair's
 * checksum key (of the indices as written). */
static inline void put(const sm_fin2_args_t *a, sm_recbuf_t *out, const uint32_t idx[3],
                       uint64_t key, uint32_t e, double v)
{
  if (a->swap) /* entry (a, b) of pair (i, j) is entry (b, a) of (j, i) */
    e = ((e & 1u) << 1) | (e >> 1);
  sm_cksum_add_key(&out->cksum, key, e, v);
  out->nvalues++;
  if (!a->emit)
    return;
  if (!a->keep_all && a->threshold >= 0 &&
      !((a->thr_f32 ? (double)(float)v : v) > a->threshold))
    return;
  sm_rec_t *r = &out->rec[out->count++];
  r->idx[0] = idx[0];
  r->idx[1] = idx[1];
  r->idx[2] = 0;
  r->entry = e;
  r->value = v;
}

uint64_t sm_kern_finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j,
                           sm_recbuf_t *out)
{
  out->count = 0;
  out->nvalues = 0;
  out->cksum = (sm_cksum_t){0, 0, 0, 0};
  for (uint32_t i = 0; i < a->m; i++) {
    for (uint32_t j = a->diag ? i + 1 : 0; j < a->n; j++) {
      const uint32_t gi = a->i0 + i, gj = a->j0 + j;
      const uint32_t idx[3] = {a->swap ? gj : gi, a->swap ? gi : gj, 0};
      const uint64_t key = sm_cksum_key(idx, 2);
      if (a->metric == 0) {
        double n2, si, sj;
        if (a->single) {
          n2 = ((const float *)num)[i * ldnum + j];
          si = ((const float *)sums_i)[i];
          sj = ((const float *)sums_j)[j];
        } else {
          n2 = ((const double *)num)[i * ldnum + j];
          si = ((const double *)sums_i)[i];
          sj = ((const double *)sums_j)[j];
        }
        put(a, out, idx, key, 0, sm_f_czek2(n2, si, sj));
      } else {
        const uint32_t *mom = (const uint32_t *)num + (i * ldnum + j) * SM_CCC2_NMOM(a->sparse);
        const uint32_t *si = (const uint32_t *)sums_i + 2 * i;
        const uint32_t *sj = (const uint32_t *)sums_j + 2 * j;
        uint64_t t[4];
        if (a->sparse)
          sm_ccc2_tally(mom[0], mom[1], mom[2], mom[3], t);
        else
          sm_ccc2_tally(mom[0], si[0], sj[0], a->nf, t);
        double v[4];
        sm_ccc2_values(t, si[0], sj[0], si[1], sj[1], a->nf, !a->sparse,
                       a->ccc_mult, a->ccc_param, v);
        for (uint32_t e = 0; e < 4; e++)
          put(a, out, idx, key, e, v[e]);
      }
    }
  }
  return out->count;
}

void sm_kern_add_f64(size_t n, const double *a, double *y)
{
  for (size_t x = 0; x < n; x++)
    y[x] += a[x];
}

void sm_kern_add_f32(size_t n, const float *a, float *y)
{
  for (size_t x = 0; x < n; x++)
    y[x] += a[x];
}

void sm_kern_add_u32(size_t n, const uint32_t *a, uint32_t *y)
{
  for (size_t x = 0; x < n; x++)
    y[x] += a[x];
}
