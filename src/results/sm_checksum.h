/* sm_checksum.h: the run checksum (SPEC 5): an order-independent sum of
 * every computed value in fixed point, plus a sum of value x index hash, so
 * a value at the wrong index changes it. Accumulation lives with the
 * common types (sm_types.h, sm_cksum.c: sm_cksum_add/merge, shared with
 * the kernels); this file renders it. */
#ifndef SM_CHECKSUM_H
#define SM_CHECKSUM_H

#include <stddef.h>

#include "sm_types.h"

/** Render as "<count>-<sum hex>-<hash hex>" into buf (>= 64 bytes). */
void sm_checksum_format(const sm_cksum_t *c, char *buf, size_t len);

/** 1 when two checksums are equal. */
int sm_checksum_equal(const sm_cksum_t *a, const sm_cksum_t *b);

#endif
