/* sm_matrix.c: the square matrices of a 2-way run: npy written in place
 * (a group of records placed in dense tiles, each tile row written with
 * one pwrite), lsmat kept in memory and written as text at the end. */
#include "sm_matrix.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_bytes.h"
#include "sm_fmt.h"

/* npy, records not in a dense group: values consecutive in the file
 * gathered into one pwrite, one run per side. */
#define RUN_BYTES 65536
typedef struct npy_run {
  uint64_t off; /* file offset of buf[0] */
  size_t len;
  unsigned char buf[RUN_BYTES];
} npy_run_t;

/* A group of records: at most TILE_MAX values in its tiles, PEND_MAX
 * records; in tiles when they hold at most DENSE times as many values as
 * the group writes (a pwrite costs as much as writing some thousand
 * values), else record by record through the runs. */
#define TILE_MAX (UINT64_C(1) << 21)
#define PEND_MAX ((size_t)1 << 20)
#define DENSE 512

/* One tile: rows r0.. (nr) and columns c0.. (nc) of the matrix, the
 * values as in the file (ne per cell) and what is written: 0 nothing, 1 a
 * record's value, 2 the diagonal's self-value, 3 NaN (a value of the
 * block that is not kept); 2 and 3 are what the file holds already,
 * written again so that a tile row is one pwrite, and not summed. */
typedef struct tile {
  uint64_t r0, nr, c0, nc;
  unsigned char *val, *set;
} tile_t;

struct sm_matrix {
  int lsmat;
  sm_metric_t metric;
  int single;
  uint64_t n;  /* vectors */
  unsigned ne; /* values per cell: 4 CCC entries, else 1 */
  size_t vb;   /* bytes per value */
  double self; /* the diagonal */
  /* npy */
  int fd;
  uint64_t data;           /* offset of the matrix (header size) */
  unsigned char head[256]; /* the header written (data bytes) */
  uint64_t sum;            /* sum of npy_cell over the values written */
  npy_run_t *run;          /* run[0] (i,j), run[1] (j,i) */
  sm_rec_t *pend;          /* the group gathered */
  size_t npend, cap_pend;
  uint32_t box[4];    /* its i range, j range (inclusive) */
  unsigned char *buf; /* tile memory: values, then the set bytes */
  uint64_t cap_buf;   /* in values */
  /* lsmat: the n(n-1)/2 distances (i < j, row after row), double or
   * float, NaN until set */
  void *tri;
};

double sm_matrix_self_value(sm_metric_t metric)
{
  switch (metric) {
  case SM_METRIC_CZEK:
  case SM_METRIC_R2: /* a variant's r with itself (PLINK's square matrix) */
  case SM_METRIC_R:
    return 1; /* PS, a similarity */
  case SM_METRIC_BRAY_CURTIS:
  case SM_METRIC_JACCARD:
    return 0; /* dissimilarities */
  case SM_METRIC_CCC:
    break;
  }
  return NAN;
}

double sm_matrix_distance(sm_metric_t metric, double v)
{
  const double self = sm_matrix_self_value(metric);
  if (metric == SM_METRIC_R2 || metric == SM_METRIC_R)
    return NAN; /* a correlation, no distance */
  return self == 0 ? v : self == 1 ? 1 - v : NAN;
}

uint64_t sm_matrix_bytes(int lsmat, sm_metric_t metric, int single, size_t nv)
{
  const uint64_t n = nv, vb = single ? 4u : 8u;
  if (n > (UINT64_C(1) << 20)) /* beyond both limits; the products would overflow */
    return 0;
  if (lsmat) {
    const uint64_t b = n * (n ? n - 1 : 0) / 2 * vb;
    return b > SM_LSMAT_MAX_BYTES ? 0 : b;
  }
  const uint64_t b = n * n * vb * (metric == SM_METRIC_CCC ? 4u : 1u);
  return b > SM_NPY_MAX_BYTES ? 0 : b;
}

