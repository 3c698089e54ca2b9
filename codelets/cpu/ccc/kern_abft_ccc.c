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
#include "sm_sidecache.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif

/* The check is compiled three times: for AVX-512 with VPOPCNTDQ (the
 * dots' popcounts become vpopcntq, C's sums 16 tallies an instruction),
 * for AVX2 and portable; the fastest the CPU runs is used unless
 * sm_kern_abft_use says otherwise. GCC vectorizes the loops of all three
 * (O3). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_ABFT_X86 1
#define SM_ABFT_OPT __attribute__((optimize("O3")))
#define SM_ABFT_VPOPC                                                                    \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt")))
#define SM_ABFT_AVX2 __attribute__((target("avx2,popcnt")))
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

/* T (nb bits) += S (ks bits) masked by p (NULL: not masked), word by word,
 * carries rippled a bit at a time (carry: nw words of scratch); stops
 * past S's bits once no carry is left. */
static inline __attribute__((always_inline)) void sliced_add(uint64_t *T, int nb,
                                                             const uint64_t *S, int ks,
                                                             const uint64_t *p, size_t nw,
                                                             uint64_t *carry)
{
  memset(carry, 0, nw * sizeof *carry);
  for (int b = 0; b < nb; b++) {
    uint64_t *tb = T + (size_t)b * nw, any = 0;
    const uint64_t *sb = S + (size_t)b * nw;
    if (b < ks)
      for (size_t w = 0; w < nw; w++) {
        const uint64_t a = p ? sb[w] & p[w] : sb[w], t = tb[w], c = carry[w];
        tb[w] = t ^ a ^ c;
        carry[w] = (t & a) | (c & (t ^ a));
        any |= carry[w];
      }
    else
      for (size_t w = 0; w < nw; w++) {
        const uint64_t t = tb[w], c = carry[w];
        tb[w] = t ^ c;
        carry[w] = t & c;
        any |= carry[w];
      }
    if (b + 1 >= ks && !any)
      break;
  }
}

/* Bit-sliced column sums of a tile's rows over nw words, [bit][w]: cr the
 * sum of r (kr bits), cm the sum of m (km bits; sparse); rows: added so
 * far. A row goes first into small counters of SM_ABFT_SB bits (sr, sm:
 * r as a 2-bit number, m as one bit), which go into cr and cm every
 * SM_ABFT_PEND rows and before the sums are read (cols_flush): a row then
 * costs adds of a few bits, where adding its planes one by one into the
 * wide counters cost twice kr bits and km more. */
enum { SM_ABFT_SB = 5, SM_ABFT_PEND = 15 }; /* 15 rows of r <= 2: at most 30 */
typedef struct abft_cols {
  size_t nw, rows;
  int kr, km;
  unsigned pend; /* rows in sr, sm */
  uint64_t *cr, *cm, *sr, *sm, *carry;
} abft_cols_t;

/* Row planes into the small counters: r = p1 + p2 (p2 within p1: bit 0 is
 * p1 & ~p2, bit 1 p2), m = pm (sparse). */
static inline __attribute__((always_inline)) void
small_add(abft_cols_t *c, const uint64_t *p1, const uint64_t *p2, const uint64_t *pm,
          int sparse)
{
  const size_t nw = c->nw;
  uint64_t *s = c->sr, *u = c->sm;
  for (size_t w = 0; w < nw; w++) {
    const uint64_t x0 = p1[w] & ~p2[w], x1 = p2[w];
    uint64_t t = s[w], k = t & x0;
    s[w] = t ^ x0;
    t = s[nw + w];
    s[nw + w] = t ^ x1 ^ k;
    k = (t & x1) | (k & (t ^ x1));
    for (int b = 2; b < SM_ABFT_SB; b++) {
      t = s[(size_t)b * nw + w];
      s[(size_t)b * nw + w] = t ^ k;
      k &= t;
    }
  }
  if (sparse)
    for (size_t w = 0; w < nw; w++) {
      uint64_t k = pm[w];
      for (int b = 0; b < SM_ABFT_SB; b++) {
        const uint64_t t = u[(size_t)b * nw + w];
        u[(size_t)b * nw + w] = t ^ k;
        k &= t;
      }
    }
}

/* The small counters into the wide ones (only the bits the sums so far
 * can reach), and cleared. */
static inline __attribute__((always_inline)) void cols_flush(abft_cols_t *c)
{
  if (!c->pend)
    return;
  const size_t nw = c->nw, small = (size_t)SM_ABFT_SB * nw;
  sliced_add(c->cr, bits_of(2 * (uint64_t)c->rows), c->sr, SM_ABFT_SB, NULL, nw,
             c->carry);
  sliced_add(c->cm, bits_of(c->rows), c->sm, SM_ABFT_SB, NULL, nw, c->carry);
  memset(c->sr, 0, 2 * small * sizeof *c->sr); /* sr, then sm */
  c->pend = 0;
}

static int abft_pick(void);

/* One function of the check per variant: NAME_portable, NAME_avx2 and
 * NAME_vpopc around the inline body BODY, with PARAMS and ARGS. */
#if SM_ABFT_X86
#define SM_ABFT_VARIANTS(NAME, BODY, PARAMS, ARGS)                                       \
  SM_ABFT_OPT static int NAME##_portable PARAMS                                          \
  {                                                                                      \
    return BODY ARGS;                                                                    \
  }                                                                                      \
  SM_ABFT_OPT SM_ABFT_AVX2 static int NAME##_avx2 PARAMS                                 \
  {                                                                                      \
    return BODY ARGS;                                                                    \
  }                                                                                      \
  SM_ABFT_OPT SM_ABFT_VPOPC static int NAME##_vpopc PARAMS                               \
  {                                                                                      \
    return BODY ARGS;                                                                    \
  }
