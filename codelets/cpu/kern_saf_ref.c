/* kern_saf_ref.c: the reference SAF kernel: the N-step iterative update
 * (realSFS's algorithm), one individual at a time, in natural-log space. */
#include <math.h>
#include <string.h>

#include "kern_saf_ws.h"

/* ln(w0 e^t0 + w1 e^t1 + w2 e^t2), terms at -inf allowed (addProtect). */
static inline double lse3(double t0, double w0, double t1, double w1, double t2,
                          double w2)
{
  double M = t0 > t1 ? t0 : t1;
  M = M > t2 ? M : t2;
  if (M == -INFINITY)
    return -INFINITY;
  return M + log(w0 * exp(t0 - M) + w1 * exp(t1 - M) + w2 * exp(t2 - M));
}

/* The row holds ln L(j) = ln( [x^j] prod_{i' <= i} (...) / C(2i, j) ), the
 * likelihood of the first i individuals given j derived copies among their
 * 2i chromosomes, shifted so its maximum is 0. Adding individual i + 1 with
 * g copies picks g of the 2 new chromosomes: the hypergeometric weights
 * C(2, g) C(2i, j - g) / C(2i + 2, j). */
static void ref_site(sm_saf_ws_t *ws, const double *gl, double *out, sm_saf_site_t *info)
{
  const int N = (int)ws->nind, nbins = 2 * N + 1;
  double *u = ws->u[0], *v = ws->u[1];
  int ndata = 0;
  u[0] = 0.0;
  for (int i = 0; i < N; i++) {
    const double *p = gl + 3 * (size_t)i;
    double lp[3] = {0.0, 0.0, 0.0}; /* no data: every genotype equally likely */
    if (!(p[0] == p[1] && p[1] == p[2])) {
      double mx = p[0] > p[1] ? p[0] : p[1];
      mx = mx > p[2] ? mx : p[2];
      for (int g = 0; g < 3; g++)
        lp[g] = log(p[g] / mx);
      ndata++;
    }
    const int n = 2 * (i + 1);
    const double dn = (double)n * (double)(n - 1);
    double vmax = -INFINITY;
    for (int j = 0; j <= n; j++) {
      double t0 = -INFINITY, t1 = -INFINITY, t2 = -INFINITY;
      double w0 = 0, w1 = 0, w2 = 0;
      if (j <= n - 2) {
        t0 = u[j] + lp[0];
        w0 = (double)(n - j) * (double)(n - j - 1) / dn;
      }
      if (j >= 1 && j <= n - 1) {
        t1 = u[j - 1] + lp[1];
        w1 = 2.0 * (double)j * (double)(n - j) / dn;
      }
      if (j >= 2) {
        t2 = u[j - 2] + lp[2];
        w2 = (double)j * (double)(j - 1) / dn;
      }
      v[j] = lse3(t0, w0, t1, w1, t2, w2);
      if (v[j] > vmax)
        vmax = v[j];
    }
    for (int j = 0; j <= n; j++)
      v[j] -= vmax;
    double *w = u;
    u = v;
    v = w;
  }
  memset(info, 0, sizeof *info);
  if (ndata == 0) {
    for (int j = 0; j < nbins; j++)
      out[j] = -INFINITY;
    return;
  }
  int lo = nbins, hi = -1;
  for (int j = 0; j < nbins; j++) {
    out[j] = u[j];
    if (u[j] != -INFINITY) {
      lo = j < lo ? j : lo;
      hi = j;
    }
  }
  info->lo = (uint32_t)lo;
  info->hi = (uint32_t)hi;
  info->ndata = (uint32_t)ndata;
}

void sm_kern_saf_ref(const sm_saf_tab_t *tab, sm_saf_ws_t *ws, size_t nsites,
                     const double *gl, size_t ldgl, double *out, size_t ldout,
                     sm_saf_site_t *info)
{
  (void)tab;
  for (size_t s = 0; s < nsites; s++)
    ref_site(ws, gl + s * ldgl, out + s * ldout, info + s);
}
