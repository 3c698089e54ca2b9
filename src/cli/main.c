/* main.c: the starmet command: dispatch to `compute`, `synth` and `maf`.
 * The only place that exits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

#include "config.h"
#include "sm_about.h"
#include "sm_compute.h"
#include "sm_crash.h"
#include "sm_crc32c.h"
#include "sm_maf.h"
#include "sm_mpi.h"
#include "sm_optable.h"
#include "sm_preflight.h"
#include "sm_runtime.h"
#include "sm_stream.h"

/* A simulation build's starpu.h renames main to starpu_main, so that
 * StarPU's own main starts SimGrid first (on its fast contexts) and runs
 * starpu_main in a simulated process. starmet keeps its own main, which
 * hands a compute run whose simulated machine exists to StarPU's main (the
 * other commands, --version and a missing machine need no simulation:
 * SimGrid would stop at its missing platform file). */
#ifdef SM_SIMULATION
#undef main
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>

#include "sm_sched.h"
#endif

static char *join_args(int argc, char **argv)
{
  size_t len = 1;
  for (int k = 0; k < argc; k++)
    len += strlen(argv[k]) + 1;
  char *s = malloc(len);
  if (!s)
    return NULL;
  s[0] = 0;
  for (int k = 0; k < argc; k++) {
    strcat(s, argv[k]);
    if (k + 1 < argc)
      strcat(s, " ");
  }
  return s;
}

/* After a failed run, one line to the page of the guide that explains
 * its class of error and what to do (rank 0 only under MPI). */
static void point_to_guide(sm_err_t err)
{
  static const char *const page[SM_ERR_COUNT] = {
      [SM_EIO] = "troubleshooting.md#files-and-directories",
      [SM_EFORMAT] = "troubleshooting.md#input-files",
      [SM_EINCONSIST] = "troubleshooting.md#input-files",
      [SM_EVALUE] = "troubleshooting.md#input-files",
      [SM_EDEGEN] = "troubleshooting.md#input-files",
      [SM_EOPTION] = "troubleshooting.md#options",
      [SM_ENOMEM] = "troubleshooting.md#memory",
      [SM_ERUNTIME] = "troubleshooting.md#starpu-mpi-and-devices",
      [SM_ECHECK] = "troubleshooting.md#self-checks",
  };
  if (err <= SM_OK || err >= SM_ERR_COUNT || !page[err] || sm_mpi_rank() != 0)
    return;
  fprintf(stderr, "starmet: what this means and what to do: docs/%s\n", page[err]);
}

/* The adapters of the two commands that run under MPI. */
static int run_compute(const void *o, const char *command)
{
  return sm_compute_main(o, command);
}

static int run_maf(const void *o, const char *command)
{
  return sm_maf_main(o, command);
}

/* What every rank of one run must have alike: the program, the command,
 * its options as parsed (sm_opt_canonical: those that may differ per rank
 * left out) and each input file's size as this rank sees it. Takes canon
 * (malloc'd); NULL without memory. */
static char *agreement_text(const char *command, char *canon, char paths[][4200], int n)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = canon ? open_memstream(&text, &len) : NULL;
  if (!f) {
    free(canon);
    return NULL;
  }
  sm_about_build(f); /* starmet, StarPU, MPI, features */
  fprintf(f, "command %s\n%s", command, canon);
  for (int k = 0; k < n; k++) {
    /* its size and the CRC of its first and last 64 KB: another copy, or
     * a file of the same name in another working directory, differs there
     * (almost always: not in the middle alone) at the cost of two reads */
    if (sm_input_is_stream(paths[k])) { /* read once, by the run: not here */
      fprintf(f, "input %s, a stream\n", paths[k]);
      continue;
    }
    struct stat sb;
    const int fd = open(paths[k], O_RDONLY | O_CLOEXEC);
    uint32_t head = 0, tail = 0;
    if (fd >= 0 && fstat(fd, &sb) == 0) {
      const uint64_t size = (uint64_t)sb.st_size, part = size < 65536 ? size : 65536;
      if (sm_crc32c_fd(fd, 0, part, &head) || sm_crc32c_fd(fd, size - part, part, &tail))
        head = tail = 0;
      fprintf(f, "input %s of %llu bytes (CRC-32C of its ends %08x %08x)\n", paths[k],
              (unsigned long long)size, (unsigned)head, (unsigned)tail);
    } else {
      fprintf(f, "input %s that cannot be read\n", paths[k]);
    }
    if (fd >= 0)
      close(fd);
  }
  free(canon);
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* A line of agreement_text as a rank's message says it. */
static void say_line(const char *line, char *buf, size_t len)
{
  const char *sp = strchr(line, ' ');
  if (!line[0])
    snprintf(buf, len, "fewer settings");
  else if (!strncmp(line, "--", 2) && sp && !strcmp(sp + 1, "-"))
    snprintf(buf, len, "no %.*s", (int)(sp - line), line);
  else if (!strncmp(line, "--", 2) && sp && !strncmp(sp + 1, "--", 2))
    snprintf(buf, len, "%s", sp + 1); /* a flag: the option that set it */
  else
    snprintf(buf, len, "%s", line);
}

