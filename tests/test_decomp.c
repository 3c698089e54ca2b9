/* test_decomp.c: the parallel decomposition as pure arithmetic (no MPI):
 * for every npv in 1..12, npr in 1..4 and phases 1..5, with one tile per
 * partition and with several, every unordered pair of vectors is computed
 * exactly once over all ranks and phases, and the work per rank (tile
 * pairs, i.e. blocks when a partition is one tile) differs by at most one;
 * field slices and partitions are balanced cuts. */
#include <stdlib.h>

#include "sm_decomp.h"
#include "sm_test.h"

/* Count, for every vector pair i < j, how many (rank, phase) compute it. */
static void check_cover(const sm_decomp_t *d, int phases_separately)
{
  const size_t nv = d->nv;
  unsigned char *seen = calloc(nv * nv, 1);
  ck_assert_ptr_nonnull(seen);
  size_t minw = (size_t)-1, maxw = 0;
  for (int I = 0; I < d->npv; I++)
    for (int pr = 0; pr < d->npr; pr++) {
      size_t n;
      sm_err_t err;
      sm_subblock_t *s = sm_decomp_subblocks2(d, I, pr, &n, &err);
      ck_assert_int_eq(err, SM_OK);
      size_t per_phase[8] = {0};
      for (size_t x = 0; x < n; x++) {
        ck_assert_int_eq(s[x].I, I);
        ck_assert(s[x].phase >= 0 && s[x].phase < d->num_phase);
        per_phase[s[x].phase]++;
        size_t pI0, pIn, pJ0, pJn, a0, an, b0, bn;
        sm_decomp_part(d, s[x].I, &pI0, &pIn);
        sm_decomp_part(d, s[x].J, &pJ0, &pJn);
        sm_decomp_tile(d, s[x].I, s[x].tI, &a0, &an);
        sm_decomp_tile(d, s[x].J, s[x].tJ, &b0, &bn);
        int diag = s[x].I == s[x].J && s[x].tI == s[x].tJ;
        for (size_t i = pI0 + a0; i < pI0 + a0 + an; i++)
          for (size_t j = pJ0 + b0; j < pJ0 + b0 + bn; j++) {
            if (diag && j <= i)
              continue;
            size_t lo = i < j ? i : j, hi = i < j ? j : i;
            ck_assert_msg(lo != hi, "pair of a vector with itself");
            seen[lo * nv + hi]++;
          }
      }
      /* per rank and phase: balanced across all ranks within one */
      for (int p = 0; p < d->num_phase; p++) {
        size_t w = phases_separately ? per_phase[p] : n;
        if (w < minw)
          minw = w;
        if (w > maxw)
          maxw = w;
      }
      free(s);
    }
  for (size_t i = 0; i < nv; i++)
    for (size_t j = i + 1; j < nv; j++)
      ck_assert_msg(seen[i * nv + j] == 1,
                    "npv=%d npr=%d phases=%d bs=%zu: pair (%zu,%zu) computed %d times",
                    d->npv, d->npr, d->num_phase, d->block_size, i, j, seen[i * nv + j]);
  /* blocks (tile pairs) per rank differ by at most one when each partition
   * is one tile; with several tiles the rows differ by the diagonal */
  if (d->block_size >= d->nv)
    ck_assert_msg(maxw - minw <= 1, "npv=%d npr=%d phases=%d: work %zu..%zu", d->npv,
                  d->npr, d->num_phase, minw, maxw);
  free(seen);
}

START_TEST(every_pair_once)
{
  for (int npv = 1; npv <= 12; npv++)
    for (int npr = 1; npr <= 4; npr++)
      for (int ph = 1; ph <= 5; ph++) {
        /* one tile per partition (blocks are the unit), then several tiles */
        sm_decomp_t d = {.nv = (size_t)(3 * npv + 2), .nf = 10, .npv = npv, .npf = 1,
                         .npr = npr, .block_size = 1000, .num_phase = ph};
        check_cover(&d, 1);
        d.block_size = 2;
        check_cover(&d, 0);
      }
}
END_TEST

START_TEST(balance_in_pairs)
{
  /* the block-circulant set balances the pairs of partition rows: with
   * equal partitions every rank row computes (nv/npv)^2 npv/2-ish pairs */
  for (int npv = 1; npv <= 9; npv++) {
    sm_decomp_t d = {.nv = (size_t)(40 * npv), .nf = 1, .npv = npv, .npf = 1, .npr = 1,
                     .block_size = 8, .num_phase = 1};
    double minp = 1e300, maxp = 0;
    for (int I = 0; I < npv; I++) {
      size_t n;
      sm_err_t err;
      sm_subblock_t *s = sm_decomp_subblocks2(&d, I, 0, &n, &err);
      double pairs = 0;
      for (size_t x = 0; x < n; x++) {
        size_t a0, an, b0, bn;
        sm_decomp_tile(&d, s[x].I, s[x].tI, &a0, &an);
        sm_decomp_tile(&d, s[x].J, s[x].tJ, &b0, &bn);
        pairs += s[x].I == s[x].J && s[x].tI == s[x].tJ ? an * (an - 1) / 2.0 : (double)an * bn;
      }
      free(s);
      minp = pairs < minp ? pairs : minp;
      maxp = pairs > maxp ? pairs : maxp;
    }
    /* rows differ by at most one 8 x 8 tile pair */
    ck_assert_msg(maxp - minp <= 64, "npv=%d: pairs per row %g..%g", npv, minp, maxp);
  }
}
END_TEST

START_TEST(cuts_and_ranks)
{
  sm_decomp_t d = {.nv = 10, .nf = 7, .npv = 4, .npf = 3, .npr = 2, .block_size = 2,
                   .num_phase = 1};
  ck_assert_int_eq(sm_decomp_check(&d, 24), SM_OK);
  size_t total = 0, v0, n;
  for (int I = 0; I < 4; I++) {
    sm_decomp_part(&d, I, &v0, &n);
    ck_assert_uint_eq(v0, total);
    ck_assert(n == 2 || n == 3);
    total += n;
  }
  ck_assert_uint_eq(total, 10);
  total = 0;
  for (int f = 0; f < 3; f++) {
    sm_decomp_slice(&d, f, &v0, &n);
    ck_assert_uint_eq(v0, total);
    total += n;
  }
  ck_assert_uint_eq(total, 7);
  for (int r = 0; r < 24; r++) {
    int pv, pf, pr;
    sm_decomp_coords(&d, r, &pv, &pf, &pr);
    ck_assert_int_eq(sm_decomp_rank(&d, pv, pf, pr), r);
  }
  /* grids that do not match the rank count, or too fine for the data */
  ck_assert_int_eq(sm_decomp_check(&d, 12), SM_EOPTION);
  d.npf = 8;
  d.npr = 1;
  ck_assert_int_eq(sm_decomp_check(&d, 32), SM_EOPTION); /* 7 fields, 8 slices */
  d.npf = 1;
  d.npv = 11;
  ck_assert_int_eq(sm_decomp_check(&d, 11), SM_EOPTION); /* 10 vectors */
}
END_TEST

static Suite *decomp_suite(void)
{
  Suite *s = suite_create("decomp");
  TCase *tc = tcase_create("decomp");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_pair_once);
  tcase_add_test(tc, balance_in_pairs);
  tcase_add_test(tc, cuts_and_ranks);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(decomp_suite)
