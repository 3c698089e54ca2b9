/* kern_finalize_impl.h: what the 2-way and 3-way finalize kernels
 * (kern_finalize2.c, kern_finalize3.c) share: starting a block's record
 * buffer and adding one computed value to it. Private to them. */
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

/* Value v of entry e of the result of indices idx (as written; idx[2] is 0
 * in 2-way) with checksum key `key`: always into the checksum and the
 * histogram, and as a record when `keep` (emitting, and kept by the
 * threshold). */
static inline void sm_fin_emit(sm_recbuf_t *out, const sm_hist_spec_t *h, int keep,
                               const uint32_t idx[3], uint32_t e, double v);
static inline void sm_fin_put(sm_recbuf_t *out, const sm_hist_spec_t *h, int keep,
                              const uint32_t idx[3], uint64_t key, uint32_t e, double v)
{
  sm_cksum_add_key(&out->cksum, key, e, v);
  out->nvalues++;
  sm_fin_emit(out, h, keep, idx, e, v);
}

/* What sm_fin_put does beside the checksum and the count of values: the
 * histogram count, and the record when `keep`. */
static inline void sm_fin_emit(sm_recbuf_t *out, const sm_hist_spec_t *h, int keep,
                               const uint32_t idx[3], uint32_t e, double v)
{
  if (h->bins)
    sm_recbuf_hist(out)[e * sm_hist_row(h) + sm_hist_slot(h, v)]++;
  if (!keep)
    return;
  sm_rec_t *r = &out->rec[out->count++];
  memcpy(r->idx, idx, sizeof r->idx);
  r->entry = e;
  r->value = v;
}

/* Whether value v (entry e of a result whose values per entry are all[],
 * NULL for czekanowski) is written: emitting, and kept by the threshold
 * (one for every value, or CoMet's per table entry). */
#define SM_FIN_KEEP(a, way, all, e, v)                                                   \
  ((a)->emit && ((a)->keep_all ||                                                        \
                 ((all) && (a)->thr_ent.n                                                \
                      ? sm_thr_list_keep(&(a)->thr_ent, (way), (a)->thr_f32, (all), (e)) \
                      : sm_threshold_keep((a)->threshold, (a)->thr_f32, (v)))))

#endif
