/* kern_ccc2_short_avx2.c: the AVX2 micro-kernels of the CCC kernels for
 * short vectors (sm_ccc_short.h), for CPUs without AVX-512 VPOPCNTDQ: 4
 * columns per ymm register (one 64-bit lane each), a row's word broadcast
 * against them, counted with the nibble table (vpshufb) into byte counters
 * that vpsadbw empties every CHUNK words into each lane's own total: no
 * reduction across lanes; and the packing, 4 vectors' code words gathered
 * at a time (the 3-way restriction is the portable one). */
#include "sm_ccc_short.h"
#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx2,popcnt")))
#define SM_INLINE static inline __attribute__((always_inline))
#include "sm_ccc_avx2.h"

/* Tiles: dense 2 rows x 2 groups, sparse 1 x 1 (16 ymm registers; 2 x 1,
 * 1 x 2, 3 x 1, 4 x 1 dense and 1 x 2, 2 x 1, 2 x 2, 3 x 1 sparse measured
 * at most as fast). Words per chunk of byte counters: a dense term adds
 * between -8 and 8 to a byte per word, counted modulo 256 from 128: 15
 * words end in [8, 248]; the sparse counts add 0 to 8. */
enum { L = 4, CHUNK = 15, BIAS = 128 };
enum { MRD = 2, NGD = 2, MRS = 1, NGS = 1 };

