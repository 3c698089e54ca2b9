/* test_i8_gemm.c: the CCC int8 GEMMs' plans (codelets/cuda/sm_i8_gemm.h)
 * against cuBLAS's documented rules for int8 inputs with int32
 * accumulation, written out here from the manual (NVIDIA cuBLAS, CUDA
 * 12/13: "cublasGemmEx()" 2.8.12, "cublasLtMatmul()" 3.4.17 on IMMA
 * kernels, "Tensor Core Usage" 2.1.11), for every tile shape the graph
 * can produce: every pair of tile rows up to the largest automatic tile
 * (sm_graph_auto_block, swept here) so every remainder, dense and sparse,
 * field counts from 1 to the CLI's CCC limit, cached and uncached plans;
 * exact int32 sums for every accepted k; refusals where a dimension
 * leaves int. Then the plans run: a plain column-major GEMM with the
 * plan's arguments and the gather's reading of G give the reference
 * moments, whatever the padding rows hold. No GPU, no StarPU runtime. */
#include <limits.h>
#include <stdint.h>

#include "cuda/sm_i8_gemm.h"
#include "sm_formulas.h"
#include "sm_graph.h"
#include "sm_kern.h"
#include "sm_test.h"

/* the largest automatic tile (asserted below) and so the rows swept */
#define TILE_MAX 4096
#define CLI_CCC_NF_MAX ((size_t)1 << 28) /* sm_compute.c's CCC field limit */

/* The first documented rule a plan breaks, NULL when it keeps them all.
 * A is cuBLAS's first operand (m x k after op), B its second (k x n), C
 * the int32 result (m x n); offsets in bytes from 16-byte aligned
 * buffers. */
static const char *broken_rule(const sm_i8_gemm_t *g, int scratch)
{
  /* cublasGemmEx: the 32I compute type takes int8 A, B and int32 C, alpha
   * and beta int32 (older manuals: 0 or 1 only) */
  if (g->atype != SM_I8_S8 || g->btype != SM_I8_S8 || g->ctype != SM_I8_S32 ||
      g->compute != SM_I8_S32)
    return "types: CUDA_R_8I inputs, CUDA_R_32I result and compute";
  if (!(g->alpha == 1 && g->beta == 0))
    return "alpha 1, beta 0";
  /* IMMA kernels: "TN" only, m and k multiples of 4 */
  if (g->transa != SM_I8_OP_T || g->transb != SM_I8_OP_N)
    return "TN format";
  if (g->m < 1 || g->n < 1 || g->k < 1)
    return "dimensions >= 1";
  if (g->m % 4 || g->k % 4)
    return "m, k multiples of 4";
  /* BLAS: op(A) = A^T, A is k x m; B is k x n; C is m x n */
  if (g->lda < g->k || g->ldb < g->k || g->ldc < g->m)
    return "lda >= k, ldb >= k, ldc >= m";
  /* cublasGemmEx: lda, ldb multiples of 4; IMMA: ldc too */
  if (g->lda % 4 || g->ldb % 4 || g->ldc % 4)
    return "leading dimensions multiples of 4";
  /* Tensor Core Usage, in bytes (int8 A and B, int32 C) */
  if ((g->k * 1) % 16 || (g->m * 4) % 16 || (g->lda * 1) % 16 || (g->ldb * 1) % 16 ||
      (g->ldc * 4) % 16)
    return "16-byte extents: k, m * 4, lda, ldb, ldc * 4";
  if (g->g_off % 16 || (scratch && (g->l_off % 16 || g->r_off % 16)))
    return "16-byte aligned pointers";
  /* exact int32 sums: each product is at most 2 x 2 */
  if ((int64_t)4 * g->k > INT32_MAX)
    return "int32 sums exact";
  return NULL;
}

/* blocks * rows rounded up to 16, computed apart from the code under test */
static size_t padded(size_t rows, int sparse)
{
  size_t r = (sparse ? 2 : 1) * rows;
  return r % 16 ? r + 16 - r % 16 : r;
}

/* A plan of m x n pairs (cached: tiles as sm_ccc_i8_register makes
 * them) and its checks: NULL when accepted and right, else what is wrong
 * (checks in the hot loops stay out of Check's asserts, which log every
 * pass). */
