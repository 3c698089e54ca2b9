/* test_abft.c: the checksum checks (--verify) of 2-way CCC tallies
 * (ccc/kern_abft_ccc.c) and of 2-way Czekanowski numerators
 * (czek/kern_abft_czek.c). Their identities against brute force on random
 * tiles of every shape (odd sizes, one row, one field, no field, all
 * missing), dense, sparse and int8, double and single; every injected
 * change they promise to catch is caught (one flipped bit anywhere, a
 * whole row, a whole column, two or three results), each of their sums is
 * needed (a change only the column sums see, one only the row sums see),
 * and the limit is real (a 2 x 2 rectangle of changes that cancel passes).
 * The CCC tests and the Czekanowski ones run once per variant (portable,
 * AVX2, AVX-512, where the CPU runs them), each against the same verdicts:
 * the twins. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_formulas.h"
#include "sm_kern.h"
#include "sm_test.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t xr(void)
{
  seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
  return seed;
}

/* Random codes; miss: share of missing codes (2), 1 = all missing. The
 * words past nf hold junk: the check must not read it. */
static void fill(uint64_t *x, size_t rows, size_t nf, size_t ld, double miss)
{
  for (size_t i = 0; i < rows; i++) {
    for (size_t w = 0; w < ld; w++)
      x[i * ld + w] = xr();
    for (size_t q = 0; q < nf; q++) {
      static const unsigned codes[3] = {0, 1, 3};
      const unsigned c = (double)(xr() % 1000) < miss * 1000 ? 2u : codes[xr() % 3];
      uint64_t *w = &x[i * ld + q / 32];
      *w = (*w & ~((uint64_t)3 << (2 * (q % 32)))) | (uint64_t)c << (2 * (q % 32));
    }
  }
}

/* A tile pair, its tallies (ref kernel) and the check on them. */
typedef struct tile {
  size_t m, n, nf, lda, ldb, ldc, nmom;
  int sparse, i8;
  uint64_t *A, *B;
  int8_t *A8, *B8;
  size_t kpad;
  uint32_t *C;
} tile_t;

static void tile_make(tile_t *t, size_t m, size_t n, size_t nf, int sparse, double miss,
                      int i8)
{
  *t = (tile_t){.m = m, .n = n, .nf = nf, .sparse = sparse, .i8 = i8};
  t->lda = (nf + 31) / 32 + 1, t->ldb = (nf + 31) / 32 + 2, t->ldc = n + 3;
  t->nmom = SM_CCC2_NMOM(sparse);
  t->A = malloc((m * t->lda + 1) * 8), t->B = malloc((n * t->ldb + 1) * 8);
  t->C = malloc((m * t->ldc * t->nmom + 1) * 4);
  fill(t->A, m, nf, t->lda, miss);
  fill(t->B, n, nf, t->ldb, miss);
  memset(t->C, 0xa5, (m * t->ldc * t->nmom + 1) * 4); /* the pads: junk */
  sm_kern_ccc2_ref(m, n, nf, t->A, t->lda, t->B, t->ldb, sparse, t->C, t->ldc);
  if (i8) {
    t->kpad = sm_ccc_i8_kpad(nf);
    t->A8 = malloc(2 * (m + 1) * t->kpad + 1), t->B8 = malloc(2 * (n + 1) * t->kpad + 1);
    sm_kern_ccc_i8_expand(m, nf, t->kpad, t->A, t->lda, sparse, t->A8, t->kpad);
    sm_kern_ccc_i8_expand(n, nf, t->kpad, t->B, t->ldb, sparse, t->B8, t->kpad);
  }
}

static void tile_free(tile_t *t)
{
  free(t->A), free(t->B), free(t->C), free(t->A8), free(t->B8);
}

static int check(const tile_t *t)
{
  return t->i8 ? sm_kern_abft_ccc2_i8(t->m, t->n, t->nf, t->A8, t->kpad, t->B8, t->kpad,
                                      t->sparse, t->C, t->ldc)
               : sm_kern_abft_ccc2(t->m, t->n, t->nf, t->A, t->lda, t->B, t->ldb,
                                   t->sparse, t->C, t->ldc);
}

