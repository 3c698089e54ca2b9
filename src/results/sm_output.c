/* sm_output.c: result writers (tsv, starmet binary, CoMet records, the
 * npy and lsmat matrices of sm_matrix.c, npy's ids file) with
 * write-to-temporary-then-rename completion. */
#include "sm_output.h"
#include "sm_dio.h"

#include "sm_fmt.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "sm_bytes.h"
#include "sm_commit.h"
#include "sm_crc32c.h"
#include "sm_matrix.h"

struct sm_writer {
  sm_writer_info_t info;
  sm_commit_t c; /* the file (c.f, NULL for SM_OUT_NONE) under its temporary name */
  uint64_t count;
  int failed;
  sm_matrix_t *mat;  /* npy, lsmat: the matrix; NULL otherwise */
  sm_ldtab_t *ld;    /* ld: PLINK's table; NULL otherwise */
  int text_done;     /* lsmat: its text is written (sm_writer_sync) */
  sm_commit_t ids;   /* npy: PREFIX.ids.txt under its temporary name */
  int ids_open;      /* ids.tmp is this run's, removed unless renamed */
  uint32_t crc;      /* CRC-32C of what was appended since the last flush */
  uint64_t since;    /* and its length */
  uint32_t file_crc; /* CRC-32C of the file up to the last flush */
  uint64_t file_len; /* its length */
  char **names;      /* tsv, npy, lsmat: info.names as written (escape_names), or NULL */
  char *vbuf;        /* the stream's buffer (glibc ignores setvbuf's size without one) */
  sm_dio_t *dio;     /* ld: written straight to the disk, leased (sm_dio.h); or NULL */
  const char *check; /* sm_writer_check */
  int gather;        /* ld under mpirun: rank 0 writes the table, the other ranks
                        hold their pieces for it and have no file */
  z_stream *z;       /* ld gz: the deflate stream the table's text goes through */
  unsigned char *zbuf;
};

enum { ZBUF = 1 << 18 };

/* A 1 MiB buffer for the file's stream, freed with the writer: appends
 * reach the kernel in large writes. Without memory, the stream's own. */
static void stream_buffer(sm_writer_t *w)
{
  enum { VBUF = 1 << 20 };
  if ((w->vbuf = malloc(VBUF)) && setvbuf(w->c.f, w->vbuf, _IOFBF, VBUF) != 0) {
    free(w->vbuf);
    w->vbuf = NULL;
  }
}

/* Append len bytes, counted for the flush's CRC. 0, or 1 on a short write. */
static int append(sm_writer_t *w, const void *buf, size_t len)
{
  if (w->dio) /* (its CRC at its flushes) */
    return sm_dio_append(w->dio, buf, len) != 0;
  w->crc = sm_crc32c(w->crc, buf, len);
  w->since += len;
  if (len && fwrite_unlocked(buf, 1, len, w->c.f) != len) /* one thread writes */
    return 1;
  /* a large table reaches the disk as it is written (npy: in place) */
  return w->info.fmt != SM_OUT_NPY && sm_commit_writeback(&w->c, len) != 0;
}

/* Layout of the starmet binary header (64 bytes, little endian). */
#define SM_BIN_MAGIC "STARMET\0"
#define SM_BIN_VERSION 1u

sm_err_t sm_outfmt_parse(const char *s, sm_outfmt_t *fmt)
{
  static const char *const names[] = {"tsv", "bin",   "comet", "none",
                                      "npy", "lsmat", "ld"};
  for (int k = 0; k < 7; k++)
    if (!strcmp(s, names[k])) {
      *fmt = (sm_outfmt_t)k;
      return SM_OK;
    }
  sm_log_error(
      "--output-format: unknown format '%s' (use tsv, bin, npy, lsmat, ld, comet "
      "or none)",
      s);
  return SM_EOPTION;
}

void sm_output_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int rank,
                    int nranks)
{
  const char *ext = fmt == SM_OUT_TSV     ? "tsv"
                    : fmt == SM_OUT_NPY   ? "npy"
                    : fmt == SM_OUT_LSMAT ? "lsmat"
                    : fmt == SM_OUT_LD    ? "ld"
                                          : "bin";
  if (nranks <= 1 || fmt == SM_OUT_LD) /* ld: one table, which rank 0 writes */
    snprintf(buf, len, "%s.%s", prefix, ext);
  else if (rank < 0) /* the pattern of the set */
    snprintf(buf, len, "%s_<rank>.%s", prefix, ext);
  else
    snprintf(buf, len, "%s_%d.%s", prefix, rank, ext);
}

void sm_output_path_gz(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int gz,
                       int rank, int nranks)
{
  sm_output_path(buf, len, prefix, fmt, rank, nranks);
  const size_t n = strlen(buf);
  if (gz && fmt == SM_OUT_LD && n + 4 <= len)
    memcpy(buf + n, ".gz", 4);
}

