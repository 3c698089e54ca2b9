/* sm_maf_options.c: command-line parsing and validation for `starmet maf`,
 * done before any input is read or any task inserted. */
#include "sm_maf.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_INPUT = 256,
  OPT_INFMT,
  OPT_OUTPUT,
  OPT_OUTFMT,
  OPT_SUMMARY,
  OPT_KERNEL,
  OPT_BAND,
  OPT_BLOCK,
  OPT_EMIT,
  OPT_EMTOL,
  OPT_SCHED,
  OPT_PROGRESS,
  OPT_NO_PROGRESS,
  OPT_QUIET,
  OPT_HELP
};

static const struct option long_opts[] = {
    {"input", required_argument, 0, OPT_INPUT},
    {"input-format", required_argument, 0, OPT_INFMT},
    {"output", required_argument, 0, OPT_OUTPUT},
    {"output-format", required_argument, 0, OPT_OUTFMT},
    {"summary", required_argument, 0, OPT_SUMMARY},
    {"kernel", required_argument, 0, OPT_KERNEL},
    {"band-tol", required_argument, 0, OPT_BAND},
    {"block-size", required_argument, 0, OPT_BLOCK},
    {"em-maxiter", required_argument, 0, OPT_EMIT},
    {"em-tol", required_argument, 0, OPT_EMTOL},
    {"sched", required_argument, 0, OPT_SCHED},
    {"progress", no_argument, 0, OPT_PROGRESS},
    {"no-progress", no_argument, 0, OPT_NO_PROGRESS},
    {"quiet", no_argument, 0, OPT_QUIET},
    {"help", no_argument, 0, OPT_HELP},
    {0, 0, 0, 0},
};

void sm_maf_usage(FILE *f)
{
  fputs(
      "usage: starmet maf --input FILE [options]\n"
      "Per-site sample allele frequency likelihoods (ANGSD -doSaf 1), allele "
      "frequencies\n"
      "and the site frequency spectrum (EM, as realSFS) from genotype likelihoods.\n"
      "\n"
      "  --input FILE               BEAGLE (.beagle, .beagle.gz, ...) or VCF/BCF with "
      "GL/PL\n"
      "  --input-format auto|beagle|vcf   (default: .vcf/.vcf.gz/.bcf are VCF, else "
      "BEAGLE)\n"
      "  --output PREFIX            PREFIX.saf.tsv (or .saf.bin), PREFIX.maf.tsv, "
      "PREFIX.sfs,\n"
      "                             PREFIX.json (under mpirun: PREFIX_<rank>.saf/.maf)\n"
      "  --output-format tsv|bin|none   SAF file format (default tsv)\n"
      "  --summary FILE             JSON summary path (default PREFIX.json)\n"
      "  --kernel tree|ref          GAMA tree reduction (default) or the iterative "
      "reference\n"
      "  --band-tol T               drop bins more than T nats below a node's best "
      "(tree;\n"
      "                             default 0: exact)\n"
      "  --block-size N             sites per task (default: automatic)\n"
      "  --em-maxiter N             SFS EM E-steps at most (default 1000; "
      "SQUAREM-accelerated)\n"
      "  --em-tol T                 stop when the log-likelihood gains less (default "
      "1e-10)\n"
      "  --sched POLICY             StarPU scheduler\n"
      "  --progress | --no-progress, --quiet\n"
      "\n"
      "Example:\n"
      "  starmet maf --input gl.beagle.gz --output out/maf\n"
      "  starmet maf --input calls.bcf --band-tol 30 --output-format bin --output "
      "out/maf\n"
      "  mpirun -np 4 starmet maf --input gl.beagle.gz --output out/maf\n",
      f);
}

size_t sm_maf_auto_block(size_t nind)
{
  /* about 2^24 multiply-adds per task: 1 site at N = 4096, 16 at 1024 */
  double work = (double)nind * (double)nind + 50.0 * (double)nind + 1.0;
  double b = 16777216.0 / work;
  return b < 1 ? 1 : b > 1024 ? 1024 : (size_t)b;
}

