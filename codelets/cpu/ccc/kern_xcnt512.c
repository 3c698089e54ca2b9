/* kern_xcnt512.c: tallies over a partner's missing fields with AVX-512.
 *
 * A pair's tallies over the fields both vectors have (PLINK's homozygous
 * tally, CCC's sparse moments) are whole-vector margins less what the
 * partner's missing fields take away. Missing calls are usually few, so
 * per block of 256 x 256 pairs: each side's planes (the bits of a code
 * set) transposed, the 256 vectors' bits of a field in 4 words; per
 * partner, its missing fields visited through its list (a loop without a
 * branch per word), each adding its 4 words to byte counters as masks (64
 * vectors an instruction) that are widened every 127 or 255 fields. One
 * side's tallies come out by partner (columns), the other's by row; C's
 * rows are written 16 pairs at a time through 16 x 16 transpositions.
 * Work: the missing calls times the chunks of 256, not the pairs times
 * the fields. Exact integers: the popcount kernels' results bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "sm_ccc_planes.h"
#include "sm_ccc_short.h"
#include "sm_cpu.h"
#include "sm_kern.h"
#include "sm_sidecache.h"
#include "sm_xcnt512.h"

/* 256 columns' dense planes (2 a field, 64 fields a word) within 256 KB */
int sm_xc_strips(size_t nf, int sym)
{
  return !sym && (nf + 63) / 64 * 2 * 8 * 256 <= ((size_t)256 << 10);
}

int sm_xc_fits(size_t m, size_t n, size_t nf)
{
  const double per = (double)((nf + 63) / 64 * 64) * 3 / 8; /* bytes a vector */
  return (double)((m + 255) / 256 * 256) * per <= (double)SM_XC_PLANES_MAX &&
         (double)((n + 255) / 256 * 256) * per <= (double)SM_XC_PLANES_MAX;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define XC_T __attribute__((target("avx512f,avx512bw,avx512vl")))
#define XC_INLINE XC_T static inline __attribute__((always_inline))

enum { CR = 256, COLS = 256, XC_AHEAD = 8 };

int sm_xc_usable(void)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  return cpu->avx512;
}

/* A set of vectors for the counts. Fields by position in words of 64:
 * field f at 64 (f / 64) + 2 (f % 32) + (f / 32) % 2 (code words 2w and
 * 2w + 1 side by side, as the packed planes keep them). Per chunk of CR
 * vectors, plane p of position q of its vectors at t + ((c nfp + q) npl +
 * p) 4, 4 words (bit k of word r: vector c CR + 64 r + k); zero past the
 * vectors and the fields. Per vector v, its missing positions idx[off[v]
 * .. off[v + 1]) ascending, and its margins g[3 v ..]: R (sum of r over
 * its calls), nX (missing calls), nS (code 11). */
typedef struct xc_set {
  uint64_t *t;
  size_t nfp;
  int npl;
  size_t *off;
  uint32_t *idx;
  uint32_t *g;
} xc_set_t;

/* The planes: S (code 11) alone for the homozygous tally; P1 (r >= 1,
 * codes 01 and 11), S and X (code 10, missing) for the moments (r = P1 +
 * S). No plane holds code 00, the code of the bits past the fields. */
enum { XC_HOM = 1, XC_MOM = 3 };

static void xc_set_free(xc_set_t *s)
{
  free(s->t), free(s->off), free(s->idx), free(s->g);
  memset(s, 0, sizeof *s);
}

