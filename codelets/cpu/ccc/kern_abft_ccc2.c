/* kern_abft_ccc2.c: the checksum check of a 2-way CCC tally tile
 * (algorithm-based fault tolerance, Huang and Abraham 1984), --verify's
 * default. A tally is a sum over fields of products of bit planes, so the
 * sum of a tile row over its partners is that row's planes dotted with the
 * partners' column sums, exactly, in integers; the same for a column. The
 * column sums are kept bit-sliced (one plane per bit of the count), so a
 * dot is a few popcounts per 64 fields: O((m + n) nf log n) work for a
 * tile of O(m n nf). */
#include <stdlib.h>
#include <string.h>

#include "sm_ccc_planes.h"

/* The check is compiled twice: for AVX-512 with VPOPCNTDQ (the dots'
 * popcounts become vpopcntq), chosen when the CPU has it, and portable;
 * GCC vectorizes the loops of both (O3). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_ABFT_X86 1
#define SM_ABFT_OPT __attribute__((optimize("O3")))
#define SM_ABFT_VPOPC                                                                    \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt")))
#else
#define SM_ABFT_X86 0
#define SM_ABFT_OPT
#endif

/* Planes of a row (64 fields a word: code word 2w in the even bits, 2w + 1
 * in the odd ones), np of them side by side, nw words each: P1 (r >= 1),
 * P2 (r == 2) and, sparse, M (present), sm_formulas.h's. */
static inline __attribute__((always_inline)) void row_planes(const uint64_t *row,
                                                             size_t nf, int sparse,
                                                             size_t nw, uint64_t *p1,
                                                             uint64_t *p2, uint64_t *pm)
{
  const size_t full = nf / 64, ncw = (nf + 31) / 32;
  for (size_t w = 0; w < full; w++) { /* every field there */
    const uint64_t x0 = row[2 * w], x1 = row[2 * w + 1];
    const uint64_t lo = (x0 & SM_EVEN64) | ((x1 & SM_EVEN64) << 1);
    const uint64_t hi = ((x0 >> 1) & SM_EVEN64) | (((x1 >> 1) & SM_EVEN64) << 1);
    p1[w] = sparse ? lo : lo | hi;
    p2[w] = lo & hi;
    pm[w] = lo | ~hi;
  }
  for (size_t w = full; w < nw; w++) { /* the last, part of a word */
    uint64_t a = 0, b = 0, c = 0;
    for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
      uint64_t lo, hi, valid, q1, q2, qm;
      sm_code_bits(row, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
      sm_gt_planes(lo, hi, valid, sparse, &q1, &q2, &qm);
      a |= q1 << half, b |= q2 << half, c |= qm << half;
    }
    p1[w] = a, p2[w] = b, pm[w] = c;
  }
}

/* Bits of a count up to v. */
static int bits_of(uint64_t v)
{
  int k = 1;
  while (v >>= 1)
    k++;
  return k;
}

/* Bit-sliced column sums of a tile's rows over nw words, [bit][w]: cr the
 * sum of r (kr bits), cm the sum of m (km bits; sparse); rows: added so
 * far. */
typedef struct abft_cols {
  size_t nw, rows;
  int kr, km;
  uint64_t *cr, *cm;
} abft_cols_t;

/* c += x (a plane) over k bits, carries rippled a bit at a time; x is
 * consumed. */
static inline __attribute__((always_inline)) void cnt_add(uint64_t *c, size_t nw, int k,
                                                          uint64_t *x)
{
  for (int b = 0; b < k; b++)
    for (size_t w = 0; w < nw; w++) {
      const uint64_t t = c[b * nw + w] & x[w];
      c[b * nw + w] ^= x[w];
      x[w] = t;
    }
}

/* sum over the fields of plane p times the count c: popcounts weighted by
 * the count's bits. */
static inline __attribute__((always_inline)) uint64_t
cnt_dot(const uint64_t *c, size_t nw, int k, const uint64_t *p)
{
  uint64_t s = 0;
  for (int b = 0; b < k; b++) {
    uint64_t t = 0;
    for (size_t w = 0; w < nw; w++)
      t += (uint64_t)SM_POPC64(p[w] & c[b * nw + w]);
    s += t << b;
  }
  return s;
}

/* The planes of a row in pl (3 nw words, the last nw scratch); adds them
 * to mine when not NULL; want[4] against oth's column sums when not NULL:
 * {r.colr, r.colm, m.colr, m.colm} (dense: want[0] only). */
