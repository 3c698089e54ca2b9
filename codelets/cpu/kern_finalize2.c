/* kern_finalize2.c: metric values of a 2-way block from its numerators and
 * vector sums, thresholding and the checksum (kern_finalize_impl.h), and
 * the field-axis reductions. */
/* The whole file (the inline formulas too, so that they still inline) at
 * -O3, where GCC vectorizes loops; no-trapping-math lets it if-convert the
 * comparisons of the checksum's exact rounding (sm_cksum_q): no value
 * changes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif
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

/* ---- the block without top-k, a row's pairs at a time in chunks: the
 * values, then every value's checksum term in loops the compiler
 * vectorizes (the terms are integers: the order of the sums does not
 * matter), then, only when records or histogram counts are wanted, a
 * pass that keeps values in the same (row, column, entry) order as the
 * loop above. */
enum { CHUNK = 256 };

/* Clones for the widest ISA the CPU reports (vectorized conversions). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_FIN_CLONES                                                                    \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SM_FIN_CLONES
#endif

/* Checksum terms of the values v[e * CHUNK + c] (entries e < ne, columns c
 * < nc) with keys key[c], added to ck. */
SM_FIN_CLONES
static void cksum_chunk(sm_cksum_t *ck, const double *v, const uint64_t *key, uint32_t nc,
                        uint32_t ne, const uint32_t *ent)
{
  sm_fin_ck_t sum = {0, 0, 0, 0};
  for (uint32_t e = 0; e < ne; e++)
    sm_fin_ck_terms(&sum, v + (size_t)e * CHUNK, key, nc,
                    (uint64_t)ent[e] * SM_CKSUM_ENTRY_STEP);
  sm_fin_ck_flush(ck, &sum);
}

/* Keys of the pairs (row gi, columns gj0 + c), as written (swapped below
 * the diagonal). */
SM_FIN_CLONES
static void keys_chunk(uint64_t *key, uint32_t gi, uint32_t gj0, uint32_t nc, int swap)
{
  for (uint32_t c = 0; c < nc; c++) {
    const uint64_t a = swap ? gj0 + c : gi, b = swap ? gi : gj0 + c;
    key[c] = sm_cksum_key2(a, b);
  }
}

/* CCC values of row i, columns j0 .. j0 + nc - 1: v[e * CHUNK + c], the
 * four entries through four pointers (one array, but GCC vectorizes only
 * stores it knows apart). In doubles (sm_ccc2_values_d): 64-bit integer
 * conversions would keep the loop scalar on AVX2. */
SM_FIN_CLONES
static void ccc_chunk(const sm_fin2_args_t *a, const uint32_t *restrict mom,
                      const uint32_t *restrict si, const uint32_t *restrict sj,
                      uint32_t nc, double *restrict v0, double *restrict v1,
                      double *restrict v2, double *restrict v3)
{
  /* one loop per method: no branch inside, so that it vectorizes; the
   * arguments in locals (the outputs may not alias them) */
  const double mult = a->ccc_mult, param = a->ccc_param;
  const double nf = (double)a->nf, s1i = sm_u32d(si[0]), ci = sm_u32d(si[1]);
  if (a->sparse)
    for (uint32_t c = 0; c < nc; c++) {
      const uint32_t *m = mom + (size_t)c * 4;
      double t[4], x[4];
      sm_ccc2_tally_d(sm_u32d(m[0]), sm_u32d(m[1]), sm_u32d(m[2]), sm_u32d(m[3]), t);
      sm_ccc2_values_d(t, s1i, sm_u32d(sj[2 * c]), ci, sm_u32d(sj[2 * c + 1]), nf, 0,
                       mult, param, x);
      v0[c] = x[0];
      v1[c] = x[1];
      v2[c] = x[2];
      v3[c] = x[3];
    }
  else
    for (uint32_t c = 0; c < nc; c++) {
      double t[4], x[4];
      const double s1j = sm_u32d(sj[2 * c]);
      sm_ccc2_tally_d(sm_u32d(mom[c]), s1i, s1j, nf, t);
      sm_ccc2_values_d(t, s1i, s1j, ci, sm_u32d(sj[2 * c + 1]), nf, 1, mult, param, x);
      v0[c] = x[0];
      v1[c] = x[1];
      v2[c] = x[2];
      v3[c] = x[3];
    }
}

