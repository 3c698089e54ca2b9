/* sm_gl_vcf.c: genotype likelihoods from VCF/BCF through htslib: FORMAT/GL
 * (log10) when a record has it, else FORMAT/PL (phred). gVCF reference
 * blocks (ALT <NON_REF> or <*> only) are skipped and counted, and that
 * symbolic ALT is no allele elsewhere; records then not bi-allelic are
 * skipped and counted; a site whose likelihoods are not one per diploid
 * genotype and sample has no data (counted), nor has a missing sample. A
 * gzip or BGZF stream cut short is an error. */
#include "sm_gl_impl.h"
#include "sm_hts.h"

#include <errno.h>
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/khash_str2int.h>
#include <htslib/tbx.h> /* hts_get_bgzfp (declared there in htslib 1.16) */
#include <htslib/vcf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vcf {
  htsFile *fp;
  bcf_hdr_t *hdr;
  bcf1_t *rec;
  float *glv;
  int32_t *plv;
  int nglv, nplv;
  size_t nrec;
  unsigned long long blocks; /* gVCF reference blocks skipped */
  int said_blocks;
} vcf_t;

/* A sample without data: every genotype equally likely. */
static void no_data(double *p)
{
  p[0] = p[1] = p[2] = 1.0;
}

/* One sample's ng GL values (log10; ng = 3 for a bi-allelic record) to the
 * linear likelihoods p of genotypes pick[0..2] (REF/REF, REF/ALT, ALT/ALT,
 * in rising order); no_data when a value is missing or the sample has fewer
 * (another ploidy). SM_EVALUE, logged by the caller, for a picked value no
 * likelihood can have. */
static sm_err_t from_gl(const float *v, size_t ng, const size_t *pick, double *p)
{
  double mx = -INFINITY;
  for (size_t g = 0, j = 0; g < ng; g++) {
    if (bcf_float_is_missing(v[g]) || bcf_float_is_vector_end(v[g])) {
      no_data(p);
      return SM_OK;
    }
    if (j < 3 && g == pick[j]) {
      if (isnan(v[g]) || v[g] == INFINITY)
        return SM_EVALUE;
      mx = v[g] > mx ? v[g] : mx;
      j++;
    }
  }
  if (mx == -INFINITY)
    return SM_EVALUE;
  for (int j = 0; j < 3; j++) /* relative to the best genotype: no underflow */
    p[j] = pow(10.0, (double)v[pick[j]] - mx);
  return SM_OK;
}

/* The same from PL values (phred). */
static sm_err_t from_pl(const int32_t *v, size_t ng, const size_t *pick, double *p)
{
  int32_t mn = INT32_MAX;
  for (size_t g = 0, j = 0; g < ng; g++) {
    if (v[g] == bcf_int32_missing || v[g] == bcf_int32_vector_end) {
      no_data(p);
      return SM_OK;
    }
    if (j < 3 && g == pick[j]) {
      if (v[g] < 0)
        return SM_EVALUE;
      mn = v[g] < mn ? v[g] : mn;
      j++;
    }
  }
  for (int j = 0; j < 3; j++)
    p[j] = pow(10.0, -0.1 * (double)(v[pick[j]] - mn));
  return SM_OK;
}