static uint32_t *at(const tile_t *t, size_t i, size_t j, size_t k)
{
  return t->C + (i * t->ldc + j) * t->nmom + k;
}

/* The identities by brute force: a row's tallies sum to its (r, m) dotted
 * with the column sums of B, a column's to the column sums of A dotted
 * with its (r, m), field by field from the codes. */
static void identities(const tile_t *t)
{
  for (int side = 0; side < 2; side++) {
    const size_t rows = side ? t->n : t->m, oth = side ? t->m : t->n;
    const uint64_t *X = side ? t->B : t->A, *Y = side ? t->A : t->B;
    const size_t ldx = side ? t->ldb : t->lda, ldy = side ? t->lda : t->ldb;
    for (size_t i = 0; i < rows; i++) {
      uint64_t want[4] = {0, 0, 0, 0}, got[4] = {0, 0, 0, 0};
      for (size_t q = 0; q < t->nf; q++) {
        const unsigned c = sm_gt_code(X + i * ldx, q);
        const uint64_t r = sm_gt_r(c, t->sparse), mm = sm_gt_m(c, t->sparse);
        uint64_t sr = 0, sm = 0;
        for (size_t j = 0; j < oth; j++) {
          const unsigned d = sm_gt_code(Y + j * ldy, q);
          sr += sm_gt_r(d, t->sparse), sm += sm_gt_m(d, t->sparse);
        }
        want[0] += r * sr;
        /* rows: {r sr, r sm, m sr, m sm}; columns: rm is m_j r_i */
        want[side ? 2 : 1] += r * sm, want[side ? 1 : 2] += mm * sr, want[3] += mm * sm;
      }
      for (size_t j = 0; j < oth; j++)
        for (size_t k = 0; k < t->nmom; k++)
          got[k] += *(side ? at(t, j, i, k) : at(t, i, j, k));
      for (size_t k = 0; k < t->nmom; k++)
        ck_assert_msg(got[k] == want[k], "side %d row %zu moment %zu: %llu vs %llu", side,
                      i, k, (unsigned long long)got[k], (unsigned long long)want[k]);
    }
  }
}

/* The variant under test (loop tests: _i), 0 when this CPU cannot run it
 * (the test then has nothing to do). */
static const sm_kvar_t variants[] = {SM_KVAR_BLOCKED, SM_KVAR_AVX2, SM_KVAR_AVX512};
#define NVARIANTS (int)(sizeof variants / sizeof *variants)
static int use_variant(int i)
{
  if (!sm_kern_abft_use(variants[i])) {
    fprintf(stderr, "abft variant %s: this CPU does not run it\n",
            sm_kern_variant_name(variants[i]));
    return 0;
  }
  ck_assert_int_eq(sm_kern_abft_isa(), i);
  return 1;
}

static const size_t dims[] = {1, 2, 3, 7, 33, 65};
static const size_t nfs[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 129, 700};

/* PLINK's homozygous-called tallies (sm_kern_ld_hom, checked by
 * sm_kern_abft_ld_hom): clean tiles of every shape pass (sparse codes,
 * all missing too, a diagonal tile against itself), every flipped bit of
 * either tally of a pair is caught, as are a whole row's or column's
 * changes, and the tallies of other operands are refused. */
