/* test_read.c: tests of the input readers: raw and npy on the CoMet reference
 * inputs, and PLINK, TSV, npy and BIOM files written here by hand (good ones
 * with known values, bad ones with the error code each must give); dispatch;
 * inputs that are streams (pipes, FIFOs, /dev/zero), read once. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* SM_HAVE_HDF5 */
#endif
#include "sm_read.h"
#include "sm_read_biom.h"
#include "sm_read_util.h"
#include "sm_stream.h"
#include "sm_test.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define REF_NV 200
#define REF_NF 500

static sm_read_opts_t czek_opts(size_t elem_size)
{
  sm_read_opts_t o;
  memset(&o, 0, sizeof o);
  o.metric = SM_METRIC_CZEK;
  o.elem_size = elem_size;
  return o;
}

static sm_read_opts_t ccc_opts(void)
{
  sm_read_opts_t o = czek_opts(8);
  o.metric = SM_METRIC_CCC;
  return o;
}

/* Value (i, f) of a czekanowski set, in double. */
static double val(const sm_vectors_t *v, size_t i, size_t f)
{
  const void *row = sm_vectors_row(v, i);
  return v->elem_size == 4 ? ((const float *)row)[f] : ((const double *)row)[f];
}

/* Code of field f of vector i of a genotype set. */
static unsigned code(const sm_vectors_t *v, size_t i, size_t f)
{
  return sm_gt_get(sm_vectors_row(v, i), f);
}

/* All bits past nf of every packed row are zero. */
static int pad_is_zero(const sm_vectors_t *v)
{
  for (size_t i = 0; i < v->nv; i++) {
    const uint64_t *row = sm_vectors_row(v, i);
    for (size_t f = v->nf; f < v->ld * SM_GT_PER_WORD; f++)
      if (sm_gt_get(row, f))
        return 0;
  }
  return 1;
}

/* A whole file in memory. */
static unsigned char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(*len + 1);
  ck_assert(buf != NULL);
  ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
  fclose(f);
  return buf;
}

/* Write a text file; its path is copied to path (sm_test_write's buffers
 * are reused). */
static void write_text(char *path, const char *name, const char *text)
{
  snprintf(path, 4096, "%s", sm_test_write(name, text, strlen(text)));
}

/* Write a .npy file by hand: magic, version, header length, the dict padded
 * with spaces to a multiple of 64 bytes and ended by '\n', then the data. */
static void write_npy_dict(char *path, const char *name, int major, const char *dict,
                           const void *data, size_t len)
{
  const int n = (int)strlen(dict);
  size_t pre = major == 1 ? 10 : 12;
  size_t total = (pre + (size_t)n + 1 + 63) / 64 * 64;
  size_t hlen = total - pre;
  unsigned char *buf = malloc(total + len);
  ck_assert(buf != NULL);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  for (size_t b = 0; b < pre - 8; b++)
    buf[8 + b] = (unsigned char)(hlen >> (8 * b));
  memset(buf + pre, ' ', hlen);
  memcpy(buf + pre, dict, (size_t)n);
  buf[total - 1] = '\n';
  if (len)
    memcpy(buf + total, data, len);
  snprintf(path, 4096, "%s", sm_test_write(name, buf, total + len));
  free(buf);
}

static void write_npy(char *path, const char *name, int major, const char *descr,
                      const char *fortran, const char *shape, const void *data,
                      size_t len)
{
  char dict[256];
  snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
           descr, fortran, shape);
  write_npy_dict(path, name, major, dict, data, len);
}

/* The reference int64 npy, read as doubles: the values every raw czek
 * reference file must reproduce. */
static void read_ref(sm_vectors_t *ref)
{
  sm_read_opts_t o = czek_opts(8);
  sm_dims_t d;
  ck_assert_int_eq(
      sm_read_npy(sm_test_srcpath("tests/data/comet/czek_int_200x500.npy"), &o, ref, &d),
      SM_OK);
  ck_assert_uint_eq(d.nv, REF_NV);
  ck_assert_uint_eq(d.nf, REF_NF);
  ck_assert_uint_eq(ref->nv, REF_NV);
  ck_assert_uint_eq(ref->nf, REF_NF);
  ck_assert(ref->names == NULL);
}

/* v equals ref's vectors [v0, v0 + v->nv), fields [f0, f0 + v->nf). */
static void assert_czek_part(const sm_vectors_t *v, const sm_vectors_t *ref, size_t v0,
                             size_t f0)
{
  for (size_t i = 0; i < v->nv; i++)
    for (size_t f = 0; f < v->nf; f++)
      ck_assert_msg(val(v, i, f) == val(ref, v0 + i, f0 + f),
                    "vector %zu field %zu: %g != %g", i, f, val(v, i, f),
                    val(ref, v0 + i, f0 + f));
}

/* ------------------------------------------------------------------ raw */

/* sm_read_rows, which reads consecutive rows together (4 MiB at a time):
 * every row's bytes, offset and index as a pread of that row alone gives
 * them, for whole rows, slices joined or not, a map with gaps and turns,
 * and a file cut short (the rows before the cut, then SM_EIO). */
typedef struct {
  const unsigned char *file;
  size_t nbytes, calls, first_bad;
  off_t first;
  size_t stride;
  const uint32_t *map;
  size_t v0;
} rows_seen_t;

static unsigned char file_byte(size_t pos)
{
  return (unsigned char)(pos * 131 + (pos >> 9) * 7 + (pos >> 17));
}

static sm_err_t rows_check(void *ctx, const unsigned char *buf, size_t v, off_t off,
                           size_t i)
{
  rows_seen_t *s = ctx;
  const size_t want_v = s->map ? s->map[s->v0 + i] : s->v0 + i;
  const off_t want_off = s->first + (off_t)(want_v * s->stride);
  if (i != s->calls || v != want_v || off != want_off ||
      memcmp(buf, s->file + off, s->nbytes))
    if (s->first_bad == SIZE_MAX)
      s->first_bad = i;
  s->calls++;
  return SM_OK;
}

START_TEST(test_read_rows)
{
  const size_t stride = 1000, nrow = 10000, len = 3 + stride * nrow; /* 10 MB */
  unsigned char *file = malloc(len);
  for (size_t k = 0; k < len; k++)
    file[k] = file_byte(k);
  const char *path = sm_test_write("rows.bin", file, len);
  int fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  static const uint32_t map[] = {5, 6, 7, 100, 2, 3, 9999, 9998, 4000, 4001, 4002, 4003};
  const struct {
    size_t first, nbytes, v0, n;
    const uint32_t *map;
  } cases[] = {
      {3, 1000, 0, 10000, NULL}, /* whole rows, every row */
      {3, 1000, 17, 9983, NULL}, /* from a row on */
      {3, 1000, 0, 1, NULL},     /* one row */
      {403, 600, 1, 9999, NULL}, /* a slice of 600 bytes: joined */
      {703, 300, 2, 9000, NULL}, /* a slice of 300: row by row */
      {3, 1000, 0, 12, map},     /* a map */
      {103, 500, 2, 10, map},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const sm_read_rows_t r = {.path = path,
                              .what = "row",
                              .fd = fd,
                              .first = (off_t)cases[c].first,
                              .stride = stride,
                              .nbytes = cases[c].nbytes,
                              .map = cases[c].map};
    rows_seen_t s = {file,   cases[c].nbytes, 0,          SIZE_MAX, (off_t)cases[c].first,
                     stride, cases[c].map,    cases[c].v0};
    ck_assert_int_eq(sm_read_rows(&r, cases[c].v0, cases[c].n, rows_check, &s), SM_OK);
    ck_assert_msg(s.first_bad == SIZE_MAX, "case %zu: row %zu differs", c, s.first_bad);
    ck_assert_uint_eq(s.calls, cases[c].n);
  }
  close(fd);
  /* cut short inside row 7,345: rows 0 .. 7,344 delivered, then an error */
  const size_t cut = 3 + 7345 * stride + 10;
  path = sm_test_write("rows-cut.bin", file, cut);
  fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  const sm_read_rows_t r = {.path = path,
                            .what = "row",
                            .fd = fd,
                            .first = 3,
                            .stride = stride,
                            .nbytes = stride};
  rows_seen_t s = {file, stride, 0, SIZE_MAX, 3, stride, NULL, 0};
  ck_assert_int_eq(sm_read_rows(&r, 0, nrow, rows_check, &s), SM_EIO);
  ck_assert(s.first_bad == SIZE_MAX);
  ck_assert_uint_eq(s.calls, 7345);
  close(fd);
  free(file);
}
END_TEST

