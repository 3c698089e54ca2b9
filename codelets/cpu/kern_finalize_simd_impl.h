/* kern_finalize_simd_impl.h: the finalize kernels' inner loops written once
 * for every instruction set. The including file defines SM_TARGET (the
 * function attribute), SM_ID(x) (unique names), SM_ISA_NAME, the vector
 * types vd (VL doubles), vi (VL uint64), vm (a lane mask), ckv (a value's
 * fixed-point checksum term) and ck_t (a chunk's checksum sums), and the
 * operations on them used below (vd_*, vi_*, vm_*, ck_*).
 *
 * The values are those of sm_formulas.h, operation by operation (no
 * contraction: C11 and the intrinsics round each operation), with exact
 * rewrites only: a product or sum of two numbers in either order (IEEE
 * multiplication and addition commute: min times max of two counts,
 * Czekanowski's s_i + s_j); and the factor 1 - param f of the smaller of
 * two (or three) f is the larger (param >= 0) or smaller (param < 0) of
 * their factors, since rounding keeps order: f <= f' gives param f <=
 * param f' and 1 - param f >= 1 - param f' (so sorting the factors sorts
 * the f, equal f giving equal factors). That takes a finite param (the
 * callers run the portable loops otherwise); a factor is never -0, and
 * NaN only for results that are 0 whatever it is. Integer counts are exact
 * doubles (below 2^53), so their sums do not depend on the order of the
 * additions. Czekanowski 3-way sorts with sm_f_czek3's own network
 * (compare and exchange), exact for NaN and signed zeros too. */

#include <math.h>
#include <string.h>

#define SM_ALWAYS __attribute__((always_inline)) SM_TARGET static inline

/* the factor of the smaller f, and of the larger */
#define SM_GLO(pneg, a, b) ((pneg) ? vd_min(a, b) : vd_max(a, b))
#define SM_GHI(pneg, a, b) ((pneg) ? vd_max(a, b) : vd_min(a, b))

/* sm_cksum_key2 of VL packed index pairs */
SM_ALWAYS vi SM_ID(key2)(vi x)
{
  return vi_mix(vi_xor(vi_mix(x), vi_set(0xffffffffu)));
}

/* The checksum terms of one 2-way CCC result per lane: values w[e] as
 * computed (labels e, or swapped (b, a)). */
SM_ALWAYS void SM_ID(ck_ccc2)(ck_t *ck, vi key, const vd w[4], int swap)
{
  const ckv q0 = ck_val(ck, w[0]), q1 = ck_val(ck, w[1]), q2 = ck_val(ck, w[2]),
            q3 = ck_val(ck, w[3]);
  /* entries (a, b) with b = 1, with a = 1; swapped, labelled (b, a) */
  const ckv a = ckv_add(q1, q3), b = ckv_add(q2, q3);
  const ckv Q = ckv_add(ckv_add(q0, q2), a);
  ck_result(ck, key, Q, swap ? b : a, a, b, ckv_zero(), 0);
}

/* A chunk's constants as vectors (locals, so that stores to the values
 * do not make the compiler reload them). */
typedef struct SM_ID(k2) {
  vd row[4], mult, param, rs, one, half, zero, four, two;
  vd zfill; /* czek: the value of a pair of two zero sums (sm_f_minsum2_zero) */
  const double *col[4];
  int swap;
} SM_ID(k2_t);

SM_ALWAYS void SM_ID(k2_init)(SM_ID(k2_t) * k, const sm_fin2_chunk_t *ch)
{
  for (int r = 0; r < 4; r++) {
    k->row[r] = vd_set(ch->row[r]);
    k->col[r] = ch->col[r];
  }
  k->mult = vd_set(ch->mult), k->param = vd_set(ch->param), k->rs = vd_set(ch->rs);
  k->one = vd_set(1.0), k->half = vd_set(0.5), k->zero = vd_set(0.0);
  k->four = vd_set(4.0), k->two = vd_set(2.0);
  k->zfill = vd_set(sm_f_minsum2_zero(ch->form, ch->zero_nan));
  k->swap = ch->swap;
}

