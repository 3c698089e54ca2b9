/* sm_dio.c: direct, leased writing of a new output file (sm_dio.h). */
#define _GNU_SOURCE /* O_DIRECT, F_SETLEASE, F_SETSIG */
#include "sm_dio.h"
#include "sm_crc32c.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__) && defined(O_DIRECT) && defined(F_SETLEASE) && defined(F_SETSIG)
#define SM_DIO 1
#endif

#ifdef SM_DIO
/* Buffers of DIO_BUF bytes, DIO_ALIGN-aligned in memory and on the file:
 * one filled by the appends while the thread writes the others in order. */
enum { DIO_ALIGN = 4096, DIO_BUF = 4 << 20, DIO_NBUF = 16 };

struct sm_dio {
  int fd;
  unsigned char *buf[DIO_NBUF];
  int cur;         /* the buffer the appends fill */
  size_t len;      /* its bytes */
  size_t crc_from; /* its bytes before this are in crc (a flush's tail, kept) */
  uint64_t off;    /* the file offset of its first byte */
  uint32_t crc;    /* the bytes appended since the last flush */
  uint64_t since;
  /* the thread's queue: buffers and their offsets, in order */
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int q[DIO_NBUF];
  uint64_t qoff[DIO_NBUF];
  size_t qhead, qn;
  int busy[DIO_NBUF]; /* queued or being written */
  int err;            /* the errno of a failed write; 0: none */
  int quit;
};

/* The file whose lease is held (-1: none); the lease-break handler gives
 * it up at once, so that the other process's open does not wait for the
 * kernel's lease-break time, and sm_dio_intact sees it gone. */
static volatile sig_atomic_t lease_fd = -1;
static struct sigaction prev_sigio;
static pthread_mutex_t lease_mu = PTHREAD_MUTEX_INITIALIZER;

/* Give fd's lease up and SIGIO back to its former handler (lease_mu held). */
static void lease_release(int fd)
{
  (void)fcntl(fd, F_SETLEASE, F_UNLCK);
  lease_fd = -1;
  sigaction(SIGIO, &prev_sigio, NULL);
}

static void on_lease_break(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si, (void)uc;
  const int e = errno, fd = lease_fd;
  if (fd >= 0)
    (void)fcntl(fd, F_SETLEASE, F_UNLCK);
  errno = e;
}

/* n bytes at p to fd at off; with O_DIRECT refused for them (EINVAL: the
 * file system's alignment differs), through the page cache from then on.
 * 0, or an errno. */
static int write_at(int fd, const unsigned char *p, size_t n, uint64_t off)
{
  while (n) {
    const ssize_t w = pwrite(fd, p, n, (off_t)off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno == EINVAL) {
      const int fl = fcntl(fd, F_GETFL);
      if (fl < 0 || !(fl & O_DIRECT) || fcntl(fd, F_SETFL, fl & ~O_DIRECT) != 0)
        return EINVAL;
      continue;
    }
    if (w < 0)
      return errno;
    if (w == 0)
      return EIO;
    p += w, n -= (size_t)w, off += (uint64_t)w;
  }
  return 0;
}

