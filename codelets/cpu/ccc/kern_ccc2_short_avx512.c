/* kern_ccc2_short_avx512.c: the AVX-512 VPOPCNTDQ micro-kernels of the CCC
 * kernels for short vectors (sm_ccc_short.h): 8 columns per zmm register
 * (one 64-bit lane each), a row's word broadcast against them, the counts
 * of each pair accumulated in its lane over the whole field loop and
 * turned into moments in the lanes at the end of the tile; the packing (8
 * vectors' code words gathered at a time) and the 3-way restriction, 8
 * lanes at a time. */
#include "sm_ccc_short.h"
#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx512f,avx512vl,avx512vpopcntdq,popcnt")))

/* Tiles: dense 4 rows x 2 groups (16 accumulators), sparse 4 x 1 (20):
 * 6 x 2, 8 x 1, 3 x 3, 5 x 2 dense and 3 x 1, 2 x 2, 5 x 1, 6 x 1 sparse
 * measured within the noise of these or below. */
enum { L = 8, MRD = 4, NGD = 2, MRS = 4, NGS = 1 };

/* a & (b ^ c), a ? b : c and a ? b : (c & ~b) as vpternlogq truth tables */
#define SM_AND_XOR 0x60
#define SM_MUX 0xca
#define SM_MUX_Z 0xc2

/* Keeps a loaded vector in a register (no memory-operand ternlog). */
#define SM_IN_REG(v) __asm__("" : "+v"(v))

/* The lanes of group x of the tile that are stored (8 or fewer). */
static inline __mmask8 lanes(const sm_short_tile_t *t, size_t x)
{
  const size_t j = x * L;
  return t->nr >= j + L ? (__mmask8)0xff : (__mmask8)((1u << (t->nr - j)) - 1);
}

/* The scalar epilogue: 32-bit moments k of the 8 lanes in v[k]. */
SM_TARGET static void put_lanes(const sm_short_tile_t *t, size_t r, size_t x, int nmom,
                                const __m256i *v)
{
  uint32_t tmp[4][L];
  for (int k = 0; k < nmom; k++)
    _mm256_storeu_si256((__m256i *)tmp[k], v[k]);
  for (size_t l = 0; l < L && x * L + l < t->nr; l++)
    for (int k = 0; k < nmom; k++)
      t->c[r * t->ldc + (x * L + l) * t->cs + (size_t)k] = tmp[k][l];
}

SM_TARGET static void ukr_dense(const sm_short_tile_t *t)
{
  __m512i T[MRD][NGD], U[MRD][NGD];
#pragma GCC unroll 8
  for (int r = 0; r < MRD; r++)
#pragma GCC unroll 8
    for (int x = 0; x < NGD; x++)
      T[r][x] = U[r][x] = _mm512_setzero_si512();
  const uint64_t *a[MRD], *b[NGD];
  for (int r = 0; r < MRD; r++)
    a[r] = t->a[r];
  for (int x = 0; x < NGD; x++)
    b[x] = t->b[x];
  for (size_t w = 0; w < t->nw; w++) {
    __m512i bd[NGD], bs[NGD];
#pragma GCC unroll 8
    for (int x = 0; x < NGD; x++) {
      bd[x] = _mm512_load_si512(b[x] + 2 * L * w);
      bs[x] = _mm512_load_si512(b[x] + 2 * L * w + L);
    }
#pragma GCC unroll 8
    for (int r = 0; r < MRD; r++) {
      const __m512i ad = _mm512_set1_epi64((long long)a[r][2 * L * w]);
      const __m512i as = _mm512_set1_epi64((long long)a[r][2 * L * w + L]);
#pragma GCC unroll 8
      for (int x = 0; x < NGD; x++) {
        __m512i d = _mm512_and_si512(ad, bd[x]);
        T[r][x] = _mm512_add_epi64(T[r][x], _mm512_popcnt_epi64(d));
        d = _mm512_ternarylogic_epi64(d, as, bs[x], SM_AND_XOR);
        U[r][x] = _mm512_add_epi64(U[r][x], _mm512_popcnt_epi64(d));
      }
    }
  }
  /* R_i + R_j - n + T - 2U, in 32 bits */
  /* (constant indices throughout: the accumulators stay registers) */
#pragma GCC unroll 8
  for (int r = 0; r < MRD; r++) {
    if ((size_t)r >= t->mr)
      break;
    const __m512i ri = _mm512_set1_epi64(t->ga[r][0] - t->nf);
#pragma GCC unroll 8
    for (int x = 0; x < NGD; x++) {
      if ((size_t)x * L >= t->nr)
        break;
      const __m512i rj = _mm512_loadu_si512(t->gb[x]);
      const __m512i v =
          _mm512_add_epi64(_mm512_add_epi64(ri, rj),
                           _mm512_sub_epi64(T[r][x], _mm512_slli_epi64(U[r][x], 1)));
      const __m256i c = _mm512_cvtepi64_epi32(v);
      if (t->cs == 1)
        _mm256_mask_storeu_epi32(t->c + (size_t)r * t->ldc + (size_t)x * L,
                                 lanes(t, (size_t)x), c);
      else
        put_lanes(t, (size_t)r, (size_t)x, 1, &c);
    }
  }
}

