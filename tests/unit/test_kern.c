/* test_kern.c: every optimized kernel against its reference twin on odd
 * sizes (m, n, k not multiples of the tiles or SIMD width, k = 0, one and
 * two vectors, zero vectors, pad bits), and the finalize kernel against the
 * formulas computed by hand. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern_finalize_impl.h"
#include "sm_formulas.h"
#include "sm_kern.h"
#include "sm_kern_simd.h"
#include "sm_mfix.h"
#include "sm_sidecache.h"
#include "sm_xcnt512.h"
#include "sm_test.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t xr(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static const size_t ms[] = {1, 2, 3, 5, 17, 33};
static const size_t ks[] = {0, 1, 7, 15, 16, 17, 31, 63, 64, 65, 513, 1029};
#define NM (sizeof ms / sizeof ms[0])
#define NK (sizeof ks / sizeof ks[0])

/* fill an m x k matrix with ld, pad zero; integer or real values; some rows
 * all zero */
static void fill_d(double *x, size_t m, size_t k, size_t ld, int integer)
{
  for (size_t i = 0; i < m; i++)
    for (size_t q = 0; q < ld; q++) {
      double v = integer ? (double)(xr() % 100) : (double)(xr() >> 11) * 0x1.0p-53;
      x[i * ld + q] = q < k && i % 7 != 6 ? v : 0.0;
    }
}

START_TEST(czek2_blocked_vs_ref_double)
{
  for (size_t a = 0; a < NM; a++)
    for (size_t b = 0; b < NM; b++)
      for (size_t c = 0; c < NK; c++)
        for (int integer = 0; integer < 2; integer++) {
          size_t m = ms[a], n = ms[b], k = ks[c], lda = k + 3, ldb = k + 5, ldc = n + 1;
          double *A = malloc(m * lda * 8 + 8), *B = malloc(n * ldb * 8 + 8);
          double *C1 = calloc(m * ldc, 8), *C2 = calloc(m * ldc, 8);
          fill_d(A, m, k, lda, integer);
          fill_d(B, n, k, ldb, integer);
          sm_kern_czek2_ref_d(m, n, k, A, lda, B, ldb, C1, ldc);
          sm_kern_czek2_blocked_d(m, n, k, A, lda, B, ldb, C2, ldc);
          for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
              double x = C1[i * ldc + j], y = C2[i * ldc + j];
              if (integer)
                ck_assert_msg(x == y, "m=%zu n=%zu k=%zu (%zu,%zu): %g vs %g", m, n, k, i,
                              j, x, y);
              else
                ck_assert_msg(fabs(x - y) <= 1e-12 * fabs(x),
                              "m=%zu n=%zu k=%zu: %.17g vs %.17g", m, n, k, x, y);
            }
          free(A), free(B), free(C1), free(C2);
        }
}
END_TEST

START_TEST(czek2_blocked_vs_ref_single)
{
  for (size_t a = 0; a < NM; a++)
    for (size_t c = 0; c < NK; c++) {
      size_t m = ms[a], n = ms[NM - 1 - a], k = ks[c], ld = k + 1;
      float *A = malloc(m * ld * 4 + 4), *B = malloc(n * ld * 4 + 4);
      float *C1 = calloc(m * n, 4), *C2 = calloc(m * n, 4);
      for (size_t x = 0; x < m * ld; x++)
        A[x] = (float)(xr() % 64);
      for (size_t x = 0; x < n * ld; x++)
        B[x] = (float)(xr() % 64);
      sm_kern_czek2_ref_s(m, n, k, A, ld, B, ld, C1, n);
      sm_kern_czek2_blocked_s(m, n, k, A, ld, B, ld, C2, n);
      /* integer sums below 2^24 are exact in float whatever the order */
      for (size_t x = 0; x < m * n; x++)
        ck_assert_msg(C1[x] == C2[x], "m=%zu n=%zu k=%zu: %g vs %g", m, n, k, C1[x],
                      C2[x]);
      free(A), free(B), free(C1), free(C2);
    }
}
END_TEST

START_TEST(czek_sums)
{
  double X[3 * 9];
  for (int x = 0; x < 27; x++)
    X[x] = x;
  double s[3];
  sm_kern_sums_czek_d(3, 7, X, 9, s); /* pads at 7 and 8 are not counted */
  ck_assert(s[0] == 21 && s[1] == 9 * 7 + 21 && s[2] == 18 * 7 + 21);
}
END_TEST

/* random 2-bit codes with a given chance of missing (code 2) */
static void fill_codes(uint64_t *x, size_t m, size_t nf, size_t ld, double miss)
{
  for (size_t i = 0; i < m; i++) {
    for (size_t w = 0; w < ld; w++)
      x[i * ld + w] = 0;
    for (size_t q = 0; q < nf; q++) {
      unsigned c;
      if ((double)(xr() % 1000) < miss * 1000)
        c = 2;
      else {
        static const unsigned codes[3] = {0, 1, 3};
        c = codes[xr() % 3];
      }
      if (i % 5 == 4)
        c = 0; /* a few all-zero vectors */
      x[i * ld + q / 32] |= (uint64_t)c << (2 * (q % 32));
    }
  }
}

/* PLINK's homozygous tally counted field by field into h (zeroed, m x n
 * pairs, 2 a pair): samples called in both where row i, then column j,
 * has code 11. */
static void hom_by_hand(size_t m, size_t n, size_t nf, const uint64_t *A,
                        const uint64_t *B, size_t ld, uint32_t *h)
{
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++)
      for (size_t q = 0; q < nf; q++) {
        const unsigned a = (A[i * ld + q / 32] >> (2 * (q % 32))) & 3,
                       b = (B[j * ld + q / 32] >> (2 * (q % 32))) & 3;
        h[(i * n + j) * 2] += a == 3 && b != 2;
        h[(i * n + j) * 2 + 1] += b == 3 && a != 2;
      }
}

/* PLINK's homozygous tally (sm_kern_ld_hom): every method (popcounts,
 * over the missing fields; SIMD and portable) and the automatic choice
 * equal counting by hand, field by field: odd sizes, one vector, one
 * field, no missing call, few (the sparse method's case), many, all;
 * blocks of 256 x 256 pairs with partial ones both ways. */
START_TEST(ld_hom_methods_vs_hand)
{
  static const size_t shapes[][3] = {{1, 1, 1},     {3, 5, 63},     {7, 2, 65},
                                     {17, 19, 200}, {40, 33, 2001}, {300, 9, 129},
                                     {5, 270, 700}, {3, 4, 17000},  {261, 275, 90}};
  static const double rates[] = {0, 0.01, 0.3, 1.0};
  for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
    for (size_t ra = 0; ra < 4; ra++)
      for (int same = 0; same < 2; same++) {
        const size_t m = shapes[sh][0], n = same ? m : shapes[sh][1], nf = shapes[sh][2],
                     ld = (nf + 31) / 32 + 1;
        uint64_t *A = calloc(m * ld, 8), *B = same ? A : calloc(n * ld, 8);
        uint32_t *want = calloc(m * n * 2, 4), *got = calloc(m * n * 2, 4);
        fill_codes(A, m, nf, ld, rates[ra]);
        if (!same)
          fill_codes(B, n, nf, ld, rates[ra]);
        hom_by_hand(m, n, nf, A, B, ld, want);
        for (int how = -1; how <= 3; how++) {
          memset(got, 0xff, m * n * 8);
          ck_assert_int_eq(sm_kern_ld_hom_by(how, m, n, nf, A, ld, B, ld, got, n), 0);
          ck_assert_msg(!memcmp(got, want, m * n * 8),
                        "ld_hom method %d differs: %zu x %zu x %zu, missing %g%s", how, m,
                        n, nf, rates[ra], same ? ", same set" : "");
        }
        free(A), free(want), free(got);
        if (!same)
          free(B);
      }
}
END_TEST

/* PLINK's r and r^2 by one kernel call (sm_kern_ccc2_ld, the ccc2_ld
 * codelet's): CCC's sparse moments equal the reference kernel's and the
 * homozygous tallies counting by hand, for every kernel this CPU runs
 * (the AVX-512 counters make both from one pass; the others each by its
 * own kernel), the symmetric form, partial blocks of 256 both ways, no
 * missing call, few, many, all; and the counters' own path, forced, the
 * same (it is taken: 0, not "not worth it"). */
