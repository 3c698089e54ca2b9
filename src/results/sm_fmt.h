/* sm_fmt.h: decimal text without printf for the TSV writer: exactly what
 * printf("%.*g") (precision 9 or 17, round to nearest) and "%u" write. */
#ifndef SM_FMT_H
#define SM_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any text below, with its terminating NUL. */
#define SM_FMT_MAX 32

/** v as printf("%.*g", prec, v) writes it (1 <= prec <= 17), into buf
 * (SM_FMT_MAX bytes), NUL-terminated; returns its length. */
size_t sm_fmt_g(char *buf, double v, int prec);

/** x in decimal, into buf (at least 11 bytes), NUL-terminated; returns
 * its length. */
size_t sm_fmt_u32(char *buf, uint32_t x);

#endif
