/* sm_stream.c: inputs that are streams (pipes, FIFOs, /dev/stdin, /dev/fd/N,
 * devices) read exactly once: copied into an in-memory file (memfd) the
 * first time a reader opens one, within the process's memory room, and
 * read from that copy by every later reader of the process. */
#define _GNU_SOURCE /* memfd_create */
#include "sm_stream.h"

#include "sm_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define STREAM_BLOCK ((size_t)1 << 20) /* bytes read at a time */
#define STREAM_HEAD ((uint64_t)4096)   /* kept of data the reader will refuse */
#define STREAM_MAGIC 8                 /* bytes read before the magic is decided */
#define STREAM_COPIES 16               /* streams one process may read */

/* The copies made so far, by the stream's device and inode. */
static struct {
  dev_t dev;
  ino_t ino;
  int fd;
} copies[STREAM_COPIES];
static size_t ncopies;

/* The bytes copies may take and what sets that (sm_stream_set_room); 0:
 * not set, this machine's memory then. */
static uint64_t room_bytes, total_copied;
static char room_what[256];

void sm_stream_set_room(uint64_t room, const char *what)
{
  room_bytes = room;
  snprintf(room_what, sizeof room_what, "%s", what ? what : "the memory limit");
}

int sm_input_is_stream(const char *path)
{
  struct stat sb;
  return path && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

/* An anonymous file to copy into: a memfd, else an unlinked temporary
 * file (a kernel or a sandbox without memfd_create). -1 with errno. */
static int anonymous_file(void)
{
  int fd = memfd_create("starmet-input", MFD_CLOEXEC);
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
    return fd;
  const char *dir = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/starmet-input-XXXXXX", dir && *dir ? dir : "/tmp");
  fd = mkstemp(tmpl);
  if (fd >= 0)
    unlink(tmpl);
  return fd;
}

/* Do the first n bytes of buf start with one of rule's magics? */
static int has_magic(const sm_stream_rule_t *rule, const char *buf, size_t n)
{
  for (size_t k = 0; k < sizeof rule->magic / sizeof rule->magic[0] && rule->magic[k];
       k++) {
    const size_t m = strlen(rule->magic[k]);
    if (n >= m && !memcmp(buf, rule->magic[k], m))
      return 1;
  }
  return 0;
}

/* read(2) of up to n bytes, retried on EINTR: bytes read, 0 at the end,
 * -1 with errno. */
static ssize_t read_some(int fd, char *buf, size_t n)
{
  ssize_t r;
  do
    r = read(fd, buf, n);
  while (r < 0 && errno == EINTR);
  return r;
}

static int write_all(int fd, const char *buf, size_t n)
{
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Copy the stream in into the anonymous file out, by rule. */
static sm_err_t copy(const char *path, int in, int out, const sm_stream_rule_t *rule)
{
  uint64_t room = room_bytes;
  const char *what = room_what;
  if (!room) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    room = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    what = "this machine's memory";
  }
  room -= total_copied < room ? total_copied : room; /* the copies made before */
  char *buf = malloc(STREAM_BLOCK);
  if (!buf) {
    sm_log_error("%s: out of memory for the stream's read buffer", path);
    return SM_ENOMEM;
  }
  sm_err_t err = SM_OK;
  uint64_t total = 0, stop = rule->max ? rule->max : UINT64_MAX;
  size_t n = 0;
  ssize_t r = 1;
  /* the head first: what the data are decides where the copy may stop */
  while (n < STREAM_MAGIC && (r = read_some(in, buf + n, STREAM_BLOCK - n)) > 0)
    n += (size_t)r;
  const int magic = has_magic(rule, buf, n);
  const int refused = !magic && !rule->text && rule->magic[0];
  while (r >= 0 && n > 0 && total < stop) {
    if (refused || (!magic && rule->text && memchr(buf, 0, n)))
      stop =
          total + n > STREAM_HEAD ? total + n : STREAM_HEAD; /* the reader refuses it */
    const size_t keep = stop - total < n ? (size_t)(stop - total) : n;
    if (total + keep > room) {
      char b[32];
      sm_log_error("%s: a stream (a pipe, FIFO or device) is read into memory, since "
                   "it cannot be read twice, and this one holds more than the %s that "
                   "%s allows; write it to a file and give the file's path",
                   path, sm_human_bytes(room, b, sizeof b), what);
      err = SM_ENOMEM;
      goto done;
    }
    if (write_all(out, buf, keep) != 0) {
      const int e = errno;
      sm_log_error("%s: cannot copy the stream into memory after %llu bytes: %s; write "
                   "it to a file and give the file's path",
                   path, (unsigned long long)total, strerror(e));
      err = e == ENOMEM || e == ENOSPC ? SM_ENOMEM : SM_EIO;
      goto done;
    }
    total += keep;
    total_copied += keep;
    n = 0;
    if (total < stop && (r = read_some(in, buf, STREAM_BLOCK)) > 0)
      n = (size_t)r;
  }
  if (r < 0) {
    sm_log_error("%s: read error after %llu bytes: %s", path, (unsigned long long)total,
                 strerror(errno));
    err = SM_EIO;
  }
done:
  free(buf);
  return err;
}

sm_err_t sm_stream_source(const char *path, const sm_stream_rule_t *rule, char *src,
                          size_t len)
{
  struct stat sb;
  if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) {
    snprintf(src, len, "%s", path);
    return SM_OK;
  }
  for (size_t k = 0; k < ncopies; k++) {
    if (copies[k].dev == sb.st_dev && copies[k].ino == sb.st_ino) {
      snprintf(src, len, "/proc/self/fd/%d", copies[k].fd);
      return SM_OK;
    }
  }
  if (ncopies == STREAM_COPIES) {
    sm_log_error("%s: more than %d streams read by one process; write it to a file", path,
                 STREAM_COPIES);
    return SM_EIO;
  }
  const int in = open(path, O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    sm_log_error("%s: cannot open: %s; check the path", path, strerror(errno));
    return SM_EIO;
  }
  const int out = anonymous_file();
  if (out < 0) {
    sm_log_error("%s: cannot make an in-memory file to read this stream into: %s; write "
                 "it to a file and give the file's path",
                 path, strerror(errno));
    close(in);
    return SM_EIO;
  }
  sm_err_t err = copy(path, in, out, rule);
  close(in); /* a writer still writing gets SIGPIPE, as from head(1) */
  if (!err) {
    snprintf(src, len, "/proc/self/fd/%d", out);
    const int again = open(src, O_RDONLY | O_CLOEXEC);
    if (again < 0) {
      sm_log_error("%s: cannot reopen the stream's in-memory copy as %s: %s (/proc must "
                   "be mounted); write the stream to a file and give the file's path",
                   path, src, strerror(errno));
      err = SM_EIO;
    } else {
      close(again);
    }
  }
  if (err) {
    close(out);
    return err;
  }
  copies[ncopies].dev = sb.st_dev;
  copies[ncopies].ino = sb.st_ino;
  copies[ncopies++].fd = out;
  return SM_OK;
}
