/* sm_preflight.c: the environment a run needs, checked before StarPU
 * starts: StarPU's directories (its rules, from StarPU 1.3.10 and 1.4.12's
 * perfmodel.c and utils.c), the open-file limit (measured needs below),
 * the file-size limit against the expected output. */
#include "sm_preflight.h"

#include "sm_bytes.h"
#include "sm_memory.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sm_mpi.h"
#include "sm_output.h"
#include "sm_sched.h"
#include "sm_starpu_compat.h"

/* Open files a run needs at once, measured (the highest descriptor any
 * call returned, strace -f, StarPU 1.3.10, Open MPI 4.1, PoCL 3) and
 * doubled: a one-rank CPU run held 8 whatever its workers (1 to 4 CPU
 * workers: StarPU 1.3 opens no descriptor per worker; its model and bus
 * files and hwloc's plugins are opened one at a time), plus one per input
 * and output file (PLINK input, --histogram, --top-k, --trace: 13); PoCL
 * compiling its kernels runs a linker that held 17 (OpenCL on a warm
 * kernel cache: 8); an MPI rank held 24 with 1 to 6 ranks on the machine
 * (shared memory between them), and Open MPI's TCP transport opens a
 * socket per rank on another machine it talks to. StarPU 1.4 opens the
 * same files (its TCP/IP master-slave driver, which starmet does not use,
 * is the only code of it that makes sockets or pipes). */
#define SM_NOFILE_BASE 16   /* stdio, StarPU, hwloc: measured 8 */
#define SM_NOFILE_OPENCL 16 /* PoCL's compiler and linker: measured 9 more */
#define SM_NOFILE_CUDA 32   /* the CUDA driver's device files (not measured) */
#define SM_NOFILE_MPI 32    /* Open MPI on one machine: measured 16 more */
#define SM_NOFILE_WANT 1024 /* the soft limit raised to, when the hard allows */

/* StarPU's performance-model files: its path buffers hold 255 bytes
 * (_PERF_MODEL_DIR_MAXLEN, PATH_LENGTH); beyond the directory a file's
 * path adds "/codelets/45/", a model name ("sm_" and up to 24 more) or
 * "bus/", the host's name and a suffix (".platform.v4.xml"). */
#define SM_STARPU_PATH_MAX 255
#define SM_STARPU_PATH_ADD 48
/* its model files' directory (_STARPU_PERFMODEL_VERSION, 1.3 and 1.4) */
#define SM_STARPU_CODELETS "codelets/45"

static uint64_t nofile_at_start; /* the soft limit before main raised it */

void sm_preflight_process(void)
{
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return;
  nofile_at_start = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < SM_NOFILE_WANT &&
      rl.rlim_max > rl.rlim_cur) {
    rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < SM_NOFILE_WANT
                      ? rl.rlim_max
                      : SM_NOFILE_WANT;
    setrlimit(RLIMIT_NOFILE, &rl); /* when it fails, the check says what to do */
  }
}

/* "rank 3: " under MPI, "" alone: each rank checks its own machine. */
static const char *who(const sm_preflight_t *p, char *buf, size_t len)
{
  if (p->ranks > 1)
    snprintf(buf, len, "rank %d: ", p->rank);
  else
    buf[0] = 0;
  return buf;
}