static sm_matrix_t *matrix_new(int lsmat, sm_metric_t metric, int single, size_t nv)
{
  sm_matrix_t *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->lsmat = lsmat;
  m->metric = metric;
  m->single = single;
  m->n = nv;
  m->ne = metric == SM_METRIC_CCC ? 4 : 1;
  m->vb = single ? 4 : 8;
  m->self = sm_matrix_self_value(metric);
  m->fd = -1;
  return m;
}

void sm_matrix_free(sm_matrix_t *m)
{
  if (!m)
    return;
  free(m->run);
  free(m->pend);
  free(m->buf);
  free(m->tri);
  free(m);
}

/* ---- npy */

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

/* The bits of v as the file holds it; NaN as the fill's (quiet, positive). */
static uint64_t npy_bits(const sm_matrix_t *m, double v)
{
  if (v != v)
    return m->single ? 0x7fc00000u : UINT64_C(0x7ff8000000000000);
  if (m->single) {
    const float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  uint64_t u;
  memcpy(&u, &v, 8);
  return u;
}

static void npy_store(const sm_matrix_t *m, unsigned char *p, uint64_t bits)
{
  if (m->single)
    sm_put_le32(p, (uint32_t)bits);
  else
    sm_put_le64(p, bits);
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

/* File offset of value e of cell (i,j). */
static uint64_t npy_off(const sm_matrix_t *m, uint64_t i, uint64_t j, unsigned e)
{
  return m->data + ((i * m->n + j) * m->ne + e) * m->vb;
}

/* The matrix filled with NaN, the diagonal with the self-value (CCC's is
 * NaN: nothing to place), a chunk at a time. */
static sm_err_t npy_fill(sm_matrix_t *m)
{
  enum { CHUNK = 1 << 20 };
  unsigned char *nan = malloc(CHUNK);
  if (!nan)
    return SM_ENOMEM;
  const uint64_t pat =
      m->single ? UINT64_C(0x7fc000007fc00000) : UINT64_C(0x7ff8000000000000);
  for (size_t k = 0; k < CHUNK; k += 8)
    sm_put_le64(nan + k, pat);
  const uint64_t end = m->data + sm_matrix_bytes(0, m->metric, m->single, m->n);
  const uint64_t self = npy_bits(m, m->self), step = (m->n + 1) * m->ne * m->vb;
  const uint64_t none = npy_bits(m, NAN);
  sm_err_t err = SM_OK;
  for (uint64_t off = m->data; off < end && !err; off += CHUNK) {
    const size_t len = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
    /* the diagonal cells (k,k) at data + k * step that fall in the chunk */
    const uint64_t k0 = (off - m->data + step - 1) / step;
    for (uint64_t k = k0; m->self == m->self && m->data + k * step < off + len; k++) {
      npy_store(m, nan + (m->data + k * step - off), self);
      m->sum += npy_cell(m->data + k * step, self, m->single);
    }
    if (pwrite_all(m->fd, nan, len, off) != 0)
      err = SM_EIO;
    for (uint64_t k = k0; m->self == m->self && m->data + k * step < off + len; k++)
      npy_store(m, nan + (m->data + k * step - off), none);
  }
  free(nan);
  return err;
}

sm_err_t sm_matrix_npy_open(sm_matrix_t **mp, int fd, sm_metric_t metric, int single,
                            size_t nv)
{
  *mp = NULL;
  sm_matrix_t *m = matrix_new(0, metric, single, nv);
  if (!m || !(m->run = calloc(2, sizeof *m->run))) {
    sm_matrix_free(m);
    return SM_ENOMEM;
  }
  m->fd = fd;
  char dict[160];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '<f%zu', 'fortran_order': False, 'shape': (%zu, %zu%s), }",
                   m->vb, nv, nv, metric == SM_METRIC_CCC ? ", 4" : "");
  size_t hlen = ((size_t)n + 1 + 10 + 63) / 64 * 64 - 10; /* dict, spaces, '\n' */
  unsigned char *h = m->head;
  memcpy(h, "\x93NUMPY\x01\x00", 8);
  h[8] = (unsigned char)(hlen & 0xff);
  h[9] = (unsigned char)(hlen >> 8);
  memset(h + 10, ' ', hlen);
  memcpy(h + 10, dict, (size_t)n);
  h[10 + hlen - 1] = '\n';
  m->data = 10 + hlen;
  const uint64_t end = m->data + sm_matrix_bytes(0, metric, single, nv);
  sm_err_t err = SM_OK;
  if (pwrite_all(fd, h, m->data, 0) != 0 || ftruncate(fd, (off_t)end) != 0)
    err = SM_EIO;
  if (!err)
    err = npy_fill(m);
  if (err) {
    const int saved = errno;
    sm_matrix_free(m);
    errno = saved;
    return err;
  }
  *mp = m;
  return SM_OK;
}

