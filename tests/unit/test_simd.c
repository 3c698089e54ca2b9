/* test_simd.c: the instruction-set specific 2-way kernels (sm_kern_simd.h)
 * against their reference twins on odd sizes: m, n, k not multiples of the
 * tiles, vectors or cache blocks; k = 0; one and two vectors; zero vectors;
 * padded leading dimensions; pad bits. Czekanowski must be bit-identical
 * (same sums in the same order), CCC moments equal: each CCC popcount
 * kernel as chosen by length and both its forms (short and long vectors)
 * at every length, and the 3-way plane kernel on each instruction set.
 * Kernels this CPU cannot run are skipped (said on stdout). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm_cpu.h"
#include "sm_kern_simd.h"
#include "sm_test.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t xr(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static const size_t ms[] = {1, 2, 3, 7, 8, 9, 17, 33};
static const size_t ks[] = {0, 1, 2, 7, 15, 16, 17, 31, 33, 255, 256, 257, 600};
#define NM (sizeof ms / sizeof ms[0])
#define NK (sizeof ks / sizeof ks[0])

static void skip(const char *what)
{
  char msg[128];
  snprintf(msg, sizeof msg, "test_simd: %s: not on this CPU, kernel not tested", what);
  sm_test_skip(msg);
}

/* ---- Czekanowski: double and single from one body */
#define CZEK_CASE(T, REF, FN)                                                            \
  do {                                                                                   \
    for (size_t a = 0; a < NM; a++)                                                      \
      for (size_t b = 0; b < NM; b++)                                                    \
        for (size_t c = 0; c < NK; c++) {                                                \
          size_t m = ms[a], n = ms[(b + a) % NM], k = ks[c];                             \
          size_t lda = k + 1 + a, ldb = k + 3, ldc = n + b;                              \
          T *A = malloc((m * lda + 1) * sizeof(T)),                                      \
            *B = malloc((n * ldb + 1) * sizeof(T));                                      \
          T *C1 = malloc(m * ldc * sizeof(T)), *C2 = malloc(m * ldc * sizeof(T));        \
          for (size_t x = 0; x < m * lda; x++) /* reals; every 5th row zero */           \
            A[x] = (x / lda) % 5 == 4 ? 0 : (T)(xr() >> 11) * (T)0x1.0p-40;              \
          for (size_t x = 0; x < n * ldb; x++)                                           \
            B[x] = (T)(xr() % 1000) / 7;                                                 \
          for (size_t x = 0; x < m * ldc; x++)                                           \
            C1[x] = C2[x] = -1; /* pads of C stay as they were */                        \
          REF(m, n, k, A, lda, B, ldb, C1, ldc);                                         \
          FN(m, n, k, A, lda, B, ldb, C2, ldc);                                          \
          ck_assert_msg(!memcmp(C1, C2, m * ldc * sizeof(T)), #FN " m=%zu n=%zu k=%zu",  \
                        m, n, k);                                                        \
          free(A), free(B), free(C1), free(C2);                                          \
        }                                                                                \
  } while (0)

