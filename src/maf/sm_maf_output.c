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
  if (w->c.len) /* the final count, over the first: after sm_commit_verify */
    return fseeko(w->c.f, 0, SEEK_SET) == 0 && fwrite(h, 1, sizeof h, w->c.f) == sizeof h;
  return sm_commit_write(&w->c, h, sizeof h) == 0;
}

static int put_bytes(void *c, const void *p, size_t n)
{
  return sm_commit_write(c, p, n);
}

/* A name as every TSV writes it (sm_fmt_name's escapes). 0, or -1. */
static int put_name(sm_maf_writer_t *w, const char *name)
{
  return sm_fmt_put_name_to(put_bytes, &w->c, name);
}

static sm_err_t write_failed(sm_maf_writer_t *w)
{
  if (!w->failed)
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
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
    ok = sm_commit_printf(&w->c, "chrom\tpos") == 0;
    for (size_t j = 0; ok && j <= 2 * nind; j++)
      ok = sm_commit_printf(&w->c, "\tsaf_%zu", j) == 0;
    ok = ok && sm_commit_write(&w->c, "\n", 1) == 0;
  } else if (kind == SM_MAF_FILE_MAF_TSV)
    ok = sm_commit_printf(&w->c, "chrom\tpos\tallele1\tallele2\tn_data\talt_freq\t"
                                 "minor_freq\n") == 0;
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
    ok = put_name(w, chrom) == 0 &&
         sm_commit_printf(&w->c, "\t%llu", (unsigned long long)pos) == 0;
    char v[SM_FMT_MAX + 1] = "\t"; /* as "\t%.17g" (sm_fmt.h) */
    for (size_t j = 0; ok && j <= 2 * w->nind; j++) {
      const size_t n = 1 + sm_fmt_g(v + 1, saf[j], 17);
      ok = sm_commit_write(&w->c, v, n) == 0;
    }
    ok = ok && sm_commit_write(&w->c, "\n", 1) == 0;
  } else {
    unsigned char h[20];
    uint32_t len = (uint32_t)strlen(chrom), cnt = hi - lo + 1;
    sm_put_le32(h, len);
    ok = sm_commit_write(&w->c, h, 4) == 0 && sm_commit_write(&w->c, chrom, len) == 0;
    sm_put_le64(h, pos);
    sm_put_le32(h + 8, lo);
    sm_put_le32(h + 12, cnt);
    ok = ok && sm_commit_write(&w->c, h, 16) == 0;
    for (uint32_t j = lo; ok && j <= hi; j++) {
      put_f64(h, saf[j]);
      ok = sm_commit_write(&w->c, h, 8) == 0;
    }
  }
  if (!ok)
    return write_failed(w);
  w->count++;
  return SM_OK;
}

sm_err_t sm_maf_writer_maf(sm_maf_writer_t *w, const char *chrom, uint64_t pos,
                           const char *a1, const char *a2, uint32_t ndata, double freq)
{
  if (w->failed)
    return SM_EIO;
  const double minor = freq <= 0.5 ? freq : 1.0 - freq;
  /* names escaped as in every TSV (sm_fmt_name) */
  if (put_name(w, chrom) < 0 ||
      sm_commit_printf(&w->c, "\t%llu\t", (unsigned long long)pos) < 0 ||
      put_name(w, a1) < 0 || sm_commit_write(&w->c, "\t", 1) < 0 || put_name(w, a2) < 0 ||
      sm_commit_printf(&w->c, "\t%u\t%.17g\t%.17g\n", ndata, freq, minor) < 0)
    return write_failed(w);
  w->count++;
  return SM_OK;
}

sm_err_t sm_maf_writer_verify(sm_maf_writer_t *w)
{
  if (!w)
    return SM_OK;
  if (w->failed)
    return SM_EIO;
  if (sm_commit_verify(&w->c) != SM_OK) {
    w->failed = 1;
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_maf_writer_seal(sm_maf_writer_t *w)
{
  if (!w || !w->c.f)
    return SM_OK;
  if (w->failed || (w->kind == SM_MAF_FILE_SAF_BIN && !bin_header(w)) ||
      sm_commit_close(&w->c) != SM_OK) {
    write_failed(w);
    sm_commit_abort(&w->c);
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_maf_writer_rename(sm_maf_writer_t *w)
{
  if (!w)
    return SM_OK;
  w->c.keep = 1; /* complete: kept whatever happens to the rename */
  if (sm_commit_rename(&w->c) == SM_OK)
    return SM_OK;
  sm_log_error("%s: cannot rename the complete file %s to it: %s. It is kept as %s: %s",
               w->c.path, w->c.tmp, sm_commit_strerror(errno), w->c.tmp,
               errno == ENOTSUP ? "move what is at that path away, then rename the .part "
                                  "file to it"
                                : "rename it yourself once the cause is fixed");
  return SM_EIO;
}

void sm_maf_writer_close(sm_maf_writer_t *w)
{
  if (!w)
    return;
  if (w->c.f)
    sm_commit_abort(&w->c);
  free(w);
}

sm_err_t sm_maf_writer_sfs(sm_maf_writer_t *w, const double *phi, size_t nbins,
                           double nsites)
{
  int ok = 1;
  for (size_t j = 0; ok && j < nbins; j++)
    ok = sm_commit_printf(&w->c, j ? " %.17g" : "%.17g", phi[j] * nsites) == 0;
  ok = ok && sm_commit_write(&w->c, "\n", 1) == 0;
  return ok ? SM_OK : write_failed(w);
}