#define SM_ABFT_CALL(NAME, ARGS)                                                         \
  (abft_pick() == 2   ? NAME##_vpopc ARGS                                                \
   : abft_pick() == 1 ? NAME##_avx2 ARGS                                                 \
                      : NAME##_portable ARGS)
#else
#define SM_ABFT_VARIANTS(NAME, BODY, PARAMS, ARGS)                                       \
  SM_ABFT_OPT static int NAME##_portable PARAMS                                          \
  {                                                                                      \
    return BODY ARGS;                                                                    \
  }
#define SM_ABFT_CALL(NAME, ARGS) NAME##_portable ARGS
#endif

/* The planes of a row (p1, p2, pm; masked by e when not NULL) dotted with
 * a bit-sliced count c of k bits: *r = sum of r c, *m = sum of m c
 * (sparse). One pass over the words per bit of the count, both sums at
 * once: popcounts weighted by the count's bits. */
static inline __attribute__((always_inline)) void
cnt_dot_ref(const uint64_t *c, size_t nw, int k, const uint64_t *p1, const uint64_t *p2,
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

#if SM_ABFT_X86
/* The same with AVX-512 VPOPCNTDQ: 8 words an instruction. A chunk of 8
 * words at a time, its planes held in registers across the count's bits,
 * the bits from the highest down (Horner: the sums doubled, then this
 * bit's popcounts added); the lanes added up once. */
SM_ABFT_OPT SM_ABFT_VPOPC static void
cnt_dot_vpopc(const uint64_t *c, size_t nw, int k, const uint64_t *p1, const uint64_t *p2,
              const uint64_t *pm, const uint64_t *e, int sparse, uint64_t *r, uint64_t *m)
{
  __m512i sr = _mm512_setzero_si512(), sm = _mm512_setzero_si512();
  for (size_t w = 0; w < nw; w += 8) {
    const __mmask8 lm = nw - w >= 8 ? 0xff : (__mmask8)((1u << (nw - w)) - 1);
    __m512i a1 = _mm512_maskz_loadu_epi64(lm, p1 + w),
            a2 = _mm512_maskz_loadu_epi64(lm, p2 + w),
            am = sparse ? _mm512_maskz_loadu_epi64(lm, pm + w) : _mm512_setzero_si512();
    if (e) {
      const __m512i ev = _mm512_maskz_loadu_epi64(lm, e + w);
      a1 = _mm512_and_si512(a1, ev), a2 = _mm512_and_si512(a2, ev);
      am = _mm512_and_si512(am, ev);
    }
    __m512i tr = _mm512_setzero_si512(), tm = _mm512_setzero_si512();
    for (int b = k - 1; b >= 0; b--) {
      const __m512i x = _mm512_maskz_loadu_epi64(lm, c + (size_t)b * nw + w);
      tr = _mm512_add_epi64(tr, tr);
      tr = _mm512_add_epi64(tr, _mm512_popcnt_epi64(_mm512_and_si512(x, a1)));
      tr = _mm512_add_epi64(tr, _mm512_popcnt_epi64(_mm512_and_si512(x, a2)));
      if (sparse) {
        tm = _mm512_add_epi64(tm, tm);
        tm = _mm512_add_epi64(tm, _mm512_popcnt_epi64(_mm512_and_si512(x, am)));
      }
    }
    sr = _mm512_add_epi64(sr, tr), sm = _mm512_add_epi64(sm, tm);
  }
  *r = (uint64_t)_mm512_reduce_add_epi64(sr), *m = (uint64_t)_mm512_reduce_add_epi64(sm);
}
#endif

/* The dot of the variant in use. */
static inline __attribute__((always_inline)) void
cnt_dot(const uint64_t *c, size_t nw, int k, const uint64_t *p1, const uint64_t *p2,
        const uint64_t *pm, const uint64_t *e, int sparse, uint64_t *r, uint64_t *m)
{
#if SM_ABFT_X86
  if (abft_pick() == 2) {
    cnt_dot_vpopc(c, nw, k, p1, p2, pm, e, sparse, r, m);
    return;
  }
#endif
  cnt_dot_ref(c, nw, k, p1, p2, pm, e, sparse, r, m);
}

/* The planes of a row in pl (3 nw words), added to mine's column sums. */
static inline __attribute__((always_inline)) void
row_pass(const uint64_t *row, size_t nf, int sparse, uint64_t *pl, abft_cols_t *mine)
{
  const size_t nw = mine->nw;
  uint64_t *p1 = pl, *p2 = pl + nw, *pm = pl + 2 * nw;
  row_planes(row, nf, sparse, nw, p1, p2, pm);
  mine->rows++;
  small_add(mine, p1, p2, pm, sparse);
  if (++mine->pend == SM_ABFT_PEND)
    cols_flush(mine);
}

static int cols_alloc(abft_cols_t *c, size_t rows, size_t nw)
{
  c->nw = nw;
  c->rows = 0;
  c->pend = 0;
  c->kr = bits_of(2 * (uint64_t)rows);
  c->km = bits_of(rows);
  c->cr = calloc(nw * (size_t)c->kr + 1, sizeof *c->cr);
  c->cm = calloc(nw * (size_t)c->km + 1, sizeof *c->cm);
  c->sr = calloc(nw * (2 * (size_t)SM_ABFT_SB + 1) + 1, sizeof *c->sr);
  c->sm = c->sr ? c->sr + (size_t)SM_ABFT_SB * nw : NULL;
  c->carry = c->sr ? c->sm + (size_t)SM_ABFT_SB * nw : NULL;
  return c->cr && c->cm && c->sr;
}

static void cols_free(abft_cols_t *c)
{
  free(c->cr), free(c->cm), free(c->sr);
}

/* The row and column sums of C, modulo 2^32 (wrapping 32-bit adds: a
 * changed tally changes its sums by a nonzero amount modulo 2^32, so the
 * guarantee is that of exact sums), in one pass over C: cs (n nmom) and
 * rs (m nmom) are set. 16 tallies at a time (vector extensions: SSE2,
 * AVX2 or AVX-512 by the target the caller is compiled for); nmom, 1 or
 * 4, divides 16, so lane k of a row's accumulator holds moment k % nmom.
 * rb rows go together (a constant of the caller): their accumulators stay
 * in registers and cs is read and written once per rb rows, not per row
 * (per row, the loads and stores of cs cost more than reading C). */
typedef uint32_t sm_v16u __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) void
c_sums_rows(size_t rb, size_t n, size_t nmom, const uint32_t *c, size_t ld, uint32_t *cs,
            uint32_t *rs)
{
  const size_t len = n * nmom, nv = len / 16;
  sm_v16u acc[8];
  for (size_t r = 0; r < rb; r++)
    acc[r] = (sm_v16u){0};
  for (size_t v = 0; v < nv; v++) {
    sm_v16u s;
    memcpy(&s, cs + 16 * v, sizeof s);
    for (size_t r = 0; r < rb; r++) {
      sm_v16u x;
      memcpy(&x, c + r * ld + 16 * v, sizeof x);
      s += x, acc[r] += x;
    }
    memcpy(cs + 16 * v, &s, sizeof s);
  }
  for (size_t r = 0; r < rb; r++) {
    const uint32_t *cr = c + r * ld;
    uint32_t g[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < 16; k++)
      g[k % nmom] += acc[r][k];
    for (size_t t = 16 * nv; t < len; t++)
      cs[t] += cr[t], g[t % nmom] += cr[t];
    memcpy(rs + r * nmom, g, nmom * sizeof *g);
  }
}

static inline __attribute__((always_inline)) void c_sums(size_t m, size_t n, size_t nmom,
                                                         const uint32_t *C, size_t ldc,
                                                         uint32_t *cs, uint32_t *rs)
{
  /* 8 rows where there are 32 vector registers (AVX-512), else 4 */
  const size_t rb = abft_pick() == 2 ? 8 : 4, ld = ldc * nmom;
  memset(cs, 0, n * nmom * sizeof *cs);
  size_t i = 0;
  for (; i + rb <= m; i += rb)
    if (rb == 8)
      c_sums_rows(8, n, nmom, C + i * ld, ld, cs, rs + i * nmom);
    else
      c_sums_rows(4, n, nmom, C + i * ld, ld, cs, rs + i * nmom);
  for (; i < m; i++)
    c_sums_rows(1, n, nmom, C + i * ld, ld, cs, rs + i * nmom);
}

/* A tile's side of the 2-way checks, derived once and kept between the
 * checks of its pairs (sm_sidecache.h): its rows' planes (p1, p2, pm:
 * 3 nw words a row) and its column sums, bit-sliced and flushed (sr and
 * its scratch freed). */
typedef struct abft_side {
  abft_cols_t cols;
  uint64_t *pl;
} abft_side_t;

static void abft_side_drop(void *p)
{
  abft_side_t *s = p;
  cols_free(&s->cols);
  free(s->pl);
  free(s);
}

/* The planes and column sums of nv rows at X into s (allocated). */
static inline __attribute__((always_inline)) int abft_side_fill(const uint64_t *X,
                                                                size_t nv, size_t nf,
                                                                size_t ldx, int sparse,
                                                                abft_side_t *s)
{
  const size_t nw = (nf + 63) / 64;
  for (size_t v = 0; v < nv; v++)
    row_pass(X + v * ldx, nf, sparse, s->pl + 3 * nw * v, &s->cols);
  cols_flush(&s->cols);
  return 0;
}

SM_ABFT_VARIANTS(abft_side_fill_v, abft_side_fill,
                 (const uint64_t *X, size_t nv, size_t nf, size_t ldx, int sparse,
                  abft_side_t *s),
                 (X, nv, nf, ldx, sparse, s))

static void *abft_side_build(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                             int sparse, size_t *bytes)
{
  const size_t nw = (nf + 63) / 64;
  abft_side_t *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->pl = malloc((3 * nw * nv + 1) * sizeof *s->pl);
  if (!s->pl || !cols_alloc(&s->cols, nv, nw)) {
    abft_side_drop(s);
    return NULL;
  }
  SM_ABFT_CALL(abft_side_fill_v, (X, nv, nf, ldx, sparse, s));
  free(s->cols.sr); /* the small counters and the carry */
  s->cols.sr = s->cols.sm = s->cols.carry = NULL;
  *bytes = sizeof *s + (3 * nw * nv + (size_t)(s->cols.kr + s->cols.km) * nw) * 8;
  return s;
}

static void *abft_side_sparse(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                              size_t *bytes)
{
  return abft_side_build(X, nv, nf, ldx, 1, bytes);
}

static void *abft_side_dense(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                             size_t *bytes)
{
  return abft_side_build(X, nv, nf, ldx, 0, bytes);
}

/* sm_side_get's kinds of abft_side_t */
enum { ABFT_SIDE_DENSE = 0x61620000, ABFT_SIDE_SPARSE = 0x61620001 };

/* Both tiles' sides (b is a's when B is A); 0 when memory is short. */
static int abft_sides(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, const abft_side_t **a,
                      const abft_side_t **b, sm_side_ref_t r[2])
{
  const int kind = sparse ? ABFT_SIDE_SPARSE : ABFT_SIDE_DENSE;
  sm_side_build_fn build = sparse ? abft_side_sparse : abft_side_dense;
  *a = sm_side_get(kind, A, m, nf, lda, build, abft_side_drop, &r[0]);
  if (!*a)
    return 0;
  *b = sm_side_get(kind, B, n, nf, ldb, build, abft_side_drop, &r[1]);
  if (!*b) {
    sm_side_release(&r[0]);
    return 0;
  }
  return 1;
}

/* The dots of a side's row v against the other side's column sums:
 * {r.colr, r.colm, m.colr, m.colm} (dense: want[0] only). */
static inline __attribute__((always_inline)) void side_dots(const abft_side_t *s,
                                                            size_t v,
                                                            const abft_cols_t *oth,
                                                            int sparse, uint64_t want[4])
{
  const size_t nw = oth->nw;
  const uint64_t *p1 = s->pl + 3 * nw * v, *p2 = p1 + nw, *pm = p2 + nw;
  cnt_dot(oth->cr, nw, oth->kr, p1, p2, pm, NULL, sparse, &want[0], &want[2]);
  if (sparse)
    cnt_dot(oth->cm, nw, oth->km, p1, p2, pm, NULL, sparse, &want[1], &want[3]);
}

/* Row and column sums of C against the dots (modulo 2^32, see c_sums). */
static inline __attribute__((always_inline)) int
abft_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda, const uint64_t *B,
          size_t ldb, int sparse, const uint32_t *C, size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse);
  const abft_side_t *sa, *sb;
  sm_side_ref_t ref[2];
  uint32_t *cs = malloc((n * nmom + 16) * sizeof *cs),
           *rs = malloc((m * nmom + 16) * sizeof *rs);
  int ok = cs && rs;
  if (!ok || !abft_sides(m, n, nf, A, lda, B, ldb, sparse, &sa, &sb, ref)) {
    free(cs), free(rs);
    return 0; /* memory is short: the task is not vouched for */
  }
  uint64_t want[4] = {0, 0, 0, 0};
  c_sums(m, n, nmom, C, ldc, cs, rs);
  /* each column of C (a row of B) against A's column sums */
  for (size_t j = 0; ok && j < n; j++) {
    side_dots(sb, j, &sa->cols, sparse, want);
    /* C[., j] sums r_i r_j, r_i m_j, m_i r_j, m_i m_j over i */
    const uint32_t *g = cs + j * nmom;
    ok = g[0] == (uint32_t)want[0] &&
         (!sparse || (g[1] == (uint32_t)want[2] && g[2] == (uint32_t)want[1] &&
                      g[3] == (uint32_t)want[3]));
  }
  for (size_t i = 0; ok && i < m; i++) {
    side_dots(sa, i, &sb->cols, sparse, want);
    const uint32_t *g = rs + i * nmom;
    for (size_t k = 0; k < nmom; k++)
      ok &= g[k] == (uint32_t)want[k];
  }
  sm_side_release(&ref[1]);
  sm_side_release(&ref[0]);
  free(cs), free(rs);
  return ok;
}

