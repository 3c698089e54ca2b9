/* kern_mfix.c: sums over a partner's missing fields, and CCC's sparse
 * moments from them when missing calls are few.
 *
 * The sparse moments {rr, rm, mr, mm} of a pair need, beside the dense
 * product rr = sum r_i r_j (a missing call has r = 0, the same as no
 * copy), only what the pair's missing fields change (sm_cplanes_moments,
 * with the raw counts fy = |X_j ? S_i : Z_i| and xx = |X_i & X_j|):
 *   fy = nZ_i + sum_{s in X_j} e_i(s),  e = [code 11] - [code 00],
 *   fx = nZ_j + sum_{s in X_i} e_j(s),  xx = sum_{s in X_j} [X_i(s)].
 * So the sparse moments are the dense kernel's product on the codes with
 * missing calls read as 00 (2 popcounts per word pair, not the sparse
 * planes' 5) plus sums over missing fields: per vector of one side its
 * values e, x as int16 in 64-row chunks, field by field (transposed);
 * per vector of the other side its list of missing fields; per chunk and
 * partner, the rows' values at the partner's missing fields added 64 at a
 * time (vector adds the compiler makes). Work: the missing calls times the
 * chunks, not the pairs times the fields. PLINK's homozygous tally
 * (kern_ld.c) is the same sums over another value. With AVX-512 the sums
 * are counters over bit planes instead (kern_xcnt512.c, its own cost
 * model below). Exact integers: the moments equal the sparse kernels'
 * (and the _ref twin's) bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "sm_ccc_planes.h"
#include "sm_kern.h"
#include "sm_mfix.h"
#include "sm_xcnt512.h"

enum { CH = SM_MFIX_CHUNK };
_Static_assert(SM_MFIX_CHUNK == 64, "the sums hold a chunk in 4 vectors of 16 lanes");

SM_POPC_CLONES
int sm_mfix_count(sm_mfix_miss_t *ml, size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  const size_t ncw = (nf + 31) / 32;
  size_t total = 0;
  ml->idx = NULL;
  ml->off = malloc((nv + 1) * sizeof *ml->off);
  if (!ml->off)
    return -1;
  for (size_t v = 0; v < nv; v++) {
    size_t c = 0;
    for (size_t w = 0; w < ncw; w++) {
      uint64_t lo, hi, valid;
      sm_code_bits(X + v * ldx, w, nf, &lo, &hi, &valid);
      c += (size_t)__builtin_popcountll(hi & ~lo & valid);
    }
    ml->off[v] = total;
    total += c;
  }
  ml->off[nv] = total;
  return 0;
}

int sm_mfix_fill(sm_mfix_miss_t *ml, size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  const size_t ncw = (nf + 31) / 32, total = ml->off[nv];
  ml->idx = malloc((total ? total : 1) * sizeof *ml->idx);
  if (!ml->idx)
    return -1;
  for (size_t v = 0, k = 0; v < nv; v++)
    for (size_t w = 0; w < ncw; w++) {
      uint64_t lo, hi, valid;
      sm_code_bits(X + v * ldx, w, nf, &lo, &hi, &valid);
      for (uint64_t b = hi & ~lo & valid; b; b &= b - 1)
        ml->idx[k++] = (uint32_t)(w * 32 + (size_t)__builtin_ctzll(b) / 2);
    }
  return 0;
}

int sm_mfix_lists(sm_mfix_miss_t *ml, size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  if (sm_mfix_count(ml, nv, nf, X, ldx))
    return -1;
  if (sm_mfix_fill(ml, nv, nf, X, ldx)) {
    sm_mfix_lists_free(ml);
    return -1;
  }
  return 0;
}

void sm_mfix_lists_free(sm_mfix_miss_t *ml)
{
  free(ml->off), free(ml->idx);
  ml->off = NULL, ml->idx = NULL;
}

/* a[j] bit i = a[i] bit j: halves, quarters, ... of the 64 x 64 bit
 * block swapped across the diagonal; a stage's swaps are runs of j
 * words, which the vector clones do a vector at a time. */
static inline __attribute__((always_inline)) void transpose_stage(uint64_t a[64], int j,
                                                                  uint64_t m)
{
  for (int b = 0; b < 64; b += 2 * j)
    for (int k = b; k < b + j; k++) {
      const uint64_t t = ((a[k] >> j) ^ a[k + j]) & m;
      a[k] ^= t << j;
      a[k + j] ^= t;
    }
}

