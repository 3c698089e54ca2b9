/* kern_abft_czek.c: the checksum check of 2-way Czekanowski numerator
 * tiles (--verify's default for them; --verify full recomputes). A
 * numerator is C_ij = sum_q min(a_iq, b_jq): not linear, but per field the
 * sum over a tile's partners is a prefix sum over their sorted values,
 *   sum_j min(a, b_jq) = (sum of the b_jq <= a) + a (number of b_jq > a),
 * so with A's and B's values of a field sorted together (one radix sort of
 * m + n keys, then one pass) every row sum of C and every column sum come
 * out at O((m + n) log) work per field, against the tile's O(m n).
 *
 * Guarantees (each row sum and each column sum is compared):
 *  - every result is checked to be finite and without sign bit (a sum of
 *    minima of non-negative values), so a flipped sign or exponent that
 *    makes an infinity, a NaN or -0 is caught whatever its size;
 *  - integer data (every a and b an integer, the smaller side's vector
 *    sums below 2^53 in double, 2^24 in single, so that the kernel is
 *    exact, and a row's or column's sum below 2^52): every result is
 *    checked to be an integer and the sums are compared exactly, so any
 *    change of one result, and any change confined to one row or one
 *    column, is caught;
 *  - real data: a row sum R_i is compared within
 *    tol_i = ((k + 1) u + (2 n + k + 8) u_d) R_i (k fields, n partners, u
 *    the unit roundoff of the data, u_d that of double, the accumulators):
 *    the kernel's own rounding (at most (k - 1) u per result, the bound the
 *    run summary states per value) summed over the row, plus the check's.
 *    A change of one result by more than that is caught; smaller ones pass
 *    (they are below the sum of the stated bounds of the row's values).
 * A check that cannot get memory fails (the task is re-executed). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sm_kern.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_ACZ_X86 1
#define SM_ACZ_OPT __attribute__((optimize("O3")))
#define SM_ACZ_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define SM_ACZ_AVX2 __attribute__((target("avx2,fma")))
#else
#define SM_ACZ_X86 0
#define SM_ACZ_OPT
#endif

typedef double sm_v8d __attribute__((vector_size(64)));
typedef uint64_t sm_v8u __attribute__((vector_size(64)));

/* Order-preserving keys of doubles: unsigned order of the keys is the
 * numeric order of the values (-0 before +0; NaN is checked apart). */