/* Interleaves the 8 lanes of 4 moments: pair l's 4 moments at out + 4 l. */
SM_TARGET static void store4(uint32_t *out, const __m256i v[4], __mmask8 k)
{
  const __m256i ab0 = _mm256_unpacklo_epi32(v[0], v[1]),
                ab1 = _mm256_unpackhi_epi32(v[0], v[1]);
  const __m256i cd0 = _mm256_unpacklo_epi32(v[2], v[3]),
                cd1 = _mm256_unpackhi_epi32(v[2], v[3]);
  const __m256i p0 = _mm256_unpacklo_epi64(ab0, cd0),
                p1 = _mm256_unpackhi_epi64(ab0, cd0);
  const __m256i p2 = _mm256_unpacklo_epi64(ab1, cd1),
                p3 = _mm256_unpackhi_epi64(ab1, cd1);
  /* p0: pairs 0 and 4, p1: 1 and 5, p2: 2 and 6, p3: 3 and 7 */
  const __m256i o[4] = {
      _mm256_permute2x128_si256(p0, p1, 0x20), _mm256_permute2x128_si256(p2, p3, 0x20),
      _mm256_permute2x128_si256(p0, p1, 0x31), _mm256_permute2x128_si256(p2, p3, 0x31)};
  for (int q = 0; q < 4; q++) {
    const unsigned kq = ((unsigned)k >> (2 * q)) & 3u;
    const __mmask8 m = (__mmask8)((kq & 1u ? 0x0fu : 0u) | (kq & 2u ? 0xf0u : 0u));
    _mm256_mask_storeu_epi32(out + 8 * q, m, o[q]);
  }
}