START_TEST(ccc2_ld_both_vs_reference)
{
  static const size_t shapes[][3] = {{1, 1, 1},      {7, 2, 65},      {40, 33, 2001},
                                     {261, 275, 90}, {300, 17, 1000}, {5, 530, 300}};
  static const double rates[] = {0, 0.01, 0.3, 1.0};
  static const sm_kvar_t vars[] = {SM_KVAR_AUTO, SM_KVAR_POPC, SM_KVAR_AVX2,
                                   SM_KVAR_AVX512, SM_KVAR_REF};
  const int x512 = !sm_kern_unusable(SM_KVAR_AVX512, 1) && sm_xc_usable();
  for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
    for (size_t ra = 0; ra < 4; ra++)
      for (int sym = 0; sym < 2; sym++) {
        const size_t m = shapes[sh][0], n = sym ? m : shapes[sh][1], nf = shapes[sh][2],
                     ld = (nf + 31) / 32 + 1, ldc = n + 3;
        uint64_t *A = calloc(m * ld, 8), *B = sym ? A : calloc(n * ld, 8);
        uint32_t *wc = calloc(m * n * 4, 4), *wh = calloc(m * n * 2, 4),
                 *gc = malloc(m * ldc * 16), *gh = malloc(m * ldc * 8);
        fill_codes(A, m, nf, ld, rates[ra]);
        if (!sym)
          fill_codes(B, n, nf, ld, rates[ra]);
        sm_kern_ccc2_ref(m, n, nf, A, ld, B, ld, 1, wc, n);
        hom_by_hand(m, n, nf, A, B, ld, wh);
        for (size_t v = 0; v < sizeof vars / sizeof vars[0] + (size_t)x512; v++) {
          memset(gc, 0xa5, m * ldc * 16), memset(gh, 0xa5, m * ldc * 8);
          if (v < sizeof vars / sizeof vars[0]) {
            if (sm_kern_unusable(vars[v], 1))
              continue;
            ck_assert_int_eq(
                sm_kern_ccc2_ld(vars[v], m, n, nf, A, ld, B, ld, sym, gc, ldc, gh, ldc),
                0);
          } else /* the counters, forced */
            ck_assert_int_eq(sm_ccc2_sparse_fix(sm_kern_ccc2_avx512,
                                                sm_kern_ccc2_syrk_avx512,
                                                SM_MFIX_ISA_avx512, m, n, nf, A, ld, B,
                                                ld, sym, 1, gc, ldc, gh, ldc),
                             0);
          for (size_t i = 0; i < m; i++) {
            ck_assert_msg(!memcmp(gc + i * ldc * 4, wc + i * n * 4, n * 16) &&
                              !memcmp(gh + i * ldc * 2, wh + i * n * 2, n * 8),
                          "variant %zu: %zu x %zu x %zu, missing %g%s: row %zu differs",
                          v, m, n, nf, rates[ra], sym ? ", symmetric" : "", i);
            for (size_t k = n * 4; k < ldc * 4; k++) /* past n: untouched */
              ck_assert_uint_eq(gc[i * ldc * 4 + k], 0xa5a5a5a5u);
            for (size_t k = n * 2; k < ldc * 2; k++)
              ck_assert_uint_eq(gh[i * ldc * 2 + k], 0xa5a5a5a5u);
          }
        }
        free(A), free(wc), free(wh), free(gc), free(gh);
        if (!sym)
          free(B);
      }
}
END_TEST

/* A tile's derived data kept between calls (sm_sidecache.h) comes back
 * only while the vectors at its place hold the same codes. The module
 * alone: an item is kept from its second call, and a third finds it; a
 * changed code at the same place
 * (even one bit of one word) builds it again; an item held through a
 * flush stays readable until released; a budget of 0 keeps nothing. With
 * AVX-512, the counters' moments and tally of the same buffers, again
 * after codes change in place (a bit of A, a whole row of B), equal the
 * reference every time, and the repeated call found both sides kept. */
static int side_builds;
static void *side_build_sum(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                            size_t *bytes)
{
  uint64_t *s = malloc(sizeof *s);
  *s = 0;
  for (size_t v = 0; v < nv; v++)
    for (size_t w = 0; w < (nf + 31) / 32; w++)
      *s += X[v * ldx + w] * (w + 3 * v + 1);
  side_builds++, *bytes = sizeof *s;
  return s;
}

static uint64_t side_sum_by_hand(const uint64_t *X, size_t nv, size_t nf, size_t ldx)
{
  size_t bytes;
  uint64_t *s = side_build_sum(X, nv, nf, ldx, &bytes), r = *s;
  side_builds--;
  free(s);
  return r;
}

static void side_moments_vs_ref(size_t m, size_t n, size_t nf, const uint64_t *A,
                                const uint64_t *B, size_t ld, uint32_t *gc, uint32_t *gh,
                                uint32_t *wc, uint32_t *wh)
{
  memset(wh, 0, m * n * 8);
  sm_kern_ccc2_ref(m, n, nf, A, ld, B, ld, 1, wc, n);
  hom_by_hand(m, n, nf, A, B, ld, wh);
  ck_assert_int_eq(sm_ccc2_sparse_fix(sm_kern_ccc2_avx512, sm_kern_ccc2_syrk_avx512,
                                      SM_MFIX_ISA_avx512, m, n, nf, A, ld, B, ld, 0, 1,
                                      gc, n, gh, n),
                   0);
  ck_assert(!memcmp(gc, wc, m * n * 16) && !memcmp(gh, wh, m * n * 8));
}

START_TEST(side_cache_same_place_new_codes)
{
  enum { NV = SM_SIDE_MIN_VECTORS + 22, NF = 300, LDX = (NF + 31) / 32 + 2 };
  uint64_t *X = calloc(NV * LDX, 8), h0, b0, h1, b1;
  fill_codes(X, NV, NF, LDX, 0.05);
  sm_side_set_limit((size_t)1 << 20);
  sm_side_ref_t r1, r2;
  side_builds = 0;
  /* asked for once: built, not kept; twice: built and kept */
  for (int k = 0; k < 2; k++) {
    const uint64_t *p0 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r1);
    ck_assert_uint_eq(*p0, side_sum_by_hand(X, NV, NF, LDX));
    sm_side_release(&r1);
  }
  ck_assert_int_eq(side_builds, 2);
  const uint64_t *p1 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r1);
  sm_side_release(&r1);
  sm_side_stats(&h0, &b0);
  const uint64_t *p2 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r2);
  sm_side_stats(&h1, &b1);
  ck_assert(p2 == p1 && h1 == h0 + 1 && b1 == b0 && side_builds == 2);
  sm_side_release(&r2);
  /* one bit of the last code word of the last vector: built again */
  X[(NV - 1) * LDX + (NF + 31) / 32 - 1] ^= 1;
  p2 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r2);
  ck_assert_int_eq(side_builds, 3);
  ck_assert_uint_eq(*p2, side_sum_by_hand(X, NV, NF, LDX));
  sm_side_release(&r2);
  /* kept again (asked for before), then held through a flush: readable
   * until released, then built again */
  p2 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r2);
  ck_assert_int_eq(side_builds, 4);
  sm_side_flush();
  ck_assert_uint_eq(*p2, side_sum_by_hand(X, NV, NF, LDX));
  sm_side_release(&r2);
  p2 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r2);
  sm_side_release(&r2);
  ck_assert_int_eq(side_builds, 5);
  /* fewer vectors than SM_SIDE_MIN_VECTORS: never kept */
  for (int k = 0; k < 3; k++)
    sm_side_release((sm_side_get(1, X, 20, NF, LDX, side_build_sum, free, &r2), &r2));
  ck_assert_int_eq(side_builds, 8);
  ck_assert_ptr_null(sm_side_get(1, X, 20, NF, LDX, NULL, free, &r2)); /* only kept */
  /* another shape or kind of the same place is another item */
  sm_side_release((sm_side_get(1, X, NV - 1, NF, LDX, side_build_sum, free, &r2), &r2));
  sm_side_release((sm_side_get(2, X, NV, NF, LDX, side_build_sum, free, &r2), &r2));
  ck_assert_int_eq(side_builds, 10);
  sm_side_set_limit(0); /* nothing kept */
  for (int k = 0; k < 3; k++) {
    p2 = sm_side_get(1, X, NV, NF, LDX, side_build_sum, free, &r2);
    ck_assert_uint_eq(*p2, side_sum_by_hand(X, NV, NF, LDX));
    sm_side_release(&r2);
  }
  ck_assert_int_eq(side_builds, 13);
  free(X);
  sm_side_set_limit((size_t)256 << 20);
  if (sm_kern_unusable(SM_KVAR_AVX512, 1) || !sm_xc_usable())
    return; /* the counters' part needs AVX-512 */
  const size_t m = 300, n = 280, nf = 1000, ld = (nf + 31) / 32 + 1;
  uint64_t *A = calloc(m * ld, 8), *B = calloc(n * ld, 8);
  uint32_t *gc = malloc(m * n * 16), *gh = malloc(m * n * 8), *wc = malloc(m * n * 16),
           *wh = malloc(m * n * 8);
  fill_codes(A, m, nf, ld, 0.01);
  fill_codes(B, n, nf, ld, 0.01);
  ck_assert(sm_xc_strips(nf, 0) && sm_xc_fits(m, n, nf));
  side_moments_vs_ref(m, n, nf, A, B, ld, gc, gh, wc, wh);
  side_moments_vs_ref(m, n, nf, A, B, ld, gc, gh, wc, wh); /* kept from here */
  sm_side_stats(&h0, &b0);
  side_moments_vs_ref(m, n, nf, A, B, ld, gc, gh, wc, wh);
  sm_side_stats(&h1, &b1);
  ck_assert(h1 == h0 + 2 && b1 == b0); /* both sides found kept */
  A[7 * ld + 3] ^= (uint64_t)2 << 10;  /* one code of row 7: 00 <-> 10 (missing) ... */
  fill_codes(B + 200 * ld, 1, nf, ld, 0.2); /* ... and B's row 200 anew */
  side_moments_vs_ref(m, n, nf, A, B, ld, gc, gh, wc, wh);
  sm_side_stats(&h0, &b0);
  ck_assert(b0 == b1 + 2); /* both built again */
  free(A), free(B), free(gc), free(gh), free(wc), free(wh);
}
END_TEST