/* The low 32 bits of the 4 lanes. */
SM_TARGET SM_INLINE __m128i lo32(__m256i v)
{
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

SM_TARGET static void ukr_dense(const sm_short_tile_t *t)
{
  const __m256i lut = nibble_table(), lut2 = _mm256_add_epi8(lut, lut);
  const __m256i m4 = _mm256_set1_epi8(0x0f), bias = _mm256_set1_epi8((char)BIAS);
  __m256i tot[MRD][NGD];
#pragma GCC unroll 8
  for (int r = 0; r < MRD; r++)
#pragma GCC unroll 8
    for (int x = 0; x < NGD; x++)
      tot[r][x] = _mm256_setzero_si256();
  const uint64_t *a[MRD], *b[NGD];
  for (int r = 0; r < MRD; r++)
    a[r] = t->a[r];
  for (int x = 0; x < NGD; x++)
    b[x] = t->b[x];
  size_t chunks = 0;
  for (size_t w0 = 0; w0 < t->nw; w0 += CHUNK, chunks++) {
    const size_t w1 = w0 + CHUNK < t->nw ? w0 + CHUNK : t->nw;
    __m256i c[MRD][NGD];
#pragma GCC unroll 8
    for (int r = 0; r < MRD; r++)
#pragma GCC unroll 8
      for (int x = 0; x < NGD; x++)
        c[r][x] = bias;
    for (size_t w = w0; w < w1; w++) {
      __m256i bd[NGD], bs[NGD];
#pragma GCC unroll 8
      for (int x = 0; x < NGD; x++) {
        bd[x] = _mm256_load_si256((const __m256i *)(b[x] + 2 * L * w));
        bs[x] = _mm256_load_si256((const __m256i *)(b[x] + 2 * L * w + L));
      }
#pragma GCC unroll 8
      for (int r = 0; r < MRD; r++) {
        const __m256i ad = _mm256_set1_epi64x((long long)a[r][2 * L * w]);
        const __m256i as = _mm256_set1_epi64x((long long)a[r][2 * L * w + L]);
#pragma GCC unroll 8
        for (int x = 0; x < NGD; x++) {
          const __m256i dd = _mm256_and_si256(ad, bd[x]);
          const __m256i x2 =
              pc8(_mm256_and_si256(dd, _mm256_xor_si256(as, bs[x])), lut2, m4);
          c[r][x] = _mm256_sub_epi8(_mm256_add_epi8(c[r][x], pc8(dd, lut, m4)), x2);
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MRD; r++)
#pragma GCC unroll 8
      for (int x = 0; x < NGD; x++)
        tot[r][x] = drain(tot[r][x], c[r][x]);
  }
  /* R_i + R_j - n + T - 2U, less the bias */
  const __m256i off = _mm256_set1_epi64x((long long)chunks * BIAS * 8);
#pragma GCC unroll 8
  for (int r = 0; r < MRD; r++) {
    if ((size_t)r >= t->mr)
      break;
    const __m256i ri = _mm256_set1_epi64x(t->ga[r][0] - t->nf);
#pragma GCC unroll 8
    for (int x = 0; x < NGD; x++) {
      const size_t j = (size_t)x * L;
      if (j >= t->nr)
        break;
      const __m256i rj = _mm256_loadu_si256((const __m256i *)t->gb[x]);
      const __m128i v = lo32(
          _mm256_add_epi64(_mm256_add_epi64(ri, rj), _mm256_sub_epi64(tot[r][x], off)));
      uint32_t *o = t->c + (size_t)r * t->ldc + j * t->cs;
      if (t->cs == 1 && t->nr >= j + L)
        _mm_storeu_si128((__m128i *)o, v);
      else {
        uint32_t tmp[L];
        _mm_storeu_si128((__m128i *)tmp, v);
        for (size_t l = 0; l < L && j + l < t->nr; l++)
          o[l * t->cs] = tmp[l];
      }
    }
  }
}

SM_TARGET static void ukr_sparse(const sm_short_tile_t *t)
{
  const __m256i lut = nibble_table(), lut2 = _mm256_add_epi8(lut, lut);
  const __m256i m4 = _mm256_set1_epi8(0x0f), bias = _mm256_set1_epi8((char)BIAS);
  const __m256i z = _mm256_setzero_si256();
  __m256i TU[MRS][NGS], FY[MRS][NGS], FX[MRS][NGS], XX[MRS][NGS];
#pragma GCC unroll 8
  for (int r = 0; r < MRS; r++)
#pragma GCC unroll 8
    for (int x = 0; x < NGS; x++)
      TU[r][x] = FY[r][x] = FX[r][x] = XX[r][x] = z;
  const uint64_t *a[MRS], *b[NGS];
  for (int r = 0; r < MRS; r++)
    a[r] = t->a[r];
  for (int x = 0; x < NGS; x++)
    b[x] = t->b[x];
  size_t chunks = 0;
  for (size_t w0 = 0; w0 < t->nw; w0 += CHUNK, chunks++) {
    const size_t w1 = w0 + CHUNK < t->nw ? w0 + CHUNK : t->nw;
    __m256i u[MRS][NGS], y[MRS][NGS], f[MRS][NGS], q[MRS][NGS];
#pragma GCC unroll 8
    for (int r = 0; r < MRS; r++)
#pragma GCC unroll 8
      for (int x = 0; x < NGS; x++)
        u[r][x] = bias, y[r][x] = f[r][x] = q[r][x] = z;
    for (size_t w = w0; w < w1; w++) {
      __m256i bx[NGS], bs[NGS], bd[NGS];
#pragma GCC unroll 8
      for (int x = 0; x < NGS; x++) {
        const __m256i *pb = (const __m256i *)(b[x] + 3 * L * w);
        bx[x] = _mm256_load_si256(pb);
        bs[x] = _mm256_load_si256(pb + 1);
        bd[x] = _mm256_load_si256(pb + 2);
      }
#pragma GCC unroll 8
      for (int r = 0; r < MRS; r++) {
        const __m256i xa = _mm256_set1_epi64x((long long)a[r][3 * L * w]);
        const __m256i sa = _mm256_set1_epi64x((long long)a[r][3 * L * w + L]);
        const __m256i da = _mm256_set1_epi64x((long long)a[r][3 * L * w + 2 * L]);
        const __m256i za = _mm256_andnot_si256(sa, da);
#pragma GCC unroll 8
        for (int x = 0; x < NGS; x++) {
          const __m256i dd = _mm256_and_si256(da, bd[x]);
          const __m256i x2 =
              pc8(_mm256_and_si256(dd, _mm256_xor_si256(sa, bs[x])), lut2, m4);
          u[r][x] = _mm256_sub_epi8(_mm256_add_epi8(u[r][x], pc8(dd, lut, m4)), x2);
          y[r][x] = _mm256_add_epi8(y[r][x],
                                    pc8(_mm256_or_si256(_mm256_and_si256(bx[x], sa),
                                                        _mm256_andnot_si256(bx[x], za)),
                                        lut, m4));
          f[r][x] = _mm256_add_epi8(
              f[r][x], pc8(_mm256_or_si256(_mm256_and_si256(xa, bs[x]),
                                           _mm256_andnot_si256(
                                               xa, _mm256_andnot_si256(bs[x], bd[x]))),
                           lut, m4));
          q[r][x] = _mm256_add_epi8(q[r][x], pc8(_mm256_and_si256(xa, bx[x]), lut, m4));
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MRS; r++)
#pragma GCC unroll 8
      for (int x = 0; x < NGS; x++) {
        TU[r][x] = drain(TU[r][x], u[r][x]);
        FY[r][x] = drain(FY[r][x], y[r][x]);
        FX[r][x] = drain(FX[r][x], f[r][x]);
        XX[r][x] = drain(XX[r][x], q[r][x]);
      }
  }
  /* the moments (sm_cplanes_moments), in the lanes; each pair's 4 moments
   * stored as one 128-bit piece */
  const __m256i off = _mm256_set1_epi64x((long long)chunks * BIAS * 8);
  const __m256i n0 = _mm256_set1_epi64x(t->nf);
#pragma GCC unroll 8
  for (int r = 0; r < MRS; r++) {
    if ((size_t)r >= t->mr)
      break;
    const __m256i Ri = _mm256_set1_epi64x(t->ga[r][0]),
                  Xi = _mm256_set1_epi64x(t->ga[r][t->gsa]),
                  Zi = _mm256_set1_epi64x(t->ga[r][2 * t->gsa]);
#pragma GCC unroll 8
    for (int x = 0; x < NGS; x++) {
      const size_t j = (size_t)x * L;
      if (j >= t->nr)
        break;
      const __m256i Rj = _mm256_loadu_si256((const __m256i *)t->gb[x]);
      const __m256i Xj = _mm256_loadu_si256((const __m256i *)(t->gb[x] + t->gsb));
      const __m256i Zj = _mm256_loadu_si256((const __m256i *)(t->gb[x] + 2 * t->gsb));
      const __m256i tu = _mm256_sub_epi64(TU[r][x], off);
      const __m256i mm =
          _mm256_add_epi64(_mm256_sub_epi64(_mm256_sub_epi64(n0, Xi), Xj), XX[r][x]);
      const __m256i rm = _mm256_add_epi64(
          _mm256_sub_epi64(_mm256_add_epi64(_mm256_sub_epi64(Ri, Xj), XX[r][x]),
                           FY[r][x]),
          Zi);
      const __m256i mr = _mm256_add_epi64(
          _mm256_sub_epi64(_mm256_add_epi64(_mm256_sub_epi64(Rj, Xi), XX[r][x]),
                           FX[r][x]),
          Zj);
      const __m256i rr =
          _mm256_add_epi64(_mm256_sub_epi64(_mm256_add_epi64(rm, mr), mm), tu);
      const __m128i v0 = lo32(rr), v1 = lo32(rm), v2 = lo32(mr), v3 = lo32(mm);
      const __m128i ab0 = _mm_unpacklo_epi32(v0, v1), ab1 = _mm_unpackhi_epi32(v0, v1);
      const __m128i cd0 = _mm_unpacklo_epi32(v2, v3), cd1 = _mm_unpackhi_epi32(v2, v3);
      const __m128i p[L] = {_mm_unpacklo_epi64(ab0, cd0), _mm_unpackhi_epi64(ab0, cd0),
                            _mm_unpacklo_epi64(ab1, cd1), _mm_unpackhi_epi64(ab1, cd1)};
      uint32_t *o = t->c + (size_t)r * t->ldc + j * t->cs;
      for (size_t l = 0; l < L && j + l < t->nr; l++)
        _mm_storeu_si128((__m128i *)(o + l * t->cs), p[l]);
    }
  }
}

/* Packs 4 vectors at a time, their words gathered: the planes of word w of
 * the 4 side by side (sm_cplanes_word's), their R, nX, nZ counted in the
 * lanes (byte counters, emptied every CHUNK words: at most 16 a word). */
SM_TARGET static void pack2(sm_clanes_t *pl, size_t nv, size_t nf, const uint64_t *X,
                            size_t ldx, int sparse)
{
  const size_t ncw = (nf + 31) / 32, nw = pl->nw, np = (size_t)pl->np, nvp = pl->nvp;
  const __m256i lut = nibble_table(), m4 = _mm256_set1_epi8(0x0f),
                z = _mm256_setzero_si256();
  const __m256i E = _mm256_set1_epi64x((long long)SM_EVEN64);
  const long long ld = (long long)ldx;
  const __m256i idx = _mm256_setr_epi64x(0, ld, 2 * ld, 3 * ld);
  for (size_t v0 = 0; v0 < nv; v0 += L) {
    const size_t nl = nv - v0 < L ? nv - v0 : L;
    const __m256i k = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)nl),
                                         _mm256_setr_epi64x(0, 1, 2, 3));
    const uint64_t *x = X + v0 * ldx;
    uint64_t *o = pl->p + v0 * np * nw;
    __m256i tR = z, tX = z, tZ = z;
    for (size_t w0 = 0; w0 < nw; w0 += CHUNK) {
      __m256i cR = z, cX = z, cZ = z;
      for (size_t w = w0; w < nw && w < w0 + CHUNK; w++, o += np * L) {
        __m256i c[2] = {z, z}, v[2] = {z, z};
        for (size_t h = 0; h < 2 && 2 * w + h < ncw; h++) {
          uint64_t l, hh, va;
          sm_gt_bits(0, nf - (2 * w + h) * 32, &l, &hh, &va);
          c[h] = _mm256_mask_i64gather_epi64(z, (const long long *)(x + 2 * w + h), idx,
                                             k, 8);
          v[h] = _mm256_set1_epi64x((long long)va);
        }
        const __m256i valid = _mm256_or_si256(v[0], _mm256_slli_epi64(v[1], 1));
        const __m256i lo = _mm256_and_si256(
            _mm256_or_si256(_mm256_and_si256(c[0], E),
                            _mm256_slli_epi64(_mm256_and_si256(c[1], E), 1)),
            valid);
        const __m256i hi = _mm256_and_si256(
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi64(c[0], 1), E),
                            _mm256_and_si256(c[1], _mm256_slli_epi64(E, 1))),
            valid);
        const __m256i s = _mm256_and_si256(lo, hi);
        if (sparse) {
          const __m256i xm = _mm256_andnot_si256(lo, hi);
          const __m256i zm = _mm256_andnot_si256(_mm256_or_si256(lo, hi), valid);
          _mm256_store_si256((__m256i *)o, xm);
          _mm256_store_si256((__m256i *)(o + L), s);
          _mm256_store_si256((__m256i *)(o + 2 * L), _mm256_or_si256(s, zm));
          cR = _mm256_add_epi8(cR, _mm256_add_epi8(pc8(lo, lut, m4), pc8(s, lut, m4)));
          cX = _mm256_add_epi8(cX, pc8(xm, lut, m4));
          cZ = _mm256_add_epi8(cZ, pc8(zm, lut, m4));
        } else { /* D = valid & ~(lo ^ hi) */
          _mm256_store_si256((__m256i *)o,
                             _mm256_andnot_si256(_mm256_xor_si256(lo, hi), valid));
          _mm256_store_si256((__m256i *)(o + L), s);
          cR = _mm256_add_epi8(cR, _mm256_add_epi8(pc8(_mm256_or_si256(lo, hi), lut, m4),
                                                   pc8(s, lut, m4)));
        }
      }
      tR = drain(tR, cR), tX = drain(tX, cX), tZ = drain(tZ, cZ);
    }
    _mm256_storeu_si256((__m256i *)(pl->g + v0), tR);
    _mm256_storeu_si256((__m256i *)(pl->g + nvp + v0), tX);
    _mm256_storeu_si256((__m256i *)(pl->g + 2 * nvp + v0), tZ);
  }
}

const sm_short_isa_t sm_short_avx2 = {
    L, {MRD, MRS}, {NGD, NGS}, {ukr_dense, ukr_sparse}, pack2, sm_short_restrict_c};

void sm_kern_ccc2_short_avx2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc)
{
  sm_ccc2_short_run(&sm_short_avx2, m, n, nf, A, lda, B, ldb, sparse, C, ldc, 0);
}

void sm_kern_ccc2_syrk_short_avx2(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                  int sparse, uint32_t *C, size_t ldc)
{
  sm_ccc2_short_run(&sm_short_avx2, n, n, nf, A, lda, A, lda, sparse, C, ldc, 1);
}
#else

void sm_kern_ccc2_short_avx2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc)
{
  sm_kern_ccc2_short_popc(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

void sm_kern_ccc2_syrk_short_avx2(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                  int sparse, uint32_t *C, size_t ldc)
{
  sm_kern_ccc2_syrk_short_popc(n, nf, A, lda, sparse, C, ldc);
}
#endif
