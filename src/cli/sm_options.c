/* sm_options.c: the options of `starmet compute` and `starmet synth` as
 * one table (parsing and --help derive from it), and the checks of how
 * they combine. Every value is checked here, before any input is read or
 * any task inserted. */
#ifdef HAVE_CONFIG_H /* SM_SIMULATION (the fuzz targets build without it) */
#include "config.h"
#endif
#include "sm_options.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sm_commit.h"
#include "sm_formulas.h"
#include "sm_optable.h"
#include "sm_paje.h"
#include "sm_sched.h"

/* What the table writes into: the options, how many inputs were given,
 * and the format PLINK's input options name (--bfile: a PLINK prefix,
 * --vcf/--bcf: a VCF or BCF, whatever the name; checked against
 * --input-format once every option is parsed), or -1. */
typedef struct args {
  sm_options_t o;
  int n_inputs;
  int plink_opt;
  const char *plink_name;
} args_t;

#define O(field) offsetof(args_t, o.field)

enum { CMD_COMPUTE = 1, CMD_SYNTH = 2, CMD_BOTH = CMD_COMPUTE | CMD_SYNTH };
const char *const sm_options_cmd_names[] = {"compute", "synth", NULL}; /* by bit */

/* The names of sm_kernel_t, in its order, from the one list of kernel
 * variants (sm_kern_variants.h): parsing, help and errors. */
static const char *const kernel_names[] = {SM_KERN_VARIANT_NAMES NULL};

/* --metric: the names (help, errors) and what each sets; "braycurtis"
 * (scipy's spelling) is read as "bray-curtis" */
static const char *const metrics[] = {"czekanowski", "bray-curtis", "jaccard", "ccc",
                                      "r2",          "r",           NULL};
static const struct {
  sm_metric_t metric;
  int form;
} metric_values[] = {{SM_METRIC_CZEK, SM_FORM_PS},      {SM_METRIC_CZEK, SM_FORM_BC},
                     {SM_METRIC_CZEK, SM_FORM_JACCARD}, {SM_METRIC_CCC, SM_FORM_PS},
                     {SM_METRIC_CCC, SM_FORM_R2},       {SM_METRIC_CCC, SM_FORM_R}};
static const char *const zero_pair_names[] = {"nan", "zero", NULL};
static const int zero_pair_values[] = {1, 0};
/* plink1.9's --vcf-half-call modes (sm_read.h's SM_HALF_) */
static const char *const half_call_names[] = {
    "m", "missing", "h", "haploid", "r", "reference", "e", "error", NULL};
static const int half_call_values[] = {0, 0, 1, 1, 2, 2, 3, 3};
static const char *const ways[] = {"2", "3", NULL};
static const int way_values[] = {2, 3};
static const char *const precisions[] = {"double", "single", NULL};
static const char *const methods[] = {"tasks", "ref", NULL};
static const char *const synth_kinds[] = {"random", "analytic", NULL};
static const int synth_values[] = {SM_SYNTH_RANDOM, SM_SYNTH_ANALYTIC};
static const char *const rawtypes[] = {"float64", "float32", NULL};
static const char *const devices[] = {"all", "cpu", "accel", NULL};
static const char *const czek_methods[] = {"auto", "dense", "sparse",
                                           NULL}; /* sm_czek_method_t */
static const char *const ccc_gemms[] = {"auto", "popcount", "int8",
                                        NULL}; /* sm_ccc_gemm_t */
static const char *const retries[] = {"auto", "runtime", "check", NULL}; /* sm_retry_t */
static const char *const yes_no_auto[] = {"auto", "yes", "no", NULL};    /* SM_TEXT_* */
static const char *const compare_axes[] = {"samples", "observations", NULL};
static const int compare_values[] = {SM_COMPARE_SAMPLES, SM_COMPARE_OBSERVATIONS};
static const char *const synth_formats[] = {"tsv", "npy", "raw", "plink", NULL};
static const int synth_format_values[] = {SM_INPUT_TSV, SM_INPUT_NPY, SM_INPUT_RAW,
                                          SM_INPUT_PLINK};

static sm_err_t set_metric(const sm_opt_t *d, char *arg, void *dst)
{
  sm_options_t *o = &((args_t *)dst)->o;
  int k;
  if (sm_opt_choice("--metric", strcmp(arg, "braycurtis") ? arg : "bray-curtis",
                    d->choices, &k))
    return SM_EOPTION;
  o->metric = metric_values[k].metric;
  o->form = metric_values[k].form;
  return SM_OK;
}

/* PLINK's modifiers of --r2: inter-chr is read, yes-really (PLINK's consent
 * to a large table) accepted; the others are named in an error with what
 * starmet has instead (check_ld_window) */
static const char *const plink_ld_words[] = {
    "inter-chr",     "square",   "square0",    "triangle",   "bin",
    "bin4",          "gz",       "spaces",     "d",          "dprime",
    "dprime-signed", "in-phase", "with-freqs", "yes-really", NULL};
enum { LD_INTER_CHR = 0, LD_GZ = 6, LD_WITH_FREQS = 12, LD_YES_REALLY = 13 };

/* --r2, --r: PLINK's spelling of --metric r2, r (arg NULL), then each of
 * PLINK's modifiers that follow it as words (arg: one of them) */
static sm_err_t set_plink_ld(const sm_opt_t *d, char *arg, void *dst)
{
  sm_options_t *o = &((args_t *)dst)->o;
  if (!arg) {
    o->metric = SM_METRIC_CCC;
    o->form = strcmp(d->name, "r") ? SM_FORM_R2 : SM_FORM_R;
    return SM_OK;
  }
  int k = 0;
  while (plink_ld_words[k] && strcmp(plink_ld_words[k], arg))
    k++;
  if (k == LD_INTER_CHR)
    o->inter_chr = 1;
  else if (k == LD_GZ)
    o->ld_gz = 1;
  else if (k == LD_WITH_FREQS)
    o->ld_freqs = 1;
  else if (k != LD_YES_REALLY && !o->ld_modifier)
    o->ld_modifier = k + 1;
  return SM_OK;
}

/* --extract, --exclude: a file of variant ids (PLINK's range and bed
 * forms are refused with the command that turns them into one) */
static sm_err_t set_id_list(const sm_opt_t *d, char *arg, void *dst)
{
  if (!strcmp(arg, "range") || !strcmp(arg, "bed0") || !strcmp(arg, "bed1")) {
    sm_log_error("--%s %s: PLINK's ranges are not read by starmet: give a file of "
                 "variant ids (plink1.9 --bfile IN --extract %s RANGES --write-snplist "
                 "--out LIST writes the ids in the ranges to LIST.snplist)",
                 d->name, arg, arg);
    return SM_EOPTION;
  }
  *(const char **)((char *)dst + d->off) = arg;
  return SM_OK;
}

/* PLINK's --from-bp/--to-bp (an integer) and their -kb and -mb forms
 * (converted as plink1.9 converts them: truncated after a factor 1 +
 * 2^-44), one value each end */
static sm_err_t set_bp_bound(const sm_opt_t *d, char *arg, void *dst)
{
  args_t *a = dst;
  const int to = !strncmp(d->name, "to", 2);
  long long *at = to ? &a->o.to_bp : &a->o.from_bp;
  const char *unit = strrchr(d->name, '-') + 1;
  const double mult = !strcmp(unit, "bp") ? 1 : !strcmp(unit, "kb") ? 1e3 : 1e6;
  char *end;
  const double v = strtod(arg, &end);
  if (end == arg || *end || !(v == v) ||
      (mult == 1 && (v < 0 || v != floor(v) || v > 2147483646.0))) {
    sm_log_error("--%s '%s': give %s, as PLINK's", d->name, arg,
                 mult == 1 ? "a position in bp (an integer from 0 to 2147483646)"
                           : "a position (a number; below 0 is 0)");
    return SM_EOPTION;
  }
  if (*at >= 0) {
    sm_log_error("--%s: more than one --%s-bp/-kb/-mb value (plink1.9: \"Multiple "
                 "--%s-bp/-kb/-mb values\")",
                 d->name, to ? "to" : "from", to ? "to" : "from");
    return SM_EOPTION;
  }
  double bp = v * mult * (1 + 0x1p-44);
  *at = bp < 0 ? 0 : bp > 2147483646.0 ? 2147483646 : (long long)bp;
  return SM_OK;
}

/* PLINK's --window KB: a half width of KB / 2 kb, truncated as plink1.9
 * truncates it */
static sm_err_t set_window(const sm_opt_t *d, char *arg, void *dst)
{
  char *end;
  const double v = strtod(arg, &end);
  if (end == arg || *end || !(v >= 0) || v > 1e12) {
    sm_log_error("--%s '%s': give a window in kb (at least 0), as PLINK's", d->name, arg);
    return SM_EOPTION;
  }
  const double w = v * 500 * (1 + 0x1p-44);
  ((args_t *)dst)->o.window_bp = w > 2147483646.0 ? 2147483646 : (long long)w;
  return SM_OK;
}

/* PLINK's --hwe P [midp] [include-nonctrl]: a threshold in [0, 1) (0
 * filters nothing, as in plink1.9), below 0.5 with midp; the words in
 * any order after the option */
static const char *const hwe_words[] = {"midp", "include-nonctrl", NULL};
static sm_err_t set_hwe(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  sm_options_t *o = &((args_t *)dst)->o;
  if (!strcmp(arg, "midp")) {
    o->hwe_midp = 1;
  } else if (!strcmp(arg, "include-nonctrl")) {
    o->hwe_all = 1;
  } else {
    char *end;
    const double p = strtod(arg, &end);
    if (end == arg || *end || !(p >= 0 && p < 1)) {
      sm_log_error("--hwe '%s': give a p-value threshold from 0 to 1 (1 excluded), then "
                   "midp or include-nonctrl if wanted, as PLINK's --hwe",
                   arg);
      return SM_EOPTION;
    }
    if (o->hwe_given) {
      sm_log_error("--hwe: two thresholds given (%g and %s)", o->hwe, arg);
      return SM_EOPTION;
    }
    o->hwe = p, o->hwe_given = 1;
  }
  return SM_OK;
}

/* PLINK's --snps-only [just-acgt] (its former no-DI the same) */
static const char *const snps_only_words[] = {"just-acgt", "no-DI", NULL};
static sm_err_t set_snps_only(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  sm_options_t *o = &((args_t *)dst)->o;
  o->snps_only |= SM_ALLELES_SNV;
  if (arg && (!strcmp(arg, "just-acgt") || !strcmp(arg, "no-DI")))
    o->snps_only |= SM_ALLELES_ACGT;
  return SM_OK;
}

/* PLINK's --filter-males and the like: two of one kind (males and
 * females) keep nobody, refused as plink1.9 refuses them */
static sm_err_t set_sample_filter(const sm_opt_t *d, char *arg, void *dst)
{
  (void)arg;
  int *at = (int *)((char *)dst + d->off);
  if (*at && *at != d->ival) {
    sm_log_error("--%s with the other filter of its kind: no sample could pass (plink1.9 "
                 "refuses them together)",
                 d->name);
    return SM_EOPTION;
  }
  *at = d->ival;
  return SM_OK;
}

/* --autosome: PLINK's autosomes of a human set, --chr 1-22 */
static sm_err_t set_autosome(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d, (void)arg;
  args_t *a = dst;
  if (a->o.chr) {
    sm_log_error(
        "--autosome with --chr %s: give one of them (plink1.9: \"--chr cannot be "
        "used with --autosome\")",
        a->o.chr);
    return SM_EOPTION;
  }
  a->o.chr = "1-22";
  a->o.autosome = 1;
  return SM_OK;
}

/* PLINK's QC and sample filters, which starmet does not apply: refused
 * with the plink1.9 command that writes the filtered set */
static sm_err_t set_plink_filter(const sm_opt_t *d, char *arg, void *dst)
{
  (void)arg, (void)dst;
  if (!strcmp(d->name, "autosome-xy")) {
    sm_log_error("--autosome-xy: give --chr 1-22,XY (PLINK's documented meaning; "
                 "plink1.9 v1.90b6 keeps every chromosome when it is given alone)");
    return SM_EOPTION;
  }
  sm_log_error("--%s is one of PLINK's filters (of variants or samples), which starmet "
               "does not apply: write the filtered set with plink1.9, e.g. plink1.9 "
               "--bfile IN --%s ... --make-bed --out QC (a VCF: --vcf IN), and give "
               "starmet --bfile QC",
               d->name, d->name);
  return SM_EOPTION;
}