/* Sizes across the cache blocks: several field blocks, many row tiles. */
#define CZEK_BIG(T, REF, FN)                                                             \
  do {                                                                                   \
    size_t m = 131, n = 70, k = 1100, ld = 1104;                                         \
    T *A = malloc(m * ld * sizeof(T)), *B = malloc(n * ld * sizeof(T));                  \
    T *C1 = malloc(m * n * sizeof(T)), *C2 = malloc(m * n * sizeof(T));                  \
    for (size_t x = 0; x < m * ld; x++)                                                  \
      A[x] = (T)(xr() % 4096) / 64;                                                      \
    for (size_t x = 0; x < n * ld; x++)                                                  \
      B[x] = (T)(xr() % 4096) / 64;                                                      \
    REF(m, n, k, A, ld, B, ld, C1, n);                                                   \
    FN(m, n, k, A, ld, B, ld, C2, n);                                                    \
    ck_assert_msg(!memcmp(C1, C2, m * n * sizeof(T)), #FN " big");                       \
    free(A), free(B), free(C1), free(C2);                                                \
  } while (0)

/* The symmetric variants: C = A (x) A, whole square, bit-identical. */
#define SYRK_CASE(T, REF, FN)                                                            \
  do {                                                                                   \
    for (size_t a = 0; a < NM; a++)                                                      \
      for (size_t c = 0; c < NK; c++) {                                                  \
        size_t n = ms[a] * (c % 3 + 1), k = ks[c], lda = k + 2, ldc = n + 3;             \
        T *A = malloc((n * lda + 1) * sizeof(T));                                        \
        T *C1 = malloc(n * ldc * sizeof(T)), *C2 = malloc(n * ldc * sizeof(T));          \
        for (size_t x = 0; x < n * lda; x++)                                             \
          A[x] = (x / lda) % 4 == 3 ? 0 : (T)(xr() >> 11) * (T)0x1.0p-44;                \
        for (size_t x = 0; x < n * ldc; x++)                                             \
          C1[x] = C2[x] = -1;                                                            \
        REF(n, n, k, A, lda, A, lda, C1, ldc);                                           \
        FN(n, k, A, lda, C2, ldc);                                                       \
        ck_assert_msg(!memcmp(C1, C2, n * ldc * sizeof(T)), #FN " n=%zu k=%zu", n, k);   \
        free(A), free(C1), free(C2);                                                     \
      }                                                                                  \
  } while (0)

START_TEST(czek2_avx512_vs_ref)
{
  if (!sm_cpu_get()->avx512) {
    skip("czek2 avx512");
    return;
  }
  CZEK_CASE(double, sm_kern_czek2_ref_d, sm_kern_czek2_avx512_d);
  CZEK_CASE(float, sm_kern_czek2_ref_s, sm_kern_czek2_avx512_s);
  CZEK_BIG(double, sm_kern_czek2_ref_d, sm_kern_czek2_avx512_d);
  CZEK_BIG(float, sm_kern_czek2_ref_s, sm_kern_czek2_avx512_s);
  SYRK_CASE(double, sm_kern_czek2_ref_d, sm_kern_czek2_syrk_avx512_d);
  SYRK_CASE(float, sm_kern_czek2_ref_s, sm_kern_czek2_syrk_avx512_s);
}
END_TEST

START_TEST(czek2_avx2_vs_ref)
{
  if (!sm_cpu_get()->avx2) {
    skip("czek2 avx2");
    return;
  }
  CZEK_CASE(double, sm_kern_czek2_ref_d, sm_kern_czek2_avx2_d);
  CZEK_CASE(float, sm_kern_czek2_ref_s, sm_kern_czek2_avx2_s);
  CZEK_BIG(double, sm_kern_czek2_ref_d, sm_kern_czek2_avx2_d);
  CZEK_BIG(float, sm_kern_czek2_ref_s, sm_kern_czek2_avx2_s);
  SYRK_CASE(double, sm_kern_czek2_ref_d, sm_kern_czek2_syrk_avx2_d);
  SYRK_CASE(float, sm_kern_czek2_ref_s, sm_kern_czek2_syrk_avx2_s);
}
END_TEST

/* ---- CCC */

/* random codes (0, 1, 3 and, with miss, 2 = missing); every 5th vector all
 * zero, every 7th all missing; bits past nf zero, words past them random
 * (the kernels must not read them). */
static void fill_codes(uint64_t *x, size_t m, size_t nf, size_t ld, int miss)
{
  size_t ncw = (nf + 31) / 32;
  for (size_t i = 0; i < m; i++) {
    for (size_t w = 0; w < ld; w++)
      x[i * ld + w] = w < ncw ? 0 : xr();
    for (size_t q = 0; q < nf; q++) {
      static const unsigned codes[3] = {0, 1, 3};
      unsigned c = miss && xr() % 8 == 0 ? 2u : codes[xr() % 3];
      if (i % 5 == 4)
        c = 0;
      if (miss && i % 7 == 6)
        c = 2;
      x[i * ld + q / 32] |= (uint64_t)c << (2 * (q % 32));
    }
  }
}

/* A kernel and its symmetric form, by name. */
typedef struct kern {
  sm_ccc2_fn fn;
  sm_ccc2_syrk_fn syrk;
  const char *name;
} kern_t;

/* Every kernel of kv (nk of them) against the reference on one problem:
 * moments equal, the pads of C untouched. */
static void ccc_case(const kern_t *kv, int nk, size_t m, size_t n, size_t nf, int sparse,
                     int miss)
{
  size_t lda = (nf + 31) / 32 + 2, ldb = (nf + 31) / 32 + 1, ldc = n + 3;
  size_t nmom = SM_CCC2_NMOM(sparse);
  uint64_t *A = malloc(m * lda * 8), *B = malloc(n * ldb * 8);
  uint32_t *C1 = malloc(m * ldc * nmom * 4), *C2 = malloc(m * ldc * nmom * 4);
  fill_codes(A, m, nf, lda, miss);
  fill_codes(B, n, nf, ldb, miss);
  memset(C1, 0xee, m * ldc * nmom * 4);
  sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C1, ldc);
  for (int k = 0; k < nk; k++) {
    memset(C2, 0xee, m * ldc * nmom * 4);
    kv[k].fn(m, n, nf, A, lda, B, ldb, sparse, C2, ldc);
    for (size_t x = 0; x < m * ldc * nmom; x++)
      ck_assert_msg(C1[x] == C2[x],
                    "%s m=%zu n=%zu nf=%zu sparse=%d miss=%d [%zu]: %u vs %u", kv[k].name,
                    m, n, nf, sparse, miss, x, C1[x], C2[x]);
    /* --verify's checksums vouch for every kernel's tile */
    ck_assert_msg(sm_kern_abft_ccc2(m, n, nf, A, lda, B, ldb, sparse, C2, ldc),
                  "%s m=%zu n=%zu nf=%zu sparse=%d: checksums refused", kv[k].name, m, n,
                  nf, sparse);
  }
  free(A), free(B), free(C1), free(C2);
}

static void syrk_case(const kern_t *kv, int nk, size_t n, size_t nf, int sparse)
{
  size_t lda = (nf + 31) / 32 + 1, ldc = n + 2, nmom = SM_CCC2_NMOM(sparse);
  uint64_t *A = malloc(n * lda * 8);
  uint32_t *C1 = malloc(n * ldc * nmom * 4), *C2 = malloc(n * ldc * nmom * 4);
  fill_codes(A, n, nf, lda, 1);
  memset(C1, 0xee, n * ldc * nmom * 4);
  sm_kern_ccc2_ref(n, n, nf, A, lda, A, lda, sparse, C1, ldc);
  for (int k = 0; k < nk; k++) {
    if (!kv[k].syrk)
      continue;
    memset(C2, 0xee, n * ldc * nmom * 4);
    kv[k].syrk(n, nf, A, lda, sparse, C2, ldc);
    for (size_t x = 0; x < n * ldc * nmom; x++)
      ck_assert_msg(C1[x] == C2[x], "%s syrk n=%zu nf=%zu sparse=%d [%zu]: %u vs %u",
                    kv[k].name, n, nf, sparse, x, C1[x], C2[x]);
    ck_assert(sm_kern_abft_ccc2(n, n, nf, A, lda, A, lda, sparse, C2, ldc));
  }
  free(A), free(C1), free(C2);
}

static void syrk_all(const kern_t *kv, int nk)
{
  static const size_t ns[] = {1, 2, 3, 5, 17, 33, 70};
  static const size_t nfs[] = {0, 1, 33, 64, 513, 1100};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t c = 0; c < sizeof nfs / sizeof nfs[0]; c++)
      for (int sparse = 0; sparse < 2; sparse++)
        syrk_case(kv, nk, ns[a], nfs[c], sparse);
}

