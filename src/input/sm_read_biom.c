/* sm_read_biom.c: BIOM 2.1 tables (HDF5) through the HDF5 C library. The
 * vectors (samples, or observations) are read from the matrix stored along
 * them: sample/matrix holds compressed sparse columns, observation/matrix
 * compressed sparse rows. A slice reads its ids, the offsets and its own
 * nonzeros. BIOM 1.0 (JSON), and every table in a build without HDF5, is
 * refused with the command that converts it. */
#ifdef HAVE_CONFIG_H /* SM_HAVE_HDF5 (the fuzz targets build without it) */
#include "config.h"
#endif
#include "sm_read_biom.h"
#include "sm_read_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef SM_HAVE_HDF5
#include <hdf5.h>
#endif

/* What a file starts as. */
typedef enum start_kind {
  START_EMPTY,
  START_HDF5,
  START_JSON,
  START_HASH,
  START_OTHER
} start_kind_t;

/* The command that converts path to fmt ("hdf5", "tsv"), in buf: its name
 * without ".biom" is the new file's. */
static const char *convert_cmd(const char *path, const char *to, char *buf, size_t len)
{
  size_t n = strlen(path);
  if (n > 5 && !strcmp(path + n - 5, ".biom"))
    n -= 5;
  snprintf(buf, len, "biom convert -i %s -o %.*s.%s --to-%s", path,
           (int)(n < 2000 ? n : 2000), path, !strcmp(to, "hdf5") ? "h5.biom" : "tsv", to);
  return buf;
}

/* Read the first bytes of src (path in messages) and say what they are. */
static sm_err_t peek(const char *path, const char *src, start_kind_t *kind)
{
  char head[64] = {0};
  const int fd = open(src, O_RDONLY | O_CLOEXEC);
  ssize_t n = -1;
  if (fd >= 0) {
    while ((n = read(fd, head, sizeof head)) < 0 && errno == EINTR)
      ;
  }
  const int e = errno;
  if (fd >= 0)
    close(fd);
  if (n < 0) {
    sm_log_error("%s: cannot %s: %s; check the path", path, fd < 0 ? "open" : "read",
                 strerror(e));
    return SM_EIO;
  }
  size_t k = strspn(head, " \t\r\n");
  *kind = n == 0                                                ? START_EMPTY
          : n >= 8 && !memcmp(head, SM_HDF5_MAGIC, 8)           ? START_HDF5
          : (size_t)n > k && head[k] == '{'                     ? START_JSON
          : head[0] == '#' || !memcmp(head, "\xEF\xBB\xBF#", 4) ? START_HASH
                                                                : START_OTHER;
  return SM_OK;
}

/* Refuse what is not a BIOM 2.1 (HDF5) table, saying what it is. */
static sm_err_t refuse_start(const char *path, start_kind_t kind)
{
  char cmd[4200];
  switch (kind) {
  case START_EMPTY:
    sm_log_error("%s: empty file: not a BIOM table", path);
    return SM_EFORMAT;
  case START_JSON:
    sm_log_error("%s: a BIOM 1.0 table (JSON); starmet reads BIOM 2.1 (HDF5) tables: "
                 "convert it with `%s`",
                 path, convert_cmd(path, "hdf5", cmd, sizeof cmd));
    return SM_EFORMAT;
  case START_HASH:
    sm_log_error("%s: text starting with '#' (a BIOM table written by `biom convert "
                 "--to-tsv`?), not a BIOM 2.1 (HDF5) table: read it with --input-format "
                 "tsv",
                 path);
    return SM_EFORMAT;
  default:
    sm_log_error(
        "%s: not a BIOM 2.1 table: it does not start with HDF5's signature (89 "
        "48 44 46 0d 0a 1a 0a); check the file (od -A d -t x1 %s | head -1 shows "
        "its first bytes)",
        path, path);
    return SM_EFORMAT;
  }
}

#ifdef SM_HAVE_HDF5

/* Entries of the matrix read at once (12 bytes each: index and value). */
enum { CHUNK = 1 << 20 };

/* check_table's child: the pipe on which each read it makes is said (a
 * byte), -1 elsewhere; and how long its parent waits for the next one. */
static int beat_fd = -1;
enum { BEAT_WAIT_S = 60 };

/* The wait: STARMET_HDF5_WAIT seconds (1 .. 86400) when set, else
 * BEAT_WAIT_S. */