XC_T static int xc_set(xc_set_t *s, size_t nv, size_t nf, const uint64_t *X, size_t ldx,
                       int npl)
{
  const size_t nc = (nv + CR - 1) / CR, ncw = (nf + 31) / 32, nw = (nf + 63) / 64;
  memset(s, 0, sizeof *s);
  s->nfp = 64 * nw, s->npl = npl;
  const size_t words = nc * s->nfp * (size_t)npl * 4;
  s->t = aligned_alloc(64, (words ? words : 8) * sizeof *s->t);
  s->off = malloc((nv + 1) * sizeof *s->off);
  s->g = malloc((3 * nv + 1) * sizeof *s->g);
  if (!s->t || !s->off || !s->g)
    goto fail;
  /* the planes, transposed 64 vectors x 64 positions at a time, and the
   * margins */
  memset(s->g, 0, (3 * nv + 1) * sizeof *s->g);
  for (size_t c = 0; c < nc * 4; c++) /* 64 vectors */
    for (size_t w = 0; w < nw; w++) {
      uint64_t a[3][64];
      for (size_t k = 0; k < 64; k++) {
        uint64_t lo = 0, hi = 0;
        const size_t v = 64 * c + k;
        if (v < nv) {
          sm_code_word64(X + v * ldx, w, ncw, nf, &lo, &hi);
          const uint32_t ns = (uint32_t)__builtin_popcountll(lo & hi);
          s->g[3 * v] += (uint32_t)__builtin_popcountll(lo) + ns;
          s->g[3 * v + 1] += (uint32_t)__builtin_popcountll(hi & ~lo);
          s->g[3 * v + 2] += ns;
        }
        if (npl == XC_HOM)
          a[0][k] = lo & hi;
        else
          a[0][k] = lo, a[1][k] = lo & hi, a[2][k] = hi & ~lo;
      }
      for (int p = 0; p < npl; p++) {
        sm_mfix_transpose64(a[p]);
        uint64_t *o =
            s->t + ((c / 4 * s->nfp + 64 * w) * (size_t)npl + (size_t)p) * 4 + c % 4;
        for (size_t q = 0; q < 64; q++)
          o[q * (size_t)npl * 4] = a[p][q];
      }
    }
  size_t nx = 0;
  for (size_t v = 0; v < nv; v++)
    s->off[v] = nx, nx += s->g[3 * v + 1];
  s->off[nv] = nx;
  /* the lists: a word's first two positions without a branch (slack of
   * 2), the rest (few words have more) in a loop */
  if (!(s->idx = malloc((nx + 2) * sizeof *s->idx)))
    goto fail;
  for (size_t v = 0; v < nv; v++) {
    size_t k = s->off[v];
    for (size_t w = 0; w < nw; w++) {
      uint64_t lo, hi;
      sm_code_word64(X + v * ldx, w, ncw, nf, &lo, &hi);
      uint64_t b = hi & ~lo;
      const uint32_t base = (uint32_t)(64 * w);
      s->idx[k] = base + (uint32_t)__builtin_ctzll(b | (1ull << 63));
      k += b != 0;
      b &= b - 1;
      s->idx[k] = base + (uint32_t)__builtin_ctzll(b | (1ull << 63));
      k += b != 0;
      for (b &= b - 1; b; b &= b - 1)
        s->idx[k++] = base + (uint32_t)__builtin_ctzll(b);
    }
  }
  return 0;
fail:
  xc_set_free(s);
  return -1;
}

/* out[256] (32-bit) less c8[4] (the same counters as bytes); c8 zeroed
 * when zero. */
XC_INLINE void xc_widen(uint32_t *out, __m512i c8[4], int zero)
{
#pragma GCC unroll 4
  for (int q = 0; q < 4; q++) {
#pragma GCC unroll 4
    for (int t = 0; t < 4; t++) {
      uint32_t *o = out + 64 * q + 16 * t;
      _mm512_storeu_si512(
          o, _mm512_sub_epi32(_mm512_loadu_si512(o),
                              _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c8[q], t))));
    }
    if (zero)
      c8[q] = _mm512_setzero_si512();
  }
}

/* Over a partner's missing fields idx (nidx of them), against a chunk's
 * 256 rows (npl planes a field): out0[k] = base0[k] less the counts of
 * planes pa and pb (pb < 0: pa alone) of row k there; when out1 is not
 * NULL, out1[k] = base1[k] less plane pb's count (PLINK's tally from the
 * moments' S); when p2 >= 0, out2[k] = 0 less plane p2's count. One
 * counter a plane, widened every 127 fields (pa's and pb's summed in
 * bytes then). Inlined with constant planes. */