SM_POPC_CLONES
void sm_mfix_transpose64(uint64_t a[64])
{
  transpose_stage(a, 32, 0x00000000FFFFFFFFull);
  transpose_stage(a, 16, 0x0000FFFF0000FFFFull);
  transpose_stage(a, 8, 0x00FF00FF00FF00FFull);
  transpose_stage(a, 4, 0x0F0F0F0F0F0F0F0Full);
  transpose_stage(a, 2, 0x3333333333333333ull);
  transpose_stage(a, 1, 0x5555555555555555ull);
}

typedef int16_t v16h __attribute__((vector_size(32)));
typedef int8_t v32b __attribute__((vector_size(32)));
typedef uint8_t v32u __attribute__((vector_size(32)));
typedef uint32_t v8u __attribute__((vector_size(32)));

/* -1 in lane l where bit l of b (16 bits) is set, else 0; sel holds 1 << l
 * in lane l. A macro: a vector return would change the ABI outside the
 * clones' ISAs. */
#define SM_EXPAND16(b, sel)                                                              \
  ((v16h)((((v16h){0} + (int16_t)(uint16_t)(b)) & (sel)) == (sel)))
/* The same for 32 int8 lanes from 32 bits: byte l / 8 of b to lane l
 * (spread), then its bit l % 8 (sel). */
#define SM_EXPAND8(b, spread, sel)                                                       \
  ((v32b)((__builtin_shuffle((v32u)((v8u){0} + (uint32_t)(b)), (spread)) & (sel)) ==     \
          (sel)))

/* The fields of code words cw and cw + 1 of a chunk's rows (nr of them,
 * at X, ldx): per value q, the rows' masks where it is +1 and, when any
 * code gives -1 (neg[q]), where it is -1: after the transposition, field
 * k of cw at word 2k, of cw + 1 at word 2k + 1. */
static inline __attribute__((always_inline)) void
chunk_masks(const uint64_t *X, size_t ldx, size_t nr, size_t cw, size_t nf, int nq,
            const int8_t tab[][4], const int neg[2], uint64_t pm[2][2][64])
{
  const size_t ncw = (nf + 31) / 32;
  for (size_t r = 0; r < 64; r++) {
    uint64_t c[4] = {0, 0, 0, 0};
    for (size_t h = 0; h < 2 && r < nr && cw + h < ncw; h++) {
      uint64_t lo, hi, valid;
      sm_code_bits(X + r * ldx, cw + h, nf, &lo, &hi, &valid);
      c[0] |= (~lo & ~hi & valid) << h, c[1] |= (lo & ~hi & valid) << h;
      c[2] |= (~lo & hi & valid) << h, c[3] |= (lo & hi & valid) << h;
    }
    for (int q = 0; q < nq; q++) {
      uint64_t p = 0, mn = 0;
      for (int k = 0; k < 4; k++) {
        p |= tab[q][k] > 0 ? c[k] : 0;
        mn |= tab[q][k] < 0 ? c[k] : 0;
      }
      pm[q][0][r] = p, pm[q][1][r] = mn;
    }
  }
  for (int q = 0; q < nq; q++) {
    sm_mfix_transpose64(pm[q][0]);
    if (neg[q])
      sm_mfix_transpose64(pm[q][1]);
  }
}

/* The values of fields [f0, f1) (f0 a multiple of 64) of a chunk's rows
 * (nr of them, at X, ldx) into t: field f0 + k's value q of row r at
 * element (k nq + q) CHUNK + r, int8 when narrow, else int16. */
