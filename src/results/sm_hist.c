/* sm_hist.c: writing the value histograms of a run. */
#include "sm_hist.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sm_commit.h"
#include "sm_vectors.h"

extern char **environ;

/* The metric's name in the files (metric: sm_metric_t, the values'). */
static const char *metric_name(int metric)
{
  return metric == SM_METRIC_CCC           ? "ccc"
         : metric == SM_METRIC_R2          ? "r2"
         : metric == SM_METRIC_R           ? "r"
         : metric == SM_METRIC_BRAY_CURTIS ? "bray-curtis"
         : metric == SM_METRIC_JACCARD     ? "jaccard"
                                           : "czekanowski";
}

void sm_hist_entry_name(int metric, int way, uint32_t e, char *buf)
{
  if (metric != SM_METRIC_CCC) {
    strcpy(buf, "-");
    return;
  }
  int n = 0;
  for (int b = way - 1; b >= 0; b--)
    buf[n++] = (char)('0' + ((e >> b) & 1u));
  buf[n] = 0;
}

/* The lower and upper edge of slot s (0 below, 1..bins, bins+1 above,
 * bins+2 NaN), and its bin number in the file. */
static long slot_edges(const sm_hist_spec_t *h, uint32_t s, double *lo, double *hi)
{
  const double w = h->hi - h->lo;
  if (s == 0) {
    *lo = -INFINITY, *hi = h->lo;
    return -1;
  }
  if (s == h->bins + 1) {
    *lo = h->hi, *hi = INFINITY;
    return h->bins;
  }
  if (s == h->bins + 2) {
    *lo = *hi = NAN;
    return (long)h->bins + 1;
  }
  *lo = h->lo + w * (double)(s - 1) / h->bins;
  *hi = s == h->bins ? h->hi : h->lo + w * (double)s / h->bins;
  return (long)s - 1;
}

sm_err_t sm_hist_write_tsv(const char *path, const sm_hist_spec_t *h, int metric, int way,
                           const uint64_t *counts)
{
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 0, "w") != SM_OK) {
    sm_log_error("%s: cannot create the histogram: %s%s", c.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    return SM_EIO;
  }
  const char *name_m = metric_name(metric);
  int bad = fputs("metric\tway\tentry\tbin\tlo\thi\tcount\n", c.f) == EOF;
  for (uint32_t e = 0; e < h->nent && !bad; e++) {
    char name[8];
    sm_hist_entry_name(metric, way, e, name);
    for (uint32_t s = 0; s < sm_hist_row(h) && !bad; s++) {
      double lo, hi;
      const long bin = slot_edges(h, s, &lo, &hi);
      bad = fprintf(c.f, "%s\t%d\t%s\t%ld\t%.17g\t%.17g\t%llu\n", name_m, way, name, bin,
                    lo, hi, (unsigned long long)counts[e * sm_hist_row(h) + s]) < 0;
    }
  }
  if (bad || sm_commit_finish(&c) != SM_OK) {
    sm_log_error("%s: cannot write the histogram: %s", path, sm_commit_strerror(errno));
    sm_commit_abort(&c);
    return SM_EIO;
  }
  return SM_OK;
}

void sm_hist_json(sm_json_t *j, const sm_hist_spec_t *h, int metric, int way,
                  const uint64_t *counts)
{
  sm_json_object(j, "histogram", 4);
  sm_json_u64(j, "bins", h->bins);
  sm_json_real(j, "min", 17, h->lo);
  sm_json_real(j, "max", 17, h->hi);
  sm_json_str(j, "slots", "below min, bins 0..bins-1, above max, NaN");
  sm_json_object(j, "counts", 6);
  for (uint32_t e = 0; e < h->nent; e++) {
    char name[8];
    sm_hist_entry_name(metric, way, e, name);
    sm_json_array(j, name, 0);
    for (uint32_t s = 0; s < sm_hist_row(h); s++)
      sm_json_u64(j, NULL, counts[e * sm_hist_row(h) + s]);
    sm_json_close(j);
  }
  sm_json_close(j);
  sm_json_close(j);
}

