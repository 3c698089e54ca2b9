/* sm_read_vcf.c: VCF/BCF genotypes (FORMAT/GT) for CCC through htslib:
 * bi-allelic variants are the vectors, samples the fields, a call's code
 * its ALT dosage. Read in one pass; the slice's rows are kept. */
#include "sm_read.h"
#include "sm_read_util.h"

#include <errno.h>
#include <htslib/hts.h>
#include <htslib/vcf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ALT dosage code of one sample's call (max_ploidy entries). */
static unsigned call_code(const int32_t *g, int max_ploidy)
{
  int nal = 0, alt = 0;
  for (int k = 0; k < max_ploidy; k++) {
    if (g[k] == bcf_int32_vector_end)
      break;
    if (bcf_gt_is_missing(g[k]))
      return SM_GT_MISSING;
    int a = bcf_gt_allele(g[k]);
    if (a < 0 || a > 1)
      return SM_GT_MISSING;
    alt += a;
    nal++;
  }
  if (nal == 1) /* haploid: homozygous, as PLINK counts it */
    return alt ? SM_GT_2 : SM_GT_0;
  if (nal != 2)
    return SM_GT_MISSING;
  return alt == 0 ? SM_GT_0 : alt == 1 ? SM_GT_1 : SM_GT_2;
}

/* The multi-allelic count is said once per run (the dimensions probe reads
 * the file too). */
static void report_skipped(const char *path, unsigned long long n)
{
  static char said[4096];
  if (!n || !strcmp(said, path))
    return;
  snprintf(said, sizeof said, "%s", path);
  sm_log_info("%s: %llu record%s not bi-allelic skipped (CCC needs two alleles)", path, n,
              n == 1 ? "" : "s");
}

sm_err_t sm_read_vcf(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  htsFile *fp = NULL;
  bcf_hdr_t *hdr = NULL;
  bcf1_t *rec = NULL;
  int32_t *gt = NULL;
  int ngt = 0;
  uint64_t *rows = NULL;
  char **names = NULL;
  size_t nkept = 0, cap = 0, nvar = 0, nrec = 0;
  unsigned long long multi = 0;
  memset(out, 0, sizeof *out);
  if (dims)
    memset(dims, 0, sizeof *dims);

  if (o->metric != SM_METRIC_CCC) {
    sm_log_error("%s: VCF genotypes are for the CCC metric; use --metric ccc", path);
    return SM_EOPTION;
  }
  hts_set_log_level(HTS_LOG_ERROR);
  errno = 0;
  if (!(fp = hts_open(path, "r"))) {
    sm_log_error("%s: cannot open: %s", path, errno ? strerror(errno) : "unknown format");
    return SM_EIO;
  }
  if (hts_get_format(fp)->category != variant_data || !(hdr = bcf_hdr_read(fp))) {
    sm_log_error("%s: not a VCF or BCF file (no valid header)", path);
    err = SM_EFORMAT;
    goto done;
  }
  int gt_id = bcf_hdr_id2int(hdr, BCF_DT_ID, "GT");
  if (!bcf_hdr_idinfo_exists(hdr, BCF_HL_FMT, gt_id)) {
    sm_log_error("%s: the header declares no FORMAT/GT: CCC needs genotype calls", path);
    err = SM_EFORMAT;
    goto done;
  }
  const size_t ns = (size_t)bcf_hdr_nsamples(hdr);
  if (ns == 0) {
    sm_log_error("%s: no samples (no fields)", path);
    err = SM_EDEGEN;
    goto done;
  }
  size_t nfk;
  if ((err = sm_read_slice_axis(path, "field", ns, o->f0, o->fcount, &nfk)))
    goto done;
  const size_t ld = sm_vectors_ld(SM_METRIC_CCC, 8, nfk);
  if (!(rec = bcf_init())) {
    err = SM_ENOMEM;
    goto nomem;
  }
  int ret;
  while ((ret = bcf_read(fp, hdr, rec)) == 0) {
    nrec++;
    if (rec->errcode) {
      ret = -2;
      break;
    }
    if (rec->n_allele != 2) {
      multi++;
      continue;
    }
    size_t v = nvar++;
    if (v < o->v0 || (o->vcount && v >= o->v0 + o->vcount))
      continue;
    if (nkept == cap) {
      cap = cap ? 2 * cap : 1024;
      uint64_t *r2 = realloc(rows, cap * ld * sizeof *r2);
      char **n2 = r2 ? realloc(names, cap * sizeof *n2) : NULL;
      if (r2)
        rows = r2;
      if (!n2)
        goto nomem;
      names = n2;
    }
    bcf_unpack(rec, BCF_UN_ALL);
    uint64_t *row = rows + nkept * ld;
    memset(row, 0, ld * sizeof *row);
    int n = bcf_get_genotypes(hdr, rec, &gt, &ngt);
    int mp = n > 0 ? n / (int)ns : 0;
    for (size_t f = 0; f < nfk; f++)
      sm_gt_set(row, f,
                mp ? call_code(gt + (o->f0 + f) * (size_t)mp, mp) : SM_GT_MISSING);
    const char *id = rec->d.id;
    char buf[512];
    if (!id || !strcmp(id, ".")) {
      snprintf(buf, sizeof buf, "%s:%lld", bcf_hdr_id2name(hdr, rec->rid),
               (long long)rec->pos + 1);
      id = buf;
    }
    if (!(names[nkept] = strdup(id)))
      goto nomem;
    nkept++;
  }
  if (ret < -1) {
    sm_log_error("%s: record %zu cannot be read (htslib error); the file is malformed or "
                 "truncated",
                 path, nrec + (ret == -2 ? 0 : 1));
    err = SM_EFORMAT;
    goto done;
  }
  report_skipped(path, multi);
  if (nvar == 0) {
    sm_log_error("%s: no bi-allelic variant (no vectors)", path);
    err = SM_EDEGEN;
    goto done;
  }
  size_t nvk;
  if ((err = sm_read_slice_axis(path, "vector", nvar, o->v0, o->vcount, &nvk)))
    goto done;
  if ((err = sm_vectors_alloc(out, SM_METRIC_CCC, 8, nvk, nfk)))
    goto done;
  for (size_t i = 0; i < nvk; i++)
    memcpy(sm_vectors_row(out, i), rows + i * ld, out->ld * sizeof(uint64_t));
  out->names = names; /* handed over */
  names = NULL;
  sm_vectors_count_missing(out);
  if (dims) {
    dims->nv = nvar;
    dims->nf = ns;
  }
  goto done;
nomem:
  sm_log_error("%s: out of memory after %zu variants", path, nvar);
  err = SM_ENOMEM;
done:
  if (err) {
    sm_vectors_free(out);
    memset(out, 0, sizeof *out);
  }
  for (size_t i = 0; names && i < nkept; i++)
    free(names[i]);
  free(names);
  free(rows);
  free(gt);
  if (rec)
    bcf_destroy(rec);
  if (hdr)
    bcf_hdr_destroy(hdr);
  if (fp)
    hts_close(fp);
  return err;
}