static sm_err_t glv_next(sm_gl_reader_t *r, int keep, double *row, sm_gl_site_t *site,
                         int *eof)
{
  vcf_t *v = r->impl;
  const size_t ns = r->nind;
  for (;;) {
    int ret = bcf_read(v->fp, v->hdr, v->rec);
    if (ret != 0) { /* htslib reports a stream cut short as its end */
      char where[64];
      snprintf(where, sizeof where, "after record %zu", v->nrec);
      sm_err_t serr = sm_hts_stream_whole(r->path, v->fp, where);
      if (serr)
        return serr;
    }
    if (ret == -1) {
      if (v->blocks && !v->said_blocks)
        sm_log_info("%s: %llu gVCF reference block%s (ALT <NON_REF> or <*> only) skipped",
                    r->path, v->blocks, v->blocks == 1 ? "" : "s");
      v->said_blocks = 1;
      *eof = 1;
      return SM_OK;
    }
    if (ret < -1 || sm_vcf_record_error(v->rec)) {
      sm_log_error("%s: record %zu cannot be read (htslib error %d); the file is "
                   "malformed or truncated",
                   r->path, v->nrec + 1, ret < -1 ? ret : sm_vcf_record_error(v->rec));
      return SM_EFORMAT;
    }
    v->nrec++;
    r->st.records++;
    bcf1_t *rec = v->rec;
    const int alt = sm_vcf_the_alt(rec);
    if (alt == 0) {
      v->blocks++;
      continue;
    }
    if (alt < 0) {
      r->st.multiallelic++;
      continue;
    }
    if (!keep)
      return SM_OK;
    bcf_unpack(rec, BCF_UN_ALL);
    if (sm_vcf_fmt_ok(v->hdr, rec, "GL") < 0 || sm_vcf_fmt_ok(v->hdr, rec, "PL") < 0) {
      sm_log_error("%s: %s:%lld: the GL or PL field cannot be decoded; the record is "
                   "damaged",
                   r->path, bcf_hdr_id2name(v->hdr, rec->rid), (long long)rec->pos + 1);
      return SM_EFORMAT;
    }
    int n = bcf_get_format_float(v->hdr, rec, "GL", &v->glv, &v->nglv);
    int use_gl = n > 0;
    if (!use_gl)
      n = bcf_get_format_int32(v->hdr, rec, "PL", &v->plv, &v->nplv);
    /* diploid: one value per genotype of the record's alleles; of those,
     * REF/REF, REF/ALT and ALT/ALT (VCF's order: j/k at k(k+1)/2 + j) */
    const size_t ng = (size_t)rec->n_allele * (rec->n_allele + 1) / 2,
                 het = (size_t)alt * (alt + 1) / 2, pick[3] = {0, het, het + alt};
    if (n > 0 && (size_t)n != ng * ns) {
      /* not that many values per sample (ploidy): a site without data, so
       * that every rank, reading or skipping, counts the same sites */
      r->st.not_diploid++;
      n = 0;
    }
    for (size_t i = 0; i < ns; i++) {
      double *p = row + 3 * i;
      sm_err_t bad = SM_OK;
      if (n <= 0)
        no_data(p);
      else
        bad = use_gl ? from_gl(v->glv + ng * i, ng, pick, p)
                     : from_pl(v->plv + ng * i, ng, pick, p);
      if (bad) {
        sm_log_error("%s: %s:%lld, sample %s: %s is not a likelihood (%s); fix the "
                     "file or drop the field",
                     r->path, bcf_hdr_id2name(v->hdr, rec->rid), (long long)rec->pos + 1,
                     v->hdr->samples[i], use_gl ? "FORMAT/GL" : "FORMAT/PL",
                     use_gl ? "NaN or +inf log10 value" : "negative phred value");
        return SM_EVALUE;
      }
    }
    site->chrom = bcf_hdr_id2name(v->hdr, rec->rid);
    site->chrom_len = strlen(site->chrom);
    site->pos = (uint64_t)rec->pos + 1;
    site->a1 = rec->d.allele[0];
    site->a1_len = strlen(site->a1);
    site->a2 = rec->d.allele[alt];
    site->a2_len = strlen(site->a2);
    return SM_OK;
  }
}

static void glv_close(sm_gl_reader_t *r)
{
  vcf_t *v = r->impl;
  if (!v)
    return;
  free(v->glv);
  free(v->plv);
  if (v->rec)
    bcf_destroy(v->rec);
  if (v->hdr)
    bcf_hdr_destroy(v->hdr);
  if (v->fp)
    hts_close(v->fp);
  free(v);
  r->impl = NULL;
}

sm_err_t sm_gl_vcf_open(sm_gl_reader_t *r)
{
  vcf_t *v = calloc(1, sizeof *v);
  if (!v) {
    sm_log_error("%s: out of memory", r->path);
    return SM_ENOMEM;
  }
  r->impl = v;
  r->close = glv_close;
  r->next = glv_next;
  sm_err_t serr =
      sm_vcf_open(r->path, "; give a VCF/BCF or a BEAGLE file (--input-format beagle)",
                  &v->fp, &v->hdr);
  if (serr)
    return serr;
  if (!(v->rec = bcf_init())) {
    sm_log_error("%s: out of memory", r->path);
    return SM_ENOMEM;
  }
  const int glt = sm_vcf_format_type(v->hdr, "GL"),
            plt = sm_vcf_format_type(v->hdr, "PL");
  if ((glt >= 0 && glt != BCF_HT_REAL) || (plt >= 0 && plt != BCF_HT_INT)) {
    sm_log_error("%s: the header declares FORMAT/%s with Type=%s; the VCF specification "
                 "says Type=%s: correct its ##FORMAT line",
                 r->path, glt >= 0 && glt != BCF_HT_REAL ? "GL" : "PL",
                 sm_vcf_type_name(glt >= 0 && glt != BCF_HT_REAL ? glt : plt),
                 glt >= 0 && glt != BCF_HT_REAL ? "Float" : "Integer");
    return SM_EFORMAT;
  }
  int gl = glt >= 0, pl = plt >= 0;
  if (!gl && !pl) {
    sm_log_error("%s: the header declares neither FORMAT/GL nor FORMAT/PL: starmet maf "
                 "needs genotype likelihoods (bcftools call keeps PL; or give a BEAGLE "
                 "file)",
                 r->path);
    return SM_EFORMAT;
  }
  r->fmt_name = gl ? (pl ? "vcf GL (PL where GL is absent)" : "vcf GL") : "vcf PL";
  r->nind = (size_t)bcf_hdr_nsamples(v->hdr);
  if (r->nind == 0) {
    sm_log_error("%s: no samples in the header: nothing to compute", r->path);
    return SM_EDEGEN;
  }
  return SM_OK;
}
