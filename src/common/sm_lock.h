/* sm_lock.h: the lock a run holds on the names of the files it writes.
 * One lock file, STEM.lock, per stem (an output prefix; a file named by
 * its own option, such as --summary, without its extension), held with
 * flock from before the run computes until its files are committed, so
 * that a second run writing files of the same stem is refused with the
 * first one's pid and command instead of mixing its files with them. */
#ifndef SM_LOCK_H
#define SM_LOCK_H

#include <stddef.h>

#include "sm_error.h"

#define SM_LOCK_MAX 4 /* stems a run may lock */

typedef struct sm_lockset {
  int n;
  int fd[SM_LOCK_MAX];
  char *path[SM_LOCK_MAX]; /* STEM.lock */
} sm_lockset_t;

/** The stem of a file named by an option (--summary run1.json): the path
 * without the extension of its last part ("run1"), into buf. */
void sm_lock_stem(const char *path, char *buf, size_t len);

/** Lock every stem of stems[0..n) (NULL, "" and repeated entries are
 * skipped): create or open STEM.lock (never through a link), take its
 * lock without waiting, and write this process's pid and command into it.
 * A stem locked by another process: logs "another starmet run is writing
 * files named STEM.* (pid P on HOST: COMMAND)" after what[k] (the option
 * and value that named it: "--summary run1.json") and returns SM_EIO,
 * releasing what was taken; a lock file that cannot be made: SM_EIO naming
 * it. l is zeroed first. */
sm_err_t sm_lock_take(sm_lockset_t *l, const char *const *stems, const char *const *what,
                      int n, const char *command) SM_MUST_CHECK;

/** Release every lock of l and remove the lock files. Accepts a zeroed
 * set. */
void sm_lock_release(sm_lockset_t *l);

#endif
