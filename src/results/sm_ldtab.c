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

/* w's 8 bytes at buf, byte 0 first. */
static inline void put_word(char *buf, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(buf, &w, 8);
#else
  sm_put_le64((unsigned char *)buf, w);
#endif
}

/* The six digits of q (q < 10^6) in a little-endian word, the first in
 * byte 0, and in *tz how many of them end it as zeros: counted from the
 * word's top, no loop or branch on the value (its digits are random to a
 * predictor). */
static inline uint64_t digits6(uint32_t q, int *tz)
{
  const uint64_t w =
      pair_le(q / 10000) | pair_le(q / 100 % 100) << 16 | pair_le(q % 100) << 32;
  const uint64_t nz = (w ^ 0x303030303030ull) << 16; /* 0 bytes: the '0's, last on top */
  *tz = nz ? __builtin_clzll(nz) / 8 : 6;
  return w;
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

/* PLINK's "%g" in two steps: the floating-point part (which form, the
 * digits as an integer, the exponent), then the text from those
 * integers. With AVX-512 the first step takes eight values at a time in
 * vector lanes, performing PLINK's operations one by one as the scalar
 * form does (the same products compared with the same bounds, no
 * contraction under -std=c11), so the text is the same; in the scalar
 * form the value's magnitude picks branches that no predictor foresees,
 * and on a table of 26 million lines that was a third of the formatting. */
enum { FMT_ZERO, FMT_NAN, FMT_INF, FMT_EXP, FMT_FRAC, FMT_INT };

/* A value's text as integers: form (FMT_*), sign, and q, the digits: EXP
 * q in [100000, 999999] and aux the exponent (small: negative); FRAC
 * "0." then aux zeros and q's 6 digits; INT q with aux digits before the
 * point. */
typedef struct fmt_parts {
  uint32_t q;
  uint8_t form, neg, small;
  uint16_t aux;
} fmt_parts_t;

/* The bounds between forms and exponents: the values that round to the
 * next power of ten in 6 digits. d.ddddde-XX / e+XX scale the value into
 * [1, 10) by the powers of ten taken from the largest down: up (lo, up)
 * when below 1, else down (hi, down). */
static const double fmt_lo[9] = {
    9.9999949999999e-256, 9.9999949999999e-128, 9.9999949999999e-64,
    9.9999949999999e-32,  9.9999949999999e-16,  9.9999949999999e-8,
    9.9999949999999e-4,   9.9999949999999e-2,   9.9999949999999e-1};
static const double fmt_hi[9] = {
    9.9999949999999e255, 9.9999949999999e127, 9.9999949999999e63,
    9.9999949999999e31,  9.9999949999999e15,  9.9999949999999e7,
    9.9999949999999e3,   9.9999949999999e1,   9.9999949999999e0};
static const double fmt_up[9] = {1e256, 1e128, 1e64, 1e32, 1e16, 1e8, 1e4, 1e2, 1e1};
static const double fmt_down[9] = {1e-256, 1e-128, 1e-64, 1e-32, 1e-16,
                                   1e-8,   1e-4,   1e-2,  1e-1};
static const int fmt_ex[9] = {256, 128, 64, 32, 16, 8, 4, 2, 1};
/* [1, 10^6): where one more digit goes before the point (each bound ten
 * times the last, as a product), and the scale of the 6 digits */
static const double fmt_lim[6] = {0,
                                  9.9999949999999,
                                  9.9999949999999 * 10,
                                  9.9999949999999 * 10 * 10,
                                  9.9999949999999 * 10 * 10 * 10,
                                  9.9999949999999 * 10 * 10 * 10 * 10};
static const double fmt_scale[6] = {1e5, 1e4, 1e3, 1e2, 1e1, 1};

/* x (>= 0) rounded to an integer, halves to the even one, a half being
 * anything within 5e-9 of it (PLINK's rounding of printed digits). */
static uint32_t round_even_fuzzy(double x)
{
  static const double half[2] = {0.499999995, 0.500000005}; /* t even, odd */
  const uint32_t t = (uint32_t)(int32_t)x;
  return t + (uint32_t)(int32_t)((x - (int32_t)t) + half[t & 1]);
}

/* The parts of v, one value. */
static void fmt_parts1(double v, fmt_parts_t *p)
{
  *p = (fmt_parts_t){0};
  if (v != v) {
    p->form = FMT_NAN;
    return;
  }
  if (v < 0)
    p->neg = 1, v = -v;
  p->small = v < 1;
  if (v == 0) {
    p->form = FMT_ZERO;
  } else if (v < 9.9999949999999e-5 || v >= 999999.49999999) {
    /* steps chosen by table, not by branch; those not taken multiply by 1
     * (the first four only below 1e-31 or above 1e32) */
    int e = 0;
    if (p->small)
      for (int k = v >= fmt_lo[3] ? 4 : 0; k < 9; k++) {
        const int c = v < fmt_lo[k];
        const double by[2] = {1, fmt_up[k]};
        v *= by[c];
        e += fmt_ex[k] & -c;
      }
    else
      for (int k = v < fmt_hi[3] ? 4 : 0; k < 9; k++) {
        const int c = v >= fmt_hi[k];
        const double by[2] = {1, fmt_down[k]};
        v *= by[c];
        e += fmt_ex[k] & -c;
      }
    if (isinf(v))
      p->form = FMT_INF;
    else
      p->form = FMT_EXP, p->q = round_even_fuzzy(v * 100000), p->aux = (uint16_t)e;
  } else if (v < 0.99999949999999) { /* 0.dddddd, down to 0.0001 */
    /* two zeros (v scaled by 100), then one (by 10) */
    int z = 0;
    if (v < 9.9999949999999e-3)
      v *= 100, z += 2;
    if (v < 9.9999949999999e-2)
      v *= 10, z++;
    p->form = FMT_FRAC, p->q = round_even_fuzzy(v * 1000000), p->aux = (uint16_t)z;
  } else { /* [1, 10^6) */
    int ip = 1;
    while (ip < 6 && v >= fmt_lim[ip])
      ip++;
    p->form = FMT_INT, p->q = round_even_fuzzy(v * fmt_scale[ip - 1]);
    p->aux = (uint16_t)ip;
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SM_FMT_AVX512 1
typedef double ld_v8d __attribute__((vector_size(64)));
typedef int64_t ld_v8l __attribute__((vector_size(64)));

/* m's lanes of a, the others of b (m: all ones or zeros a lane) */
#define SEL_D(m, a, b) ((ld_v8d)(((m) & (ld_v8l)(a)) | (~(m) & (ld_v8l)(b))))

/* round_even_fuzzy of each lane of *x (lanes in [0, 2^31)) into *q. */
#define ROUND_FUZZY8(x, q)                                                               \
  do {                                                                                   \
    const ld_v8l t_ = __builtin_convertvector((x), ld_v8l);                              \
    const ld_v8d td_ = __builtin_convertvector(t_, ld_v8d);                              \
    const ld_v8d h_ = SEL_D((t_ & 1) != 0, zero + 0.500000005, zero + 0.499999995);      \
    (q) = t_ + __builtin_convertvector(((x)-td_) + h_, ld_v8l);                          \
  } while (0)

/* The parts of v[0..8), fmt_parts1's operations in the lanes of one
 * function compiled for AVX-512 (F, DQ: the conversions; GCC's clones
 * of it came out scalar). */
__attribute__((target("avx2,fma,avx512f,avx512dq,avx512vl,avx512bw"))) static void
fmt_parts8_avx512(const double *v, fmt_parts_t *out)
{
  const ld_v8d zero = {0};
  ld_v8d x;
  memcpy(&x, v, sizeof x);
  const ld_v8l neg = x < zero, nan = x != x;
  const ld_v8d a = SEL_D(neg, -x, x);
  const ld_v8l isexp = (a < 9.9999949999999e-5) | (a >= 999999.49999999), small = a < 1.0;
  /* every step in every lane: a step not taken multiplies by nothing */
  ld_v8d s = a;
  ld_v8l e = {0};
  for (int k = 0; k < 9; k++) {
    const ld_v8l c = (small & (s < fmt_lo[k])) | (~small & (s >= fmt_hi[k]));
    s = SEL_D(c, s * SEL_D(small, zero + fmt_up[k], zero + fmt_down[k]), s);
    e += c & fmt_ex[k];
  }
  const ld_v8l inf = isexp & (s == zero + __builtin_inf());
  ld_v8l qe, qf, qi;
  ld_v8d arg = SEL_D(isexp & ~inf & ~nan, s * 100000, zero);
  ROUND_FUZZY8(arg, qe);
  const ld_v8l frac = ~isexp & (a < 0.99999949999999);
  ld_v8d f = a;
  ld_v8l z = {0}, c = f < 9.9999949999999e-3;
  f = SEL_D(c, f * 100, f), z += c & 2;
  c = f < 9.9999949999999e-2;
  f = SEL_D(c, f * 10, f), z -= c;
  arg = SEL_D(frac, f * 1000000, zero);
  ROUND_FUZZY8(arg, qf);
  ld_v8l ip = {0};
  ld_v8d sc = zero + fmt_scale[0];
  for (int k = 1; k < 6; k++) {
    c = a >= fmt_lim[k];
    ip -= c, sc = SEL_D(c, zero + fmt_scale[k], sc);
  }
  arg = SEL_D(~isexp & ~frac & ~nan, a * sc, zero);
  ROUND_FUZZY8(arg, qi);
  for (int l = 0; l < 8; l++) {
    fmt_parts_t *p = &out[l];
    *p = (fmt_parts_t){0};
    p->neg = neg[l] != 0, p->small = small[l] != 0;
    if (nan[l])
      p->form = FMT_NAN, p->neg = 0, p->small = 0;
    else if (a[l] == 0)
      p->form = FMT_ZERO;
    else if (inf[l])
      p->form = FMT_INF;
    else if (isexp[l])
      p->form = FMT_EXP, p->q = (uint32_t)qe[l], p->aux = (uint16_t)e[l];
    else if (frac[l])
      p->form = FMT_FRAC, p->q = (uint32_t)qf[l], p->aux = (uint16_t)z[l];
    else
      p->form = FMT_INT, p->q = (uint32_t)qi[l], p->aux = (uint16_t)(1 + ip[l]);
  }
}
#endif

/* 1: the AVX-512 lanes, when the CPU has them; 0: one value at a time. */
static int fmt_vector = 1;

void sm_ldtab_fmt_lanes(int on)
{
  fmt_vector = on;
}

static int fmt_avx512(void)
{
#ifdef SM_FMT_AVX512
  static int have = -1; /* found once (threads that race store the same) */
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0)
    __atomic_store_n(
        &have,
        h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"),
        __ATOMIC_RELAXED);
  return h && fmt_vector;
#else
  return 0;
#endif
}

/* The parts of v[0..8). */
static void fmt_parts8(const double *v, fmt_parts_t *out)
{
#ifdef SM_FMT_AVX512
  if (fmt_avx512()) {
    fmt_parts8_avx512(v, out);
    return;
  }
#endif
  for (int l = 0; l < 8; l++)
    fmt_parts1(v[l], &out[l]);
}

/* The text of p into buf, right-aligned in width (0: none; longer text as
 * it is); returns the bytes taken, max(width, the text's length). Every
 * byte is stored in its place once, never read back (a text assembled
 * in a buffer then copied stalls on its bytes' stores); up to 8 bytes
 * past them may be written (buf holds at least width + 16). */
static size_t fmt_place(const fmt_parts_t *p, char *buf, size_t width)
{
  static const char word[3][4] = {"0", "nan", "inf"}; /* 4 bytes each, copied whole */
  if (width)
    memset(buf, ' ', width);
  if (p->form <= FMT_INF) { /* FMT_ZERO, FMT_NAN, FMT_INF */
    const size_t m = p->form ? 3u + p->neg : 1u, pad = m < width ? width - m : 0;
    if (p->neg)
      buf[pad] = '-';
    memcpy(buf + pad + p->neg, word[p->form], 4);
    return pad + m;
  }
  int tz;
  const uint64_t w = digits6(p->q, &tz);
  /* the digits before the point, and those kept after it; FRAC: "0.",
   * its zeros, then at least one digit */
  size_t before = 1, after = 0, m = p->neg;
  if (p->form == FMT_FRAC) {
    m += 2 + p->aux + 6 - (size_t)(tz < 5 ? tz : 5);
  } else {
    before = p->form == FMT_INT ? p->aux : 1;
    const size_t most = 6 - before;
    after = most - ((size_t)tz < most ? (size_t)tz : most);
    m += before + (after ? 1 + after : 0);
    if (p->form == FMT_EXP)
      m += 2 + (p->aux < 100 ? 2 : 3);
  }
  const size_t pad = m < width ? width - m : 0;
  char *d = buf + pad;
  if (p->neg)
    *d++ = '-';
  if (p->form == FMT_FRAC) {
    memcpy(d, "0.000000", 8);
    put_word(d + 2 + p->aux, w);
    return pad + m;
  }
  put_word(d, w);
  d += before;
  if (after) { /* the point, then the digits after it moved one place */
    *d = '.';
    put_word(d + 1, w >> (8 * before));
    d += 1 + after;
  }
  if (p->form == FMT_EXP) {
    d[0] = 'e';
    d[1] = p->small ? '-' : '+';
    if (p->aux < 100) {
      memcpy(d + 2, digit_pairs + 2 * p->aux, 2);
    } else {
      d[2] = (char)('0' + p->aux / 100);
      memcpy(d + 3, digit_pairs + 2 * (p->aux % 100), 2);
    }
  }
  return pad + m;
}

size_t sm_ldtab_fmt_g(double v, char *buf)
{
  fmt_parts_t p;
  fmt_parts1(v, &p);
  const size_t m = fmt_place(&p, buf, 0);
  buf[m] = 0;
  return m;
}

void sm_ldtab_fmt_g8(const double *v, char (*buf)[16])
{
  fmt_parts_t p[8];
  fmt_parts8(v, p);
  for (int l = 0; l < 8; l++)
    buf[l][fmt_place(&p[l], buf[l], 0)] = 0;
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

/* The parts of the values of r2 / r rows, 8 at a time: those of rows[k]
 * (rows[0..n) read from k on when k is not among the last 8). */
typedef struct fmt_batch {
  size_t base;
  int have;
  fmt_parts_t p[8];
} fmt_batch_t;

static const fmt_parts_t *batch_at(fmt_batch_t *b, const ld_row_t *rows, size_t n,
                                   size_t k)
{
  if (!b->have || k < b->base || k >= b->base + 8) {
    double v[8] = {0};
    for (size_t l = 0; l < 8 && k + l < n; l++)
      v[l] = rows[k + l].v;
    fmt_parts8(v, b->p);
    b->base = k, b->have = 1;
  }
  return &b->p[k - b->base];
}

/* The line of the pair at sorted rows[k] (for ccc: the pair's rows, its
 * entries; r2 and r: its value's parts from b) into buf (line_max bytes);
 * returns the first row after them and adds the line's length to *len. */
static size_t put_line(const sm_ldtab_t *t, const ld_row_t *rows, size_t n, size_t k,
                       fmt_batch_t *b, char *buf, size_t *len)
{
  const ld_row_t *x = &rows[k];
  const uint32_t j = t->ccc ? x->j / 4 : x->j;
  fmt_parts_t ccc[8];
  const fmt_parts_t *vp;
  if (t->ccc) { /* the pair's entries (a threshold may have left some out) */
    double v[8] = {NAN, NAN, NAN, NAN, 0, 0, 0, 0};
    for (; k < n && rows[k].i == x->i && rows[k].j / 4 == j; k++)
      v[rows[k].j % 4] = rows[k].v;
    fmt_parts8(v, ccc);
    vp = ccc;
  } else
    vp = batch_at(b, rows, n, k++);
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
  for (int e = 0; e < (t->ccc ? 4 : 1); e++) {
    l += fmt_place(&vp[e], buf + l, 12); /* 12 wide, or longer */
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
  fmt_batch_t fb = {0};
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
    k = put_line(t, sorted, m, k, &fb, p->text + p->len, &p->len);
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
  fmt_batch_t fb = {0};
  put_line(t, &self, 1, 0, &fb, buf, &len);
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
  fmt_batch_t fb = {0};
  for (size_t k = 0; k < t->n && !bad;) {
    k = put_line(t, t->rows, t->n, k, &fb, buf + len, &len);
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