/* Before any task: every rank runs what rank 0 runs (one gather of the
 * texts). Otherwise rank 0 names the first difference and all stop. */
static sm_err_t ranks_agree(const char *text, const sm_optcmd_t *cmd)
{
  int other;
  char *l0, *lr;
  sm_err_t err = sm_mpi_compare_lines(text, &other, &l0, &lr);
  err = (sm_err_t)sm_mpi_agree(err);
  if (!err && other >= 0) {
    if (sm_mpi_rank() == 0) {
      char per[512], s0[4400], sr[4400];
      sm_opt_per_rank_names(cmd, per, sizeof per);
      say_line(l0, s0, sizeof s0);
      say_line(lr, sr, sizeof sr);
      sm_log_error("the ranks of this run were not started alike: rank 0 has %s, "
                   "rank %d has %s. Every rank must run the same command on the same "
                   "input files; only these options may differ between ranks: %s",
                   s0, other, sr, per);
    }
    err = SM_EOPTION;
  } else if (err == SM_ENOMEM && sm_mpi_rank() == 0) {
    sm_log_error("out of memory comparing the ranks' options");
  }
  free(l0), free(lr);
  return err;
}

/* What each rank of a compute or maf run must have alike (agreement_text
 * from the parsed options o and the command line). */
static char *agree_compute(int argc, char **argv, const void *o)
{
  char in[3][4200];
  const int nin = sm_compute_input_files(o, in);
  return agreement_text("compute", sm_options_canonical_compute(argc - 1, argv + 1, o),
                        in, nin);
}

static char *agree_maf(int argc, char **argv, const void *o)
{
  const sm_maf_options_t *mo = o;
  char in[1][4200];
  snprintf(in[0], sizeof in[0], "%s", mo->input ? mo->input : "");
  return agreement_text("maf", sm_maf_options_canonical(argc - 1, argv + 1, mo), in,
                        mo->input ? 1 : 0);
}

/* A command that runs under MPI: its work, what its ranks compare, its
 * option table (for the options that may differ), its name. */
typedef struct mpi_cmd {
  int (*run)(const void *o, const char *command);
  char *(*agree)(int argc, char **argv, const void *o);
  const sm_optcmd_t *table;
  const char *name;
} mpi_cmd_t;

/* A command's work on every rank, its command line (taken after parsing,
 * as the summaries have always recorded it) in its summary, once several
 * ranks have agreed on what they run. */
static int run_mpi(int argc, char **argv, const mpi_cmd_t *c, const void *o,
                   long want_ranks)
{
  char *cmd = join_args(argc, argv);
  const int argc0 = argc; /* as parsed (MPI may take its own arguments) */
  char **const argv0 = argv;
  int r = sm_mpi_init(&argc, &argv, want_ranks), agreed = 1;
  /* Open MPI puts its own handler on SIGABRT, SIGSEGV, SIGBUS and SIGFPE,
   * which may print nothing: ours again, first */
  sm_crash_install();
  if (r == SM_OK && sm_mpi_size() > 1)
    sm_crash_set_rank(sm_mpi_rank());
  if (r == SM_OK && sm_mpi_size() > 1) {
    char *text = c->agree(argc0, argv0, o);
    agreed = (r = ranks_agree(text, c->table)) == SM_OK;
    free(text);
  }
  if (r == SM_OK)
    r = c->run(o, cmd ? cmd : c->name);
  /* the printed summary may be a run's only result: losing it is a failure */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    if (sm_mpi_rank() == 0)
      sm_log_error("cannot write the run's summary to standard output: %s%s",
                   strerror(errno),
                   r == SM_OK ? " (the files it wrote, if any, are complete)" : "");
    r = r ? r : SM_EIO;
  }
  point_to_guide((sm_err_t)r);
  sm_mpi_finalize();
  free(cmd);
  /* ranks that disagree: a bad command line, like a bad option */
  return r == SM_OK ? 0 : !agreed && r == SM_EOPTION ? 2 : 1;
}

/* A run stalled (--task-timeout): end every rank now. The outputs are
 * still under their temporary names; --resume continues the run. */
static void stall_exit(void)
{
  sm_mpi_abort(1);
  _exit(1);
}

/* Exit status after parsing: 2 on a bad option, 0 when an option did the
 * whole job (--help), -1 to go on. */
static int parsed(sm_err_t err, const int *done)
{
  point_to_guide(err);
  return err != SM_OK ? 2 : *done ? 0 : -1;
}

