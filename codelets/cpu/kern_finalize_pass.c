/* kern_finalize_pass.c: what the 2-way and 3-way finalize do with a chunk's
 * values besides their checksum: which are kept (thresholds), their
 * histogram counts, which may be top-k neighbours. The portable loops here,
 * the instruction-set ones in kern_finalize_simd_impl.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern_finalize_simd.h"

uint32_t sm_fin_keep_port(const sm_fin_thr_t *t, const double *const *ve, uint32_t n,
                          int ne, int way, uint8_t *mk, uint8_t *gl)
{
  const uint32_t all = way == 2 ? 3u : 7u;
  uint32_t ng = 0;
  for (uint32_t c = 0; c < n; c++) {
    uint8_t *g = mk + c / 8 * 8;
    if (c % 8 == 0)
      memset(g, 0, 8);
    for (uint32_t e = 0; e < (uint32_t)ne; e++) {
      const double x = ve[e][c], y = t->f32 ? (double)(float)x : x;
      int keep = t->le ? y <= t->thr : y > t->thr;
      if (t->lst) {
        const int w = (int)(e & 1u) + (int)((e >> 1) & 1u) + (int)((e >> 2) & 1u);
        keep = y > t->lst[w];
        if (!keep && (e == 0 || e == all)) {
          const double lo = t->f32 ? (double)(float)ve[0][c] : ve[0][c];
          const double hi = t->f32 ? (double)(float)ve[all][c] : ve[all][c];
          keep = lo > 0 && hi > 0 && lo + hi > t->lst[way + 1];
        }
      }
      g[e] |= (uint8_t)(keep << (c % 8));
    }
    if (c % 8 == 7 || c + 1 == n) { /* the group's end */
      unsigned any = 0;
      for (int e = 0; e < 8; e++)
        any |= g[e];
      if (any)
        gl[ng++] = (uint8_t)(c / 8);
    }
  }
  return ng;
}

/* ---- histogram slots (sm_hist_slot) by a multiplication with 1 / (hi - lo)
 * in place of the division: x' = ((v - lo) rw) bins is within 2^-50 x' of
 * sm_hist_slot's x = ((v - lo) / (hi - lo)) bins (three roundings against
 * two, relative errors of 2^-53 each), so both have the same integer part
 * unless x' is within 2^-48 x' of an integer (not 0: x' = 0 only when
 * v = lo, and then x = 0). Such values get slot -1: the caller calls
 * sm_hist_slot. */
int sm_fin_hist_init(sm_fin_hist_t *f, const sm_hist_spec_t *h)
{
  const double w = h->hi - h->lo;
  *f = (sm_fin_hist_t){h->lo, h->hi, 1.0 / w, (double)h->bins, (int32_t)h->bins};
  return h->bins && h->bins < 1u << 30 && isfinite(h->lo) && isfinite(h->hi) &&
         w >= 0x1p-1000 && isfinite(f->rw);
}

int sm_fin_slots_port(const sm_fin_hist_t *h, const double *v, uint32_t n, int32_t *slot)
{
  int near = 0;
  for (uint32_t c = 0; c < n; c++) {
    const double x = v[c];
    if (x != x)
      slot[c] = h->nbins + 2;
    else if (x < h->lo)
      slot[c] = 0;
    else if (x > h->hi)
      slot[c] = h->nbins + 1;
    else {
      const double y = (x - h->lo) * h->rw * h->bins;
      const double f = floor(y), d = y - f, tol = y * 0x1p-48;
      slot[c] = d < tol || 1.0 - d < tol ? -1
                : f < h->nbins - 1       ? 1 + (int32_t)f
                                         : h->nbins;
      near |= slot[c] < 0;
    }
  }
  return near;
}

/* ---- counting: four copies of the counts (value c into copy c % 4), so
 * that runs of values in one bin do not wait on each other's increments;
 * 32-bit, added to the block's counts when one may reach 2^31 and at the
 * end. With at most 32 slots a row, the slots (s, t) of entries 2 k and
 * 2 k + 1 of a result are one count of a joint table (four copies): half
 * the increments, the rows being its sums when flushed. */
enum { HC_COPIES = 4, HC_JCOPIES = 4 };

int sm_fin_hc_init(sm_fin_hc_t *hc, const sm_hist_spec_t *h, const sm_fin_isa_t *isa)
{
  *hc = (sm_fin_hc_t){.spec = h, .row = sm_hist_row(h)};
  if (!h->bins)
    return 0;
  /* the portable loops: sm_hist_slot itself (no faster without vectors) */
  hc->vec = isa && sm_fin_hist_init(&hc->f, h);
  hc->slots = isa ? isa->slots : sm_fin_slots_port;
  hc->words = sm_hist_words(h);
  hc->cnt = calloc(HC_COPIES * hc->words, sizeof(uint32_t));
  if (h->nent % 2 == 0 && hc->row <= 32) {
    while ((1u << hc->shift) < hc->row)
      hc->shift++;
    hc->jwords = (uint64_t)h->nent / 2 << 2 * hc->shift;
    hc->jc = calloc(HC_JCOPIES * hc->jwords, sizeof(uint32_t));
  }
  return 1;
}