XC_INLINE void xc_count(const uint32_t *idx, size_t nidx, const uint64_t *chunk, int npl,
                        int pa, int pb, int p2, const uint32_t *base0, uint32_t *out0,
                        const uint32_t *base1, uint32_t *out1, uint32_t *out2)
{
  const __m512i one = _mm512_set1_epi8(1);
  const size_t lim = pb >= 0 ? 127 : 255; /* a byte holds the sum */
  __m512i ca[4], cb[4], c2[4];
  memcpy(out0, base0, CR * sizeof *out0);
  if (out1)
    memcpy(out1, base1, CR * sizeof *out1);
  if (p2 >= 0)
    memset(out2, 0, CR * sizeof *out2);
#pragma GCC unroll 4
  for (int q = 0; q < 4; q++)
    ca[q] = cb[q] = c2[q] = _mm512_setzero_si512();
  for (size_t k0 = 0; k0 < nidx; k0 += lim) {
    const size_t k1 = nidx - k0 < lim ? nidx : k0 + lim;
    for (size_t k = k0; k < k1; k++) {
      const uint64_t *row = chunk + (size_t)idx[k] * (size_t)npl * 4;
      if (k + XC_AHEAD < nidx) { /* kept sets come from memory */
        const char *nx =
            (const char *)(chunk + (size_t)idx[k + XC_AHEAD] * (size_t)npl * 4);
        _mm_prefetch(nx, _MM_HINT_T0);
        _mm_prefetch(nx + (size_t)npl * 32 - 1, _MM_HINT_T0);
      }
#pragma GCC unroll 4
      for (int q = 0; q < 4; q++)
        ca[q] = _mm512_mask_add_epi8(ca[q], _cvtu64_mask64(row[4 * pa + q]), ca[q], one);
      if (pb >= 0)
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++)
          cb[q] =
              _mm512_mask_add_epi8(cb[q], _cvtu64_mask64(row[4 * pb + q]), cb[q], one);
      if (p2 >= 0)
#pragma GCC unroll 4
        for (int q = 0; q < 4; q++)
          c2[q] =
              _mm512_mask_add_epi8(c2[q], _cvtu64_mask64(row[4 * p2 + q]), c2[q], one);
    }
    if (out1)
      xc_widen(out1, cb, 0);
    if (pb >= 0)
#pragma GCC unroll 4
      for (int q = 0; q < 4; q++)
        ca[q] = _mm512_add_epi8(ca[q], cb[q]), cb[q] = _mm512_setzero_si512();
    xc_widen(out0, ca, 1);
    if (p2 >= 0)
      xc_widen(out2, c2, 1);
  }
}

/* t[k] = column block col (16 columns COLS apart, 16 values each)
 * transposed: row k over the 16 columns (4 stages). */
XC_INLINE void xc_transpose16(const uint32_t *col, __m512i t[16])
{
  __m512i a[16], b[16];
#pragma GCC unroll 16
  for (int q = 0; q < 16; q++)
    a[q] = _mm512_loadu_si512(col + q * COLS);
#pragma GCC unroll 8
  for (int q = 0; q < 16; q += 2) {
    b[q] = _mm512_unpacklo_epi32(a[q], a[q + 1]);
    b[q + 1] = _mm512_unpackhi_epi32(a[q], a[q + 1]);
  }
#pragma GCC unroll 4
  for (int q = 0; q < 16; q += 4) {
    a[q] = _mm512_unpacklo_epi64(b[q], b[q + 2]);
    a[q + 1] = _mm512_unpackhi_epi64(b[q], b[q + 2]);
    a[q + 2] = _mm512_unpacklo_epi64(b[q + 1], b[q + 3]);
    a[q + 3] = _mm512_unpackhi_epi64(b[q + 1], b[q + 3]);
  }
  /* a[4g + c]: 128-bit lane l holds row 4l + c of columns 4g .. 4g + 3;
   * row 4l + c is lane l of a[c], a[4 + c], a[8 + c], a[12 + c] */
#pragma GCC unroll 4
  for (int c = 0; c < 4; c++) {
    const __m512i x0 = _mm512_shuffle_i32x4(a[c], a[4 + c], 0x88),
                  x1 = _mm512_shuffle_i32x4(a[c], a[4 + c], 0xdd),
                  y0 = _mm512_shuffle_i32x4(a[8 + c], a[12 + c], 0x88),
                  y1 = _mm512_shuffle_i32x4(a[8 + c], a[12 + c], 0xdd);
    t[c] = _mm512_shuffle_i32x4(x0, y0, 0x88);      /* lane 0 */
    t[4 + c] = _mm512_shuffle_i32x4(x1, y1, 0x88);  /* lane 1 */
    t[8 + c] = _mm512_shuffle_i32x4(x0, y0, 0xdd);  /* lane 2 */
    t[12 + c] = _mm512_shuffle_i32x4(x1, y1, 0xdd); /* lane 3 */
  }
}

