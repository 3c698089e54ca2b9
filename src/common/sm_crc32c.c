/* sm_crc32c.c: CRC-32C, reflected polynomial 0x82f63b78, initial and final
 * value all ones. Bytewise from a table where SSE4.2 is missing. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "sm_crc32c.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SM_CRC32C_POLY 0x82f63b78u

/* Polynomials over GF(2) modulo the CRC's, in its reflected bit order (the
 * highest bit is x^0): the product of a and b. */
static uint32_t mul_mod_poly(uint32_t a, uint32_t b)
{
  uint32_t p = 0;
  for (uint32_t m = 1u << 31; m && a; m >>= 1) {
    if (a & m) {
      p ^= b;
      a ^= m;
    }
    b = b & 1 ? (b >> 1) ^ SM_CRC32C_POLY : b >> 1;
  }
  return p;
}

/* x^(8 n) modulo the polynomial: what appending n bytes multiplies a
 * register by (x^8 squared up the bits of n). */
static uint32_t shift_bytes(uint64_t n)
{
  uint32_t shift = 1u << 31, sq = 1u << 23; /* 1 and x^8 */
  for (; n; n >>= 1) {
    if (n & 1)
      shift = mul_mod_poly(shift, sq);
    sq = mul_mod_poly(sq, sq);
  }
  return shift;
}

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

/* Three lanes of L bytes at a time, so that the crc32 instruction's
 * latency (3 cycles) overlaps, then joined as sm_crc32c_combine does (with
 * x^(8 L) computed once per lane size). L is the largest power of two
 * from 1 KiB to 16 KiB whose three lanes fit what is left: a text
 * block's append of tens of kilobytes goes three times as fast as in one
 * lane, and the two multiplications of a join (about 100 cycles) stay
 * under a tenth of a round. Takes and returns a finished CRC. */
enum { SM_CRC_LANE_MIN = 10, SM_CRC_LANE_MAX = 14 }; /* log2 of the lanes' sizes */
__attribute__((target("sse4.2"))) static uint32_t
crc_sse42_lanes(uint32_t crc, const unsigned char *p, size_t n)
{
  static uint32_t lane_shift[SM_CRC_LANE_MAX + 1];
  for (int e = SM_CRC_LANE_MAX; e >= SM_CRC_LANE_MIN; e--) {
    const size_t lane = (size_t)1 << e;
    if (n < 3 * lane)
      continue;
    uint32_t shift = __atomic_load_n(&lane_shift[e], __ATOMIC_RELAXED);
    if (!shift) /* threads that race store the same */
      __atomic_store_n(&lane_shift[e], shift = shift_bytes(lane), __ATOMIC_RELAXED);
    for (; n >= 3 * lane; n -= 3 * lane, p += 3 * lane) {
      uint64_t a = (uint32_t)~crc, b = 0xffffffffu, c = 0xffffffffu;
      for (size_t k = 0; k < lane; k += 8) {
        uint64_t wa, wb, wc;
        memcpy(&wa, p + k, 8);
        memcpy(&wb, p + lane + k, 8);
        memcpy(&wc, p + 2 * lane + k, 8);
        a = __builtin_ia32_crc32di(a, wa);
        b = __builtin_ia32_crc32di(b, wb);
        c = __builtin_ia32_crc32di(c, wc);
      }
      const uint32_t ab = mul_mod_poly(shift, ~(uint32_t)a) ^ ~(uint32_t)b;
      crc = mul_mod_poly(shift, ab) ^ ~(uint32_t)c;
    }
  }
  return ~crc_sse42(~crc, p, n);
}

static int have_sse42(void)
{
  static int have = -1; /* found once (threads that race store the same) */
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0)
    __atomic_store_n(&have, h = __builtin_cpu_supports("sse4.2") ? 1 : 0,
                     __ATOMIC_RELAXED);
  return h;
}
#else
static int have_sse42(void)
{
  return 0;
}
static uint32_t crc_sse42_lanes(uint32_t crc, const unsigned char *p, size_t n)
{
  return ~crc_table(~crc, p, n);
}
#endif

const char *sm_crc32c_impl(void)
{
  return have_sse42() ? "sse4.2" : "table";
}

uint32_t sm_crc32c(uint32_t crc, const void *p, size_t n)
{
  if (have_sse42())
    return crc_sse42_lanes(crc, p, n);
  return ~crc_table(~crc, p, n);
}

/* One part of a file's CRC: n bytes from off, read in 1 MiB chunks. */
typedef struct fd_part {
  int fd;
  uint64_t off, n;
  uint32_t crc;
  sm_err_t err;
  int errnum;
} fd_part_t;

static void *crc_part(void *arg)
{
  fd_part_t *p = arg;
  const size_t chunk = 1 << 20;
  unsigned char *buf = malloc(chunk);
  uint64_t off = p->off, n = p->n;
  uint32_t c = 0;
  p->err = buf ? SM_OK : SM_ENOMEM;
  p->errnum = buf ? 0 : ENOMEM;
  while (!p->err && n) {
    const size_t want = n < chunk ? (size_t)n : chunk;
    const ssize_t got = pread(p->fd, buf, want, (off_t)off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      p->errnum = got == 0 ? 0 : errno; /* 0: the file ends first */
      p->err = SM_EIO;
      break;
    }
    c = sm_crc32c(c, buf, (size_t)got);
    off += (uint64_t)got;
    n -= (uint64_t)got;
  }
  free(buf);
  p->crc = c;
  return NULL;
}

/* The CPUs this process may run on (1 when unknown). */
static int cpus_allowed(void)
{
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
#endif
  return 1;
}

sm_err_t sm_crc32c_fd(int fd, uint64_t off, uint64_t n, uint32_t *crc)
{
  /* a large file (an output read back at the end of a run, its cores
   * idle) in up to four parts read at once, their CRCs joined */
  enum { PARTS_MAX = 4 };
  const uint64_t part_min = (uint64_t)64 << 20;
  int np = n >= 2 * part_min ? cpus_allowed() : 1;
  np = np > PARTS_MAX ? PARTS_MAX : np;
  fd_part_t parts[PARTS_MAX];
  pthread_t th[PARTS_MAX];
  int started[PARTS_MAX] = {0};
  for (int k = 0; k < np; k++) {
    const uint64_t a = n / (uint64_t)np * (uint64_t)k,
                   b = k + 1 == np ? n : n / (uint64_t)np * (uint64_t)(k + 1);
    parts[k] = (fd_part_t){.fd = fd, .off = off + a, .n = b - a};
    /* part 0 on this thread; a thread that cannot start: its part here */
    if (k > 0)
      started[k] = pthread_create(&th[k], NULL, crc_part, &parts[k]) == 0;
  }
  crc_part(&parts[0]);
  for (int k = 1; k < np; k++)
    if (started[k])
      pthread_join(th[k], NULL);
    else
      crc_part(&parts[k]);
  uint32_t c = 0;
  for (int k = 0; k < np; k++) {
    if (parts[k].err) {
      errno = parts[k].errnum;
      return parts[k].err;
    }
    c = k ? sm_crc32c_combine(c, parts[k].crc, parts[k].n) : parts[k].crc;
  }
  *crc = c;
  return SM_OK;
}

uint32_t sm_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
  return mul_mod_poly(shift_bytes(len_b), crc_a) ^ crc_b;
}