/* The finalize kernels' vectorizable checksum terms (the fixed point read
 * from 1.5 2^52 + r) equal sm_fin_ck_add's value by value: halves away
 * from zero, negatives, every magnitude up to 2^51 and past it (the
 * sm_cksum_q path), NaN and infinities. */
START_TEST(fin_ck_terms_exact)
{
  enum { N = 700 };
  double v[N];
  uint64_t key[N];
  for (int big = 0; big < 2; big++) {
    for (int x = 0; x < N; x++) {
      const double u = (double)(xr() >> 11) * 0x1p-53 - 0.5; /* [-0.5, 0.5) */
      const int kind = x % 7;
      v[x] = kind == 0   ? u * 9.0
             : kind == 1 ? ldexp(floor(u * 64) + 0.5, -40) /* exact halves of 2^-40 */
             : kind == 2 ? -ldexp(floor(u * 64) + 0.5, -40)
             : kind == 3 ? ldexp(u, (int)(xr() % 11)) /* up to 2^10 */
             : kind == 4 ? 0.0
             : kind == 5 ? -ldexp(1.0, -41)
                         : u * 1e-9;
      key[x] = xr();
    }
    if (big) { /* one value past 2^51 in fixed point, and the specials */
      v[3] = 4096.0, v[10] = -1e300, v[17] = NAN, v[24] = INFINITY, v[31] = -INFINITY;
      v[38] = 2047.999;
    }
    for (uint32_t n = 0; n <= N; n += n < 20 ? 1 : 97) {
      const uint64_t step = (uint64_t)(n % 4) * SM_CKSUM_ENTRY_STEP;
      sm_fin_ck_t a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
      for (uint32_t x = 0; x < n; x++)
        sm_fin_ck_add(&a, key[x], n % 4, v[x]);
      sm_fin_ck_terms(&b, v, key, n, step);
      ck_assert_msg(a.lo == b.lo && a.hi == b.hi && a.hash == b.hash && a.n == b.n,
                    "n=%u big=%d: lo %llx/%llx hi %lld/%lld hash %llx/%llx", n, big,
                    (unsigned long long)a.lo, (unsigned long long)b.lo, (long long)a.hi,
                    (long long)b.hi, (unsigned long long)a.hash,
                    (unsigned long long)b.hash);
    }
  }
}
END_TEST

START_TEST(ccc2_popc_vs_ref)
{
  static const size_t nfs[] = {1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 517};
  for (size_t a = 0; a < NM; a++)
    for (size_t c = 0; c < sizeof nfs / sizeof nfs[0]; c++)
      for (int sparse = 0; sparse < 2; sparse++) {
        size_t m = ms[a], n = ms[(a + 2) % NM], nf = nfs[c], ld = (nf + 31) / 32 + 1;
        size_t nmom = SM_CCC2_NMOM(sparse);
        uint64_t *A = malloc(m * ld * 8), *B = malloc(n * ld * 8);
        uint32_t *C1 = calloc(m * n * nmom, 4), *C2 = calloc(m * n * nmom, 4);
        fill_codes(A, m, nf, ld, 0.1);
        fill_codes(B, n, nf, ld, 0.1);
        sm_kern_ccc2_ref(m, n, nf, A, ld, B, ld, sparse, C1, n);
        sm_kern_ccc2_popc(m, n, nf, A, ld, B, ld, sparse, C2, n);
        for (size_t x = 0; x < m * n * nmom; x++)
          ck_assert_msg(C1[x] == C2[x], "m=%zu n=%zu nf=%zu sparse=%d [%zu]: %u vs %u", m,
                        n, nf, sparse, x, C1[x], C2[x]);
        free(A), free(B), free(C1), free(C2);
      }
}
END_TEST

/* CCC's sparse moments as a dense product plus sums over the missing
 * fields (kern_mfix.c), forced, with each popcount kernel this CPU runs
 * for the product, general and symmetric (B is A): equal to the
 * reference's for chunk edges (63, 64, 65, 130 rows), lengths around the
 * word sizes, no missing call, few, many, all; and on 40,000 fields
 * (several blocks of fields, one vector missing every call). */
/* PLINK-like windows: per vector the last one in its window, a random
 * reach from it (at most reach), never decreasing, a chromosome's end
 * every period vectors (0: none). */
static void random_windows(uint32_t *win, uint32_t nv, uint32_t reach, uint32_t period,
                           uint64_t *seed)
{
  for (uint32_t x = 0, last = 0; x < nv; x++) {
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t e = x + (uint32_t)((*seed >> 33) % (reach + 1));
    e = e >= nv ? nv - 1 : e;
    last = e > last ? e : last;
    win[x] = period && x % period == period - 1 ? x : last;
    if (win[x] < x)
      win[x] = x;
    if (x && win[x] < win[x - 1])
      win[x] = win[x - 1];
  }
}

/* LD windows' strips (kern_band.c): for windows of many widths and tile
 * pairs before, on and after the diagonal, the strips cover every pair in
 * a window exactly once by row, stay inside the tile, hold at most twice
 * their rows' pairs (and 64 more), are at most 16 rows tall, or as tall as
 * their first row's run when it is 128 or longer (and some are), and
 * sm_band_pairs counts the pairs. */
START_TEST(band_strips_cover_windows)
{
  enum { NV = 700 };
  static uint32_t win[NV];
  uint64_t seed = 5;
  size_t tall = 0;
  for (int t = 0; t < 40; t++) {
    /* the last vector of each window: a random reach, never decreasing */
    const uint32_t reach = (uint32_t)(t % 4 == 0 ? 0 : (t * 37) % 300);
    random_windows(win, NV, reach, t % 7 == 3 ? 50 : 0, &seed);
    static const uint32_t tiles[][4] = {
        {0, 0, 64, 64},     {64, 0, 64, 64},     {0, 64, 64, 64}, {128, 128, 200, 200},
        {100, 300, 57, 90}, {390, 100, 70, 256}, {3, 3, 1, 1},    {0, 500, 200, 200}};
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
      const sm_band_t b = {.win = win, .a0 = tiles[k][0], .b0 = tiles[k][1]};
      const size_t m = tiles[k][2], n = b.a0 == b.b0 ? m : tiles[k][3];
      uint64_t want = 0, got = 0;
      static unsigned char cov[256][256];
      memset(cov, 0, sizeof cov);
      size_t row = 0, last_r1 = 0;
      sm_strip_t st;
      while (sm_band_next(&b, m, n, &row, &st)) {
        ck_assert(st.r0 >= last_r1 && st.r0 < st.r1 && st.r1 <= m);
        ck_assert(st.c0 < st.c1 && st.c1 <= n && row == st.r1);
        size_t lo0, hi0;
        sm_band_run(&b, n, st.r0, &lo0, &hi0);
        ck_assert_uint_le(st.r1 - st.r0, hi0 - lo0 >= 128 ? (hi0 - lo0) / 16 * 16 : 16);
        tall += st.r1 - st.r0 > 16;
        last_r1 = st.r1;
        uint64_t need = 0;
        for (size_t i = st.r0; i < st.r1; i++)
          for (size_t j = st.c0; j < st.c1; j++) {
            cov[i][j]++;
            const size_t x = b.a0 + i, y = b.b0 + j;
            need += (x < y && win[x] >= y) || (y < x && win[y] >= x);
          }
        ck_assert_uint_le((st.r1 - st.r0) * (st.c1 - st.c0), 2 * need + 64);
      }
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
          const size_t x = b.a0 + i, y = b.b0 + j;
          /* a diagonal tile: the pairs j > i */
          const int in = (x < y && win[x] >= y) || (y < x && win[y] >= x && b.a0 != b.b0);
          want += (uint64_t)in;
          if (in)
            ck_assert_msg(cov[i][j] == 1, "t %d tile %zu pair (%zu, %zu) covered %d", t,
                          k, i, j, cov[i][j]);
        }
      got = sm_band_pairs(&b, m, n);
      ck_assert_uint_eq(got, want);
      /* the work: the strips' areas, or the whole tile */
      uint64_t area = 0;
      for (row = 0; sm_band_next(&b, m, n, &row, &st);)
        area += (uint64_t)(st.r1 - st.r0) * (st.c1 - st.c0);
      size_t r0, r1, c0, c1;
      const int direct = sm_band_direct(&b, m, n, &r0, &r1, &c0, &c1);
      ck_assert_uint_eq(sm_band_area(&b, m, n), sm_band_whole(&b, m, n) ? (uint64_t)m * n
                                                : direct                ? want
                                                                        : area);
      if (direct) /* its rows and columns hold every pair in a window */
        for (size_t i = 0; i < m; i++)
          for (size_t j = 0; j < n; j++) {
            const size_t x = b.a0 + i, y = b.b0 + j;
            if ((x < y && win[x] >= y) || (y < x && win[y] >= x && b.a0 != b.b0))
              ck_assert(i >= r0 && i < r1 && j >= c0 && j < c1);
          }
      const uint64_t all = b.a0 == b.b0 ? (uint64_t)m * (m - 1) / 2 : (uint64_t)m * n;
      ck_assert_int_eq(sm_band_whole(&b, m, n), 2 * want >= all);
    }
  }
  ck_assert_int_eq(sm_band_whole(NULL, 5, 5), 1);
  ck_assert_uint_gt(tall, 0);
}
END_TEST

