/* sm_read_select.c: PLINK's variant filters on a genotype input: those
 * plink1.9 applies as it reads the .bim (--chr, --not-chr, --from/--to
 * and their positions in bp, --snp, --exclude-snp, --window), then
 * --extract and --exclude (lists of variant ids), as PLINK 1.9 applies
 * them (a variant is kept when its chromosome and position are chosen,
 * its id is in the --extract list and not in the --exclude list; ids
 * listed that the input lacks are ignored; every variant of an id listed
 * twice in the input is kept or dropped); the QC filters of its calls
 * (--geno, --maf, --mac, --mind) and --bp-space. The readers then read the
 * kept variants only (sm_read_opts_t.vsel). */
#include "sm_read.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_error.h"
#include "sm_read_util.h"

/* A list file's ids, sorted (and the file's bytes they point into). */
typedef struct idlist {
  char *text;
  char **id;
  size_t n;
} idlist_t;

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the ids of a list file: words separated by white space (PLINK
 * reads one or several a line). */
static sm_err_t idlist_read(const char *opt, const char *path, int say, idlist_t *l)
{
  memset(l, 0, sizeof *l);
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (say)
      sm_log_error("--%s %s: cannot open it: %s", opt, path, strerror(errno));
    return SM_EIO;
  }
  size_t len = 0, cap = 0;
  sm_err_t err = SM_OK;
  for (;;) {
    if (cap - len < 65536) {
      char *t = realloc(l->text, cap = 2 * cap + 65536 + 1);
      if (!t) {
        err = SM_ENOMEM;
        break;
      }
      l->text = t;
    }
    const size_t got = fread(l->text + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0)
      break;
  }
  if (!err && ferror(f)) {
    if (say)
      sm_log_error("--%s %s: cannot read it: %s", opt, path, strerror(errno));
    err = SM_EIO;
  }
  fclose(f);
  if (!err && memchr(l->text, '\0', len)) {
    if (say)
      sm_log_error("--%s %s: a NUL byte: it is not a text file of variant ids", opt,
                   path);
    err = SM_EFORMAT;
  }
  size_t idcap = 0;
  for (char *p = l->text, *end = l->text + len; !err && p < end;) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      *p++ = '\0';
    if (p == end)
      break;
    if (l->n == idcap) {
      char **g = realloc(l->id, (idcap = 2 * idcap + 1024) * sizeof *g);
      if (!g) {
        err = SM_ENOMEM;
        break;
      }
      l->id = g;
    }
    l->id[l->n++] = p;
    while (p < end && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      p++;
  }
  if (!err && l->text)
    l->text[len] = '\0';
  if (err == SM_ENOMEM && say)
    sm_log_error("--%s %s: out of memory for its ids", opt, path);
  if (!err && l->n)
    qsort(l->id, l->n, sizeof *l->id, by_name);
  return err;
}

static int idlist_has(const idlist_t *l, const char *id)
{
  return l->n && bsearch(&id, l->id, l->n, sizeof *l->id, by_name) != NULL;
}

static void idlist_free(idlist_t *l)
{
  free(l->text);
  free(l->id);
  memset(l, 0, sizeof *l);
}

/* The input's chromosomes, for a message (at most about 400 bytes). */
static void chrom_list(const sm_loci_t *l, char *buf, size_t len)
{
  buf[0] = '\0';
  for (size_t k = 0, c = 0; k < l->nchrom && c + 70 < len; k++)
    c += (size_t)snprintf(buf + c, len - c, "%s%s", k ? ", " : "", l->chrom_names[k]);
}

/* The one variant of l whose id is `id` (of option --opt): its index in
 * *at, or SM_EOPTION (said) when the input has none or several. */
static sm_err_t id_at(const char *input, const sm_loci_t *l, const char *opt,
                      const char *id, int say, size_t *at)
{
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->ids[i], id))
      *at = i, n++;
  if (n == 1)
    return SM_OK;
  if (say && !n)
    sm_log_error("%s: --%s variant '%s' not found (ids are a .bim's second column, a "
                 "VCF's ID, chrom:pos where it is \".\")",
                 input, opt, id);
  else if (say)
    sm_log_error(
        "%s: --%s '%s': %zu variants have that id (plink1.9: \"Duplicate variant "
        "ID\"); choose them by position (--chr with --from-bp/--to-bp)",
        input, opt, id, n);
  return SM_EOPTION;
}

/* PLINK's positional filters (load_bim's): the chromosome they pin (-1:
 * none) and the range of positions [*lo, *hi] kept on it; --snp without
 * --window also pins the id (*only). */
static sm_err_t pos_range(const char *input, const sm_loci_t *l, const sm_vfilter_t *f,
                          int say, long *chrom, int64_t *lo, int64_t *hi, long *only)
{
  *chrom = -1, *lo = 0, *hi = INT64_MAX, *only = -1;
  size_t a = 0, b = 0;
  if (f->snp) {
    if (id_at(input, l, "snp", f->snp, say, &a))
      return SM_EOPTION;
    *chrom = (long)l->chrom[a];
    if (f->window_bp < 0) {
      *lo = *hi = l->pos[a], *only = (long)a;
      return SM_OK;
    }
    *lo = (int64_t)l->pos[a] - f->window_bp, *hi = (int64_t)l->pos[a] + f->window_bp;
    return SM_OK;
  }
  if (f->from && id_at(input, l, "from", f->from, say, &a))
    return SM_EOPTION;
  if (f->to && id_at(input, l, "to", f->to, say, &b))
    return SM_EOPTION;
  if (f->from && f->to && l->chrom[a] != l->chrom[b]) {
    if (say)
      sm_log_error("%s: --from and --to variants are not on the same chromosome (%s on "
                   "%s, %s on %s)",
                   input, f->from, l->chrom_names[l->chrom[a]], f->to,
                   l->chrom_names[l->chrom[b]]);
    return SM_EOPTION;
  }
  if (f->from || f->to)
    *chrom = (long)l->chrom[f->from ? a : b];
  if (f->from)
    *lo = l->pos[a];
  else if (f->from_bp >= 0)
    *lo = f->from_bp;
  if (f->to)
    *hi = l->pos[b];
  else if (f->to_bp >= 0)
    *hi = f->to_bp;
  if (*lo > *hi) { /* PLINK swaps reversed bounds */
    const int64_t t = *lo;
    *lo = *hi, *hi = t;
  }
  return SM_OK;
}

