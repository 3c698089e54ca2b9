/* sm_fmt.c: decimal text of values and indices without printf, byte for
 * byte what printf's "%.9g" / "%.17g" and "%u" write (glibc, round to
 * nearest), and names with their control bytes escaped (sm_fmt_name).
 * The digits come from exact integer arithmetic: a double is m 2^e with
 * an integer m < 2^53, so m 5^k fits 128 bits for k <= 27, and scaling by
 * 2^(k+e) with round-half-even gives printf's correctly rounded digits.
 * Values outside that range (|v| >= 10^prec or tiny ones) go to snprintf;
 * metric values never are. */
#include "sm_fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* 10^n, n <= 19 */
static uint64_t pow10u(int n)
{
  static const uint64_t p[20] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull,
                                 10000000000000000000ull};
  return p[n];
}

/* x 10^k for x = m 2^e, 0 <= k <= 27: *fl its integer part, returned
 * rounded half to even; -1 when that would not fit 63 bits. */
static int64_t scaled(uint64_t m, int e, int k, int64_t *fl)
{
  static const uint64_t pow5[28] = {1ull,
                                    5ull,
                                    25ull,
                                    125ull,
                                    625ull,
                                    3125ull,
                                    15625ull,
                                    78125ull,
                                    390625ull,
                                    1953125ull,
                                    9765625ull,
                                    48828125ull,
                                    244140625ull,
                                    1220703125ull,
                                    6103515625ull,
                                    30517578125ull,
                                    152587890625ull,
                                    762939453125ull,
                                    3814697265625ull,
                                    19073486328125ull,
                                    95367431640625ull,
                                    476837158203125ull,
                                    2384185791015625ull,
                                    11920928955078125ull,
                                    59604644775390625ull,
                                    298023223876953125ull,
                                    1490116119384765625ull,
                                    7450580596923828125ull};
  const u128 x = (u128)m * pow5[k]; /* < 2^116 */
  int s = k + e;                    /* x 2^s */
  if (s >= 0) {
    if (s > 62 || x >> (63 - s))
      return -1;
    *fl = (int64_t)(x << s);
    return *fl;
  }
  s = -s;
  if (s >= 120) {
    *fl = 0;
    return 0;
  }
  const u128 q = x >> s, r = x - (q << s), half = (u128)1 << (s - 1);
  if (q >> 62)
    return -1;
  *fl = (int64_t)q;
  return (int64_t)q + (r > half || (r == half && (q & 1)));
}

static size_t fallback(char *buf, double v, int prec)
{
  int n = snprintf(buf, SM_FMT_MAX, "%.*g", prec, v);
  return n < 0 ? 0 : (size_t)n;
}

