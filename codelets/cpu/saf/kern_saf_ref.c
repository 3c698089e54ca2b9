/* kern_saf_ref.c: the reference SAF kernel: the N-step iterative update
 * (realSFS's algorithm), one individual at a time, in natural-log space. */
#include <math.h>
#include <string.h>

#include "kern_saf_ws.h"
#include "sm_saf_step.h"

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
    double lp[3];
    ndata += sm_saf_gl_logs(gl + 3 * (size_t)i, lp);
    const int n = 2 * (i + 1);
    double vmax = -INFINITY;
    for (int j = 0; j <= n; j++) {
      v[j] = sm_saf_bin(u, lp, n, j);
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