SM_TARGET static void ukr_sparse(const sm_short_tile_t *t)
{
  __m512i T[MRS][NGS], U[MRS][NGS], FX[MRS][NGS], FY[MRS][NGS], XX[MRS][NGS];
#pragma GCC unroll 8
  for (int r = 0; r < MRS; r++)
#pragma GCC unroll 8
    for (int x = 0; x < NGS; x++)
      T[r][x] = U[r][x] = FX[r][x] = FY[r][x] = XX[r][x] = _mm512_setzero_si512();
  const uint64_t *a[MRS], *b[NGS];
  for (int r = 0; r < MRS; r++)
    a[r] = t->a[r];
  for (int x = 0; x < NGS; x++)
    b[x] = t->b[x];
  for (size_t w = 0; w < t->nw; w++) {
    __m512i bx[NGS], bs[NGS], bd[NGS];
#pragma GCC unroll 8
    for (int x = 0; x < NGS; x++) {
      bx[x] = _mm512_load_si512(b[x] + 3 * L * w);
      bs[x] = _mm512_load_si512(b[x] + 3 * L * w + L);
      bd[x] = _mm512_load_si512(b[x] + 3 * L * w + 2 * L);
    }
#pragma GCC unroll 8
    for (int r = 0; r < MRS; r++) {
      __m512i ax = _mm512_set1_epi64((long long)a[r][3 * L * w]);
      __m512i as = _mm512_set1_epi64((long long)a[r][3 * L * w + L]);
      __m512i ad = _mm512_set1_epi64((long long)a[r][3 * L * w + 2 * L]);
      SM_IN_REG(ax);
      SM_IN_REG(as);
      SM_IN_REG(ad);
#pragma GCC unroll 8
      for (int x = 0; x < NGS; x++) {
        const __m512i d = _mm512_and_si512(ad, bd[x]);
        const __m512i u = _mm512_ternarylogic_epi64(d, as, bs[x], SM_AND_XOR);
        const __m512i fx = _mm512_ternarylogic_epi64(ax, bs[x], bd[x], SM_MUX_Z);
        const __m512i fy = _mm512_ternarylogic_epi64(bx[x], as, ad, SM_MUX_Z);
        const __m512i xx = _mm512_and_si512(ax, bx[x]);
        T[r][x] = _mm512_add_epi64(T[r][x], _mm512_popcnt_epi64(d));
        U[r][x] = _mm512_add_epi64(U[r][x], _mm512_popcnt_epi64(u));
        FX[r][x] = _mm512_add_epi64(FX[r][x], _mm512_popcnt_epi64(fx));
        FY[r][x] = _mm512_add_epi64(FY[r][x], _mm512_popcnt_epi64(fy));
        XX[r][x] = _mm512_add_epi64(XX[r][x], _mm512_popcnt_epi64(xx));
      }
    }
  }
  /* the moments (sm_cplanes_moments), in the lanes */
  const __m512i n0 = _mm512_set1_epi64(t->nf);
#pragma GCC unroll 8
  for (int r = 0; r < MRS; r++) {
    if ((size_t)r >= t->mr)
      break;
    const __m512i Ri = _mm512_set1_epi64(t->ga[r][0]),
                  Xi = _mm512_set1_epi64(t->ga[r][t->gsa]),
                  Zi = _mm512_set1_epi64(t->ga[r][2 * t->gsa]);
#pragma GCC unroll 8
    for (int x = 0; x < NGS; x++) {
      if ((size_t)x * L >= t->nr)
        break;
      const __m512i Rj = _mm512_loadu_si512(t->gb[x]),
                    Xj = _mm512_loadu_si512(t->gb[x] + t->gsb),
                    Zj = _mm512_loadu_si512(t->gb[x] + 2 * t->gsb);
      const __m512i tu = _mm512_sub_epi64(T[r][x], _mm512_slli_epi64(U[r][x], 1));
      const __m512i mm =
          _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(n0, Xi), Xj), XX[r][x]);
      const __m512i rm = _mm512_add_epi64(
          _mm512_sub_epi64(_mm512_add_epi64(_mm512_sub_epi64(Ri, Xj), XX[r][x]),
                           FY[r][x]),
          Zi);
      const __m512i mr = _mm512_add_epi64(
          _mm512_sub_epi64(_mm512_add_epi64(_mm512_sub_epi64(Rj, Xi), XX[r][x]),
                           FX[r][x]),
          Zj);
      const __m512i rr =
          _mm512_add_epi64(_mm512_sub_epi64(_mm512_add_epi64(rm, mr), mm), tu);
      const __m256i v[4] = {_mm512_cvtepi64_epi32(rr), _mm512_cvtepi64_epi32(rm),
                            _mm512_cvtepi64_epi32(mr), _mm512_cvtepi64_epi32(mm)};
      if (t->cs == 4)
        store4(t->c + (size_t)r * t->ldc + 4 * (size_t)x * L, v, lanes(t, (size_t)x));
      else
        put_lanes(t, (size_t)r, (size_t)x, 4, v);
    }
  }
}

/* The fields of code words cw and cw + 1 of 8 vectors (lanes, gathered
 * rows: idx = l ldx) in planes, 64 fields per word: lo/hi bits of code
 * word cw in the even bits, of cw + 1 in the odd ones (sm_cplanes_word's
 * layout), and the mask of the fields that exist. */