/* Interleaving indices: pairs 0..7 (lo) and 8..15 (hi) of two vectors. */
#define XC_LO32 _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0)
#define XC_HI32                                                                          \
  _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8)

/* The lanes of 16 u32 that hold pairs from .. from + 16 / w - 1 of the
 * first cnt pairs, w values a pair. */
static inline __mmask16 xc_mask(size_t cnt, size_t from, size_t w)
{
  const size_t per = 16 / w, k = cnt > from ? (cnt - from > per ? per : cnt - from) : 0;
  return (__mmask16)((1u << (w * k)) - 1);
}

/* Rows k0 .. k0 + kn - 1 of a block of the homozygous tally (jn
 * columns, C at c): [0] from col (by column), [1] from rc (by row). */
XC_T static void hom_rows(const uint32_t *col, const uint32_t *rc, size_t k0, size_t kn,
                          size_t jn, uint32_t *c, size_t ldc)
{
  for (size_t jb = 0; jb < jn; jb += 16) {
    const size_t cnt = jn - jb < 16 ? jn - jb : 16;
    const __mmask16 m0 = xc_mask(cnt, 0, 2), m1 = xc_mask(cnt, 8, 2);
    __m512i t[16];
    xc_transpose16(col + jb * COLS + k0, t);
    for (size_t r = 0; r < kn; r++) {
      const __m512i v1 = _mm512_loadu_si512(rc + r * CR + jb);
      uint32_t *o = c + (r * ldc + jb) * 2;
      _mm512_mask_storeu_epi32(o, m0, _mm512_permutex2var_epi32(t[r], XC_LO32, v1));
      _mm512_mask_storeu_epi32(o + 16, m1, _mm512_permutex2var_epi32(t[r], XC_HI32, v1));
    }
  }
}

/* Both sides' sets (b is a when same). */
typedef struct xc_sides {
  xc_set_t a, b;
  int same;
} xc_sides_t;

static void xc_sides_free(xc_sides_t *x)
{
  xc_set_free(&x->a);
  if (!x->same)
    xc_set_free(&x->b);
}

static int xc_sides(xc_sides_t *x, size_t m, size_t n, size_t nf, const uint64_t *A,
                    size_t lda, const uint64_t *B, size_t ldb, int same, int npl)
{
  x->same = same;
  if (xc_set(&x->a, m, nf, A, lda, npl))
    return -1;
  if (same)
    x->b = x->a;
  else if (xc_set(&x->b, n, nf, B, ldb, npl)) {
    xc_set_free(&x->a);
    return -1;
  }
  return 0;
}

/* Reads a chunk's planes in order, so that the counters' visits in the
 * order of the missing fields find them in cache: a kept set comes from
 * memory, where the hardware streams an ordered read and stalls on each
 * scattered one. */
XC_T static void xc_warm(const xc_set_t *s, const uint64_t *chunk)
{
  const size_t words = s->nfp * (size_t)s->npl * 4;
  __m512i acc = _mm512_setzero_si512();
  for (size_t w = 0; w + 8 <= words; w += 8)
    acc = _mm512_or_si512(acc, _mm512_load_si512(chunk + w));
  __asm__ volatile("" : : "v"(acc));
}

/* A chunk's first word, of the chunk holding vector v. */
static const uint64_t *xc_chunk(const xc_set_t *s, size_t v)
{
  return s->t + v / CR * s->nfp * (size_t)s->npl * 4;
}

/* Rows k0 .. k0 + kn - 1 of a block of moments (jn columns, C at c, the
 * dense product at rr): rr; rm from colr (by column); mr from rcr (by
 * row); mm = nf - nX_i (xi[r]) - nX_j (xj) + xx (colx: -xx by column). */
