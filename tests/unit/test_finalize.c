/* test_finalize.c: the 2-way and 3-way finalize kernels, every loop variant
 * this CPU runs (portable, AVX2, AVX-512), against a plain reference written
 * here from the formulas (sm_formulas.h), the checksum (sm_cksum_add), the
 * threshold, histogram and top-k helpers (sm_types.h), one result at a
 * time: record buffers (records in order, values, checksum, histogram
 * counts) and candidate lists must be identical bit for bit. Blocks of odd
 * sizes, diagonal and mirrored blocks, thresholds (float32 ones, CoMet's
 * per-entry lists), zero and NaN denominators, values on the checksum's
 * rounding ties and past its fast range, inconsistent counts, negative
 * parameters. Variants this CPU cannot run are skipped (said on stdout). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern_finalize_simd.h"
#include "sm_test.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t xr(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static const sm_kvar_t variants[] = {SM_KVAR_BLOCKED, SM_KVAR_AVX2, SM_KVAR_AVX512};
enum { NVAR = sizeof variants / sizeof variants[0] };

/* The variant's name, or NULL (said once) when this CPU cannot run it. */
static const char *use(sm_kvar_t v)
{
  static int said[NVAR];
  const char *name = sm_kern_fin_variant(v);
  for (int k = 0; k < NVAR && !name; k++)
    if (variants[k] == v && !said[k]) {
      said[k] = 1;
      sm_test_skip(v == SM_KVAR_AVX2 ? "test_finalize: AVX2 loops: not on this CPU"
                                     : "test_finalize: AVX-512 loops: not on this CPU");
    }
  return name;
}

/* ---------------------------------------------------------------- 2-way */
static uint32_t swap_e(uint32_t e)
{
  return ((e & 1u) << 1) | (e >> 1);
}

/* SM_FIN_KEEP: lists only for CCC (l NULL otherwise) */
static int keep_ref(const sm_thr_list_t *l, double thr, int f32, int way, const double *v,
                    uint32_t e, int keep_all, int emit, int dis)
{
  if (!emit)
    return 0;
  if (keep_all)
    return 1;
  return l && l->n ? sm_thr_list_keep(l, way, f32, v, e)
                   : sm_threshold_keep_dis(dis, thr, f32, v[e]);
}

static void offer_ref(const sm_topk_spec_t *t, sm_topk_ent_t *row, sm_topk_ent_t *col,
                      uint32_t gi, uint32_t gj, const double *v, int ne)
{
  if (ne == 1) {
    sm_topk_offer(row, t->k, gj, 0, v[0]);
    sm_topk_offer(col, t->k, gi, 0, v[0]);
    return;
  }
  if (!t->by_max) {
    for (uint32_t e = 0; e < 4; e++) {
      sm_topk_offer(row + e * t->k, t->k, gj, e, v[e]);
      sm_topk_offer(col + swap_e(e) * t->k, t->k, gi, swap_e(e), v[e]);
    }
    return;
  }
  uint32_t er = 0, ec = 0;
  for (uint32_t e = 1; e < 4; e++) {
    if (v[e] > v[er] || v[er] != v[er])
      er = e;
    if (v[swap_e(e)] > v[swap_e(ec)] || v[swap_e(ec)] != v[swap_e(ec)])
      ec = e;
  }
  sm_topk_offer(row, t->k, gj, er, v[er]);
  sm_topk_offer(col, t->k, gi, ec, v[swap_e(ec)]);
}

/* The 2-way finalize, one pair at a time. */
static void ref2(const sm_fin2_args_t *a, const void *num, size_t ld, const void *si,
                 const void *sj, sm_recbuf_t *out, sm_topk_ent_t *cand)
{
  const int ccc = a->metric == 1, ne = ccc ? 4 : 1;
  const int dis = !ccc && a->form != SM_FORM_PS;
  out->count = out->nvalues = 0;
  out->cksum = (sm_cksum_t){0, 0, 0, 0};
  out->hist_off =
      a->hist.bins ? sm_recbuf_hist_offset(a->emit ? sm_fin2_max_records(a) : 0) : 0;
  uint64_t *h = sm_recbuf_hist(out);
  if (h)
    memset(h, 0, sm_hist_words(&a->hist) * 8);
  const uint64_t per = (uint64_t)a->topk.lists * a->topk.k;
  for (uint64_t p = 0; cand && p < sm_fin2_topk_places(a); p++)
    cand[p] = (sm_topk_ent_t){0, SM_TOPK_EMPTY, 0};
  for (uint32_t i = 0; i < a->m; i++)
    for (uint32_t j = a->diag ? i + 1 : 0; j < a->n; j++) {
      const uint32_t gi = a->i0 + i, gj = a->j0 + j;
      const uint32_t idx[3] = {a->swap ? gj : gi, a->swap ? gi : gj, 0};
      double v[4];
      if (!ccc)
        v[0] = a->single
                   ? sm_f_minsum2(a->form, a->zero_nan, ((const float *)num)[i * ld + j],
                                  ((const float *)si)[i], ((const float *)sj)[j])
                   : sm_f_minsum2(a->form, a->zero_nan, ((const double *)num)[i * ld + j],
                                  ((const double *)si)[i], ((const double *)sj)[j]);
      else {
        const uint32_t *m =
            (const uint32_t *)num + (i * ld + j) * SM_CCC2_NMOM(a->sparse);
        const uint32_t *s_i = (const uint32_t *)si + 2 * i,
                       *s_j = (const uint32_t *)sj + 2 * j;
        double t[4];
        if (a->sparse)
          sm_ccc2_tally_d(m[0], m[1], m[2], m[3], t);
        else
          sm_ccc2_tally_d(m[0], s_i[0], s_j[0], (double)a->nf, t);
        sm_ccc2_values_d(t, s_i[0], s_j[0], s_i[1], s_j[1], (double)a->nf, !a->sparse,
                         a->ccc_mult, a->ccc_param, v);
      }
      for (int e = 0; e < ne; e++) {
        const uint32_t lab = a->swap ? swap_e((uint32_t)e) : (uint32_t)e;
        sm_cksum_add(&out->cksum, idx, 2, lab, v[e]);
        out->nvalues++;
        if (h)
          h[lab * sm_hist_row(&a->hist) + sm_hist_slot(&a->hist, v[e])]++;
        if (keep_ref(ccc ? &a->thr_ent : NULL, a->threshold, a->thr_f32, 2, v,
                     (uint32_t)e, a->keep_all, a->emit, dis))
          out->rec[out->count++] = (sm_rec_t){{idx[0], idx[1], 0}, lab, v[e]};
      }
      const double nv[1] = {-v[0]}; /* a dissimilarity's candidates: -value */
      if (cand)
        offer_ref(&a->topk, cand + i * per, cand + (a->m + j) * per, gi, gj, dis ? nv : v,
                  ne);
    }
}