START_TEST(test_raw_czek_f64)
{
  sm_vectors_t ref, v;
  sm_dims_t d;
  read_ref(&ref);
  sm_read_opts_t o = czek_opts(8);
  o.num_field = REF_NF;
  ck_assert_int_eq(
      sm_read_raw(sm_test_srcpath("tests/data/comet/czek_int_200x500_f64.bin"), &o, &v,
                  &d),
      SM_OK);
  ck_assert_uint_eq(d.nv, REF_NV);
  ck_assert_uint_eq(d.nf, REF_NF);
  ck_assert_uint_eq(v.nv, REF_NV);
  ck_assert_uint_eq(v.nf, REF_NF);
  ck_assert(v.names == NULL);
  assert_czek_part(&v, &ref, 0, 0);
  /* integers 0..99, and not all zero */
  double sum = 0;
  for (size_t i = 0; i < v.nv; i++)
    for (size_t f = 0; f < v.nf; f++) {
      ck_assert(val(&v, i, f) == floor(val(&v, i, f)) && val(&v, i, f) <= 99);
      sum += val(&v, i, f);
    }
  ck_assert(sum > 0);
  sm_vectors_free(&v);
  sm_vectors_free(&ref);
}
END_TEST

START_TEST(test_raw_czek_f32)
{
  sm_vectors_t ref, v;
  read_ref(&ref);
  const char *path = sm_test_srcpath("tests/data/comet/czek_int_200x500_f32.bin");
  /* float32 file into double precision */
  sm_read_opts_t o = czek_opts(8);
  o.num_field = REF_NF;
  o.raw_elem_size = 4;
  ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_OK);
  ck_assert_uint_eq(v.elem_size, 8);
  ck_assert_uint_eq(v.nv, REF_NV);
  assert_czek_part(&v, &ref, 0, 0);
  sm_vectors_free(&v);
  /* float32 file in single precision (raw_elem_size defaults to elem_size) */
  o = czek_opts(4);
  o.num_field = REF_NF;
  ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_OK);
  ck_assert_uint_eq(v.elem_size, 4);
  ck_assert_uint_eq(v.nv, REF_NV);
  assert_czek_part(&v, &ref, 0, 0);
  sm_vectors_free(&v);
  /* float64 file in single precision */
  o.raw_elem_size = 8;
  ck_assert_int_eq(
      sm_read_raw(sm_test_srcpath("tests/data/comet/czek_int_200x500_f64.bin"), &o, &v,
                  NULL),
      SM_OK);
  assert_czek_part(&v, &ref, 0, 0);
  sm_vectors_free(&v);
  sm_vectors_free(&ref);
}
END_TEST

START_TEST(test_czek_slice)
{
  sm_vectors_t ref, v;
  sm_dims_t d;
  read_ref(&ref);
  const char *paths[3] = {"tests/data/comet/czek_int_200x500_f64.bin",
                          "tests/data/comet/czek_int_200x500_f32.bin",
                          "tests/data/comet/czek_int_200x500.npy"};
  for (int k = 0; k < 3; k++) {
    sm_read_opts_t o = czek_opts(8);
    o.num_field = REF_NF;
    o.raw_elem_size = k == 1 ? 4 : 8;
    o.v0 = 17;
    o.vcount = 33;
    o.f0 = 101;
    o.fcount = 77;
    const char *path = sm_test_srcpath(paths[k]);
    sm_err_t err = k == 2 ? sm_read_npy(path, &o, &v, &d) : sm_read_raw(path, &o, &v, &d);
    ck_assert_int_eq(err, SM_OK);
    ck_assert_uint_eq(d.nv, REF_NV);
    ck_assert_uint_eq(d.nf, REF_NF);
    ck_assert_uint_eq(v.nv, 33);
    ck_assert_uint_eq(v.nf, 77);
    assert_czek_part(&v, &ref, 17, 101);
    for (size_t i = 0; i < v.nv; i++) /* padding past nf stays zero */
      for (size_t f = v.nf; f < v.ld; f++)
        ck_assert(val(&v, i, f) == 0);
    sm_vectors_free(&v);
    /* count 0 = to the end */
    o.vcount = 0;
    o.fcount = 0;
    err = k == 2 ? sm_read_npy(path, &o, &v, NULL) : sm_read_raw(path, &o, &v, NULL);
    ck_assert_int_eq(err, SM_OK);
    ck_assert_uint_eq(v.nv, REF_NV - 17);
    ck_assert_uint_eq(v.nf, REF_NF - 101);
    assert_czek_part(&v, &ref, 17, 101);
    sm_vectors_free(&v);
  }
  sm_vectors_free(&ref);
}
END_TEST

START_TEST(test_raw_czek_errors)
{
  const char *ref = sm_test_srcpath("tests/data/comet/czek_int_200x500_f64.bin");
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, NULL), SM_EOPTION); /* no num_field */
  ck_assert(v.data == NULL);
  o.num_field = 7; /* 800000 bytes is not a whole number of 56-byte vectors */
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, NULL), SM_EINCONSIST);
  o.num_field = REF_NF;
  o.num_vector = REF_NV + 1;
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, NULL), SM_EINCONSIST);
  o.num_vector = 60; /* fewer than the file holds: the first ones (CoMet) */
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, &d), SM_OK);
  ck_assert_uint_eq(v.nv, 60);
  ck_assert_uint_eq(d.nv, 60);
  sm_vectors_free(&v);
  o.num_vector = 0;
  o.v0 = REF_NV;
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, &d), SM_EOPTION);
  ck_assert(v.data == NULL && d.nv == 0);
  o.v0 = 100;
  o.vcount = 101;
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, NULL), SM_EOPTION);
  o.v0 = o.vcount = 0;
  o.f0 = REF_NF;
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, NULL), SM_EOPTION);
  o.f0 = 0;
  o.raw_elem_size = 2;
  ck_assert_int_eq(sm_read_raw(ref, &o, &v, NULL), SM_EOPTION);
  o.raw_elem_size = 0;

  char path[4096];
  o.num_field = 3;
  ck_assert_int_eq(sm_read_raw("/nonexistent/x.bin", &o, &v, NULL), SM_EIO);
  write_text(path, "empty.bin", "");
  ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_EDEGEN);
  double bad[2][6] = {{1, 2, -1, 4, 5, 6}, {NAN, 2, 3, 4, 5, 6}};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s", sm_test_write("bad.bin", bad[k], sizeof bad[k]));
    ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_EVALUE);
    ck_assert(v.data == NULL);
    o.v0 = 1; /* the bad value is outside the slice: fine */
    ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_OK);
    ck_assert(val(&v, 0, 0) == 4);
    sm_vectors_free(&v);
    o.v0 = 0;
  }
  /* 1e300 does not fit in single precision */
  double big[3] = {1, 1e300, 2};
  snprintf(path, sizeof path, "%s", sm_test_write("big.bin", big, sizeof big));
  o.raw_elem_size = 8;
  ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_OK);
  sm_vectors_free(&v);
  o.elem_size = 4;
  ck_assert_int_eq(sm_read_raw(path, &o, &v, NULL), SM_EVALUE);
}
END_TEST

/* Code of field f of vector i of a CoMet 2-bit file held in memory. */
static unsigned raw_code(const unsigned char *bytes, size_t nf, size_t i, size_t f)
{
  size_t bpv = (nf + 3) / 4;
  return (bytes[i * bpv + f / 4] >> (2 * (f % 4))) & 3u;
}

/* Read a CoMet 2-bit file (whole and a few slices) and compare every code,
 * the missing count and the padding with a direct decode of its bytes. */
static void check_raw_ccc(const char *rel, size_t nv, size_t nf)
{
  const char *path = sm_test_srcpath(rel);
  size_t len;
  unsigned char *bytes = slurp(path, &len);
  ck_assert_uint_eq(len, nv * ((nf + 3) / 4));
  size_t slices[4][4] = {{0, 0, 0, 0}, {3, 10, 5, 300}, {1, 0, 8, 0}, {0, 2, 33, 64}};
  for (int s = 0; s < 4; s++) {
    sm_read_opts_t o = ccc_opts();
    o.num_field = nf;
    o.v0 = slices[s][0];
    o.vcount = slices[s][1];
    o.f0 = slices[s][2];
    o.fcount = slices[s][3];
    sm_vectors_t v;
    sm_dims_t d;
    ck_assert_int_eq(sm_read_raw(path, &o, &v, &d), SM_OK);
    ck_assert_uint_eq(d.nv, nv);
    ck_assert_uint_eq(d.nf, nf);
    ck_assert_uint_eq(v.nv, o.vcount ? o.vcount : nv - o.v0);
    ck_assert_uint_eq(v.nf, o.fcount ? o.fcount : nf - o.f0);
    size_t miss = 0;
    for (size_t i = 0; i < v.nv; i++)
      for (size_t f = 0; f < v.nf; f++) {
        unsigned c = raw_code(bytes, nf, o.v0 + i, o.f0 + f);
        ck_assert_uint_eq(code(&v, i, f), c);
        miss += c == SM_GT_MISSING;
      }
    ck_assert_uint_eq(v.nmissing, miss);
    ck_assert(miss > 0);
    ck_assert(pad_is_zero(&v));
    sm_vectors_free(&v);
  }
  free(bytes);
}

