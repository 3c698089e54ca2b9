/* sm_paje.c: --trace-paje: each rank's StarPU records its FxT trace into a
 * working directory, rank 0 converts the files with starpu_fxt_tool,
 * checks the Paje trace, and puts it and the working directory in place. */
#include "sm_paje.h"

#include "config.h"
#include "sm_commit.h"
#include "sm_mpi.h"

#include <starpu.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARK "README.starmet" /* what FILE.fxt holds; replaced only with it */

static char work[SM_COMMIT_NAME_MAX]; /* FILE.fxt.part.XXXXXX, all ranks */

/* starpu_fxt_tool of the StarPU starmet was built against, else PATH's. */
static int find_tool(char *buf, size_t len)
{
  snprintf(buf, len, "%s/starpu_fxt_tool", SM_STARPU_BINDIR);
  if (access(buf, X_OK) == 0)
    return 0;
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t n = strcspn(path, ":");
    snprintf(buf, len, "%.*s/starpu_fxt_tool", (int)n, path);
    if (n && access(buf, X_OK) == 0)
      return 0;
    path += n + (path[n] == ':');
  }
  return -1;
}

int sm_paje_available(char *why, size_t len)
{
  const char *how = "build StarPU 1.4 with FxT (scripts/setup-starpu 1.4: Debian's "
                    "libfxt-dev, starmet in _build-starpu14/), or use --trace FILE "
                    "(starmet's CSV trace of the tasks; scripts/gantt draws it)";
#ifdef STARPU_USE_FXT
  char tool[PATH_MAX + 32];
  if (find_tool(tool, sizeof tool) == 0)
    return 1;
  snprintf(
      why, len,
      "this starmet's StarPU %s has FxT but its starpu_fxt_tool is in neither %s nor "
      "PATH: add StarPU's bin/ to PATH, or %s",
      SM_STARPU_BUILT_VERSION, SM_STARPU_BINDIR, how);
#else
  snprintf(
      why, len,
      "this starmet runs on a StarPU %s built without FxT (Debian's StarPU has none), "
      "which cannot record StarPU's trace: %s",
      SM_STARPU_BUILT_VERSION, how);
#endif
  return 0;
}

static int is_ours(const char *dir)
{
  char m[SM_COMMIT_NAME_MAX + 32];
  snprintf(m, sizeof m, "%s/%s", dir, MARK);
  return access(m, F_OK) == 0;
}

sm_err_t sm_paje_check(const char *path)
{
  char dir[SM_COMMIT_NAME_MAX];
  struct stat sb;
  snprintf(dir, sizeof dir, "%s.fxt", path);
  if (lstat(dir, &sb) != 0)
    return SM_OK;
  if (!S_ISDIR(sb.st_mode) || !is_ours(dir)) {
    sm_log_error("--trace-paje %s: %s exists and was not written by --trace-paje (it "
                 "would be replaced by the trace's files): remove it or choose another "
                 "FILE",
                 path, dir);
    return SM_EIO;
  }
  return SM_OK;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb, (void)flag, (void)ftw;
  return remove(p);
}