/* The path of prog in the first directory of the PATH that has it as an
 * executable file, in full; 0 when none has. */
static int find_on_path(const char *prog, char *full, size_t len)
{
  const char *path = getenv("PATH");
  while (path && *path) {
    const size_t n = strcspn(path, ":");
    const int m = snprintf(full, len, "%.*s/%s", (int)n, n ? path : ".", prog);
    if (m > 0 && (size_t)m < len && access(full, X_OK) == 0)
      return 1;
    path += n + (path[n] == ':');
  }
  return 0;
}

/* gnuplot's script: the picture to its standard output ("set output"
 * without a name: gnuplot opens no file), then one curve per table entry
 * with its bins inline ('-'), so that no path appears in it either. */
static int write_script(FILE *g, const sm_hist_spec_t *h, int metric, int way,
                        const uint64_t *counts)
{
  int bad = fprintf(g,
                    "set terminal pngcairo size 960,600\n"
                    "set output\n"
                    "set title '%s %d-way: values per bin (%u bins over [%g, %g])'\n"
                    "set xlabel 'value'\nset ylabel 'count'\nset logscale y\n"
                    "set key outside\nset grid\nplot ",
                    metric_name(metric), way, h->bins, h->lo, h->hi) < 0;
  for (uint32_t e = 0; e < h->nent && !bad; e++) {
    char name[8];
    sm_hist_entry_name(metric, way, e, name);
    /* each bin at its middle; empty bins are left out of the log scale */
    bad = fprintf(g,
                  "%s'-' using (($1+$2)/2):($3 > 0 ? $3 : 1/0) with histeps lw 2 "
                  "title '%s'",
                  e ? ", " : "", metric == SM_METRIC_CCC ? name : "values") < 0;
  }
  bad |= fputs("\n", g) == EOF;
  for (uint32_t e = 0; e < h->nent && !bad; e++) {
    for (uint32_t s = 1; s <= h->bins && !bad; s++) { /* the bins, not the slots */
      double lo, hi;
      (void)slot_edges(h, s, &lo, &hi);
      bad = fprintf(g, "%.17g %.17g %llu\n", lo, hi,
                    (unsigned long long)counts[e * sm_hist_row(h) + s]) < 0;
    }
    bad |= fputs("e\n", g) == EOF;
  }
  return bad;
}

/* The picture as it arrives: copied into the temporary file, its first 8
 * and last 12 bytes kept to check that it is a whole PNG. */
typedef struct picture {
  FILE *f;
  uint64_t size;
  unsigned char head[8], tail[12];
  int err; /* errno of the first write to f that failed, or 0 */
} picture_t;

static void picture_add(picture_t *p, const unsigned char *b, size_t n)
{
  for (size_t k = 0; k < n; k++) {
    if (p->size + k < sizeof p->head)
      p->head[p->size + k] = b[k];
  }
  const size_t t = sizeof p->tail;
  if (n >= t) {
    memcpy(p->tail, b + n - t, t);
  } else {
    memmove(p->tail, p->tail + n, t - n);
    memcpy(p->tail + t - n, b, n);
  }
  p->size += n;
  if (fwrite(b, 1, n, p->f) != n && !p->err)
    p->err = errno ? errno : EIO;
}

/* Whether the bytes received are a whole PNG: its signature, and the
 * IEND chunk at its end (a gnuplot stopped half-way wrote no end). */
static int picture_whole(const picture_t *p)
{
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const unsigned char end[12] = {0,   0,   0,    0,    'I',  'E',
                                        'N', 'D', 0xae, 0x42, 0x60, 0x82};
  return p->size >= 20 && !memcmp(p->head, sig, 8) && !memcmp(p->tail, end, 12);
}

