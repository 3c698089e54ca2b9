/* sm_output.c: result writers (tsv, starmet binary, CoMet records, the
 * npy matrix) with write-to-temporary-then-rename completion. */
#include "sm_output.h"

#include "sm_fmt.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_bytes.h"
#include "sm_commit.h"
#include "sm_crc32c.h"

/* npy: values consecutive in the file (a block's row) gathered into one
 * pwrite; one run for the (i,j) side, one for the (j,i) side. */
#define SM_NPY_RUN 65536
typedef struct npy_run {
  uint64_t off; /* file offset of buf[0] */
  size_t len;
  unsigned char buf[SM_NPY_RUN];
} npy_run_t;

struct sm_writer {
  sm_writer_info_t info;
  sm_commit_t c; /* the file (c.f, NULL for SM_OUT_NONE) under its temporary name */
  uint64_t count;
  int failed;
  npy_run_t *run;              /* npy: run[0] (i,j), run[1] (j,i); NULL otherwise */
  uint64_t npy_data;           /* npy: offset of the matrix (header size) */
  uint64_t npy_sum;            /* npy: sum of npy_cell over the values written */
  unsigned char npy_head[256]; /* npy: the header written (npy_data bytes) */
  uint32_t crc;                /* CRC-32C of what was appended since the last flush */
  uint64_t since;              /* and its length */
  uint32_t file_crc;           /* CRC-32C of the file up to the last flush */
  uint64_t file_len;           /* its length */
  char **names;                /* tsv: info.names as written (escape_names), or NULL */
};

/* Append len bytes, counted for the flush's CRC. 0, or 1 on a short write. */
static int append(sm_writer_t *w, const void *buf, size_t len)
{
  w->crc = sm_crc32c(w->crc, buf, len);
  w->since += len;
  return len && fwrite_unlocked(buf, 1, len, w->c.f) != len; /* one thread writes */
}

/* A value written to the npy matrix at file offset off, for the check at
 * commit: an order-free sum of a mix of both (NaN, the matrix's "no
 * value", counts as not written). */
static uint64_t npy_cell(uint64_t off, uint64_t bits, int single)
{
  const int nan =
      single ? (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu)
             : (bits & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000) &&
                   (bits & UINT64_C(0xfffffffffffff));
  if (nan)
    return 0;
  uint64_t z = off * UINT64_C(0x9e3779b97f4a7c15) ^ bits;
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return (z ^ (z >> 31)) | 1;
}

/* Layout of the starmet binary header (64 bytes, little endian). */
#define SM_BIN_MAGIC "STARMET\0"
#define SM_BIN_VERSION 1u

sm_err_t sm_outfmt_parse(const char *s, sm_outfmt_t *fmt)
{
  static const char *const names[] = {"tsv", "bin", "comet", "none", "npy"};
  for (int k = 0; k < 5; k++)
    if (!strcmp(s, names[k])) {
      *fmt = (sm_outfmt_t)k;
      return SM_OK;
    }
  sm_log_error("--output-format: unknown format '%s' (use tsv, bin, npy, comet or none)",
               s);
  return SM_EOPTION;
}

