/* sm_about.c: what starmet says about itself: --version (its versions and
 * the features built in), and, walking the option tables of compute, synth
 * and maf, its manual page (--man) and its bash completion (--completion
 * bash), so neither can drift from --help. */
#include "sm_about.h"

#include <htslib/hts.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sm_codelets.h"
#include "sm_crc32c.h"
#include "sm_maf.h"
#include "sm_options.h"

/* ---- --version */

/* The MPI library's name and version, up to its first comma. */
static void mpi_library(char *buf, size_t len)
{
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int n = 0;
  if (MPI_Get_library_version(v, &n) != MPI_SUCCESS) /* allowed before MPI_Init */
    v[0] = 0;
  v[strcspn(v, ",\n")] = 0;
  snprintf(buf, len, "%s", v[0] ? v : "unknown library");
}

/* "features: mpi opencl htslib (not built: cuda, simulation)" */
static void features(FILE *f)
{
  static const struct {
    const char *name;
    int built;
  } feature[] = {
#ifdef SM_HAVE_STARPU_MPI
      {"mpi", 1}, /* StarPU-MPI: required except in a simulation build */
#else
      {"mpi", 0},
#endif
#ifdef STARPU_USE_OPENCL
      {"opencl", 1},
#else
      {"opencl", 0},
#endif
#ifdef SM_USE_CUDA
      {"cuda", 1},
#else
      {"cuda", 0},
#endif
#ifdef STARPU_USE_FXT
      {"fxt", 1}, /* StarPU's FxT traces: --trace-paje */
#else
      {"fxt", 0},
#endif
      {"htslib", 1}, /* VCF/BCF input and maf's VCF likelihoods */
#ifdef SM_HAVE_HDF5
      {"hdf5", 1}, /* BIOM 2.1 (.biom) input */
#else
      {"hdf5", 0},
#endif
#ifdef SM_SIMULATION
      {"simulation", 1}, /* StarPU with SimGrid: kernels do not run */
#else
      {"simulation", 0},
#endif
  };
  const size_t n = sizeof feature / sizeof feature[0];
  const char *sep = " (not built: ";
  fputs("features:", f);
  for (size_t k = 0; k < n; k++)
    if (feature[k].built)
      fprintf(f, " %s", feature[k].name);
  for (size_t k = 0; k < n; k++)
    if (!feature[k].built) {
      fprintf(f, "%s%s", sep, feature[k].name);
      sep = ", ";
    }
  fputs(sep[0] == ',' ? ")\n" : "\n", f);
}

void sm_about_build(FILE *f)
{
  int major, minor, release;
  starpu_get_version(&major, &minor, &release);
  char mpi[256];
  mpi_library(mpi, sizeof mpi);
  fprintf(f, "build starmet %s, StarPU %d.%d.%d (built against %d.%d.%d), %s\n",
          PACKAGE_VERSION, major, minor, release, STARPU_MAJOR_VERSION,
          STARPU_MINOR_VERSION, STARPU_RELEASE_VERSION, mpi);
  features(f);
}