static int beat_wait_s(void)
{
  const char *e = getenv("STARMET_HDF5_WAIT");
  char *end;
  const long s = e ? strtol(e, &end, 10) : 0;
  return e && *e && !*end && s >= 1 && s <= 86400 ? (int)s : BEAT_WAIT_S;
}

static void beat(void)
{
  if (beat_fd >= 0 && write(beat_fd, "", 1) < 0)
    beat_fd = -1; /* the parent is gone: read on, unheard */
}

/* The open table, for the axis compared. */
typedef struct biom {
  const char *path;
  const sm_read_opts_t *o;
  hid_t file;
  int by_obs;                  /* the vectors are the observations */
  const char *vaxis;           /* "sample" or "observation": the vectors' group ... */
  const char *faxis;           /* ... and the fields' */
  hid_t vids, fids;            /* their ids */
  hid_t indptr, indices, data; /* the matrix stored along the vectors */
  size_t nv, nf, nnz;
  int64_t *ptr; /* indptr, nv + 1 offsets */
} biom_t;

/* The innermost message of HDF5's error stack (the cause), which is then
 * cleared, into buf. */
typedef struct h5_why {
  char buf[200];
} h5_why_t;

static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data)
{
  h5_why_t *w = data;
  if (n == 0 && e && e->desc && e->desc[0])
    snprintf(w->buf, sizeof w->buf, "%s", e->desc);
  return 0;
}

static const char *h5_why(h5_why_t *w)
{
  snprintf(w->buf, sizeof w->buf, "no reason given");
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, w);
  H5Eclear2(H5E_DEFAULT);
  return w->buf;
}

/* A stream's copy as an HDF5 file image in memory, which the core
 * driver opens (HDF5 cannot open the copy, /proc/self/fd/N, by its name). */
static sm_err_t stream_image(const biom_t *b, hid_t fapl)
{
  int fd = -1;
  size_t size = 0;
  const sm_stream_rule_t rule = {.magic = {SM_HDF5_MAGIC}};
  sm_err_t err = sm_read_open(b->path, &rule, &fd, &size); /* its copy */
  if (err)
    return err;
  void *img = malloc(size ? size : 1);
  int e = img ? sm_read_at(fd, img, size, 0) : ENOMEM;
  close(fd);
  if (!e &&
      (H5Pset_fapl_core(fapl, 1 << 20, 0) < 0 || H5Pset_file_image(fapl, img, size) < 0))
    e = EIO;
  free(img); /* H5Pset_file_image took a copy */
  if (e) {
    sm_log_error("%s: cannot read the stream's copy (%zu bytes) as an HDF5 image: %s",
                 b->path, size, strerror(e));
    return e == ENOMEM ? SM_ENOMEM : SM_EIO;
  }
  return SM_OK;
}

/* Open the file read-only. HDF5's own error printing is off: errors are
 * said here, once. No file lock (a reader needs none, and network file
 * systems without locks would refuse the open). */
static sm_err_t open_file(biom_t *b, const char *src)
{
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) {
    sm_log_error("%s: HDF5 cannot make a file access list; out of memory?", b->path);
    return SM_ENOMEM;
  }
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) ||               \
    H5_VERSION_GE(1, 12, 1)
  H5Pset_file_locking(fapl, 0, 1);
#endif
  const int stream = sm_input_is_stream(b->path);
  sm_err_t err = stream ? stream_image(b, fapl) : SM_OK;
  if (err) {
    H5Pclose(fapl);
    return err;
  }
  /* the core driver refuses an image under the name of a file that exists:
   * a name that cannot exist */
  b->file = H5Fopen(stream ? "/dev/null/stream" : src, H5F_ACC_RDONLY, fapl);
  h5_why_t w;
  if (b->file < 0)
    h5_why(&w); /* before the next call of the library clears it */
  H5Pclose(fapl);
  if (b->file < 0) {
    sm_log_error("%s: HDF5 cannot open it (%s): the file is damaged or truncated; "
                 "write it again (biom convert, qiime tools export)",
                 b->path, w.buf);
    return SM_EFORMAT;
  }
  return SM_OK;
}

/* Does the object at name (a path from the root) exist? Each component is
 * looked up in turn, as H5Lexists asks. */
static int exists(const biom_t *b, const char *name)
{
  char part[128];
  for (const char *s = strchr(name, '/');; s = strchr(s + 1, '/')) {
    const size_t n = s ? (size_t)(s - name) : strlen(name);
    snprintf(part, sizeof part, "%.*s", (int)n, name);
    if (H5Lexists(b->file, part, H5P_DEFAULT) <= 0)
      return 0;
    if (!s)
      return 1;
  }
}

