/* sm_dio.h: a new output file written straight to the disk (O_DIRECT), its
 * appends checksummed while they are in the core's cache, and guarded by
 * a write lease so that the run knows whether another process opened it.
 *
 * A large table (PLINK's .ld of a wide window: gigabytes) written through
 * the page cache costs its writer a copy of every byte into fresh pages,
 * and then the disk writes them again before the output may be committed
 * (fsync); its check reads it back. Written with O_DIRECT, the disk takes
 * the bytes from the writer's buffers (a thread of this module waits on
 * it while the run goes on), and the lease (fcntl F_SETLEASE, Linux) says
 * whether any other process opened the file since it was created: when
 * none did, the bytes on the disk are those that were written and their
 * CRC is known without reading them back.
 *
 * Only where all of it holds (Linux, a file system with O_DIRECT and
 * leases, no other process holding the new file open); elsewhere
 * sm_dio_start returns NULL and the caller writes as before. One at a time
 * in a process. Not for the files --resume appends to. */
#ifndef SM_DIO_H
#define SM_DIO_H

#include <stddef.h>
#include <stdint.h>

typedef struct sm_dio sm_dio_t;

/** Direct, leased writing of fd, an empty regular file this process has
 * just created and holds open once (another open of it, by this process
 * too, breaks the lease). NULL when it cannot be had (nothing changed
 * then) or when STARMET_DIRECT_IO is 0. */
sm_dio_t *sm_dio_start(int fd);
/** Append n bytes. 0, or -1 with errno set by a failed write (every later
 * call fails too). */
int sm_dio_append(sm_dio_t *d, const void *p, size_t n);
/** Everything appended on the file (the last partial block through the
 * page cache), not yet synced: *crc and *len the CRC-32C and length of the
 * bytes appended since the previous flush, *end the file's length. 0, or
 * -1 with errno set. */
int sm_dio_flush(sm_dio_t *d, uint32_t *crc, uint64_t *len, uint64_t *end);
/** 1 when no other process has opened the file since sm_dio_start (the
 * lease still held, no break pending), else 0. */
int sm_dio_intact(const sm_dio_t *d);
/** Stop: wait for the writes under way, give the lease up, clear O_DIRECT,
 * free d (NULL: nothing). The file stays open, not synced. */
void sm_dio_stop(sm_dio_t *d);

#endif
