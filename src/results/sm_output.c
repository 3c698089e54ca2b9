/* sm_output.c: result writers (tsv, starmet binary, CoMet records) with
 * write-to-temporary-then-rename completion. */
#include "sm_output.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_bytes.h"
#include "sm_commit.h"

struct sm_writer {
  sm_writer_info_t info;
  sm_commit_t c; /* the file (c.f, NULL for SM_OUT_NONE) under its temporary name */
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

void sm_output_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int rank,
                    int nranks)
{
  const char *ext = fmt == SM_OUT_TSV ? "tsv" : "bin";
  if (nranks <= 1)
    snprintf(buf, len, "%s.%s", prefix, ext);
  else if (rank < 0) /* the pattern of the set */
    snprintf(buf, len, "%s_<rank>.%s", prefix, ext);
  else
    snprintf(buf, len, "%s_%d.%s", prefix, rank, ext);
}

static sm_err_t write_bin_header(sm_writer_t *w)
{
  unsigned char h[SM_BIN_HEADER] = {0};
  memcpy(h, SM_BIN_MAGIC, 8);
  sm_put_le32(h + 8, SM_BIN_VERSION);
  sm_put_le32(h + 12, (uint32_t)w->info.way);
  sm_put_le32(h + 16, (uint32_t)w->info.metric);
  sm_put_le32(h + 20, w->info.single ? 4u : 8u);
  sm_put_le64(h + 24, w->info.nv);
  sm_put_le64(h + 32, w->info.nf);
  sm_put_le64(h + 40, w->count);
  if (fseeko(w->c.f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, w->c.f) != sizeof h)
    return SM_EIO;
  return SM_OK;
}

/* Reopen the partial output of an interrupted run, dropping what it wrote
 * past its last recorded block. */
static sm_err_t reopen_partial(sm_writer_t *w, const char *path, uint64_t resume_off,
                               uint64_t resume_count)
{
  if (sm_commit_open(&w->c, path, ".part", 0, "r+b") != SM_OK) {
    if (errno == EBUSY) {
      sm_log_error("%s: %s", w->c.tmp, sm_commit_strerror(errno));
      return SM_EIO;
    }
    sm_log_error("%s: the partial output of the interrupted run is missing (%s); "
                 "rerun without --resume",
                 w->c.tmp, strerror(errno));
    return SM_EINCONSIST;
  }
  struct stat sb;
  if (fstat(fileno(w->c.f), &sb) == 0 && (uint64_t)sb.st_size < resume_off) {
    sm_log_error("%s: %lld bytes, but the resume manifest vouches for %llu: the partial "
                 "output was truncated or replaced since the run stopped; rerun without "
                 "--resume",
                 w->c.tmp, (long long)sb.st_size, (unsigned long long)resume_off);
    fclose(w->c.f); /* left as it is */
    return SM_EINCONSIST;
  }
  if (ftruncate(fileno(w->c.f), (off_t)resume_off) != 0 ||
      fseeko(w->c.f, (off_t)resume_off, SEEK_SET) != 0) {
    sm_log_error("%s: cannot resume the partial output: %s", w->c.tmp, strerror(errno));
    fclose(w->c.f); /* the partial file stays, for another --resume */
    return SM_EIO;
  }
  w->count = resume_count;
  setvbuf(w->c.f, NULL, _IOFBF, 1 << 20);
  return SM_OK;
}

static const char *tsv_header(const sm_writer_info_t *info)
{
  if (info->way == 2)
    return info->metric == SM_METRIC_CCC ? "id_i\tid_j\ta\tb\tvalue\n"
                                         : "id_i\tid_j\tvalue\n";
  return info->metric == SM_METRIC_CCC ? "id_i\tid_j\tid_k\ta\tb\tc\tvalue\n"
                                       : "id_i\tid_j\tid_k\tvalue\n";
}

