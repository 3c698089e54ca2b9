/* sm_read_vcf.c: VCF/BCF genotypes (FORMAT/GT) for CCC through htslib:
 * records are the vectors as plink1.9 --vcf reads them (a multi-allelic
 * record's most common ALT; gVCF's symbolic ALT not counting as an allele,
 * its reference blocks skipped), samples the fields, a call's code its ALT
 * dosage. Read in one pass; the slice's rows are kept. */
#include "sm_read.h"
#include "sm_hts.h"
#include "sm_read_util.h"

#include <errno.h>
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/khash_str2int.h>
#include <htslib/tbx.h> /* hts_get_bgzfp (declared there in htslib 1.16) */
#include <htslib/vcf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A half-call (0/.) under --vcf-half-call e: call_code's answer. */
enum { HALF_CALL_ERROR = 0xff };

/* ALT dosage code of one sample's call (max_ploidy entries), ALT being
 * allele alt_idx (another allele, gVCF's symbolic one: missing); a
 * diploid call with one allele missing as half says (sm_read.h's
 * SM_HALF_, plink1.9's --vcf-half-call). */
static unsigned call_code(const int32_t *g, int max_ploidy, int alt_idx, int half)
{
  int nal = 0, alt = 0, nmiss = 0;
  for (int k = 0; k < max_ploidy; k++) {
    if (g[k] == bcf_int32_vector_end)
      break;
    nal++;
    if (bcf_gt_is_missing(g[k])) {
      nmiss++;
      continue;
    }
    int a = bcf_gt_allele(g[k]);
    if (a != 0 && a != alt_idx)
      return SM_GT_MISSING;
    alt += a == alt_idx;
  }
  if (nmiss && (nal != 2 || nmiss == 2 || half == SM_HALF_MISSING))
    return SM_GT_MISSING;
  if (nmiss && half == SM_HALF_ERROR)
    return HALF_CALL_ERROR;
  if (nmiss) /* 0/. or 1/.: haploid (homozygous), or the other allele REF */
    return half == SM_HALF_HAPLOID ? (alt ? SM_GT_2 : SM_GT_0)
                                   : (alt ? SM_GT_1 : SM_GT_0);
  if (nal == 1) /* haploid: homozygous, as PLINK counts it */
    return alt ? SM_GT_2 : SM_GT_0;
  if (nal != 2)
    return SM_GT_MISSING;
  return alt == 0 ? SM_GT_0 : alt == 1 ? SM_GT_1 : SM_GT_2;
}

/* The counts of records skipped are said once per run (the dimensions
 * probe reads the file too). */
static void report_skipped(const char *path, unsigned long long n,
                           unsigned long long blocks)
{
  static char said[4096];
  if ((!n && !blocks) || !strcmp(said, path))
    return;
  snprintf(said, sizeof said, "%s", path);
  if (blocks)
    sm_log_info("%s: %llu gVCF reference block%s (ALT <NON_REF> or <*> only) skipped",
                path, blocks, blocks == 1 ? "" : "s");
  if (n)
    sm_log_info("%s: %llu multi-allelic record%s read as plink1.9 --vcf reads them: "
                "ALT is the most common of their ALT alleles, a call with another is "
                "missing",
                path, n, n == 1 ? "" : "s");
}

/* plink1.9 --vcf's ALT of a record with several (ng calls of ploidy mp in
 * g): the allele most often called, a haploid call's allele counted twice,
 * the first of equals; gVCF's symbolic allele is none. 1 when there is no
 * ALT (ALT "."; no call then carries allele 1). */
static int most_common_alt(const bcf1_t *rec, const int32_t *g, size_t ng, int mp,
                           int half)
{
  enum { MAXAL = 64 }; /* alleles counted; a record with more: the first 63 ALTs */
  unsigned long long ct[MAXAL] = {0};
  for (size_t s = 0; mp > 0 && s < ng; s++) {
    const int32_t *c = g + s * (size_t)mp;
    int nal = 0, nmiss = 0;
    while (nal < mp && c[nal] != bcf_int32_vector_end)
      nmiss += bcf_gt_is_missing(c[nal++]);
    if (nal == 0 || nal > 2 || nmiss == nal)
      continue; /* no allele, or ploidy above 2: not counted */
    if (nmiss && half != SM_HALF_HAPLOID && half != SM_HALF_REFERENCE)
      continue; /* a half-call read as missing (or refused later) */
    for (int k = 0; k < nal; k++) {
      const int a = bcf_gt_is_missing(c[k]) ? 0 : bcf_gt_allele(c[k]);
      if (a > 0 && a < MAXAL) /* a haploid call's, or a half-call's as haploid: twice */
        ct[a] += nal == 1 || (nmiss && half == SM_HALF_HAPLOID) ? 2 : 1;
    }
  }
  int best = 0;
  unsigned long long most = 0;
  for (int a = 1; a < rec->n_allele && a < MAXAL; a++)
    if (!sm_vcf_is_nonref(rec->d.allele[a]) && (!best || ct[a] > most))
      best = a, most = ct[a];
  return best ? best : 1;
}