uint64_t sm_matrix_end(const sm_matrix_t *m)
{
  return m->data + sm_matrix_bytes(0, m->metric, m->single, m->n);
}

/* Write run r's gathered bytes. */
static int run_flush(sm_matrix_t *m, npy_run_t *r)
{
  int bad = r->len && pwrite_all(m->fd, r->buf, r->len, r->off) != 0;
  r->len = 0;
  return bad;
}

/* One value at file offset off, through run r: appended when it follows
 * the run's bytes, else the run is written and starts again at off. */
static int run_put(sm_matrix_t *m, npy_run_t *r, uint64_t off, double v)
{
  int bad = 0;
  if (r->len && (off != r->off + r->len || r->len + m->vb > RUN_BYTES))
    bad = run_flush(m, r);
  if (!r->len)
    r->off = off;
  const uint64_t bits = npy_bits(m, v);
  npy_store(m, r->buf + r->len, bits);
  m->sum += npy_cell(off, bits, m->single);
  r->len += m->vb;
  return bad;
}

/* The (j,i) entry of entry e: a and b swapped. */
static unsigned swap_entry(unsigned e)
{
  return ((e & 1u) << 1) | (e >> 1);
}

/* Whether record x is a cell of the matrix (only a corrupt one is not). */
static int in_matrix(const sm_matrix_t *m, const sm_rec_t *x)
{
  return x->idx[0] < m->n && x->idx[1] < m->n && x->idx[0] != x->idx[1];
}

/* Records rec[0..n) one by one, at (i,j) and (j,i), through the runs. */
static int npy_records(sm_matrix_t *m, const sm_rec_t *rec, size_t n)
{
  const int ccc = m->ne == 4;
  int bad = 0;
  for (size_t r = 0; r < n && !bad; r++) {
    const sm_rec_t *x = &rec[r];
    if (!in_matrix(m, x))
      continue;
    const unsigned e = ccc ? x->entry & 3u : 0;
    bad = run_put(m, &m->run[0], npy_off(m, x->idx[0], x->idx[1], e), x->value);
    bad |=
        run_put(m, &m->run[1], npy_off(m, x->idx[1], x->idx[0], swap_entry(e)), x->value);
  }
  bad |= run_flush(m, &m->run[0]);
  bad |= run_flush(m, &m->run[1]);
  return bad;
}

/* The tiles of records whose indices span box b: one square over both
 * sides when its i and j ranges meet (a diagonal block), else one for the
 * (i,j) side and its transpose for (j,i). Returns their count; values in
 * all of them in *area. */
static int group_tiles(const sm_matrix_t *m, const uint32_t b[4], tile_t t[2],
                       uint64_t *area)
{
  if (b[0] <= b[3] && b[2] <= b[1]) {
    const uint64_t lo = b[0] < b[2] ? b[0] : b[2], hi = b[1] > b[3] ? b[1] : b[3];
    t[0] = (tile_t){.r0 = lo, .nr = hi - lo + 1, .c0 = lo, .nc = hi - lo + 1};
    *area = t[0].nr * t[0].nc * m->ne;
    return 1;
  }
  const uint64_t di = (uint64_t)b[1] - b[0] + 1, dj = (uint64_t)b[3] - b[2] + 1;
  t[0] = (tile_t){.r0 = b[0], .nr = di, .c0 = b[2], .nc = dj};
  t[1] = (tile_t){.r0 = b[2], .nr = dj, .c0 = b[0], .nc = di};
  *area = 2 * di * dj * m->ne;
  return 2;
}