void sm_about_version(FILE *f)
{
  fprintf(f, "starmet %s\n", PACKAGE_VERSION);
  unsigned where = 0; /* worker types the compute codelets can use */
  for (int k = 0; k < SM_TK_COUNT; k++)
    where |= sm_codelets_where((sm_task_kind_t)k);
  fprintf(f, "codelets: cpu%s%s\n", where & STARPU_CUDA ? " cuda" : "",
          where & STARPU_OPENCL ? " opencl" : "");
  sm_codelets_list(f);

  int major, minor, release;
  starpu_get_version(&major, &minor, &release);
#ifdef SM_HAVE_STARPU_MPI
  const char *with = "with StarPU-MPI";
#else
  const char *with = "no StarPU-MPI";
#endif
  fprintf(f, "StarPU: %d.%d.%d (built against %d.%d.%d, %s)\n", major, minor, release,
          STARPU_MAJOR_VERSION, STARPU_MINOR_VERSION, STARPU_RELEASE_VERSION, with);
#ifdef SM_SIMULATION
  fprintf(f,
          "simulation: StarPU with SimGrid: kernels do not run; task times from %s, "
          "machine from STARPU_HOSTNAME (scripts/sim-platform)\n",
          sm_cl_sim_models_path());
#endif
  char mpi[256];
  mpi_library(mpi, sizeof mpi);
  fprintf(f, "MPI: %s (MPI %d.%d)\n", mpi, MPI_VERSION, MPI_SUBVERSION);
  fprintf(f, "htslib: %s\n", hts_version());

  features(f);
#ifdef SM_USE_CUDA
  /* the GPU code of the CUDA kernels: SASS sm_NN, PTX compute_NN (configure) */
  fprintf(f, "CUDA architectures: %s (CUDA %s)\n", SM_CUDA_ARCHS, SM_CUDA_VERSION);
#endif
  /* what every run checks before it computes (docs/troubleshooting.md) */
  fprintf(f,
          "checks: output paths, output lock, input rules, ranks agree, memory "
          "estimate, outputs read back at commit (or, for an .ld written direct, an "
          "unbroken write lease), resume CRC-32C (%s)\n",
          sm_crc32c_impl());

  /* the --kernel variants in the binary, and those this CPU runs */
  fputs("CPU kernels:", f);
  for (int v = SM_KVAR_AUTO + 1; sm_kern_variant_name((sm_kvar_t)v); v++)
    if (sm_kern_variant_built((sm_kvar_t)v))
      fprintf(f, " %s", sm_kern_variant_name((sm_kvar_t)v));
  fputs(" (this CPU runs:", f);
  for (int v = SM_KVAR_AUTO + 1; sm_kern_variant_name((sm_kvar_t)v); v++)
    if (sm_kern_variant_built((sm_kvar_t)v) &&
        (!sm_codelets_kernel_check((sm_kernel_t)v, 0) ||
         !sm_codelets_kernel_check((sm_kernel_t)v, 1)))
      fprintf(f, " %s", sm_kern_variant_name((sm_kvar_t)v));
  fputs(")\n", f);
}

/* ---- --man */

/* roff text of a C string */
static void roff(const char *s, FILE *f)
{
  sm_opt_roff(s, strlen(s), f);
}

void sm_about_reference(FILE *f)
{
  const sm_optcmd_t *compute = sm_options_command(0);
  const sm_optcmd_t *maf = sm_maf_command();
  static const char *const maf_names[] = {"maf", NULL};
  fputs(
      "# Command-line reference\n\n"
      "Every option of every command, written by `starmet --reference` from the option "
      "tables that also give `--help`, the manual page and the bash completion: `make "
      "check` fails when this page differs from what the binary writes (regenerate it "
      "with `make reference`), or when another page of the guide shows a starmet "
      "command line with an option the binary does not have. Do not edit it by "
      "hand.\n\n"
      "Commands: `starmet compute` (all-pairs and all-triples metrics), `starmet synth` "
      "(write a generated problem to a file), `starmet maf` (allele frequency "
      "likelihoods), `starmet --version`, `starmet --help`.\n\n"
      "## compute and synth\n\n"
      "Each option names the commands that take it.\n",
      f);
  sm_opt_markdown(compute->opts, compute->nopts, sm_options_cmd_names, f);
  fputs("\n## maf\n\n", f);
  sm_opt_markdown(maf->opts, maf->nopts, maf_names, f);
  fputs("\n## Other\n\n"
        "- `--version`: the versions of starmet, StarPU, MPI and htslib, the features "
        "built in and the CPU kernel variants (built, and those this CPU runs)\n"
        "- `--man`, `--completion bash`, `--reference`: the manual page, the bash "
        "completion and this page, written from the same tables (for the build)\n",
        f);
}