START_TEST(test_raw_ccc_odd)
{
  check_raw_ccc("tests/data/comet/bits2_miss10_37x517.bin", 37, 517);
}
END_TEST

START_TEST(test_raw_ccc_uniform)
{
  check_raw_ccc("tests/data/comet/bits2_uniform_200x500.bin", 200, 500);
  /* num_field 517 does not divide 25000 bytes into 130-byte vectors */
  sm_read_opts_t o = ccc_opts();
  o.num_field = 517;
  sm_vectors_t v;
  ck_assert_int_eq(
      sm_read_raw(sm_test_srcpath("tests/data/comet/bits2_uniform_200x500.bin"), &o, &v,
                  NULL),
      SM_EINCONSIST);
}
END_TEST

/* ---------------------------------------------------------------- PLINK */

/* Write prefix.bed/.bim/.fam for nsnp x nsample PLINK codes pl (SNP-major);
 * mode is the third .bed byte, bed_trim drops bytes from the end. */
static void write_plink(char *prefix, const char *name, size_t nsnp, size_t nsample,
                        const unsigned *pl, unsigned char mode, size_t bed_trim)
{
  char fname[256];
  size_t bps = (nsample + 3) / 4, len = 3 + nsnp * bps;
  unsigned char *bed = calloc(len, 1);
  ck_assert(bed != NULL);
  bed[0] = 0x6c;
  bed[1] = 0x1b;
  bed[2] = mode;
  for (size_t s = 0; s < nsnp; s++)
    for (size_t k = 0; k < nsample; k++)
      bed[3 + s * bps + k / 4] |= (unsigned char)(pl[s * nsample + k] << (2 * (k % 4)));
  snprintf(fname, sizeof fname, "%s.bed", name);
  const char *p = sm_test_write(fname, bed, len - bed_trim);
  free(bed);
  snprintf(prefix, 4096, "%.*s", (int)(strlen(p) - 4), p);

  char *text = malloc(64 * (nsnp + nsample) + 1), *t = text;
  ck_assert(text != NULL);
  for (size_t s = 0; s < nsnp; s++)
    t += sprintf(t, "1\trs%zu\t0\t%zu\tA\tG\n", s + 1, 1000 * (s + 1));
  snprintf(fname, sizeof fname, "%s.bim", name);
  sm_test_write(fname, text, (size_t)(t - text));
  t = text;
  for (size_t k = 0; k < nsample; k++)
    t += sprintf(t, "F%zu I%zu 0 0 1 -9\n", k, k);
  snprintf(fname, sizeof fname, "%s.fam", name);
  sm_test_write(fname, text, (size_t)(t - text));
  free(text);
}

/* 5 SNPs x 7 samples, PLINK codes: 0 hom A1, 1 missing, 2 het, 3 hom A2. */
static const unsigned PL57[5 * 7] = {
    0, 1, 2, 3, 0, 1, 2, /* */
    3, 3, 3, 3, 3, 3, 3, /* */
    0, 0, 0, 0, 0, 0, 0, /* the .bed pad bits (0) would decode to 3 */
    2, 2, 1, 1, 0, 3, 2, /* */
    1, 0, 3, 2, 1, 0, 3,
};

/* The CCC code of a PLINK code (hom A1 = 2 copies of allele "1"). */
static unsigned comet_of(unsigned plink)
{
  static const unsigned map[4] = {SM_GT_2, SM_GT_MISSING, SM_GT_1, SM_GT_0};
  return map[plink];
}

/* v equals the PLINK codes pl (nsample per SNP) from SNP v0, sample f0. */
static void assert_plink_part(const sm_vectors_t *v, const unsigned *pl, size_t nsample,
                              size_t v0, size_t f0)
{
  size_t miss = 0;
  for (size_t i = 0; i < v->nv; i++) {
    char id[32];
    snprintf(id, sizeof id, "rs%zu", v0 + i + 1);
    ck_assert(v->names != NULL);
    ck_assert_str_eq(v->names[i], id);
    for (size_t f = 0; f < v->nf; f++) {
      unsigned p = pl[(v0 + i) * nsample + f0 + f];
      ck_assert_uint_eq(code(v, i, f), comet_of(p));
      miss += p == 1;
    }
  }
  ck_assert_uint_eq(v->nmissing, miss);
  ck_assert(pad_is_zero(v));
}

START_TEST(test_plink_decode)
{
  char prefix[4096], withbed[4096];
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = ccc_opts();
  write_plink(prefix, "p57", 5, 7, PL57, 0x01, 0);
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, &d), SM_OK);
  ck_assert_uint_eq(d.nv, 5);
  ck_assert_uint_eq(d.nf, 7);
  ck_assert_uint_eq(v.nv, 5);
  ck_assert_uint_eq(v.nf, 7);
  assert_plink_part(&v, PL57, 7, 0, 0);
  ck_assert_uint_eq(v.nmissing, 6); /* the 1s of PL57 */
  sm_vectors_free(&v);
  /* the prefix may carry ".bed" */
  snprintf(withbed, sizeof withbed, "%.4000s.bed", prefix);
  ck_assert_int_eq(sm_read_plink(withbed, &o, &v, NULL), SM_OK);
  assert_plink_part(&v, PL57, 7, 0, 0);
  sm_vectors_free(&v);
}
END_TEST

START_TEST(test_plink_slice)
{
  char prefix[4096];
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = ccc_opts();
  write_plink(prefix, "p57s", 5, 7, PL57, 0x01, 0);
  o.v0 = 1;
  o.vcount = 3;
  o.f0 = 2; /* not byte aligned */
  o.fcount = 4;
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, &d), SM_OK);
  ck_assert_uint_eq(d.nv, 5);
  ck_assert_uint_eq(v.nv, 3);
  ck_assert_uint_eq(v.nf, 4);
  assert_plink_part(&v, PL57, 7, 1, 2);
  sm_vectors_free(&v);
  o.f0 = 4; /* byte aligned, to the end */
  o.fcount = 0;
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_OK);
  ck_assert_uint_eq(v.nf, 3);
  assert_plink_part(&v, PL57, 7, 1, 4);
  sm_vectors_free(&v);
  o.f0 = 7;
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EOPTION);
  ck_assert(v.data == NULL && v.names == NULL);

  /* several words per row: 3 SNPs x 101 samples, pseudo-random codes */
  unsigned pl[3 * 101];
  uint32_t x = 12345;
  for (size_t k = 0; k < 3 * 101; k++) {
    x = x * 1103515245u + 12345u;
    pl[k] = (x >> 16) & 3u;
  }
  write_plink(prefix, "p101", 3, 101, pl, 0x01, 0);
  size_t sl[4][2] = {{0, 0}, {36, 50}, {37, 0}, {64, 33}};
  for (int s = 0; s < 4; s++) {
    o = ccc_opts();
    o.f0 = sl[s][0];
    o.fcount = sl[s][1];
    ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_OK);
    ck_assert_uint_eq(v.nf, o.fcount ? o.fcount : 101 - o.f0);
    assert_plink_part(&v, pl, 101, 0, o.f0);
    sm_vectors_free(&v);
  }
}
END_TEST

START_TEST(test_plink_bad)
{
  char prefix[4096], path[4096];
  sm_vectors_t v;
  sm_read_opts_t o = ccc_opts();
  write_plink(prefix, "magic", 5, 7, PL57, 0x01, 0);
  /* wrong magic: overwrite the .bed with a non-PLINK header */
  unsigned char junk[3 + 5 * 2] = {0x6c, 0x1c, 0x01};
  sm_test_write("magic.bed", junk, sizeof junk);
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EFORMAT);
  ck_assert(v.data == NULL && v.names == NULL);

  write_plink(prefix, "smaj", 5, 7, PL57, 0x00, 0);
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EFORMAT);

  write_plink(prefix, "short", 5, 7, PL57, 0x01, 1);
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EINCONSIST);

  write_plink(prefix, "bim5", 5, 7, PL57, 0x01, 0);
  write_text(path, "bim5.bim", "1 rs1 0 1000 A G\n1 rs2 0 2000 A\n");
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EFORMAT);

  write_plink(prefix, "nofam", 5, 7, PL57, 0x01, 0);
  snprintf(path, sizeof path, "%.4000s.fam", prefix);
  ck_assert_int_eq(remove(path), 0);
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EIO);

  write_plink(prefix, "nobim", 0, 7, PL57, 0x01, 0); /* empty .bim */
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EDEGEN);

  write_plink(prefix, "czek", 5, 7, PL57, 0x01, 0);
  o = czek_opts(8);
  ck_assert_int_eq(sm_read_plink(prefix, &o, &v, NULL), SM_EOPTION);
}
END_TEST

/* ------------------------------------------------------------------ TSV */