static inline uint64_t key_of(double v)
{
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

static inline double val_of(uint64_t k)
{
  const uint64_t b = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/* A value's key and where it came from (t < m: row t of A, else row
 * t - m of B). */
typedef struct item {
  uint64_t key;
  uint64_t t;
} item_t;

/* Sort it[0..len) by key (tmp: len more); returns the sorted array (it or
 * tmp). LSD radix a byte a pass on the 3 highest bytes where keys differ
 * (bytes where every key agrees are skipped), then insertion sort on the
 * whole key, which has little left to do (keys that agree on those bytes
 * are rare, and equal keys need no order); when it has too much (more
 * than 4 len moves), the remaining bytes are sorted too. */
static item_t *radix_sort(item_t *it, item_t *tmp, size_t len)
{
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t t = 0; t < len; t++)
    all_or |= it[t].key, all_and &= it[t].key;
  const uint64_t vary = all_or ^ all_and;
  int lo = 64; /* the lowest byte the passes sort */
  for (int sh = 56, n = 0; sh >= 0 && n < 3; sh -= 8)
    if ((vary >> sh) & 0xff)
      lo = sh, n++;
  for (int round = 0; round < 2; round++) {
    for (int sh = round ? 0 : lo; sh < (round ? lo : 64); sh += 8) {
      if (!((vary >> sh) & 0xff))
        continue;
      size_t cnt[257] = {0};
      for (size_t t = 0; t < len; t++)
        cnt[((it[t].key >> sh) & 0xff) + 1]++;
      for (int d = 1; d < 257; d++)
        cnt[d] += cnt[d - 1];
      for (size_t t = 0; t < len; t++)
        tmp[cnt[(it[t].key >> sh) & 0xff]++] = it[t];
      item_t *s = it;
      it = tmp, tmp = s;
    }
    if (round)
      break; /* every byte sorted */
    size_t moves = 0;
    for (size_t t = 1; t < len && moves <= 4 * len; t++) {
      const item_t x = it[t];
      size_t u = t;
      for (; u > 0 && it[u - 1].key > x.key; u--)
        it[u] = it[u - 1], moves++;
      it[u] = x;
    }
    if (moves <= 4 * len)
      break;
  }
  return it;
}

/* One field's sums: it[0..m) A's values, it[m..m+n) B's; want[t] += sum
 * over the other side of min(value t, its values). */
static void field_sums(item_t *it, item_t *tmp, size_t m, size_t n, double *want)
{
  const item_t *o = radix_sort(it, tmp, m + n);
  double sum[2] = {0, 0}; /* values seen so far, A's and B's */
  size_t seen[2] = {0, 0};
  const size_t tot[2] = {m, n};
  for (size_t r = 0; r < m + n; r++) {
    const size_t t = (size_t)o[r].t;
    const int side = t >= m; /* ties: either order gives the same minima */
    const double v = val_of(o[r].key);
    want[t] += sum[!side] + v * (double)(tot[!side] - seen[!side]);
    sum[side] += v;
    seen[side]++;
  }
}

/* The fields in groups of G (a cache line of a row): A's and B's values of
 * the group as keys, field by field, with the rows' sums (sa, sb) and
 * whether every value is an integer (*ints). */
#define SM_ACZ_G 8

#define SM_DEF_ABFT_CZEK(T, SFX, MAGIC)                                                  \
  static inline __attribute__((always_inline)) int want_##SFX(                           \
      size_t m, size_t n, size_t k, const T *A, size_t lda, const T *B, size_t ldb,      \
      double *want, double *sa, double *sb, int *ints)                                   \
  {                                                                                      \
    const size_t len = m + n;                                                            \
    item_t *key = malloc(((SM_ACZ_G + 1) * len + 1) * sizeof *key);                      \
    if (!key)                                                                            \
      return 0;                                                                          \
    int in = 1;                                                                          \
    memset(want, 0, len * sizeof *want);                                                 \
    memset(sa, 0, m * sizeof *sa), memset(sb, 0, n * sizeof *sb);                        \
    for (size_t q0 = 0; q0 < k; q0 += SM_ACZ_G) {                                        \
      const size_t g = k - q0 < SM_ACZ_G ? k - q0 : SM_ACZ_G;                            \
      for (size_t t = 0; t < len; t++) {                                                 \
        const T *x = t < m ? A + t * lda + q0 : B + (t - m) * ldb + q0;                  \
        double s = 0;                                                                    \
        for (size_t f = 0; f < g; f++) {                                                 \
          const T v = x[f];                                                              \
          key[f * len + t] = (item_t){key_of((double)v), t};                             \
          s += (double)v;                                                                \
          in &= (v + (T)(MAGIC)) - (T)(MAGIC) == v || !(v < (T)(MAGIC));                 \
        }                                                                                \
        *(t < m ? &sa[t] : &sb[t - m]) += s;                                             \
      }                                                                                  \
      for (size_t f = 0; f < g; f++)                                                     \
        field_sums(key + f * len, key + SM_ACZ_G * len, m, n, want);                     \
    }                                                                                    \
    free(key);                                                                           \
    *ints = in;                                                                          \
    return 1;                                                                            \
  }

SM_DEF_ABFT_CZEK(double, d, 0x1p52)
SM_DEF_ABFT_CZEK(float, s, 0x1p23f)

int sm_kern_abft_czek2_sums_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                              const double *B, size_t ldb, double *want)
{
  double *s = malloc((m + n + 1) * sizeof *s);
  int ints = 0, ok = s && want_d(m, n, k, A, lda, B, ldb, want, s, s + m, &ints);
  free(s);
  return ok;
}

