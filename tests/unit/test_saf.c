/* test_saf.c: the SAF kernels: GAMA's tree against the N-step iterative
 * reference (within 1e-12 on bins >= -50) for N = 1, 2, 3, 10, 100, 1000
 * and 4096 (no -inf or NaN there), both against the closed form on
 * hand-computed sites (N = 1, 2), individuals and sites without data, exact
 * zeros, extreme likelihoods, banding against the exact result, and the EM
 * E-step on a hand-computed block. */
#include <math.h>

#include "sm_kern_saf.h"
#include "sm_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double unif(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* Likelihoods as a read model makes them: frequency f, depth 0..5, error
 * 1%; a fraction `miss` of individuals without data (0.333 x 3). kind 1:
 * three independent uniform numbers instead; kind 2: the read model at a
 * mostly rare frequency (the product of two uniforms); kind 3: a rare
 * frequency (uniform cubed) at depth 0..20. */
static void make_site(int N, double *gl, int kind, double miss)
{
  const double u = unif();
  const double f = kind == 2 ? u * unif() : kind == 3 ? u * u * u : u;
  const int maxd = kind == 3 ? 21 : 6;
  for (int i = 0; i < N; i++) {
    double *p = gl + 3 * i;
    if (unif() < miss) {
      p[0] = p[1] = p[2] = 1.0 / 3.0;
      continue;
    }
    if (kind == 1) {
      p[0] = unif(), p[1] = unif(), p[2] = unif();
      continue;
    }
    int g = (unif() < f) + (unif() < f), d = (int)(unif() * maxd);
    p[0] = p[1] = p[2] = 1.0;
    for (int r = 0; r < d; r++) {
      int der = unif() < (g / 2.0) * 0.99 + (1 - g / 2.0) * 0.01;
      for (int h = 0; h < 3; h++) {
        double q = (h / 2.0) * 0.99 + (1 - h / 2.0) * 0.01;
        p[h] *= der ? q : 1 - q;
      }
    }
  }
}

typedef struct res {
  double *saf;
  sm_saf_site_t *info;
} res_t;

static res_t run(int N, size_t ns, const double *gl, int ref, double tol)
{
  const size_t nb = 2 * (size_t)N + 1;
  res_t r = {malloc(ns * nb * sizeof(double)), malloc(ns * sizeof(sm_saf_site_t))};
  sm_saf_tab_t *tab = sm_saf_tab_create((size_t)N);
  sm_saf_ws_t *ws = sm_saf_ws_create((size_t)N);
  ck_assert(r.saf && r.info && tab && ws);
  if (ref)
    sm_kern_saf_ref(tab, ws, ns, gl, 3 * (size_t)N, r.saf, nb, r.info);
  else
    sm_kern_saf_tree(tab, ws, tol, ns, gl, 3 * (size_t)N, r.saf, nb, r.info);
  sm_saf_ws_destroy(ws);
  sm_saf_tab_destroy(tab);
  return r;
}

static void res_free(res_t *r)
{
  free(r->saf);
  free(r->info);
}

static double max_diff = 0; /* largest tree-vs-reference difference seen */

/* tree == reference: same finite bins, max exactly 0, bins >= -50 within
 * 1e-12 (a relative 1e-12 on the likelihood). */
static void compare(int N, size_t ns, const res_t *t, const res_t *r)
{
  const size_t nb = 2 * (size_t)N + 1;
  for (size_t s = 0; s < ns; s++) {
    ck_assert_uint_eq(t->info[s].ndata, r->info[s].ndata);
    if (!r->info[s].ndata)
      continue;
    ck_assert_uint_eq(t->info[s].lo, r->info[s].lo);
    ck_assert_uint_eq(t->info[s].hi, r->info[s].hi);
    double tmax = -INFINITY;
    for (size_t j = 0; j < nb; j++) {
      double a = t->saf[s * nb + j], b = r->saf[s * nb + j];
      ck_assert_msg(!isnan(a), "N=%d site %zu bin %zu: NaN", N, s, j);
      ck_assert_msg(isinf(a) == isinf(b), "N=%d site %zu bin %zu: %g vs %g", N, s, j, a,
                    b);
      tmax = a > tmax ? a : tmax;
      if (b >= -50) {
        double d = fabs(a - b);
        max_diff = d > max_diff ? d : max_diff;
        ck_assert_msg(d <= 1e-12,
                      "N=%d site %zu bin %zu: tree %.17g ref %.17g (diff %.3g)", N, s, j,
                      a, b, d);
      }
    }
    ck_assert(tmax == 0.0);
  }
}

