/* test_checksum.c: the run checksum is independent of the order values
 * arrive in and of how they are split into blocks, and changes when a value
 * moves to another index, changes by one unit of its resolution, or
 * another table entry. CRC-32C gives the published check values (RFC 3720
 * B.4, the CRC catalogue's "123456789") whatever the split of its bytes,
 * in memory and read back from a file. */
#include <stdio.h>
#include <unistd.h>

#include "sm_checksum.h"
#include "sm_crc32c.h"
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

START_TEST(crc32c_vectors)
{
  unsigned char b[32];
  ck_assert_uint_eq(sm_crc32c(0, "123456789", 9), 0xe3069283u);
  ck_assert_uint_eq(sm_crc32c(0, "", 0), 0);
  memset(b, 0, sizeof b);
  ck_assert_uint_eq(sm_crc32c(0, b, 32), 0x8a9136aau);
  memset(b, 0xff, sizeof b);
  ck_assert_uint_eq(sm_crc32c(0, b, 32), 0x62a8ab43u);
  for (int k = 0; k < 32; k++)
    b[k] = (unsigned char)k;
  ck_assert_uint_eq(sm_crc32c(0, b, 32), 0x46dd794eu);
  for (int k = 0; k < 32; k++)
    b[k] = (unsigned char)(31 - k);
  ck_assert_uint_eq(sm_crc32c(0, b, 32), 0x113fdb5cu);
}
END_TEST

START_TEST(crc32c_streams)
{
  unsigned char b[1000];
  for (int k = 0; k < 1000; k++)
    b[k] = (unsigned char)(k * 7919 + (k >> 3));
  const uint32_t whole = sm_crc32c(0, b, sizeof b);
  /* every split point, and pieces of every length up to 17 */
  for (size_t cut = 0; cut <= sizeof b; cut += 37)
    ck_assert_uint_eq(sm_crc32c(sm_crc32c(0, b, cut), b + cut, sizeof b - cut), whole);
  for (size_t piece = 1; piece <= 17; piece++) {
    uint32_t c = 0;
    for (size_t at = 0; at < sizeof b; at += piece)
      c = sm_crc32c(c, b + at, at + piece <= sizeof b ? piece : sizeof b - at);
    ck_assert_uint_eq(c, whole);
  }
  /* combined from the CRCs of the two sides of every split point */
  for (size_t cut = 0; cut <= sizeof b; cut += 13)
    ck_assert_uint_eq(sm_crc32c_combine(sm_crc32c(0, b, cut),
                                        sm_crc32c(0, b + cut, sizeof b - cut),
                                        sizeof b - cut),
                      whole);
  /* buffers from 3 KiB go through three interleaved lanes (of 1 to 16
   * KiB, the largest that fit, then smaller ones): the same CRC as short
   * pieces, at lengths around each lane size's round and between */
  const size_t big = 3 * 16384 * 3 + 777;
  unsigned char *l = malloc(big);
  ck_assert_ptr_nonnull(l);
  for (size_t k = 0; k < big; k++)
    l[k] = (unsigned char)(k * 2654435761u >> 13);
  for (size_t len = 3 * 1024 - 9; len <= big; len += len / 5 + 1021) {
    uint32_t pieces = 0;
    for (size_t at = 0; at < len; at += 1000)
      pieces = sm_crc32c(pieces, l + at, len - at < 1000 ? len - at : 1000);
    ck_assert_uint_eq(sm_crc32c(0, l, len), pieces);
    ck_assert_uint_eq(sm_crc32c(0x12345678u, l, len),
                      sm_crc32c_combine(0x12345678u, pieces, len));
  }
  free(l);
  /* one byte changed: another value */
  b[500] ^= 1;
  ck_assert_uint_ne(sm_crc32c(0, b, sizeof b), whole);
  b[500] ^= 1;
  /* from a file, at an offset, and past its end */
  FILE *tmp = tmpfile(); /* removed when closed */
  ck_assert_ptr_nonnull(tmp);
  const int fd = fileno(tmp);
  ck_assert_int_eq(write(fd, b, sizeof b), (ssize_t)sizeof b);
  uint32_t c = 1;
  ck_assert_int_eq(sm_crc32c_fd(fd, 0, sizeof b, &c), SM_OK);
  ck_assert_uint_eq(c, whole);
  ck_assert_int_eq(sm_crc32c_fd(fd, 100, 900, &c), SM_OK);
  ck_assert_uint_eq(c, sm_crc32c(0, b + 100, 900));
  ck_assert_int_eq(sm_crc32c_fd(fd, 100, 901, &c), SM_EIO);
  fclose(tmp);
}
END_TEST

/* A file from 128 MiB is read back in parts at once (one per CPU, up to
 * four), their CRCs joined: the same as the bytes' CRC, from an offset
 * too; past its end an error whichever part meets it. (A sparse file:
 * zeros with distinct bytes in several places, so that parts in the
 * wrong order or joined at the wrong length differ.) */
START_TEST(crc32c_fd_parts)
{
  const size_t n = ((size_t)130 << 20) + 12345;
  unsigned char *m = calloc(n, 1);
  ck_assert_ptr_nonnull(m);
  FILE *tmp = tmpfile();
  ck_assert_ptr_nonnull(tmp);
  const int fd = fileno(tmp);
  ck_assert_int_eq(ftruncate(fd, (off_t)n), 0);
  static const size_t at[] = {
      0, 1 << 20, 33u << 20, (65u << 20) - 7, 97u << 20, (130u << 20) + 12000};
  for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
    unsigned char blk[300];
    for (size_t q = 0; q < sizeof blk; q++)
      blk[q] = (unsigned char)(k * 31 + q * 7 + 1);
    const size_t len = at[k] + sizeof blk <= n ? sizeof blk : n - at[k];
    memcpy(m + at[k], blk, len);
    ck_assert_int_eq(pwrite(fd, blk, len, (off_t)at[k]), (ssize_t)len);
  }
  uint32_t c = 0;
  ck_assert_int_eq(sm_crc32c_fd(fd, 0, n, &c), SM_OK);
  ck_assert_uint_eq(c, sm_crc32c(0, m, n));
  ck_assert_int_eq(sm_crc32c_fd(fd, 4099, n - 4099, &c), SM_OK);
  ck_assert_uint_eq(c, sm_crc32c(0, m + 4099, n - 4099));
  ck_assert_int_eq(sm_crc32c_fd(fd, 4099, n - 4098, &c), SM_EIO);
  fclose(tmp);
  free(m);
}
END_TEST

static Suite *checksum_suite(void)
{
  Suite *s = suite_create("checksum");
  TCase *tc = tcase_create("checksum");
  tcase_add_test(tc, order_independent);
  tcase_add_test(tc, sensitive);
  tcase_add_test(tc, crc32c_vectors);
  tcase_add_test(tc, crc32c_streams);
  tcase_add_test(tc, crc32c_fd_parts);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(checksum_suite)
