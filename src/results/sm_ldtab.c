/* sm_ldtab.c: PLINK 1.9's .ld table (sm_ldtab.h). */
#include "sm_ldtab.h"
#include "sm_bytes.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct ld_row {
  uint32_t i, j; /* ccc: j * 4 + the table entry */
  double v;
} ld_row_t;

struct sm_ldtab {
  int r2, ccc; /* r2, r, or ccc: its four table entries as columns */
  const sm_loci_t *loci;
  char *const *names;
  const double *freq; /* with-freqs: each variant's MAF column, or NULL */
  size_t nv, width;   /* PLINK's SNP column width */
  /* each variant's columns, the same on both sides of a line, at cols +
   * off[v] (variant_columns), and the longest line */
  char *cols;
  size_t *off, line_max;
  /* the whole table (sm_ldtab_put): every pair, written at the end */
  ld_row_t *rows;
  size_t n, cap;
  /* or the blocks' lines (sm_ldtab_stream): those not yet written, by
   * their second variants, and whether the header is written */
  sm_ldpiece_t **pend;
  size_t npend, cap_pend;
  int streamed, header;
  /* PLINK's --ld-snp (sm_ldtab_index): per variant SM_LDTAB_INDEX, SM_LDTAB_SELF
   * (NULL: every pair, the lower variant first), and the first variant
   * whose own line may still be due */
  const unsigned char *index;
  uint32_t self_next;
};

/* A block's lines, by first variant then second: nrow segments of text,
 * segment k holding the lines of first variant row[k] and ending at
 * end[k]; those before next are written. key: a second variant of its
 * lines (a block's second variants are one tile: blocks never interleave
 * within a row). */
struct sm_ldpiece {
  char *text;
  size_t len, tcap; /* the text's bytes, and its buffer's */
  uint32_t key;
  size_t nrow, next;
  uint32_t *row;
  size_t *end;
  uint32_t *skey; /* --ld-snp: each segment's first second variant (a row's
                     lines before and after its own are two segments) */
};

static char *variant_columns(const sm_ldtab_t *t, size_t **offp);

/* The blocks' text buffers, kept for the next blocks: a tile pair's lines
 * are tens of megabytes, above malloc's mapping threshold, so each would
 * be fresh zeroed pages (their page faults cost 7% of a 1 Mb window's run
 * at one thread). At most POOL_N kept, the largest; process-wide, as the
 * pieces are freed without their table; emptied with a table. */
enum { POOL_N = 4 };
static struct {
  char *p;
  size_t cap;
} pool[POOL_N];
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

/* A buffer of at least need bytes (*cap: its size), or NULL. */
static char *text_get(size_t need, size_t *cap)
{
  int best = -1;
  pthread_mutex_lock(&pool_mu);
  for (int k = 0; k < POOL_N; k++)
    if (pool[k].p && pool[k].cap >= need && (best < 0 || pool[k].cap < pool[best].cap))
      best = k;
  char *p = NULL;
  if (best >= 0) {
    p = pool[best].p, *cap = pool[best].cap;
    pool[best].p = NULL;
  }
  pthread_mutex_unlock(&pool_mu);
  if (!p && (p = malloc(need)))
    *cap = need;
  return p;
}

/* p (cap bytes) back to the pool, in place of a smaller one when full. */
static void text_put(char *p, size_t cap)
{
  if (!p)
    return;
  pthread_mutex_lock(&pool_mu);
  int k = 0, small = 0;
  for (; k < POOL_N && pool[k].p; k++)
    small = pool[k].cap < pool[small].cap ? k : small;
  if (k == POOL_N && pool[small].cap < cap)
    k = small;
  char *drop = k < POOL_N ? pool[k].p : p;
  if (k < POOL_N)
    pool[k].p = p, pool[k].cap = cap;
  pthread_mutex_unlock(&pool_mu);
  free(drop);
}

static void pool_empty(void)
{
  pthread_mutex_lock(&pool_mu);
  for (int k = 0; k < POOL_N; k++)
    free(pool[k].p), pool[k].p = NULL;
  pthread_mutex_unlock(&pool_mu);
}

/* put_line copies a variant's columns COL_SLACK bytes at a time (one
 * fixed-size copy for the usual widths): the columns' buffer has that
 * many bytes after its last, and a line's buffer that many after its
 * longest line. */
enum { COL_SLACK = 64 };

size_t sm_ldtab_width(char *const *names, size_t n)
{
  size_t width = 4; /* 4, or the longest id + 2 once an id is longer */
  for (size_t k = 0; names && k < n; k++) {
    const size_t len = strlen(names[k]);
    if (len > width)
      width = len + 2;
  }
  return width;
}

