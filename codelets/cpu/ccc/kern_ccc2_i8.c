/* kern_ccc2_i8.c: CCC 2-way moments as an int8 GEMM: the driver shared by
 * the AMX and VNNI kernels (allele counts to bytes, field blocks, int32
 * accumulators to moments), the plain-loop tile product and
 * sm_kern_ccc2_i8ref, the kernel that runs the driver on it. */
#include <stdlib.h>
#include <string.h>

#include "sm_formulas.h"
#include "sm_kern_simd.h"

/* Fields per block: the bytes of a block of rows stay in L2, a 32-column
 * slice of the columns' block in L1. A multiple of 64 (AMX tile depth). */
#define SM_I8_KB 512

int sm_i8tile_ref(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
                  const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds)
{
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) {
      int32_t s = 0;
      for (size_t q = 0; q < kb; q++) {
        uint32_t quad = B8[(c / 32) * ldb8 + (q / 4) * 32 + c % 32];
        int8_t b = (int8_t)(uint8_t)(quad >> (8 * (q % 4)));
        s += (int32_t)A8[r * lda8 + q] * b;
      }
      S[r * lds + c] += s;
    }
  return 0;
}

/* Bytes of 4 fields from one code byte: dense r (code 10 counts as 1),
 * sparse r (missing is 0) and presence m. */
typedef struct luts {
  uint32_t r_dense[256], r_sparse[256], m[256];
} luts_t;

static void luts_init(luts_t *t)
{
  for (unsigned b = 0; b < 256; b++) {
    uint32_t x = 0, y = 0, z = 0;
    for (unsigned f = 0; f < 4; f++) {
      unsigned c = (b >> (2 * f)) & 3u;
      x |= (uint32_t)sm_gt_r(c, 0) << (8 * f);
      y |= (uint32_t)sm_gt_r(c, 1) << (8 * f);
      z |= (uint32_t)sm_gt_m(c, 1) << (8 * f);
    }
    t->r_dense[b] = x;
    t->r_sparse[b] = y;
    t->m[b] = z;
  }
}

/* The quads (4 fields, 4 bytes) of vector row X for fields f0 .. f0+kb-1,
 * f0 a multiple of 4: out[x * ostride] for quad x; which = 0 r, 1 m. Fields
 * at or past nf are 0. */
static void quads(const uint64_t *X, size_t nf, size_t f0, size_t kb, const uint32_t *lut,
                  uint32_t *out, size_t ostride)
{
  for (size_t x = 0; x < kb / 4; x++) {
    size_t f = f0 + 4 * x;
    uint32_t v = 0;
    if (f < nf) {
      unsigned byte = (unsigned)(X[f / 32] >> (2 * (f % 32))) & 0xffu;
      v = lut[byte];
      if (nf - f < 4) /* bytes of fields past nf */
        v &= (uint32_t)((1ull << (8 * (nf - f))) - 1);
    }
    out[x * ostride] = v;
  }
}

#if SM_BUILD_X86
#include <immintrin.h>
#define SM_PACK_TARGET __attribute__((target("avx512f,avx512bw,bmi2")))

/* The bytes of fields f .. f+63 (f a multiple of 64, f < nf) of row X:
 * pdep spreads each 2-bit code into a byte, vpshufb maps codes to values. */
SM_PACK_TARGET
static inline __m512i bytes64(const uint64_t *X, size_t nf, size_t f, __m512i lut)
{
  const uint64_t spread = 0x0303030303030303ull;
  uint64_t c0 = X[f / 32], c1 = f + 32 < nf ? X[f / 32 + 1] : 0;
  __m512i v = _mm512_set_epi64(
      (long long)_pdep_u64(c1 >> 48, spread), (long long)_pdep_u64(c1 >> 32, spread),
      (long long)_pdep_u64(c1 >> 16, spread), (long long)_pdep_u64(c1, spread),
      (long long)_pdep_u64(c0 >> 48, spread), (long long)_pdep_u64(c0 >> 32, spread),
      (long long)_pdep_u64(c0 >> 16, spread), (long long)_pdep_u64(c0, spread));
  v = _mm512_shuffle_epi8(lut, v);
  if (nf - f < 64) /* bytes of fields past nf */
    v = _mm512_maskz_mov_epi8((__mmask64)((1ull << (nf - f)) - 1), v);
  return v;
}