/* Czekanowski values of row i, columns j0 .. j0 + nc - 1. */
SM_FIN_CLONES
static void czek_chunk(const sm_fin2_args_t *a, const void *num, const void *si,
                       const void *sj, uint32_t nc, double *v)
{
  if (a->single)
    for (uint32_t c = 0; c < nc; c++)
      v[c] =
          sm_f_czek2(((const float *)num)[c], *(const float *)si, ((const float *)sj)[c]);
  else
    for (uint32_t c = 0; c < nc; c++)
      v[c] = sm_f_czek2(((const double *)num)[c], *(const double *)si,
                        ((const double *)sj)[c]);
}

static void finalize2_rows(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j, sm_recbuf_t *out)
{
  const int ccc = a->metric == 1, ne = ccc ? 4 : 1;
  const size_t es = ccc ? 4 : a->single ? 4 : 8; /* numerator and sum elements */
  const size_t nm = ccc ? (size_t)SM_CCC2_NMOM(a->sparse) : 1, ns = ccc ? 2 : 1;
  uint32_t ent[4];
  for (uint32_t e = 0; e < 4; e++)
    ent[e] = a->swap ? swap_entry(e) : e; /* entries as written */
  const int emit = a->emit || a->hist.bins;
  double vals[4];                              /* one pair's values */
  const double *per_entry = ccc ? vals : NULL; /* for per-entry thresholds */
  double v[4 * CHUNK];
  uint64_t key[CHUNK];
  for (uint32_t i = 0; i < a->m; i++) {
    const uint32_t gi = a->i0 + i;
    for (uint32_t j0 = a->diag ? i + 1 : 0; j0 < a->n; j0 += CHUNK) {
      const uint32_t nc = a->n - j0 < CHUNK ? a->n - j0 : CHUNK, gj0 = a->j0 + j0;
      const char *nrow = (const char *)num + ((size_t)i * ldnum + j0) * nm * es;
      const char *si = (const char *)sums_i + (size_t)i * ns * es;
      const char *sj = (const char *)sums_j + (size_t)j0 * ns * es;
      if (ccc)
        ccc_chunk(a, (const uint32_t *)nrow, (const uint32_t *)si, (const uint32_t *)sj,
                  nc, v, v + CHUNK, v + 2 * CHUNK, v + 3 * CHUNK);
      else
        czek_chunk(a, nrow, si, sj, nc, v);
      keys_chunk(key, gi, gj0, nc, a->swap);
      cksum_chunk(&out->cksum, v, key, nc, (uint32_t)ne, ent);
      out->nvalues += (uint64_t)nc * ne;
      if (!emit)
        continue;
      for (uint32_t c = 0; c < nc; c++) {
        const uint32_t gj = gj0 + c;
        const uint32_t idx[3] = {a->swap ? gj : gi, a->swap ? gi : gj, 0};
        for (int e = 0; e < ne; e++)
          vals[e] = v[e * CHUNK + c];
        for (int e = 0; e < ne; e++)
          sm_fin_emit(out, &a->hist, SM_FIN_KEEP(a, 2, per_entry, (uint32_t)e, vals[e]),
                      idx, ent[e], vals[e]);
      }
    }
  }
}

void sm_kern_fin2_header(const sm_fin2_args_t *a, uint64_t count, const uint64_t sums[4],
                         sm_recbuf_t *h)
{
  uint64_t pairs = 0;
  for (uint32_t i = 0; i < a->m; i++) {
    const uint32_t j0 = a->diag ? i + 1 : 0;
    pairs += j0 < a->n ? a->n - j0 : 0;
  }
  sm_fin_header(h, count, pairs * (a->metric == 1 ? 4u : 1u), sums);
}

uint64_t sm_kern_finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j, sm_recbuf_t *out,
                           sm_topk_ent_t *cand)
{
  sm_fin_begin(out, &a->hist, a->emit ? sm_fin2_max_records(a) : 0);
  if (!cand) {
    finalize2_rows(a, num, ldnum, sums_i, sums_j, out);
    return out->count;
  }
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