static void show_metric(const void *dst, FILE *f)
{
  const sm_options_t *o = &((const args_t *)dst)->o;
  for (size_t k = 0; k < sizeof metric_values / sizeof metric_values[0]; k++)
    if (metric_values[k].metric == o->metric && metric_values[k].form == o->form) {
      fputs(metrics[k], f);
      return;
    }
  fputc('-', f); /* not given: from the input */
}

static sm_err_t set_input(const sm_opt_t *d, char *arg, void *dst)
{
  args_t *a = dst;
  a->o.input = arg;
  if (strcmp(d->name, "input")) /* PLINK's --bfile, --vcf, --bcf */
    a->plink_opt = !strcmp(d->name, "bfile") ? SM_INPUT_PLINK : SM_INPUT_VCF,
    a->plink_name = d->name;
  a->n_inputs++;
  return SM_OK;
}

static sm_err_t set_input_format(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  return sm_input_format_parse(arg, &((args_t *)dst)->o.input_format) ? SM_EOPTION
                                                                      : SM_OK;
}

static sm_err_t set_output_format(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  return sm_outfmt_parse(arg, &((args_t *)dst)->o.output_format) ? SM_EOPTION : SM_OK;
}

/* synth: single when it says so, double for anything else */
static sm_err_t set_synth_precision(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  ((args_t *)dst)->o.single = !strcmp(arg, "single");
  return SM_OK;
}

static sm_err_t set_raw_type(const sm_opt_t *d, char *arg, void *dst)
{
  int k;
  if (sm_opt_choice("--raw-type", arg, d->choices, &k))
    return SM_EOPTION;
  ((args_t *)dst)->o.raw_elem_size = k ? 4 : 8;
  return SM_OK;
}

static sm_err_t set_seed(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  size_t s;
  if (sm_opt_size("--seed", arg, &s))
    return SM_EOPTION;
  ((args_t *)dst)->o.synth.seed = s;
  return SM_OK;
}

static void show_seed(const void *dst, FILE *f)
{
  fprintf(f, "%llu", (unsigned long long)((const args_t *)dst)->o.synth.seed);
}

static sm_err_t set_devices(const sm_opt_t *d, char *arg, void *dst)
{
  static const unsigned long long where[] = {STARPU_CPU | STARPU_CUDA | STARPU_OPENCL,
                                             STARPU_CPU, STARPU_CUDA | STARPU_OPENCL};
  int k;
  if (sm_opt_choice("--devices", arg, d->choices, &k))
    return SM_EOPTION;
  ((args_t *)dst)->o.devices = where[k];
  return SM_OK;
}

/* Up to max comma-separated numbers of arg into v; *n gets how many. */
static sm_err_t number_list(const char *opt, const char *arg, double *v, int max, int *n)
{
  char buf[256];
  if (strlen(arg) >= sizeof buf) {
    sm_log_error("%s: '%.40s...' is too long", opt, arg);
    return SM_EOPTION;
  }
  snprintf(buf, sizeof buf, "%s", arg);
  *n = 0;
  for (char *p = buf, *c; p; p = c ? c + 1 : NULL) {
    c = strchr(p, ',');
    if (c)
      *c = 0;
    if (*n == max) {
      sm_log_error("%s: '%s' has more than %d values", opt, arg, max);
      return SM_EOPTION;
    }
    if (sm_opt_double(opt, p, &v[(*n)++]))
      return SM_EOPTION;
  }
  return SM_OK;
}

/* T, or CoMet's thresholds per CCC table entry: tLL,tLH,tHH,tLLHH (2-way)
 * or tLLL,tLLH,tLHH,tHHH,tLLLHHH (3-way); the metric and way are checked
 * with the other options */
static sm_err_t set_threshold(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  sm_options_t *o = &((args_t *)dst)->o;
  double v[5] = {0, 0, 0, 0, 0}; /* all set: the resume fingerprint prints them */
  int n;
  if (number_list("--threshold", arg, v, 5, &n))
    return SM_EOPTION;
  for (int k = 0; k < n; k++)
    if (!(v[k] >= 0)) {
      sm_log_error("--threshold: %g is out of range: values kept are > T, T must be >= 0",
                   v[k]);
      return SM_EOPTION;
    }
  if (n == 1) {
    o->threshold = v[0];
    o->thr_ent = (sm_thr_list_t){0};
    return SM_OK;
  }
  if (n != 4 && n != 5) {
    sm_log_error("--threshold: '%s': give one value, or 4 (CCC 2-way: tLL,tLH,tHH,tLLHH) "
                 "or 5 (CCC 3-way: tLLL,tLLH,tLHH,tHHH,tLLLHHH)",
                 arg);
    return SM_EOPTION;
  }
  o->threshold = -1;
  o->thr_ent.n = n;
  memcpy(o->thr_ent.t, v, sizeof v);
  return SM_OK;
}

/* One number, or the list of per-entry thresholds. */
static void show_threshold(const void *dst, FILE *f)
{
  const sm_options_t *o = &((const args_t *)dst)->o;
  if (!o->thr_ent.n && o->threshold < 0) {
    fputc('-', f); /* none */
    return;
  }
  if (!o->thr_ent.n) {
    sm_opt_print_double(o->threshold, f);
    return;
  }
  for (int k = 0; k < o->thr_ent.n; k++) {
    if (k)
      fputc(',', f);
    sm_opt_print_double(o->thr_ent.t[k], f);
  }
}

/* BINS[,MIN,MAX] */
static sm_err_t set_histogram(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  sm_options_t *o = &((args_t *)dst)->o;
  double v[3];
  int n;
  if (number_list("--histogram", arg, v, 3, &n))
    return SM_EOPTION;
  if (n == 2) {
    sm_log_error("--histogram: '%s' is not BINS or BINS,MIN,MAX", arg);
    return SM_EOPTION;
  }
  if (!(v[0] >= 1 && v[0] <= SM_HIST_MAX_BINS) || v[0] != (double)(uint32_t)v[0]) {
    sm_log_error("--histogram: %s bins: give a whole number from 1 to %d", arg,
                 SM_HIST_MAX_BINS);
    return SM_EOPTION;
  }
  o->hist_bins = (uint32_t)v[0];
  o->hist_lo = o->hist_hi = NAN;
  if (n == 3) {
    if (!(v[1] < v[2])) {
      sm_log_error("--histogram: the range %g..%g is empty: give MIN < MAX", v[1], v[2]);
      return SM_EOPTION;
    }
    /* the bins' width is (MAX - MIN) / BINS: MAX - MIN must be a double */
    if (!isfinite(v[2] - v[1])) {
      sm_log_error("--histogram: the range %g..%g is too wide: MAX - MIN overflows a "
                   "double (the largest is 1.8e+308), and the bins' width with it; give "
                   "MIN and MAX at most 1.8e+308 apart",
                   v[1], v[2]);
      return SM_EOPTION;
    }
    o->hist_lo = v[1];
    o->hist_hi = v[2];
  }
  return SM_OK;
}

/* RATE[,SEED]; the comma is cut off the argument, as it always was */
static sm_err_t set_inject(const sm_opt_t *d, char *arg, void *dst)
{
  (void)d;
  sm_options_t *o = &((args_t *)dst)->o;
  char rate[64];
  const char *comma = strchr(arg, ','); /* arg stays whole: the summary quotes it */
  const size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
  if (n >= sizeof rate) {
    sm_log_error("--inject-faults: '%s' is not RATE[,SEED[,bit|row]]", arg);
    return SM_EOPTION;
  }
  memcpy(rate, arg, n);
  rate[n] = 0;
  if (sm_opt_double("--inject-faults", rate, &o->inject_rate))
    return SM_EOPTION;
  if (o->inject_rate < 0 || o->inject_rate > 1) {
    sm_log_error("--inject-faults: rate %g is out of range (0..1)", o->inject_rate);
    return SM_EOPTION;
  }
  size_t seed = 1;
  char sbuf[64];
  const char *kind = comma ? strchr(comma + 1, ',') : NULL;
  o->inject_kind = SM_INJECT_BIT;
  if (kind) {
    static const char *const kinds[] = {"bit", "row", NULL};
    int k;
    if (sm_opt_choice("--inject-faults kind", kind + 1, kinds, &k))
      return SM_EOPTION;
    o->inject_kind = k ? SM_INJECT_ROW : SM_INJECT_BIT;
  }
  if (comma) {
    const size_t ns = kind ? (size_t)(kind - comma - 1) : strlen(comma + 1);
    if (ns >= sizeof sbuf) {
      sm_log_error("--inject-faults: '%s' is not RATE[,SEED[,bit|row]]", arg);
      return SM_EOPTION;
    }
    memcpy(sbuf, comma + 1, ns);
    sbuf[ns] = 0;
    if (sm_opt_size("--inject-faults seed", sbuf, &seed))
      return SM_EOPTION;
  }
  o->inject_seed = seed;
  return SM_OK;
}

static void show_histogram(const void *dst, FILE *f)
{
  const sm_options_t *o = &((const args_t *)dst)->o;
  if (!o->hist_bins) {
    fputc('-', f); /* none */
    return;
  }
  fprintf(f, "%u,", (unsigned)o->hist_bins);
  sm_opt_print_double(o->hist_lo, f);
  fputc(',', f);
  sm_opt_print_double(o->hist_hi, f);
}

#define TEXT(s)                                                                          \
  {                                                                                      \
    .help = s                                                                            \
  }
/* a PLINK filter, refused (set_plink_filter); not listed */
#define PLINK_FILTER(n)                                                                  \
  {                                                                                      \
    .name = n, .kind = SM_OPT_FLAG, .off = O(plink_said), .ival = 1,                     \
    .cmds = CMD_COMPUTE, .set = set_plink_filter                                         \
  }
/* PLINK's missing-call filters (--geno, --mind): a fraction, its value
 * optional (PLINK's default 0.1) */
#define MISSING_RATE(n, f, h)                                                            \
  {                                                                                      \
    .name = n, .kind = SM_OPT_DOUBLE, .off = O(f), .range = "0 <= F <= 1", .dmin = 0,    \
    .dmax = 0x1.0000000000001p0, .dflt = "0.1", .cmds = CMD_COMPUTE, .arg = "[F]",       \
    .help = h                                                                            \
  }
/* PLINK's --filter-males ... --filter-cases (set_sample_filter) */
#define SAMPLE_FILTER(n, f, v, h)                                                        \
  {                                                                                      \
    .name = n, .kind = SM_OPT_FLAG, .off = O(f), .ival = v, .cmds = CMD_COMPUTE,         \
    .set = set_sample_filter, .help = h                                                  \
  }
/* PLINK's --mac, --max-mac (and their --min-ac, --max-ac; NULL help: not
 * listed): an integer count */
#define MAC(n, f, h)                                                                     \
  {                                                                                      \
    .name = n, .kind = SM_OPT_INT, .off = O(f), .min = 0, .max = 2147483646,             \
    .cmds = CMD_COMPUTE, .arg = "N", .help = h                                           \
  }
/* PLINK's --from-bp ... --to-mb (set_bp_bound) */
#define BP_BOUND(n, h)                                                                   \
  {                                                                                      \
    .name = n, .kind = SM_OPT_STRING, .off = O(plink_said), .cmds = CMD_COMPUTE,         \
    .set = set_bp_bound, .arg = n[strlen(n) - 1] == 'p' ? "BP" : "X", .help = h          \
  }
#define FLAG(n, f, v, c, h)                                                              \
  {                                                                                      \
    .name = n, .kind = SM_OPT_FLAG, .off = O(f), .ival = v, .cmds = c, .help = h         \
  }
#define STRING(n, f, a, h)                                                               \
  {                                                                                      \
    .name = n, .kind = SM_OPT_STRING, .off = O(f), .cmds = CMD_COMPUTE, .arg = a,        \
    .help = h                                                                            \
  }
#define INT(n, f, lo, a, h)                                                              \
  {                                                                                      \
    .name = n, .kind = SM_OPT_INT, .off = O(f), .min = lo, .cmds = CMD_COMPUTE,          \
    .arg = a, .help = h                                                                  \
  }
#define CUSTOM(n, fn, c, a, h)                                                           \
  {                                                                                      \
    .name = n, .kind = SM_OPT_STRING, .set = fn, .cmds = c, .arg = a, .help = h          \
  }
/* a custom row whose stored value sh prints (numbers: one spelling) */
#define SHOWN(n, fn, sh, c, a, h)                                                        \
  {                                                                                      \
    .name = n, .kind = SM_OPT_STRING, .set = fn, .show = sh, .cmds = c, .arg = a,        \
    .help = h                                                                            \
  }

static const char *const topk_by_names[] = {"max", "entry", NULL};
static const char *const verify_modes[] = {"full", NULL};
static const int verify_values[] = {SM_VERIFY_FULL};
static const char *const key_names[] = {"names", "index", NULL};

