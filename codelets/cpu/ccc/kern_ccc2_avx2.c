/* kern_ccc2_avx2.c: CCC 2-way moments with AVX2, for CPUs without AVX-512
 * VPOPCNTDQ: the long-vector form of sm_kern_ccc2_avx2
 * (sm_kern_ccc2_long_avx2; sm_kern_pick.c chooses it or the short-vector
 * form by length). The planes of sm_ccc_planes.h in groups
 * of 4 words are counted 256 bits at a time with the nibble table
 * (vpshufb) into byte counters that vpsadbw empties every CHUNK groups: on
 * a 2-core AMD EPYC, twice the word pairs per second of scalar popcnt,
 * whose and + popcnt + add fill the integer ports. Dense: 2 rows x 2
 * columns per loaded group; sparse: 1 row x 2 columns. */
#include <stdlib.h>

#include "sm_ccc_planes.h"
#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx2,popcnt")))
#define SM_INLINE static inline __attribute__((always_inline))
#include "sm_ccc_avx2.h"

/* Groups per chunk of byte counters. A dense term |Di & Dj| - 2 |Di & Dj &
 * (Si ^ Sj)| adds between -8 and 8 to a byte per group; counted modulo 256
 * from 128, 15 groups end in [8, 248]. The sparse counts add 0 to 8. */
enum { CHUNK = 15, BIAS = 128, G = 4 };

/* Twice the popcounts: the dense term's 2 |Di & Dj & (Si ^ Sj)| without an
 * add. */
SM_TARGET SM_INLINE __m256i nibble_table2(void)
{
  return _mm256_add_epi8(nibble_table(), nibble_table());
}