static int parse_double(const char *opt, const char *s, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v)) {
    sm_log_error("%s: '%s' is not a finite number", opt, s);
    return -1;
  }
  *out = v;
  return 0;
}

static int parse_count(const char *opt, const char *s, size_t min, size_t max,
                       size_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
    sm_log_error("%s: '%s' is not an integer in %zu..%zu", opt, s, min, max);
    return -1;
  }
  *out = (size_t)v;
  return 0;
}

int sm_maf_options_parse(int argc, char **argv, sm_maf_options_t *o)
{
  memset(o, 0, sizeof *o);
  o->em_maxiter = 1000;
  o->em_tol = 1e-10;
  o->progress = -1;
  o->output_format = (sm_saf_outfmt_t)-1;
  optind = 1;
  opterr = 0;
  int c;
  size_t v;
  while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
    switch (c) {
    case OPT_INPUT:
      o->input = optarg;
      break;
    case OPT_INFMT:
      if (sm_gl_format_parse(optarg, &o->input_format))
        return SM_EOPTION;
      break;
    case OPT_OUTPUT:
      o->output = optarg;
      break;
    case OPT_OUTFMT:
      if (!strcmp(optarg, "tsv"))
        o->output_format = SM_SAF_OUT_TSV;
      else if (!strcmp(optarg, "bin"))
        o->output_format = SM_SAF_OUT_BIN;
      else if (!strcmp(optarg, "none"))
        o->output_format = SM_SAF_OUT_NONE;
      else {
        sm_log_error("--output-format: unknown format '%s' (use tsv, bin or none)",
                     optarg);
        return SM_EOPTION;
      }
      break;
    case OPT_SUMMARY:
      o->summary = optarg;
      break;
    case OPT_KERNEL:
      if (!strcmp(optarg, "tree"))
        o->method = SM_SAF_TREE;
      else if (!strcmp(optarg, "ref"))
        o->method = SM_SAF_REF;
      else {
        sm_log_error("--kernel: unknown value '%s' (use tree or ref)", optarg);
        return SM_EOPTION;
      }
      break;
    case OPT_BAND:
      if (parse_double("--band-tol", optarg, &o->band_tol))
        return SM_EOPTION;
      if (o->band_tol < 0) {
        sm_log_error("--band-tol: %g is out of range (T > 0 nats bands, 0 is exact)",
                     o->band_tol);
        return SM_EOPTION;
      }
      break;
    case OPT_BLOCK:
      if (parse_count("--block-size", optarg, 1, 1u << 20, &o->block_size))
        return SM_EOPTION;
      break;
    case OPT_EMIT:
      if (parse_count("--em-maxiter", optarg, 0, 1000000000, &v))
        return SM_EOPTION;
      o->em_maxiter = (int)v;
      break;
    case OPT_EMTOL:
      if (parse_double("--em-tol", optarg, &o->em_tol))
        return SM_EOPTION;
      if (o->em_tol < 0) {
        sm_log_error("--em-tol: %g must be >= 0", o->em_tol);
        return SM_EOPTION;
      }
      break;
    case OPT_SCHED:
      o->sched = optarg;
      break;
    case OPT_PROGRESS:
      o->progress = 1;
      break;
    case OPT_NO_PROGRESS:
      o->progress = 0;
      break;
    case OPT_QUIET:
      o->quiet = 1;
      break;
    case 'h':
    case OPT_HELP:
      sm_maf_usage(stdout);
      return 1;
    default:
      sm_log_error("maf: unknown or incomplete option '%s' (see starmet maf --help)",
                   argv[optind - 1]);
      return SM_EOPTION;
    }
  }
  if (optind < argc) {
    sm_log_error("maf: unexpected argument '%s' (see starmet maf --help)", argv[optind]);
    return SM_EOPTION;
  }
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
  return SM_OK;
}
