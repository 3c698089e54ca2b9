/* sm_compute.c: `starmet compute` from options to output, on one rank or
 * many, as steps over one struct run: plan (sizes, checks, rank grid) ->
 * load this rank's slice -> open the results (resume state, writer) -> run
 * the task graph or the reference loops -> gather and report -> commit. */
#include "config.h"
#include "sm_compute.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_commit.h"
#include "sm_crc32c.h"
#include "sm_csr_pack.h"
#include "sm_graph.h"
#include "sm_hist.h"
#include "sm_job.h"
#include "sm_ldtab.h"
#include "sm_memory.h"
#include "sm_topk.h"
#include "sm_mpi.h"
#include "sm_ref.h"
#include "sm_observe.h"
#include "sm_preflight.h"
#include "sm_runtime.h"
#include "sm_stream.h"
#include "sm_sched.h"
#include "sm_summary.h"
#include "sm_timer.h"
#include "sm_paje.h"
#include "sm_trace.h"
#include "sm_write_input.h"

#include <starpu.h>

/* Czekanowski 2-way, auto: the sparse method below this fraction of
 * non-zero entries: where it was still the faster on 2 cores (AVX-512
 * dense kernels), 2,000 vectors of 20,000 fields, tiles of 334
 * (bench/czek-sparse): numerators in 2.0 s against 3.8 s dense at 15%
 * (single: 0.67 against 1.43 s), 3.0-3.3 s against 2.5 s at 20%; 0.027
 * against 3.6 s at 0.5%. */
#define SM_CZEK_SPARSE_DENSITY 0.15

static sm_read_opts_t read_opts(const sm_options_t *o)
{
  sm_read_opts_t ro = {
      .metric = o->metric,
      .elem_size = o->single ? 4 : 8,
      .transpose = o->transpose,
      .compare = o->compare,
      .header = o->text_header,
      .row_names = o->text_row_names,
      .num_vector = o->num_vector,
      .num_field = o->num_field,
      .raw_elem_size = o->raw_elem_size,
      .founders_only = o->metric == SM_METRIC_CCC &&
                       (o->form == SM_FORM_R2 || o->form == SM_FORM_R) && !o->nonfounders,
      .ld_haploid =
          o->metric == SM_METRIC_CCC && (o->form == SM_FORM_R2 || o->form == SM_FORM_R),
      .ld_a1 = o->ld_a1,
      .freq_all = o->qc_nonfounders,
      .half_call = o->vcf_half_call,
      .var_id_tmpl = o->var_id_tmpl,
      .raw_ids = o->output_format == SM_OUT_LD,
  };
  return ro;
}

/* Load vectors [v0, v0+vc) x fields [f0, f0+fc) of the input. */
static sm_err_t load(const sm_options_t *o, const uint32_t *vsel, size_t nvsel,
                     const uint32_t *ssel, size_t nssel, size_t v0, size_t vc, size_t f0,
                     size_t fc, int czek_sparse, sm_vectors_t *v, sm_dims_t *dims)
{
  if (o->synth.kind != SM_SYNTH_NONE) {
    if (dims) {
      dims->nv = o->synth.nv;
      dims->nf = o->synth.nf;
    }
    return sm_synth_make(&o->synth, o->single ? 4 : 8, v0, vc, f0, fc, v);
  }
  sm_read_opts_t ro = read_opts(o);
  ro.vsel = vsel; /* --chr, --extract, --exclude: the variants chosen */
  ro.nvsel = nvsel;
  ro.ssel = ssel; /* --keep, --remove: the samples chosen */
  ro.nssel = nssel;
  ro.v0 = v0;
  ro.vcount = vc;
  ro.f0 = f0;
  ro.fcount = fc;
  ro.czek_sparse = czek_sparse;
  ro.probe = dims != NULL; /* problem_dims' */
  return sm_read_input(o->input, o->input_format, &ro, v, dims);
}

static void describe(const sm_options_t *o, char *desc, size_t len)
{
  if (o->synth.kind != SM_SYNTH_NONE)
    snprintf(desc, len, "synthetic %s (seed %llu%s)",
             o->synth.kind == SM_SYNTH_ANALYTIC ? "analytic" : "random",
             (unsigned long long)o->synth.seed,
             o->synth.missing_rate > 0 ? ", missing calls" : "");
  else
    snprintf(desc, len, "%s", o->input);
}

/* Sizes of the whole problem: rank 0 looks (a one-vector read), every rank
 * gets the answer. */
static sm_err_t problem_dims(const sm_options_t *o, const uint32_t *vsel, size_t nvsel,
                             const uint32_t *ssel, size_t nssel, sm_dims_t *dims)
{
  struct {
    int err;
    sm_dims_t dims;
  } msg = {0};
  if (sm_mpi_rank() == 0) {
    sm_vectors_t probe = {0};
    msg.err = load(o, vsel, nvsel, ssel, nssel, 0, 1, 0, 1, 0, &probe, &msg.dims);
    sm_vectors_free(&probe);
  }
  sm_mpi_bcast(&msg, sizeof msg);
  *dims = msg.dims;
  return (sm_err_t)msg.err;
}

/* What --resume must find unchanged of the file path: its size, its
 * modification time to the nanosecond, its inode and the CRC-32C of its
 * bytes (" path:-1" when it cannot be read). */
static int file_stamp(const char *path, char *buf, size_t len)
{
  if (sm_input_is_stream(path)) /* read once, already: never opened again */
    return snprintf(buf, len, " %s:stream", path);
  struct stat sb;
  uint32_t crc = 0;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &sb) != 0 ||
      sm_crc32c_fd(fd, 0, (uint64_t)sb.st_size, &crc) != SM_OK) {
    if (fd >= 0)
      close(fd);
    return snprintf(buf, len, " %s:-1", path);
  }
  close(fd);
  return snprintf(buf, len, " %s:%lld:%lld.%09ld:%llu:%08x", path, (long long)sb.st_size,
                  (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec,
                  (unsigned long long)sb.st_ino, (unsigned)crc);
}

int sm_compute_input_files(const sm_options_t *o, char paths[3][4200])
{
  if (o->synth.kind != SM_SYNTH_NONE || !o->input)
    return 0;
  size_t n = strlen(o->input);
  const char *tail = n > 4 ? o->input + n - 4 : "";
  int plink = o->input_format == SM_INPUT_PLINK;
  size_t keep = n;
  if (!strcmp(tail, ".bed") || !strcmp(tail, ".bim") || !strcmp(tail, ".fam")) {
    plink = 1;
    keep = n - 4;
  }
  if (!plink) {
    snprintf(paths[0], sizeof paths[0], "%s", o->input);
    return 1;
  }
  static const char *const ext[] = {".bed", ".bim", ".fam"};
  for (int e = 0; e < 3; e++)
    snprintf(paths[e], sizeof paths[e], "%.*s%s", (int)(keep < 4000 ? keep : 4000),
             o->input, ext[e]);
  return 3;
}

/* The input files as they are now (the .bim and .fam of a PLINK fileset
 * hold the names written to the output). */
static void input_stamp(const sm_options_t *o, char *buf, size_t len)
{
  char paths[3][4200];
  int nf = sm_compute_input_files(o, paths);
  size_t k = (size_t)snprintf(buf, len, "input=%s", o->input);
  for (int e = 0; e < nf && k < len; e++)
    k += (size_t)file_stamp(paths[e], buf + k, len - k);
  /* PLINK's --extract, --exclude, --keep...: the lists as they are now */
  const char *const list[6] = {o->extract, o->exclude,  o->keep,
                               o->remove,  o->keep_fam, o->remove_fam};
  const char *const word[6] = {"extract", "exclude",  "keep",
                               "remove",  "keep-fam", "remove-fam"};
  for (int e = 0; e < 6; e++)
    if (list[e] && k < len) {
      k += (size_t)snprintf(buf + k, len - k, " %s", word[e]);
      if (k < len)
        k += (size_t)file_stamp(list[e], buf + k, len - k);
    }
}

/* What must not change between a run and its --resume (the tile size is
 * recorded apart: an automatic one is taken over from the manifest). */
static void fingerprint(const sm_options_t *o, const sm_decomp_t *d, int sparse,
                        int czek_sparse, int rank, int P, char *buf, size_t len)
{
  char input[13000], compare[512] = "";
  size_t c = 0;
  if (o->compare) /* BIOM: which axis (said only when asked, as before it was) */
    c += (size_t)snprintf(compare, sizeof compare, " compare=%d", o->compare);
  if (o->chr && c < sizeof compare) /* --chr: the variants chosen */
    c += (size_t)snprintf(compare + c, sizeof compare - c, " chr=%.120s", o->chr);
  /* the values' form, --binary, the empty pairs' value: said when they are
   * not czekanowski's as it always was */
  if (o->metric == SM_METRIC_CZEK &&
      (o->form != SM_FORM_PS || o->binary || o->zero_pairs))
    c += (size_t)snprintf(compare + c, sizeof compare - c,
                          " form=%d binary=%d zero_pairs=%d", o->form, o->binary,
                          o->zero_pairs);
  if (o->output_loci && c < sizeof compare) /* the TSV's columns */
    c += (size_t)snprintf(compare + c, sizeof compare - c, " loci=1");
  /* PLINK's LD (r2, r) and its windows: said when asked */
  if (o->metric == SM_METRIC_CCC && (o->form != SM_FORM_PS || o->ld_windowed))
    c += (size_t)snprintf(
        compare + c, sizeof compare - c,
        " form=%d ld_window=%zu ld_window_bp=%u ld_min=%.17g all=%d a1=%d", o->form,
        o->ld_windowed ? o->ld_window : 0, o->ld_windowed ? o->ld_window_bp : 0,
        o->ld_min, o->nonfounders, o->ld_a1);
  /* PLINK's --mind: the samples left (its lists' files are in the input's
   * stamp) */
  if (o->mind >= 0 && c < sizeof compare)
    c += (size_t)snprintf(compare + c, sizeof compare - c, " mind=%.17g", o->mind);
  /* the sparse method sums in another order: said when it runs */
  if (czek_sparse && c < sizeof compare)
    snprintf(compare + c, sizeof compare - c, " czek_method=sparse");
  if (o->synth.kind != SM_SYNTH_NONE) {
    snprintf(input, sizeof input, "synthetic=%d seed=%llu missing=%.17g",
             (int)o->synth.kind, (unsigned long long)o->synth.seed,
             o->synth.missing_rate);
  } else {
    input_stamp(o, input, sizeof input);
  }
  snprintf(
      buf, len,
      "metric=%d way=%d single=%d sparse=%d nv=%zu nf=%zu %s grid=%dx%dx%d rank=%d/%d "
      "phases=%d:%d-%d stages=%d:%d-%d threshold=%.17g format=%d g=%.17g m=%.17g "
      "kernel=%d thresholds=%d:%.17g,%.17g,%.17g,%.17g,%.17g read=%d:%d:%d:%d:%zu "
      "keys=%d%s",
      (int)o->metric, o->num_way, o->single, sparse, d->nv, d->nf, input, d->npv, d->npf,
      d->npr, rank, P, d->num_phase, o->phase_min, o->phase_max, o->num_stage,
      o->stage_min, o->stage_max, o->threshold, (int)o->output_format, o->ccc_param,
      o->ccc_mult, (int)o->kernel, o->thr_ent.n, o->thr_ent.t[0], o->thr_ent.t[1],
      o->thr_ent.t[2], o->thr_ent.t[3], o->thr_ent.t[4], (int)o->input_format,
      o->transpose, o->text_header, o->text_row_names, o->raw_elem_size, o->keys_index,
      compare);
}

