/* sm_options.c: command-line parsing and validation for `starmet compute`
 * and `starmet synth`. Every value is checked here, before any input is
 * read or any task inserted. */
#include "sm_options.h"

#include "sm_formulas.h"
#include "sm_sched.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_METRIC = 256, OPT_WAY, OPT_PRECISION, OPT_SPARSE, OPT_NO_SPARSE, OPT_PARAM,
  OPT_MULT, OPT_METHOD, OPT_KERNEL, OPT_INPUT, OPT_BFILE, OPT_INFMT, OPT_TRANSPOSE,
  OPT_NV, OPT_NF, OPT_RAWTYPE, OPT_SYNTH, OPT_SEED, OPT_MISSING, OPT_OUTPUT,
  OPT_OUTFMT, OPT_THRESHOLD, OPT_SUMMARY, OPT_BLOCK, OPT_SCHED, OPT_PROGRESS,
  OPT_NO_PROGRESS, OPT_QUIET, OPT_HELP, OPT_NPV, OPT_NPF, OPT_NPR, OPT_NPHASE,
  OPT_PHMIN, OPT_PHMAX, OPT_NSTAGE, OPT_STMIN, OPT_STMAX, OPT_RESUME, OPT_VERIFY, OPT_INJECT, OPT_DEVICES
};
enum { OPT_NO_PRIO = 512, OPT_TRACE, OPT_PMDIR, OPT_CALIBRATE }; /* scheduling, observation */

static const struct option long_opts[] = {
    {"metric", required_argument, 0, OPT_METRIC},
    {"num-way", required_argument, 0, OPT_WAY},
    {"precision", required_argument, 0, OPT_PRECISION},
    {"sparse", no_argument, 0, OPT_SPARSE},
    {"no-sparse", no_argument, 0, OPT_NO_SPARSE},
    {"ccc-param", required_argument, 0, OPT_PARAM},
    {"ccc-multiplier", required_argument, 0, OPT_MULT},
    {"compute-method", required_argument, 0, OPT_METHOD},
    {"kernel", required_argument, 0, OPT_KERNEL},
    {"input", required_argument, 0, OPT_INPUT},
    {"bfile", required_argument, 0, OPT_BFILE},
    {"input-format", required_argument, 0, OPT_INFMT},
    {"transpose", no_argument, 0, OPT_TRANSPOSE},
    {"num-vector", required_argument, 0, OPT_NV},
    {"num-field", required_argument, 0, OPT_NF},
    {"raw-type", required_argument, 0, OPT_RAWTYPE},
    {"synthetic", required_argument, 0, OPT_SYNTH},
    {"seed", required_argument, 0, OPT_SEED},
    {"missing-rate", required_argument, 0, OPT_MISSING},
    {"output", required_argument, 0, OPT_OUTPUT},
    {"output-format", required_argument, 0, OPT_OUTFMT},
    {"threshold", required_argument, 0, OPT_THRESHOLD},
    {"summary", required_argument, 0, OPT_SUMMARY},
    {"block-size", required_argument, 0, OPT_BLOCK},
    {"sched", required_argument, 0, OPT_SCHED},
    {"no-priorities", no_argument, 0, OPT_NO_PRIO},
    {"trace", required_argument, 0, OPT_TRACE},
    {"perfmodel-dir", required_argument, 0, OPT_PMDIR},
    {"calibrate", no_argument, 0, OPT_CALIBRATE},
    {"progress", no_argument, 0, OPT_PROGRESS},
    {"no-progress", no_argument, 0, OPT_NO_PROGRESS},
    {"quiet", no_argument, 0, OPT_QUIET},
    {"help", no_argument, 0, OPT_HELP},
    {"num-proc-vector", required_argument, 0, OPT_NPV},
    {"num-proc-field", required_argument, 0, OPT_NPF},
    {"num-proc-repl", required_argument, 0, OPT_NPR},
    {"num-phase", required_argument, 0, OPT_NPHASE},
    {"phase-min", required_argument, 0, OPT_PHMIN},
    {"phase-max", required_argument, 0, OPT_PHMAX},
    {"num-stage", required_argument, 0, OPT_NSTAGE},
    {"resume", no_argument, 0, OPT_RESUME},
    {"verify", no_argument, 0, OPT_VERIFY},
    {"devices", required_argument, 0, OPT_DEVICES},
    {"inject-faults", required_argument, 0, OPT_INJECT},
    {"stage-min", required_argument, 0, OPT_STMIN},
    {"stage-max", required_argument, 0, OPT_STMAX},
    {0, 0, 0, 0},
};