static const char *plan_checked(size_t m, size_t n, size_t nf, int sparse, int scratch,
                                sm_i8_gemm_t *g)
{
  const size_t kpad = sm_ccc_i8_kpad(nf);
  int ret = scratch ? sm_i8_gemm_plan_scratch(g, m, n, nf, sparse)
                    : sm_i8_gemm_plan(g, m, n, kpad, sparse, sm_i8_gemm_rows(m, sparse),
                                      kpad, sm_i8_gemm_rows(n, sparse), kpad);
  if (ret)
    return "refused";
  const char *why = broken_rule(g, scratch);
  if (why)
    return why;
  /* the shapes: padded rows of the right tile (m) and the left one (n) */
  if ((size_t)g->m != padded(n, sparse) || (size_t)g->n != padded(m, sparse) ||
      (size_t)g->k != kpad || g->ldc != g->m)
    return "shape";
  const size_t gbytes = (size_t)g->ldc * (size_t)g->n * 4;
  if (scratch && !(g->l_off + (size_t)g->n * (size_t)g->ldb <= g->r_off &&
                   g->r_off + (size_t)g->m * (size_t)g->lda <= g->g_off &&
                   g->g_off + gbytes <= g->scratch_bytes))
    return "scratch layout: L, R and G apart, inside the scratch";
  if (!scratch && !(g->g_off == 0 && g->scratch_bytes >= gbytes))
    return "scratch: G";
  return NULL;
}

#define CHECK_PLAN(m, n, nf, sparse, scratch, g)                                         \
  do {                                                                                   \
    const char *why_ = plan_checked(m, n, nf, sparse, scratch, g);                       \
    if (why_)                                                                            \
      ck_abort_msg("m=%zu n=%zu nf=%zu sparse=%d %s: %s", (size_t)(m), (size_t)(n),      \
                   (size_t)(nf), sparse, (scratch) ? "scratch" : "cached", why_);        \
  } while (0)

/* The automatic tile choice never gives more than TILE_MAX rows: tile
 * pairs of 1..TILE_MAX rows then hold every tile and every remainder. */
START_TEST(auto_tiles_bounded)
{
  static const int workers[] = {1, 2, 3, 4, 8, 16, 64, 256};
  static const int gpus[] = {0, 1, 2, 4, 6, 8, 16};
  static const size_t pair_bytes[] = {0, 4, 8, 16};
  size_t biggest = 0;
  for (size_t nv = 1; nv < ((size_t)1 << 32); nv = nv < 20000 ? nv + 1 : nv + nv / 10)
    for (size_t w = 0; w < sizeof workers / sizeof *workers; w++)
      for (size_t u = 0; u < sizeof gpus / sizeof *gpus; u++)
        for (int emit = 0; emit < 2; emit++)
          for (size_t b = 0; b < sizeof pair_bytes / sizeof *pair_bytes; b++) {
            if (gpus[u] > workers[w])
              continue;
            const size_t bs =
                sm_graph_auto_block(nv, workers[w], gpus[u], emit, 1, pair_bytes[b]);
            if (bs < 1 || bs > TILE_MAX)
              ck_abort_msg("nv=%zu, %d workers, %d GPUs: automatic tile %zu", nv,
                           workers[w], gpus[u], bs);
            if (bs > biggest)
              biggest = bs;
          }
  ck_assert_uint_le(biggest, TILE_MAX);
}
END_TEST

/* every pair of tile rows 1..TILE_MAX, dense and sparse, cached and not */
START_TEST(every_tile_pair)
{
  const int sparse = _i & 1, scratch = _i >> 1;
  sm_i8_gemm_t g;
  for (size_t m = 1; m <= TILE_MAX; m++)
    for (size_t n = 1; n <= TILE_MAX; n++)
      CHECK_PLAN(m, n, 37, sparse, scratch, &g);
}
END_TEST

/* field counts 1..4096 and up to the CLI's CCC limit, on tile shapes
 * around the automatic ones */
START_TEST(field_counts)
{
  static const size_t rows[] = {1,   2,   3,    15,   16,   17,  37,
                                100, 512, 1333, 1334, 2048, 4096};
  static const size_t big[] = {
      65535,         65536, 100003, 1000000, 1 << 24, 1 << 27, CLI_CCC_NF_MAX - 1,
      CLI_CCC_NF_MAX};
  const size_t nr = sizeof rows / sizeof *rows;
  sm_i8_gemm_t g;
  for (int scratch = 0; scratch < 2; scratch++)
    for (int sparse = 0; sparse < 2; sparse++) {
      for (size_t nf = 1; nf <= 4096; nf++)
        for (size_t a = 0; a < nr; a += 3)
          CHECK_PLAN(rows[a], rows[(a + 5) % nr], nf, sparse, scratch, &g);
      for (size_t b = 0; b < sizeof big / sizeof *big; b++)
        for (size_t a = 0; a < nr; a++)
          for (size_t c = 0; c < nr; c++) {
            CHECK_PLAN(rows[a], rows[c], big[b], sparse, scratch, &g);
            if ((int64_t)4 * g.k > INT32_MAX) /* the largest sum fits */
              ck_abort_msg("nf=%zu: k=%d overflows int32 sums", big[b], g.k);
          }
    }
}
END_TEST