/* ---- 2-way CCC, sparse: VL pairs from column j (mom: their moments) */
SM_ALWAYS void SM_ID(sparse_grp)(const SM_ID(k2_t) * k, const uint32_t *mom, uint32_t j,
                                 double *restrict v, const int pneg)
{
  vd m[4]; /* rr, rm, mr, mm */
  vd_u32x4(mom, m);
  vd t[4]; /* sm_ccc2_tally_d */
  const vd rm2 = vd_add(m[1], m[1]), mr2 = vd_add(m[2], m[2]);
  const vd cij = vd_mul(m[3], k->four); /* t0 + t1 + t2 + t3, exactly */
  t[3] = m[0];
  t[2] = vd_sub(rm2, m[0]);
  t[1] = vd_sub(mr2, m[0]);
  t[0] = vd_add(vd_sub(vd_sub(cij, rm2), mr2), m[0]);
  /* sm_ccc2_values_d, sparse */
  const vd s1j = vd_ld(k->col[0] + j), s0j = vd_ld(k->col[1] + j),
           cj = vd_ld(k->col[2] + j);
  const vd ci = k->row[2];
  const vm ok = vm_not(vm_or(vm_eq(cj, k->zero), vm_eq(cij, k->zero)));
  const vd d1 = vd_mul(ci, cj); /* cmin cmax */
  const vd r = vd_div(k->one, vd_mul(d1, cij));
  const vd rci = vd_mul(vd_mul(cj, cij), r), rcj = vd_mul(vd_mul(ci, cij), r),
           rs = vd_mul(d1, r);
  const vd hi = vd_mul(k->half, rci), hj = vd_mul(k->half, rcj);
  const vd gi[2] = {vd_sub(k->one, vd_mul(k->param, vd_mul(hi, k->row[1]))),
                    vd_sub(k->one, vd_mul(k->param, vd_mul(hi, k->row[0])))};
  const vd gj[2] = {vd_sub(k->one, vd_mul(k->param, vd_mul(hj, s0j))),
                    vd_sub(k->one, vd_mul(k->param, vd_mul(hj, s1j)))};
#pragma GCC unroll 4
  for (int e = 0; e < 4; e++) {
    const vd a = gi[e >> 1], b = gj[e & 1];
    const vd x = vd_mul(vd_mul(k->mult, vd_mul(rs, t[e])), SM_GLO(pneg, a, b));
    vd_st(v + e * SM_FIN_CHUNK + j, vd_mul_mz(ok, x, SM_GHI(pneg, a, b)));
  }
}

/* ---- 2-way CCC, dense: the factors are the row's and the columns' */
SM_ALWAYS void SM_ID(dense_grp)(const SM_ID(k2_t) * k, const uint32_t *mom, uint32_t j,
                                double *restrict v, const int pneg)
{
  const vd rr = vd_u32(mom), s1j2 = vd_ld(k->col[2] + j);
  vd t[4]; /* sm_ccc2_tally_d(rr, s1i, s1j, nf) */
  t[3] = rr;
  t[2] = vd_sub(k->row[2], rr);
  t[1] = vd_sub(s1j2, rr);
  t[0] = vd_add(vd_sub(k->row[3], s1j2), rr);
  const vm ok = vm_not(vm_eq(vd_ld(k->col[3] + j), k->zero));
  const vd gj[2] = {vd_ld(k->col[0] + j), vd_ld(k->col[1] + j)};
#pragma GCC unroll 4
  for (int e = 0; e < 4; e++) {
    const vd a = k->row[e >> 1], b = gj[e & 1];
    const vd x = vd_mul(vd_mul(k->mult, vd_mul(k->rs, t[e])), SM_GLO(pneg, a, b));
    vd_st(v + e * SM_FIN_CHUNK + j, vd_mul_mz(ok, x, SM_GHI(pneg, a, b)));
  }
}

/* ---- 2-way Czekanowski: 2 n2 / (si + sj), 0 unless the sum is > 0 */
SM_ALWAYS void SM_ID(czek_grp)(const SM_ID(k2_t) * k, vd n2, uint32_t j,
                               double *restrict v)
{
  const vd d = vd_add(k->row[0], vd_ld(k->col[0] + j));
  vd_st(v + j, vd_div_mz(vm_gt(d, k->zero), vd_mul(k->two, n2), d));
}

/* ---- 2-way, every form of the same numerators (sm_f_minsum2's
 * operations, d = si + sj): PS 2 n2 / d, Bray-Curtis (d - 2 n2) / d,
 * Jaccard (d - 2 n2) / (d - n2); sm_f_minsum2_zero's value unless d > 0 */
SM_ALWAYS void SM_ID(form_grp)(const SM_ID(k2_t) * k, vd n2, uint32_t j,
                               double *restrict v, const int form)
{
  const vd d = vd_add(k->row[0], vd_ld(k->col[0] + j));
  vd x;
  if (form == SM_FORM_PS)
    x = vd_div(vd_mul(k->two, n2), d);
  else {
    const vd u = vd_sub(d, vd_mul(k->two, n2));
    x = vd_div(u, form == SM_FORM_JACCARD ? vd_sub(d, n2) : d);
  }
  vd_st(v + j, vd_blend(vm_gt(d, k->zero), k->zfill, x));
}

/* ---- PLINK's r^2 (r2) or r: sm_f_ld, operation by operation, of VL
 * pairs from column j (mom: their moments rr, rm, mr, mm; hom: their
 * homozygous tallies hx, hy); r times the row's and the column's signs,
 * + 0 (no -0) */
