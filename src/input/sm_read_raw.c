/* sm_read_raw.c: CoMet's raw input layouts (no header): float32/float64
 * vectors for czekanowski, 2-bit packed genotype vectors for CCC. Only the
 * requested slice is read, by file offset, so each rank reads its share. */
#include "sm_read.h"
#include "sm_read_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CoMet writes its files in host order on little-endian machines, and the
 * packed rows are filled by copying bytes into uint64_t words. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm_read_raw.c assumes a little-endian host"
#endif

/* Czekanowski: convert one row of float32/float64 values into out's
 * precision and check each stored value (finite, >= 0). */
static sm_err_t convert_czek_row(const char *path, const unsigned char *buf, size_t es,
                                 size_t v, size_t f0, off_t off, sm_vectors_t *out,
                                 size_t i)
{
  void *row = sm_vectors_row(out, i);
  for (size_t f = 0; f < out->nf; f++) {
    double x;
    if (es == 4) {
      float y;
      memcpy(&y, buf + f * 4, 4);
      x = y;
    } else {
      memcpy(&x, buf + f * 8, 8);
    }
    sm_read_store_czek(row, out->elem_size, f, x);
    const char *why = sm_read_czek_why(x, out->elem_size);
    if (why) {
      sm_log_error("%s: vector %zu, field %zu (byte offset %lld): value %g %s", path,
                   v + 1, f0 + f + 1, (long long)off + (long long)(f * es), x, why);
      return SM_EVALUE;
    }
  }
  return SM_OK;
}

/* CCC: the bytes of fields [f0, f0 + nf) of one packed vector (starting at
 * byte f0 / 4) into a packed row. Byte-aligned slices are copied whole
 * (our word layout is CoMet's byte layout read little-endian); others are
 * moved field by field. The bits past nf end up zero either way. */
static void unpack_ccc_row(const unsigned char *buf, size_t f0, size_t nf, uint64_t *row)
{
  if (f0 % 4 == 0) {
    memcpy(row, buf, (nf + 3) / 4);
    if (nf % SM_GT_PER_WORD)
      row[nf / SM_GT_PER_WORD] &= ((uint64_t)1 << (2 * (nf % SM_GT_PER_WORD))) - 1;
    return;
  }
  for (size_t f = 0; f < nf; f++) {
    size_t g = f0 % 4 + f; /* field index relative to the first byte read */
    sm_gt_set(row, f, (buf[g / 4] >> (2 * (g % 4))) & 3u);
  }
}

/* What raw_row needs besides the row. */
typedef struct raw_slice {
  const char *path;
  size_t es; /* bytes per czekanowski value in the file */
  size_t f0; /* first field kept */
  sm_vectors_t *out;
} raw_slice_t;

/* One vector's bytes into row i of the slice. An sm_read_row_fn. */
static sm_err_t raw_row(void *ctx, const unsigned char *buf, size_t v, off_t off,
                        size_t i)
{
  const raw_slice_t *s = ctx;
  if (s->out->metric != SM_METRIC_CCC)
    return convert_czek_row(s->path, buf, s->es, v, s->f0, off, s->out, i);
  unpack_ccc_row(buf, s->f0, s->out->nf, sm_vectors_row(s->out, i));
  return SM_OK;
}

/* Bytes per value (*es) and per vector (*bpv) from the options: raw files
 * have no header. */
