/* sm_output.c: result writers (tsv, starmet binary, CoMet records) with
 * write-to-temporary-then-rename completion. */
#include "sm_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sm_writer {
  sm_writer_info_t info;
  char *path, *tmp;
  FILE *f;
  uint64_t count;
  int failed;
};

/* Layout of the starmet binary header (64 bytes, little endian). */
#define SM_BIN_MAGIC "STARMET\0"
#define SM_BIN_VERSION 1u
#define SM_BIN_HEADER 64

sm_err_t sm_outfmt_parse(const char *s, sm_outfmt_t *fmt)
{
  static const char *const names[] = {"tsv", "bin", "comet", "none"};
  for (int k = 0; k < 4; k++)
    if (!strcmp(s, names[k])) {
      *fmt = (sm_outfmt_t)k;
      return SM_OK;
    }
  sm_log_error("--output-format: unknown format '%s' (use tsv, bin, comet or none)", s);
  return SM_EOPTION;
}

void sm_output_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt,
                    int rank, int nranks)
{
  const char *ext = fmt == SM_OUT_TSV ? "tsv" : "bin";
  if (nranks <= 1)
    snprintf(buf, len, "%s.%s", prefix, ext);
  else if (rank < 0) /* the pattern of the set */
    snprintf(buf, len, "%s_<rank>.%s", prefix, ext);
  else
    snprintf(buf, len, "%s_%d.%s", prefix, rank, ext);
}

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

static sm_err_t write_bin_header(sm_writer_t *w)
{
  unsigned char h[SM_BIN_HEADER] = {0};
  memcpy(h, SM_BIN_MAGIC, 8);
  put_u32(h + 8, SM_BIN_VERSION);
  put_u32(h + 12, (uint32_t)w->info.way);
  put_u32(h + 16, (uint32_t)w->info.metric);
  put_u32(h + 20, w->info.single ? 4u : 8u);
  put_u64(h + 24, w->info.nv);
  put_u64(h + 32, w->info.nf);
  put_u64(h + 40, w->count);
  if (fseeko(w->f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, w->f) != sizeof h)
    return SM_EIO;
  return SM_OK;
}

sm_err_t sm_writer_open(sm_writer_t **wp, const char *path, const sm_writer_info_t *info,
                        uint64_t resume_off, uint64_t resume_count)
{
  *wp = NULL;
  sm_writer_t *w = calloc(1, sizeof *w);
  if (!w)
    return SM_ENOMEM;
  w->info = *info;
  if (info->fmt == SM_OUT_NONE) {
    *wp = w;
    return SM_OK;
  }
  size_t n = strlen(path) + 32;
  w->path = strdup(path);
  w->tmp = malloc(n);
  if (!w->path || !w->tmp)
    goto fail_mem;
  snprintf(w->tmp, n, "%s.part", path);
  w->f = fopen(w->tmp, resume_off ? "r+b" : "wb");
  if (w->f && resume_off) {
    /* continue an interrupted run: drop what it wrote past its last
     * recorded block */
    if (ftruncate(fileno(w->f), (off_t)resume_off) != 0 ||
        fseeko(w->f, (off_t)resume_off, SEEK_SET) != 0) {
      sm_log_error("%s: cannot resume the partial output: %s", w->tmp, strerror(errno));
      fclose(w->f);
      free(w->path);
      free(w->tmp);
      free(w);
      return SM_EIO;
    }
    w->count = resume_count;
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    *wp = w;
    return SM_OK;
  }
  if (!w->f && resume_off) {
    sm_log_error("%s: the partial output of the interrupted run is missing (%s); "
                 "rerun without --resume", w->tmp, strerror(errno));
    free(w->path);
    free(w->tmp);
    free(w);
    return SM_EINCONSIST;
  }
  if (!w->f) {
    sm_log_error("%s: cannot create output file: %s (check that the directory "
                 "exists and is writable)", w->tmp, strerror(errno));
    free(w->path);
    free(w->tmp);
    free(w);
    return SM_EIO;
  }
  setvbuf(w->f, NULL, _IOFBF, 1 << 20);
  if (info->fmt == SM_OUT_BIN) {
    if (write_bin_header(w) != SM_OK)
      goto fail_io;
  } else if (info->fmt == SM_OUT_TSV) {
    const char *hdr = info->way == 2
                          ? (info->metric == SM_METRIC_CCC ? "id_i\tid_j\ta\tb\tvalue\n"
                                                           : "id_i\tid_j\tvalue\n")
                          : (info->metric == SM_METRIC_CCC
                                 ? "id_i\tid_j\tid_k\ta\tb\tc\tvalue\n"
                                 : "id_i\tid_j\tid_k\tvalue\n");
    if (fputs(hdr, w->f) == EOF)
      goto fail_io;
  }
  *wp = w;
  return SM_OK;
fail_io:
  sm_log_error("%s: write failed: %s", w->tmp, strerror(errno));
  fclose(w->f);
  unlink(w->tmp);
  free(w->path);
  free(w->tmp);
  free(w);
  return SM_EIO;
fail_mem:
  free(w->path);
  free(w->tmp);
  free(w);
  return SM_ENOMEM;
}