/* --ld-snp's strips (an index): every pair in a window with an index
 * vector is in a strip (once, twice for two index vectors), and every pair
 * of a strip is such a pair; the areas are sm_band_pairs'. */
START_TEST(band_strips_index_vectors)
{
  enum { NV = 700 };
  static uint32_t win[NV];
  static unsigned char ix[NV];
  uint64_t seed = 11;
  for (int t = 0; t < 24; t++) {
    const uint32_t reach = (uint32_t)((t * 53) % 300);
    random_windows(win, NV, reach, t % 5 == 2 ? 60 : 0, &seed);
    for (uint32_t x = 0; x < NV; x++) { /* index vectors; bit 1 alone is not one */
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      ix[x] =
          (unsigned char)((seed >> 20) % (t % 3 == 0 ? 5 : 40) == 0 ? 1 : 2 * (x & 1));
    }
    static const uint32_t tiles[][4] = {{0, 0, 64, 64},       {0, 64, 64, 64},
                                        {128, 128, 200, 200}, {100, 300, 57, 90},
                                        {390, 100, 70, 256},  {0, 500, 200, 200}};
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
      const sm_band_t b = {.win = win, .index = ix, .a0 = tiles[k][0], .b0 = tiles[k][1]};
      const size_t m = tiles[k][2], n = b.a0 == b.b0 ? m : tiles[k][3];
      static unsigned char cov[256][256];
      memset(cov, 0, sizeof cov);
      size_t row = 0;
      uint64_t area = 0;
      sm_strip_t st;
      while (sm_band_next(&b, m, n, &row, &st)) {
        ck_assert(st.r0 < st.r1 && st.r1 <= m && st.c0 < st.c1 && st.c1 <= n);
        area += (uint64_t)(st.r1 - st.r0) * (st.c1 - st.c0);
        for (size_t i = st.r0; i < st.r1; i++)
          for (size_t j = st.c0; j < st.c1; j++) {
            const size_t x = b.a0 + i, y = b.b0 + j;
            const int in =
                (x < y && win[x] >= y) || (y < x && win[y] >= x && b.a0 != b.b0);
            ck_assert_msg(in && ((ix[x] | ix[y]) & 1),
                          "t %d tile %zu: (%zu, %zu) needless", t, k, i, j);
            cov[i][j]++;
          }
      }
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
          const size_t x = b.a0 + i, y = b.b0 + j;
          const int in = (x < y && win[x] >= y) || (y < x && win[y] >= x && b.a0 != b.b0);
          const int times = in ? (ix[x] & 1) + (ix[y] & 1) : 0;
          ck_assert_msg(cov[i][j] == times,
                        "t %d tile %zu pair (%zu, %zu) covered %d, not %d", t, k, i, j,
                        cov[i][j], times);
        }
      ck_assert_uint_eq(sm_band_pairs(&b, m, n), area);
    }
  }
}
END_TEST

/* The runs' check (sm_kern_abft_ld_band) of moments got and homozygous
 * tallies hg, by every variant this CPU runs: passes them, and refuses a
 * random bit flipped in one tally of the first and last pair of the run
 * of every step-th row from r0 (then flipped back). */
static void band_check_flips(const sm_band_t *b, size_t m, size_t n, size_t nf,
                             const uint64_t *A, const uint64_t *B, size_t ld,
                             uint32_t *got, uint32_t *hg, size_t r0, size_t r1,
                             size_t step, uint64_t *seed)
{
  for (int cv = 0; cv < 3; cv++) {
    static const sm_kvar_t checks[] = {SM_KVAR_REF, SM_KVAR_AVX2, SM_KVAR_AVX512};
    if (!sm_kern_abft_use(checks[cv]))
      continue;
    ck_assert_int_eq(sm_kern_abft_ld_band(b, m, n, nf, A, ld, B, ld, got, n, 0), 1);
    ck_assert_int_eq(sm_kern_abft_ld_band(b, m, n, nf, A, ld, B, ld, hg, n, 1), 1);
    for (size_t i = r0; i < r1; i += step) {
      size_t lo, hi;
      sm_band_run(b, n, i, &lo, &hi);
      for (size_t j = lo; j<hi; j += hi - lo> 1 ? hi - lo - 1 : 1) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t bit = 1u << (*seed >> 59), q = (uint32_t)(*seed >> 20) % 4;
        got[(i * n + j) * 4 + q] ^= bit;
        ck_assert_int_eq(sm_kern_abft_ld_band(b, m, n, nf, A, ld, B, ld, got, n, 0), 0);
        got[(i * n + j) * 4 + q] ^= bit;
        hg[(i * n + j) * 2 + q % 2] ^= bit;
        ck_assert_int_eq(sm_kern_abft_ld_band(b, m, n, nf, A, ld, B, ld, hg, n, 1), 0);
        hg[(i * n + j) * 2 + q % 2] ^= bit;
      }
    }
  }
  sm_kern_abft_use(SM_KVAR_AUTO);
}

/* LD windows pair by pair (sm_band_direct): the band kernels write the
 * pairs of each row's run as the whole-tile kernels compute them and no
 * other; their check passes them and refuses a flipped bit in any one
 * tally of a run. Diagonal tile pairs share their buffer (A is B). */
START_TEST(band_direct_vs_ref)
{
  enum { NV = 600, NF = 333, LD = (NF + 31) / 32 + 1 };
  static uint32_t win[NV];
  uint64_t *X = calloc((size_t)NV * LD, 8), seed = 21;
  fill_codes(X, NV, NF, LD, 0.05);
  const sm_ccc2_band_fn fns[] = {sm_kern_ccc2_band_popc, sm_kern_ccc2_band_avx2};
  int direct_tiles = 0;
  for (int t = 0; t < 12; t++) {
    random_windows(win, NV, (uint32_t)(1 + t * 4), t % 4 == 3 ? 40 : 0, &seed);
    static const uint32_t tiles[][4] = {{0, 0, 64, 64},     {64, 0, 64, 64},
                                        {0, 64, 64, 64},    {128, 128, 200, 200},
                                        {100, 300, 57, 90}, {390, 100, 70, 200}};
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
      const sm_band_t b = {.win = win, .a0 = tiles[k][0], .b0 = tiles[k][1]};
      const size_t m = tiles[k][2], n = b.a0 == b.b0 ? m : tiles[k][3];
      size_t r0, r1, c0, c1;
      if (!sm_band_direct(&b, m, n, &r0, &r1, &c0, &c1))
        continue;
      direct_tiles++;
      const uint64_t *A = X + (size_t)b.a0 * LD, *B = X + (size_t)b.b0 * LD;
      uint32_t *want = calloc(m * n * 4, 4), *got = malloc(m * n * 16),
               *hw = calloc(m * n * 2, 4), *hg = malloc(m * n * 8);
      sm_kern_ccc2_ref(m, n, NF, A, LD, B, LD, 1, want, n);
      ck_assert_int_eq(sm_kern_ld_hom(m, n, NF, A, LD, B, LD, hw, n), 0);
      for (size_t f = 0; f < 2; f++) {
        if (f == 1 && sm_kern_unusable(SM_KVAR_AVX2, 1))
          continue;
        memset(got, 0xa5, m * n * 16), memset(hg, 0x5a, m * n * 8);
        ck_assert_int_eq(fns[f](&b, m, n, NF, A, LD, B, LD, got, n), 1);
        ck_assert_int_eq(sm_kern_ld_hom_band(&b, m, n, NF, A, LD, B, LD, hg, n), 1);
        for (size_t i = 0; i < m; i++) {
          size_t lo, hi;
          sm_band_run(&b, n, i, &lo, &hi);
          for (size_t j = 0; j < n; j++) {
            const int in = j >= lo && j < hi;
            for (size_t q = 0; q < 4; q++)
              ck_assert_msg(got[(i * n + j) * 4 + q] ==
                                (in ? want[(i * n + j) * 4 + q] : 0xa5a5a5a5u),
                            "t %d tile %zu kernel %zu pair (%zu, %zu) moment %zu", t, k,
                            f, i, j, q);
            for (size_t q = 0; q < 2; q++)
              ck_assert(hg[(i * n + j) * 2 + q] ==
                        (in ? hw[(i * n + j) * 2 + q] : 0x5a5a5a5au));
          }
        }
        ck_assert_int_eq(sm_kern_abft_ld_band(&b, m, n, NF, A, LD, B, LD, got, n, 0), 1);
        ck_assert_int_eq(sm_kern_abft_ld_band(&b, m, n, NF, A, LD, B, LD, hg, n, 1), 1);
      }
      /* a flipped bit in a tally of a run, each row's first and last pair,
       * refused by every variant of the check this CPU runs */
      band_check_flips(&b, m, n, NF, A, B, LD, got, hg, r0, r1, 1, &seed);
      free(want), free(got), free(hw), free(hg);
    }
  }
  ck_assert_int_ge(direct_tiles, 20);
  free(X);
}
END_TEST