SM_POPC_CLONES
static void chunk_values(const uint64_t *X, size_t ldx, size_t nr, size_t nf, size_t f0,
                         size_t f1, int nq, const int8_t tab[][4], int narrow, void *t)
{
  const v16h sel = {1,   2,   4,    8,    16,   32,   64,    128,
                    256, 512, 1024, 2048, 4096, 8192, 16384, INT16_MIN};
  const v32u sel8 = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
                     1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const v32u spread = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                       2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
  int neg[2] = {0, 0};
  for (int q = 0; q < nq; q++)
    for (int k = 0; k < 4; k++)
      neg[q] |= tab[q][k] < 0;
  uint64_t pm[2][2][64];
  for (size_t cw = f0 / 32; cw * 32 < f1; cw += 2) {
    chunk_masks(X, ldx, nr, cw, nf, nq, tab, neg, pm);
    for (size_t k = 0; k < 64; k++) {
      const size_t f = (cw + (k & 1)) * 32 + k / 2;
      if (f >= f1)
        continue;
      for (int q = 0; q < nq; q++) {
        const uint64_t p = pm[q][0][k], mn = neg[q] ? pm[q][1][k] : 0;
        const size_t at = ((f - f0) * (size_t)nq + (size_t)q) * CH;
        if (narrow) {
          v32b *o = (v32b *)((int8_t *)t + at);
          for (int b = 0; b < CH / 32; b++)
            o[b] = SM_EXPAND8(mn >> (32 * b), spread, sel8) -
                   SM_EXPAND8(p >> (32 * b), spread, sel8);
        } else {
          v16h *o = (v16h *)((int16_t *)t + at);
          for (int b = 0; b < CH / 16; b++)
            o[b] = SM_EXPAND16(mn >> (16 * b), sel) - SM_EXPAND16(p >> (16 * b), sel);
        }
      }
    }
  }
}

/* One chunk's sums for nq (1 or 2) values over the fields idx (less f0,
 * the table's first field): acc[q]. */
SM_POPC_CLONES
static void chunk_sums(const int16_t *base, int nq, size_t f0, const uint32_t *idx,
                       size_t nidx, v16h acc[2][CH / 16])
{
  v16h a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
  if (nq == 1) {
    for (size_t k = 0; k < nidx; k++) {
      const v16h *p = (const v16h *)(base + (idx[k] - f0) * CH);
      a0 += p[0], a1 += p[1], a2 += p[2], a3 += p[3];
    }
  } else {
    for (size_t k = 0; k < nidx; k++) {
      const v16h *p = (const v16h *)(base + (idx[k] - f0) * 2 * CH);
      a0 += p[0], a1 += p[1], a2 += p[2], a3 += p[3];
      b0 += p[4], b1 += p[5], b2 += p[6], b3 += p[7];
    }
  }
  acc[0][0] = a0, acc[0][1] = a1, acc[0][2] = a2, acc[0][3] = a3;
  acc[1][0] = b0, acc[1][1] = b1, acc[1][2] = b2, acc[1][3] = b3;
}

/* The same with int8 values and sums (every list at most 127 fields). */
SM_POPC_CLONES
static void chunk_sums8(const int8_t *base, int nq, size_t f0, const uint32_t *idx,
                        size_t nidx, v32b acc[2][CH / 32])
{
  v32b a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
  if (nq == 1) {
    for (size_t k = 0; k < nidx; k++) {
      const v32b *p = (const v32b *)(base + (idx[k] - f0) * CH);
      a0 += p[0], a1 += p[1];
    }
  } else {
    for (size_t k = 0; k < nidx; k++) {
      const v32b *p = (const v32b *)(base + (idx[k] - f0) * 2 * CH);
      a0 += p[0], a1 += p[1], b0 += p[2], b1 += p[3];
    }
  }
  acc[0][0] = a0, acc[0][1] = a1, acc[1][0] = b0, acc[1][1] = b1;
}