#ifndef SM_DOCDIR /* where make install puts README.md and docs/ (Makefile.am) */
#define SM_DOCDIR "share/doc/starmet"
#endif

/* The commands, the three most common runs and where the guide is: the
 * top of --help, and all that starmet without arguments prints. */
#define SM_OPTIONS_USAGE                                                                 \
  "usage: starmet compute [options]   all-pairs / all-triples metrics\n"                 \
  "       starmet synth [options]     write a synthetic problem to a file\n"             \
  "       starmet maf --input FILE [options]   allele frequency likelihoods, MAF\n"      \
  "                                   and SFS from genotype likelihoods (starmet maf "   \
  "--help)\n"                                                                            \
  "       starmet --help | --version\n"                                                  \
  "\n"                                                                                   \
  "The most common runs (mkdir -p out first):\n"                                         \
  "  starmet compute --bfile data/example_geno --threshold 0.7 --top-k 5 --output "      \
  "out/ccc\n"                                                                            \
  "  starmet compute --input data/example_abundance.tsv --histogram 20 --output "        \
  "out/ps\n"                                                                             \
  "  mpirun -np 2 starmet compute --bfile data/example_geno --num-proc-vector 2 "        \
  "--output out/ccc2\n"                                                                  \
  "The guide: docs/getting-started.md, then docs/README.md (installed in " SM_DOCDIR     \
  "/docs).\n"