static int starmet_main(int argc, char **argv)
{
  sm_preflight_process(); /* SIGXFSZ ignored (EFBIG instead), open-file limit */
  sm_crash_install();     /* a fatal signal's stack on stderr */
#ifdef M_MMAP_THRESHOLD
  /* Every block's records (and text) are megabytes freed milliseconds
   * later: served from the heap they are reused, where glibc's default
   * maps fresh zeroed pages for each (their page faults cost 10% of a run
   * writing TSV). Up to 16 MB only: larger buffers (numerator tiles) kept
   * in the heap would hold on to their memory (64 MB sparse tiles took a
   * 12000 x 20000 run from 0.3 to 1 GB). */
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  sm_runtime_set_stall_handler(stall_exit);
  if (argc < 2) {
    sm_options_short_usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    sm_options_usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    sm_about_version(stdout);
    return 0;
  }
  /* for the build: the manual page and the completion, from the tables */
  if (!strcmp(argv[1], "--man")) {
    sm_about_man(stdout);
    return fflush(stdout) ? 1 : 0;
  }
  if (!strcmp(argv[1], "--reference")) {
    sm_about_reference(stdout);
    return fflush(stdout) ? 1 : 0;
  }
  if (!strcmp(argv[1], "--completion")) {
    if (sm_about_completion(argc > 2 ? argv[2] : NULL, stdout))
      return 2;
    return fflush(stdout) ? 1 : 0;
  }
  sm_options_t o;
  int done = 0, r;
  if (!strcmp(argv[1], "compute")) {
    if ((r = parsed(sm_options_parse_compute(argc - 1, argv + 1, &o, &done), &done)) >= 0)
      return r;
    /* --threads: StarPU's CPU workers, before anything reads the count */
    if (o.threads) {
      char n[24];
      snprintf(n, sizeof n, "%zu", o.threads);
      setenv("STARPU_NCPU", n, 1);
    }
    /* the rank grid the options ask for (0 = as many as run) */
    const long grid =
        (long)(o.npv ? o.npv : 1) * (o.npf ? o.npf : 1) * (o.npr ? o.npr : 1);
    const mpi_cmd_t c = {run_compute, agree_compute, sm_options_command(0),
                         "starmet compute"};
    return run_mpi(argc, argv, &c, &o, grid);
  }
  if (!strcmp(argv[1], "synth")) {
    if ((r = parsed(sm_options_parse_synth(argc - 1, argv + 1, &o, &done), &done)) >= 0)
      return r;
    const sm_err_t err = (sm_err_t)sm_synth_main(&o);
    point_to_guide(err);
    return err == SM_OK ? 0 : 1;
  }
  if (!strcmp(argv[1], "maf")) {
    sm_maf_options_t mo;
    if ((r = parsed(sm_maf_options_parse(argc - 1, argv + 1, &mo, &done), &done)) >= 0)
      return r;
    const mpi_cmd_t c = {run_maf, agree_maf, sm_maf_command(), "starmet maf"};
    return run_mpi(argc, argv, &c, &mo, 1);
  }
  fprintf(stderr,
          "starmet: error: unknown command '%s' (use compute, synth or maf; "
          "see starmet --help)\n",
          argv[1]);
  return 2;
}

#ifdef SM_SIMULATION
#ifndef SM_SMPI /* under smpirun StarPU's own main is the library's main */
/* A compute run, STARPU_HOSTNAME set and its platform file where StarPU
 * will look (--perfmodel-dir, as StarPU reads it, passed on in
 * STARPU_PERF_MODEL_DIR). */
static int simulated_machine_ready(int argc, char **argv)
{
  const char *dir = NULL;
  if (argc < 2 || strcmp(argv[1], "compute"))
    return 0;
  for (int k = 2; k < argc; k++) {
    if (!strcmp(argv[k], "--perfmodel-dir") && k + 1 < argc)
      dir = argv[k + 1];
    else if (!strncmp(argv[k], "--perfmodel-dir=", 16))
      dir = argv[k] + 16;
  }
  char path[4500];
  if (sm_sched_platform_file(dir, "platform.v4.xml", path, sizeof path) ||
      access(path, R_OK) != 0)
    return 0; /* sm_runtime_init says what is missing */
  if (dir)
    setenv("STARPU_PERF_MODEL_DIR", dir, 1);
  return 1;
}
#endif

int starpu_main(int argc, char **argv);
int starpu_main(int argc, char **argv)
{
  return starmet_main(argc, argv);
}

#ifndef SM_SMPI
int main(int argc, char **argv)
{
  if (simulated_machine_ready(argc, argv)) {
    int (*starpu_own_main)(int, char **) =
        (int (*)(int, char **))(uintptr_t)dlsym(RTLD_NEXT, "main");
    /* SimGrid takes its own options out of argv before starpu_main sees
     * it: keep its notes on the platform file's settings for warnings */
    char **args = starpu_own_main ? calloc((size_t)argc + 2, sizeof *args) : NULL;
    if (args) {
      static char quiet[] = "--log=xbt_cfg.thres:warning";
      args[0] = argv[0];
      args[1] = quiet;
      for (int k = 1; k < argc; k++)
        args[k + 1] = argv[k];
      const int r = starpu_own_main(argc + 1, args);
      free(args);
      return r;
    }
  }
  return starmet_main(argc, argv);
}
#endif
#else
int main(int argc, char **argv)
{
  return starmet_main(argc, argv);
}
#endif
