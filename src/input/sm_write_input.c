/* sm_write_input.c: writing a vector set as an input file (TSV, .npy, raw,
 * PLINK), used by `starmet synth`. Files are written under a temporary
 * name and renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_commit.h"
#include "sm_write_input.h"

/* Open path's temporary file (logged on failure). */
static sm_err_t open_tmp(sm_commit_t *c, const char *path)
{
  if (sm_commit_open(c, path, ".part", 1, "wb") == SM_OK)
    return SM_OK;
  sm_log_error("%s: cannot create: %s", c->tmp, sm_commit_strerror(errno));
  return SM_EIO;
}

/* Complete the file (bad: a write failed, drop it instead). */
static sm_err_t close_tmp(sm_commit_t *c, int bad)
{
  if (bad)
    sm_commit_abort(c);
  if (!bad && sm_commit_finish(c) == SM_OK)
    return SM_OK;
  sm_log_error("%s: write failed: %s", c->path, sm_commit_strerror(errno));
  return SM_EIO;
}

static double czek_at(const sm_vectors_t *v, size_t i, size_t q)
{
  return v->elem_size == 4 ? ((const float *)sm_vectors_row(v, i))[q]
                           : ((const double *)sm_vectors_row(v, i))[q];
}

static sm_err_t write_tsv(const sm_vectors_t *v, const char *path)
{
  sm_commit_t c;
  if (open_tmp(&c, path))
    return SM_EIO;
  FILE *f = c.f;
  int bad = fputs("vector", f) == EOF;
  for (size_t q = 0; q < v->nf; q++)
    bad |= fprintf(f, "\tf%zu", q) < 0;
  bad |= fputc('\n', f) == EOF;
  for (size_t i = 0; i < v->nv && !bad; i++) {
    if (v->names)
      bad |= fputs(v->names[i], f) == EOF;
    else
      bad |= fprintf(f, "v%zu", i) < 0;
    for (size_t q = 0; q < v->nf; q++)
      bad |= fprintf(f, "\t%.17g", czek_at(v, i, q)) < 0;
    bad |= fputc('\n', f) == EOF;
  }
  return close_tmp(&c, bad);
}

static sm_err_t write_npy(const sm_vectors_t *v, const char *path)
{
  char hdr[256];
  sm_commit_t c;
  if (open_tmp(&c, path))
    return SM_EIO;
  FILE *f = c.f;
  const int ccc = v->metric == SM_METRIC_CCC;
  int n = snprintf(hdr, sizeof hdr,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }",
                   ccc ? "|u1" : (v->elem_size == 4 ? "<f4" : "<f8"), v->nv, v->nf);
  /* pad so that magic + lengths + header is a multiple of 64, ending in \n */
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  int bad = fwrite("\x93NUMPY\x01\x00", 1, 8, f) != 8;
  unsigned hl = (unsigned)(n + pad + 1);
  unsigned char l[2] = {(unsigned char)(hl & 255), (unsigned char)(hl >> 8)};
  bad |= fwrite(l, 1, 2, f) != 2;
  bad |= fwrite(hdr, 1, (size_t)n, f) != (size_t)n;
  for (size_t k = 0; k < pad; k++)
    bad |= fputc(' ', f) == EOF;
  bad |= fputc('\n', f) == EOF;
  for (size_t i = 0; i < v->nv && !bad; i++) {
    if (ccc) {
      for (size_t q = 0; q < v->nf; q++)
        bad |= fputc((int)sm_gt_get(sm_vectors_row(v, i), q), f) == EOF;
    } else {
      bad |= fwrite(sm_vectors_row(v, i), v->elem_size, v->nf, f) != v->nf;
    }
  }
  return close_tmp(&c, bad);
}

/* CoMet raw: czek values vector after vector; ccc 4 fields per byte. */
static sm_err_t write_raw(const sm_vectors_t *v, const char *path)
{
  sm_commit_t c;
  if (open_tmp(&c, path))
    return SM_EIO;
  FILE *f = c.f;
  int bad = 0;
  for (size_t i = 0; i < v->nv && !bad; i++) {
    if (v->metric == SM_METRIC_CCC) {
      size_t nb = (v->nf + 3) / 4;
      bad |= fwrite(sm_vectors_row(v, i), 1, nb, f) != nb; /* little endian */
    } else {
      bad |= fwrite(sm_vectors_row(v, i), v->elem_size, v->nf, f) != v->nf;
    }
  }
  return close_tmp(&c, bad);
}

/* PLINK .bed: SNP-major, code = 3 - our code. */
static sm_err_t write_bed(const sm_vectors_t *v, const char *path)
{
  size_t nb = (v->nf + 3) / 4;
  unsigned char *buf = calloc(nb ? nb : 1, 1);
  if (!buf)
    return SM_ENOMEM;
  sm_commit_t c;
  if (open_tmp(&c, path)) {
    free(buf);
    return SM_EIO;
  }
  int bad = fwrite("\x6c\x1b\x01", 1, 3, c.f) != 3;
  for (size_t i = 0; i < v->nv && !bad; i++) {
    memset(buf, 0, nb);
    for (size_t q = 0; q < v->nf; q++) {
      unsigned code = 3u - sm_gt_get(sm_vectors_row(v, i), q);
      buf[q / 4] |= (unsigned char)(code << (2 * (q % 4)));
    }
    bad |= fwrite(buf, 1, nb, c.f) != nb;
  }
  free(buf);
  return close_tmp(&c, bad);
}

/* PLINK .bim (one line per vector) and .fam (one per field). */
static sm_err_t write_bim_fam(const sm_vectors_t *v, const char *bim, const char *fam)
{
  sm_commit_t c;
  if (open_tmp(&c, bim))
    return SM_EIO;
  int bad = 0;
  for (size_t i = 0; i < v->nv; i++) {
    if (v->names)
      bad |= fprintf(c.f, "1\t%s\t0\t%zu\tA\tG\n", v->names[i], i + 1) < 0;
    else
      bad |= fprintf(c.f, "1\tsnp%zu\t0\t%zu\tA\tG\n", i, i + 1) < 0;
  }
  sm_err_t err = close_tmp(&c, bad);
  if (err)
    return err;
  if (open_tmp(&c, fam))
    return SM_EIO;
  for (size_t q = 0; q < v->nf; q++)
    bad |= fprintf(c.f, "fam%zu\tind%zu\t0\t0\t0\t-9\n", q, q) < 0;
  return close_tmp(&c, bad);
}

/* PLINK: prefix.bed, .bim, .fam. */
static sm_err_t write_plink(const sm_vectors_t *v, const char *prefix)
{
  char bed[4096], bim[4096], fam[4096];
  snprintf(bed, sizeof bed, "%s.bed", prefix);
  snprintf(bim, sizeof bim, "%s.bim", prefix);
  snprintf(fam, sizeof fam, "%s.fam", prefix);
  sm_err_t err = write_bed(v, bed);
  return err ? err : write_bim_fam(v, bim, fam);
}

sm_err_t sm_vectors_write(const sm_vectors_t *v, sm_input_format_t fmt, const char *path)
{
  switch (fmt) {
  case SM_INPUT_TSV:
    return write_tsv(v, path);
  case SM_INPUT_NPY:
    return write_npy(v, path);
  case SM_INPUT_RAW:
    return write_raw(v, path);
  case SM_INPUT_PLINK:
    return write_plink(v, path);
  default:
    return SM_EOPTION;
  }
}