void sm_options_usage(FILE *f)
{
  fputs(
      "usage: starmet compute [options]   all-pairs / all-triples metrics\n"
      "       starmet synth [options]     write a synthetic problem to a file\n"
      "       starmet maf --input FILE [options]   allele frequency likelihoods, MAF\n"
      "                                   and SFS from genotype likelihoods (starmet maf --help)\n"
      "       starmet --help | --version\n"
      "\n"
      "What to compute:\n"
      "  --metric czekanowski|ccc   Proportional Similarity or Custom Correlation\n"
      "                             Coefficient (default: ccc with --bfile, else czekanowski)\n"
      "  --num-way 2|3              pairs or triples (default 2)\n"
      "  --precision double|single  czekanowski arithmetic (default double)\n"
      "  --sparse | --no-sparse     ccc: missing-data method (default: sparse when the\n"
      "                             input has missing calls)\n"
      "  --ccc-param G              ccc g (default 2/3)\n"
      "  --ccc-multiplier M         ccc multiplier (default 9/2)\n"
      "  --compute-method tasks|ref StarPU task graph (default) or reference loops\n"
      "  --kernel K                 CPU kernel of the 2-way tasks: auto (default: the\n"
      "                             fastest this CPU runs), ref, blocked (portable),\n"
      "                             czekanowski avx2|avx512, ccc popc|avx512|vnni|amx\n"
      "Input (one of):\n"
      "  --input FILE               .tsv/.csv/.txt (czekanowski), .npy, raw CoMet file,\n"
      "                             .vcf/.vcf.gz/.bcf (ccc: GT, allele 1 = ALT)\n"
      "  --bfile PREFIX             PLINK 1 PREFIX.bed/.bim/.fam (ccc; allele 1 = A1)\n"
      "  --synthetic random|analytic  generated problem of --num-vector x --num-field\n"
      "  --input-format auto|tsv|csv|npy|plink|raw|vcf   (default: by extension)\n"
      "  --transpose                text input: columns are the vectors\n"
      "  --num-vector N, --num-field N   sizes (raw input; synthetic problems)\n"
      "  --raw-type float64|float32 raw czekanowski value type (default: precision)\n"
      "  --seed S                   synthetic seed (default 1)\n"
      "  --missing-rate R           synthetic ccc: fraction of missing calls (default 0)\n"
      "Output:\n"
      "  --output PREFIX            write PREFIX.tsv (or .bin) and PREFIX.json\n"
      "  --output-format tsv|bin|comet|none   (default tsv; none without --output)\n"
      "  --threshold T              write only values > T\n"
      "  --summary FILE             JSON summary path (default PREFIX.json)\n"
      "  --verify                   check every numerator task's result (invariants)\n"
      "                             and re-execute the task's kernel when they fail\n"
      "  --inject-faults RATE[,SEED] corrupt numerator results at RATE (for testing\n"
      "                             --verify)\n"
      "  --resume                   continue an interrupted run with the same command:\n"
      "                             only the blocks it did not complete are computed\n"
      "Parallel decomposition (under mpirun -np P):\n"
      "  --num-proc-vector N        vector partitions (default P)\n"
      "  --num-proc-field N         field slices, reduced by tasks (default 1)\n"
      "  --num-proc-repl N          replicas sharing a block row (default 1)\n"
      "                             (the product must equal P)\n"
      "  --num-phase N              split each rank's blocks into N phases (default 1)\n"
      "  --phase-min A, --phase-max B   compute phases A..B only (0-based)\n"
      "  --num-stage N              3-way: cut every slice's planes into N stages\n"
      "  --stage-min A, --stage-max B   compute stages A..B only (0-based)\n"
      "Runtime:\n"
      "  --block-size N             vectors per tile (default: automatic)\n"
      "  --sched POLICY             StarPU scheduler (eager, prio, lws, ws, dmda, dmdas,\n"
      "                             heteroprio, modular-heft, ...; --sched help lists them)\n"
      "  --no-priorities            all tasks at one priority (default: what unblocks\n"
      "                             reductions and output first; heteroprio: buckets)\n"
      "  --perfmodel-dir DIR        StarPU performance models (default $STARPU_HOME/.starpu)\n"
      "  --calibrate                record every task in the models (repeat until it says\n"
      "                             they cover the task time, before measuring dm*)\n"
      "  --trace FILE               one CSV line per task: kind, block, rank, worker, times\n"
      "  --progress | --no-progress progress line on stderr (default: on a terminal)\n"
      "  --quiet                    no log lines, only the summary\n"
      "  --devices all|cpu|accel    where the modified GEMMs run (default all; accel:\n"
      "                             CUDA/OpenCL workers only, other tasks stay on CPUs)\n"
      "  StarPU's environment sets the workers (STARPU_NCPU=2, STARPU_NOPENCL=1 with\n"
      "  STARPU_OPENCL_ON_CPUS=1 for a CPU OpenCL device such as PoCL, ...).\n"
      "\n"
      "Examples:\n"
      "  starmet compute --bfile data/example_geno --output out/ccc\n"
      "  starmet compute --input data/example_abundance.tsv --threshold 0.6 --output out/ps\n"
      "  starmet compute --metric czekanowski --synthetic analytic --num-vector 2000 \\\n"
      "                  --num-field 5000 --output-format none\n"
      "  starmet compute --metric ccc --num-way 3 --synthetic random --num-vector 60 \\\n"
      "                  --num-field 500 --missing-rate 0.1 --compute-method ref --output r\n"
      "  mpirun -np 4 starmet compute --bfile geno --num-proc-vector 2 --num-proc-field 2 \\\n"
      "                  --output out/ccc          (writes out/ccc_<rank>.tsv)\n"
      "  starmet synth --metric ccc --synthetic random --num-vector 1000 --num-field 2000 \\\n"
      "                --output-format plink --output geno\n"
      "  starmet synth --metric czekanowski --synthetic random --num-vector 100 \\\n"
      "                --num-field 50 --output-format tsv --output table.tsv\n"
      "  starmet maf --input gl.beagle.gz --output out/maf      (SAF, MAF, SFS)\n"
      "  starmet maf --input calls.vcf.gz --band-tol 30 --output-format bin --output out/maf\n",
      f);
}

