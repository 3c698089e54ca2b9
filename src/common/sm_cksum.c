/* sm_cksum.c: the order-independent checksum of computed values (SPEC 5):
 * fixed-point sums and an index-keyed hash that do not depend on the order
 * in which blocks or ranks add and merge them. */
#include <math.h>

#include "sm_types.h"

uint64_t sm_cksum_key(const uint32_t idx[3], int way)
{
  return sm_cksum_key3(idx[0], idx[1], way == 3 ? idx[2] : 0xffffffffu);
}

void sm_cksum_add_key(sm_cksum_t *c, uint64_t key, uint32_t entry, double value)
{
  /* fixed-point rendering; metric values are bounded (|v| < 2^20) */
  const int64_t q = sm_cksum_q(value);
  /* entries of one result differ in their key by an odd multiple of a
   * large odd constant, so moving a value to another entry changes it */
  uint64_t k = key + (uint64_t)entry * SM_CKSUM_ENTRY_STEP;
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
