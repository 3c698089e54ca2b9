/* kern_abft_ccc.c: the checksum checks of CCC tally tiles, 2-way and
 * 3-way (algorithm-based fault tolerance, Huang and Abraham 1984),
 * --verify's default. A tally is a sum over fields of products of bit
 * planes, so the sum of a tile row over its partners is that row's planes
 * (3-way: masked by the plane vector's genotype class) dotted with the
 * partners' column sums, exactly, in integers; the same for a column. The
 * column sums are kept bit-sliced (one plane per bit of the count), so a
 * dot is a few popcounts per 64 fields: O((m + n) nf log n) work for a
 * tile of O(m n nf) (3-way: O(g mx nf log my) for O(g mx my nf)). */
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

/* The planes of a row (p1, p2, pm; masked by e when not NULL) dotted with
 * a bit-sliced count c of k bits: *r = sum of r c, *m = sum of m c
 * (sparse). One pass over the words per bit of the count, both sums at
 * once: popcounts weighted by the count's bits. */
static inline __attribute__((always_inline)) void
cnt_dot(const uint64_t *c, size_t nw, int k, const uint64_t *p1, const uint64_t *p2,
        const uint64_t *pm, const uint64_t *e, int sparse, uint64_t *r, uint64_t *m)
{
  uint64_t sr = 0, sm = 0;
  for (int b = 0; b < k; b++) {
    const uint64_t *cb = c + (size_t)b * nw;
    uint64_t tr = 0, tm = 0;
    for (size_t w = 0; w < nw; w++) {
      const uint64_t x = e ? cb[w] & e[w] : cb[w];
      tr += (uint64_t)SM_POPC64(p1[w] & x) + (uint64_t)SM_POPC64(p2[w] & x);
      if (sparse)
        tm += (uint64_t)SM_POPC64(pm[w] & x);
    }
    sr += tr << b, sm += tm << b;
  }
  *r = sr, *m = sm;
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
  if (oth) { /* {r.colr, r.colm, m.colr, m.colm} */
    cnt_dot(oth->cr, nw, oth->kr, p1, p2, pm, NULL, sparse, &want[0], &want[2]);
    if (sparse)
      cnt_dot(oth->cm, nw, oth->km, p1, p2, pm, NULL, sparse, &want[1], &want[3]);
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

#if SM_ABFT_X86
static int vpopc_ok(void)
{
  return __builtin_cpu_supports("avx512vpopcntdq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}
#endif

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
  if (vpopc_ok())
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

/* ---- 3-way: the plane results of (p, x) against the y of a tile. For a
 * genotype class e of p's fields (sparse E0, E1, E2; dense E1, E2), the
 * moments of (p, x) summed over the y are x's planes masked by e dotted
 * with the column sums of those y. Rows of a slice keep only the y from
 * sm_keep3_lo on: rows go by that bound, highest first, so the column sums
 * of the y kept only grow (bit-sliced counters only add). */

/* The classes of p's fields, nw words each (parts of sm_formulas.h). */
static inline __attribute__((always_inline)) void
row_classes(const uint64_t *pl, int sparse, size_t nw, uint64_t *e)
{
  const uint64_t *p1 = pl, *p2 = pl + nw, *pm = pl + 2 * nw;
  for (size_t w = 0; w < nw; w++) {
    if (sparse) { /* present with r = 0, 1, 2 */
      e[w] = pm[w] & ~p1[w];
      e[nw + w] = p1[w] & ~p2[w];
      e[2 * nw + w] = p2[w];
    } else { /* r = 1 (a missing code too), r = 2 */
      e[w] = p1[w] & ~p2[w];
      e[nw + w] = p2[w];
    }
  }
}

/* want[12] of x's planes against the column sums c, class by class. */
static inline __attribute__((always_inline)) void want3(const uint64_t *xp,
                                                        const uint64_t *e,
                                                        const abft_cols_t *c, int sparse,
                                                        uint64_t want[12])
{
  const size_t nw = c->nw;
  const uint64_t *p1 = xp, *p2 = xp + nw, *pm = xp + 2 * nw;
  for (int k = 0; k < (sparse ? 3 : 2); k++) {
    const uint64_t *ek = e + (size_t)k * nw;
    uint64_t *wk = sparse ? want + 4 * k : want + k, unused;
    cnt_dot(c->cr, nw, c->kr, p1, p2, pm, ek, sparse, &wk[0], sparse ? &wk[2] : &unused);
    if (sparse)
      cnt_dot(c->cm, nw, c->km, p1, p2, pm, ek, sparse, &wk[1], &wk[3]);
  }
}

static inline __attribute__((always_inline)) int
abft_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P, size_t ldp,
          const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
          const sm_keep3_t *keep, const uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), rows = g * mx, nw = (nf + 63) / 64;
  abft_cols_t full = {0}, suf = {0};
  uint64_t *pp = malloc((g * 3 * nw + 1) * 8), *xp = malloc((mx * 3 * nw + 1) * 8),
           *yp = malloc((4 * nw + 1) * 8), *ec = malloc((3 * nw + 1) * 8);
  size_t *order = malloc((rows + 1) * sizeof *order),
         *start = calloc(my + 2, sizeof *start);
  int ok = pp && xp && yp && ec && order && start && cols_alloc(&full, my, nw) &&
           cols_alloc(&suf, my, nw);
  for (size_t a = 0; ok && a < g; a++)
    row_planes(P + a * ldp, nf, sparse, nw, pp + a * 3 * nw, pp + a * 3 * nw + nw,
               pp + a * 3 * nw + 2 * nw);
  for (size_t x = 0; ok && x < mx; x++)
    row_planes(X + x * ldx, nf, sparse, nw, xp + x * 3 * nw, xp + x * 3 * nw + nw,
               xp + x * 3 * nw + 2 * nw);
  uint64_t want[12];
  for (size_t y = 0; ok && y < my; y++)
    row_pass(Y + y * ldy, nf, sparse, yp, &full, NULL, want);
  if (ok) { /* rows by their first kept y, highest first (counting sort) */
    for (size_t i = 0; i < rows; i++)
      start[my - (keep ? sm_keep3_lo(keep, i / mx, i % mx, my) : 0) + 1]++;
    for (size_t l = 1; l <= my + 1; l++)
      start[l] += start[l - 1];
    for (size_t i = 0; i < rows; i++)
      order[start[my - (keep ? sm_keep3_lo(keep, i / mx, i % mx, my) : 0)]++] = i;
  }
  size_t cur = my; /* suf: the column sums of the y >= cur */
  size_t last_a = (size_t)-1;
  for (size_t k = 0; ok && k < rows; k++) {
    const size_t i = order[k], a = i / mx, x = i % mx;
    const size_t lo = keep ? sm_keep3_lo(keep, a, x, my) : 0;
    for (; cur > lo; cur--)
      row_pass(Y + (cur - 1) * ldy, nf, sparse, yp, &suf, NULL, want);
    if (a != last_a)
      row_classes(pp + a * 3 * nw, sparse, nw, ec), last_a = a;
    uint64_t got[12] = {0}, pre[12] = {0};
    int pre_zero = 1;
    const uint32_t *c = out + i * my * nmom;
    for (size_t y = 0; y < lo; y++)
      for (size_t t = 0; t < nmom; t++) {
        pre[t] += c[y * nmom + t];
        pre_zero &= c[y * nmom + t] == 0;
      }
    for (size_t y = lo; y < my; y++)
      for (size_t t = 0; t < nmom; t++)
        got[t] += c[y * nmom + t];
    want3(xp + x * 3 * nw, ec, &suf, sparse, want);
    for (size_t t = 0; t < nmom; t++)
      ok &= got[t] == want[t];
    if (ok && !pre_zero) { /* the skipped y computed: the rest of the row */
      uint64_t all[12];
      want3(xp + x * 3 * nw, ec, &full, sparse, all);
      for (size_t t = 0; t < nmom; t++)
        ok &= pre[t] == all[t] - want[t];
    }
  }
  free(pp), free(xp), free(yp), free(ec), free(order), free(start);
  free(full.cr), free(full.cm), free(suf.cr), free(suf.cm);
  return ok; /* 0 also when memory is short: the task is not vouched for */
}

typedef int (*abft_ccc3_fn)(size_t, size_t, size_t, size_t, const uint64_t *, size_t,
                            const uint64_t *, size_t, const uint64_t *, size_t, int,
                            const sm_keep3_t *, const uint32_t *);

SM_ABFT_OPT static int abft_ccc3_portable(size_t g, size_t mx, size_t my, size_t nf,
                                          const uint64_t *P, size_t ldp,
                                          const uint64_t *X, size_t ldx,
                                          const uint64_t *Y, size_t ldy, int sparse,
                                          const sm_keep3_t *keep, const uint32_t *out)
{
  return abft_ccc3(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, keep, out);
}

#if SM_ABFT_X86
SM_ABFT_OPT SM_ABFT_VPOPC static int
abft_ccc3_vpopc(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P, size_t ldp,
                const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
                const sm_keep3_t *keep, const uint32_t *out)
{
  return abft_ccc3(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, keep, out);
}
#endif

int sm_kern_abft_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                      size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                      size_t ldy, int sparse, const sm_keep3_t *keep, const uint32_t *out)
{
  abft_ccc3_fn f = abft_ccc3_portable;
#if SM_ABFT_X86
  if (vpopc_ok())
    f = abft_ccc3_vpopc;
#endif
  return f(g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, keep, out);
}
