/* kern_finalize2.c: metric values of a 2-way block from its numerators and
 * vector sums, thresholding and the checksum (kern_finalize_impl.h), and
 * the field-axis reductions. */
#include "kern_finalize_impl.h"
#include "sm_formulas.h"
#include "sm_kern.h"

/* One value of pair (i, j) of the block, entry e, with the pair's
 * checksum key (of the indices as written). */
static inline void put(const sm_fin2_args_t *a, sm_recbuf_t *out, const uint32_t idx[3],
                       uint64_t key, uint32_t e, double v)
{
  if (a->swap) /* entry (a, b) of pair (i, j) is entry (b, a) of (j, i) */
    e = ((e & 1u) << 1) | (e >> 1);
  sm_fin_put(out,
             a->emit && (a->keep_all || sm_threshold_keep(a->threshold, a->thr_f32, v)),
             idx, key, e, v);
}

uint64_t sm_kern_finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j, sm_recbuf_t *out)
{
  sm_fin_begin(out);
  for (uint32_t i = 0; i < a->m; i++) {
    for (uint32_t j = a->diag ? i + 1 : 0; j < a->n; j++) {
      const uint32_t gi = a->i0 + i, gj = a->j0 + j;
      const uint32_t idx[3] = {a->swap ? gj : gi, a->swap ? gi : gj, 0};
      const uint64_t key = sm_cksum_key(idx, 2);
      if (a->metric == 0) {
        double n2, si, sj;
        if (a->single) {
          n2 = ((const float *)num)[i * ldnum + j];
          si = ((const float *)sums_i)[i];
          sj = ((const float *)sums_j)[j];
        } else {
          n2 = ((const double *)num)[i * ldnum + j];
          si = ((const double *)sums_i)[i];
          sj = ((const double *)sums_j)[j];
        }
        put(a, out, idx, key, 0, sm_f_czek2(n2, si, sj));
      } else {
        const uint32_t *mom =
            (const uint32_t *)num + (i * ldnum + j) * SM_CCC2_NMOM(a->sparse);
        const uint32_t *si = (const uint32_t *)sums_i + 2 * i;
        const uint32_t *sj = (const uint32_t *)sums_j + 2 * j;
        uint64_t t[4];
        if (a->sparse)
          sm_ccc2_tally(mom[0], mom[1], mom[2], mom[3], t);
        else
          sm_ccc2_tally(mom[0], si[0], sj[0], a->nf, t);
        double v[4];
        sm_ccc2_values(t, si[0], sj[0], si[1], sj[1], a->nf, !a->sparse, a->ccc_mult,
                       a->ccc_param, v);
        for (uint32_t e = 0; e < 4; e++)
          put(a, out, idx, key, e, v[e]);
      }
    }
  }
  return out->count;
}

void sm_kern_add_f64(size_t n, const double *a, double *y)
{
  for (size_t x = 0; x < n; x++)
    y[x] += a[x];
}

void sm_kern_add_f32(size_t n, const float *a, float *y)
{
  for (size_t x = 0; x < n; x++)
    y[x] += a[x];
}

void sm_kern_add_u32(size_t n, const uint32_t *a, uint32_t *y)
{
  for (size_t x = 0; x < n; x++)
    y[x] += a[x];
}
