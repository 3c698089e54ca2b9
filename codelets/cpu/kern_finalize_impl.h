/* kern_finalize_impl.h: what the 2-way and 3-way finalize kernels
 * (kern_finalize2.c, kern_finalize3.c) share: starting a block's record
 * buffer and adding one computed value to it. Private to them. */
#ifndef KERN_FINALIZE_IMPL_H
#define KERN_FINALIZE_IMPL_H

#include <string.h>

#include "sm_types.h"

/* An empty record buffer: no records, no values, a zero checksum. */
static inline void sm_fin_begin(sm_recbuf_t *out)
{
  out->count = 0;
  out->nvalues = 0;
  out->cksum = (sm_cksum_t){0, 0, 0, 0};
}

/* Value v of entry e of the result of indices idx (as written; idx[2] is 0
 * in 2-way) with checksum key `key`: always into the checksum, and as a
 * record when `keep` (emitting, and kept by the threshold). */
static inline void sm_fin_put(sm_recbuf_t *out, int keep, const uint32_t idx[3],
                              uint64_t key, uint32_t e, double v)
{
  sm_cksum_add_key(&out->cksum, key, e, v);
  out->nvalues++;
  if (!keep)
    return;
  sm_rec_t *r = &out->rec[out->count++];
  memcpy(r->idx, idx, sizeof r->idx);
  r->entry = e;
  r->value = v;
}

#endif