/* PLINK's ranges of ids (--snps, --exclude-snps, --ld-snps: opt) in
 * spec, over the n variants s (indices into l, ascending; NULL: l's
 * variants): in[k] set for those in a range (the variants between its ends
 * in the file's order, both included; an item without '-' one variant),
 * each end the id of one of them; a reversed range is an error when
 * ordered (plink1.9's --ld-snps), else turned round (its --snps). */
static sm_err_t id_ranges(const char *input, const sm_loci_t *l, const char *opt,
                          const char *spec, int ordered, int say, const uint32_t *s,
                          size_t n, unsigned char *in)
{
  char *text = strdup(spec), *save = NULL;
  sm_err_t err = text ? SM_OK : SM_ENOMEM;
  size_t items = 0;
  for (char *tok = text ? strtok_r(text, ", \t\n", &save) : NULL; !err && tok;
       tok = strtok_r(NULL, ", \t\n", &save), items++) {
    char *dash = strchr(tok, '-');
    if (dash == tok || (dash && !dash[1])) {
      if (say)
        sm_log_error("--%s '%s': give ids or ranges of ids (ID1-ID2) separated by "
                     "commas, as PLINK's",
                     opt, tok);
      err = SM_EOPTION;
      break;
    }
    if (dash)
      *dash = '\0';
    const char *end[2] = {tok, dash ? dash + 1 : tok};
    size_t at[2] = {0, 0};
    for (int e = 0; !err && e < 2; e++) {
      size_t found = 0;
      for (size_t k = 0; k < n; k++)
        if (!strcmp(l->ids[s ? s[k] : k], end[e]))
          at[e] = k, found++;
      if (!found && say)
        sm_log_error("%s: --%s variant '%s' not found among the variants left", input,
                     opt, end[e]);
      else if (found > 1 && say)
        sm_log_error("%s: --%s '%s': %zu of the variants left have that id", input, opt,
                     end[e], found);
      if (found != 1)
        err = SM_EOPTION;
    }
    if (!err && ordered && at[1] < at[0]) {
      if (say)
        sm_log_error("--%s %s-%s: the range's second variant comes before its first in "
                     "the file (plink1.9: \"Second element of --%s range appears before "
                     "first\")",
                     opt, end[0], end[1], opt);
      err = SM_EOPTION;
    }
    for (size_t k = at[0] < at[1] ? at[0] : at[1];
         !err && k <= (at[0] < at[1] ? at[1] : at[0]); k++)
      in[k] = 1;
  }
  if (!err && !items) {
    if (say)
      sm_log_error("--%s '%s': no id given", opt, spec);
    err = SM_EOPTION;
  }
  if (err == SM_ENOMEM)
    sm_log_error("%s: out of memory for --%s", input, opt);
  free(text);
  return err;
}

/* PLINK's --snps (or with excl --exclude-snps) RANGES: of the n variants
 * s, those in (out of) the ranges (id_ranges). Into s and *n. */
static sm_err_t snps_ranges(const char *input, const sm_loci_t *l, const char *spec,
                            int excl, int say, uint32_t *s, size_t *n)
{
  unsigned char *in = calloc(*n, 1);
  sm_err_t err =
      in ? id_ranges(input, l, excl ? "exclude-snps" : "snps", spec, 0, say, s, *n, in)
         : SM_ENOMEM;
  size_t m = 0;
  for (size_t k = 0; !err && k < *n; k++)
    if (in[k] != excl)
      s[m++] = s[k];
  if (!err)
    *n = m;
  free(in);
  return err;
}