/* The reading state: the open file, and the kept rows and names of the
 * slice's variants as they are read. */
typedef struct vcf_in {
  const char *path;
  const sm_read_opts_t *o;
  htsFile *fp;
  bcf_hdr_t *hdr;
  bcf1_t *rec;
  int32_t *gt; /* bcf_get_genotypes' buffer */
  int ngt;
  size_t ns;      /* samples in the file */
  size_t nfk, ld; /* samples kept, words per kept row */
  uint64_t *rows; /* kept rows, ld words each */
  char **names;   /* their names */
  size_t nkept, cap;
  size_t nvar, nrec;         /* variants (records not skipped), records read */
  size_t nsel;               /* the variants kept among them (o->vsel) */
  unsigned long long multi;  /* records with several ALTs */
  unsigned long long blocks; /* gVCF reference blocks skipped */
  size_t ny;                 /* LD coding: the file's variants on Y, read as missing */
  int y_rid, cur_y;          /* the last record's contig (-1: none) and whether on Y */
} vcf_in_t;

/* Open the file, check its header (FORMAT/GT, samples) and the field slice. */
static sm_err_t in_open(vcf_in_t *v)
{
  /* a stream: copied whole when it starts as a VCF (text, gzip, BGZF) or a
   * BCF does, else only its first block, which htslib then refuses */
  const sm_stream_rule_t rule = {.magic = {"##", "\x1f\x8b", "BCF"}};
  char src[4200];
  sm_err_t serr = sm_stream_source(v->path, &rule, src, sizeof src);
  if (!serr)
    serr = sm_vcf_open_as(v->path, src, "", &v->fp, &v->hdr);
  if (serr)
    return serr;
  const int gt_type = sm_vcf_format_type(v->hdr, "GT");
  if (gt_type < 0) {
    sm_log_error("%s: the header declares no FORMAT/GT: CCC needs genotype calls",
                 v->path);
    return SM_EFORMAT;
  }
  /* (htslib decodes calls only from a String GT; with another Type it may
   * end the process) */
  if (gt_type != BCF_HT_STR) {
    sm_log_error("%s: the header declares FORMAT/GT with Type=%s; the VCF specification "
                 "says Type=String: correct its ##FORMAT=<ID=GT,...> line",
                 v->path, sm_vcf_type_name(gt_type));
    return SM_EFORMAT;
  }
  v->ns = (size_t)bcf_hdr_nsamples(v->hdr);
  if (v->ns == 0) {
    sm_log_error("%s: no samples (no fields)", v->path);
    return SM_EDEGEN;
  }
  sm_err_t err =
      sm_read_slice_axis(v->path, "field", v->ns, v->o->f0, v->o->fcount, &v->nfk);
  if (err)
    return err;
  v->ld = sm_vectors_ld(SM_METRIC_CCC, 8, v->nfk);
  return SM_OK;
}

static sm_err_t out_of_memory(const vcf_in_t *v)
{
  sm_log_error("%s: out of memory after %zu variants", v->path, v->nvar);
  return SM_ENOMEM;
}

/* The current record's name (unpacked, ALT allele alt), malloc'd: its
 * ID; when ".", made from PLINK's --set-missing-var-ids template (REF and
 * ALT its alleles, "0" for none, as plink1.9 --vcf names them), or "."
 * (o->raw_ids), or chrom:pos. NULL without memory. */
static char *record_id(const vcf_in_t *v, int alt)
{
  const bcf1_t *rec = v->rec;
  const char *id = rec->d.id, *chrom = bcf_hdr_id2name(v->hdr, rec->rid);
  if (id && strcmp(id, "."))
    return strdup(id);
  if (v->o->var_id_tmpl)
    return sm_read_var_id(v->o->var_id_tmpl, ".", chrom, (uint64_t)rec->pos + 1,
                          rec->n_allele > 0 ? rec->d.allele[0] : "0",
                          alt > 0 && alt < rec->n_allele ? rec->d.allele[alt] : "0");
  if (v->o->raw_ids)
    return strdup(".");
  char buf[600];
  snprintf(buf, sizeof buf, "%.500s:%lld", chrom, (long long)rec->pos + 1);
  return strdup(buf);
}

/* Keep the current record as the next row: its calls' codes (ALT: allele
 * alt, or when negative the one most_common_alt chooses) and its name (the
 * ID column, or chrom:pos). */