/* Value (i,j,e) into tile t when its row is there. */
static void tile_place(const sm_matrix_t *m, const tile_t *t, uint64_t i, uint64_t j,
                       unsigned e, uint64_t bits)
{
  if (i < t->r0 || i >= t->r0 + t->nr)
    return;
  const uint64_t k = ((i - t->r0) * t->nc + (j - t->c0)) * m->ne + e;
  npy_store(m, t->val + k * m->vb, bits);
  t->set[k] = 1;
}

/* Tile t's rows, each run of values to write one pwrite. fill: the
 * records are one block's, and every value of the tile is the block's (a
 * tile pair, the triangle of a diagonal tile with the diagonal, a row of
 * the reference loops), so the values it does not keep are written as the
 * NaN the file holds, and the diagonal as its self-value: a row is one
 * run. Else only the records, and the diagonal between two. */
static int tile_write(sm_matrix_t *m, const tile_t *t, int fill)
{
  const uint64_t w = t->nc * m->ne, self = npy_bits(m, m->self), nan = npy_bits(m, NAN);
  for (uint64_t r = 0; r < t->nr; r++) {
    unsigned char *set = t->set + r * w, *val = t->val + r * w * m->vb;
    const uint64_t gi = t->r0 + r;
    if (fill)
      for (uint64_t k = 0; k < w; k++)
        if (!set[k]) {
          npy_store(m, val + k * m->vb, nan);
          set[k] = 3;
        }
    if (gi >= t->c0 && gi < t->c0 + t->nc) { /* the diagonal */
      const uint64_t d = (gi - t->c0) * m->ne;
      if (fill || (d > 0 && d + m->ne < w && set[d - 1] && set[d + m->ne]))
        for (unsigned e = 0; e < m->ne; e++) {
          npy_store(m, val + (d + e) * m->vb, self);
          set[d + e] = 2;
        }
    }
    for (uint64_t k = 0; k < w;) {
      if (!set[k]) {
        k++;
        continue;
      }
      const uint64_t k0 = k, off = npy_off(m, gi, t->c0, 0) + k0 * m->vb;
      for (; k < w && set[k]; k++)
        if (set[k] == 1)
          m->sum += npy_cell(off + (k - k0) * m->vb,
                             m->single ? sm_get_le32(val + k * m->vb)
                                       : sm_get_le64(val + k * m->vb),
                             m->single);
      if (pwrite_all(m->fd, val + k0 * m->vb, (size_t)((k - k0) * m->vb), off) != 0)
        return -1;
    }
  }
  return 0;
}

/* Records rec[0..n), whose indices span box, in tiles: each tile in bands
 * of rows of at most TILE_MAX values, every record looked at once per
 * band (a band holds the block's whole width: bands never overlap). 0, -1
 * on a write error, 1 when there is no memory for them (nothing written). */
