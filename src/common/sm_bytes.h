/* sm_bytes.h: little-endian packing of the binary file formats' integers
 * (starmet's result and SAF files), independent of the host's order, and
 * byte counts as messages say them. */
#ifndef SM_BYTES_H
#define SM_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/** Store x at p as 4 little-endian bytes. */
static inline void sm_put_le32(unsigned char *p, uint32_t x)
{
  for (int k = 0; k < 4; k++)
    p[k] = (unsigned char)(x >> (8 * k));
}

/** Store x at p as 8 little-endian bytes. */
static inline void sm_put_le64(unsigned char *p, uint64_t x)
{
  for (int k = 0; k < 8; k++)
    p[k] = (unsigned char)(x >> (8 * k));
}

/** The 4 and 8 little-endian bytes at p. */
static inline uint32_t sm_get_le32(const unsigned char *p)
{
  uint32_t x = 0;
  for (int k = 3; k >= 0; k--)
    x = x << 8 | p[k];
  return x;
}

static inline uint64_t sm_get_le64(const unsigned char *p)
{
  uint64_t x = 0;
  for (int k = 7; k >= 0; k--)
    x = x << 8 | p[k];
  return x;
}

/** Store value v at p as a little-endian float32 (single) or float64;
 * returns the bytes stored (4 or 8). */
static inline unsigned sm_put_value(unsigned char *p, double v, int single)
{
  if (single) {
    const float y = (float)v;
    uint32_t u;
    memcpy(&u, &y, 4);
    sm_put_le32(p, u);
    return 4;
  }
  uint64_t u;
  memcpy(&u, &v, 8);
  sm_put_le64(p, u);
  return 8;
}

/** n bytes for a message, into buf: "512 MB", "1010 MB", "3 bytes" (units
 * of 1024). Returns buf. */
static inline const char *sm_human_bytes(uint64_t n, char *buf, size_t len)
{
  static const char *const unit[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
  double x = (double)n;
  int u = 0;
  while (x >= 1024 && u < 5)
    x /= 1024, u++;
  snprintf(buf, len, u && x < 1000 ? "%.3g %s" : "%.0f %s", x, unit[u]);
  return buf;
}

#endif