START_TEST(ld_hom_checked)
{
  if (!use_variant(_i))
    return;
  for (size_t a = 0; a < sizeof dims / sizeof *dims; a++)
    for (size_t c = 0; c < sizeof nfs / sizeof *nfs; c++)
      for (int same = 0; same < 2; same++) {
        const size_t m = dims[a], n = same ? m : dims[(a + 3) % 6], nf = nfs[c],
                     ld = (nf + 31) / 32 + 1;
        const double miss = c % 3 == 0 ? 1.0 : c % 3 == 1 ? 0.1 : 0.01;
        uint64_t *A = malloc(m * ld * 8 + 8), *B = same ? A : malloc(n * ld * 8 + 8);
        uint32_t *C = calloc(2 * m * n + 1, 4);
        fill(A, m, nf, ld, miss);
        if (!same)
          fill(B, n, nf, ld, miss);
        ck_assert_int_eq(sm_kern_ld_hom(m, n, nf, A, ld, B, ld, C, n), 0);
        ck_assert_msg(sm_kern_abft_ld_hom(m, n, nf, A, ld, B, ld, C, n),
                      "%zu x %zu nf %zu: clean tallies refused", m, n, nf);
        if (a == 4 && (c == 7 || c == 11)) { /* 33 rows, 64 and 700 fields */
          for (size_t k = 0; k < 2 * m * n; k += 1 + k % 5)
            for (int b = 0; b < 32; b++) {
              C[k] ^= 1u << b;
              ck_assert_msg(!sm_kern_abft_ld_hom(m, n, nf, A, ld, B, ld, C, n),
                            "tally %zu bit %d: flip passed", k, b);
              C[k] ^= 1u << b;
            }
          for (size_t j = 0; j < n; j++) /* a row's first tallies, all changed */
            C[2 * (3 * n + j)] += 1 + (uint32_t)j;
          ck_assert(!sm_kern_abft_ld_hom(m, n, nf, A, ld, B, ld, C, n));
          ck_assert_int_eq(sm_kern_ld_hom(m, n, nf, A, ld, B, ld, C, n), 0);
          for (size_t i = 0; i < m; i++) /* a column's second tallies */
            C[2 * (i * n + 1) + 1] += 7;
          ck_assert(!sm_kern_abft_ld_hom(m, n, nf, A, ld, B, ld, C, n));
          ck_assert_int_eq(sm_kern_ld_hom(m, n, nf, A, ld, B, ld, C, n), 0);
          uint64_t *X = malloc(m * ld * 8 + 8); /* other operands */
          fill(X, m, nf, ld, 0.1);
          ck_assert(!sm_kern_abft_ld_hom(m, n, nf, X, ld, B, ld, C, n));
          free(X);
        }
        free(C), free(A);
        if (!same)
          free(B);
      }
}
END_TEST

START_TEST(clean_tiles_pass)
{
  if (!use_variant(_i))
    return;
  for (int i8 = 0; i8 < 2; i8++)
    for (int sparse = 0; sparse < 2; sparse++)
      for (size_t a = 0; a < sizeof dims / sizeof *dims; a++)
        for (size_t c = 0; c < sizeof nfs / sizeof *nfs; c++) {
          const double miss = c % 3 == 0 ? 1.0 : c % 3 == 1 ? 0.1 : 0; /* 1: all */
          tile_t t;
          tile_make(&t, dims[a], dims[(a + 2) % 6], nfs[c], sparse, miss, i8);
          if (a < 4 && c < 9)
            identities(&t);
          ck_assert_msg(check(&t), "i8 %d sparse %d %zu x %zu nf %zu: clean refused", i8,
                        sparse, t.m, t.n, t.nf);
          tile_free(&t);
        }
}
END_TEST

START_TEST(every_flip_caught)
{
  if (!use_variant(_i))
    return;
  for (int i8 = 0; i8 < 2; i8++)
    for (int sparse = 0; sparse < 2; sparse++) {
      tile_t t;
      tile_make(&t, 13, 9, 301, sparse, 0.05, i8);
      for (size_t i = 0; i < t.m; i++)
        for (size_t j = 0; j < t.n; j++)
          for (size_t k = 0; k < t.nmom; k++)
            for (int b = 0; b < 32; b += 1 + (int)((i + j) % 3)) {
              *at(&t, i, j, k) ^= 1u << b;
              ck_assert_msg(!check(&t), "i8 %d sparse %d (%zu,%zu,%zu) bit %d missed", i8,
                            sparse, i, j, k, b);
              *at(&t, i, j, k) ^= 1u << b;
            }
      ck_assert(check(&t));
      tile_free(&t);
    }
}
END_TEST

/* Whole rows and columns of random values (a GPU's bad row), and the
 * changes each sum alone sees. */
