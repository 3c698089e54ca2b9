/* sm_test.h: small helpers shared by the Check test programs: a main() that
 * runs one suite, and temporary files under the build tree. */
#ifndef SM_TEST_H
#define SM_TEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Path of a file in the source tree ($top_srcdir, set by make check). */
static inline const char *sm_test_srcpath(const char *rel)
{
  static char buf[4][4096];
  static int k;
  const char *top = getenv("top_srcdir");
  char *b = buf[k++ & 3];
  int n = snprintf(b, sizeof buf[0], "%s/%s", top ? top : ".", rel);
  if (n < 0 || (size_t)n >= sizeof buf[0])
    abort();
  return b;
}

/* A fresh temporary directory for this test program (removed by make clean). */
static inline const char *sm_test_tmpdir(void)
{
  static char dir[4096];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "tests/tmp.XXXXXX");
    if (!mkdtemp(dir)) {
      perror("mkdtemp");
      abort();
    }
  }
  return dir;
}

/* Write a text file in the temporary directory; returns its path. */
static inline const char *sm_test_write(const char *name, const void *data, size_t len)
{
  static char path[8][4096];
  static int k;
  char *p = path[k++ & 7];
  int len_ = snprintf(p, sizeof path[0], "%s/%s", sm_test_tmpdir(), name);
  if (len_ < 0 || (size_t)len_ >= sizeof path[0])
    abort();
  FILE *f = fopen(p, "wb");
  if (!f || fwrite(data, 1, len, f) != len) {
    perror(p);
    abort();
  }
  fclose(f);
  return p;
}

/* Parts of a program's tests that could not run here (a missing
 * instruction set): the program then exits 77, Automake's SKIP, unless a
 * test failed. Say what was not tested with sm_test_skip. */
static int sm_test_nskipped;
static inline void sm_test_skip(const char *what)
{
  printf("SKIPPED: %s\n", what);
  sm_test_nskipped++;
}

#define SM_TEST_MAIN(suite_fn)                                                           \
  int main(void)                                                                         \
  {                                                                                      \
    SRunner *sr = srunner_create(suite_fn());                                            \
    srunner_set_fork_status(sr, CK_NOFORK);                                              \
    srunner_run_all(sr, CK_NORMAL);                                                      \
    int nf = srunner_ntests_failed(sr);                                                  \
    srunner_free(sr);                                                                    \
    if (nf == 0 && sm_test_nskipped)                                                     \
      printf("%d part(s) could not be tested here: SKIP\n", sm_test_nskipped);           \
    return nf != 0 ? EXIT_FAILURE : sm_test_nskipped ? 77 : EXIT_SUCCESS;                \
  }

#endif