void sm_output_path(char *buf, size_t len, const char *prefix, sm_outfmt_t fmt, int rank,
                    int nranks)
{
  const char *ext = fmt == SM_OUT_TSV ? "tsv" : fmt == SM_OUT_NPY ? "npy" : "bin";
  if (nranks <= 1)
    snprintf(buf, len, "%s.%s", prefix, ext);
  else if (rank < 0) /* the pattern of the set */
    snprintf(buf, len, "%s_<rank>.%s", prefix, ext);
  else
    snprintf(buf, len, "%s_%d.%s", prefix, rank, ext);
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

/* Bytes of the npy matrix: n x n values [x 4 CCC entries]; 0 when over
 * SM_NPY_MAX_BYTES (n beyond 2^20 is, and would overflow the product). */
static uint64_t npy_bytes(sm_metric_t metric, int single, size_t nv)
{
  const uint64_t n = nv, cell = (single ? 4u : 8u) * (metric == SM_METRIC_CCC ? 4u : 1u);
  if (n > (UINT64_C(1) << 20) || n * n * cell > SM_NPY_MAX_BYTES)
    return 0;
  return n * n * cell;
}

int sm_output_check(char *why, size_t len, sm_outfmt_t fmt, int way, sm_metric_t metric,
                    int single, size_t nv, int nranks, int resume)
{
  if (fmt != SM_OUT_NPY)
    return 0;
  if (way != 2)
    snprintf(why, len,
             "--output-format npy holds the 2-way matrix: use tsv or bin for "
             "--num-way 3");
  else if (resume)
    snprintf(why, len,
             "--output-format npy cannot --resume (the matrix is written in "
             "place, there is no completed part to keep): rerun without "
             "--resume, or use tsv or bin");
  else if (nranks > 1)
    snprintf(why, len,
             "--output-format npy is written by one process, not by %d MPI "
             "ranks: use tsv or bin (one file per rank) under mpirun",
             nranks);
  else if (nv && !npy_bytes(metric, single, nv))
    snprintf(why, len,
             "--output-format npy: %zu vectors make a %.1f GiB matrix, over the "
             "%llu GiB limit of npy output: use bin or tsv (with --threshold "
             "to keep fewer values)",
             nv,
             (double)nv * (double)nv * (single ? 4 : 8) *
                 (metric == SM_METRIC_CCC ? 4 : 1) / (1u << 30),
             (unsigned long long)(SM_NPY_MAX_BYTES >> 30));
  else
    return 0;
  return 1;
}

/* pwrite all of buf at off (a short write is retried; EINTR too). */
static int pwrite_all(int fd, const unsigned char *buf, size_t len, uint64_t off)
{
  while (len) {
    ssize_t k = pwrite(fd, buf, len, (off_t)off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    buf += k, len -= (size_t)k, off += (uint64_t)k;
  }
  return 0;
}

/* The npy file: its header (format 1.0, padded to 64 bytes), the whole
 * matrix allocated and filled with NaN, so that what no record writes
 * reads as NaN. Written with pwrite: nothing goes through stdio. */
static sm_err_t npy_create(sm_writer_t *w)
{
  const sm_writer_info_t *in = &w->info;
  const int fd = fileno(w->c.f);
  const size_t vb = in->single ? 4 : 8;
  char dict[160];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '<f%zu', 'fortran_order': False, 'shape': (%zu, %zu%s), }",
                   vb, in->nv, in->nv, in->metric == SM_METRIC_CCC ? ", 4" : "");
  size_t hlen = ((size_t)n + 1 + 10 + 63) / 64 * 64 - 10; /* dict, spaces, '\n' */
  unsigned char h[256];
  memcpy(h, "\x93NUMPY\x01\x00", 8);
  h[8] = (unsigned char)(hlen & 0xff);
  h[9] = (unsigned char)(hlen >> 8);
  memset(h + 10, ' ', hlen);
  memcpy(h + 10, dict, (size_t)n);
  h[10 + hlen - 1] = '\n';
  w->npy_data = 10 + hlen;
  memcpy(w->npy_head, h, w->npy_data);
  const uint64_t end = w->npy_data + npy_bytes(in->metric, in->single, in->nv);
  if (pwrite_all(fd, h, w->npy_data, 0) != 0 || ftruncate(fd, (off_t)end) != 0)
    return SM_EIO;
  enum { CHUNK = 1 << 20 };
  unsigned char *nan = malloc(CHUNK);
  if (!nan)
    return SM_ENOMEM;
  const uint64_t pat =
      in->single ? UINT64_C(0x7fc000007fc00000) : UINT64_C(0x7ff8000000000000);
  for (size_t k = 0; k < CHUNK; k += 8)
    sm_put_le64(nan + k, pat);
  sm_err_t err = SM_OK;
  for (uint64_t off = w->npy_data; off < end && !err; off += CHUNK) {
    size_t len = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
    if (pwrite_all(fd, nan, len, off) != 0)
      err = SM_EIO;
  }
  free(nan);
  return err;
}