SM_ALWAYS void SM_ID(ld_grp)(const SM_ID(k2_t) * k, const uint32_t *mom,
                             const uint32_t *hom, uint32_t j, double *restrict v,
                             const int r2)
{
  vd m[4], h[2];
  vd_u32x4(mom, m);
  vd_u32x2(hom, h);
  const vd cov = vd_sub(vd_mul(m[3], m[0]), vd_mul(m[1], m[2]));
  const vd vx =
      vd_sub(vd_mul(m[3], vd_add(m[1], vd_mul(k->two, h[0]))), vd_mul(m[1], m[1]));
  const vd vy =
      vd_sub(vd_mul(m[3], vd_add(m[2], vd_mul(k->two, h[1]))), vd_mul(m[2], m[2]));
  const vd den = vd_mul(vx, vy);
  if (r2) {
    vd_st(v + j, vd_div(vd_mul(cov, cov), den));
    return;
  }
  const vd x = vd_div(cov, vd_sqrt(den));
  vd_st(v + j, vd_add(vd_mul(x, vd_mul(k->row[0], vd_ld(k->col[0] + j))), k->zero));
}

/* The LD chunk's groups; the last from zero-padded copies (its lanes past
 * nc then zeroed by the caller). */
SM_ALWAYS void SM_ID(ld_groups)(const SM_ID(k2_t) * k, const sm_fin2_chunk_t *ch,
                                double *restrict v, const int r2)
{
  const uint32_t *mom = ch->num, *hom = ch->hom;
  uint32_t j = 0;
  for (; j + VL <= ch->nc; j += VL)
    SM_ID(ld_grp)(k, mom + (size_t)j * 4, hom + (size_t)j * 2, j, v, r2);
  if (j < ch->nc) {
    uint32_t pm[4 * VL], ph[2 * VL];
    memset(pm, 0, sizeof pm), memset(ph, 0, sizeof ph);
    memcpy(pm, mom + (size_t)j * 4, (ch->nc - j) * 4 * sizeof *pm);
    memcpy(ph, hom + (size_t)j * 2, (ch->nc - j) * 2 * sizeof *ph);
    SM_ID(ld_grp)(k, pm, ph, j, v, r2);
  }
}

/* The chunk's groups of VL pairs; the last one from a zero-padded copy of
 * its numerators (zero numerators give values 0). */
#define SM_GROUPS(T, per, GRP)                                                           \
  do {                                                                                   \
    const T *num_ = (const T *)ch->num;                                                  \
    uint32_t j_ = 0;                                                                     \
    for (; j_ + VL <= ch->nc; j_ += VL)                                                  \
      GRP(num_ + (size_t)j_ * (per), j_);                                                \
    if (j_ < ch->nc) {                                                                   \
      T pad_[(per)*VL];                                                                  \
      memset(pad_, 0, sizeof pad_);                                                      \
      memcpy(pad_, num_ + (size_t)j_ * (per), (ch->nc - j_) * (per) * sizeof(T));        \
      GRP(pad_, j_);                                                                     \
    }                                                                                    \
  } while (0)

/* The values of a chunk (v[e * SM_FIN_CHUNK + c], zero past nc up to a
 * multiple of VL). */
SM_TARGET static void SM_ID(vals2)(const sm_fin2_chunk_t *ch, double *restrict v)
{
  SM_ID(k2_t) k;
  SM_ID(k2_init)(&k, ch);
  switch (ch->kind) {
  case SM_FIN2_SPARSE:
#define SM_SP0(p, j) SM_ID(sparse_grp)(&k, p, j, v, 0)
#define SM_SP1(p, j) SM_ID(sparse_grp)(&k, p, j, v, 1)
    if (ch->pneg)
      SM_GROUPS(uint32_t, 4, SM_SP1);
    else
      SM_GROUPS(uint32_t, 4, SM_SP0);
    break;
  case SM_FIN2_DENSE:
#define SM_DN0(p, j) SM_ID(dense_grp)(&k, p, j, v, 0)
#define SM_DN1(p, j) SM_ID(dense_grp)(&k, p, j, v, 1)
    if (ch->pneg)
      SM_GROUPS(uint32_t, 1, SM_DN1);
    else
      SM_GROUPS(uint32_t, 1, SM_DN0);
    break;
  case SM_FIN2_CZEK_D:
#define SM_CZD(p, j) SM_ID(czek_grp)(&k, vd_ld(p), j, v)
#define SM_PSD(p, j) SM_ID(form_grp)(&k, vd_ld(p), j, v, SM_FORM_PS)
#define SM_BCD(p, j) SM_ID(form_grp)(&k, vd_ld(p), j, v, SM_FORM_BC)
#define SM_JAD(p, j) SM_ID(form_grp)(&k, vd_ld(p), j, v, SM_FORM_JACCARD)
    if (ch->form == SM_FORM_BC)
      SM_GROUPS(double, 1, SM_BCD);
    else if (ch->form == SM_FORM_JACCARD)
      SM_GROUPS(double, 1, SM_JAD);
    else if (ch->zero_nan)
      SM_GROUPS(double, 1, SM_PSD);
    else
      SM_GROUPS(double, 1, SM_CZD);
    break;
  case SM_FIN2_LD:
    if (ch->form == SM_FORM_R2)
      SM_ID(ld_groups)(&k, ch, v, 1);
    else
      SM_ID(ld_groups)(&k, ch, v, 0);
    break;
  default:
#define SM_CZS(p, j) SM_ID(czek_grp)(&k, vd_f32(p), j, v)
#define SM_PSS(p, j) SM_ID(form_grp)(&k, vd_f32(p), j, v, SM_FORM_PS)
#define SM_BCS(p, j) SM_ID(form_grp)(&k, vd_f32(p), j, v, SM_FORM_BC)
#define SM_JAS(p, j) SM_ID(form_grp)(&k, vd_f32(p), j, v, SM_FORM_JACCARD)
    if (ch->form == SM_FORM_BC)
      SM_GROUPS(float, 1, SM_BCS);
    else if (ch->form == SM_FORM_JACCARD)
      SM_GROUPS(float, 1, SM_JAS);
    else if (ch->zero_nan)
      SM_GROUPS(float, 1, SM_PSS);
    else
      SM_GROUPS(float, 1, SM_CZS);
    break;
  }
  /* the lanes past nc: 0, as PS's zero numerators give (LD's: 0 / 0) */
  if ((ch->kind == SM_FIN2_LD ||
       ((ch->kind == SM_FIN2_CZEK_D || ch->kind == SM_FIN2_CZEK_S) &&
        (ch->form != SM_FORM_PS || ch->zero_nan))) &&
      ch->nc % VL)
    memset(v + ch->nc, 0, (VL - ch->nc % VL) * sizeof(double));
#undef SM_SP0
#undef SM_SP1
#undef SM_DN0
#undef SM_DN1
#undef SM_CZD
#undef SM_CZS
#undef SM_PSD
#undef SM_BCD
#undef SM_JAD
#undef SM_PSS
#undef SM_BCS
#undef SM_JAS
}