START_TEST(rows_columns_and_pairs)
{
  if (!use_variant(_i))
    return;
  for (int i8 = 0; i8 < 2; i8++)
    for (int sparse = 0; sparse < 2; sparse++) {
      tile_t t;
      tile_make(&t, 11, 14, 200, sparse, 0.02, i8);
      const size_t row = t.ldc * t.nmom;
      uint32_t *save = malloc(t.m * row * 4);
      memcpy(save, t.C, t.m * row * 4);
      for (size_t i = 0; i < t.m; i++) { /* a whole row */
        for (size_t x = 0; x < t.n * t.nmom; x++)
          t.C[i * row + x] = (uint32_t)xr();
        ck_assert_msg(!check(&t), "row %zu missed", i);
        memcpy(t.C, save, t.m * row * 4);
      }
      for (size_t j = 0; j < t.n; j++) { /* a whole column, zeroed */
        for (size_t i = 0; i < t.m; i++)
          for (size_t k = 0; k < t.nmom; k++)
            *at(&t, i, j, k) = 0;
        ck_assert_msg(!check(&t), "column %zu missed", j);
        memcpy(t.C, save, t.m * row * 4);
      }
      for (size_t k = 0; k < t.nmom; k++) {
        /* +d and -d in one row: its sum holds, two columns' do not */
        *at(&t, 3, 2, k) += 5, *at(&t, 3, 7, k) -= 5;
        ck_assert_msg(!check(&t), "row-preserving pair missed (moment %zu)", k);
        memcpy(t.C, save, t.m * row * 4);
        /* +d and -d in one column: only the row sums see it */
        *at(&t, 1, 4, k) += 3, *at(&t, 8, 4, k) -= 3;
        ck_assert_msg(!check(&t), "column-preserving pair missed (moment %zu)", k);
        memcpy(t.C, save, t.m * row * 4);
        /* three tallies, summing to 0 in total */
        *at(&t, 0, 0, k) += 4, *at(&t, 0, 1, k) -= 2, *at(&t, 1, 0, k) -= 2;
        ck_assert(!check(&t));
        memcpy(t.C, save, t.m * row * 4);
        /* the limit: a 2 x 2 rectangle that cancels in every sum passes */
        *at(&t, 2, 3, k) += 1, *at(&t, 2, 5, k) -= 1;
        *at(&t, 6, 3, k) -= 1, *at(&t, 6, 5, k) += 1;
        ck_assert(check(&t));
        memcpy(t.C, save, t.m * row * 4);
      }
      ck_assert(check(&t));
      free(save);
      tile_free(&t);
    }
}
END_TEST

/* Tallies of other operands (a row of B swapped, one field changed) are
 * refused: the check reads the operands, not only C. */
START_TEST(other_operands_refused)
{
  for (int sparse = 0; sparse < 2; sparse++) {
    tile_t t;
    tile_make(&t, 5, 6, 97, sparse, 0.1, 0);
    uint64_t *w = &t.B[2 * t.ldb + 1];
    const uint64_t keep = *w;
    *w ^= (uint64_t)1 << 6; /* field 35 of row 2: code changes */
    ck_assert(!check(&t));
    *w = keep;
    ck_assert(check(&t));
    tile_free(&t);
  }
}
END_TEST

/* 3-way planes: clean results of every shape pass, with the triples a
 * diagonal slice skips 0 or computed; one flipped bit anywhere and a whole
 * corrupted row (p, x) are caught, by the row sums (a first kept y that
 * depends on the plane) and by the plane totals (one that does not: all
 * kept, or the X = Y tile after the planes). */
static int check3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                  const uint64_t *X, const uint64_t *Y, size_t ld, int sparse,
                  const sm_keep3_t *keep, const uint32_t *out)
{
  return sm_kern_abft_ccc3(g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, keep, out);
}

/* Flips of one bit in the kept triples of an X = Y slice (a flip in a
 * skipped one, which no output reads, may pass as a computed triple) are
 * all caught; bit t % mod of tally t. */
static void kept_flips_caught(size_t g, size_t my, size_t nf, const uint64_t *P,
                              const uint64_t *Y, size_t ld, int sparse,
                              const sm_keep3_t *keep, uint32_t *o, unsigned mod)
{
  const size_t nmom = SM_CCC3_NMOM(sparse);
  for (size_t t = 0; t < g * my * my * nmom; t += 1 + t / 3) {
    const size_t i = t / (my * nmom), y = t / nmom % my;
    if (y < sm_keep3_lo(keep, i / my, i % my, my))
      continue;
    o[t] ^= 1u << (t % mod);
    ck_assert_msg(!check3(g, my, my, nf, P, Y, Y, ld, sparse, keep, o),
                  "keep kind %u x0 %u, sparse %d nf %zu: flip at %zu missed",
                  (unsigned)keep->kind, (unsigned)keep->x0, sparse, nf, t);
    o[t] ^= 1u << (t % mod);
  }
}