/* The variant in use: 0 portable, 1 AVX2, 2 AVX-512 (VPOPCNTDQ); -1 the
 * fastest this CPU runs. */
static int abft_isa = -1;

static int abft_best(void)
{
#if SM_ABFT_X86
  if (__builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
    return 1;
#endif
  return 0;
}

static int abft_pick(void)
{
  static int best = -1; /* the CPU's, found once (workers may race: same value) */
  int b = __atomic_load_n(&best, __ATOMIC_RELAXED);
  if (b < 0)
    __atomic_store_n(&best, b = abft_best(), __ATOMIC_RELAXED);
  const int isa = __atomic_load_n(&abft_isa, __ATOMIC_RELAXED);
  return isa >= 0 ? isa : b;
}

int sm_kern_abft_isa(void)
{
  return abft_pick();
}

int sm_kern_abft_use(sm_kvar_t v)
{
  const int best = abft_best();
  switch (v) {
  case SM_KVAR_REF:
  case SM_KVAR_BLOCKED:
    abft_isa = 0;
    return 1;
  case SM_KVAR_AVX2:
    abft_isa = best >= 1 ? 1 : -1;
    return best >= 1;
  case SM_KVAR_AVX512:
    abft_isa = best >= 2 ? 2 : -1;
    return best >= 2;
  default:
    abft_isa = -1;
    return 1;
  }
}

SM_ABFT_VARIANTS(abft_ccc2_v, abft_ccc2,
                 (size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                  const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                  size_t ldc),
                 (m, n, nf, A, lda, B, ldb, sparse, C, ldc))

int sm_kern_abft_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                      size_t ldc)
{
  return SM_ABFT_CALL(abft_ccc2_v, (m, n, nf, A, lda, B, ldb, sparse, C, ldc));
}