/* Read the root attribute name, n integers, into v: 1 read, 0 absent, or
 * SM_EFORMAT's negative (logged) when it is there but not n integers. */
static int int_attr(const biom_t *b, const char *name, size_t n, int64_t *v)
{
  if (H5Aexists(b->file, name) <= 0)
    return 0;
  hid_t a = H5Aopen(b->file, name, H5P_DEFAULT);
  hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
  hid_t t = a >= 0 ? H5Aget_type(a) : -1;
  const int ok = sp >= 0 && t >= 0 && H5Tget_class(t) == H5T_INTEGER &&
                 H5Sget_simple_extent_npoints(sp) == (hssize_t)n &&
                 H5Aread(a, H5T_NATIVE_INT64, v) >= 0;
  h5_why_t w;
  h5_why(&w); /* before the next call of the library clears it */
  if (t >= 0)
    H5Tclose(t);
  if (sp >= 0)
    H5Sclose(sp);
  if (a >= 0)
    H5Aclose(a);
  if (!ok) {
    sm_log_error(
        "%s: the attribute '%s' is not %zu integer%s as BIOM 2.1 writes it (%s): "
        "the file is damaged",
        b->path, name, n, n == 1 ? "" : "s", w.buf);
    return -1;
  }
  return 1;
}

/* Open dataset name, 1-D, of class cls (H5T_FLOAT also takes integers), and
 * give its length. */
static sm_err_t open_dataset(const biom_t *b, const char *name, H5T_class_t cls,
                             hid_t *ds, size_t *len)
{
  static const char *const what[] = {
      [H5T_INTEGER] = "integers", [H5T_FLOAT] = "numbers", [H5T_STRING] = "strings"};
  if (!exists(b, name)) {
    sm_log_error("%s: no dataset '%s', which BIOM 2.1 tables have: the file is not a "
                 "BIOM 2.1 table, or it is damaged",
                 b->path, name);
    return SM_EFORMAT;
  }
  *ds = H5Dopen2(b->file, name, H5P_DEFAULT);
  h5_why_t w;
  if (*ds < 0) {
    sm_log_error("%s: '%s' cannot be opened as a dataset (%s): the file is damaged",
                 b->path, name, h5_why(&w));
    return SM_EFORMAT;
  }
  hid_t sp = H5Dget_space(*ds), t = H5Dget_type(*ds);
  const H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  hsize_t d[H5S_MAX_RANK];
  const int nd = sp >= 0 ? H5Sget_simple_extent_dims(sp, d, NULL) : -1;
  if (t >= 0)
    H5Tclose(t);
  if (sp >= 0)
    H5Sclose(sp);
  if (nd != 1) {
    sm_log_error("%s: '%s' has %d dimensions; BIOM 2.1 writes it as a list (1): the file "
                 "is damaged, or not a BIOM 2.1 table",
                 b->path, name, nd);
    return SM_EFORMAT;
  }
  if (!(c == cls || (cls == H5T_FLOAT && c == H5T_INTEGER))) {
    sm_log_error("%s: '%s' does not hold %s (HDF5 type class %d): the file is damaged, "
                 "or not a BIOM 2.1 table",
                 b->path, name, what[cls], (int)c);
    return SM_EFORMAT;
  }
  *len = (size_t)d[0];
  return SM_OK;
}

/* Read elements [start, start + count) of 1-D dataset ds (name, for
 * messages) as memtype into buf. */
static sm_err_t read_range(const biom_t *b, hid_t ds, const char *name, hid_t memtype,
                           size_t start, size_t count, void *buf)
{
  if (!count)
    return SM_OK;
  beat();
  hsize_t st = start, ct = count;
  hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &ct, NULL);
  herr_t e = fs < 0 || ms < 0
                 ? -1
                 : H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &ct, NULL);
  if (e >= 0)
    e = H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, buf);
  h5_why_t w;
  if (e < 0)
    h5_why(&w); /* before the next call of the library clears it */
  if (ms >= 0)
    H5Sclose(ms);
  if (fs >= 0)
    H5Sclose(fs);
  if (e < 0) {
    sm_log_error("%s: cannot read %s, entries %zu..%zu (%s): the file is damaged or "
                 "truncated",
                 b->path, name, start, start + count - 1, w.buf);
    return SM_EFORMAT;
  }
  return SM_OK;
}