static size_t rb_size2(const sm_fin2_args_t *a)
{
  return sm_recbuf_hist_offset(sm_fin2_max_records(a)) + sm_hist_words(&a->hist) * 8 + 64;
}

static void same_rb(const sm_recbuf_t *x, const sm_recbuf_t *y, const sm_hist_spec_t *h,
                    const char *what)
{
  ck_assert_msg(x->count == y->count && x->nvalues == y->nvalues, "%s: %llu/%llu records",
                what, (unsigned long long)x->count, (unsigned long long)y->count);
  ck_assert_msg(!memcmp(&x->cksum, &y->cksum, sizeof x->cksum), "%s: checksum", what);
  for (uint64_t r = 0; r < x->count; r++)
    ck_assert_msg(!memcmp(&x->rec[r], &y->rec[r], sizeof x->rec[r]),
                  "%s: record %llu: (%u %u %u) e%u %.17g vs (%u %u %u) e%u %.17g", what,
                  (unsigned long long)r, x->rec[r].idx[0], x->rec[r].idx[1],
                  x->rec[r].idx[2], x->rec[r].entry, x->rec[r].value, y->rec[r].idx[0],
                  y->rec[r].idx[1], y->rec[r].idx[2], y->rec[r].entry, y->rec[r].value);
  if (h->bins)
    ck_assert_msg(!memcmp(sm_recbuf_hist(x), sm_recbuf_hist(y), sm_hist_words(h) * 8),
                  "%s: histogram", what);
}

/* Every variant against the reference on one block. */
static void check2(const sm_fin2_args_t *a, const void *num, size_t ld, const void *si,
                   const void *sj, const char *what)
{
  const size_t sz = rb_size2(a);
  const uint64_t np = a->topk.k ? sm_fin2_topk_places(a) : 0;
  sm_recbuf_t *want = calloc(1, sz), *got = calloc(1, sz);
  sm_topk_ent_t *cw = np ? calloc(np, sizeof *cw) : NULL,
                *cg = np ? calloc(np, sizeof *cg) : NULL;
  ck_assert(want && got && (!np || (cw && cg)));
  ref2(a, num, ld, si, sj, want, cw);
  for (int v = 0; v < NVAR; v++) {
    const char *name = use(variants[v]);
    if (!name)
      continue;
    memset(got, 0x5a, sz);
    ck_assert_uint_eq(sm_kern_finalize2(a, num, ld, si, sj, got, cg), want->count);
    char msg[160];
    snprintf(msg, sizeof msg, "%s (%s, m=%u n=%u)", what, name, a->m, a->n);
    same_rb(want, got, &a->hist, msg);
    if (np)
      ck_assert_msg(!memcmp(cw, cg, np * sizeof *cw), "%s: top-k lists", msg);
  }
  sm_kern_fin_variant(SM_KVAR_AUTO);
  free(want), free(got), free(cw), free(cg);
}

/* CCC sums and moments of a block: consistent counts (tallies >= 0), some
 * vectors without counted entries, some pairs without common ones; or
 * any numbers (`wild`). */
static void ccc2_data(uint32_t m, uint32_t n, size_t ld, int sparse, uint32_t nf,
                      int wild, uint32_t *num, uint32_t *si, uint32_t *sj)
{
  uint32_t *s[2] = {si, sj};
  for (int k = 0; k < 2; k++)
    for (uint32_t v = 0; v < (k ? n : m); v++) {
      const uint32_t c = wild         ? (uint32_t)xr()
                         : v % 9 == 8 ? 0
                                      : nf - (uint32_t)(xr() % (nf / 8 + 1));
      s[k][2 * v + 1] = sparse ? c : (wild ? c : nf);
      s[k][2 * v] =
          wild ? (uint32_t)xr() : (uint32_t)(xr() % (2 * (uint64_t)s[k][2 * v + 1] + 1));
    }
  for (size_t x = 0; x < m * ld; x++) {
    uint32_t *p = num + x * SM_CCC2_NMOM(sparse);
    if (wild) {
      for (int k = 0; k < SM_CCC2_NMOM(sparse); k++)
        p[k] = (uint32_t)xr() >> (xr() % 32);
      continue;
    }
    if (!sparse) {
      p[0] = (uint32_t)(xr() % (4 * (uint64_t)nf + 1));
      continue;
    }
    const uint64_t t3 = xr() % 400, t2 = t3 % 2 + 2 * (xr() % 200),
                   t1 = t3 % 2 + 2 * (xr() % 200);
    uint64_t t0 = xr() % 800;
    t0 += (4 - (t0 + t1 + t2 + t3) % 4) % 4;
    p[0] = (uint32_t)t3, p[1] = (uint32_t)((t2 + t3) / 2),
    p[2] = (uint32_t)((t1 + t3) / 2);
    p[3] = (uint32_t)((t0 + t1 + t2 + t3) / 4);
    if (x % 23 == 5)
      memset(p, 0, 16); /* no common counted entry */
  }
}

