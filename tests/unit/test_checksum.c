/* test_checksum.c: the run checksum is independent of the order values
 * arrive in and of how they are split into blocks, and changes when a value
 * moves to another index, changes by one unit of its resolution, or
 * another table entry. */
#include "sm_checksum.h"
#include "sm_test.h"

static sm_cksum_t sum_of(const uint32_t (*idx)[3], const uint32_t *e, const double *v,
                         int n, const int *order)
{
  sm_cksum_t c = {0};
  for (int k = 0; k < n; k++) {
    int x = order ? order[k] : k;
    sm_cksum_add(&c, idx[x], 2, e[x], v[x]);
  }
  return c;
}

static const uint32_t idx[5][3] = {{0, 1, 0}, {0, 2, 0}, {1, 2, 0}, {3, 9, 0}, {7, 8, 0}};
static const uint32_t ent[5] = {0, 1, 2, 3, 0};
static const double val[5] = {0.25, 0.5, 0.75, 0.125, 0.9};

START_TEST(order_independent)
{
  int rev[5] = {4, 3, 2, 1, 0}, mix[5] = {2, 0, 4, 1, 3};
  sm_cksum_t a = sum_of(idx, ent, val, 5, NULL), b = sum_of(idx, ent, val, 5, rev),
             c = sum_of(idx, ent, val, 5, mix);
  ck_assert(sm_checksum_equal(&a, &b));
  ck_assert(sm_checksum_equal(&a, &c));
  /* split in blocks and merged */
  sm_cksum_t p = sum_of(idx, ent, val, 2, NULL),
             q = sum_of(idx + 2, ent + 2, val + 2, 3, NULL);
  sm_cksum_merge(&p, &q);
  ck_assert(sm_checksum_equal(&a, &p));
  ck_assert_uint_eq(a.count, 5);
}
END_TEST

START_TEST(sensitive)
{
  sm_cksum_t a = sum_of(idx, ent, val, 5, NULL);
  /* swap two values between indices */
  double v2[5] = {0.5, 0.25, 0.75, 0.125, 0.9};
  sm_cksum_t b = sum_of(idx, ent, v2, 5, NULL);
  ck_assert(!sm_checksum_equal(&a, &b));
  ck_assert(a.sum_lo == b.sum_lo); /* the plain sum cannot tell, the hash can */
  /* another table entry */
  uint32_t e2[5] = {0, 1, 2, 3, 1};
  sm_cksum_t c = sum_of(idx, e2, val, 5, NULL);
  ck_assert(!sm_checksum_equal(&a, &c));
  /* one unit of the 2^-40 resolution */
  double v3[5] = {0.25, 0.5, 0.75, 0.125, 0.9 + 0x1.0p-40};
  sm_cksum_t d = sum_of(idx, ent, v3, 5, NULL);
  ck_assert(!sm_checksum_equal(&a, &d));
  char buf[128];
  sm_checksum_format(&a, buf, sizeof buf);
  ck_assert(buf[0] == '5' && buf[1] == '-');
}
END_TEST

static Suite *checksum_suite(void)
{
  Suite *s = suite_create("checksum");
  TCase *tc = tcase_create("checksum");
  tcase_add_test(tc, order_independent);
  tcase_add_test(tc, sensitive);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(checksum_suite)