static int parse_size(const char *opt, const char *s, size_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-') {
    sm_log_error("%s: '%s' is not a non-negative integer", opt, s);
    return -1;
  }
  *out = (size_t)v;
  return 0;
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

static int parse_choice(const char *opt, const char *s, const char *const *names,
                        int n, int *out)
{
  for (int k = 0; k < n; k++)
    if (!strcmp(s, names[k])) {
      *out = k;
      return 0;
    }
  char list[256] = "";
  for (int k = 0; k < n; k++) {
    strncat(list, names[k], sizeof list - strlen(list) - 1);
    if (k + 1 < n)
      strncat(list, ", ", sizeof list - strlen(list) - 1);
  }
  sm_log_error("%s: unknown value '%s' (use one of: %s)", opt, s, list);
  return -1;
}

static void defaults(sm_options_t *o)
{
  memset(o, 0, sizeof *o);
  o->metric = (sm_metric_t)-1;
  o->num_way = 2;
  o->sparse = -1;
  o->ccc_param = SM_CCC_PARAM_DEFAULT;
  o->ccc_mult = SM_CCC_MULT_DEFAULT;
  o->output_format = (sm_outfmt_t)-1;
  o->threshold = -1;
  o->progress = -1;
  o->synth.seed = 1;
  o->num_phase = 1;
  o->phase_max = -1;
  o->num_stage = 1;
  o->stage_max = -1;
  o->devices = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
}

