/* sm_lock.c: lock files on output stems (flock on STEM.lock, checked to
 * still be the file at that name, so that a holder removing it on release
 * cannot leave two runs each holding a lock of its own). */
#include "sm_lock.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sm_lock_stem(const char *path, char *buf, size_t len)
{
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  const size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  snprintf(buf, len, "%.*s", (int)keep, path);
}

/* What the holder of the lock file fd wrote: "pid P on HOST: COMMAND". */
static void read_holder(int fd, char *buf, size_t len)
{
  const ssize_t got = pread(fd, buf, len - 1, 0);
  buf[got > 0 ? got : 0] = 0;
  buf[strcspn(buf, "\n")] = 0;
  if (!buf[0])
    snprintf(buf, len, "a process that has not said which");
}

/* Whether the set already holds the file of st (the same stem spelled
 * another way: "out" and "/dir/out" from /dir). */
static int held(const sm_lockset_t *l, const struct stat *st)
{
  for (int k = 0; k < l->n; k++) {
    struct stat h;
    if (fstat(l->fd[k], &h) == 0 && h.st_ino == st->st_ino && h.st_dev == st->st_dev)
      return 1;
  }
  return 0;
}

/* Lock path: SM_OK with *fd (-1: the set holds it already); SM_EIO with
 * errno EBUSY (holder in holder) or the reason it cannot be opened. */
static sm_err_t lock_one(const sm_lockset_t *l, const char *path, const char *command,
                         int *fd_out, char *holder, size_t hlen)
{
  for (int attempt = 0; attempt < 16; attempt++) {
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      return SM_EIO;
    struct stat a, b;
    if (fstat(fd, &a) != 0 || !S_ISREG(a.st_mode)) {
      close(fd);
      errno = ENOTSUP;
      return SM_EIO;
    }
    if (held(l, &a)) {
      close(fd);
      *fd_out = -1;
      return SM_OK;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      if (e == EWOULDBLOCK)
        read_holder(fd, holder, hlen);
      close(fd);
      errno = e == EWOULDBLOCK ? EBUSY : e;
      return SM_EIO;
    }
    /* the previous holder may have removed it between our open and lock */
    if (stat(path, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
      close(fd);
      continue;
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
      host[0] = 0;
    char text[600];
    const int n =
        snprintf(text, sizeof text, "pid %ld on %s: %.500s\n", (long)getpid(),
                 host[0] ? host : "this machine", command ? command : "starmet");
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
      const int e = errno;
      unlink(path);
      close(fd);
      errno = e;
      return SM_EIO;
    }
    *fd_out = fd;
    return SM_OK;
  }
  errno = EAGAIN;
  return SM_EIO;
}

sm_err_t sm_lock_take(sm_lockset_t *l, const char *const *stems, const char *const *what,
                      int n, const char *command)
{
  memset(l, 0, sizeof *l);
  for (int k = 0; k < n; k++) {
    if (!stems[k] || !stems[k][0])
      continue;
    int seen = 0;
    for (int j = 0; j < k; j++)
      seen |= stems[j] && !strcmp(stems[j], stems[k]);
    if (seen || l->n == SM_LOCK_MAX)
      continue;
    const size_t len = strlen(stems[k]) + sizeof ".lock";
    char *path = malloc(len);
    if (!path) {
      sm_log_error("out of memory locking the output files");
      sm_lock_release(l);
      return SM_ENOMEM;
    }
    snprintf(path, len, "%s.lock", stems[k]);
    char holder[700];
    int fd;
    if (lock_one(l, path, command, &fd, holder, sizeof holder) != SM_OK) {
      if (errno == EBUSY)
        sm_log_error("%s: another starmet run is writing files named %s.* (%s; lock file "
                     "%s): wait until it ends, or choose another name",
                     what[k], stems[k], holder, path);
      else if (errno == ENOTSUP || errno == ELOOP)
        sm_log_error(
            "%s: %s is not a regular file (a link, a directory or a device), "
            "where starmet keeps the lock on the run's files: remove it or choose "
            "another name",
            what[k], path);
      else
        sm_log_error("%s: cannot make the lock file %s: %s", what[k], path,
                     strerror(errno));
      free(path);
      sm_lock_release(l);
      return SM_EIO;
    }
    if (fd < 0) { /* the same file as a stem before, spelled otherwise */
      free(path);
      continue;
    }
    l->fd[l->n] = fd;
    l->path[l->n++] = path;
  }
  return SM_OK;
}

void sm_lock_release(sm_lockset_t *l)
{
  for (int k = 0; k < l->n; k++) {
    struct stat a, b;
    /* removed only while it is still ours, then unlocked */
    if (fstat(l->fd[k], &a) == 0 && stat(l->path[k], &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev)
      unlink(l->path[k]);
    close(l->fd[k]);
    free(l->path[k]);
  }
  memset(l, 0, sizeof *l);
}