void sm_fin_hc_flush(sm_fin_hc_t *hc, uint64_t *out)
{
  const uint64_t side = (uint64_t)1 << hc->shift;
  for (uint64_t k = 0; hc->jc && k < hc->jwords / (side * side); k++)
    for (uint64_t s = 0; s < hc->row; s++)
      for (uint64_t t = 0; t < hc->row; t++) {
        uint64_t sum = 0;
        for (int c = 0; c < HC_JCOPIES; c++) {
          uint32_t *j = hc->jc + c * hc->jwords + (k * side + s) * side + t;
          sum += *j;
          *j = 0;
        }
        out[2 * k * hc->row + s] += sum;
        out[(2 * k + 1) * hc->row + t] += sum;
      }
  if (!hc->cnt)
    return;
  for (uint64_t w = 0; w < hc->words; w++) {
    uint64_t sum = 0;
    for (int k = 0; k < HC_COPIES; k++) {
      sum += hc->cnt[k * hc->words + w];
      hc->cnt[k * hc->words + w] = 0;
    }
    out[w] += sum;
  }
  hc->since = 0;
}

/* The slots of n values (sm_hist_slot where the multiplication is not
 * sure). */
static void hc_slots(sm_fin_hc_t *hc, const double *x, uint32_t n, int32_t *slot)
{
  const int near = hc->vec ? hc->slots(&hc->f, x, n, slot) : 1;
  if (near)
    for (uint32_t c = 0; c < n; c++)
      if (!hc->vec || slot[c] < 0)
        slot[c] = (int32_t)sm_hist_slot(hc->spec, x[c]);
}

void sm_fin_hc_add(sm_fin_hc_t *hc, const double *v, uint32_t n, uint32_t ent,
                   uint64_t *out)
{
  const sm_hist_spec_t *h = hc->spec;
  if (!hc->cnt) { /* no memory for the copies */
    for (uint32_t c = 0; c < n; c++)
      out[ent * hc->row + sm_hist_slot(h, v[c])]++;
    return;
  }
  if (hc->since + n >= (uint64_t)1 << 31)
    sm_fin_hc_flush(hc, out);
  hc->since += n;
  uint32_t *cnt[HC_COPIES];
  for (int k = 0; k < HC_COPIES; k++)
    cnt[k] = hc->cnt + k * hc->words + ent * hc->row;
  int32_t slot[SM_FIN_CHUNK];
  for (uint32_t c0 = 0; c0 < n; c0 += SM_FIN_CHUNK) {
    const uint32_t nn = n - c0 < SM_FIN_CHUNK ? n - c0 : SM_FIN_CHUNK;
    const double *x = v + c0;
    hc_slots(hc, x, nn, slot);
    uint32_t c = 0;
    for (; c + HC_COPIES <= nn; c += HC_COPIES) {
      cnt[0][slot[c]]++;
      cnt[1][slot[c + 1]]++;
      cnt[2][slot[c + 2]]++;
      cnt[3][slot[c + 3]]++;
    }
    for (; c < nn; c++)
      cnt[c % HC_COPIES][slot[c]]++;
  }
}

void sm_fin_hc_add_all(sm_fin_hc_t *hc, const double *const *ve, uint32_t n,
                       uint64_t *out)
{
  const uint32_t nent = hc->spec->nent;
  if (!hc->jc) {
    for (uint32_t e = 0; e < nent; e++)
      sm_fin_hc_add(hc, ve[e], n, e, out);
    return;
  }
  if (hc->since + n >= (uint64_t)1 << 31)
    sm_fin_hc_flush(hc, out);
  hc->since += n;
  int32_t sa[SM_FIN_CHUNK], sb[SM_FIN_CHUNK];
  for (uint32_t k = 0; k < nent / 2; k++) {
    uint32_t *j0 = hc->jc + (k << 2 * hc->shift), *j1 = j0 + hc->jwords,
             *j2 = j1 + hc->jwords, *j3 = j2 + hc->jwords;
    const unsigned sh = hc->shift;
    for (uint32_t c0 = 0; c0 < n; c0 += SM_FIN_CHUNK) {
      const uint32_t nn = n - c0 < SM_FIN_CHUNK ? n - c0 : SM_FIN_CHUNK;
      hc_slots(hc, ve[2 * k] + c0, nn, sa);
      hc_slots(hc, ve[2 * k + 1] + c0, nn, sb);
      uint32_t c = 0;
      for (; c + HC_JCOPIES <= nn; c += HC_JCOPIES) {
        j0[(uint32_t)sa[c] << sh | (uint32_t)sb[c]]++;
        j1[(uint32_t)sa[c + 1] << sh | (uint32_t)sb[c + 1]]++;
        j2[(uint32_t)sa[c + 2] << sh | (uint32_t)sb[c + 2]]++;
        j3[(uint32_t)sa[c + 3] << sh | (uint32_t)sb[c + 3]]++;
      }
      for (; c < nn; c++)
        j0[(uint32_t)sa[c] << sh | (uint32_t)sb[c]]++;
    }
  }
}

void sm_fin_hc_free(sm_fin_hc_t *hc)
{
  free(hc->cnt);
  free(hc->jc);
  hc->cnt = hc->jc = NULL;
}

/* ---- top-k */
void sm_fin_topk_port(const double *v, size_t ld, uint32_t n, int ne, const int *lr,
                      const int *lc, int nl, const double *rthr,
                      const double *const *cthr, uint8_t *rm, uint8_t *cm, double *rv)
{
  (void)nl;
  for (uint32_t c = 0; c < n; c++) {
    if (c % 8 == 0) {
      rm[c / 8] = cm[c / 8] = 0;
      for (int l = 0; l < 4; l++)
        rv[c / 2 + l] = -INFINITY;
    }
    for (int e = 0; e < ne; e++) {
      const double x = v[e * ld + c];
      double *r = &rv[c / 8 * 4 + (uint32_t)lr[e]];
      rm[c / 8] |= (uint8_t)((x >= rthr[lr[e]]) << (c % 8));
      cm[c / 8] |= (uint8_t)((x >= cthr[lc[e]][c]) << (c % 8));
      *r = x > *r ? x : *r;
    }
  }
}
