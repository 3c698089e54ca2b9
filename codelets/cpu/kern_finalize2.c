/* kern_finalize2.c: metric values of a 2-way block from its numerators and
 * vector sums, thresholding, histogram counts, neighbour candidates and
 * the checksum (kern_finalize_impl.h), and the field-axis reductions. */
/* The whole file (the inline formulas too, so that they still inline) at
 * -O3, where GCC vectorizes loops; no-trapping-math lets it if-convert the
 * comparisons of the checksum's exact rounding (sm_cksum_q): no value
 * changes; fp-contract=off whatever the build's flags: each operation
 * rounds as the formulas say. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math", "fp-contract=off")
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern_finalize_simd.h"
#include "sm_formulas.h"
#include "sm_kern.h"

/* The entry (a, b) seen from the other vector: (b, a). */
static inline uint32_t swap_entry(uint32_t e)
{
  return ((e & 1u) << 1) | (e >> 1);
}

/* Clones for the widest ISA the CPU reports (vectorized conversions). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_FIN_CLONES                                                                    \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SM_FIN_CLONES
#endif

/* ---- the portable value loops (no instruction-set loops on this CPU, or
 * a multiplier or parameter that is not finite): the values of a chunk,
 * then every value's checksum term in loops the compiler vectorizes. */

/* CCC values of row i, columns j0 .. j0 + nc - 1: v[e * SM_FIN_CHUNK + c],
 * the four entries through four pointers (one array, but GCC vectorizes
 * only stores it knows apart). */
