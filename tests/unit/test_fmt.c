/* test_fmt.c: the TSV writer's number text (sm_fmt.c) is byte for byte
 * printf's: "%.17g" and "%.9g" (and every precision 1..17) on special
 * values, powers of ten and their neighbours, exact ties, metric-like
 * values in [0, 1000), float32 values, and random bit patterns over the
 * whole double range (the fallback), and "%u" on 32-bit integers; names
 * are escaped as docs/outputs.md says, and unescaping gives them back; the .ld
 * table's pieces packed and unpacked as ranks send them. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_fmt.h"
#include "sm_ldtab.h"
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

/* PLINK's "%g" (sm_ldtab_fmt_g) is printf's away from ties (a value within
 * 5e-9 of a rounding half rounds to even in PLINK, so those are left
 * out): values of every form it prints, and their negatives. */
START_TEST(like_plink_g)
{
  long n = 0, bad = 0;
  for (long i = 0; i < 400000; i++) {
    const double u = (double)(next() >> 11) / 9007199254740992.0;
    const int k = (int)(next() % 40) - 20; /* 1e-20 .. 1e19 */
    const double v = (i % 5 ? u : -u) * pow(10, k) * (i % 11 ? 1 : 0.5);
    char want[64], lo[64], hi[64], got[32];
    snprintf(want, sizeof want, "%g", v);
    snprintf(lo, sizeof lo, "%g", v * (1 - 1e-8));
    snprintf(hi, sizeof hi, "%g", v * (1 + 1e-8));
    if (strcmp(lo, hi))
      continue; /* a tie's neighbourhood */
    n++;
    const size_t len = sm_ldtab_fmt_g(v, got);
    got[len] = 0;
    if (strcmp(want, got) && bad++ < 10)
      fprintf(stderr, "%%g of %a: printf '%s', sm_ldtab_fmt_g '%s'\n", v, want, got);
  }
  static const double special[] = {
      1, 0.5, 1e-4,   9.99999e-5, 1e-5,   1e100, 1e-100, 123456, 999999, 1234567, 0.25,
      2, 10,  100000, 1e6,        1e-300, 1e-40, 2.5e40, 3e-250, 7e250,  -6e-33,  4.4e33};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
    char want[64], got[32];
    snprintf(want, sizeof want, "%g", special[i]);
    const size_t len = sm_ldtab_fmt_g(special[i], got);
    got[len] = 0;
    n++;
    if (strcmp(want, got) && bad++ < 10)
      fprintf(stderr, "%%g of %g: printf '%s', sm_ldtab_fmt_g '%s'\n", special[i], want,
              got);
  }
  ck_assert_int_gt(n, 390000);
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* PLINK 1.9's "%g" written the plain way, as the oracle of sm_ldtab_fmt_g
 * where printf differs from it (at ties): the value scaled by the same
 * products in the same order, its digits rounded as PLINK rounds them (a
 * half within 5e-9 goes to the even digit), the text by snprintf. */
static uint32_t plink_round(double x)
{
  const uint32_t t = (uint32_t)(int32_t)x;
  return t +
         (uint32_t)(int32_t)((x - (int32_t)t) + ((t & 1) ? 0.500000005 : 0.499999995));
}

/* "." and q's k digits (leading zeros kept, trailing zeros dropped, at
 * least one kept when keep1) appended to out; nothing when none is left. */
static void put_frac(char *out, uint32_t q, int k, int keep1, int dot)
{
  char d[16];
  int n = snprintf(d, sizeof d, "%0*u", k, q);
  while (n > (keep1 ? 1 : 0) && d[n - 1] == '0')
    d[--n] = 0;
  if (n)
    sprintf(out + strlen(out), "%s%s", dot ? "." : "", d);
}