static void tree_vs_ref(int N, size_t ns, int kind, double miss)
{
  double *gl = malloc(ns * 3 * (size_t)N * sizeof *gl);
  for (size_t s = 0; s < ns; s++)
    make_site(N, gl + s * 3 * N, kind, miss);
  res_t t = run(N, ns, gl, 0, 0), r = run(N, ns, gl, 1, 0);
  compare(N, ns, &t, &r);
  res_free(&t);
  res_free(&r);
  free(gl);
}

START_TEST(tree_equals_reference)
{
  static const int Ns[] = {1, 2, 3, 10, 100, 1000};
  for (size_t k = 0; k < sizeof Ns / sizeof Ns[0]; k++) {
    const size_t ns = Ns[k] >= 1000 ? 2 : Ns[k] >= 100 ? 10 : 40;
    tree_vs_ref(Ns[k], ns, 0, 0.0);
    tree_vs_ref(Ns[k], ns, 1, 0.0);
    tree_vs_ref(Ns[k], ns, 0, 0.2); /* with individuals without data */
  }
  printf("largest tree-vs-reference difference (N <= 1000): %.3g\n", max_diff);
}
END_TEST

/* N = 4096: the raw coefficients span thousands of nats; every bin finite. */
START_TEST(large_n_finite)
{
  const int N = 4096;
  const size_t nb = 2 * N + 1;
  double *gl = malloc(2 * 3 * (size_t)N * sizeof *gl);
  make_site(N, gl, 0, 0.05);
  make_site(N, gl + 3 * N, 1, 0.0);
  res_t t = run(N, 2, gl, 0, 0);
  double lo = 0;
  for (size_t s = 0; s < 2; s++)
    for (size_t j = 0; j < nb; j++) {
      double v = t.saf[s * nb + j];
      ck_assert_msg(isfinite(v), "site %zu bin %zu: %g", s, j, v);
      lo = v < lo ? v : lo;
    }
  ck_assert(lo < -1000);                 /* the range really is beyond exp() */
  res_t r = run(N, 1, gl + 3 * N, 1, 0); /* the reference on the second site */
  res_t t2 = {t.saf + nb, t.info + 1};
  compare(N, 1, &t2, &r);
  printf("largest tree-vs-reference difference (with N = 4096): %.3g\n", max_diff);
  res_free(&r);
  res_free(&t);
  free(gl);
}
END_TEST

/* ln([x^j] prod (P0 + 2 P1 x + P2 x^2) / C(2N, j)) - max, for N <= 2. */
static void closed_form(int N, const double *p, double *out)
{
  double c[5] = {0};
  if (N == 1) {
    c[0] = p[0], c[1] = 2 * p[1], c[2] = p[2];
  } else {
    const double *a = p, *b = p + 3;
    c[0] = a[0] * b[0];
    c[1] = 2 * (a[0] * b[1] + a[1] * b[0]);
    c[2] = a[0] * b[2] + 4 * a[1] * b[1] + a[2] * b[0];
    c[3] = 2 * (a[1] * b[2] + a[2] * b[1]);
    c[4] = a[2] * b[2];
  }
  static const double binom[2][5] = {{1, 2, 1}, {1, 4, 6, 4, 1}};
  double mx = -INFINITY;
  for (int j = 0; j <= 2 * N; j++) {
    out[j] = log(c[j] / binom[N - 1][j]);
    mx = out[j] > mx ? out[j] : mx;
  }
  for (int j = 0; j <= 2 * N; j++)
    out[j] -= mx;
}

