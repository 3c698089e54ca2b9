/* sm_fmt.h: text of the TSV writers without printf: numbers exactly as
 * printf("%.*g") (precision 9 or 17, round to nearest) and "%u" write
 * them, and names with their control bytes escaped. */
#ifndef SM_FMT_H
#define SM_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Room for any text below, with its terminating NUL. */
#define SM_FMT_MAX 32

/** v as printf("%.*g", prec, v) writes it (1 <= prec <= 17), into buf
 * (SM_FMT_MAX bytes), NUL-terminated; returns its length. */
size_t sm_fmt_g(char *buf, double v, int prec);

/** x in decimal, into buf (at least 11 bytes), NUL-terminated; returns
 * its length. */
size_t sm_fmt_u32(char *buf, uint32_t x);

/** Name s (a vector, site or allele name) as one TSV field: tab, newline,
 * carriage return and backslash as \t \n \r \\, every other byte below
 * 0x20 and 0x7f as \xHH (two lowercase hex digits), all other bytes as
 * they are (UTF-8 passes through), so a name without those bytes is
 * written unchanged. Into buf (room for the returned length + 1 bytes),
 * NUL-terminated, or nowhere when buf is NULL; returns the escaped
 * length. Every TSV writer of names goes through it. */
size_t sm_fmt_name(char *buf, const char *s);

/** Name s escaped as sm_fmt_name does, written to f; 0, or -1 on a write
 * error. */
int sm_fmt_put_name(FILE *f, const char *s);

/** The same through put(ctx, bytes, n) (0, or -1 on error); 0 or -1. */
int sm_fmt_put_name_to(int (*put)(void *ctx, const void *p, size_t n), void *ctx,
                       const char *s);

#endif
