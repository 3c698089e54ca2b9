/* sm_read_npy.c: NumPy .npy reader (format 1.0/2.0/3.0, 2-D, C order,
 * little-endian float or integer dtypes). Parses the header, then reads only
 * the requested slice by file offset. */
#include "sm_read.h"
#include "sm_read_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values are loaded by memcpy into native types: little-endian only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm_read_npy.c assumes a little-endian host"
#endif

#define NPY_ACCEPTED                                                                     \
  "'<f4', '<f8', '|u1', '|i1', '<i2', '<u2', '<i4', '<u4', '<i8', '<u8'"

/* What the header says. */
typedef struct npy_header {
  char descr[32]; /* as written, for messages */
  char kind;      /* 'f', 'i' or 'u' */
  size_t size;    /* bytes per item */
  size_t nv, nf;  /* shape */
  off_t data_off; /* where the data start */
} npy_header_t;

/* The text after "'key':" in the header dict, or NULL. numpy writes single
 * quotes; double quotes (JSON) are accepted too. */
static const char *dict_value(const char *h, const char *key)
{
  char pat[32];
  snprintf(pat, sizeof pat, "'%s'", key);
  const char *p = strstr(h, pat);
  if (!p) {
    snprintf(pat, sizeof pat, "\"%s\"", key);
    p = strstr(h, pat);
  }
  if (!p)
    return NULL;
  p += strlen(pat);
  while (*p == ' ')
    p++;
  if (*p != ':')
    return NULL;
  p++;
  while (*p == ' ')
    p++;
  return p;
}

/* The descr string: byte order, kind, item size; refuse what we cannot read. */
static sm_err_t parse_descr(const char *path, const char *p, sm_metric_t metric,
                            npy_header_t *h)
{
  char q = *p;
  const char *end = (q == '\'' || q == '"') ? strchr(p + 1, q) : NULL;
  if (!end || (size_t)(end - p - 1) >= sizeof h->descr) {
    sm_log_error("%s: npy header: 'descr' is not a simple dtype string (structured "
                 "dtypes are not supported); accepted: " NPY_ACCEPTED,
                 path);
    return SM_EFORMAT;
  }
  memcpy(h->descr, p + 1, (size_t)(end - p - 1));
  h->descr[end - p - 1] = '\0';

  /* "<f8" = byte order, kind, item size in bytes (the order may be absent). */
  const char *d = h->descr;
  char order = '=';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
    order = *d++;
  char kind = *d;
  unsigned long size = 0;
  char *rest = (char *)d;
  if (kind && d[1] >= '0' && d[1] <= '9')
    size = strtoul(d + 1, &rest, 10);
  int known = *rest == '\0' && ((kind == 'f' && (size == 4 || size == 8)) ||
                                ((kind == 'i' || kind == 'u') &&
                                 (size == 1 || size == 2 || size == 4 || size == 8)));
  if (!known) {
    /* CCC refuses floats: its conversion is to codes */
    sm_log_error("%s: dtype '%s' is not supported; accepted: " NPY_ACCEPTED
                 "%s (convert it: np.save('new.npy', np.load('%s').astype('%s')))",
                 path, h->descr,
                 metric == SM_METRIC_CCC ? ", for CCC the integer ones" : "", path,
                 metric == SM_METRIC_CCC ? "|u1" : "<f8");
    return SM_EFORMAT;
  }
  /* Byte order only matters for multi-byte items; '|' means "not
   * applicable" and is only valid for them. */
  if (size > 1 && (order == '>' || order == '|')) {
    sm_log_error("%s: dtype '%s' is %s; only little-endian data are supported "
                 "(convert it: np.save('new.npy', np.load('%s').astype('<%c%lu')))",
                 path, h->descr, order == '>' ? "big-endian" : "without a byte order",
                 path, kind, size);
    return SM_EFORMAT;
  }
  if (metric == SM_METRIC_CCC && kind == 'f') {
    sm_log_error("%s: dtype '%s' holds no genotype codes; CCC needs an integer "
                 "dtype ('|u1', '|i1', '<i2', ...) holding 2-bit codes 0..3",
                 path, h->descr);
    return SM_EFORMAT;
  }
  h->kind = kind;
  h->size = size;
  return SM_OK;
}

/* The shape tuple (a JSON-style list too): exactly two non-negative
 * integers. */