/* Every option of compute and synth, in the order of the help. */
static const sm_opt_t options[] = {
    TEXT(SM_OPTIONS_USAGE "\n"
                          "What to compute:\n"),
    {.name = "metric",
     .kind = SM_OPT_CHOICE,
     .off = O(metric),
     .choices = metrics,
     .set = set_metric,
     .show = show_metric,
     .cmds = CMD_BOTH,
     .help = "Czekanowski's Proportional Similarity, the\n"
             "Bray-Curtis or quantitative Jaccard (Ruzicka)\n"
             "dissimilarity (pairs; braycurtis is read as\n"
             "bray-curtis), the Custom Correlation Coefficient, or\n"
             "PLINK 1.9's LD r2 or r of allele counts (pairs of\n"
             "variants; default: ccc for genotypes (PLINK, VCF,\n"
             "BCF), else czekanowski)"},
    {.name = "r2",
     .kind = SM_OPT_FLAG,
     .off = O(inter_chr),
     .choices = plink_ld_words,
     .set = set_plink_ld,
     .show = show_metric,
     .cmds = CMD_COMPUTE,
     .arg = "[inter-chr] [yes-really], --r [inter-chr]",
     .help = "PLINK's spelling of --metric r2, r (inter-chr:\n"
             "--inter-chr; yes-really accepted)"},
    {.name = "r",
     .kind = SM_OPT_FLAG,
     .off = O(inter_chr),
     .choices = plink_ld_words,
     .set = set_plink_ld,
     .show = show_metric,
     .cmds = CMD_COMPUTE},
    FLAG("binary", binary, 1, CMD_COMPUTE,
         "czekanowski, bray-curtis, jaccard: presence/absence,\n"
         "every value > 0 read as 1 (bray-curtis: Sorensen,\n"
         "jaccard: binary Jaccard)"),
    {.name = "zero-pairs",
     .kind = SM_OPT_CHOICE,
     .off = O(zero_pairs),
     .choices = zero_pair_names,
     .values = zero_pair_values,
     .cmds = CMD_COMPUTE,
     .help = "the value of a pair of two empty vectors (sums 0,\n"
             "0/0): nan, or zero: what nothing in common gives\n"
             "(czekanowski 0, bray-curtis and jaccard 1); default\n"
             "nan for bray-curtis and jaccard (as scipy and\n"
             "vegan), zero for czekanowski"},
    {.name = "num-way",
     .kind = SM_OPT_CHOICE,
     .off = O(num_way),
     .choices = ways,
     .values = way_values,
     .cmds = CMD_COMPUTE,
     .help = "pairs or triples (default 2)"},
    {.name = "precision",
     .kind = SM_OPT_CHOICE,
     .off = O(single),
     .choices = precisions,
     .cmds = CMD_COMPUTE,
     .help = "czekanowski arithmetic (default double)"},
    {.name = "precision", .set = set_synth_precision, .cmds = CMD_SYNTH},
    {.name = "sparse",
     .kind = SM_OPT_FLAG,
     .off = O(sparse),
     .ival = 1,
     .cmds = CMD_COMPUTE,
     .arg = "| --no-sparse",
     .help =
         "ccc: missing-data method (default: sparse when the\ninput has missing calls)"},
    FLAG("no-sparse", sparse, 0, CMD_COMPUTE, NULL),
    {.name = "ccc-param",
     .kind = SM_OPT_DOUBLE,
     .off = O(ccc_param),
     .cmds = CMD_COMPUTE,
     .arg = "G",
     .help = "ccc g (default 2/3)"},
    {.name = "ccc-multiplier",
     .kind = SM_OPT_DOUBLE,
     .off = O(ccc_mult),
     .cmds = CMD_COMPUTE,
     .arg = "M",
     .help = "ccc multiplier (default 9/2)"},
    {.name = "compute-method",
     .kind = SM_OPT_CHOICE,
     .off = O(method),
     .choices = methods,
     .cmds = CMD_COMPUTE,
     .help = "StarPU task graph (default) or reference loops"},
    {.name = "kernel",
     .kind = SM_OPT_CHOICE,
     .off = O(kernel),
     .choices = kernel_names,
     .cmds = CMD_COMPUTE,
     .arg = "K",
     .help = "CPU kernel of the 2-way tasks: auto (default: the\n"
             "fastest this CPU runs), ref, blocked (portable),\n"
             "avx2|avx512 (both metrics), ccc popc (the best\n"
             "popcount kernel), vnni, amx"},
    {.name = "ccc-gemm",
     .kind = SM_OPT_CHOICE,
     .off = O(ccc_gemm),
     .choices = ccc_gemms,
     .cmds = CMD_COMPUTE,
     .arg = "M",
     .help = "CCC 2-way products: popcount (bit planes), int8\n"
             "(each tile expanded to int8 once, int8 GEMMs:\n"
             "cuBLAS on GPUs, CoMet's --tc 4), auto (default:\n"
             "int8 when they run on CUDA workers only)"},
    {.name = "czek-method",
     .kind = SM_OPT_CHOICE,
     .off = O(czek_method),
     .choices = czek_methods,
     .cmds = CMD_COMPUTE,
     .arg = "M",
     .help = "Czekanowski 2-way numerators: dense (every field),\n"
             "sparse (tiles of compressed rows, minima over the\n"
             "fields both vectors have: abundance tables), auto\n"
             "(default: sparse below 15% non-zero entries, on\n"
             "CPUs)"},
    TEXT("Input (one of):\n"),
    CUSTOM("input", set_input, CMD_COMPUTE, "FILE",
           ".tsv/.csv/.txt, .biom (czekanowski), .npy, raw\n"
           "CoMet file, .vcf/.vcf.gz/.bcf (ccc: GT, allele\n"
           "1 = ALT)"),
    CUSTOM("bfile", set_input, CMD_COMPUTE, "PREFIX",
           "PLINK 1 PREFIX.bed/.bim/.fam (ccc; allele 1 = A1)"),
    CUSTOM("vcf", set_input, CMD_COMPUTE, "FILE",
           "a VCF (.vcf, .vcf.gz), as PLINK's --vcf: --input\n"
           "FILE --input-format vcf"),
    CUSTOM("bcf", set_input, CMD_COMPUTE, "FILE", "a BCF, as PLINK's --bcf"),
    {.name = "synthetic",
     .kind = SM_OPT_CHOICE,
     .off = O(synth.kind),
     .choices = synth_kinds,
     .values = synth_values,
     .cmds = CMD_BOTH,
     .help = "generated problem of --num-vector x --num-field"},
    CUSTOM("input-format", set_input_format, CMD_COMPUTE,
           "auto|tsv|csv|npy|plink|raw|vcf|biom", "(default: by extension)"),
    FLAG("transpose", transpose, 1, CMD_COMPUTE, "text input: columns are the vectors"),
    {.name = "compare",
     .kind = SM_OPT_CHOICE,
     .off = O(compare),
     .choices = compare_axes,
     .values = compare_values,
     .cmds = CMD_COMPUTE,
     .help = "BIOM tables (.biom, or biom convert --to-tsv's\n"
             "text: observations as rows): the vectors are the\n"
             "samples (default) or the observations"},
    {.name = "header",
     .kind = SM_OPT_CHOICE,
     .off = O(text_header),
     .choices = yes_no_auto,
     .cmds = CMD_COMPUTE,
     .help = "text input: the first line names the columns\n(default auto: when "
             "it is not all numbers)"},
    {.name = "row-names",
     .kind = SM_OPT_CHOICE,
     .off = O(text_row_names),
     .choices = yes_no_auto,
     .cmds = CMD_COMPUTE,
     .help = "text input: the first column names the rows\n(default auto: when "
             "not numeric, or headed id/sample/...)"},
    {.name = "num-vector",
     .kind = SM_OPT_SIZE,
     .off = O(num_vector),
     .max = 4294967295LL, /* vectors are indexed by 32 bits */
     .cmds = CMD_BOTH,
     .arg = "N, --num-field N",
     .help = "sizes (raw input; synthetic problems)"},
    {.name = "num-field",
     .kind = SM_OPT_SIZE,
     .off = O(num_field),
     .max = 1LL << 40, /* keeps every byte count of a vector far from overflow */
     .cmds = CMD_BOTH},
    {.name = "raw-type",
     .kind = SM_OPT_STRING,
     .set = set_raw_type,
     .choices = rawtypes,
     .cmds = CMD_COMPUTE,
     .help = "raw czekanowski value type (default: precision)"},
    SHOWN("seed", set_seed, show_seed, CMD_BOTH, "S", "synthetic seed (default 1)"),
    {.name = "missing-rate",
     .kind = SM_OPT_DOUBLE,
     .off = O(synth.missing_rate),
     .dmin = 0,
     .dmax = 1,
     .range = "0 <= rate < 1",
     .cmds = CMD_BOTH,
     .arg = "R",
     .help = "synthetic ccc: fraction of missing calls (default 0)"},
    TEXT("Output:\n"),
    {.name = "output",
     .kind = SM_OPT_STRING,
     .off = O(output),
     .cmds = CMD_BOTH,
     .arg = "PREFIX",
     .help = "write PREFIX.tsv (or .bin, .npy, .lsmat) and\n"
             "PREFIX.json"},
    {.name = "out",
     .kind = SM_OPT_STRING,
     .off = O(output),
     .cmds = CMD_BOTH,
     .arg = "PREFIX",
     .help = "the same, under PLINK's name"},
    CUSTOM("output-format", set_output_format, CMD_COMPUTE,
           "tsv|bin|npy|lsmat|ld|comet|none",
           "(default tsv, r2 and r: ld; none without --output)\n"
           "npy: the 2-way n x n matrix (x 4 table entries\n"
           "a*2+b for ccc) for numpy.load, NaN where no\n"
           "value is kept, the diagonal 1 (bray-curtis,\n"
           "jaccard: 0; ccc: NaN), ids in PREFIX.ids.txt;\n"
           "one rank, no --resume, at most 16 GiB\n"
           "lsmat: scikit-bio's distance matrix, czekanowski\n"
           "as 1 - PS, bray-curtis and jaccard as they are;\n"
           "every pair, one rank\n"
           "ld: PLINK 1.9's .ld table of r2 or r (PREFIX.ld;\n"
           "ccc: its 4 entries as columns), one rank"),
    {.name = "output-format",
     .kind = SM_OPT_CHOICE,
     .off = O(input_format),
     .choices = synth_formats,
     .values = synth_format_values,
     .cmds = CMD_SYNTH},
    {.name = "keys",
     .kind = SM_OPT_CHOICE,
     .off = O(keys_index),
     .choices = key_names,
     .cmds = CMD_COMPUTE,
     .help = "what names a vector in text output: its name\n"
             "(names, default; they must be unique) or its\n"
             "number from 0 (index, as CoMet)"},
    SHOWN("threshold", set_threshold, show_threshold, CMD_COMPUTE, "T|T1,..",
          "write only values > T (bray-curtis, jaccard: values\n"
          "<= T, the near pairs); CCC also takes CoMet's\n"
          "thresholds per table entry: tLL,tLH,tHH,tLLHH\n"
          "(2-way) or tLLL,tLLH,tLHH,tHHH,tLLLHHH (3-way)"),
    {.name = "top-k",
     .kind = SM_OPT_SIZE,
     .off = O(topk),
     .min = 1,
     .max = SM_TOPK_MAX,
     .cmds = CMD_COMPUTE,
     .arg = "K",
     .help = "each vector's K nearest neighbours (largest\n"
             "values; bray-curtis, jaccard: smallest), 2-way:\n"
             "PREFIX.topk.tsv (.bin with\n"
             "--output-format bin)"},
    {.name = "ld-window",
     .kind = SM_OPT_SIZE,
     .off = O(ld_window),
     .min = 2,
     .cmds = CMD_COMPUTE,
     .arg = "N",
     .help = "PLINK's LD window (r2, r, ccc on genotypes): pairs\n"
             "at most N - 1 variants apart on one chromosome\n"
             "(default 10 when a window option is given)"},
    {.name = "ld-window-kb",
     .kind = SM_OPT_DOUBLE,
     .off = O(ld_window_kb),
     .range = "KB >= 0",
     .dmin = 0,
     .dmax = HUGE_VAL,
     .cmds = CMD_COMPUTE,
     .arg = "KB",
     .help = "and at most KB kilobases apart (default 1000)"},
    {.name = "ld-window-r2",
     .kind = SM_OPT_DOUBLE,
     .off = O(ld_window_r2),
     .range = "0 <= R <= 1",
     .dmin = 0,
     .dmax = 0x1.0000000000001p0, /* 1 included */
     .cmds = CMD_COMPUTE,
     .arg = "R",
     .help = "r2, r: write only pairs with r2 >= R (default 0.2\n"
             "with a window or --inter-chr, as PLINK)"},
    FLAG("keep-allele-order", ld_a1, 1, CMD_COMPUTE,
         "r2, r: count each variant's A1 (the .bim's allele\n"
         "1, a VCF's ALT), as PLINK's --keep-allele-order: r's\n"
         "sign (and a male's X calls) from it; without it, as\n"
         "PLINK, from each variant's minor allele"),
    STRING("chr", chr, "LIST",
           "genotypes: only the variants on these chromosomes,\n"
           "as PLINK's --chr (1,2 or 1-4,X; names as in the\n"
           "file or PLINK's codes)"),
    {.name = "extract",
     .kind = SM_OPT_STRING,
     .off = O(extract),
     .cmds = CMD_COMPUTE,
     .set = set_id_list,
     .arg = "FILE",
     .help = "genotypes: only the variants whose ids FILE lists\n"
             "(words separated by white space), as PLINK's\n"
             "--extract; ids FILE has and the input lacks are\n"
             "ignored"},
    {.name = "exclude",
     .kind = SM_OPT_STRING,
     .off = O(exclude),
     .cmds = CMD_COMPUTE,
     .set = set_id_list,
     .arg = "FILE",
     .help = "genotypes: without the variants whose ids FILE\n"
             "lists, as PLINK's --exclude"},
    STRING("keep", keep, "FILE",
           "PLINK sets: only the samples FILE lists (a family id\n"
           "and a sample id a line, more words ignored), as\n"
           "PLINK's --keep"),
    STRING("remove", remove, "FILE",
           "PLINK sets: without the samples FILE lists, as\n"
           "PLINK's --remove"),
    STRING("keep-fam", keep_fam, "FILE",
           "PLINK sets: only the samples of the families FILE\n"
           "lists (a family id a line), as PLINK's --keep-fam"),
    STRING("remove-fam", remove_fam, "FILE",
           "PLINK sets: without the families FILE lists, as\n"
           "PLINK's --remove-fam"),
    STRING("ld-snp", ld_snp, "ID",
           "r2, r: PLINK's --ld-snp: the .ld's lines of variant\n"
           "ID with those in its window on either side (itself\n"
           "too, r = 1), as plink1.9 --ld-snp writes them"),
    {.name = "ld-snp-list",
     .kind = SM_OPT_STRING,
     .off = O(ld_snp_list),
     .cmds = CMD_COMPUTE,
     .set = set_id_list,
     .arg = "FILE",
     .help = "r2, r: --ld-snp for each variant whose id FILE\n"
             "lists (PLINK's --ld-snp-list)"},
    STRING("ld-snps", ld_snps, "RANGES",
           "r2, r: --ld-snp for each variant of these ids or\n"
           "ranges of ids (rs1-rs9,rs20: in the file's order),\n"
           "as PLINK's --ld-snps"),
    FLAG("allow-extra-chr", plink_said, 1, CMD_COMPUTE,
         "accepted from PLINK command lines: starmet reads\n"
         "any chromosome name (the .ld prints it as given)"),
    FLAG("allow-no-sex", allow_no_sex, 1, CMD_COMPUTE,
         "PLINK's: a sample of unknown sex counts in LD\n"
         "(diploid on X) as in PLINK, and keeps its phenotype\n"
         "for --hwe (without it a control of unknown sex is\n"
         "not one, as in plink1.9)"),
    {.name = "vcf-half-call",
     .kind = SM_OPT_CHOICE,
     .off = O(vcf_half_call),
     .choices = half_call_names,
     .values = half_call_values,
     .cmds = CMD_COMPUTE,
     .arg = "m|h|r|e",
     .help = "VCF genotypes: a call with one allele missing (0/.)\n"
             "is missing (m, default), haploid (h), the other\n"
             "allele REF (r), or an error (e: plink1.9's default)"},
    {.name = "set-missing-var-ids",
     .kind = SM_OPT_STRING,
     .off = O(var_id_tmpl),
     .cmds = CMD_COMPUTE,
     .arg = "TEMPLATE",
     .help = "genotypes: PLINK's names for variants whose id is\n"
             "'.': '@' the chromosome, '#' the position, $1 $2\n"
             "the alleles in ASCII order (@:#:$1:$2)"},
    FLAG("double-id", plink_said, 1, CMD_COMPUTE,
         "accepted from PLINK command lines (sample ids do not\n"
         "reach the .ld table)"),
    FLAG("nonfounders", qc_nonfounders, 1, CMD_COMPUTE,
         "PLINK's: allele frequencies (--maf, and which allele\n"
         "r and X count) of every sample, not the founders';\n"
         "LD stays the founders' (--all-samples: every sample)"),
    {.name = "maf",
     .kind = SM_OPT_DOUBLE,
     .off = O(maf),
     .range = "0 <= F <= 0.5",
     .dmin = 0,
     .dmax = 0x1.0000000000001p-1, /* 0.5 included */
     .dflt = "0.01",
     .cmds = CMD_COMPUTE,
     .arg = "[F]",
     .help = "genotypes: PLINK's filter, the variants whose minor\n"
             "allele frequency (founders) is at least F (0.01)"},
    {.name = "max-maf",
     .kind = SM_OPT_DOUBLE,
     .off = O(max_maf),
     .range = "0 <= F <= 0.5",
     .dmin = 0,
     .dmax = 0x1.0000000000001p-1,
     .cmds = CMD_COMPUTE,
     .arg = "F",
     .help = "genotypes: PLINK's filter, minor allele frequency\n"
             "at most F"},
    MISSING_RATE("geno", geno,
                 "genotypes: PLINK's filter, the variants missing in at\n"
                 "most a fraction F of the samples (0.1)"),
    MISSING_RATE("mind", mind,
                 "PLINK sets: PLINK's filter, the samples missing in at\n"
                 "most a fraction F of the variants chosen (0.1)"),
    MAC("mac", mac,
        "genotypes: PLINK's filter, the variants whose minor\n"
        "allele count (the alleles --maf counts) is at least N"),
    MAC("min-ac", mac, NULL),
    MAC("max-mac", max_mac,
        "genotypes: PLINK's filter, minor allele count at\n"
        "most N"),
    MAC("max-ac", max_mac, NULL),
    {.name = "bp-space",
     .kind = SM_OPT_INT,
     .off = O(bp_space),
     .min = 1,
     .max = 2147483647,
     .cmds = CMD_COMPUTE,
     .arg = "N",
     .help = "genotypes: PLINK's thinning after its QC filters:\n"
             "the first variant of each chromosome, then each one\n"
             "at least N bp after the last kept"},
    {.name = "autosome",
     .kind = SM_OPT_FLAG,
     .off = O(autosome),
     .ival = 1,
     .cmds = CMD_COMPUTE,
     .set = set_autosome,
     .help = "genotypes: PLINK's, the variants on chromosomes 1-22"},
    STRING("not-chr", not_chr, "LIST",
           "genotypes: without the variants on these chromosomes\n"
           "(--chr's forms), as PLINK's --not-chr"),
    STRING("from", from, "ID",
           "genotypes: with --to, the variants between two\n"
           "variants (on their chromosome, by position, both\n"
           "included), as PLINK's; alone, from ID on"),
    STRING("to", to, "ID", "genotypes: see --from"),
    BP_BOUND("from-bp", "genotypes: PLINK's, the variants at or after BP on\n"
                        "--chr's one chromosome (or --from's)"),
    BP_BOUND("to-bp", "genotypes: the variants at or before BP"),
    BP_BOUND("from-kb", "--from-bp in kb (truncated to a bp, as PLINK)"),
    BP_BOUND("to-kb", "--to-bp in kb"),
    BP_BOUND("from-mb", "--from-bp in Mb"),
    BP_BOUND("to-mb", "--to-bp in Mb"),
    STRING("snp", snp, "ID",
           "genotypes: only variant ID, or with --window the\n"
           "variants near it, as PLINK's --snp"),
    STRING("exclude-snp", exclude_snp, "ID",
           "genotypes: without variant ID (with --window, the\n"
           "variants near it)"),
    {.name = "window",
     .kind = SM_OPT_DOUBLE,
     .off = O(window_bp),
     .cmds = CMD_COMPUTE,
     .set = set_window,
     .arg = "KB",
     .help = "with --snp or --exclude-snp: the variants within\n"
             "KB/2 kb on either side (PLINK's half width, both\n"
             "ends included)"},
    {.name = "hwe",
     .kind = SM_OPT_STRING,
     .off = O(hwe_given),
     .cmds = CMD_COMPUTE,
     .set = set_hwe,
     .choices = hwe_words,
     .arg = "P [midp] [include-nonctrl]",
     .help = "genotypes: PLINK's filter, without the variants\n"
             "whose Hardy-Weinberg exact test p is below P, of\n"
             "the founder controls' calls (every founder's with\n"
             "include-nonctrl or without controls; X: non-males';\n"
             "Y and MT not tested); midp: the mid-p test"},
    {.name = "snps-only",
     .kind = SM_OPT_FLAG,
     .off = O(snps_only),
     .ival = SM_ALLELES_SNV,
     .cmds = CMD_COMPUTE,
     .set = set_snps_only,
     .choices = snps_only_words,
     .arg = "[just-acgt]",
     .help = "genotypes: PLINK's, only the variants whose two\n"
             "alleles are one character each (just-acgt: each A,\n"
             "C, G, T or 0; a VCF: REF and the ALT read)"},
    PLINK_FILTER("autosome-xy"),
    STRING("snps", snps, "RANGES",
           "genotypes: only the variants of these ids or ranges\n"
           "of ids (rs1-rs9,rs20: in the file's order, both\n"
           "ends included), as PLINK's --snps"),
    STRING("exclude-snps", exclude_snps, "RANGES",
           "genotypes: without the variants of these ids or\n"
           "ranges, as PLINK's --exclude-snps"),
    PLINK_FILTER("thin"),
    PLINK_FILTER("thin-count"),
    SAMPLE_FILTER("filter-males", filter_sex, 1,
                  "PLINK sets: PLINK's, only the males (sex code 1)"),
    SAMPLE_FILTER("filter-females", filter_sex, 2,
                  "PLINK sets: only the females (sex code 2)"),
    SAMPLE_FILTER("filter-founders", filter_founder, 1,
                  "PLINK sets: only the founders (both parents 0)"),
    SAMPLE_FILTER("filter-nonfounders", filter_founder, 2,
                  "PLINK sets: only the non-founders"),
    SAMPLE_FILTER("filter-controls", filter_pheno, 1,
                  "PLINK sets: only the controls (phenotype 1; a\n"
                  "sample of unknown sex has none without\n"
                  "--allow-no-sex, as in plink1.9)"),
    SAMPLE_FILTER("filter-cases", filter_pheno, 2,
                  "PLINK sets: only the cases (phenotype 2)"),
    PLINK_FILTER("bp-space"),
    FLAG("all-samples", nonfounders, 1, CMD_COMPUTE,
         "r2, r: every sample of a PLINK set; without it, as\n"
         "PLINK, only founders (both parent ids 0 in the .fam)"),
    FLAG("output-loci", output_loci, 1, CMD_COMPUTE,
         "tsv of genotypes (PLINK, VCF): chr and pos columns\n"
         "of each vector after the ids"),
    FLAG("inter-chr", inter_chr, 1, CMD_COMPUTE,
         "r2, r: every pair, across chromosomes too, filtered\n"
         "by --ld-window-r2 (PLINK's --r2 inter-chr)"),
    {.name = "top-k-by",
     .kind = SM_OPT_CHOICE,
     .off = O(topk_by_entry),
     .choices = topk_by_names,
     .cmds = CMD_COMPUTE,
     .help = "CCC: rank a pair by its largest table entry\n"
             "(max, default) or keep K per entry (entry)"},
    SHOWN("histogram", set_histogram, show_histogram, CMD_COMPUTE, "B[,MIN,MAX]",
          "count every value into B bins over [MIN, MAX]\n"
          "(default: the metric's range) per table entry:\n"
          "PREFIX.hist.tsv, the JSON summary, PREFIX.hist.png"),
    STRING("summary", summary, "FILE", "JSON summary path (default PREFIX.json)"),
    {.name = "verify",
     .kind = SM_OPT_FLAG,
     .off = O(verify),
     .ival = SM_VERIFY_CHECKSUM,
     .choices = verify_modes,
     .values = verify_values,
     .cmds = CMD_COMPUTE,
     .arg = "[full]",
     .help = "check every numerator task's result and re-execute\n"
             "the task's kernel when the check fails: CCC and 2-way\n"
             "Czekanowski by checksums; full: CCC by row sums field\n"
             "by field, Czekanowski recomputed (default: checksums\n"
             "for ccc on CPUs, off for czekanowski and on GPUs)"},
    FLAG("no-verify", verify, SM_VERIFY_OFF, CMD_COMPUTE,
         "no check of the numerator tasks' results (ccc checks\n"
         "them by default)"),
    {.name = "inject-faults",
     .kind = SM_OPT_STRING,
     .set = set_inject,
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .arg = "RATE[,SEED[,KIND]]",
     .help = "corrupt numerator results at RATE (for testing\n"
             "--verify): bit flips one random bit (default), row\n"
             "a whole result row (random values)"},
    {.name = "retry",
     .kind = SM_OPT_CHOICE,
     .off = O(retry),
     .choices = retries,
     .cmds = CMD_COMPUTE,
     .arg = "HOW",
     .help = "how a task that fails --verify is re-run: runtime\n"
             "(StarPU 1.4 retries the task, elsewhere after a\n"
             "failure on a GPU), check (its check re-runs the\n"
             "kernel on a CPU), auto (default: runtime on 1.4)"},
    {.name = "task-timeout",
     .kind = SM_OPT_DOUBLE,
     .off = O(task_timeout),
     .dmin = 0,
     .dmax = 1e6,
     .range = "0 <= seconds <= 1e6",
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .arg = "S",
     .help = "fail the run, naming the tasks still running,\n"
             "when no task finished for S seconds (default 0:\n"
             "off; StarPU's watchdog)"},
    /* tests only (not in --help): the process kills itself once N output
     * blocks are on disk and in the resume manifest */
    {.name = "debug-stop-after-blocks",
     .kind = SM_OPT_SIZE,
     .off = O(debug_stop_after),
     .min = 1,
     .cmds = CMD_COMPUTE,
     .per_rank = 1},
    /* tests only: the process stops itself (SIGSTOP) once N output blocks
     * are on disk, for a test to change its files and let it go on */
    {.name = "debug-pause-after-blocks",
     .kind = SM_OPT_SIZE,
     .off = O(debug_pause_after),
     .min = 1,
     .cmds = CMD_COMPUTE,
     .per_rank = 1},
    /* tests only: the process kills itself in the job's commit: 1 once
     * every rank's output is verified, 2 after its commit line, 3 after
     * its rename (docs/resilience.md, "Commit") */
    {.name = "debug-stop-in-commit",
     .kind = SM_OPT_SIZE,
     .off = O(debug_stop_commit),
     .min = 1,
     .max = 3,
     .cmds = CMD_COMPUTE,
     .per_rank = 1},
    /* tests only: the numerator tasks of output block N (from 1) never
     * end, as a hung GPU kernel would not (--task-timeout) */
    {.name = "debug-hang-block",
     .kind = SM_OPT_SIZE,
     .off = O(debug_hang_block),
     .min = 1,
     .cmds = CMD_COMPUTE},
    FLAG("resume", resume, 1, CMD_COMPUTE,
         "continue an interrupted run with the same command:\n"
         "only the blocks it did not complete are computed"),
    TEXT("Parallel decomposition (under mpirun -np P):\n"),
    INT("num-proc-vector", npv, 1, "N", "vector partitions (default P)"),
    INT("num-proc-field", npf, 1, "N", "field slices, reduced by tasks (default 1)"),
    INT("num-proc-repl", npr, 1, "N",
        "replicas sharing a block row (default 1)\n(the product must equal P)"),
    INT("num-phase", num_phase, 1, "N",
        "split each rank's blocks into N phases (default 1)"),
    INT("phase-min", phase_min, 0, "A, --phase-max B",
        "compute phases A..B only (0-based)"),
    INT("phase-max", phase_max, 0, NULL, NULL),
    INT("num-stage", num_stage, 1, "N", "3-way: cut every slice's planes into N stages"),
    INT("stage-min", stage_min, 0, "A, --stage-max B",
        "compute stages A..B only (0-based)"),
    INT("stage-max", stage_max, 0, NULL, NULL),
    TEXT("Runtime:\n"),
    {.name = "block-size",
     .kind = SM_OPT_SIZE,
     .off = O(block_size),
     .min = 1,
     .max = 4294967295LL, /* vectors are indexed by 32 bits */
     .cmds = CMD_COMPUTE,
     .arg = "N",
     .help = "vectors per tile (default: automatic)"},
    {.name = "threads",
     .kind = SM_OPT_SIZE,
     .off = O(threads),
     .min = 1,
     .max = 1024,
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .arg = "N",
     .help = "CPU workers per rank (PLINK's --threads; sets\n"
             "STARPU_NCPU; default: one per core)"},
    STRING("sched", sched, "POLICY",
           "StarPU scheduler (eager, prio, lws, ws, dmda, dmdas,\n"
           "heteroprio, modular-heft, ...; --sched help lists them)"),
    FLAG("no-priorities", no_priorities, 1, CMD_COMPUTE,
         "all tasks at one priority (default: what unblocks\n"
         "reductions and output first; heteroprio: buckets)"),
    {.name = "perfmodel-dir",
     .kind = SM_OPT_STRING,
     .off = O(perfmodel_dir),
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .arg = "DIR",
     .help = "StarPU performance models (default $STARPU_HOME/.starpu)"},
    {.name = "calibrate",
     .kind = SM_OPT_FLAG,
     .off = O(calibrate),
     .ival = 1,
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .help = "record every task in the models (repeat until it says\n"
             "they cover the task time, before measuring dm*)"},
    STRING("trace", trace, "FILE",
           "one CSV line per task: kind, block, rank, worker, times"),
    STRING("trace-paje", trace_paje, "FILE",
           "StarPU's FxT trace as a Paje file (ViTE), the files\n"
           "StarVZ reads in FILE.fxt/ (a StarPU with FxT)"),
    {.name = "progress",
     .kind = SM_OPT_FLAG,
     .off = O(progress),
     .ival = 1,
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .arg = "| --no-progress",
     .help = "progress line on stderr (default: on a terminal)"},
    {.name = "no-progress",
     .kind = SM_OPT_FLAG,
     .off = O(progress),
     .cmds = CMD_COMPUTE,
     .per_rank = 1},
    {.name = "quiet",
     .kind = SM_OPT_FLAG,
     .off = O(quiet),
     .ival = 1,
     .cmds = CMD_BOTH,
     .per_rank = 1,
     .help = "print nothing but errors and warnings (the\n"
             "JSON summary is still written)"},
    {.name = "devices",
     .kind = SM_OPT_STRING,
     .set = set_devices,
     .choices = devices,
     .cmds = CMD_COMPUTE,
     .per_rank = 1,
     .help = "where the modified GEMMs run (default all; accel:\n"
             "CUDA/OpenCL workers only, other tasks stay on CPUs)"},
    {.name = "help", .kind = SM_OPT_HELP, .cmds = CMD_BOTH},
    TEXT("  StarPU's environment sets the workers (STARPU_NCPU=2, STARPU_NOPENCL=1 with\n"
         "  STARPU_OPENCL_ON_CPUS=1 for a CPU OpenCL device such as PoCL, ...).\n"
         "\n"
         "Examples:\n"
         "  starmet compute --bfile data/example_geno --output out/ccc\n"
         "  starmet compute --input data/example_abundance.tsv --threshold 0.6 --output "
         "out/ps\n"
         "  starmet compute --metric czekanowski --synthetic analytic --num-vector 2000 "
         "\\\n"
         "                  --num-field 5000 --output-format none\n"
         "  starmet compute --metric ccc --num-way 3 --synthetic random --num-vector 60 "
         "\\\n"
         "                  --num-field 500 --missing-rate 0.1 --compute-method ref "
         "--output r\n"
         "  mpirun -np 4 starmet compute --bfile geno --num-proc-vector 2 "
         "--num-proc-field 2 "
         "\\\n"
         "                  --output out/ccc          (writes out/ccc_<rank>.tsv)\n"
         "  starmet synth --metric ccc --synthetic random --num-vector 1000 --num-field "
         "2000 "
         "\\\n"
         "                --output-format plink --output geno\n"
         "  starmet synth --metric czekanowski --synthetic random --num-vector 100 \\\n"
         "                --num-field 50 --output-format tsv --output table.tsv\n"
         "  starmet maf --input gl.beagle.gz --output out/maf      (SAF, MAF, SFS)\n"
         "  starmet maf --input calls.vcf.gz --band-tol 30 --output-format bin --output "
         "out/maf\n"),
};