static void plink_g(double v, char *out)
{
  static const double lo[9] = {
      9.9999949999999e-256, 9.9999949999999e-128, 9.9999949999999e-64,
      9.9999949999999e-32,  9.9999949999999e-16,  9.9999949999999e-8,
      9.9999949999999e-4,   9.9999949999999e-2,   9.9999949999999e-1};
  static const double hi[9] = {
      9.9999949999999e255, 9.9999949999999e127, 9.9999949999999e63,
      9.9999949999999e31,  9.9999949999999e15,  9.9999949999999e7,
      9.9999949999999e3,   9.9999949999999e1,   9.9999949999999e0};
  static const double up[9] = {1e256, 1e128, 1e64, 1e32, 1e16, 1e8, 1e4, 1e2, 1e1};
  static const double down[9] = {1e-256, 1e-128, 1e-64, 1e-32, 1e-16,
                                 1e-8,   1e-4,   1e-2,  1e-1};
  if (v != v) {
    strcpy(out, "nan");
    return;
  }
  strcpy(out, v < 0 ? "-" : "");
  v = v < 0 ? -v : v;
  if (v == 0) {
    strcat(out, "0");
  } else if (v < 9.9999949999999e-5 || v >= 999999.49999999) {
    const int small = v < 1;
    int e = 0;
    for (int k = 0; k < 9; k++)
      if (small ? v < lo[k] : v >= hi[k]) {
        v *= small ? up[k] : down[k];
        e += 256 >> k;
      }
    if (isinf(v)) {
      strcat(out, "inf");
      return;
    }
    const uint32_t q = plink_round(v * 100000);
    sprintf(out + strlen(out), "%u", q / 100000);
    put_frac(out, q % 100000, 5, 0, 1);
    sprintf(out + strlen(out), "e%c%02d", small ? '-' : '+', e);
  } else if (v < 0.99999949999999) {
    strcat(out, "0.");
    if (v < 9.9999949999999e-3)
      v *= 100, strcat(out, "00");
    if (v < 9.9999949999999e-2)
      v *= 10, strcat(out, "0");
    put_frac(out, plink_round(v * 1000000), 6, 1, 0);
  } else {
    int ip = 1;
    for (double lim = 9.9999949999999; ip < 6 && v >= lim; lim *= 10)
      ip++;
    uint32_t p10 = 1; /* the digits after the point: 10^(6 - ip) */
    for (int k = ip; k < 6; k++)
      p10 *= 10;
    const uint32_t q = plink_round(v * (double)p10);
    sprintf(out + strlen(out), "%u", q / p10);
    if (p10 > 1)
      put_frac(out, q % p10, 6 - ip, 0, 1);
  }
}

/* Eight values a call, each lane's text against the oracle (and lane 0's
 * against sm_ldtab_fmt_g): ties and their neighbours in every form, the
 * bounds between forms and exponents with their neighbours, values as r2
 * and r take them, random bit patterns; lanes hold values of mixed forms. */
static long g8_bad, g8_n;
static double g8_lane[8];
static int g8_fill;

static void g8_flush(void)
{
  char got[8][16], one[32], want[64];
  for (int l = g8_fill; l < 8; l++)
    g8_lane[l] = 0;
  sm_ldtab_fmt_g8(g8_lane, got);
  for (int l = 0; l < g8_fill; l++) {
    plink_g(g8_lane[l], want);
    g8_n++;
    if (strcmp(want, got[l]) && g8_bad++ < 10)
      fprintf(stderr, "PLINK %%g of %a: '%s', lane %d '%s'\n", g8_lane[l], want, l,
              got[l]);
  }
  one[sm_ldtab_fmt_g(g8_lane[0], one)] = 0;
  plink_g(g8_lane[0], want);
  if (strcmp(want, one) && g8_bad++ < 10)
    fprintf(stderr, "PLINK %%g of %a: '%s', sm_ldtab_fmt_g '%s'\n", g8_lane[0], want,
            one);
  g8_fill = 0;
}

static void g8(double v)
{
  g8_lane[g8_fill++] = v;
  if (g8_fill == 8)
    g8_flush();
}

/* v and its neighbours, 3 ulps each way, and both signs */
static void g8_near(double v)
{
  double lo = v, hi = v;
  g8(v), g8(-v);
  for (int k = 0; k < 3; k++) {
    lo = nextafter(lo, 0), hi = nextafter(hi, INFINITY);
    g8(lo), g8(hi), g8(-hi);
  }
}

START_TEST(plink_g_lanes)
{
  for (int lanes = 1; lanes >= 0;
       lanes--) { /* AVX-512 lanes (when here), then one by one */
    sm_ldtab_fmt_lanes(lanes);
    static const double bound[] = {
        9.9999949999999e-256, 9.9999949999999e-128, 9.9999949999999e-64,
        9.9999949999999e-32,  9.9999949999999e-16,  9.9999949999999e-8,
        9.9999949999999e-5,   9.9999949999999e-4,   9.9999949999999e-3,
        9.9999949999999e-2,   0.99999949999999,     9.9999949999999,
        99.999949999999,      999.99949999999,      9999.9949999999,
        99999.949999999,      999999.49999999,      9.9999949999999e7,
        9.9999949999999e15,   9.9999949999999e31,   9.9999949999999e63,
        9.9999949999999e127,  9.9999949999999e255};
    for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++)
      g8_near(bound[i]);
    for (int k = -320; k <= 308; k++) /* powers of ten */
      g8_near(pow(10, k));
    g8(0), g8(-0.0), g8(NAN), g8(INFINITY), g8(-INFINITY), g8(5e-324), g8(DBL_MAX);
    g8(1), g8(-1);
    /* ties of the sixth digit: (q + 1/2) 10^-d and PLINK's 5e-9 either side */
    for (long i = 0; i < 200000; i++) {
      const double q = (double)(100000 + next() % 900000);
      const int d = (int)(next() % 30) - 18;
      const double tie = (q + 0.5) * pow(10, d - 6);
      g8_near(tie);
      g8(tie * (1 + 4e-15)), g8(tie * (1 - 4e-15));
    }
    /* r2 and r as LD gives them: c^2 / n-like values, uniform, tiny */
    for (long i = 0; i < 400000; i++) {
      const double u = (double)(next() >> 11) / 9007199254740992.0;
      g8(u), g8(u * u * u), g8(-u), g8(u * 1e-4), g8(u * 1e-12);
      const uint64_t r = next();
      double v;
      memcpy(&v, &r, sizeof v);
      g8(v);
    }
    g8_flush();
  }
  sm_ldtab_fmt_lanes(1);
  ck_assert_int_gt(g8_n, 10000000);
  ck_assert_int_eq(g8_bad, 0);
}
END_TEST

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