START_TEST(ccc3_planes)
{
  if (!use_variant(_i))
    return;
  static const size_t g3[] = {1, 2, 3}, d3[] = {1, 2, 5, 9},
                      f3[] = {0, 1, 33, 64, 65, 130};
  const sm_keep3_t all = {0, 0, 0, 0}; /* kind 0: the diagonal slice a < x < y */
  for (int sparse = 0; sparse < 2; sparse++)
    for (size_t a = 0; a < 3; a++)
      for (size_t b = 0; b < 4; b++)
        for (size_t c = 0; c < 6; c++) {
          const size_t g = g3[a], mx = d3[b], my = d3[(b + a) % 4], nf = f3[c];
          const size_t ld = (nf + 31) / 32 + 1, nmom = SM_CCC3_NMOM(sparse);
          const size_t nout = g * mx * my * nmom;
          const double miss = c % 3 == 2 ? 1.0 : 0.1;
          uint64_t *P = malloc(g * ld * 8), *X = malloc(mx * ld * 8),
                   *Y = malloc(my * ld * 8);
          const size_t mm = mx > my ? mx : my;
          uint32_t *o = malloc(g * mm * mm * nmom * 4 + 4);
          fill(P, g, nf, ld, miss), fill(X, mx, nf, ld, miss), fill(Y, my, nf, ld, miss);
          sm_kern_ccc3_ref(g, mx, my, nf, P, ld, X, ld, Y, ld, sparse, o);
          ck_assert_msg(check3(g, mx, my, nf, P, X, Y, ld, sparse, NULL, o),
                        "sparse %d %zu %zu %zu nf %zu: clean refused", sparse, g, mx, my,
                        nf);
          for (size_t t = 0; t < nout; t += 1 + nout / 17) {
            o[t] ^= 1u << (t % 32);
            ck_assert_msg(!check3(g, mx, my, nf, P, X, Y, ld, sparse, NULL, o),
                          "sparse %d nf %zu: flip at %zu missed", sparse, nf, t);
            o[t] ^= 1u << (t % 32);
          }
          for (size_t r = 0; r < g * mx; r += 1 + g * mx / 3) { /* whole rows */
            uint32_t *keep = malloc(my * nmom * 4 + 4);
            memcpy(keep, o + r * my * nmom, my * nmom * 4);
            for (size_t t = 0; t < my * nmom; t++)
              o[r * my * nmom + t] = (uint32_t)xr() | 1;
            ck_assert(!check3(g, mx, my, nf, P, X, Y, ld, sparse, NULL, o));
            memcpy(o + r * my * nmom, keep, my * nmom * 4);
            free(keep);
          }
          /* a diagonal slice (X = Y): computed whole or with 0s skipped */
          {
            sm_kern_ccc3_ref(g, my, my, nf, P, ld, Y, ld, Y, ld, sparse, o);
            ck_assert(check3(g, my, my, nf, P, Y, Y, ld, sparse, &all, o));
            sm_kern_ccc3_on(sm_kern_ccc2_ref, &all, g, my, my, nf, P, ld, Y, ld, Y, ld,
                            sparse, o);
            ck_assert_msg(check3(g, my, my, nf, P, Y, Y, ld, sparse, &all, o),
                          "sparse %d nf %zu: skipped triples refused", sparse, nf);
            kept_flips_caught(g, my, nf, P, Y, ld, sparse, &all, o, 29);
          }
          /* the X = Y tile after the planes' (a < x always): the first
           * kept y, x + 1, is the same for every plane (plane totals) */
          {
            const sm_keep3_t after = {0, 0, (uint32_t)g, (uint32_t)g};
            sm_kern_ccc3_on(sm_kern_ccc2_ref, &after, g, my, my, nf, P, ld, Y, ld, Y, ld,
                            sparse, o);
            ck_assert_msg(check3(g, my, my, nf, P, Y, Y, ld, sparse, &after, o),
                          "after: sparse %d nf %zu: clean refused", sparse, nf);
            kept_flips_caught(g, my, nf, P, Y, ld, sparse, &after, o, 31);
            for (size_t i = 0; i < g * my; i++) { /* a kept part of a row, corrupted */
              const size_t l = sm_keep3_lo(&after, i / my, i % my, my);
              if (l >= my)
                continue;
              const uint32_t k0 = o[(i * my + l) * nmom];
              o[(i * my + l) * nmom] = k0 + (uint32_t)(xr() | 1);
              ck_assert(!check3(g, my, my, nf, P, Y, Y, ld, sparse, &after, o));
              o[(i * my + l) * nmom] = k0;
            }
          }
          free(P), free(X), free(Y), free(o);
        }
}
END_TEST