static int npy_tiles(sm_matrix_t *m, const sm_rec_t *rec, size_t n, const uint32_t box[4],
                     int fill)
{
  tile_t t[2];
  uint64_t area;
  const int nt = group_tiles(m, box, t, &area);
  const int ccc = m->ne == 4;
  uint64_t h[2], cap = 0; /* rows per band, values in the largest */
  for (int k = 0; k < nt; k++) {
    const uint64_t row = t[k].nc * m->ne;
    h[k] = TILE_MAX / row ? TILE_MAX / row : 1;
    h[k] = h[k] < t[k].nr ? h[k] : t[k].nr;
    cap = h[k] * row > cap ? h[k] * row : cap;
  }
  if (cap > m->cap_buf) {
    unsigned char *b = realloc(m->buf, (size_t)cap * (m->vb + 1));
    if (!b)
      return 1;
    m->buf = b;
    m->cap_buf = cap;
  }
  for (int k = 0; k < nt; k++) {
    const uint64_t row = t[k].nc * m->ne;
    for (uint64_t b0 = 0; b0 < t[k].nr; b0 += h[k]) {
      tile_t band = t[k];
      band.r0 = t[k].r0 + b0;
      band.nr = t[k].nr - b0 < h[k] ? t[k].nr - b0 : h[k];
      band.val = m->buf;
      band.set = m->buf + band.nr * row * m->vb;
      memset(band.set, 0, (size_t)(band.nr * row));
      for (size_t r = 0; r < n; r++) {
        const sm_rec_t *x = &rec[r];
        if (!in_matrix(m, x))
          continue;
        const unsigned e = ccc ? x->entry & 3u : 0;
        const uint64_t bits = npy_bits(m, x->value);
        if (k == 0)
          tile_place(m, &band, x->idx[0], x->idx[1], e, bits);
        if (k == nt - 1)
          tile_place(m, &band, x->idx[1], x->idx[0], swap_entry(e), bits);
      }
      if (tile_write(m, &band, fill))
        return -1;
    }
  }
  return 0;
}

/* Records rec[0..n) spanning box: in tiles when these hold at most DENSE
 * times as many values as the records write, else one by one. */
static int npy_write(sm_matrix_t *m, const sm_rec_t *rec, size_t n, const uint32_t box[4],
                     int fill)
{
  tile_t t[2];
  uint64_t area;
  group_tiles(m, box, t, &area);
  int bad = 1;
  if (area <= (uint64_t)DENSE * 2 * n)
    bad = npy_tiles(m, rec, n, box, fill);
  return bad > 0 ? npy_records(m, rec, n) : bad;
}

/* Write the gathered single records. */
static int npy_drain(sm_matrix_t *m)
{
  const int bad = m->npend ? npy_write(m, m->pend, m->npend, m->box, 0) : 0;
  m->npend = 0;
  return bad;
}

/* box extended by the indices of x. */
static void box_add(uint32_t b[4], const sm_rec_t *x, int first)
{
  const uint32_t i = x->idx[0], j = x->idx[1];
  if (first) {
    b[0] = b[1] = i, b[2] = b[3] = j;
    return;
  }
  b[0] = b[0] < i ? b[0] : i, b[1] = b[1] > i ? b[1] : i;
  b[2] = b[2] < j ? b[2] : j, b[3] = b[3] > j ? b[3] : j;
}

/* A single record into the group, written first when x would take its
 * tiles over TILE_MAX values. 0, or -1 on a write error. */
static int npy_gather(sm_matrix_t *m, const sm_rec_t *x)
{
  uint32_t b[4];
  memcpy(b, m->box, sizeof b);
  box_add(b, x, !m->npend);
  if (m->npend) {
    tile_t t[2];
    uint64_t area;
    group_tiles(m, b, t, &area);
    if (area > TILE_MAX || m->npend == PEND_MAX) {
      if (npy_drain(m))
        return -1;
      box_add(b, x, 1);
    }
  }
  if (m->npend == m->cap_pend) {
    const size_t cap = m->cap_pend ? 2 * m->cap_pend : 4096;
    sm_rec_t *p = realloc(m->pend, cap * sizeof *p);
    if (!p) /* no room to gather: the group, then this one alone */
      return npy_drain(m) || npy_records(m, x, 1) ? -1 : 0;
    m->pend = p;
    m->cap_pend = cap;
  }
  m->pend[m->npend++] = *x;
  memcpy(m->box, b, sizeof b);
  return 0;
}

/* ---- lsmat */