sm_err_t sm_read_select(const char *input, const sm_loci_t *l, const sm_vfilter_t *f,
                        int say, uint32_t **sel, size_t *nsel)
{
  *sel = NULL;
  *nsel = 0;
  idlist_t ext = {0}, exc = {0};
  signed char *in = calloc(l->nchrom ? l->nchrom : 1, 1);
  uint32_t *s = malloc((l->n ? l->n : 1) * sizeof *s);
  sm_err_t err = in && s ? SM_OK : SM_ENOMEM;
  if (err)
    sm_log_error("%s: out of memory for the choice of variants", input);
  const int by_id = f->from || f->to || f->snp || f->exclude_snp;
  if (!err &&
      (((f->extract || f->exclude || by_id || f->snps || f->exclude_snps) && !l->ids) ||
       (f->snps_only && !l->akind))) {
    sm_log_error("%s: the variants' ids were not read", input); /* a caller's error */
    err = SM_EOPTION;
  }
  if (!err && f->extract)
    err = idlist_read("extract", f->extract, say, &ext);
  if (!err && f->exclude)
    err = idlist_read("exclude", f->exclude, say, &exc);
  long pin = -1, only = -1;
  int64_t lo = 0, hi = INT64_MAX;
  if (!err)
    err = pos_range(input, l, f, say, &pin, &lo, &hi, &only);
  /* --exclude-snp: that variant, or with --window its neighbourhood */
  long xchrom = -1, xone = -1;
  int64_t xlo = 0, xhi = -1;
  size_t x = 0;
  if (!err && f->exclude_snp) {
    err = id_at(input, l, "exclude-snp", f->exclude_snp, say, &x);
    if (!err && f->window_bp >= 0)
      xchrom = (long)l->chrom[x], xlo = (int64_t)l->pos[x] - f->window_bp,
      xhi = (int64_t)l->pos[x] + f->window_bp;
    else if (!err)
      xone = (long)x;
  }
  for (size_t k = 0; !err && k < l->nchrom; k++) /* once a chromosome */
    in[k] = (signed char)((!f->chr || sm_read_chr_in(f->chr, l->chrom_names[k]) > 0) &&
                          (!f->not_chr ||
                           sm_read_chr_in(f->not_chr, l->chrom_names[k]) <= 0) &&
                          (pin < 0 || (long)k == pin));
  /* each filter's count of variants remaining, as PLINK says them */
  size_t on_chr = 0, after_snps = 0, after_ext = 0, n = 0;
  for (size_t i = 0; !err && i < l->n; i++) { /* plink1.9's load_bim */
    if (!in[l->chrom[i]] || (int64_t)l->pos[i] < lo || (int64_t)l->pos[i] > hi)
      continue;
    if (only >= 0 && strcmp(l->ids[i], l->ids[only]))
      continue;
    if ((long)i == xone || (xchrom >= 0 && (long)l->chrom[i] == xchrom &&
                            (int64_t)l->pos[i] >= xlo && (int64_t)l->pos[i] <= xhi))
      continue;
    if (f->snps_only && (l->akind[i] & f->snps_only) != f->snps_only)
      continue;
    s[on_chr++] = (uint32_t)i;
  }
  after_snps = on_chr;
  if (!err && on_chr && (f->snps || f->exclude_snps))
    err = snps_ranges(input, l, f->snps ? f->snps : f->exclude_snps, !f->snps, say, s,
                      &after_snps);
  for (size_t k = 0; !err && k < after_snps; k++) {
    const size_t i = s[k];
    if (f->extract && !idlist_has(&ext, l->ids[i]))
      continue;
    after_ext++;
    if (f->exclude && idlist_has(&exc, l->ids[i]))
      continue;
    s[n++] = (uint32_t)i;
  }
  char chroms[512];
  /* --chr alone keeps its own words; with the others, plink1.9's */
  const int by_pos =
      f->not_chr || by_id || f->from_bp >= 0 || f->to_bp >= 0 || f->snps_only;
  const int chr_only = f->chr && !by_pos, loaded = f->chr || by_pos;
  if (!err && loaded && !on_chr) {
    chrom_list(l, chroms, sizeof chroms);
    if (say && chr_only)
      sm_log_error("%s: no variant on --chr %s (its chromosomes: %s)", input, f->chr,
                   chroms);
    else if (say)
      sm_log_error("%s: no variant left by its chromosome and position filters (%s%s%s%s"
                   "%s%s%s%s%s; its chromosomes: %s), as plink1.9 says \"All variants "
                   "excluded\"",
                   input, f->chr ? "--chr " : "", f->chr ? f->chr : "",
                   f->not_chr ? " --not-chr " : "", f->not_chr ? f->not_chr : "",
                   f->from_bp >= 0 || f->to_bp >= 0 ? " --from-bp/--to-bp" : "",
                   f->from || f->to ? " --from/--to" : "", f->snp ? " --snp" : "",
                   f->exclude_snp ? " --exclude-snp" : "",
                   f->snps_only ? " --snps-only" : "", chroms);
    err = SM_EDEGEN;
  } else if (!err && (f->snps || f->exclude_snps) && !after_snps) {
    if (say)
      sm_log_error("%s: no variant remains after --%s %s", input,
                   f->snps ? "snps" : "exclude-snps",
                   f->snps ? f->snps : f->exclude_snps);
    err = SM_EDEGEN;
  } else if (!err && f->extract && !after_ext) {
    if (say)
      sm_log_error("%s: no variant remains after --extract %s: none of its %zu ids is a "
                   "variant id of %s%s (ids are a .bim's second column, a VCF's ID, "
                   "chrom:pos where it is \".\")",
                   input, f->extract, ext.n, input,
                   f->chr ? " on --chr's chromosomes" : "");
    err = SM_EDEGEN;
  } else if (!err && !n) {
    if (say)
      sm_log_error("%s: no variant remains after --exclude %s (it lists every one of the "
                   "%zu variants left)",
                   input, f->exclude, after_ext);
    err = SM_EDEGEN;
  }
  if (!err && say) {
    if (chr_only)
      sm_log_info("--chr %s: %zu of the %zu variants of %s", f->chr, on_chr, l->n, input);
    else if (loaded) /* plink1.9's words */
      sm_log_info("%zu out of %zu variants loaded from %s", on_chr, l->n, input);
    if (f->snps || f->exclude_snps)
      sm_log_info("--%s: %zu variants remaining", f->snps ? "snps" : "exclude-snps",
                  after_snps);
    if (f->extract)
      sm_log_info("--extract %s: %zu variants remaining (%zu ids listed)", f->extract,
                  after_ext, ext.n);
    if (f->exclude)
      sm_log_info("--exclude %s: %zu variants remaining", f->exclude, n);
  }
  idlist_free(&ext);
  idlist_free(&exc);
  free(in);
  if (err) {
    free(s);
    return err;
  }
  *sel = s;
  *nsel = n;
  return SM_OK;
}