/* LD windows with runs longer than pair by pair's (sm_kern_ccc2_ld_band,
 * the ccc2_ld codelet's with AVX-512, whole tile pairs too): every pair
 * of every row's run equals the reference kernel's moments and the
 * homozygous tallies by hand, and any other pair written holds its own
 * values; the runs' check (sums in 32 bits for runs past 85 columns)
 * passes them and refuses a flipped bit in one tally of a run. Tile pairs
 * before, on and after the diagonal, partial blocks of 256 and of 16,
 * windows of many widths. Without AVX-512 the counters decline (1,
 * nothing written) and the check's part runs on the reference's values. */
START_TEST(band_counters_vs_ref)
{
  enum { NV = 1000, NF = 500, LD = (NF + 31) / 32 + 1 };
  static uint32_t win[NV];
  static const uint32_t reach[] = {60, 120, 250, 400, 700};
  static const uint32_t tiles[][4] = {{0, 0, 300, 300},     {300, 300, 260, 260},
                                      {0, 300, 300, 280},   {200, 560, 270, 300},
                                      {700, 100, 200, 300}, {610, 610, 17, 17}};
  uint64_t *X = calloc((size_t)NV * LD, 8), seed = 5;
  fill_codes(X, NV, NF, LD, 0.01);
  const int x512 = !sm_kern_unusable(SM_KVAR_AVX512, 1) && sm_xc_usable();
  int ran = 0, wide = 0;
  for (size_t t = 0; t < sizeof reach / sizeof reach[0]; t++) {
    random_windows(win, NV, reach[t], 0, &seed);
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
      const sm_band_t b = {.win = win, .a0 = tiles[k][0], .b0 = tiles[k][1]};
      const size_t m = tiles[k][2], n = b.a0 == b.b0 ? m : tiles[k][3];
      size_t r0, r1, c0, c1, run;
      ck_assert(sm_band_span(&b, m, n, &r0, &r1, &c0, &c1, &run));
      if (r0 >= r1)
        continue;
      const uint64_t *A = X + (size_t)b.a0 * LD, *B = X + (size_t)b.b0 * LD;
      uint32_t *want = calloc(m * n * 4, 4), *got = malloc(m * n * 16),
               *hw = calloc(m * n * 2, 4), *hg = malloc(m * n * 8);
      sm_kern_ccc2_ref(m, n, NF, A, LD, B, LD, 1, want, n);
      hom_by_hand(m, n, NF, A, B, LD, hw);
      memset(got, 0xa5, m * n * 16), memset(hg, 0x5a, m * n * 8);
      const int r = sm_kern_ccc2_ld_band(x512 ? SM_KVAR_AVX512 : SM_KVAR_POPC, &b, m, n,
                                         NF, A, LD, B, LD, got, n, hg, n);
      /* with AVX-512 taken on tile pairs of 200 or more (the smallest,
       * too little work for the counters, left to the other kernels) */
      ck_assert_int_eq(r, x512 && m >= 200 ? 0 : r == 0 && x512 ? 0 : 1);
      if (r) /* declined: the check's part on the reference's values */
        memcpy(got, want, m * n * 16), memcpy(hg, hw, m * n * 8);
      ran += !r;
      for (size_t i = 0; i < m; i++) {
        size_t lo, hi;
        sm_band_run(&b, n, i, &lo, &hi);
        for (size_t j = 0; j < n; j++) {
          const int in = j >= lo && j < hi;
          const uint32_t *g = got + (i * n + j) * 4, *w = want + (i * n + j) * 4;
          ck_assert_msg(!memcmp(g, w, 16) ||
                            (!in && g[0] == 0xa5a5a5a5u && g[1] == g[0] && g[2] == g[0] &&
                             g[3] == g[0]),
                        "reach %u tile %zu pair (%zu, %zu)", reach[t], k, i, j);
          const uint32_t *gh = hg + (i * n + j) * 2, *wh = hw + (i * n + j) * 2;
          ck_assert(!memcmp(gh, wh, 8) ||
                    (!in && gh[0] == 0x5a5a5a5au && gh[1] == 0x5a5a5a5au));
        }
      }
      wide += 3 * run > 255;
      /* every 23rd row's run: its first and last pair */
      band_check_flips(&b, m, n, NF, A, B, LD, got, hg, r0, r1, 23, &seed);
      free(want), free(got), free(hw), free(hg);
    }
  }
  if (x512)
    ck_assert_int_ge(ran, 20);
  ck_assert_int_ge(wide, 15);
  free(X);
  /* runs past 21,845 columns (the check's sums in 32 bits): 3 rows, each
   * pairing with the 22,000 columns after it, a flipped bit refused */
  enum { NL = 22003, NFL = 70, LDL = (NFL + 31) / 32 };
  uint32_t *wl = malloc(NL * sizeof *wl);
  uint64_t *XL = calloc((size_t)NL * LDL, 8);
  fill_codes(XL, NL, NFL, LDL, 0.05);
  for (size_t x = 0; x < NL; x++)
    wl[x] = NL - 1;
  const sm_band_t bl = {.win = wl, .a0 = 0, .b0 = 3};
  const size_t ml = 3, nl = NL - 3;
  uint32_t *cl = calloc(ml * nl * 4, 4), *hl = calloc(ml * nl * 2, 4);
  sm_kern_ccc2_ref(ml, nl, NFL, XL, LDL, XL + 3 * LDL, LDL, 1, cl, nl);
  hom_by_hand(ml, nl, NFL, XL, XL + 3 * LDL, LDL, hl);
  for (int cv = 0; cv < 3; cv++) {
    static const sm_kvar_t checks[] = {SM_KVAR_REF, SM_KVAR_AVX2, SM_KVAR_AVX512};
    if (!sm_kern_abft_use(checks[cv]))
      continue;
    ck_assert_int_eq(
        sm_kern_abft_ld_band(&bl, ml, nl, NFL, XL, LDL, XL + 3 * LDL, LDL, cl, nl, 0), 1);
    ck_assert_int_eq(
        sm_kern_abft_ld_band(&bl, ml, nl, NFL, XL, LDL, XL + 3 * LDL, LDL, hl, nl, 1), 1);
    cl[(2 * nl + 20000) * 4 + 1] ^= 1u << 30, hl[(1 * nl + 7) * 2] ^= 1u;
    ck_assert_int_eq(
        sm_kern_abft_ld_band(&bl, ml, nl, NFL, XL, LDL, XL + 3 * LDL, LDL, cl, nl, 0), 0);
    ck_assert_int_eq(
        sm_kern_abft_ld_band(&bl, ml, nl, NFL, XL, LDL, XL + 3 * LDL, LDL, hl, nl, 1), 0);
    cl[(2 * nl + 20000) * 4 + 1] ^= 1u << 30, hl[(1 * nl + 7) * 2] ^= 1u;
  }
  sm_kern_abft_use(SM_KVAR_AUTO);
  free(wl), free(XL), free(cl), free(hl);
}
END_TEST

/* The 64 x 64 bit transposition of the sums over missing fields, bit by
 * bit, on random blocks and on single bits. */
START_TEST(mfix_transpose64)
{
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int rep = 0; rep < 64 + 20; rep++) {
    uint64_t a[64], b[64];
    for (int i = 0; i < 64; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      a[i] = rep < 64 ? (i == rep ? UINT64_C(1) << (63 - rep) : 0) : x;
    }
    memcpy(b, a, sizeof a);
    sm_mfix_transpose64(b);
    for (int i = 0; i < 64; i++)
      for (int j = 0; j < 64; j++)
        ck_assert_msg(((b[j] >> i) & 1) == ((a[i] >> j) & 1), "rep %d bit %d %d", rep, i,
                      j);
  }
}
END_TEST