/* The checksum keys of the chunk's pairs (a loop of its own: the
 * multiplies' latency overlaps across iterations). */
SM_TARGET static void SM_ID(keys2)(const sm_fin2_chunk_t *ch, uint64_t *restrict key)
{
  vi kx = vi_iota(ch->key_in, ch->key_step);
  const vi kd = vi_set(VL * ch->key_step);
  for (uint32_t j = 0; j < ch->nc; j += VL, kx = vi_add(kx, kd))
    vi_st(key + j, SM_ID(key2)(kx));
}

/* The checksum terms of the chunk's values. */
SM_TARGET static int SM_ID(ck2)(const sm_fin2_chunk_t *ch, const double *restrict v,
                                const uint64_t *restrict key, sm_fin_ck_t *out)
{
  ck_t ck;
  ck_init(&ck);
  if (ch->kind == SM_FIN2_SPARSE || ch->kind == SM_FIN2_DENSE) {
    const int swap = ch->swap;
    for (uint32_t j = 0; j < ch->nc; j += VL) {
      const vd w[4] = {vd_ld(v + j), vd_ld(v + SM_FIN_CHUNK + j),
                       vd_ld(v + 2 * SM_FIN_CHUNK + j), vd_ld(v + 3 * SM_FIN_CHUNK + j)};
      SM_ID(ck_ccc2)(&ck, vi_ld(key + j), w, swap);
    }
    /* label sum: a and b weigh 1 and 2, swapped 2 and 1 */
    const uint64_t w[3] = {swap ? 2u : 1u, swap ? 1u : 2u, 0};
    return ck_done(&ck, out, 4 * (uint64_t)ch->nc, w);
  }
  for (uint32_t j = 0; j < ch->nc; j += VL)
    ck_result1(&ck, vi_ld(key + j), ck_val(&ck, vd_ld(v + j)));
  const uint64_t w0[3] = {0, 0, 0};
  return ck_done(&ck, out, ch->nc, w0);
}

SM_TARGET static int SM_ID(values2)(const sm_fin2_chunk_t *ch, double *restrict v,
                                    sm_fin_ck_t *out)
{
  uint64_t key[SM_FIN_CHUNK] __attribute__((aligned(64)));
  SM_ID(keys2)(ch, key);
  SM_ID(vals2)(ch, v);
  return SM_ID(ck2)(ch, v, key, out);
}

/* ---- kept values (sm_fin_keep_fn): one threshold, or CoMet's list */
/* value x kept by one threshold: x > thr, of a dissimilarity x <= thr */
SM_ALWAYS vm SM_ID(kept1)(vd x, vd thr, const int le)
{
  return le ? vm_le(x, thr) : vm_gt(x, thr);
}