/* ---- Czekanowski: C_ij = sum_q min(a_iq, b_jq) */

/* Random values: ints, small integers (many ties, zeros); else reals. */
static void czek_fill(double *x, size_t rows, size_t k, size_t ld, int ints)
{
  for (size_t i = 0; i < rows; i++)
    for (size_t q = 0; q < ld; q++)
      x[i * ld + q] = q >= k           ? -1.0 /* the pad: the check must not read it */
                      : ints           ? (double)(xr() % 7)
                      : xr() % 11 == 0 ? 0.0
                                       : (double)(xr() >> 11) * 0x1p-53 * 100;
}

typedef struct ctile {
  size_t m, n, k, lda, ldb, ldc;
  int ints;
  double *A, *B, *C;
  float *As, *Bs, *Cs;
} ctile_t;

static void ctile_make(ctile_t *t, size_t m, size_t n, size_t k, int ints)
{
  *t = (ctile_t){.m = m, .n = n, .k = k, .ints = ints};
  t->lda = k + 1, t->ldb = k + 3, t->ldc = n + 2;
  t->A = malloc((m * t->lda + 1) * 8), t->B = malloc((n * t->ldb + 1) * 8);
  t->C = malloc((m * t->ldc + 1) * 8);
  t->As = malloc((m * t->lda + 1) * 4), t->Bs = malloc((n * t->ldb + 1) * 4);
  t->Cs = malloc((m * t->ldc + 1) * 4);
  czek_fill(t->A, m, k, t->lda, ints), czek_fill(t->B, n, k, t->ldb, ints);
  for (size_t x = 0; x < m * t->lda; x++)
    t->As[x] = (float)t->A[x];
  for (size_t x = 0; x < n * t->ldb; x++)
    t->Bs[x] = (float)t->B[x];
  for (size_t x = 0; x < m * t->ldc; x++)
    t->C[x] = NAN, t->Cs[x] = NAN; /* the pads */
  sm_kern_czek2_ref_d(m, n, k, t->A, t->lda, t->B, t->ldb, t->C, t->ldc);
  sm_kern_czek2_ref_s(m, n, k, t->As, t->lda, t->Bs, t->ldb, t->Cs, t->ldc);
}

static void ctile_free(ctile_t *t)
{
  free(t->A), free(t->B), free(t->C), free(t->As), free(t->Bs), free(t->Cs);
}

static int ccheck(const ctile_t *t)
{
  return sm_kern_abft_czek2_d(t->m, t->n, t->k, t->A, t->lda, t->B, t->ldb, t->C, t->ldc);
}

static int ccheck_s(const ctile_t *t)
{
  return sm_kern_abft_czek2_s(t->m, t->n, t->k, t->As, t->lda, t->Bs, t->ldb, t->Cs,
                              t->ldc);
}

static const size_t cdims[] = {1, 2, 3, 7, 33, 65};
static const size_t cks[] = {0, 1, 2, 7, 8, 9, 31, 100};

/* The prefix-sum identity against brute force (row i: sum over j and q of
 * the minima; column j the same), and clean tiles of every shape pass,
 * double and single, integers (exact) and reals. */