static void ccc_all(const kern_t *kv, int nk)
{
  static const size_t nfs[] = {0,  1,   2,   3,   31,  32,  33,  63,  64,
                               65, 127, 128, 129, 511, 512, 513, 1000};
  for (size_t a = 0; a < NM; a++)
    for (size_t c = 0; c < sizeof nfs / sizeof nfs[0]; c++)
      for (int sparse = 0; sparse < 2; sparse++) {
        ccc_case(kv, nk, ms[a], ms[(a + 3) % NM], nfs[c], sparse, sparse || c % 2);
        ccc_case(kv, nk, ms[(a + 5) % NM], ms[a], nfs[c], sparse, 1);
      }
  /* across the cache blocks (fields, columns) and the int8 field blocks */
  ccc_case(kv, nk, 37, 139, 17000, 0, 0);
  ccc_case(kv, nk, 37, 139, 17000, 1, 1);
  ccc_case(kv, nk, 5, 300, 1100, 1, 1);
}

/* The short-vector forms' sizes: every length of 1 to 70 plane words (64
 * fields each; the last word partly filled, and odd field counts: half
 * code words), rows and columns not multiples of the register tiles (4
 * rows, 2 x 8 or 2 x 4 columns) nor of the lanes, sparse with missing
 * calls; the symmetric forms on the same lengths. */
static void ccc_short_all(const kern_t *kv, int nk)
{
  static const size_t dims[] = {1, 2, 3, 5, 6, 9, 11, 13, 17, 23, 35};
  enum { ND = sizeof dims / sizeof dims[0] };
  for (size_t w = 1; w <= 70; w++) {
    const size_t nf = 64 * w - (w % 4 == 0 ? 0 : w % 4 == 1 ? 1 : w % 4 == 2 ? 31 : 33);
    for (int sparse = 0; sparse < 2; sparse++) {
      ccc_case(kv, nk, dims[w % ND], dims[(w * 7 + 3) % ND], nf, sparse, sparse || w % 2);
      syrk_case(kv, nk, dims[(w * 3 + sparse) % ND], nf, sparse);
    }
  }
  ccc_case(kv, nk, 70, 131, 1000, 0, 0); /* many register tiles */
  ccc_case(kv, nk, 70, 131, 1000, 1, 1);
  syrk_case(kv, nk, 67, 700, 0);
  syrk_case(kv, nk, 67, 700, 1);
  /* the symmetric form across the column blocks (planes of 512 KB) */
  syrk_case(kv, nk, 150, 17000, 0);
  syrk_case(kv, nk, 150, 17000, 1);
}