/* PLINK's homozygous-called tallies (sm_kern_ld_hom: pair (i, j) holds
 * h_i, the samples called in both where A's row i has 2 copies of allele
 * 1, and h_j, the same for B's row j): the sum of h_i over a row of C is
 * row i's plane p2 dotted with B's column sums of presence, the sum of h_j
 * over a column row j's against A's; exact, as the moments' checks. */
static inline __attribute__((always_inline)) int
abft_ld_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
            const uint64_t *B, size_t ldb, const uint32_t *C, size_t ldc)
{
  const size_t nw = (nf + 63) / 64;
  const abft_side_t *sa, *sb;
  sm_side_ref_t ref[2];
  uint32_t *cs = malloc((n * 2 + 16) * sizeof *cs),
           *rs = malloc((m * 2 + 16) * sizeof *rs);
  uint64_t *zero = calloc(nw + 1, 8);
  int ok = cs && rs && zero;
  if (!ok || !abft_sides(m, n, nf, A, lda, B, ldb, 1, &sa, &sb, ref)) {
    free(cs), free(rs), free(zero);
    return 0; /* memory is short: the task is not vouched for */
  }
  uint64_t h, unused;
  c_sums(m, n, 2, C, ldc, cs, rs);
  for (size_t j = 0; ok && j < n; j++) { /* B's row j: its p2 against A's presence */
    cnt_dot(sa->cols.cm, nw, sa->cols.km, sb->pl + 3 * nw * j + nw, zero, NULL, NULL, 0,
            &h, &unused);
    ok = cs[2 * j + 1] == (uint32_t)h;
  }
  for (size_t i = 0; ok && i < m; i++) {
    cnt_dot(sb->cols.cm, nw, sb->cols.km, sa->pl + 3 * nw * i + nw, zero, NULL, NULL, 0,
            &h, &unused);
    ok = rs[2 * i] == (uint32_t)h;
  }
  sm_side_release(&ref[1]);
  sm_side_release(&ref[0]);
  free(cs), free(rs), free(zero);
  return ok;
}

SM_ABFT_VARIANTS(abft_ld_hom_v, abft_ld_hom,
                 (size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                  const uint64_t *B, size_t ldb, const uint32_t *C, size_t ldc),
                 (m, n, nf, A, lda, B, ldb, C, ldc))

int sm_kern_abft_ld_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, const uint32_t *C, size_t ldc)
{
  return SM_ABFT_CALL(abft_ld_hom_v, (m, n, nf, A, lda, B, ldb, C, ldc));
}

