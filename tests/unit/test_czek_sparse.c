/* test_czek_sparse.c: the sparse Czekanowski kernels (packed tiles,
 * sm_csr.h) against the dense reference kernel on random sparse tiles of
 * many shapes (empty rows, one field, no field shared, every entry
 * non-zero), exact on integer values; the diagonal pairs, the sums, and
 * the --verify check catching changed bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sm_csr_pack.h"
#include "sm_kern.h"
#include "sm_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t xr(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* nv x nf vectors, a fraction dens of the entries non-zero; integer or
 * real values; every 5th row empty; shift: entries only on fields of that
 * parity (0, 1; -1 any), so two sets may share none */
static void fill(sm_vectors_t *v, size_t nv, size_t nf, size_t es, double dens,
                 int integer, int shift)
{
  ck_assert(sm_vectors_alloc(v, SM_METRIC_CZEK, es, nv, nf) == SM_OK);
  for (size_t i = 0; i < nv; i++)
    for (size_t q = 0; q < nf; q++) {
      double x = 0;
      if (i % 5 != 4 && (shift < 0 || (int)(q % 2) == shift) &&
          (double)(xr() >> 11) * 0x1.0p-53 < dens)
        x = integer ? (double)(1 + xr() % 1000) : (double)(xr() >> 11) * 0x1.0p-50;
      if (es == 8)
        ((double *)sm_vectors_row(v, i))[q] = x;
      else
        ((float *)sm_vectors_row(v, i))[q] = (float)x;
    }
}

static void *pack(const sm_vectors_t *v)
{
  void *b;
  size_t bytes;
  ck_assert(sm_csr_pack_tile(v, 0, v->nv, &b, &bytes) == SM_OK);
  ck_assert_uint_eq(
      bytes, sm_csr_bytes(v->nv, v->nf, sm_csr_pack_count(v, 0, v->nv), v->elem_size));
  return b;
}

static const size_t nvs[] = {1, 2, 3, 17, 40};
static const size_t nfs[] = {1, 2, 7, 64, 301};
static const double dens[] = {0.001, 0.01, 0.1, 0.5, 1.0};
#define N(a) (sizeof a / sizeof a[0])

START_TEST(sparse_vs_dense_ref)
{
  const size_t es = _i ? 4 : 8;
  int cases = 0;
  for (size_t a = 0; a < N(nvs); a++)
    for (size_t b = 0; b < N(nvs); b += 2)
      for (size_t c = 0; c < N(nfs); c++)
        for (size_t d = 0; d < N(dens); d++)
          for (int integer = 0; integer < 2; integer++)
            for (int disjoint = 0; disjoint < 2; disjoint++) {
              const size_t m = nvs[a], n = nvs[b], nf = nfs[c], ldc = n + 3;
              sm_vectors_t A, B;
              fill(&A, m, nf, es, dens[d], integer, disjoint ? 0 : -1);
              fill(&B, n, nf, es, dens[d], integer, disjoint ? 1 : -1);
              void *pa = pack(&A), *pb = pack(&B);
              double *R = calloc(m * ldc + 1, 8), *S = calloc(m * ldc + 1, 8);
              float *Rs = calloc(m * ldc + 1, 4), *Ss = calloc(m * ldc + 1, 4);
              if (es == 8) {
                sm_kern_czek2_ref_d(m, n, nf, A.data, A.ld, B.data, B.ld, R, ldc);
                sm_kern_czek2_sparse_d(pa, pb, S, ldc);
                ck_assert(sm_kern_verify_czek2_sparse_d(pa, pb, S, ldc));
              } else {
                sm_kern_czek2_ref_s(m, n, nf, A.data, A.ld, B.data, B.ld, Rs, ldc);
                sm_kern_czek2_sparse_s(pa, pb, Ss, ldc);
                ck_assert(sm_kern_verify_czek2_sparse_s(pa, pb, Ss, ldc));
              }
              for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                  const double x = es == 8 ? R[i * ldc + j] : Rs[i * ldc + j];
                  const double y = es == 8 ? S[i * ldc + j] : Ss[i * ldc + j];
                  if (integer || disjoint)
                    ck_assert_msg(x == y,
                                  "m=%zu n=%zu nf=%zu dens=%g (%zu,%zu): %g vs %g", m, n,
                                  nf, dens[d], i, j, x, y);
                  else
                    ck_assert_msg(fabs(x - y) <= (es == 8 ? 1e-12 : 1e-5) * fabs(x),
                                  "m=%zu n=%zu nf=%zu: %.17g vs %.17g", m, n, nf, x, y);
                }
              free(pa), free(pb), free(R), free(S), free(Rs), free(Ss);
              sm_vectors_free(&A), sm_vectors_free(&B);
              cases++;
            }
  ck_assert_int_gt(cases, 400);
}
END_TEST

