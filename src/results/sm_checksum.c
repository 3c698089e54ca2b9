/* sm_checksum.c: rendering and comparison of run checksums. */
#include "sm_checksum.h"

#include <inttypes.h>
#include <stdio.h>

void sm_checksum_format(const sm_cksum_t *c, char *buf, size_t len)
{
  if (c->sum_hi)
    snprintf(buf, len, "%" PRIu64 "-%" PRIx64 "%016" PRIx64 "-%016" PRIx64, c->count,
             c->sum_hi, c->sum_lo, c->hash);
  else
    snprintf(buf, len, "%" PRIu64 "-%" PRIx64 "-%016" PRIx64, c->count, c->sum_lo,
             c->hash);
}

int sm_checksum_equal(const sm_cksum_t *a, const sm_cksum_t *b)
{
  return a->sum_lo == b->sum_lo && a->sum_hi == b->sum_hi && a->hash == b->hash &&
         a->count == b->count;
}