/* Ids [start, start + count) of ids dataset ds (name, for messages), fixed
 * or variable length strings, as malloc'd copies into names. */
static sm_err_t read_ids(const biom_t *b, hid_t ds, const char *name, size_t start,
                         size_t count, char **names)
{
  hid_t ft = H5Dget_type(ds), mt = H5Tcopy(H5T_C_S1);
  const htri_t vl = ft >= 0 ? H5Tis_variable_str(ft) : -1;
  const size_t size = ft >= 0 ? H5Tget_size(ft) : 0;
  sm_err_t err = SM_OK;
  void *raw = NULL;
  if (ft < 0 || mt < 0 || vl < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0 ||
      H5Tset_size(mt, vl ? H5T_VARIABLE : size + 1) < 0 ||
      (!vl && H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0)) {
    h5_why_t w;
    sm_log_error("%s: the ids of %s cannot be read as text (%s): the file is damaged",
                 b->path, name, h5_why(&w));
    err = SM_EFORMAT;
    goto done;
  }
  const size_t item = vl ? sizeof(char *) : size + 1;
  if (!(raw = calloc(count ? count : 1, item))) {
    sm_log_error("%s: out of memory for %zu ids", b->path, count);
    err = SM_ENOMEM;
    goto done;
  }
  if ((err = read_range(b, ds, name, mt, start, count, raw)))
    goto done;
  for (size_t i = 0; i < count && !err; i++) {
    const char *s = vl ? ((char **)raw)[i] : (char *)raw + i * item;
    if (!(names[i] = strdup(s ? s : ""))) {
      sm_log_error("%s: out of memory for the ids", b->path);
      err = SM_ENOMEM;
    }
  }
  if (vl && count) {
    hsize_t ct = count;
    hid_t ms = H5Screate_simple(1, &ct, NULL);
#if H5_VERSION_GE(1, 12, 0)
    H5Treclaim(mt, ms, H5P_DEFAULT, raw);
#else
    H5Dvlen_reclaim(mt, ms, H5P_DEFAULT, raw);
#endif
    H5Sclose(ms);
  }
done:
  free(raw);
  if (mt >= 0)
    H5Tclose(mt);
  if (ft >= 0)
    H5Tclose(ft);
  return err;
}

/* One id of ds (for a message), in buf. */
static const char *one_id(const biom_t *b, hid_t ds, const char *name, size_t i,
                          char *buf, size_t len)
{
  char *id = NULL;
  if (read_ids(b, ds, name, i, 1, &id) == SM_OK)
    snprintf(buf, len, "'%.200s'", id);
  else
    snprintf(buf, len, "number %zu", i + 1);
  free(id);
  return buf;
}

/* The table's groups, version, shape, and the datasets of the axis
 * compared, checked against each other. */