sm_err_t sm_ldtab_open(sm_ldtab_t **tp, int r2, const sm_loci_t *loci, char *const *names,
                       const double *freq, size_t nv, size_t width)
{
  sm_ldtab_t *t = calloc(1, sizeof *t);
  if (!(*tp = t))
    return SM_ENOMEM;
  t->r2 = r2 == 1, t->ccc = r2 == 2, t->loci = loci, t->names = names, t->nv = nv;
  t->freq = freq;
  t->width = width ? width : sm_ldtab_width(names, nv);
  if (!(t->cols = variant_columns(t, &t->off))) {
    free(t);
    *tp = NULL;
    return SM_ENOMEM;
  }
  size_t most = 0; /* the longest pair of columns */
  for (size_t v = 0; v < nv; v++)
    if (t->off[v + 1] - t->off[v] > most)
      most = t->off[v + 1] - t->off[v];
  t->line_max = 2 * most + 2 * t->width + 128;
  return SM_OK;
}

/* A record as a table row (the lower variant first; for ccc the entry
 * seen from it). */
static ld_row_t table_row(const sm_ldtab_t *t, const sm_rec_t *rec)
{
  const uint32_t a = rec->idx[0], b = rec->idx[1];
  uint32_t e = rec->entry & 3u; /* ccc: (a's bit, b's bit), seen from the first */
  if (a > b)
    e = ((e & 1u) << 1) | (e >> 1);
  const uint32_t second = a < b ? b : a;
  return (ld_row_t){a < b ? a : b, t->ccc ? second * 4 + e : second, rec->value};
}

void sm_ldtab_index(sm_ldtab_t *t, const unsigned char *index)
{
  t->index = index;
}

/* A record's table rows into out (0, 1 or 2 of them): the pair, or with
 * --ld-snp one row for each of its variants that is an index variant,
 * that one first. NaN values have none (PLINK writes no line for them). */
static size_t table_rows(const sm_ldtab_t *t, const sm_rec_t *rec, ld_row_t *out)
{
  if (rec->value != rec->value)
    return 0;
  if (!t->index) {
    out[0] = table_row(t, rec);
    return 1;
  }
  const uint32_t a = rec->idx[0], b = rec->idx[1];
  size_t n = 0;
  if (t->index[a] & SM_LDTAB_INDEX)
    out[n++] = (ld_row_t){a, b, rec->value};
  if (t->index[b] & SM_LDTAB_INDEX)
    out[n++] = (ld_row_t){b, a, rec->value};
  return n;
}

int sm_ldtab_put(sm_ldtab_t *t, const sm_rec_t *rec, size_t n)
{
  for (size_t k = 0; k < n; k++) {
    if (t->n + 2 > t->cap) {
      const size_t c = t->cap ? 2 * t->cap : 4096;
      ld_row_t *g = realloc(t->rows, c * sizeof *g);
      if (!g)
        return -1;
      t->rows = g, t->cap = c;
    }
    t->n += table_rows(t, &rec[k], t->rows + t->n);
  }
  return 0;
}

static int row_cmp(const void *x, const void *y)
{
  const ld_row_t *a = x, *b = y;
  return a->i != b->i ? (a->i > b->i) - (a->i < b->i) : (a->j > b->j) - (a->j < b->j);
}

/* x (>= 0) rounded to an integer, halves to the even one, a half being
 * anything within 5e-9 of it (PLINK's rounding of printed digits). */
static uint32_t round_even_fuzzy(double x)
{
  static const double half[2] = {0.499999995, 0.500000005}; /* t even, odd */
  const uint32_t t = (uint32_t)(int32_t)x;
  return t + (uint32_t)(int32_t)((x - (int32_t)t) + half[t & 1]);
}

/* "00" .. "99" */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* Digits pair x ("00" .. "99") as a little-endian 16-bit number. */
static inline uint64_t pair_le(uint32_t x)
{
  const unsigned char *p = (const unsigned char *)digit_pairs + 2 * x;
  return (uint64_t)p[0] | (uint64_t)p[1] << 8;
}

/* The digits of q (0 < k <= 8, q < 10^k) with k places, trailing zeros
 * dropped (at least one digit kept when keep1): q as 8 digits in a
 * little-endian word, its trailing zeros counted from the word's top, no
 * loop or branch on the value (its digits are random to a predictor).
 * Writes 8 bytes at buf (a value's buffer is 32). */
