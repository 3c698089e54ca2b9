/* kern_verify.c: invariants of numerator results (--verify) and the
 * corruptions --inject-faults makes to test them (one random bit of one
 * random result word, any bit). CCC moments, 2-way and 3-way, are checked
 * exactly by row sums (algorithm-based fault tolerance: a row of moments
 * sums to one dot product over the fields, with the 3-way plane's genotype
 * classes as masks), so any changed bit is caught. Czekanowski results are
 * recomputed (one more kernel call) and compared, and checked against
 * their bounds: identical and integers when every value is an integer and
 * the sums fit the precision's integers, else within the rounding of a sum
 * done in another order, so only changes below that bound pass. A check that cannot get
 * memory fails (the task is re-executed), it never passes unchecked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sm_formulas.h"
#include "sm_kern.h"

/* r (copies of allele 1 counted) and m (presence) of field q of a row */
static inline void rm_of(const uint64_t *row, size_t q, int sparse, unsigned *r,
                         unsigned *m)
{
  const unsigned c = sm_gt_code(row, q);
  *r = sm_gt_r(c, sparse);
  *m = sm_gt_m(c, sparse);
}

/* A tile as the CCC checks read it: 2-bit codes (ld in words), or its
 * int8 form (ld in bytes: rows of r, then, sparse, as many rows of m). */
typedef struct tile_rd {
  const void *p;
  size_t ld, rows;
  int i8, sparse;
} tile_rd_t;

static inline void rd_rm(const tile_rd_t *t, size_t row, size_t q, unsigned *r,
                         unsigned *m)
{
  if (t->i8) {
    const int8_t *b = t->p;
    *r = (unsigned)(uint8_t)b[row * t->ld + q];
    *m = t->sparse ? (unsigned)(uint8_t)b[(t->rows + row) * t->ld + q] : 1;
  } else {
    rm_of((const uint64_t *)t->p + row * t->ld, q, t->sparse, r, m);
  }
}

/* Column sums of a tile of n rows: colr[q] = sum of r, colm[q] = sum of m
 * over the rows (both allocated, nf entries); 0 when memory is short. */
static int col_sums_rd(const tile_rd_t *B, size_t nf, uint32_t **colr, uint32_t **colm)
{
  *colr = calloc(nf ? nf : 1, sizeof **colr);
  *colm = calloc(nf ? nf : 1, sizeof **colm);
  if (!*colr || !*colm) {
    free(*colr), free(*colm);
    return 0;
  }
  for (size_t j = 0; j < B->rows; j++)
    for (size_t q = 0; q < nf; q++) {
      unsigned r, mm;
      rd_rm(B, j, q, &r, &mm);
      (*colr)[q] += r;
      (*colm)[q] += mm;
    }
  return 1;
}

static int col_sums(size_t n, size_t nf, const uint64_t *B, size_t ldb, int sparse,
                    uint32_t **colr, uint32_t **colm)
{
  const tile_rd_t t = {.p = B, .ld = ldb, .rows = n, .sparse = sparse};
  return col_sums_rd(&t, nf, colr, colm);
}

/* The 2-way moments of A's rows against B's, C (ldc pairs a row), by row
 * sums: exact, so any changed bit is caught. */
static int verify_ccc2_rd(const tile_rd_t *A, const tile_rd_t *B, size_t nf,
                          const uint32_t *C, size_t ldc)
{
  const int sparse = A->sparse;
  const size_t nmom = SM_CCC2_NMOM(sparse), n = B->rows;
  uint32_t *colr, *colm;
  if (!col_sums_rd(B, nf, &colr, &colm))
    return 0; /* cannot check: the task is not vouched for */
  int ok = 1;
  for (size_t i = 0; i < A->rows && ok; i++) {
    uint64_t want[4] = {0, 0, 0, 0}, got[4] = {0, 0, 0, 0};
    for (size_t q = 0; q < nf; q++) {
      unsigned r, mm;
      rd_rm(A, i, q, &r, &mm);
      want[0] += (uint64_t)r * colr[q];
      want[1] += (uint64_t)r * colm[q];
      want[2] += (uint64_t)mm * colr[q];
      want[3] += (uint64_t)mm * colm[q];
    }
    for (size_t j = 0; j < n; j++) {
      const uint32_t *c = C + (i * ldc + j) * nmom;
      for (size_t k = 0; k < nmom; k++)
        got[k] += c[k];
      if (sparse && (c[0] > 2 * (uint64_t)c[1] || c[0] > 2 * (uint64_t)c[2] ||
                     c[1] > 2 * (uint64_t)c[3] || c[2] > 2 * (uint64_t)c[3] || c[3] > nf))
        ok = 0;
      if (!sparse && c[0] > 4 * (uint64_t)nf)
        ok = 0;
    }
    for (size_t k = 0; k < nmom; k++)
      ok &= got[k] == want[k];
  }
  free(colr), free(colm);
  return ok;
}