size_t sm_fmt_g(char *buf, double v, int prec)
{
  if (!isfinite(v) || v == 0.0 || prec < 1 || prec > 17)
    return fallback(buf, v, prec);
  char *p = buf;
  double a = v;
  if (signbit(v)) {
    *p++ = '-';
    a = -v;
  }
  /* a = m 2^e, m < 2^53 (normal numbers; subnormals are far below the
   * range done here) */
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  const int bexp = (int)(bits >> 52);
  if (bexp == 0)
    return fallback(buf, v, prec);
  const uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
  const int e = bexp - 1075, ex = e + 53; /* a = f 2^ex, f in [0.5, 1) */
  /* floor((ex - 1) log10 2) <= log10(a) < that + 1: one off at most, fixed
   * below (78913 / 2^18 is log10 2 to 6 digits, exact enough for |ex| < 1100) */
  int d = (int)(((int64_t)(ex - 1) * 78913) >> 18);
  const uint64_t lo = pow10u(prec - 1), hi = pow10u(prec);
  /* the decimal exponent d: 10^d <= a < 10^(d+1), from the integer part of
   * a 10^(prec-1-d) (exact), then the digits rounded */
  int64_t n = -1, fl = 0;
  for (int tries = 0;; tries++) {
    const int k = prec - 1 - d;
    if (tries == 4 || k < 0 || k > 27 || (n = scaled(m, e, k, &fl)) < 0)
      return fallback(buf, v, prec);
    if ((uint64_t)fl < lo)
      d--;
    else if ((uint64_t)fl >= hi)
      d++;
    else
      break;
  }
  if ((uint64_t)n == hi) { /* rounded up to the next power of ten */
    n = (int64_t)lo;
    d++;
  }
  /* the prec digits of n, two at a time */
  static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                 "25262728293031323334353637383940414243444546474849"
                                 "50515253545556575859606162636465666768697071727374"
                                 "75767778798081828384858687888990919293949596979899";
  char dig[20];
  int pos = prec - 1;
  uint64_t u = (uint64_t)n;
  for (; pos >= 1; pos -= 2) {
    const unsigned r = (unsigned)(u % 100);
    u /= 100;
    dig[pos] = pairs[2 * r + 1];
    dig[pos - 1] = pairs[2 * r];
  }
  if (pos == 0)
    dig[0] = (char)('0' + u);
  int nd = prec; /* without trailing zeros (%g drops them) */
  while (nd > 1 && dig[nd - 1] == '0')
    nd--;
  if (d < -4 || d >= prec) { /* d.ddde+XX */
    *p++ = dig[0];
    if (nd > 1) {
      *p++ = '.';
      memcpy(p, dig + 1, (size_t)nd - 1);
      p += nd - 1;
    }
    *p++ = 'e';
    *p++ = d < 0 ? '-' : '+';
    int x = d < 0 ? -d : d;
    if (x >= 100)
      *p++ = (char)('0' + x / 100);
    *p++ = (char)('0' + x / 10 % 10);
    *p++ = (char)('0' + x % 10);
  } else if (d >= 0) { /* ddd.ddd */
    for (int i = 0; i <= d; i++)
      *p++ = i < nd ? dig[i] : '0';
    if (nd > d + 1) {
      *p++ = '.';
      memcpy(p, dig + d + 1, (size_t)(nd - d - 1));
      p += nd - d - 1;
    }
  } else { /* 0.000ddd */
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -d - 1; i++)
      *p++ = '0';
    memcpy(p, dig, (size_t)nd);
    p += nd;
  }
  *p = '\0';
  return (size_t)(p - buf);
}

size_t sm_fmt_u32(char *buf, uint32_t x)
{
  char t[10];
  int n = 0;
  do {
    t[n++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  for (int i = 0; i < n; i++)
    buf[i] = t[n - 1 - i];
  buf[n] = '\0';
  return (size_t)n;
}

size_t sm_fmt_name(char *buf, const char *s)
{
  static const char hex[] = "0123456789abcdef";
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    const unsigned char c = *p;
    if (c >= 0x20 && c != 0x7f && c != '\\') {
      if (buf)
        buf[n] = (char)c;
      n++;
      continue;
    }
    char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
    size_t k = 2;
    if (c == '\t')
      e[1] = 't';
    else if (c == '\n')
      e[1] = 'n';
    else if (c == '\r')
      e[1] = 'r';
    else if (c == '\\')
      e[1] = '\\';
    else
      k = 4;
    if (buf)
      memcpy(buf + n, e, k);
    n += k;
  }
  if (buf)
    buf[n] = '\0';
  return n;
}

int sm_fmt_put_name_to(int (*put)(void *ctx, const void *p, size_t n), void *ctx,
                       const char *s)
{
  char small[256];
  const size_t n = sm_fmt_name(NULL, s);
  char *buf = n < sizeof small ? small : malloc(n + 1);
  if (!buf)
    return -1;
  sm_fmt_name(buf, s);
  const int bad = put(ctx, buf, n) != 0;
  if (buf != small)
    free(buf);
  return bad ? -1 : 0;
}

static int put_file(void *f, const void *p, size_t n)
{
  return fwrite(p, 1, n, f) != n ? -1 : 0;
}

int sm_fmt_put_name(FILE *f, const char *s)
{
  return sm_fmt_put_name_to(put_file, f, s);
}