/* The ways a block's values are used. */
static void fin2_modes(sm_fin2_args_t *a, const void *num, size_t ld, const void *si,
                       const void *sj, const char *what)
{
  const double max = a->metric ? a->ccc_mult : 1.0;
  const sm_hist_spec_t none = {0, 0, 0, 0};
  a->emit = 1, a->threshold = -1, a->keep_all = 0, a->thr_ent.n = 0, a->hist = none;
  a->topk.k = 0;
  check2(a, num, ld, si, sj, what); /* every value */
  a->emit = 0;
  check2(a, num, ld, si, sj, what); /* checksum only */
  a->emit = 1, a->threshold = 0.37 * max;
  for (a->thr_f32 = 0; a->thr_f32 < 2; a->thr_f32++)
    check2(a, num, ld, si, sj, what);
  a->thr_f32 = 0, a->threshold = 2 * max; /* nothing kept */
  check2(a, num, ld, si, sj, what);
  if (a->metric) {
    a->thr_ent = (sm_thr_list_t){4, {0.2, 0.45, 0.7, 0.3, 0.9}};
    for (a->thr_f32 = 0; a->thr_f32 < 2; a->thr_f32++)
      check2(a, num, ld, si, sj, what);
    a->thr_ent.n = 0, a->thr_f32 = 0;
  }
  a->keep_all = 1;
  check2(a, num, ld, si, sj, what);
  a->keep_all = 0, a->emit = 0;
  a->hist = (sm_hist_spec_t){17, a->metric ? 4u : 1u, 0, max};
  check2(a, num, ld, si, sj, what);
  a->hist = (sm_hist_spec_t){4, a->metric ? 4u : 1u, 0.25 * max, 0.75 * max}; /* edges */
  check2(a, num, ld, si, sj, what);
  a->hist = none;
  for (int l = 0; l < (a->metric ? 3 : 1); l++) {
    a->topk = (sm_topk_spec_t){l == 2 ? 1u : 3u, l == 1 ? 4u : 1u, l != 1};
    check2(a, num, ld, si, sj, what);
  }
  a->topk.k = 0;
}

static const uint32_t sizes[] = {1, 2, 3, 7, 8, 9, 17, 33, 255, 257, 300};
enum { NS = sizeof sizes / sizeof sizes[0] };

START_TEST(fin2_ccc)
{
  for (int sparse = 0; sparse < 2; sparse++)
    for (size_t k = 0; k < NS; k++) {
      const uint32_t m = sizes[(k + 3) % NS] % 40 + 1, n = sizes[k],
                     nf = 1 + (uint32_t)(xr() % 3000);
      const size_t ld = n + k % 3;
      const size_t big = (ld > m ? ld : m) * m * 16 + 16; /* the diagonal block's too */
      uint32_t *num = malloc(big), *si = malloc(m * 8 + 8), *sj = malloc(n * 8 + 8);
      for (int wild = 0; wild < 2; wild++) {
        ccc2_data(m, n, ld, sparse, nf, wild, num, si, sj);
        sm_fin2_args_t a = {.metric = 1,
                            .sparse = sparse,
                            .i0 = 40,
                            .j0 = 900,
                            .m = m,
                            .n = n,
                            .nf = nf,
                            .ccc_mult = 4.5,
                            .ccc_param = 2.0 / 3};
        fin2_modes(&a, num, ld, si, sj, wild ? "ccc2 any counts" : "ccc2");
        a.swap = 1, a.i0 = 900, a.j0 = 40; /* below the diagonal */
        fin2_modes(&a, num, ld, si, sj, "ccc2 mirrored");
        a.swap = 0;
        a.ccc_param = -0.75, a.ccc_mult = 2.5; /* the factors' order reversed */
        fin2_modes(&a, num, ld, si, sj, "ccc2 param < 0");
        a.ccc_param = NAN; /* non-finite: the portable loops */
        check2(&a, num, ld, si, sj, "ccc2 param NaN");
        a.ccc_param = 2.0 / 3, a.ccc_mult = 3e5; /* values past the vector sums */
        check2(&a, num, ld, si, sj, "ccc2 large multiplier");
        a.ccc_mult = 4.5, a.nf = 0;
        check2(&a, num, ld, si, sj, "ccc2 nf = 0");
      }
      /* diagonal block: the same vectors both sides */
      ccc2_data(m, m, m, sparse, nf, 0, num, si, si);
      sm_fin2_args_t d = {.metric = 1,
                          .sparse = sparse,
                          .diag = 1,
                          .i0 = 7,
                          .j0 = 7,
                          .m = m,
                          .n = m,
                          .nf = nf,
                          .ccc_mult = 4.5,
                          .ccc_param = 2.0 / 3};
      fin2_modes(&d, num, m, si, si, "ccc2 diagonal");
      free(num), free(si), free(sj);
    }
}
END_TEST

/* PLINK's r^2 and r of a block (sm_kern_finalize2_ld): every variant's
 * values, records and checksum equal sm_f_ld's pair by pair, with r's
 * signs from the sums (the major allele), A1 (--keep-allele-order) or a
 * reversal list; mirrored and diagonal blocks, partial groups of 8,
 * pairs with no variance (NaN, kept only without ld_min) and a filter. */
