/* sm_read_util.c: helpers shared by the input readers (sm_read_tsv.c,
 * sm_read_npy.c, sm_read_plink.c, sm_read_raw.c): slice checks, exact
 * positioned reads, czekanowski value storing and checking. */
#include "sm_read_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

sm_err_t sm_read_slice_axis(const char *path, const char *what, size_t n,
                            size_t start, size_t count, size_t *kept)
{
  if (start >= n || count > n - start) {
    char range[64];
    if (count)
      snprintf(range, sizeof range, "%zu..%zu", start + 1, start + count);
    else
      snprintf(range, sizeof range, "from %zu on", start + 1);
    sm_log_error("%s: %ss %s requested but the input has %zu %ss; adjust the "
                 "%s range", path, what, range, n, what, what);
    return SM_EOPTION;
  }
  *kept = count ? count : n - start;
  return SM_OK;
}

int sm_read_at(int fd, void *buf, size_t n, off_t off)
{
  char *p = buf;
  while (n > 0) {
    ssize_t r = pread(fd, p, n, off);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return errno;
    if (r == 0)
      return EIO;
    p += r;
    n -= (size_t)r;
    off += r;
  }
  return 0;
}

int sm_read_czek_ok(double x, size_t elem_size)
{
  double stored = elem_size == 4 ? (double)(float)x : x;
  return stored >= 0.0 && !isinf(stored);
}

void sm_read_store_czek(void *row, size_t elem_size, size_t f, double x)
{
  if (elem_size == 4)
    ((float *)row)[f] = (float)x;
  else
    ((double *)row)[f] = x;
}