#define NOPTIONS (sizeof options / sizeof options[0])

static const sm_optcmd_t compute_cmd = {options, NOPTIONS,         CMD_COMPUTE,
                                        "",      "starmet --help", 0};
static const sm_optcmd_t synth_cmd = {options,   NOPTIONS,         CMD_SYNTH,
                                      "synth: ", "starmet --help", 0};

void sm_options_usage(FILE *f)
{
  sm_opt_help(options, NOPTIONS, f);
}

void sm_options_short_usage(FILE *f)
{
  fputs(SM_OPTIONS_USAGE "\nEvery option: starmet --help (and starmet maf --help).\n", f);
}

const sm_optcmd_t *sm_options_command(int synth)
{
  return synth ? &synth_cmd : &compute_cmd;
}

static void defaults(sm_options_t *o)
{
  memset(o, 0, sizeof *o);
  o->metric = (sm_metric_t)-1;
  o->zero_pairs = -1;
  o->num_way = 2;
  o->sparse = -1;
  o->ccc_param = SM_CCC_PARAM_DEFAULT;
  o->ccc_mult = SM_CCC_MULT_DEFAULT;
  o->output_format = (sm_outfmt_t)-1;
  o->threshold = -1;
  o->ld_window_kb = -1;
  o->ld_window_r2 = -1;
  o->geno = o->maf = o->max_maf = o->mind = -1;
  o->mac = o->max_mac = -1;
  o->from_bp = o->to_bp = o->window_bp = -1;
  o->ld_min = -1;
  o->progress = -1;
  o->synth.seed = 1;
  o->num_phase = 1;
  o->phase_max = -1;
  o->num_stage = 1;
  o->stage_max = -1;
  o->devices = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL;
  o->verify = SM_VERIFY_AUTO;
}

/* The synthetic problem the options describe. */
static void synth_problem(sm_options_t *o)
{
  o->synth.metric = o->metric;
  o->synth.nv = o->num_vector;
  o->synth.nf = o->num_field;
}

/* PLINK's filters of positions: the combinations plink1.9 accepts, with
 * its words for those it refuses */
