/* sm_maf_options.c: the options of `starmet maf` as one table (parsing
 * and --help derive from it) and the checks of how they combine, done
 * before any input is read or any task inserted. */
#include "sm_maf_options.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sm_commit.h"
#include "sm_optable.h"

#define O(field) offsetof(sm_maf_options_t, field)

static const char *const out_formats[] = {"tsv", "bin", "none",
                                          NULL};            /* sm_saf_outfmt_t */
static const char *const kernels[] = {"tree", "ref", NULL}; /* sm_saf_method_t */
static const char *const devices[] = {"all", "cpu", "accel", NULL};
static const char *const accels[] = {"anderson", "none", NULL}; /* sm_maf_accel_t */

static sm_err_t set_input_format(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  return sm_gl_format_parse(arg, &((sm_maf_options_t *)dst)->input_format) ? SM_EOPTION
                                                                           : SM_OK;
}

/* Every option of maf, in the order of the help. */
static const sm_opt_t options[] = {
    {.help =
         "usage: starmet maf --input FILE [options]\n"
         "Per-site sample allele frequency likelihoods (ANGSD -doSaf 1), allele "
         "frequencies\n"
         "and the site frequency spectrum (EM, as realSFS) from genotype likelihoods.\n"
         "\n"},
    {.name = "input",
     .kind = SM_OPT_STRING,
     .off = O(input),
     .arg = "FILE",
     .help = "BEAGLE (.beagle, .beagle.gz, ...) or VCF/BCF with GL/PL"},
    {.name = "input-format",
     .kind = SM_OPT_STRING,
     .set = set_input_format,
     .arg = "auto|beagle|vcf",
     .help = "(default: .vcf/.vcf.gz/.bcf are VCF, else BEAGLE)"},
    {.name = "output",
     .kind = SM_OPT_STRING,
     .off = O(output),
     .arg = "PREFIX",
     .help = "PREFIX.saf.tsv (or .saf.bin), PREFIX.maf.tsv, PREFIX.sfs,\n"
             "PREFIX.json (under mpirun: PREFIX_<rank>.saf/.maf)"},
    {.name = "output-format",
     .kind = SM_OPT_CHOICE,
     .off = O(output_format),
     .choices = out_formats,
     .help = "SAF file format (default tsv)"},
    {.name = "summary",
     .kind = SM_OPT_STRING,
     .off = O(summary),
     .arg = "FILE",
     .help = "JSON summary path (default PREFIX.json)"},
    {.name = "kernel",
     .kind = SM_OPT_CHOICE,
     .off = O(method),
     .choices = kernels,
     .help = "GAMA tree reduction (default) or the iterative reference"},
    {.name = "band-tol",
     .kind = SM_OPT_DOUBLE,
     .off = O(band_tol),
     .dmin = 0,
     .dmax = INFINITY,
     .range = "T > 0 nats bands, 0 is exact",
     .arg = "T",
     .help = "drop bins more than T nats below a node's best (tree;\ndefault 0: exact)"},
    {.name = "devices",
     .kind = SM_OPT_CHOICE,
     .off = O(devices),
     .choices = devices,
     .per_rank = 1,
     .help = "where exact SAF tasks run (default all; accel: CUDA/OpenCL\n"
             "workers, which run the iterative update, as --kernel ref)"},
    {.name = "block-size",
     .kind = SM_OPT_SIZE,
     .off = O(block_size),
     .min = 1,
     .max = 1 << 20,
     .arg = "N",
     .help = "sites per task (default: automatic)"},
    {.name = "fold",
     .kind = SM_OPT_FLAG,
     .off = O(fold),
     .ival = 1,
     .help = "the folded spectrum, as realSFS -fold 1: classes 0..N of the\n"
             "minor allele's count; PREFIX.sfs keeps 2N + 1 values, N + 1.. zero"},
    {.name = "em-maxiter",
     .kind = SM_OPT_INT,
     .off = O(em_maxiter),
     .min = 1,
     .arg = "N",
     .help = "SFS EM E-steps (passes over the sites) at most (default 1000)"},
    {.name = "em-tole",
     .kind = SM_OPT_DOUBLE,
     .off = O(em_tole),
     .dmin = DBL_MIN,
     .dmax = INFINITY,
     .range = "T > 0",
     .arg = "T",
     .help = "stop when an EM step changes the log-likelihood by less\n"
             "(realSFS -tole; default 1e-10)"},
    /* the former name of --em-tole */
    {.name = "em-tol",
     .kind = SM_OPT_DOUBLE,
     .off = O(em_tole),
     .dmin = DBL_MIN,
     .dmax = INFINITY,
     .range = "T > 0"},
    {.name = "em-accel",
     .kind = SM_OPT_CHOICE,
     .off = O(em_accel),
     .choices = accels,
     .help = "EM acceleration (default anderson; none: plain EM, realSFS -m 0)"},
    {.name = "sched",
     .kind = SM_OPT_STRING,
     .off = O(sched),
     .arg = "POLICY",
     .help = "StarPU scheduler"},
    {.name = "progress",
     .kind = SM_OPT_FLAG,
     .off = O(progress),
     .ival = 1,
     .per_rank = 1,
     .arg = "| --no-progress, --quiet",
     .help = ""},
    {.name = "no-progress", .kind = SM_OPT_FLAG, .off = O(progress), .per_rank = 1},
    {.name = "quiet", .kind = SM_OPT_FLAG, .off = O(quiet), .ival = 1, .per_rank = 1},
    /* tests only (not in --help): the process stops itself (SIGSTOP) once
     * N blocks of sites are written, for a test to act beside it */
    {.name = "debug-pause-after-blocks",
     .kind = SM_OPT_SIZE,
     .off = O(debug_pause_after),
     .min = 1,
     .per_rank = 1},
    {.name = "help", .kind = SM_OPT_HELP},
    {.help = "\n"
             "Example:\n"
             "  starmet maf --input gl.beagle.gz --output out/maf\n"
             "  starmet maf --input calls.bcf --band-tol 30 --output-format bin --output "
             "out/maf\n"
             "  mpirun -np 4 starmet maf --input gl.beagle.gz --output out/maf\n"},
};

