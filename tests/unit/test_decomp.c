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
        sm_decomp_t d = {.nv = (size_t)(3 * npv + 2),
                         .nf = 10,
                         .npv = npv,
                         .npf = 1,
                         .npr = npr,
                         .block_size = 1000,
                         .num_phase = ph};
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
    sm_decomp_t d = {.nv = (size_t)(40 * npv),
                     .nf = 1,
                     .npv = npv,
                     .npf = 1,
                     .npr = 1,
                     .block_size = 8,
                     .num_phase = 1};
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
        pairs += s[x].I == s[x].J && s[x].tI == s[x].tJ ? an * (an - 1) / 2.0
                                                        : (double)an * bn;
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
  sm_decomp_t d = {
      .nv = 10, .nf = 7, .npv = 4, .npf = 3, .npr = 2, .block_size = 2, .num_phase = 1};
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

/* 3-way: every unordered triple once over ranks, stages and phases */
static void check_cover3(const sm_decomp_t *d, int nst, double *balance)
{
  const size_t nv = d->nv;
  unsigned char *seen = calloc(nv * nv * nv, 1);
  ck_assert_ptr_nonnull(seen);
  double maxp = 0, sump = 0;
  for (int I = 0; I < d->npv; I++)
    for (int pr = 0; pr < d->npr; pr++) {
      size_t n;
      sm_err_t err;
      sm_slice3_t *s = sm_decomp_slices3(d, I, pr, &n, &err);
      ck_assert_int_eq(err, SM_OK);
      double planes = 0;
      for (size_t x = 0; x < n; x++) {
        const sm_slice3_t *c = &s[x];
        size_t pa0, pan, px0, pxn, py0, pyn;
        sm_decomp_part(d, c->pa, &pa0, &pan);
        sm_decomp_part(d, c->px, &px0, &pxn);
        sm_decomp_part(d, c->py, &py0, &pyn);
        planes += (double)(c->a1 - c->a0);
        for (int st = 0; st < nst; st++) {
          size_t lo, hi;
          sm_decomp_stage(c->a0, c->a1, st, nst, &lo, &hi);
          for (size_t a = lo; a < hi; a++)
            for (size_t xx = 0; xx < pxn; xx++)
              for (size_t yy = 0; yy < pyn; yy++) {
                size_t i = pa0 + a, j = px0 + xx, k = py0 + yy;
                if (c->kind == SM_SLICE_DIAG && !(i < j && j < k))
                  continue;
                if (c->kind == SM_SLICE_FACE && !(j < k))
                  continue;
                ck_assert(i != j && i != k && j != k);
                size_t t[3] = {i, j, k}, u;
                if (t[0] > t[1]) {
                  u = t[0];
                  t[0] = t[1];
                  t[1] = u;
                }
                if (t[1] > t[2]) {
                  u = t[1];
                  t[1] = t[2];
                  t[2] = u;
                }
                if (t[0] > t[1]) {
                  u = t[0];
                  t[0] = t[1];
                  t[1] = u;
                }
                seen[(t[0] * nv + t[1]) * nv + t[2]]++;
              }
        }
      }
      free(s);
      sump += planes;
      if (planes > maxp)
        maxp = planes;
    }
  for (size_t i = 0; i < nv; i++)
    for (size_t j = i + 1; j < nv; j++)
      for (size_t k = j + 1; k < nv; k++)
        ck_assert_msg(seen[(i * nv + j) * nv + k] == 1,
                      "npv=%d npr=%d phases=%d: triple (%zu,%zu,%zu) computed %d times",
                      d->npv, d->npr, d->num_phase, i, j, k, seen[(i * nv + j) * nv + k]);
  free(seen);
  *balance = sump > 0 ? maxp / (sump / (d->npv * d->npr)) : 1.0;
}

START_TEST(every_triple_once)
{
  for (int npv = 1; npv <= 8; npv++)
    for (int npr = 1; npr <= 4; npr++)
      for (int nst = 1; nst <= 4; nst++)
        for (int ph = 1; ph <= 3; ph++) {
          sm_decomp_t d = {.nv = (size_t)(6 * npv + 1),
                           .nf = 4,
                           .npv = npv,
                           .npf = 1,
                           .npr = npr,
                           .block_size = 4,
                           .num_phase = ph};
          double bal;
          check_cover3(&d, nst, &bal);
          /* the papers' bound: efficiency >= npv^2 / ((npv+1)(npv+2)) */
          double bound = (double)(npv + 1) * (npv + 2) / ((double)npv * npv);
          ck_assert_msg(bal <= bound + 1e-12,
                        "npv=%d npr=%d: max/mean planes %.4f > %.4f", npv, npr, bal,
                        bound);
        }
  /* the figure for npv = 4, npr = 3 on a realistic size */
  sm_decomp_t d = {.nv = 4 * 600,
                   .nf = 4,
                   .npv = 4,
                   .npf = 1,
                   .npr = 3,
                   .block_size = 64,
                   .num_phase = 1};
  double maxp = 0, sum = 0;
  for (int I = 0; I < 4; I++)
    for (int pr = 0; pr < 3; pr++) {
      size_t n;
      sm_err_t err;
      sm_slice3_t *s = sm_decomp_slices3(&d, I, pr, &n, &err);
      double planes = 0;
      for (size_t x = 0; x < n; x++)
        planes += (double)(s[x].a1 - s[x].a0);
      free(s);
      sum += planes;
      maxp = planes > maxp ? planes : maxp;
    }
  printf("3-way load balance npv=4 npr=3: max/mean planes per rank = %.4f (bound %.4f)\n",
         maxp / (sum / 12), 30.0 / 16);
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
  tcase_add_test(tc, every_triple_once);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(decomp_suite)