#define KERNS(isa)                                                                       \
  {                                                                                      \
    {sm_kern_ccc2_##isa, sm_kern_ccc2_syrk_##isa, #isa},                                 \
        {sm_kern_ccc2_long_##isa, sm_kern_ccc2_syrk_long_##isa, #isa " long"},           \
        {sm_kern_ccc2_short_##isa, sm_kern_ccc2_syrk_short_##isa, #isa " short"},        \
  }

START_TEST(ccc2_avx512_vs_ref)
{
  if (!sm_cpu_get()->vpopcntdq) {
    skip("ccc2 avx512");
    return;
  }
  const kern_t kv[] = KERNS(avx512);
  ccc_all(kv, 3);
  syrk_all(kv, 3);
  ccc_short_all(kv + 2, 1);
}
END_TEST

/* the portable kernels, on every CPU: their symmetric forms cross the 32 x
 * 32 tiles (n = 33, 70) */
START_TEST(ccc2_popc_all_vs_ref)
{
  const kern_t kv[] = KERNS(popc);
  ccc_all(kv, 3);
  syrk_all(kv, 3);
  ccc_short_all(kv + 2, 1);
}
END_TEST

START_TEST(ccc2_avx2_vs_ref)
{
  if (!sm_cpu_get()->avx2) {
    skip("ccc2 avx2");
    return;
  }
  const kern_t kv[] = KERNS(avx2);
  ccc_all(kv, 3);
  syrk_all(kv, 3);
  ccc_short_all(kv + 2, 1);
}
END_TEST

START_TEST(ccc2_i8ref_vs_ref)
{
  const kern_t kv[] = {{sm_kern_ccc2_i8ref, sm_kern_ccc2_syrk_i8ref, "i8ref"}};
  ccc_all(kv, 1);
  syrk_all(kv, 1);
}
END_TEST

START_TEST(ccc2_vnni_vs_ref)
{
  if (!sm_cpu_get()->vnni) {
    skip("ccc2 vnni");
    return;
  }
  const kern_t kv[] = {{sm_kern_ccc2_vnni, sm_kern_ccc2_syrk_vnni, "vnni"}};
  ccc_all(kv, 1);
  syrk_all(kv, 1);
}
END_TEST

START_TEST(ccc2_amx_vs_ref)
{
  if (!sm_cpu_get()->amx) {
    skip(sm_cpu_get()->amx_cpu ? "ccc2 amx (tile state refused)" : "ccc2 amx");
    return;
  }
  const kern_t kv[] = {{sm_kern_ccc2_amx, sm_kern_ccc2_syrk_amx, "amx"}};
  ccc_all(kv, 1);
  syrk_all(kv, 1);
}
END_TEST

/* The tile products on full-range bytes (A unsigned, B signed). */
static void tile_case(sm_i8tile_fn fn, const char *name)
{
  size_t rows = 64, cols = 96, kb = 192, lda8 = kb + 64, ldb8 = 8 * kb + 32,
         lds = cols + 16;
  uint8_t *A8 = aligned_alloc(64, rows * lda8);
  uint32_t *B8 = aligned_alloc(64, cols / 32 * ldb8 * 4);
  int32_t *S1 = aligned_alloc(64, rows * lds * 4),
          *S2 = aligned_alloc(64, rows * lds * 4);
  for (size_t x = 0; x < rows * lda8; x++)
    A8[x] = (uint8_t)xr();
  for (size_t x = 0; x < cols / 32 * ldb8; x++)
    B8[x] = (uint32_t)xr();
  for (size_t x = 0; x < rows * lds; x++)
    S1[x] = S2[x] = (int32_t)(xr() % 100000);
  sm_i8tile_ref(rows, cols, kb, A8, lda8, B8, ldb8, S1, lds);
  ck_assert_int_eq(fn(rows, cols, kb, A8, lda8, B8, ldb8, S2, lds), 0);
  ck_assert_msg(!memcmp(S1, S2, rows * lds * 4), "%s tile product", name);
  free(A8), free(B8), free(S1), free(S2);
}

START_TEST(i8tile_vs_ref)
{
  if (sm_cpu_get()->vnni)
    tile_case(sm_i8tile_vnni, "vnni");
  else
    skip("i8tile vnni");
  if (sm_cpu_get()->amx)
    tile_case(sm_i8tile_amx, "amx");
  else
    skip("i8tile amx");
}
END_TEST

/* The word-at-a-time allele sums against per-field counting. */
START_TEST(sums_ccc_vs_loops)
{
  static const size_t nfs[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 1000};
  for (size_t c = 0; c < sizeof nfs / sizeof nfs[0]; c++)
    for (int sparse = 0; sparse < 2; sparse++) {
      size_t nv = 11, nf = nfs[c], ld = (nf + 31) / 32 + 1;
      uint64_t *X = malloc(nv * ld * 8);
      uint32_t s[22];
      fill_codes(X, nv, nf, ld, 1);
      sm_kern_sums_ccc(nv, nf, X, ld, sparse, s);
      for (size_t v = 0; v < nv; v++) {
        uint32_t s1 = 0, cnt = 0;
        for (size_t q = 0; q < nf; q++) {
          unsigned code = (unsigned)(X[v * ld + q / 32] >> (2 * (q % 32))) & 3u;
          s1 += code == 3 ? 2 : code == 1 ? 1 : code == 2 && !sparse ? 1 : 0;
          cnt += !sparse || code != 2;
        }
        ck_assert_msg(s[2 * v] == s1 && s[2 * v + 1] == cnt, "nf=%zu sparse=%d v=%zu", nf,
                      sparse, v);
      }
      free(X);
    }
}
END_TEST

/* ---- 3-way planes on every 2-way kernel this CPU runs: identical to the
 * reference (CCC moments; Czekanowski on integer values, exact whatever
 * the order of the sums) on odd sizes, for each --kernel choice. */
static void fill3(uint64_t *x, size_t m, size_t nf, size_t ld)
{
  memset(x, 0, m * ld * sizeof *x);
  static const unsigned codes[4] = {0, 1, 3, 2};
  for (size_t i = 0; i < m; i++)
    for (size_t q = 0; q < nf; q++)
      x[i * ld + q / 32] |= (uint64_t)codes[xr() % (i % 3 ? 4 : 3)] << (2 * (q % 32));
}

START_TEST(planes3_on_2way_kernels)
{
  static const size_t shapes[][4] = {{1, 1, 1, 1},     {2, 3, 5, 31},    {3, 7, 9, 33},
                                     {2, 17, 33, 600}, {4, 9, 17, 1100}, {1, 33, 8, 64}};
  for (int v = SM_KVAR_AUTO + 1; sm_kern_variant_name((sm_kvar_t)v); v++) {
    sm_ccc2_fn fc;
    sm_czek2_d_fn fd;
    sm_czek2_s_fn fs;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
      const size_t g = shapes[c][0], mx = shapes[c][1], my = shapes[c][2],
                   nf = shapes[c][3];
      const size_t ld = (nf + 31) / 32 + 1;
      uint64_t *P = malloc(g * ld * 8), *X = malloc(mx * ld * 8),
               *Y = malloc(my * ld * 8);
      fill3(P, g, nf, ld);
      fill3(X, mx, nf, ld);
      fill3(Y, my, nf, ld);
      for (int sparse = 0; sparse < 2; sparse++) {
        const char *name = sm_kern_pick_ccc2((sm_kvar_t)v, sparse, &fc);
        if (!name)
          continue;
        const size_t n = g * mx * my * SM_CCC3_NMOM(sparse);
        uint32_t *o1 = calloc(n, 4), *o2 = calloc(n, 4);
        sm_kern_ccc3_ref(g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o1);
        sm_kern_ccc3_on(fc, NULL, g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o2);
        for (size_t x = 0; x < n; x++)
          ck_assert_msg(o1[x] == o2[x],
                        "ccc3 on %s, %zux%zux%zu nf=%zu sparse=%d [%zu]: %u vs %u", name,
                        g, mx, my, nf, sparse, x, o1[x], o2[x]);
        /* the slices' kept parts: kept triples exact, the others 0 */
        const size_t nmom = SM_CCC3_NMOM(sparse);
        for (int kc = 0; kc < 4; kc++) {
          const sm_keep3_t keep = {kc < 2 ? 0 : 1, kc == 1 ? (uint32_t)(mx / 3) : 0, 0,
                                   kc == 3 ? 2 : 0};
          sm_kern_ccc3_on(fc, &keep, g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o2);
          for (size_t x = 0; x < n; x++) {
            const size_t t3 = x / nmom, a = t3 / (mx * my), r = t3 / my % mx, y = t3 % my;
            const int kept = y >= sm_keep3_lo(&keep, a, r, my);
            ck_assert_msg(o2[x] == (kept ? o1[x] : 0u),
                          "ccc3 lo on %s, kind %d, sparse=%d [%zu]: %u vs %u", name, kc,
                          sparse, x, o2[x], o1[x]);
          }
        }
        free(o1), free(o2);
      }
      free(P), free(X), free(Y);
      const size_t k = nf, ldk = k + 3;
      double *Pd = malloc(g * ldk * 8), *Xd = malloc(mx * ldk * 8),
             *Yd = malloc(my * ldk * 8);
      double *d1 = malloc(g * mx * my * 8), *d2 = malloc(g * mx * my * 8);
      float *Pf = malloc(g * ldk * 4), *Xf = malloc(mx * ldk * 4),
            *Yf = malloc(my * ldk * 4);
      float *f1 = malloc(g * mx * my * 4), *f2 = malloc(g * mx * my * 4);
      for (size_t q = 0; q < g * ldk; q++)
        Pf[q] = (float)(Pd[q] = (double)(xr() % 1000));
      for (size_t q = 0; q < mx * ldk; q++)
        Xf[q] = (float)(Xd[q] = (double)(xr() % 1000));
      for (size_t q = 0; q < my * ldk; q++)
        Yf[q] = (float)(Yd[q] = (double)(xr() % 1000));
      const char *nd = sm_kern_pick_czek2_d((sm_kvar_t)v, &fd);
      if (nd) {
        sm_kern_czek3_ref_d(g, mx, my, k, Pd, ldk, Xd, ldk, Yd, ldk, d1);
        sm_kern_czek3_on_d(fd, NULL, NULL, g, mx, my, k, Pd, ldk, Xd, ldk, Yd, ldk, d2);
        ck_assert_msg(!memcmp(d1, d2, g * mx * my * 8), "czek3_d on %s, shape %zu", nd,
                      c);
        /* the row-bounded kernel on the slices' kept parts: kept triples
         * exact, the others +0 or exact, and the verification agrees */
        sm_czek2_lo_d_fn lod = sm_kern_lo_czek2_d((sm_kvar_t)v);
        for (int kc = 0; lod && kc < 4; kc++) {
          const sm_keep3_t keep = {kc < 2 ? 0 : 1, kc == 1 ? (uint32_t)(mx / 3) : 0, 0,
                                   0};
          sm_kern_czek3_on_d(fd, lod, &keep, g, mx, my, k, Pd, ldk, Xd, ldk, Yd, ldk, d2);
          for (size_t a = 0; a < g; a++)
            for (size_t x = 0; x < mx; x++)
              for (size_t y = 0; y < my; y++) {
                const size_t i = (a * mx + x) * my + y;
                const int kept = y >= sm_keep3_lo(&keep, a, x, my);
                ck_assert_msg(d2[i] == d1[i] || (!kept && d2[i] == 0 && !signbit(d2[i])),
                              "czek3_d lo on %s, shape %zu, kind %d [%zu %zu %zu]", nd, c,
                              kc, a, x, y);
              }
          ck_assert(
              sm_kern_verify_czek3_d(g, mx, my, k, Pd, ldk, Xd, ldk, Yd, ldk, &keep, d2));
        }
      }
      const char *ns = sm_kern_pick_czek2_s((sm_kvar_t)v, &fs);
      if (ns) {
        sm_kern_czek3_ref_s(g, mx, my, k, Pf, ldk, Xf, ldk, Yf, ldk, f1);
        sm_kern_czek3_on_s(fs, NULL, NULL, g, mx, my, k, Pf, ldk, Xf, ldk, Yf, ldk, f2);
        ck_assert_msg(!memcmp(f1, f2, g * mx * my * 4), "czek3_s on %s, shape %zu", ns,
                      c);
        sm_czek2_lo_s_fn los = sm_kern_lo_czek2_s((sm_kvar_t)v);
        for (int kc = 0; los && kc < 4; kc++) {
          const sm_keep3_t keep = {kc < 2 ? 0 : 1, kc == 1 ? (uint32_t)(mx / 3) : 0, 0,
                                   0};
          sm_kern_czek3_on_s(fs, los, &keep, g, mx, my, k, Pf, ldk, Xf, ldk, Yf, ldk, f2);
          for (size_t i = 0; i < g * mx * my; i++) {
            const size_t a = i / (mx * my), x = i / my % mx, y = i % my;
            const int kept = y >= sm_keep3_lo(&keep, a, x, my);
            ck_assert_msg(f2[i] == f1[i] || (!kept && f2[i] == 0 && !signbit(f2[i])),
                          "czek3_s lo on %s, shape %zu, kind %d [%zu]", ns, c, kc, i);
          }
          ck_assert(
              sm_kern_verify_czek3_s(g, mx, my, k, Pf, ldk, Xf, ldk, Yf, ldk, &keep, f2));
        }
      }
      free(Pd), free(Xd), free(Yd), free(d1), free(d2);
      free(Pf), free(Xf), free(Yf), free(f1), free(f2);
    }
  }
}
END_TEST

/* Czekanowski 3-way planes kernels on real values (sums that depend on
 * their order): every planes kernel this CPU runs, on all of the triples
 * and on each slice's kept part, bit-identical to the reference where kept
 * and +0 or exact elsewhere, on sizes that are not multiples of the tiles,
 * the lanes or the cache blocks (rows g * mx across MC, fields across KC,
 * k = 0, padded leading dimensions, zero vectors). */
#define PLANES3_REALS(T, SFX)                                                            \
  do {                                                                                   \
    static const size_t sh[][4] = {{1, 1, 1, 0},     {2, 3, 5, 1},     {3, 7, 9, 17},    \
                                   {2, 17, 33, 600}, {5, 40, 47, 257}, {1, 48, 16, 300}, \
                                   {3, 33, 8, 64},   {7, 21, 64, 513}};                  \
    for (size_t c = 0; c < sizeof sh / sizeof sh[0]; c++) {                              \
      const size_t g = sh[c][0], mx = sh[c][1], my = sh[c][2], k = sh[c][3];             \
      const size_t ldp = k + 5, ldx = k + 3, ldy = k + 1, n = g * mx * my;               \
      T *P = malloc((g * ldp + 1) * sizeof(T)), *X = malloc((mx * ldx + 1) * sizeof(T)); \
      T *Y = malloc((my * ldy + 1) * sizeof(T));                                         \
      T *o1 = malloc(n * sizeof(T)), *o2 = malloc(n * sizeof(T));                        \
      for (size_t q = 0; q < g * ldp; q++)                                               \
        P[q] = (T)(xr() >> 11) * (T)0x1.0p-40;                                           \
      for (size_t q = 0; q < mx * ldx; q++) /* every 4th vector zero */                  \
        X[q] = (q / ldx) % 4 == 3 ? 0 : (T)(xr() >> 11) * (T)0x1.0p-41;                  \
      for (size_t q = 0; q < my * ldy; q++)                                              \
        Y[q] = (T)(xr() % 1000) / 7;                                                     \
      sm_kern_czek3_ref_##SFX(g, mx, my, k, P, ldp, X, ldx, Y, ldy, o1);                 \
      for (int kc = -1; kc < 4; kc++) { /* -1: every triple */                           \
        const sm_keep3_t keep = {kc < 2 ? 0 : 1, kc == 1 ? (uint32_t)(mx / 3) : 0, 0,    \
                                 kc == 3 ? 2 : 0};                                       \
        for (size_t i = 0; i < n; i++)                                                   \
          o2[i] = -1;                                                                    \
        sm_kern_czek3_keep_##SFX(f3, kc < 0 ? NULL : &keep, g, mx, my, k, P, ldp, X,     \
                                 ldx, Y, ldy, o2);                                       \
        for (size_t i = 0; i < n; i++) {                                                 \
          const size_t a = i / (mx * my), x = i / my % mx, y = i % my;                   \
          const int kept = kc < 0 || y >= sm_keep3_lo(&keep, a, x, my);                  \
          ck_assert_msg(!memcmp(&o1[i], &o2[i], sizeof(T)) ||                            \
                            (!kept && o2[i] == 0 && !signbit(o2[i])),                    \
                        "%s on reals, shape %zu, kind %d [%zu %zu %zu]", name, c, kc, a, \
                        x, y);                                                           \
        }                                                                                \
      }                                                                                  \
      free(P), free(X), free(Y), free(o1), free(o2);                                     \
    }                                                                                    \
  } while (0)

START_TEST(planes3_czek_kernels_vs_ref)
{
  int tested = 0;
  for (int v = SM_KVAR_AUTO; sm_kern_variant_name((sm_kvar_t)v); v++) {
    sm_czek3_d_kern_fn f3d;
    sm_czek3_s_kern_fn f3s;
    const char *name = sm_kern_pick_czek3_d((sm_kvar_t)v, &f3d);
    if (name) {
      sm_czek3_d_kern_fn f3 = f3d;
      PLANES3_REALS(double, d);
      tested++;
    }
    name = sm_kern_pick_czek3_s((sm_kvar_t)v, &f3s);
    if (name) {
      sm_czek3_s_kern_fn f3 = f3s;
      PLANES3_REALS(float, s);
      tested++;
    }
  }
  if (!tested)
    skip("czek3 planes kernels (AVX2, AVX-512)");
}
END_TEST

/* The 3-way plane kernel on each instruction set's short-vector tiles:
 * identical to the reference on odd sizes (every length of 1 to 70 plane
 * words among them; X and Y counts not multiples of the tiles or lanes;
 * missing calls), and on the slices' kept parts (kept triples exact, the
 * others 0). */
static void planes3_case(sm_kvar_t v, const char *name, size_t g, size_t mx, size_t my,
                         size_t nf)
{
  const size_t ld = (nf + 31) / 32 + 1;
  uint64_t *P = malloc(g * ld * 8), *X = malloc(mx * ld * 8), *Y = malloc(my * ld * 8);
  fill3(P, g, nf, ld);
  fill3(X, mx, nf, ld);
  fill3(Y, my, nf, ld);
  for (int sparse = 0; sparse < 2; sparse++) {
    const size_t nmom = SM_CCC3_NMOM(sparse), n = g * mx * my * nmom;
    uint32_t *o1 = calloc(n, 4), *o2 = malloc(n * 4);
    sm_kern_ccc3_ref(g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o1);
    for (int kc = -1; kc < 4; kc++) {
      const sm_keep3_t keep = {kc < 2 ? 0 : 1, kc == 1 ? (uint32_t)(mx / 3) : 0, 0,
                               kc == 3 ? 2 : 0};
      memset(o2, 0xee, n * 4);
      sm_kern_ccc3_popc_isa(v, kc < 0 ? NULL : &keep, g, mx, my, nf, P, ld, X, ld, Y, ld,
                            sparse, o2);
      for (size_t x = 0; x < n; x++) {
        const size_t t3 = x / nmom, a = t3 / (mx * my), r = t3 / my % mx, y = t3 % my;
        const int kept = kc < 0 || y >= sm_keep3_lo(&keep, a, r, my);
        ck_assert_msg(
            o2[x] == (kept ? o1[x] : 0u),
            "ccc3 planes %s, %zux%zux%zu nf=%zu sparse=%d keep %d [%zu]: %u vs %u", name,
            g, mx, my, nf, sparse, kc, x, o2[x], kept ? o1[x] : 0u);
      }
    }
    free(o1), free(o2);
  }
  free(P), free(X), free(Y);
}

START_TEST(planes3_kernel_vs_ref)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  const struct {
    sm_kvar_t v;
    int ok;
    const char *name;
  } isas[] = {{SM_KVAR_AVX512, cpu->vpopcntdq, "avx512"},
              {SM_KVAR_AVX2, cpu->avx2, "avx2"},
              {SM_KVAR_POPC, 1, "portable"}};
  static const size_t shapes[][4] = {{1, 1, 1, 1},      {2, 3, 5, 31},    {3, 7, 9, 33},
                                     {2, 17, 33, 600},  {4, 9, 17, 1100}, {1, 33, 8, 64},
                                     {2, 13, 21, 4470}, {1, 37, 70, 2000}};
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
    if (!isas[i].ok) {
      char what[64];
      snprintf(what, sizeof what, "ccc3 planes %s", isas[i].name);
      skip(what);
      continue;
    }
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++)
      planes3_case(isas[i].v, isas[i].name, shapes[c][0], shapes[c][1], shapes[c][2],
                   shapes[c][3]);
    for (size_t w = 1; w <= 70; w++)
      planes3_case(isas[i].v, isas[i].name, 1 + w % 2, 3 + w % 7, 5 + w % 11,
                   64 * w - w % 3 * 17);
  }
}
END_TEST