/* An environment variable set to a non-empty value, or NULL. */
static const char *env(const char *name)
{
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* A numeric environment variable: its value, or dflt when unset. */
static long env_num(const char *name, long dflt)
{
  const char *v = env(name);
  return v ? atol(v) : dflt;
}

/* mkdir -p with mode; 0, or -1 with errno. */
static int make_dirs(const char *dir, mode_t mode)
{
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(path, mode) != 0 && errno != EEXIST)
        return -1;
      *p = '/';
    }
  if (mkdir(path, mode) != 0 && errno != EEXIST)
    return -1;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return -1;
  if (!S_ISDIR(sb.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

/* Whether a file can really be created and written in dir: access(W_OK)
 * says yes to root on a directory without write permission (root may
 * write there) but also where the server refuses (NFS root squash), and
 * says nothing of a full disk; so a file is made (mkstemp), one byte is
 * written, and it is removed. 0; -1 with errno; 1 when no descriptor is
 * left to try (the open-file check says so next). */
static int probe(const char *dir)
{
  char path[4200];
  /* a unique name (O_EXCL): ranks on other machines share an NFS home */
  snprintf(path, sizeof path, "%s/.starmet-probe.XXXXXX", dir);
  const int fd = mkstemp(path);
  if (fd < 0)
    return errno == EMFILE || errno == ENFILE ? 1 : -1;
  int bad = write(fd, "", 1) != 1;
  int e = errno;
  if (close(fd) != 0 && !bad)
    bad = 1, e = errno;
  unlink(path);
  errno = e;
  return bad ? -1 : 0;
}

/* Where StarPU's home came from, for the message. */
typedef enum {
  FROM_XDG,
  FROM_STARPU_HOME,
  FROM_HOME,
  FROM_TMP,
  FROM_OPTION,
  FROM_ENV
} src_t;

/* StarPU's home, as _starpu_get_home_path finds it (1.3.10 and 1.4.12
 * alike): $XDG_CACHE_HOME first, then $STARPU_HOME, $HOME, $TMPDIR,
 * $TEMP, $TMP, /tmp. starmet sets STARPU_HOME to --perfmodel-dir under
 * StarPU 1.4 (sm_starpu_models_only_in), passed as home_dir. */
static const char *starpu_home(const char *home_dir, src_t *src)
{
  const char *v;
  if ((v = getenv("XDG_CACHE_HOME")))
    return *src = FROM_XDG, v;
  if (home_dir)
    return *src = FROM_OPTION, home_dir;
  if ((v = getenv("STARPU_HOME")))
    return *src = FROM_STARPU_HOME, v;
  if ((v = getenv("HOME")))
    return *src = FROM_HOME, v;
  *src = FROM_TMP;
  if ((v = getenv("TMPDIR")) || (v = getenv("TEMP")) || (v = getenv("TMP")))
    return v;
  return "/tmp";
}

/* What to change when dir (from src) cannot be used. */
static void fix_for(src_t src, int compute, char *buf, size_t len)
{
  const char *opt = compute ? ", or give --perfmodel-dir DIR" : "";
  switch (src) {
  case FROM_XDG:
    snprintf(buf, len,
             "StarPU takes XDG_CACHE_HOME before STARPU_HOME: set XDG_CACHE_HOME to a "
             "writable directory, or unset it and set STARPU_HOME=DIR%s",
             opt);
    break;
  case FROM_STARPU_HOME:
    snprintf(buf, len, "set STARPU_HOME to a writable directory%s", opt);
    break;
  case FROM_HOME:
  case FROM_TMP:
    snprintf(buf, len,
             "set STARPU_HOME to a writable directory (StarPU keeps its files in "
             "$STARPU_HOME/.starpu)%s",
             opt);
    break;
  case FROM_OPTION:
    snprintf(buf, len, "give a writable directory to --perfmodel-dir");
    break;
  case FROM_ENV:
    snprintf(buf, len, "set STARPU_PERF_MODEL_DIR to a writable directory, or unset it%s",
             opt);
    break;
  }
}

/* The setting a directory came from, for the message: "STARPU_HOME=/x". */
static void origin(src_t src, const char *value, char *buf, size_t len)
{
  static const char *const fmt[] = {[FROM_XDG] = "XDG_CACHE_HOME=%s",
                                    [FROM_STARPU_HOME] = "STARPU_HOME=%s",
                                    [FROM_HOME] = "HOME=%s (STARPU_HOME is not set)",
                                    [FROM_TMP] =
                                        "%s (neither STARPU_HOME nor HOME is set)",
                                    [FROM_OPTION] = "--perfmodel-dir %s",
                                    [FROM_ENV] = "STARPU_PERF_MODEL_DIR=%s"};
  snprintf(buf, len, fmt[src], value);
}

/* The system's reason, ENOTDIR as "not a directory": a file stands there. */
static const char *reason(int e)
{
  return e == ENOTDIR ? "not a directory" : strerror(e);
}

/* The host's name in StarPU's file names: $STARPU_HOSTNAME, else the
 * host name up to its first dot (_starpu_gethostname). */
static void host_name(char *buf, size_t len)
{
  const char *h = env("STARPU_HOSTNAME");
  char name[65] = "";
  if (!h) {
    gethostname(name, sizeof name - 1);
    name[strcspn(name, ".")] = 0;
    h = name;
  }
  snprintf(buf, len, "%.64s", h);
}

/* Why StarPU will write in its model directory dir, or NULL: it writes
 * the models at the end of a run that calibrates (--calibrate,
 * STARPU_CALIBRATE, or a policy that uses the models and finds one not
 * calibrated enough, which then aborts after the run when it cannot), and
 * this machine's bus files at start-up when one is missing. */
static const char *models_written(const sm_preflight_t *p, const char *dir, char *buf,
                                  size_t len)
{
  const char *sched = p->sched ? p->sched : env("STARPU_SCHED");
  if (!sched && p->cuda > 0)
    sched = SM_GPU_DEFAULT_SCHED;
  if (p->calibrate || env_num("STARPU_CALIBRATE", 0))
    return "StarPU writes its performance models there at the end of a run that "
           "calibrates";
  if (sm_sched_uses_models(sched) || (sched && !strcmp(sched, "autoheteroprio"))) {
    snprintf(buf, len,
             "StarPU writes its performance models there at the end of a run whose "
             "policy (%s) uses them",
             sched);
    return buf;
  }
  static const char *const bus[] = {"affinity", "latency",      "bandwidth",
                                    "config",   "platform.xml", "platform.v4.xml"};
  char host[80], path[4400];
  host_name(host, sizeof host);
  for (size_t k = 0; k < sizeof bus / sizeof bus[0]; k++) {
    snprintf(path, sizeof path, "%s/bus/%s.%s", dir, host, bus[k]);
    if (access(path, R_OK) != 0) {
      snprintf(buf, len,
               "StarPU measures this machine's buses at start-up and writes them there "
               "(%s/bus/%s.*)",
               dir, host);
      return buf;
    }
  }
  return NULL;
}

/* One performance-model directory: it, its bus/ and codelets/45/ must be
 * made (StarPU aborts at start-up when it cannot) and written when StarPU
 * will write there (models_written), and every path StarPU makes in it
 * must fit its 255-byte buffers. */
static sm_err_t model_dir_ok(const sm_preflight_t *p, const char *dir, src_t src,
                             const char *value, mode_t mode)
{
  const int compute = !strcmp(p->command, "compute");
  char fix[400], w[32], sub[4200], because[4500], from[4400], host[80];
  who(p, w, sizeof w);
  fix_for(src, compute, fix, sizeof fix);
  origin(src, value, from, sizeof from);
  host_name(host, sizeof host);
  if (strlen(dir) + strlen(host) + SM_STARPU_PATH_ADD > SM_STARPU_PATH_MAX) {
    sm_log_error("%s%s: StarPU's performance-model directory %s is %zu characters "
                 "long: StarPU cuts the paths of its files there at %d, and would write "
                 "to other names; %s, with a shorter path",
                 w, from, dir, strlen(dir), SM_STARPU_PATH_MAX, fix);
    return SM_EIO;
  }
  static const char *const subdirs[] = {"", "/bus", "/" SM_STARPU_CODELETS};
  for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++) {
    snprintf(sub, sizeof sub, "%s%s", dir, subdirs[k]);
    int r = make_dirs(sub, k ? 0700 : mode);
    const char *how = r ? "cannot be created" : NULL,
               *why = "StarPU creates it at start-up, and aborts when it cannot";
    int e = errno;
    if (!r && (r = probe(sub)) > 0)
      return SM_OK; /* no descriptor left: the open-file check says so */
    if (r && !how) {
      e = errno;
      if (!(why = models_written(p, dir, because, sizeof because)))
        continue; /* read, never written: a shared, calibrated directory */
      how = "cannot be written";
    }
    if (how) {
      sm_log_error("%s%s: StarPU's performance-model directory %s %s: %s. %s: %s", w,
                   from, sub, how, reason(e), why, fix);
      return SM_EIO;
    }
  }
  return SM_OK;
}

/* The directories StarPU makes and writes at start-up: the model
 * directory ($STARPU_PERF_MODEL_DIR, which --perfmodel-dir sets, else
 * <home>/.starpu/sampling); StarPU 1.4 also makes the codelets/ of
 * <home>/.starpu/sampling when $STARPU_PERF_MODEL_DIR is set. */
static sm_err_t starpu_dirs_ok(const sm_preflight_t *p)
{
  char dir[4200];
  src_t src;
  const char *given = p->perfmodel_dir ? p->perfmodel_dir : env("STARPU_PERF_MODEL_DIR");
  if (given) {
    sm_err_t err =
        model_dir_ok(p, given, p->perfmodel_dir ? FROM_OPTION : FROM_ENV, given, 0777);
    if (err || !SM_STARPU_14)
      return err;
  }
  const char *home = starpu_home(SM_STARPU_14 ? p->perfmodel_dir : NULL, &src);
  snprintf(dir, sizeof dir, "%s/.starpu/sampling", home);
  return model_dir_ok(p, dir, src, home, 0700);
}

/* Whether a file in dir names PoCL's driver (pocl.icd). */
static int icd_seen(int pocl)
{
  const char *dir =
      env("OCL_ICD_VENDORS") ? env("OCL_ICD_VENDORS") : "/etc/OpenCL/vendors";
  DIR *d = opendir(dir);
  int seen = 0;
  for (struct dirent *e; d && !seen && (e = readdir(d));) {
    const size_t n = strlen(e->d_name);
    if (n > 4 && !strcmp(e->d_name + n - 4, ".icd"))
      seen = (strstr(e->d_name, "pocl") != NULL) == pocl;
  }
  if (d)
    closedir(d);
  return seen;
}

int sm_preflight_opencl(void)
{
  if (env_num("STARPU_NOPENCL", -1) == 0)
    return 0;
  return icd_seen(0) || (env_num("STARPU_OPENCL_ON_CPUS", 0) && icd_seen(1));
}

/* PoCL's CPU device, when asked for, needs its kernel cache: $POCL_CACHE_DIR,
 * else $XDG_CACHE_HOME/pocl, else $HOME/.cache/pocl (PoCL 3); without it
 * the device silently does not start. */
static sm_err_t pocl_cache_ok(const sm_preflight_t *p)
{
  if (!p->opencl || !env_num("STARPU_OPENCL_ON_CPUS", 0) || !icd_seen(1))
    return SM_OK;
  char dir[4200], w[32];
  char from[4400];
  const char *v;
  if ((v = env("POCL_CACHE_DIR")))
    snprintf(dir, sizeof dir, "%s", v),
        snprintf(from, sizeof from, "POCL_CACHE_DIR=%s", v);
  else if ((v = env("XDG_CACHE_HOME")))
    snprintf(dir, sizeof dir, "%s/pocl", v),
        snprintf(from, sizeof from, "XDG_CACHE_HOME=%s", v);
  else if ((v = env("HOME")))
    snprintf(dir, sizeof dir, "%s/.cache/pocl", v),
        snprintf(from, sizeof from, "HOME=%s", v);
  else
    return SM_OK;
  int r = make_dirs(dir, 0700);
  const char *how = r ? "created" : NULL;
  if (!r && (r = probe(dir)) != 0)
    how = r > 0 ? NULL : "written";
  if (!how)
    return SM_OK;
  sm_log_error("%s%s: PoCL's kernel cache %s cannot be %s: %s. Without it PoCL's OpenCL "
               "device (STARPU_OPENCL_ON_CPUS=1) does not start: set POCL_CACHE_DIR to a "
               "writable directory",
               who(p, w, sizeof w), from, dir, how, reason(errno));
  return SM_EIO;
}

/* The open files the run needs (the measures above). */
static uint64_t nofile_need(const sm_preflight_t *p, char *parts, size_t len)
{
  uint64_t n = SM_NOFILE_BASE + (uint64_t)p->files;
  int k = snprintf(parts, len, "the program%s %d, its files %d",
                   p->starpu ? " and StarPU" : "", SM_NOFILE_BASE, p->files);
  if (p->starpu && p->opencl) {
    n += SM_NOFILE_OPENCL;
    k += snprintf(parts + k, len - (size_t)k, ", an OpenCL device %d", SM_NOFILE_OPENCL);
  }
  if (p->starpu && p->cuda > 0) {
    n += SM_NOFILE_CUDA;
    k += snprintf(parts + k, len - (size_t)k, ", CUDA %d", SM_NOFILE_CUDA);
  }
  if (p->ranks > 1) {
    const int away = p->ranks - (p->ranks_here > 0 ? p->ranks_here : 1);
    n += SM_NOFILE_MPI + (uint64_t)(away > 0 ? away : 0);
    snprintf(parts + k, len - (size_t)k, ", MPI %d",
             SM_NOFILE_MPI + (away > 0 ? away : 0));
  }
  return n;
}

static sm_err_t nofile_ok(const sm_preflight_t *p)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return SM_OK;
  char parts[256], w[32];
  const uint64_t need = nofile_need(p, parts, sizeof parts);
  uint64_t soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur;
  const uint64_t hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max;
  const uint64_t before = nofile_at_start ? nofile_at_start : soft;
  if (soft < need && hard >= need) {
    /* as many tools do: up to the hard limit, which only root raises */
    const uint64_t to = hard < SM_NOFILE_WANT   ? hard
                        : need > SM_NOFILE_WANT ? need
                                                : SM_NOFILE_WANT;
    rl.rlim_cur = (rlim_t)to;
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
      soft = to;
  }
  if (soft >= need) {
    if (before < need)
      sm_log_info("%sthe open-file limit (ulimit -n) was %llu, below the %llu this run "
                  "needs: starmet raised it to %llu (its hard limit allows %s)",
                  who(p, w, sizeof w), (unsigned long long)before,
                  (unsigned long long)need, (unsigned long long)soft,
                  hard == UINT64_MAX ? "any" : "it");
    return SM_OK;
  }
  const uint64_t ask = need > SM_NOFILE_WANT ? need : SM_NOFILE_WANT;
  sm_log_error("%sthe open-file limit (ulimit -n) is %llu, hard limit %llu: this run "
               "needs about %llu open files (%s): raise it with ulimit -n %llu (a hard "
               "limit is raised by root, e.g. in /etc/security/limits.conf)",
               who(p, w, sizeof w), (unsigned long long)soft, (unsigned long long)hard,
               (unsigned long long)need, parts, (unsigned long long)ask);
  return SM_ERUNTIME;
}