static sm_err_t open_table(biom_t *b)
{
  if (!exists(b, "sample") || !exists(b, "observation")) {
    sm_log_error("%s: an HDF5 file, but not a BIOM table (no group 'sample' and "
                 "'observation'): starmet reads BIOM 2.1 tables",
                 b->path);
    return SM_EFORMAT;
  }
  int64_t ver[2] = {2, 1}, shape[2], nnz;
  int have;
  if ((have = int_attr(b, "format-version", 2, ver)) < 0)
    return SM_EFORMAT;
  if (ver[0] != 2) {
    sm_log_error("%s: BIOM format version %lld.%lld; starmet reads BIOM 2.x (HDF5) "
                 "tables: write it again with a current biom-format (biom convert ... "
                 "--to-hdf5)",
                 b->path, (long long)ver[0], (long long)ver[1]);
    return SM_EFORMAT;
  }
  if ((have = int_attr(b, "shape", 2, shape)) <= 0) {
    if (have == 0)
      sm_log_error("%s: no 'shape' attribute, which BIOM 2.1 tables have: the file is "
                   "not a BIOM 2.1 table, or it is damaged",
                   b->path);
    return SM_EFORMAT;
  }
  if (shape[0] < 0 || shape[1] < 0) {
    sm_log_error("%s: the shape (%lld, %lld) is negative: the file is damaged", b->path,
                 (long long)shape[0], (long long)shape[1]);
    return SM_EFORMAT;
  }
  b->vaxis = b->by_obs ? "observation" : "sample";
  b->faxis = b->by_obs ? "sample" : "observation";
  b->nv = (size_t)shape[b->by_obs ? 0 : 1];
  b->nf = (size_t)shape[b->by_obs ? 1 : 0];
  char name[64];
  size_t nvid, nfid, nptr, nidx, ndata;
  sm_err_t err;
  snprintf(name, sizeof name, "%s/ids", b->vaxis);
  if ((err = open_dataset(b, name, H5T_STRING, &b->vids, &nvid)))
    return err;
  snprintf(name, sizeof name, "%s/ids", b->faxis);
  if ((err = open_dataset(b, name, H5T_STRING, &b->fids, &nfid)))
    return err;
  snprintf(name, sizeof name, "%s/matrix/indptr", b->vaxis);
  if ((err = open_dataset(b, name, H5T_INTEGER, &b->indptr, &nptr)))
    return err;
  snprintf(name, sizeof name, "%s/matrix/indices", b->vaxis);
  if ((err = open_dataset(b, name, H5T_INTEGER, &b->indices, &nidx)))
    return err;
  snprintf(name, sizeof name, "%s/matrix/data", b->vaxis);
  if ((err = open_dataset(b, name, H5T_FLOAT, &b->data, &ndata)))
    return err;
  const char *bad = nvid != b->nv ? b->vaxis : nfid != b->nf ? b->faxis : NULL;
  if (bad) {
    sm_log_error("%s: %s/ids holds %zu ids but the table's shape (%lld observations x "
                 "%lld samples) says %zu: the file is damaged",
                 b->path, bad, bad == b->vaxis ? nvid : nfid, (long long)shape[0],
                 (long long)shape[1], bad == b->vaxis ? b->nv : b->nf);
    return SM_EINCONSIST;
  }
  if (nptr != b->nv + 1 || nidx != ndata) {
    sm_log_error("%s: %s/matrix holds %zu offsets (indptr), %zu indices and %zu values "
                 "for %zu %ss; BIOM 2.1 has one offset more than %ss and as many indices "
                 "as values: the file is damaged",
                 b->path, b->vaxis, nptr, nidx, ndata, b->nv, b->vaxis, b->vaxis);
    return SM_EINCONSIST;
  }
  b->nnz = ndata;
  if ((have = int_attr(b, "nnz", 1, &nnz)) < 0)
    return SM_EFORMAT;
  if (have && (nnz < 0 || (size_t)nnz != b->nnz)) {
    sm_log_error("%s: the 'nnz' attribute says %lld nonzero values, %s/matrix holds %zu: "
                 "the file is damaged",
                 b->path, (long long)nnz, b->vaxis, b->nnz);
    return SM_EINCONSIST;
  }
  return SM_OK;
}

/* Read the offsets (indptr) of the vectors' matrix, and check them: from 0,
 * rising, to the number of values. */
static sm_err_t read_offsets(biom_t *b)
{
  char name[64];
  snprintf(name, sizeof name, "%s/matrix/indptr", b->vaxis);
  if (!(b->ptr = malloc((b->nv + 1) * sizeof *b->ptr))) {
    sm_log_error("%s: out of memory for %zu offsets", b->path, b->nv + 1);
    return SM_ENOMEM;
  }
  sm_err_t err = read_range(b, b->indptr, name, H5T_NATIVE_INT64, 0, b->nv + 1, b->ptr);
  if (err)
    return err;
  if (b->ptr[0] != 0 || b->ptr[b->nv] != (int64_t)b->nnz) {
    sm_log_error("%s: %s goes from %lld to %lld; it must go from 0 to the number of "
                 "values, %zu: the file is damaged",
                 b->path, name, (long long)b->ptr[0], (long long)b->ptr[b->nv], b->nnz);
    return SM_EFORMAT;
  }
  for (size_t k = 0; k < b->nv; k++) {
    if (b->ptr[k + 1] < b->ptr[k]) {
      sm_log_error("%s: %s[%zu] = %lld after %lld: the offsets must rise (%s %zu would "
                   "have fewer than no values): the file is damaged",
                   b->path, name, k + 1, (long long)b->ptr[k + 1], (long long)b->ptr[k],
                   b->vaxis, k + 1);
      return SM_EFORMAT;
    }
  }
  return SM_OK;
}

/* Say what is wrong with the value x of vector k (of the slice from v0)
 * and field j: its sample and observation ids. */
static sm_err_t bad_entry(const biom_t *b, const sm_vectors_t *out, size_t k, size_t j,
                          const char *what)
{
  char fid[256], fname[64];
  snprintf(fname, sizeof fname, "%s/ids", b->faxis);
  one_id(b, b->fids, fname, j, fid, sizeof fid);
  const char *vid = out->names[k];
  if (b->by_obs)
    sm_log_error("%s: sample %s, observation '%.200s': %s", b->path, fid, vid, what);
  else
    sm_log_error("%s: sample '%.200s', observation %s: %s", b->path, vid, fid, what);
  return SM_EVALUE;
}