static size_t put_digits(uint32_t q, int k, int keep1, char *buf)
{
  const uint64_t w = pair_le(q / 1000000) | pair_le(q / 10000 % 100) << 16 |
                     pair_le(q / 100 % 100) << 32 | pair_le(q % 100) << 48;
  const uint64_t nz = w ^ 0x3030303030303030ull; /* 0 bytes: the '0's */
  const int zeros = nz ? __builtin_clzll(nz) / 8 : 8, most = k - (keep1 ? 1 : 0);
  const uint64_t top = w >> (8 * (8 - k)); /* the k digits, first in byte 0 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(buf, &top, 8);
#else
  sm_put_le64((unsigned char *)buf, top);
#endif
  return (size_t)(k - (zeros < most ? zeros : most));
}

/* q in decimal; its length. */
static size_t put_uint(uint32_t q, char *buf)
{
  char d[10];
  size_t n = 0;
  do
    d[n++] = (char)('0' + q % 10);
  while (q /= 10);
  for (size_t k = 0; k < n; k++)
    buf[k] = d[n - 1 - k];
  return n;
}

size_t sm_ldtab_fmt_g(double v, char *buf)
{
  size_t len = 0;
  if (v != v) {
    memcpy(buf, "nan", 4);
    return 3;
  }
  if (v < 0) {
    buf[len++] = '-';
    v = -v;
  }
  if (v == 0) {
    buf[len++] = '0';
    buf[len] = 0;
    return len;
  }
  /* the boundaries between forms are the values that round to the next
   * power of ten in 6 digits */
  if (v < 9.9999949999999e-5 || v >= 999999.49999999) {
    /* d.ddddde-XX / e+XX: scaled to [1, 10) by powers of ten taken from
     * the largest down */
    /* by[k][taken]: step k's factor, 1 when not taken, so that the steps
     * are multiplications chosen by table rather than branches that the
     * value's magnitude makes random (the same products as taking them) */
    static const double by_up[9][2] = {{1, 1e256}, {1, 1e128}, {1, 1e64},
                                       {1, 1e32},  {1, 1e16},  {1, 1e8},
                                       {1, 1e4},   {1, 1e2},   {1, 1e1}};
    static const double by_down[9][2] = {{1, 1e-256}, {1, 1e-128}, {1, 1e-64},
                                         {1, 1e-32},  {1, 1e-16},  {1, 1e-8},
                                         {1, 1e-4},   {1, 1e-2},   {1, 1e-1}};
    static const double lo[] = {
        9.9999949999999e-256, 9.9999949999999e-128, 9.9999949999999e-64,
        9.9999949999999e-32,  9.9999949999999e-16,  9.9999949999999e-8,
        9.9999949999999e-4,   9.9999949999999e-2,   9.9999949999999e-1};
    static const double hi[] = {
        9.9999949999999e255, 9.9999949999999e127, 9.9999949999999e63,
        9.9999949999999e31,  9.9999949999999e15,  9.9999949999999e7,
        9.9999949999999e3,   9.9999949999999e1,   9.9999949999999e0};
    static const int ex[] = {256, 128, 64, 32, 16, 8, 4, 2, 1};
    const int small = v < 1;
    int e = 0;
    if (small) /* the first four steps only below 1e-31 */
      for (int k = v >= lo[3] ? 4 : 0; k < 9; k++) {
        const int c = v < lo[k];
        v *= by_up[k][c];
        e += ex[k] & -c;
      }
    else
      for (int k = v < hi[3] ? 4 : 0; k < 9; k++) {
        const int c = v >= hi[k];
        v *= by_down[k][c];
        e += ex[k] & -c;
      }
    if (isinf(v)) {
      memcpy(buf + len, "inf", 4);
      return len + 3;
    }
    const uint32_t q = round_even_fuzzy(v * 100000);
    buf[len++] = (char)('0' + q / 100000);
    if (q % 100000) {
      buf[len++] = '.';
      len += put_digits(q % 100000, 5, 0, buf + len);
    }
    buf[len++] = 'e';
    buf[len++] = small ? '-' : '+';
    if (e < 10)
      buf[len++] = '0';
    len += put_uint((uint32_t)e, buf + len);
    buf[len] = 0;
    return len;
  }
  if (v < 0.99999949999999) { /* 0.dddddd, down to 0.0001 */
    /* up to three zeros after the point: two (v scaled by 100), then one
     * (by 10), chosen by table, not by branch (small r2 are common) */
    memcpy(buf + len, "0.", 2);
    len += 2;
    if (v < 9.9999949999999e-3) {
      v *= 100;
      memcpy(buf + len, "00", 2);
      len += 2;
    }
    if (v < 9.9999949999999e-2) {
      v *= 10;
      buf[len++] = '0';
    }
    len += put_digits(round_even_fuzzy(v * 1000000), 6, 1, buf + len);
    buf[len] = 0;
    return len;
  }
  /* [1, 10^6): 6 significant digits, the point where they say */
  int ipart = 1;
  double lim = 9.9999949999999;
  while (ipart < 6 && v >= lim) {
    ipart++;
    lim *= 10;
  }
  static const double scale[] = {1e5, 1e4, 1e3, 1e2, 1e1, 1};
  const uint32_t q = round_even_fuzzy(v * scale[ipart - 1]);
  uint32_t p10 = 1;
  for (int k = 0; k < 6 - ipart; k++)
    p10 *= 10;
  len += put_uint(q / p10, buf + len);
  if (q % p10) {
    buf[len++] = '.';
    len += put_digits(q % p10, 6 - ipart, 0, buf + len);
  }
  buf[len] = 0;
  return len;
}

/* Right-aligned in width (longer: as it is). */
static size_t put_right(char *buf, size_t width, const char *s)
{
  const size_t n = strlen(s), pad = n < width ? width - n : 0;
  memset(buf, ' ', pad);
  memcpy(buf + pad, s, n);
  return pad + n;
}

/* rows[0..n) in PLINK's order, by the first variant then the second: a
 * counting sort on the first (all in [lo, lo + span)), then each
 * variant's run by the second (usually in order already). NULL without
 * memory. */
static ld_row_t *sorted_rows(const ld_row_t *rows, size_t n, uint32_t lo, size_t span)
{
  size_t *start = calloc(span + 1, sizeof *start);
  /* (rows' j: the second variant, times 4 plus the entry for ccc) */
  ld_row_t *out = malloc((n ? n : 1) * sizeof *out);
  if (!start || !out) {
    free(start);
    free(out);
    return NULL;
  }
  for (size_t k = 0; k < n; k++)
    start[rows[k].i - lo + 1]++;
  for (size_t v = 0; v < span; v++)
    start[v + 1] += start[v];
  for (size_t k = 0; k < n; k++)
    out[start[rows[k].i - lo]++] = rows[k];
  /* start[v] is now the end of v's run */
  for (size_t v = 0, b = 0; v < span; b = start[v++]) {
    int in_order = 1;
    for (size_t k = b + 1; k < start[v] && in_order; k++)
      in_order = out[k - 1].j < out[k].j;
    if (!in_order)
      qsort(out + b, start[v] - b, sizeof *out, row_cmp);
  }
  free(start);
  return out;
}

/* Each variant's columns, the same on both sides of a line: chromosome (6
 * wide), 3 spaces, position (10 wide), a space, id (the table's width), a
 * space. One string per variant at prefix + off[v]. */
static char *variant_columns(const sm_ldtab_t *t, size_t **offp)
{
  size_t *off = malloc((t->nv + 1) * sizeof *off);
  char *buf = NULL;
  if (!off)
    return NULL;
  char chbuf[64], num[32];
  for (int pass = 0; pass < 2; pass++) {
    size_t len = 0;
    for (size_t v = 0; v < t->nv; v++) {
      char tmp[256], *d = pass ? buf + len : tmp;
      size_t n = 0;
      const char *ch = chbuf; /* the chromosome as PLINK writes it */
      if (t->loci->chrom_codes)
        ch = t->loci->chrom_codes[t->loci->chrom[v]];
      else
        sm_read_chrom_code(t->loci->chrom_names[t->loci->chrom[v]], chbuf);
      const char *id =
          t->names ? t->names[v] : (num[put_uint((uint32_t)v, num)] = 0, num);
      if (!pass) {
        off[v] = len;
        const size_t c = strlen(ch), w = strlen(id);
        len += (c > 6 ? c : 6) + 3 + 10 + 1 + (w > t->width ? w : t->width) + 1;
        if (t->freq) { /* as pass 1 writes it */
          char f[32];
          const size_t m = sm_ldtab_fmt_g(t->freq[v], f);
          len += (m > 10 ? m : 10) + 1;
        }
        continue;
      }
      n += put_right(d + n, 6, ch);
      memcpy(d + n, "   ", 3);
      n += 3;
      num[put_uint(t->loci->pos[v], num)] = 0;
      n += put_right(d + n, 10, num);
      d[n++] = ' ';
      n += put_right(d + n, t->width, id);
      d[n++] = ' ';
      if (t->freq) { /* PLINK's MAF column: 10 wide, then a space */
        char f[32];
        sm_ldtab_fmt_g(t->freq[v], f);
        n += put_right(d + n, 10, f);
        d[n++] = ' ';
      }
      len += n;
    }
    if (!pass) {
      off[t->nv] = len;
      if (!(buf = malloc(len + COL_SLACK))) { /* (put_line reads past the last) */
        free(off);
        return NULL;
      }
    }
  }
  *offp = off;
  return buf;
}

/* The header line into buf; its length. */
static size_t header(const sm_ldtab_t *t, char *buf)
{
  size_t len = 0;
  len += (size_t)sprintf(buf, " CHR_A         BP_A ");
  len += put_right(buf + len, t->width, "SNP_A");
  if (t->freq)
    len += (size_t)sprintf(buf + len, "      MAF_A");
  len += (size_t)sprintf(buf + len, "  CHR_B         BP_B ");
  len += put_right(buf + len, t->width, "SNP_B");
  if (t->freq)
    len += (size_t)sprintf(buf + len, "      MAF_B");
  if (t->ccc) /* the four entries a b (first variant's allele, second's) */
    for (int e = 0; e < 4; e++) {
      char h[8];
      snprintf(h, sizeof h, "CCC_%d%d", e >> 1, e & 1);
      len += put_right(buf + len, 12, h);
      buf[len++] = e == 3 ? '\n' : ' ';
    }
  else /* 11 spaces, then "R2 " or " R " (PLINK's header, one column wider for R) */
    len += (size_t)sprintf(buf + len, "           %s\n", t->r2 ? "R2 " : " R ");
  return len;
}

/* The line of the pair at sorted rows[k] (for ccc: the pair's rows, its
 * entries) into buf (line_max bytes); returns the first row after them
 * and adds the line's length to *len. */
static size_t put_line(const sm_ldtab_t *t, const ld_row_t *rows, size_t n, size_t k,
                       char *buf, size_t *len)
{
  const ld_row_t *x = &rows[k];
  const uint32_t j = t->ccc ? x->j / 4 : x->j;
  double v[4] = {x->v, 0, 0, 0};
  if (t->ccc) { /* the pair's entries (a threshold may have left some out) */
    v[0] = v[1] = v[2] = v[3] = NAN;
    for (; k < n && rows[k].i == x->i && rows[k].j / 4 == j; k++)
      v[rows[k].j % 4] = rows[k].v;
  } else
    k++;
  size_t l = 0;
  for (int side = 0; side < 2; side++) {
    const uint32_t u = side ? j : x->i;
    const size_t w = t->off[u + 1] - t->off[u];
    if (w <= COL_SLACK) /* a fixed-size copy, the rest overwritten next */
      memcpy(buf + l, t->cols + t->off[u], COL_SLACK);
    else
      memcpy(buf + l, t->cols + t->off[u], w);
    l += w;
  }
  char val[32] = {0}; /* (its 16 bytes are copied whatever the length) */
  for (int e = 0; e < (t->ccc ? 4 : 1); e++) {
    const size_t m = sm_ldtab_fmt_g(v[e], val);
    if (m < 12) { /* fixed-size stores: 12 spaces, the value over their end
                     (with bytes past it that the next ones overwrite) */
      memset(buf + l, ' ', 12);
      memcpy(buf + l + 12 - m, val, 16);
      l += 12;
    } else {
      memcpy(buf + l, val, m);
      l += m;
    }
    buf[l++] = e == (t->ccc ? 3 : 0) && t->ccc ? '\n' : ' ';
  }
  if (!t->ccc)
    buf[l++] = '\n';
  *len += l;
  return k;
}

int sm_ldtab_block(const sm_ldtab_t *t, const sm_rec_t *rec, size_t n, sm_ldpiece_t **out)
{
  *out = NULL;
  sm_ldpiece_t *p = calloc(1, sizeof *p);
  ld_row_t *rows = malloc((n ? 2 * n : 1) * sizeof *rows), *sorted = NULL;
  if (!p || !rows)
    goto nomem;
  size_t m = 0;
  uint32_t lo = UINT32_MAX, hi = 0;
  for (size_t k = 0; k < n; k++) {
    const size_t add = table_rows(t, &rec[k], rows + m);
    for (size_t e = m; e < m + add; e++) {
      lo = rows[e].i < lo ? rows[e].i : lo;
      hi = rows[e].i > hi ? rows[e].i : hi;
    }
    m += add;
  }
  if (m) {
    if (!(sorted = sorted_rows(rows, m, lo, (size_t)(hi - lo) + 1)))
      goto nomem;
    p->key = t->ccc ? sorted[0].j / 4 : sorted[0].j;
  }
  free(rows);
  rows = NULL;
  /* the text's size at most: both variants' columns and the values (12
   * wide, or longer, plus a separator) of each line */
  size_t cap = 1 + COL_SLACK, rcap = 0;
  for (size_t k = 0; k < m; k++) {
    const uint32_t j = t->ccc ? sorted[k].j / 4 : sorted[k].j;
    cap += t->off[sorted[k].i + 1] - t->off[sorted[k].i] + t->off[j + 1] - t->off[j] +
           (t->ccc ? 4 : 1) * 32;
  }
  if (m && !(p->text = text_get(cap, &p->tcap)))
    goto nomem;
  for (size_t k = 0; k < m;) {
    /* a new segment for a new first variant; with --ld-snp also where the
     * second variants pass the first (its own line goes between) */
    const ld_row_t *x = &sorted[k];
    if (!p->nrow || p->row[p->nrow - 1] != x->i ||
        (t->index && p->skey[p->nrow - 1] < x->i && x->j > x->i)) {
      if (p->nrow == rcap) {
        const size_t c = rcap ? 2 * rcap : 64;
        uint32_t *gr = realloc(p->row, c * sizeof *gr);
        if (gr)
          p->row = gr;
        size_t *ge = gr ? realloc(p->end, c * sizeof *ge) : NULL;
        if (ge)
          p->end = ge;
        uint32_t *gk = ge ? realloc(p->skey, c * sizeof *gk) : NULL;
        if (!gk)
          goto nomem;
        p->skey = gk, rcap = c;
      }
      p->skey[p->nrow] = t->ccc ? x->j / 4 : x->j;
      p->row[p->nrow++] = x->i;
    }
    k = put_line(t, sorted, m, k, p->text + p->len, &p->len);
    p->end[p->nrow - 1] = p->len;
  }
  free(sorted);
  *out = p;
  return 0;
nomem:
  free(rows);
  free(sorted);
  sm_ldtab_piece_free(p);
  return -1;
}

void sm_ldtab_piece_free(sm_ldpiece_t *p)
{
  if (!p)
    return;
  text_put(p->text, p->tcap);
  free(p->row), free(p->end), free(p->skey);
  free(p);
}

/* The first variant of a pending piece's next segment (UINT32_MAX: none). */
static uint32_t next_row(const sm_ldpiece_t *p)
{
  return p->next < p->nrow ? p->row[p->next] : UINT32_MAX;
}

/* --ld-snp: the line of index variant v with itself (r = 1), when due. */
static int put_self(sm_ldtab_t *t, uint32_t v,
                    int (*put)(void *ctx, const void *p, size_t n), void *ctx)
{
  if (!(t->index[v] & SM_LDTAB_SELF))
    return 0;
  char *buf = malloc(t->line_max + COL_SLACK);
  if (!buf) {
    errno = ENOMEM;
    return -1;
  }
  const ld_row_t self = {v, v, 1.0};
  size_t len = 0;
  put_line(t, &self, 1, 0, buf, &len);
  const int bad = put(ctx, buf, len);
  free(buf);
  return bad;
}

/* Drop the pending pieces written out. */
static void drop_written(sm_ldtab_t *t)
{
  size_t kept = 0;
  for (size_t k = 0; k < t->npend; k++)
    if (t->pend[k]->next == t->pend[k]->nrow)
      sm_ldtab_piece_free(t->pend[k]);
    else
      t->pend[kept++] = t->pend[k];
  t->npend = kept;
}

/* --ld-snp's rows below upto: an index variant's lines in the order of
 * their second variants (each segment's are one tile's, so segments sorted
 * by their first), its own line among them; the own lines of index
 * variants with no other line too. */
static int stream_index(sm_ldtab_t *t, uint32_t upto,
                        int (*put)(void *ctx, const void *p, size_t n), void *ctx)
{
  typedef struct {
    uint32_t key;
    sm_ldpiece_t *p;
    size_t seg;
  } seg_t;
  seg_t *segs = NULL;
  size_t cap = 0;
  int bad = 0;
  for (;;) {
    uint32_t r = UINT32_MAX;
    for (size_t k = 0; k < t->npend; k++) {
      const uint32_t x = next_row(t->pend[k]);
      r = x < r ? x : r;
    }
    const uint32_t stop = r < upto ? r : upto; /* own lines alone before it */
    for (; !bad && t->self_next < stop && t->self_next < t->nv; t->self_next++)
      bad = put_self(t, t->self_next, put, ctx);
    if (bad || r == UINT32_MAX || r >= upto)
      break;
    size_t ns = 0; /* row r's segments, by their first second variant */
    for (size_t k = 0; k < t->npend && !bad; k++)
      for (sm_ldpiece_t *p = t->pend[k]; next_row(p) == r; p->next++) {
        if (ns == cap) {
          seg_t *g = realloc(segs, (cap = cap ? 2 * cap : 16) * sizeof *g);
          if (!g) {
            errno = ENOMEM;
            bad = 1;
            break;
          }
          segs = g;
        }
        size_t at = ns++;
        for (; at > 0 && segs[at - 1].key > p->skey[p->next]; at--)
          segs[at] = segs[at - 1];
        segs[at] = (seg_t){p->skey[p->next], p, p->next};
      }
    int own = 0;
    for (size_t q = 0; q < ns && !bad; q++) {
      if (!own && segs[q].key > r)
        own = 1, bad = put_self(t, r, put, ctx);
      const sm_ldpiece_t *p = segs[q].p;
      const size_t b = segs[q].seg ? p->end[segs[q].seg - 1] : 0;
      if (!bad)
        bad = put(ctx, p->text + b, p->end[segs[q].seg] - b);
    }
    if (!bad && !own)
      bad = put_self(t, r, put, ctx);
    t->self_next = r + 1;
  }
  free(segs);
  drop_written(t);
  return bad ? -1 : 0;
}

int sm_ldtab_hold(sm_ldtab_t *t, sm_ldpiece_t *piece)
{
  t->streamed = 1;
  if (piece && !piece->nrow)
    sm_ldtab_piece_free(piece);
  else if (piece) { /* among the pending ones by key */
    if (t->npend == t->cap_pend) {
      const size_t c = t->cap_pend ? 2 * t->cap_pend : 16;
      sm_ldpiece_t **g = realloc(t->pend, c * sizeof *g);
      if (!g) {
        sm_ldtab_piece_free(piece);
        errno = ENOMEM;
        return -1;
      }
      t->pend = g, t->cap_pend = c;
    }
    size_t at = t->npend;
    for (; at > 0 && t->pend[at - 1]->key > piece->key; at--)
      t->pend[at] = t->pend[at - 1];
    t->pend[at] = piece;
    t->npend++;
  }
  return 0;
}

/* The packed form of the held pieces (sm_ldtab_pack): per piece its key,
 * segment count and text length (u64 each, little-endian), then per
 * segment its first variant, end and --ld-snp key (u32, u64, u32), then
 * the text. */
enum { PACK_HEAD = 24, PACK_SEG = 16 };

int sm_ldtab_pack(sm_ldtab_t *t, unsigned char **buf, size_t *len)
{
  size_t n = 0;
  for (size_t k = 0; k < t->npend; k++)
    n += PACK_HEAD + PACK_SEG * t->pend[k]->nrow + t->pend[k]->len;
  unsigned char *b = malloc(n ? n : 1), *at = b;
  if (!b) {
    errno = ENOMEM;
    return -1;
  }
  for (size_t k = 0; k < t->npend; k++) {
    const sm_ldpiece_t *p = t->pend[k];
    sm_put_le64(at, p->key), sm_put_le64(at + 8, p->nrow), sm_put_le64(at + 16, p->len);
    at += PACK_HEAD;
    for (size_t g = 0; g < p->nrow; g++, at += PACK_SEG) {
      sm_put_le32(at, p->row[g]);
      sm_put_le64(at + 4, p->end[g]);
      sm_put_le32(at + 12, p->skey[g]);
    }
    memcpy(at, p->text, p->len);
    at += p->len;
    sm_ldtab_piece_free(t->pend[k]);
  }
  t->npend = 0;
  *buf = b, *len = n;
  return 0;
}

/* Whether buf is a whole pack of pieces of a table of nv variants. */
static int pack_ok(const unsigned char *buf, size_t len, size_t nv)
{
  const unsigned char *at = buf, *end = buf + len;
  while (at < end) {
    if ((size_t)(end - at) < PACK_HEAD)
      return 0;
    const uint64_t nrow = sm_get_le64(at + 8), tlen = sm_get_le64(at + 16);
    at += PACK_HEAD;
    if (nrow > (size_t)(end - at) / PACK_SEG ||
        tlen > (size_t)(end - at) - nrow * PACK_SEG)
      return 0;
    for (uint64_t g = 0, prev = 0; g < nrow; g++, at += PACK_SEG) {
      const uint64_t e = sm_get_le64(at + 4);
      if (sm_get_le32(at) >= nv || e > tlen || e < prev)
        return 0;
      prev = e;
    }
    at += tlen;
  }
  return 1;
}

int sm_ldtab_unpack(sm_ldtab_t *t, const unsigned char *buf, size_t len)
{
  if (!pack_ok(buf, len, t->nv)) { /* checked whole first: nothing held then */
    errno = EINVAL;
    return -1;
  }
  for (const unsigned char *at = buf, *end = buf + len; at < end;) {
    const size_t nrow = (size_t)sm_get_le64(at + 8), tlen = (size_t)sm_get_le64(at + 16);
    sm_ldpiece_t *p = calloc(1, sizeof *p);
    if (p) {
      p->key = (uint32_t)sm_get_le64(at), p->nrow = nrow, p->len = tlen;
      p->row = malloc((nrow ? nrow : 1) * sizeof *p->row);
      p->end = malloc((nrow ? nrow : 1) * sizeof *p->end);
      p->skey = malloc((nrow ? nrow : 1) * sizeof *p->skey);
      p->text = text_get(tlen ? tlen : 1, &p->tcap);
    }
    if (!p || !p->row || !p->end || !p->skey || !p->text) {
      sm_ldtab_piece_free(p);
      errno = ENOMEM;
      return -1;
    }
    at += PACK_HEAD;
    for (size_t g = 0; g < nrow; g++, at += PACK_SEG) {
      p->row[g] = sm_get_le32(at);
      p->end[g] = (size_t)sm_get_le64(at + 4);
      p->skey[g] = sm_get_le32(at + 12);
    }
    memcpy(p->text, at, tlen);
    at += tlen;
    if (sm_ldtab_hold(t, p))
      return -1;
  }
  return 0;
}

int sm_ldtab_stream(sm_ldtab_t *t, sm_ldpiece_t *piece, uint32_t upto,
                    int (*put)(void *ctx, const void *p, size_t n), void *ctx)
{
  if (sm_ldtab_hold(t, piece))
    return -1;
  if (!t->header) {
    char *h = malloc(2 * t->width + 128);
    const int bad = !h || put(ctx, h, header(t, h));
    free(h);
    if (bad)
      return -1;
    t->header = 1;
  }
  if (t->index)
    return stream_index(t, upto, put, ctx);
  /* the rows below upto, each row's segments in their pieces' order */
  for (;;) {
    uint32_t r = UINT32_MAX;
    for (size_t k = 0; k < t->npend; k++) {
      const uint32_t x = next_row(t->pend[k]);
      r = x < r ? x : r;
    }
    if (r == UINT32_MAX || r >= upto)
      break;
    for (size_t k = 0; k < t->npend; k++) {
      sm_ldpiece_t *p = t->pend[k];
      if (next_row(p) != r)
        continue;
      const size_t b = p->next ? p->end[p->next - 1] : 0;
      if (put(ctx, p->text + b, p->end[p->next] - b))
        return -1;
      p->next++;
    }
  }
  drop_written(t); /* the pieces written out go */
  return 0;
}

sm_err_t sm_ldtab_text(sm_ldtab_t *t, int (*put)(void *ctx, const void *p, size_t n),
                       void *ctx)
{
  if (t->streamed) /* the blocks' lines: the rest of them */
    return !sm_ldtab_stream(t, NULL, UINT32_MAX, put, ctx) ? SM_OK
           : errno == ENOMEM                               ? SM_ENOMEM
                                                           : SM_EIO;
  enum { CHUNK = 1 << 20 };
  for (size_t v = 0; t->index && v < t->nv; v++) /* --ld-snp: the own lines */
    if (t->index[v] & SM_LDTAB_SELF) {
      if (t->n == t->cap) {
        const size_t c = t->cap ? 2 * t->cap : 4096;
        ld_row_t *g = realloc(t->rows, c * sizeof *g);
        if (!g)
          return SM_ENOMEM;
        t->rows = g, t->cap = c;
      }
      t->rows[t->n++] = (ld_row_t){(uint32_t)v, (uint32_t)v, 1.0};
    }
  ld_row_t *rows = sorted_rows(t->rows, t->n, 0, t->nv);
  char *buf = rows ? malloc(CHUNK + t->line_max + 2 * t->width + 128) : NULL;
  if (!buf) {
    free(rows);
    return SM_ENOMEM;
  }
  free(t->rows); /* sorted: the copy is the table */
  t->rows = rows;
  size_t len = header(t, buf);
  int bad = 0;
  for (size_t k = 0; k < t->n && !bad;) {
    k = put_line(t, t->rows, t->n, k, buf + len, &len);
    if (len >= CHUNK) {
      bad = put(ctx, buf, len);
      len = 0;
    }
  }
  if (!bad && len)
    bad = put(ctx, buf, len);
  free(buf);
  return bad ? SM_EIO : SM_OK;
}

void sm_ldtab_free(sm_ldtab_t *t)
{
  if (!t)
    return;
  free(t->rows);
  for (size_t k = 0; k < t->npend; k++)
    sm_ldtab_piece_free(t->pend[k]);
  free(t->pend);
  free(t->cols);
  free(t->off);
  free(t);
  pool_empty();
}