static sm_err_t check_positions(const sm_options_t *o)
{
  const char *chr_opt = o->autosome ? "--autosome" : "--chr";
  if (o->not_chr && sm_read_chr_in(o->not_chr, "1") < 0) {
    sm_log_error("--not-chr '%s': give chromosomes as for --chr (22, X, chrX, MT, a "
                 "scaffold's name, or a range of numbers such as 1-4)",
                 o->not_chr);
    return SM_EOPTION;
  }
  if (o->not_chr && o->chr) {
    sm_log_error("--not-chr with %s: give one of them (plink1.9 drops %s's choice then "
                 "and keeps every chromosome but --not-chr's)",
                 chr_opt, chr_opt);
    return SM_EOPTION;
  }
  if ((o->from || o->to) && (o->chr || o->not_chr)) {
    sm_log_error("--%s cannot be used with --autosome or --[not-]chr, as in plink1.9: "
                 "--from/--to choose the chromosome of their variants",
                 o->from ? "from" : "to");
    return SM_EOPTION;
  }
  if (o->from && o->from_bp >= 0) {
    sm_log_error("--from-bp/-kb/-mb cannot be used with --from, as in plink1.9");
    return SM_EOPTION;
  }
  if (o->to && o->to_bp >= 0) {
    sm_log_error("--to-bp/-kb/-mb cannot be used with --to, as in plink1.9");
    return SM_EOPTION;
  }
  if (o->snp) {
    const char *with = o->from || o->to                   ? "--from/--to"
                       : o->from_bp >= 0 || o->to_bp >= 0 ? "--from-bp/--to-bp"
                       : o->chr || o->not_chr             ? "--autosome or --[not-]chr"
                       : o->exclude_snp                   ? "--exclude-snp"
                                                          : NULL;
    if (with) {
      sm_log_error("--snp cannot be used with %s, as in plink1.9 (it chooses its own "
                   "chromosome and positions)",
                   with);
      return SM_EOPTION;
    }
  }
  if (o->snps || o->exclude_snps) {
    const char *opt = o->snps ? "snps" : "exclude-snps";
    const char *with = o->snps && o->exclude_snps   ? "--exclude-snps"
                       : o->snp || o->exclude_snp   ? "--snp or --exclude-snp"
                       : o->to                      ? "--to"
                       : o->to_bp >= 0              ? "--to-bp/-kb/-mb"
                       : o->snps && o->from         ? "--from"
                       : o->snps && o->from_bp >= 0 ? "--from-bp/-kb/-mb"
                                                    : NULL;
    if (with) {
      sm_log_error("--%s cannot be used with %s, as in plink1.9", opt, with);
      return SM_EOPTION;
    }
  }
  if (o->window_bp >= 0 && !o->snp && !o->exclude_snp) {
    sm_log_error("--window must be used with --snp or --exclude-snp, as in plink1.9 "
                 "(the LD window is --ld-window-kb)");
    return SM_EOPTION;
  }
  /* --chr's numbered chromosomes (a range names several) */
  int numbered = 0;
  for (int c = 1; o->chr && c <= 26; c++) {
    char code[4];
    snprintf(code, sizeof code, "%d", c);
    numbered += sm_read_chr_in(o->chr, code) > 0;
  }
  if ((o->from_bp >= 0 || o->to_bp >= 0) && !o->from && !o->to &&
      (!o->chr || o->autosome || strchr(o->chr, ',') || strchr(o->chr, ' ') ||
       numbered > 1)) {
    sm_log_error("--from-bp/-kb/-mb and --to-bp/-kb/-mb require a single chromosome to "
                 "be identified (either explicitly with --chr, or implicitly with "
                 "--from/--to), as in plink1.9");
    return SM_EOPTION;
  }
  if (o->mac >= 0 && o->max_mac >= 0 && o->max_mac < o->mac) {
    sm_log_error("--max-mac %d is below --mac %d: no variant could pass (plink1.9: "
                 "\"--max-mac parameter cannot be smaller than --mac parameter\")",
                 o->max_mac, o->mac);
    return SM_EOPTION;
  }
  return SM_OK;
}

/* One input, its format (--bfile's is PLINK), and the metric it implies. */
static sm_err_t check_input(args_t *a)
{
  sm_options_t *o = &a->o;
  const int n_inputs = a->n_inputs;
  if (n_inputs > 1 || (n_inputs && o->synth.kind != SM_SYNTH_NONE)) {
    sm_log_error("give one input: --input, --bfile, --vcf, --bcf or --synthetic");
    return SM_EOPTION;
  }
  if (!n_inputs && o->synth.kind == SM_SYNTH_NONE) {
    sm_log_error("no input: give --input FILE, --bfile PREFIX or --synthetic "
                 "random|analytic (the formats: docs/inputs.md; starmet --help)");
    return SM_EOPTION;
  }
  if (a->plink_opt >= 0 && o->input_format != SM_INPUT_AUTO &&
      o->input_format != (sm_input_format_t)a->plink_opt) {
    if (a->plink_opt == SM_INPUT_PLINK)
      sm_log_error(
          "--bfile %s reads the PLINK files %s.bed/.bim/.fam, and --input-format "
          "names another format: leave --input-format out, or give a file of "
          "that format with --input",
          o->input, o->input);
    else
      sm_log_error("--%s %s reads a VCF or BCF, and --input-format names another format: "
                   "leave --input-format out, or give a file of that format with --input",
                   a->plink_name, o->input);
    return SM_EOPTION;
  }
  if (a->plink_opt >= 0)
    o->input_format = (sm_input_format_t)a->plink_opt;
  if (o->transpose && o->compare == SM_COMPARE_OBSERVATIONS) {
    sm_log_error("--transpose makes the columns of a table the vectors, which in a BIOM "
                 "table are the samples, and --compare observations asks for its rows: "
                 "give one of the two");
    return SM_EOPTION;
  }
  if ((int)o->metric < 0) { /* genotypes are ccc's, the one metric that reads them */
    const sm_input_format_t f = o->input_format == SM_INPUT_AUTO && o->input
                                    ? sm_read_guess_format(o->input)
                                    : o->input_format;
    o->metric_from_input = f == SM_INPUT_PLINK || f == SM_INPUT_VCF;
    o->metric = o->metric_from_input ? SM_METRIC_CCC : SM_METRIC_CZEK;
  }
  const char *pos_opt = o->autosome         ? "autosome"
                        : o->not_chr        ? "not-chr"
                        : o->from           ? "from"
                        : o->to             ? "to"
                        : o->from_bp >= 0   ? "from-bp"
                        : o->to_bp >= 0     ? "to-bp"
                        : o->snp            ? "snp"
                        : o->exclude_snp    ? "exclude-snp"
                        : o->window_bp >= 0 ? "window"
                        : o->bp_space > 0   ? "bp-space"
                        : o->snps_only      ? "snps-only"
                        : o->snps           ? "snps"
                        : o->exclude_snps   ? "exclude-snps"
                                            : NULL;
  if (o->chr || o->extract || o->exclude || pos_opt) {
    const sm_input_format_t f = o->input_format == SM_INPUT_AUTO && o->input
                                    ? sm_read_guess_format(o->input)
                                    : o->input_format;
    if (!o->input || (f != SM_INPUT_PLINK && f != SM_INPUT_VCF)) {
      const int by_chr = pos_opt || o->chr;
      sm_log_error("--%s selects the variants of genotypes (a PLINK set, a VCF or "
                   "BCF) by %s: this input has %s",
                   pos_opt      ? pos_opt
                   : o->chr     ? "chr"
                   : o->extract ? "extract"
                                : "exclude",
                   by_chr ? "chromosome or position" : "id",
                   by_chr ? "no chromosomes" : "no variants");
      return SM_EOPTION;
    }
  }
  if (o->keep || o->remove || o->keep_fam || o->remove_fam || o->mind >= 0 ||
      o->filter_sex || o->filter_founder || o->filter_pheno) {
    const sm_input_format_t f = o->input_format == SM_INPUT_AUTO && o->input
                                    ? sm_read_guess_format(o->input)
                                    : o->input_format;
    const char *opt = o->keep                  ? "keep"
                      : o->remove              ? "remove"
                      : o->keep_fam            ? "keep-fam"
                      : o->remove_fam          ? "remove-fam"
                      : o->filter_sex == 1     ? "filter-males"
                      : o->filter_sex == 2     ? "filter-females"
                      : o->filter_founder == 1 ? "filter-founders"
                      : o->filter_founder == 2 ? "filter-nonfounders"
                      : o->filter_pheno == 1   ? "filter-controls"
                      : o->filter_pheno == 2   ? "filter-cases"
                                               : "mind";
    if (f == SM_INPUT_VCF) {
      sm_log_error("--%s selects the samples of a PLINK set (--bfile): for a VCF or BCF, "
                   "write the PLINK set with them, plink1.9 --vcf IN --%s %s --make-bed "
                   "--out SET, and give --bfile SET%s",
                   opt, opt, o->mind >= 0 && !strcmp(opt, "mind") ? "F" : "FILE",
                   strcmp(opt, "mind") ? " (or choose them with bcftools view -S "
                                         "SAMPLES.txt IN -Oz -o OUT.vcf.gz)"
                                       : "");
      return SM_EOPTION;
    }
    if (!o->input || f != SM_INPUT_PLINK) {
      sm_log_error("--%s selects the samples of a PLINK set (--bfile): this input has "
                   "no .fam",
                   opt);
      return SM_EOPTION;
    }
  }
  if (o->var_id_tmpl && !sm_read_var_id_template_ok(o->var_id_tmpl)) {
    sm_log_error("--set-missing-var-ids '%s': the template needs exactly one '@' (the "
                 "chromosome) and one '#' (the position), and either no '$' or exactly "
                 "one $1 and one $2 (the alleles), as PLINK's",
                 o->var_id_tmpl);
    return SM_EOPTION;
  }
  if ((o->hwe_midp || o->hwe_all) && !o->hwe_given) {
    sm_log_error("--hwe needs a p-value threshold (--hwe P [midp] [include-nonctrl]), as "
                 "PLINK's");
    return SM_EOPTION;
  }
  if (o->hwe_midp && o->hwe >= 0.5) {
    sm_log_error("--hwe %g midp: the threshold must be below 0.5 with the mid-p "
                 "adjustment, as in plink1.9",
                 o->hwe);
    return SM_EOPTION;
  }
  if (o->geno >= 0 || o->maf >= 0 || o->max_maf >= 0 || o->mac >= 0 || o->max_mac >= 0 ||
      o->hwe_given) {
    const sm_input_format_t f = o->input_format == SM_INPUT_AUTO && o->input
                                    ? sm_read_guess_format(o->input)
                                    : o->input_format;
    const char *name = o->geno >= 0      ? "geno"
                       : o->maf >= 0     ? "maf"
                       : o->max_maf >= 0 ? "max-maf"
                       : o->mac >= 0     ? "mac"
                       : o->max_mac >= 0 ? "max-mac"
                                         : "hwe";
    if (!o->input || (f != SM_INPUT_PLINK && f != SM_INPUT_VCF) ||
        o->metric != SM_METRIC_CCC) {
      sm_log_error("--%s filters the variants of genotypes (a PLINK set, a VCF or BCF; "
                   "--metric r2, r or ccc) by their calls: this run has no genotypes",
                   name);
      return SM_EOPTION;
    }
    if (o->maf >= 0 && o->max_maf >= 0 && o->maf > o->max_maf) {
      sm_log_error("--maf %g is above --max-maf %g: no variant could pass", o->maf,
                   o->max_maf);
      return SM_EOPTION;
    }
  }
  if (o->chr) {
    if (sm_read_chr_in(o->chr, "1") < 0) {
      sm_log_error("--chr '%s': give chromosomes separated by commas, each a name "
                   "(22, X, chrX, MT, a scaffold's name) or a range of numbers (1-4; "
                   "X is 23, Y 24, XY 25, MT 26), as PLINK's --chr",
                   o->chr);
      return SM_EOPTION;
    }
  }
  return check_positions(o);
}

/* What applies to the metric: precision, sparse, kernel, synthetic sizes. */
static sm_err_t check_metric(sm_options_t *o)
{
  if (o->metric == SM_METRIC_CCC && o->single) {
    sm_log_error(
        "--precision single applies to czekanowski only (ccc tallies are exact)");
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CZEK && o->sparse == 1) {
    sm_log_error("--sparse applies to ccc only");
    return SM_EOPTION;
  }
  if (o->method == SM_METHOD_TASKS) {
    const char *why = sm_codelets_kernel_check(o->kernel, o->metric == SM_METRIC_CCC);
    if (why) {
      sm_log_error("--kernel %s: %s", kernel_names[o->kernel], why);
      return SM_EOPTION;
    }
  }
  if (o->ccc_gemm == SM_CCC_GEMM_INT8 &&
      (o->metric != SM_METRIC_CCC || o->num_way != 2 || o->method != SM_METHOD_TASKS)) {
    sm_log_error("--ccc-gemm int8 applies to ccc 2-way runs of the task graph only");
    return SM_EOPTION;
  }
  if (o->czek_method == SM_CZEK_METHOD_SPARSE &&
      (o->metric == SM_METRIC_CCC || o->num_way != 2 || o->method != SM_METHOD_TASKS)) {
    sm_log_error("--czek-method sparse applies to czekanowski 2-way runs of the task "
                 "graph only (3-way runs are dense)");
    return SM_EOPTION;
  }
  if (o->czek_method == SM_CZEK_METHOD_SPARSE && !(o->devices & STARPU_CPU)) {
    sm_log_error("--czek-method sparse runs on CPUs only: give --devices all or cpu, or "
                 "--czek-method dense for the accelerators");
    return SM_EOPTION;
  }
  if (o->ccc_gemm == SM_CCC_GEMM_INT8 && o->kernel != SM_KERNEL_AUTO) {
    sm_log_error("--kernel %s: --ccc-gemm int8 runs int8 loops on the CPUs, not a "
                 "--kernel (leave one of the two out)",
                 kernel_names[o->kernel]);
    return SM_EOPTION;
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
    synth_problem(o);
  }
  return SM_OK;
}

