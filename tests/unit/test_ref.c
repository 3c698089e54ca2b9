/* test_ref.c: the reference implementation against values computed by
 * hand from the definitions (SPEC 1) and against the closed forms of the
 * analytic problems, 2-way and 3-way, every metric. */
#include <math.h>

#include "sm_formulas.h"
#include "sm_ref.h"
#include "sm_test.h"

static sm_sink_t run_ref(const sm_vectors_t *v, int way, int sparse)
{
  sm_sink_t s = {.way = way,
                 .metric = v->metric,
                 .sparse = sparse,
                 .ccc_mult = SM_CCC_MULT_DEFAULT,
                 .ccc_param = SM_CCC_PARAM_DEFAULT,
                 .threshold = -1};
  sm_ref_opts_t o = {.way = way,
                     .sparse = sparse,
                     .ccc_mult = SM_CCC_MULT_DEFAULT,
                     .ccc_param = SM_CCC_PARAM_DEFAULT};
  ck_assert_int_eq(sm_ref_run(v, &o, &s), SM_OK);
  return s;
}

static void czek_set(sm_vectors_t *v, size_t nv, size_t nf, const double *x)
{
  ck_assert_int_eq(sm_vectors_alloc(v, SM_METRIC_CZEK, 8, nv, nf), SM_OK);
  for (size_t i = 0; i < nv; i++)
    for (size_t q = 0; q < nf; q++)
      ((double *)sm_vectors_row(v, i))[q] = x[i * nf + q];
}

START_TEST(czek_by_hand)
{
  const double x[] = {1, 2, 3, 3, 2, 1, 0, 0, 0, 2, 2, 2};
  sm_vectors_t v;
  czek_set(&v, 3, 3, x);
  sm_sink_t s = run_ref(&v, 2, 0);
  ck_assert_uint_eq(s.capture_n, 3);
  ck_assert(s.capture[0].idx[0] == 0 && s.capture[0].idx[1] == 1);
  ck_assert(fabs(s.capture[0].value - 2.0 * 4 / 12) < 1e-15);        /* mins 1,2,1 */
  ck_assert(s.capture[1].value == 0.0 && s.capture[2].value == 0.0); /* zero vector */
  sm_sink_capture_free(&s);
  sm_vectors_free(&v);
  /* 3-way on v0, v1, v3 = (2,2,2): n2 = 4, 5, 5; n3 = 1+2+1 = 4; sums 6 each */
  const double y[] = {1, 2, 3, 3, 2, 1, 2, 2, 2};
  czek_set(&v, 3, 3, y);
  s = run_ref(&v, 3, 0);
  ck_assert_uint_eq(s.capture_n, 1);
  ck_assert(fabs(s.capture[0].value - 1.5 * (4 + 5 + 5 - 4) / 18.0) < 1e-15);
  sm_sink_capture_free(&s);
  sm_vectors_free(&v);
}
END_TEST

