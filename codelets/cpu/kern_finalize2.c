/* kern_finalize2.c: metric values of a 2-way block from its numerators and
 * vector sums, thresholding and the checksum (kern_finalize_impl.h), and
 * the field-axis reductions. */
#include "kern_finalize_impl.h"
#include "sm_formulas.h"
#include "sm_kern.h"

/* The entry (a, b) seen from the other vector: (b, a). */
static inline uint32_t swap_entry(uint32_t e)
{
  return ((e & 1u) << 1) | (e >> 1);
}

/* One value of pair (i, j) of the block, entry e (as computed; all[] the
 * pair's values per entry, NULL for czekanowski), with the pair's
 * checksum key (of the indices as written). */
static inline void put(const sm_fin2_args_t *a, sm_recbuf_t *out, const uint32_t idx[3],
                       uint64_t key, uint32_t e, const double *all, double v)
{
  const int keep = SM_FIN_KEEP(a, 2, all, e, v);
  if (a->swap) /* entry (a, b) of pair (i, j) is entry (b, a) of (j, i) */
    e = swap_entry(e);
  sm_fin_put(out, &a->hist, keep, idx, key, e, v);
}

/* The pair (row i, column j)'s CCC values v[] (entry = row's bit, column's
 * bit) as candidates for both vectors' lists: every entry, or the largest
 * (the smallest entry, seen from that vector, among equal values). */
static void offer_ccc(const sm_topk_spec_t *t, sm_topk_ent_t *row, sm_topk_ent_t *col,
                      uint32_t gi, uint32_t gj, const double v[4])
{
  if (!t->by_max) {
    for (uint32_t e = 0; e < 4; e++) {
      sm_topk_offer(row + e * t->k, t->k, gj, e, v[e]);
      sm_topk_offer(col + swap_entry(e) * t->k, t->k, gi, swap_entry(e), v[e]);
    }
    return;
  }
  uint32_t er = 0, ec = 0; /* in the row's and in the column's view */
  for (uint32_t e = 1; e < 4; e++) {
    if (v[e] > v[er] || v[er] != v[er])
      er = e;
    if (v[swap_entry(e)] > v[swap_entry(ec)] || v[swap_entry(ec)] != v[swap_entry(ec)])
      ec = e;
  }
  sm_topk_offer(row, t->k, gj, er, v[er]);
  sm_topk_offer(col, t->k, gi, ec, v[swap_entry(ec)]);
}

uint64_t sm_kern_finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j, sm_recbuf_t *out,
                           sm_topk_ent_t *cand)
{
  sm_fin_begin(out, &a->hist, a->emit ? sm_fin2_max_records(a) : 0);
  const sm_topk_spec_t *tk = &a->topk;
  const uint64_t per = (uint64_t)tk->lists * tk->k; /* places per vector */
  if (cand)
    for (uint64_t p = 0; p < sm_fin2_topk_places(a); p++)
      cand[p] = (sm_topk_ent_t){0, SM_TOPK_EMPTY, 0};
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
        const double v = sm_f_czek2(n2, si, sj);
        put(a, out, idx, key, 0, NULL, v);
        if (cand) {
          sm_topk_offer(cand + i * per, tk->k, gj, 0, v);
          sm_topk_offer(cand + (a->m + j) * per, tk->k, gi, 0, v);
        }
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
          put(a, out, idx, key, e, v, v[e]);
        if (cand)
          offer_ccc(tk, cand + i * per, cand + (a->m + j) * per, gi, gj, v);
      }
    }
  }
  return out->count;
}

void sm_kern_topk_merge(sm_topk_ent_t *acc, const sm_topk_ent_t *cand, size_t n,
                        uint32_t k)
{
  sm_topk_ent_t merged[SM_TOPK_MAX];
  for (size_t l = 0; l < n; l++) {
    sm_topk_ent_t *x = acc + l * k;
    const sm_topk_ent_t *y = cand + l * k;
    uint32_t p = 0, q = 0;
    for (uint32_t o = 0; o < k; o++)
      merged[o] = q >= k || (p < k && !sm_topk_before(&y[q], &x[p])) ? x[p++] : y[q++];
    for (uint32_t o = 0; o < k; o++)
      x[o] = merged[o];
  }
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
