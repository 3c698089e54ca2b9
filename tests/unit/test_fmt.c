/* test_fmt.c: the TSV writer's number text (sm_fmt.c) is byte for byte
 * printf's: "%.17g" and "%.9g" (and every precision 1..17) on special
 * values, powers of ten and their neighbours, exact ties, metric-like
 * values in [0, 1000), float32 values, and random bit patterns over the
 * whole double range (the fallback), and "%u" on 32-bit integers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sm_fmt.h"
#include "sm_test.h"

static uint64_t state = 88172645463325252ull;
static uint64_t next(void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static long ndiff;
static void check(double v, int prec)
{
  char want[64], got[SM_FMT_MAX + 8];
  snprintf(want, sizeof want, "%.*g", prec, v);
  size_t n = sm_fmt_g(got, v, prec);
  if (strcmp(want, got) || n != strlen(want)) {
    if (ndiff++ < 10)
      fprintf(stderr, "%%.%dg of %a: printf '%s', sm_fmt_g '%s'\n", prec, v, want, got);
  }
}

START_TEST(like_printf_g)
{
  static const double special[] = {
      1,      0.5,   0.1,  0.2,       1.0 / 3,     2.0 / 3,   4.5,   1e-4,
      1e-5,   1e16,  1e17, 123456789, 999999999.5, 0.125,     -0.75, 12345.678,
      5e-324, 1e300, 0.0,  -0.0,      INFINITY,    -INFINITY, NAN,   0.9999999999999999};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
    for (int p = 1; p <= 17; p++) {
      check(special[i], p);
      check(nextafter(special[i], 0), p);
      check(nextafter(special[i], INFINITY), p);
    }
  for (int k = -30; k < 25; k++)
    for (int p = 1; p <= 17; p++) {
      const double v = pow(10, k);
      check(v, p);
      check(nextafter(v, 0), p);
      check(nextafter(v, INFINITY), p);
      check(5 * v, p);
      check(0.5 * v, p);
    }
  for (long i = 0; i < 300000; i++) {
    const double v = (double)(next() >> 11) / 9007199254740992.0 * (i % 7 ? 1.0 : 1e3);
    check(v, 17);
    check(v, 9);
    check((double)(float)v, 9);
    check((double)(next() % 100000000) / 1024.0, (int)(i % 17) + 1); /* exact ties */
  }
  for (long i = 0; i < 300000; i++) {
    uint64_t r = next();
    double v;
    memcpy(&v, &r, sizeof v);
    check(v, 17);
    check((double)(float)v, 9);
  }
  ck_assert_msg(ndiff == 0, "%ld values differ from printf", ndiff);
}
END_TEST

START_TEST(like_printf_u)
{
  static const uint32_t special[] = {0, 1, 9, 10, 99, 100, 4294967295u, 1000000000u};
  char want[16], got[16];
  for (size_t i = 0; i < sizeof special / sizeof special[0] + 100000; i++) {
    const uint32_t x = i < sizeof special / sizeof special[0]
                           ? special[i]
                           : (uint32_t)(next() >> (i % 32));
    snprintf(want, sizeof want, "%u", x);
    ck_assert_uint_eq(sm_fmt_u32(got, x), strlen(want));
    ck_assert_str_eq(got, want);
  }
}
END_TEST

static Suite *fmt_suite(void)
{
  Suite *s = suite_create("fmt");
  TCase *tc = tcase_create("fmt");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, like_printf_g);
  tcase_add_test(tc, like_printf_u);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(fmt_suite)