SM_POPC_CLONES
int sm_mfix_sums(const sm_mfix_src_t *src, const sm_mfix_miss_t *ml, size_t n,
                 int32_t *const out[2], size_t rs, size_t cs)
{
  const size_t nf = src->nf, nq = (size_t)src->nq;
  const size_t fb = SM_MFIX_FIELDS < nf ? SM_MFIX_FIELDS : nf;
  void *tab = aligned_alloc(64, (fb * nq * CH * sizeof(int16_t) + 63) / 64 * 64);
  int32_t *panel = malloc((n ? n : 1) * 2 * CH * sizeof *panel); /* [j][q][r] */
  size_t *cur = malloc((2 * n + 1) * sizeof *cur), *end = cur ? cur + n : NULL;
  if (!tab || !panel || !cur) {
    free(tab), free(panel), free(cur);
    return -1;
  }
  v16h acc[2][CH / 16];
  v32b acc8[2][CH / 32];
  for (size_t r0 = 0; r0 < src->nv; r0 += CH) {
    const size_t nr = src->nv - r0 < CH ? src->nv - r0 : CH;
    memset(panel, 0, n * 2 * CH * sizeof *panel);
    for (size_t j = 0; j < n; j++)
      cur[j] = ml->off[j];
    for (size_t f0 = 0; f0 < nf; f0 += fb) {
      const size_t f1 = nf - f0 < fb ? nf : f0 + fb;
      size_t most = 0; /* each list's fields below f1, and the most */
      for (size_t j = 0; j < n; j++) {
        size_t e = cur[j];
        while (e < ml->off[j + 1] && ml->idx[e] < f1)
          e++;
        end[j] = e;
        most = e - cur[j] > most ? e - cur[j] : most;
      }
      if (!most)
        continue;
      const int narrow = most <= SM_MFIX_NARROW;
      chunk_values(src->X + r0 * src->ldx, src->ldx, nr, nf, f0, f1, src->nq, src->tab,
                   narrow, tab);
      for (size_t j = 0; j < n; j++) {
        if (end[j] == cur[j])
          continue;
        int32_t *pj = panel + j * 2 * CH;
        if (narrow) {
          chunk_sums8(tab, src->nq, f0, ml->idx + cur[j], end[j] - cur[j], acc8);
          for (size_t q = 0; q < nq; q++)
            for (int r = 0; r < CH; r++)
              pj[q * CH + (size_t)r] += ((const int8_t *)acc8[q])[r];
        } else {
          chunk_sums(tab, src->nq, f0, ml->idx + cur[j], end[j] - cur[j], acc);
          for (size_t q = 0; q < nq; q++)
            for (int r = 0; r < CH; r++)
              pj[q * CH + (size_t)r] += ((const int16_t *)acc[q])[r];
        }
        cur[j] = end[j];
      }
    }
    /* the panel's rows of 16 partners at a time: each partner's sums read
     * in order, and the output's lines they fill (16 partners of a row,
     * or a row's run) stay in cache until they are full */
    for (size_t q = 0; q < nq; q++) {
      if (!out[q])
        continue;
      int32_t *o = out[q] + r0 * rs;
      for (size_t j0 = 0; j0 < n; j0 += 16)
        for (size_t j = j0; j < n && j < j0 + 16; j++)
          for (size_t r = 0; r < nr; r++)
            o[r * rs + j * cs] = panel[(j * 2 + q) * CH + r];
    }
  }
  free(tab), free(panel), free(cur);
  return 0;
}

SM_POPC_CLONES
void sm_mfix_margins(size_t nv, size_t nf, const uint64_t *X, size_t ldx, int64_t *g)
{
  const size_t ncw = (nf + 31) / 32;
  for (size_t v = 0; v < nv; v++) {
    int64_t r = 0, x = 0, z = 0, hs = 0;
    for (size_t w = 0; w < ncw; w++) {
      uint64_t lo, hi, valid;
      sm_code_bits(X + v * ldx, w, nf, &lo, &hi, &valid);
      const int64_t ns = SM_POPC64(lo & hi & valid);
      r += SM_POPC64(lo & valid) + ns;
      x += SM_POPC64(hi & ~lo & valid);
      z += SM_POPC64(~lo & ~hi & valid);
      hs += ns;
    }
    g[4 * v] = r, g[4 * v + 1] = x, g[4 * v + 2] = z, g[4 * v + 3] = hs;
  }
}

/* e = [11] - [00] and x = [10], by code (lo bit first: 00, 01, 10, 11 are
 * codes 0, 1, 2, 3). */
static const int8_t tab_ex[2][4] = {{-1, 0, 0, 1}, {0, 0, 1, 0}};

/* The cost model, in seconds, fitted to tiles of 64 to 712 vectors of
 * 2,000 fields with 1% to 10% missing calls on one core of an AMD EPYC
 * (Zen 2, AVX2): the sums cost 1.06 ns per vector and field (lists,
 * transposition), 5.9 ns per pair (stores, the moments from the counts)
 * and 4.7 ns per missing field and chunk of 64 partners (its values
 * added); the homozygous tally's 0.47, 4.9 and 2.4 ns. One popcount of
 * a word pair (64 fields) costs 0.26 ns in the AVX2 moments kernel, the
 * tally's two 0.96 ns (64-bit popcounts; with AVX-512 the tally has its
 * own counters, kern_ld.c); with AVX-512 VPOPCNTDQ (an AMD EPYC Zen 4,
 * bench/results/ld-plink-20261129-c.md: 4.7 s for the 5 of 406 million
 * pairs of 2,000 fields) 0.072 ns. So with AVX2 the moments take the sums from about 300
 * x 300 tiles at 1% missing (at 712 x 712: 1.45x faster, even at 5%;
 * 0.85x at 10%), the tally from about 100 x 100 (4x at 712 x 712); with
 * VPOPCNTDQ the moments only for longer vectors. */
