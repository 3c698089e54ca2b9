/* sm_read_raw.c: CoMet's raw input layouts (no header): float32/float64
 * vectors for czekanowski, 2-bit packed genotype vectors for CCC. Only the
 * requested slice is read, by file offset, so each rank reads its share. */
#include "sm_read.h"
#include "sm_read_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* CoMet writes its files in host order on little-endian machines, and the
 * packed rows are filled by copying bytes into uint64_t words. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm_read_raw.c assumes a little-endian host"
#endif

/* Czekanowski: convert one row of float32/float64 values into out's
 * precision and check each stored value (finite, >= 0). */
static sm_err_t convert_czek_row(const char *path, const unsigned char *buf,
                                 size_t es, size_t v, size_t f0, off_t off,
                                 sm_vectors_t *out, size_t i)
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
    if (!sm_read_czek_ok(x, out->elem_size)) {
      sm_log_error("%s: vector %zu, field %zu (byte offset %lld): value %g is "
                   "not allowed for czekanowski (entries must be finite and "
                   ">= 0 in the working precision); fix the input",
                   path, v + 1, f0 + f + 1, (long long)off + (long long)(f * es), x);
      return SM_EVALUE;
    }
  }
  return SM_OK;
}

/* CCC: the bytes of fields [f0, f0 + nf) of one packed vector (starting at
 * byte f0 / 4) into a packed row. Byte-aligned slices are copied whole
 * (our word layout is CoMet's byte layout read little-endian); others are
 * moved field by field. The bits past nf end up zero either way. */
static void unpack_ccc_row(const unsigned char *buf, size_t f0, size_t nf,
                           uint64_t *row)
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

sm_err_t sm_read_raw(const char *path, const sm_read_opts_t *o,
                     sm_vectors_t *out, sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  int fd = -1;
  unsigned char *buf = NULL;
  memset(out, 0, sizeof *out);
  if (dims)
    memset(dims, 0, sizeof *dims);

  int ccc = o->metric == SM_METRIC_CCC;
  size_t es = o->raw_elem_size ? o->raw_elem_size : o->elem_size;
  if (!ccc && ((es != 4 && es != 8) || (o->elem_size != 4 && o->elem_size != 8))) {
    sm_log_error("%s: raw czekanowski input needs 4- or 8-byte values (got %zu, "
                 "working precision %zu bytes)", path, es, o->elem_size);
    err = SM_EOPTION;
    goto fail;
  }
  size_t nf = o->num_field;
  if (nf == 0) {
    sm_log_error("%s: raw input has no header: it needs --num-field (the number "
                 "of fields per vector)", path);
    err = SM_EOPTION;
    goto fail;
  }
  /* Bytes per vector; absurd --num-field values would overflow. */
  size_t bpv;
  if (ccc)
    bpv = nf / 4 + (nf % 4 != 0);
  else if (__builtin_mul_overflow(nf, es, &bpv)) {
    sm_log_error("%s: --num-field %zu is too large", path, nf);
    err = SM_EOPTION;
    goto fail;
  }

  fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    sm_log_error("%s: cannot open: %s; check the path", path, strerror(errno));
    err = SM_EIO;
    goto fail;
  }
  size_t size = (size_t)st.st_size;
  size_t nv = o->num_vector;
  if (nv == 0) {
    if (size % bpv != 0) {
      sm_log_error("%s: file size %zu bytes is not a whole number of vectors of "
                   "%zu bytes (%zu fields); check --num-field and the value size",
                   path, size, bpv, nf);
      err = SM_EINCONSIST;
      goto fail;
    }
    nv = size / bpv;
  } else if (nv > size / bpv) {
    /* A smaller count is fine: CoMet reads the first num_vector vectors. */
    sm_log_error("%s: %zu vectors of %zu bytes (%zu fields) need %zu bytes but "
                 "the file has %zu; check --num-vector and --num-field",
                 path, nv, bpv, nf, nv * bpv, size);
    err = SM_EINCONSIST;
    goto fail;
  }
  if (nv == 0) {
    sm_log_error("%s: no vectors (the file is empty)", path);
    err = SM_EDEGEN;
    goto fail;
  }

  size_t nvk, nfk;
  if ((err = sm_read_slice_axis(path, "vector", nv, o->v0, o->vcount, &nvk)) ||
      (err = sm_read_slice_axis(path, "field", nf, o->f0, o->fcount, &nfk)))
    goto fail;
  if ((err = sm_vectors_alloc(out, o->metric, o->elem_size, nvk, nfk)))
    goto fail;

  /* Bytes of one sliced row in the file, and where it starts in a vector. */
  size_t first = ccc ? o->f0 / 4 : o->f0 * es;
  size_t nbytes = ccc ? (o->f0 + nfk + 3) / 4 - o->f0 / 4 : nfk * es;
  buf = malloc(nbytes);
  if (!buf) {
    sm_log_error("%s: out of memory for a %zu-byte row buffer", path, nbytes);
    err = SM_ENOMEM;
    goto fail;
  }
  for (size_t i = 0; i < nvk; i++) {
    size_t v = o->v0 + i;
    off_t off = (off_t)(v * bpv + first);
    int e = sm_read_at(fd, buf, nbytes, off);
    if (e) {
      sm_log_error("%s: cannot read vector %zu (%zu bytes at byte offset %lld): %s",
                   path, v + 1, nbytes, (long long)off, strerror(e));
      err = SM_EIO;
      goto fail;
    }
    if (ccc)
      unpack_ccc_row(buf, o->f0, nfk, sm_vectors_row(out, i));
    else if ((err = convert_czek_row(path, buf, es, v, o->f0, off, out, i)))
      goto fail;
  }
  if (ccc)
    sm_vectors_count_missing(out);

  free(buf);
  close(fd);
  if (dims) {
    dims->nv = nv;
    dims->nf = nf;
  }
  return SM_OK;

fail:
  free(buf);
  if (fd >= 0)
    close(fd);
  sm_vectors_free(out);
  memset(out, 0, sizeof *out);
  return err;
}