START_TEST(ccc_by_hand)
{
  /* a = 0,1,2 copies and missing; b = 2,2,1,1 copies */
  sm_vectors_t v;
  ck_assert_int_eq(sm_vectors_alloc(&v, SM_METRIC_CCC, 8, 2, 4), SM_OK);
  unsigned a[4] = {SM_GT_0, SM_GT_1, SM_GT_2, SM_GT_MISSING},
           b[4] = {SM_GT_2, SM_GT_2, SM_GT_1, SM_GT_1};
  for (int q = 0; q < 4; q++) {
    sm_gt_set(sm_vectors_row(&v, 0), q, a[q]);
    sm_gt_set(sm_vectors_row(&v, 1), q, b[q]);
  }
  const double g = 2.0 / 3, m = 4.5;
  /* dense: r_a = 0,1,2,1 (missing counts as 1), r_b = 2,2,1,1
   * t11 = 0+2+2+1 = 5, t10 = sum r_a (2-r_b) = 0+0+2+1 = 3,
   * t01 = sum (2-r_a) r_b = 4+2+0+1 = 7, t00 = 2*0+1*0+0*1+1*1 = 1 (sum 16)
   * f_a(1) = 4/8, f_b(1) = 6/8 */
  sm_sink_t s = run_ref(&v, 2, 0);
  ck_assert_uint_eq(s.capture_n, 4);
  double fa[2] = {0.5, 0.5}, fb[2] = {0.25, 0.75}, t[4] = {1, 7, 3, 5};
  for (int e = 0; e < 4; e++) {
    double x = fa[e >> 1], y = fb[e & 1];
    double lo = x < y ? x : y, hi = x < y ? y : x;
    double want = m * (t[e] / 16) * (1 - g * lo) * (1 - g * hi);
    ck_assert_msg(fabs(s.capture[e].value - want) < 1e-15, "entry %d: %.17g vs %.17g", e,
                  s.capture[e].value, want);
  }
  sm_sink_capture_free(&s);
  /* sparse: field 4 dropped for the pair; a: c = 3, s1 = 3; b: c = 4, s1 = 6
   * t11 = 4, t10 = 0+0+2 = 2, t01 = 4+2+0 = 6, t00 = 0 (sum 12) */
  s = run_ref(&v, 2, 1);
  double fs_a[2] = {0.5, 0.5}, fs_b[2] = {2.0 / 8, 6.0 / 8}, ts[4] = {0, 6, 2, 4};
  for (int e = 0; e < 4; e++) {
    double x = fs_a[e >> 1], y = fs_b[e & 1];
    double lo = x < y ? x : y, hi = x < y ? y : x;
    double want = m * (ts[e] / 12) * (1 - g * lo) * (1 - g * hi);
    ck_assert_msg(fabs(s.capture[e].value - want) < 1e-15,
                  "sparse entry %d: %.17g vs %.17g", e, s.capture[e].value, want);
  }
  sm_sink_capture_free(&s);
  sm_vectors_free(&v);
}
END_TEST

/* the reference agrees with the analytic closed forms */
static void analytic(sm_metric_t metric, int way, double miss, int sparse)
{
  sm_synth_t syn = {.kind = SM_SYNTH_ANALYTIC,
                    .metric = metric,
                    .nv = way == 2 ? 31 : 17,
                    .nf = 77,
                    .seed = 11,
                    .missing_rate = miss};
  sm_vectors_t v;
  ck_assert_int_eq(sm_synth_make(&syn, 8, 0, 0, 0, 0, &v), SM_OK);
  sm_sink_t s = {.way = way,
                 .metric = metric,
                 .sparse = sparse,
                 .ccc_mult = SM_CCC_MULT_DEFAULT,
                 .ccc_param = SM_CCC_PARAM_DEFAULT,
                 .threshold = -1,
                 .analytic = &syn};
  sm_ref_opts_t o = {.way = way,
                     .sparse = sparse,
                     .ccc_mult = SM_CCC_MULT_DEFAULT,
                     .ccc_param = SM_CCC_PARAM_DEFAULT};
  ck_assert_int_eq(sm_ref_run(&v, &o, &s), SM_OK);
  double n = (double)syn.nv;
  double nres = way == 2 ? n * (n - 1) / 2 : n * (n - 1) * (n - 2) / 6;
  ck_assert_uint_eq(s.nchecked,
                    (uint64_t)nres * (metric == SM_METRIC_CCC ? (way == 2 ? 4 : 8) : 1));
  ck_assert_uint_eq(s.nbad, 0);
  sm_sink_capture_free(&s);
  sm_vectors_free(&v);
}

START_TEST(analytic_all)
{
  for (int way = 2; way <= 3; way++) {
    analytic(SM_METRIC_CZEK, way, 0, 0);
    analytic(SM_METRIC_CCC, way, 0, 0);
    analytic(SM_METRIC_CCC, way, 0.2, 1);
    analytic(SM_METRIC_CCC, way, 0.2, 0);
  }
}
END_TEST

static Suite *ref_suite(void)
{
  Suite *s = suite_create("ref");
  TCase *tc = tcase_create("ref");
  tcase_add_test(tc, czek_by_hand);
  tcase_add_test(tc, ccc_by_hand);
  tcase_add_test(tc, analytic_all);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(ref_suite)