SM_TARGET SM_INLINE int64_t hsum(__m256i t)
{
  const __m128i s =
      _mm_add_epi64(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
  return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

/* c += |d0 & d1| - 2 |d0 & d1 & (s0 ^ s1)|, per byte. */
#define DS_TERM(c, d0, s0, d1, s1)                                                       \
  do {                                                                                   \
    const __m256i dd_ = _mm256_and_si256(d0, d1);                                        \
    const __m256i x2_ = pc8(_mm256_and_si256(dd_, _mm256_xor_si256(s0, s1)), lut2, m4);  \
    c = _mm256_sub_epi8(_mm256_add_epi8(c, pc8(dd_, lut, m4)), x2_);                     \
  } while (0)

/* Rows a0, a1 against columns b0, b1 over ng groups (planes D, S). */
SM_TARGET SM_INLINE void dense22(size_t ng, const uint64_t *a0, const uint64_t *a1,
                                 const uint64_t *b0, const uint64_t *b1, int64_t acc[4])
{
  const __m256i lut = nibble_table(), lut2 = nibble_table2(), m4 = _mm256_set1_epi8(0x0f);
  const __m256i bias = _mm256_set1_epi8((char)BIAS);
  __m256i t0 = _mm256_setzero_si256(), t1 = t0, t2 = t0, t3 = t0;
  size_t chunks = 0;
  for (size_t q = 0; q < ng; chunks++) {
    const size_t e = q + CHUNK < ng ? q + CHUNK : ng;
    __m256i c0 = bias, c1 = bias, c2 = bias, c3 = bias;
    for (; q < e; q++) {
      const __m256i *pa = (const __m256i *)(a0 + 2 * G * q);
      const __m256i *pA = (const __m256i *)(a1 + 2 * G * q);
      const __m256i *pb = (const __m256i *)(b0 + 2 * G * q);
      const __m256i *pB = (const __m256i *)(b1 + 2 * G * q);
      const __m256i da = _mm256_load_si256(pa), sa = _mm256_load_si256(pa + 1);
      const __m256i dA = _mm256_load_si256(pA), sA = _mm256_load_si256(pA + 1);
      const __m256i db = _mm256_load_si256(pb), sb = _mm256_load_si256(pb + 1);
      DS_TERM(c0, da, sa, db, sb);
      DS_TERM(c2, dA, sA, db, sb);
      const __m256i dB = _mm256_load_si256(pB), sB = _mm256_load_si256(pB + 1);
      DS_TERM(c1, da, sa, dB, sB);
      DS_TERM(c3, dA, sA, dB, sB);
    }
    t0 = drain(t0, c0), t1 = drain(t1, c1), t2 = drain(t2, c2), t3 = drain(t3, c3);
  }
  const int64_t off = (int64_t)chunks * BIAS * 32;
  acc[0] = hsum(t0) - off, acc[1] = hsum(t1) - off;
  acc[2] = hsum(t2) - off, acc[3] = hsum(t3) - off;
}

/* The sparse counts {tu, fy, fx, xx} (sm_cplanes_moments) of row a against
 * columns b0 and b1 over ng groups (planes X, S, D). */
SM_TARGET SM_INLINE void sparse12(size_t ng, const uint64_t *a, const uint64_t *b0,
                                  const uint64_t *b1, int64_t c0[4], int64_t c1[4])
{
  const __m256i lut = nibble_table(), lut2 = nibble_table2(), m4 = _mm256_set1_epi8(0x0f);
  const __m256i bias = _mm256_set1_epi8((char)BIAS), z = _mm256_setzero_si256();
  __m256i tt0 = z, ty0 = z, tx0 = z, tq0 = z, tt1 = z, ty1 = z, tx1 = z, tq1 = z;
  size_t chunks = 0;
  for (size_t q = 0; q < ng; chunks++) {
    const size_t e = q + CHUNK < ng ? q + CHUNK : ng;
    __m256i u0 = bias, y0 = z, x0 = z, w0 = z, u1 = bias, y1 = z, x1 = z, w1 = z;
    for (; q < e; q++) {
      const __m256i *pa = (const __m256i *)(a + 3 * G * q);
      const __m256i xa = _mm256_load_si256(pa), sa = _mm256_load_si256(pa + 1),
                    da = _mm256_load_si256(pa + 2);
      const __m256i za = _mm256_andnot_si256(sa, da);
#define SPARSE_TERMS(pb, u, y, x, w)                                                     \
  do {                                                                                   \
    const __m256i xb = _mm256_load_si256(pb), sb = _mm256_load_si256((pb) + 1),          \
                  db = _mm256_load_si256((pb) + 2);                                      \
    DS_TERM(u, da, sa, db, sb);                                                          \
    y = _mm256_add_epi8(                                                                 \
        y, pc8(_mm256_or_si256(_mm256_and_si256(xb, sa), _mm256_andnot_si256(xb, za)),   \
               lut, m4));                                                                \
    x = _mm256_add_epi8(                                                                 \
        x, pc8(_mm256_or_si256(_mm256_and_si256(xa, sb),                                 \
                               _mm256_andnot_si256(xa, _mm256_andnot_si256(sb, db))),    \
               lut, m4));                                                                \
    w = _mm256_add_epi8(w, pc8(_mm256_and_si256(xa, xb), lut, m4));                      \
  } while (0)
      SPARSE_TERMS((const __m256i *)(b0 + 3 * G * q), u0, y0, x0, w0);
      SPARSE_TERMS((const __m256i *)(b1 + 3 * G * q), u1, y1, x1, w1);
#undef SPARSE_TERMS
    }
    tt0 = drain(tt0, u0), ty0 = drain(ty0, y0), tx0 = drain(tx0, x0),
    tq0 = drain(tq0, w0);
    tt1 = drain(tt1, u1), ty1 = drain(ty1, y1), tx1 = drain(tx1, x1),
    tq1 = drain(tq1, w1);
  }
  const int64_t off = (int64_t)chunks * BIAS * 32;
  c0[0] = hsum(tt0) - off, c0[1] = hsum(ty0), c0[2] = hsum(tx0), c0[3] = hsum(tq0);
  c1[0] = hsum(tt1) - off, c1[1] = hsum(ty1), c1[2] = hsum(tx1), c1[3] = hsum(tq1);
}

/* Tiles of TB x TB pairs, whose columns' planes stay in L2; with sym (B is
 * A) only the tiles on and above the diagonal. An odd last row or column
 * is paired with itself (computed twice, kept once). */
#define TB 32

SM_TARGET static void dense_tiles(size_t m, size_t n, size_t nf, const sm_cplanes_t *pa,
                                  const sm_cplanes_t *pb, uint32_t *C, size_t ldc,
                                  int sym)
{
  const size_t ng = pa->nw / G, st = 2 * pa->nw;
  const int64_t n0 = (int64_t)nf;
  const int64_t *ra = pa->marg, *rb = pb->marg;
  for (size_t i0 = 0; i0 < m; i0 += TB)
    for (size_t j0 = sym ? i0 : 0; j0 < n; j0 += TB) {
      const size_t i1 = i0 + TB < m ? i0 + TB : m, j1 = j0 + TB < n ? j0 + TB : n;
      for (size_t i = i0; i < i1; i += 2) {
        const size_t i2 = i + 1 < i1 ? i + 1 : i;
        for (size_t j = j0; j < j1; j += 2) {
          const size_t j2 = j + 1 < j1 ? j + 1 : j;
          int64_t acc[4];
          dense22(ng, pa->p + i * st, pa->p + i2 * st, pb->p + j * st, pb->p + j2 * st,
                  acc);
          const size_t r[2] = {i, i2}, c[2] = {j, j2};
          for (int k = 0; k < 4; k++) {
            const size_t x = r[k >> 1], y = c[k & 1];
            C[x * ldc + y] = (uint32_t)(ra[3 * x] + rb[3 * y] - n0 + acc[k]);
          }
        }
      }
    }
}

SM_CPLANES_SPARSE_TILES(SM_TARGET, sparse_tiles, sparse12, G)
SM_CPLANES_SPARSE_BAND(SM_TARGET, sparse_band, sparse12, G)

SM_TARGET int sm_kern_ccc2_band_avx2(const sm_band_t *b, size_t m, size_t n, size_t nf,
                                     const uint64_t *A, size_t lda, const uint64_t *B,
                                     size_t ldb, uint32_t *C, size_t ldc)
{
  return sm_cplanes_band(G, sparse_band, b, m, n, nf, A, lda, B, ldb, C, ldc);
}

SM_TARGET void sm_kern_ccc2_long_avx2(size_t m, size_t n, size_t nf, const uint64_t *A,
                                      size_t lda, const uint64_t *B, size_t ldb,
                                      int sparse, uint32_t *C, size_t ldc)
{
  sm_cplanes_run(G, dense_tiles, sparse_tiles, m, n, nf, A, lda, B, ldb, sparse, C, ldc,
                 0);
}

SM_TARGET void sm_kern_ccc2_syrk_long_avx2(size_t n, size_t nf, const uint64_t *A,
                                           size_t lda, int sparse, uint32_t *C,
                                           size_t ldc)
{
  sm_cplanes_run(G, dense_tiles, sparse_tiles, n, n, nf, A, lda, A, lda, sparse, C, ldc,
                 1);
}
#else
int sm_kern_ccc2_band_avx2(const sm_band_t *b, size_t m, size_t n, size_t nf,
                           const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                           uint32_t *C, size_t ldc)
{
  return sm_kern_ccc2_band_popc(b, m, n, nf, A, lda, B, ldb, C, ldc);
}

void sm_kern_ccc2_long_avx2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                            const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                            size_t ldc)
{
  sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

void sm_kern_ccc2_syrk_long_avx2(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                 int sparse, uint32_t *C, size_t ldc)
{
  sm_kern_ccc2_ref(n, n, nf, A, lda, A, lda, sparse, C, ldc);
}
#endif