int sm_kern_verify_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                        size_t ldc)
{
  const tile_rd_t a = {.p = A, .ld = lda, .rows = m, .sparse = sparse},
                  b = {.p = B, .ld = ldb, .rows = n, .sparse = sparse};
  return verify_ccc2_rd(&a, &b, nf, C, ldc);
}

int sm_kern_verify_ccc2_i8(size_t m, size_t n, size_t nf, const int8_t *A8, size_t lda8,
                           const int8_t *B8, size_t ldb8, int sparse, const uint32_t *C,
                           size_t ldc)
{
  const tile_rd_t a = {.p = A8, .ld = lda8, .rows = m, .i8 = 1, .sparse = sparse},
                  b = {.p = B8, .ld = ldb8, .rows = n, .i8 = 1, .sparse = sparse};
  return verify_ccc2_rd(&a, &b, nf, C, ldc);
}

int sm_kern_verify_ccc_i8(size_t rows, size_t nf, size_t kpad, const uint64_t *X,
                          size_t ldx, int sparse, const int8_t *R, size_t ldr)
{
  const size_t nrows = (sparse ? 2 : 1) * rows;
  int8_t *want = malloc(nrows * kpad + 1);
  if (!want)
    return 0;
  sm_kern_ccc_i8_expand(rows, nf, kpad, X, ldx, sparse, want, kpad);
  int ok = 1;
  for (size_t i = 0; i < nrows && ok; i++)
    ok = memcmp(want + i * kpad, R + i * ldr, kpad) == 0;
  free(want);
  return ok;
}

/* One result: a sum of mins, so never negative nor -0 nor above the
 * smaller of its vectors' sums; an integer when the inputs are (exact). */
static int entry_ok(double c, double lim, int exact)
{
  if (!(c >= 0) || signbit(c) || !(c <= lim * (1 + 1e-5) + 1e-300))
    return 0;
  return !exact || c == floor(c);
}

/* A result against its recomputation r: identical when exact, else within
 * the rounding of a k-term sum done in another order (2 k eps relative). */
static int same_ok(double c, double r, int exact, double eps, size_t k)
{
  return exact ? c == r : fabs(c - r) <= 2.0 * eps * (double)(k + 2) * r + 1e-300;
}

#define SM_DEF_VERIFY_CZEK(T, SFX, EPS, EXACT_MAX)                                       \
  /* the sums of nv vectors; *ints: every value an integer */                            \
  static double *sums_##SFX(size_t nv, size_t k, const T *X, size_t ldx, int *ints)      \
  {                                                                                      \
    double *s = malloc((nv + 1) * sizeof *s);                                            \
    for (size_t v = 0; s && v < nv; v++) {                                               \
      long double t = 0;                                                                 \
      for (size_t q = 0; q < k; q++) {                                                   \
        t += X[v * ldx + q];                                                             \
        *ints &= X[v * ldx + q] == floor(X[v * ldx + q]);                                \
      }                                                                                  \
      s[v] = (double)t;                                                                  \
    }                                                                                    \
    return s;                                                                            \
  }                                                                                      \
  /* m x n results (ldc) against r (ld n): bounds and recomputation; with lo,            \
   * row i's columns j < lo[i] (not kept) may also be +0 */                              \
  static int compare_##SFX(size_t m, size_t n, size_t k, const T *C, size_t ldc,         \
                           const T *r, const double *sa, const double *sb, int ints,     \
                           const uint32_t *lo)                                           \
  {                                                                                      \
    for (size_t i = 0; i < m; i++)                                                       \
      for (size_t j = 0; j < n; j++) {                                                   \
        if (lo && j < lo[i] && C[i * ldc + j] == 0 && !signbit(C[i * ldc + j]))          \
          continue;                                                                      \
        const double lim = sa[i] < sb[j] ? sa[i] : sb[j];                                \
        const int exact = ints && lim < (EXACT_MAX);                                     \
        if (!entry_ok(C[i * ldc + j], lim, exact) ||                                     \
            !same_ok(C[i * ldc + j], r[i * n + j], exact, EPS, k))                       \
          return 0;                                                                      \
      }                                                                                  \
    return 1;                                                                            \
  }                                                                                      \
  int sm_kern_verify_czek2_##SFX(size_t m, size_t n, size_t k, const T *A, size_t lda,   \
                                 const T *B, size_t ldb, const T *C, size_t ldc,         \
                                 sm_czek2_##SFX##_kern_fn kern)                          \
  {                                                                                      \
    int ints = 1;                                                                        \
    double *sa = sums_##SFX(m, k, A, lda, &ints), *sb = sums_##SFX(n, k, B, ldb, &ints); \
    T *r = malloc((m * n + 1) * sizeof *r);                                              \
    int ok = sa && sb && r;                                                              \
    if (ok) {                                                                            \
      kern(m, n, k, A, lda, B, ldb, r, n);                                               \
      ok = compare_##SFX(m, n, k, C, ldc, r, sa, sb, ints, NULL);                        \
    }                                                                                    \
    free(sa), free(sb), free(r);                                                         \
    return ok;                                                                           \
  }                                                                                      \
  /* 3-way: the plane results of (p, x) are a 2-way block of min(p, x) against Y */      \
  int sm_kern_verify_czek3_##SFX(size_t g, size_t mx, size_t my, size_t k, const T *P,   \
                                 size_t ldp, const T *X, size_t ldx, const T *Y,         \
                                 size_t ldy, const sm_keep3_t *keep, const T *out)       \
  {                                                                                      \
    int ints = 1;                                                                        \
    double *sp = sums_##SFX(g, k, P, ldp, &ints),                                        \
           *sx = sums_##SFX(mx, k, X, ldx, &ints),                                       \
           *sy = sums_##SFX(my, k, Y, ldy, &ints),                                       \
           *sa = malloc((g * mx + 1) * sizeof *sa);                                      \
    T *r = malloc((g * mx * my + 1) * sizeof *r);                                        \
    uint32_t *lo = keep ? malloc((g * mx + 1) * sizeof *lo) : NULL;                      \
    int ok = sp && sx && sy && sa && r && (lo || !keep);                                 \
    if (ok) {                                                                            \
      sm_kern_czek3_blocked_##SFX(g, mx, my, k, P, ldp, X, ldx, Y, ldy, r);              \
      for (size_t a = 0; a < g; a++)                                                     \
        for (size_t x = 0; x < mx; x++) {                                                \
          sa[a * mx + x] = sp[a] < sx[x] ? sp[a] : sx[x];                                \
          if (lo)                                                                        \
            lo[a * mx + x] = (uint32_t)sm_keep3_lo(keep, a, x, my);                      \
        }                                                                                \
      ok = compare_##SFX(g * mx, my, k, out, my, r, sa, sy, ints, lo);                   \
    }                                                                                    \
    free(sp), free(sx), free(sy), free(sa), free(r), free(lo);                           \
    return ok;                                                                           \
  }