int sm_output_ids_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt)
{
  snprintf(buf, len, "%s%s", fmt == SM_OUT_NPY ? prefix : "",
           fmt == SM_OUT_NPY ? ".ids.txt" : "");
  return fmt == SM_OUT_NPY;
}

void sm_bin_header(unsigned char h[SM_BIN_HEADER], const char *magic, int way, int metric,
                   int single, uint64_t nv, uint64_t nf, uint64_t count)
{
  memset(h, 0, SM_BIN_HEADER);
  memcpy(h, magic, 8);
  sm_put_le32(h + 8, SM_BIN_VERSION);
  sm_put_le32(h + 12, (uint32_t)way);
  sm_put_le32(h + 16, (uint32_t)metric);
  sm_put_le32(h + 20, single ? 4u : 8u);
  sm_put_le64(h + 24, nv);
  sm_put_le64(h + 32, nf);
  sm_put_le64(h + 40, count);
}

/* Names escaped as in the result TSV (sm_fmt_name): the top-k lists use it. */
int sm_put_vector_id(FILE *f, char *const *names, uint32_t i)
{
  return names ? sm_fmt_put_name(f, names[i]) : fprintf(f, "%u", i);
}

static sm_err_t write_bin_header(sm_writer_t *w)
{
  unsigned char h[SM_BIN_HEADER];
  sm_bin_header(h, SM_BIN_MAGIC, w->info.way, (int)w->info.metric, w->info.single,
                w->info.nv, w->info.nf, w->count);
  if (fseeko(w->c.f, 0, SEEK_SET) != 0 || append(w, h, sizeof h))
    return SM_EIO;
  return SM_OK;
}

/* Reopen the partial output of an interrupted run, dropping what it wrote
 * past its last recorded block. */
static sm_err_t reopen_partial(sm_writer_t *w, const char *path, uint64_t resume_off,
                               uint64_t resume_count, uint32_t resume_crc)
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
  w->file_len = resume_off;
  w->file_crc = resume_crc;
  stream_buffer(w);
  return SM_OK;
}

/* The TSV header: the ids, with --output-loci each one's chromosome and
 * position, CCC's entry bits, the value. */
static const char *tsv_header(const sm_writer_info_t *info)
{
  static const char *const plain[2][2] = {
      {"id_i\tid_j\tvalue\n", "id_i\tid_j\ta\tb\tvalue\n"},
      {"id_i\tid_j\tid_k\tvalue\n", "id_i\tid_j\tid_k\ta\tb\tc\tvalue\n"}};
  static const char *const loci[2][2] = {
      {"id_i\tid_j\tchr_i\tpos_i\tchr_j\tpos_j\tvalue\n",
       "id_i\tid_j\tchr_i\tpos_i\tchr_j\tpos_j\ta\tb\tvalue\n"},
      {"id_i\tid_j\tid_k\tchr_i\tpos_i\tchr_j\tpos_j\tchr_k\tpos_k\tvalue\n",
       "id_i\tid_j\tid_k\tchr_i\tpos_i\tchr_j\tpos_j\tchr_k\tpos_k\ta\tb\tc\tvalue\n"}};
  const int w3 = info->way == 3, ccc = info->metric == SM_METRIC_CCC;
  return info->loci_cols && info->loci ? loci[w3][ccc] : plain[w3][ccc];
}