START_TEST(ccc2_sparse_fix_vs_ref)
{
  /* with AVX-512 (isa avx512) the sums are counters in blocks of 256 x
   * 256 pairs (kern_xcnt512.c): shapes past a block each way, partial */
  static const size_t shapes[][3] = {{1, 1, 1},       {63, 64, 33},  {65, 3, 64},
                                     {130, 70, 97},   {5, 129, 700}, {64, 64, 2001},
                                     {300, 270, 130}, {17, 259, 300}};
  static const double rates[] = {0, 0.01, 0.2, 1.0};
  struct {
    sm_kvar_t v;
    sm_ccc2_fn f;
    sm_ccc2_syrk_fn s;
    sm_mfix_isa_t isa;
  } const kerns[] = {
      {SM_KVAR_POPC, sm_kern_ccc2_popc, sm_kern_ccc2_syrk_popc, SM_MFIX_ISA_popc},
      {SM_KVAR_AVX2, sm_kern_ccc2_avx2, sm_kern_ccc2_syrk_avx2, SM_MFIX_ISA_avx2},
      {SM_KVAR_AVX512, sm_kern_ccc2_avx512, sm_kern_ccc2_syrk_avx512,
       SM_MFIX_ISA_avx512}};
  int ran = 0;
  for (size_t k = 0; k < sizeof kerns / sizeof kerns[0]; k++) {
    if (sm_kern_unusable(kerns[k].v, 1))
      continue;
    ran++;
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
      for (size_t ra = 0; ra < 4; ra++)
        for (int sym = 0; sym < 2; sym++) {
          const size_t m = shapes[sh][0], n = sym ? m : shapes[sh][1], nf = shapes[sh][2],
                       ld = (nf + 31) / 32 + 2;
          uint64_t *A = calloc(m * ld, 8), *B = sym ? A : calloc(n * ld, 8);
          uint32_t *want = calloc(m * n * 4, 4), *got = calloc(m * n * 4, 4);
          fill_codes(A, m, nf, ld, rates[ra]);
          if (!sym)
            fill_codes(B, n, nf, ld, rates[ra]);
          sm_kern_ccc2_ref(m, n, nf, A, ld, B, ld, 1, want, n);
          memset(got, 0xa5, m * n * 16);
          ck_assert_int_eq(sm_ccc2_sparse_fix(kerns[k].f, kerns[k].s, kerns[k].isa, m, n,
                                              nf, A, ld, B, ld, sym, 1, got, n, NULL, 0),
                           0);
          ck_assert_msg(!memcmp(got, want, m * n * 16),
                        "kernel %zu: %zu x %zu x %zu, missing %g%s differs", k, m, n, nf,
                        rates[ra], sym ? ", symmetric" : "");
          free(A), free(want), free(got);
          if (!sym)
            free(B);
        }
  }
  ck_assert_int_ge(ran, 1);
  const int x512 = !sm_kern_unusable(SM_KVAR_AVX512, 1);
  for (int isa = 0; isa < 1 + x512; isa++) {
    const sm_mfix_isa_t mi = isa ? SM_MFIX_ISA_avx512 : SM_MFIX_ISA_popc;
    /* C with rows longer than n (a tile pair's place in a larger block):
     * every pair in its place, the columns past n untouched */
    const size_t m = 130, n = 70, nf = 97, ld = 5, ldc = 75;
    uint64_t *A = calloc(m * ld, 8), *B = calloc(n * ld, 8);
    uint32_t *want = calloc(m * n * 4, 4), *got = malloc(m * ldc * 16);
    fill_codes(A, m, nf, ld, 0.01);
    fill_codes(B, n, nf, ld, 0.01);
    sm_kern_ccc2_ref(m, n, nf, A, ld, B, ld, 1, want, n);
    memset(got, 0xa5, m * ldc * 16);
    ck_assert_int_eq(sm_ccc2_sparse_fix(sm_kern_ccc2_popc, sm_kern_ccc2_syrk_popc, mi, m,
                                        n, nf, A, ld, B, ld, 0, 1, got, ldc, NULL, 0),
                     0);
    for (size_t i = 0; i < m; i++) {
      ck_assert(!memcmp(got + i * ldc * 4, want + i * n * 4, n * 16));
      for (size_t k = n * 4; k < ldc * 4; k++)
        ck_assert_uint_eq(got[i * ldc * 4 + k], 0xa5a5a5a5u);
    }
    free(A), free(B), free(want), free(got);
    /* long vectors, summed block of fields by block (int8 where a block's
     * lists are short, int16 where one vector has every call missing; the
     * counters widened every 127 fields): the forced path and the
     * automatic choice equal the reference */
    const size_t nf2 = 40000, ld2 = nf2 / 32 + 1, m2 = 70, n2 = 3;
    A = calloc(m2 * ld2, 8), B = calloc(n2 * ld2, 8);
    want = calloc(m2 * n2 * 4, 4), got = calloc(m2 * n2 * 4, 4);
    fill_codes(A, m2, nf2, ld2, 0.002);
    fill_codes(B, n2, nf2, ld2, 0.002);
    for (size_t w = 0; w < nf2 / 32; w++)
      B[w] = 0xAAAAAAAAAAAAAAAAull; /* code 10 everywhere */
    sm_kern_ccc2_ref(m2, n2, nf2, A, ld2, B, ld2, 1, want, n2);
    ck_assert_int_eq(sm_ccc2_sparse_fix(sm_kern_ccc2_popc, sm_kern_ccc2_syrk_popc, mi, m2,
                                        n2, nf2, A, ld2, B, ld2, 0, 1, got, n2, NULL, 0),
                     0);
    ck_assert(!memcmp(got, want, m2 * n2 * 16));
    memset(got, 0, m2 * n2 * 16);
    sm_kern_ccc2_popc(m2, n2, nf2, A, ld2, B, ld2, 1, got, n2);
    ck_assert(!memcmp(got, want, m2 * n2 * 16));
    free(A), free(B), free(want), free(got);
  }
  if (x512) { /* planes past SM_XC_PLANES_MAX: the sums over int8/int16 values */
    const size_t nf3 = SM_XC_PLANES_MAX * 8 / 3 / 256 + 64, ld3 = nf3 / 32 + 1, m3 = 2;
    ck_assert(!sm_xc_fits(m3, m3, nf3) && sm_xc_fits(m3, m3, nf3 / 2));
    uint64_t *A = calloc(m3 * ld3, 8), *B = calloc(m3 * ld3, 8);
    uint32_t *want = calloc(m3 * m3 * 4, 4), *got = calloc(m3 * m3 * 4, 4);
    fill_codes(A, m3, nf3, ld3, 0.01);
    fill_codes(B, m3, nf3, ld3, 0.01);
    sm_kern_ccc2_ref(m3, m3, nf3, A, ld3, B, ld3, 1, want, m3);
    ck_assert_int_eq(sm_ccc2_sparse_fix(sm_kern_ccc2_avx512, sm_kern_ccc2_syrk_avx512,
                                        SM_MFIX_ISA_avx512, m3, m3, nf3, A, ld3, B, ld3,
                                        0, 1, got, m3, NULL, 0),
                     0);
    ck_assert(!memcmp(got, want, m3 * m3 * 16));
    free(A), free(B), free(want), free(got);
  }
}
END_TEST

/* the int8 tiles (--ccc-gemm int8): expansion with padding and ld > kpad,
 * then the int8 products, against the reference tallies */
START_TEST(ccc2_i8_tiles_vs_ref)
{
  static const size_t nfs[] = {1, 15, 16, 17, 33, 517};
  for (size_t a = 0; a < NM; a++)
    for (size_t c = 0; c < sizeof nfs / sizeof nfs[0]; c++)
      for (int sparse = 0; sparse < 2; sparse++) {
        size_t m = ms[a], n = ms[(a + 2) % NM], nf = nfs[c], ld = (nf + 31) / 32 + 1;
        size_t nmom = SM_CCC2_NMOM(sparse), kpad = sm_ccc_i8_kpad(nf), ld8 = kpad + 3;
        size_t k = sparse ? 2 : 1;
        uint64_t *A = malloc(m * ld * 8), *B = malloc(n * ld * 8);
        int8_t *A8 = malloc(k * m * ld8 + 1), *B8 = malloc(k * n * ld8 + 1);
        uint32_t *C1 = calloc(m * n * nmom, 4), *C2 = calloc(m * n * nmom, 4);
        memset(A8, 7, k * m * ld8 + 1), memset(B8, 7, k * n * ld8 + 1);
        fill_codes(A, m, nf, ld, 0.1);
        fill_codes(B, n, nf, ld, 0.1);
        sm_kern_ccc2_ref(m, n, nf, A, ld, B, ld, sparse, C1, n);
        sm_kern_ccc_i8_expand(m, nf, kpad, A, ld, sparse, A8, ld8);
        sm_kern_ccc_i8_expand(n, nf, kpad, B, ld, sparse, B8, ld8);
        ck_assert_int_eq(kpad % 16, 0);
        ck_assert_int_ge(kpad, nf);
        sm_kern_ccc2_i8rows(m, n, kpad, A8, ld8, B8, ld8, sparse, C2, n);
        for (size_t x = 0; x < m * n * nmom; x++)
          ck_assert_msg(C1[x] == C2[x], "m=%zu n=%zu nf=%zu sparse=%d [%zu]: %u vs %u", m,
                        n, nf, sparse, x, C1[x], C2[x]);
        free(A), free(B), free(A8), free(B8), free(C1), free(C2);
      }
}
END_TEST

