/* sm_crc32c.h: CRC-32C (Castagnoli), the checksum that vouches for bytes a
 * run relies on later: the input files a --resume must find unchanged and
 * the output blocks its manifest records. Streaming (any split of the bytes
 * gives the same value); SSE4.2's crc32 instruction where the CPU has it. */
#ifndef SM_CRC32C_H
#define SM_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"

/** The CRC-32C of the bytes so far (0 before any) extended by n bytes at p.
 * sm_crc32c(0, "123456789", 9) is 0xe3069283. */
uint32_t sm_crc32c(uint32_t crc, const void *p, size_t n);

/** The CRC-32C of bytes A then B from crc_a (A's), crc_b (B's) and B's
 * length, without the bytes: sm_crc32c_combine(sm_crc32c(0, a, n),
 * sm_crc32c(0, b, m), m) == sm_crc32c(sm_crc32c(0, a, n), b, m). */
uint32_t sm_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/** How this CPU computes it: "sse4.2" (the crc32 instruction) or "table". */
const char *sm_crc32c_impl(void);

/** The CRC-32C of n bytes of fd from offset off (read with pread; fd's
 * position is left alone). SM_EIO with errno set when fewer bytes could be
 * read. */
sm_err_t sm_crc32c_fd(int fd, uint64_t off, uint64_t n, uint32_t *crc) SM_MUST_CHECK;

#endif