static sm_err_t keep_record(vcf_in_t *v, int alt)
{
  if (v->nkept == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 1024;
    uint64_t *r2 = realloc(v->rows, v->cap * v->ld * sizeof *r2);
    char **n2 = r2 ? realloc(v->names, v->cap * sizeof *n2) : NULL;
    if (r2)
      v->rows = r2;
    if (!n2)
      return out_of_memory(v);
    v->names = n2;
  }
  bcf1_t *rec = v->rec;
  bcf_unpack(rec, BCF_UN_ALL);
  uint64_t *row = v->rows + v->nkept * v->ld;
  memset(row, 0, v->ld * sizeof *row);
  if (sm_vcf_fmt_ok(v->hdr, rec, "GT") < 0) {
    sm_log_error("%s: %s:%lld: the GT field cannot be decoded; the record is damaged",
                 v->path, bcf_hdr_id2name(v->hdr, rec->rid), (long long)rec->pos + 1);
    return SM_EFORMAT;
  }
  int n = bcf_get_genotypes(v->hdr, rec, &v->gt, &v->ngt);
  int mp = n > 0 ? n / (int)v->ns : 0;
  if (alt < 0) /* chosen on every sample's calls: the same on every rank */
    alt = most_common_alt(rec, v->gt, v->ns, mp, v->o->half_call);
  /* PLINK's LD (plink1.9 --vcf): a VCF's samples are of unknown sex, and
   * the Y calls of a sample not known to be male are missing */
  if (v->cur_y)
    mp = 0;
  for (size_t f = 0; f < v->nfk; f++) {
    const unsigned c =
        mp ? call_code(v->gt + (v->o->f0 + f) * (size_t)mp, mp, alt, v->o->half_call)
           : SM_GT_MISSING;
    if (c == HALF_CALL_ERROR) {
      sm_log_error("%s: %s:%lld: sample %s has a half-call (one allele missing, as 0/.): "
                   "give --vcf-half-call m (missing), h (haploid) or r (REF)",
                   v->path, bcf_hdr_id2name(v->hdr, rec->rid), (long long)rec->pos + 1,
                   v->hdr->samples[v->o->f0 + f]);
      return SM_EFORMAT;
    }
    sm_gt_set(row, f, c);
  }
  if (!(v->names[v->nkept] = record_id(v, alt)))
    return out_of_memory(v);
  v->nkept++;
  return SM_OK;
}

/* Read every record, counting the variants and keeping the slice's. */
static sm_err_t read_records(vcf_in_t *v)
{
  if (!(v->rec = bcf_init()))
    return out_of_memory(v);
  const size_t v0 = v->o->v0, vcount = v->o->vcount;
  int ret;
  while ((ret = bcf_read(v->fp, v->hdr, v->rec)) == 0) {
    v->nrec++;
    if (sm_vcf_record_error(v->rec)) {
      ret = -2;
      break;
    }
    const int alt = sm_vcf_the_alt(v->rec);
    if (alt == 0) {
      v->blocks++;
      continue;
    }
    v->multi += v->rec->n_allele > 2 && alt < 0;
    const size_t file_k = v->nvar++;
    if (v->o->vsel && (v->nsel >= v->o->nvsel || v->o->vsel[v->nsel] != file_k))
      continue; /* not kept (--chr, --extract, --exclude) */
    const size_t k = v->o->vsel ? v->nsel++ : file_k;
    if (v->o->ld_haploid) { /* on Y (keep_record): by contig, looked up once */
      if (v->rec->rid != v->y_rid)
        v->y_rid = v->rec->rid,
        v->cur_y =
            sm_read_haploid_chrom(bcf_hdr_id2name(v->hdr, v->rec->rid)) == SM_HAP_Y;
      v->ny += (size_t)v->cur_y;
    }
    if (k < v0 || (vcount && k >= v0 + vcount))
      continue;
    sm_err_t err = keep_record(v, alt);
    if (err)
      return err;
  }
  /* htslib reports a gzip stream cut short as its end */
  char where[64];
  snprintf(where, sizeof where, "after record %zu", v->nrec);
  sm_err_t serr = sm_hts_stream_whole(v->path, v->fp, where);
  if (serr)
    return serr;
  if (ret < -1) {
    sm_log_error("%s: record %zu cannot be read (htslib error); the file is malformed or "
                 "truncated",
                 v->path, v->nrec + (ret == -2 ? 0 : 1));
    return SM_EFORMAT;
  }
  return SM_OK;
}