static sm_err_t make_decomp(const sm_options_t *o, const sm_dims_t *dims, sm_decomp_t *d)
{
  const int P = sm_mpi_size();
  d->nv = dims->nv;
  d->nf = dims->nf;
  d->npf = o->npf ? o->npf : 1;
  d->npr = o->npr ? o->npr : 1;
  d->npv = o->npv ? o->npv : (P % (d->npf * d->npr) == 0 ? P / (d->npf * d->npr) : 0);
  d->num_phase = o->num_phase;
  d->block_size = o->block_size ? o->block_size : 1;
  if (d->npv == 0) {
    if (sm_mpi_rank() == 0)
      sm_log_error("%d ranks cannot be split into --num-proc-field %d x --num-proc-repl "
                   "%d; choose factors of the rank count",
                   P, d->npf, d->npr);
    return SM_EOPTION;
  }
  sm_err_t err = SM_OK;
  if (sm_mpi_rank() == 0)
    err = sm_decomp_check(d, P);
  return (sm_err_t)sm_mpi_agree(err);
}

/* One run of `starmet compute`, handed from step to step. */
typedef struct run {
  const sm_options_t *o;
  const char *command;
  int me, P;
  double t0;
  char desc[4096];                          /* the input, for messages and the summary */
  const char *text_header, *text_row_names; /* text input's layout, or NULL */
  const char *compare;                      /* BIOM: "samples", "observations" */
  sm_decomp_t d;                            /* the rank grid and tiles */
  int pv, pf, pr;                           /* this rank's place in it */
  size_t v0, vc, f0, fc;                    /* this rank's vectors and fields */
  sm_vectors_t v;
  uint64_t nmissing; /* missing calls over every slice */
  int sparse;
  int ccc_i8;      /* CCC 2-way on cached int8 tiles (--ccc-gemm) */
  int czek_sparse; /* Czekanowski 2-way on packed sparse tiles (--czek-method) */
  double density;  /* Czekanowski: the fraction of non-zero entries */
  int read_sparse; /* ... read into sparse rows where the reader can (BIOM) */
  char **names;    /* every vector's name (text output), or NULL */
  char out_path[4096], json_path[4096];
  sm_job_t job;          /* the lock, the output, its manifest, the commit */
  int use_man;           /* the output keeps a --resume record */
  uint64_t mem_estimate; /* bytes, before anything was allocated */
  sm_sink_t sink;
  sm_summary_t sum;
  sm_graph_stats_t gs;
  sm_runtime_stats_t rs, *rts;
  sm_rank_stats_t *all; /* every rank's stats (rank 0) */
  sm_hist_spec_t hist;  /* --histogram */
  uint64_t *hist_counts;
  char hist_path[4200], hist_png[4200];
  sm_topk_spec_t topk;     /* --top-k */
  sm_topk_ent_t *topk_acc; /* its lists (rank 0) */
  char topk_path[4200];
  sm_loci_t loci; /* genotype inputs' chromosomes and positions (windows, .ld) */
  uint32_t *vsel; /* --chr, --extract, --exclude: the file's variants read */
  size_t nvsel;
  uint32_t *ssel; /* --keep, --remove: the .fam's samples read (NULL: all) */
  size_t nssel;
  uint32_t *ld_at;         /* --ld-snp: each variant's place before (ld_snp_windows) */
  unsigned char *ld_index; /* --ld-snp: sm_ldtab_index's flags */
  unsigned char *ld_rev;   /* r with --nonfounders: sm_fin2_args_t's */
  double *ld_freq;         /* --r2 with-freqs: PLINK's MAF columns */
  size_t ld_width;         /* --ld-snp: the .ld's SNP columns' width */
  int loci_read;           /* loci holds the chosen variants' (select_variants) */
  uint32_t *ld_win;        /* PLINK's LD windows: per vector the last one in its window */
} run_t;

/* Whether variants i < j of l are in one PLINK window: one chromosome, at
 * most ld_window - 1 variants apart (counted at at[], the places among the
 * variants chosen before --ld-snp's narrowing, or NULL: i, j) and
 * ld_window_bp bp apart. */
static int one_window(const sm_options_t *o, const sm_loci_t *l, const uint32_t *at,
                      size_t i, size_t j)
{
  return l->chrom[j] == l->chrom[i] && (at ? at[j] - at[i] : j - i) < o->ld_window &&
         (uint64_t)l->pos[j] <= (uint64_t)l->pos[i] + o->ld_window_bp;
}

/* PLINK's LD windows (plink_common.c's window_forward): the pairs (i, j),
 * i < j on one chromosome, with j - i < ld_window and pos_j - pos_i <=
 * ld_window_bp. Needs every variant's chromosome and position (every rank
 * reads them) in PLINK's order: a chromosome's variants together, their
 * positions not decreasing. */
static sm_err_t ld_windows(run_t *r)
{
  const sm_options_t *o = r->o;
  if (!o->ld_windowed && o->output_format != SM_OUT_LD && !o->output_loci)
    return SM_OK;
  sm_err_t err = SM_OK;
  if (!o->input) {
    if (r->me == 0)
      sm_log_error("%s needs the variants' chromosomes and positions: give a PLINK set "
                   "or a VCF (not --synthetic)",
                   o->ld_windowed                  ? "--ld-window"
                   : o->output_format == SM_OUT_LD ? "--output-format ld"
                                                   : "--output-loci");
    err = SM_EOPTION;
  }
  if (!err && !r->loci_read) /* (else select_variants read them) */
    err = sm_read_loci(o->input, o->input_format, &r->loci);
  const sm_loci_t *l = &r->loci;
  const size_t n = r->d.nv;
  if (!err && l->n != n) {
    sm_log_error("%s: %zu variants have positions, and %zu were read", o->input, l->n, n);
    err = SM_EFORMAT;
  }
  for (size_t i = 1; !err && o->ld_windowed && i < n; i++) {
    const int same = l->chrom[i] == l->chrom[i - 1];
    if ((same && l->pos[i] < l->pos[i - 1]) || (!same && l->chrom[i] < l->chrom[i - 1])) {
      sm_log_error("%s: variant %zu (chromosome %s, position %u) comes after chromosome "
                   "%s, position %u: LD windows need a chromosome's variants together "
                   "and sorted by position, as PLINK writes them (plink1.9 --bfile IN "
                   "--keep-allele-order --make-bed --out SORTED sorts them)",
                   o->input, i + 1, l->chrom_names[l->chrom[i]], l->pos[i],
                   l->chrom_names[l->chrom[i - 1]], l->pos[i - 1]);
      err = SM_EFORMAT;
    }
  }
  if (!err && o->ld_windowed && !(r->ld_win = malloc((n ? n : 1) * sizeof *r->ld_win)))
    err = SM_ENOMEM;
  /* the last variant of the window of i never decreases with i */
  for (size_t i = 0, e = 0; !err && o->ld_windowed && i < n; i++) {
    if (e < i)
      e = i;
    while (e + 1 < n && one_window(o, l, r->ld_at, i, e + 1))
      e++;
    r->ld_win[i] = (uint32_t)e;
  }
  /* --ld-snp with inter-chr: one window of every pair, so that only the
   * index variants' pairs are computed (the band's strips) */
  if (!err && !o->ld_windowed && r->ld_index) {
    if (!(r->ld_win = malloc((n ? n : 1) * sizeof *r->ld_win)))
      err = SM_ENOMEM;
    for (size_t i = 0; !err && i < n; i++)
      r->ld_win[i] = (uint32_t)(n - 1);
  }
  return (sm_err_t)sm_mpi_agree(err);
}

/* PLINK's --ld-snp in a window: only the variants in the windows of the
 * index variants are read (their windows hold every pair of the table);
 * l (the loci of the variants chosen before) and r->vsel narrowed to
 * them, r->ld_at keeping each one's place among those chosen before, which
 * the windows count (ld_windows), r->ld_index their flags. */
static sm_err_t ld_snp_windows(run_t *r, sm_loci_t *l, const unsigned char *is_index)
{
  const sm_options_t *o = r->o;
  const size_t n = l->n;
  uint32_t *keep = malloc((n ? n : 1) * sizeof *keep);
  unsigned char *flag = calloc(n ? n : 1, 1);
  if (!keep || !flag) {
    free(keep), free(flag);
    sm_log_error("out of memory for --ld-snp's windows");
    return SM_ENOMEM;
  }
  size_t nk = 0;
  for (size_t s = 0, hi = 0; s < n; s++) { /* each index variant's window */
    if (!is_index[s])
      continue;
    size_t lo = s, e = s; /* the window on either side */
    while (lo > 0 && one_window(o, l, NULL, lo - 1, s))
      lo--;
    while (e + 1 < n && one_window(o, l, NULL, s, e + 1))
      e++;
    for (size_t k = lo > hi ? lo : hi; k <= e; k++) /* (hi: past the last kept) */
      keep[nk++] = (uint32_t)k;
    hi = e + 1 > hi ? e + 1 : hi;
  }
  for (size_t k = 0; k < nk; k++)
    flag[k] = is_index[keep[k]] ? SM_LDTAB_INDEX : 0;
  if (!r->ld_width) /* PLINK's: of every variant chosen (before --geno, --maf) */
    r->ld_width = sm_ldtab_width(l->ids, l->n);
  sm_loci_keep(l, keep, nk);
  for (size_t k = 0; k < nk; k++) /* the file's indices of the kept */
    r->vsel[k] = r->vsel[keep[k]];
  r->nvsel = nk;
  r->ld_at = keep;
  r->ld_index = flag;
  if (r->me == 0)
    sm_log_info("--%s: %zu variant%s in the windows of its variants read",
                o->ld_snp    ? "ld-snp"
                : o->ld_snps ? "ld-snps"
                             : "ld-snp-list",
                nk, nk == 1 ? "" : "s");
  return SM_OK;
}

/* PLINK's variant filters (--chr, --extract, --exclude) and --ld-snp: the
 * variants the readers read (every rank reads the loci, as ld_windows does,
 * and keeps the chosen ones' for the windows and the .ld). */
/* The chosen variants (r->vsel) read whole: every sample, the calls as
 * the file holds them (none of PLINK's LD coding), and each sample's
 * SM_SAMPLE_ status (*st; a VCF's: founders of unknown sex). */
static sm_err_t read_whole(const run_t *r, sm_vectors_t *v, unsigned char **st)
{
  const sm_options_t *o = r->o;
  sm_read_opts_t ro = read_opts(o);
  ro.vsel = r->vsel, ro.nvsel = r->nvsel;
  ro.ssel = r->ssel, ro.nssel = r->nssel;
  ro.founders_only = ro.ld_haploid = ro.ld_a1 = 0;
  size_t ns = 0;
  *st = NULL;
  const sm_input_format_t fmt =
      o->input_format == SM_INPUT_AUTO ? sm_read_guess_format(o->input) : o->input_format;
  sm_err_t err = sm_read_input(o->input, o->input_format, &ro, v, NULL);
  if (!err && fmt == SM_INPUT_PLINK)
    err = sm_read_plink_samples(o->input, r->ssel, r->nssel, st, &ns);
  else if (!err) {
    ns = v->nf;
    err = (*st = calloc(ns ? ns : 1, 1)) ? SM_OK : SM_ENOMEM;
  }
  if (!err && ns != v->nf) {
    sm_log_error("%s: %zu samples in the .fam, %zu read: it changed while it was read",
                 o->input, ns, v->nf);
    err = SM_EFORMAT;
  }
  if (err) {
    free(*st), *st = NULL;
    sm_vectors_free(v);
  }
  return err;
}

/* PLINK's --geno, --maf, --max-maf: the chosen variants (r->vsel, l) read
 * whole, and those whose call rate or minor allele frequency fails
 * dropped from both, as plink1.9 decides (sm_read_qc). Every rank reads
 * and decides alike. */