/* Read a text file written here with the given opts; asserts the code. */
static void tsv(const char *name, const char *text, const sm_read_opts_t *o,
                sm_err_t want, sm_vectors_t *v, sm_dims_t *d)
{
  char path[4096];
  write_text(path, name, text);
  sm_err_t err = sm_read_tsv(path, o, v, d);
  ck_assert_msg(err == want, "%s: got %s, want %s", name, sm_strerror(err),
                sm_strerror(want));
  if (err)
    ck_assert(v->data == NULL && v->names == NULL);
}

/* v holds the 2 x 3 values 1..6 named a, b (or unnamed). */
static void assert_2x3(const sm_vectors_t *v, int named)
{
  ck_assert_uint_eq(v->nv, 2);
  ck_assert_uint_eq(v->nf, 3);
  for (size_t i = 0; i < 2; i++)
    for (size_t f = 0; f < 3; f++)
      ck_assert(val(v, i, f) == (double)(i * 3 + f + 1));
  if (named) {
    ck_assert(v->names != NULL);
    ck_assert_str_eq(v->names[0], "a");
    ck_assert_str_eq(v->names[1], "b");
  } else {
    ck_assert(v->names == NULL);
  }
}

/* Spellings of the same 2 x 3 table: header or not, row names or not,
 * separators, quotes, comments, CRLF. */
static const struct {
  const char *name, *text;
  int named;
} good_tables[] = {
    {"hr.tsv", "id\tx\ty\tz\na\t1\t2\t3\nb\t4\t5\t6\n", 1},
    /* header without a cell above the row names (R's write.table) */
    {"hr2.tsv", "x\ty\tz\na\t1\t2\t3\nb\t4\t5\t6\n", 1},
    {"plain.tsv", "1\t2\t3\n4\t5\t6\n", 0},
    {"rownames.tsv", "a\t1\t2\t3\nb\t4\t5\t6\n", 1},
    {"header.csv", "x,y,z\n1,2,3\n 4 , 5,\"6\"\n", 0},
    {"comma.txt", "a,1,2,3\nb,4,5,6\n", 1},
    {"spaces.txt", "  1   2 3\n4 5     6   \n", 0},
    {"crlf.csv",
     "# made by hand\r\n# a comment\r\nid,x,y,z\r\na,1,2,3\r\nb,4,5e0,6\r\n\r\n\r\n", 1},
    /* QIIME: the header in the last comment line */
    {"qiime.tsv", "# from biom\n#OTU ID\tx\ty\tz\na\t1\t2\t3\nb\t4\t5\t6\n", 1},
};

START_TEST(test_tsv_good)
{
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  /* the QIIME table's rows are its vectors when its observations are
   * compared (test_biom_text); the others ignore it */
  o.compare = SM_COMPARE_OBSERVATIONS;
  for (size_t t = 0; t < sizeof good_tables / sizeof good_tables[0]; t++) {
    tsv(good_tables[t].name, good_tables[t].text, &o, SM_OK, &v, &d);
    assert_2x3(&v, good_tables[t].named);
    ck_assert_uint_eq(d.nv, 2);
    ck_assert_uint_eq(d.nf, 3);
    ck_assert_int_eq(
        d.compare, strstr(good_tables[t].text, "#OTU ID") ? SM_COMPARE_OBSERVATIONS : 0);
    sm_vectors_free(&v);
  }
  o.compare = 0;
  o.elem_size = 4;
  tsv("single.tsv", "a 1 2 3\nb 4 5 6\n", &o, SM_OK, &v, NULL);
  ck_assert_uint_eq(v.elem_size, 4);
  assert_2x3(&v, 1);
  sm_vectors_free(&v);
  o.elem_size = 8;
  tsv("real.tsv", "0.25\t1e-3\n", &o, SM_OK, &v, NULL);
  ck_assert(val(&v, 0, 0) == 0.25 && val(&v, 0, 1) == 1e-3);
  sm_vectors_free(&v);
}
END_TEST

START_TEST(test_tsv_transpose)
{
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  o.transpose = 1;
  const char *text = "gene\ts1\ts2\ts3\ng1\t1\t2\t3\ng2\t4\t5\t6\n";
  tsv("tr.tsv", text, &o, SM_OK, &v, &d);
  ck_assert_uint_eq(d.nv, 3);
  ck_assert_uint_eq(d.nf, 2);
  ck_assert_uint_eq(v.nv, 3);
  ck_assert_uint_eq(v.nf, 2);
  for (size_t i = 0; i < 3; i++) {
    char name[8];
    snprintf(name, sizeof name, "s%zu", i + 1);
    ck_assert_str_eq(v.names[i], name);
    ck_assert(val(&v, i, 0) == (double)(i + 1));
    ck_assert(val(&v, i, 1) == (double)(i + 4));
  }
  sm_vectors_free(&v);
  o.v0 = 1;
  o.vcount = 2;
  o.f0 = 1;
  tsv("tr2.tsv", text, &o, SM_OK, &v, &d);
  ck_assert_uint_eq(d.nv, 3);
  ck_assert_uint_eq(v.nv, 2);
  ck_assert_uint_eq(v.nf, 1);
  ck_assert_str_eq(v.names[0], "s2");
  ck_assert_str_eq(v.names[1], "s3");
  ck_assert(val(&v, 0, 0) == 5 && val(&v, 1, 0) == 6);
  sm_vectors_free(&v);
  /* no header: no names */
  o = czek_opts(8);
  o.transpose = 1;
  tsv("tr3.tsv", "1 4\n2 5\n3 6\n", &o, SM_OK, &v, NULL);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
}
END_TEST

START_TEST(test_tsv_slice)
{
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  const char *text =
      "r0 0 1 2 3 4\nr1 10 11 12 13 14\nr2 20 21 22 23 24\nr3 30 31 32 33 34\n";
  o.v0 = 1;
  o.vcount = 2;
  o.f0 = 2;
  o.fcount = 2;
  tsv("slice.txt", text, &o, SM_OK, &v, &d);
  ck_assert_uint_eq(d.nv, 4);
  ck_assert_uint_eq(d.nf, 5);
  ck_assert_uint_eq(v.nv, 2);
  ck_assert_uint_eq(v.nf, 2);
  ck_assert_str_eq(v.names[0], "r1");
  ck_assert_str_eq(v.names[1], "r2");
  for (size_t i = 0; i < 2; i++)
    for (size_t f = 0; f < 2; f++)
      ck_assert(val(&v, i, f) == (double)(10 * (i + 1) + f + 2));
  sm_vectors_free(&v);
  o.vcount = 4;
  tsv("slice2.txt", text, &o, SM_EOPTION, &v, NULL);
  o.vcount = 0;
  o.f0 = 5;
  tsv("slice3.txt", text, &o, SM_EOPTION, &v, NULL);
}
END_TEST

START_TEST(test_tsv_long_line)
{
  /* one vector of 400000 fields: a 2.4 MB line */
  size_t nf = 400000;
  char *text = malloc(nf * 6 + 2), *t = text;
  ck_assert(text != NULL);
  for (size_t f = 0; f < nf; f++)
    t += sprintf(t, "%s%zu", f ? "\t" : "", f % 10000);
  strcpy(t, "\n");
  sm_vectors_t v;
  sm_read_opts_t o = czek_opts(8);
  tsv("long.tsv", text, &o, SM_OK, &v, NULL);
  free(text);
  ck_assert_uint_eq(v.nv, 1);
  ck_assert_uint_eq(v.nf, nf);
  for (size_t f = 0; f < nf; f += 997)
    ck_assert(val(&v, 0, f) == (double)(f % 10000));
  ck_assert(val(&v, 0, nf - 1) == (double)((nf - 1) % 10000));
  sm_vectors_free(&v);
}
END_TEST