sm_err_t sm_matrix_lsmat_open(sm_matrix_t **mp, sm_metric_t metric, int single, size_t nv)
{
  *mp = NULL;
  sm_matrix_t *m = matrix_new(1, metric, single, nv);
  const uint64_t bytes = sm_matrix_bytes(1, metric, single, nv);
  if (!m || !(m->tri = malloc(bytes ? (size_t)bytes : 1))) {
    sm_matrix_free(m);
    return SM_ENOMEM;
  }
  const uint64_t count = bytes / m->vb;
  for (uint64_t k = 0; k < count; k++)
    if (single)
      ((float *)m->tri)[k] = NAN;
    else
      ((double *)m->tri)[k] = NAN;
  *mp = m;
  return SM_OK;
}

/* Place of pair i < j in the triangle. */
static uint64_t tri_at(uint64_t n, uint64_t i, uint64_t j)
{
  return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

static double tri_get(const sm_matrix_t *m, uint64_t i, uint64_t j)
{
  if (i == j)
    return 0;
  const uint64_t k = i < j ? tri_at(m->n, i, j) : tri_at(m->n, j, i);
  return m->single ? (double)((const float *)m->tri)[k] : ((const double *)m->tri)[k];
}

static void lsmat_put(sm_matrix_t *m, const sm_rec_t *x)
{
  const uint64_t i = x->idx[0], j = x->idx[1];
  const uint64_t k = i < j ? tri_at(m->n, i, j) : tri_at(m->n, j, i);
  if (m->single) /* the float32 value, as bin and npy hold it */
    ((float *)m->tri)[k] = (float)sm_matrix_distance(m->metric, (double)(float)x->value);
  else
    ((double *)m->tri)[k] = sm_matrix_distance(m->metric, x->value);
}

/* Whether the UTF-8 text at s (n bytes) starts (end 0) or ends (end 1)
 * with a character Python's str.isspace takes for white space (the ASCII
 * control bytes among them are escaped: only the space is left). */
static int edge_space(const unsigned char *s, size_t n, int end)
{
  static const char *const ws[] = {" ",
                                   "\xc2\x85",
                                   "\xc2\xa0",
                                   "\xe1\x9a\x80",
                                   "\xe2\x80\x80",
                                   "\xe2\x80\x81",
                                   "\xe2\x80\x82",
                                   "\xe2\x80\x83",
                                   "\xe2\x80\x84",
                                   "\xe2\x80\x85",
                                   "\xe2\x80\x86",
                                   "\xe2\x80\x87",
                                   "\xe2\x80\x88",
                                   "\xe2\x80\x89",
                                   "\xe2\x80\x8a",
                                   "\xe2\x80\xa8",
                                   "\xe2\x80\xa9",
                                   "\xe2\x80\xaf",
                                   "\xe2\x81\x9f",
                                   "\xe3\x80\x80"};
  for (size_t k = 0; k < sizeof ws / sizeof ws[0]; k++) {
    const size_t l = strlen(ws[k]);
    if (l <= n && !memcmp(end ? s + n - l : s, ws[k], l))
      return 1;
  }
  return 0;
}

int sm_matrix_lsmat_ids(char *why, size_t len, char *const *ids, size_t nv)
{
  for (size_t i = 0; ids && i < nv; i++) {
    const unsigned char *s = (const unsigned char *)ids[i];
    const size_t n = strlen(ids[i]);
    const char *what =
        !n ? "is empty"
        : edge_space(s, n, 0) || edge_space(s, n, 1)
            ? "begins or ends with white space, which scikit-bio's lsmat reader strips"
        : i == 0 && s[0] == '#' ? "begins with '#': scikit-bio's lsmat reader would take "
                                  "the header line for a comment"
                                : NULL;
    if (what) {
      snprintf(why, len,
               "--output-format lsmat: the name of vector %zu (from 0), '%.60s', %s; "
               "rename it, or use --output-format npy (PREFIX.ids.txt keeps names "
               "exactly) or tsv, or --keys index",
               i, ids[i], what);
      return 1;
    }
  }
  return 0;
}

/* An id: the escaped name, or the index. */
static const char *lsmat_id(char *const *ids, uint64_t i, char buf[SM_FMT_MAX])
{
  if (ids)
    return ids[i];
  sm_fmt_u32(buf, (uint32_t)i);
  return buf;
}

sm_err_t sm_matrix_lsmat_text(const sm_matrix_t *m, char *const *ids,
                              int (*put)(void *ctx, const void *p, size_t n), void *ctx,
                              char *why, size_t len)
{
  const uint64_t n = m->n, count = n * (n ? n - 1 : 0) / 2;
  uint64_t unset = 0;
  for (uint64_t k = 0; k < count; k++) {
    const double v =
        m->single ? (double)((const float *)m->tri)[k] : ((const double *)m->tri)[k];
    unset += v != v;
  }
  if (unset) {
    snprintf(
        why, len,
        "%llu of the %llu pairs have no distance: a distance matrix needs every pair",
        (unsigned long long)unset, (unsigned long long)count);
    return SM_EDEGEN;
  }
  char id[SM_FMT_MAX];
  size_t cap = 0;
  for (uint64_t i = 0; i < n; i++) {
    const size_t l = strlen(lsmat_id(ids, i, id)) + 1;
    cap = l > cap ? l : cap;
  }
  cap += (size_t)n * (SM_FMT_MAX + 1) + 2;
  char *row = malloc(cap);
  if (!row)
    return SM_ENOMEM;
  int bad = 0;
  size_t l = 0;
  for (uint64_t i = 0; i < n && !bad; i++) { /* the header: an empty cell, the ids */
    const char *s = lsmat_id(ids, i, id);
    row[0] = '\t';
    memcpy(row + 1, s, strlen(s));
    bad = put(ctx, row, 1 + strlen(s));
  }
  bad = bad || put(ctx, "\n", 1);
  for (uint64_t i = 0; i < n && !bad; i++) {
    const char *s = lsmat_id(ids, i, id);
    l = strlen(s);
    memcpy(row, s, l);
    for (uint64_t j = 0; j < n; j++) {
      row[l++] = '\t';
      l += sm_fmt_g(row + l, tri_get(m, i, j), m->single ? 9 : 17);
    }
    row[l++] = '\n';
    bad = put(ctx, row, l);
  }
  free(row);
  return bad ? SM_EIO : SM_OK;
}

/* ---- both */

int sm_matrix_put(sm_matrix_t *m, const sm_rec_t *rec, size_t n)
{
  if (m->lsmat) {
    for (size_t r = 0; r < n; r++)
      if (in_matrix(m, &rec[r]))
        lsmat_put(m, &rec[r]);
    return 0;
  }
  if (n == 1) /* one record (what a threshold keeps, record by record) */
    return in_matrix(m, rec) ? npy_gather(m, rec) : 0;
  if (npy_drain(m)) /* a block's records: single records gathered before go first */
    return -1;
  uint32_t box[4];
  size_t valid = 0;
  for (size_t r = 0; r < n; r++)
    if (in_matrix(m, &rec[r]))
      box_add(box, &rec[r], !valid++);
  return valid ? npy_write(m, rec, n, box, 1) : 0;
}

int sm_matrix_flush(sm_matrix_t *m)
{
  return m->lsmat ? 0 : npy_drain(m);
}

int sm_matrix_differs(const sm_matrix_t *m, int fd, uint64_t *at)
{
  unsigned char head[256];
  *at = 0;
  if (pread(fd, head, m->data, 0) != (ssize_t)m->data || memcmp(head, m->head, m->data))
    return 1;
  const int single = m->single;
  const size_t vb = m->vb, chunk = (size_t)1 << 20;
  const uint64_t end = sm_matrix_end(m);
  unsigned char *buf = malloc(chunk);
  if (!buf)
    return -1;
  uint64_t sum = 0;
  int bad = 0;
  for (uint64_t off = m->data; off < end && !bad; off += chunk) {
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
  return bad || sum != m->sum;
}