static void ref_ld(const sm_fin2_args_t *a, const uint32_t *num, const uint32_t *hom,
                   size_t ld, const uint32_t *si, const uint32_t *sj, sm_recbuf_t *out)
{
  out->count = out->nvalues = 0;
  out->cksum = (sm_cksum_t){0, 0, 0, 0};
  out->hist_off = 0;
  for (uint32_t i = 0; i < a->m; i++)
    for (uint32_t j = a->diag ? i + 1 : 0; j < a->n; j++) {
      const uint32_t gi = a->i0 + i, gj = a->j0 + j;
      const uint32_t idx[3] = {a->swap ? gj : gi, a->swap ? gi : gj, 0};
      const uint32_t *mo = num + (i * ld + j) * 4, *h = hom + (i * ld + j) * 2;
      double v = sm_f_ld(mo[0], mo[1], mo[2], mo[3], h[0], h[1], a->form == SM_FORM_R2);
      if (a->form == SM_FORM_R) {
        const int ri = a->ld_rev ? a->ld_rev[gi] != 0 : si[2 * i] > si[2 * i + 1],
                  rj = a->ld_rev ? a->ld_rev[gj] != 0 : sj[2 * j] > sj[2 * j + 1];
        v = v * (a->ld_a1 ? 1.0 : (ri ? -1.0 : 1.0) * (rj ? -1.0 : 1.0)) + 0.0;
      }
      sm_cksum_add(&out->cksum, idx, 2, 0, v);
      out->nvalues++;
      const double lim = a->form == SM_FORM_R ? sqrt(a->ld_min) : a->ld_min;
      if (a->emit && (!(a->ld_min >= 0) || fabs(v) >= lim))
        out->rec[out->count++] = (sm_rec_t){{idx[0], idx[1], 0}, 0, v};
    }
}

START_TEST(fin2_ld)
{
  unsigned char rev[1200];
  for (size_t k = 0; k < sizeof rev; k++)
    rev[k] = (unsigned char)(xr() % 2);
  for (size_t k = 0; k < NS; k++) {
    const uint32_t m = sizes[(k + 2) % NS] % 37 + 1, n = sizes[k];
    const size_t ld = (n > m ? n : m) + k % 3;
    uint32_t *num = malloc(m * ld * 16), *hom = malloc(m * ld * 8), *si = malloc(m * 8),
             *sj = malloc(ld * 8);
    for (size_t x = 0; x < m * ld; x++) { /* rr, rm, mr, mm; hx, hy */
      uint32_t *p = num + x * 4, *h = hom + x * 2;
      p[3] = (uint32_t)(xr() % 3000);
      p[1] = (uint32_t)(xr() % (2 * (uint64_t)p[3] + 1));
      p[2] = (uint32_t)(xr() % (2 * (uint64_t)p[3] + 1));
      p[0] = (uint32_t)(xr() % ((p[1] < p[2] ? p[1] : p[2]) + 1));
      h[0] = (uint32_t)(xr() % (p[1] / 2 + 1)), h[1] = (uint32_t)(xr() % (p[2] / 2 + 1));
      if (x % 13 == 3) /* no variance: 0 / 0 */
        memset(p, 0, 16), h[0] = h[1] = 0;
    }
    for (uint32_t v = 0; v < m; v++)
      si[2 * v] = (uint32_t)(xr() % 400), si[2 * v + 1] = (uint32_t)(xr() % 400);
    for (uint32_t v = 0; v < ld; v++)
      sj[2 * v] = (uint32_t)(xr() % 400), sj[2 * v + 1] = (uint32_t)(xr() % 400);
    for (int c = 0; c < 16; c++) {
      const int diag = c % 8 == 7;
      sm_fin2_args_t a = {.metric = 1,
                          .sparse = 1,
                          .form = c % 2 ? SM_FORM_R : SM_FORM_R2,
                          .diag = diag,
                          .swap = !diag && c % 4 >= 2,
                          .i0 = diag         ? 5
                                : c % 4 >= 2 ? 700
                                             : 30,
                          .j0 = diag         ? 5
                                : c % 4 >= 2 ? 30
                                             : 700,
                          .m = m,
                          .n = diag ? m : n,
                          .nf = 3000,
                          .threshold = -1,
                          .emit = c < 12,
                          .ld_min = c % 3 == 0 ? 0.3 : -1,
                          .ld_a1 = c == 5,
                          .ld_rev = c == 9 || c == 11 ? rev : NULL};
      const uint32_t *sjj = diag ? si : sj;
      const size_t sz = sm_recbuf_hist_offset(sm_fin2_max_records(&a)) + 64;
      sm_recbuf_t *want = calloc(1, sz), *got = calloc(1, sz);
      ref_ld(&a, num, hom, ld, si, sjj, want);
      for (int v = 0; v < NVAR; v++) {
        const char *name = use(variants[v]);
        if (!name)
          continue;
        memset(got, 0x5a, sz);
        ck_assert_uint_eq(sm_kern_finalize2_ld(&a, num, ld, hom, ld, si, sjj, got, NULL),
                          want->count);
        char msg[160];
        snprintf(msg, sizeof msg, "ld case %d (%s, m=%u n=%u)", c, name, a.m, a.n);
        const sm_hist_spec_t none = {0, 0, 0, 0};
        same_rb(want, got, &none, msg);
      }
      sm_kern_fin_variant(SM_KVAR_AUTO);
      free(want), free(got);
    }
    free(num), free(hom), free(si), free(sj);
  }
}
END_TEST