XC_T static void mom_rows(const uint32_t *colr, const uint32_t *colx, const uint32_t *rcr,
                          const uint32_t *rr, size_t ldr, const uint32_t *nfxi,
                          const uint32_t *xj, size_t k0, size_t kn, size_t jn,
                          uint32_t *c, size_t ldc)
{
  const __m512i lo64 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0),
                hi64 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  for (size_t jb = 0; jb < jn; jb += 16) {
    const size_t cnt = jn - jb < 16 ? jn - jb : 16;
    const __mmask16 in = (__mmask16)((1u << cnt) - 1);
    const __mmask16 mq[4] = {xc_mask(cnt, 0, 4), xc_mask(cnt, 4, 4), xc_mask(cnt, 8, 4),
                             xc_mask(cnt, 12, 4)};
    __m512i tr[16], tx[16];
    xc_transpose16(colr + jb * COLS + k0, tr);
    xc_transpose16(colx + jb * COLS + k0, tx);
    const __m512i vxj = _mm512_loadu_si512(xj + jb);
    for (size_t r = 0; r < kn; r++) {
      const __m512i p = _mm512_maskz_loadu_epi32(in, rr + r * ldr + jb),
                    mr = _mm512_loadu_si512(rcr + r * CR + jb),
                    mm = _mm512_sub_epi32(
                        _mm512_sub_epi32(_mm512_set1_epi32((int)nfxi[r]), vxj), tx[r]);
      const __m512i a = _mm512_permutex2var_epi32(p, XC_LO32, tr[r]),
                    b = _mm512_permutex2var_epi32(p, XC_HI32, tr[r]),
                    d = _mm512_permutex2var_epi32(mr, XC_LO32, mm),
                    e = _mm512_permutex2var_epi32(mr, XC_HI32, mm);
      uint32_t *o = c + (r * ldc + jb) * 4;
      _mm512_mask_storeu_epi32(o, mq[0], _mm512_permutex2var_epi64(a, lo64, d));
      _mm512_mask_storeu_epi32(o + 16, mq[1], _mm512_permutex2var_epi64(a, hi64, d));
      _mm512_mask_storeu_epi32(o + 32, mq[2], _mm512_permutex2var_epi64(b, lo64, e));
      _mm512_mask_storeu_epi32(o + 48, mq[3], _mm512_permutex2var_epi64(b, hi64, e));
    }
  }
}

/* LD windows (sm_kern.h): the columns of block (i0, j0) (in rows from
 * i0, jn columns from j0) that rows k0.. k0 + 15 pair with, [gl, gh) per
 * 16 rows relative to j0, gl a multiple of 16 (the short kernel's
 * lanes), and the block's [*lo, *hi) holding them all; 0 when the block
 * holds no pair in the windows. A row's run moves right from row to row,
 * so its 16 rows' runs span [first row's lo, last row's hi). */
static int xc_band_block(const sm_band_t *bd, size_t n, size_t i0, size_t in, size_t j0,
                         size_t jn, size_t *gl, size_t *gh, size_t *lo, size_t *hi)
{
  *lo = jn, *hi = 0;
  for (size_t k0 = 0; k0 < in; k0 += 16) {
    const size_t kn = in - k0 < 16 ? in - k0 : 16;
    size_t l = jn, h = 0;
    for (size_t k = 0; k < kn; k++) {
      size_t a, b;
      sm_band_run(bd, n, i0 + k0 + k, &a, &b);
      a = a < j0 ? 0 : a - j0, b = b < j0 ? 0 : b - j0 > jn ? jn : b - j0;
      if (a < b)
        l = a < l ? a : l, h = b > h ? b : h;
    }
    if (l >= h)
      l = h = 0;
    gl[k0 / 16] = l / 16 * 16, gh[k0 / 16] = h;
    if (h > l)
      *lo = gl[k0 / 16] < *lo ? gl[k0 / 16] : *lo, *hi = h > *hi ? h : *hi;
  }
  return *hi > *lo;
}

/* Both tallies, block by block (kind XC_HOM or XC_MOM; the moments'
 * dense product at rr, ldr, or when dl is not NULL computed from its
 * lanes a strip of 16 rows at a time, into L1 before its rows are
 * written). Per block, by column (a partner's missing
 * fields against the rows' chunk): hom [0] nS_i less S_i (col0); moments
 * rm = R_i less r_i (col0), -xx (col1). By row, 16 rows at a time (a
 * row's missing fields against the partners' chunk): hom [1], moments mr
 * (rc). Per block the rows' base values (ba: nS or R; fa: nf - nX_i) and
 * the partners' (bb: nS or R; xb: nX_j). */