int sm_mfix_worth(sm_mfix_kind_t kind, sm_mfix_isa_t isa, size_t m, size_t n, size_t nf,
                  size_t nxa, size_t nxb)
{
  if (m == 0 || n == 0 || nf == 0)
    return 0;
  const double dm = (double)m, dn = (double)n, df = (double)nf, nw = df / 64;
  const double visits =
      (double)nxb * (double)((m + 63) / 64) + (double)nxa * (double)((n + 63) / 64);
  if (kind == SM_MFIX_MOMENTS && isa == SM_MFIX_ISA_avx512 && sm_xc_usable() &&
      sm_xc_fits(m, n, nf)) {
    /* the counters of kern_xcnt512.c against the popcount kernel, fitted
     * on every pair of 10,000 to 28,500 variants of 500 to 8,000 samples
     * at 1% and 10% missing (one core of an AVX-512 EPYC, VPOPCNTDQ):
     * 0.45 ns a pair and 5.0 ns a missing field's visit to a chunk of 256
     * vectors spent, 0.117 ns a pair and word of 64 fields saved */
    const double v256 =
        (double)nxb * (double)((m + 255) / 256) + (double)nxa * (double)((n + 255) / 256);
    return 0.45e-9 * dm * dn + 5.0e-9 * v256 < 0.117e-9 * dm * dn * nw;
  }
  if (kind == SM_MFIX_MOMENTS) {
    const double word = isa == SM_MFIX_ISA_avx512 ? 0.072e-9
                        : isa == SM_MFIX_ISA_avx2 ? 0.26e-9
                                                  : 0.35e-9;
    const double saved = 3 * dm * dn * nw * word;
    const double spent = 1.06e-9 * (dm + dn) * df + 5.9e-9 * dm * dn + 4.7e-9 * visits;
    return spent < saved;
  }
  const double dense = dm * dn * nw * 0.96e-9;
  const double spent = 0.47e-9 * (dm + dn) * df + 4.9e-9 * dm * dn + 2.4e-9 * visits;
  return spent < dense;
}

/* Rows [i0, i0 + nr) of the moments: for row i0 + r and column j, the
 * dense product rr[i][j], the margins ga (row i at 4 i: R, nX, nZ) and
 * the columns' R and nX (c0[j], c1[j]), the sums a_ij (sa[r][j]), xx
 * (sx[r][j]) and a_ji (sb[i][j]). sm_cplanes_moments with counts {0, nZ_i
 * + a_ij, nZ_j + a_ji, xx}, the nZ terms cancelled, modulo 2^32 as the
 * moments are stored: lanes of columns, no gathers. */