/* Start prog with its standard input and output on pipes (*in to write,
 * *out to read) and its messages dropped. Returns its pid, or -1. */
static pid_t spawn(const char *prog, int *in, int *out)
{
  int i[2], o[2];
  if (pipe(i) != 0)
    return -1;
  if (pipe(o) != 0) {
    close(i[0]), close(i[1]);
    return -1;
  }
  for (int k = 0; k < 2; k++) /* only the ends dup'ed below reach gnuplot */
    fcntl(i[k], F_SETFD, FD_CLOEXEC), fcntl(o[k], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t fa;
  pid_t pid = -1;
  char *argv[] = {(char *)"gnuplot", NULL};
  if (posix_spawn_file_actions_init(&fa) == 0) {
    if (posix_spawn_file_actions_adddup2(&fa, i[0], 0) ||
        posix_spawn_file_actions_adddup2(&fa, o[1], 1) ||
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) ||
        posix_spawn(&pid, prog, &fa, NULL, argv, environ))
      pid = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  close(i[0]), close(o[1]);
  if (pid < 0) {
    close(i[1]), close(o[0]);
    return -1;
  }
  fcntl(i[1], F_SETFL, O_NONBLOCK);
  *in = i[1], *out = o[0];
  return pid;
}

/* How long gnuplot may take, in seconds: STARMET_GNUPLOT_WAIT (1 .. 86400)
 * when set, else 60 (a histogram draws in well under a second). */
static int gnuplot_wait_s(void)
{
  const char *e = getenv("STARMET_GNUPLOT_WAIT");
  char *end;
  const long s = e ? strtol(e, &end, 10) : 0;
  return e && *e && !*end && s >= 1 && s <= 86400 ? (int)s : 60;
}

/* Milliseconds left until deadline (CLOCK_MONOTONIC seconds), at least 0. */
static int ms_left(double deadline)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  const double left = deadline - ((double)t.tv_sec + 1e-9 * (double)t.tv_nsec);
  return left > 0 ? (int)(left * 1000.0) + 1 : 0;
}

/* Run gnuplot (prog) on script[0..len) and copy what it writes into pic.
 * Both pipes are served as they are ready, so that neither side waits for
 * the other. A gnuplot that stops reading (it failed) must not end starmet
 * with SIGPIPE: the signal is blocked in this thread meanwhile, and one it
 * raised is consumed. A gnuplot that has not ended after wait_s seconds
 * (it hangs) is killed, and *late set. Returns gnuplot's wait status, or
 * -1 when it could not be started or read. */
static int run_gnuplot(const char *prog, const char *script, size_t len, picture_t *pic,
                       int wait_s, int *late)
{
  int in, out;
  *late = 0;
  const pid_t pid = spawn(prog, &in, &out);
  if (pid < 0)
    return -1;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const double deadline = (double)t0.tv_sec + 1e-9 * (double)t0.tv_nsec + wait_s;
  sigset_t pipe_sig, old;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
  size_t off = 0;
  int failed = 0;
  if (len == 0)
    close(in), in = -1;
  while (out >= 0) {
    struct pollfd pf[2] = {{.fd = out, .events = POLLIN}, {.fd = in, .events = POLLOUT}};
    const int ready = poll(pf, in >= 0 ? 2 : 1, ms_left(deadline));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0) {
      failed = ready < 0;
      *late = ready == 0;
      break;
    }
    if (in >= 0 && pf[1].revents) {
      const ssize_t n = write(in, script + off, len - off);
      if (n > 0)
        off += (size_t)n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || off == len)
        close(in), in = -1; /* all written, or gnuplot stopped reading */
    }
    if (pf[0].revents) {
      unsigned char buf[65536];
      const ssize_t n = read(out, buf, sizeof buf);
      if (n > 0)
        picture_add(pic, buf, (size_t)n);
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        close(out), out = -1; /* the end of the picture */
    }
  }
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  const struct timespec now = {0, 0};
  while (sigtimedwait(&pipe_sig, NULL, &now) == SIGPIPE)
    ;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  int st;
  pid_t w;
  while (!*late && (w = waitpid(pid, &st, WNOHANG)) == 0) { /* its end, in time */
    if (!ms_left(deadline))
      *late = 1;
    else {
      const struct timespec tick = {0, 10000000};
      nanosleep(&tick, NULL);
    }
  }
  if (*late) {
    kill(pid, SIGKILL);
    w = 0;
  }
  while (w <= 0 && (w = waitpid(pid, &st, 0)) < 0)
    if (errno != EINTR)
      return -1;
  return failed ? -1 : st;
}