/* The kept rows and names into *out, once the variants are counted. */
static sm_err_t build(vcf_in_t *v, sm_vectors_t *out)
{
  report_skipped(v->path, v->multi, v->blocks);
  if (v->ny && !v->o->probe && v->o->f0 == 0 && v->o->v0 == 0)
    sm_log_info(
        "%s: %zu variant%s on Y read as missing, as plink1.9 --vcf reads them for "
        "its LD (a VCF's samples are of unknown sex, and PLINK counts the Y calls "
        "of males only); a PLINK set whose .fam gives the sexes keeps the males' "
        "calls",
        v->path, v->ny, v->ny == 1 ? "" : "s");
  if (v->nvar == 0) {
    sm_log_error("%s: no variant (no vectors): %s", v->path,
                 v->nrec ? "every record is a gVCF reference block" : "no records");
    return SM_EDEGEN;
  }
  if (v->o->vsel && v->nsel != v->o->nvsel) { /* chosen on another file */
    sm_log_error("%s: %zu of the %zu variants chosen are in the file: it changed while "
                 "it was read; run again on a file that does not change",
                 v->path, v->nsel, v->o->nvsel);
    return SM_EFORMAT;
  }
  const size_t nv = v->o->vsel ? v->nsel : v->nvar;
  size_t nvk;
  sm_err_t err = sm_read_slice_axis(v->path, "vector", nv, v->o->v0, v->o->vcount, &nvk);
  if (err || (err = sm_vectors_alloc(out, SM_METRIC_CCC, 8, nvk, v->nfk)))
    return err;
  for (size_t i = 0; i < nvk; i++)
    memcpy(sm_vectors_row(out, i), v->rows + i * v->ld, out->ld * sizeof(uint64_t));
  out->names = v->names; /* handed over */
  v->names = NULL;
  return SM_OK;
}

static void in_close(vcf_in_t *v)
{
  for (size_t i = 0; v->names && i < v->nkept; i++)
    free(v->names[i]);
  free(v->names);
  free(v->rows);
  free(v->gt);
  if (v->rec)
    bcf_destroy(v->rec);
  if (v->hdr)
    bcf_hdr_destroy(v->hdr);
  if (v->fp)
    hts_close(v->fp);
}

sm_err_t sm_read_vcf(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims)
{
  sm_read_begin(out, dims);
  if (o->metric != SM_METRIC_CCC) {
    sm_log_error("%s: VCF genotypes are for the CCC metric; use --metric ccc", path);
    return SM_EOPTION;
  }
  vcf_in_t v = {.path = path, .o = o, .y_rid = -1};
  sm_err_t err = in_open(&v);
  if (!err && !(err = read_records(&v)))
    err = build(&v, out);
  in_close(&v);
  return sm_read_end(err, out, dims, o->vsel ? v.nsel : v.nvar, v.ns);
}

sm_err_t sm_read_vcf_loci(const char *path, const sm_read_opts_t *o, int ids,
                          sm_loci_t *out)
{
  vcf_in_t v = {.path = path, .o = o};
  size_t cap = 0;
  sm_err_t err = in_open(&v);
  if (!err && !(v.rec = bcf_init()))
    err = out_of_memory(&v);
  int ret = 0;
  while (!err && (ret = bcf_read(v.fp, v.hdr, v.rec)) == 0) {
    v.nrec++;
    if (sm_vcf_record_error(v.rec)) {
      ret = -2;
      break;
    }
    int alt = sm_vcf_the_alt(v.rec);
    if (alt == 0) /* skipped as sm_read_vcf skips it */
      continue;
    v.nvar++;
    char *name = NULL;
    if (ids && alt < 0) {
      /* the ALT most called (a "." id made from it, --snps-only's alleles):
       * the calls decide */
      bcf_unpack(v.rec, BCF_UN_ALL);
      const int n = bcf_get_genotypes(v.hdr, v.rec, &v.gt, &v.ngt);
      alt = most_common_alt(v.rec, v.gt, v.ns, n > 0 ? n / (int)v.ns : 0, o->half_call);
    }
    if (ids && !(name = record_id(&v, alt)))
      err = out_of_memory(&v);
    else if (sm_loci_add(out, &cap, bcf_seqname(v.hdr, v.rec), (uint32_t)(v.rec->pos + 1),
                         name) ||
             (ids && sm_loci_alleles(
                         out, cap, v.rec->n_allele > 0 ? v.rec->d.allele[0] : "0",
                         alt > 0 && alt < v.rec->n_allele ? v.rec->d.allele[alt] : "0")))
      err = out_of_memory(&v);
    free(name);
  }
  if (!err && ret < -1) {
    sm_log_error("%s: record %zu cannot be read (htslib error); the file is malformed or "
                 "truncated",
                 path, v.nrec + (ret == -2 ? 0 : 1));
    err = SM_EFORMAT;
  }
  in_close(&v);
  if (err)
    sm_loci_free(out);
  return err;
}