START_TEST(fin2_czek)
{
  for (int single = 0; single < 2; single++)
    for (size_t k = 0; k < NS; k++) {
      const uint32_t m = sizes[(k + 5) % NS] % 30 + 1, n = sizes[k];
      const size_t ld = n + 1, es = single ? 4 : 8;
      char *num = malloc(m * ld * es), *si = malloc(m * es), *sj = malloc(n * es);
      for (size_t x = 0; x < m * ld + m + n; x++) {
        const double r = (double)(xr() % 100000) / 7;
        const size_t v = x < m * ld ? x : x < m * ld + m ? x - m * ld : x - m * ld - m;
        char *p = x < m * ld ? num : x < m * ld + m ? si : sj;
        const double val = x < m * ld ? r / 4 : v % 5 == 4 ? 0 : r; /* zero sums */
        if (single)
          ((float *)p)[v] = (float)val;
        else
          ((double *)p)[v] = val;
      }
      sm_fin2_args_t a = {.single = single, .i0 = 3, .j0 = 400, .m = m, .n = n};
      fin2_modes(&a, num, ld, si, sj, single ? "czek2 single" : "czek2");
      a.swap = 1, a.i0 = 400, a.j0 = 3;
      fin2_modes(&a, num, ld, si, sj, "czek2 mirrored");
      /* NaN, infinite and huge numerators, negative sums */
      for (size_t x = 0; x < m * ld; x += 5) {
        const double odd[4] = {NAN, INFINITY, 1e300, -3.5};
        if (single)
          ((float *)num)[x] = (float)odd[x / 5 % 4];
        else
          ((double *)num)[x] = odd[x / 5 % 4];
      }
      if (single)
        ((float *)sj)[0] = -1;
      else
        ((double *)sj)[0] = -1;
      fin2_modes(&a, num, ld, si, sj, "czek2 NaN");
      free(num), free(si), free(sj);
    }
}
END_TEST

/* The dissimilarities of the same numerators (Bray-Curtis, Jaccard),
 * the pairs of two zero sums NaN or 1, PS with NaN there: every loop
 * gives the reference's values, records, checksum, histogram and
 * candidates (the smallest values). Integer sums and numerators too,
 * where each value is one correctly rounded quotient. */
START_TEST(fin2_forms)
{
  for (int single = 0; single < 2; single++)
    for (size_t k = 0; k < NS; k += 2)
      for (int ints = 0; ints < 2; ints++) {
        const uint32_t m = sizes[(k + 4) % NS] % 30 + 1, n = sizes[k];
        const size_t ld = n + 2, es = single ? 4 : 8;
        char *num = malloc(m * ld * es), *si = malloc(m * es), *sj = malloc(n * es);
        double *s[2] = {malloc(m * 8), malloc(n * 8)};
        for (int side = 0; side < 2; side++)
          for (uint32_t v = 0; v < (side ? n : m); v++) {
            const double r = ints ? (double)(xr() % 5000) : (double)(xr() % 100000) / 7;
            s[side][v] = v % 4 == 3 ? 0 : r; /* empty vectors */
            if (single)
              ((float *)(side ? sj : si))[v] = (float)s[side][v];
            else
              ((double *)(side ? sj : si))[v] = s[side][v];
          }
        for (uint32_t i = 0; i < m; i++)
          for (size_t j = 0; j < ld; j++) { /* n2 <= the smaller sum */
            const double lo = j < n && s[1][j] < s[0][i] ? s[1][j] : s[0][i];
            const double x = ints ? (double)(xr() % ((uint64_t)lo + 1)) : lo * 0.6;
            if (single)
              ((float *)num)[i * ld + j] = (float)x;
            else
              ((double *)num)[i * ld + j] = x;
          }
        for (int form = SM_FORM_PS; form <= SM_FORM_JACCARD; form++)
          for (int zn = 0; zn < 2; zn++) {
            if (form == SM_FORM_PS && !zn)
              continue; /* fin2_czek's */
            char what[64];
            snprintf(what, sizeof what, "czek2 form %d%s%s%s", form, zn ? " nan" : "",
                     single ? " single" : "", ints ? " integers" : "");
            sm_fin2_args_t a = {.single = single,
                                .form = form,
                                .zero_nan = zn,
                                .i0 = 5,
                                .j0 = 300,
                                .m = m,
                                .n = n};
            fin2_modes(&a, num, ld, si, sj, what);
            a.swap = 1, a.i0 = 300, a.j0 = 5;
            fin2_modes(&a, num, ld, si, sj, what);
          }
        free(num), free(si), free(sj), free(s[0]), free(s[1]);
      }
}
END_TEST

/* sm_f_minsum2 on integer counts: the correctly rounded quotient of the
 * exact integers (the division of two exact doubles), whatever the
 * order of the sums; 0/0 NaN or the value of nothing in common. */
START_TEST(fin2_forms_exact)
{
  for (int t = 0; t < 100000; t++) {
    const uint64_t si = xr() % 1000000, sj = xr() % 1000000;
    const uint64_t lo = si < sj ? si : sj, n2 = lo ? xr() % (lo + 1) : 0;
    const double bc = sm_f_minsum2(SM_FORM_BC, 1, (double)n2, (double)si, (double)sj);
    const double jc =
        sm_f_minsum2(SM_FORM_JACCARD, 1, (double)n2, (double)sj, (double)si);
    if (!si && !sj) {
      ck_assert(isnan(bc) && isnan(jc) && !signbit(bc));
      ck_assert(sm_f_minsum2(SM_FORM_BC, 0, 0, 0, 0) == 1.0);
      ck_assert(sm_f_minsum2(SM_FORM_JACCARD, 0, 0, 0, 0) == 1.0);
      ck_assert(sm_f_minsum2(SM_FORM_PS, 0, 0, 0, 0) == 0.0);
      continue;
    }
    ck_assert(bc == (double)(si + sj - 2 * n2) / (double)(si + sj));
    ck_assert(jc == (double)(si + sj - 2 * n2) / (double)(si + sj - n2));
    ck_assert(sm_f_minsum2(SM_FORM_PS, 0, (double)n2, (double)si, (double)sj) ==
              sm_f_czek2((double)n2, (double)si, (double)sj));
  }
  /* a NaN's checksum: defined, and its hash term depends on where it is */
  ck_assert(sm_cksum_q(NAN) == INT64_MIN + 1 && sm_cksum_q(INFINITY) == INT64_MIN);
  sm_cksum_t x = {0, 0, 0, 0}, y = {0, 0, 0, 0};
  const uint32_t a[3] = {1, 2, 0}, b[3] = {1, 3, 0};
  sm_cksum_add(&x, a, 2, 0, NAN), sm_cksum_add(&x, b, 2, 0, 0.5);
  sm_cksum_add(&y, a, 2, 0, 0.5), sm_cksum_add(&y, b, 2, 0, NAN);
  ck_assert(x.count == y.count && x.sum_lo == y.sum_lo && x.sum_hi == y.sum_hi);
  ck_assert(x.hash != y.hash);
}
END_TEST