SM_DEF_VERIFY_CZEK(double, d, 0x1p-53, 0x1p53)
SM_DEF_VERIFY_CZEK(float, s, 0x1p-24, 0x1p24)

/* 3-way CCC: for a plane vector p and a row x, the moments over the y of
 * the tile, restricted to p's genotype class e (the plane's mask), sum to
 * sum_q [p_q in e] (r_x, m_x)(q) (colr, colm)(q) with the column sums of
 * those y: exact, so any changed bit is caught. Classes: sparse E0, E1, E2
 * with {rr, rm, mr, mm}; dense E1, E2 with rr (sm_kern.h's layout). */
static void ccc3_want(const uint64_t *prow, const uint64_t *xrow, size_t nf, int sparse,
                      const uint32_t *colr, const uint32_t *colm, uint64_t want[12])
{
  memset(want, 0, 12 * sizeof *want);
  for (size_t q = 0; q < nf; q++) {
    unsigned rp, mp, r, mm;
    rm_of(prow, q, sparse, &rp, &mp);
    if (sparse && !mp)
      continue; /* a missing plane entry is in no class */
    rm_of(xrow, q, sparse, &r, &mm);
    if (sparse) {
      uint64_t *w = want + 4 * rp;
      w[0] += (uint64_t)r * colr[q];
      w[1] += (uint64_t)r * colm[q];
      w[2] += (uint64_t)mm * colr[q];
      w[3] += (uint64_t)mm * colm[q];
    } else if (rp > 0) {
      want[rp - 1] += (uint64_t)r * colr[q];
    }
  }
}

/* With keep, row (a, x) is checked over the y it keeps (from lo on, with
 * the column sums of those y: rows go in order of lo, the sums lose a
 * column at a time), and its other y must be all 0 (sm_kern_ccc3_on skips
 * them) or sum to the rest of the row (a kernel that computed them). */