/* Write run r's gathered bytes. */
static int npy_run_flush(sm_writer_t *w, npy_run_t *r)
{
  int bad = r->len && pwrite_all(fileno(w->c.f), r->buf, r->len, r->off) != 0;
  r->len = 0;
  return bad;
}

/* One value at file offset off, through run r: appended when it follows
 * the run's bytes, else the run is written and starts again at off. */
static int npy_put(sm_writer_t *w, npy_run_t *r, uint64_t off, double v)
{
  int bad = 0;
  const size_t vb = w->info.single ? 4 : 8;
  if (r->len && (off != r->off + r->len || r->len + vb > SM_NPY_RUN))
    bad = npy_run_flush(w, r);
  if (!r->len)
    r->off = off;
  if (w->info.single) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    sm_put_le32(r->buf + r->len, u);
    w->npy_sum += npy_cell(off, u, 1);
  } else {
    uint64_t u;
    memcpy(&u, &v, 8);
    sm_put_le64(r->buf + r->len, u);
    w->npy_sum += npy_cell(off, u, 0);
  }
  r->len += vb;
  return bad;
}

/* A record at (i,j[,a,b]) and (j,i[,b,a]). */
static int npy_record(sm_writer_t *w, const sm_rec_t *x)
{
  const uint64_t n = w->info.nv, i = x->idx[0], j = x->idx[1];
  const int ccc = w->info.metric == SM_METRIC_CCC;
  const uint64_t vb = w->info.single ? 4 : 8, ne = ccc ? 4 : 1;
  const uint32_t e = ccc ? x->entry & 3u : 0, et = ccc ? ((e & 1u) << 1) | (e >> 1) : 0;
  if (i >= n || j >= n || i == j)
    return 0; /* not a cell of the matrix: only a corrupt record could be */
  int bad = npy_put(w, &w->run[0], w->npy_data + ((i * n + j) * ne + e) * vb, x->value);
  bad |= npy_put(w, &w->run[1], w->npy_data + ((j * n + i) * ne + et) * vb, x->value);
  return bad;
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
  if (w->info.fmt == SM_OUT_NPY) {
    sm_err_t err = npy_create(w);
    if (err) {
      sm_log_error(
          "%s: cannot write the npy matrix (%llu bytes): %s", w->c.tmp,
          (unsigned long long)npy_bytes(w->info.metric, w->info.single, w->info.nv),
          err == SM_ENOMEM ? "out of memory" : strerror(errno));
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
  if (sm_output_check(why, sizeof why, info->fmt, info->way, info->metric, info->single,
                      info->nv, info->nranks, resume_off != 0)) {
    if (info->rank == 0)
      sm_log_error("%s", why);
    err = SM_EOPTION;
  } else if (info->fmt == SM_OUT_NPY && !(w->run = calloc(2, sizeof *w->run))) {
    err = SM_ENOMEM;
  } else if (info->fmt == SM_OUT_TSV && info->names && escape_names(w) != SM_OK) {
    err = SM_ENOMEM;
  } else if (info->fmt != SM_OUT_NONE)
    err = resume_off ? reopen_partial(w, path, resume_off, resume_count, resume_crc)
                     : create_file(w, path);
  if (err) {
    free_names(w);
    free(w->run);
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
  for (int k = 0; k < w->info.way; k++)
    n += (w->names ? strlen(w->names[x->idx[k]]) : 10) + 1;
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
  return w && w->info.fmt == SM_OUT_TSV;
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
  int bad = 0;
  for (size_t r = 0; r < n && !bad; r++) {
    const sm_rec_t *x = &rec[r];
    if (w->info.fmt == SM_OUT_NPY) {
      bad = npy_record(w, x);
    } else if (w->info.fmt == SM_OUT_TSV) {
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
  *crc = w->crc;
  w->file_crc = sm_crc32c_combine(w->file_crc, w->crc, w->since);
  w->file_len += w->since;
  w->crc = 0;
  w->since = 0;
  if (!w->c.f)
    return SM_OK;
  if (w->run && (npy_run_flush(w, &w->run[0]) | npy_run_flush(w, &w->run[1]))) {
    sm_log_error("%s: write failed: %s", w->c.tmp, sm_commit_write_error(errno));
    w->failed = 1;
    return SM_EIO;
  }
  if (w->run) { /* written in place: the end is the matrix's */
    *off = w->npy_data + npy_bytes(w->info.metric, w->info.single, w->info.nv);
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

/* The bytes of the file as on disk (descriptor fd) against what was
 * written: the npy header, then every cell's value (npy_cell); 0 when
 * they agree. */
static int npy_differs(const sm_writer_t *w, int fd, uint64_t *at)
{
  unsigned char head[256];
  *at = 0;
  if (pread(fd, head, w->npy_data, 0) != (ssize_t)w->npy_data ||
      memcmp(head, w->npy_head, w->npy_data))
    return 1;
  const int single = w->info.single;
  const size_t vb = single ? 4 : 8, chunk = (size_t)1 << 20;
  const uint64_t end = w->npy_data + npy_bytes(w->info.metric, single, w->info.nv);
  unsigned char *buf = malloc(chunk);
  if (!buf)
    return -1;
  uint64_t sum = 0;
  int bad = 0;
  for (uint64_t off = w->npy_data; off < end && !bad; off += chunk) {
    const size_t len = end - off < chunk ? (size_t)(end - off) : chunk;
    if (pread(fd, buf, len, (off_t)off) != (ssize_t)len) {
      *at = off;
      bad = 1;
    }
    for (size_t k = 0; k + vb <= len && !bad; k += vb)
      sum +=
          npy_cell(off + k, single ? sm_get_le32(buf + k) : sm_get_le64(buf + k), single);
  }
  free(buf);
  return bad || sum != w->npy_sum;
}

sm_err_t sm_writer_sync(sm_writer_t *w)
{
  if (!w || !w->c.f)
    return SM_OK;
  uint64_t end;
  uint32_t crc;
  int fd;
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
  uint64_t end = w->run
                     ? w->npy_data + npy_bytes(w->info.metric, w->info.single, w->info.nv)
                     : w->file_len;
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
  if (w->run) {
    const int d = npy_differs(w, fd, &at);
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
  } else if (sm_crc32c_fd(fd, 0, w->file_len, &crc) != SM_OK) {
    sm_log_error("%s: cannot read the output back: %s", w->c.tmp,
                 errno ? strerror(errno) : "it ended early");
    return SM_EIO;
  } else if (crc != w->file_crc) {
    what = "does not hold the bytes written";
  }
  if (!what)
    return SM_OK;
  sm_log_error("%s: the output %s (%lld bytes on disk, %llu written): another process "
               "changed it while this run wrote it",
               w->c.tmp, what, (long long)sb.st_size,
               (unsigned long long)(w->run ? end : w->file_len));
  w->failed = 1;
  return SM_EIO;
}

int sm_writer_fd(const sm_writer_t *w)
{
  return w && w->c.f ? fileno(w->c.f) : -1;
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
  if (!bad && w->run)
    bad = npy_run_flush(w, &w->run[0]) | npy_run_flush(w, &w->run[1]);
  if (!bad && w->info.fmt == SM_OUT_BIN)
    bad = write_bin_header(w) != SM_OK;
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
  return SM_OK;
}

sm_err_t sm_writer_rename(sm_writer_t *w)
{
  if (!w || w->info.fmt == SM_OUT_NONE)
    return SM_OK;
  w->c.keep = 1; /* a complete output is never removed */
  return sm_commit_rename(&w->c);
}

const char *sm_writer_path(const sm_writer_t *w)
{
  return w && w->info.fmt != SM_OUT_NONE ? w->c.path : NULL;
}

void sm_writer_close(sm_writer_t *w, int keep)
{
  if (!w)
    return;
  if (w->c.f && keep) {
    fclose(w->c.f); /* the partial output, for --resume */
    w->c.f = NULL;
  } else if (w->c.f) {
    sm_commit_abort(&w->c);
  }
  free_names(w);
  free(w->run);
  free(w);
}