/* Values on the checksum's rounding ties (k + 1/2) 2^-40 and near them, of
 * both signs, up to and past the vector sums' range: czekanowski with
 * si + sj = 2, v = n2. */
START_TEST(fin2_cksum_ties)
{
  enum { N = 301 };
  double *num = malloc(N * sizeof(double)), si = 1, sj[N];
  for (int x = 0; x < N; x++) {
    sj[x] = 1;
    const double k = (double)(xr() % (1u << 20)) * (x % 3 ? 1 : -1);
    const int e = (int)(xr() % 60) - 20; /* 2^-60 .. 2^40 */
    double v = ldexp(k + 0.5, -40);
    if (x % 4 == 1)
      v = nextafter(v, INFINITY);
    else if (x % 4 == 2)
      v = nextafter(v, -INFINITY);
    else if (x % 4 == 3)
      v = ldexp(k, e - 40) + ldexp(0.5, -40);
    num[x] = x % 50 == 7 ? 0x1p15 : x % 50 == 8 ? -0x1p8 : v;
  }
  sm_fin2_args_t a = {.i0 = 0, .j0 = 1, .m = 1, .n = N, .threshold = -1, .emit = 1};
  check2(&a, num, N, &si, sj, "checksum ties");
  for (int x = 0; x < N; x++)
    num[x] = ldexp(num[x], -12); /* all in the fast range */
  check2(&a, num, N, &si, sj, "checksum ties, small");
  free(num);
}
END_TEST

/* ---------------------------------------------------------------- 3-way */
/* The 3-way finalize, one triple at a time (sm_ccc3_values of the role
 * order, relabelled to ascending indices). */
static void ref3(const sm_fin3_args_t *a, const void *num3, const void *nax, size_t ldax,
                 const void *nay, size_t lday, const void *nxy, size_t ldxy,
                 const void *sa, const void *sx, const void *sy, sm_recbuf_t *out)
{
  const int ccc = a->metric == 1, ne = ccc ? 8 : 1;
  out->count = out->nvalues = 0;
  out->cksum = (sm_cksum_t){0, 0, 0, 0};
  out->hist_off =
      a->hist.bins ? sm_recbuf_hist_offset(a->emit ? sm_fin3_max_records(a) : 0) : 0;
  uint64_t *h = sm_recbuf_hist(out);
  if (h)
    memset(h, 0, sm_hist_words(&a->hist) * 8);
  const sm_keep3_t kept = {(uint32_t)a->kind, a->a_glob, a->x0, a->y0};
  for (uint32_t p = 0; p < a->g; p++)
    for (uint32_t x = 0; x < a->mx; x++)
      for (uint32_t y = (uint32_t)sm_keep3_lo(&kept, p, x, a->my); y < a->my; y++) {
        const size_t ra = a->a_off + p, t3 = ((size_t)p * a->mx + x) * a->my + y;
        const uint32_t g3[3] = {a->a_glob + p, a->x0 + x, a->y0 + y};
        int ord[3];
        sm_order3(g3[0], g3[1], g3[2], ord);
        const uint32_t idx[3] = {g3[ord[0]], g3[ord[1]], g3[ord[2]]};
        double v[8];
        if (!ccc) {
#define CZ3(T)                                                                           \
  sm_f_czek3(((const T *)nax)[ra * ldax + x], ((const T *)nay)[ra * lday + y],           \
             ((const T *)nxy)[(size_t)x * ldxy + y], ((const T *)num3)[t3],              \
             ((const T *)sa)[ra], ((const T *)sx)[x], ((const T *)sy)[y])
          v[0] = a->single ? CZ3(float) : CZ3(double);
#undef CZ3
        } else {
          const uint32_t *S[3] = {(const uint32_t *)sa + 2 * ra,
                                  (const uint32_t *)sx + 2 * x,
                                  (const uint32_t *)sy + 2 * y};
          sm_s64 t[8];
          if (a->sparse)
            sm_ccc3_moments_sparse((const uint32_t *)num3 + t3 * 12, t);
          else {
            const uint32_t *m = (const uint32_t *)num3 + t3 * 2;
            t[0] = (sm_s64)a->nf, t[1] = S[2][0], t[2] = S[1][0];
            t[3] = ((const uint32_t *)nxy)[(size_t)x * ldxy + y], t[4] = S[0][0];
            t[5] = ((const uint32_t *)nay)[ra * lday + y];
            t[6] = ((const uint32_t *)nax)[ra * ldax + x];
            t[7] = (sm_s64)m[0] + 2 * (sm_s64)m[1];
          }
          sm_ccc3_tallies(t);
          sm_u64 tu[8], s1[3] = {S[0][0], S[1][0], S[2][0]},
                        c[3] = {S[0][1], S[1][1], S[2][1]};
          for (int u = 0; u < 8; u++)
            tu[u] = (sm_u64)t[u];
          double w[8];
          sm_ccc3_values(tu, s1, c, a->nf, !a->sparse, a->ccc_mult, a->ccc_param, w);
          for (int u = 0; u < 8; u++)
            v[sm_label3(u, ord)] = w[u];
        }
        for (int e = 0; e < ne; e++) {
          sm_cksum_add(&out->cksum, idx, 3, (uint32_t)e, v[e]);
          out->nvalues++;
          if (h)
            h[(uint64_t)e * sm_hist_row(&a->hist) + sm_hist_slot(&a->hist, v[e])]++;
          if (keep_ref(ccc ? &a->thr_ent : NULL, a->threshold, a->thr_f32, 3, v,
                       (uint32_t)e, a->keep_all, a->emit, 0))
            out->rec[out->count++] =
                (sm_rec_t){{idx[0], idx[1], idx[2]}, (uint32_t)e, v[e]};
        }
      }
}