static inline __attribute__((always_inline)) void
row_pass(const uint64_t *row, size_t nf, int sparse, uint64_t *pl, abft_cols_t *mine,
         const abft_cols_t *oth, uint64_t want[4])
{
  const size_t nw = mine ? mine->nw : oth->nw;
  uint64_t *p1 = pl, *p2 = pl + nw, *pm = pl + 2 * nw, *x = pl + 3 * nw;
  row_planes(row, nf, sparse, nw, p1, p2, pm);
  if (oth) {
    want[0] = cnt_dot(oth->cr, nw, oth->kr, p1) + cnt_dot(oth->cr, nw, oth->kr, p2);
    if (sparse) {
      want[1] = cnt_dot(oth->cm, nw, oth->km, p1) + cnt_dot(oth->cm, nw, oth->km, p2);
      want[2] = cnt_dot(oth->cr, nw, oth->kr, pm);
      want[3] = cnt_dot(oth->cm, nw, oth->km, pm);
    }
  }
  if (mine) { /* only the bits the sums so far can reach */
    mine->rows++;
    const int kr = bits_of(2 * (uint64_t)mine->rows), km = bits_of(mine->rows);
    memcpy(x, p1, nw * sizeof *x);
    cnt_add(mine->cr, nw, kr, x);
    memcpy(x, p2, nw * sizeof *x);
    cnt_add(mine->cr, nw, kr, x);
    if (sparse) {
      memcpy(x, pm, nw * sizeof *x);
      cnt_add(mine->cm, nw, km, x);
    }
  }
}

static int cols_alloc(abft_cols_t *c, size_t rows, size_t nw)
{
  c->nw = nw;
  c->rows = 0;
  c->kr = bits_of(2 * (uint64_t)rows);
  c->km = bits_of(rows);
  c->cr = calloc(nw * (size_t)c->kr + 1, sizeof *c->cr);
  c->cm = calloc(nw * (size_t)c->km + 1, sizeof *c->cm);
  return c->cr && c->cm;
}

/* Row and column sums of C (exact: 64-bit sums of 32-bit tallies) against
 * the dots. */
static inline __attribute__((always_inline)) int
abft_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda, const uint64_t *B,
          size_t ldb, int sparse, const uint32_t *C, size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse), nw = (nf + 63) / 64;
  abft_cols_t ca = {0}, cb = {0};
  uint64_t *cs = calloc(n * nmom + 1, sizeof *cs), *rs = calloc(m * nmom + 1, sizeof *rs),
           *pl = malloc((4 * nw + 1) * 8);
  int ok = cs && rs && pl && cols_alloc(&ca, m, nw) && cols_alloc(&cb, n, nw);
  uint64_t want[4] = {0, 0, 0, 0};
  /* A's column sums; then each row of B: its column sums, and its column
   * of C against A's; then each row of A against B's */
  for (size_t i = 0; ok && i < m; i++)
    row_pass(A + i * lda, nf, sparse, pl, &ca, NULL, want);
  for (size_t i = 0; ok && i < m; i++) { /* one pass over C */
    const uint32_t *c = C + i * ldc * nmom;
    uint64_t *g = rs + i * nmom;
    for (size_t t = 0; t < n * nmom; t++)
      cs[t] += c[t];
    if (sparse)
      for (size_t j = 0; j < n; j++)
        g[0] += c[4 * j], g[1] += c[4 * j + 1], g[2] += c[4 * j + 2],
            g[3] += c[4 * j + 3];
    else
      for (size_t j = 0; j < n; j++)
        g[0] += c[j];
  }
  for (size_t j = 0; ok && j < n; j++) {
    row_pass(B + j * ldb, nf, sparse, pl, &cb, &ca, want);
    /* C[., j] sums r_i r_j, r_i m_j, m_i r_j, m_i m_j over i */
    const uint64_t *g = cs + j * nmom;
    ok = g[0] == want[0] &&
         (!sparse || (g[1] == want[2] && g[2] == want[1] && g[3] == want[3]));
  }
  for (size_t i = 0; ok && i < m; i++) {
    row_pass(A + i * lda, nf, sparse, pl, NULL, &cb, want);
    const uint64_t *g = rs + i * nmom;
    for (size_t k = 0; k < nmom; k++)
      ok &= g[k] == want[k];
  }
  free(cs), free(rs), free(pl), free(ca.cr), free(ca.cm), free(cb.cr), free(cb.cm);
  return ok; /* 0 also when memory is short: the task is not vouched for */
}