void sm_about_man(FILE *f)
{
  const sm_optcmd_t *compute = sm_options_command(0);
  const sm_optcmd_t *maf = sm_maf_command();
  static const char *const maf_names[] = {"maf", NULL};

  fprintf(f,
          ".\\\" starmet.1: written by `starmet --man` from the option tables of\n"
          ".\\\" compute, synth and maf (the ones --help prints); do not edit.\n"
          ".TH STARMET 1 \"\" \"starmet %s\" \"User Commands\"\n"
          ".nh\n.ad l\n"
          ".SH NAME\n"
          "starmet \\- all-pairs and all-triples similarity metrics (Czekanowski, "
          "CCC) and allele frequencies on the StarPU runtime\n"
          ".SH SYNOPSIS\n",
          PACKAGE_VERSION);
  sm_opt_man(compute->opts, compute->nopts, NULL, SM_OPT_MAN_SYNOPSIS, f);

  fputs(".SH DESCRIPTION\n", f);
  roff("starmet computes all-pairs (2-way) and all-triples (3-way) similarity metrics "
       "over large sets of genomic vectors as a StarPU task graph: Proportional "
       "Similarity (Czekanowski; 1 - Bray-Curtis) between non-negative vectors, and "
       "the Custom Correlation Coefficient (CCC) between SNPs held as 2-bit genotypes, "
       "with a sparse method for missing calls. Under an MPI launcher (mpirun, srun, "
       "...) every rank runs the same command on its part of a rank grid.\n",
       f);
  fputs(".TP\n.B compute\n", f);
  roff("computes the metric of every pair (--num-way 2) or triple (--num-way 3) of "
       "vectors of an input file or of a generated problem, prints a summary (sizes, "
       "method and kernel, workers, timings, checksum) and, with --output PREFIX, "
       "writes the results and the JSON summary PREFIX.json.\n",
       f);
  fputs(".TP\n.B synth\n", f);
  roff("writes the problem --synthetic generates to a file (table, .npy, raw or PLINK), "
       "for the other tools and for compute's readers.\n",
       f);
  fputs(".TP\n.B maf\n", f);
  roff("computes per-site sample allele frequency likelihoods, allele frequencies and "
       "the site frequency spectrum from genotype likelihoods (BEAGLE, or VCF/BCF with "
       "GL or PL).\n",
       f);
  fputs(".PP\n", f);
  roff("starmet compute --help (the same as starmet --help and starmet synth --help) "
       "and starmet maf --help print the options listed here.\n",
       f);

  fputs(".SH OPTIONS OF COMPUTE AND SYNTH\n", f);
  roff("Each option names the commands that take it.\n", f);
  sm_opt_man(compute->opts, compute->nopts, sm_options_cmd_names, SM_OPT_MAN_OPTIONS, f);
  fputs(".SH OPTIONS OF MAF\n", f);
  sm_opt_man(maf->opts, maf->nopts, maf_names, SM_OPT_MAN_OPTIONS, f);
  fputs(".SH OTHER OPTIONS\n"
        ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\n",
        f);
  roff("print the options of compute and synth and exit\n", f);
  fputs(".TP\n\\fB\\-\\-version\\fR\n", f);
  roff("print the versions of starmet, StarPU, MPI and htslib, the features built in "
       "(MPI, OpenCL, CUDA, htslib) and the CPU kernel variants (those built, and "
       "those this CPU runs), and exit\n",
       f);

  fputs(".SH ENVIRONMENT\n", f);
  static const char *const env[][2] = {
      {"STARPU_NCPU, STARPU_NCUDA, STARPU_NOPENCL",
       "how many workers of each kind StarPU starts (StarPU-MPI keeps a core for its "
       "communication thread); STARPU_OPENCL_ON_CPUS=1 with STARPU_NOPENCL=1 gives a CPU "
       "OpenCL device such as PoCL"},
      {"OCL_ICD_VENDORS",
       "where the OpenCL loader finds its drivers (default /etc/OpenCL/vendors); when "
       "only PoCL is there and STARPU_OPENCL_ON_CPUS is not 1, no OpenCL device would "
       "start, and starmet sets it to a directory that does not exist so that StarPU "
       "and hwloc do not load PoCL and LLVM for nothing (tens of milliseconds)"},
      {"STARPU_SCHED", "the scheduling policy when --sched is not given"},
      {"STARPU_HOME",
       "where StarPU keeps its performance models and bus samples (default: $HOME); "
       "STARPU_PERF_MODEL_DIR or --perfmodel-dir for the models alone"},
      {"STARPU_SILENT",
       "0: StarPU's own notes too (bus sampling, models calibrating), which starmet "
       "otherwise silences as it reports the same (StarPU's errors are printed "
       "either way)"},
      {"STARMET_MPI",
       "yes or no: run under MPI or not, whatever the launcher variables say (starmet "
       "otherwise knows mpirun, mpiexec/Hydra, MVAPICH, PMI/PMIx, srun, jsrun and Flux "
       "from the variables they set)"},
      {"STARMET_CPU_DISABLE",
       "CPU features the kernels must not use (comma-separated among avx2, avx512, "
       "vpopcntdq, vnni, amx)"},
      {"STARMET_SIDE_CACHE_MB",
       "megabytes a process keeps of what the CPU kernels derive from a tile (its "
       "planes, lanes and lists of missing calls, kept between the tasks of its tile "
       "pairs; default 256, 0 keeps nothing; results do not depend on it)"},
      {"STARMET_DIRECT_IO",
       "0: PLINK's .ld table through the page cache (read back at the commit, left "
       "cached for the next tool) instead of straight to the disk under a write lease"},
      {"POCL_CACHE_DIR", "where PoCL keeps the OpenCL kernels it compiled"},
  };
  for (size_t k = 0; k < sizeof env / sizeof env[0]; k++) {
    fputs(".TP\n.B ", f);
    roff(env[k][0], f);
    fputc('\n', f);
    roff(env[k][1], f);
    fputc('\n', f);
  }

  fputs(".SH EXIT STATUS\n", f);
  roff("0 on success (and after --help), 1 when a run fails (input, runtime or output "
       "error, or a failed check), 2 on a bad command or option.\n",
       f);

  fputs(".SH EXAMPLES\n", f);
  sm_opt_man(compute->opts, compute->nopts, NULL, SM_OPT_MAN_EXAMPLES, f);
  sm_opt_man(maf->opts, maf->nopts, NULL, SM_OPT_MAN_EXAMPLES, f);

  fputs(".SH FILES\n", f);
  roff("With --output PREFIX: PREFIX.tsv (or .bin, or CoMet's files), PREFIX.json, and "
       "under mpirun one PREFIX_<rank> file per rank; --resume keeps its manifest "
       "beside them.\n",
       f);

  fputs(".SH SEE ALSO\n", f);
  fputs(".B starmet\\-sched\\-experiment\n", f);
  roff("(installed beside starmet; --help lists its options) runs one problem under "
       "StarPU's scheduling policies and worker mixes and tabulates and draws what "
       "happened (needs python3, and gnuplot for the plots).\n",
       f);
  fputs(".B starmet\\-gantt\n", f);
  roff("TRACE draws a --trace file as a Gantt chart (python3 and gnuplot).\n", f);
  fputs(".BR mpirun (1).\n", f);
  fputs(".PP\n", f);
  roff("The README and docs/ARCHITECTURE.md, installed with the documentation "
       "(/usr/share/doc/starmet or PREFIX/share/doc/starmet).\n",
       f);
}