typedef struct piece {
  sm_fin3_args_t a;
  void *num3, *nax, *nay, *nxy, *sa, *sx, *sy;
  size_t ldax, lday, ldxy;
} piece_t;

static void check3(const piece_t *q, const char *what)
{
  const sm_fin3_args_t *a = &q->a;
  const size_t sz =
      sm_recbuf_hist_offset(sm_fin3_max_records(a)) + sm_hist_words(&a->hist) * 8 + 64;
  sm_recbuf_t *want = calloc(1, sz), *got = calloc(1, sz);
  ck_assert(want && got);
  ref3(a, q->num3, q->nax, q->ldax, q->nay, q->lday, q->nxy, q->ldxy, q->sa, q->sx, q->sy,
       want);
  for (int v = 0; v < NVAR; v++) {
    const char *name = use(variants[v]);
    if (!name)
      continue;
    memset(got, 0x5a, sz);
    sm_kern_finalize3(a, q->num3, q->nax, q->ldax, q->nay, q->lday, q->nxy, q->ldxy,
                      q->sa, q->sx, q->sy, got);
    char msg[200];
    snprintf(msg, sizeof msg, "%s (%s, kind %d g=%u mx=%u my=%u)", what, name, a->kind,
             a->g, a->mx, a->my);
    same_rb(want, got, &a->hist, msg);
  }
  sm_kern_fin_variant(SM_KVAR_AUTO);
  free(want), free(got);
}

static void fin3_modes(piece_t *q, const char *what)
{
  sm_fin3_args_t *a = &q->a;
  const double max = a->metric ? a->ccc_mult : 1.5;
  const sm_hist_spec_t none = {0, 0, 0, 0};
  a->emit = 1, a->threshold = -1, a->keep_all = 0, a->thr_ent.n = 0, a->hist = none;
  check3(q, what);
  a->emit = 0;
  check3(q, what);
  a->emit = 1, a->threshold = 0.2 * max, a->thr_f32 = 1;
  check3(q, what);
  a->thr_f32 = 0;
  check3(q, what);
  if (a->metric) {
    a->thr_ent = (sm_thr_list_t){5, {0.1, 0.2, 0.3, 0.15, 0.5}};
    check3(q, what);
    a->thr_ent.n = 0;
  }
  a->emit = 0, a->hist = (sm_hist_spec_t){13, a->metric ? 8u : 1u, 0, max};
  check3(q, what);
  a->hist = none;
}

/* A piece of g planes (from global a_glob, rows a_off.. of tile A) against
 * tiles X (x0) and Y (y0) with random numerators. */
static void piece_data(piece_t *q, int wild)
{
  sm_fin3_args_t *a = &q->a;
  const int ccc = a->metric == 1;
  const size_t es = ccc ? 4 : a->single ? 4 : 8, nm = ccc ? SM_CCC3_NMOM(a->sparse) : 1;
  const size_t na = a->a_off + a->g, n3 = (size_t)a->g * a->mx * a->my;
  q->ldax = a->mx + 1, q->lday = a->my + 2, q->ldxy = a->my + 1;
  q->num3 = malloc(n3 * nm * es + 8), q->nax = malloc(na * q->ldax * es + 8);
  q->nay = malloc(na * q->lday * es + 8), q->nxy = malloc(a->mx * q->ldxy * es + 8);
  q->sa = malloc(na * 2 * es + 8), q->sx = malloc(a->mx * 2 * es + 8);
  q->sy = malloc(a->my * 2 * es + 8);
  void *sums[3] = {q->sa, q->sx, q->sy}, *n2[3] = {q->nax, q->nay, q->nxy};
  const size_t ns[3] = {na, a->mx, a->my},
               n2s[3] = {na * q->ldax, na * q->lday, a->mx * q->ldxy};
  const uint32_t nf = (uint32_t)a->nf;
  for (int k = 0; k < 3; k++)
    for (size_t v = 0; v < ns[k]; v++) {
      if (!ccc) {
        const double s = v % 7 == 6 ? 0 : (double)(xr() % 10000) / 7;
        if (a->single)
          ((float *)sums[k])[v] = (float)s;
        else
          ((double *)sums[k])[v] = s;
        continue;
      }
      uint32_t *s = (uint32_t *)sums[k] + 2 * v;
      s[1] = wild         ? (uint32_t)(xr() % 5000)
             : v % 9 == 8 ? 0
                          : nf - (uint32_t)(xr() % (nf / 8 + 1));
      s[0] = wild ? (uint32_t)(xr() % 9000) : (uint32_t)(xr() % (2 * (uint64_t)s[1] + 1));
    }
  for (int k = 0; k < 3; k++)
    for (size_t x = 0; x < n2s[k]; x++) {
      const uint64_t r = xr() % (wild ? 20000 : 3 * (uint64_t)nf + 1);
      if (ccc)
        ((uint32_t *)n2[k])[x] = (uint32_t)r;
      else if (a->single)
        ((float *)n2[k])[x] = (float)r / 9;
      else
        ((double *)n2[k])[x] = (double)r / 9;
    }
  for (size_t t = 0; t < n3; t++) {
    if (!ccc) {
      const double r = (double)(xr() % 3000) / 11;
      if (a->single)
        ((float *)q->num3)[t] = (float)r;
      else
        ((double *)q->num3)[t] = r;
      continue;
    }
    uint32_t *m = (uint32_t *)q->num3 + t * nm;
    if (wild || !a->sparse) {
      for (size_t k = 0; k < nm; k++)
        m[k] = (uint32_t)(xr() % (wild ? 4000 : 600));
    } else
      for (int e = 0; e < 3; e++) { /* consistent moments of each part */
        const uint64_t t3 = xr() % 150, t2 = t3 % 2 + 2 * (xr() % 80),
                       t1 = t3 % 2 + 2 * (xr() % 80);
        uint64_t t0 = xr() % 300;
        t0 += (4 - (t0 + t1 + t2 + t3) % 4) % 4;
        m[4 * e] = (uint32_t)t3, m[4 * e + 1] = (uint32_t)((t2 + t3) / 2);
        m[4 * e + 2] = (uint32_t)((t1 + t3) / 2),
                  m[4 * e + 3] = (uint32_t)((t0 + t1 + t2 + t3) / 4);
      }
    if (t % 19 == 3)
      memset(m, 0, nm * 4);
  }
}

