/* sm_write_input.c: writing a vector set as an input file (TSV, .npy, raw,
 * PLINK), used by `starmet synth`. Files are written under a temporary
 * name and renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_compute.h"

static FILE *open_tmp(const char *path, char *tmp, size_t len)
{
  snprintf(tmp, len, "%s.part.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f)
    sm_log_error("%s: cannot create: %s", tmp, strerror(errno));
  return f;
}

static sm_err_t close_tmp(FILE *f, const char *tmp, const char *path, int bad)
{
  bad |= ferror(f) || fflush(f) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    sm_log_error("%s: write failed: %s", path, strerror(errno));
    unlink(tmp);
    return SM_EIO;
  }
  return SM_OK;
}

static double czek_at(const sm_vectors_t *v, size_t i, size_t q)
{
  return v->elem_size == 4 ? ((const float *)sm_vectors_row(v, i))[q]
                           : ((const double *)sm_vectors_row(v, i))[q];
}

static sm_err_t write_tsv(const sm_vectors_t *v, const char *path)
{
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f)
    return SM_EIO;
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
  return close_tmp(f, tmp, path, bad);
}

static sm_err_t write_npy(const sm_vectors_t *v, const char *path)
{
  char tmp[4096], hdr[256];
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f)
    return SM_EIO;
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
  return close_tmp(f, tmp, path, bad);
}

/* CoMet raw: czek values vector after vector; ccc 4 fields per byte. */
static sm_err_t write_raw(const sm_vectors_t *v, const char *path)
{
  char tmp[4096];
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f)
    return SM_EIO;
  int bad = 0;
  for (size_t i = 0; i < v->nv && !bad; i++) {
    if (v->metric == SM_METRIC_CCC) {
      size_t nb = (v->nf + 3) / 4;
      bad |= fwrite(sm_vectors_row(v, i), 1, nb, f) != nb; /* little endian */
    } else {
      bad |= fwrite(sm_vectors_row(v, i), v->elem_size, v->nf, f) != v->nf;
    }
  }
  return close_tmp(f, tmp, path, bad);
}

/* PLINK: prefix.bed (SNP-major, code = 3 - our code), .bim, .fam. */
static sm_err_t write_plink(const sm_vectors_t *v, const char *prefix)
{
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s.bed", prefix);
  FILE *f = open_tmp(path, tmp, sizeof tmp);
  if (!f)
    return SM_EIO;
  int bad = fwrite("\x6c\x1b\x01", 1, 3, f) != 3;
  size_t nb = (v->nf + 3) / 4;
  unsigned char *buf = calloc(nb ? nb : 1, 1);
  if (!buf) {
    fclose(f);
    unlink(tmp);
    return SM_ENOMEM;
  }
  for (size_t i = 0; i < v->nv && !bad; i++) {
    memset(buf, 0, nb);
    for (size_t q = 0; q < v->nf; q++) {
      unsigned c = 3u - sm_gt_get(sm_vectors_row(v, i), q);
      buf[q / 4] |= (unsigned char)(c << (2 * (q % 4)));
    }
    bad |= fwrite(buf, 1, nb, f) != nb;
  }
  free(buf);
  sm_err_t err = close_tmp(f, tmp, path, bad);
  if (err)
    return err;
  snprintf(path, sizeof path, "%s.bim", prefix);
  if (!(f = open_tmp(path, tmp, sizeof tmp)))
    return SM_EIO;
  for (size_t i = 0; i < v->nv; i++) {
    if (v->names)
      bad |= fprintf(f, "1\t%s\t0\t%zu\tA\tG\n", v->names[i], i + 1) < 0;
    else
      bad |= fprintf(f, "1\tsnp%zu\t0\t%zu\tA\tG\n", i, i + 1) < 0;
  }
  if ((err = close_tmp(f, tmp, path, bad)))
    return err;
  snprintf(path, sizeof path, "%s.fam", prefix);
  if (!(f = open_tmp(path, tmp, sizeof tmp)))
    return SM_EIO;
  for (size_t q = 0; q < v->nf; q++)
    bad |= fprintf(f, "fam%zu\tind%zu\t0\t0\t0\t-9\n", q, q) < 0;
  return close_tmp(f, tmp, path, bad);
}

sm_err_t sm_vectors_write(const sm_vectors_t *v, sm_input_format_t fmt, const char *path)
{
  switch (fmt) {
  case SM_INPUT_TSV: return write_tsv(v, path);
  case SM_INPUT_NPY: return write_npy(v, path);
  case SM_INPUT_RAW: return write_raw(v, path);
  case SM_INPUT_PLINK: return write_plink(v, path);
  default: return SM_EOPTION;
  }
}