/* ---- LD windows without an index (sm_band_span), whether their pairs
 * were computed pair by pair, in strips or whole: each row's sum over its
 * run of columns against the row's values dotted with the run's column
 * sums, kept per sample as the run slides right (a column in at its end,
 * one out at its start: O(nf) a row for the row's O(run nf) pairs; in a
 * byte for runs up to 85 columns, else in 16 bits, or 32 past 21,845).
 * The values come from the packed calls by table, not from the
 * kernels' planes. Moments: one check of the four at once, their sum
 * being sum u_i u_j with u = r + m (0 missing, else the allele count plus
 * one): a change of any one moment changes it. PLINK's homozygous
 * tallies: h_i + h_j = p2_i . M + m_i . P2 (M, P2: the run's column sums
 * of presence and of two copies), one dot of [p2_i | m_i] with [M | P2].
 * Sums modulo 2^32, as abft_ccc2's. */
typedef unsigned char band_lut_t[3][256][4];

/* Per packed byte (four calls, code 00 0 copies, 01 one, 11 two, 10
 * missing): u, presence, two copies. */
static void band_lut(band_lut_t t)
{
  static const unsigned char u[4] = {1, 2, 0, 3}, pm[4] = {1, 1, 0, 1},
                             p2[4] = {0, 0, 0, 1};
  for (int c = 0; c < 256; c++)
    for (int k = 0; k < 4; k++) {
      const int v = (c >> (2 * k)) & 3;
      t[0][c][k] = u[v], t[1][c][k] = pm[v], t[2][c][k] = p2[v];
    }
}

/* nf calls of a packed row as bytes by tables ta and tb (0 u, 1
 * presence, 2 two copies) into a and b (tb, b: none when b is NULL). */
static void band_bytes_portable(const uint64_t *row, size_t nf,
                                const unsigned char (*ta)[4],
                                const unsigned char (*tb)[4], unsigned char *a,
                                unsigned char *b)
{
  const size_t full = nf / 4;
  for (size_t q = 0; q < full; q++) {
    const unsigned c = (unsigned)(row[q / 8] >> (8 * (q % 8))) & 0xff;
    memcpy(a + 4 * q, ta[c], 4);
    if (b)
      memcpy(b + 4 * q, tb[c], 4);
  }
  for (size_t f = 4 * full; f < nf; f++) {
    const unsigned c = (unsigned)(row[f / 32] >> (2 * (f % 32))) & 3;
    a[f] = ta[c][0];
    if (b)
      b[f] = tb[c][0];
  }
}

#if SM_ABFT_X86
/* The same, 32 calls (a word) at a time: each packed byte copied to its
 * four calls' bytes, the call's two bits isolated (the upper two calls'
 * shifted down a nibble: an index below 16, the bits at 0 or 2) and
 * looked up (vpshufb) in a table of 16. */
SM_ABFT_AVX2 static void band_bytes_avx2(const uint64_t *row, size_t nf,
                                         const unsigned char (*ta)[4],
                                         const unsigned char (*tb)[4], unsigned char *a,
                                         unsigned char *b)
{
  unsigned char la[16], lb[16];
  for (int x = 0; x < 16; x++) { /* a call's bits at 0 (x & 3) or at 2 */
    const int v = (x & 3) ? (x & 3) : x >> 2;
    la[x] = ta[v][0], lb[x] = tb ? tb[v][0] : 0;
  }
  const __m256i LA = _mm256_broadcastsi128_si256(_mm_loadu_si128((const void *)la)),
                LB = _mm256_broadcastsi128_si256(_mm_loadu_si128((const void *)lb));
  const __m256i rep = _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4,
                                       4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
  const __m256i mlo = _mm256_set1_epi32(0x00000c03), mhi = _mm256_set1_epi32(0x0c030000);
  const size_t nw = nf / 32;
  for (size_t w = 0; w < nw; w++) {
    const __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi64x((long long)row[w]), rep);
    const __m256i idx = _mm256_or_si256(_mm256_and_si256(x, mlo),
                                        _mm256_and_si256(_mm256_srli_epi16(x, 4), mhi));
    _mm256_storeu_si256((void *)(a + 32 * w), _mm256_shuffle_epi8(LA, idx));
    if (b)
      _mm256_storeu_si256((void *)(b + 32 * w), _mm256_shuffle_epi8(LB, idx));
  }
  for (size_t f = 32 * nw; f < nf; f++) {
    const unsigned c = (unsigned)(row[f / 32] >> (2 * (f % 32))) & 3;
    a[f] = ta[c][0];
    if (b)
      b[f] = tb[c][0];
  }
}
#endif

/* sum of x[t] c[t] over n bytes (a multiple of 32), modulo 2^32: x a
 * call's value (at most 3), c a run's sum (at most 3 x 48 = 144). */
static uint32_t band_dot_portable(const unsigned char *x, const unsigned char *c,
                                  size_t n)
{
  uint32_t s = 0;
  for (size_t t = 0; t < n; t++)
    s += (uint32_t)x[t] * c[t];
  return s;
}

#if SM_ABFT_X86
/* The same, 32 products a vpmaddubsw (c unsigned, x signed; a pair of
 * products at most 2 x 144 x 3, far from its 16 bits' saturation), the
 * pairs summed to 32 bits by vpmaddwd. */
SM_ABFT_AVX2 static uint32_t band_dot_avx2(const unsigned char *x, const unsigned char *c,
                                           size_t n)
{
  const __m256i one = _mm256_set1_epi16(1);
  __m256i acc = _mm256_setzero_si256();
  for (size_t t = 0; t < n; t += 32) {
    const __m256i p = _mm256_maddubs_epi16(_mm256_loadu_si256((const void *)(c + t)),
                                           _mm256_loadu_si256((const void *)(x + t)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, one));
  }
  uint32_t v[8];
  _mm256_storeu_si256((void *)v, acc);
  return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}
#endif

/* A row's bytes: moments u (nf); hom [m | p2], p2 at v + h. */
static inline __attribute__((always_inline)) void band_values(const uint64_t *row,
                                                              size_t nf, int hom,
                                                              size_t h, band_lut_t t,
                                                              int vec, unsigned char *v)
{
  void (*bytes)(const uint64_t *, size_t, const unsigned char(*)[4],
                const unsigned char(*)[4], unsigned char *, unsigned char *) =
      band_bytes_portable;
#if SM_ABFT_X86
  if (vec)
    bytes = band_bytes_avx2;
#else
  (void)vec;
#endif
  bytes(row, nf, t[hom ? 1 : 0], hom ? t[2] : NULL, v, hom ? v + h : NULL);
}