static int parse_int(const char *opt, const char *s, int min, int *out)
{
  size_t v;
  if (parse_size(opt, s, &v))
    return -1;
  if (v > 1000000000 || (int)v < min) {
    sm_log_error("%s: %s is out of range (at least %d)", opt, s, min);
    return -1;
  }
  *out = (int)v;
  return 0;
}

/* One option shared by compute and synth; returns 1 if handled, -1 on
 * error, 0 if not an option of this group. */
static int common_opt(int c, const char *arg, sm_options_t *o)
{
  static const char *const metrics[] = {"czekanowski", "ccc"};
  static const char *const kinds[] = {"random", "analytic"};
  int k;
  switch (c) {
  case OPT_METRIC:
    if (parse_choice("--metric", arg, metrics, 2, &k))
      return -1;
    o->metric = (sm_metric_t)k;
    return 1;
  case OPT_NV:
    return parse_size("--num-vector", arg, &o->num_vector) ? -1 : 1;
  case OPT_NF:
    return parse_size("--num-field", arg, &o->num_field) ? -1 : 1;
  case OPT_SYNTH:
    if (parse_choice("--synthetic", arg, kinds, 2, &k))
      return -1;
    o->synth.kind = k == 0 ? SM_SYNTH_RANDOM : SM_SYNTH_ANALYTIC;
    return 1;
  case OPT_SEED: {
    size_t s;
    if (parse_size("--seed", arg, &s))
      return -1;
    o->synth.seed = s;
    return 1;
  }
  case OPT_MISSING:
    if (parse_double("--missing-rate", arg, &o->synth.missing_rate))
      return -1;
    if (o->synth.missing_rate < 0 || o->synth.missing_rate >= 1) {
      sm_log_error("--missing-rate: %g is out of range (0 <= rate < 1)",
                   o->synth.missing_rate);
      return -1;
    }
    return 1;
  case OPT_QUIET:
    o->quiet = 1;
    return 1;
  default:
    return 0;
  }
}