/* ---- --completion bash */

/* Whether an argument names a file or a prefix of files. */
static int file_arg(const char *arg)
{
  static const char *const words[] = {"FILE", "PREFIX", "DIR", NULL};
  for (int k = 0; words[k]; k++) {
    const size_t n = strlen(words[k]);
    if (!strncmp(arg, words[k], n) && (!arg[n] || arg[n] == ' ' || arg[n] == ','))
      return 1;
  }
  return 0;
}

/* The values of a choice (a|b|c), space-separated into buf; 0 when the
 * argument is not one. */
static int choice_words(const sm_opt_t *d, char *buf, size_t len)
{
  if (d->choices) {
    buf[0] = 0;
    for (int k = 0; d->choices[k]; k++)
      snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? " " : "", d->choices[k]);
    return 1;
  }
  sm_opt_argtext(d, buf, len);
  if (!strchr(buf, '|') || buf[strspn(buf, "abcdefghijklmnopqrstuvwxyz0123456789-|")])
    return 0;
  for (char *p = buf; *p; p++)
    if (*p == '|')
      *p = ' ';
  return 1;
}

/* One command's branch of the completion function: the values after an
 * option that takes some, else the command's options. */
static sm_err_t bash_command(const char *name, const sm_optcmd_t *cmd, FILE *f)
{
  const sm_opt_t **rows = malloc(cmd->nopts * sizeof *rows);
  if (!rows) {
    sm_log_error("out of memory for the completion of %s", name);
    return SM_ENOMEM;
  }
  const size_t n = sm_opt_rows(cmd, rows);
  char words[512];
  fprintf(f, "  %s)\n    case $prev in\n", name);
  for (size_t k = 0; k < n; k++)
    if (rows[k]->kind != SM_OPT_FLAG && rows[k]->kind != SM_OPT_HELP &&
        choice_words(rows[k], words, sizeof words))
      fprintf(f, "    --%s) words='%s' ;;\n", rows[k]->name, words);
  const char *sep = "    ";
  for (size_t k = 0; k < n; k++)
    if (rows[k]->kind != SM_OPT_FLAG && rows[k]->kind != SM_OPT_HELP && rows[k]->arg &&
        file_arg(rows[k]->arg)) {
      fprintf(f, "%s--%s", sep, rows[k]->name);
      sep = "|";
    }
  if (sep[0] == '|')
    fputs(") _starmet_files; return 0 ;;\n", f);
  sep = "    ";
  for (size_t k = 0; k < n; k++)
    if (rows[k]->kind != SM_OPT_FLAG && rows[k]->kind != SM_OPT_HELP &&
        !choice_words(rows[k], words, sizeof words) &&
        !(rows[k]->arg && file_arg(rows[k]->arg))) {
      fprintf(f, "%s--%s", sep, rows[k]->name);
      sep = "|";
    }
  if (sep[0] == '|')
    fputs(") return 0 ;; # a number or a name: nothing to offer\n", f);
  fputs("    *) words='", f);
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s--%s", k ? " " : "", rows[k]->name);
  fputs("' ;;\n    esac ;;\n", f);
  free(rows);
  return SM_OK;
}