START_TEST(ccc2_moments_by_hand)
{
  /* vector a: codes 0,1,3,2 (0,1,2 copies, missing); b: 3,3,1,1 */
  uint64_t a = 0 | 1u << 2 | 3u << 4 | 2u << 6, b = 3 | 3u << 2 | 1u << 4 | 1u << 6;
  uint32_t c[4];
  sm_kern_ccc2_popc(1, 1, 4, &a, 1, &b, 1, 0, c, 1);
  /* dense: r_a = 0,1,2,1  r_b = 2,2,1,1 -> sum = 0+2+2+1 = 5 */
  ck_assert_uint_eq(c[0], 5);
  sm_kern_ccc2_popc(1, 1, 4, &a, 1, &b, 1, 1, c, 1);
  /* sparse: field 4 dropped: rr = 4, rm = 0+1+2 = 3, mr = 2+2+1 = 5, mm = 3 */
  ck_assert_uint_eq(c[0], 4);
  ck_assert_uint_eq(c[1], 3);
  ck_assert_uint_eq(c[2], 5);
  ck_assert_uint_eq(c[3], 3);
  uint32_t s[2];
  sm_kern_sums_ccc(1, 4, &a, 1, 1, s);
  ck_assert_uint_eq(s[0], 3);
  ck_assert_uint_eq(s[1], 3);
  sm_kern_sums_ccc(1, 4, &a, 1, 0, s);
  ck_assert_uint_eq(s[0], 4);
  ck_assert_uint_eq(s[1], 4);
  /* tallies: t11 = 4, t10 = 2*3-4 = 2, t01 = 2*5-4 = 6, t00 = 12-6-10+4 = 0 */
  uint64_t t[4];
  sm_ccc2_tally(4, 3, 5, 3, t);
  ck_assert(t[3] == 4 && t[2] == 2 && t[1] == 6 && t[0] == 0);
  /* check by counting: fields 1..3 present: (0,2),(1,2),(2,1):
   * t11 = 0*2+1*2+2*1 = 4; t10 = 0*0+1*0+2*1 = 2; t01 = 2*2+1*2+0*1 = 6 */
}
END_TEST

START_TEST(finalize_czek_and_ccc)
{
  /* czekanowski 2x2 block against the formula; the diagonal keeps i < j */
  double num[4] = {10, 3, 3, 8}, s[2] = {10, 8};
  sm_fin2_args_t a = {.metric = 0,
                      .diag = 1,
                      .i0 = 4,
                      .j0 = 4,
                      .m = 2,
                      .n = 2,
                      .threshold = -1,
                      .emit = 1};
  sm_recbuf_t *rb = malloc(sizeof *rb + 8 * sizeof(sm_rec_t));
  ck_assert_uint_eq(sm_kern_finalize2(&a, num, 2, s, s, rb, NULL), 1);
  ck_assert(rb->rec[0].idx[0] == 4 && rb->rec[0].idx[1] == 5);
  ck_assert(rb->rec[0].value == 2.0 * 3 / 18);
  /* zero vectors give 0, not NaN */
  double z[4] = {0, 0, 0, 0}, zs[2] = {0, 0};
  a.diag = 0;
  sm_kern_finalize2(&a, z, 2, zs, zs, rb, NULL);
  for (int r = 0; r < 4; r++)
    ck_assert(rb->rec[r].value == 0.0);
  /* threshold and emit = 0: the checksum still covers every value */
  a.threshold = 0.5;
  sm_kern_finalize2(&a, num, 2, s, s, rb, NULL);
  uint64_t kept = rb->count;
  sm_cksum_t all = rb->cksum;
  a.emit = 0;
  sm_kern_finalize2(&a, num, 2, s, s, rb, NULL);
  ck_assert_uint_eq(rb->count, 0);
  ck_assert_uint_eq(rb->nvalues, 4);
  ck_assert(all.hash == rb->cksum.hash && all.sum_lo == rb->cksum.sum_lo);
  ck_assert_uint_eq(kept, 2); /* 2*10/20 = 1 and 2*8/16 = 1 > 0.5; 3/9 < 0.5 */
  /* ccc dense: one pair, moments rr=5, nf=4 (from the by-hand case) */
  uint32_t mom = 5, si[2] = {4, 4}, sj[2] = {6, 4};
  sm_fin2_args_t b = {.metric = 1,
                      .m = 1,
                      .n = 1,
                      .nf = 4,
                      .ccc_mult = 4.5,
                      .ccc_param = 2.0 / 3,
                      .threshold = -1,
                      .emit = 1};
  sm_kern_finalize2(&b, &mom, 1, si, sj, rb, NULL);
  ck_assert_uint_eq(rb->count, 4);
  /* t11 = 5: f_ij = 5/16, f_i(1) = 4/8, f_j(1) = 6/8 */
  double want = 4.5 * (5.0 / 16) * (1 - (2.0 / 3) * 0.5) * (1 - (2.0 / 3) * 0.75);
  ck_assert_msg(fabs(rb->rec[3].value - want) < 1e-15, "%.17g vs %.17g", rb->rec[3].value,
                want);
  free(rb);
}
END_TEST

START_TEST(formulas_symmetric)
{
  ck_assert(sm_f_czek2(3, 1.1, 2.7) == sm_f_czek2(3, 2.7, 1.1));
  ck_assert(sm_f_czek3(1.1, 2.2, 3.3, 0.5, 0.1, 0.7, 1.3) ==
            sm_f_czek3(3.3, 1.1, 2.2, 0.5, 1.3, 0.1, 0.7));
  ck_assert(sm_f_czek2(0, 0, 0) == 0.0);
  ck_assert(sm_f_ccc2(7, 3, 5, 0.1, 0.2, 0.05, 4.5, 2.0 / 3) ==
            sm_f_ccc2(7, 5, 3, 0.2, 0.1, 0.05, 4.5, 2.0 / 3));
}
END_TEST

START_TEST(czek3_blocked_vs_ref)
{
  static const size_t gs[] = {1, 2, 3}, xs[] = {1, 2, 5, 17},
                      k3[] = {0, 1, 15, 17, 65, 130};
  for (size_t a = 0; a < 3; a++)
    for (size_t b = 0; b < 4; b++)
      for (size_t c = 0; c < 6; c++) {
        size_t g = gs[a], mx = xs[b], my = xs[3 - b], k = k3[c], ld = k + 3;
        double *P = malloc(g * ld * 8 + 8), *X = malloc(mx * ld * 8 + 8),
               *Y = malloc(my * ld * 8 + 8);
        double *o1 = calloc(g * mx * my, 8), *o2 = calloc(g * mx * my, 8);
        fill_d(P, g, k, ld, 1);
        fill_d(X, mx, k, ld, 1);
        fill_d(Y, my, k, ld, 1);
        sm_kern_czek3_ref_d(g, mx, my, k, P, ld, X, ld, Y, ld, o1);
        sm_kern_czek3_blocked_d(g, mx, my, k, P, ld, X, ld, Y, ld, o2);
        for (size_t x = 0; x < g * mx * my; x++)
          ck_assert_msg(o1[x] == o2[x], "g=%zu mx=%zu my=%zu k=%zu: %g vs %g", g, mx, my,
                        k, o1[x], o2[x]);
        float *Pf = malloc(g * ld * 4 + 4), *Xf = malloc(mx * ld * 4 + 4),
              *Yf = malloc(my * ld * 4 + 4);
        float *f1 = calloc(g * mx * my, 4), *f2 = calloc(g * mx * my, 4);
        for (size_t x = 0; x < g * ld; x++)
          Pf[x] = (float)P[x];
        for (size_t x = 0; x < mx * ld; x++)
          Xf[x] = (float)X[x];
        for (size_t x = 0; x < my * ld; x++)
          Yf[x] = (float)Y[x];
        sm_kern_czek3_ref_s(g, mx, my, k, Pf, ld, Xf, ld, Yf, ld, f1);
        sm_kern_czek3_blocked_s(g, mx, my, k, Pf, ld, Xf, ld, Yf, ld, f2);
        for (size_t x = 0; x < g * mx * my; x++)
          ck_assert(f1[x] == f2[x] && f1[x] == (float)o1[x]);
        free(P), free(X), free(Y), free(o1), free(o2);
        free(Pf), free(Xf), free(Yf), free(f1), free(f2);
      }
}
END_TEST

START_TEST(ccc3_popc_vs_ref)
{
  static const size_t nfs[] = {1, 31, 32, 33, 64, 65, 129, 517};
  for (size_t c = 0; c < sizeof nfs / sizeof nfs[0]; c++)
    for (int sparse = 0; sparse < 2; sparse++) {
      size_t g = 1 + c % 3, mx = ms[c % NM], my = ms[(c + 3) % NM], nf = nfs[c];
      size_t ld = (nf + 31) / 32 + 1, nmom = SM_CCC3_NMOM(sparse);
      uint64_t *P = malloc(g * ld * 8), *X = malloc(mx * ld * 8),
               *Y = malloc(my * ld * 8);
      uint32_t *o1 = calloc(g * mx * my * nmom, 4), *o2 = calloc(g * mx * my * nmom, 4);
      fill_codes(P, g, nf, ld, 0.15);
      fill_codes(X, mx, nf, ld, 0.1);
      fill_codes(Y, my, nf, ld, 0.1);
      sm_kern_ccc3_ref(g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o1);
      sm_kern_ccc3_popc(g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o2);
      for (size_t x = 0; x < g * mx * my * nmom; x++)
        ck_assert_msg(o1[x] == o2[x], "nf=%zu sparse=%d [%zu]: %u vs %u", nf, sparse, x,
                      o1[x], o2[x]);
      /* the slices' kept parts: kept triples exact, the others 0 */
      for (int kc = 0; kc < 4; kc++) {
        const sm_keep3_t keep = {kc < 2 ? 0 : 1, kc == 1 ? (uint32_t)(mx / 3) : 0, 0,
                                 kc == 3 ? 2 : 0};
        sm_kern_ccc3_popc_keep(&keep, g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o2);
        for (size_t x = 0; x < g * mx * my * nmom; x++) {
          const size_t t3 = x / nmom, a = t3 / (mx * my), r = t3 / my % mx, y = t3 % my;
          const int kept = y >= sm_keep3_lo(&keep, a, r, my);
          ck_assert_msg(o2[x] == (kept ? o1[x] : 0u), "keep %d nf=%zu sparse=%d [%zu]",
                        kc, nf, sparse, x);
        }
      }
      free(P), free(X), free(Y), free(o1), free(o2);
    }
}
END_TEST