START_TEST(test_tsv_bad)
{
  sm_vectors_t v;
  sm_read_opts_t o = czek_opts(8);
  tsv("ragged.tsv", "1\t2\t3\n4\t5\n", &o, SM_EFORMAT, &v, NULL);
  tsv("ragged2.tsv", "id\tx\ty\na\t1\t2\nb\t3\t4\t5\n", &o, SM_EFORMAT, &v, NULL);
  tsv("badhead.tsv", "id\tx\ty\tz\tw\na\t1\t2\nb\t3\t4\n", &o, SM_EFORMAT, &v, NULL);
  tsv("text.tsv", "1\t2\t3\n4\txyz\t6\n", &o, SM_EFORMAT, &v, NULL);
  tsv("empty_cell.csv", "1,2,3\n4,,6\n", &o, SM_EFORMAT, &v, NULL);
  /* what auto mode cannot decide, and '#' lines after the data began */
  tsv("na_first.tsv", "a\t1\tNA\nb\t3\t4\n", &o, SM_EFORMAT, &v, NULL);
  tsv("x007.tsv", "x\t007\t008\na\t1\t2\n", &o, SM_EFORMAT, &v, NULL);
  tsv("late_id.tsv", "2\t1\t2\n007\t3\t4\n", &o, SM_EFORMAT, &v, NULL);
  tsv("late_name.tsv", "2\t1\t2\nb\t3\t4\n", &o, SM_EFORMAT, &v, NULL);
  tsv("hash_row.tsv", "id\tx\ty\na\t1\t2\n#b\t3\t4\n", &o, SM_EFORMAT, &v, NULL);
  tsv("hash_mid.tsv", "id\tx\ty\n# note\na\t1\t2\n", &o, SM_EFORMAT, &v, NULL);
  tsv("negative.tsv", "a\t1\t2\nb\t-3\t4\n", &o, SM_EVALUE, &v, NULL);
  tsv("nan.tsv", "1 2\n3 nan\n", &o, SM_EVALUE, &v, NULL);
  tsv("inf.tsv", "1 2\n3 inf\n", &o, SM_EVALUE, &v, NULL);
  tsv("huge.tsv", "1 2\n3 1e999\n", &o, SM_EVALUE, &v, NULL);
  o.elem_size = 4; /* fine in double, not in single */
  tsv("huge4.tsv", "1 2\n3 1e300\n", &o, SM_EVALUE, &v, NULL);
  o.elem_size = 8;
  tsv("empty.tsv", "", &o, SM_EDEGEN, &v, NULL);
  tsv("blank.tsv", "\n\n  \n", &o, SM_EDEGEN, &v, NULL);
  tsv("header_only.tsv", "id\tx\ty\n", &o, SM_EDEGEN, &v, NULL);
  tsv("comments.tsv", "# nothing here\n", &o, SM_EDEGEN, &v, NULL);
  tsv("names_only.tsv", "id\na\nb\n", &o, SM_EDEGEN, &v, NULL);
  ck_assert_int_eq(sm_read_tsv("/nonexistent/x.tsv", &o, &v, NULL), SM_EIO);
  o.metric = SM_METRIC_CCC;
  tsv("ccc.tsv", "1 2\n3 4\n", &o, SM_EOPTION, &v, NULL);
}
END_TEST

/* ------------------------------------------------------------------ NPY */

START_TEST(test_npy_good)
{
  char path[4096];
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  float f4[2][3] = {{1, 2, 3}, {4, 5, 6}};
  double f8[2][3] = {{1, 2, 3}, {4, 5, 6}};
  int64_t i8[2][3] = {{1, 2, 3}, {4, 5, 6}};
  uint16_t u2[2][3] = {{1, 2, 3}, {4, 5, 6}};
  int8_t i1[2][3] = {{1, 2, 3}, {4, 5, 6}};

  write_npy(path, "f4.npy", 1, "<f4", "False", "(2, 3)", f4, sizeof f4);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, &d), SM_OK);
  ck_assert_uint_eq(d.nv, 2);
  ck_assert_uint_eq(d.nf, 3);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  write_npy(path, "f8.npy", 2, "<f8", "False", "(2, 3)", f8, sizeof f8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  write_npy(path, "i8.npy", 3, "<i8", "False", "(2,3)", i8, sizeof i8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  write_npy(path, "u2.npy", 1, "=u2", "False", "(2, 3)", u2, sizeof u2);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  /* JSON-style headers of other writers: double quotes, false, a list */
  write_npy_dict(path, "json.npy", 1,
                 "{\"descr\": \"<f8\", \"fortran_order\": false, \"shape\": [2, 3]}", f8,
                 sizeof f8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  o.elem_size = 4;
  write_npy(path, "i1.npy", 1, "|i1", "False", "(2, 3)", i1, sizeof i1);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_OK);
  ck_assert_uint_eq(v.elem_size, 4);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
}
END_TEST

START_TEST(test_npy_refused)
{
  char path[4096];
  sm_vectors_t v;
  sm_read_opts_t o = czek_opts(8);
  double f8[24] = {0};
  write_npy(path, "fortran.npy", 1, "<f8", "True", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  ck_assert(v.data == NULL);
  write_npy(path, "fortran_json.npy", 1, "<f8", "true", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "fortran_0.npy", 1, "<f8", "0", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "fortran_falsy.npy", 1, "<f8", "Falsey", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "big.npy", 1, ">f8", "False", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "c16.npy", 1, "<c16", "False", "(1, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "bool.npy", 1, "|b1", "False", "(2, 3)", f8, 6);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "str.npy", 1, "<U4", "False", "(2, 3)", f8, 96);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "d3.npy", 1, "<f8", "False", "(2, 3, 4)", f8, 192);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "d1.npy", 1, "<f8", "False", "(6,)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "trunc.npy", 1, "<f8", "False", "(2, 3)", f8, 47);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "long.npy", 1, "<f8", "False", "(2, 3)", f8, 56);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "ver.npy", 4, "<f8", "False", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_text(path, "magic.npy", "NUMPY and more text here");
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
  write_npy(path, "empty.npy", 1, "<f8", "False", "(0, 3)", f8, 0);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EDEGEN);
  f8[4] = -1;
  write_npy(path, "neg.npy", 1, "<f8", "False", "(2, 3)", f8, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EVALUE);
  ck_assert(v.data == NULL);
  o.v0 = 2; /* slice past the end */
  write_npy(path, "ok.npy", 1, "<f8", "False", "(2, 3)", f8 + 6, 48);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EOPTION);
}
END_TEST

START_TEST(test_npy_ccc)
{
  char path[4096];
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = ccc_opts();
  enum { NV = 3, NF = 37 };
  uint8_t u1[NV][NF];
  int64_t i8[NV][NF];
  size_t miss = 0;
  for (size_t i = 0; i < NV; i++)
    for (size_t f = 0; f < NF; f++) {
      u1[i][f] = (uint8_t)((i * 7 + f * 3 + f / 5) % 4);
      i8[i][f] = u1[i][f];
      miss += u1[i][f] == SM_GT_MISSING;
    }
  write_npy(path, "ccc_u1.npy", 1, "|u1", "False", "(3, 37)", u1, sizeof u1);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, &d), SM_OK);
  ck_assert_uint_eq(d.nv, NV);
  ck_assert_uint_eq(d.nf, NF);
  for (size_t i = 0; i < NV; i++)
    for (size_t f = 0; f < NF; f++)
      ck_assert_uint_eq(code(&v, i, f), u1[i][f]);
  ck_assert_uint_eq(v.nmissing, miss);
  ck_assert(pad_is_zero(&v));
  sm_vectors_free(&v);

  o.v0 = 1;
  o.f0 = 3;
  o.fcount = 30;
  write_npy(path, "ccc_i8.npy", 1, "<i8", "False", "(3, 37)", i8, sizeof i8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_OK);
  ck_assert_uint_eq(v.nv, 2);
  ck_assert_uint_eq(v.nf, 30);
  for (size_t i = 0; i < 2; i++)
    for (size_t f = 0; f < 30; f++)
      ck_assert_uint_eq(code(&v, i, f), u1[1 + i][3 + f]);
  ck_assert(pad_is_zero(&v));
  sm_vectors_free(&v);

  o = ccc_opts();
  i8[2][5] = 4;
  write_npy(path, "ccc_bad.npy", 1, "<i8", "False", "(3, 37)", i8, sizeof i8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EVALUE);
  i8[2][5] = -1;
  write_npy(path, "ccc_neg.npy", 1, "<i8", "False", "(3, 37)", i8, sizeof i8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EVALUE);
  double f8[2] = {0, 1};
  write_npy(path, "ccc_f8.npy", 1, "<f8", "False", "(1, 2)", f8, sizeof f8);
  ck_assert_int_eq(sm_read_npy(path, &o, &v, NULL), SM_EFORMAT);
}
END_TEST

/* ------------------------------------------------------------- dispatch */

/* Hardy-Weinberg's exact p of het, hom1, hom2 by enumeration: every
 * configuration with the same allele counts, its probability from the
 * multinomial (Levene's), those no more probable than the observed one
 * summed (relative 1e-9 for ties); mid-p halves the observed one's and
 * its ties'. */
static double hwe_brute(int het, int hom1, int hom2, int midp)
{
  const int n = het + hom1 + hom2, rare = 2 * (hom1 < hom2 ? hom1 : hom2) + het;
  if (!n)
    return midp ? 0.5 : 1;
  long double lp[4096], obs = 0, sum = 0, tail = 0;
  for (int h = rare % 2; h <= rare; h += 2) {
    const int r = (rare - h) / 2, c = n - h - r;
    lp[h] = lgammal(n + 1) - lgammal(h + 1) - lgammal(r + 1) - lgammal(c + 1) +
            h * logl(2) -
            (lgammal(2 * n + 1) - lgammal(rare + 1) - lgammal(2 * n - rare + 1));
    if (h == het)
      obs = lp[h];
  }
  for (int h = rare % 2; h <= rare; h += 2) {
    const long double p = expl(lp[h]);
    sum += p;
    if (lp[h] <= obs + 1e-9L)
      tail += midp && lp[h] >= obs - 1e-9L ? p / 2 : p; /* ties: half each */
  }
  return (double)(tail / sum);
}