/* An id two of l's variants share (NULL: none, or no memory to look). */
static const char *repeated_id(const sm_loci_t *l)
{
  char **ix = malloc((l->n ? l->n : 1) * sizeof *ix);
  if (!ix)
    return NULL;
  memcpy(ix, l->ids, l->n * sizeof *ix);
  qsort(ix, l->n, sizeof *ix, by_name);
  const char *dup = NULL;
  for (size_t k = 1; k < l->n && !dup; k++)
    if (!strcmp(ix[k], ix[k - 1]))
      dup = ix[k];
  free(ix);
  return dup;
}

sm_err_t sm_read_ld_snps(const char *input, const sm_loci_t *l, const char *id,
                         const char *list, const char *ranges, int say,
                         unsigned char **is_index)
{
  *is_index = NULL;
  if (ranges) { /* PLINK's --ld-snps: its ranges over the variants chosen */
    unsigned char *x = l->ids ? calloc(l->n ? l->n : 1, 1) : NULL;
    sm_err_t err = x ? id_ranges(input, l, "ld-snps", ranges, 1, say, NULL, l->n, x)
                   : l->ids ? SM_ENOMEM
                            : SM_EOPTION;
    size_t n = 0;
    for (size_t k = 0; !err && k < l->n; k++)
      n += x[k];
    if (!err && say)
      sm_log_info("--ld-snps %s: %zu variant%s", ranges, n, n == 1 ? "" : "s");
    if (err)
      free(x);
    else
      *is_index = x;
    return err;
  }
  idlist_t ids = {0};
  char *one[1] = {(char *)id};
  sm_err_t err = SM_OK;
  if (list)
    err = idlist_read("ld-snp-list", list, say, &ids);
  else
    ids.id = one, ids.n = 1;
  unsigned char *x = err || !l->ids ? NULL : calloc(l->n ? l->n : 1, 1);
  if (!err && !x) {
    if (say)
      sm_log_error(l->ids ? "%s: out of memory for --ld-snp's variants"
                          : "%s: the variants' ids were not read",
                   input);
    err = l->ids ? SM_ENOMEM : SM_EOPTION;
  }
  /* PLINK's --ld-snp-list needs every variant's id unique (its "Duplicate
   * ID" error), and --ld-snp takes the first variant of its id */
  const char *dup = list && !err ? repeated_id(l) : NULL;
  if (dup) {
    if (say)
      sm_log_error(
          "%s: the id '%.60s' names several variants: --ld-snp-list needs unique "
          "ids, as PLINK's (plink1.9 --bfile PREFIX --set-missing-var-ids "
          "'@:#:$1:$2' --keep-allele-order --make-bed --out NEW names unnamed "
          "variants '.')",
          input, dup);
    err = SM_EINCONSIST;
  }
  size_t n = 0;
  for (size_t k = 0; !err && k < l->n && !(id && n); k++)
    n += (x[k] = (unsigned char)idlist_has(&ids, l->ids[k])) != 0;
  if (!err && !n) {
    if (say)
      sm_log_error("%s: no variant of %s %s%s among the %zu read (ids are a .bim's "
                   "second column, a VCF's ID, chrom:pos where it is \".\")",
                   input, list ? "the ids of --ld-snp-list" : "id", list ? list : id,
                   list ? "" : " (--ld-snp)", l->n);
    err = SM_EDEGEN;
  }
  if (!err && say)
    sm_log_info("--ld-snp%s %s: %zu variant%s", list ? "-list" : "", list ? list : id, n,
                n == 1 ? "" : "s");
  if (list)
    idlist_free(&ids);
  if (err) {
    free(x);
    return err;
  }
  *is_index = x;
  return SM_OK;
}

/* plink1.9's epsilons (plink_common.h): thresholds widened by 2^-44, a
 * call rate within 2^-35 of 1 taken as 1 */
#define QC_SMALL_EPS 0.00000000000005684341886080801486968994140625
#define QC_SMALLISH_EPS 0.00000000002910383045673370361328125

/* Calls of one variant of a class of samples: homozygous 0 and 2 copies,
 * heterozygous; all samples of the class, and its founders. */
typedef struct qc_ct {
  size_t all[3], fou[3];
} qc_ct_t;

/* The call rate and allele counts (of both alleles, *alleles, and of
 * allele 1, *a1) of variant row (nf samples of status st) on a chromosome
 * of haploid kind hap, as plink1.9's calc_freqs_and_hwe counts them. */
