/* sm_maf_output.c: writers of the SAF (TSV, binary), allele frequency and
 * spectrum files, each written to PATH.part and renamed when complete. */
#include "sm_maf_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sm_maf_writer {
  sm_maf_file_t kind;
  size_t nind;
  double band_tol;
  char *path, *tmp;
  FILE *f;
  uint64_t count;
  int failed;
};

static void put_u32(unsigned char *p, uint32_t x)
{
  for (int k = 0; k < 4; k++)
    p[k] = (unsigned char)(x >> (8 * k));
}
static void put_u64(unsigned char *p, uint64_t x)
{
  for (int k = 0; k < 8; k++)
    p[k] = (unsigned char)(x >> (8 * k));
}
static void put_f64(unsigned char *p, double x)
{
  uint64_t u;
  memcpy(&u, &x, 8);
  put_u64(p, u);
}

static int bin_header(sm_maf_writer_t *w)
{
  unsigned char h[SM_SAF_BIN_HEADER] = {0};
  memcpy(h, SM_SAF_BIN_MAGIC, 8);
  put_u32(h + 8, SM_SAF_BIN_VERSION);
  put_u32(h + 12, (uint32_t)w->nind);
  put_u32(h + 16, (uint32_t)(2 * w->nind + 1));
  put_u32(h + 20, 8); /* value bytes: float64 */
  put_u64(h + 24, w->count);
  put_f64(h + 32, w->band_tol);
  return fseeko(w->f, 0, SEEK_SET) == 0 && fwrite(h, 1, sizeof h, w->f) == sizeof h;
}

static sm_err_t write_failed(sm_maf_writer_t *w)
{
  if (!w->failed)
    sm_log_error("%s: write failed: %s (disk full?)", w->tmp, strerror(errno));
  w->failed = 1;
  return SM_EIO;
}

sm_err_t sm_maf_writer_open(sm_maf_writer_t **wp, const char *path, sm_maf_file_t kind,
                            size_t nind, double band_tol)
{
  *wp = NULL;
  sm_maf_writer_t *w = calloc(1, sizeof *w);
  size_t n = strlen(path) + 8;
  if (!w || !(w->path = strdup(path)) || !(w->tmp = malloc(n))) {
    if (w)
      free(w->path);
    free(w);
    sm_log_error("%s: out of memory", path);
    return SM_ENOMEM;
  }
  w->kind = kind;
  w->nind = nind;
  w->band_tol = band_tol;
  snprintf(w->tmp, n, "%s.part", path);
  if (!(w->f = fopen(w->tmp, "wb"))) {
    sm_log_error("%s: cannot create output file: %s (check that the directory exists "
                 "and is writable)",
                 w->tmp, strerror(errno));
    free(w->path);
    free(w->tmp);
    free(w);
    return SM_EIO;
  }
  setvbuf(w->f, NULL, _IOFBF, 1 << 20);
  int ok = 1;
  if (kind == SM_MAF_FILE_SAF_BIN)
    ok = bin_header(w);
  else if (kind == SM_MAF_FILE_SAF_TSV) {
    ok = fputs("chrom\tpos", w->f) != EOF;
    for (size_t j = 0; ok && j <= 2 * nind; j++)
      ok = fprintf(w->f, "\tsaf_%zu", j) > 0;
    ok = ok && fputc('\n', w->f) != EOF;
  } else if (kind == SM_MAF_FILE_MAF_TSV)
    ok = fputs("chrom\tpos\tallele1\tallele2\tn_data\tmaf\n", w->f) != EOF;
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
    ok = fprintf(w->f, "%s\t%llu", chrom, (unsigned long long)pos) > 0;
    for (size_t j = 0; ok && j <= 2 * w->nind; j++)
      ok = fprintf(w->f, "\t%.17g", saf[j]) > 0;
    ok = ok && fputc('\n', w->f) != EOF;
  } else {
    unsigned char h[20];
    uint32_t len = (uint32_t)strlen(chrom), cnt = hi - lo + 1;
    put_u32(h, len);
    ok = fwrite(h, 1, 4, w->f) == 4 && fwrite(chrom, 1, len, w->f) == len;
    put_u64(h, pos);
    put_u32(h + 8, lo);
    put_u32(h + 12, cnt);
    ok = ok && fwrite(h, 1, 16, w->f) == 16;
    for (uint32_t j = lo; ok && j <= hi; j++) {
      put_f64(h, saf[j]);
      ok = fwrite(h, 1, 8, w->f) == 8;
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
  if (fprintf(w->f, "%s\t%llu\t%s\t%s\t%u\t%.17g\n", chrom, (unsigned long long)pos, a1,
              a2, ndata, maf) < 0)
    return write_failed(w);
  w->count++;
  return SM_OK;
}

sm_err_t sm_maf_writer_close(sm_maf_writer_t *w, int commit)
{
  if (!w)
    return SM_OK;
  sm_err_t err = SM_OK;
  if (commit && !w->failed) {
    if ((w->kind == SM_MAF_FILE_SAF_BIN && !bin_header(w)) || fflush(w->f) != 0 ||
        fsync(fileno(w->f)) != 0)
      err = write_failed(w);
  }
  if (fclose(w->f) != 0 && commit && !err)
    err = write_failed(w);
  if (commit && !err && rename(w->tmp, w->path) != 0) {
    sm_log_error("%s: cannot rename to %s: %s", w->tmp, w->path, strerror(errno));
    err = SM_EIO;
  }
  if (!commit || err)
    unlink(w->tmp);
  free(w->path);
  free(w->tmp);
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
    ok = fprintf(w->f, j ? " %.17g" : "%.17g", phi[j] * nsites) > 0;
  ok = ok && fputc('\n', w->f) != EOF;
  if (!ok)
    write_failed(w);
  return sm_maf_writer_close(w, 1);
}