int sm_options_parse_compute(int argc, char **argv, sm_options_t *o)
{
  static const char *const precisions[] = {"double", "single"};
  static const char *const methods[] = {"tasks", "ref"};
  static const char *const kernels[] = {"auto", "ref",  "blocked", "avx2",
                                        "avx512", "popc", "vnni", "amx"};
  static const char *const rawtypes[] = {"float64", "float32"};
  defaults(o);
  int c, k, n_inputs = 0;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
    int r = common_opt(c, optarg, o);
    if (r < 0)
      return SM_EOPTION;
    if (r > 0)
      continue;
    switch (c) {
    case OPT_WAY:
      if (!strcmp(optarg, "2") || !strcmp(optarg, "3"))
        o->num_way = optarg[0] - '0';
      else {
        sm_log_error("--num-way: '%s' is not 2 or 3", optarg);
        return SM_EOPTION;
      }
      break;
    case OPT_PRECISION:
      if (parse_choice("--precision", optarg, precisions, 2, &k))
        return SM_EOPTION;
      o->single = k;
      break;
    case OPT_SPARSE: o->sparse = 1; break;
    case OPT_NO_SPARSE: o->sparse = 0; break;
    case OPT_PARAM:
      if (parse_double("--ccc-param", optarg, &o->ccc_param))
        return SM_EOPTION;
      break;
    case OPT_MULT:
      if (parse_double("--ccc-multiplier", optarg, &o->ccc_mult))
        return SM_EOPTION;
      break;
    case OPT_METHOD:
      if (parse_choice("--compute-method", optarg, methods, 2, &k))
        return SM_EOPTION;
      o->method = (sm_method_t)k;
      break;
    case OPT_KERNEL:
      if (parse_choice("--kernel", optarg, kernels, 8, &k))
        return SM_EOPTION;
      o->kernel = (sm_kernel_t)k;
      break;
    case OPT_INPUT: o->input = optarg; n_inputs++; break;
    case OPT_BFILE:
      o->input = optarg;
      o->input_format = SM_INPUT_PLINK;
      n_inputs++;
      break;
    case OPT_INFMT: {
      sm_err_t e = sm_input_format_parse(optarg, &o->input_format);
      if (e)
        return SM_EOPTION;
      break;
    }
    case OPT_TRANSPOSE: o->transpose = 1; break;
    case OPT_RAWTYPE:
      if (parse_choice("--raw-type", optarg, rawtypes, 2, &k))
        return SM_EOPTION;
      o->raw_elem_size = k ? 4 : 8;
      break;
    case OPT_OUTPUT: o->output = optarg; break;
    case OPT_OUTFMT:
      if (sm_outfmt_parse(optarg, &o->output_format) != SM_OK)
        return SM_EOPTION;
      break;
    case OPT_THRESHOLD:
      if (parse_double("--threshold", optarg, &o->threshold))
        return SM_EOPTION;
      if (o->threshold < 0) {
        sm_log_error("--threshold: %g is out of range (values kept are > T; T "
                     "must be >= 0)", o->threshold);
        return SM_EOPTION;
      }
      break;
    case OPT_SUMMARY: o->summary = optarg; break;
    case OPT_BLOCK:
      if (parse_size("--block-size", optarg, &o->block_size))
        return SM_EOPTION;
      if (o->block_size == 0) {
        sm_log_error("--block-size: must be at least 1");
        return SM_EOPTION;
      }
      break;
    case OPT_SCHED:
      if (!strcmp(optarg, "help")) { /* the list, one per line */
        for (k = 0; sm_sched_policies[k]; k++)
          printf("%s\n", sm_sched_policies[k]);
        return 1;
      }
      o->sched = optarg;
      break;
    case OPT_NO_PRIO: o->no_priorities = 1; break;
    case OPT_TRACE: o->trace = optarg; break;
    case OPT_PMDIR: o->perfmodel_dir = optarg; break;
    case OPT_CALIBRATE: o->calibrate = 1; break;
    case OPT_NPV:
      if (parse_int("--num-proc-vector", optarg, 1, &o->npv))
        return SM_EOPTION;
      break;
    case OPT_NPF:
      if (parse_int("--num-proc-field", optarg, 1, &o->npf))
        return SM_EOPTION;
      break;
    case OPT_NPR:
      if (parse_int("--num-proc-repl", optarg, 1, &o->npr))
        return SM_EOPTION;
      break;
    case OPT_NPHASE:
      if (parse_int("--num-phase", optarg, 1, &o->num_phase))
        return SM_EOPTION;
      break;
    case OPT_PHMIN:
      if (parse_int("--phase-min", optarg, 0, &o->phase_min))
        return SM_EOPTION;
      break;
    case OPT_PHMAX:
      if (parse_int("--phase-max", optarg, 0, &o->phase_max))
        return SM_EOPTION;
      break;
    case OPT_RESUME: o->resume = 1; break;
    case OPT_VERIFY: o->verify = 1; break;
    case OPT_DEVICES: {
      static const char *const devs[] = {"all", "cpu", "accel"};
      static const unsigned long long where[] = {
          STARPU_CPU | STARPU_CUDA | STARPU_OPENCL, STARPU_CPU, STARPU_CUDA | STARPU_OPENCL};
      if (parse_choice("--devices", optarg, devs, 3, &k))
        return SM_EOPTION;
      o->devices = where[k];
      break;
    }
    case OPT_INJECT: {
      char *comma = strchr(optarg, ',');
      if (comma)
        *comma = 0;
      if (parse_double("--inject-faults", optarg, &o->inject_rate))
        return SM_EOPTION;
      if (o->inject_rate < 0 || o->inject_rate > 1) {
        sm_log_error("--inject-faults: rate %g is out of range (0..1)", o->inject_rate);
        return SM_EOPTION;
      }
      size_t seed = 1;
      if (comma && parse_size("--inject-faults seed", comma + 1, &seed))
        return SM_EOPTION;
      o->inject_seed = seed;
      break;
    }
    case OPT_NSTAGE:
      if (parse_int("--num-stage", optarg, 1, &o->num_stage))
        return SM_EOPTION;
      break;
    case OPT_STMIN:
      if (parse_int("--stage-min", optarg, 0, &o->stage_min))
        return SM_EOPTION;
      break;
    case OPT_STMAX:
      if (parse_int("--stage-max", optarg, 0, &o->stage_max))
        return SM_EOPTION;
      break;
    case OPT_PROGRESS: o->progress = 1; break;
    case OPT_NO_PROGRESS: o->progress = 0; break;
    case 'h':
    case OPT_HELP: sm_options_usage(stdout); return 1;
    case '?':
    default:
      sm_log_error("unknown or incomplete option '%s' (see starmet --help)",
                   argv[optind - 1]);
      return SM_EOPTION;
    }
  }
  if (optind < argc) {
    sm_log_error("unexpected argument '%s' (see starmet --help)", argv[optind]);
    return SM_EOPTION;
  }
  /* consistency */
  if (n_inputs > 1 || (n_inputs && o->synth.kind != SM_SYNTH_NONE)) {
    sm_log_error("give one input: --input, --bfile or --synthetic");
    return SM_EOPTION;
  }
  if (!n_inputs && o->synth.kind == SM_SYNTH_NONE) {
    sm_log_error("no input: give --input FILE, --bfile PREFIX or --synthetic "
                 "random|analytic (see starmet --help)");
    return SM_EOPTION;
  }
  if ((int)o->metric < 0)
    o->metric = o->input_format == SM_INPUT_PLINK ? SM_METRIC_CCC : SM_METRIC_CZEK;
  if (o->metric == SM_METRIC_CCC && o->single) {
    sm_log_error("--precision single applies to czekanowski only (ccc tallies are exact)");
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CZEK && o->sparse == 1) {
    sm_log_error("--sparse applies to ccc only");
    return SM_EOPTION;
  }
  if (o->method == SM_METHOD_TASKS) {
    const char *why = sm_codelets_kernel_check(o->kernel, o->metric == SM_METRIC_CCC);
    if (why) {
      sm_log_error("--kernel %s: %s", kernels[o->kernel], why);
      return SM_EOPTION;
    }
  }
  if (o->synth.kind != SM_SYNTH_NONE) {
    if (!o->num_vector || !o->num_field) {
      sm_log_error("--synthetic needs --num-vector N and --num-field N (both >= 1)");
      return SM_EOPTION;
    }
    if (o->metric == SM_METRIC_CZEK && o->synth.missing_rate > 0) {
      sm_log_error("--missing-rate applies to ccc only");
      return SM_EOPTION;
    }
    o->synth.metric = o->metric;
    o->synth.nv = o->num_vector;
    o->synth.nf = o->num_field;
  }
  if (o->metric == SM_METRIC_CCC && (o->ccc_param < 0 || o->ccc_param > 1.5)) {
    sm_log_error("--ccc-param: %g is out of range (0 <= g <= 1.5)", o->ccc_param);
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CCC && o->ccc_mult <= 0) {
    sm_log_error("--ccc-multiplier: %g must be > 0", o->ccc_mult);
    return SM_EOPTION;
  }
  if (o->threshold >= 0) {
    double max = o->metric == SM_METRIC_CZEK ? (o->num_way == 2 ? 1.0 : 1.5)
                                             : o->ccc_mult;
    if (o->threshold >= max) {
      sm_log_error("--threshold: %g is out of range: %s %d-way values are at most "
                   "%g, so nothing would be kept", o->threshold,
                   o->metric == SM_METRIC_CZEK ? "czekanowski" : "ccc", o->num_way, max);
      return SM_EOPTION;
    }
  }
  if (o->phase_max < 0)
    o->phase_max = o->num_phase - 1;
  if (o->phase_min >= o->num_phase || o->phase_max >= o->num_phase ||
      o->phase_min > o->phase_max) {
    sm_log_error("--phase-min %d / --phase-max %d: out of range for --num-phase %d "
                 "(phases are 0..%d, min <= max)", o->phase_min, o->phase_max,
                 o->num_phase, o->num_phase - 1);
    return SM_EOPTION;
  }
  if (o->stage_max < 0)
    o->stage_max = o->num_stage - 1;
  if (o->stage_min >= o->num_stage || o->stage_max >= o->num_stage ||
      o->stage_min > o->stage_max) {
    sm_log_error("--stage-min %d / --stage-max %d: out of range for --num-stage %d "
                 "(stages are 0..%d, min <= max)", o->stage_min, o->stage_max,
                 o->num_stage, o->num_stage - 1);
    return SM_EOPTION;
  }
  if (o->num_stage > 1 && o->num_way != 3) {
    sm_log_error("--num-stage applies to --num-way 3 only");
    return SM_EOPTION;
  }
  if ((int)o->output_format < 0)
    o->output_format = o->output ? SM_OUT_TSV : SM_OUT_NONE;
  if (o->resume && (!o->output || o->output_format == SM_OUT_NONE ||
                    o->method == SM_METHOD_REF)) {
    sm_log_error("--resume needs an output (--output PREFIX, format tsv, bin or comet) "
                 "and the task graph");
    return SM_EOPTION;
  }
  if (o->output_format != SM_OUT_NONE && !o->output) {
    sm_log_error("--output-format needs --output PREFIX");
    return SM_EOPTION;
  }
  if (o->sched && sm_sched_check("--sched", o->sched))
    return SM_EOPTION;
  if ((o->trace || o->calibrate || o->perfmodel_dir || o->no_priorities) &&
      o->method == SM_METHOD_REF) {
    sm_log_error("--trace, --calibrate, --perfmodel-dir and --no-priorities apply to the "
                 "task graph, not --compute-method ref");
    return SM_EOPTION;
  }
  return SM_OK;
}