static void qc_counts(const uint64_t *row, size_t nf, const unsigned char *st,
                      int nonfounders, int hap, size_t nmale, double *rate,
                      uint64_t *alleles_out, uint64_t *a1_out)
{
  qc_ct_t c[3] = {0}; /* males, females, unknown sex */
  for (size_t f = 0; f < nf; f++) {
    const unsigned g = sm_gt_get(row, f);
    if (g == SM_GT_MISSING)
      continue;
    const int k = g == SM_GT_0 ? 0 : g == SM_GT_2 ? 1 : 2; /* hom 0, hom 2, het */
    const int who = st[f] & SM_SAMPLE_MALE ? 0 : st[f] & SM_SAMPLE_FEMALE ? 1 : 2;
    c[who].all[k]++;
    if (nonfounders || !(st[f] & SM_SAMPLE_NONFOUNDER))
      c[who].fou[k]++;
  }
#define QC_CALLS(x) ((x).all[0] + (x).all[1] + (x).all[2])
  uint64_t alleles, a1;  /* alleles called, copies of allele 1 among them */
  if (hap == SM_HAP_X) { /* non-males diploid, males one allele (hets: none) */
    size_t d[3];
    for (int k = 0; k < 3; k++)
      d[k] = c[1].fou[k] + c[2].fou[k];
    alleles = 2 * (d[0] + d[1] + d[2]) + c[0].fou[0] + c[0].fou[1];
    a1 = 2 * d[1] + d[2] + c[0].fou[1];
    *rate =
        (double)(QC_CALLS(c[0]) + QC_CALLS(c[1]) + QC_CALLS(c[2])) * (1.0 / (double)nf);
  } else if (hap == SM_HAP_Y) { /* males only, one allele */
    alleles = c[0].fou[0] + c[0].fou[1];
    a1 = c[0].fou[1];
    *rate = nmale ? (double)QC_CALLS(c[0]) * (1.0 / (double)nmale) : 0;
  } else {
    size_t fou[3] = {0, 0, 0};
    for (int who = 0; who < 3; who++)
      for (int k = 0; k < 3; k++)
        fou[k] += c[who].fou[k];
    alleles = 2 * (fou[0] + fou[1] + fou[2]);
    a1 = 2 * fou[1] + fou[2];
    *rate =
        (double)(QC_CALLS(c[0]) + QC_CALLS(c[1]) + QC_CALLS(c[2])) * (1.0 / (double)nf);
  }
#undef QC_CALLS
  if (*rate > 1 - QC_SMALLISH_EPS)
    *rate = 1;
  *alleles_out = alleles, *a1_out = a1;
}

/* The call rate, minor allele frequency (0.5 without calls) and minor
 * allele count (0 without calls), as plink1.9 computes them. */
static void qc_stats(const uint64_t *row, size_t nf, const unsigned char *st,
                     int nonfounders, int hap, size_t nmale, double *rate, double *maf,
                     uint64_t *mac)
{
  uint64_t alleles, a1;
  qc_counts(row, nf, st, nonfounders, hap, nmale, rate, &alleles, &a1);
  const double fr = alleles ? (double)a1 / (double)alleles : 0.5;
  *maf = fr <= 0.5 ? fr : 1.0 - fr;
  *mac = a1 <= alleles - a1 ? a1 : alleles - a1;
}

/* Per chromosome of l its sm_read_haploid_chrom, and the males among st
 * (nf samples); NULL without memory. */
static signed char *hap_kinds(const sm_loci_t *l, const unsigned char *st, size_t nf,
                              size_t *nmale)
{
  signed char *hap = calloc(l->nchrom ? l->nchrom : 1, 1);
  for (size_t c = 0; hap && c < l->nchrom; c++)
    hap[c] = (signed char)sm_read_haploid_chrom(l->chrom_names[c]);
  *nmale = 0;
  for (size_t f = 0; f < nf; f++)
    *nmale += (st[f] & SM_SAMPLE_MALE) != 0;
  return hap;
}

sm_err_t sm_read_ld_alleles(const sm_vectors_t *v, const sm_loci_t *l,
                            const unsigned char *st, int nonfounders, int keep_a1,
                            unsigned char *rev, double *freq)
{
  size_t nmale;
  signed char *hap = hap_kinds(l, st, v->nf, &nmale);
  if (!hap)
    return SM_ENOMEM;
  for (size_t i = 0; i < v->nv; i++) {
    double rate;
    uint64_t alleles, a1;
    qc_counts(sm_vectors_row(v, i), v->nf, st, nonfounders, hap[l->chrom[i]], nmale,
              &rate, &alleles, &a1);
    /* PLINK's set_allele_freqs: A2's frequency (0.5 without calls), then
     * reversed below 0.5 (calc_marker_reverse_bin); its with-freqs
     * columns print 1 minus it, the doubles computed as PLINK's are */
    double f2 = alleles ? (double)(alleles - a1) / (double)alleles : 0.5;
    const int r = !keep_a1 && f2 < 0.5;
    if (r)
      f2 = 1.0 - f2;
    if (rev)
      rev[i] = (unsigned char)r;
    if (freq)
      freq[i] = 1.0 - f2;
  }
  free(hap);
  return SM_OK;
}