START_TEST(test_hwe_exact)
{
  /* 8 heterozygotes alone: p 0.0253302253... (plink1.9 --hardy) */
  const double eps = 0x1p-44;
  ck_assert(sm_hwe_fails(8, 0, 0, 0.0254 * (1 - eps), 0));
  ck_assert(!sm_hwe_fails(8, 0, 0, 0.0253 * (1 - eps), 0));
  ck_assert(!sm_hwe_fails(0, 0, 0, 0.4, 0) && !sm_hwe_fails(0, 0, 0, 0.4, 1));
  ck_assert(!sm_hwe_fails(0, 17, 0, 0.4, 0)); /* monomorphic */
  /* 3 heterozygotes, 4 and 5 homozygotes: p 0.1031 (plink1.9 --hardy),
   * and yet plink1.9 --hwe 0.1 drops the variant (its far tail ends
   * undecided): so does starmet, for PLINK's table */
  ck_assert_double_eq_tol(hwe_brute(3, 4, 5, 0), 0.1031, 5e-5);
  ck_assert(sm_hwe_fails(3, 4, 5, 0.1 * (1 - eps), 0));
  /* elsewhere the decision is p < thresh: never a variant kept below it,
   * and dropped above it only where that walk ends (rarely) */
  uint64_t x = 88172645463325252u;
  const double th[] = {0.2, 0.1, 0.05, 0.01, 1e-4};
  int above = 0, total = 0;
  for (int t = 0; t < 3000; t++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int n = 1 + (int)(x % 300);
    const int het = (int)((x >> 20) % (unsigned)(n + 1)),
              h1 = (int)((x >> 40) % (unsigned)(n - het + 1));
    const int h2 = n - het - h1;
    const double thr = th[(x >> 52) % 5] * (1 - eps);
    for (int midp = 0; midp < 2; midp++) {
      const double p = hwe_brute(het, h1, h2, midp);
      const int fails = sm_hwe_fails(het, h1, h2, thr, midp);
      ck_assert_msg(fails || p >= thr * (1 - 1e-9),
                    "hwe(%d, %d, %d, midp %d) p %.17g kept at %g", het, h1, h2, midp, p,
                    thr);
      above += fails && p >= thr * (1 + 1e-9);
      total++;
    }
  }
  ck_assert_msg(above * 50 < total, "%d of %d dropped above the threshold", above, total);
}
END_TEST

START_TEST(test_dispatch)
{
  sm_input_format_t fmt;
  const char *names[] = {"auto", "tsv", "csv", "npy", "plink", "raw", "TSV"};
  const sm_input_format_t want[] = {SM_INPUT_AUTO, SM_INPUT_TSV,   SM_INPUT_TSV,
                                    SM_INPUT_NPY,  SM_INPUT_PLINK, SM_INPUT_RAW,
                                    SM_INPUT_TSV};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    ck_assert_int_eq(sm_input_format_parse(names[k], &fmt), SM_OK);
    ck_assert_int_eq(fmt, want[k]);
  }
  ck_assert_int_eq(sm_input_format_parse("vcf2", &fmt), SM_EOPTION);
  ck_assert_int_eq(sm_input_format_parse(NULL, &fmt), SM_EOPTION);

  char path[4096];
  sm_vectors_t v;
  sm_read_opts_t o = czek_opts(8);
  o.num_field = 3;
  const char *text[] = {"d.tsv", "d.txt", "d.CSV"};
  for (int k = 0; k < 3; k++) {
    write_text(path, text[k], "a,1,2,3\nb,4,5,6\n");
    ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
    assert_2x3(&v, 1);
    sm_vectors_free(&v);
  }
  double f8[2][3] = {{1, 2, 3}, {4, 5, 6}};
  write_npy(path, "d.npy", 1, "<f8", "False", "(2, 3)", f8, sizeof f8);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  /* anything else is raw */
  snprintf(path, sizeof path, "%s", sm_test_write("d.bin", f8, sizeof f8));
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  /* an explicit format wins over the extension */
  write_text(path, "d.dat", "1 2 3\n4 5 6\n");
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_TSV, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_RAW, &o, &v, NULL), SM_EINCONSIST);

  /* PLINK: by ".bed" or by a prefix whose .bed exists */
  char prefix[4096];
  o = ccc_opts();
  write_plink(prefix, "disp", 5, 7, PL57, 0x01, 0);
  ck_assert_int_eq(sm_read_input(prefix, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_plink_part(&v, PL57, 7, 0, 0);
  sm_vectors_free(&v);
  snprintf(path, sizeof path, "%.4000s.bed", prefix);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_plink_part(&v, PL57, 7, 0, 0);
  sm_vectors_free(&v);
}
END_TEST

/* Names and headers as real files have them (docs/inputs.md): the
 * id-label rule, numbers written as names, R's header one cell short. */
START_TEST(test_tsv_names)
{
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  o.transpose = 1;
  /* QIIME tables with numeric sample ids, with and without '#' */
  const char *qiime[] = {
      "OTU ID\t10317.000001\t007\nO1\t1\t4\nO2\t2\t5\nO3\t3\t6\n",
      "# from biom\n#OTU ID\t10317.000001\t007\nO1\t1\t4\nO2\t2\t5\nO3\t3\t6\n",
      "\xEF\xBB\xBF#SampleID\t10317.000001\t007\r\n4479944\t1\t4\r\n1110190\t2\t5\r\n"
      "7\t3\t6\r\n",
      "\"\",\"10317.000001\",\"007\"\n\"O1\",1,4\n\"O2\",2,5\n\"O3\",3,6\n",
      "feature-id 10317.000001 007\nO1 1 4\nO2 2 5\nO3 3 6\n",
  };
  for (size_t k = 0; k < sizeof qiime / sizeof qiime[0]; k++) {
    char name[32];
    snprintf(name, sizeof name, "qiime%zu.txt", k);
    tsv(name, qiime[k], &o, SM_OK, &v, &d);
    ck_assert_msg(v.nv == 2 && v.nf == 3 && val(&v, 0, 0) == 1 && val(&v, 1, 2) == 6,
                  "%s: %zu x %zu", name, v.nv, v.nf);
    ck_assert(v.names != NULL);
    ck_assert_str_eq(v.names[0], "10317.000001");
    ck_assert_str_eq(v.names[1], "007");
    ck_assert_int_eq(d.header, SM_TEXT_YES);
    ck_assert_int_eq(d.row_names, SM_TEXT_YES);
    sm_vectors_free(&v);
  }
  o.transpose = 0;
  /* row names the number parser reads: plate wells, leading zeros, words,
   * R's quoted names */
  const char *rows[] = {
      "1E03\t1\t2\t3\n1E01\t4\t5\t6\n",
      "007\t1\t2\t3\n07\t4\t5\t6\n",
      "nan 1 2 3\nInf 4 5 6\n",
      "\"12\",1,2,3\n\"13\",4,5,6\n",
      "\"\"\tx\ty\tz\n12\t1\t2\t3\n13\t4\t5\t6\n",
  };
  const char *first[][2] = {
      {"1E03", "1E01"}, {"007", "07"}, {"nan", "Inf"}, {"12", "13"}, {"12", "13"}};
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    char name[32];
    snprintf(name, sizeof name, "rows%zu.txt", k);
    tsv(name, rows[k], &o, SM_OK, &v, &d);
    ck_assert_uint_eq(v.nv, 2);
    ck_assert(v.names != NULL);
    ck_assert_str_eq(v.names[0], first[k][0]);
    ck_assert_str_eq(v.names[1], first[k][1]);
    ck_assert(val(&v, 1, 2) == 6);
    sm_vectors_free(&v);
  }
  /* ... and --row-names no reads them as the numbers they parse to */
  o.row_names = SM_TEXT_NO;
  tsv("wells_no.tsv", rows[0], &o, SM_OK, &v, NULL);
  ck_assert(v.names == NULL && val(&v, 0, 0) == 1000 && v.nf == 4);
  sm_vectors_free(&v);
  o.row_names = SM_TEXT_AUTO;
  /* R's write.table: numeric column names, one cell short (quoted, with
   * blanks between cells; or tabs) */
  tsv("rwt.txt", "\"1001\" \"1002\" \"1003\"\n\"a\" 1 2 3\n\"b\" 4 5 6\n", &o, SM_OK, &v,
      &d);
  assert_2x3(&v, 1);
  ck_assert_int_eq(d.header, SM_TEXT_YES);
  sm_vectors_free(&v);
  tsv("rwt.tsv", "1001\t1002\t1003\na\t1\t2\t3\nb\t4\t5\t6\n", &o, SM_OK, &v, NULL);
  assert_2x3(&v, 1);
  sm_vectors_free(&v);
  /* a first line of numbers that is data: held, then read */
  tsv("one.tsv", "1\t2\t3\n", &o, SM_OK, &v, &d);
  ck_assert(v.nv == 1 && v.nf == 3 && val(&v, 0, 2) == 3);
  ck_assert_int_eq(d.header, SM_TEXT_NO);
  sm_vectors_free(&v);
  o.v0 = 1; /* a slice: the held line is row 0 */
  tsv("held.tsv", "1\t2\t3\n4\t5\t6\n7\t8\t9\n", &o, SM_OK, &v, &d);
  ck_assert(d.nv == 3 && v.nv == 2 && val(&v, 0, 0) == 4);
  sm_vectors_free(&v);
  o.v0 = 0;
  /* quoted names holding blanks, space-separated */
  tsv("blanks.txt", "\"my a\" 1 2 3\n\"my b\" 4 5 6\n", &o, SM_OK, &v, NULL);
  ck_assert_str_eq(v.names[0], "my a");
  sm_vectors_free(&v);
  /* a run of NULs is no UTF-16: refused either way, at line 1 */
  const char *zeros = sm_test_write("zeros.tsv", "\0\0\0\0\0\0\0\0\n1\n", 10);
  ck_assert_int_eq(sm_read_tsv(zeros, &o, &v, NULL), SM_EFORMAT);
}
END_TEST