START_TEST(czek_identity_and_clean)
{
  if (!use_variant(_i))
    return;
  for (int ints = 0; ints < 2; ints++)
    for (size_t a = 0; a < 6; a++)
      for (size_t b = 0; b < 6; b += 1 + (a % 2))
        for (size_t c = 0; c < sizeof cks / sizeof *cks; c++) {
          ctile_t t;
          ctile_make(&t, cdims[a], cdims[b], cks[c], ints);
          double *want = malloc((t.m + t.n) * sizeof *want);
          ck_assert(
              sm_kern_abft_czek2_sums_d(t.m, t.n, t.k, t.A, t.lda, t.B, t.ldb, want));
          for (size_t i = 0; i < t.m + t.n; i++) {
            long double bf = 0;
            for (size_t o = 0; o < (i < t.m ? t.n : t.m); o++)
              for (size_t q = 0; q < t.k; q++) {
                const double x =
                    i < t.m ? t.A[i * t.lda + q] : t.B[(i - t.m) * t.ldb + q];
                const double y = i < t.m ? t.B[o * t.ldb + q] : t.A[o * t.lda + q];
                bf += x < y ? x : y;
              }
            if (ints)
              ck_assert_msg(want[i] == (double)bf, "%zu x %zu k %zu: sum %zu %g vs %g",
                            t.m, t.n, t.k, i, want[i], (double)bf);
            else
              ck_assert_msg(fabsl(want[i] - bf) <= 1e-12L * bf, "sum %zu %g vs %Lg", i,
                            want[i], bf);
          }
          free(want);
          ck_assert_msg(ccheck(&t), "ints %d %zu x %zu k %zu: clean refused", ints, t.m,
                        t.n, t.k);
          ck_assert_msg(ccheck_s(&t), "single ints %d %zu x %zu k %zu: clean refused",
                        ints, t.m, t.n, t.k);
          ctile_free(&t);
        }
}
END_TEST

/* Integer data: every flipped bit of every result is caught (double and
 * single); real data: every flip that changes a result by more than the
 * bound the check states is caught, and the ones below it are counted. */
START_TEST(czek_flips)
{
  if (!use_variant(_i))
    return;
  for (int ints = 1; ints >= 0; ints--) {
    ctile_t t;
    ctile_make(&t, 9, 13, 301, ints);
    size_t slipped = 0, flips = 0;
    for (size_t i = 0; i < t.m; i++)
      for (size_t j = 0; j < t.n; j++) {
        double *c = &t.C[i * t.ldc + j];
        for (int b = 0; b < 64; b++) {
          const double old = *c;
          uint64_t w;
          memcpy(&w, c, 8), w ^= (uint64_t)1 << b, memcpy(c, &w, 8);
          const double d = fabs(*c - old);
          /* the row's bound: ((k + 1) u + (2 n + k + 8) u) R_i, R_i <= n max */
          double r = 0, col = 0;
          for (size_t o = 0; o < t.n; o++)
            r += t.C[i * t.ldc + o] - (o == j ? *c - old : 0);
          for (size_t o = 0; o < t.m; o++)
            col += t.C[o * t.ldc + j] - (o == i ? *c - old : 0);
          const double big = r > col ? r : col;
          const double tol =
              ((double)(t.k + 1) + (double)(2 * 13 + t.k + 8)) * 0x1p-53 * big;
          const int caught = !ccheck(&t);
          flips++;
          if (ints || !(d <= 2 * tol))
            ck_assert_msg(caught, "ints %d (%zu,%zu) bit %d (%g -> %g) missed", ints, i,
                          j, b, old, *c);
          slipped += !caught;
          *c = old;
        }
        if (ints) {
          float *cs = &t.Cs[i * t.ldc + j];
          for (int b = 0; b < 32; b++) {
            uint32_t w;
            memcpy(&w, cs, 4), w ^= 1u << b, memcpy(cs, &w, 4);
            ck_assert_msg(!ccheck_s(&t), "single (%zu,%zu) bit %d missed", i, j, b);
            memcpy(&w, cs, 4), w ^= 1u << b, memcpy(cs, &w, 4);
          }
        }
      }
    if (!ints)
      fprintf(stderr, "czek real data: %zu of %zu flips below the bound passed\n",
              slipped, flips);
    ck_assert(ccheck(&t) && ccheck_s(&t));
    ctile_free(&t);
  }
}
END_TEST

/* Whole rows of random bytes; changes only the row sums or only the column
 * sums see (a check that skipped either fails here); the 2 x 2 limit;
 * other operands. */