static sm_err_t parse_shape(const char *path, const char *p, npy_header_t *h)
{
  const char *close = *p == '(' ? strchr(p, ')') : *p == '[' ? strchr(p, ']') : NULL;
  if (!close) {
    sm_log_error("%s: npy header: 'shape' is not a tuple", path);
    return SM_EFORMAT;
  }
  size_t dim[3] = {0, 0, 0};
  int ndim = 0;
  const char *s = p + 1;
  for (;;) {
    while (*s == ' ')
      s++;
    if (s >= close)
      break;
    char *e;
    errno = 0;
    unsigned long long x = strtoull(s, &e, 10);
    if (e == s || errno || *s == '-') {
      sm_log_error("%s: npy header: 'shape' %.*s is not a tuple of sizes", path,
                   (int)(close - p + 1), p);
      return SM_EFORMAT;
    }
    if (ndim < 3)
      dim[ndim] = (size_t)x;
    ndim++;
    for (s = e; *s == ' '; s++)
      ;
    if (*s == ',')
      s++;
  }
  if (ndim != 2) {
    sm_log_error("%s: shape %.*s has %d dimension%s; a 2-D array [vector, field] "
                 "is needed",
                 path, (int)(close - p + 1), p, ndim, ndim == 1 ? "" : "s");
    return SM_EFORMAT;
  }
  h->nv = dim[0];
  h->nf = dim[1];
  return SM_OK;
}

