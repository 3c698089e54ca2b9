/* test_dio.c: a new file written straight to the disk (sm_dio.h) holds every
 * byte appended, in appends of any size, with flushes at any offset (the
 * partial block through the page cache, written again whole later); the
 * flushes' CRCs and lengths join into the CRC of the bytes; the lease is
 * held until another process opens the file, and that process's change
 * is on the file when sm_dio_intact says the lease is gone. Skipped (77)
 * where the build directory's file system has no O_DIRECT or leases. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sm_crc32c.h"
#include "sm_dio.h"
#include "sm_test.h"

static char path[64];

/* A fresh, empty file of this process (its only open), or -1. */
static int fresh(void)
{
  snprintf(path, sizeof path, "test_dio.%ld.tmp", (long)getpid());
  unlink(path);
  return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

static unsigned char *data(size_t n, unsigned seed)
{
  unsigned char *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  for (size_t k = 0; k < n; k++) {
    seed = seed * 1103515245u + 12345u;
    p[k] = (unsigned char)(seed >> 16);
  }
  return p;
}

START_TEST(every_byte)
{
  const size_t n = 3 * (4u << 20) + 12345; /* buffers, and a partial one */
  unsigned char *src = data(n, 7);
  int fd = fresh();
  ck_assert_int_ge(fd, 0);
  sm_dio_t *d = sm_dio_start(fd);
  ck_assert_ptr_nonnull(d);
  /* appends of odd sizes; flushes at 1000 (a partial block), past the
   * first buffer, and at the end */
  const size_t flush_at[3] = {1000, (4u << 20) + 4097, n};
  uint32_t crc = 0;
  uint64_t total = 0, end = 0;
  size_t at = 0, f = 0;
  unsigned seed = 3;
  while (at < n) {
    seed = seed * 1103515245u + 12345u;
    size_t k = 1 + (seed >> 8) % 70000;
    if (at + k > flush_at[f])
      k = flush_at[f] - at;
    ck_assert_int_eq(sm_dio_append(d, src + at, k), 0);
    at += k;
    if (at == flush_at[f]) {
      uint32_t c;
      uint64_t len;
      ck_assert_int_eq(sm_dio_flush(d, &c, &len, &end), 0);
      crc = sm_crc32c_combine(crc, c, len);
      total += len;
      ck_assert_uint_eq(end, at);
      f++;
    }
  }
  ck_assert_uint_eq(total, n);
  ck_assert_uint_eq(crc, sm_crc32c(0, src, n));
  ck_assert_int_eq(sm_dio_intact(d), 1);
  sm_dio_stop(d);
  ck_assert_int_eq(fsync(fd), 0);
  struct stat sb;
  ck_assert_int_eq(fstat(fd, &sb), 0);
  ck_assert_int_eq((long long)sb.st_size, (long long)n);
  unsigned char *back = malloc(n);
  ck_assert_ptr_nonnull(back);
  ck_assert_int_eq((long long)pread(fd, back, n, 0), (long long)n);
  ck_assert_int_eq(memcmp(back, src, n), 0);
  free(back);
  free(src);
  close(fd);
  unlink(path);
}
END_TEST

START_TEST(another_process_opens)
{
  const size_t n = 3 * 4096 + 10;
  unsigned char *src = data(n, 11);
  int fd = fresh();
  ck_assert_int_ge(fd, 0);
  sm_dio_t *d = sm_dio_start(fd);
  ck_assert_ptr_nonnull(d);
  uint32_t c;
  uint64_t len, end;
  ck_assert_int_eq(sm_dio_append(d, src, n), 0);
  ck_assert_int_eq(sm_dio_flush(d, &c, &len, &end), 0);
  ck_assert_int_eq(sm_dio_intact(d), 1);
  /* another process opens it for writing (its open waits for the lease to
   * be given up) and changes a byte */
  const pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    const int g = open(path, O_RDWR);
    _exit(g >= 0 && pwrite(g, "Z", 1, 5) == 1 ? 0 : 1);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  ck_assert_int_eq(sm_dio_intact(d), 0);
  /* what this process writes next still reaches the file */
  ck_assert_int_eq(sm_dio_append(d, src, 100), 0);
  ck_assert_int_eq(sm_dio_flush(d, &c, &len, &end), 0);
  ck_assert_uint_eq(end, n + 100);
  sm_dio_stop(d);
  unsigned char b;
  ck_assert_int_eq(pread(fd, &b, 1, 5), 1);
  ck_assert_int_eq(b, 'Z');
  free(src);
  close(fd);
  unlink(path);
}
END_TEST

START_TEST(not_taken)
{
  int fd = fresh();
  ck_assert_int_ge(fd, 0);
  /* switched off */
  setenv("STARMET_DIRECT_IO", "0", 1);
  ck_assert_ptr_null(sm_dio_start(fd));
  unsetenv("STARMET_DIRECT_IO");
  /* another open of the file: no lease to be had */
  int g = open(path, O_RDONLY | O_CLOEXEC);
  ck_assert_int_ge(g, 0);
  ck_assert_ptr_null(sm_dio_start(fd));
  close(g);
  /* a file not empty */
  ck_assert_int_eq(write(fd, "x", 1), 1);
  ck_assert_ptr_null(sm_dio_start(fd));
  ck_assert_int_eq(ftruncate(fd, 0), 0);
  /* one at a time */
  sm_dio_t *d = sm_dio_start(fd);
  ck_assert_ptr_nonnull(d);
  int fd2 = open("test_dio.other.tmp", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ck_assert_int_ge(fd2, 0);
  ck_assert_ptr_null(sm_dio_start(fd2));
  sm_dio_stop(d);
  close(fd2);
  unlink("test_dio.other.tmp");
  close(fd);
  unlink(path);
}
END_TEST

int main(void)
{
  /* where the build directory's file system cannot, nothing to test */
  int fd = fresh();
  sm_dio_t *d = fd >= 0 ? sm_dio_start(fd) : NULL;
  sm_dio_stop(d);
  if (fd >= 0)
    close(fd);
  unlink(path);
  if (!d) {
    printf("no O_DIRECT or no leases on this file system: skipped\n");
    return 77;
  }
  Suite *s = suite_create("dio");
  TCase *tc = tcase_create("dio");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_byte);
  tcase_add_test(tc, another_process_opens);
  tcase_add_test(tc, not_taken);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_set_fork_status(r, CK_NOFORK);
  srunner_run_all(r, CK_NORMAL);
  const int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