/* int32 sums: the longest k accepted is exact, one more 16 is refused;
 * dimensions beyond int, short or unpadded operands are refused */
START_TEST(refusals)
{
  sm_i8_gemm_t g;
  const size_t kmax = SM_I8_GEMM_KMAX / 16 * 16;
  ck_assert((int64_t)4 * (int64_t)kmax <= INT32_MAX);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 16, 16, kmax, 0, 16, kmax, 16, kmax), 0);
  ck_assert_ptr_null(broken_rule(&g, 0));
  ck_assert_int_eq(
      sm_i8_gemm_plan(&g, 16, 16, kmax + 16, 0, 16, kmax + 16, 16, kmax + 16), -1);
  ck_assert_int_eq(sm_i8_gemm_plan_scratch(&g, 16, 16, kmax, 0), 0);
  ck_assert_int_eq(sm_i8_gemm_plan_scratch(&g, 16, 16, kmax + 1, 0), -1);
  ck_assert_int_eq(sm_i8_gemm_plan_scratch(&g, 16, 16, SIZE_MAX, 1), -1);
  /* k 0, not a multiple of 16; rows short or not padded; ld short or odd */
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 5, 5, 0, 0, 16, 16, 16, 16), -1);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 5, 5, 20, 0, 16, 32, 16, 32), -1);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 9, 5, 16, 1, 16, 16, 16, 16), -1);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 5, 5, 16, 0, 10, 16, 16, 16), -1);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 5, 5, 32, 0, 16, 16, 16, 32), -1);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 5, 5, 16, 0, 16, 20, 16, 16), -1);
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 0, 5, 16, 0, 16, 16, 16, 16), -1);
  /* a wider ld (a registered buffer with room) is fine */
  ck_assert_int_eq(sm_i8_gemm_plan(&g, 5, 5, 16, 0, 16, 48, 32, 64), 0);
  ck_assert_ptr_null(broken_rule(&g, 0));
  /* manual tiles (--block-size up to 2^32 - 1): accepted exactly while the
   * padded rows fit int (and G's bytes size_t) */
  static const size_t rows[] = {4097,
                                8191,
                                65535,
                                1 << 20,
                                1 << 24,
                                (1u << 30) - 8,
                                (1u << 30) - 7,
                                1u << 30,
                                INT_MAX - 15,
                                INT_MAX - 14,
                                (size_t)INT_MAX + 1,
                                4294967295u};
  for (int sparse = 0; sparse < 2; sparse++)
    for (size_t a = 0; a < sizeof rows / sizeof *rows; a++) {
      const size_t p = padded(rows[a], sparse);
      const int fits = p <= INT_MAX;
      ck_assert_int_eq(sm_i8_gemm_plan_scratch(&g, rows[a], 16, 1, sparse),
                       fits ? 0 : -1);
      if (fits)
        ck_assert_ptr_null(broken_rule(&g, 1));
      ck_assert_int_eq(sm_i8_gemm_plan_scratch(&g, 16, rows[a], 1, sparse),
                       fits ? 0 : -1);
      ck_assert_int_eq(sm_i8_gemm_plan(&g, rows[a], rows[a], 16, sparse, p, 16, p, 16),
                       fits ? 0 : -1);
    }
  ck_assert_int_eq(sm_i8_gemm_aligned((void *)(uintptr_t)4096), 1);
  ck_assert_int_eq(sm_i8_gemm_aligned((void *)(uintptr_t)4100), 0);
}
END_TEST