int sm_output_check(char *why, size_t len, sm_outfmt_t fmt, int way, sm_metric_t metric,
                    int single, size_t nv, int nranks, int resume, const char *partial)
{
  if (fmt == SM_OUT_LD) {
    if (way != 2 ||
        (metric != SM_METRIC_R2 && metric != SM_METRIC_R && metric != SM_METRIC_CCC))
      snprintf(why, len,
               "--output-format ld is PLINK's table of pairs of variants: give --metric "
               "r2, r or ccc, 2-way (the other metrics: tsv or bin)");
    else if (resume)
      snprintf(why, len,
               "--output-format ld cannot --resume (the table is written at the end, "
               "sorted): rerun without --resume, or use tsv or bin");
    else
      return 0;
    return 1;
  }
  if (fmt != SM_OUT_NPY && fmt != SM_OUT_LSMAT)
    return 0;
  const int lsmat = fmt == SM_OUT_LSMAT;
  const char *f = lsmat ? "lsmat" : "npy";
  if (way != 2)
    snprintf(why, len,
             "--output-format %s holds the 2-way matrix: use tsv or bin for "
             "--num-way 3",
             f);
  else if (lsmat && sm_matrix_distance(metric, 0) != sm_matrix_distance(metric, 0))
    snprintf(why, len,
             "--output-format lsmat holds distances, and ccc values are not (a table "
             "of four per pair, and a vector's own value is no constant): use npy, tsv "
             "or bin");
  else if (resume)
    snprintf(why, len,
             "--output-format %s cannot --resume (the matrix is written %s, there is "
             "no completed part to keep): rerun without --resume, or use tsv or bin",
             f, lsmat ? "at the end" : "in place");
  else if (nranks > 1)
    snprintf(why, len,
             "--output-format %s is written by one process, not by %d MPI "
             "ranks: use tsv or bin (one file per rank) under mpirun",
             f, nranks);
  else if (lsmat && partial)
    snprintf(why, len,
             "--output-format lsmat is the whole distance matrix, and %s leaves pairs "
             "without a value: leave it out, or use npy (NaN where there is no value), "
             "tsv or bin",
             partial);
  else if (nv && !lsmat && !sm_matrix_bytes(0, metric, single, nv))
    snprintf(why, len,
             "--output-format npy: %zu vectors make a %.1f GiB matrix, over the "
             "%llu GiB limit of npy output: use bin or tsv (with --threshold "
             "to keep fewer values)",
             nv,
             (double)nv * (double)nv * (single ? 4 : 8) *
                 (metric == SM_METRIC_CCC ? 4 : 1) / (1u << 30),
             (unsigned long long)(SM_NPY_MAX_BYTES >> 30));
  else if (nv && lsmat && !sm_matrix_bytes(1, metric, single, nv))
    snprintf(why, len,
             "--output-format lsmat: %zu vectors make %.1f GiB of distances to hold in "
             "memory, over the %llu GiB limit of lsmat output (a text matrix is for "
             "what a person or a script reads whole): use npy (the matrix on disk, up "
             "to %llu GiB) or bin",
             nv, (double)nv * ((double)nv - 1) / 2 * (single ? 4 : 8) / (1u << 30),
             (unsigned long long)(SM_LSMAT_MAX_BYTES >> 30),
             (unsigned long long)(SM_NPY_MAX_BYTES >> 30));
  else
    return 0;
  return 1;
}

/* npy's ids file, PREFIX.ids.txt beside PATH = PREFIX.npy: one id a line,
 * the escaped names (w->names) or the 0-based indices. Written whole now
 * (through sm_commit: verified and renamed with the matrix). */