/* The file-size limit against the output; the disk's room, a warning. */
static sm_err_t fsize_ok(const sm_preflight_t *p)
{
  if (!p->out_path)
    return SM_OK;
  char w[32], b[3][32];
  who(p, w, sizeof w);
  struct rlimit rl;
  const uint64_t lim = getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                           ? (uint64_t)rl.rlim_cur
                           : UINT64_MAX;
  if (p->out_fixed > lim) {
    sm_log_error("%s%s: the file-size limit (ulimit -f) is %s, but this file holds %s "
                 "before any result: raise it (ulimit -f unlimited)",
                 w, p->out_path, sm_human_bytes(lim, b[0], 32),
                 sm_human_bytes(p->out_fixed, b[1], 32));
    return SM_EIO;
  }
  if (p->out_bytes > lim && p->out_exact) {
    sm_log_error("%s%s: the file-size limit (ulimit -f) is %s, but this run writes "
                 "about %s there: raise it (ulimit -f unlimited)%s%s",
                 w, p->out_path, sm_human_bytes(lim, b[0], 32),
                 sm_human_bytes(p->out_bytes, b[1], 32), p->out_fewer ? ", or " : "",
                 p->out_fewer ? p->out_fewer : "");
    return SM_EIO;
  }
  if (p->out_bytes > lim)
    sm_log_warn(
        "%s%s: the file-size limit (ulimit -f) is %s, and the values that may "
        "pass --threshold make up to %s: should more pass than fit, the run stops "
        "with an error when the file reaches the limit (ulimit -f unlimited "
        "lifts it)",
        w, p->out_path, sm_human_bytes(lim, b[0], 32),
        sm_human_bytes(p->out_bytes, b[1], 32));
  /* the disk: others may free or take room meanwhile, so only said */
  char dir[4200];
  snprintf(dir, sizeof dir, "%s", p->out_path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *(slash == dir ? slash + 1 : slash) = 0;
  struct statvfs vs;
  const uint64_t here = p->out_bytes * (uint64_t)(p->ranks_here > 0 ? p->ranks_here : 1);
  if (p->out_exact && here && statvfs(slash ? dir : ".", &vs) == 0 &&
      (uint64_t)vs.f_bavail * vs.f_frsize < here)
    sm_log_warn("%s%s: this run writes about %s on its disk, which has %s free: the run "
                "will stop with an error when it is full",
                w, p->out_path, sm_human_bytes(here, b[0], 32),
                sm_human_bytes((uint64_t)vs.f_bavail * vs.f_frsize, b[2], 32));
  return SM_OK;
}

/* No OpenCL device will start (PoCL alone, not asked for with
 * STARPU_OPENCL_ON_CPUS): StarPU 1.3 still asks the ICD loader for its
 * platforms, and hwloc's plugin too, which loads PoCL and with it LLVM
 * (40 to 60 ms of relocations, most of the runtime's start and a twentieth
 * of PLINK's default --r2 on 200,000 variants). The loader is pointed at
 * no vendors then, unless the user's environment names them. */
static void opencl_unused(const sm_preflight_t *p)
{
  if (p->starpu && !p->opencl && !env("OCL_ICD_VENDORS"))
    setenv("OCL_ICD_VENDORS", "/nonexistent/starmet-no-opencl-device", 1);
}

sm_err_t sm_preflight_check(const sm_preflight_t *p)
{
  sm_err_t err = SM_OK;
  opencl_unused(p);
  if (p->starpu && !err)
    err = starpu_dirs_ok(p);
  if (p->starpu && !err)
    err = pocl_cache_ok(p);
  if (!err)
    err = nofile_ok(p);
  if (!err)
    err = fsize_ok(p);
  return err;
}

/* Average decimal digits of the indices 0 .. n-1. */
static double index_digits(size_t n)
{
  double sum = 0;
  for (size_t lo = 0, hi = 10, d = 1; lo < n; lo = hi, hi *= 10, d++)
    sum += (double)((hi < n ? hi : n) - lo) * (double)d;
  return n ? sum / (double)n : 1;
}

uint64_t sm_preflight_out_bytes(const sm_preflight_out_t *o, uint64_t *fixed)
{
  const double n = (double)o->nv;
  const double tuples = o->way == 3 ? n * (n - 1) * (n - 2) / 6 : n * (n - 1) / 2;
  const double values = tuples * (o->ccc ? (1 << o->way) : 1) * o->share;
  const double vb = o->single ? 4 : 8;
  double rec = 0;
  *fixed = 0;
  switch (o->fmt) {
  case SM_OUT_TSV:
    *fixed = o->way == 3 ? 30 : 25; /* the header line */
    rec = o->way * (index_digits(o->nv) + 1) + (o->ccc ? 2 * o->way : 0) +
          (o->single ? 9 : 17) + 1;
    break;
  case SM_OUT_BIN:
    *fixed = SM_BIN_HEADER;
    rec = 4.0 * o->way + (o->ccc ? 1 : 0) + vb;
    break;
  case SM_OUT_COMET:
    rec = 4.0 * o->way + 4;
    break;
  case SM_OUT_NPY: /* sized whole when opened */
    *fixed = (uint64_t)(128 + n * n * vb * (o->ccc ? 4 : 1));
    return *fixed;
  case SM_OUT_LSMAT: /* the ids twice, each pair twice ("0.49152541436498437\t") */
    *fixed = (uint64_t)(2 * n * (index_digits(o->nv) + 1) + 3 * n);
    rec = 2.0 * (o->single ? 12 : 20);
    break;
  case SM_OUT_LD: /* PLINK's columns: two loci and ids, a 12-wide value */
    *fixed = 80;
    rec = 2 * (6 + 3 + 11 + index_digits(o->nv) + 4) + 14;
    break;
  case SM_OUT_NONE:
    return 0;
  }
  const double total = (double)*fixed + values * rec;
  return total >= 1.8e19 ? UINT64_MAX : (uint64_t)total;
}

sm_err_t sm_preflight_compute(const sm_options_t *o, const sm_decomp_t *d)
{
  int zero = 0, index, here;
  sm_mpi_node_peers(&zero, sizeof zero, &index, &here);
  const int P = sm_mpi_size(), me = sm_mpi_rank();
  /* every rank writes a file (field and replica ranks share their row's
   * finalize): about 1/P of the values each, a little more for some; the
   * .ld table is one file, rank 0's */
  const int one_file = o->output_format == SM_OUT_LD;
  const int writers = P > 1 && !one_file ? P : 1;
  double share = (double)(o->phase_max - o->phase_min + 1) / o->num_phase / writers;
  if (o->num_way == 3)
    share *= (double)(o->stage_max - o->stage_min + 1) / o->num_stage;
  const sm_preflight_out_t out = {.fmt = o->output ? o->output_format : SM_OUT_NONE,
                                  .way = o->num_way,
                                  .ccc = o->metric == SM_METRIC_CCC,
                                  .single = o->single,
                                  .nv = d->nv,
                                  .share = share};
  char path[4200] = "";
  if (out.fmt != SM_OUT_NONE && (!one_file || me == 0))
    sm_output_path_gz(path, sizeof path, o->output, o->output_format, o->ld_gz, me, P);
  const int inputs = o->synth.kind != SM_SYNTH_NONE      ? 0
                     : o->input_format == SM_INPUT_PLINK ? 3
                                                         : 1;
  sm_preflight_t p = {
      .command = "compute",
      .starpu = o->method != SM_METHOD_REF,
      .perfmodel_dir = o->perfmodel_dir,
      .sched = o->sched,
      .calibrate = o->calibrate,
      .rank = me,
      .ranks = P,
      .ranks_here = here,
      .opencl = sm_preflight_opencl(),
      .cuda = o->method != SM_METHOD_REF ? sm_sched_expected_gpus() : 0,
      /* results, manifest, lock, summary, and what is asked for */
      .files = inputs + 4 + (o->trace != NULL) + 2 * (o->hist_bins > 0) + (o->topk > 0),
      .out_path = path[0] ? path : NULL,
      .out_exact = o->threshold < 0 && o->thr_ent.n == 0,
      .out_fewer =
          o->output_format == SM_OUT_TSV
              ? "write fewer bytes (--output-format bin, --threshold, more ranks)"
              : "write fewer values (--threshold, more ranks)",
  };
  p.out_bytes = sm_preflight_out_bytes(&out, &p.out_fixed);
  /* LD windows keep the pairs within them, and --ld-snp the index
   * variants', which the variants' loci (read later) decide: the size is
   * not known here, and every pair's would overstate it by orders of
   * magnitude */
  if (o->ld_windowed || o->ld_snp || o->ld_snp_list || o->ld_snps)
    p.out_bytes = 0, p.out_exact = 0;
  return sm_preflight_check(&p);
}