static void rm_tree(const char *dir)
{
  if (dir[0])
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

sm_err_t sm_paje_prepare(const char *path)
{
  sm_err_t err = SM_OK;
  if (sm_mpi_rank() == 0) {
    snprintf(work, sizeof work, "%s.fxt.part.XXXXXX", path);
    if (!mkdtemp(work)) {
      sm_log_error("--trace-paje %s: cannot make %s: %s", path, work, strerror(errno));
      work[0] = '\0';
      err = SM_EIO;
    } else {
      const mode_t mask = umask(0); /* mkdtemp's 0700: the umask's, as for files */
      umask(mask);
      chmod(work, 0777 & ~mask);
    }
  }
  err = (sm_err_t)sm_mpi_agree(err);
  if (err)
    return err;
  if (sm_mpi_size() > 1)
    sm_mpi_bcast(work, sizeof work);
  /* prof_file_<rank>: StarPU appends the StarPU-MPI rank */
  setenv("STARPU_FXT_TRACE", "1", 1);
  setenv("STARPU_FXT_PREFIX", work, 1);
  setenv("STARPU_FXT_SUFFIX", "prof_file", 1);
  setenv("STARPU_GENERATE_TRACE", "0", 1); /* rank 0 converts every rank's */
  return SM_OK;
}

/* starpu_fxt_tool -i prof_file_0 ... in the working directory, its output
 * in starpu_fxt_tool.log there. 0 when it ran and succeeded. */
static int convert(const char *tool, int nranks)
{
  char log[SM_COMMIT_NAME_MAX + 32];
  snprintf(log, sizeof log, "%s/starpu_fxt_tool.log", work);
  char **argv = calloc((size_t)(2 * nranks + 4), sizeof *argv);
  char(*names)[32] = calloc((size_t)nranks, sizeof *names);
  if (!argv || !names) {
    free(argv);
    free(names);
    return -1;
  }
  int a = 0;
  argv[a++] = (char *)tool;
  for (int r = 0; r < nranks; r++) {
    snprintf(names[r], sizeof names[r], "prof_file_%d", r);
    argv[a++] = "-i";
    argv[a++] = names[r];
  }
  argv[a] = NULL;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || chdir(work) != 0)
      _exit(126);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(tool, argv);
    _exit(127);
  }
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  free(argv);
  free(names);
  return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The Paje trace's tasks: one PajeSetState 20 (a task on a worker, with
 * its codelet, job id and priority) per task executed. -1: no Paje
 * header. */
static long long paje_tasks(FILE *f)
{
  char line[4096];
  long long n = 0;
  int header = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "%EventDef", 9))
      header |= strstr(line, "PajeSetState") && strstr(line, " 20") ? 2 : 1;
    else if (!strncmp(line, "20\t", 3) || !strncmp(line, "20 ", 3))
      n++;
  }
  return header == 3 ? n : -1;
}

/* Check the working directory's paje.trace (a Paje header, as many
 * tasks as the run executed) and copy it to path (temporary, verified,
 * renamed). SM_ECHECK when it does not hold the run's tasks. */
static sm_err_t commit_paje(const char *path, unsigned long long tasks)
{
  char src[SM_COMMIT_NAME_MAX + 16];
  snprintf(src, sizeof src, "%s/paje.trace", work);
  FILE *in = fopen(src, "rb");
  if (!in) {
    sm_log_error(
        "--trace-paje %s: starpu_fxt_tool wrote no %s (see %s/starpu_fxt_tool.log)", path,
        src, work);
    return SM_EIO;
  }
  const long long got = paje_tasks(in);
  if (got != (long long)tasks) {
    if (got < 0)
      sm_log_error("--trace-paje %s: %s has no Paje header (%%EventDef PajeSetState 20)",
                   path, src);
    else
      sm_log_error(
          "--trace-paje %s: the Paje trace has %lld tasks, the run executed %llu "
          "(StarPU lost FxT events: see %s)",
          path, got, tasks, work);
    fclose(in);
    return SM_ECHECK;
  }
  rewind(in);
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 0, "wb") != SM_OK) {
    sm_log_error("--trace-paje %s: cannot write it: %s", path, sm_commit_strerror(errno));
    fclose(in);
    return SM_EIO;
  }
  char buf[1 << 16];
  size_t n;
  int bad = 0;
  while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0)
    bad = sm_commit_write(&c, buf, n) != 0;
  bad |= ferror(in);
  fclose(in);
  if (bad) {
    sm_log_error("--trace-paje %s: cannot write it: %s", path,
                 sm_commit_write_error(errno));
    sm_commit_abort(&c);
    return SM_EIO;
  }
  if (sm_commit_verify(&c) != SM_OK || sm_commit_finish(&c) != SM_OK) {
    sm_log_error("--trace-paje %s: not written", path); /* why: logged above */
    sm_commit_abort(&c);
    return SM_EIO;
  }
  return SM_OK;
}