sm_err_t sm_read_mind(const char *input, const sm_vectors_t *v, const sm_loci_t *l,
                      const unsigned char *st, double mind, int say, uint32_t **keep,
                      size_t *nkeep)
{
  *keep = NULL, *nkeep = 0;
  size_t nmale, ny = 0;
  const size_t nf = v->nf, nw = (nf + SM_GT_PER_WORD - 1) / SM_GT_PER_WORD;
  uint32_t *miss = calloc(nf ? nf : 1, sizeof *miss),
           *k = malloc((nf ? nf : 1) * sizeof *k);
  uint64_t *male = calloc(nw ? nw : 1, sizeof *male); /* the males' low bits */
  signed char *hap = hap_kinds(l, st, nf, &nmale);
  if (!miss || !k || !male || !hap) {
    free(miss), free(k), free(male), free(hap);
    sm_log_error("%s: out of memory for --mind", input);
    return SM_ENOMEM;
  }
  for (size_t f = 0; f < nf; f++)
    if (st[f] & SM_SAMPLE_MALE)
      male[f / SM_GT_PER_WORD] |= UINT64_C(1) << (2 * (f % SM_GT_PER_WORD));
  const uint64_t lo = UINT64_C(0x5555555555555555);
  for (size_t i = 0; i < v->nv; i++) {
    const uint64_t *row = sm_vectors_row(v, i);
    const int y = hap[l->chrom[i]] == SM_HAP_Y; /* a non-male's Y call is not counted */
    ny += (size_t)y;
    for (size_t w = 0; w < nw; w++) {
      uint64_t m = (row[w] >> 1) & ~row[w] & lo; /* code 10: missing */
      if (y)
        m &= male[w];
      for (; m; m &= m - 1)
        miss[w * SM_GT_PER_WORD + (size_t)__builtin_ctzll(m) / 2]++;
    }
  }
  /* plink1.9's integer thresholds: males over every variant, the others
   * over those not on Y */
  const uint32_t thr[2] = {
      (uint32_t)(int32_t)(mind * (double)(int32_t)(v->nv - ny) * (1 + QC_SMALL_EPS)),
      (uint32_t)(int32_t)(mind * (double)(int32_t)v->nv * (1 + QC_SMALL_EPS))};
  size_t n = 0;
  for (size_t f = 0; f < nf; f++)
    if (miss[f] <= thr[(st[f] & SM_SAMPLE_MALE) != 0])
      k[n++] = (uint32_t)f;
  free(miss), free(male), free(hap);
  if (say)
    sm_log_info("--mind %g: %zu sample%s removed due to missing genotype data", mind,
                nf - n, nf - n == 1 ? "" : "s");
  if (!n) {
    if (say)
      sm_log_error("%s: all %zu samples removed due to missing genotype data (--mind "
                   "%g), as plink1.9 removes them",
                   input, nf, mind);
    free(k);
    return SM_EDEGEN;
  }
  *keep = k, *nkeep = n;
  return SM_OK;
}

int sm_hwe_fails(int64_t het, int64_t hom1, int64_t hom2, double thresh, int midp)
{
  /* plink1.9's decision (its SNPHWE_t, SNPHWE_midp_t): the probabilities
   * of the configurations with the observed allele counts, relative to the
   * observed one (set to 2^-83, far from both overflow and underflow),
   * by the recurrence between configurations two heterozygotes apart,
   * walked from the observed configuration:
   * towards the mode the center (failing at once past a bound), then each
   * tail only as far as needed, bounded by geometric series. When the
   * tail beyond the mode ends before it decides, the variant fails, as in
   * plink1.9 (whose exact p there can be above the threshold). */
  const double bias = 0x1p-83, eps = 0x1p-44;
  const int64_t homc = hom1 < hom2 ? hom2 : hom1, homr = hom1 < hom2 ? hom1 : hom2;
  const int64_t rare = 2 * homr + het, n2 = 2 * (het + homc + homr);
  if (!n2)
    return 0;
  const double t = (1 - thresh) / thresh; /* reverse odds */
  const int upper = het * n2 > rare * (n2 - rare);
  if (upper ? het < 2 : !homr)
    return 0;
  double h2 = (double)het, r2 = (double)homr, c2 = (double)homc;
  double tail1 = (1 - eps) * bias * (midp ? 0.5 : 1), center = midp ? tail1 : 0;
  double p2 = (1 - eps) * bias, tail2 = 0, p1, before;
  double exit = (double)(1 + rare / 2) * t * bias;
  /* towards the mode (upper: fewer heterozygotes) */
  do {
    if (upper)
      r2 += 1, c2 += 1, p2 *= h2 * (h2 - 1) / (4 * r2 * c2), h2 -= 2;
    else
      h2 += 2, p2 *= 4 * r2 * c2 / (h2 * (h2 - 1)), r2 -= 1, c2 -= 1;
    if (p2 < bias) {
      if (midp && p2 > (1 - 2 * eps) * bias) /* a tie: half of it each side */
        tail2 = tail1, center += tail1;
      else
        tail2 = p2;
      break;
    }
    center += p2;
    if (center > exit)
      return 1;
  } while (upper ? h2 > 1.5 : r2 > 0.5);
  exit = center / t;
  if (tail1 + tail2 >= exit)
    return 0;
  const double ratio = upper ? h2 * (h2 - 1) / (4 * (r2 + 1) * (c2 + 1))
                             : 4 * r2 * c2 / ((h2 + 2) * (h2 + 1));
  const double tail2_ceil = midp ? tail2 + p2 * ratio / (1 - ratio) : tail2 / (1 - ratio);
  /* the near tail (upper: more heterozygotes) */
  double h1 = (double)het + (upper ? 2 : 0), r1 = (double)homr + (upper ? 0 : 1),
         c1 = (double)homc + (upper ? 0 : 1);
  p1 = upper ? 4 * r1 * c1 / (h1 * (h1 - 1)) : h1 * (h1 - 1) / (4 * r1 * c1);
  const double tail1_ceil = midp ? 2 * tail1 / (1 - p1) - tail1 : tail1 / (1 - p1);
  if (upper && tail1_ceil + tail2_ceil < exit)
    return 1;
  p1 *= midp ? 2 * tail1 : tail1;
  tail1 += p1;
  if (!upper && tail1_ceil + tail2_ceil < exit)
    return 1;
  if (upper ? homr > 1 : het >= 4) {
    const double exitx = exit - tail2;
    do {
      if (upper)
        h1 += 2, r1 -= 1, c1 -= 1, p1 *= 4 * r1 * c1 / (h1 * (h1 - 1));
      else
        h1 -= 2, r1 += 1, c1 += 1, p1 *= h1 * (h1 - 1) / (4 * r1 * c1);
      before = tail1;
      tail1 += p1;
      if (tail1 > exitx)
        return 0;
      if (tail1 <= before)
        break;
    } while (upper ? r1 > 1.5 : h1 > 3.5);
  }
  if (tail1 + tail2_ceil < exit)
    return 1;
  /* on past the mode: the far tail */
  const double exitx = exit - tail1;
  while (upper ? h2 > 1 : r2 > 0.5) {
    if (upper)
      r2 += 1, c2 += 1, p2 *= h2 * (h2 - 1) / (4 * r2 * c2);
    else
      h2 += 2, p2 *= 4 * r2 * c2 / (h2 * (h2 - 1)), r2 -= 1, c2 -= 1;
    before = tail2;
    tail2 += p2;
    if (tail2 >= exitx)
      return 0;
    if (tail2 <= before)
      return 1;
    if (upper)
      h2 -= 2;
  }
  return 1;
}

