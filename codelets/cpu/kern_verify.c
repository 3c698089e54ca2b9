/* kern_verify.c: cheap invariants of numerator results (--verify) and the
 * corruptions --inject-faults makes to test them. 2-way CCC moments are
 * checked exactly by row sums (algorithm-based fault tolerance: the sum of
 * a row of moments equals one dot product over the fields); the others by
 * bounds: 0 <= n2 <= min(s_i, s_j), 0 <= n3 <= min(s_p, s_x, s_y), and for
 * 3-way CCC moments r <= 2m relations and totals within the field count. */
#include <math.h>
#include <stdlib.h>

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

int sm_kern_verify_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, int sparse, const uint32_t *C,
                        size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse);
  uint32_t *colr = calloc(nf ? nf : 1, sizeof *colr),
           *colm = calloc(nf ? nf : 1, sizeof *colm);
  if (!colr || !colm) {
    free(colr), free(colm);
    return 1; /* cannot check: do not fail the task for it */
  }
  for (size_t j = 0; j < n; j++)
    for (size_t q = 0; q < nf; q++) {
      unsigned r, mm;
      rm_of(B + j * ldb, q, sparse, &r, &mm);
      colr[q] += r;
      colm[q] += mm;
    }
  int ok = 1;
  for (size_t i = 0; i < m && ok; i++) {
    uint64_t want[4] = {0, 0, 0, 0}, got[4] = {0, 0, 0, 0};
    for (size_t q = 0; q < nf; q++) {
      unsigned r, mm;
      rm_of(A + i * lda, q, sparse, &r, &mm);
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

#define SM_DEF_VERIFY_CZEK(T, SFX)                                                       \
  static void rowsums_##SFX(size_t nv, size_t k, const T *X, size_t ldx, double *s)      \
  {                                                                                      \
    for (size_t v = 0; v < nv; v++) {                                                    \
      double t = 0;                                                                      \
      for (size_t q = 0; q < k; q++)                                                     \
        t += X[v * ldx + q];                                                             \
      s[v] = t;                                                                          \
    }                                                                                    \
  }                                                                                      \
  int sm_kern_verify_czek2_##SFX(size_t m, size_t n, size_t k, const T *A, size_t lda,   \
                                 const T *B, size_t ldb, const T *C, size_t ldc)         \
  {                                                                                      \
    double *sa = malloc((m + n + 1) * sizeof *sa), *sb = sa + m;                         \
    if (!sa)                                                                             \
      return 1;                                                                          \
    rowsums_##SFX(m, k, A, lda, sa);                                                     \
    rowsums_##SFX(n, k, B, ldb, sb);                                                     \
    int ok = 1;                                                                          \
    for (size_t i = 0; i < m && ok; i++)                                                 \
      for (size_t j = 0; j < n; j++) {                                                   \
        double x = C[i * ldc + j], lim = sa[i] < sb[j] ? sa[i] : sb[j];                  \
        /* rounding slack of the working precision */                                    \
        if (!(x >= 0) || !(x <= lim * (1 + 1e-5) + 1e-30)) {                             \
          ok = 0;                                                                        \
          break;                                                                         \
        }                                                                                \
      }                                                                                  \
    free(sa);                                                                            \
    return ok;                                                                           \
  }                                                                                      \
  int sm_kern_verify_czek3_##SFX(size_t g, size_t mx, size_t my, size_t k, const T *P,   \
                                 size_t ldp, const T *X, size_t ldx, const T *Y,         \
                                 size_t ldy, const T *out)                               \
  {                                                                                      \
    double *sp = malloc((g + mx + my + 1) * sizeof *sp), *sx = sp + g, *sy = sx + mx;    \
    if (!sp)                                                                             \
      return 1;                                                                          \
    rowsums_##SFX(g, k, P, ldp, sp);                                                     \
    rowsums_##SFX(mx, k, X, ldx, sx);                                                    \
    rowsums_##SFX(my, k, Y, ldy, sy);                                                    \
    int ok = 1;                                                                          \
    for (size_t a = 0; a < g && ok; a++)                                                 \
      for (size_t x = 0; x < mx && ok; x++)                                              \
        for (size_t y = 0; y < my; y++) {                                                \
          double v = out[(a * mx + x) * my + y];                                         \
          double lim = sp[a] < sx[x] ? sp[a] : sx[x];                                    \
          lim = lim < sy[y] ? lim : sy[y];                                               \
          if (!(v >= 0) || !(v <= lim * (1 + 1e-5) + 1e-30)) {                           \
            ok = 0;                                                                      \
            break;                                                                       \
          }                                                                              \
        }                                                                                \
    free(sp);                                                                            \
    return ok;                                                                           \
  }

SM_DEF_VERIFY_CZEK(double, d)
SM_DEF_VERIFY_CZEK(float, s)

int sm_kern_verify_ccc3(size_t g, size_t mx, size_t my, size_t nf, int sparse,
                        const uint32_t *out)
{
  const size_t nmom = SM_CCC3_NMOM(sparse), n = g * mx * my;
  for (size_t t = 0; t < n; t++) {
    const uint32_t *c = out + t * nmom;
    if (!sparse) {
      if (c[0] > 4 * (uint64_t)nf || c[1] > 4 * (uint64_t)nf)
        return 0;
      continue;
    }
    uint64_t total = 0;
    for (int e = 0; e < 3; e++) {
      const uint32_t *p = c + 4 * e;
      if (p[0] > 2 * (uint64_t)p[1] || p[0] > 2 * (uint64_t)p[2] ||
          p[1] > 2 * (uint64_t)p[3] || p[2] > 2 * (uint64_t)p[3])
        return 0;
      total += p[3];
    }
    if (total > nf)
      return 0;
  }
  return 1;
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

void sm_kern_inject_u32(uint32_t *v, size_t n, uint64_t pick)
{
  if (n)
    v[pick % n] ^= 0x80000000u; /* a high bit flips: far beyond every bound */
}

void sm_kern_inject_f64(double *v, size_t n, uint64_t pick)
{
  if (n)
    v[pick % n] = v[pick % n] * 2.0 + 1e30; /* a gross error (exponent flip) */
}

void sm_kern_inject_f32(float *v, size_t n, uint64_t pick)
{
  if (n)
    v[pick % n] = v[pick % n] * 2.0f + 1e30f;
}