static void piece_free(piece_t *q)
{
  free(q->num3), free(q->nax), free(q->nay), free(q->nxy), free(q->sa), free(q->sx);
  free(q->sy);
}

START_TEST(fin3_all)
{
  /* kinds: diagonal (a < x < y within one tile), face (x < y), volume
   * (planes below, between or above the tiles: the runs' orders change) */
  static const struct {
    int kind;
    uint32_t a_glob, x0, y0;
  } shapes[] = {{0, 12, 10, 10},   {1, 3, 20, 20},    {2, 0, 50, 150},
                {2, 160, 50, 150}, {2, 100, 50, 150}, {2, 60, 50, 52}};
  static const uint32_t dims[][3] = {{1, 1, 1},   {2, 5, 9}, {3, 17, 33},
                                     {1, 9, 130}, {2, 8, 8}, {1, 40, 257}};
  for (int metric = 0; metric < 2; metric++)
    for (int var = 0; var < 2; var++) /* sparse / single */
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const uint32_t *d = dims[(s + (size_t)var + 2 * (size_t)metric) % 6];
        uint32_t g = d[0], mx = d[1], my = d[2];
        if (shapes[s].kind < 2)
          my = mx = (mx > my ? mx : my) % 70 + 1; /* one tile */
        for (int wild = 0; wild < 1 + metric; wild++) {
          piece_t q = {.a = {.metric = metric,
                             .sparse = metric && var,
                             .single = !metric && var,
                             .kind = shapes[s].kind,
                             .g = g,
                             .mx = mx,
                             .my = my,
                             .a_glob = shapes[s].a_glob,
                             .a_off = 1,
                             .x0 = shapes[s].x0,
                             .y0 = shapes[s].y0,
                             .nf = 1 + xr() % 2000,
                             .ccc_mult = 4.5,
                             .ccc_param = 2.0 / 3}};
          if (shapes[s].kind == 0) /* the planes are X's rows */
            q.a.a_glob = q.a.x0 + (uint32_t)(xr() % mx);
          piece_data(&q, wild);
          fin3_modes(&q, wild ? "3-way any counts" : metric ? "ccc3" : "czek3");
          if (metric) {
            q.a.ccc_param = -1.25;
            fin3_modes(&q, "ccc3 param < 0");
            q.a.ccc_param = INFINITY;
            check3(&q, "ccc3 param inf");
            q.a.ccc_param = 2.0 / 3, q.a.ccc_mult = 1e6;
            check3(&q, "ccc3 large multiplier");
          } else {
            for (size_t t = 0; t < (size_t)g * mx * my; t += 4) {
              const double odd[4] = {NAN, -0.0, 1e300, INFINITY};
              if (q.a.single)
                ((float *)q.num3)[t] = (float)odd[t / 4 % 4];
              else
                ((double *)q.num3)[t] = odd[t / 4 % 4];
            }
            fin3_modes(&q, "czek3 NaN");
          }
          piece_free(&q);
        }
      }
}
END_TEST

/* ---------------------------------------------------------------- choice */
START_TEST(fin_variant_choice)
{
  ck_assert_str_eq(sm_kern_fin_variant(SM_KVAR_BLOCKED), "portable");
  ck_assert_ptr_null(sm_fin_isa());
  ck_assert_ptr_null(sm_kern_fin_variant(SM_KVAR_VNNI)); /* not a finalize variant */
  ck_assert_ptr_null(sm_fin_isa());                      /* unchanged */
  const char *a = sm_kern_fin_variant(SM_KVAR_AUTO);
  ck_assert_ptr_nonnull(a);
  const sm_fin_isa_t *isa = sm_fin_isa();
  ck_assert_str_eq(a, isa ? isa->name : "portable");
  use(SM_KVAR_AVX512), use(SM_KVAR_AVX2);
  sm_kern_fin_variant(SM_KVAR_AUTO);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("finalize");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, fin_variant_choice);
  tcase_add_test(tc, fin2_cksum_ties);
  tcase_add_test(tc, fin2_czek);
  tcase_add_test(tc, fin2_ld);
  tcase_add_test(tc, fin2_forms);
  tcase_add_test(tc, fin2_forms_exact);
  tcase_add_test(tc, fin2_ccc);
  tcase_add_test(tc, fin3_all);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(suite)