SM_POPC_CLONES
static void fix_rows(size_t i0, size_t nr, size_t n, const int64_t *ga,
                     const uint32_t *restrict c0, const uint32_t *restrict c1,
                     uint32_t n0, const uint32_t *restrict rr, const int32_t *restrict sb,
                     const int32_t *restrict sa, const int32_t *restrict sx,
                     uint32_t *restrict C, size_t ldc)
{
  for (size_t r = 0; r < nr; r++) {
    const size_t i = i0 + r;
    const uint32_t ri = (uint32_t)ga[4 * i], xi = (uint32_t)ga[4 * i + 1];
    const int64_t *gi = ga + 4 * i;
    const int32_t *restrict ar = sa + r * n, *restrict xr = sx + r * n,
                            *restrict br = sb + i * n;
    const uint32_t *restrict pr = rr + i * n;
    uint32_t *restrict o = C + i * ldc * 4;
    size_t j = 0;
    for (; j + 8 <= n; j += 8) { /* 8 columns, their 4 moments interleaved */
      v8u p, a, x, bb, g0, g1;
      memcpy(&p, pr + j, sizeof p), memcpy(&a, ar + j, sizeof a);
      memcpy(&x, xr + j, sizeof x), memcpy(&bb, br + j, sizeof bb);
      memcpy(&g0, c0 + j, sizeof g0), memcpy(&g1, c1 + j, sizeof g1);
      const v8u rm = ri - g1 + x - a, mr = g0 - xi + x - bb, mm = n0 - xi - g1 + x;
      const v8u lo01 = __builtin_shuffle(p, rm, (v8u){0, 8, 1, 9, 2, 10, 3, 11}),
                lo23 = __builtin_shuffle(mr, mm, (v8u){0, 8, 1, 9, 2, 10, 3, 11}),
                hi01 = __builtin_shuffle(p, rm, (v8u){4, 12, 5, 13, 6, 14, 7, 15}),
                hi23 = __builtin_shuffle(mr, mm, (v8u){4, 12, 5, 13, 6, 14, 7, 15});
      const v8u q[4] = {__builtin_shuffle(lo01, lo23, (v8u){0, 1, 8, 9, 2, 3, 10, 11}),
                        __builtin_shuffle(lo01, lo23, (v8u){4, 5, 12, 13, 6, 7, 14, 15}),
                        __builtin_shuffle(hi01, hi23, (v8u){0, 1, 8, 9, 2, 3, 10, 11}),
                        __builtin_shuffle(hi01, hi23, (v8u){4, 5, 12, 13, 6, 7, 14, 15})};
      memcpy(o + 4 * j, q, sizeof q);
    }
    for (; j < n; j++) { /* the last columns as sm_cplanes_moments makes them */
      const int64_t gj[3] = {c0[j], c1[j], 0}, cnt[4] = {0, gi[2] + ar[j], br[j], xr[j]};
      sm_cplanes_moments(gi, gj, n0, cnt, o + 4 * j);
      o[4 * j] = pr[j];
    }
  }
}

/* The counters' strips (sm_xc_moments_strips; with band, only its
 * windows' pairs): the missing calls of both tiles decide whether they
 * are worth it, from their kept sides, or else from the counts alone
 * (cheap), before any side is built. */
static int strips(const sm_band_t *band, size_t m, size_t n, size_t nf, const uint64_t *A,
                  size_t lda, const uint64_t *B, size_t ldb, int force, uint32_t *C,
                  size_t ldc, uint32_t *H, size_t ldh)
{
  sm_xc_kept_t k;
  size_t xa = 0, xb = 0;
  const int kept = sm_xc_kept(&k, m, n, nf, A, lda, B, ldb, &xa, &xb);
  if (!kept && !force) {
    sm_mfix_miss_t la = {0}, lb = {0};
    const int bad =
        sm_mfix_count(&la, m, nf, A, lda) || sm_mfix_count(&lb, n, nf, B, ldb);
    if (!bad)
      xa = la.off[m], xb = lb.off[n];
    sm_mfix_lists_free(&la), sm_mfix_lists_free(&lb);
    if (bad)
      return -1;
  }
  if (!force && !sm_mfix_worth(SM_MFIX_MOMENTS, SM_MFIX_ISA_avx512, m, n, nf, xa, xb)) {
    if (kept)
      sm_xc_kept_release(&k);
    return 1;
  }
  return sm_xc_moments_strips(kept ? &k : NULL, band, m, n, nf, A, lda, B, ldb, C, ldc, H,
                              ldh);
}

int sm_ccc2_band_fix(const sm_band_t *band, size_t m, size_t n, size_t nf,
                     const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                     uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  if (!band || !band->win || band->index || !sm_xc_usable() || !sm_xc_fits(m, n, nf) ||
      !sm_xc_strips(nf, 0))
    return 1;
  return strips(band, m, n, nf, A, lda, B, ldb, 0, C, ldc, H, ldh);
}