SM_ALWAYS uint32_t SM_ID(keep_thr)(const sm_fin_thr_t *t, const double *const *ve,
                                   uint32_t n, int ne, uint8_t *mk, uint8_t *gl,
                                   const int f32, const int le)
{
  const vd thr = vd_set(t->thr);
  uint32_t ng = 0;
  for (uint32_t c = 0; c < n; c += 8) {
    unsigned any = 0;
    for (int h = 0; h < 8; h += VL)
      for (int e = 0; e < ne; e++) {
        const vd x = vd_ld(ve[e] + c + h);
        any |= vm_bits(SM_ID(kept1)(f32 ? vd_f32r(x) : x, thr, le));
      }
    if (!any) /* the common case: nothing kept in the group */
      continue;
    gl[ng++] = (uint8_t)(c / 8);
    for (int e = 0; e < 8; e++) {
      unsigned bits = 0;
      for (int h = 0; h < 8 && e < ne; h += VL) {
        const vd x = vd_ld(ve[e] + c + h);
        bits |= vm_bits(SM_ID(kept1)(f32 ? vd_f32r(x) : x, thr, le)) << h;
      }
      mk[c + e] = (uint8_t)bits;
    }
  }
  return ng;
}

SM_ALWAYS uint32_t SM_ID(keep_lst)(const sm_fin_thr_t *t, const double *const *ve,
                                   uint32_t n, int ne, int way, uint8_t *mk, uint8_t *gl,
                                   const int f32)
{
  const vd zero = vd_set(0.0), tboth = vd_set(t->lst[way + 1]);
  const int all = way == 2 ? 3 : 7;
  uint32_t ng = 0;
  for (uint32_t c = 0; c < n; c += 8) {
    unsigned bits[8] = {0, 0, 0, 0, 0, 0, 0, 0}, any = 0;
    for (int h = 0; h < 8; h += VL) {
      const vd lo = f32 ? vd_f32r(vd_ld(ve[0] + c + h)) : vd_ld(ve[0] + c + h);
      const vd hi = f32 ? vd_f32r(vd_ld(ve[all] + c + h)) : vd_ld(ve[all] + c + h);
      const vm both =
          vm_and(vm_and(vm_gt(lo, zero), vm_gt(hi, zero)), vm_gt(vd_add(lo, hi), tboth));
      for (int e = 0; e < ne; e++) {
        const int w = (e & 1) + ((e >> 1) & 1) + ((e >> 2) & 1);
        const vd x = f32 ? vd_f32r(vd_ld(ve[e] + c + h)) : vd_ld(ve[e] + c + h);
        vm m = vm_gt(x, vd_set(t->lst[w]));
        if (e == 0 || e == all)
          m = vm_or(m, both);
        bits[e] |= vm_bits(m) << h;
        any |= bits[e];
      }
    }
    if (!any)
      continue;
    gl[ng++] = (uint8_t)(c / 8);
    for (int e = 0; e < 8; e++)
      mk[c + e] = (uint8_t)bits[e];
  }
  return ng;
}

/* Lanes past n are in no group's bits. */
SM_TARGET static uint32_t SM_ID(keep)(const sm_fin_thr_t *t, const double *const *ve,
                                      uint32_t n, int ne, int way, uint8_t *mk,
                                      uint8_t *gl)
{
  const uint32_t ng = t->lst  ? (t->f32 ? SM_ID(keep_lst)(t, ve, n, ne, way, mk, gl, 1)
                                        : SM_ID(keep_lst)(t, ve, n, ne, way, mk, gl, 0))
                      : t->le ? (t->f32 ? SM_ID(keep_thr)(t, ve, n, ne, mk, gl, 1, 1)
                                        : SM_ID(keep_thr)(t, ve, n, ne, mk, gl, 0, 1))
                              : (t->f32 ? SM_ID(keep_thr)(t, ve, n, ne, mk, gl, 1, 0)
                                        : SM_ID(keep_thr)(t, ve, n, ne, mk, gl, 0, 0));
  if (ng && gl[ng - 1] * 8u + 8 > n) { /* the last group: only lanes below n */
    uint8_t *g = mk + gl[ng - 1] * 8u;
    unsigned any = 0;
    for (int e = 0; e < 8; e++)
      any |= g[e] &= (uint8_t)((1u << (n - gl[ng - 1] * 8u)) - 1);
    return any ? ng : ng - 1;
  }
  return ng;
}

/* ---- histogram slots (sm_fin_hist_slots) */
SM_TARGET static int SM_ID(slots)(const sm_fin_hist_t *h, const double *v, uint32_t n,
                                  int32_t *slot)
{
  const vd lo = vd_set(h->lo), hi = vd_set(h->hi), rw = vd_set(h->rw),
           bins = vd_set(h->bins);
  const vd top = vd_set(h->nbins - 1.0), tol = vd_set(0x1p-48), one = vd_set(1.0),
           zero = vd_set(0.0), above = vd_set(h->nbins + 1.0),
           nan = vd_set(h->nbins + 2.0), far = vd_set(-1.0);
  vm anynear = vm_none();
  for (uint32_t c = 0; c < n; c += VL) {
    const vd x = vd_ld(v + c);
    const vm in = vm_and(vm_ge(x, lo), vm_le(x, hi));
    const vd y = vd_mul(vd_mul(vd_sub(x, lo), rw), bins);
    const vd f = vd_floor(y), d = vd_sub(y, f), t = vd_mul(y, tol);
    const vm near = vm_or(vm_lt(d, t), vm_lt(vd_sub(one, d), t));
    if (n - c < VL) /* lanes past n */
      anynear = vm_or(anynear, vm_and(vm_and(near, in), vm_lt(vd_iota(), vd_set(n - c))));
    else
      anynear = vm_or(anynear, vm_and(near, in));
    const vd s = vd_blend(near, vd_add(one, vd_min(f, top)), far);
    const vd out = vd_blend(vm_nan(x), vd_blend(vm_lt(x, lo), above, zero), nan);
    vd_sti32(slot + c, vd_blend(in, out, s));
  }
  return vm_bits(anynear) != 0;
}