/* C's row sums (rs, m) and column sums (cs, n) in double, with every
 * result checked: finite, no sign bit, and, when ints, an integer (below
 * magic, the 2^(mantissa bits) of T). 8 results at a time, the lanes'
 * partial sums added at the end (any order is within the bound). Returns
 * 0 when a result fails. */
#define SM_DEF_CSUMS(T, SFX, UT, MAGIC)                                                  \
  static inline __attribute__((always_inline)) int csums_##SFX(                          \
      size_t m, size_t n, const T *C, size_t ldc, int ints, double *rs, double *cs)      \
  {                                                                                      \
    const size_t nv = n / 8;                                                             \
    const UT expo = (UT) ~(UT)0 >> 1 & ~((UT) ~(UT)0 >> (sizeof(T) == 8 ? 12 : 9));      \
    UT bad = 0;                                                                          \
    memset(cs, 0, n * sizeof *cs);                                                       \
    for (size_t i = 0; i < m; i++) {                                                     \
      const T *c = C + i * ldc;                                                          \
      sm_v8d acc = {0};                                                                  \
      for (size_t v = 0; v < nv; v++) {                                                  \
        sm_v8d x, s;                                                                     \
        UT bits[8];                                                                      \
        T xt[8];                                                                         \
        memcpy(xt, c + 8 * v, sizeof xt);                                                \
        memcpy(bits, c + 8 * v, sizeof bits);                                            \
        for (int l = 0; l < 8; l++) {                                                    \
          x[l] = (double)xt[l];                                                          \
          bad |= (bits[l] >> (8 * sizeof(T) - 1)) | ((bits[l] & expo) == expo);          \
          if (ints)                                                                      \
            bad |= (xt[l] + (T)(MAGIC)) - (T)(MAGIC) != xt[l] && xt[l] < (T)(MAGIC);     \
        }                                                                                \
        memcpy(&s, cs + 8 * v, sizeof s);                                                \
        s += x, acc += x;                                                                \
        memcpy(cs + 8 * v, &s, sizeof s);                                                \
      }                                                                                  \
      double r = 0;                                                                      \
      for (int l = 0; l < 8; l++)                                                        \
        r += acc[l];                                                                     \
      for (size_t j = 8 * nv; j < n; j++) {                                              \
        UT b;                                                                            \
        memcpy(&b, &c[j], sizeof b);                                                     \
        bad |= (b >> (8 * sizeof(T) - 1)) | ((b & expo) == expo);                        \
        if (ints)                                                                        \
          bad |= (c[j] + (T)(MAGIC)) - (T)(MAGIC) != c[j] && c[j] < (T)(MAGIC);          \
        r += (double)c[j], cs[j] += (double)c[j];                                        \
      }                                                                                  \
      rs[i] = r;                                                                         \
    }                                                                                    \
    return bad == 0;                                                                     \
  }

SM_DEF_CSUMS(double, d, uint64_t, 0x1p52)
SM_DEF_CSUMS(float, s, uint32_t, 0x1p23f)

/* got against want: exactly when exact (and want below 2^52, where double
 * sums of integers are exact), else within ((k + 1) u + (other + k + 8)
 * u_d) want, other: the number of terms of the sum on the other side. */
static int sums_ok(double got, double want, int exact, size_t k, size_t other, double u)
{
  if (exact && want < 0x1p52)
    return got == want;
  const double tol =
      ((double)(k + 1) * u + (double)(2 * other + k + 8) * 0x1p-53) * want + 1e-300;
  return fabs(got - want) <= tol; /* false on NaN */
}