XC_T static int xc_run(int kind, size_t m, size_t n, size_t nf, const xc_set_t *sa,
                       const xc_set_t *sb, const uint32_t *rr, size_t ldr,
                       const sm_clanes_t *dl, const sm_band_t *bd, uint32_t *C,
                       size_t ldc, uint32_t *H, size_t ldh)
{
  const size_t nbuf =
      (H ? 3 : 2) * CR * COLS + (H ? 2 : 1) * 16 * CR + 6 * CR + 16 * COLS;
  uint32_t *col0 = aligned_alloc(64, nbuf * sizeof *col0);
  if (!col0)
    return -1;
  memset(col0, 0, nbuf * sizeof *col0); /* columns past n: read, not kept */
  uint32_t *col1 = col0 + CR * COLS, *rc = col1 + CR * COLS, *ba = rc + 16 * CR,
           *bb = ba + CR, *xb = bb + CR, *fa = xb + CR, *sba = fa + CR, *sbb = sba + CR,
           *strip = sbb + CR;
  /* with H, PLINK's tally from the moments' S counts (columns: colh, rows: rch) */
  uint32_t *colh = H ? strip + 16 * COLS : NULL, *rch = H ? colh + CR * COLS : NULL;
  const int gq = kind == XC_HOM ? 2 : 0; /* the base values: nS or R */
  for (size_t i0 = 0; i0 < m; i0 += CR) {
    const size_t in = m - i0 < CR ? m - i0 : CR;
    const uint64_t *ca = xc_chunk(sa, i0);
    xc_warm(sa, ca);
    for (size_t k = 0; k < CR; k++) {
      ba[k] = k < in ? sa->g[3 * (i0 + k) + gq] : 0;
      fa[k] = k < in ? (uint32_t)nf - sa->g[3 * (i0 + k) + 1] : 0;
      sba[k] = k < in ? sa->g[3 * (i0 + k) + 2] : 0;
    }
    for (size_t j0 = 0; j0 < n; j0 += CR) {
      const size_t jn = n - j0 < CR ? n - j0 : CR;
      /* the block's columns [lo, hi): all, or with windows those of
       * each 16 rows' runs (gl, gh: 16 columns at a time) */
      size_t lo = 0, hi = jn, gl[CR / 16], gh[CR / 16];
      if (bd && !xc_band_block(bd, n, i0, in, j0, jn, gl, gh, &lo, &hi))
        continue;
      const uint64_t *cb = xc_chunk(sb, j0);
      xc_warm(sb, cb);
      for (size_t k = 0; k < CR; k++) {
        bb[k] = k < jn ? sb->g[3 * (j0 + k) + gq] : 0;
        xb[k] = k < jn ? sb->g[3 * (j0 + k) + 1] : 0;
        sbb[k] = k < jn ? sb->g[3 * (j0 + k) + 2] : 0;
      }
      for (size_t jj = lo; jj < hi; jj++) {
        const uint32_t *idx = sb->idx + sb->off[j0 + jj];
        const size_t nidx = sb->off[j0 + jj + 1] - sb->off[j0 + jj];
        if (kind == XC_HOM)
          xc_count(idx, nidx, ca, XC_HOM, 0, -1, -1, ba, col0 + jj * COLS, NULL, NULL,
                   NULL);
        else
          xc_count(idx, nidx, ca, XC_MOM, 0, 1, 2, ba, col0 + jj * COLS, sba,
                   H ? colh + jj * COLS : NULL, col1 + jj * COLS);
      }
      for (size_t k0 = 0; k0 < in; k0 += 16) {
        const size_t kn = in - k0 < 16 ? in - k0 : 16;
        /* the columns [g0, g0 + gn) of these rows */
        const size_t g0 = bd ? gl[k0 / 16] : 0, gn = bd ? gh[k0 / 16] - g0 : jn;
        if (!gn)
          continue;
        for (size_t k = 0; k < kn; k++) {
          const uint32_t *idx = sa->idx + sa->off[i0 + k0 + k];
          const size_t nidx = sa->off[i0 + k0 + k + 1] - sa->off[i0 + k0 + k];
          if (kind == XC_HOM)
            xc_count(idx, nidx, cb, XC_HOM, 0, -1, -1, bb, rc + k * CR, NULL, NULL, NULL);
          else
            xc_count(idx, nidx, cb, XC_MOM, 0, 1, -1, bb, rc + k * CR, sbb,
                     H ? rch + k * CR : NULL, NULL);
        }
        const size_t c0 = j0 + g0; /* the first column, in the tile */
        if (kind == XC_HOM) {
          hom_rows(col0 + g0 * COLS, rc + g0, k0, kn, gn, C + ((i0 + k0) * ldc + c0) * 2,
                   ldc);
          continue;
        }
        const uint32_t *pr = rr ? rr + (i0 + k0) * ldr + c0 : strip;
        if (dl) {
          const sm_clanes_t va = sm_clanes_view(&dl[0], i0 + k0),
                            vb = sm_clanes_view(&dl[1], c0);
          sm_ccc2_short_tiles(&sm_short_avx512, kn, gn, &va, &vb, nf, 0, strip, COLS, 1,
                              NULL, 0);
        }
        mom_rows(col0 + g0 * COLS, col1 + g0 * COLS, rc + g0, pr, rr ? ldr : COLS,
                 fa + k0, xb + g0, k0, kn, gn, C + ((i0 + k0) * ldc + c0) * 4, ldc);
        if (H)
          hom_rows(colh + g0 * COLS, rch + g0, k0, kn, gn, H + ((i0 + k0) * ldh + c0) * 2,
                   ldh);
      }
    }
  }
  free(col0);
  return 0;
}