/* vpshufb table (per 128-bit lane) of code -> value: which = 0 dense r,
 * 1 sparse r, 2 presence m */
SM_PACK_TARGET
static __m512i lut_vec(int which)
{
  static const char t[3][4] = {{0, 1, 1, 2}, {0, 1, 0, 2}, {1, 1, 0, 1}};
  const char *x = t[which];
  return _mm512_broadcast_i32x4(
      _mm_setr_epi8(x[0], x[1], x[2], x[3], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
}

/* One GEMM row of A8: fields f0 .. f0+kb-1 of X through table `which`. */
SM_PACK_TARGET
static void pack_row_simd(const uint64_t *X, size_t nf, size_t f0, size_t kb, int which,
                          uint8_t *out)
{
  __m512i lut = lut_vec(which);
  for (size_t q = 0; q < kb; q += 64)
    _mm512_store_si512(out + q, f0 + q < nf ? bytes64(X, nf, f0 + q, lut)
                                            : _mm512_setzero_si512());
}

/* 16 GEMM columns c0 .. c0+15 of B8 (c0 a multiple of 16): their bytes,
 * 64 fields at a time, transposed by dwords into the VNNI panel rows. col
 * gives each column's vector (NULL: padding) and table. */
SM_PACK_TARGET
static void pack_cols_simd(const uint64_t *const col[16], const int which[16], size_t nf,
                           size_t f0, size_t kb, uint32_t *panel)
{
  __m512i lut[3] = {lut_vec(0), lut_vec(1), lut_vec(2)};
  for (size_t q = 0; q < kb; q += 64) {
    /* the network below leaves lane and row order permuted by P (its own
     * inverse): feed the columns in P order, store row k as quad P[k] */
    static const int P[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
    __m512i r[16], t[16];
    for (int k = 0; k < 16; k++) {
      int c = P[k];
      r[k] = col[c] && f0 + q < nf ? bytes64(col[c], nf, f0 + q, lut[which[c]])
                                   : _mm512_setzero_si512();
    }
    /* 16 x 16 dword transpose: row c (column c's quads) -> row x (quad x) */
    for (int c = 0; c < 16; c += 2) {
      t[c] = _mm512_unpacklo_epi32(r[c], r[c + 1]);
      t[c + 1] = _mm512_unpackhi_epi32(r[c], r[c + 1]);
    }
    for (int c = 0; c < 16; c += 4) {
      r[c] = _mm512_unpacklo_epi64(t[c], t[c + 2]);
      r[c + 1] = _mm512_unpackhi_epi64(t[c], t[c + 2]);
      r[c + 2] = _mm512_unpacklo_epi64(t[c + 1], t[c + 3]);
      r[c + 3] = _mm512_unpackhi_epi64(t[c + 1], t[c + 3]);
    }
    for (int c = 0; c < 8; c++) {
      t[c] = _mm512_shuffle_i32x4(r[c], r[c + 8], 0x88);
      t[c + 8] = _mm512_shuffle_i32x4(r[c], r[c + 8], 0xdd);
    }
    for (int c = 0; c < 16; c += 8)
      for (int d = 0; d < 4; d++) {
        r[c + d] = _mm512_shuffle_i32x4(t[c + d], t[c + d + 4], 0x88);
        r[c + d + 4] = _mm512_shuffle_i32x4(t[c + d], t[c + d + 4], 0xdd);
      }
    for (int k = 0; k < 16; k++)
      _mm512_store_si512(panel + (q / 4 + (size_t)P[k]) * 32, r[k]);
  }
}
#define SM_HAVE_SIMD_PACK 1
#endif

int sm_kern_ccc2_i8(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                    const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
                    sm_i8tile_fn tile, int simd_pack, int sym)
{
  if (m == 0 || n == 0)
    return 0;
  const size_t q = sparse ? 2 : 1; /* GEMM rows per vector: r (and m) */
  const size_t rows = (m * q + 31) / 32 * 32, cols = (n * q + 31) / 32 * 32;
  const size_t KB = SM_I8_KB;
  luts_t lut;
  luts_init(&lut);
  const uint32_t *lr = sparse ? lut.r_sparse : lut.r_dense;
  uint8_t *A8 = aligned_alloc(64, rows * KB);
  const size_t ldb8 = KB / 4 * 32; /* a panel of 32 columns */
  uint32_t *B8 = aligned_alloc(64, cols / 32 * ldb8 * sizeof(uint32_t));
  int32_t *S = aligned_alloc(64, rows * cols * sizeof(int32_t));
  if (!A8 || !B8 || !S)
    goto fail;
  memset(S, 0, rows * cols * sizeof(int32_t));
  memset(A8, 0, rows * KB); /* padding rows stay zero */
  memset(B8, 0, cols / 32 * ldb8 * sizeof(uint32_t));
#ifndef SM_HAVE_SIMD_PACK
  simd_pack = 0;
#endif
  for (size_t f0 = 0; f0 < nf; f0 += KB) {
    size_t kb = nf - f0 < KB ? (nf - f0 + 63) / 64 * 64 : KB;
    if (simd_pack) {
#ifdef SM_HAVE_SIMD_PACK
      for (size_t i = 0; i < m; i++)
        for (size_t x = 0; x < q; x++)
          pack_row_simd(A + i * lda, nf, f0, kb, x ? 2 : sparse, A8 + (i * q + x) * KB);
      for (size_t c0 = 0; c0 < cols; c0 += 16) {
        const uint64_t *col[16];
        int which[16];
        for (size_t c = 0; c < 16; c++) {
          size_t j = (c0 + c) / q;
          col[c] = j < n ? B + j * ldb : NULL;
          which[c] = (c0 + c) % q ? 2 : sparse;
        }
        pack_cols_simd(col, which, nf, f0, kb, B8 + c0 / 32 * ldb8 + c0 % 32);
      }
#endif
    } else {
      for (size_t i = 0; i < m; i++) {
        quads(A + i * lda, nf, f0, kb, lr, (uint32_t *)(A8 + i * q * KB), 1);
        if (sparse)
          quads(A + i * lda, nf, f0, kb, lut.m, (uint32_t *)(A8 + (2 * i + 1) * KB), 1);
      }
      for (size_t j = 0; j < n; j++)
        for (size_t x = 0; x < q; x++) {
          size_t c = j * q + x;
          quads(B + j * ldb, nf, f0, kb, x ? lut.m : lr, B8 + (c / 32) * ldb8 + c % 32,
                32);
        }
    }
    if (!sym) {
      if (tile(rows, cols, kb, A8, KB, B8, ldb8, S, cols) != 0)
        goto fail;
    } else /* strips of 32 rows from their diagonal on */
      for (size_t i = 0; i < rows; i += 32)
        if (tile(32, cols - i, kb, A8 + i * KB, KB, B8 + i / 32 * ldb8, ldb8,
                 S + i * cols + i, cols) != 0)
          goto fail;
  }
  /* moment (a, b) of pair (i, j): r or m of i (a) times r or m of j (b);
   * sym: below the diagonal, from the transposed entry */
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++)
      for (size_t a = 0; a < q; a++)
        for (size_t b = 0; b < q; b++)
          C[(i * ldc + j) * q * q + a * q + b] =
              (uint32_t)(sym && j < i ? S[(j * q + b) * cols + i * q + a]
                                      : S[(i * q + a) * cols + j * q + b]);
  free(A8);
  free(B8);
  free(S);
  return 0;
fail:
  free(A8);
  free(B8);
  free(S);
  return -1;
}

void sm_kern_ccc2_i8ref(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                        size_t ldc)
{
  if (sm_kern_ccc2_i8(m, n, nf, A, lda, B, ldb, sparse, C, ldc, sm_i8tile_ref, 0, 0) != 0)
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

void sm_kern_ccc2_syrk_i8ref(size_t n, size_t nf, const uint64_t *A, size_t lda,
                             int sparse, uint32_t *C, size_t ldc)
{
  if (sm_kern_ccc2_i8(n, n, nf, A, lda, A, lda, sparse, C, ldc, sm_i8tile_ref, 0, 1) != 0)
    sm_kern_ccc2_ref(n, n, nf, A, lda, A, lda, sparse, C, ldc);
}
