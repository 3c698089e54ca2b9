/* kern_safem.c: one E-step of the site frequency spectrum EM (realSFS) over
 * a block of sites: the sums that give the EM update and its gradient, and
 * each site's posterior mean allele frequency. */
#include <math.h>

#include "sm_kern_saf.h"

void sm_kern_safem(size_t nsites, size_t nbins, double *L, size_t ld,
                   const sm_saf_site_t *info, int convert, const double *phi,
                   double *grad, double *stats, double *maf)
{
  const double scale = nbins > 1 ? 1.0 / (double)(nbins - 1) : 0.0;
  for (size_t j = 0; j < nbins; j++)
    grad[j] = 0.0;
  stats[0] = stats[1] = 0.0;
  for (size_t s = 0; s < nsites; s++) {
    const sm_saf_site_t *in = &info[s];
    double *l = L + s * ld;
    maf[s] = NAN;
    if (in->ndata == 0)
      continue;
    if (convert)
      for (size_t j = in->lo; j <= in->hi; j++)
        l[j] = exp(l[j]);
    double z = 0.0, zj = 0.0;
    for (size_t j = in->lo; j <= in->hi; j++) {
      const double w = phi[j] * l[j];
      z += w;
      zj += (double)j * w;
    }
    if (!(z > 0.0) || !isfinite(z)) /* the spectrum excludes every bin left */
      continue;
    const double iz = 1.0 / z;
    for (size_t j = in->lo; j <= in->hi; j++) /* the posterior is phi_j times this */
      grad[j] += l[j] * iz;
    stats[0] += log(z);
    stats[1] += 1.0;
    maf[s] = zj * iz * scale;
  }
}