static sm_err_t raw_sizes(const char *path, const sm_read_opts_t *o, size_t *es,
                          size_t *bpv)
{
  const int ccc = o->metric == SM_METRIC_CCC;
  const size_t nf = o->num_field;
  *es = o->raw_elem_size ? o->raw_elem_size : o->elem_size;
  if (!ccc && ((*es != 4 && *es != 8) || (o->elem_size != 4 && o->elem_size != 8))) {
    sm_log_error("%s: raw czekanowski input needs 4- or 8-byte values (got %zu, "
                 "working precision %zu bytes)",
                 path, *es, o->elem_size);
    return SM_EOPTION;
  }
  if (nf == 0) {
    sm_log_error("%s: raw input has no header: it needs --num-field (the number "
                 "of fields per vector)",
                 path);
    return SM_EOPTION;
  }
  /* Bytes per vector; absurd --num-field values would overflow. */
  if (ccc)
    *bpv = nf / 4 + (nf % 4 != 0);
  else if (__builtin_mul_overflow(nf, *es, bpv)) {
    sm_log_error("%s: --num-field %zu is too large", path, nf);
    return SM_EOPTION;
  }
  return SM_OK;
}

/* The number of vectors: --num-vector, or what a file of size bytes holds. */
static sm_err_t raw_count(const char *path, const sm_read_opts_t *o, size_t size,
                          size_t bpv, size_t *nvp)
{
  size_t nv = o->num_vector, nf = o->num_field;
  if (nv == 0) {
    if (size % bpv != 0) {
      sm_log_error("%s: file size %zu bytes is not a whole number of vectors of "
                   "%zu bytes (%zu fields); check --num-field and the value size",
                   path, size, bpv, nf);
      return SM_EINCONSIST;
    }
    nv = size / bpv;
  } else if (nv > size / bpv) {
    /* A smaller count is fine: CoMet reads the first num_vector vectors. */
    char need[64];
    size_t nb;
    if (__builtin_mul_overflow(nv, bpv, &nb))
      snprintf(need, sizeof need, "more than 2^64");
    else
      snprintf(need, sizeof need, "%zu", nb);
    sm_log_error("%s: %zu vectors of %zu bytes (%zu fields) need %s bytes but "
                 "the file has %zu; check --num-vector and --num-field",
                 path, nv, bpv, nf, need, size);
    return SM_EINCONSIST;
  }
  if (nv == 0) {
    sm_log_error("%s: no vectors (the file is empty)", path);
    return SM_EDEGEN;
  }
  *nvp = nv;
  return SM_OK;
}

sm_err_t sm_read_raw(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims)
{
  int fd = -1;
  sm_read_begin(out, dims);

  const int ccc = o->metric == SM_METRIC_CCC;
  size_t es, bpv, nv = 0, nvk, nfk;
  size_t size;
  sm_err_t err;
  if ((err = raw_sizes(path, o, &es, &bpv)))
    goto fail;
  /* a stream (/dev/zero as well) is copied as far as --num-vector reaches */
  size_t want = 0;
  sm_stream_rule_t rule = {.max = 0};
  if (o->num_vector && !__builtin_mul_overflow(o->num_vector, bpv, &want))
    rule.max = want;
  if ((err = sm_read_open(path, &rule, &fd, &size)) ||
      (err = raw_count(path, o, size, bpv, &nv)) ||
      (err = sm_read_slice_axis(path, "vector", nv, o->v0, o->vcount, &nvk)) ||
      (err = sm_read_slice_axis(path, "field", o->num_field, o->f0, o->fcount, &nfk)) ||
      (err = sm_vectors_alloc(out, o->metric, o->elem_size, nvk, nfk)))
    goto fail;

  /* The bytes of one sliced row in the file, and where they start in a vector. */
  const sm_read_rows_t rows = {.path = path,
                               .what = "vector",
                               .fd = fd,
                               .first = (off_t)(ccc ? o->f0 / 4 : o->f0 * es),
                               .stride = bpv,
                               .nbytes =
                                   ccc ? (o->f0 + nfk + 3) / 4 - o->f0 / 4 : nfk * es};
  raw_slice_t slice = {.path = path, .es = es, .f0 = o->f0, .out = out};
  err = sm_read_rows(&rows, o->v0, nvk, raw_row, &slice);
fail:
  if (fd >= 0)
    close(fd);
  return sm_read_end(err, out, dims, nv, o->num_field);
}