/* --verify: a clean result passes; one flipped bit anywhere in a CCC result
 * (2-way, 3-way, dense, sparse) or in a Czekanowski result on integer data
 * is caught (exact row sums); on real data a flip above the rounding bound
 * (exponent, sign, high mantissa) is caught. Results come from the _ref
 * kernels, so the checks do not depend on the kernels they guard. */
static int flips_caught_u32(uint32_t *c, size_t n, int (*check)(const void *, uint32_t *),
                            const void *ctx)
{
  int missed = 0;
  for (size_t w = 0; w < n; w += 1 + n / 40)
    for (int b = 0; b < 32; b++) {
      c[w] ^= 1u << b;
      missed += check(ctx, c);
      c[w] ^= 1u << b;
    }
  return missed;
}

typedef struct {
  size_t m, n, nf, ld, g;
  const uint64_t *A, *B, *Y;
  int sparse, way;
  const sm_keep3_t *keep;
} ccc_ctx_t;

static int ccc_check(const void *p, uint32_t *c)
{
  const ccc_ctx_t *x = p;
  return x->way == 2 ? sm_kern_verify_ccc2(x->m, x->n, x->nf, x->A, x->ld, x->B, x->ld,
                                           x->sparse, c, x->n)
                     : sm_kern_verify_ccc3(x->g, x->m, x->n, x->nf, x->A, x->ld, x->B,
                                           x->ld, x->Y, x->ld, x->sparse, x->keep, c);
}

START_TEST(verify_ccc_catches_every_flip)
{
  /* way 4: 3-way planes of a diagonal slice (a < x < y kept) from
   * sm_kern_ccc3_on, whose skipped triples are 0: checked with and without
   * the 0s (a kernel that computed every triple) */
  const sm_keep3_t diag = {0, 0, 0, 0};
  for (int way = 2; way <= 4; way++)
    for (int sparse = 0; sparse < 2; sparse++) {
      size_t g = 3, m = 5, n = 7, nf = 133, ld = (nf + 31) / 32 + 1;
      size_t nmom = way == 2 ? SM_CCC2_NMOM(sparse) : SM_CCC3_NMOM(sparse);
      if (way == 4)
        m = n; /* X = Y: one tile */
      size_t nout = (way == 2 ? m * n : g * m * n) * nmom;
      uint64_t *A = malloc(g * ld * 8), *B = malloc(m * ld * 8), *Y = malloc(n * ld * 8);
      uint32_t *c = calloc(nout, 4);
      fill_codes(A, g, nf, ld, 0.1);
      fill_codes(B, m, nf, ld, 0.1);
      fill_codes(Y, n, nf, ld, 0.1);
      ccc_ctx_t x = {.m = m,
                     .n = n,
                     .nf = nf,
                     .ld = ld,
                     .g = g,
                     .sparse = sparse,
                     .way = way == 2 ? 2 : 3,
                     .keep = way == 4 ? &diag : NULL};
      if (way == 2) {
        x.A = B, x.B = Y;
        sm_kern_ccc2_ref(m, n, nf, B, ld, Y, ld, sparse, c, n);
      } else {
        x.A = A, x.B = B, x.Y = way == 4 ? B : Y;
        sm_kern_ccc3_ref(g, m, n, nf, A, ld, B, ld, x.Y, ld, sparse, c);
      }
      ck_assert_msg(ccc_check(&x, c), "way %d sparse %d: clean result refused", way,
                    sparse);
      ck_assert_int_eq(flips_caught_u32(c, nout, ccc_check, &x), 0);
      if (way == 4) { /* the skipped triples 0: the kept ones still exact */
        uint32_t *full = malloc(nout * 4);
        memcpy(full, c, nout * 4);
        sm_kern_ccc3_on(sm_kern_ccc2_ref, &diag, g, m, n, nf, A, ld, B, ld, B, ld, sparse,
                        c);
        size_t zeros = 0;
        for (size_t a = 0; a < g; a++)
          for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
              for (size_t t = 0; t < nmom; t++) {
                const size_t k = ((a * m + i) * n + j) * nmom + t;
                if (a < i && i < j) {
                  ck_assert_uint_eq(c[k], full[k]);
                } else {
                  ck_assert_uint_eq(c[k], 0);
                  zeros++;
                }
              }
        ck_assert(zeros > 0);
        ck_assert_msg(ccc_check(&x, c), "sparse %d: skipped triples refused", sparse);
        ck_assert_int_eq(flips_caught_u32(c, nout, ccc_check, &x), 0);
        free(full);
      }
      free(A), free(B), free(Y), free(c);
    }
}
END_TEST

START_TEST(verify_czek_catches_flips)
{
  for (int integer = 1; integer >= 0; integer--) {
    size_t g = 2, m = 6, n = 9, k = 300, ld = k + 3;
    double *P = malloc(g * ld * 8), *A = malloc(m * ld * 8), *B = malloc(n * ld * 8);
    double *c2 = calloc(m * n, 8), *c3 = calloc(g * m * n, 8);
    fill_d(P, g, k, ld, integer);
    fill_d(A, m, k, ld, integer);
    fill_d(B, n, k, ld, integer);
    sm_kern_czek2_ref_d(m, n, k, A, ld, B, ld, c2, n);
    sm_kern_czek3_ref_d(g, m, n, k, P, ld, A, ld, B, ld, c3);
    ck_assert(sm_kern_verify_czek2_d(m, n, k, A, ld, B, ld, c2, n, sm_kern_czek2_ref_d));
    ck_assert(sm_kern_verify_czek3_d(g, m, n, k, P, ld, A, ld, B, ld, NULL, c3));
    int missed = 0, flips = 0;
    for (size_t w = 0; w < m * n; w += 5)
      for (int b = integer ? 0 : 30; b < 64; b++) { /* real data: bits over the bound */
        double *cs[2] = {c2, c3};
        for (int r = 0; r < 2; r++) {
          uint64_t u;
          if (!integer && cs[r][w] == 0 && b < 52)
            continue; /* a subnormal below 1e-300: within any rounding bound */
          const double before = cs[r][w];
          memcpy(&u, &cs[r][w], 8), u ^= 1ull << b, memcpy(&cs[r][w], &u, 8);
          /* a flip that passes must be harmless: below 1e-150, or 1e-9 relative */
          if (r == 0 ? sm_kern_verify_czek2_d(m, n, k, A, ld, B, ld, c2, n,
                                              sm_kern_czek2_ref_d)
                     : sm_kern_verify_czek3_d(g, m, n, k, P, ld, A, ld, B, ld, NULL, c3))
            missed += integer || !(fabs(cs[r][w] - before) < 1e-150 ||
                                   fabs(cs[r][w] - before) <= 1e-9 * fabs(before));
          flips++;
          memcpy(&u, &cs[r][w], 8), u ^= 1ull << b, memcpy(&cs[r][w], &u, 8);
        }
      }
    ck_assert_msg(missed == 0, "%s data: %d of %d flips missed",
                  integer ? "integer" : "real", missed, flips);
    free(P), free(A), free(B), free(c2), free(c3);
  }
}
END_TEST

static Suite *kern_suite(void)
{
  Suite *s = suite_create("kern");
  TCase *tc = tcase_create("kernels");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, czek2_blocked_vs_ref_double);
  tcase_add_test(tc, czek2_blocked_vs_ref_single);
  tcase_add_test(tc, czek_sums);
  tcase_add_test(tc, fin_ck_terms_exact);
  tcase_add_test(tc, ccc2_popc_vs_ref);
  tcase_add_test(tc, ld_hom_methods_vs_hand);
  tcase_add_test(tc, ccc2_ld_both_vs_reference);
  tcase_add_test(tc, side_cache_same_place_new_codes);
  tcase_add_test(tc, mfix_transpose64);
  tcase_add_test(tc, ccc2_sparse_fix_vs_ref);
  tcase_add_test(tc, ccc2_i8_tiles_vs_ref);
  tcase_add_test(tc, ccc2_moments_by_hand);
  tcase_add_test(tc, band_strips_cover_windows);
  tcase_add_test(tc, band_strips_index_vectors);
  tcase_add_test(tc, band_direct_vs_ref);
  tcase_add_test(tc, band_counters_vs_ref);
  tcase_add_test(tc, finalize_czek_and_ccc);
  tcase_add_test(tc, formulas_symmetric);
  tcase_add_test(tc, czek3_blocked_vs_ref);
  tcase_add_test(tc, ccc3_popc_vs_ref);
  tcase_add_test(tc, verify_ccc_catches_every_flip);
  tcase_add_test(tc, verify_czek_catches_flips);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(kern_suite)
