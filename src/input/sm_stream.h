/* sm_stream.h: inputs that are streams (a pipe, a FIFO, /dev/stdin, a
 * process substitution's /dev/fd/N, a character device), which can be read
 * only once. The first reader to open one copies it into an in-memory file,
 * within the memory the process may take (sm_stream_set_room); every later
 * read in the process (the size probe, each slice) reads that copy. */
#ifndef SM_STREAM_H
#define SM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"

/** 1 when path names something that is not a regular file nor a directory
 * (a FIFO, a pipe, a character or block device, a socket), which must not
 * be opened twice; 0 for a regular file, a directory, or a path that
 * cannot be looked up (its reader reports that). Symbolic links are
 * followed (/dev/stdin, /dev/fd/N). Opens nothing. */
int sm_input_is_stream(const char *path);

/** The memory the copies of streams may take together, in bytes, and what
 * sets that limit, for the message refusing a larger stream (e.g.
 * sm_mem_room's room and what). Unset (or room 0): this machine's
 * physical memory. */
void sm_stream_set_room(uint64_t room, const char *what);

/* How much of a stream its reader can use: where the copy may stop early,
 * so that an endless or wrong stream (/dev/zero) is refused at once
 * instead of being copied up to the memory limit. */
typedef struct sm_stream_rule {
  /* The first bytes of what the reader reads (NULL-ended; empty: no magic).
   * Data that start with one of them are copied whole. Other data are
   * text when text is set (below); else the copy stops after its first
   * 4 KiB, where the reader refuses them. */
  const char *magic[4];
  /* Text: the copy stops after the first NUL byte, which the text reader
   * refuses at its line and column. */
  int text;
  /* Bytes the reader uses at most (0: all): the copy stops there. */
  uint64_t max;
} sm_stream_rule_t;

/** Where a reader opens path. A regular file (or what cannot be looked
 * up): path itself. A stream: its in-memory copy, made by the first call
 * for it in this process (by rule; later calls share it whatever their
 * rule), named "/proc/self/fd/N" in src (len bytes). Messages must still
 * name path. Logs and returns SM_EIO when the stream cannot be opened or
 * read, SM_ENOMEM when it is larger than the room left
 * (sm_stream_set_room; the limit is named: write it to a file instead). */
sm_err_t sm_stream_source(const char *path, const sm_stream_rule_t *rule, char *src,
                          size_t len) SM_MUST_CHECK;

#endif