SM_TARGET static inline __attribute__((always_inline)) void
gather_bits(const uint64_t *X, __m512i idx, __mmask8 k, size_t cw, size_t ncw, size_t nf,
            __m512i *lo, __m512i *hi, __m512i *valid)
{
  const __m512i E = _mm512_set1_epi64((long long)SM_EVEN64), z = _mm512_setzero_si512();
  __m512i x[2] = {z, z}, v[2] = {z, z};
  for (size_t h = 0; h < 2 && cw + h < ncw; h++) {
    uint64_t l, hh, va;
    sm_gt_bits(0, nf - (cw + h) * 32, &l, &hh, &va);
    x[h] = _mm512_mask_i64gather_epi64(z, k, idx, (const long long *)(X + cw + h), 8);
    v[h] = _mm512_set1_epi64((long long)va);
  }
  *valid = _mm512_or_si512(v[0], _mm512_slli_epi64(v[1], 1));
  *lo = _mm512_and_si512(
      _mm512_ternarylogic_epi64(E, x[0], _mm512_slli_epi64(x[1], 1), SM_MUX), *valid);
  *hi = _mm512_and_si512(
      _mm512_ternarylogic_epi64(E, _mm512_srli_epi64(x[0], 1), x[1], SM_MUX), *valid);
}

/* Packs 8 vectors at a time, their words gathered: the planes of word w of
 * the 8 side by side, their R, nX, nZ counted in the lanes. */
SM_TARGET static void pack512(sm_clanes_t *pl, size_t nv, size_t nf, const uint64_t *X,
                              size_t ldx, int sparse)
{
  const size_t ncw = (nf + 31) / 32, nw = pl->nw, np = (size_t)pl->np, nvp = pl->nvp;
  const long long ld = (long long)ldx;
  const __m512i idx =
      _mm512_setr_epi64(0, ld, 2 * ld, 3 * ld, 4 * ld, 5 * ld, 6 * ld, 7 * ld);
  for (size_t v0 = 0; v0 < nv; v0 += L) {
    const __mmask8 k = nv - v0 >= L ? (__mmask8)0xff : (__mmask8)((1u << (nv - v0)) - 1);
    const uint64_t *x = X + v0 * ldx;
    uint64_t *o = pl->p + v0 * np * nw;
    __m512i aR = _mm512_setzero_si512(), aX = aR, aZ = aR;
    for (size_t w = 0; w < nw; w++, o += np * L) {
      __m512i lo, hi, valid;
      gather_bits(x, idx, k, 2 * w, ncw, nf, &lo, &hi, &valid);
      const __m512i s = _mm512_and_si512(lo, hi);
      if (sparse) {
        const __m512i xm = _mm512_andnot_si512(lo, hi);
        const __m512i zm =
            _mm512_ternarylogic_epi64(valid, lo, hi, 0x10); /* v & ~l & ~h */
        _mm512_store_si512(o, xm);
        _mm512_store_si512(o + L, s);
        _mm512_store_si512(o + 2 * L, _mm512_or_si512(s, zm));
        aR = _mm512_add_epi64(
            aR, _mm512_add_epi64(_mm512_popcnt_epi64(lo), _mm512_popcnt_epi64(s)));
        aX = _mm512_add_epi64(aX, _mm512_popcnt_epi64(xm));
        aZ = _mm512_add_epi64(aZ, _mm512_popcnt_epi64(zm));
      } else { /* D = v & ~(lo ^ hi) */
        _mm512_store_si512(o, _mm512_ternarylogic_epi64(valid, lo, hi, 0x90));
        _mm512_store_si512(o + L, s);
        aR = _mm512_add_epi64(
            aR, _mm512_add_epi64(_mm512_popcnt_epi64(_mm512_or_si512(lo, hi)),
                                 _mm512_popcnt_epi64(s)));
      }
    }
    _mm512_storeu_si512(pl->g + v0, aR);
    _mm512_storeu_si512(pl->g + nvp + v0, aX);
    _mm512_storeu_si512(pl->g + 2 * nvp + v0, aZ);
  }
}