/* Sparse rows: each row's entries in ascending field order (a table's
 * indices usually are already; they need not be). */
typedef struct ent {
  uint32_t f;
  double x;
} ent_t;
static int cmp_ent(const void *a, const void *b)
{
  const uint32_t x = ((const ent_t *)a)->f, y = ((const ent_t *)b)->f;
  return (x > y) - (x < y);
}
static sm_err_t sort_rows(const biom_t *b, sm_vectors_t *out)
{
  const size_t es = out->elem_size;
  for (size_t i = 0; i < out->nv; i++) {
    const uint64_t p0 = out->csr_off[i], p1 = out->csr_off[i + 1];
    uint64_t p = p0 + 1;
    while (p < p1 && out->csr_idx[p - 1] < out->csr_idx[p])
      p++;
    if (p >= p1)
      continue;
    ent_t *e = malloc((size_t)(p1 - p0) * sizeof *e);
    if (!e) {
      sm_log_error("%s: out of memory sorting the values of a vector", b->path);
      return SM_ENOMEM;
    }
    for (uint64_t q = p0; q < p1; q++) {
      e[q - p0].f = out->csr_idx[q];
      e[q - p0].x =
          es == 4 ? ((const float *)out->csr_val)[q] : ((const double *)out->csr_val)[q];
    }
    qsort(e, (size_t)(p1 - p0), sizeof *e, cmp_ent);
    for (uint64_t q = p0; q < p1; q++) {
      out->csr_idx[q] = e[q - p0].f;
      sm_read_store_czek(out->csr_val, es, (size_t)q, e[q - p0].x);
    }
    free(e);
  }
  return SM_OK;
}

/* The nonzeros of vectors [v0, v0 + nvk): every one checked (index in
 * range, value allowed), those of fields [f0, f0 + nfk) stored. */
static sm_err_t read_nonzeros(const biom_t *b, size_t v0, size_t f0, size_t nfk,
                              sm_vectors_t *out)
{
  const size_t lo = (size_t)b->ptr[v0], hi = (size_t)b->ptr[v0 + out->nv];
  const size_t chunk = hi - lo < CHUNK ? hi - lo : CHUNK;
  int64_t *idx = malloc((chunk ? chunk : 1) * sizeof *idx);
  double *val = malloc((chunk ? chunk : 1) * sizeof *val);
  size_t *seen = calloc(nfk ? nfk : 1, sizeof *seen); /* 1 + the last vector with it */
  char iname[64], dname[64];
  snprintf(iname, sizeof iname, "%s/matrix/indices", b->vaxis);
  snprintf(dname, sizeof dname, "%s/matrix/data", b->vaxis);
  sm_err_t err = SM_OK;
  if (!idx || !val || !seen) {
    sm_log_error("%s: out of memory for the values", b->path);
    err = SM_ENOMEM;
  }
  size_t k = 0;
  for (size_t p0 = lo; p0 < hi && !err; p0 += chunk) {
    const size_t m = hi - p0 < chunk ? hi - p0 : chunk;
    if ((err = read_range(b, b->indices, iname, H5T_NATIVE_INT64, p0, m, idx)) ||
        (err = read_range(b, b->data, dname, H5T_NATIVE_DOUBLE, p0, m, val)))
      break;
    for (size_t q = 0; q < m && !err; q++) {
      while ((size_t)b->ptr[v0 + k + 1] <= p0 + q) {
        k++;
        if (out->csr_off) /* row k starts where row k - 1 ended */
          out->csr_off[k + 1] = out->csr_off[k];
      }
      const int64_t j = idx[q];
      if (j < 0 || (uint64_t)j >= b->nf) {
        sm_log_error("%s: %s[%zu] = %lld, outside 0..%zu (the table has %zu %ss): the "
                     "file is damaged",
                     b->path, iname, p0 + q, (long long)j, b->nf - 1, b->nf, b->faxis);
        err = SM_EFORMAT;
        break;
      }
      char what[400];
      const char *why = sm_read_czek_why(val[q], out->elem_size);
      if (why) {
        snprintf(what, sizeof what, "value %g %s", val[q], why);
        err = bad_entry(b, out, k, (size_t)j, what);
        break;
      }
      if ((size_t)j < f0 || (size_t)j - f0 >= nfk)
        continue;
      const size_t f = (size_t)j - f0;
      if (seen[f] == k + 1) {
        snprintf(what, sizeof what,
                 "listed twice in %s (entry %zu of the matrix is the "
                 "second): the file is damaged",
                 iname, p0 + q);
        err = bad_entry(b, out, k, (size_t)j, what);
        if (err == SM_EVALUE)
          err = SM_EFORMAT;
        break;
      }
      seen[f] = k + 1;
      if (out->csr_off && val[q] != 0) { /* in the row's order; sorted below */
        const uint64_t e = out->csr_off[k + 1]++;
        out->csr_idx[e] = (uint32_t)f;
        sm_read_store_czek((char *)out->csr_val, out->elem_size, (size_t)e, val[q]);
      } else if (out->data) /* else only checked (check_table) */
        sm_read_store_czek(sm_vectors_row(out, k), out->elem_size, f, val[q]);
    }
  }
  free(idx);
  free(val);
  free(seen);
  for (size_t r = k + 1; out->csr_off && r < out->nv; r++) /* the empty rows at the end */
    out->csr_off[r + 1] = out->csr_off[r];
  if (!err && out->csr_off)
    err = sort_rows(b, out);
  return err;
}