/* Create a new output file and write its header. */
static sm_err_t create_file(sm_writer_t *w, const char *path)
{
  if (sm_commit_open(&w->c, path, ".part", 0, "wb") != SM_OK) {
    sm_log_error("%s: cannot create output file: %s%s", w->c.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    return SM_EIO;
  }
  setvbuf(w->c.f, NULL, _IOFBF, 1 << 20);
  int bad = 0;
  if (w->info.fmt == SM_OUT_BIN)
    bad = write_bin_header(w) != SM_OK;
  else if (w->info.fmt == SM_OUT_TSV)
    bad = fputs(tsv_header(&w->info), w->c.f) == EOF;
  if (bad) {
    sm_log_error("%s: write failed: %s", w->c.tmp, strerror(errno));
    sm_commit_abort(&w->c);
    return SM_EIO;
  }
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
  sm_err_t err = SM_OK;
  if (info->fmt != SM_OUT_NONE)
    err = resume_off ? reopen_partial(w, path, resume_off, resume_count)
                     : create_file(w, path);
  if (err) {
    free(w);
    return err;
  }
  *wp = w;
  return SM_OK;
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
        bad |= put_name(w->c.f, w, x->idx[k]) < 0;
        bad |= fputc('\t', w->c.f) == EOF;
      }
      if (ccc) {
        for (int k = 0; k < way; k++)
          bad |= fprintf(w->c.f, "%u\t", (x->entry >> (way - 1 - k)) & 1u) < 0;
      }
      if (w->info.single)
        bad |= fprintf(w->c.f, "%.9g\n", x->value) < 0;
      else
        bad |= fprintf(w->c.f, "%.17g\n", x->value) < 0;
    } else {
      unsigned char b[32];
      size_t len = 0;
      for (int k = 0; k < way; k++) {
        uint32_t c = x->idx[k];
        if (w->info.fmt == SM_OUT_COMET && ccc)
          c = 2 * c + ((x->entry >> (way - 1 - k)) & 1u);
        sm_put_le32(b + len, c);
        len += 4;
      }
      if (w->info.fmt == SM_OUT_BIN && ccc)
        b[len++] = (unsigned char)x->entry;
      if (w->info.fmt == SM_OUT_COMET || w->info.single) {
        float v = (float)x->value;
        uint32_t u;
        memcpy(&u, &v, 4);
        sm_put_le32(b + len, u);
        len += 4;
      } else {
        uint64_t u;
        memcpy(&u, &x->value, 8);
        sm_put_le64(b + len, u);
        len += 8;
      }
      bad |= fwrite(b, 1, len, w->c.f) != len;
    }
  }
  if (bad) {
    sm_log_error("%s: write failed: %s (disk full?)", w->c.tmp, strerror(errno));
    w->failed = 1;
    return SM_EIO;
  }
  w->count += n;
  return SM_OK;
}

uint64_t sm_writer_count(const sm_writer_t *w)
{
  return w->count;
}

sm_err_t sm_writer_flush(sm_writer_t *w, uint64_t *off, int *fd)
{
  *off = 0;
  *fd = -1;
  if (!w->c.f)
    return SM_OK;
  if (fflush(w->c.f) != 0) {
    sm_log_error("%s: write failed: %s (disk full?)", w->c.tmp, strerror(errno));
    w->failed = 1;
    return SM_EIO;
  }
  off_t o = ftello(w->c.f);
  if (o < 0)
    return SM_EIO;
  *off = (uint64_t)o;
  *fd = fileno(w->c.f);
  return SM_OK;
}

/* Complete the file: the binary header's final count, the bytes on disk,
 * the final name. On failure the temporary file is removed. */
static sm_err_t commit_file(sm_writer_t *w)
{
  sm_err_t err;
  if (w->info.fmt == SM_OUT_BIN && write_bin_header(w) != SM_OK) {
    err = SM_EIO;
    sm_commit_abort(&w->c);
  } else {
    err = sm_commit_close(&w->c);
  }
  if (err) {
    sm_log_error("%s: write failed: %s (disk full?)", w->c.tmp, strerror(errno));
    return err;
  }
  if (sm_commit_rename(&w->c) != SM_OK) {
    sm_log_error("%s: cannot rename to %s: %s", w->c.tmp, w->c.path, strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_writer_close(sm_writer_t *w, int commit)
{
  if (!w)
    return SM_OK;
  sm_err_t err = SM_OK;
  if (!w->c.f) {
    /* SM_OUT_NONE: no file */
  } else if (commit > 0 && !w->failed) {
    err = commit_file(w);
  } else {
    /* commit < 0 keeps the partial file (--resume); otherwise it goes */
    int bad = fclose(w->c.f) != 0;
    w->c.f = NULL;
    if (bad && commit > 0)
      sm_log_error("%s: write failed: %s (disk full?)", w->c.tmp, strerror(errno));
    if (commit >= 0)
      sm_commit_abort(&w->c);
    err = bad || (commit >= 0 && w->failed) ? SM_EIO : SM_OK;
  }
  free(w);
  return err;
}