/* A pipe holding text (written whole, then closed): its read end's path. */
static void pipe_of(const char *text, int fds[2], char *path, size_t len)
{
  ck_assert_int_eq(pipe(fds), 0);
  ck_assert_uint_lt(strlen(text), 65536); /* fits the pipe's buffer */
  ck_assert_int_eq(write(fds[1], text, strlen(text)), (ssize_t)strlen(text));
  close(fds[1]);
  snprintf(path, len, "/proc/self/fd/%d", fds[0]);
}

START_TEST(test_stream)
{
  char path[4096], file[4096];
  int fds[2];
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  write_text(file, "plain.tsv", "x\ty\tz\n");
  ck_assert_int_eq(sm_input_is_stream(file), 0);
  ck_assert_int_eq(sm_input_is_stream(sm_test_tmpdir()), 0);
  ck_assert_int_eq(sm_input_is_stream("/nonexistent/x"), 0);
  ck_assert_int_eq(sm_input_is_stream("/dev/null"), 1);

  /* a pipe read twice, as compute does (the sizes, then the slice): the
   * second read sees what the first did */
  pipe_of("a,1,2,3\nb,4,5,6\n", fds, path, sizeof path);
  ck_assert_int_eq(sm_input_is_stream(path), 1);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_TSV, &o, &v, &d), SM_OK);
  sm_vectors_free(&v);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_TSV, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 1);
  sm_vectors_free(&v);
  close(fds[0]);
  /* no format given, no extension: text by its first bytes */
  pipe_of("a 1 2 3\nb 4 5 6\n", fds, path, sizeof path);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 1);
  sm_vectors_free(&v);
  close(fds[0]);

  /* a FIFO with a writer in another process */
  snprintf(path, sizeof path, "%.4000s/fifo.tsv", sm_test_tmpdir());
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int w = open(path, O_WRONLY);
    const char *t = "id\tx\ty\tz\na\t1\t2\t3\nb\t4\t5\t6\n";
    _exit(w >= 0 && write(w, t, strlen(t)) == (ssize_t)strlen(t) ? 0 : 1);
  }
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, &d), SM_OK);
  sm_vectors_free(&v);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 1);
  sm_vectors_free(&v);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

  /* /dev/zero: text and npy refuse it at once; raw reads --num-vector of it */
  ck_assert_int_eq(sm_read_input("/dev/zero", SM_INPUT_TSV, &o, &v, NULL), SM_EFORMAT);
  ck_assert_int_eq(sm_read_input("/dev/zero", SM_INPUT_NPY, &o, &v, NULL), SM_EFORMAT);
  o.num_field = 3;
  o.num_vector = 2;
  ck_assert_int_eq(sm_read_input("/dev/zero", SM_INPUT_RAW, &o, &v, &d), SM_OK);
  ck_assert(d.nv == 2 && d.nf == 3 && val(&v, 1, 2) == 0);
  sm_vectors_free(&v);
  o = czek_opts(8);
  /* a stream cannot be a PLINK prefix */
  sm_read_opts_t oc = ccc_opts();
  pipe_of("x", fds, path, sizeof path);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_PLINK, &oc, &v, NULL), SM_EOPTION);
  close(fds[0]);

  /* an npy on a pipe, found by its magic */
  double f8[2][3] = {{1, 2, 3}, {4, 5, 6}};
  write_npy(file, "p.npy", 1, "<f8", "False", "(2, 3)", f8, sizeof f8);
  size_t n;
  unsigned char *bytes = slurp(file, &n);
  ck_assert_int_eq(pipe(fds), 0);
  ck_assert_int_eq(write(fds[1], bytes, n), (ssize_t)n);
  close(fds[1]);
  free(bytes);
  snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  assert_2x3(&v, 0);
  sm_vectors_free(&v);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_OK);
  sm_vectors_free(&v);
  close(fds[0]);

  /* larger than the memory the process may take: refused */
  char big[8192];
  memset(big, '1', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  for (size_t k = 1; k + 1 < sizeof big; k += 2)
    big[k] = k % 64 == 63 ? '\n' : ' ';
  sm_stream_set_room(4096, "the test's limit");
  pipe_of(big, fds, path, sizeof path);
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_TSV, &o, &v, NULL), SM_ENOMEM);
  sm_stream_set_room(0, NULL);
  close(fds[0]);
}
END_TEST

/* ------------------------------------------------------------------ BIOM */

/* A BIOM table as `biom convert --to-tsv --header-key taxonomy` writes it:
 * its samples (columns) are the vectors unless its observations are
 * compared, its taxonomy column is skipped, slices are kept. */
START_TEST(test_biom_text)
{
  sm_vectors_t v;
  sm_dims_t d;
  sm_read_opts_t o = czek_opts(8);
  const char *text = "# Constructed from biom file\n"
                     "#OTU ID\t1001\t10317.000001\t007\ttaxonomy\n"
                     "O1\t1.0\t4.0\t7.0\tk__Bacteria; p__Firmicutes\n"
                     "O2\t2.0\t5.0\t8.0\tk__Archaea\n";
  const char *samples[] = {"1001", "10317.000001", "007"}, *obs[] = {"O1", "O2"};
  tsv("biom.tsv", text, &o, SM_OK, &v, &d);
  ck_assert_int_eq(d.compare, SM_COMPARE_SAMPLES);
  ck_assert(d.nv == 3 && d.nf == 2 && v.nv == 3 && v.nf == 2);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_str_eq(v.names[i], samples[i]);
    for (size_t f = 0; f < 2; f++)
      ck_assert(val(&v, i, f) == (double)(1 + 3 * i + f));
  }
  sm_vectors_free(&v);
  o.compare = SM_COMPARE_OBSERVATIONS;
  tsv("biom_obs.tsv", text, &o, SM_OK, &v, &d);
  ck_assert_int_eq(d.compare, SM_COMPARE_OBSERVATIONS);
  ck_assert(d.nv == 2 && d.nf == 3 && v.nv == 2 && v.nf == 3);
  for (size_t i = 0; i < 2; i++) {
    ck_assert_str_eq(v.names[i], obs[i]);
    for (size_t f = 0; f < 3; f++)
      ck_assert(val(&v, i, f) == (double)(1 + i + 3 * f));
  }
  sm_vectors_free(&v);
  /* a slice of the samples */
  o.compare = 0;
  o.v0 = 1;
  o.vcount = 2;
  o.f0 = 1;
  o.fcount = 1;
  tsv("biom_slice.tsv", text, &o, SM_OK, &v, &d);
  ck_assert(d.nv == 3 && d.nf == 2 && v.nv == 2 && v.nf == 1);
  ck_assert_str_eq(v.names[0], "10317.000001");
  ck_assert_str_eq(v.names[1], "007");
  ck_assert(val(&v, 0, 0) == 5 && val(&v, 1, 0) == 8);
  sm_vectors_free(&v);
  /* 'OTU ID' without '#', no comment line: the same layout */
  o = czek_opts(8);
  tsv("biom_nohash.tsv", "OTU ID\tS1\tS2\nO1\t1\t2\nO2\t3\t4\nO3\t5\t6\n", &o, SM_OK, &v,
      &d);
  ck_assert(d.compare == SM_COMPARE_SAMPLES && v.nv == 2 && v.nf == 3);
  ck_assert(val(&v, 1, 2) == 6);
  sm_vectors_free(&v);
  /* a plain table: rows are vectors, whatever compare says */
  o.compare = SM_COMPARE_SAMPLES;
  tsv("biom_plain.tsv", "a\t1\t2\nb\t3\t4\nc\t5\t6\n", &o, SM_OK, &v, &d);
  ck_assert(d.compare == 0 && v.nv == 3 && v.nf == 2);
  sm_vectors_free(&v);
  /* a row without its taxonomy cell */
  tsv("biom_ragged.tsv",
      "# Constructed from biom file\n#OTU "
      "ID\tS1\tS2\ttaxonomy\nO1\t1\t2\tk__A\nO2\t3\t4\n",
      &o, SM_EFORMAT, &v, NULL);
}
END_TEST