/* ---- the plans run: cuBLAS's column-major GEMM on them, then the gather */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t xr(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void fill_codes(uint64_t *x, size_t rows, size_t nf, size_t ld)
{
  static const unsigned codes[4] = {0, 1, 3, 2}; /* 2: missing */
  memset(x, 0, rows * ld * sizeof *x);
  for (size_t i = 0; i < rows; i++)
    for (size_t q = 0; q < nf; q++)
      x[i * ld + q / 32] |= (uint64_t)codes[xr() % 4] << (2 * (q % 32));
}

/* C (m x n, ldc) = op(A) op(B) as cublasGemmEx defines it, column-major */
static void gemm_col(const sm_i8_gemm_t *g, const int8_t *A, const int8_t *B, int32_t *C)
{
  for (int j = 0; j < g->n; j++)
    for (int i = 0; i < g->m; i++) {
      int32_t s = 0;
      for (int l = 0; l < g->k; l++) {
        const int8_t a = g->transa == SM_I8_OP_T ? A[l + (size_t)i * g->lda]
                                                 : A[i + (size_t)l * g->lda];
        const int8_t b = g->transb == SM_I8_OP_N ? B[l + (size_t)j * g->ldb]
                                                 : B[j + (size_t)l * g->ldb];
        s += (int32_t)a * b;
      }
      C[i + (size_t)j * g->ldc] = g->alpha * s;
    }
}

/* the int8 form as sm_ccc_i8 writes it, padding rows then set to `pad` */
static void expand(const uint64_t *X, size_t rows, size_t ldx, size_t nf, int sparse,
                   int8_t *R, size_t prows, size_t ld, int8_t pad)
{
  const size_t used = (sparse ? 2 : 1) * rows;
  sm_kern_ccc_i8_expand(rows, nf, sm_ccc_i8_kpad(nf), X, ldx, sparse, R, ld);
  memset(R + used * ld, pad, (prows - used) * ld);
}

START_TEST(plans_compute_the_moments)
{
  static const size_t shapes[][3] = {{1, 1, 1},     {5, 3, 17},   {16, 16, 16},
                                     {17, 9, 100},  {37, 37, 33}, {40, 23, 301},
                                     {100, 1, 513}, {7, 66, 1029}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int sparse = 0; sparse < 2; sparse++)
      for (int scratch = 0; scratch < 2; scratch++)
        for (int pad = 0; pad < 2; pad++) {
          const size_t m = shapes[s][0], n = shapes[s][1], nf = shapes[s][2];
          const size_t ldx = (nf + 31) / 32, nmom = SM_CCC2_NMOM(sparse);
          sm_i8_gemm_t g;
          CHECK_PLAN(m, n, nf, sparse, scratch, &g);
          uint64_t *A = malloc(m * ldx * 8), *B = malloc(n * ldx * 8);
          uint32_t *want = malloc(m * n * nmom * 4);
          fill_codes(A, m, nf, ldx);
          fill_codes(B, n, nf, ldx);
          sm_kern_ccc2_ref(m, n, nf, A, ldx, B, ldx, sparse, want, n);
          /* L (the left tile's form, ldb) and R (the right's, lda): in
           * the scratch at the plan's offsets, or tiles of their own */
          const size_t lbytes = (size_t)g.n * g.ldb, rbytes = (size_t)g.m * g.lda;
          const size_t bytes =
              scratch ? g.scratch_bytes : g.scratch_bytes + lbytes + rbytes;
          char *mem = aligned_alloc(256, (bytes + 255) / 256 * 256);
          ck_assert_ptr_nonnull(mem);
          int8_t *L = (int8_t *)(mem + (scratch ? g.l_off : g.scratch_bytes));
          int8_t *R = (int8_t *)(mem + (scratch ? g.r_off : g.scratch_bytes + lbytes));
          int32_t *G = (int32_t *)(mem + g.g_off);
          ck_assert(sm_i8_gemm_aligned(G));
          /* padding rows zero, as the expansions write them, or anything:
           * the gather never reads their products */
          expand(A, m, ldx, nf, sparse, L, (size_t)g.n, (size_t)g.ldb, pad ? 0x55 : 0);
          expand(B, n, ldx, nf, sparse, R, (size_t)g.m, (size_t)g.lda, pad ? -3 : 0);
          gemm_col(&g, R, L, G); /* cuBLAS's A is R, its B is L */
          /* sm_i8_gather: moment u of pair (i, j) from left block u / 2,
           * right block u % 2 */
          for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
              for (size_t u = 0; u < nmom; u++) {
                const size_t li = (u / 2) * m + i, rj = (u % 2) * n + j;
                const uint32_t got = (uint32_t)G[rj + li * (size_t)g.ldc];
                ck_assert_msg(got == want[(i * n + j) * nmom + u],
                              "m=%zu n=%zu nf=%zu sparse=%d scratch=%d pad=%d (%zu, %zu) "
                              "moment %zu: %u vs %u",
                              m, n, nf, sparse, scratch, pad, i, j, u, got,
                              want[(i * n + j) * nmom + u]);
              }
          free(A), free(B), free(want), free(mem);
        }
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("i8_gemm");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, auto_tiles_bounded);
  tcase_add_loop_test(tc, every_tile_pair, 0, 4);
  tcase_add_test(tc, field_counts);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, plans_compute_the_moments);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(suite)