typedef int (*abft_ccc2_fn)(size_t, size_t, size_t, const uint64_t *, size_t,
                            const uint64_t *, size_t, int, const uint32_t *, size_t);

SM_ABFT_OPT static int abft_ccc2_portable(size_t m, size_t n, size_t nf,
                                          const uint64_t *A, size_t lda,
                                          const uint64_t *B, size_t ldb, int sparse,
                                          const uint32_t *C, size_t ldc)
{
  return abft_ccc2(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

#if SM_ABFT_X86
SM_ABFT_OPT SM_ABFT_VPOPC static int
abft_ccc2_vpopc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                const uint64_t *B, size_t ldb, int sparse, const uint32_t *C, size_t ldc)
{
  return abft_ccc2(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}
#endif

int sm_kern_abft_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                      size_t ldc)
{
  abft_ccc2_fn f = abft_ccc2_portable;
#if SM_ABFT_X86
  if (__builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    f = abft_ccc2_vpopc;
#endif
  return f(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

/* Column sums of an int8 tile (rows of r, then, sparse, as many rows of
 * m; ld in bytes) over nf fields: sr the sum of r, sm of m (sparse). */
SM_ABFT_OPT static void i8_col_sums(size_t rows, size_t nf, const int8_t *X, size_t ld,
                                    int sparse, uint32_t *sr, uint32_t *sm)
{
  for (size_t j = 0; j < rows; j++) {
    const uint8_t *r = (const uint8_t *)X + j * ld, *mm = r + rows * ld;
    for (size_t q = 0; q < nf; q++)
      sr[q] += r[q];
    if (sparse)
      for (size_t q = 0; q < nf; q++)
        sm[q] += mm[q];
  }
}

/* want[4] of row j of an int8 tile against the other side's sums. */
SM_ABFT_OPT static void i8_row_dot(size_t rows, size_t j, size_t nf, const int8_t *X,
                                   size_t ld, int sparse, const uint32_t *sr,
                                   const uint32_t *sm, uint64_t want[4])
{
  const uint8_t *r = (const uint8_t *)X + j * ld, *mm = r + rows * ld;
  uint64_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;
  for (size_t q = 0; q < nf; q++)
    w0 += (uint64_t)r[q] * sr[q];
  if (sparse)
    for (size_t q = 0; q < nf; q++) {
      w1 += (uint64_t)r[q] * sm[q];
      w2 += (uint64_t)mm[q] * sr[q];
      w3 += (uint64_t)mm[q] * sm[q];
    }
  want[0] = w0, want[1] = w1, want[2] = w2, want[3] = w3;
}

SM_ABFT_OPT int sm_kern_abft_ccc2_i8(size_t m, size_t n, size_t nf, const int8_t *A8,
                                     size_t lda8, const int8_t *B8, size_t ldb8,
                                     int sparse, const uint32_t *C, size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse);
  uint32_t *s = calloc(4 * nf + 1, sizeof *s);
  uint64_t *cs = calloc(n * nmom + 1, sizeof *cs);
  int ok = s && cs;
  uint32_t *sar = s, *sam = s + nf, *sbr = s + 2 * nf, *sbm = s + 3 * nf;
  if (ok) {
    i8_col_sums(m, nf, A8, lda8, sparse, sar, sam);
    i8_col_sums(n, nf, B8, ldb8, sparse, sbr, sbm);
    for (size_t i = 0; i < m; i++)
      for (size_t t = 0; t < n * nmom; t++)
        cs[t] += C[i * ldc * nmom + t];
  }
  uint64_t want[4];
  for (size_t j = 0; ok && j < n; j++) {
    i8_row_dot(n, j, nf, B8, ldb8, sparse, sar, sam, want);
    const uint64_t *g = cs + j * nmom;
    ok = g[0] == want[0] &&
         (!sparse || (g[1] == want[2] && g[2] == want[1] && g[3] == want[3]));
  }
  for (size_t i = 0; ok && i < m; i++) {
    i8_row_dot(m, i, nf, A8, lda8, sparse, sbr, sbm, want);
    const uint32_t *c = C + i * ldc * nmom;
    uint64_t g[4] = {0, 0, 0, 0};
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k < nmom; k++)
        g[k] += c[j * nmom + k];
    for (size_t k = 0; k < nmom; k++)
      ok &= g[k] == want[k];
  }
  free(s), free(cs);
  return ok;
}