/* A tile against itself: the pairs j > i as the dense reference, the
 * others 0; the sums as the dense sums, bit for bit. */
START_TEST(sparse_diag_and_sums)
{
  for (size_t a = 0; a < N(nvs); a++)
    for (size_t d = 0; d < N(dens); d++) {
      const size_t m = nvs[a], nf = 301;
      sm_vectors_t A;
      fill(&A, m, nf, 8, dens[d], d % 2, -1);
      void *pa = pack(&A);
      double *R = calloc(m * m + 1, 8), *S = calloc(m * m + 1, 8);
      double *s1 = calloc(m, 8), *s2 = calloc(m, 8);
      sm_kern_czek2_ref_d(m, m, nf, A.data, A.ld, A.data, A.ld, R, m);
      sm_kern_czek2_sparse_d(pa, pa, S, m);
      ck_assert(sm_kern_verify_czek2_sparse_d(pa, pa, S, m));
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++) {
          if (j > i && d % 2)
            ck_assert(R[i * m + j] == S[i * m + j]);
          else if (j > i)
            ck_assert(fabs(R[i * m + j] - S[i * m + j]) <= 1e-12 * R[i * m + j]);
          else
            ck_assert(S[i * m + j] == 0);
        }
      sm_kern_sums_czek_d(m, nf, A.data, A.ld, s1);
      sm_kern_sums_czek_sparse_d(pa, s2);
      ck_assert(memcmp(s1, s2, m * 8) == 0);
      free(pa), free(R), free(S), free(s1), free(s2);
      sm_vectors_free(&A);
    }
}
END_TEST

/* Every bit of every numerator changed once: the check catches it. */
START_TEST(sparse_verify_catches_flips)
{
  sm_vectors_t A, B;
  fill(&A, 7, 90, 8, 0.3, 1, -1);
  fill(&B, 5, 90, 8, 0.3, 0, -1);
  void *pa = pack(&A), *pb = pack(&B);
  double C[7 * 5];
  sm_kern_czek2_sparse_d(pa, pb, C, 5);
  int missed = 0;
  for (size_t w = 0; w < 35; w++)
    for (int bit = 0; bit < 64; bit++) {
      uint64_t u;
      memcpy(&u, &C[w], 8), u ^= 1ull << bit, memcpy(&C[w], &u, 8);
      missed += sm_kern_verify_czek2_sparse_d(pa, pb, C, 5);
      memcpy(&u, &C[w], 8), u ^= 1ull << bit, memcpy(&C[w], &u, 8);
    }
  ck_assert_int_eq(missed, 0);
  ck_assert(sm_kern_verify_czek2_sparse_d(pa, pb, C, 5));
  free(pa), free(pb);
  sm_vectors_free(&A), sm_vectors_free(&B);
}
END_TEST

static Suite *czek_sparse_suite(void)
{
  Suite *s = suite_create("czek_sparse");
  TCase *tc = tcase_create("kernels");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, sparse_vs_dense_ref, 0, 2);
  tcase_add_test(tc, sparse_diag_and_sums);
  tcase_add_test(tc, sparse_verify_catches_flips);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(czek_sparse_suite)