#define NOPTIONS (sizeof options / sizeof options[0])

static const sm_optcmd_t maf_cmd = {options, NOPTIONS, 0, "maf: ", "starmet maf --help",
                                    0};

void sm_maf_usage(FILE *f)
{
  sm_opt_help(options, NOPTIONS, f);
}

const sm_optcmd_t *sm_maf_command(void)
{
  return &maf_cmd;
}

size_t sm_maf_auto_block(size_t nind)
{
  /* A block is one SAF task and, on every EM iteration, one E-step task:
   * at least 2^24 multiply-adds of SAF work and 2^18 bins of E-step work
   * (the E-step, a pass over the block's bins, is the small one: with one
   * site per task at N = 4096 the EM's 1000 iterations cost 4x the SAF).
   * 32 sites at N = 4096, 128 at 1024, 1024 at 100. */
  const double work = (double)nind * (double)nind + 50.0 * (double)nind + 1.0;
  const double saf = 16777216.0 / work, em = 262144.0 / (2.0 * (double)nind + 1.0);
  const double b = saf > em ? saf : em;
  return b < 1 ? 1 : b > 1024 ? 1024 : (size_t)b;
}

/* How the options combine; the output format's default. */
static sm_err_t check(sm_maf_options_t *o)
{
  if (!o->input) {
    sm_log_error("maf: no input: give --input FILE (BEAGLE or VCF/BCF; see starmet maf "
                 "--help)");
    return SM_EOPTION;
  }
  if (o->method == SM_SAF_REF && o->band_tol > 0) {
    sm_log_error("--band-tol applies to the tree kernel; --kernel ref is the exact "
                 "reference");
    return SM_EOPTION;
  }
  if ((int)o->output_format < 0)
    o->output_format = o->output ? SM_SAF_OUT_TSV : SM_SAF_OUT_NONE;
  if (o->output_format != SM_SAF_OUT_NONE && !o->output) {
    sm_log_error("--output-format needs --output PREFIX");
    return SM_EOPTION;
  }
  if ((o->output && sm_commit_check_dir("--output", o->output)) ||
      (o->summary && sm_commit_check_dir("--summary", o->summary)))
    return SM_EOPTION;
  return SM_OK;
}

sm_err_t sm_maf_options_parse(int argc, char **argv, sm_maf_options_t *o, int *done)
{
  memset(o, 0, sizeof *o);
  o->em_maxiter = 1000;
  o->em_tole = 1e-10; /* realSFS's -tole */
  o->progress = -1;
  o->output_format = (sm_saf_outfmt_t)-1;
  sm_err_t err = sm_opt_parse(&maf_cmd, argc, argv, o, done);
  return err || *done ? err : check(o);
}

char *sm_maf_options_canonical(int argc, char **argv, const sm_maf_options_t *o)
{
  return sm_opt_canonical(&maf_cmd, argc, argv, o);
}