START_TEST(pick_follows_cpu)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  printf("test_simd: CPU features: %s\n", sm_cpu_describe());
  sm_czek2_d_fn fd;
  sm_czek2_s_fn fs;
  sm_ccc2_fn fc;
  ck_assert_ptr_nonnull(sm_kern_pick_czek2_d(SM_KVAR_AUTO, &fd));
  ck_assert_ptr_nonnull(sm_kern_pick_czek2_s(SM_KVAR_AUTO, &fs));
  ck_assert(fd == (cpu->avx512 ? sm_kern_czek2_avx512_d
                   : cpu->avx2 ? sm_kern_czek2_avx2_d
                               : sm_kern_czek2_blocked_d));
  ck_assert_ptr_eq(sm_kern_pick_czek2_d(SM_KVAR_AVX512, &fd) != NULL ? (void *)1 : NULL,
                   cpu->avx512 ? (void *)1 : NULL);
  ck_assert_ptr_null(sm_kern_pick_czek2_d(SM_KVAR_VNNI, &fd)); /* a ccc kernel */
  ck_assert_ptr_null(sm_kern_pick_czek2_d(SM_KVAR_POPC, &fd)); /* a ccc kernel */
  /* avx2 serves both metrics; the best popcount kernel is the automatic
   * one's fallback (AVX-512, else AVX2, else portable) */
  ck_assert_ptr_eq(sm_kern_pick_ccc2(SM_KVAR_AVX2, 0, &fc) != NULL ? (void *)1 : NULL,
                   cpu->avx2 ? (void *)1 : NULL);
  ck_assert_ptr_nonnull(sm_kern_pick_ccc2(SM_KVAR_POPC, 0, &fc));
  ck_assert(fc == (cpu->vpopcntdq ? sm_kern_ccc2_avx512
                   : cpu->avx2    ? sm_kern_ccc2_avx2
                                  : sm_kern_ccc2_popc));
  for (int sparse = 0; sparse < 2; sparse++) {
    const char *name = sm_kern_pick_ccc2(SM_KVAR_AUTO, sparse, &fc);
    ck_assert_ptr_nonnull(name);
    printf("test_simd: ccc2 %s: %s (short form below %zu fields)\n",
           sparse ? "sparse" : "dense", name,
           sm_kern_ccc2_short_nf(SM_KVAR_AUTO, sparse));
    const kern_t kc = {fc, NULL, name};
    ccc_case(&kc, 1, 9, 13, 300, sparse, 1);
  }
  ck_assert(!sm_kern_unusable(SM_KVAR_REF, 1) && !sm_kern_unusable(SM_KVAR_BLOCKED, 0));
  ck_assert((sm_kern_unusable(SM_KVAR_AMX, 1) == NULL) == (cpu->amx != 0));
  ck_assert((sm_kern_unusable(SM_KVAR_VNNI, 1) == NULL) == (cpu->vnni != 0));
}
END_TEST

static Suite *simd_suite(void)
{
  Suite *s = suite_create("simd");
  TCase *tc = tcase_create("kernels");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, czek2_avx512_vs_ref);
  tcase_add_test(tc, czek2_avx2_vs_ref);
  tcase_add_test(tc, ccc2_avx512_vs_ref);
  tcase_add_test(tc, ccc2_popc_all_vs_ref);
  tcase_add_test(tc, ccc2_avx2_vs_ref);
  tcase_add_test(tc, ccc2_i8ref_vs_ref);
  tcase_add_test(tc, ccc2_vnni_vs_ref);
  tcase_add_test(tc, ccc2_amx_vs_ref);
  tcase_add_test(tc, i8tile_vs_ref);
  tcase_add_test(tc, sums_ccc_vs_loops);
  tcase_add_test(tc, pick_follows_cpu);
  tcase_add_test(tc, planes3_on_2way_kernels);
  tcase_add_test(tc, planes3_czek_kernels_vs_ref);
  tcase_add_test(tc, planes3_kernel_vs_ref);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(simd_suite)