int sm_options_parse_synth(int argc, char **argv, sm_options_t *o)
{
  static const char *const fmts[] = {"tsv", "npy", "raw", "plink"};
  defaults(o);
  int c, k;
  o->synth.kind = SM_SYNTH_RANDOM;
  optind = 1;
  opterr = 0;
  o->input_format = SM_INPUT_TSV;
  while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
    int r = common_opt(c, optarg, o);
    if (r < 0)
      return SM_EOPTION;
    if (r > 0)
      continue;
    switch (c) {
    case OPT_OUTPUT: o->output = optarg; break;
    case OPT_OUTFMT:
      if (parse_choice("--output-format", optarg, fmts, 4, &k))
        return SM_EOPTION;
      o->input_format = k == 0 ? SM_INPUT_TSV
                        : k == 1 ? SM_INPUT_NPY
                        : k == 2 ? SM_INPUT_RAW
                                 : SM_INPUT_PLINK;
      break;
    case OPT_PRECISION:
      o->single = !strcmp(optarg, "single");
      break;
    case 'h':
    case OPT_HELP: sm_options_usage(stdout); return 1;
    default:
      sm_log_error("synth: unknown or incomplete option '%s' (see starmet --help)",
                   argv[optind - 1]);
      return SM_EOPTION;
    }
  }
  if ((int)o->metric < 0)
    o->metric = o->input_format == SM_INPUT_PLINK ? SM_METRIC_CCC : SM_METRIC_CZEK;
  if (!o->output || !o->num_vector || !o->num_field) {
    sm_log_error("synth needs --output PATH, --num-vector N and --num-field N");
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CCC && o->input_format == SM_INPUT_TSV) {
    sm_log_error("synth: ccc problems are written as plink, npy or raw");
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CZEK && o->input_format == SM_INPUT_PLINK) {
    sm_log_error("synth: plink output holds genotypes: use --metric ccc");
    return SM_EOPTION;
  }
  o->synth.metric = o->metric;
  o->synth.nv = o->num_vector;
  o->synth.nf = o->num_field;
  return SM_OK;
}
