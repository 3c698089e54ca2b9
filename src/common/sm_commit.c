/* sm_commit.c: write-to-temporary, sync, rename, sync-the-directory: the
 * one way starmet completes a file. */
#define _GNU_SOURCE /* sync_file_range */
#include "sm_commit.h"

#include "sm_crc32c.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

sm_err_t sm_commit_open(sm_commit_t *c, const char *path, const char *suffix, int unique,
                        const char *mode)
{
  c->f = NULL;
  c->keep = 0;
  c->len = 0;
  c->crc = 0;
  c->wb_start = c->wb_bytes = 0;
  int n = snprintf(c->path, sizeof c->path, "%s", path);
  int m = unique
              ? snprintf(c->tmp, sizeof c->tmp, "%s%s.%ld", path, suffix, (long)getpid())
              : snprintf(c->tmp, sizeof c->tmp, "%s%s", path, suffix);
  if (n < 0 || m < 0 || (size_t)n >= sizeof c->path || (size_t)m >= sizeof c->tmp) {
    errno = ENAMETOOLONG;
    return SM_EIO;
  }
  /* never through a link planted at the temporary name */
  if (unique) {
    /* a name of this process's own: a file there is not ours */
    int fd = open(c->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
      return SM_EIO;
    if (!(c->f = fdopen(fd, mode))) {
      const int e = errno;
      close(fd);
      unlink(c->tmp);
      errno = e;
      return SM_EIO;
    }
    return SM_OK;
  }
  /* open without truncating, lock, then truncate: a file another process
   * is writing is left as it is */
  const int create = mode[0] == 'w';
  int fd =
      open(c->tmp, (create ? O_RDWR | O_CREAT : O_RDWR) | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    return SM_EIO;
  struct stat sb;
  if (fstat(fd, &sb) == 0 && (!S_ISREG(sb.st_mode) || sb.st_nlink > 1)) {
    /* a device, a FIFO, or a file with another name (a hard link planted
     * at the temporary name): truncating it would destroy that file */
    close(fd);
    errno = S_ISREG(sb.st_mode) ? EMLINK : ENOTSUP;
    return SM_EIO;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 || (create && ftruncate(fd, 0) != 0) ||
      !(c->f = fdopen(fd, mode))) {
    const int e = errno == EWOULDBLOCK ? EBUSY : errno;
    close(fd);
    errno = e;
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_commit_lock(FILE *f)
{
  if (flock(fileno(f), LOCK_EX | LOCK_NB) == 0)
    return SM_OK;
  if (errno == EWOULDBLOCK)
    errno = EBUSY;
  return SM_EIO;
}

const char *sm_commit_strerror(int err)
{
  if (err == EBUSY)
    return "another process is writing it (another run with the same output, or the "
           "ranks of an MPI job started by a launcher starmet did not recognise: set "
           "STARMET_MPI=yes for them)";
  if (err == ENOTSUP)
    return "it is not a regular file (a directory, a device, a FIFO or a link), which "
           "starmet never replaces: give another path";
  if (err == ELOOP)
    return "it is a symbolic link, which starmet never writes through: remove it";
  if (err == EMLINK)
    return "it has other names (hard links), and writing it would change those files "
           "too: remove it";
  return strerror(err);
}

const char *sm_commit_write_error(int err)
{
  static _Thread_local char buf[160];
  const char *why = err == ENOSPC   ? " (the disk is full)"
                    : err == EDQUOT ? " (the disk quota is used up)"
                    : err == EFBIG  ? " (the file-size limit: see ulimit -f)"
                    : err == EIO    ? " (the storage failed)"
                                    : "";
  snprintf(buf, sizeof buf, "%s%s", strerror(err), why);
  return buf;
}

const char *sm_commit_hint(int err)
{
  return err == EBUSY || err == EMLINK || err == ENOTSUP || err == ELOOP
             ? ""
             : " (check that the directory exists and is writable)";
}

sm_err_t sm_commit_check_dir(const char *what, const char *path)
{
  char dir[SM_COMMIT_NAME_MAX];
  const char *slash = strrchr(path, '/');
  /* a name, not a directory: "out/" would make the hidden out/.tsv */
  const char *base = slash ? slash + 1 : path;
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
    sm_log_error("%s '%s' ends without a file name (the files written take their names "
                 "from its last part): give one after the directory, as in %s %s%srun1",
                 what, path, what, path, *base ? "/" : "");
    return SM_EIO;
  }
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == path)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  struct stat sb;
  if (stat(dir, &sb) != 0) {
    if (errno == ENOENT)
      sm_log_error(
          "%s %s: the directory %s does not exist: create it first (mkdir -p %s)", what,
          path, dir, dir);
    else
      sm_log_error("%s %s: cannot use the directory %s: %s", what, path, dir,
                   strerror(errno));
    return SM_EIO;
  }
  if (!S_ISDIR(sb.st_mode)) {
    sm_log_error("%s %s: %s is not a directory", what, path, dir);
    return SM_EIO;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    sm_log_error("%s %s: the directory %s is not writable (%s)", what, path, dir,
                 strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_check_not_dir(const char *path, const char *hint)
{
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return SM_OK;
  sm_log_error("%s: a directory, not an input file: %s", path, hint);
  return SM_EIO;
}

int sm_commit_write(sm_commit_t *c, const void *p, size_t n)
{
  c->crc = sm_crc32c(c->crc, p, n);
  c->len += n;
  return n && fwrite_unlocked(p, 1, n, c->f) != n ? -1 : 0;
}

int sm_commit_printf(sm_commit_t *c, const char *fmt, ...)
{
  char small[512], *buf = small;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0)
    return -1;
  if ((size_t)n >= sizeof small) {
    if (!(buf = malloc((size_t)n + 1)))
      return -1;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  const int r = sm_commit_write(c, buf, (size_t)n);
  if (buf != small)
    free(buf);
  return r;
}

int sm_commit_replaced(const sm_commit_t *c)
{
  struct stat a, b;
  if (fstat(fileno(c->f), &a) == 0 && lstat(c->tmp, &b) == 0 && a.st_dev == b.st_dev &&
      a.st_ino == b.st_ino)
    return 0;
  sm_log_error("%s: this is no longer the file the run wrote (another process removed it "
               "or put another file in its place): nothing is committed",
               c->tmp);
  return 1;
}

sm_err_t sm_commit_verify(sm_commit_t *c)
{
  struct stat sb = {0};
  uint32_t crc;
  if (sm_commit_sync(c) != SM_OK) {
    sm_log_error("%s: write failed: %s", c->tmp, sm_commit_write_error(errno));
    return SM_EIO;
  }
  const int fd = fileno(c->f);
  if (sm_commit_replaced(c))
    return SM_EIO;
  if (fstat(fd, &sb) != 0 || sm_crc32c_fd(fd, 0, c->len, &crc) != SM_OK ||
      (uint64_t)sb.st_size != c->len || crc != c->crc) {
    sm_log_error("%s: the file does not hold what was written (%lld bytes on disk, %llu "
                 "written): another process changed it while this run wrote it",
                 c->tmp, (long long)sb.st_size, (unsigned long long)c->len);
    return SM_EIO;
  }
  return SM_OK;
}

int sm_commit_writeback(sm_commit_t *c, size_t n)
{
  enum { AHEAD = 16 << 20 };
  if ((c->wb_bytes += n) < AHEAD || !c->f)
    return 0;
  c->wb_bytes = 0;
  if (fflush(c->f) != 0)
    return -1;
  const off_t end = ftello(c->f);
  if (end < 0 || (uint64_t)end <= c->wb_start)
    return 0; /* (a header rewritten at the start) */
#ifdef SYNC_FILE_RANGE_WRITE
  (void)sync_file_range(fileno(c->f), (off_t)c->wb_start, end - (off_t)c->wb_start,
                        SYNC_FILE_RANGE_WRITE); /* errors surface at the fsync */
#endif
  c->wb_start = (uint64_t)end;
  return 0;
}

sm_err_t sm_commit_sync(sm_commit_t *c)
{
  int bad = ferror(c->f);
  bad |= fflush(c->f) != 0 || fsync(fileno(c->f)) != 0;
  return bad ? SM_EIO : SM_OK;
}

sm_err_t sm_commit_close(sm_commit_t *c)
{
  int bad = sm_commit_sync(c) != SM_OK;
  int saved = errno;
  bad |= fclose(c->f) != 0;
  c->f = NULL;
  if (!bad)
    return SM_OK;
  if (saved)
    errno = saved; /* the first failure is the one to report */
  sm_commit_abort(c);
  return SM_EIO;
}

/* Sync the directory holding c->path, so that the rename is durable. Best
 * effort: the new file is complete and in place whatever happens here; a
 * directory that cannot be opened or synced (some file systems refuse)
 * only loses the guarantee across a power failure. */
static void sync_dir(const sm_commit_t *c)
{
  char dir[SM_COMMIT_NAME_MAX];
  const char *slash = strrchr(c->path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == c->path)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - c->path), c->path);
  int saved = errno;
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  errno = saved;
}

sm_err_t sm_commit_rename(sm_commit_t *c)
{
  struct stat sb;
  if (lstat(c->path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    if (!c->keep)
      unlink(c->tmp);
    errno = ENOTSUP;
    return SM_EIO;
  }
  if (rename(c->tmp, c->path) != 0) {
    int saved = errno;
    if (!c->keep)
      unlink(c->tmp);
    errno = saved;
    return SM_EIO;
  }
  sync_dir(c);
  return SM_OK;
}

sm_err_t sm_commit_finish(sm_commit_t *c)
{
  sm_err_t err = sm_commit_close(c);
  return err ? err : sm_commit_rename(c);
}

void sm_commit_abort(sm_commit_t *c)
{
  int saved = errno;
  if (c->f)
    fclose(c->f);
  c->f = NULL;
  unlink(c->tmp);
  errno = saved;
}

static const char *file_kind(mode_t m)
{
  return S_ISDIR(m)    ? "a directory"
         : S_ISLNK(m)  ? "a symbolic link"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

/* The path and its last part within the system's limits: PATH_MAX (the
 * buffers of starmet's file names hold it, and a longer name would be cut
 * short) and the directory's file system's NAME_MAX. Logs, SM_EOPTION. */
static sm_err_t check_length(const char *what, const char *path)
{
  const size_t len = strlen(path);
  if (len >= PATH_MAX - 1) {
    sm_log_error("%s %.48s...: a file this run writes would have a path of %zu bytes or "
                 "more, over the system's limit of %d bytes (PATH_MAX): choose a shorter "
                 "%s (or run from a directory nearer to it)",
                 what, path, len, PATH_MAX - 1, what);
    return SM_EOPTION;
  }
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char dir[SM_COMMIT_NAME_MAX];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + 1) : 1,
           slash ? path : ".");
  long name_max = pathconf(dir, _PC_NAME_MAX);
  if (name_max <= 0)
    name_max = NAME_MAX;
  if (strlen(base) > (size_t)name_max) {
    sm_log_error("%s %.48s...: the file name %.32s... is %zu bytes, over this file "
                 "system's limit of %ld bytes for one name: choose a shorter %s",
                 what, path, base, strlen(base), name_max, what);
    return SM_EOPTION;
  }
  return SM_OK;
}

sm_err_t sm_commit_check_outputs(const char *const *outs, const char *const *what,
                                 size_t nout, const char *const *ins, size_t nin)
{
  for (size_t k = 0; k < nout; k++) {
    if (!outs[k] || !outs[k][0])
      continue;
    if (check_length(what[k], outs[k]) != SM_OK)
      return SM_EOPTION;
  }
  for (size_t k = 0; k < nout; k++) {
    if (!outs[k] || !outs[k][0])
      continue;
    if (sm_commit_check_dir(what[k], outs[k]) != SM_OK)
      return SM_EOPTION;
    struct stat so, si;
    const int exists = lstat(outs[k], &so) == 0;
    if (exists && !S_ISREG(so.st_mode)) {
      sm_log_error("%s %s: the path exists and is %s; starmet only ever replaces regular "
                   "files: give another path",
                   what[k], outs[k], file_kind(so.st_mode));
      return SM_EOPTION;
    }
    for (size_t j = 0; j < k; j++) {
      struct stat sj;
      if (!outs[j] || !outs[j][0])
        continue;
      const int same =
          !strcmp(outs[j], outs[k]) || (exists && lstat(outs[j], &sj) == 0 &&
                                        sj.st_dev == so.st_dev && sj.st_ino == so.st_ino);
      if (same) {
        sm_log_error(
            "%s %s is also the file of %s: each file a run writes needs a path of "
            "its own",
            what[k], outs[k], what[j]);
        return SM_EOPTION;
      }
    }
    if (!exists)
      continue;
    for (size_t i = 0; i < nin; i++)
      if (ins[i] && stat(ins[i], &si) == 0 && so.st_dev == si.st_dev &&
          so.st_ino == si.st_ino) {
        sm_log_error("%s (from %s) is the input file %s: writing it would destroy the "
                     "input; choose another %s",
                     outs[k], what[k], ins[i], what[k]);
        return SM_EOPTION;
      }
  }
  return SM_OK;
}