static void *writer(void *arg)
{
  sm_dio_t *d = arg;
  pthread_mutex_lock(&d->mu);
  for (;;) {
    while (!d->qn && !d->quit)
      pthread_cond_wait(&d->cv, &d->mu);
    if (!d->qn)
      break;
    const int b = d->q[d->qhead];
    const uint64_t off = d->qoff[d->qhead];
    const int failed = d->err;
    pthread_mutex_unlock(&d->mu);
    const int e = failed ? 0 : write_at(d->fd, d->buf[b], DIO_BUF, off);
    pthread_mutex_lock(&d->mu);
    if (e && !d->err)
      d->err = e;
    d->qhead = (d->qhead + 1) % DIO_NBUF;
    d->qn--;
    d->busy[b] = 0;
    pthread_cond_broadcast(&d->cv);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

sm_dio_t *sm_dio_start(int fd)
{
  const char *env = getenv("STARMET_DIRECT_IO");
  struct stat sb;
  if ((env && !strcmp(env, "0")) || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
      sb.st_size != 0)
    return NULL;
  sm_dio_t *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  d->fd = fd;
  for (int k = 0; k < DIO_NBUF; k++)
    if (posix_memalign((void **)&d->buf[k], DIO_ALIGN, DIO_BUF) != 0) {
      d->buf[k] = NULL;
      goto fail;
    }
  pthread_mutex_lock(&lease_mu);
  if (lease_fd >= 0) { /* one at a time */
    pthread_mutex_unlock(&lease_mu);
    goto fail;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_lease_break;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGIO, &sa, &prev_sigio) != 0) {
    pthread_mutex_unlock(&lease_mu);
    goto fail;
  }
  lease_fd = fd;
  const int fl = fcntl(fd, F_GETFL);
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  if (fcntl(fd, F_SETSIG, SIGIO) != 0 || fcntl(fd, F_SETLEASE, F_WRLCK) != 0 || fl < 0 ||
      fcntl(fd, F_SETFL, fl | O_DIRECT) != 0 ||
      pthread_create(&d->th, NULL, writer, d) != 0) {
    if (fl >= 0)
      (void)fcntl(fd, F_SETFL, fl);
    lease_release(fd);
    pthread_mutex_unlock(&lease_mu);
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    goto fail;
  }
  pthread_mutex_unlock(&lease_mu);
  return d;
fail:
  for (int k = 0; k < DIO_NBUF; k++)
    free(d->buf[k]);
  free(d);
  return NULL;
}

/* The current buffer, full, to the thread; the next one once it is free. */
static int submit(sm_dio_t *d)
{
  d->crc = sm_crc32c(d->crc, d->buf[d->cur] + d->crc_from, d->len - d->crc_from);
  d->since += d->len - d->crc_from;
  pthread_mutex_lock(&d->mu);
  d->busy[d->cur] = 1;
  const size_t at = (d->qhead + d->qn) % DIO_NBUF;
  d->q[at] = d->cur, d->qoff[at] = d->off, d->qn++;
  pthread_cond_broadcast(&d->cv);
  const int next = (d->cur + 1) % DIO_NBUF;
  while (d->busy[next] && !d->err)
    pthread_cond_wait(&d->cv, &d->mu);
  const int e = d->err;
  pthread_mutex_unlock(&d->mu);
  d->off += DIO_BUF;
  d->cur = next, d->len = d->crc_from = 0;
  if (e) {
    errno = e;
    return -1;
  }
  return 0;
}

int sm_dio_append(sm_dio_t *d, const void *p, size_t n)
{
  const unsigned char *s = p;
  const int e = __atomic_load_n(&d->err, __ATOMIC_RELAXED); /* (the thread's, set
                                                               under d->mu) */
  if (e) {
    errno = e;
    return -1;
  }
  while (n) {
    const size_t k = n < DIO_BUF - d->len ? n : DIO_BUF - d->len;
    memcpy(d->buf[d->cur] + d->len, s, k);
    d->len += k, s += k, n -= k;
    if (d->len == DIO_BUF && submit(d))
      return -1;
  }
  return 0;
}

int sm_dio_flush(sm_dio_t *d, uint32_t *crc, uint64_t *len, uint64_t *end)
{
  pthread_mutex_lock(&d->mu);
  while (d->qn)
    pthread_cond_wait(&d->cv, &d->mu);
  int e = d->err;
  pthread_mutex_unlock(&d->mu);
  unsigned char *b = d->buf[d->cur];
  const size_t whole = d->len & ~(size_t)(DIO_ALIGN - 1), tail = d->len - whole;
  if (!e && whole)
    e = write_at(d->fd, b, whole, d->off);
  if (!e && tail) { /* the last partial block through the page cache; kept, to be
                       written again whole by the next direct write */
    const int fl = fcntl(d->fd, F_GETFL);
    if (fl < 0 || fcntl(d->fd, F_SETFL, fl & ~O_DIRECT) != 0)
      e = errno;
    if (!e)
      e = write_at(d->fd, b + whole, tail, d->off + whole);
    if (fl >= 0 && (fl & O_DIRECT) && fcntl(d->fd, F_SETFL, fl) != 0 && !e)
      e = errno;
  }
  if (e) {
    d->err = e;
    errno = e;
    return -1;
  }
  d->crc = sm_crc32c(d->crc, b + d->crc_from, d->len - d->crc_from);
  d->since += d->len - d->crc_from;
  *crc = d->crc, *len = d->since, *end = d->off + d->len;
  d->crc = 0, d->since = 0;
  if (whole) {
    memmove(b, b + whole, tail);
    d->off += whole, d->len = tail;
  }
  d->crc_from = d->len;
  return 0;
}

int sm_dio_intact(const sm_dio_t *d)
{
  return d && fcntl(d->fd, F_GETLEASE) == F_WRLCK;
}

void sm_dio_stop(sm_dio_t *d)
{
  if (!d)
    return;
  pthread_mutex_lock(&d->mu);
  d->quit = 1;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  pthread_join(d->th, NULL);
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->cv);
  const int fl = fcntl(d->fd, F_GETFL);
  if (fl >= 0 && (fl & O_DIRECT))
    (void)fcntl(d->fd, F_SETFL, fl & ~O_DIRECT);
  pthread_mutex_lock(&lease_mu);
  lease_release(d->fd);
  pthread_mutex_unlock(&lease_mu);
  for (int k = 0; k < DIO_NBUF; k++)
    free(d->buf[k]);
  free(d);
}
#else
sm_dio_t *sm_dio_start(int fd)
{
  (void)fd;
  return NULL;
}
int sm_dio_append(sm_dio_t *d, const void *p, size_t n)
{
  (void)d, (void)p, (void)n;
  errno = ENOTSUP;
  return -1;
}
int sm_dio_flush(sm_dio_t *d, uint32_t *crc, uint64_t *len, uint64_t *end)
{
  (void)d, (void)crc, (void)len, (void)end;
  errno = ENOTSUP;
  return -1;
}
int sm_dio_intact(const sm_dio_t *d)
{
  (void)d;
  return 0;
}
void sm_dio_stop(sm_dio_t *d)
{
  (void)d;
}
#endif