/* Magic, version, header dict. size is the file size. */
static sm_err_t parse_header(const char *path, int fd, size_t size, sm_metric_t metric,
                             npy_header_t *h)
{
  unsigned char pre[12];
  if (size < 10 || sm_read_at(fd, pre, 10, 0) || memcmp(pre, "\x93NUMPY", 6) != 0) {
    sm_log_error("%s: not a NumPy .npy file (no \\x93NUMPY magic at byte 0); "
                 "save the array with numpy.save",
                 path);
    return SM_EFORMAT;
  }
  size_t hlen, off;
  if (pre[6] == 1) {
    hlen = pre[8] | (size_t)pre[9] << 8;
    off = 10;
  } else if (pre[6] == 2 || pre[6] == 3) {
    if (size < 12 || sm_read_at(fd, pre, 12, 0)) {
      sm_log_error("%s: npy file ends inside its header; the file is truncated", path);
      return SM_EFORMAT;
    }
    hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    off = 12;
  } else {
    sm_log_error("%s: npy format version %u.%u is not supported (1.0, 2.0 and "
                 "3.0 are)",
                 path, pre[6], pre[7]);
    return SM_EFORMAT;
  }
  if (hlen > size - off || hlen > (1u << 24)) {
    sm_log_error("%s: npy header of %zu bytes runs past the end of the file "
                 "(%zu bytes); the file is truncated",
                 path, hlen, size);
    return SM_EFORMAT;
  }
  char *text = malloc(hlen + 1);
  if (!text) {
    sm_log_error("%s: out of memory for the npy header", path);
    return SM_ENOMEM;
  }
  sm_err_t err = SM_OK;
  if (sm_read_at(fd, text, hlen, (off_t)off)) {
    sm_log_error("%s: cannot read the npy header (%zu bytes at byte offset %zu)", path,
                 hlen, off);
    err = SM_EIO;
    goto done;
  }
  text[hlen] = '\0';
  h->data_off = (off_t)(off + hlen);

  const char *descr = dict_value(text, "descr");
  const char *fortran = dict_value(text, "fortran_order");
  const char *shape = dict_value(text, "shape");
  if (!descr || !fortran || !shape) {
    sm_log_error("%s: npy header has no '%s' entry; save the array with numpy.save", path,
                 !descr     ? "descr"
                 : !fortran ? "fortran_order"
                            : "shape");
    err = SM_EFORMAT;
    goto done;
  }
  /* numpy writes a Python dict (False, True); other writers JSON (false,
   * true): either spelling, nothing else */
  const size_t flen =
      strspn(fortran, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
  const int c_order =
      (flen == 5 && (!strncmp(fortran, "False", 5) || !strncmp(fortran, "false", 5)));
  if (!c_order && flen == 4 &&
      (!strncmp(fortran, "True", 4) || !strncmp(fortran, "true", 4))) {
    sm_log_error("%s: Fortran order is not supported; save with "
                 "np.ascontiguousarray",
                 path);
    err = SM_EFORMAT;
    goto done;
  }
  if (!c_order) {
    sm_log_error("%s: npy header: 'fortran_order' is '%.*s', neither False nor True (a "
                 "JSON-style false or true is read too); save the array with numpy.save",
                 path, (int)strcspn(fortran, ",}"), fortran);
    err = SM_EFORMAT;
    goto done;
  }
  if ((err = parse_descr(path, descr, metric, h)) || (err = parse_shape(path, shape, h)))
    goto done;
done:
  free(text);
  return err;
}

/* One item of the given kind/size as a double (exact for the integers that
 * matter here: 2-bit codes and counts below 2^53). */
static double load_item(const unsigned char *p, char kind, size_t size)
{
  union {
    float f4;
    double f8;
    int8_t i1;
    int16_t i2;
    int32_t i4;
    int64_t i8;
    uint8_t u1;
    uint16_t u2;
    uint32_t u4;
    uint64_t u8;
  } u;
  memcpy(&u, p, size);
  switch (kind * 16 + (int)size) {
  case 'f' * 16 + 4:
    return u.f4;
  case 'f' * 16 + 8:
    return u.f8;
  case 'i' * 16 + 1:
    return u.i1;
  case 'i' * 16 + 2:
    return u.i2;
  case 'i' * 16 + 4:
    return u.i4;
  case 'i' * 16 + 8:
    return (double)u.i8;
  case 'u' * 16 + 1:
    return u.u1;
  case 'u' * 16 + 2:
    return u.u2;
  case 'u' * 16 + 4:
    return u.u4;
  default:
    return (double)u.u8;
  }
}

/* What convert_row needs besides the row. */
typedef struct npy_slice {
  const char *path;
  const npy_header_t *h;
  size_t f0; /* first field kept */
  sm_vectors_t *out;
} npy_slice_t;

/* Convert one sliced row (fields f0.. of vector v, read at off) into row i
 * of out: values in out's precision (czekanowski) or packed codes (CCC).
 * An sm_read_row_fn. */
static sm_err_t convert_row(void *ctx, const unsigned char *buf, size_t v, off_t off,
                            size_t i)
{
  const npy_slice_t *s = ctx;
  const npy_header_t *h = s->h;
  sm_vectors_t *out = s->out;
  void *row = sm_vectors_row(out, i);
  for (size_t f = 0; f < out->nf; f++) {
    double x = load_item(buf + f * h->size, h->kind, h->size);
    const char *problem = NULL;
    if (out->metric == SM_METRIC_CCC) {
      if (x == 0 || x == 1 || x == 2 || x == 3)
        sm_gt_set(row, f, (unsigned)x);
      else
        problem = "is not a 2-bit genotype code (CoMet's 0, 1, 2 = missing, 3); fix the "
                  "input";
    } else {
      sm_read_store_czek(row, out->elem_size, f, x);
      problem = sm_read_czek_why(x, out->elem_size);
    }
    if (problem) {
      sm_log_error("%s: vector %zu, field %zu (byte offset %lld): value %.17g %s",
                   s->path, v + 1, s->f0 + f + 1,
                   (long long)off + (long long)(f * h->size), x, problem);
      return SM_EVALUE;
    }
  }
  return SM_OK;
}

sm_err_t sm_read_npy(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  int fd = -1;
  npy_header_t h;
  memset(&h, 0, sizeof h);
  sm_read_begin(out, dims);

  if (o->metric == SM_METRIC_CZEK && o->elem_size != 4 && o->elem_size != 8) {
    sm_log_error("%s: working precision of %zu bytes; 4 or 8 are supported", path,
                 o->elem_size);
    err = SM_EOPTION;
    goto fail;
  }
  size_t size;
  const sm_stream_rule_t rule = {.magic = {"\x93NUMPY"}};
  if ((err = sm_read_open(path, &rule, &fd, &size)) ||
      (err = parse_header(path, fd, size, o->metric, &h)))
    goto fail;
  if (h.nv == 0 || h.nf == 0) {
    sm_log_error("%s: shape (%zu, %zu): no %s", path, h.nv, h.nf,
                 h.nv == 0 ? "vectors" : "fields");
    err = SM_EDEGEN;
    goto fail;
  }
  size_t nbytes;
  const int huge = __builtin_mul_overflow(h.nv, h.nf, &nbytes) ||
                   __builtin_mul_overflow(nbytes, h.size, &nbytes);
  if (huge || nbytes != size - (size_t)h.data_off) {
    char need[64];
    if (huge)
      snprintf(need, sizeof need, "more than 2^64");
    else
      snprintf(need, sizeof need, "%zu", nbytes);
    sm_log_error("%s: shape (%zu, %zu) of '%s' needs %s data bytes after the "
                 "%lld-byte header but the file has %zu; the file is %s",
                 path, h.nv, h.nf, h.descr, need, (long long)h.data_off,
                 size - (size_t)h.data_off,
                 huge || nbytes > size - (size_t)h.data_off ? "truncated" : "corrupt");
    err = SM_EFORMAT;
    goto fail;
  }

  size_t nvk, nfk;
  if ((err = sm_read_slice_axis(path, "vector", h.nv, o->v0, o->vcount, &nvk)) ||
      (err = sm_read_slice_axis(path, "field", h.nf, o->f0, o->fcount, &nfk)))
    goto fail;
  if ((err = sm_vectors_alloc(out, o->metric, o->elem_size, nvk, nfk)))
    goto fail;
  const sm_read_rows_t rows = {.path = path,
                               .what = "vector",
                               .fd = fd,
                               .first = h.data_off + (off_t)(o->f0 * h.size),
                               .stride = h.nf * h.size,
                               .nbytes = nfk * h.size};
  npy_slice_t slice = {.path = path, .h = &h, .f0 = o->f0, .out = out};
  err = sm_read_rows(&rows, o->v0, nvk, convert_row, &slice);
fail:
  if (fd >= 0)
    close(fd);
  return sm_read_end(err, out, dims, h.nv, h.nf);
}
