/* sm_crash.c: see sm_crash.h. */
#include "sm_crash.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SM_CRASH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SM_CRASH_SANITIZED 1
#endif
#endif

static volatile sig_atomic_t crash_rank = -1;
/* $STARMET_CRASH_LOG, copied at install and opened only by a report (open
 * is async-signal-safe): a run holds no descriptor for it, so the
 * open-file limits preflight computes stay exact */
static char crash_path[4096];
static volatile sig_atomic_t real_fd = STDERR_FILENO, caught_fd = -1;

void sm_crash_caught(int real, int caught)
{
  real_fd = real;
  caught_fd = caught;
}

void sm_crash_released(void)
{
  caught_fd = -1;
  real_fd = STDERR_FILENO;
}

void sm_crash_set_rank(int rank)
{
  crash_rank = rank;
}

/* Decimal digits of v into buf (at least 12 bytes); its length. */
static size_t fmt_int(char *buf, long v)
{
  char tmp[24];
  size_t n = 0, len = 0;
  unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
  do
    tmp[n++] = (char)('0' + u % 10);
  while ((u /= 10) && n < sizeof tmp);
  if (v < 0)
    buf[len++] = '-';
  while (n)
    buf[len++] = tmp[--n];
  return len;
}

static void put(int fd, const char *s, size_t n)
{
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w <= 0)
      return;
    s += w, n -= (size_t)w;
  }
}

static void report(int fd, int sig, void **frames, int nframes)
{
  char line[160];
  size_t n = 0;
  const char *head = "starmet: fatal signal ";
  memcpy(line + n, head, strlen(head)), n += strlen(head);
  n += fmt_int(line + n, sig);
  const char *name = sig == SIGABRT   ? " (abort)"
                     : sig == SIGSEGV ? " (segmentation fault)"
                     : sig == SIGBUS  ? " (bus error)"
                     : sig == SIGFPE  ? " (arithmetic exception)"
                                      : " (illegal instruction)";
  memcpy(line + n, name, strlen(name)), n += strlen(name);
  if (crash_rank >= 0) {
    memcpy(line + n, " on rank ", 9), n += 9;
    n += fmt_int(line + n, crash_rank);
  }
  memcpy(line + n, ", pid ", 6), n += 6;
  n += fmt_int(line + n, (long)getpid());
  const char *tail = "; the stack:\n";
  memcpy(line + n, tail, strlen(tail)), n += strlen(tail);
  put(fd, line, n);
  backtrace_symbols_fd(frames, nframes, fd);
}

/* What the caught stderr holds, to fd. */
static void copy_caught(int fd)
{
  const char *head = "starmet: what the runtime had printed:\n";
  put(fd, head, strlen(head));
  char buf[4096];
  ssize_t n;
  off_t at = 0;
  while ((n = pread(caught_fd, buf, sizeof buf, at)) > 0)
    put(fd, buf, (size_t)n), at += n;
}

static const int fatal_sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define NSIG_FATAL (sizeof fatal_sigs / sizeof *fatal_sigs)
/* the handlers ours replaced (StarPU's flushes its trace on SIGSEGV) */
static struct sigaction prev[NSIG_FATAL];

__attribute__((unused)) static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
  void *frames[64];
  const int nframes = backtrace(frames, 64);
  const int crash_fd =
      crash_path[0] ? open(crash_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
                    : -1;
  const int fds[2] = {real_fd, crash_fd};
  for (int k = 0; k < 2; k++) {
    if (fds[k] < 0)
      continue;
    if (caught_fd >= 0)
      copy_caught(fds[k]);
    report(fds[k], sig, frames, nframes);
  }
  for (size_t k = 0; k < NSIG_FATAL; k++) {
    if (fatal_sigs[k] != sig)
      continue;
    /* the handler before ours, then, if it returns, the default action */
    if (prev[k].sa_flags & SA_SIGINFO) {
      if (prev[k].sa_sigaction)
        prev[k].sa_sigaction(sig, info, uctx);
    } else if (prev[k].sa_handler != SIG_DFL && prev[k].sa_handler != SIG_IGN) {
      prev[k].sa_handler(sig);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void sm_crash_install(void)
{
#ifndef SM_CRASH_SANITIZED
  void *warm[2];
  (void)backtrace(warm, 2); /* loads libgcc now, not in the handler */
  const char *path = getenv("STARMET_CRASH_LOG");
  if (path && *path && strlen(path) < sizeof crash_path)
    memcpy(crash_path, path, strlen(path) + 1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  for (size_t k = 0; k < NSIG_FATAL; k++) {
    struct sigaction cur;
    if (sigaction(fatal_sigs[k], NULL, &cur) != 0)
      continue;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fatal)
      continue; /* ours already */
    prev[k] = cur;
    sigaction(fatal_sigs[k], &sa, NULL);
  }
#endif
}