SM_FIN_CLONES
static void ccc_chunk(const sm_fin2_args_t *a, const uint32_t *restrict mom,
                      const uint32_t *restrict si, const uint32_t *restrict sj,
                      uint32_t nc, double *restrict v0, double *restrict v1,
                      double *restrict v2, double *restrict v3)
{
  /* one loop per method: no branch inside, so that it vectorizes */
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

/* Czekanowski values of row i, columns j0 .. j0 + nc - 1 (the loop of
 * each form of its own, so that the first stays as it was). */
SM_FIN_CLONES
static void czek_chunk(const sm_fin2_args_t *a, const void *num, const void *si,
                       const void *sj, uint32_t nc, double *v)
{
  const int form = a->form, zn = a->zero_nan;
  if (form != SM_FORM_PS || zn) {
    if (a->single)
      for (uint32_t c = 0; c < nc; c++)
        v[c] = sm_f_minsum2(form, zn, ((const float *)num)[c], *(const float *)si,
                            ((const float *)sj)[c]);
    else
      for (uint32_t c = 0; c < nc; c++)
        v[c] = sm_f_minsum2(form, zn, ((const double *)num)[c], *(const double *)si,
                            ((const double *)sj)[c]);
    return;
  }
  if (a->single)
    for (uint32_t c = 0; c < nc; c++)
      v[c] =
          sm_f_czek2(((const float *)num)[c], *(const float *)si, ((const float *)sj)[c]);
  else
    for (uint32_t c = 0; c < nc; c++)
      v[c] = sm_f_czek2(((const double *)num)[c], *(const double *)si,
                        ((const double *)sj)[c]);
}

/* PLINK 1.9 counts each variant's major allele (it makes the minor one A1
 * unless --keep-allele-order: calc_marker_reverse_bin reverses a variant
 * whose A2 frequency, over the called samples, is below 0.5); starmet
 * counts allele 1, the file's A1: r changes sign once for each variant
 * whose A1 is its major allele (s1 > c, sums (s1, c) of sm_kern_sums_ccc). */
static double ld_sign(const sm_fin2_args_t *a, const uint32_t *s, uint32_t v)
{
  if (a->ld_a1) /* --keep-allele-order: A1's sign */
    return 1.0;
  return (a->ld_rev ? a->ld_rev[v] != 0 : s[0] > s[1]) ? -1.0 : 1.0;
}

/* PLINK's r or r^2 of row i, columns j0 .. j0 + nc - 1, from the sparse
 * moments, the homozygous-called tallies and (r) the vectors' sums (one
 * loop per form, no branch inside, so that it vectorizes). */
SM_FIN_CLONES
static void ld_chunk(const sm_fin2_args_t *a, const uint32_t *restrict mom,
                     const uint32_t *restrict hom, const uint32_t *si, const uint32_t *sj,
                     uint32_t gi, uint32_t gj0, uint32_t nc, double *restrict v)
{
  /* the row's vector first: swap only changes which index is written first */
  if (a->form == SM_FORM_R2) {
    for (uint32_t c = 0; c < nc; c++) {
      const uint32_t *m = mom + (size_t)c * 4, *h = hom + (size_t)c * 2;
      v[c] = sm_f_ld(sm_u32d(m[0]), sm_u32d(m[1]), sm_u32d(m[2]), sm_u32d(m[3]),
                     sm_u32d(h[0]), sm_u32d(h[1]), 1);
    }
    return;
  }
  const double sgi = ld_sign(a, si, gi);
  for (uint32_t c = 0; c < nc; c++) {
    const uint32_t *m = mom + (size_t)c * 4, *h = hom + (size_t)c * 2;
    const double x = sm_f_ld(sm_u32d(m[0]), sm_u32d(m[1]), sm_u32d(m[2]), sm_u32d(m[3]),
                             sm_u32d(h[0]), sm_u32d(h[1]), 0);
    v[c] = x * (sgi * ld_sign(a, sj + 2 * (size_t)c, gj0 + c)) + 0.0; /* no -0 */
  }
}

/* Checksum terms of v[e * SM_FIN_CHUNK + c] (entries e < ne labelled
 * ent[e], columns c < nc) with keys of the pairs (gi, gj0 + c) as written
 * (swapped below the diagonal). */
SM_FIN_CLONES
static void cksum_chunk(sm_fin_ck_t *sum, const double *v, uint32_t gi, uint32_t gj0,
                        uint32_t nc, int swap, uint32_t ne, const uint32_t *ent)
{
  uint64_t key[SM_FIN_CHUNK];
  for (uint32_t c = 0; c < nc; c++) {
    const uint64_t a = swap ? gj0 + c : gi, b = swap ? gi : gj0 + c;
    key[c] = sm_cksum_key2(a, b);
  }
  for (uint32_t e = 0; e < ne; e++)
    sm_fin_ck_terms(sum, v + (size_t)e * SM_FIN_CHUNK, key, nc,
                    (uint64_t)ent[e] * SM_CKSUM_ENTRY_STEP);
}

/* ---- what a block's chunks share */
typedef struct fin2_blk {
  const sm_fin2_args_t *a;
  const void *num, *sums_i, *sums_j;
  size_t ldnum;
  const uint32_t *hom; /* PLINK's r, r^2: the homozygous-called tallies */
  size_t ldhom;
  int ccc, ne, ld;
  uint32_t ent[4];         /* entries as written */
  const sm_fin_isa_t *isa; /* value loops (NULL: portable) */
  double *col[4];          /* their column arrays */
  /* kept values: all of them, or those the filter finds */
  int keep_all;
  sm_fin_thr_t thr;
  sm_fin_keep_fn keep;
  sm_fin_hc_t hc;
  /* top-k: the k-th value of each list (-inf while not full) */
  sm_topk_ent_t *cand;
  sm_fin_topk_fn topk;
  double rthr[4], *cthr[4]; /* cthr NULL: no memory, every pair offered */
  sm_fin_ck_t ck;
} fin2_blk_t;

/* The column arrays of sm_fin2_chunk_t for the block's n columns (zero up
 * to a multiple of 8 past any chunk); 0 when memory is refused. */
static int fin2_columns(fin2_blk_t *b)
{
  const sm_fin2_args_t *a = b->a;
  const size_t np = ((size_t)a->n + 15) / 8 * 8, ncol = b->ccc ? 4 : 1;
  double *mem = calloc(ncol * np, sizeof(double));
  if (!mem)
    return 0;
  for (size_t k = 0; k < ncol; k++)
    b->col[k] = mem + k * np;
  const double half_m = 0.5 * (1.0 / (double)a->nf), param = a->ccc_param;
  for (uint32_t j = 0; j < a->n; j++) {
    if (b->ld) { /* r: the column's sign */
      b->col[0][j] =
          a->form == SM_FORM_R
              ? ld_sign(a, (const uint32_t *)b->sums_j + 2 * (size_t)j, a->j0 + j)
              : 0;
      continue;
    }
    if (!b->ccc) {
      b->col[0][j] = a->single ? (double)((const float *)b->sums_j)[j]
                               : ((const double *)b->sums_j)[j];
      continue;
    }
    const uint32_t *sj = (const uint32_t *)b->sums_j + 2 * (size_t)j;
    const double s1 = sm_u32d(sj[0]), c = sm_u32d(sj[1]), s0 = 2 * c - s1;
    if (a->sparse) {
      b->col[0][j] = s1, b->col[1][j] = s0, b->col[2][j] = c;
    } else { /* sm_ccc2_values_d's factors, recip_cj = 1 / nf */
      b->col[0][j] = 1.0 - param * (half_m * s0);
      b->col[1][j] = 1.0 - param * (half_m * s1);
      b->col[2][j] = 2 * s1, b->col[3][j] = c;
    }
  }
  return 1;
}

/* The chunk of row i from column j0 (nc pairs) for the instruction-set
 * loops; 0 when the row's values are all 0 (no counted entries). */
static int fin2_chunk(const fin2_blk_t *b, uint32_t i, uint32_t j0, uint32_t nc,
                      sm_fin2_chunk_t *ch)
{
  const sm_fin2_args_t *a = b->a;
  const uint32_t gi = a->i0 + i, gj0 = a->j0 + j0;
  *ch = (sm_fin2_chunk_t){.swap = a->swap,
                          .pneg = a->ccc_param < 0,
                          .form = a->form,
                          .zero_nan = a->zero_nan,
                          .nc = nc,
                          .mult = a->ccc_mult,
                          .param = a->ccc_param,
                          .key_in = a->swap ? ((uint64_t)gj0 << 32) | gi
                                            : ((uint64_t)gi << 32) | gj0,
                          .key_step = a->swap ? (uint64_t)1 << 32 : 1};
  for (int k = 0; k < 4; k++)
    ch->col[k] = b->col[k] ? b->col[k] + j0 : NULL;
  const size_t pair = (size_t)i * b->ldnum + j0;
  if (b->ld) {
    ch->kind = SM_FIN2_LD;
    ch->num = (const uint32_t *)b->num + pair * 4;
    ch->hom = b->hom + ((size_t)i * b->ldhom + j0) * 2;
    ch->row[0] = a->form == SM_FORM_R
                     ? ld_sign(a, (const uint32_t *)b->sums_i + 2 * (size_t)i, gi)
                     : 0;
    return 1;
  }
  if (!b->ccc) {
    ch->kind = a->single ? SM_FIN2_CZEK_S : SM_FIN2_CZEK_D;
    ch->num = a->single ? (const void *)((const float *)b->num + pair)
                        : (const void *)((const double *)b->num + pair);
    ch->row[0] = a->single ? (double)((const float *)b->sums_i)[i]
                           : ((const double *)b->sums_i)[i];
    return 1;
  }
  const uint32_t *si = (const uint32_t *)b->sums_i + 2 * (size_t)i;
  const double nf = (double)a->nf, s1i = sm_u32d(si[0]), ci = sm_u32d(si[1]);
  if (ci == 0 || nf == 0)
    return 0;
  const double s0i = 2 * ci - s1i;
  ch->num = (const uint32_t *)b->num + pair * SM_CCC2_NMOM(a->sparse);
  if (a->sparse) {
    ch->kind = SM_FIN2_SPARSE;
    ch->row[0] = s1i, ch->row[1] = s0i, ch->row[2] = ci;
  } else {
    const double recip_m = 1.0 / nf, half_m = 0.5 * recip_m;
    ch->kind = SM_FIN2_DENSE;
    ch->row[0] = 1.0 - a->ccc_param * (half_m * s0i);
    ch->row[1] = 1.0 - a->ccc_param * (half_m * s1i);
    ch->row[2] = 2 * s1i;
    ch->row[3] = 4 * nf - 2 * s1i; /* sm_ccc2_tally_d's t0 before its last terms */
    ch->rs = 0.25 * recip_m;
  }
  return 1;
}

/* The values of row i's chunk into v and their checksum terms into b->ck. */
static void fin2_values(fin2_blk_t *b, uint32_t i, uint32_t j0, uint32_t nc, double *v)
{
  const sm_fin2_args_t *a = b->a;
  const uint32_t gi = a->i0 + i, gj0 = a->j0 + j0;
  if (b->isa) {
    sm_fin2_chunk_t ch;
    if (!fin2_chunk(b, i, j0, nc, &ch)) {
      for (int e = 0; e < b->ne; e++)
        memset(v + (size_t)e * SM_FIN_CHUNK, 0, nc * sizeof(double));
      b->ck.n += (uint64_t)nc * b->ne;
      return;
    }
    if (!b->isa->values2(&ch, v, &b->ck))
      return;
  } else {
    const size_t pair = (size_t)i * b->ldnum + j0;
    if (b->ld)
      ld_chunk(a, (const uint32_t *)b->num + pair * 4,
               b->hom + ((size_t)i * b->ldhom + j0) * 2,
               (const uint32_t *)b->sums_i + 2 * (size_t)i,
               (const uint32_t *)b->sums_j + 2 * (size_t)j0, gi, gj0, nc, v);
    else if (b->ccc) {
      const uint32_t *si = (const uint32_t *)b->sums_i + 2 * (size_t)i;
      const uint32_t *sj = (const uint32_t *)b->sums_j + 2 * (size_t)j0;
      ccc_chunk(a, (const uint32_t *)b->num + pair * SM_CCC2_NMOM(a->sparse), si, sj, nc,
                v, v + SM_FIN_CHUNK, v + 2 * SM_FIN_CHUNK, v + 3 * SM_FIN_CHUNK);
    } else if (a->single)
      czek_chunk(a, (const float *)b->num + pair, (const float *)b->sums_i + i,
                 (const float *)b->sums_j + j0, nc, v);
    else
      czek_chunk(a, (const double *)b->num + pair, (const double *)b->sums_i + i,
                 (const double *)b->sums_j + j0, nc, v);
  }
  /* the portable loops, or values too large for the vector sums */
  cksum_chunk(&b->ck, v, gi, gj0, nc, a->swap, (uint32_t)b->ne, b->ent);
}

/* ---- records and histogram counts of row i's chunk v, in the order of
 * the pairs and entries */
static void fin2_emit(fin2_blk_t *b, sm_recbuf_t *out, uint32_t i, uint32_t j0,
                      uint32_t nc, const double *v)
{
  const sm_fin2_args_t *a = b->a;
  const uint32_t gi = a->i0 + i, gj0 = a->j0 + j0;
  if (a->emit && b->ld) {
    /* PLINK's --ld-window-r2: r^2 >= R, |r| >= sqrt(R); NaN never */
    const double lim = a->form == SM_FORM_R ? sqrt(a->ld_min) : a->ld_min;
    for (uint32_t c = 0; c < nc; c++)
      if (!(a->ld_min >= 0) || fabs(v[c]) >= lim) {
        const uint32_t gj = gj0 + c;
        sm_rec_t *r = &out->rec[out->count++];
        r->idx[0] = a->swap ? gj : gi, r->idx[1] = a->swap ? gi : gj, r->idx[2] = 0;
        r->entry = 0;
        r->value = v[c];
      }
  } else if (a->emit) {
    uint8_t mk[SM_FIN_CHUNK], gl[SM_FIN_CHUNK / 8];
    uint32_t ng;
    if (b->keep_all) {
      ng = (nc + 7) / 8;
      for (uint32_t g = 0; g < ng; g++) {
        gl[g] = (uint8_t)g;
        memset(mk + 8 * g, nc - 8 * g >= 8 ? 0xff : (1 << (nc - 8 * g)) - 1, 8);
      }
    } else {
      const double *ve[4] = {v, v + SM_FIN_CHUNK, v + 2 * SM_FIN_CHUNK,
                             v + 3 * SM_FIN_CHUNK};
      ng = b->keep(&b->thr, ve, nc, b->ne, 2, mk, gl);
    }
    for (uint32_t k = 0; k < ng; k++) {
      const uint32_t c8 = gl[k] * 8u;
      const uint8_t *g = mk + c8;
      unsigned any = 0;
      for (int e = 0; e < b->ne; e++)
        any |= g[e];
      for (; any; any &= any - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(any), c = c8 + l, gj = gj0 + c;
        const uint32_t idx[3] = {a->swap ? gj : gi, a->swap ? gi : gj, 0};
        for (int e = 0; e < b->ne; e++)
          if (g[e] >> l & 1) {
            sm_rec_t *r = &out->rec[out->count++];
            memcpy(r->idx, idx, sizeof r->idx);
            r->entry = b->ent[e];
            r->value = v[e * SM_FIN_CHUNK + c];
          }
      }
    }
  }
  if (b->hc.spec->bins) {
    const double *ve[4]; /* by label */
    for (int e = 0; e < b->ne; e++)
      ve[b->ent[e]] = v + (size_t)e * SM_FIN_CHUNK;
    sm_fin_hc_add_all(&b->hc, ve, nc, sm_recbuf_hist(out));
  }
}

/* ---- top-k: the pair (row i, column j)'s values v[] (entry = row's bit,
 * column's bit) as candidates for the row's list (row) and the column's
 * (col): every entry, or the largest (the smallest entry, seen from that
 * vector, among equal values). */
static void offer_row(const sm_topk_spec_t *t, sm_topk_ent_t *row, uint32_t gj,
                      const double v[4])
{
  if (!t->by_max) {
    for (uint32_t e = 0; e < 4; e++)
      sm_topk_offer(row + e * t->k, t->k, gj, e, v[e]);
    return;
  }
  uint32_t er = 0;
  for (uint32_t e = 1; e < 4; e++)
    if (v[e] > v[er] || v[er] != v[er])
      er = e;
  sm_topk_offer(row, t->k, gj, er, v[er]);
}

static void offer_col(const sm_topk_spec_t *t, sm_topk_ent_t *col, uint32_t gi,
                      const double v[4])
{
  if (!t->by_max) {
    for (uint32_t e = 0; e < 4; e++)
      sm_topk_offer(col + swap_entry(e) * t->k, t->k, gi, swap_entry(e), v[e]);
    return;
  }
  uint32_t ec = 0;
  for (uint32_t e = 1; e < 4; e++)
    if (v[swap_entry(e)] > v[swap_entry(ec)] || v[swap_entry(ec)] != v[swap_entry(ec)])
      ec = e;
  sm_topk_offer(col, t->k, gi, ec, v[swap_entry(ec)]);
}

/* The value a candidate must reach to enter a list (sm_topk_before: equal
 * values may still enter by their index): its k-th, -inf while not full. */
static double topk_floor(const sm_topk_ent_t *list, uint32_t k)
{
  return list[k - 1].nb == SM_TOPK_EMPTY ? -INFINITY : list[k - 1].value;
}

/* Row i's chunk's candidates into the row's and the columns' lists: only
 * the side whose floor a value reaches (lists hold the same candidates
 * whatever the order of the offers, and an offer below the floor is
 * refused). The row's floor rises along the chunk: it is checked against
 * each group's largest value, then value by value. */
static void fin2_topk(fin2_blk_t *b, uint32_t i, uint32_t j0, uint32_t nc,
                      const double *v)
{
  const sm_fin2_args_t *a = b->a;
  const sm_topk_spec_t *tk = &a->topk;
  const uint64_t per = (uint64_t)tk->lists * tk->k; /* places per vector */
  const int lists = (int)tk->lists, by_max = !b->ccc || tk->by_max;
  const double *cthr[4];
  int lr[4], lc[4];
  double neg[SM_FIN_CHUNK];
  if (!b->ccc && !b->ld && a->form != SM_FORM_PS) { /* the nearest: the largest -value */
    for (uint32_t c = 0; c < (nc + 7) / 8 * 8; c++)
      neg[c] = -v[c];
    v = neg;
  }
  for (int e = 0; e < 4; e++) {
    lr[e] = by_max ? 0 : e, lc[e] = by_max ? 0 : (int)swap_entry((uint32_t)e);
    cthr[e] = b->cthr[0] ? b->cthr[e < lists ? e : 0] + j0 : NULL;
  }
  uint8_t rm[SM_FIN_CHUNK / 8], cm[SM_FIN_CHUNK / 8];
  double rv[SM_FIN_CHUNK / 2];
  if (cthr[0])
    b->topk(v, SM_FIN_CHUNK, nc, b->ne, lr, lc, lists, b->rthr, cthr, rm, cm, rv);
  else /* no memory for the columns' floors: every pair offered */
    for (uint32_t c8 = 0; c8 < nc; c8 += 8) {
      rm[c8 / 8] = cm[c8 / 8] = 0xff;
      for (int l = 0; l < 4; l++)
        rv[c8 / 2 + (uint32_t)l] = INFINITY;
    }
  sm_topk_ent_t *row = b->cand + i * per;
  const uint32_t gi = a->i0 + i;
  for (uint32_t c8 = 0; c8 < nc; c8 += 8) {
    unsigned rows = 0; /* the group may reach the row's floor */
    for (int l = 0; l < lists; l++)
      rows |= rv[c8 / 2 + (uint32_t)l] >= b->rthr[l];
    const unsigned valid = nc - c8 >= 8 ? 0xffu : (1u << (nc - c8)) - 1;
    /* rm: at least the row's floor at the chunk's start (it only rises) */
    unsigned any = (cm[c8 / 8] | (rows ? rm[c8 / 8] : 0)) & valid;
    for (; any; any &= any - 1) {
      const uint32_t l = (uint32_t)__builtin_ctz(any), c = c8 + l, gj = a->j0 + j0 + c;
      double x[4];
      int rowc = 0;
      for (int e = 0; e < b->ne; e++) {
        x[e] = v[e * SM_FIN_CHUNK + c];
        rowc |= x[e] >= b->rthr[lr[e]];
      }
      if (rowc) {
        if (b->ccc)
          offer_row(tk, row, gj, x);
        else
          sm_topk_offer(row, tk->k, gj, 0, x[0]);
        for (int t = 0; t < lists; t++)
          b->rthr[t] = topk_floor(row + t * tk->k, tk->k);
      }
      if (cm[c8 / 8] >> l & 1) {
        sm_topk_ent_t *col = b->cand + (a->m + j0 + c) * per;
        if (b->ccc)
          offer_col(tk, col, gi, x);
        else
          sm_topk_offer(col, tk->k, gi, 0, x[0]);
        for (int t = 0; t < lists && cthr[0]; t++)
          b->cthr[t][j0 + c] = topk_floor(col + t * tk->k, tk->k);
      }
    }
  }
}

/* The columns [*jb, *je) of row i in the window (the windows' ends never
 * decrease along the vectors, so they are one run of columns, found as
 * the kernels find it: no scan of the columns outside it). */
static void ld_window_cols(const sm_fin2_args_t *a, uint32_t i, uint32_t *jb,
                           uint32_t *je)
{
  const sm_band_t band = {.win = a->ld_win, .a0 = a->i0, .b0 = a->j0};
  size_t lo, hi;
  sm_band_run(&band, a->n, i, &lo, &hi);
  lo = lo > *jb ? lo : *jb, hi = hi < *je ? hi : *je;
  *jb = (uint32_t)lo, *je = (uint32_t)(hi > lo ? hi : lo);
}

/* ---- the block, a row's pairs at a time in chunks: values and checksum
 * terms, then only what is wanted of records, histogram counts and
 * candidates, in the same (row, column, entry) order as the values. */
static void fin2_rows(fin2_blk_t *b, sm_recbuf_t *out)
{
  const sm_fin2_args_t *a = b->a;
  double v[4 * SM_FIN_CHUNK];
  for (uint32_t i = 0; i < a->m; i++) {
    for (int l = 0; l < 4; l++)
      b->rthr[l] = -INFINITY;
    uint32_t jb = a->diag ? i + 1 : 0, je = a->n;
    if (a->ld_win) /* the row's pairs in the window: one run */
      ld_window_cols(a, i, &jb, &je);
    /* --ld-snp: a row not of an index vector has its index columns only */
    const int some = a->ld_win && a->ld_index && !(a->ld_index[a->i0 + i] & 1);
    for (uint32_t j0 = jb, nc; j0 < je; j0 += nc) {
      nc = je - j0 < SM_FIN_CHUNK ? je - j0 : SM_FIN_CHUNK;
      if (some) { /* the next index column, alone */
        while (j0 < je && !(a->ld_index[a->j0 + j0] & 1))
          j0++;
        if (j0 == je)
          break;
        nc = 1;
      }
      fin2_values(b, i, j0, nc, v);
      if (a->emit || a->hist.bins)
        fin2_emit(b, out, i, j0, nc, v);
      if (b->cand)
        fin2_topk(b, i, j0, nc, v);
    }
  }
}

/* The block's choices: instruction-set loops (their column arrays), the
 * threshold filter, the histogram's copies, the top-k floors. */
static void fin2_setup(fin2_blk_t *b)
{
  const sm_fin2_args_t *a = b->a;
  const sm_fin_isa_t *isa = sm_fin_isa();
  b->keep = isa ? isa->keep : sm_fin_keep_port;
  b->topk = isa ? isa->topk : sm_fin_topk_port;
  b->isa = isa;
  if (b->ccc && !(isfinite(a->ccc_mult) && isfinite(a->ccc_param)))
    b->isa = NULL; /* the factors' order is then the comparisons' alone */
  if (b->isa && !fin2_columns(b))
    b->isa = NULL;
  b->keep_all = a->keep_all || (!(b->ccc && a->thr_ent.n) && !(a->threshold >= 0));
  b->thr = (sm_fin_thr_t){a->threshold, b->ccc && a->thr_ent.n ? a->thr_ent.t : NULL,
                          a->thr_f32, !b->ccc && !b->ld && a->form != SM_FORM_PS};
  sm_fin_hc_init(&b->hc, &a->hist, isa);
  if (!b->cand)
    return;
  /* per list, the columns' floors: -inf, +inf past the last column */
  const uint32_t lists = a->topk.lists;
  const size_t np = (size_t)a->n + 8;
  double *mem = malloc(lists * np * sizeof(double));
  for (uint32_t l = 0; l < lists && mem; l++) {
    b->cthr[l] = mem + l * np;
    for (size_t j = 0; j < np; j++)
      b->cthr[l][j] = j < a->n ? -INFINITY : INFINITY;
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

static uint64_t finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                          const uint32_t *hom, size_t ldhom, const void *sums_i,
                          const void *sums_j, sm_recbuf_t *out, sm_topk_ent_t *cand)
{
  sm_fin_begin(out, &a->hist, a->emit ? sm_fin2_max_records(a) : 0);
  if (cand)
    for (uint64_t p = 0; p < sm_fin2_topk_places(a); p++)
      cand[p] = (sm_topk_ent_t){0, SM_TOPK_EMPTY, 0};
  const int ld = hom != NULL;
  fin2_blk_t b = {.a = a,
                  .num = num,
                  .sums_i = sums_i,
                  .sums_j = sums_j,
                  .ldnum = ldnum,
                  .hom = hom,
                  .ldhom = ldhom,
                  .ccc = a->metric == 1 && !ld,
                  .ld = ld,
                  .ne = a->metric == 1 && !ld ? 4 : 1,
                  .cand = cand};
  for (uint32_t e = 0; e < 4; e++)
    b.ent[e] = a->swap ? swap_entry(e) : e;
  fin2_setup(&b);
  fin2_rows(&b, out);
  if (a->hist.bins)
    sm_fin_hc_flush(&b.hc, sm_recbuf_hist(out));
  sm_fin_hc_free(&b.hc);
  free(b.col[0]);
  free(b.cthr[0]);
  sm_fin_ck_flush(&out->cksum, &b.ck);
  out->nvalues += b.ck.n;
  return out->count;
}

uint64_t sm_kern_finalize2(const sm_fin2_args_t *a, const void *num, size_t ldnum,
                           const void *sums_i, const void *sums_j, sm_recbuf_t *out,
                           sm_topk_ent_t *cand)
{
  return finalize2(a, num, ldnum, NULL, 0, sums_i, sums_j, out, cand);
}

uint64_t sm_kern_finalize2_ld(const sm_fin2_args_t *a, const uint32_t *num, size_t ldnum,
                              const uint32_t *hom, size_t ldhom, const void *sums_i,
                              const void *sums_j, sm_recbuf_t *out, sm_topk_ent_t *cand)
{
  return finalize2(a, num, ldnum, hom, ldhom, sums_i, sums_j, out, cand);
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
