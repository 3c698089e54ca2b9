/* sm_maf_output.c: writers of the SAF (TSV, binary), allele frequency and
 * spectrum files, each written to PATH.part and renamed when complete.
 * Chromosome and allele names in the TSV files are escaped (sm_fmt_name). */
#include "sm_maf_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_bytes.h"
#include "sm_commit.h"
#include "sm_fmt.h"

struct sm_maf_writer {
  sm_maf_file_t kind;
  size_t nind;
  double band_tol;
  sm_commit_t c; /* the file (c.f), under its temporary name */
  uint64_t count;
  int failed;
};

static void put_f64(unsigned char *p, double x)
{
  uint64_t u;
  memcpy(&u, &x, 8);
  sm_put_le64(p, u);
}

static int bin_header(sm_maf_writer_t *w)
{
  unsigned char h[SM_SAF_BIN_HEADER] = {0};
  memcpy(h, SM_SAF_BIN_MAGIC, 8);
  sm_put_le32(h + 8, SM_SAF_BIN_VERSION);
  sm_put_le32(h + 12, (uint32_t)w->nind);
  sm_put_le32(h + 16, (uint32_t)(2 * w->nind + 1));
  sm_put_le32(h + 20, 8); /* value bytes: float64 */
  sm_put_le64(h + 24, w->count);
  put_f64(h + 32, w->band_tol);
  return fseeko(w->c.f, 0, SEEK_SET) == 0 && fwrite(h, 1, sizeof h, w->c.f) == sizeof h;
}

static sm_err_t write_failed(sm_maf_writer_t *w)
{
  if (!w->failed)
    sm_log_error("%s: write failed: %s (disk full?)", w->c.tmp,
                 sm_commit_strerror(errno));
  w->failed = 1;
  return SM_EIO;
}

sm_err_t sm_maf_writer_open(sm_maf_writer_t **wp, const char *path, sm_maf_file_t kind,
                            size_t nind, double band_tol)
{
  *wp = NULL;
  sm_maf_writer_t *w = calloc(1, sizeof *w);
  if (!w) {
    sm_log_error("%s: out of memory", path);
    return SM_ENOMEM;
  }
  w->kind = kind;
  w->nind = nind;
  w->band_tol = band_tol;
  if (sm_commit_open(&w->c, path, ".part", 0, "wb") != SM_OK) {
    sm_log_error("%s: cannot create output file: %s%s", w->c.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    free(w);
    return SM_EIO;
  }
  setvbuf(w->c.f, NULL, _IOFBF, 1 << 20);
  int ok = 1;
  if (kind == SM_MAF_FILE_SAF_BIN)
    ok = bin_header(w);
  else if (kind == SM_MAF_FILE_SAF_TSV) {
    ok = fputs("chrom\tpos", w->c.f) != EOF;
    for (size_t j = 0; ok && j <= 2 * nind; j++)
      ok = fprintf(w->c.f, "\tsaf_%zu", j) > 0;
    ok = ok && fputc('\n', w->c.f) != EOF;
  } else if (kind == SM_MAF_FILE_MAF_TSV)
    ok = fputs("chrom\tpos\tallele1\tallele2\tn_data\tmaf\n", w->c.f) != EOF;
  *wp = w;
  return ok ? SM_OK : write_failed(w);
}

sm_err_t sm_maf_writer_saf(sm_maf_writer_t *w, const char *chrom, uint64_t pos,
                           const double *saf, uint32_t lo, uint32_t hi)
{
  if (w->failed)
    return SM_EIO;
  int ok = 1;
  if (w->kind == SM_MAF_FILE_SAF_TSV) {
    ok = sm_fmt_put_name(w->c.f, chrom) == 0 &&
         fprintf(w->c.f, "\t%llu", (unsigned long long)pos) > 0;
    char v[SM_FMT_MAX + 1] = "\t"; /* as "\t%.17g" (sm_fmt.h) */
    for (size_t j = 0; ok && j <= 2 * w->nind; j++) {
      const size_t n = 1 + sm_fmt_g(v + 1, saf[j], 17);
      ok = fwrite_unlocked(v, 1, n, w->c.f) == n;
    }
    ok = ok && fputc('\n', w->c.f) != EOF;
  } else {
    unsigned char h[20];
    uint32_t len = (uint32_t)strlen(chrom), cnt = hi - lo + 1;
    sm_put_le32(h, len);
    ok = fwrite(h, 1, 4, w->c.f) == 4 && fwrite(chrom, 1, len, w->c.f) == len;
    sm_put_le64(h, pos);
    sm_put_le32(h + 8, lo);
    sm_put_le32(h + 12, cnt);
    ok = ok && fwrite(h, 1, 16, w->c.f) == 16;
    for (uint32_t j = lo; ok && j <= hi; j++) {
      put_f64(h, saf[j]);
      ok = fwrite(h, 1, 8, w->c.f) == 8;
    }
  }
  if (!ok)
    return write_failed(w);
  w->count++;
  return SM_OK;
}

sm_err_t sm_maf_writer_maf(sm_maf_writer_t *w, const char *chrom, uint64_t pos,
                           const char *a1, const char *a2, uint32_t ndata, double maf)
{
  if (w->failed)
    return SM_EIO;
  /* names escaped as in every TSV (sm_fmt_name) */
  if (sm_fmt_put_name(w->c.f, chrom) < 0 ||
      fprintf(w->c.f, "\t%llu\t", (unsigned long long)pos) < 0 ||
      sm_fmt_put_name(w->c.f, a1) < 0 || fputc('\t', w->c.f) == EOF ||
      sm_fmt_put_name(w->c.f, a2) < 0 || fprintf(w->c.f, "\t%u\t%.17g\n", ndata, maf) < 0)
    return write_failed(w);
  w->count++;
  return SM_OK;
}

sm_err_t sm_maf_writer_close(sm_maf_writer_t *w, int commit)
{
  if (!w)
    return SM_OK;
  sm_err_t err = SM_OK;
  if (!commit || w->failed) {
    sm_commit_abort(&w->c);
    err = SM_EIO;
  } else if (w->kind == SM_MAF_FILE_SAF_BIN && !bin_header(w)) {
    err = write_failed(w);
    sm_commit_abort(&w->c);
  } else if (sm_commit_close(&w->c) != SM_OK) {
    err = write_failed(w);
  } else if (sm_commit_rename(&w->c) != SM_OK) {
    sm_log_error("%s: cannot rename to %s: %s", w->c.tmp, w->c.path, strerror(errno));
    err = SM_EIO;
  }
  free(w);
  return commit ? err : SM_OK;
}

sm_err_t sm_maf_write_sfs(const char *path, const double *phi, size_t nbins,
                          double nsites)
{
  sm_maf_writer_t *w;
  sm_err_t err = sm_maf_writer_open(&w, path, SM_MAF_FILE_SFS, 0, 0);
  if (err)
    return err;
  int ok = 1;
  for (size_t j = 0; ok && j < nbins; j++)
    ok = fprintf(w->c.f, j ? " %.17g" : "%.17g", phi[j] * nsites) > 0;
  ok = ok && fputc('\n', w->c.f) != EOF;
  if (!ok)
    write_failed(w);
  return sm_maf_writer_close(w, 1);
}