static void close_table(biom_t *b)
{
  const hid_t *ids[] = {&b->vids, &b->fids, &b->indptr, &b->indices, &b->data};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    if (*ids[i] > 0)
      H5Dclose(*ids[i]);
  if (b->file > 0)
    H5Fclose(b->file);
  free(b->ptr);
}

/* Read the slice of the table at src into out; *nv, *nf the whole table's
 * sizes along the vectors and the fields. */
static sm_err_t read_hdf5(const char *path, const char *src, const sm_read_opts_t *o,
                          int check_only, sm_vectors_t *out, size_t *nv, size_t *nf,
                          size_t *nnz)
{
  biom_t b = {.path = path, .o = o, .by_obs = o->compare == SM_COMPARE_OBSERVATIONS};
  size_t nvk, nfk;
  sm_err_t err = open_file(&b, src);
  if (!err)
    err = open_table(&b);
  if (!err && (b.nv == 0 || b.nf == 0)) {
    sm_log_error("%s: the table has %zu observations and %zu samples; no %s", path,
                 b.by_obs ? b.nv : b.nf, b.by_obs ? b.nf : b.nv,
                 b.nv == 0 ? "vectors" : "fields");
    err = SM_EDEGEN;
  }
  if (!err)
    err = read_offsets(&b);
  if (!err)
    err = sm_read_slice_axis(path, "vector", b.nv, o->v0, o->vcount, &nvk);
  if (!err)
    err = sm_read_slice_axis(path, "field", b.nf, o->f0, o->fcount, &nfk);
  if (!err && !check_only && o->czek_sparse) /* room for the slice's vectors' values */
    err = sm_vectors_alloc_sparse(out, o->elem_size, nvk, nfk,
                                  (uint64_t)(b.ptr[o->v0 + nvk] - b.ptr[o->v0]));
  else if (!err && !check_only)
    err = sm_vectors_alloc(out, SM_METRIC_CZEK, o->elem_size, nvk, nfk);
  if (!err && check_only) {
    out->nv = nvk;
    out->elem_size = o->elem_size;
  }
  if (!err && !(out->names = calloc(nvk, sizeof *out->names))) {
    sm_log_error("%s: out of memory for %zu ids", path, nvk);
    err = SM_ENOMEM;
  }
  char name[64];
  snprintf(name, sizeof name, "%s/ids", b.vaxis ? b.vaxis : "");
  if (!err)
    err = read_ids(&b, b.vids, name, o->v0, nvk, out->names);
  if (!err)
    err = read_nonzeros(&b, o->v0, o->f0, nfk, out);
  *nv = b.nv;
  *nf = b.nf;
  *nnz = b.nnz;
  close_table(&b);
  return err;
}

/* HDF5 trusts parts of a file it reads: a damaged global heap (where the
 * ids, strings of variable length, live) makes it copy past its buffers,
 * and the process dies (H5HG_read, HDF5 1.10), or walk in a circle for
 * ever. So a child process reads the table first, checking every id,
 * offset, index and value as the reading does but keeping no value, and
 * saying each read it makes on a pipe; the table is read only when the
 * child read it whole. A child that dies, or makes no read for
 * beat_wait_s() (then it is killed), says the file is damaged; one that
 * refuses it has said why (the same message the reading gives), and its
 * error is the reading's. Where no child can be made, the table is read
 * without it. */