#define SM_DEF_ABFT_CZEK2(T, SFX, U, EXACT_MAX)                                          \
  static inline __attribute__((always_inline)) int abft_czek2_##SFX(                     \
      size_t m, size_t n, size_t k, const T *A, size_t lda, const T *B, size_t ldb,      \
      const T *C, size_t ldc)                                                            \
  {                                                                                      \
    double *w = malloc((3 * (m + n) + 2) * sizeof *w);                                   \
    double *sa = w + (m + n), *sb = sa + m, *rs = sb + n, *cs = rs + m;                  \
    int ints = 0;                                                                        \
    int ok = w && want_##SFX(m, n, k, A, lda, B, ldb, w, sa, sb, &ints);                 \
    if (ok) {                                                                            \
      double ma = 0, mb = 0;                                                             \
      for (size_t i = 0; i < m; i++)                                                     \
        ma = sa[i] > ma ? sa[i] : ma;                                                    \
      for (size_t j = 0; j < n; j++)                                                     \
        mb = sb[j] > mb ? sb[j] : mb;                                                    \
      /* every result exact: each is at most its vectors' smaller sum */                 \
      const int exact = ints && (ma < (EXACT_MAX) || mb < (EXACT_MAX));                  \
      ok = csums_##SFX(m, n, C, ldc, exact, rs, cs);                                     \
      for (size_t i = 0; ok && i < m; i++)                                               \
        ok = sums_ok(rs[i], w[i], exact, k, n, U);                                       \
      for (size_t j = 0; ok && j < n; j++)                                               \
        ok = sums_ok(cs[j], w[m + j], exact, k, m, U);                                   \
    }                                                                                    \
    free(w);                                                                             \
    return ok;                                                                           \
  }

SM_DEF_ABFT_CZEK2(double, d, 0x1p-53, 0x1p53)
SM_DEF_ABFT_CZEK2(float, s, 0x1p-24, 0x1p24)

/* The variants (sm_kern_abft_use picks): portable, AVX2, AVX-512. */
#define SM_ACZ_PARAMS(T)                                                                 \
  (size_t m, size_t n, size_t k, const T *A, size_t lda, const T *B, size_t ldb,         \
   const T *C, size_t ldc)
#define SM_ACZ_ARGS (m, n, k, A, lda, B, ldb, C, ldc)
#if SM_ACZ_X86
#define SM_DEF_ACZ_VARIANTS(T, SFX)                                                      \
  SM_ACZ_OPT static int abft_czek2_##SFX##_portable SM_ACZ_PARAMS(T)                     \
  {                                                                                      \
    return abft_czek2_##SFX SM_ACZ_ARGS;                                                 \
  }                                                                                      \
  SM_ACZ_OPT SM_ACZ_AVX2 static int abft_czek2_##SFX##_avx2 SM_ACZ_PARAMS(T)             \
  {                                                                                      \
    return abft_czek2_##SFX SM_ACZ_ARGS;                                                 \
  }                                                                                      \
  SM_ACZ_OPT SM_ACZ_AVX512 static int abft_czek2_##SFX##_avx512 SM_ACZ_PARAMS(T)         \
  {                                                                                      \
    return abft_czek2_##SFX SM_ACZ_ARGS;                                                 \
  }                                                                                      \
  int sm_kern_abft_czek2_##SFX SM_ACZ_PARAMS(T)                                          \
  {                                                                                      \
    const int isa = sm_kern_abft_isa();                                                  \
    return isa == 2   ? abft_czek2_##SFX##_avx512 SM_ACZ_ARGS                            \
           : isa == 1 ? abft_czek2_##SFX##_avx2 SM_ACZ_ARGS                              \
                      : abft_czek2_##SFX##_portable SM_ACZ_ARGS;                         \
  }
#else
#define SM_DEF_ACZ_VARIANTS(T, SFX)                                                      \
  int sm_kern_abft_czek2_##SFX SM_ACZ_PARAMS(T)                                          \
  {                                                                                      \
    return abft_czek2_##SFX SM_ACZ_ARGS;                                                 \
  }
#endif

SM_DEF_ACZ_VARIANTS(double, d)
SM_DEF_ACZ_VARIANTS(float, s)