/* The escaping undone (what the Python and R readers do), into out. */
static size_t unescape(char *out, const char *s)
{
  size_t n = 0;
  for (; *s; s++) {
    if (*s != '\\') {
      out[n++] = *s;
      continue;
    }
    s++;
    if (*s == 'x') {
      unsigned v;
      ck_assert(sscanf(s + 1, "%2x", &v) == 1);
      out[n++] = (char)v;
      s += 2;
    } else {
      ck_assert_ptr_nonnull(strchr("tnr\\", *s));
      out[n++] = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : '\\';
    }
  }
  out[n] = '\0';
  return n;
}

static void check_name(const char *name, const char *want)
{
  char got[256], back[256];
  memset(got, '#', sizeof got);
  const size_t n = sm_fmt_name(got, name);
  ck_assert_uint_eq(n, strlen(want));
  ck_assert_uint_eq(sm_fmt_name(NULL, name), n);
  ck_assert_str_eq(got, want);
  ck_assert_int_eq(got[n + 1], '#'); /* nothing past the NUL */
  ck_assert_uint_eq(unescape(back, got), strlen(name));
  ck_assert_str_eq(back, name);
}

START_TEST(name_escapes)
{
  static const char *const cases[][2] = {
      {"", ""},
      {"rs123", "rs123"},
      {"chr1:12345", "chr1:12345"},
      {"a b\"c'd,e;f#g%h", "a b\"c'd,e;f#g%h"},
      {"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\xa7\xac",
       "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\xa7\xac"}, /* UTF-8 as is */
      {"\xff\xfe\x80", "\xff\xfe\x80"},                          /* any byte >= 0x80 */
      {"a\tb", "a\\tb"},
      {"a\nb", "a\\nb"},
      {"a\rb", "a\\rb"},
      {"line\r", "line\\r"},
      {"back\\slash", "back\\\\slash"},
      {"\\t", "\\\\t"}, /* a backslash then a t: not a tab */
      {"\\", "\\\\"},
      {"\x01\x02\x1f\x7f", "\\x01\\x02\\x1f\\x7f"},
      {"\x1b[31mred", "\\x1b[31mred"},
      {"\t\n\r\\\x0b\x0c", "\\t\\n\\r\\\\\\x0b\\x0c"},
      {"~\x7f\x80", "~\\x7f\x80"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_name(cases[i][0], cases[i][1]);
  /* every byte value: the escaped text has no tab, newline or CR, is the
   * name itself without the escaped bytes, and unescapes to the name */
  char name[256], got[4 * 256 + 1], back[256];
  for (int c = 1; c < 256; c++) {
    name[c - 1] = (char)c;
    name[c] = '\0';
    const size_t n = sm_fmt_name(got, name);
    ck_assert_ptr_null(strpbrk(got, "\t\n\r"));
    ck_assert_uint_eq(n, strlen(got));
    ck_assert_uint_eq(unescape(back, got), (size_t)c);
    ck_assert_str_eq(back, name);
  }
}
END_TEST

START_TEST(name_to_file)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(f);
  char big[1000]; /* beyond sm_fmt_put_name's stack buffer once escaped */
  for (size_t i = 0; i < sizeof big - 1; i++)
    big[i] = i % 3 ? 'x' : '\t';
  big[sizeof big - 1] = '\0';
  ck_assert_int_eq(sm_fmt_put_name(f, "a\tb\\"), 0);
  ck_assert_int_eq(sm_fmt_put_name(f, big), 0);
  ck_assert_int_eq(fclose(f), 0);
  char want[2000];
  const size_t n = sm_fmt_name(want, big);
  ck_assert_uint_eq(len, 6 + n);
  ck_assert(!memcmp(text, "a\\tb\\\\", 6) && !strcmp(text + 6, want));
  free(text);
}
END_TEST

/* sm_ldtab's put: appended to a growing string. */
typedef struct text {
  char *p;
  size_t n;
} text_t;
static int put_text(void *ctx, const void *p, size_t n)
{
  text_t *t = ctx;
  char *g = realloc(t->p, t->n + n + 1);
  if (!g)
    return -1;
  memcpy(g + t->n, p, n);
  t->p = g, t->n += n, t->p[t->n] = 0;
  return 0;
}

/* The .ld table under mpirun: blocks' pieces held on "ranks" (tables of
 * their own), packed, unpacked into rank 0's table, written: the table
 * one table streaming every block gives; a damaged pack is refused. */
START_TEST(ld_pieces_packed)
{
  enum { NV = 40, TILE = 10 };
  sm_loci_t l = {0};
  size_t cap = 0;
  char *names[NV], id[32];
  for (int v = 0; v < NV; v++) {
    snprintf(id, sizeof id, "rs%d", 1000 + 7 * v);
    ck_assert(!sm_loci_add(&l, &cap, v < 25 ? "1" : "X", (uint32_t)(100 + 37 * v), id));
    names[v] = l.ids[v];
  }
  sm_ldtab_t *one, *rk[3];
  ck_assert(!sm_ldtab_open(&one, 1, &l, names, NULL, NV, 0));
  for (int r = 0; r < 3; r++)
    ck_assert(!sm_ldtab_open(&rk[r], 1, &l, names, NULL, NV, 0));
  text_t want = {0}, got = {0};
  for (int I = 0; I < NV / TILE; I++) /* tile pairs (I, J), J >= I: a block each */
    for (int J = I; J < NV / TILE; J++) {
      sm_rec_t rec[TILE * TILE];
      size_t n = 0;
      for (int i = I * TILE; i < (I + 1) * TILE; i++)
        for (int j = J * TILE; j < (J + 1) * TILE; j++)
          if (j > i && (i + j) % 3) /* some pairs left out, as a threshold would */
            rec[n++] = (sm_rec_t){{(uint32_t)i, (uint32_t)j, 0}, 0, 1.0 / (1 + i + j)};
      sm_ldpiece_t *a, *b;
      ck_assert(!sm_ldtab_block(one, rec, n, &a) && !sm_ldtab_block(one, rec, n, &b));
      ck_assert(!sm_ldtab_stream(one, a, 0, put_text, &want));
      ck_assert(!sm_ldtab_hold(rk[(I * 7 + J) % 3], b)); /* blocks spread over ranks */
    }
  ck_assert(sm_ldtab_text(one, put_text, &want) == SM_OK);
  unsigned char *pk[3];
  size_t len[3];
  for (int r = 1; r < 3; r++)
    ck_assert(!sm_ldtab_pack(rk[r], &pk[r], &len[r]) && len[r] > 0);
  /* damaged: cut short, or a row beyond the variants */
  errno = 0;
  ck_assert(sm_ldtab_unpack(rk[0], pk[1], len[1] - 3) == -1 && errno == EINVAL);
  unsigned char *bad = malloc(len[2]);
  memcpy(bad, pk[2], len[2]);
  bad[24] = 0xff, bad[25] = 0xff; /* the first segment's variant */
  errno = 0;
  ck_assert(sm_ldtab_unpack(rk[1], bad, len[2]) == -1 && errno == EINVAL);
  free(bad);
  for (int r = 2; r >= 1; r--) /* any order of arrival */
    ck_assert(!sm_ldtab_unpack(rk[0], pk[r], len[r]));
  ck_assert(sm_ldtab_text(rk[0], put_text, &got) == SM_OK);
  ck_assert_uint_gt(want.n, 1000);
  ck_assert_uint_eq(got.n, want.n);
  ck_assert(!memcmp(got.p, want.p, want.n));
  for (int r = 0; r < 3; r++)
    sm_ldtab_free(rk[r]);
  sm_ldtab_free(one);
  free(pk[1]), free(pk[2]), free(want.p), free(got.p);
  sm_loci_free(&l);
}
END_TEST

static Suite *fmt_suite(void)
{
  Suite *s = suite_create("fmt");
  TCase *tc = tcase_create("fmt");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, like_printf_g);
  tcase_add_test(tc, like_plink_g);
  tcase_add_test(tc, plink_g_lanes);
  tcase_add_test(tc, like_printf_u);
  tcase_add_test(tc, name_escapes);
  tcase_add_test(tc, name_to_file);
  tcase_add_test(tc, ld_pieces_packed);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(fmt_suite)