static sm_err_t qc_variants(run_t *r, sm_loci_t *l)
{
  const sm_options_t *o = r->o;
  const sm_qc_t q = {.geno = o->geno,
                     .maf = o->maf,
                     .max_maf = o->max_maf,
                     .mac = o->mac,
                     .max_mac = o->max_mac,
                     .hwe = o->hwe,
                     .hwe_midp = o->hwe_midp,
                     .hwe_all = o->hwe_all,
                     .allow_no_sex = o->allow_no_sex};
  sm_vectors_t v = {0};
  unsigned char *st = NULL;
  size_t nkeep = 0;
  uint32_t *keep = NULL;
  sm_err_t err = read_whole(r, &v, &st);
  if (!err)
    err =
        sm_read_qc(o->input, &v, l, st, o->qc_nonfounders, &q, r->me == 0, &keep, &nkeep);
  uint32_t *sel = err ? NULL : malloc(nkeep * sizeof *sel);
  if (!err && !sel)
    err = SM_ENOMEM;
  if (!err) {
    for (size_t k = 0; k < nkeep; k++)
      sel[k] = r->vsel[keep[k]];
    free(r->vsel);
    r->vsel = sel, r->nvsel = nkeep;
    sm_loci_keep(l, keep, nkeep);
  }
  free(keep), free(st);
  sm_vectors_free(&v);
  return err;
}

/* PLINK's --bp-space: of the chosen variants (r->vsel, l), those
 * sm_read_bp_space keeps, every rank alike. */
static sm_err_t bp_space_variants(run_t *r, sm_loci_t *l)
{
  uint32_t *keep = NULL;
  size_t nkeep = 0;
  sm_err_t err = sm_read_bp_space(r->o->input, l, (uint32_t)r->o->bp_space, r->me == 0,
                                  &keep, &nkeep);
  uint32_t *sel = err ? NULL : malloc((nkeep ? nkeep : 1) * sizeof *sel);
  if (!err && !sel)
    err = SM_ENOMEM;
  if (!err) { /* keep indexes l, whose variants are r->vsel's */
    for (size_t k = 0; k < nkeep; k++)
      sel[k] = r->vsel[keep[k]];
    free(r->vsel);
    r->vsel = sel, r->nvsel = nkeep;
    sm_loci_keep(l, keep, nkeep);
  }
  free(keep);
  return err;
}

/* PLINK's --mind: the samples (r->ssel) whose missing calls over the
 * chosen variants (r->vsel, l) plink1.9 accepts (sm_read_mind), every
 * rank alike. */
static sm_err_t mind_samples(run_t *r, const sm_loci_t *l)
{
  sm_vectors_t v = {0};
  unsigned char *st = NULL;
  uint32_t *keep = NULL;
  size_t nkeep = 0;
  sm_err_t err = read_whole(r, &v, &st);
  if (!err)
    err = sm_read_mind(r->o->input, &v, l, st, r->o->mind, r->me == 0, &keep, &nkeep);
  if (!err && (r->ssel || nkeep < v.nf)) { /* the file's indices of those kept */
    for (size_t k = 0; r->ssel && k < nkeep; k++)
      keep[k] = r->ssel[keep[k]];
    free(r->ssel);
    r->ssel = keep, r->nssel = nkeep;
    keep = NULL;
  }
  free(keep), free(st);
  sm_vectors_free(&v);
  return err;
}

/* PLINK's allele choice where the finalize's vector sums cannot make it
 * (r with --nonfounders: every sample's calls decide, the sums hold the
 * founders'; r->ld_rev) and its allele frequencies (--r2 with-freqs;
 * r->ld_freq), from a whole read of the chosen variants. */
static sm_err_t ld_alleles(run_t *r)
{
  const sm_options_t *o = r->o;
  const int ld = o->input && o->metric == SM_METRIC_CCC &&
                 (o->form == SM_FORM_R || o->form == SM_FORM_R2);
  const int rev = ld && o->form == SM_FORM_R && o->qc_nonfounders && !o->ld_a1;
  if (!rev && !(ld && o->ld_freqs))
    return SM_OK;
  sm_loci_t own = {0};
  const sm_loci_t *l = r->loci_read ? &r->loci : &own;
  sm_vectors_t v = {0};
  unsigned char *st = NULL;
  sm_err_t err = r->loci_read ? SM_OK : sm_read_loci(o->input, o->input_format, &own);
  if (!err)
    err = read_whole(r, &v, &st);
  if (!err && l->n != v.nv) {
    sm_log_error("%s: %zu variants have positions, and %zu were read", o->input, l->n,
                 v.nv);
    err = SM_EFORMAT;
  }
  if (!err && rev && !(r->ld_rev = malloc(v.nv ? v.nv : 1)))
    err = SM_ENOMEM;
  if (!err && o->ld_freqs && !(r->ld_freq = malloc((v.nv ? v.nv : 1) * sizeof(double))))
    err = SM_ENOMEM;
  if (!err)
    err =
        sm_read_ld_alleles(&v, l, st, o->qc_nonfounders, o->ld_a1, r->ld_rev, r->ld_freq);
  free(st);
  sm_vectors_free(&v);
  sm_loci_free(&own);
  return (sm_err_t)sm_mpi_agree(err);
}

/* PLINK's --filter-males/-females, --filter-founders/-nonfounders,
 * --filter-controls/-cases, after its sample lists: of the samples chosen
 * (r->ssel, or every one), those of that sex, parents and phenotype (a
 * sample of unknown sex has none without --allow-no-sex, as plink1.9
 * reads it). */
static sm_err_t status_samples(run_t *r)
{
  const sm_options_t *o = r->o;
  unsigned char *st = NULL;
  size_t n = 0, k = 0;
  sm_err_t err = sm_read_plink_samples(o->input, r->ssel, r->nssel, &st, &n);
  uint32_t *keep = err ? NULL : malloc((n ? n : 1) * sizeof *keep);
  if (!err && !keep)
    err = SM_ENOMEM;
  for (size_t q = 0; !err && q < n; q++) {
    const int male = st[q] & SM_SAMPLE_MALE, female = st[q] & SM_SAMPLE_FEMALE;
    const int nonf = st[q] & SM_SAMPLE_NONFOUNDER;
    const int pheno = o->allow_no_sex || male || female;
    if ((o->filter_sex == 1 && !male) || (o->filter_sex == 2 && !female) ||
        (o->filter_founder == 1 && nonf) || (o->filter_founder == 2 && !nonf) ||
        (o->filter_pheno == 1 && !(pheno && (st[q] & SM_SAMPLE_CONTROL))) ||
        (o->filter_pheno == 2 && !(pheno && (st[q] & SM_SAMPLE_CASE))))
      continue;
    keep[k++] = r->ssel ? r->ssel[q] : (uint32_t)q;
  }
  free(st);
  if (!err && !k) {
    if (r->me == 0)
      sm_log_error("%s: no sample left by --filter-%s", o->input,
                   o->filter_sex ? (o->filter_sex == 1 ? "males" : "females")
                   : o->filter_founder
                       ? (o->filter_founder == 1 ? "founders" : "nonfounders")
                       : (o->filter_pheno == 1 ? "controls" : "cases"));
    err = SM_EDEGEN;
  }
  if (err) {
    free(keep);
    return err;
  }
  if (r->me == 0)
    sm_log_info("--filter-*: %zu of %zu samples remaining", k, n);
  free(r->ssel);
  r->ssel = keep, r->nssel = k;
  return SM_OK;
}

/* PLINK's sample filters (--keep, --remove, --keep-fam, --remove-fam):
 * the samples the readers read, every rank alike (the fields). */
static sm_err_t select_samples(run_t *r)
{
  const sm_options_t *o = r->o;
  sm_err_t err = SM_OK;
  if (o->keep || o->remove || o->keep_fam || o->remove_fam) {
    const sm_sfilter_t f = {.keep = o->keep,
                            .remove = o->remove,
                            .keep_fam = o->keep_fam,
                            .remove_fam = o->remove_fam};
    err = sm_read_plink_keep(o->input, &f, r->me == 0, &r->ssel, &r->nssel);
  }
  if (!err && (o->filter_sex || o->filter_founder || o->filter_pheno))
    err = status_samples(r);
  return (sm_err_t)sm_mpi_agree(err);
}

static sm_err_t select_variants(run_t *r)
{
  const sm_options_t *o = r->o;
  const int ld_snp = o->ld_snp || o->ld_snp_list || o->ld_snps;
  const int qc = o->geno >= 0 || o->maf >= 0 || o->max_maf >= 0 || o->mac >= 0 ||
                 o->max_mac >= 0 || o->hwe > 0,
            mind = o->mind >= 0;
  const int by_id = o->from || o->to || o->snp || o->exclude_snp || o->snps ||
                    o->exclude_snps || o->snps_only;
  const int by_pos = by_id || o->not_chr || o->from_bp >= 0 || o->to_bp >= 0;
  if (!o->chr && !o->extract && !o->exclude && !ld_snp && !qc && !mind && !by_pos &&
      !o->bp_space)
    return SM_OK;
  sm_loci_t l = {0};
  unsigned char *is_index = NULL;
  const sm_read_opts_t ro = read_opts(o);
  sm_err_t err = o->extract || o->exclude || ld_snp || qc || mind || by_id || o->bp_space
                     ? sm_read_loci_ids(o->input, o->input_format, &ro, &l)
                     : sm_read_loci(o->input, o->input_format, &l);
  const sm_vfilter_t f = {.chr = o->chr,
                          .not_chr = o->not_chr,
                          .extract = o->extract,
                          .exclude = o->exclude,
                          .from = o->from,
                          .to = o->to,
                          .snp = o->snp,
                          .exclude_snp = o->exclude_snp,
                          .snps = o->snps,
                          .exclude_snps = o->exclude_snps,
                          .snps_only = o->snps_only,
                          .from_bp = o->from_bp,
                          .to_bp = o->to_bp,
                          .window_bp = o->window_bp};
  if (!err)
    err = sm_read_select(o->input, &l, &f, r->me == 0, &r->vsel, &r->nvsel);
  if (!err)
    sm_loci_keep(&l, r->vsel, r->nvsel);
  if (!err && mind) /* plink1.9's order: --mind, then --geno and --maf */
    err = mind_samples(r, &l);
  if (!err && (qc || o->bp_space)) /* PLINK's .ld is as wide as the ids before these */
    r->ld_width = sm_ldtab_width(l.ids, l.n);
  if (!err && qc)
    err = qc_variants(r, &l);
  if (!err && o->bp_space) /* plink1.9's: after its QC filters */
    err = bp_space_variants(r, &l);
  if (!err && ld_snp)
    err = sm_read_ld_snps(o->input, &l, o->ld_snp, o->ld_snp_list, o->ld_snps, r->me == 0,
                          &is_index);
  if (!err && ld_snp && o->ld_windowed)
    err = ld_snp_windows(r, &l, is_index);
  else if (!err && ld_snp) { /* inter-chr: every variant, the index ones marked */
    if (!(r->ld_index = calloc(l.n ? l.n : 1, 1)))
      err = SM_ENOMEM;
    for (size_t k = 0; !err && k < l.n; k++)
      r->ld_index[k] = is_index[k] ? SM_LDTAB_INDEX : 0;
  }
  free(is_index);
  if (!err) {
    r->loci = l;
    r->loci_read = 1;
  } else
    sm_loci_free(&l);
  return (sm_err_t)sm_mpi_agree(err);
}

/* Plan the problem: its sizes, the checks on them, the decomposition. */
/* An input that is a stream (a pipe, a FIFO, /dev/stdin) is read once,
 * into memory within what the machine leaves: it cannot be fingerprinted
 * for --resume, nor shared by several ranks. */