static inline __attribute__((always_inline)) uint32_t
band_dot(const unsigned char *x, const unsigned char *c, size_t n, int vec)
{
#if SM_ABFT_X86
  if (vec)
    return band_dot_avx2(x, c, n);
#else
  (void)vec;
#endif
  return band_dot_portable(x, c, n);
}

/* sum of x[t] c[t] over n bytes, modulo 2^32: c a long run's sums, 16
 * or 32 bits each (one loop for both widths, vectorized by the variant's
 * target). */
#define BAND_DOT_WIDE(x, c, n)                                                           \
  __extension__({                                                                        \
    uint32_t s_ = 0;                                                                     \
    for (size_t t_ = 0; t_ < (n); t_++)                                                  \
      s_ += (uint32_t)(x)[t_] * (c)[t_];                                                 \
    s_;                                                                                  \
  })

static inline __attribute__((always_inline)) int
abft_ld_band(const sm_band_t *bd, size_t m, size_t n, size_t nf, const uint64_t *A,
             size_t lda, const uint64_t *B, size_t ldb, const uint32_t *C, size_t ldc,
             int hom, int vec)
{
  size_t r0, r1, c0, c1, run;
  if (!sm_band_span(bd, m, n, &r0, &r1, &c0, &c1, &run))
    return 0;
  /* the run's sums: a byte each when 3 run fits one (and the columns'
   * bytes kept in a ring of run + 2 as they slide), else 16 bits or,
   * past 3 run = 65535, 32 (each column's bytes derived as it enters and
   * as it leaves) */
  const int wide = 3 * run > 255, cw = !wide ? 1 : 3 * run > 65535 ? 4 : 2;
  /* a row's bytes: Lp, in one or two (hom) halves of h */
  const size_t nm = hom ? 2 : 4, h = (nf + 63) / 64 * 64, Lp = hom ? 2 * h : h;
  const size_t R = wide ? 2 : run + 2;           /* column j's bytes at j % R */
  const int one = !wide && A == B && lda == ldb; /* a diagonal tile pair */
  band_lut_t *lut = malloc(sizeof *lut);
  size_t *held = malloc(R * sizeof *held); /* the column in each slot */
  unsigned char *mem = calloc((R + 2 + (size_t)cw) * Lp + 64, 1);
  if (!lut || !held || !mem) {
    free(lut), free(held), free(mem);
    return 0; /* not vouched for */
  }
  band_lut(*lut);
  for (size_t k = 0; k < R; k++)
    held[k] = SIZE_MAX;
  unsigned char *cnt = mem + (64 - (uintptr_t)mem % 64) % 64, *x = cnt + (size_t)cw * Lp,
                *zero = x + Lp, *ring = zero + Lp;
  uint16_t *c16 = (uint16_t *)(void *)cnt;
  uint32_t *c32 = (uint32_t *)(void *)cnt;
  size_t cl = c0, ch = c0; /* the columns in cnt */
  int ok = 1;
  for (size_t i = r0; ok && i < r1; i++) {
    size_t lo, hi;
    sm_band_run(bd, n, i, &lo, &hi);
    if (hi <= lo)
      continue;
    if (lo < cl || hi < ch || lo >= ch) { /* not a slide: start again */
      memset(cnt, 0, (size_t)cw * Lp);
      cl = ch = lo;
    }
    for (; ch < hi || cl < lo;) { /* a column in, one out, or both */
      unsigned char *in = ch < hi ? ring + (ch % R) * Lp : zero;
      unsigned char *out = cl < lo ? ring + ((wide ? ch + 1 : cl) % R) * Lp : zero;
      if (ch < hi && held[ch % R] != ch) {
        band_values(B + ch * ldb, nf, hom, h, *lut, vec, in);
        held[ch % R] = ch;
      }
      if (wide && cl < lo) { /* the leaving column's bytes again */
        band_values(B + cl * ldb, nf, hom, h, *lut, vec, out);
        held[(ch + 1) % R] = SIZE_MAX;
      }
      if (cw == 4)
        for (size_t t = 0; t < Lp; t++)
          c32[t] = c32[t] + in[t] - out[t];
      else if (cw == 2)
        for (size_t t = 0; t < Lp; t++)
          c16[t] = (uint16_t)(c16[t] + in[t] - out[t]);
      else
        for (size_t t = 0; t < Lp; t++)
          cnt[t] = (unsigned char)(cnt[t] + in[t] - out[t]);
      ch += ch < hi, cl += cl < lo;
    }
    /* row i's bytes: its column's when still held (a diagonal tile pair) */
    const unsigned char *xi = x;
    if (one && i >= c0 && i < c1 && held[i % R] == i)
      xi = ring + (i % R) * Lp;
    else
      band_values(A + i * lda, nf, hom, h, *lut, vec, x);
    /* moments u_i . U; hom p2_i . M + m_i . P2 */
    uint32_t want;
    if (cw == 4)
      want =
          BAND_DOT_WIDE(xi + h * hom, c32, h) + (hom ? BAND_DOT_WIDE(xi, c32 + h, h) : 0);
    else if (cw == 2)
      want =
          BAND_DOT_WIDE(xi + h * hom, c16, h) + (hom ? BAND_DOT_WIDE(xi, c16 + h, h) : 0);
    else
      want = hom ? band_dot(xi + h, cnt, h, vec) + band_dot(xi, cnt + h, h, vec)
                 : band_dot(xi, cnt, h, vec);
    uint32_t got = 0;
    const uint32_t *ci = C + (i * ldc + lo) * nm;
    for (size_t t = 0; t < (hi - lo) * nm; t++)
      got += ci[t];
    ok = got == want;
  }
  free(lut), free(held), free(mem);
  return ok;
}

SM_ABFT_VARIANTS(abft_ld_band_v, abft_ld_band,
                 (const sm_band_t *bd, size_t m, size_t n, size_t nf, const uint64_t *A,
                  size_t lda, const uint64_t *B, size_t ldb, const uint32_t *C,
                  size_t ldc, int hom, int vec),
                 (bd, m, n, nf, A, lda, B, ldb, C, ldc, hom, vec))