/* The genotype counts (het, and the two homozygotes) of row over the
 * samples marked in use (on X the non-males among them) */
static void hwe_counts(const uint64_t *row, size_t nf, const unsigned char *use,
                       const unsigned char *st, int x, int64_t c[3])
{
  c[0] = c[1] = c[2] = 0;
  for (size_t f = 0; f < nf; f++) {
    if (!use[f] || (x && (st[f] & SM_SAMPLE_MALE)))
      continue;
    const unsigned g = sm_gt_get(row, f);
    if (g != SM_GT_MISSING)
      c[g == SM_GT_0 ? 1 : g == SM_GT_2 ? 2 : 0]++;
  }
}

/* A tested variant's observations (c's sum) into the most and the fewest
 * (on X apart); 0, so that it goes in a condition's comma list. */
static int hwe_obs(const int64_t c[3], int x, int64_t *most, int64_t *fewest,
                   int64_t *fewest_x)
{
  const int64_t o = c[0] + c[1] + c[2];
  *most = o > *most ? o : *most;
  int64_t *f = x ? fewest_x : fewest;
  *f = o < *f ? o : *f;
  return 0;
}

/* The samples --hwe counts (plink1.9's): the founders (every sample with
 * nonfounders) that are controls, or all of them (q->hwe_all, no control
 * among the samples, a chromosome split in l); a sample of unknown sex has
 * no phenotype without --allow-no-sex. NULL without memory. */
static unsigned char *hwe_samples(const sm_loci_t *l, const unsigned char *st, size_t nf,
                                  int nonfounders, const sm_qc_t *q)
{
  unsigned char *use = malloc(nf ? nf : 1);
  if (!use)
    return NULL;
  size_t ctrl = 0;
  for (size_t f = 0; f < nf; f++) {
    const int sexed = q->allow_no_sex || (st[f] & (SM_SAMPLE_MALE | SM_SAMPLE_FEMALE));
    use[f] = (unsigned char)(sexed && (st[f] & SM_SAMPLE_CONTROL));
    ctrl += use[f];
  }
  int all = q->hwe_all || !ctrl;
  /* a chromosome in two runs of the file: a run's chromosome seen before */
  unsigned char *seen = all ? NULL : calloc(l->nchrom ? l->nchrom : 1, 1);
  if (!all && !seen) {
    free(use);
    return NULL;
  }
  for (size_t i = 0; !all && i < l->n; i++)
    if (!i || l->chrom[i] != l->chrom[i - 1]) {
      all = seen[l->chrom[i]];
      seen[l->chrom[i]] = 1;
    }
  free(seen);
  for (size_t f = 0; f < nf; f++)
    use[f] = (unsigned char)((all || use[f]) &&
                             (nonfounders || !(st[f] & SM_SAMPLE_NONFOUNDER)));
  return use;
}