int sm_kern_verify_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                        size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                        size_t ldy, int sparse, const sm_keep3_t *keep,
                        const uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), rows = g * mx;
  uint32_t *colr, *colm;
  if (!col_sums(my, nf, Y, ldy, sparse, &colr, &colm))
    return 0; /* cannot check: the task is not vouched for */
  uint32_t *sufr = malloc((nf ? nf : 1) * sizeof *sufr),
           *sufm = malloc((nf ? nf : 1) * sizeof *sufm);
  size_t *order = malloc((rows ? rows : 1) * sizeof *order),
         *start = calloc(my + 2, sizeof *start);
  int ok = sufr && sufm && order && start;
  if (ok) { /* rows by lo (counting sort) */
    memcpy(sufr, colr, nf * sizeof *sufr);
    memcpy(sufm, colm, nf * sizeof *sufm);
    for (size_t i = 0; i < rows; i++)
      start[(keep ? sm_keep3_lo(keep, i / mx, i % mx, my) : 0) + 1]++;
    for (size_t l = 1; l <= my + 1; l++)
      start[l] += start[l - 1];
    for (size_t i = 0; i < rows; i++)
      order[start[keep ? sm_keep3_lo(keep, i / mx, i % mx, my) : 0]++] = i;
  }
  size_t cur = 0; /* sufr, sufm: the column sums of y >= cur */
  for (size_t k = 0; k < rows && ok; k++) {
    const size_t i = order[k], a = i / mx, x = i % mx;
    const size_t lo = keep ? sm_keep3_lo(keep, a, x, my) : 0;
    for (; cur < lo; cur++)
      for (size_t q = 0; q < nf; q++) {
        unsigned r, mm;
        rm_of(Y + cur * ldy, q, sparse, &r, &mm);
        sufr[q] -= r;
        sufm[q] -= mm;
      }
    uint64_t want[12], got[12] = {0}, pre[12] = {0};
    int pre_zero = 1;
    ccc3_want(P + a * ldp, X + x * ldx, nf, sparse, sufr, sufm, want);
    for (size_t y = 0; y < my; y++) {
      const uint32_t *c = out + (i * my + y) * nmom;
      for (size_t t = 0; t < nmom; t++) {
        (y < lo ? pre : got)[t] += c[t];
        pre_zero &= y >= lo || c[t] == 0;
      }
    }
    for (size_t t = 0; t < nmom; t++)
      ok &= got[t] == want[t];
    if (ok && !pre_zero) { /* the skipped y computed: the rest of the row */
      uint64_t full[12];
      ccc3_want(P + a * ldp, X + x * ldx, nf, sparse, colr, colm, full);
      for (size_t t = 0; t < nmom; t++)
        ok &= pre[t] == full[t] - want[t];
    }
  }
  free(colr), free(colm), free(sufr), free(sufm), free(order), free(start);
  return ok;
}

int sm_kern_inject_decide(double rate, uint64_t seed, uint64_t task, unsigned attempt,
                          uint64_t *pick)
{
  /* splitmix64 (sm_types.h): the injection's deterministic random stream */
  uint64_t h = sm_mix64(sm_mix64(seed ^ 0x5bd1e995u) ^ task);
  h = sm_mix64(h ^ attempt);
  *pick = sm_mix64(h);
  return (double)(h >> 11) * 0x1.0p-53 < rate;
}

/* One bit of one result word of an ny x nx result with leading dimension
 * ld (in words): pick chooses the word (low bits) and the bit (high bits),
 * any bit from the lowest mantissa bit to the sign. Padding is never hit. */
static size_t pick_word(size_t ny, size_t nx, size_t ld, uint64_t pick)
{
  const uint64_t w = (pick & 0xffffffffu) % ((uint64_t)ny * nx);
  return (size_t)(w / nx) * ld + (size_t)(w % nx);
}

void sm_kern_inject_u32(uint32_t *v, size_t ny, size_t nx, size_t ld, uint64_t pick)
{
  if (ny && nx)
    v[pick_word(ny, nx, ld, pick)] ^= 1u << ((pick >> 32) % 32);
}

void sm_kern_inject_f64(double *v, size_t ny, size_t nx, size_t ld, uint64_t pick)
{
  if (ny && nx) {
    uint64_t w;
    double *x = &v[pick_word(ny, nx, ld, pick)];
    memcpy(&w, x, sizeof w);
    w ^= (uint64_t)1 << ((pick >> 32) % 64);
    memcpy(x, &w, sizeof w);
  }
}

void sm_kern_inject_f32(float *v, size_t ny, size_t nx, size_t ld, uint64_t pick)
{
  if (ny && nx) {
    uint32_t w;
    float *x = &v[pick_word(ny, nx, ld, pick)];
    memcpy(&w, x, sizeof w);
    w ^= 1u << ((pick >> 32) % 32);
    memcpy(x, &w, sizeof w);
  }
}

void sm_kern_inject_row(void *v, size_t ny, size_t row, size_t ld, uint64_t pick)
{
  if (!ny || !row)
    return;
  unsigned char *r = (unsigned char *)v + (size_t)((pick & 0xffffffffu) % ny) * ld;
  uint64_t h = pick;
  for (size_t k = 0; k < row; k++) {
    if (k % 8 == 0)
      h = sm_mix64(h + k);
    r[k] = (unsigned char)(h >> (8 * (k % 8)));
  }
}