int sm_kern_abft_ld_band(const sm_band_t *b, size_t m, size_t n, size_t nf,
                         const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                         const uint32_t *C, size_t ldc, int hom)
{
  const int vec = abft_pick() >= 1; /* AVX2 there */
  return SM_ABFT_CALL(abft_ld_band_v, (b, m, n, nf, A, lda, B, ldb, C, ldc, hom, vec));
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

/* A row of plane results (my y, nmom moments each, nmom a constant of the
 * caller): got the sums over y >= lo, pre over y < lo (modulo 2^32, as
 * c_sums); returns whether every result before lo is 0. */
static inline __attribute__((always_inline)) int row3_sums(const uint32_t *c, size_t my,
                                                           size_t lo, size_t nmom,
                                                           uint32_t *got, uint32_t *pre)
{
  uint32_t any = 0;
  for (size_t t = 0; t < nmom; t++)
    got[t] = 0, pre[t] = 0;
  for (size_t y = 0; y < lo; y++)
    for (size_t t = 0; t < nmom; t++)
      pre[t] += c[y * nmom + t], any |= c[y * nmom + t];
  for (size_t y = lo; y < my; y++)
    for (size_t t = 0; t < nmom; t++)
      got[t] += c[y * nmom + t];
  return any == 0;
}

/* ---- 3-way, by plane totals. When the rows a plane keeps are those
 * from some x on (s(a)), each from the same first y whatever the plane
 * (lo(a, x) = L(x), L not decreasing: L = 0 on tile triples of distinct
 * tiles; x > a and L(x) = x + 1 on a diagonal tile triple), the moments
 * of plane a summed over its kept (x, y) are, class by class of a's
 * fields, a's class mask dotted with
 *   T_s(f) = sum_{x >= s} u_x(f) S_L(x)(f),   S_l(f) = sum_{y >= l} v_y(f)
 * (u, v: r or m of x and y at field f). Planes go by s(a), highest first,
 * x from the last down: S (bit-sliced, as the rows' column sums) only
 * grows, and x's term, S masked by each of x's planes, is added to T
 * (bit-sliced too) once, whatever the number of planes; a plane then
 * costs a few masked popcounts per bit of T, where the row check costs a
 * bit-sliced dot per row. A plane's total is the sum of its rows' sums:
 * a corrupted row changes it by that row's error, as the row check sees
 * it; a single flipped bit changes it by a power of 2, never 0 modulo
 * 2^32. Errors in several rows of one plane that cancel modulo 2^32
 * would pass (the row check would see them). */

/* The check by plane totals; -1 when it does not apply (the rows kept are
 * not of that shape, or a skipped triple was computed) or memory is
 * short: then the row check decides. lo: the first kept y of each row
 * (g mx, at most my: none). */
static inline __attribute__((always_inline)) int
abft_ccc3_planes(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *pp,
                 const uint64_t *xp, const uint64_t *Y, size_t ldy, int sparse,
                 const size_t *lo, const uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), nw = (nf + 63) / 64, unset = (size_t)-1;
  size_t *L = malloc((mx + 1) * sizeof *L), *sa = malloc((g + 1) * sizeof *sa),
         *order = malloc((g + 1) * sizeof *order);
  int fits = L && sa && order;
  for (size_t x = 0; fits && x < mx; x++)
    L[x] = unset;
  for (size_t a = 0; fits && a < g; a++) { /* s(a), and L consistent */
    const size_t *la = lo + a * mx;
    size_t s = 0;
    while (s < mx && la[s] >= my)
      s++;
    sa[a] = s;
    for (size_t x = s; fits && x < mx; x++) {
      if (L[x] == unset)
        L[x] = la[x];
      fits = L[x] == la[x];
    }
  }
  for (size_t x = 0; fits && x + 1 < mx; x++)
    fits = L[x] == unset || L[x + 1] == unset || L[x] <= L[x + 1];
  if (!fits) {
    free(L), free(sa), free(order);
    return -1;
  }
  for (size_t a = 0; a < g; a++) { /* planes by s(a) descending (insertion) */
    size_t k = a;
    for (; k > 0 && sa[order[k - 1]] < sa[a]; k--)
      order[k] = order[k - 1];
    order[k] = a;
  }
  const size_t nt = sparse ? 4 : 1;
  const int nbits = bits_of(4 * (uint64_t)mx * (uint64_t)my);
  abft_cols_t S = {0};
  uint64_t *Tb = calloc(nt * (size_t)nbits * nw + 1, 8), *zero = calloc(nw + 1, 8),
           *carry = malloc((nw + 1) * 8), *ec = malloc((3 * nw + 1) * 8),
           *yp = malloc((3 * nw + 1) * 8);
  int mem = Tb && zero && carry && ec && yp && cols_alloc(&S, my, nw), ok = 1;
  size_t cx = mx, cy = my; /* x >= cx added to T; y >= cy in S */
  for (size_t k = 0; mem && ok && k < g; k++) {
    const size_t a = order[k];
    for (; cx > sa[a]; cx--) { /* x = cx - 1 joins */
      const size_t x = cx - 1, l = L[x];
      if (l >= my)
        continue; /* no kept y: nothing to add */
      for (; cy > l; cy--)
        row_pass(Y + (cy - 1) * ldy, nf, sparse, yp, &S);
      cols_flush(&S);
      const uint64_t *q1 = xp + x * 3 * nw, *q2 = q1 + nw, *qm = q1 + 2 * nw;
      /* products: r_x r_y, r_x m_y, m_x r_y, m_x m_y (dense: the first);
       * r = p1 + p2 */
      sliced_add(Tb, nbits, S.cr, S.kr, q1, nw, carry);
      sliced_add(Tb, nbits, S.cr, S.kr, q2, nw, carry);
      if (sparse) {
        uint64_t *T1 = Tb + (size_t)nbits * nw, *T2 = T1 + (size_t)nbits * nw,
                 *T3 = T2 + (size_t)nbits * nw;
        sliced_add(T1, nbits, S.cm, S.km, q1, nw, carry);
        sliced_add(T1, nbits, S.cm, S.km, q2, nw, carry);
        sliced_add(T2, nbits, S.cr, S.kr, qm, nw, carry);
        sliced_add(T3, nbits, S.cm, S.km, qm, nw, carry);
      }
    }
    /* got: the plane's sums over its kept triples (the skipped are 0) */
    uint32_t ga[12] = {0};
    for (size_t x = 0; ok && x < mx; x++) {
      uint32_t rg[12], rp[12];
      const size_t i = a * mx + x, l = x < sa[a] ? my : L[x];
      const int pre_zero = sparse ? row3_sums(out + i * my * 12, my, l, 12, rg, rp)
                                  : row3_sums(out + i * my * 2, my, l, 2, rg, rp);
      if (!pre_zero)
        ok = -1; /* a skipped triple computed: the row check decides */
      for (size_t t = 0; t < nmom; t++)
        ga[t] += rg[t];
    }
    if (ok != 1)
      break;
    row_classes(pp + a * 3 * nw, sparse, nw, ec);
    for (int c = 0; c < (sparse ? 3 : 2); c++)
      for (size_t t = 0; t < nt; t++) {
        uint64_t want, unused;
        cnt_dot(Tb + t * (size_t)nbits * nw, nw, nbits, ec + (size_t)c * nw, zero, zero,
                NULL, 0, &want, &unused);
        /* sparse moments of class c: r.colr, r.colm, m.colr, m.colm */
        ok &= ga[sparse ? 4 * (size_t)c + t : (size_t)c] == (uint32_t)want;
      }
  }
  free(L), free(sa), free(order), free(Tb), free(zero), free(carry), free(ec), free(yp);
  cols_free(&S);
  return !mem || ok < 0 ? -1 : ok;
}