static sm_err_t create_ids(sm_writer_t *w, const char *path)
{
  char ids[SM_COMMIT_NAME_MAX];
  const size_t pl = strlen(path);
  snprintf(ids, sizeof ids, "%.*s.ids.txt", (int)(pl > 4 ? pl - 4 : 0), path);
  if (sm_commit_open(&w->ids, ids, ".part", 0, "wb") != SM_OK) {
    sm_log_error("%s: cannot create the ids file: %s%s", w->ids.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    return SM_EIO;
  }
  w->ids_open = 1;
  int bad = 0;
  for (size_t i = 0; i < w->info.nv && !bad; i++) {
    char num[SM_FMT_MAX];
    const char *id = w->names ? w->names[i] : num;
    if (!w->names)
      sm_fmt_u32(num, (uint32_t)i);
    bad = sm_commit_write(&w->ids, id, strlen(id)) || sm_commit_write(&w->ids, "\n", 1);
  }
  if (bad) {
    sm_log_error("%s: write failed: %s", w->ids.tmp, sm_commit_write_error(errno));
    return SM_EIO;
  }
  return SM_OK;
}

/* Create a new output file and write its header (npy: the whole matrix,
 * NaN but the diagonal, and the ids file). */
static sm_err_t create_file(sm_writer_t *w, const char *path)
{
  if (sm_commit_open(&w->c, path, ".part", 0, "wb") != SM_OK) {
    sm_log_error("%s: cannot create output file: %s%s", w->c.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    return SM_EIO;
  }
  stream_buffer(w);
  /* PLINK's table, gigabytes for a wide window: straight to the disk */
  if (w->info.fmt == SM_OUT_LD && !w->z)
    w->dio = sm_dio_start(fileno(w->c.f));
  int bad = 0;
  if (w->info.fmt == SM_OUT_NPY) {
    const sm_writer_info_t *in = &w->info;
    sm_err_t err =
        sm_matrix_npy_open(&w->mat, fileno(w->c.f), in->metric, in->single, in->nv);
    if (err)
      sm_log_error("%s: cannot write the npy matrix (%llu bytes): %s", w->c.tmp,
                   (unsigned long long)sm_matrix_bytes(0, in->metric, in->single, in->nv),
                   err == SM_ENOMEM ? "out of memory" : sm_commit_write_error(errno));
    else
      err = create_ids(w, path);
    if (err) {
      if (w->ids_open)
        sm_commit_abort(&w->ids);
      w->ids_open = 0;
      sm_commit_abort(&w->c);
      return err;
    }
  } else if (w->info.fmt == SM_OUT_BIN)
    bad = write_bin_header(w) != SM_OK;
  else if (w->info.fmt == SM_OUT_TSV) {
    const char *h = tsv_header(&w->info);
    bad = append(w, h, strlen(h));
  }
  if (bad) {
    sm_log_error("%s: write failed: %s", w->c.tmp, strerror(errno));
    sm_commit_abort(&w->c);
    return SM_EIO;
  }
  return SM_OK;
}

/* Free w->names where they are copies of info.names. */
static void free_names(sm_writer_t *w)
{
  if (!w->names || w->names == w->info.names)
    return;
  for (size_t i = 0; i < w->info.nv; i++)
    if (w->names[i] != w->info.names[i])
      free(w->names[i]);
  free(w->names);
}

/* The names as tsv_line writes them, escaped once here (sm_fmt_name) rather
 * than on every line: info.names itself when no name needs it, else an
 * array holding a copy of each name that does. SM_OK or SM_ENOMEM. */
static sm_err_t escape_names(sm_writer_t *w)
{
  char **in = w->info.names;
  const size_t nv = w->info.nv;
  size_t i = 0;
  while (i < nv && sm_fmt_name(NULL, in[i]) == strlen(in[i]))
    i++;
  if (i == nv) {
    w->names = in;
    return SM_OK;
  }
  if (!(w->names = calloc(nv, sizeof *w->names)))
    return SM_ENOMEM;
  for (i = 0; i < nv; i++) {
    const size_t n = sm_fmt_name(NULL, in[i]);
    w->names[i] = n == strlen(in[i]) ? in[i] : malloc(n + 1);
    if (!w->names[i]) {
      w->names[i] = in[i]; /* what free_names leaves */
      free_names(w);
      w->names = NULL;
      return SM_ENOMEM;
    }
    if (w->names[i] != in[i])
      sm_fmt_name(w->names[i], in[i]);
  }
  return SM_OK;
}

sm_err_t sm_writer_open(sm_writer_t **wp, const char *path, const sm_writer_info_t *info,
                        uint64_t resume_off, uint64_t resume_count, uint32_t resume_crc)
{
  *wp = NULL;
  sm_writer_t *w = calloc(1, sizeof *w);
  if (!w)
    return SM_ENOMEM;
  w->info = *info;
  sm_err_t err = SM_OK;
  char why[512];
  const int named =
      info->fmt == SM_OUT_TSV || info->fmt == SM_OUT_NPY || info->fmt == SM_OUT_LSMAT;
  if (sm_output_check(why, sizeof why, info->fmt, info->way, info->metric, info->single,
                      info->nv, info->nranks, resume_off != 0, NULL)) {
    if (info->rank == 0)
      sm_log_error("%s", why);
    err = SM_EOPTION;
  } else if (named && info->names && escape_names(w) != SM_OK) {
    err = SM_ENOMEM;
  } else if (info->fmt == SM_OUT_LSMAT &&
             sm_matrix_lsmat_ids(why, sizeof why, w->names, info->nv)) {
    sm_log_error("%s", why);
    err = SM_EOPTION;
  } else if (info->fmt == SM_OUT_LSMAT &&
             sm_matrix_lsmat_open(&w->mat, info->metric, info->single, info->nv)) {
    sm_log_error(
        "--output-format lsmat: out of memory for the %zu x %zu distance "
        "matrix (%llu bytes): use npy (the matrix on disk)",
        info->nv, info->nv,
        (unsigned long long)sm_matrix_bytes(1, info->metric, info->single, info->nv));
    err = SM_ENOMEM;
  } else if (info->fmt == SM_OUT_LD &&
             sm_ldtab_open(&w->ld,
                           info->metric == SM_METRIC_R2    ? 1
                           : info->metric == SM_METRIC_CCC ? 2
                                                           : 0,
                           info->loci, info->names, info->ld_freq, info->nv,
                           info->ld_width)) {
    sm_log_error("--output-format ld: out of memory");
    err = SM_ENOMEM;
  } else if (info->fmt != SM_OUT_NONE) {
    if (w->ld)
      sm_ldtab_index(w->ld, info->ld_index);
    w->gather = info->fmt == SM_OUT_LD && info->nranks > 1;
    if (info->fmt == SM_OUT_LD && info->gz && (!w->gather || info->rank == 0)) {
      w->z = calloc(1, sizeof *w->z);
      w->zbuf = malloc(ZBUF);
      /* gzip (15 + 16), zlib's default level, as PLINK's gz */
      if (!w->z || !w->zbuf ||
          deflateInit2(w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                       Z_DEFAULT_STRATEGY) != Z_OK) {
        sm_log_error("--output-format ld gz: out of memory");
        free(w->z), w->z = NULL;
        err = SM_ENOMEM;
      }
    }
    if (!err && (!w->gather || info->rank == 0))
      err = resume_off ? reopen_partial(w, path, resume_off, resume_count, resume_crc)
                       : create_file(w, path);
  }
  if (err) {
    if (w->z)
      deflateEnd(w->z);
    free(w->z), free(w->zbuf);
    free_names(w);
    sm_ldtab_free(w->ld);
    sm_matrix_free(w->mat);
    free(w->vbuf); /* the file is closed */
    free(w);
    return err;
  }
  *wp = w;
  return SM_OK;
}

/* One TSV line: the vectors' ids (names escaped by sm_fmt_name, in
 * w->names), the CCC entry bits, the value (the float32 value in single
 * precision, as bin and npy hold it), as printf's "%u" / "%.9g" / "%.17g"
 * would write them (sm_fmt.h), into line, which has room for tsv_max(w, x)
 * bytes; returns the length. */
static size_t tsv_line(const sm_writer_t *w, const sm_rec_t *x, char *line)
{
  const int way = w->info.way, ccc = w->info.metric == SM_METRIC_CCC;
  size_t len = 0;
  for (int k = 0; k < way; k++) {
    if (w->names) {
      const char *name = w->names[x->idx[k]];
      const size_t nl = strlen(name);
      memcpy(line + len, name, nl);
      len += nl;
    } else {
      len += sm_fmt_u32(line + len, x->idx[k]);
    }
    line[len++] = '\t';
  }
  const sm_loci_t *lc = w->info.loci_cols ? w->info.loci : NULL;
  for (int k = 0; lc && k < way; k++) {
    const char *ch = lc->chrom_names[lc->chrom[x->idx[k]]];
    const size_t cl = strlen(ch);
    memcpy(line + len, ch, cl);
    len += cl;
    line[len++] = '\t';
    len += sm_fmt_u32(line + len, lc->pos[x->idx[k]]);
    line[len++] = '\t';
  }
  if (ccc)
    for (int k = 0; k < way; k++) {
      line[len++] = (char)('0' + ((x->entry >> (way - 1 - k)) & 1u));
      line[len++] = '\t';
    }
  len += w->info.single ? sm_fmt_g(line + len, (double)(float)x->value, 9)
                        : sm_fmt_g(line + len, x->value, 17);
  line[len++] = '\n';
  return len;
}

/* The most bytes tsv_line writes for x (names escaped, 10-digit ids, entry
 * bits, the value and its NUL). */
static size_t tsv_max(const sm_writer_t *w, const sm_rec_t *x)
{
  size_t n = 3 * 2 + SM_FMT_MAX + 2;
  const sm_loci_t *lc = w->info.loci_cols ? w->info.loci : NULL;
  for (int k = 0; k < w->info.way; k++)
    n += (w->names ? strlen(w->names[x->idx[k]]) : 10) + 1 +
         (lc ? strlen(lc->chrom_names[lc->chrom[x->idx[k]]]) + 12 : 0);
  return n;
}

static int tsv_record(sm_writer_t *w, const sm_rec_t *x)
{
  char small[512];
  const size_t need = tsv_max(w, x);
  char *line = need <= sizeof small ? small : malloc(need);
  if (!line)
    return 1;
  const size_t len = tsv_line(w, x, line);
  const int bad = append(w, line, len);
  if (line != small)
    free(line);
  return bad;
}

int sm_writer_formats_text(const sm_writer_t *w)
{
  return w && (w->info.fmt == SM_OUT_TSV || w->info.fmt == SM_OUT_LD);
}

int sm_writer_pieces(const sm_writer_t *w)
{
  return w && w->info.fmt == SM_OUT_LD;
}

int sm_writer_piece(const sm_writer_t *w, const sm_rec_t *rec, size_t n, void **piece)
{
  sm_ldpiece_t *p = NULL;
  const int bad = sm_ldtab_block(w->ld, rec, n, &p);
  *piece = p;
  return bad;
}

void sm_writer_piece_free(void *piece)
{
  sm_ldtab_piece_free(piece);
}

int sm_writer_text_append(const sm_writer_t *w, const sm_rec_t *x, char **buf,
                          size_t *len, size_t *cap)
{
  const size_t need = tsv_max(w, x);
  if (*len + need > *cap) {
    size_t c = *cap ? 2 * *cap : 1 << 16;
    while (c < *len + need)
      c *= 2;
    char *grown = realloc(*buf, c);
    if (!grown)
      return -1;
    *buf = grown;
    *cap = c;
  }
  *len += tsv_line(w, x, *buf + *len);
  return 0;
}

sm_err_t sm_writer_put_text(sm_writer_t *w, const char *text, size_t len, uint64_t n)
{
  if (w->failed)
    return SM_EIO;
  if (append(w, text, len)) {
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
    w->failed = 1;
    return SM_EIO;
  }
  w->count += n;
  return SM_OK;
}

sm_err_t sm_writer_put(sm_writer_t *w, const sm_rec_t *rec, size_t n)
{
  if (w->info.fmt == SM_OUT_NONE || w->failed) {
    w->count += n;
    return w->failed ? SM_EIO : SM_OK;
  }
  const int way = w->info.way, ccc = w->info.metric == SM_METRIC_CCC;
  int bad = w->mat && sm_matrix_put(w->mat, rec, n) != 0; /* npy, lsmat */
  if (w->ld && sm_ldtab_put(w->ld, rec, n)) {
    sm_log_error("%s: out of memory for the .ld table's %llu lines (16 bytes each): "
                 "give --ld-window-r2 R to keep fewer pairs, or use tsv or bin",
                 w->c.tmp, (unsigned long long)(w->count + n));
    bad = 1;
  }
  for (size_t r = 0; r < n && !bad && !w->mat && !w->ld; r++) {
    const sm_rec_t *x = &rec[r];
    if (w->info.fmt == SM_OUT_TSV) {
      bad = tsv_record(w, x);
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
      len +=
          sm_put_value(b + len, x->value, w->info.fmt == SM_OUT_COMET || w->info.single);
      bad |= append(w, b, len);
    }
  }
  if (bad) {
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
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

sm_err_t sm_writer_flush(sm_writer_t *w, uint64_t *off, int *fd, uint32_t *crc)
{
  *off = 0;
  *fd = -1;
  uint64_t dio_end = 0;
  if (w->dio) {
    uint32_t c;
    uint64_t n;
    if (sm_dio_flush(w->dio, &c, &n, &dio_end) != 0) {
      sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
      w->failed = 1;
      return SM_EIO;
    }
    w->crc = sm_crc32c_combine(w->crc, c, n);
    w->since += n;
  }
  *crc = w->crc;
  w->file_crc = sm_crc32c_combine(w->file_crc, w->crc, w->since);
  w->file_len += w->since;
  w->crc = 0;
  w->since = 0;
  if (!w->c.f)
    return SM_OK;
  const int npy = w->info.fmt == SM_OUT_NPY;
  if (npy && sm_matrix_flush(w->mat) != 0) {
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
    w->failed = 1;
    return SM_EIO;
  }
  if (npy) { /* written in place: the end is the matrix's */
    *off = sm_matrix_end(w->mat);
    *fd = fileno(w->c.f);
    return SM_OK;
  }
  if (w->dio) { /* written by offset, not through the stream */
    *off = dio_end;
    *fd = fileno(w->c.f);
    return SM_OK;
  }
  if (fflush(w->c.f) != 0) {
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
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

/* Deflate n bytes at p (flush: Z_NO_FLUSH, or Z_FINISH at the end) and
 * append what comes out. 0, or -1 (errno set). */
static int gz_put(sm_writer_t *w, const void *p, size_t n, int flush)
{
  z_stream *z = w->z;
  z->next_in = (Bytef *)(uintptr_t)p;
  z->avail_in = (uInt)n; /* put_text's pieces are far below 4 GiB */
  int ret;
  do {
    z->next_out = w->zbuf, z->avail_out = ZBUF;
    ret = deflate(z, flush);
    if (ret == Z_STREAM_ERROR) {
      errno = EIO;
      return -1;
    }
    if (append(w, w->zbuf, ZBUF - z->avail_out))
      return -1;
  } while (z->avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
  return 0;
}

/* sm_matrix_lsmat_text's and sm_ldtab's output (ld gz: deflated). */
static int put_text(void *ctx, const void *p, size_t n)
{
  sm_writer_t *w = ctx;
  if (w->z)
    return gz_put(w, p, n, Z_NO_FLUSH);
  return append(w, p, n) ? -1 : 0;
}

sm_err_t sm_writer_put_piece(sm_writer_t *w, void *piece, uint64_t n, uint32_t upto)
{
  if (w->failed) {
    sm_ldtab_piece_free(piece);
    return SM_EIO;
  }
  if (w->gather ? sm_ldtab_hold(w->ld, piece)
                : sm_ldtab_stream(w->ld, piece, upto, put_text, w)) {
    sm_log_error("%s: %s", w->c.tmp,
                 errno == ENOMEM ? "out of memory writing the table"
                                 : sm_commit_write_error(errno));
    w->failed = 1;
    return SM_EIO;
  }
  w->count += n;
  return SM_OK;
}

int sm_writer_gathers(const sm_writer_t *w)
{
  return w && w->gather;
}

sm_err_t sm_writer_pack(sm_writer_t *w, unsigned char **buf, size_t *len)
{
  *buf = NULL, *len = 0;
  if (!w->gather || w->info.rank == 0)
    return SM_OK;
  if (sm_ldtab_pack(w->ld, buf, len)) {
    sm_log_error("rank %d: out of memory sending its part of the .ld table to rank 0",
                 w->info.rank);
    return SM_ENOMEM;
  }
  return SM_OK;
}

sm_err_t sm_writer_unpack(sm_writer_t *w, int from, const void *buf, size_t len)
{
  if (!sm_ldtab_unpack(w->ld, buf, len))
    return SM_OK;
  if (errno == ENOMEM)
    sm_log_error("%s: out of memory for rank %d's part of the table (rank 0 holds the "
                 "whole .ld table under mpirun: give --ld-window-r2 R to keep fewer "
                 "pairs, or use tsv or bin, a file per rank)",
                 w->c.tmp, from);
  else
    sm_log_error("%s: rank %d's part of the table arrived damaged", w->c.tmp, from);
  w->failed = 1;
  return errno == ENOMEM ? SM_ENOMEM : SM_EIO;
}

/* lsmat: the matrix, complete, as text (once). */
static sm_err_t lsmat_text(sm_writer_t *w)
{
  char why[256];
  w->text_done = 1;
  const sm_err_t err =
      sm_matrix_lsmat_text(w->mat, w->names, put_text, w, why, sizeof why);
  if (err == SM_EIO)
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
  else if (err == SM_ENOMEM)
    sm_log_error("%s: out of memory writing the matrix", w->c.tmp);
  else if (err)
    sm_log_error("%s: %s", w->c.path, why);
  return err;
}

sm_err_t sm_writer_sync(sm_writer_t *w)
{
  if (!w || !w->c.f)
    return SM_OK;
  uint64_t end;
  uint32_t crc;
  int fd;
  if (!w->failed && w->info.fmt == SM_OUT_LD && !w->text_done) {
    w->text_done = 1;
    sm_err_t e = sm_ldtab_text(w->ld, put_text, w);
    if (!e && w->z && gz_put(w, NULL, 0, Z_FINISH))
      e = SM_EIO;
    if (e) {
      sm_log_error("%s: %s", w->c.tmp,
                   e == SM_ENOMEM ? "out of memory writing the table"
                                  : sm_commit_write_error(errno));
      w->failed = 1;
      return SM_EIO;
    }
  }
  if (!w->failed && w->info.fmt == SM_OUT_LSMAT && !w->text_done && lsmat_text(w)) {
    w->failed = 1;
    return SM_EIO;
  }
  if (w->failed || sm_writer_flush(w, &end, &fd, &crc) != SM_OK || fsync(fd) != 0) {
    if (!w->failed)
      sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
    w->failed = 1;
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_writer_verify(sm_writer_t *w)
{
  if (!w || !w->c.f)
    return SM_OK;
  if (sm_writer_sync(w) != SM_OK)
    return SM_EIO;
  /* everything is written: the direct writing ends (the lease given up,
   * the file read back without O_DIRECT when another process opened it) */
  const int leased = sm_dio_intact(w->dio);
  sm_dio_stop(w->dio);
  w->dio = NULL;
  const int npy = w->info.fmt == SM_OUT_NPY;
  const uint64_t end = npy ? sm_matrix_end(w->mat) : w->file_len;
  uint32_t crc;
  const int fd = fileno(w->c.f);
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    sm_log_error("%s: cannot check the output: %s", w->c.tmp, strerror(errno));
    return SM_EIO;
  }
  if (sm_commit_replaced(&w->c)) {
    w->failed = 1;
    return SM_EIO;
  }
  const char *what = NULL;
  uint64_t at = 0;
  if (npy) {
    const int d = sm_matrix_differs(w->mat, fd, &at);
    if (d < 0) {
      sm_log_error("%s: out of memory checking the output", w->c.tmp);
      return SM_ENOMEM;
    }
    if ((uint64_t)sb.st_size != end)
      what = "is not the size written";
    else if (d)
      what = "does not hold the values written";
  } else if ((uint64_t)sb.st_size != w->file_len) {
    what = "is not the size written";
  } else if (leased) {
    /* written straight to the disk from buffers whose CRC was taken, and
     * no other process has opened the file since it was created: it holds
     * what was written, without reading it back from the disk */
    w->check = "leased";
  } else if (sm_crc32c_fd(fd, 0, w->file_len, &crc) != SM_OK) {
    sm_log_error("%s: cannot read the output back: %s", w->c.tmp,
                 errno ? strerror(errno) : "it ended early");
    return SM_EIO;
  } else if (crc != w->file_crc) {
    what = "does not hold the bytes written";
  } else {
    w->check = "read back";
  }
  if (!what) {
    if (!w->check) /* (npy: its values read back and compared) */
      w->check = "read back";
    if (w->ids_open && sm_commit_verify(&w->ids) != SM_OK) { /* logged */
      w->failed = 1;
      return SM_EIO;
    }
    return SM_OK;
  }
  sm_log_error("%s: the output %s (%lld bytes on disk, %llu written): another process "
               "changed it while this run wrote it",
               w->c.tmp, what, (long long)sb.st_size, (unsigned long long)end);
  w->failed = 1;
  return SM_EIO;
}

int sm_writer_fd(const sm_writer_t *w)
{
  return w && w->c.f ? fileno(w->c.f) : -1;
}

const char *sm_writer_check(const sm_writer_t *w)
{
  return w && w->check ? w->check : "none";
}

const char *sm_writer_part(const sm_writer_t *w)
{
  return w && w->c.f ? w->c.tmp : NULL;
}

uint32_t sm_writer_final_crc(const sm_writer_t *w, uint64_t header_end)
{
  if (w->info.fmt == SM_OUT_BIN) {
    unsigned char h[SM_BIN_HEADER];
    sm_bin_header(h, SM_BIN_MAGIC, w->info.way, (int)w->info.metric, w->info.single,
                  w->info.nv, w->info.nf, w->count);
    return sm_crc32c(0, h, header_end < sizeof h ? (size_t)header_end : sizeof h);
  }
  if (w->info.fmt == SM_OUT_TSV) {
    const char *h = tsv_header(&w->info);
    return sm_crc32c(0, h, header_end < strlen(h) ? (size_t)header_end : strlen(h));
  }
  return 0;
}

sm_err_t sm_writer_seal(sm_writer_t *w)
{
  if (!w || !w->c.f)
    return SM_OK;
  int bad = w->failed;
  if (!bad && w->info.fmt == SM_OUT_NPY)
    bad = sm_matrix_flush(w->mat) != 0;
  if (!bad && w->info.fmt == SM_OUT_BIN)
    bad = write_bin_header(w) != SM_OK;
  sm_dio_stop(w->dio); /* what it wrote is on the file, synced below */
  w->dio = NULL;
  int saved = errno;
  bad |= fflush(w->c.f) != 0 || fsync(fileno(w->c.f)) != 0;
  if (!saved)
    saved = errno;
  bad |= fclose(w->c.f) != 0;
  w->c.f = NULL;
  if (bad) {
    errno = saved ? saved : errno;
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
    w->failed = 1;
    return SM_EIO;
  }
  if (w->ids_open && sm_commit_close(&w->ids) != SM_OK) { /* removed */
    sm_log_error("%s: write failed: %s", w->ids.tmp, sm_commit_write_error(errno));
    w->ids_open = 0;
    w->failed = 1;
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_writer_rename(sm_writer_t *w)
{
  if (!w || w->info.fmt == SM_OUT_NONE || (w->gather && w->info.rank != 0))
    return SM_OK;
  w->c.keep = 1;     /* a complete output is never removed */
  if (w->ids_open) { /* the ids first: a matrix in place has its ids */
    w->ids.keep = 1;
    w->ids_open = 0;
    if (sm_commit_rename(&w->ids) != SM_OK) {
      const int saved = errno;
      sm_log_error(
          "%s: cannot rename the complete ids file %s to it: %s; it stays there, "
          "and the matrix in %s.part",
          w->ids.path, w->ids.tmp,
          saved == ENOTSUP ? "the path is now taken by what is not a regular file"
                           : strerror(saved),
          w->c.path);
      errno = saved;
      return SM_EIO;
    }
  }
  return sm_commit_rename(&w->c);
}

const char *sm_writer_path(const sm_writer_t *w)
{
  return w && w->info.fmt != SM_OUT_NONE && (!w->gather || w->info.rank == 0) ? w->c.path
                                                                              : NULL;
}

void sm_writer_close(sm_writer_t *w, int keep)
{
  if (!w)
    return;
  sm_dio_stop(w->dio);
  w->dio = NULL;
  if (w->c.f && keep) {
    fclose(w->c.f); /* the partial output, for --resume */
    w->c.f = NULL;
  } else if (w->c.f) {
    sm_commit_abort(&w->c);
  }
  if (w->ids_open)
    sm_commit_abort(&w->ids);
  free_names(w);
  sm_matrix_free(w->mat);
  sm_ldtab_free(w->ld);
  if (w->z)
    deflateEnd(w->z);
  free(w->z), free(w->zbuf);
  free(w->vbuf); /* the file is closed */
  free(w);
}