/* The forms of the min-sum family: Bray-Curtis and Jaccard are measures
 * of pairs; --binary and --zero-pairs apply to the family alone; the value
 * of a pair of two empty vectors (NaN for the dissimilarities, as scipy
 * and vegan have it; PS 0 as it always was). */
/* PLINK's r and r^2 (CCC's numerators read as LD): pairs, missing calls
 * left out as PLINK leaves them out (the sparse method), one value per
 * pair in [0, 1] (r: [-1, 1]), the last steps on CPUs. */
static sm_err_t check_ld(sm_options_t *o)
{
  const char *name = o->form == SM_FORM_R2 ? "r2" : "r";
  const char *why =
      o->num_way != 2  ? "is a measure of pairs: leave --num-way 3 out"
      : o->sparse == 0 ? "leaves missing calls out, as PLINK does (the sparse "
                         "method): leave --no-sparse out"
      : o->method == SM_METHOD_REF ? "runs in the task graph: leave --compute-method "
                                     "ref out"
      : o->thr_ent.n || o->threshold >= 0 ? "filters its values as PLINK does: give "
                                            "--ld-window-r2 R (keep r^2 >= R) instead of "
                                            "--threshold"
      : o->topk_by_entry                  ? "has one value per pair: leave --top-k-by out"
      : !(o->devices & STARPU_CPU) ? "finalizes its values on CPUs: give --devices "
                                     "all or cpu"
      : o->synth.kind == SM_SYNTH_ANALYTIC
          ? "has no analytic check: use --synthetic random"
          : NULL;
  if (why) {
    sm_log_error("--metric %s %s", name, why);
    return SM_EOPTION;
  }
  o->sparse = 1;
  o->ld_min = o->ld_window_r2 >= 0             ? o->ld_window_r2
              : o->ld_windowed || o->inter_chr ? 0.2 /* PLINK's default */
                                               : -1;
  if (o->hist_bins && isnan(o->hist_lo)) {
    o->hist_lo = o->form == SM_FORM_R ? -1.0 : 0.0;
    o->hist_hi = 1.0;
  }
  return SM_OK;
}

static const char *ld_name(const sm_options_t *o)
{
  return o->form == SM_FORM_R ? "r" : "r2";
}

/* PLINK's window options: r2 and r, ccc's windows; PLINK's defaults for
 * those not given (10 variants, 1000 kb, r2 >= 0.2). */
static sm_err_t check_ld_window(sm_options_t *o)
{
  const int ld =
      o->metric == SM_METRIC_CCC && (o->form == SM_FORM_R2 || o->form == SM_FORM_R);
  if (o->ld_modifier) { /* --r2 followed by a PLINK modifier starmet lacks */
    const int k = o->ld_modifier - 1;
    sm_log_error(
        "--%s %s: PLINK's modifier %s is not one of starmet's: %s", ld_name(o),
        plink_ld_words[k], plink_ld_words[k],
        k <= 5   ? "the matrix of every pair is --output-format npy (numpy.load) or bin, "
                   "without a window option"
        : k <= 7 ? "starmet writes PLINK's .ld table as plink1.9 does without it"
                 : "starmet computes r and r2 of unphased genotypes, not D' nor "
                   "phased LD");
    return SM_EOPTION;
  }
  int win = o->ld_window || o->ld_window_kb >= 0 || o->ld_window_r2 >= 0;
  /* r2 and r write PLINK's .ld table unless told otherwise; the table
   * without a window option is plink1.9 --r2's: its default window */
  const sm_input_format_t inf = o->input && o->input_format == SM_INPUT_AUTO
                                    ? sm_read_guess_format(o->input)
                                    : o->input_format;
  const int loci = o->input && (inf == SM_INPUT_PLINK || inf == SM_INPUT_VCF);
  if (ld && (int)o->output_format < 0 && o->output && loci) {
    o->output_format = SM_OUT_LD;
    o->ld_default_format = 1;
  }
  if (ld && o->output_format == SM_OUT_LD && !win && !o->inter_chr && o->num_way == 2)
    win = o->ld_default_window = 1;
  if ((o->ld_gz || o->ld_freqs) && (o->output_format != SM_OUT_LD || !o->output || !ld)) {
    sm_log_error("--%s %s %s PLINK's .ld table of r2 or r: give --out PREFIX (and no "
                 "other --output-format)",
                 ld ? ld_name(o) : "r2", o->ld_gz ? "gz" : "with-freqs",
                 o->ld_gz ? "compresses" : "adds allele frequencies to");
    return SM_EOPTION;
  }
  const char *name = o->ld_window           ? "--ld-window"
                     : o->ld_window_kb >= 0 ? "--ld-window-kb"
                     : o->ld_window_r2 >= 0 ? "--ld-window-r2"
                                            : "--inter-chr";
  if ((win || o->inter_chr) && o->metric != SM_METRIC_CCC) {
    sm_log_error("%s applies to genotypes (--metric r2, r or ccc), not to %s", name,
                 o->form == SM_FORM_BC        ? "bray-curtis"
                 : o->form == SM_FORM_JACCARD ? "jaccard"
                                              : "czekanowski");
    return SM_EOPTION;
  }
  if ((win || o->inter_chr) && o->num_way != 2) {
    sm_log_error("%s selects pairs of variants: 2-way runs only", name);
    return SM_EOPTION;
  }
  if (o->ld_a1 && !ld) {
    sm_log_error("--keep-allele-order applies to --metric r2 and r (ccc counts allele 1, "
                 "the .bim's A1 or a VCF's ALT, always)");
    return SM_EOPTION;
  }
  if (o->nonfounders && !ld) {
    sm_log_error("--all-samples applies to --metric r2 and r (PLINK's LD counts founders "
                 "only; ccc counts every sample)");
    return SM_EOPTION;
  }
  if ((o->ld_window_r2 >= 0 || o->inter_chr) && !ld) {
    sm_log_error("%s filters r2: give --metric r2 or r (ccc keeps its own --threshold)",
                 o->inter_chr ? "--inter-chr" : "--ld-window-r2");
    return SM_EOPTION;
  }
  if (o->ld_snp && o->ld_snp_list) {
    sm_log_error("--ld-snp and --ld-snp-list: give one of them (a list may hold one id)");
    return SM_EOPTION;
  }
  if (o->ld_snps && (o->ld_snp || o->ld_snp_list)) {
    sm_log_error(
        "--ld-snps cannot be used with --ld-snp or --ld-snp-list, as in plink1.9");
    return SM_EOPTION;
  }
  if ((o->ld_snp || o->ld_snp_list || o->ld_snps) &&
      (!ld || o->output_format != SM_OUT_LD || o->num_way != 2)) {
    sm_log_error(
        "--%s chooses lines of PLINK's .ld table of r2 or r: give --metric r2 or "
        "r (PLINK's --r2, --r) with the .ld output (--output-format ld, or no "
        "--output-format)",
        o->ld_snp    ? "ld-snp"
        : o->ld_snps ? "ld-snps"
                     : "ld-snp-list");
    return SM_EOPTION;
  }
  if (o->inter_chr && (o->ld_window || o->ld_window_kb >= 0)) {
    sm_log_error("--inter-chr computes every pair and %s keeps a window: leave one of "
                 "them out",
                 o->ld_window ? "--ld-window" : "--ld-window-kb");
    return SM_EOPTION;
  }
  o->ld_windowed = win && !o->inter_chr;
  if (!o->ld_windowed)
    return SM_OK;
  if (!o->ld_window)
    o->ld_window = 10;
  const double kb = o->ld_window_kb >= 0 ? o->ld_window_kb : 1000;
  /* as PLINK 1.9 reads it (its SMALL_EPSILON, 2^-44) */
  o->ld_window_bp =
      kb > 2147483.646 ? 2147483646u : (uint32_t)(int32_t)(kb * 1000 * (1 + 0x1p-44));
  return SM_OK;
}

static sm_err_t check_form(sm_options_t *o)
{
  sm_err_t err = check_ld_window(o);
  if (err)
    return err;
  if (o->metric == SM_METRIC_CCC && (o->form == SM_FORM_R2 || o->form == SM_FORM_R))
    return check_ld(o);
  const char *name = o->form == SM_FORM_BC ? "bray-curtis" : "jaccard";
  if (o->form != SM_FORM_PS && o->num_way != 2) {
    sm_log_error("--metric %s is a measure of pairs: --num-way 3 is czekanowski's "
                 "(3-way proportional similarity); leave --num-way 3 out, or use "
                 "--metric czekanowski",
                 name);
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CCC && (o->binary || o->zero_pairs >= 0)) {
    sm_log_error("%s applies to czekanowski, bray-curtis and jaccard (values summed "
                 "over fields), not to ccc's genotypes",
                 o->binary ? "--binary" : "--zero-pairs");
    return SM_EOPTION;
  }
  if (o->zero_pairs >= 0 && o->num_way != 2) {
    sm_log_error("--zero-pairs says what a pair of two empty vectors holds: 2-way runs "
                 "only (3-way czekanowski gives a triple of empty vectors 0)");
    return SM_EOPTION;
  }
  if (o->synth.kind == SM_SYNTH_ANALYTIC && (o->form != SM_FORM_PS || o->binary)) {
    sm_log_error("--synthetic analytic checks czekanowski's closed form on its own "
                 "values: %s; use --synthetic random",
                 o->binary ? "--binary changes them"
                           : "--metric bray-curtis and "
                             "jaccard have no such check");
    return SM_EOPTION;
  }
  if (o->zero_pairs < 0)
    o->zero_pairs = o->metric == SM_METRIC_CZEK && o->form != SM_FORM_PS;
  return SM_OK;
}

/* The CCC parameters, and a threshold below the largest value. */
static sm_err_t check_values(sm_options_t *o)
{
  if (o->metric == SM_METRIC_CCC && (o->ccc_param < 0 || o->ccc_param > 1.5)) {
    sm_log_error("--ccc-param: %g is out of range (0 <= g <= 1.5)", o->ccc_param);
    return SM_EOPTION;
  }
  if (o->metric == SM_METRIC_CCC && o->ccc_mult <= 0) {
    sm_log_error("--ccc-multiplier: %g must be > 0", o->ccc_mult);
    return SM_EOPTION;
  }
  const double max =
      o->metric == SM_METRIC_CZEK ? (o->num_way == 2 ? 1.0 : 1.5) : o->ccc_mult;
  if (o->thr_ent.n && (o->metric != SM_METRIC_CCC || o->thr_ent.n != o->num_way + 2)) {
    sm_log_error("--threshold: %d values are CoMet's thresholds per table entry of CCC "
                 "%d-way; %s %d-way takes %s",
                 o->thr_ent.n, o->thr_ent.n - 2,
                 o->metric == SM_METRIC_CCC ? "ccc" : "czekanowski", o->num_way,
                 o->metric != SM_METRIC_CCC ? "one"
                 : o->num_way == 2          ? "one or 4 (tLL,tLH,tHH,tLLHH)"
                                            : "one or 5 (tLLL,tLLH,tLHH,tHHH,tLLLHHH)");
    return SM_EOPTION;
  }
  if (o->hist_bins && isnan(o->hist_lo)) { /* the metric's whole range */
    o->hist_lo = 0;
    o->hist_hi = max;
  }
  if (o->threshold >= 0 && o->form != SM_FORM_PS) {
    if (o->threshold > 1) { /* dissimilarities: values <= T are kept */
      sm_log_error("--threshold: %g is out of range: %s keeps the values <= T (the "
                   "near pairs), and every value is at most 1: give 0 <= T <= 1, or "
                   "leave --threshold out",
                   o->threshold, o->form == SM_FORM_BC ? "bray-curtis" : "jaccard");
      return SM_EOPTION;
    }
  } else if (o->threshold >= 0) {
    if (o->threshold >= max) {
      sm_log_error("--threshold: %g is out of range: %s %d-way values are at most "
                   "%g, so nothing would be kept",
                   o->threshold, o->metric == SM_METRIC_CZEK ? "czekanowski" : "ccc",
                   o->num_way, max);
      return SM_EOPTION;
    }
  }
  return SM_OK;
}

