/* sm_read_util.h: small helpers shared by the input readers (sm_read_*.c):
 * slice checks, exact positioned reads, czekanowski value storing and
 * checking. Internal to the readers; not part of sm_read.h's interface. */
#ifndef SM_READ_UTIL_H
#define SM_READ_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "sm_error.h"

/** Check [start, start + count) against an axis of n items (count 0 = to
 * the end) and set *kept to the number of items kept. what names the items
 * ("vector", "field") in the message; a slice outside the axis is logged
 * (naming path) and is SM_EOPTION. */
sm_err_t sm_read_slice_axis(const char *path, const char *what, size_t n,
                            size_t start, size_t count, size_t *kept) SM_MUST_CHECK;

/** pread exactly n bytes at off into buf, retrying on EINTR and short
 * reads; 0 or an errno value (EIO at end of file). Logs nothing. */
int sm_read_at(int fd, void *buf, size_t n, off_t off);

/** Czekanowski: whether x, rounded to the working precision (elem_size 4:
 * float, 8: double), is an allowed value (finite and >= 0). */
int sm_read_czek_ok(double x, size_t elem_size);

/** Czekanowski: store x as field f of row (a vector's row of elem_size-wide
 * values, 4: float, 8: double), rounded to that precision. */
void sm_read_store_czek(void *row, size_t elem_size, size_t f, double x);

#endif