/* What FILE.fxt is, for whoever finds it (and the mark that lets a later
 * run replace it). */
static sm_err_t write_mark(const char *path)
{
  char m[SM_COMMIT_NAME_MAX + 32];
  snprintf(m, sizeof m, "%s/%s", work, MARK);
  sm_commit_t c;
  if (sm_commit_open(&c, m, ".part", 0, "w") != SM_OK)
    return SM_EIO;
  int bad = sm_commit_printf(
      &c,
      "StarPU's FxT trace of a starmet run (--trace-paje %s), converted by\n"
      "starpu_fxt_tool: prof_file_<rank> (the FxT files, one per rank: `starvz -1` on\n"
      "this directory), paje.trace (the Paje trace: ViTE), tasks.rec, data.rec,\n"
      "trace.rec, dag.dot (the task graph) and the tool's other files.\n",
      path);
  if (bad || sm_commit_verify(&c) != SM_OK || sm_commit_finish(&c) != SM_OK) {
    sm_commit_abort(&c);
    return SM_EIO;
  }
  return SM_OK;
}

/* The working directory becomes FILE.fxt (an earlier one is removed). */
static sm_err_t put_in_place(const char *path)
{
  char dir[SM_COMMIT_NAME_MAX], old[SM_COMMIT_NAME_MAX + 32];
  snprintf(dir, sizeof dir, "%s.fxt", path);
  snprintf(old, sizeof old, "%s.old.%ld", dir, (long)getpid());
  struct stat sb;
  int had = lstat(dir, &sb) == 0;
  errno = 0;
  if (had && (!S_ISDIR(sb.st_mode) || !is_ours(dir) || rename(dir, old) != 0)) {
    sm_log_error("--trace-paje %s: cannot replace %s (%s): remove it and run again", path,
                 dir, errno ? strerror(errno) : "not written by --trace-paje");
    return SM_EIO;
  }
  if (rename(work, dir) != 0) {
    sm_log_error("--trace-paje %s: cannot rename %s to %s: %s", path, work, dir,
                 strerror(errno));
    if (had && rename(old, dir) != 0)
      sm_log_error("--trace-paje %s: the earlier %s is now %s", path, dir, old);
    return SM_EIO;
  }
  if (had)
    rm_tree(old);
  return SM_OK;
}

sm_err_t sm_paje_finish(const char *path, int ok, unsigned long long tasks)
{
  /* every rank's StarPU has written its file */
  sm_err_t err = (sm_err_t)sm_mpi_agree(SM_OK);
  if (sm_mpi_rank() != 0)
    return (sm_err_t)sm_mpi_agree(SM_OK);
  char tool[PATH_MAX + 32];
  if (!ok) {
    err = SM_ERUNTIME; /* the run's own error is logged */
  } else if (find_tool(tool, sizeof tool) != 0) {
    sm_log_error("--trace-paje %s: starpu_fxt_tool is gone from %s and PATH", path,
                 SM_STARPU_BINDIR);
    err = SM_ERUNTIME;
  } else if (convert(tool, sm_mpi_size()) != 0) {
    sm_log_error("--trace-paje %s: starpu_fxt_tool failed on the FxT files of %s (see "
                 "%s/starpu_fxt_tool.log)",
                 path, work, work);
    err = SM_ERUNTIME;
  } else {
    err = commit_paje(path, tasks);
  }
  if (!err)
    err = write_mark(path);
  if (!err)
    err = put_in_place(path);
  /* a trace that lost tasks stays for a look; anything else goes */
  if (err && err != SM_ECHECK)
    rm_tree(work);
  work[0] = '\0';
  return (sm_err_t)sm_mpi_agree(err);
}
