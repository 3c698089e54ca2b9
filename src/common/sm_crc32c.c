/* sm_crc32c.c: CRC-32C, reflected polynomial 0x82f63b78, initial and final
 * value all ones. Bytewise from a table where SSE4.2 is missing. */
#include "sm_crc32c.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SM_CRC32C_POLY 0x82f63b78u

static uint32_t table[256];

static void make_table(void)
{
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t c = b;
    for (int k = 0; k < 8; k++)
      c = c & 1 ? (c >> 1) ^ SM_CRC32C_POLY : c >> 1;
    table[b] = c;
  }
}

static uint32_t crc_table(uint32_t c, const unsigned char *p, size_t n)
{
  if (!table[1])
    make_table(); /* idempotent: threads that race write the same values */
  while (n--)
    c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
  return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t
crc_sse42(uint32_t c, const unsigned char *p, size_t n)
{
  uint64_t c64 = c;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c64 = __builtin_ia32_crc32di(c64, w);
  }
  c = (uint32_t)c64;
  for (; n; n--)
    c = __builtin_ia32_crc32qi(c, *p++);
  return c;
}

static int have_sse42(void)
{
  static int have = -1;
  if (have < 0)
    have = __builtin_cpu_supports("sse4.2") ? 1 : 0;
  return have;
}
#else
static int have_sse42(void)
{
  return 0;
}
#define crc_sse42 crc_table
#endif

const char *sm_crc32c_impl(void)
{
  return have_sse42() ? "sse4.2" : "table";
}

uint32_t sm_crc32c(uint32_t crc, const void *p, size_t n)
{
  const uint32_t c = ~crc;
  return ~(have_sse42() ? crc_sse42(c, p, n) : crc_table(c, p, n));
}

sm_err_t sm_crc32c_fd(int fd, uint64_t off, uint64_t n, uint32_t *crc)
{
  const size_t chunk = 1 << 20;
  unsigned char *buf = malloc(chunk);
  if (!buf)
    return SM_ENOMEM;
  uint32_t c = 0;
  while (n) {
    const size_t want = n < chunk ? (size_t)n : chunk;
    const ssize_t got = pread(fd, buf, want, (off_t)off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      if (got == 0)
        errno = 0; /* the file ends first */
      free(buf);
      return SM_EIO;
    }
    c = sm_crc32c(c, buf, (size_t)got);
    off += (uint64_t)got;
    n -= (uint64_t)got;
  }
  free(buf);
  *crc = c;
  return SM_OK;
}
