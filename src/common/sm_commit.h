/* sm_commit.h: atomic file replacement, used by every writer. A file is
 * written under a temporary name next to its final one and renamed over it
 * only once its bytes are on disk, so a reader finds the old file or the
 * complete new one, never a part of it. */
#ifndef SM_COMMIT_H
#define SM_COMMIT_H

#include <stdint.h>
#include <stdio.h>

#include "sm_error.h"

/* Room for any name the system can open (PATH_MAX is 4096 on Linux) plus
 * a suffix; a longer name fails as the system would (ENAMETOOLONG). */
#define SM_COMMIT_NAME_MAX (4096 + 64)

typedef struct sm_commit {
  FILE *f;                       /* the temporary file; NULL once closed */
  char path[SM_COMMIT_NAME_MAX]; /* final name */
  char tmp[SM_COMMIT_NAME_MAX];  /* temporary name: path + suffix [+ .pid] */
  int keep;                      /* a failed rename leaves the temporary file (results a
                                    --resume completes); 0 after sm_commit_open: removed */
  uint64_t len;                  /* bytes written with sm_commit_write ... */
  uint32_t crc;                  /* ... and their CRC-32C, for sm_commit_verify */
  uint64_t wb_start;             /* sm_commit_writeback: where it started last, */
  uint64_t wb_bytes;             /* and the bytes written since */
} sm_commit_t;

/** Open the temporary file of path: path + suffix (".part", ".new"), with
 * ".<pid>" appended when unique (several processes may write the same
 * path), in fopen mode (binary writes: "wb"; "r+b" reopens an existing
 * temporary, as --resume does). A temporary that is not unique is locked
 * (flock) before it is truncated, for as long as it is open: a second
 * process opening it fails with errno EBUSY and leaves it alone (see
 * sm_commit_strerror). Returns SM_OK, or SM_EIO with errno set and c->tmp
 * naming the file for the caller's message. Logs nothing. */
sm_err_t sm_commit_open(sm_commit_t *c, const char *path, const char *suffix, int unique,
                        const char *mode) SM_MUST_CHECK;

/** Take the lock sm_commit_open takes on an open file (EBUSY when another
 * process holds it): for files kept open under their final name. */
sm_err_t sm_commit_lock(FILE *f) SM_MUST_CHECK;

/** strerror, with EBUSY from the functions above explained (another
 * process is writing the file), and ENOTSUP (the final path is not a
 * regular file: sm_commit_rename refuses to replace it). */
const char *sm_commit_strerror(int err);

/** After a failed write with errno err: the system's reason and what it
 * means here ("No space left on device (the disk is full)", "File too
 * large (the file-size limit: ulimit -f)"), for "PATH: write failed: %s". */
const char *sm_commit_write_error(int err);

/** What to check after a failed sm_commit_open with errno err, to follow
 * sm_commit_strerror in a message: "" for EBUSY, else a hint about the
 * directory. */
const char *sm_commit_hint(int err);

/** Before a run computes anything: the directory a file named path (an
 * output prefix or a file name) will be written in must exist and be a
 * writable directory; missing directories are not created (a mistyped path
 * would make one), and its last part must be a name ("", "." and ".."
 * are refused: "out/" is not a prefix). Logs one error naming the option
 * `what`, the directory and the command that makes it, and returns SM_EIO,
 * otherwise SM_OK. */
sm_err_t sm_commit_check_dir(const char *what, const char *path) SM_MUST_CHECK;

/** An input path that names a directory (which opens, and would read as an
 * empty or damaged file): logs "path: a directory, not an input file", then
 * hint, and returns SM_EIO; SM_OK otherwise (a missing file is the
 * reader's to report). */
sm_err_t sm_check_not_dir(const char *path, const char *hint) SM_MUST_CHECK;

/** Append n bytes at p to the temporary file, counted for
 * sm_commit_verify. 0, or -1 with errno set (a short write). */
int sm_commit_write(sm_commit_t *c, const void *p, size_t n);

/** sm_commit_write of printf's text. 0, or -1. */
int sm_commit_printf(sm_commit_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Before the rename: flush and sync, then check that the file holds
 * exactly what sm_commit_write wrote from its start (its size and CRC-32C),
 * so that a file another process truncated or wrote to is never renamed as
 * complete. SM_OK; SM_EIO logged with the file's name. The file stays
 * open. */
sm_err_t sm_commit_verify(sm_commit_t *c) SM_MUST_CHECK;

/** Whether the temporary name still names the open file: 0 when it does;
 * 1, logged with the name, when another file was put in its place (or it
 * was removed): renaming it then would commit someone else's bytes. */
int sm_commit_replaced(const sm_commit_t *c);

/** A large file's bytes to the disk while it is written, rather than all
 * at the sync: told of every n bytes written through c->f, once 16 MiB
 * were written since the range it last started, flush the stream and
 * start the writeback of the new range without waiting for it (Linux's
 * sync_file_range; elsewhere nothing), so that the disk writes while the
 * run computes and the final fsync waits for the last range only. 0, or
 * -1 with errno set when the flush failed. */
int sm_commit_writeback(sm_commit_t *c, size_t n);

/** Put what was written on disk (fflush, fsync); the file stays open.
 * SM_EIO (errno set) when this or any earlier write failed. Logs nothing. */
sm_err_t sm_commit_sync(sm_commit_t *c) SM_MUST_CHECK;

/** sm_commit_sync, then close the file. On failure the temporary file is
 * removed. SM_OK or SM_EIO (errno set). Logs nothing. */
sm_err_t sm_commit_close(sm_commit_t *c) SM_MUST_CHECK;

/** Rename the temporary file to the final name (the file may still be open:
 * it keeps being the final file), then sync the directory so that the
 * rename survives a crash. A final path that exists and is not a regular
 * file is never replaced (errno ENOTSUP). On failure the old file is left
 * as it was and the temporary file is removed, unless c->keep is set.
 * SM_OK or SM_EIO (errno set). Logs nothing. */
sm_err_t sm_commit_rename(sm_commit_t *c) SM_MUST_CHECK;

/** sm_commit_close then sm_commit_rename: the usual end of a writer. */
sm_err_t sm_commit_finish(sm_commit_t *c) SM_MUST_CHECK;

/** Give up: close the file if open and remove the temporary file. errno is
 * preserved for the caller's message. */
void sm_commit_abort(sm_commit_t *c);

/** The output policy, before a run computes anything: for every path
 * outs[0..nout) it will write (NULL or "" entries are skipped; what[k]
 * names the option behind outs[k]): it is shorter than the system's limits
 * (PATH_MAX for the path, the file system's NAME_MAX for its last part,
 * said as such: a path cut short by a buffer must never look like another
 * file); its directory exists and is writable
 * (sm_commit_check_dir); the path is absent or a regular file (a directory,
 * a device, a FIFO, a socket or a symbolic link is never replaced); no two
 * paths are the same file; and none is one of the inputs ins[0..nin) (same
 * device and inode). Logs the first violation, naming the option and the
 * path, and returns SM_EOPTION; SM_OK otherwise. sm_commit_open and
 * sm_commit_rename enforce the same rules on every file a writer makes, so
 * a writer that skipped this check still cannot write through a link or
 * replace what is not a regular file. */
sm_err_t sm_commit_check_outputs(const char *const *outs, const char *const *what,
                                 size_t nout, const char *const *ins,
                                 size_t nin) SM_MUST_CHECK;

#endif