START_TEST(czek_rows_columns_and_pairs)
{
  if (!use_variant(_i))
    return;
  for (int ints = 0; ints < 2; ints++) {
    ctile_t t;
    ctile_make(&t, 11, 14, 200, ints);
    const size_t bytes = t.m * t.ldc * 8;
    double *save = malloc(bytes);
    memcpy(save, t.C, bytes);
    for (size_t i = 0; i < t.m; i++) {
      unsigned char *r = (unsigned char *)(t.C + i * t.ldc);
      for (size_t x = 0; x < t.n * 8; x++)
        r[x] = (unsigned char)xr();
      ck_assert_msg(!ccheck(&t), "row %zu missed", i);
      memcpy(t.C, save, bytes);
      for (size_t j = 0; j < t.n; j++) /* a row of zeros */
        t.C[i * t.ldc + j] = 0;
      ck_assert_msg(!ccheck(&t), "zeroed row %zu missed", i);
      memcpy(t.C, save, bytes);
    }
    for (size_t j = 0; j < t.n; j++) {
      for (size_t i = 0; i < t.m; i++)
        t.C[i * t.ldc + j] = 0;
      ck_assert_msg(!ccheck(&t), "column %zu missed", j);
      memcpy(t.C, save, bytes);
    }
    /* +d and -d in one row: only the column sums see it */
    t.C[3 * t.ldc + 2] += 5, t.C[3 * t.ldc + 7] -= 5;
    ck_assert_msg(!ccheck(&t), "row-preserving pair missed");
    memcpy(t.C, save, bytes);
    /* +d and -d in one column: only the row sums see it */
    t.C[1 * t.ldc + 4] += 3, t.C[8 * t.ldc + 4] -= 3;
    ck_assert_msg(!ccheck(&t), "column-preserving pair missed");
    memcpy(t.C, save, bytes);
    /* a result made -0 (from a 0) or negative */
    t.C[0] = -t.C[0];
    ck_assert(!ccheck(&t));
    memcpy(t.C, save, bytes);
    if (ints) { /* the limit: a 2 x 2 rectangle that cancels in every sum */
      t.C[2 * t.ldc + 3] += 1, t.C[2 * t.ldc + 5] -= 1;
      t.C[6 * t.ldc + 3] -= 1, t.C[6 * t.ldc + 5] += 1;
      ck_assert(ccheck(&t));
      memcpy(t.C, save, bytes);
      /* the results of other operands: one value of B changed where it
       * changes a minimum (a positive value made 0 where a row of A is
       * positive too; a raised value above every row's changes none) */
      size_t q = 0;
      int found = 0;
      for (; q < t.k && !found; q++)
        for (size_t i = 0; i < t.m && !found; i++)
          found = t.B[4 * t.ldb + q] > 0 && t.A[i * t.lda + q] > 0;
      ck_assert(found);
      q--;
      const double b0 = t.B[4 * t.ldb + q];
      t.B[4 * t.ldb + q] = 0;
      ck_assert(!ccheck(&t));
      t.B[4 * t.ldb + q] = b0;
    }
    ck_assert(ccheck(&t));
    free(save);
    ctile_free(&t);
  }
}
END_TEST

static Suite *abft_suite(void)
{
  Suite *s = suite_create("abft");
  TCase *tc = tcase_create("ccc2");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, clean_tiles_pass, 0, NVARIANTS);
  tcase_add_loop_test(tc, ld_hom_checked, 0, NVARIANTS);
  tcase_add_loop_test(tc, every_flip_caught, 0, NVARIANTS);
  tcase_add_loop_test(tc, rows_columns_and_pairs, 0, NVARIANTS);
  tcase_add_test(tc, other_operands_refused);
  tcase_add_loop_test(tc, ccc3_planes, 0, NVARIANTS);
  suite_add_tcase(s, tc);
  TCase *tz = tcase_create("czek2");
  tcase_set_timeout(tz, 120);
  tcase_add_loop_test(tz, czek_identity_and_clean, 0, NVARIANTS);
  tcase_add_loop_test(tz, czek_flips, 0, NVARIANTS);
  tcase_add_loop_test(tz, czek_rows_columns_and_pairs, 0, NVARIANTS);
  suite_add_tcase(s, tz);
  return s;
}

SM_TEST_MAIN(abft_suite)