/* The phases and stages to compute (maxima default to the last). */
static sm_err_t check_phases(sm_options_t *o)
{
  if (o->phase_max < 0)
    o->phase_max = o->num_phase - 1;
  if (o->phase_min >= o->num_phase || o->phase_max >= o->num_phase ||
      o->phase_min > o->phase_max) {
    sm_log_error("--phase-min %d / --phase-max %d: out of range for --num-phase %d "
                 "(phases are 0..%d, min <= max)",
                 o->phase_min, o->phase_max, o->num_phase, o->num_phase - 1);
    return SM_EOPTION;
  }
  if (o->stage_max < 0)
    o->stage_max = o->num_stage - 1;
  if (o->stage_min >= o->num_stage || o->stage_max >= o->num_stage ||
      o->stage_min > o->stage_max) {
    sm_log_error("--stage-min %d / --stage-max %d: out of range for --num-stage %d "
                 "(stages are 0..%d, min <= max)",
                 o->stage_min, o->stage_max, o->num_stage, o->num_stage - 1);
    return SM_EOPTION;
  }
  if (o->num_stage > 1 && o->num_way != 3) {
    sm_log_error("--num-stage applies to --num-way 3 only");
    return SM_EOPTION;
  }
  return SM_OK;
}

/* A simulation build runs the task graph on a simulated machine: no
 * kernel runs, so there are no values to write, check or count. */
static sm_err_t check_simulation(const sm_options_t *o)
{
#ifdef SM_SIMULATION
  const char *what = o->output                            ? "--output"
                     : o->method == SM_METHOD_REF         ? "--compute-method ref"
                     : o->verify || o->inject_rate > 0    ? "--verify and --inject-faults"
                     : o->topk                            ? "--top-k"
                     : o->hist_bins                       ? "--histogram"
                     : o->threshold >= 0 || o->thr_ent.n  ? "--threshold"
                     : o->keys_index                      ? "--keys index"
                     : o->resume                          ? "--resume"
                     : o->synth.kind == SM_SYNTH_ANALYTIC ? "--synthetic analytic"
                                                          : NULL;
  if (what) {
    sm_log_error("%s: this starmet is a simulation build (StarPU with SimGrid): kernels "
                 "do not run, so there are no values to write or check; it simulates the "
                 "task graph's time (--output-format none). Use a regular build for "
                 "results",
                 what);
    return SM_EOPTION;
  }
#else
  (void)o;
#endif
  return SM_OK;
}

/* Options whose result this run would not write anywhere: refused, as a
 * run that silently dropped them would look like one that honoured them.
 * (--top-k without --output is refused with the other --top-k rules.) */
static sm_err_t check_unseen(const sm_options_t *o)
{
  if (o->hist_bins && !o->output && !o->summary) {
    sm_log_error("--histogram writes PREFIX.hist.tsv, its picture and the counts in "
                 "PREFIX.json: give --output PREFIX (or --summary FILE for the counts "
                 "alone)");
    return SM_EOPTION;
  }
  if ((o->threshold >= 0 || o->thr_ent.n) && o->output_format == SM_OUT_NONE) {
    sm_log_error("--threshold keeps the values above it in the results file, and this "
                 "run writes none (%s): %s, or leave --threshold out (--top-k and "
                 "--histogram see every value, kept or not)",
                 o->output ? "--output-format none" : "no --output",
                 o->output ? "give --output-format tsv, bin, npy or comet"
                           : "give --output PREFIX");
    return SM_EOPTION;
  }
  /* text files: the results in tsv, the top-k lists in any format but bin */
  const int text = o->output_format == SM_OUT_TSV || o->output_format == SM_OUT_NPY ||
                   o->output_format == SM_OUT_LSMAT ||
                   (o->topk && o->output_format != SM_OUT_BIN);
  if (o->keys_index && !text) {
    static const char *const numbered[] = {
        [SM_OUT_BIN] = "bin", [SM_OUT_COMET] = "comet"};
    if (!o->output)
      sm_log_error("--keys index numbers the vectors in text files, and this run writes "
                   "none (no --output): give --output PREFIX, or leave --keys out");
    else if (o->output_format == SM_OUT_NONE)
      sm_log_error("--keys index numbers the vectors in text files, and --output-format "
                   "none writes none: give --output-format tsv, or leave --keys out");
    else
      sm_log_error("--keys index numbers the vectors in text files; --output-format %s "
                   "numbers them always: leave --keys out",
                   numbered[o->output_format]);
    return SM_EOPTION;
  }
  if (o->topk_by_entry && (!o->topk || o->metric != SM_METRIC_CCC)) {
    sm_log_error("--top-k-by entry %s",
                 o->metric != SM_METRIC_CCC
                     ? "applies to ccc only (czekanowski has one value per pair)"
                     : "says how the --top-k lists are kept, and this run keeps none: "
                       "give --top-k K, or leave --top-k-by out");
    return SM_EOPTION;
  }
  return SM_OK;
}

/* Output, resume, and what only the task graph has. */
static sm_err_t check_run(sm_options_t *o)
{
  if ((int)o->output_format < 0)
    o->output_format = o->output ? SM_OUT_TSV : SM_OUT_NONE;
  /* --verify's default: checksums for CCC (their cost allows it,
   * docs/resilience.md) once sm_compute.c has seen that no GPU runs the
   * products; off for Czekanowski (a third of the run), the reference
   * method (no tasks) and simulations (no kernels). --retry asks for it. */
  if (o->verify == SM_VERIFY_AUTO) {
    if (o->retry != SM_RETRY_AUTO)
      o->verify = SM_VERIFY_CHECKSUM;
    else if (o->metric != SM_METRIC_CCC || o->method == SM_METHOD_REF)
      o->verify = SM_VERIFY_OFF;
#ifdef SM_SIMULATION
    o->verify = SM_VERIFY_OFF;
#endif
  }
  if (check_simulation(o))
    return SM_EOPTION;
  if (o->resume && o->ld_default_format) {
    sm_log_error("--resume: --metric %s writes PLINK's .ld table by default, which is "
                 "written sorted at the end and cannot be resumed: give --output-format "
                 "tsv or bin to resume",
                 o->form == SM_FORM_R ? "r" : "r2");
    return SM_EOPTION;
  }
  if (o->resume &&
      (!o->output || o->output_format == SM_OUT_NONE || o->method == SM_METHOD_REF)) {
    sm_log_error("--resume needs an output (--output PREFIX, format tsv, bin or comet) "
                 "and the task graph");
    return SM_EOPTION;
  }
  if (o->topk && (o->num_way != 2 || o->method == SM_METHOD_REF || !o->output)) {
    sm_log_error("--top-k %s", o->num_way != 2 ? "is for 2-way results (pairs), not 3-way"
                               : !o->output
                                   ? "writes PREFIX.topk.tsv: give --output PREFIX"
                                   : "is computed by the task graph, not "
                                     "--compute-method ref");
    return SM_EOPTION;
  }
  if (o->resume && o->topk) {
    sm_log_error("--top-k cannot be resumed: the resume manifest does not keep the "
                 "interrupted run's neighbour lists; rerun without --resume");
    return SM_EOPTION;
  }
  if (o->resume && o->hist_bins) {
    sm_log_error("--histogram cannot be resumed: the resume manifest keeps the checksum "
                 "of the interrupted run's blocks, not their counts; rerun without "
                 "--resume");
    return SM_EOPTION;
  }
  char why[512]; /* npy's and lsmat's limits, those known before the input is read */
  const char *partial = o->threshold >= 0 || o->thr_ent.n ? "--threshold"
                        : o->phase_min > 0 || o->phase_max < o->num_phase - 1
                            ? "--phase-min/--phase-max (a part of the phases)"
                            : NULL;
  if (o->output_loci && (o->metric != SM_METRIC_CCC || o->output_format != SM_OUT_TSV)) {
    sm_log_error("--output-loci adds chromosome and position columns to the TSV results "
                 "of genotypes (--metric ccc, r2 or r, --output-format tsv)%s",
                 o->output_format == SM_OUT_LD ? ": PLINK's .ld table has them already"
                                               : "");
    return SM_EOPTION;
  }
  const sm_metric_t vm = o->metric != SM_METRIC_CCC ? o->metric
                         : o->form == SM_FORM_R2    ? SM_METRIC_R2
                         : o->form == SM_FORM_R     ? SM_METRIC_R
                                                    : SM_METRIC_CCC;
  if (sm_output_check(why, sizeof why, o->output_format, o->num_way, vm, o->single,
                      o->synth.nv, 0, o->resume, partial)) {
    sm_log_error("%s", why);
    return SM_EOPTION;
  }
  if (o->output_format != SM_OUT_NONE && !o->output) {
    sm_log_error("--output-format needs --output PREFIX");
    return SM_EOPTION;
  }
  if (check_unseen(o))
    return SM_EOPTION;
  if (o->sched && sm_sched_check("--sched", o->sched))
    return SM_EOPTION;
  if (o->retry == SM_RETRY_RUNTIME && !sm_codelets_runtime_retry_available()) {
    sm_log_error("--retry runtime: %s; use --retry check",
#ifdef SM_SIMULATION
                 "a simulation build runs no kernel to check"
#else
                 "task retry needs StarPU 1.4, and this starmet runs on StarPU 1.3"
#endif
    );
    return SM_EOPTION;
  }
  if (o->retry != SM_RETRY_AUTO && !o->verify) {
#ifdef SM_SIMULATION
    sm_log_error("--retry %s: this starmet is a simulation build, whose kernels do not "
                 "run, so no task is checked or re-run: leave --retry out",
                 retries[o->retry]);
#else
    sm_log_error("--retry %s with --no-verify: only tasks that fail their check are "
                 "re-run: leave --no-verify out",
                 retries[o->retry]);
#endif
    return SM_EOPTION;
  }
  if ((o->trace || o->calibrate || o->perfmodel_dir || o->no_priorities) &&
      o->method == SM_METHOD_REF) {
    sm_log_error("--trace, --calibrate, --perfmodel-dir and --no-priorities apply to the "
                 "task graph, not --compute-method ref");
    return SM_EOPTION;
  }
  if (o->trace_paje) {
    char no_fxt[600];
    if (o->method == SM_METHOD_REF) {
      sm_log_error("--trace-paje applies to the task graph, not --compute-method ref");
      return SM_EOPTION;
    }
    if (!sm_paje_available(no_fxt, sizeof no_fxt)) {
      sm_log_error("--trace-paje %s: %s", o->trace_paje, no_fxt);
      return SM_EOPTION;
    }
    if (sm_commit_check_dir("--trace-paje", o->trace_paje) ||
        sm_paje_check(o->trace_paje))
      return SM_EOPTION;
  }
  /* the directories the run writes in, before it computes anything */
  if ((o->output && sm_commit_check_dir("--output", o->output)) ||
      (o->summary && sm_commit_check_dir("--summary", o->summary)) ||
      (o->trace && sm_commit_check_dir("--trace", o->trace)))
    return SM_EOPTION;
  return SM_OK;
}

sm_err_t sm_options_parse_compute(int argc, char **argv, sm_options_t *o, int *done)
{
  args_t a = {.n_inputs = 0, .plink_opt = -1};
  defaults(&a.o);
  sm_err_t err = sm_opt_parse(&compute_cmd, argc, argv, &a, done);
  if (!err && !*done && a.o.sched && !strcmp(a.o.sched, "help")) {
    for (int k = 0; sm_sched_policies[k]; k++) /* --sched help: the policies */
      printf("%s\n", sm_sched_policies[k]);
    *done = 1;
  }
  if (!err && !*done) {
    err = check_input(&a);
    err = err ? err : check_metric(&a.o);
    err = err ? err : check_form(&a.o);
    err = err ? err : check_values(&a.o);
    err = err ? err : check_phases(&a.o);
    err = err ? err : check_run(&a.o);
  }
  *o = a.o;
  return err;
}

char *sm_options_canonical_compute(int argc, char **argv, const sm_options_t *o)
{
  args_t a = {.o = *o, .plink_opt = -1};
  return sm_opt_canonical(&compute_cmd, argc, argv, &a);
}

sm_err_t sm_options_parse_synth(int argc, char **argv, sm_options_t *o, int *done)
{
  args_t a = {.n_inputs = 0, .plink_opt = -1};
  defaults(&a.o);
  a.o.synth.kind = SM_SYNTH_RANDOM;
  a.o.input_format = SM_INPUT_TSV;
  sm_err_t err = sm_opt_parse(&synth_cmd, argc, argv, &a, done);
  *o = a.o;
  if (err || *done)
    return err;
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
  if (sm_commit_check_dir("--output", o->output))
    return SM_EOPTION;
  synth_problem(o);
  return SM_OK;
}