/* xc_run on both sides' sets, built for this call. */
static int xc_run_built(int kind, size_t m, size_t n, size_t nf, const uint64_t *A,
                        size_t lda, const uint64_t *B, size_t ldb, int same,
                        const uint32_t *rr, size_t ldr, const sm_clanes_t *dl,
                        uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  xc_sides_t x;
  if (xc_sides(&x, m, n, nf, A, lda, B, ldb, same, kind))
    return -1;
  const int ret = xc_run(kind, m, n, nf, &x.a, &x.b, rr, ldr, dl, NULL, C, ldc, H, ldh);
  xc_sides_free(&x);
  return ret;
}

int sm_xc_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
              const uint64_t *B, size_t ldb, int same, uint32_t *C, size_t ldc)
{
  return xc_run_built(XC_HOM, m, n, nf, A, lda, B, ldb, same, NULL, 0, NULL, C, ldc, NULL,
                      0);
}

int sm_xc_moments(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                  const uint64_t *B, size_t ldb, int sym, const uint32_t *rr, size_t ldr,
                  uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  return xc_run_built(XC_MOM, m, n, nf, A, lda, B, ldb, sym, rr, ldr, NULL, C, ldc, H,
                      ldh);
}

/* A tile's side of the strips: its moments' set and its dense planes
 * (missing calls read as 00) in the short kernel's lanes. */
typedef struct xc_side {
  xc_set_t set;
  sm_clanes_t dl;
} xc_side_t;

static void xc_side_drop(void *p)
{
  xc_side_t *s = p;
  xc_set_free(&s->set);
  sm_clanes_free(&s->dl);
  free(s);
}

static void *xc_side_build(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                           size_t *bytes)
{
  xc_side_t *s = calloc(1, sizeof *s);
  uint64_t *x0 = sm_codes_no_missing(nv, nf, X, ldx);
  if (!s || !x0 || xc_set(&s->set, nv, nf, X, ldx, XC_MOM)) {
    free(s), free(x0);
    return NULL;
  }
  const int bad = sm_clanes_pack(&sm_short_avx512, &s->dl, nv, nf, x0, (nf + 31) / 32, 0);
  free(x0);
  if (bad) {
    xc_set_free(&s->set);
    free(s);
    return NULL;
  }
  const xc_set_t *t = &s->set;
  const size_t nc = (nv + CR - 1) / CR, nx = t->off[nv];
  *bytes =
      sizeof *s + nc * t->nfp * (size_t)t->npl * 4 * sizeof *t->t +
      (nv + 1) * sizeof *t->off + (nx + 2) * sizeof *t->idx +
      (3 * nv + 1) * sizeof *t->g +
      s->dl.nvp * ((size_t)s->dl.np * s->dl.nw * sizeof *s->dl.p + 3 * sizeof *s->dl.g);
  return s;
}