int sm_hist_plot(const char *png, const sm_hist_spec_t *h, int metric, int way,
                 const uint64_t *counts)
{
  char prog[SM_COMMIT_NAME_MAX];
  if (!find_on_path("gnuplot", prog, sizeof prog))
    return 0;
  uint64_t in_bins = 0; /* a log scale of nothing: gnuplot would fail */
  for (uint32_t e = 0; e < h->nent; e++)
    for (uint32_t s = 1; s <= h->bins; s++)
      in_bins += counts[e * sm_hist_row(h) + s];
  if (!in_bins) {
    sm_log_warn("%s: not drawn: no value is in [%g, %g] (the counts below, above and NaN "
                "are in the histogram's TSV file and the JSON summary)",
                png, h->lo, h->hi);
    return -1;
  }
  char *script = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&script, &len);
  int bad = !m || write_script(m, h, metric, way, counts);
  bad |= m && fclose(m) != 0;
  if (bad) {
    free(script);
    sm_log_warn("%s: not drawn: out of memory for gnuplot's script", png);
    return -1;
  }
  /* the output policy's temporary, of this process alone (O_EXCL, never
   * through a link: whatever is planted at png.part is left as it is) */
  sm_commit_t c;
  if (sm_commit_open(&c, png, ".part", 1, "wb") != SM_OK) {
    sm_log_warn("%s: not drawn: cannot create %s: %s", png, c.tmp,
                sm_commit_strerror(errno));
    free(script);
    return -1;
  }
  picture_t pic = {.f = c.f};
  const int wait_s = gnuplot_wait_s();
  int late;
  const int st = run_gnuplot(prog, script, len, &pic, wait_s, &late);
  free(script);
  char why[SM_COMMIT_NAME_MAX + 128] = "";
  if (late)
    snprintf(why, sizeof why,
             "%s did not end within %d s (STARMET_GNUPLOT_WAIT) and was "
             "stopped",
             prog, wait_s);
  else if (st == -1)
    snprintf(why, sizeof why, "%s could not be run", prog);
  else if (WIFSIGNALED(st))
    snprintf(why, sizeof why, "%s was killed by signal %d", prog, WTERMSIG(st));
  else if (!WIFEXITED(st) || WEXITSTATUS(st))
    snprintf(why, sizeof why, "%s failed (exit status %d)", prog,
             WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  else if (!picture_whole(&pic))
    snprintf(why, sizeof why, "%s wrote no complete PNG (%llu bytes)", prog,
             (unsigned long long)pic.size);
  if (why[0]) {
    sm_commit_abort(&c);
    sm_log_warn("%s: not drawn: %s; the counts are in the histogram's TSV file and the "
                "JSON summary",
                png, why);
    return -1;
  }
  if (pic.err) {
    sm_commit_abort(&c);
    sm_log_warn("%s: not drawn: cannot write %s: %s", png, c.tmp, strerror(pic.err));
    return -1;
  }
  if (sm_commit_finish(&c) != SM_OK) {
    sm_log_warn("%s: not drawn: %s", png, sm_commit_strerror(errno));
    return -1;
  }
  return 1;
}