/* sm_short_restrict_c, 8 lanes at a time. */
SM_TARGET static void restrict512(const sm_clanes_t *xp, size_t nv, const uint64_t *E,
                                  const uint64_t *V, sm_clanes_t *xr)
{
  const size_t nw = xp->nw, np = (size_t)xp->np, nvp = xp->nvp;
  for (size_t v0 = 0; v0 < nv; v0 += L) {
    const uint64_t *a = xp->p + v0 * np * nw;
    uint64_t *o = xr->p + v0 * np * nw;
    __m512i aR = _mm512_setzero_si512(), aX = aR, aZ = aR;
    for (size_t w = 0; w < nw; w++, a += np * L, o += np * L) {
      const __m512i e = _mm512_set1_epi64((long long)E[w]),
                    vw = _mm512_set1_epi64((long long)V[w]);
      const __m512i ve = _mm512_and_si512(vw, e), vo = _mm512_andnot_si512(e, vw);
      if (np == 3) {
        const __m512i x = _mm512_load_si512(a), s = _mm512_load_si512(a + L),
                      d = _mm512_load_si512(a + 2 * L);
        const __m512i x2 = _mm512_ternarylogic_epi64(x, e, vo, 0xea); /* x & e | vo */
        const __m512i s2 = _mm512_and_si512(s, e), d2 = _mm512_and_si512(d, e);
        _mm512_store_si512(o, x2);
        _mm512_store_si512(o + L, s2);
        _mm512_store_si512(o + 2 * L, d2);
        const __m512i ones = _mm512_ternarylogic_epi64(ve, x, d, 0x10); /* ve & ~x & ~d */
        aR = _mm512_add_epi64(
            aR, _mm512_add_epi64(_mm512_slli_epi64(_mm512_popcnt_epi64(s2), 1),
                                 _mm512_popcnt_epi64(ones)));
        aX = _mm512_add_epi64(aX, _mm512_popcnt_epi64(x2));
        aZ = _mm512_add_epi64(aZ, _mm512_popcnt_epi64(_mm512_andnot_si512(s2, d2)));
      } else {
        const __m512i d = _mm512_load_si512(a), s = _mm512_load_si512(a + L);
        const __m512i s2 = _mm512_and_si512(s, e);
        _mm512_store_si512(o, _mm512_ternarylogic_epi64(d, e, vo, 0xea));
        _mm512_store_si512(o + L, s2);
        aR = _mm512_add_epi64(
            aR, _mm512_add_epi64(_mm512_slli_epi64(_mm512_popcnt_epi64(s2), 1),
                                 _mm512_popcnt_epi64(_mm512_andnot_si512(d, ve))));
      }
    }
    const __mmask8 k = nv - v0 >= L ? (__mmask8)0xff : (__mmask8)((1u << (nv - v0)) - 1);
    _mm512_mask_storeu_epi64(xr->g + v0, k, aR);
    _mm512_mask_storeu_epi64(xr->g + nvp + v0, k, aX);
    _mm512_mask_storeu_epi64(xr->g + 2 * nvp + v0, k, aZ);
  }
}

const sm_short_isa_t sm_short_avx512 = {
    L, {MRD, MRS}, {NGD, NGS}, {ukr_dense, ukr_sparse}, pack512, restrict512};

void sm_kern_ccc2_short_avx512(size_t m, size_t n, size_t nf, const uint64_t *A,
                               size_t lda, const uint64_t *B, size_t ldb, int sparse,
                               uint32_t *C, size_t ldc)
{
  sm_ccc2_short_run(&sm_short_avx512, m, n, nf, A, lda, B, ldb, sparse, C, ldc, 0);
}

void sm_kern_ccc2_syrk_short_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                    int sparse, uint32_t *C, size_t ldc)
{
  sm_ccc2_short_run(&sm_short_avx512, n, n, nf, A, lda, A, lda, sparse, C, ldc, 1);
}
#else

void sm_kern_ccc2_short_avx512(size_t m, size_t n, size_t nf, const uint64_t *A,
                               size_t lda, const uint64_t *B, size_t ldb, int sparse,
                               uint32_t *C, size_t ldc)
{
  sm_kern_ccc2_short_popc(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

void sm_kern_ccc2_syrk_short_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                    int sparse, uint32_t *C, size_t ldc)
{
  sm_kern_ccc2_syrk_short_popc(n, nf, A, lda, sparse, C, ldc);
}
#endif