START_TEST(hand_computed)
{
  static const double sites[][6] = {
      {0.7, 0.2, 0.1, 0.05, 0.9, 0.3},
      {1.0, 1e-3, 1e-6, 1e-6, 1e-3, 1.0},
      {0.25, 0.5, 0.25, 0.9, 0.09, 0.01},
      {3.0, 3.0, 3.0, 0.1, 0.2, 0.7}, /* 1st: no data */
      {0.5, 0.0, 0.5, 0.2, 0.3, 0.4}, /* a zero likelihood */
  };
  for (size_t k = 0; k < sizeof sites / sizeof sites[0]; k++)
    for (int N = 1; N <= 2; N++) {
      const double *p = sites[k];
      if (N == 1 && p[0] == p[1] && p[1] == p[2])
        continue; /* a site without data: below */
      double want[5];
      closed_form(N, p, want);
      for (int ref = 0; ref < 2; ref++) {
        res_t r = run(N, 1, p, ref, 0);
        for (int j = 0; j <= 2 * N; j++)
          ck_assert_msg(r.saf[j] == want[j] || fabs(r.saf[j] - want[j]) <= 1e-13,
                        "site %zu N=%d %s bin %d: %.17g, closed form %.17g", k, N,
                        ref ? "ref" : "tree", j, r.saf[j], want[j]);
        ck_assert_uint_eq(r.info[0].ndata, N == 2 && k == 3 ? 1 : (unsigned)N);
        res_free(&r);
      }
    }
  /* N = 1, P = (0.7, 0.2, 0.1): SAF = ln(P_g / 0.7), the factor 2 cancels */
  const double p[3] = {0.7, 0.2, 0.1};
  res_t r = run(1, 1, p, 0, 0);
  ck_assert(r.saf[0] == 0.0);
  ck_assert(fabs(r.saf[1] - log(0.2 / 0.7)) < 1e-15);
  ck_assert(fabs(r.saf[2] - log(0.1 / 0.7)) < 1e-15);
  res_free(&r);
}
END_TEST

START_TEST(no_data)
{
  /* every individual without data: the site is skipped */
  double gl[3 * 5];
  for (int k = 0; k < 15; k++)
    gl[k] = k < 3 ? 0.0 : 0.25;
  for (int ref = 0; ref < 2; ref++) {
    res_t r = run(5, 1, gl, ref, 0);
    ck_assert_uint_eq(r.info[0].ndata, 0);
    res_free(&r);
  }
  /* one individual with data among 5: the others flatten nothing away,
   * tree and reference agree */
  gl[6] = 0.9, gl[7] = 0.05, gl[8] = 0.01;
  res_t t = run(5, 1, gl, 0, 0), r = run(5, 1, gl, 1, 0);
  ck_assert_uint_eq(t.info[0].ndata, 1);
  compare(5, 1, &t, &r);
  res_free(&t);
  res_free(&r);
}
END_TEST

/* Certain genotypes and exact zeros: impossible counts are -inf in both. */
START_TEST(zeros_and_extremes)
{
  const int N = 37;
  double *gl = malloc(4 * 3 * N * sizeof *gl);
  for (int i = 0; i < N; i++) {
    double *a = gl + 3 * i, *b = gl + 3 * (N + i), *c = gl + 3 * (2 * N + i),
           *d = gl + 3 * (3 * N + i);
    a[0] = 1, a[1] = 0, a[2] = 0; /* all homozygous ancestral */
    b[0] = i % 3 == 0, b[1] = i % 3 == 1, b[2] = i % 3 == 2; /* certain, mixed */
    c[0] = 1, c[1] = 1e-150, c[2] = 1e-300;                  /* huge ranges */
    d[0] = 1e-200 * (i + 1), d[1] = 1, d[2] = 1e-250;
  }
  res_t t = run(N, 4, gl, 0, 0), r = run(N, 4, gl, 1, 0);
  compare(N, 4, &t, &r);
  ck_assert_uint_eq(t.info[0].lo, 0);
  ck_assert_uint_eq(t.info[0].hi, 0);
  const size_t nb = 2 * N + 1;
  ck_assert(t.saf[1] == -INFINITY);
  /* second site: exactly one count is possible */
  int k1 = 0;
  for (int i = 0; i < N; i++)
    k1 += i % 3;
  ck_assert_uint_eq(t.info[1].lo, (unsigned)k1);
  ck_assert_uint_eq(t.info[1].hi, (unsigned)k1);
  ck_assert(t.saf[nb + k1] == 0.0);
  res_free(&t);
  res_free(&r);
  free(gl);
}
END_TEST

/* Banding: the bins kept match the exact result near the top (docs/maf.md's
 * bound: below 1e-6 on bins >= -10 at T = 30 for N up to 4096; measured
 * on these sites, the largest difference is printed), the maximum stays,
 * bins are dropped and counted; a huge tolerance is exact. Read-model
 * sites (mostly rare and common variants) and uniform noise, with and
 * without individuals lacking data. */