/* ---- top-k candidates (sm_fin_topk_fn) */
SM_TARGET static void SM_ID(topk)(const double *v, size_t ld, uint32_t n, int ne,
                                  const int *lr, const int *lc, int nl,
                                  const double *rthr, const double *const *cthr,
                                  uint8_t *rm, uint8_t *cm, double *rv)
{
  const vd ninf = vd_set(-INFINITY);
  for (uint32_t c = 0; c < n; c += 8) {
    unsigned k = 0, r = 0;
    double best[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (int h = 0; h < 8; h += VL) {
      const uint32_t left = n - c - (uint32_t)h;
      vm valid = vm_all();
      if (left < VL) /* lanes past n: not candidates */
        valid = vm_lt(vd_iota(), vd_set((double)left));
      vm mc = vm_none(), mr = vm_none();
      vd mx[4] = {ninf, ninf, ninf, ninf};
      for (int e = 0; e < ne; e++) {
        const vd x = vd_blend(valid, ninf, vd_ld(v + e * ld + c + h));
        mc = vm_or(mc, vm_ge(x, vd_ld(cthr[lc[e]] + c + h)));
        mr = vm_or(mr, vm_ge(x, vd_set(rthr[lr[e]])));
        mx[lr[e]] = vd_max(x, mx[lr[e]]); /* NaN x: mx kept */
      }
      k |= vm_bits(mc) << h, r |= vm_bits(mr) << h;
      for (int l = 0; l < nl; l++) {
        const double m = vd_hmax(mx[l]);
        best[l] = m > best[l] ? m : best[l];
      }
      if (left <= VL)
        break;
    }
    cm[c / 8] = (uint8_t)k, rm[c / 8] = (uint8_t)r;
    for (int l = 0; l < 4; l++)
      rv[c / 2 + l] = best[l];
  }
}

/* ---- 3-way: a run of y (sm_fin3_run_t) */
typedef struct SM_ID(k3) {
  vd row[4], pxlo[4], pxhi[4], mult, rs, one, zero, half15;
  const double *col[6];
} SM_ID(k3_t);

SM_ALWAYS void SM_ID(k3_init)(SM_ID(k3_t) * k, const sm_fin3_run_t *r)
{
  for (int i = 0; i < 4; i++) {
    k->row[i] = vd_set(r->row[i]);
    k->pxlo[i] = vd_set(r->pxlo[i]), k->pxhi[i] = vd_set(r->pxhi[i]);
  }
  for (int i = 0; i < 6; i++)
    k->col[i] = r->col[i];
  k->mult = vd_set(r->mult), k->rs = vd_set(r->rs), k->one = vd_set(1.0);
  k->zero = vd_set(0.0), k->half15 = vd_set(1.5);
}

/* CCC: VL triples from the run's c (m: their moments); *neg gets the lanes
 * with a negative tally. */
SM_ALWAYS void SM_ID(ccc3_grp)(const SM_ID(k3_t) * k, const uint32_t *m, uint32_t c,
                               double *restrict w, vd *tmin, const int sparse,
                               const int pneg)
{
  vd t[8]; /* role-order moments, then tallies (sm_ccc3_moments_sparse,
              sm_ccc3_tallies), exact */
  if (sparse) {
    vd f[12];
    vd_u32x12(m, f);
#pragma GCC unroll 4
    for (int u = 0; u < 4; u++) { /* u = 2 bx + by; moment k = 3 - u */
      t[4 + u] = vd_add(f[7 - u], vd_add(f[11 - u], f[11 - u]));
      t[u] = vd_add(vd_add(f[3 - u], f[7 - u]), f[11 - u]);
    }
  } else {
    vd f[2];
    vd_u32x2(m, f);
    t[0] = k->row[0], t[1] = vd_ld(k->col[3] + c), t[2] = k->row[1];
    t[3] = vd_ld(k->col[5] + c), t[4] = k->row[2], t[5] = vd_ld(k->col[4] + c);
    t[6] = k->row[3], t[7] = vd_add(f[0], vd_add(f[1], f[1]));
  }
#pragma GCC unroll 3
  for (int bit = 4; bit > 0; bit >>= 1)
#pragma GCC unroll 8
    for (int u = 0; u < 8; u++)
      if (!(u & bit))
        t[u] = vd_sub(vd_add(t[u], t[u]), t[u | bit]);
  vm ok = vm_not(vm_eq(vd_ld(k->col[2] + c), k->zero)); /* cy != 0 */
  vd rs = k->rs;
  if (sparse) {
    const vd cijk = vd_add(vd_add(vd_add(t[0], t[1]), vd_add(t[2], t[3])),
                           vd_add(vd_add(t[4], t[5]), vd_add(t[6], t[7])));
    ok = vm_and(ok, vm_not(vm_eq(cijk, k->zero)));
    rs = vd_div(k->one, cijk);
  }
  /* the counted triples' smallest tally (the others are 0 whatever it is) */
  const vd lo = vd_min(vd_min(vd_min(t[0], t[1]), vd_min(t[2], t[3])),
                       vd_min(vd_min(t[4], t[5]), vd_min(t[6], t[7])));
  *tmin = vd_min(*tmin, vd_mz(ok, lo));
  const vd gy[2] = {vd_ld(k->col[0] + c), vd_ld(k->col[1] + c)};
#pragma GCC unroll 8
  for (int u = 0; u < 8; u++) {
    const vd hi = k->pxhi[u >> 1], lo2 = k->pxlo[u >> 1], g = gy[u & 1];
    const vd gmax = vd_max(hi, g), gmin = vd_min(lo2, g),
             gmid = vd_max(lo2, vd_min(hi, g));
    const vd x = vd_mul(k->mult, vd_mul(rs, t[u]));
    const vd y = vd_mul(vd_mul(x, pneg ? gmin : gmax), gmid);
    vd_st(w + u * SM_FIN_RUN3 + c, vd_mul_mz(ok, y, pneg ? gmax : gmin));
  }
}

/* compare-exchange: a, b = b, a where a > b (sm_f_czek3's network) */
SM_ALWAYS void SM_ID(cx)(vd *a, vd *b)
{
  const vm m = vm_gt(*a, *b);
  const vd x = vd_blend(m, *a, *b), y = vd_blend(m, *b, *a);
  *a = x, *b = y;
}

/* Czekanowski: VL triples from c (n3: their numerators as doubles) */
SM_ALWAYS void SM_ID(czek3_grp)(const SM_ID(k3_t) * k, vd n3, vd nay, vd nxy, uint32_t c,
                                double *restrict w)
{
  vd a = k->row[0], b = nay, cc = nxy, x = k->row[1], y = k->row[2],
     z = vd_ld(k->col[0] + c);
  SM_ID(cx)(&a, &b), SM_ID(cx)(&b, &cc), SM_ID(cx)(&a, &b);
  SM_ID(cx)(&x, &y), SM_ID(cx)(&y, &z), SM_ID(cx)(&x, &y);
  const vd d = vd_add(vd_add(x, y), z);
  const vd num = vd_mul(k->half15, vd_sub(vd_add(vd_add(a, b), cc), n3));
  vd_st(w + c, vd_div_mz(vm_gt(d, k->zero), num, d));
}

/* The run's values; SM_FIN_PORT when a tally is negative. */
SM_TARGET static int SM_ID(vals3)(const sm_fin3_run_t *r, double *restrict w)
{
  SM_ID(k3_t) k;
  SM_ID(k3_init)(&k, r);
  const struct {
    const void *num;
    uint32_t nc;
  } g = {r->m3, r->n};
  vd tmin = vd_set(0.0);
#define SM_GRP3(T, per, GRP)                                                             \
  do {                                                                                   \
    const T *num_ = (const T *)g.num;                                                    \
    uint32_t j_ = 0;                                                                     \
    for (; j_ + VL <= g.nc; j_ += VL)                                                    \
      GRP(num_ + (size_t)j_ * (per), j_);                                                \
    if (j_ < g.nc) {                                                                     \
      T pad_[(per)*VL];                                                                  \
      memset(pad_, 0, sizeof pad_);                                                      \
      memcpy(pad_, num_ + (size_t)j_ * (per), (g.nc - j_) * (per) * sizeof(T));          \
      GRP(pad_, j_);                                                                     \
    }                                                                                    \
  } while (0)
  switch (r->kind) {
  case SM_FIN3_SPARSE:
#define SM_S0(p, c) SM_ID(ccc3_grp)(&k, p, c, w, &tmin, 1, 0)
#define SM_S1(p, c) SM_ID(ccc3_grp)(&k, p, c, w, &tmin, 1, 1)
    if (r->pneg)
      SM_GRP3(uint32_t, 12, SM_S1);
    else
      SM_GRP3(uint32_t, 12, SM_S0);
    break;
  case SM_FIN3_DENSE:
#define SM_D0(p, c) SM_ID(ccc3_grp)(&k, p, c, w, &tmin, 0, 0)
#define SM_D1(p, c) SM_ID(ccc3_grp)(&k, p, c, w, &tmin, 0, 1)
    if (r->pneg)
      SM_GRP3(uint32_t, 2, SM_D1);
    else
      SM_GRP3(uint32_t, 2, SM_D0);
    break;
  case SM_FIN3_CZEK_D:
#define SM_ZD(p, c)                                                                      \
  SM_ID(czek3_grp)(&k, vd_ld(p), vd_ld(k.col[4] + c), vd_ld(k.col[5] + c), c, w)
    SM_GRP3(double, 1, SM_ZD);
    break;
  default:
#define SM_ZS(p, c)                                                                      \
  SM_ID(czek3_grp)(&k, vd_f32(p), vd_ld(k.col[4] + c), vd_ld(k.col[5] + c), c, w)
    SM_GRP3(float, 1, SM_ZS);
    break;
  }
#undef SM_S0
#undef SM_S1
#undef SM_D0
#undef SM_D1
#undef SM_ZD
#undef SM_ZS
#undef SM_GRP3
  if (r->kind == SM_FIN3_CZEK_D || r->kind == SM_FIN3_CZEK_S) {
    for (uint32_t c = r->n; c % VL; c++) /* padded triples: no checksum terms */
      w[c] = 0;
    return SM_FIN_DONE;
  }
  return vm_bits(vm_lt(tmin, vd_set(0.0))) ? SM_FIN_PORT : SM_FIN_DONE;
}

/* The run's keys: sm_cksum_key3 of the sorted indices. */
SM_TARGET static void SM_ID(keys3)(const sm_fin3_run_t *r, uint64_t *restrict key)
{
  vi kx = vi_iota(r->kx, r->kxs), kc = vi_iota(r->kc, r->kcs);
  const vi dx = vi_set(VL * r->kxs), dc = vi_set(VL * r->kcs);
  if (!r->kxs) { /* y last: the first mix is the run's */
    const vi m = vi_mix(kx);
    for (uint32_t c = 0; c < r->n; c += VL, kc = vi_add(kc, dc))
      vi_st(key + c, vi_mix(vi_xor(m, kc)));
    return;
  }
  for (uint32_t c = 0; c < r->n; c += VL, kx = vi_add(kx, dx), kc = vi_add(kc, dc))
    vi_st(key + c, vi_mix(vi_xor(vi_mix(kx), kc)));
}

/* The checksum terms of the run's values: per triple the sums of q over
 * the cells with the plane's, x's, y's bit set; the labels' bit 0 is role
 * pr's. */
SM_ALWAYS void SM_ID(ck3_grp)(ck_t *ck, const double *w, const uint64_t *key, uint32_t c,
                              const int pr)
{
  ckv q[8];
#pragma GCC unroll 8
  for (int u = 0; u < 8; u++)
    q[u] = ck_val(ck, vd_ld(w + u * SM_FIN_RUN3 + c));
  const ckv q13 = ckv_add(q[1], q[3]), q57 = ckv_add(q[5], q[7]),
            q67 = ckv_add(q[6], q[7]);
  const ckv rp = ckv_add(ckv_add(q[4], q[5]), q67),
            rx = ckv_add(ckv_add(q[2], q[3]), q67), ry = ckv_add(q13, q57);
  const ckv Q = ckv_add(ckv_add(ckv_add(q[0], q[2]), q13), rp);
  ck_result(ck, vi_ld(key + c), Q, pr == 0 ? rp : pr == 1 ? rx : ry, rp, rx, ry, 1);
}

SM_TARGET static int SM_ID(values3)(const sm_fin3_run_t *r, double *restrict w,
                                    sm_fin_ck_t *out)
{
  uint64_t key[SM_FIN_RUN3] __attribute__((aligned(64)));
  const int st = SM_ID(vals3)(r, w);
  if (st != SM_FIN_DONE)
    return st;
  SM_ID(keys3)(r, key);
  ck_t ck;
  ck_init(&ck);
  if (r->kind == SM_FIN3_SPARSE || r->kind == SM_FIN3_DENSE) {
    if (r->pr == 0)
      for (uint32_t c = 0; c < r->n; c += VL)
        SM_ID(ck3_grp)(&ck, w, key, c, 0);
    else if (r->pr == 1)
      for (uint32_t c = 0; c < r->n; c += VL)
        SM_ID(ck3_grp)(&ck, w, key, c, 1);
    else
      for (uint32_t c = 0; c < r->n; c += VL)
        SM_ID(ck3_grp)(&ck, w, key, c, 2);
    return ck_done(&ck, out, 8 * (uint64_t)r->n, r->w) ? SM_FIN_BIG : SM_FIN_DONE;
  }
  for (uint32_t c = 0; c < r->n; c += VL)
    ck_result1(&ck, vi_ld(key + c), ck_val(&ck, vd_ld(w + c)));
  const uint64_t w0[3] = {0, 0, 0};
  return ck_done(&ck, out, r->n, w0) ? SM_FIN_BIG : SM_FIN_DONE;
}

const sm_fin_isa_t SM_ID(sm_fin_isa) = {SM_ISA_NAME,  SM_ID(values2), SM_ID(keep),
                                        SM_ID(slots), SM_ID(topk),    SM_ID(values3)};