sm_err_t sm_about_completion(const char *shell, FILE *f)
{
  if (!shell || strcmp(shell, "bash")) {
    sm_log_error("--completion: unknown shell '%s' (use bash)", shell ? shell : "");
    return SM_EOPTION;
  }
  fprintf(f,
          "# bash completion for starmet %s, written by `starmet --completion bash`\n"
          "# from its option tables. Install it as\n"
          "# $(pkg-config --variable=completionsdir bash-completion)/starmet, or\n"
          "# source it.\n"
          "_starmet_files()\n"
          "{\n"
          "  compopt -o filenames 2> /dev/null\n"
          "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "}\n"
          "\n"
          "_starmet()\n"
          "{\n"
          "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} "
          "words\n"
          "  COMPREPLY=()\n"
          "  if [ \"$COMP_CWORD\" -le 1 ]; then\n"
          "    COMPREPLY=($(compgen -W '",
          PACKAGE_VERSION);
  for (int k = 0; sm_options_cmd_names[k]; k++)
    fprintf(f, "%s ", sm_options_cmd_names[k]);
  fputs("maf --help --version' -- \"$cur\"))\n"
        "    return 0\n"
        "  fi\n"
        "  case ${COMP_WORDS[1]} in\n",
        f);
  sm_err_t err = SM_OK;
  for (int k = 0; !err && sm_options_cmd_names[k]; k++)
    err = bash_command(sm_options_cmd_names[k], sm_options_command(k), f);
  if (!err)
    err = bash_command("maf", sm_maf_command(), f);
  fputs("  *) return 0 ;;\n"
        "  esac\n"
        "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
        "}\n"
        "complete -F _starmet starmet\n",
        f);
  return err;
}