enum { XC_SIDE_KIND = 0x78630001 }; /* sm_side_get's kind of xc_side_t */

int sm_xc_kept(sm_xc_kept_t *k, size_t m, size_t n, size_t nf, const uint64_t *A,
               size_t lda, const uint64_t *B, size_t ldb, size_t *xa, size_t *xb)
{
  const xc_side_t *a =
      sm_side_get(XC_SIDE_KIND, A, m, nf, lda, NULL, xc_side_drop, &k->r[0]);
  const xc_side_t *b =
      a ? sm_side_get(XC_SIDE_KIND, B, n, nf, ldb, NULL, xc_side_drop, &k->r[1]) : NULL;
  if (!b) {
    if (a)
      sm_side_release(&k->r[0]);
    return 0;
  }
  k->s[0] = a, k->s[1] = b;
  *xa = a->set.off[m], *xb = b->set.off[n];
  return 1;
}

void sm_xc_kept_release(sm_xc_kept_t *k)
{
  sm_side_release(&k->r[1]);
  sm_side_release(&k->r[0]);
}

int sm_xc_moments_strips(sm_xc_kept_t *kept, const sm_band_t *band, size_t m, size_t n,
                         size_t nf, const uint64_t *A, size_t lda, const uint64_t *B,
                         size_t ldb, uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  sm_xc_kept_t own, *k = kept ? kept : &own;
  if (!kept) {
    k->s[0] =
        sm_side_get(XC_SIDE_KIND, A, m, nf, lda, xc_side_build, xc_side_drop, &k->r[0]);
    if (!k->s[0])
      return -1;
    k->s[1] =
        sm_side_get(XC_SIDE_KIND, B, n, nf, ldb, xc_side_build, xc_side_drop, &k->r[1]);
    if (!k->s[1]) {
      sm_side_release(&k->r[0]);
      return -1;
    }
  }
  const xc_side_t *a = k->s[0], *b = k->s[1];
  const sm_clanes_t dl[2] = {a->dl, b->dl};
  const int ret =
      xc_run(XC_MOM, m, n, nf, &a->set, &b->set, NULL, 0, dl, band, C, ldc, H, ldh);
  sm_xc_kept_release(k);
  return ret;
}

#else

int sm_xc_usable(void)
{
  return 0;
}

int sm_xc_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
              const uint64_t *B, size_t ldb, int same, uint32_t *C, size_t ldc)
{
  (void)m, (void)n, (void)nf, (void)A, (void)lda, (void)B, (void)ldb, (void)same, (void)C,
      (void)ldc;
  return -1;
}

int sm_xc_moments(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                  const uint64_t *B, size_t ldb, int sym, const uint32_t *rr, size_t ldr,
                  uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  (void)m, (void)n, (void)nf, (void)A, (void)lda, (void)B, (void)ldb, (void)sym, (void)rr,
      (void)ldr, (void)C, (void)ldc, (void)H, (void)ldh;
  return -1;
}

int sm_xc_kept(sm_xc_kept_t *k, size_t m, size_t n, size_t nf, const uint64_t *A,
               size_t lda, const uint64_t *B, size_t ldb, size_t *xa, size_t *xb)
{
  (void)k, (void)m, (void)n, (void)nf, (void)A, (void)lda, (void)B, (void)ldb, (void)xa,
      (void)xb;
  return 0;
}

void sm_xc_kept_release(sm_xc_kept_t *k)
{
  (void)k;
}

int sm_xc_moments_strips(sm_xc_kept_t *kept, const sm_band_t *band, size_t m, size_t n,
                         size_t nf, const uint64_t *A, size_t lda, const uint64_t *B,
                         size_t ldb, uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  (void)kept, (void)band, (void)m, (void)n, (void)nf, (void)A, (void)lda, (void)B,
      (void)ldb, (void)C, (void)ldc, (void)H, (void)ldh;
  return -1;
}

#endif