START_TEST(banded)
{
  static const int Ns[] = {100, 300, 1024, 4096};
  double worst = 0;
  for (size_t c = 0; c < sizeof Ns / sizeof Ns[0]; c++)
    for (int kind = 0; kind < 4; kind++) {
      const int N = Ns[c];
      const size_t ns = N >= 4096 ? 3 : N >= 1024 ? 4 : 16, nb = 2 * (size_t)N + 1;
      double *gl = malloc(ns * 3 * N * sizeof *gl);
      for (size_t s = 0; s < ns; s++)
        make_site(N, gl + s * 3 * N, kind, s % 2 ? 0.1 : 0.0);
      res_t e = run(N, ns, gl, 0, 0), b = run(N, ns, gl, 0, 30.0);
      res_t h = run(N, ns, gl, 0, 1e6);
      uint64_t dropped = 0;
      for (size_t s = 0; s < ns; s++) {
        ck_assert_uint_eq(e.info[s].dropped, 0);
        ck_assert_uint_eq(h.info[s].dropped, 0);
        ck_assert_uint_eq(b.info[s].dropped, nb - (b.info[s].hi - b.info[s].lo + 1));
        dropped += b.info[s].dropped;
        for (size_t j = 0; j < nb; j++) {
          double x = e.saf[s * nb + j], y = b.saf[s * nb + j];
          ck_assert(h.saf[s * nb + j] == x);
          if (x == 0.0)
            ck_assert(y == 0.0);
          if (x >= -10) {
            ck_assert_msg(fabs(x - y) < 1e-6,
                          "N %d kind %d site %zu bin %zu: exact %g banded %g", N, kind, s,
                          j, x, y);
            worst = fabs(x - y) > worst ? fabs(x - y) : worst;
          }
          if (j < b.info[s].lo || j > b.info[s].hi)
            ck_assert(y == -INFINITY);
        }
      }
      ck_assert(dropped > 0);
      res_free(&e);
      res_free(&b);
      res_free(&h);
      free(gl);
    }
  printf("test_saf: banded T = 30, N <= 4096: largest difference on bins >= -10: %.3g\n",
         worst);
}
END_TEST

/* The E-step on two sites of N = 1 with a given spectrum, by hand. */
START_TEST(em_step)
{
  const double lsaf[2][3] = {{0, log(0.5), log(0.25)}, {log(0.1), 0, -INFINITY}};
  double L[6];
  for (int k = 0; k < 6; k++)
    L[k] = lsaf[k / 3][k % 3];
  sm_saf_site_t info[3] = {{0, 2, 1, 0}, {0, 1, 1, 0}, {0, 0, 0, 0}};
  const double phi[3] = {0.5, 0.3, 0.2};
  double grad[3], st[2], maf[2];
  sm_kern_safem(2, 3, L, 3, info, 1, phi, grad, st, maf);
  const double z0 = 0.5 + 0.3 * 0.5 + 0.2 * 0.25, z1 = 0.5 * 0.1 + 0.3;
  /* the gradient sums; times phi_j, the posterior sums */
  ck_assert(fabs(grad[0] - (1.0 / z0 + 0.1 / z1)) < 1e-15);
  ck_assert(fabs(grad[1] - (0.5 / z0 + 1.0 / z1)) < 1e-15);
  ck_assert(fabs(grad[2] - 0.25 / z0) < 1e-15);
  ck_assert(fabs(phi[0] * grad[0] - (0.5 / z0 + 0.05 / z1)) < 1e-15);
  ck_assert(fabs(st[0] - (log(z0) + log(z1))) < 1e-15);
  ck_assert(st[1] == 2.0);
  ck_assert(fabs(maf[0] - (0.5 * 0.15 + 1.0 * 0.05) / z0) < 1e-15);
  ck_assert(fabs(maf[1] - 0.5 * 0.3 / z1) < 1e-15);
  ck_assert(fabs(L[1] - 0.5) < 1e-15); /* converted in place */
}
END_TEST

static Suite *saf_suite(void)
{
  Suite *s = suite_create("saf");
  TCase *tc = tcase_create("kernels");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, tree_equals_reference);
  tcase_add_test(tc, large_n_finite);
  tcase_add_test(tc, hand_computed);
  tcase_add_test(tc, no_data);
  tcase_add_test(tc, zeros_and_extremes);
  tcase_add_test(tc, banded);
  tcase_add_test(tc, em_step);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(saf_suite)