static int put_name(FILE *f, const sm_writer_t *w, uint32_t i)
{
  if (w->info.names)
    return fputs(w->info.names[i], f);
  return fprintf(f, "%u", i);
}

sm_err_t sm_writer_put(sm_writer_t *w, const sm_rec_t *rec, size_t n)
{
  if (w->info.fmt == SM_OUT_NONE || w->failed) {
    w->count += n;
    return w->failed ? SM_EIO : SM_OK;
  }
  const int way = w->info.way, ccc = w->info.metric == SM_METRIC_CCC;
  int bad = 0;
  for (size_t r = 0; r < n && !bad; r++) {
    const sm_rec_t *x = &rec[r];
    if (w->info.fmt == SM_OUT_TSV) {
      for (int k = 0; k < way; k++) {
        bad |= put_name(w->f, w, x->idx[k]) < 0;
        bad |= fputc('\t', w->f) == EOF;
      }
      if (ccc) {
        for (int k = 0; k < way; k++)
          bad |= fprintf(w->f, "%u\t", (x->entry >> (way - 1 - k)) & 1u) < 0;
      }
      if (w->info.single)
        bad |= fprintf(w->f, "%.9g\n", x->value) < 0;
      else
        bad |= fprintf(w->f, "%.17g\n", x->value) < 0;
    } else {
      unsigned char b[32];
      size_t len = 0;
      for (int k = 0; k < way; k++) {
        uint32_t c = x->idx[k];
        if (w->info.fmt == SM_OUT_COMET && ccc)
          c = 2 * c + ((x->entry >> (way - 1 - k)) & 1u);
        put_u32(b + len, c);
        len += 4;
      }
      if (w->info.fmt == SM_OUT_BIN && ccc)
        b[len++] = (unsigned char)x->entry;
      if (w->info.fmt == SM_OUT_COMET || w->info.single) {
        float v = (float)x->value;
        uint32_t u;
        memcpy(&u, &v, 4);
        put_u32(b + len, u);
        len += 4;
      } else {
        uint64_t u;
        memcpy(&u, &x->value, 8);
        put_u64(b + len, u);
        len += 8;
      }
      bad |= fwrite(b, 1, len, w->f) != len;
    }
  }
  if (bad) {
    sm_log_error("%s: write failed: %s (disk full?)", w->tmp, strerror(errno));
    w->failed = 1;
    return SM_EIO;
  }
  w->count += n;
  return SM_OK;
}

uint64_t sm_writer_count(const sm_writer_t *w) { return w->count; }

sm_err_t sm_writer_flush(sm_writer_t *w, uint64_t *off, int *fd)
{
  *off = 0;
  *fd = -1;
  if (!w->f)
    return SM_OK;
  if (fflush(w->f) != 0) {
    sm_log_error("%s: write failed: %s (disk full?)", w->tmp, strerror(errno));
    w->failed = 1;
    return SM_EIO;
  }
  off_t o = ftello(w->f);
  if (o < 0)
    return SM_EIO;
  *off = (uint64_t)o;
  *fd = fileno(w->f);
  return SM_OK;
}

sm_err_t sm_writer_close(sm_writer_t *w, int commit)
{
  if (!w)
    return SM_OK;
  sm_err_t err = SM_OK;
  if (w->f) {
    if (commit > 0 && !w->failed) {
      if (w->info.fmt == SM_OUT_BIN && write_bin_header(w) != SM_OK)
        err = SM_EIO;
      if (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)
        err = SM_EIO;
    }
    if (fclose(w->f) != 0)
      err = SM_EIO;
    if (commit > 0 && !w->failed && err == SM_OK) {
      if (rename(w->tmp, w->path) != 0) {
        sm_log_error("%s: cannot rename to %s: %s", w->tmp, w->path, strerror(errno));
        err = SM_EIO;
      }
    } else if (commit > 0 && err != SM_OK) {
      sm_log_error("%s: write failed: %s (disk full?)", w->tmp, strerror(errno));
    }
    if (commit >= 0 && (!commit || w->failed || err != SM_OK)) {
      unlink(w->tmp);
      if (w->failed)
        err = SM_EIO;
    }
  }
  free(w->path);
  free(w->tmp);
  free(w);
  return err;
}