int sm_ccc2_sparse_fix(sm_ccc2_fn dense, sm_ccc2_syrk_fn dsyrk, sm_mfix_isa_t isa,
                       size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sym, int force, uint32_t *C,
                       size_t ldc, uint32_t *H, size_t ldh)
{
  sm_mfix_miss_t la = {0}, lb = {0};
  uint64_t *a0 = NULL, *b0 = NULL;
  uint32_t *rr = NULL, *c01 = NULL;
  int32_t *sb = NULL, *ch = NULL;
  int64_t *ga = NULL, *gb = NULL;
  int ret = -1;
  if (sym)
    B = A, ldb = lda, n = m;
  /* the counts decide; the lists are written only for a kernel that reads them */
  const int x512 = isa == SM_MFIX_ISA_avx512 && sm_xc_usable() && sm_xc_fits(m, n, nf);
  if (x512 && sm_xc_strips(nf, sym)) /* the counters make the product */
    return strips(NULL, m, n, nf, A, lda, B, ldb, force, C, ldc, H, ldh);
  if (sm_mfix_count(&la, m, nf, A, lda))
    return -1;
  if (!sym && sm_mfix_count(&lb, n, nf, B, ldb)) {
    sm_mfix_lists_free(&la);
    return -1;
  }
  const sm_mfix_miss_t *pb = sym ? &la : &lb;
  if (!force && !sm_mfix_worth(SM_MFIX_MOMENTS, isa, m, n, nf, la.off[m], pb->off[n])) {
    ret = 1;
    goto done;
  }
  /* with AVX-512 the sums are counters (kern_xcnt512.c), with lists and
   * margins of their own; only they make PLINK's tally (H) too */
  if (H && !x512) {
    ret = 1;
    goto done;
  }
  if (!x512 &&
      (sm_mfix_fill(&la, m, nf, A, lda) || (!sym && sm_mfix_fill(&lb, n, nf, B, ldb))))
    goto done;
  const size_t ncw = (nf + 31) / 32;
  a0 = sm_codes_no_missing(m, nf, A, lda);
  b0 = sym ? a0 : sm_codes_no_missing(n, nf, B, ldb);
  if (!a0 || !b0)
    goto done;
  if (!(rr = malloc((m * n + 1) * sizeof *rr)))
    goto done;
  if (sym)
    dsyrk(m, nf, a0, ncw, 0, rr, n);
  else
    dense(m, n, nf, a0, ncw, b0, ncw, 0, rr, n);
  if (x512) {
    ret = sm_xc_moments(m, n, nf, A, lda, B, ldb, sym, rr, n, C, ldc, H, ldh);
    goto done;
  }
  ga = malloc((m ? m : 1) * 4 * sizeof *ga);
  gb = sym ? ga : malloc((n ? n : 1) * 4 * sizeof *gb);
  sb = malloc((m * n + 1) * sizeof *sb);
  ch = malloc((2 * CH * n + 1) * sizeof *ch);
  c01 = malloc((2 * n + 1) * sizeof *c01);
  if (!ga || !gb || !sb || !ch || !c01)
    goto done;
  sm_mfix_margins(m, nf, A, lda, ga);
  if (!sym)
    sm_mfix_margins(n, nf, B, ldb, gb);
  for (size_t j = 0; j < n; j++) /* the columns' R and nX, lane by lane */
    c01[j] = (uint32_t)gb[4 * j], c01[n + j] = (uint32_t)gb[4 * j + 1];
  /* B's rows against A's missing fields first, into sb ([i][j]: a_ji of
   * the moments); then, chunk by chunk of A's rows, their sums against
   * B's missing fields (a_ij and xx) and each pair's moments from them,
   * rr and the margins, while the chunk's sums are in cache: C written
   * once (the sums into C's places and a pass over it cost ~6 ns a pair,
   * as much as the popcounts they save with VPOPCNTDQ) */
  const sm_mfix_src_t sbs = {B, ldb, n, nf, 1, tab_ex};
  int32_t *const ob[2] = {sb, NULL};
  if (sm_mfix_sums(&sbs, &la, m, ob, 1, n))
    goto done;
  for (size_t i0 = 0; i0 < m; i0 += CH) {
    const size_t nr = m - i0 < CH ? m - i0 : CH;
    const sm_mfix_src_t sa = {A + i0 * lda, lda, nr, nf, 2, tab_ex};
    int32_t *const oa[2] = {ch, ch + CH * n};
    if (sm_mfix_sums(&sa, pb, n, oa, n, 1))
      goto done;
    fix_rows(i0, nr, n, ga, c01, c01 + n, (uint32_t)nf, rr, sb, ch, ch + CH * n, C, ldc);
  }
  ret = 0;
done:
  sm_mfix_lists_free(&la);
  if (!sym)
    sm_mfix_lists_free(&lb);
  free(a0), free(rr), free(sb), free(ch), free(c01), free(ga);
  if (!sym)
    free(b0), free(gb);
  return ret;
}
