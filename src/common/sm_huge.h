/* sm_huge.h: large buffers on transparent huge pages, where the kernel
 * offers them on request (THP "madvise", Debian's default): a buffer of
 * hundreds of megabytes is then a few hundred page faults rather than
 * tens of thousands of 4 KiB ones, and its rows read with fewer TLB
 * misses. Freed with free(). */
#ifndef SM_HUGE_H
#define SM_HUGE_H

#include <stdlib.h>
#include <sys/mman.h>

/** bytes (rounded up to 64) aligned on 64 bytes; from 4 MiB on, rounded
 * up to and aligned on 2 MiB, advised as huge pages. NULL without memory. */
static inline void *sm_huge_alloc(size_t bytes)
{
  const size_t huge = (size_t)2 << 20;
  if (bytes < 2 * huge)
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (bytes > SIZE_MAX - huge)
    return NULL;
  bytes = (bytes + huge - 1) / huge * huge;
  void *p = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
  if (p)
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: refused, small pages */
#endif
  return p;
}

#endif