static sm_err_t streams_read_once(const run_t *r)
{
  const sm_options_t *o = r->o;
  uint64_t room, as;
  char room_what[4900], as_what[128];
  sm_mem_room(&room, room_what, sizeof room_what, &as, as_what, sizeof as_what);
  sm_stream_set_room(room < as ? room : as, room < as ? room_what : as_what);
  char in[3][4200];
  const int nin = sm_compute_input_files(o, in);
  int stream = -1;
  for (int k = 0; k < nin && stream < 0; k++)
    if (sm_input_is_stream(in[k]))
      stream = k;
  const int bad = stream >= 0 && (o->resume || r->P > 1);
  if (!sm_mpi_agree(bad ? SM_EOPTION : SM_OK))
    return SM_OK;
  if (r->me == 0 && bad && o->resume)
    sm_log_error("%s is a stream (a pipe, a FIFO or a device), which is read once: "
                 "--resume cannot check that it is the interrupted run's input; write "
                 "it to a file and run on that file",
                 in[stream]);
  else if (r->me == 0)
    sm_log_error("%s is a stream (a pipe, a FIFO or a device), which one process reads "
                 "once: %d MPI ranks cannot share it; write it to a file for an MPI run",
                 stream >= 0 ? in[stream] : o->input, r->P);
  return SM_EOPTION;
}

static sm_err_t plan(run_t *r)
{
  const sm_options_t *o = r->o;
  describe(o, r->desc, sizeof r->desc);
  if (r->P > 1 && o->method == SM_METHOD_REF) {
    if (r->me == 0)
      sm_log_error("--compute-method ref runs on one rank (run it without mpirun)");
    return SM_EOPTION;
  }
  sm_err_t err = streams_read_once(r);
  if (err)
    return err;
  if ((err = select_samples(r)) || (err = select_variants(r)) || (err = ld_alleles(r)))
    return err;
  sm_dims_t dims;
  err = problem_dims(o, r->vsel, r->nvsel, r->ssel, r->nssel, &dims);
  if (err)
    return err;
  if (dims.nv < (size_t)o->num_way) {
    if (r->me == 0)
      sm_log_error("%s: %zu vector%s: %d-way metrics need at least %d vectors", r->desc,
                   dims.nv, dims.nv == 1 ? "" : "s", o->num_way, o->num_way);
    return SM_EDEGEN;
  }
  if (dims.nv > UINT32_MAX || (o->metric == SM_METRIC_CCC && dims.nf > (1u << 28))) {
    if (r->me == 0)
      sm_log_error("%s: %zu vectors x %zu fields is beyond what starmet indexes "
                   "(2^32 - 1 vectors; CCC: 2^28 fields)",
                   r->desc, dims.nv, dims.nf);
    return SM_EDEGEN;
  }
  if (o->compare && !dims.compare) {
    if (r->me == 0)
      sm_log_error(
          "%s: --compare applies to BIOM tables (a .biom file, or the text `biom "
          "convert --to-tsv` writes: observations as rows, under '#OTU ID'); "
          "this input is not one: its rows are the vectors, its columns with "
          "--transpose",
          r->desc);
    return SM_EOPTION;
  }
  if (dims.compare) /* for the summary */
    r->compare = dims.compare == SM_COMPARE_OBSERVATIONS ? "observations" : "samples";
  if (dims.header) { /* text input: what auto decided (or was asked), for the summary */
    r->text_header = dims.header == SM_TEXT_YES ? "yes" : "no";
    r->text_row_names = dims.row_names == SM_TEXT_YES ? "yes" : "no";
  }
  /* a table that says how many non-zero values it has (BIOM) is read into
   * sparse rows when the sparse method will run: asked, or (auto) below
   * its density, so that memory follows the non-zero entries from the
   * start */
  const double cells = (double)dims.nv * (double)dims.nf;
  r->read_sparse = dims.nnz && o->metric != SM_METRIC_CCC && o->num_way == 2 &&
                   o->method == SM_METHOD_TASKS && (o->devices & STARPU_CPU) &&
                   (o->czek_method == SM_CZEK_METHOD_SPARSE ||
                    (o->czek_method == SM_CZEK_METHOD_AUTO &&
                     (double)dims.nnz < SM_CZEK_SPARSE_DENSITY * cells));
  if ((err = make_decomp(o, &dims, &r->d)))
    return err;
  sm_decomp_coords(&r->d, r->me, &r->pv, &r->pf, &r->pr);
  if ((err = (sm_err_t)sm_mpi_agree(sm_mem_check_compute(
           o, &r->d, r->me, r->desc, dims.header != 0, r->read_sparse ? dims.nnz : 0,
           sm_preflight_opencl() || sm_sched_expected_gpus() > 0, &r->mem_estimate))))
    return err;
  /* StarPU's directories, open files, file size: before anything is written */
  if ((err = (sm_err_t)sm_mpi_agree(sm_preflight_compute(o, &r->d))))
    return err;
  /* single precision's promise, said before computing when it is loose */
  const double bound = sm_sink_rel_bound(o->metric, o->single, dims.nf);
  if (o->single && bound > 1e-3 && r->me == 0)
    sm_log_warn("%s: --precision single over %zu fields: a float32 sum of that many "
                "terms may be off by up to %.2g relative (2 x fields x 2^-24; usually "
                "far less); --precision double keeps every value within %.2g",
                r->desc, dims.nf, bound, sm_sink_rel_bound(o->metric, 0, dims.nf));
  return SM_OK;
}

/* Sparse CCC when any slice has missing calls (unless told otherwise). */
static void choose_sparse(run_t *r)
{
  const sm_options_t *o = r->o;
  r->nmissing = r->pr == 0 ? r->v.nmissing : 0;
  sm_mpi_sum_u64(&r->nmissing, 1);
  if (o->metric != SM_METRIC_CCC)
    return;
  r->sparse = o->sparse < 0 ? r->nmissing > 0 : o->sparse;
  if (o->sparse < 0 && r->sparse)
    sm_log_info("%s has %llu missing calls: using the sparse CCC method", r->desc,
                (unsigned long long)r->nmissing);
  else if (!r->sparse && r->nmissing && r->me == 0)
    sm_log_warn("%s has %llu missing calls but --no-sparse was given: dense CCC "
                "counts them as one copy of allele 1",
                r->desc, (unsigned long long)r->nmissing);
}

/* The Czekanowski 2-way method: the fraction of non-zero entries over
 * every slice, and sparse when asked or (auto) when below
 * SM_CZEK_SPARSE_DENSITY and the products may run on CPUs. */
static sm_err_t choose_czek_method(run_t *r)
{
  const sm_options_t *o = r->o;
  if (o->metric == SM_METRIC_CCC || o->num_way != 2 || o->method != SM_METHOD_TASKS)
    return SM_OK;
  uint64_t n[2] = {0, 0}; /* non-zero entries, entries: each slice once */
  if (r->pr == 0) {
    n[0] = sm_csr_pack_count(&r->v, 0, r->v.nv);
    n[1] = (uint64_t)r->v.nv * r->v.nf;
  }
  sm_mpi_sum_u64(n, 2);
  r->density = n[1] ? (double)n[0] / (double)n[1] : 0;
  r->czek_sparse = o->czek_method == SM_CZEK_METHOD_SPARSE ||
                   (o->czek_method == SM_CZEK_METHOD_AUTO && (o->devices & STARPU_CPU) &&
                    r->density < SM_CZEK_SPARSE_DENSITY);
  if (!r->czek_sparse && sm_vectors_is_sparse(&r->v) &&
      sm_mpi_agree(sm_vectors_densify(&r->v))) /* read sparse, computed dense */
    return SM_ENOMEM;
  if (o->czek_method == SM_CZEK_METHOD_AUTO && r->czek_sparse && r->me == 0)
    sm_log_info("%s has %.3g%% non-zero entries: using the sparse Czekanowski method "
                "(--czek-method dense for the other)",
                r->desc, 100 * r->density);
  return SM_OK;
}

/* Load this rank's vectors, choose the CCC method, gather the names. */
/* Czekanowski divides by s_i + s_j (+ s_k): refuse rows whose sums would
 * overflow the precision (every value would be NaN). A bound from the
 * largest field-slice sum, so no collective per vector is needed. */
static sm_err_t check_sums(const run_t *r)
{
  const sm_options_t *o = r->o;
  if (o->metric != SM_METRIC_CZEK)
    return SM_OK;
  double m = sm_vectors_max_sum(&r->v);
  sm_mpi_max_double(&m, 1);
  const double limit = (o->single ? FLT_MAX : DBL_MAX) / (o->num_way * r->d.npf);
  if (m <= limit)
    return SM_OK;
  if (r->me == 0)
    sm_log_error("%s: a vector's values sum to %g, beyond what %s precision can add up "
                 "for %d-way Czekanowski (at most %g): every value would be NaN; "
                 "scale the input down (the metric is the same for any common factor)",
                 r->desc, m, o->single ? "single" : "double", o->num_way, limit);
  return SM_EVALUE;
}

/* A vector's name with its number, sorted by name then number. */
typedef struct named {
  const char *name;
  size_t v;
} named_t;

static int cmp_named(const void *a, const void *b)
{
  const named_t *x = a, *y = b;
  const int c = strcmp(x->name, y->name);
  return c ? c : (x->v > y->v) - (x->v < y->v);
}

/* The keys of text output must tell the vectors apart: two vectors of one
 * name (a SNP id twice in a .bim, "." for unnamed variants, a row name
 * twice) would make every line of theirs ambiguous. Every rank holds all
 * names and decides alike; rank 0 says which. */
static sm_err_t unique_names(const run_t *r)
{
  named_t *ix = malloc(r->d.nv * sizeof *ix);
  if (!ix) {
    sm_log_error("out of memory checking the %zu vector names", r->d.nv);
    return SM_ENOMEM;
  }
  size_t n = 0;
  for (size_t v = 0; v < r->d.nv; v++)
    if (r->names[v])
      ix[n++] = (named_t){r->names[v], v};
  qsort(ix, n, sizeof *ix, cmp_named);
  size_t a = 0, b = 0, dups = 0;
  for (size_t k = 1; k < n; k++)
    if (!strcmp(ix[k].name, ix[k - 1].name) && !dups++)
      a = ix[k - 1].v, b = ix[k].v;
  free(ix);
  if (!dups)
    return SM_OK;
  if (r->me == 0)
    sm_log_error(
        "%s: vector names repeat (%zu repeats): '%.60s' names vectors %zu and "
        "%zu (from 0), and the lines of text output would not say which is "
        "which; give the vectors unique names (PLINK's '.' for unnamed variants: "
        "plink1.9 --bfile PREFIX --set-missing-var-ids '@:#:$1:$2' "
        "--keep-allele-order --make-bed --out NEW names them), or write vector "
        "numbers with --keys index",
        r->desc, dups, r->names[a], a, b);
  return SM_EINCONSIST;
}

/* --binary: presence/absence, every value > 0 read as 1 (once, here, for
 * every input and both methods). */
static void make_binary(sm_vectors_t *v)
{
  if (sm_vectors_is_sparse(v)) { /* every stored entry is > 0 */
    const uint64_t n = v->csr_off[v->nv];
    for (uint64_t p = 0; p < n; p++)
      if (v->elem_size == 4)
        ((float *)v->csr_val)[p] = 1.0f;
      else
        ((double *)v->csr_val)[p] = 1.0;
    return;
  }
  for (size_t i = 0; i < v->nv; i++) {
    if (v->elem_size == 4) {
      float *x = sm_vectors_row(v, i);
      for (size_t q = 0; q < v->nf; q++)
        x[q] = x[q] > 0 ? 1.0f : 0.0f;
    } else {
      double *x = sm_vectors_row(v, i);
      for (size_t q = 0; q < v->nf; q++)
        x[q] = x[q] > 0 ? 1.0 : 0.0;
    }
  }
}