static inline __attribute__((always_inline)) int
abft_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P, size_t ldp,
          const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
          const sm_keep3_t *keep, const uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), rows = g * mx, nw = (nf + 63) / 64;
  abft_cols_t full = {0}, suf = {0};
  uint64_t *pp = malloc((g * 3 * nw + 1) * 8), *xp = malloc((mx * 3 * nw + 1) * 8),
           *yp = malloc((3 * nw + 1) * 8), *ec = malloc((3 * nw + 1) * 8);
  size_t *order = malloc((rows + 1) * sizeof *order),
         *start = calloc(my + 2, sizeof *start), *lo = malloc((rows + 1) * sizeof *lo);
  int ok = pp && xp && yp && ec && order && start && lo && cols_alloc(&full, my, nw) &&
           cols_alloc(&suf, my, nw);
  for (size_t i = 0; ok && i < rows; i++) { /* each row's first kept y */
    const size_t l = keep ? sm_keep3_lo(keep, i / mx, i % mx, my) : 0;
    lo[i] = l < my ? l : my;
  }
  for (size_t a = 0; ok && a < g; a++)
    row_planes(P + a * ldp, nf, sparse, nw, pp + a * 3 * nw, pp + a * 3 * nw + nw,
               pp + a * 3 * nw + 2 * nw);
  for (size_t x = 0; ok && x < mx; x++)
    row_planes(X + x * ldx, nf, sparse, nw, xp + x * 3 * nw, xp + x * 3 * nw + nw,
               xp + x * 3 * nw + 2 * nw);
  uint64_t want[12];
  /* plane totals, when the rows kept have their shape; else row sums */
  const int pt =
      ok ? abft_ccc3_planes(g, mx, my, nf, pp, xp, Y, ldy, sparse, lo, out) : -1;
  if (pt >= 0)
    ok = pt;
  const int rowwise = ok && pt < 0;
  for (size_t y = 0; rowwise && y < my; y++)
    row_pass(Y + y * ldy, nf, sparse, yp, &full);
  cols_flush(&full);
  if (rowwise) { /* rows by their first kept y, highest first (counting sort) */
    for (size_t i = 0; i < rows; i++)
      start[my - lo[i] + 1]++;
    for (size_t l = 1; l <= my + 1; l++)
      start[l] += start[l - 1];
    for (size_t i = 0; i < rows; i++)
      order[start[my - lo[i]]++] = i;
  }
  size_t cur = my; /* suf: the column sums of the y >= cur */
  size_t last_a = (size_t)-1;
  for (size_t k = 0; rowwise && ok && k < rows; k++) {
    const size_t i = order[k], a = i / mx, x = i % mx, l = lo[i];
    for (; cur > l; cur--)
      row_pass(Y + (cur - 1) * ldy, nf, sparse, yp, &suf);
    cols_flush(&suf);
    if (a != last_a)
      row_classes(pp + a * 3 * nw, sparse, nw, ec), last_a = a;
    uint32_t got[12], pre[12];
    const int pre_zero = sparse ? row3_sums(out + i * my * 12, my, l, 12, got, pre)
                                : row3_sums(out + i * my * 2, my, l, 2, got, pre);
    want3(xp + x * 3 * nw, ec, &suf, sparse, want);
    for (size_t t = 0; t < nmom; t++)
      ok &= got[t] == (uint32_t)want[t];
    if (ok && !pre_zero) { /* the skipped y computed: the rest of the row */
      uint64_t all[12];
      want3(xp + x * 3 * nw, ec, &full, sparse, all);
      for (size_t t = 0; t < nmom; t++)
        ok &= pre[t] == (uint32_t)(all[t] - want[t]);
    }
  }
  free(pp), free(xp), free(yp), free(ec), free(order), free(start), free(lo);
  cols_free(&full), cols_free(&suf);
  return ok; /* 0 also when memory is short: the task is not vouched for */
}

SM_ABFT_VARIANTS(abft_ccc3_v, abft_ccc3,
                 (size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                  size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                  size_t ldy, int sparse, const sm_keep3_t *keep, const uint32_t *out),
                 (g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, keep, out))

int sm_kern_abft_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                      size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                      size_t ldy, int sparse, const sm_keep3_t *keep, const uint32_t *out)
{
  return SM_ABFT_CALL(abft_ccc3_v,
                      (g, mx, my, nf, P, ldp, X, ldx, Y, ldy, sparse, keep, out));
}