sm_err_t sm_read_qc(const char *input, const sm_vectors_t *v, const sm_loci_t *l,
                    const unsigned char *st, int nonfounders, const sm_qc_t *q, int say,
                    uint32_t **keep, size_t *nkeep)
{
  *keep = NULL, *nkeep = 0;
  size_t nmale;
  uint32_t *k = malloc((v->nv ? v->nv : 1) * sizeof *k);
  signed char *hap = hap_kinds(l, st, v->nf, &nmale);
  if (!k || !hap) {
    free(k), free(hap);
    sm_log_error("%s: out of memory for --geno/--maf", input);
    return SM_ENOMEM;
  }
  const int by_geno = q->geno >= 0 && q->geno < 1;
  /* plink1.9 counts alleles only when a threshold can remove a variant */
  const int by_mac = q->mac > 0 || (q->max_mac >= 0 && (uint64_t)q->max_mac < v->nf);
  const int by_maf = q->maf > 0 || (q->max_maf >= 0 && q->max_maf < 0.5) || by_mac;
  const uint64_t mac_lo = q->mac > 0 ? (uint64_t)q->mac : 0,
                 mac_hi = q->max_mac >= 0 ? (uint64_t)q->max_mac : UINT64_MAX;
  const int by_hwe = q->hwe > 0;
  unsigned char *hw = by_hwe ? hwe_samples(l, st, v->nf, nonfounders, q) : NULL;
  /* per chromosome: 0 not tested (Y, MT), 1 diploid, 2 X */
  unsigned char *hk = by_hwe ? malloc(l->nchrom ? l->nchrom : 1) : NULL;
  if (by_hwe && (!hw || !hk)) {
    free(k), free(hap), free(hw), free(hk);
    sm_log_error("%s: out of memory for --hwe", input);
    return SM_ENOMEM;
  }
  for (size_t c = 0; hk && c < l->nchrom; c++) {
    char code[64];
    sm_read_chrom_code(l->chrom_names[c], code);
    hk[c] = (unsigned char)(!strcmp(code, "24") || !strcmp(code, "26") ? 0
                            : !strcmp(code, "23")                      ? 2
                                                                       : 1);
  }
  const double hwe_t = q->hwe * (1 - QC_SMALL_EPS);
  size_t hwe_out = 0;
  const double min_rate = by_geno ? (1.0 - q->geno) * (1 - QC_SMALL_EPS) : 0;
  const double lo = q->maf > 0 ? q->maf * (1 - QC_SMALL_EPS) : 0,
               hi = q->max_maf >= 0 ? q->max_maf * (1 + QC_SMALL_EPS) : 1;
  size_t n = 0, geno_out = 0, maf_out = 0;
  /* the observations of the variants --hwe tests: the most, the fewest
   * off X, the fewest on X (plink1.9's warning when they vary by 10%) */
  int64_t obs_max = 0, obs_min = INT64_MAX, obs_min_x = INT64_MAX;
  for (size_t i = 0; i < v->nv; i++) {
    double rate, maf;
    uint64_t mac;
    qc_stats(sm_vectors_row(v, i), v->nf, st, nonfounders, hap[l->chrom[i]], nmale, &rate,
             &maf, &mac);
    int64_t hc[3];
    if (by_geno && rate < min_rate)
      geno_out++;
    else if (by_hwe && hk[l->chrom[i]] &&
             (hwe_counts(sm_vectors_row(v, i), v->nf, hw, st, hk[l->chrom[i]] == 2, hc),
              hwe_obs(hc, hk[l->chrom[i]] == 2, &obs_max, &obs_min, &obs_min_x),
              sm_hwe_fails(hc[0], hc[1], hc[2], hwe_t, q->hwe_midp)))
      hwe_out++;
    else if (by_maf && (maf < lo || maf > hi || mac < mac_lo || mac > mac_hi))
      maf_out++;
    else
      k[n++] = (uint32_t)i;
  }
  free(hap), free(hw), free(hk);
  if (say && by_geno)
    sm_log_info("--geno %g: %zu variant%s removed due to missing genotype data", q->geno,
                geno_out, geno_out == 1 ? "" : "s");
  if (say && by_hwe && obs_min < INT64_MAX && obs_max * 9 > obs_min * 10)
    sm_log_warn(
        "--hwe observation counts vary by more than 10%%: consider --geno, and/or "
        "different p-value thresholds for distinct subsets of your data (as "
        "plink1.9 warns)");
  else if (say && by_hwe && obs_min_x < INT64_MAX && obs_max * 9 > obs_min_x * 10)
    sm_log_warn(
        "--hwe observation counts vary by more than 10%%, due to the X chromosome: "
        "its males are left out of the test there, so the same departure from "
        "Hardy-Weinberg gives a less extreme p than elsewhere; consider a more "
        "stringent --hwe threshold for X variants (as plink1.9 warns)");
  if (say && by_hwe)
    sm_log_info("--hwe: %zu variant%s removed due to Hardy-Weinberg exact test", hwe_out,
                hwe_out == 1 ? "" : "s");
  if (say && by_maf)
    sm_log_info("--maf/--max-maf/--mac/--max-mac: %zu variant%s removed due to minor "
                "allele threshold(s)",
                maf_out, maf_out == 1 ? "" : "s");
  if (!n) {
    if (say)
      sm_log_error(
          "%s: all variants removed by PLINK's QC filters (of the %zu chosen, %zu by "
          "--geno, %zu by --hwe, %zu by --maf/--max-maf/--mac/--max-mac)",
          input, v->nv, geno_out, hwe_out, maf_out);
    free(k);
    return SM_EDEGEN;
  }
  *keep = k, *nkeep = n;
  return SM_OK;
}

sm_err_t sm_read_bp_space(const char *input, const sm_loci_t *l, uint32_t space, int say,
                          uint32_t **keep, size_t *nkeep)
{
  *keep = NULL, *nkeep = 0;
  for (size_t i = 1; i < l->n; i++)
    if (l->chrom[i] == l->chrom[i - 1] && l->pos[i] < l->pos[i - 1]) {
      if (say)
        sm_log_error(
            "%s: --bp-space needs the variants sorted by position, and %s (%s:%u) "
            "comes after %s:%u; sort them (plink1.9 --bfile IN --make-bed --out "
            "SORTED; a VCF: bcftools sort)",
            input, l->ids ? l->ids[i] : "a variant", l->chrom_names[l->chrom[i]],
            l->pos[i], l->chrom_names[l->chrom[i - 1]], l->pos[i - 1]);
      return SM_EOPTION;
    }
  uint32_t *k = malloc((l->n ? l->n : 1) * sizeof *k);
  if (!k) {
    sm_log_error("%s: out of memory for --bp-space", input);
    return SM_ENOMEM;
  }
  size_t n = 0;
  int64_t last = 0;
  for (size_t i = 0; i < l->n; i++) {
    /* the first of a chromosome always kept (plink1.9 starts each at
     * -2^31 + 1) */
    if (i && l->chrom[i] == l->chrom[i - 1] && (int64_t)l->pos[i] < last + space)
      continue;
    last = l->pos[i];
    k[n++] = (uint32_t)i;
  }
  if (say)
    sm_log_info("--bp-space: %zu variant%s removed (%zu remaining)", l->n - n,
                l->n - n == 1 ? "" : "s", n);
  *keep = k, *nkeep = n;
  return SM_OK;
}