static int cmp_u64(const void *a, const void *b)
{
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The vectors of this rank's slice that are 0 in every field of it, as
 * global numbers (replica 0 only, so that each slice counts once). */
static sm_err_t empty_in_slice(const run_t *r, uint64_t **out, size_t *n)
{
  const sm_vectors_t *v = &r->v;
  *n = 0;
  *out = malloc((v->nv ? v->nv : 1) * sizeof **out);
  if (!*out)
    return SM_ENOMEM;
  for (size_t i = 0; i < v->nv && r->pr == 0; i++) {
    int any = sm_vectors_is_sparse(v) && v->csr_off[i + 1] > v->csr_off[i];
    for (size_t q = 0; q < v->nf && !any && !sm_vectors_is_sparse(v); q++)
      any = v->elem_size == 4 ? ((const float *)sm_vectors_row(v, i))[q] > 0
                              : ((const double *)sm_vectors_row(v, i))[q] > 0;
    if (!any)
      (*out)[(*n)++] = r->v0 + i;
  }
  return SM_OK;
}

/* The warning about the empty vectors (sum 0): who they are (names, else
 * numbers from 0; ten at most) and what their pairs hold. */
static void warn_empty(const run_t *r, const uint64_t *e, size_t ne, char **names)
{
  const sm_options_t *o = r->o;
  char list[1200];
  size_t k = 0;
  list[0] = 0;
  for (size_t x = 0; x < ne && x < 10 && k < sizeof list; x++) {
    if (names && names[e[x]])
      k += (size_t)snprintf(list + k, sizeof list - k, "%s'%.60s'", x ? ", " : "",
                            names[e[x]]);
    else
      k += (size_t)snprintf(list + k, sizeof list - k, "%s%llu", x ? ", " : "",
                            (unsigned long long)e[x]);
  }
  if (ne > 10 && k < sizeof list)
    k += (size_t)snprintf(list + k, sizeof list - k, " and %zu more", ne - 10);
  if (!names && k < sizeof list)
    snprintf(list + k, sizeof list - k, " (numbers from 0)");
  const int dis = o->form != SM_FORM_PS;
  if (o->num_way == 3) {
    sm_log_warn("%s: %zu empty vector%s (every value 0%s): %s; a triple of three "
                "empty vectors is 0 (0/0), and in the other triples they add nothing "
                "to the numerators and sums",
                r->desc, ne, ne == 1 ? "" : "s", o->binary ? ", --binary" : "", list);
    return;
  }
  sm_log_warn("%s: %zu empty vector%s (every value 0%s): %s; the pairs of one with a "
              "non-empty vector are %s (nothing in common), and the pairs of two empty "
              "vectors (0/0) are %s (--zero-pairs %s)",
              r->desc, ne, ne == 1 ? "" : "s", o->binary ? ", --binary" : "", list,
              dis ? "1" : "0",
              o->zero_pairs ? "NaN"
              : dis         ? "1"
                            : "0",
              o->zero_pairs ? "nan" : "zero");
}

/* Czekanowski's family: say which vectors are empty, once, before
 * computing (collective: every rank takes part). */
static sm_err_t check_empty(run_t *r)
{
  if (r->o->metric != SM_METRIC_CZEK)
    return SM_OK;
  uint64_t *mine, *all = NULL;
  size_t n, nall = 0;
  sm_err_t err = empty_in_slice(r, &mine, &n);
  if (!sm_mpi_agree(err))
    err = sm_mpi_allgather_u64(mine, n, &all, &nall);
  free(mine);
  if ((err = (sm_err_t)sm_mpi_agree(err))) {
    free(all);
    return err;
  }
  /* empty: 0 in each of the npf field slices */
  qsort(all, nall, sizeof *all, cmp_u64);
  size_t ne = 0;
  for (size_t a = 0, b; a < nall; a = b) {
    for (b = a; b < nall && all[b] == all[a]; b++)
      ;
    if (b - a == (size_t)r->d.npf)
      all[ne++] = all[a];
  }
  char **names = r->names;
  if (ne && !names && sm_mpi_agree(r->v.names != NULL) &&
      sm_mpi_agree(sm_mpi_allgather_names(r->v.names, r->v0, r->vc,
                                          r->pf == 0 && r->pr == 0, r->d.nv, &names)))
    names = NULL; /* no memory for the names: numbers */
  if (ne && r->me == 0)
    warn_empty(r, all, ne, names);
  sm_err_t refuse = SM_OK; /* lsmat holds every pair: none may be NaN */
  if (ne >= 2 && r->o->zero_pairs && r->o->output_format == SM_OUT_LSMAT) {
    if (r->me == 0)
      sm_log_error(
          "--output-format lsmat: a distance matrix needs every pair, and the "
          "%llu pair%s of two empty vectors (above) %s none (0/0 is NaN with "
          "--zero-pairs nan): give --zero-pairs zero (their distance is then 1), "
          "or leave the empty vectors out",
          (unsigned long long)ne * (ne - 1) / 2, ne == 2 ? "" : "s",
          ne == 2 ? "has" : "have");
    refuse = SM_EOPTION;
  }
  if (names != r->names) {
    for (size_t i = 0; names && i < r->d.nv; i++)
      free(names[i]);
    free(names);
  }
  free(all);
  return refuse;
}

/* --ld-snp: which index variants have a line with themselves (r = 1):
 * those whose calls (as PLINK's LD reads them) vary, else PLINK's r of the
 * variant with itself is undefined and it writes none. Under mpirun each
 * rank sees its vectors' calls of its samples: per vector, the ranks that
 * saw each code are summed (16 bits a code), and rank 0, which writes the
 * table, flags every index variant. */
static sm_err_t ld_snp_self(run_t *r)
{
  if (!sm_mpi_agree(r->ld_index != NULL))
    return SM_OK;
  const size_t nv = r->d.nv;
  uint64_t *seen = calloc(nv ? nv : 1, sizeof *seen);
  if ((sm_err_t)sm_mpi_agree(seen ? SM_OK : SM_ENOMEM)) {
    free(seen);
    return SM_ENOMEM;
  }
  for (size_t v = 0; v < r->v.nv; v++) {
    if (!(r->ld_index[r->v0 + v] & SM_LDTAB_INDEX))
      continue;
    const uint64_t *row = sm_vectors_row(&r->v, v);
    for (size_t f = 0; f < r->v.nf; f++) {
      const unsigned c = sm_gt_get(row, f);
      if (c != SM_GT_MISSING)
        seen[r->v0 + v] |= (uint64_t)1 << (16 * c);
    }
  }
  for (size_t at = 0; r->P > 1 && at < nv; at += 1 << 24) /* (an int count) */
    sm_mpi_sum_u64(seen + at, (int)(nv - at < (1u << 24) ? nv - at : 1u << 24));
  for (size_t v = 0; v < nv; v++) {
    int codes = 0;
    for (int c = 0; c < 4; c++)
      codes += ((seen[v] >> (16 * c)) & 0xffff) != 0;
    if ((r->ld_index[v] & SM_LDTAB_INDEX) && codes > 1)
      r->ld_index[v] |= SM_LDTAB_SELF;
  }
  free(seen);
  return SM_OK;
}

static sm_err_t load_slice(run_t *r)
{
  const sm_options_t *o = r->o;
  sm_decomp_part(&r->d, r->pv, &r->v0, &r->vc);
  sm_decomp_slice(&r->d, r->pf, &r->f0, &r->fc);
  sm_err_t err =
      (sm_err_t)sm_mpi_agree(load(o, r->vsel, r->nvsel, r->ssel, r->nssel, r->v0, r->vc,
                                  r->f0, r->fc, r->read_sparse, &r->v, NULL));
  if (err)
    return err;
  r->sum.t_input = sm_now() - r->t0;
  if (o->binary)
    make_binary(&r->v);
  if ((err = ld_snp_self(r)) || (err = check_sums(r)))
    return err;
  choose_sparse(r);
  if ((err = choose_czek_method(r)))
    return err;
  const sm_outfmt_t f = o->output_format;
  /* names, for text output, npy's ids and the top-k lists' TSV */
  if ((f == SM_OUT_TSV || f == SM_OUT_NPY || f == SM_OUT_LSMAT || f == SM_OUT_LD ||
       (o->topk && f != SM_OUT_BIN)) &&
      !o->keys_index) {
    int have = sm_mpi_agree(r->v.names != NULL);
    if (have)
      err = sm_mpi_allgather_names(r->v.names, r->v0, r->vc, r->pf == 0 && r->pr == 0,
                                   r->d.nv, &r->names);
    /* (PLINK's .ld tells variants of one id apart by their chromosome and
     * position, and prints a VCF's "." as it is) */
    if (!err && have && f != SM_OUT_NPY && (f != SM_OUT_LD || o->topk))
      err = unique_names(r);
  }
  return err ? err : check_empty(r);
}

/* The paths this run writes: its output, the summary, the histogram and
 * top-k files, the manifest (from the options and this rank alone). */
static void output_paths(run_t *r)
{
  const sm_options_t *o = r->o;
  if (o->output && o->output_format != SM_OUT_NONE)
    sm_output_path_gz(r->out_path, sizeof r->out_path, o->output, o->output_format,
                      o->ld_gz, r->me, r->P);
  if (o->summary)
    snprintf(r->json_path, sizeof r->json_path, "%s", o->summary);
  else if (o->output)
    snprintf(r->json_path, sizeof r->json_path, "%s.json", o->output);
  /* the manifest records appended blocks' end offsets: npy writes in
   * place, ld in PLINK's order across blocks (it cannot --resume) */
  r->use_man = r->out_path[0] && o->method != SM_METHOD_REF &&
               o->output_format != SM_OUT_NPY && o->output_format != SM_OUT_LSMAT &&
               o->output_format != SM_OUT_LD;
  if (o->hist_bins && o->output) {
    snprintf(r->hist_path, sizeof r->hist_path, "%s.hist.tsv", o->output);
    snprintf(r->hist_png, sizeof r->hist_png, "%s.hist.png", o->output);
  }
  if (o->topk)
    snprintf(r->topk_path, sizeof r->topk_path, "%s.topk.%s", o->output,
             o->output_format == SM_OUT_BIN ? "bin" : "tsv");
}

/* The stems of the files this run writes, each locked by rank 0: the
 * output prefix, and a --summary, --trace or --trace-paje file of its own. */
enum { NSTEMS = 4 };
typedef struct stems {
  char buf[NSTEMS][4200], label[NSTEMS][4300];
  const char *stem[NSTEMS], *what[NSTEMS];
} stems_t;

static void output_stems(const sm_options_t *o, stems_t *st)
{
  const char *from[NSTEMS] = {o->output, o->summary, o->trace, o->trace_paje};
  static const char *const opt[NSTEMS] = {"--output", "--summary", "--trace",
                                          "--trace-paje"};
  for (int k = 0; k < NSTEMS; k++) {
    st->stem[k] = NULL;
    st->what[k] = st->label[k];
    if (!from[k])
      continue;
    snprintf(st->label[k], sizeof st->label[k], "%s %s", opt[k], from[k]);
    if (k == 0)
      snprintf(st->buf[k], sizeof st->buf[k], "%s", from[k]);
    else
      sm_lock_stem(from[k], st->buf[k], sizeof st->buf[k]);
    st->stem[k] = st->buf[k];
  }
}

/* The files this run writes, before it computes: the output policy
 * (sm_commit_check_outputs: regular files or nothing, distinct, no input),
 * then the lock on their names. The summary is rank 0's only. */
static sm_err_t claim_outputs(run_t *r)
{
  const sm_options_t *o = r->o;
  output_paths(r);
  char ins[3][4200] = {"", "", ""}, part[4200], mpath[4200] = "", mnew[4300] = "";
  char lock[NSTEMS][4300] = {"", "", "", ""}, ids[4200] = "", ids_part[4300] = "";
  const int nin = sm_compute_input_files(o, ins);
  snprintf(part, sizeof part, "%s.part", r->out_path);
  if (o->output && sm_output_ids_path(ids, sizeof ids, o->output, o->output_format))
    snprintf(ids_part, sizeof ids_part, "%s.part", ids);
  if (r->use_man) {
    sm_manifest_path(mpath, sizeof mpath, o->output, r->me, r->P);
    snprintf(mnew, sizeof mnew, "%s.new", mpath);
  }
  stems_t st;
  output_stems(o, &st);
  for (int k = 0; k < NSTEMS && r->me == 0; k++) {
    int again = 0; /* one lock for stems named twice (--output x --summary x.json) */
    for (int j = 0; j < k; j++)
      again |= st.stem[j] && st.stem[k] && !strcmp(st.stem[j], st.stem[k]);
    if (st.stem[k] && !again)
      snprintf(lock[k], sizeof lock[k], "%s.lock", st.stem[k]);
  }
  const char *outs[] = {r->out_path,
                        r->out_path[0] ? part : NULL,
                        r->me == 0 ? r->json_path : NULL,
                        r->me == 0 ? o->trace : NULL,
                        mpath,
                        mnew,
                        r->hist_path,
                        r->hist_png,
                        r->topk_path,
                        lock[0],
                        lock[1],
                        lock[2],
                        ids,
                        ids_part,
                        r->me == 0 ? o->trace_paje : NULL,
                        lock[3]};
  const char *sum = o->summary ? "--summary" : "--output";
  const char *what[] = {
      "--output",    "--output",    sum,           "--trace",  "--output",
      "--output",    "--histogram", "--histogram", "--top-k",  "--output",
      "--summary",   "--trace",     "--output",    "--output", "--trace-paje",
      "--trace-paje"};
  const char *in[] = {ins[0], ins[1], ins[2]};
  sm_err_t err = (sm_err_t)sm_mpi_agree(
      sm_commit_check_outputs(outs, what, sizeof outs / sizeof outs[0], in, (size_t)nin));
  if (!err)
    err = sm_job_lock(&r->job, st.stem, st.what, NSTEMS, r->command);
  return err;
}

/* CCC's numerators read as PLINK's r or r^2: one value per pair. */
static int sm_compute_ld(const sm_options_t *o)
{
  return o->metric == SM_METRIC_CCC && (o->form == SM_FORM_R2 || o->form == SM_FORM_R);
}

/* What the values are: czekanowski's numerators in the form asked. */
static sm_metric_t values_metric(const sm_options_t *o)
{
  if (o->metric == SM_METRIC_CCC && o->form == SM_FORM_R2)
    return SM_METRIC_R2;
  if (o->metric == SM_METRIC_CCC && o->form == SM_FORM_R)
    return SM_METRIC_R;
  if (o->metric != SM_METRIC_CZEK || o->form == SM_FORM_PS)
    return o->metric;
  return o->form == SM_FORM_BC ? SM_METRIC_BRAY_CURTIS : SM_METRIC_JACCARD;
}

/* Open the results: the resume state, the writer and its header, the
 * histogram and top-k tables. */
static sm_err_t open_results(run_t *r)
{
  const sm_options_t *o = r->o;
  const int matrix = o->output_format == SM_OUT_NPY || o->output_format == SM_OUT_LSMAT;
  sm_writer_info_t wi = {
      .fmt = o->output_format,
      .way = o->num_way,
      /* the matrices' diagonal and distances are the values' (the binary
       * header keeps the computation's metric, which readers know) */
      .metric = matrix || sm_compute_ld(o) ? values_metric(o) : o->metric,
      .single = o->single,
      .nv = r->d.nv,
      .nf = r->d.nf,
      .names = r->names,
      .rank = r->me,
      .nranks = r->P,
      .loci = &r->loci,
      .ld_index = r->ld_index,
      .ld_width = r->ld_width,
      .loci_cols = o->output_loci,
      .gz = o->ld_gz,
      .ld_freq = r->ld_freq,
  };
  r->hist = (sm_hist_spec_t){
      .bins = o->hist_bins,
      .nent = o->metric == SM_METRIC_CCC && !sm_compute_ld(o) ? 1u << o->num_way : 1u,
      .lo = o->hist_lo,
      .hi = o->hist_hi};
  r->topk = (sm_topk_spec_t){
      .k = (uint32_t)o->topk,
      .lists = o->metric == SM_METRIC_CCC && o->topk_by_entry ? 4u : 1u,
      .by_max = o->metric == SM_METRIC_CCC && !o->topk_by_entry,
  };
  sm_err_t err = SM_OK;
  if (o->topk) {
    const size_t places = r->d.nv * r->topk.lists * r->topk.k;
    if (r->me == 0 && !(r->topk_acc = malloc(places * sizeof *r->topk_acc))) {
      sm_log_error("--top-k %zu: out of memory for %zu vectors' lists (%zu bytes)",
                   o->topk, r->d.nv, places * sizeof *r->topk_acc);
      err = SM_ENOMEM;
    }
  }
  if (!err && o->hist_bins &&
      !(r->hist_counts = calloc(sm_hist_words(&r->hist), sizeof *r->hist_counts))) {
    sm_log_error("--histogram %u: out of memory", o->hist_bins);
    err = SM_ENOMEM;
  }
  if ((err = (sm_err_t)sm_mpi_agree(err)))
    return err;
  char mpath[4200] = "", fp[16384] = "";
  if (r->use_man) {
    sm_manifest_path(mpath, sizeof mpath, o->output, r->me, r->P);
    const double t0 = sm_now();
    fingerprint(o, &r->d, r->sparse, r->czek_sparse, r->me, r->P, fp, sizeof fp);
    if (sm_now() - t0 >= 0.2) /* the inputs' CRC: worth saying on large inputs */
      sm_log_info("the input's checksums for --resume took %.2f s", sm_now() - t0);
  }
  const sm_job_spec_t js = {
      .out_path = r->out_path,
      .info = &wi,
      .man_path = mpath,
      .fingerprint = fp,
      .resume = o->resume,
      .block_size = o->block_size,
      .finish_hint = "run the same command with --resume to finish the job",
      .stop_at = (int)o->debug_stop_commit,
  };
  if ((err = sm_job_open(&r->job, &js)))
    return err;
  if (r->job.block_size && !o->block_size)
    r->d.block_size = r->job.block_size; /* the interrupted run's automatic tiles */
  return SM_OK;
}

/* The sink the results flow into, and the summary's fixed part. */
static void open_sink(run_t *r)
{
  const sm_options_t *o = r->o;
  r->sink = (sm_sink_t){
      .writer = r->job.w,
      .way = o->num_way,
      .metric = o->metric,
      .single = o->single,
      .sparse = r->sparse,
      .ccc_mult = o->ccc_mult,
      .ccc_param = o->ccc_param,
      .threshold = o->threshold,
      .dis = o->metric == SM_METRIC_CZEK && o->form != SM_FORM_PS,
      .thr_ent = o->thr_ent,
      .thr_f32 = o->single || o->output_format == SM_OUT_COMET,
      .hist = r->hist,
      .hist_counts = r->hist_counts,
      .analytic = o->synth.kind == SM_SYNTH_ANALYTIC ? &o->synth : NULL,
      .nf = r->d.nf,
      .progress = r->me == 0 && (o->progress < 0 ? isatty(2) && !o->quiet : o->progress),
      .t_start = sm_now(),
      .manifest = r->use_man ? &r->job.man : NULL,
      .stop_after = o->debug_stop_after,
      .pause_after = o->debug_pause_after,
  };
  const sm_manifest_t *m = &r->job.man;
  for (size_t k = 0; k < m->ndone; k++) { /* what the interrupted run did */
    sm_cksum_merge(&r->sink.cksum, &m->done[k].cksum);
    r->sink.nvalues += m->done[k].nvalues;
    r->sink.nwritten += m->done[k].count;
  }
  sm_summary_t *sum = &r->sum;
  sum->opt = o;
  sum->command = r->command;
  sum->input_desc = r->desc;
  sum->text_header = r->text_header;
  sum->text_row_names = r->text_row_names;
  sum->compare = r->compare;
  sum->mem_estimate = r->mem_estimate;
  sum->nv = r->d.nv;
  sum->nf = r->d.nf;
  sum->sparse = r->sparse;
  if (o->metric != SM_METRIC_CCC && o->num_way == 2 && o->method == SM_METHOD_TASKS) {
    sum->czek_method = r->czek_sparse ? "sparse" : "dense";
    sum->density = r->density;
  }
  sum->nmissing = (size_t)r->nmissing;
  /* the pairs in the windows; with --ld-snp those with an index variant
   * (before[i]: the index variants before i) */
  const size_t nv = r->d.nv;
  uint32_t *before = r->ld_win && r->ld_index ? malloc((nv + 1) * sizeof *before) : NULL;
  if (before)
    before[0] = 0;
  for (size_t i = 0; before && i < nv; i++)
    before[i + 1] = before[i] + (r->ld_index[i] & SM_LDTAB_INDEX);
  for (size_t i = 0; r->ld_win && i < nv; i++)
    sum->npairs += !before || (r->ld_index[i] & SM_LDTAB_INDEX)
                       ? (double)(r->ld_win[i] - i)
                       : (double)(before[r->ld_win[i] + 1] - before[i + 1]);
  free(before);
  sum->names = r->names != NULL;
  sum->nranks = r->P;
  sum->decomp = &r->d;
  sum->phase_min = o->phase_min;
  sum->phase_max = o->phase_max;
}

/* The reference loops (one rank). */
static sm_err_t run_ref(run_t *r, double t1)
{
  const sm_options_t *o = r->o;
  r->sink.apply_threshold = 1;
  r->sum.kernel = "reference loops";
  sm_ref_opts_t ro = {.way = o->num_way,
                      .sparse = r->sparse,
                      .ccc_mult = o->ccc_mult,
                      .ccc_param = o->ccc_param,
                      .form = o->metric == SM_METRIC_CZEK ? o->form : SM_FORM_PS,
                      .zero_nan = o->metric == SM_METRIC_CZEK && o->zero_pairs == 1,
                      .ld_win = r->ld_win};
  sm_err_t err = sm_ref_run(&r->v, &ro, &r->sink);
  r->sum.t_compute = sm_now() - t1;
  return err;
}

/* Worker types the products may run on: --devices, or the CPUs alone
 * for the sparse method (its numerators have no device implementation; a
 * scheduler told otherwise, heteroprio, would give them to devices). */
static unsigned long long product_devices(const run_t *r)
{
  return r->czek_sparse ? STARPU_CPU : r->o->devices;
}

/* Whether an accelerator (CUDA, OpenCL) may run the products on some
 * rank: a collective, every rank gets the same answer. */
static int any_accelerator(const run_t *r)
{
  double gpu = (product_devices(r) & (STARPU_CUDA | STARPU_OPENCL)) &&
               starpu_cuda_worker_get_count() + starpu_opencl_worker_get_count() > 0;
  sm_mpi_max_double(&gpu, 1);
  return gpu > 0;
}

/* Start StarPU (and StarPU-MPI) with the scheduling options. */
static sm_err_t start_runtime(run_t *r, double t1)
{
  const sm_options_t *o = r->o;
  sm_sched_configure(&(sm_sched_opts_t){.priorities = !o->no_priorities,
                                        .calibrate = o->calibrate,
                                        .perfmodel_dir = o->perfmodel_dir});
  sm_codelets_set_devices(product_devices(r)); /* before heteroprio's set-up */
  sm_runtime_set_watchdog(o->task_timeout);
  sm_err_t err = o->trace_paje ? sm_paje_prepare(o->trace_paje) : SM_OK;
  if (!err)
    err = (sm_err_t)sm_mpi_agree(sm_runtime_init(o->sched, r->P > 1));
  if (err && o->trace_paje) {
    sm_err_t perr = sm_paje_finish(o->trace_paje, 0, 0); /* removes what prepare made */
    (void)perr;                                          /* the error is err's */
  }
  r->sum.t_init = sm_now() - t1;
  return err;
}

/* The codelets: kernel, resilience, devices; the kernel's name. */
static sm_err_t setup_codelets(run_t *r)
{
  const sm_options_t *o = r->o;
  int verify = o->verify;
  if (verify == SM_VERIFY_AUTO) {
    /* on by default where its cost was measured (CCC on CPUs: a few
     * percent, docs/resilience.md); off when a GPU may run the products,
     * each check then reading them back. Every rank decides the same
     * (this collective comes before anything a rank may return on). */
    verify = any_accelerator(r) ? SM_VERIFY_OFF : SM_VERIFY_CHECKSUM;
  }
  sm_err_t err = sm_codelets_init(r->P > 1, o->kernel);
  if (err)
    return err;
  r->sum.verify = verify;
  r->sum.verify_default = o->verify == SM_VERIFY_AUTO;
  sm_codelets_set_inject_kind(o->inject_kind);
  sm_codelets_set_resilience(verify, o->inject_rate, o->inject_seed,
                             o->retry != SM_RETRY_CHECK);
  sm_codelets_set_debug_hang(o->debug_hang_block);
  r->sum.retry = sm_codelets_resilience_tasks() ? "check" : "runtime";
  /* heteroprio maps each bucket (a kind of task) to one set of worker
   * types: reductions and finalize, which share buckets with CPU-only
   * tasks, stay on CPUs there */
  sm_codelets_set_follow(!sm_sched_heteroprio());
  sm_codelets_set_devices(product_devices(r));
  if (!(o->devices & STARPU_CPU) &&
      starpu_opencl_worker_get_count() + starpu_cuda_worker_get_count() == 0) {
    sm_log_error("--devices accel: StarPU has no CUDA or OpenCL worker here (for a CPU "
                 "OpenCL device set STARPU_OPENCL_ON_CPUS=1 and STARPU_NOPENCL=1)");
    err = SM_ERUNTIME;
  } else if (!(o->devices & STARPU_CPU) && sm_sched_heteroprio() &&
             (o->no_priorities || (verify && !sm_codelets_resilience_tasks()))) {
    /* (check tasks have a CPU bucket of their own) */
    sm_log_error("--devices accel with --sched heteroprio: %s puts CPU-only tasks in "
                 "the buckets of the products (use another policy, or --devices all)",
                 o->no_priorities ? "--no-priorities (one bucket for every task)"
                                  : "--verify (its retries may run on CPUs)");
    err = SM_ERUNTIME;
  }
  const int ccc = o->metric == SM_METRIC_CCC;
  r->sum.kernel = sm_codelets_kernel_name(
      o->num_way == 3 ? (ccc ? (r->sparse ? "ccc3_sparse" : "ccc3")
                             : (o->single ? "czek3_s" : "czek3_d"))
                      : (ccc ? "ccc2" : (o->single ? "czek2_s" : "czek2_d")));
  return err;
}

/* The sparse method's tiles: this rank's tiles packed (sm_csr.h), then
 * the dense slice freed, so that what stays is proportional to the
 * non-zero entries; every tile's entry count on every field slice
 * gathered (the sizes of the other ranks' handles). */
static sm_err_t pack_tiles(run_t *r, void ***local, uint64_t **nnz)
{
  const sm_decomp_t *d = &r->d;
  const int nt = sm_decomp_ntiles(d, r->pv);
  size_t ntiles = 0, base = 0;
  for (int I = 0; I < d->npv; I++) {
    if (I == r->pv)
      base = ntiles;
    ntiles += (size_t)sm_decomp_ntiles(d, I);
  }
  *local = calloc((size_t)nt + 1, sizeof **local);
  *nnz = calloc(ntiles * (size_t)d->npf, sizeof **nnz);
  sm_err_t err = *local && *nnz ? SM_OK : SM_ENOMEM;
  for (int t = 0; t < nt && !err; t++) {
    size_t t0, tn, bytes;
    sm_decomp_tile(d, r->pv, t, &t0, &tn);
    err = sm_csr_pack_tile(&r->v, t0, tn, &(*local)[t], &bytes);
    if (!err && r->pr == 0)
      (*nnz)[(base + (size_t)t) * d->npf + (size_t)r->pf] =
          ((const sm_csr_hdr_t *)(*local)[t])->nnz;
  }
  if (err == SM_ENOMEM)
    sm_log_error("--czek-method sparse: out of memory packing the tiles (%s); "
                 "--czek-method dense needs no copy",
                 r->desc);
  if ((err = (sm_err_t)sm_mpi_agree(err)))
    return err;
  sm_mpi_sum_u64(*nnz, (int)(ntiles * (size_t)d->npf));
  sm_vectors_free_values(&r->v); /* the packed tiles hold every entry */
  return SM_OK;
}

static void free_tiles(void **local, uint64_t *nnz)
{
  for (size_t t = 0; local && local[t]; t++)
    free(local[t]);
  free(local);
  free(nnz);
}

/* Submit the task graph and wait for it. */
static sm_err_t run_graph(run_t *r, int progress)
{
  const sm_options_t *o = r->o;
  int emit = o->output_format != SM_OUT_NONE || r->sink.analytic != NULL;
  /* GPUs that may run the products: rank 0's, so that every rank builds
   * the same graph */
  int ngpus = product_devices(r) & STARPU_CUDA ? (int)starpu_cuda_worker_get_count() : 0;
  sm_mpi_bcast(&ngpus, sizeof ngpus);
  /* auto: int8 when the products can only run on CUDA workers (cuBLAS);
   * on CPUs the popcount kernels are faster than int8 loops. Rank 0
   * decides: every rank must build the same graph. */
  r->ccc_i8 =
      o->metric == SM_METRIC_CCC && o->num_way == 2 &&
      (o->ccc_gemm == SM_CCC_GEMM_INT8 ||
       (o->ccc_gemm == SM_CCC_GEMM_AUTO && !(o->devices & STARPU_CPU) &&
        starpu_cuda_worker_get_count() > 0 && starpu_opencl_worker_get_count() == 0));
  sm_mpi_bcast(&r->ccc_i8, sizeof r->ccc_i8);
  /* r and r^2: the moments and PLINK's tallies of a tile pair by one CPU
   * task (one pass of the counters over the missing calls) when no
   * accelerator runs the products and without int8 tiles */
  const int ld_fused = sm_compute_ld(o) && !r->ccc_i8 && !any_accelerator(r);
  /* the task grain: rank 0 reads the models, every rank uses its choice */
  const int ccc = o->metric == SM_METRIC_CCC;
  sm_grain_t grain = {0};
  if (r->me == 0)
    sm_grain_measure(&grain, o->num_way, ccc, r->sparse, o->single, r->ccc_i8,
                     (o->devices & STARPU_CPU) && starpu_cpu_worker_get_count() > 0);
  sm_mpi_bcast(&grain, sizeof grain);
  if (!o->block_size && !r->job.block_size) { /* rank 0 decides, every rank uses it */
    size_t bs =
        o->num_way == 3
            ? sm_graph_auto_block3(r->vc, r->d.nf, ngpus, grain.min_work)
            : sm_graph_auto_block_cost(r->vc, r->d.nf, (int)starpu_worker_get_count(),
                                       ngpus, emit, ccc,
                                       ccc         ? 4 * (size_t)SM_CCC2_NMOM(r->sparse)
                                       : o->single ? sizeof(float)
                                                   : sizeof(double),
                                       grain.min_work);
    /* LD windows: tiles of a quarter of the widest window, at least 512
     * (the CPUs compute only the pairs or strips of a tile pair that hold
     * pairs in a window, so wider tiles cost no more pairs, only fewer
     * tasks: PLINK's default window, 200,000 variants, 2 threads: 0.79 s
     * with 256, 0.69 s with 512, 0.87 s with 1024; the 1 Mb window the
     * same with 256 and 512) */
    size_t wmax = 0;
    for (size_t i = 0; r->ld_win && i < r->d.nv; i++)
      wmax = r->ld_win[i] - i > wmax ? r->ld_win[i] - i : wmax;
    const size_t wcap = wmax / 4 > 512 ? wmax / 4 : 512;
    if (r->ld_win && bs > wcap)
      bs = wcap;
    /* every pair by the fused task: its tallies beside the moments (24
     * bytes a pair in all, within the same budget as the moments' 16:
     * tiles of 591 at most) and tiles of whole chunks of 256 vectors, the
     * counters' unit (every pair of 28,500 variants x 2,000 samples, one
     * core of an AVX-512 EPYC: 6.0-6.8 s with tiles of 512 (509: 56 of one
     * size), 7.1-8.7 s
     * with the 713 of the moments' budget, 7.3-9.7 s with 582) */
    if (ld_fused && !r->ld_win && bs > 256) {
      const size_t cap = sm_graph_auto_block_cap(ngpus, emit, ccc, 24);
      bs = (bs < cap ? bs : cap) / 256 * 256;
      const size_t n = (r->vc + bs - 1) / bs; /* tiles of one size, as many */
      bs = n ? (r->vc + n - 1) / n : bs;
    }
    sm_mpi_bcast(&bs, sizeof bs);
    r->d.block_size = bs;
  }
  grain.block = r->d.block_size;
  snprintf(grain.block_from, sizeof grain.block_from, "%s",
           o->block_size       ? "option"
           : r->job.block_size ? "resume"
                               : "auto");
  if (o->num_way == 3) { /* the planes of a task on full tiles */
    const size_t bs = grain.block, g = sm_graph_plane_group(emit, ngpus, r->d.nf, bs, bs);
    grain.group = g < bs ? g : bs;
  }
  if (r->ccc_i8)
    r->sum.kernel = "int8 GEMMs on cached int8 tiles (cublasGemmEx on CUDA workers, "
                    "int8 loops on the others)";
  { /* the tile size is known now: every manifest records it */
    sm_err_t err = sm_job_begin(&r->job, r->d.block_size);
    if (err)
      return err;
  }
  void **csr_local = NULL;
  uint64_t *csr_nnz = NULL;
  if (r->czek_sparse) {
    sm_err_t err = pack_tiles(r, &csr_local, &csr_nnz);
    if (err) {
      free_tiles(csr_local, csr_nnz);
      return err;
    }
    r->sum.kernel = "sparse: packed CSR/CSC tiles, minima over the fields both vectors "
                    "have";
  }
  sm_graph_opts_t go = {
      .d = &r->d,
      .rank = r->me,
      .use_mpi = r->P > 1,
      .phase_min = o->phase_min,
      .phase_max = o->phase_max,
      .num_stage = o->num_stage,
      .stage_min = o->stage_min,
      .stage_max = o->stage_max,
      .single = o->single,
      .form = o->metric == SM_METRIC_CZEK || sm_compute_ld(o) ? o->form : SM_FORM_PS,
      .zero_nan = o->metric == SM_METRIC_CZEK && o->zero_pairs == 1,
      .ld_min = o->ld_min,
      .ld_a1 = o->ld_a1,
      .ld_rev = r->ld_rev,
      .ld_win = r->ld_win,
      .ld_index = r->ld_index,
      .sparse = r->sparse,
      .ccc_i8 = r->ccc_i8,
      .czek_sparse = r->czek_sparse,
      .csr_local = csr_local,
      .csr_nnz = csr_nnz,
      .ngpus = ngpus,
      .ld_fused = ld_fused,
      .ccc_mult = o->ccc_mult,
      .ccc_param = o->ccc_param,
      .threshold = o->threshold,
      .thr_ent = o->thr_ent,
      .thr_f32 = r->sink.thr_f32,
      .hist = r->hist,
      .topk = r->topk,
      .topk_acc = r->topk_acc,
      .emit = emit,
      .keep_all = r->sink.analytic != NULL,
      .prio = sm_sched_prio_mode(),
      .skip = r->job.skip,
      .nskip = r->job.nskip,
  };
  r->sink.apply_threshold = go.keep_all;
  r->sum.prio_mode = go.prio;
  sm_err_t err = sm_observe_start(o->trace != NULL, progress);
  if (!err)
    err = o->num_way == 3 ? sm_graph3_run(&r->v, &go, &r->sink, &r->gs)
                          : sm_graph2_run(&r->v, &go, &r->sink, &r->gs);
  free_tiles(csr_local, csr_nnz);
  r->gs.grain = grain;
  r->sum.t_compute = r->gs.t_run;
  return err;
}

/* Stop StarPU; gather every rank's workers and codelets, write the
 * trace, report the calibration. */
static sm_err_t stop_runtime(run_t *r, sm_err_t err)
{
  sm_runtime_collect(&r->rs);
  sm_observe_stop(&r->rs);
  sm_runtime_shutdown();
  sm_err_t oerr = (sm_err_t)sm_mpi_agree(sm_observe_gather(&r->rs, &r->rts));
  if (!oerr && r->o->trace && sm_mpi_agree(err) == SM_OK)
    oerr = sm_trace_write(r->o->trace, r->rts);
  if (r->o->trace_paje) {
    unsigned long long done = 0; /* the summary's tasks_executed */
    for (int k = 0; r->rts && k < r->P; k++)
      done += r->rts[k].tasks_done;
    sm_err_t perr =
        sm_paje_finish(r->o->trace_paje, !oerr && sm_mpi_agree(err) == SM_OK, done);
    oerr = oerr ? oerr : err ? SM_OK : perr;
  }
  sm_observe_free();
  if (r->rts)
    sm_observe_report_calibration(r->rts, r->P);
  r->sum.graph = &r->gs;
  r->sum.rt = &r->rs;
  r->sum.rts = r->rts;
  return err ? err : oerr;
}

/* The task graph on StarPU, from start to shutdown. */
static sm_err_t run_tasks(run_t *r, double t1)
{
  sm_err_t err = start_runtime(r, t1);
  if (err)
    return err;
  const int progress = r->sink.progress; /* the observer counts tasks instead */
  r->sink.progress = 0;
  /* every rank has the same workers' kinds: a refused --devices stops all
   * of them before any task is inserted */
  err = (sm_err_t)sm_mpi_agree(setup_codelets(r));
  if (!err)
    err = run_graph(r, progress);
  return stop_runtime(r, err);
}

/* This rank's counts and the resilience record. */
static sm_err_t rank_stats(run_t *r, sm_err_t err, sm_rank_stats_t *mine)
{
  *mine = (sm_rank_stats_t){
      .cksum = r->sink.cksum,
      .nvalues = r->sink.nvalues,
      .nwritten = r->sink.nwritten,
      .nchecked = r->sink.nchecked,
      .nbad = r->sink.nbad,
      .subblocks = r->gs.my_subblocks,
      .pairs = r->gs.my_pairs,
      .outputs = r->gs.my_outputs,
      .mpi_bytes = r->rs.mpi_bytes,
      .bus_bytes = r->rs.bus_bytes,
      .t_compute = r->sum.t_compute,
      .max_rel_err = r->sink.max_rel_err,
      .nworkers = r->rs.nworkers,
  };
  sm_resilience_stats_t rst = {0};
  if (r->o->method != SM_METHOD_REF)
    sm_codelets_resilience_stats(&rst);
  mine->checks = rst.checks;
  mine->failures = rst.failures;
  mine->reexecuted = rst.reexecuted;
  mine->injected = rst.injected;
  memcpy(mine->retry, rst.retry, sizeof mine->retry);
  if (!err && rst.unrecovered) {
    sm_log_error("output block %llu still fails its checks after re-executing its tasks "
                 "%d times: the hardware may be faulty (rank %d)",
                 (unsigned long long)rst.unrecovered_block, 5, r->me);
    err = SM_ECHECK;
  }
  return err;
}

/* Gather what every rank did into the summary (rank 0); check the
 * analytic problem. */
static sm_err_t gather_report(run_t *r, sm_err_t err)
{
  sm_rank_stats_t mine, dummy[1];
  err = rank_stats(r, err, &mine);
  sm_summary_t *sum = &r->sum;
  r->all = r->me == 0 ? calloc((size_t)r->P, sizeof *r->all) : NULL;
  sm_mpi_gather_bytes(&mine, sizeof mine, r->all ? r->all : dummy);
  for (int k = 0; r->all && k < r->P; k++) {
    const sm_rank_stats_t *x = &r->all[k];
    sm_cksum_merge(&sum->total.cksum, &x->cksum);
    sum->total.nvalues += x->nvalues;
    sum->total.nwritten += x->nwritten;
    sum->total.nchecked += x->nchecked;
    sum->total.nbad += x->nbad;
    sum->total.mpi_bytes += x->mpi_bytes;
    sum->total.checks += x->checks;
    sum->total.failures += x->failures;
    sum->total.reexecuted += x->reexecuted;
    sum->total.injected += x->injected;
    sm_summary_merge_retries(sum->total.retry, x->retry);
    if (x->max_rel_err > sum->total.max_rel_err)
      sum->total.max_rel_err = x->max_rel_err;
    if (x->t_compute > sum->t_compute)
      sum->t_compute = x->t_compute;
  }
  sum->ranks = r->all;
  if (r->hist_counts) /* exact: integer counts summed in any order */
    sm_mpi_sum_u64(r->hist_counts, (int)sm_hist_words(&r->hist));
  sum->hist = r->hist_counts ? &r->hist : NULL;
  sum->hist_counts = r->hist_counts;
  if (!err && r->sink.nbad) {
    sm_log_error("analytic problem: %llu of %llu values differ from the closed form",
                 (unsigned long long)r->sink.nbad, (unsigned long long)r->sink.nchecked);
    err = SM_ECHECK;
  }
  return (sm_err_t)sm_mpi_agree(err);
}

/* Commit: every rank's output verified, then renamed as one job
 * (sm_job_commit); then rank 0's files: histogram, top-k, the JSON
 * summary, and the printed one. */
static sm_err_t commit(run_t *r, sm_err_t err)
{
  const sm_options_t *o = r->o;
  sm_summary_t *sum = &r->sum;
  double t2 = sm_now();
  err = sm_job_commit(&r->job, err);
  sum->t_output = sm_now() - t2;
  sum->t_readback = r->job.t_readback;
  sum->out_check = r->job.out_check;
  sum->t_agree = r->job.t_agree;
  sum->t_total = sm_now() - r->t0;
  struct rusage ru; /* rank 0's peak, against the estimate */
  sum->mem_peak = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
  sum->output_path = err == SM_OK && r->out_path[0] ? r->out_path : NULL;
  if (r->P > 1 && sum->output_path) /* name the set of files */
    sm_output_path_gz(r->out_path, sizeof r->out_path, o->output, o->output_format,
                      o->ld_gz, -1, r->P);
  if (r->me == 0 && !err && r->hist_path[0]) {
    const int vm = (int)values_metric(o);
    err = sm_hist_write_tsv(r->hist_path, &r->hist, vm, o->num_way, r->hist_counts);
    if (!err) {
      sum->hist_path = r->hist_path;
      if (sm_hist_plot(r->hist_png, &r->hist, vm, o->num_way, r->hist_counts) > 0)
        sum->hist_png = r->hist_png;
    }
  }
  if (r->me == 0 && !err && r->topk_acc) {
    if (o->metric == SM_METRIC_CZEK && values_metric(o) != o->metric) {
      /* dissimilarities: the lists hold -value */
      const size_t places = r->d.nv * r->topk.lists * r->topk.k;
      for (size_t p = 0; p < places; p++)
        if (r->topk_acc[p].nb != SM_TOPK_EMPTY)
          r->topk_acc[p].value = -r->topk_acc[p].value;
    }
    const sm_topk_file_t tf = {.spec = &r->topk,
                               .lists = r->topk_acc,
                               .nv = r->d.nv,
                               .nf = r->d.nf,
                               .ccc = o->metric == SM_METRIC_CCC && !sm_compute_ld(o),
                               .single = o->single,
                               .names = r->names,
                               .binary = o->output_format == SM_OUT_BIN};
    err = sm_topk_write(r->topk_path, &tf, &sum->topk_rows);
    if (!err)
      sum->topk_path = r->topk_path;
  }
#ifdef SM_SIMULATION
  sum->status = err == SM_OK ? "simulated" : sm_strerror(err);
#else
  sum->status = err == SM_OK ? "ok" : sm_strerror(err);
#endif
  if (r->me == 0) {
    if (r->json_path[0]) {
      sm_err_t jerr = sm_summary_write_json(sum, r->json_path);
      if (!err)
        err = jerr;
    }
    if (!o->quiet)
      sm_summary_print(sum, stdout);
  }
  return err;
}

/* The one cleanup: the job's end (its partial files kept for --resume
 * when they hold completed blocks, its lock released). */
static void cleanup(run_t *r, sm_err_t err)
{
  sm_job_end(&r->job, err, r->sink.blocks_done);
  sm_sink_release(&r->sink);
  free(r->hist_counts);
  free(r->topk_acc);
  free(r->all);
  free(r->rts);
  sm_vectors_free(&r->v);
  for (size_t i = 0; r->names && i < r->d.nv; i++)
    free(r->names[i]);
  free(r->names);
  free(r->ld_win);
  sm_loci_free(&r->loci);
  free(r->vsel);
  free(r->ssel);
  free(r->ld_at);
  free(r->ld_index);
  free(r->ld_rev);
  free(r->ld_freq);
}

int sm_compute_main(const sm_options_t *o, const char *command)
{
  run_t r = {.o = o, .command = command, .t0 = sm_now()};
  r.me = sm_mpi_rank();
  r.P = sm_mpi_size();
  sm_log_set_quiet(o->quiet || r.me != 0);
  if (o->metric_from_input)
    sm_log_info("metric ccc: %s holds genotypes, which ccc reads (--metric r2 or r "
                "gives PLINK's LD r^2 or r)",
                o->input);
  if (o->ld_default_window)
    sm_log_info(
        "metric %s: PLINK's .ld table in plink1.9 --r2's default window (10 "
        "variants, 1000 kb, r^2 >= 0.2; --ld-window, --ld-window-kb and "
        "--ld-window-r2 change it, --inter-chr --ld-window-r2 0 takes every pair)",
        o->form == SM_FORM_R ? "r" : "r2");
  sm_err_t err = claim_outputs(&r);
  if (!err)
    err = plan(&r);
  if (!err)
    err = load_slice(&r);
  if (!err)
    err = ld_windows(&r);
  if (!err)
    err = open_results(&r);
  if (!err) {
    open_sink(&r);
    double t1 = sm_now();
    err = o->method == SM_METHOD_REF ? run_ref(&r, t1) : run_tasks(&r, t1);
    err = gather_report(&r, err);
    err = (sm_err_t)sm_mpi_agree(commit(&r, err));
  }
  cleanup(&r, err);
  return err;
}

int sm_synth_main(const sm_options_t *o)
{
  sm_vectors_t v = {0};
  sm_err_t err = sm_mem_check_synth(o);
  if (err)
    return err;
  err = sm_synth_make(&o->synth, o->single ? 4 : 8, 0, 0, 0, 0, &v);
  if (err)
    return err;
  err = sm_vectors_write(&v, o->input_format, o->output);
  if (!err)
    sm_log_info("wrote %zu vectors x %zu fields to %s", v.nv, v.nf, o->output);
  sm_vectors_free(&v);
  return err;
}