static sm_err_t check_table(const char *path, const char *src, const sm_read_opts_t *o)
{
  int fds[2];
  if (pipe(fds) != 0)
    return SM_OK;
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    beat_fd = fds[1];
    signal(SIGPIPE, SIG_IGN);
    sm_vectors_t v = {0};
    size_t nv, nf, nnz;
    const sm_err_t err = read_hdf5(path, src, o, 1, &v, &nv, &nf, &nnz);
    fflush(stderr);
    _exit((int)err); /* no atexit handler of the parent's (MPI, StarPU) */
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return SM_OK;
  }
  int stuck = 0; /* wait while the child reads: until the pipe closes */
  const int wait_s = beat_wait_s();
  for (;;) {
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    const int n = poll(&p, 1, wait_s * 1000);
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0) {
      stuck = 1;
      kill(pid, SIGKILL);
      break;
    }
    char buf[256];
    ssize_t got;
    while ((got = read(fds[0], buf, sizeof buf)) < 0 && errno == EINTR)
      ;
    if (n < 0 || got <= 0)
      break; /* closed: the child ended (or the pipe failed: wait for it) */
  }
  close(fds[0]);
  int st = 0;
  pid_t w;
  while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
    ;
  if (w < 0)
    return SM_OK; /* lost the child: the reading says what it finds */
  if (!stuck && WIFEXITED(st))
    return WEXITSTATUS(st) > 0 && WEXITSTATUS(st) < SM_ERR_COUNT
               ? (sm_err_t)WEXITSTATUS(st)
           : WEXITSTATUS(st) ? SM_EFORMAT
                             : SM_OK;
  if (stuck)
    sm_log_error("%s: the HDF5 library made no progress reading it for %d s (its reads "
                 "go round in circles): the file is damaged; write it again (biom "
                 "convert, qiime tools export), or check it with `h5dump -H %s`",
                 path, wait_s, path);
  else
    sm_log_error("%s: the HDF5 library failed reading it (%s): the file is damaged, its "
                 "internal pointers lead outside it; write it again (biom convert, "
                 "qiime tools export), or check it with `h5dump -H %s`",
                 path, WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "stopped", path);
  return SM_EFORMAT;
}

#endif /* SM_HAVE_HDF5 */

sm_err_t sm_read_biom(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                      sm_dims_t *dims)
{
  sm_read_begin(out, dims);
  size_t nv = 0, nf = 0, nnz = 0;
  sm_err_t err = SM_OK;
  if (o->metric != SM_METRIC_CZEK) {
    sm_log_error(
        "%s: a BIOM table holds counts or abundances, for czekanowski; CCC needs "
        "PLINK, raw, npy or VCF input",
        path);
    err = SM_EOPTION;
  } else if (o->elem_size != 4 && o->elem_size != 8) {
    sm_log_error("%s: working precision of %zu bytes; 4 or 8 are supported", path,
                 o->elem_size);
    err = SM_EOPTION;
  }
  /* a stream is copied whole when it starts as HDF5 (or JSON, refused) */
  const sm_stream_rule_t rule = {.magic = {SM_HDF5_MAGIC, "{"}};
  char src[4200];
  start_kind_t kind = START_OTHER;
  if (!err)
    err = sm_stream_source(path, &rule, src, sizeof src);
  if (!err)
    err = peek(path, src, &kind);
  if (!err && kind != START_HDF5)
    err = refuse_start(path, kind);
#ifdef SM_HAVE_HDF5
  if (!err)
    err = check_table(path, src, o);
  if (!err)
    err = read_hdf5(path, src, o, 0, out, &nv, &nf, &nnz);
#else
  if (!err) {
    char cmd[4200];
    sm_log_error(
        "%s: a BIOM 2.1 (HDF5) table, and this starmet was built without HDF5: "
        "install libhdf5-dev and rebuild, or convert the table to text with `%s`",
        path, convert_cmd(path, "tsv", cmd, sizeof cmd));
    err = SM_EFORMAT; /* a format this build does not read */
  }
#endif
  err = sm_read_end(err, out, dims, nv, nf);
  if (!err && dims) {
    dims->compare = o->compare == SM_COMPARE_OBSERVATIONS ? SM_COMPARE_OBSERVATIONS
                                                          : SM_COMPARE_SAMPLES;
    dims->nnz = nnz;
  }
  return err;
}