#ifdef SM_HAVE_HDF5
#include <hdf5.h>

enum { BIOM_NOBS = 7, BIOM_NSAMP = 11 };

/* Entry (observation i, sample j) of the test table: zeros in a pattern,
 * values exact in float. */
static double biom_entry(size_t i, size_t j)
{
  return (i * 5 + j * 3) % 4 == 0 ? 0 : (double)(i + 1) * 10 + (double)j + 0.25;
}

/* A 1-D dataset name of n items of type in group g. */
static void h5_put(hid_t g, const char *name, hid_t type, size_t n, const void *data)
{
  hsize_t dim = n;
  hid_t sp = H5Screate_simple(1, &dim, NULL);
  hid_t ds = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(sp >= 0 && ds >= 0);
  ck_assert(n == 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  H5Dclose(ds);
  H5Sclose(sp);
}

/* Root attribute name: n 64-bit integers. */
static void h5_attr(hid_t f, const char *name, size_t n, const int64_t *v)
{
  hsize_t dim = n;
  hid_t sp = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
  hid_t a = H5Acreate2(f, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, v) >= 0);
  H5Aclose(a);
  H5Sclose(sp);
}

/* One axis of the table: ids (variable length strings, as biom-format
 * writes them; fixed length with fixed), and the matrix along it
 * (observation: rows, sample: columns; a column's indices falling). */
static void biom_axis(hid_t f, int sample, int fixed)
{
  const size_t n = sample ? BIOM_NSAMP : BIOM_NOBS, m = sample ? BIOM_NOBS : BIOM_NSAMP;
  hid_t g = H5Gcreate2(f, sample ? "sample" : "observation", H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
  hid_t mg = H5Gcreate2(g, "matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  char names[BIOM_NSAMP][8], fixed_ids[BIOM_NSAMP * 8] = {0};
  const char *ids[BIOM_NSAMP];
  for (size_t k = 0; k < n; k++) {
    snprintf(names[k], sizeof names[k], "%s%zu", sample ? "S" : "O", k);
    ids[k] = names[k];
    memcpy(fixed_ids + 8 * k, names[k], strlen(names[k]));
  }
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, fixed ? 8 : H5T_VARIABLE);
  h5_put(g, "ids", st, n, fixed ? (const void *)fixed_ids : (const void *)ids);
  H5Tclose(st);
  int32_t ptr[BIOM_NSAMP + 1], idx[BIOM_NOBS * BIOM_NSAMP];
  double data[BIOM_NOBS * BIOM_NSAMP];
  size_t nnz = 0;
  for (size_t k = 0; k < n; k++) {
    ptr[k] = (int32_t)nnz;
    for (size_t q = 0; q < m; q++) {
      const size_t r = sample ? m - 1 - q : q; /* unsorted indices */
      const double x = sample ? biom_entry(r, k) : biom_entry(k, r);
      if (x != 0) {
        idx[nnz] = (int32_t)r;
        data[nnz++] = x;
      }
    }
  }
  ptr[n] = (int32_t)nnz;
  h5_put(mg, "indptr", H5T_STD_I32LE, n + 1, ptr);
  h5_put(mg, "indices", H5T_STD_I32LE, nnz, idx);
  h5_put(mg, "data", H5T_IEEE_F64LE, nnz, data);
  H5Gclose(mg);
  H5Gclose(g);
  if (sample) {
    const int64_t shape[2] = {BIOM_NOBS, BIOM_NSAMP}, ver[2] = {2, 1}, nz = (int64_t)nnz;
    h5_attr(f, "shape", 2, shape);
    h5_attr(f, "format-version", 2, ver);
    h5_attr(f, "nnz", 1, &nz);
  }
}

/* The test table as BIOM 2.1 at path (the test directory's name). */
static void write_biom(char *path, const char *name, int fixed)
{
  snprintf(path, 4096, "%s", sm_test_write(name, "", 0));
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(f >= 0);
  biom_axis(f, 0, fixed);
  biom_axis(f, 1, fixed);
  H5Fclose(f);
}

/* Every slice (odd starts and counts, to the end, single vectors and
 * fields) of both axes, in both precisions, read from the file by the
 * dispatcher: the values, the ids, the sizes. */
START_TEST(test_biom_hdf5)
{
  char path[4096];
  for (int fixed = 0; fixed < 2; fixed++) {
    write_biom(path, fixed ? "fixed.biom" : "table.biom", fixed);
    for (int by_obs = 0; by_obs < 2; by_obs++) {
      const size_t nv = by_obs ? BIOM_NOBS : BIOM_NSAMP,
                   nf = by_obs ? BIOM_NSAMP : BIOM_NOBS;
      const size_t f0s[] = {0, 1, 4, nf - 1}, counts[] = {0, 1, 3};
      for (size_t es = 4; es <= 8; es += 4)
        for (size_t v0 = 0; v0 < nv; v0++)
          for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 4; b++)
              for (size_t c = 0; c < 3; c++) {
                sm_read_opts_t o = czek_opts(es);
                o.compare = by_obs ? SM_COMPARE_OBSERVATIONS : 0;
                o.v0 = v0;
                o.vcount = counts[a];
                o.f0 = f0s[b];
                o.fcount = counts[c];
                const int fits = v0 + o.vcount <= nv && o.f0 + o.fcount <= nf;
                sm_vectors_t v;
                sm_dims_t d;
                sm_err_t err = sm_read_input(path, SM_INPUT_AUTO, &o, &v, &d);
                ck_assert_msg(err == (fits ? SM_OK : SM_EOPTION),
                              "%s v0 %zu+%zu f0 %zu+%zu: %s", path, v0, o.vcount, o.f0,
                              o.fcount, sm_strerror(err));
                if (err)
                  continue;
                ck_assert(d.nv == nv && d.nf == nf);
                ck_assert_int_eq(d.compare,
                                 by_obs ? SM_COMPARE_OBSERVATIONS : SM_COMPARE_SAMPLES);
                ck_assert_uint_eq(v.nv, o.vcount ? o.vcount : nv - v0);
                ck_assert_uint_eq(v.nf, o.fcount ? o.fcount : nf - o.f0);
                for (size_t i = 0; i < v.nv; i++) {
                  char want[16];
                  snprintf(want, sizeof want, "%s%zu", by_obs ? "O" : "S", v0 + i);
                  ck_assert_str_eq(v.names[i], want);
                  for (size_t f = 0; f < v.nf; f++) {
                    const size_t vi = v0 + i, fi = o.f0 + f;
                    const double x = by_obs ? biom_entry(vi, fi) : biom_entry(fi, vi);
                    ck_assert_msg(val(&v, i, f) == x, "%s (%zu, %zu): %g, want %g", path,
                                  vi, fi, val(&v, i, f), x);
                  }
                }
                sm_vectors_free(&v);
              }
    }
  }
}
END_TEST
#else
/* Without HDF5 a BIOM 2.1 table is refused (saying how to read it). */
START_TEST(test_biom_hdf5)
{
  char path[4096];
  snprintf(path, sizeof path, "%s",
           sm_test_write("table.biom", SM_HDF5_MAGIC "\0\0", 10));
  sm_read_opts_t o = czek_opts(8);
  sm_vectors_t v;
  ck_assert_int_eq(sm_read_input(path, SM_INPUT_AUTO, &o, &v, NULL), SM_EFORMAT);
  ck_assert(v.data == NULL);
}
END_TEST
#endif

static Suite *read_suite(void)
{
  Suite *s = suite_create("read");
  TCase *tc = tcase_create("readers");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_read_rows);
  tcase_add_test(tc, test_raw_czek_f64);
  tcase_add_test(tc, test_raw_czek_f32);
  tcase_add_test(tc, test_czek_slice);
  tcase_add_test(tc, test_raw_czek_errors);
  tcase_add_test(tc, test_raw_ccc_odd);
  tcase_add_test(tc, test_raw_ccc_uniform);
  tcase_add_test(tc, test_plink_decode);
  tcase_add_test(tc, test_plink_slice);
  tcase_add_test(tc, test_plink_bad);
  tcase_add_test(tc, test_tsv_good);
  tcase_add_test(tc, test_tsv_transpose);
  tcase_add_test(tc, test_tsv_slice);
  tcase_add_test(tc, test_tsv_long_line);
  tcase_add_test(tc, test_tsv_bad);
  tcase_add_test(tc, test_npy_good);
  tcase_add_test(tc, test_npy_refused);
  tcase_add_test(tc, test_npy_ccc);
  tcase_add_test(tc, test_dispatch);
  tcase_add_test(tc, test_hwe_exact);
  tcase_add_test(tc, test_tsv_names);
  tcase_add_test(tc, test_stream);
  tcase_add_test(tc, test_biom_text);
  tcase_add_test(tc, test_biom_hdf5);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(read_suite)
