/* kern_ccc2_avx512.c: CCC 2-way moments on bit planes with AVX-512
 * VPOPCNTDQ, the long-vector form of sm_kern_ccc2_avx512
 * (sm_kern_ccc2_long_avx512; sm_kern_pick.c chooses it or the short-vector
 * form by length): 512 fields per vector step, 2 popcounts per word pair
 * dense and 5 sparse (the algebra is in sm_kern_simd.h), cache blocked,
 * register-blocked over a tile of pairs whose vector sums are reduced once
 * per field block. */
#include <stdlib.h>
#include <string.h>

#include "sm_formulas.h"
#include "sm_huge.h"
#include "sm_kern_simd.h"

#if SM_BUILD_X86
#include <immintrin.h>

#define SM_TARGET __attribute__((target("avx512f,avx512vpopcntdq,popcnt")))

/* Tiles of pairs (rows x columns; dense 4 x 2: 16 accumulators; sparse
 * 2 x 1: 10) and cache blocks: KW plane words per field block (KW * 64
 * fields: a row tile's planes, 16 KB dense, 12 KB sparse, stay in L1), and
 * as many columns per block as fit SM_L2_PLANES bytes of planes (in L2). */
#define SM_MR_D 4
#define SM_NR_D 2
#define SM_MR_S 2
#define SM_NR_S 1
#define SM_KW 256
#define SM_L2_PLANES (640 * 1024)
#define SM_NC_MAX 512

/* Bit planes of a set of vectors, 64 fields per word (a word holds code
 * words 2w and 2w+1 in its even and odd bits), in field blocks of SM_KW
 * words (the last block shorter, ks(b) words, a multiple of 8; zero past
 * the fields): block b holds, vector after vector, each vector's planes
 *   dense:  D = (r != 1), S = (r == 2)                 (np = 2)
 *   sparse: X = missing, S = (r == 2), D = S | Z      (np = 3)
 *           with Z = (r == 0 and present) = D & ~S
 * so that the planes a micro-kernel call reads are contiguous, and per
 * vector: R = sum of r over present entries, nX = missing count, nZ = count
 * of present zeros. Vectors nv..nvp-1 are zero (tile padding). */
typedef struct planes {
  size_t nwp;     /* words per plane, all blocks */
  size_t nvp;     /* vectors, with the padding */
  int np;         /* planes per vector */
  uint64_t *p;    /* the blocks, 64-byte aligned */
  uint32_t *marg; /* [v][3]: R, nX, nZ */
} planes_t;

/* Words of block b, and where vector v's planes of block b start. */
static inline size_t pl_ks(const planes_t *pl, size_t b)
{
  return pl->nwp - b * SM_KW < SM_KW ? pl->nwp - b * SM_KW : SM_KW;
}
static inline uint64_t *pl_at(const planes_t *pl, size_t b, size_t v)
{
  return pl->p + (b * SM_KW * pl->nvp + v * pl_ks(pl, b)) * (size_t)pl->np;
}

/* Keeps a loaded vector in a register: vpternlogq with a memory operand
 * is slower on some cores (Zen 4) than a load plus the register form. */
#define SM_IN_REG(v) __asm__("" : "+v"(v))

/* a & (b ^ c), a ? b : c, and a ? b : (c & ~b) (X ? S : Z with Z = D & ~S),
 * as vpternlogq truth tables */
#define SM_AND_XOR 0x60
#define SM_MUX 0xca
#define SM_MUX_Z 0xc2

enum { PL_D = 0, PL_S = 1 };             /* dense planes */
enum { PL_X = 0, PL_SS = 1, PL_DS = 2 }; /* sparse planes */

/* Planes of 8 words (512 fields, all below nf) from 16 code words, in
 * vector registers; same layout as the scalar loop below. */
SM_TARGET
static void planes8(const uint64_t *cw, int sparse, uint64_t *out, size_t nwp,
                    __m512i *acc)
{
  const __m512i E = _mm512_set1_epi64((long long)SM_EVEN64);
  const __m512i ie = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i io = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  __m512i v0 = _mm512_loadu_si512(cw), v1 = _mm512_loadu_si512(cw + 8);
  __m512i c0 = _mm512_permutex2var_epi64(v0, ie, v1),
          c1 = _mm512_permutex2var_epi64(v0, io, v1);
  /* lo / hi bit of every field: code word 2w in the even bits, 2w+1 in the odd */
  __m512i lo = _mm512_ternarylogic_epi64(E, c0, _mm512_slli_epi64(c1, 1), SM_MUX);
  __m512i hi = _mm512_ternarylogic_epi64(E, _mm512_srli_epi64(c0, 1), c1, SM_MUX);
  __m512i s = _mm512_and_si512(lo, hi);
  if (sparse) {
    __m512i x = _mm512_andnot_si512(lo, hi),
            z = _mm512_ternarylogic_epi64(lo, hi, hi, 0x03); /* ~lo & ~hi */
    _mm512_store_si512(out + PL_X * nwp, x);
    _mm512_store_si512(out + PL_SS * nwp, s);
    _mm512_store_si512(out + PL_DS * nwp, _mm512_or_si512(s, z));
    acc[0] = _mm512_add_epi64(
        acc[0], _mm512_add_epi64(_mm512_popcnt_epi64(lo), _mm512_popcnt_epi64(s)));
    acc[1] = _mm512_add_epi64(acc[1], _mm512_popcnt_epi64(x));
    acc[2] = _mm512_add_epi64(acc[2], _mm512_popcnt_epi64(z));
  } else {
    _mm512_store_si512(out + PL_D * nwp,
                       _mm512_ternarylogic_epi64(lo, hi, hi, 0xc3)); /* ~(lo ^ hi) */
    _mm512_store_si512(out + PL_S * nwp, s);
    acc[0] = _mm512_add_epi64(
        acc[0], _mm512_add_epi64(_mm512_popcnt_epi64(_mm512_or_si512(lo, hi)),
                                 _mm512_popcnt_epi64(s)));
  }
}

SM_TARGET
static int planes_pack(planes_t *pl, size_t nv, size_t nvp, size_t nf, const uint64_t *X,
                       size_t ldx, int sparse)
{
  size_t ncw = (nf + 31) / 32, nw = (ncw + 1) / 2;
  pl->nwp = (nw + 7) / 8 * 8;
  pl->nvp = nvp;
  pl->np = sparse ? 3 : 2;
  size_t words = (nvp ? nvp : 1) * (size_t)pl->np * (pl->nwp ? pl->nwp : 8);
  /* large plane sets on huge pages: fewer TLB misses while the columns
   * stream (a few percent) */
  pl->p = sm_huge_alloc(words * sizeof(uint64_t));
  pl->marg = malloc((nv ? nv : 1) * 3 * sizeof(uint32_t));
  if (!pl->p || !pl->marg) {
    free(pl->p);
    free(pl->marg);
    return -1;
  }
  for (size_t b = 0; b * SM_KW < pl->nwp; b++) /* padding vectors */
    memset(pl_at(pl, b, nv), 0, (nvp - nv) * pl->np * pl_ks(pl, b) * sizeof(uint64_t));
  const size_t nw8 = nf / 512 * 8; /* words of whole 512-field groups */
  for (size_t v = 0; v < nv; v++) {
    const uint64_t *row = X + v * ldx;
    __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                      _mm512_setzero_si512()};
    for (size_t w = 0; w < nw8; w += 8)
      planes8(row + 2 * w, sparse, pl_at(pl, w / SM_KW, v) + w % SM_KW,
              pl_ks(pl, w / SM_KW), acc);
    uint32_t R = (uint32_t)_mm512_reduce_add_epi64(acc[0]);
    uint32_t nX = (uint32_t)_mm512_reduce_add_epi64(acc[1]);
    uint32_t nZ = (uint32_t)_mm512_reduce_add_epi64(acc[2]);
    for (size_t w = nw8; w < pl->nwp; w++) {
      const size_t ks = pl_ks(pl, w / SM_KW);
      uint64_t *out = pl_at(pl, w / SM_KW, v) + w % SM_KW;
      uint64_t pd = 0, ps = 0, px = 0;
      for (int half = 0; half < 2; half++) {
        size_t cw = 2 * w + half;
        if (cw >= ncw)
          break;
        uint64_t lo, hi, valid;
        sm_gt_bits(row[cw], nf - cw * 32, &lo, &hi, &valid);
        lo &= valid, hi &= valid;
        uint64_t s = lo & hi;
        if (sparse) {
          uint64_t x = hi & ~lo, z = valid & ~lo & ~hi;
          R += (uint32_t)(__builtin_popcountll(lo) + __builtin_popcountll(s));
          nX += (uint32_t)__builtin_popcountll(x);
          nZ += (uint32_t)__builtin_popcountll(z);
          px |= x << half;
          pd |= (s | z) << half;
        } else {
          R += (uint32_t)(__builtin_popcountll(lo | hi) + __builtin_popcountll(s));
          pd |= (valid & ~(lo ^ hi)) << half;
        }
        ps |= s << half;
      }
      if (sparse) {
        out[PL_X * ks] = px;
        out[PL_SS * ks] = ps;
        out[PL_DS * ks] = pd;
      } else {
        out[PL_D * ks] = pd;
        out[PL_S * ks] = ps;
      }
    }
    pl->marg[3 * v] = R;
    pl->marg[3 * v + 1] = nX;
    pl->marg[3 * v + 2] = nZ;
  }
  return 0;
}

static void planes_free(planes_t *pl)
{
  free(pl->p);
  free(pl->marg);
}

/* Sums of k <= 8 vectors at once (lane i of the result: the sum of v[i]),
 * by a tree of shuffles: 21 operations instead of 8 reductions. */
SM_TARGET
static inline void hsum8(const __m512i *v, int k, uint64_t *out)
{
  __m512i x[8], s[4], u[2];
  for (int i = 0; i < 8; i++)
    x[i] = i < k ? v[i] : _mm512_setzero_si512();
  for (int i = 0; i < 4; i++)
    s[i] = _mm512_add_epi64(_mm512_unpacklo_epi64(x[2 * i], x[2 * i + 1]),
                            _mm512_unpackhi_epi64(x[2 * i], x[2 * i + 1]));
  for (int i = 0; i < 2; i++)
    u[i] = _mm512_add_epi64(_mm512_shuffle_i64x2(s[2 * i], s[2 * i + 1], 0x88),
                            _mm512_shuffle_i64x2(s[2 * i], s[2 * i + 1], 0xdd));
  _mm512_storeu_si512(out, _mm512_add_epi64(_mm512_shuffle_i64x2(u[0], u[1], 0x88),
                                            _mm512_shuffle_i64x2(u[0], u[1], 0xdd)));
}

/* Dense micro-kernel: for the MR x NR pairs (i, j) of the tile, over kw
 * words: C[i][j] += |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)| (mod 2^32). a: the
 * rows' planes (row r at a + r * lda), b: the columns'. */
SM_TARGET
static void ukr_dense(size_t kw, const uint64_t *a, size_t lda, size_t nwp,
                      const uint64_t *b, const uint64_t *bn, size_t ldb, uint32_t *c,
                      size_t ldc)
{
  __m512i T[SM_MR_D][SM_NR_D], U[SM_MR_D][SM_NR_D];
#pragma GCC unroll 8
  for (int r = 0; r < SM_MR_D; r++)
#pragma GCC unroll 8
    for (int x = 0; x < SM_NR_D; x++)
      T[r][x] = U[r][x] = _mm512_setzero_si512();
  for (size_t w = 0; w < kw; w += 8) {
    __m512i bd[SM_NR_D], bs[SM_NR_D];
#pragma GCC unroll 8
    for (int x = 0; x < SM_NR_D; x++) {
      /* the next tile's columns, one line per plane and step */
      _mm_prefetch((const char *)(bn + x * ldb + PL_D * nwp + w), _MM_HINT_T0);
      _mm_prefetch((const char *)(bn + x * ldb + PL_S * nwp + w), _MM_HINT_T0);
      bd[x] = _mm512_load_si512(b + x * ldb + PL_D * nwp + w);
      bs[x] = _mm512_load_si512(b + x * ldb + PL_S * nwp + w);
      SM_IN_REG(bd[x]);
      SM_IN_REG(bs[x]);
    }
#pragma GCC unroll 8
    for (int r = 0; r < SM_MR_D; r++) {
      __m512i ad = _mm512_load_si512(a + r * lda + PL_D * nwp + w);
      __m512i as = _mm512_load_si512(a + r * lda + PL_S * nwp + w);
      SM_IN_REG(ad);
      SM_IN_REG(as);
#pragma GCC unroll 8
      for (int x = 0; x < SM_NR_D; x++) {
        /* popcount t before the in-place ternlog: no register copy */
        __m512i t = _mm512_and_si512(ad, bd[x]);
        T[r][x] = _mm512_add_epi64(T[r][x], _mm512_popcnt_epi64(t));
        t = _mm512_ternarylogic_epi64(t, as, bs[x], SM_AND_XOR);
        U[r][x] = _mm512_add_epi64(U[r][x], _mm512_popcnt_epi64(t));
      }
    }
  }
  __m512i d[SM_MR_D * SM_NR_D];
  uint64_t sum[SM_MR_D * SM_NR_D + 8];
#pragma GCC unroll 8
  for (int r = 0; r < SM_MR_D; r++)
#pragma GCC unroll 8
    for (int x = 0; x < SM_NR_D; x++)
      d[r * SM_NR_D + x] = _mm512_sub_epi64(T[r][x], _mm512_add_epi64(U[r][x], U[r][x]));
  for (int i = 0; i < SM_MR_D * SM_NR_D; i += 8)
    hsum8(d + i, SM_MR_D * SM_NR_D - i < 8 ? SM_MR_D * SM_NR_D - i : 8, sum + i);
  for (int r = 0; r < SM_MR_D; r++)
    for (int x = 0; x < SM_NR_D; x++)
      c[r * ldc + x] += (uint32_t)sum[r * SM_NR_D + x];
}

/* Sparse micro-kernel: accumulates, per pair, c[0] += |Di&Dj| - 2|Di&Dj&(Si^Sj)|,
 * c[1] += |Xj ? Si : Zi|, c[2] += |Xi ? Sj : Zj|, c[3] += |Xi & Xj| (mod 2^32);
 * moments_sparse() turns them into the moments. */
SM_TARGET
static void ukr_sparse(size_t kw, const uint64_t *a, size_t lda, size_t nwp,
                       const uint64_t *b, const uint64_t *bn, size_t ldb, uint32_t *c,
                       size_t ldc)
{
  __m512i T[SM_MR_S][SM_NR_S], U[SM_MR_S][SM_NR_S], FX[SM_MR_S][SM_NR_S],
      FY[SM_MR_S][SM_NR_S], XX[SM_MR_S][SM_NR_S];
#pragma GCC unroll 8
  for (int r = 0; r < SM_MR_S; r++)
#pragma GCC unroll 8
    for (int x = 0; x < SM_NR_S; x++)
      T[r][x] = U[r][x] = FX[r][x] = FY[r][x] = XX[r][x] = _mm512_setzero_si512();
  for (size_t w = 0; w < kw; w += 8) {
    __m512i bx[SM_NR_S], bs[SM_NR_S], bd[SM_NR_S];
#pragma GCC unroll 8
    for (int x = 0; x < SM_NR_S; x++) {
      for (int pl = 0; pl < 3; pl++)
        _mm_prefetch((const char *)(bn + x * ldb + pl * nwp + w), _MM_HINT_T0);
      bx[x] = _mm512_load_si512(b + x * ldb + PL_X * nwp + w);
      bs[x] = _mm512_load_si512(b + x * ldb + PL_SS * nwp + w);
      bd[x] = _mm512_load_si512(b + x * ldb + PL_DS * nwp + w);
      SM_IN_REG(bx[x]);
      SM_IN_REG(bs[x]);
      SM_IN_REG(bd[x]);
    }
#pragma GCC unroll 8
    for (int r = 0; r < SM_MR_S; r++) {
      const uint64_t *ar = a + r * lda + w;
      __m512i ax = _mm512_load_si512(ar + PL_X * nwp),
              as = _mm512_load_si512(ar + PL_SS * nwp),
              ad = _mm512_load_si512(ar + PL_DS * nwp);
      SM_IN_REG(ax);
      SM_IN_REG(as);
      SM_IN_REG(ad);
#pragma GCC unroll 8
      for (int x = 0; x < SM_NR_S; x++) {
        __m512i t = _mm512_and_si512(ad, bd[x]);
        __m512i u = _mm512_ternarylogic_epi64(t, as, bs[x], SM_AND_XOR);
        __m512i fx = _mm512_ternarylogic_epi64(ax, bs[x], bd[x], SM_MUX_Z);
        __m512i fy = _mm512_ternarylogic_epi64(bx[x], as, ad, SM_MUX_Z);
        __m512i xx = _mm512_and_si512(ax, bx[x]);
        T[r][x] = _mm512_add_epi64(T[r][x], _mm512_popcnt_epi64(t));
        U[r][x] = _mm512_add_epi64(U[r][x], _mm512_popcnt_epi64(u));
        FX[r][x] = _mm512_add_epi64(FX[r][x], _mm512_popcnt_epi64(fx));
        FY[r][x] = _mm512_add_epi64(FY[r][x], _mm512_popcnt_epi64(fy));
        XX[r][x] = _mm512_add_epi64(XX[r][x], _mm512_popcnt_epi64(xx));
      }
    }
  }
  /* per pair: T - 2U, FY, FX, XX, reduced 8 vectors at a time */
  enum { NP = SM_MR_S * SM_NR_S };
  __m512i v[4 * NP];
  uint64_t sum[4 * NP + 8];
#pragma GCC unroll 8
  for (int r = 0; r < SM_MR_S; r++)
#pragma GCC unroll 8
    for (int x = 0; x < SM_NR_S; x++) {
      __m512i *q = v + 4 * (r * SM_NR_S + x);
      q[0] = _mm512_sub_epi64(T[r][x], _mm512_add_epi64(U[r][x], U[r][x]));
      q[1] = FY[r][x];
      q[2] = FX[r][x];
      q[3] = XX[r][x];
    }
  for (int i = 0; i < 4 * NP; i += 8)
    hsum8(v + i, 4 * NP - i < 8 ? 4 * NP - i : 8, sum + i);
  for (int r = 0; r < SM_MR_S; r++)
    for (int x = 0; x < SM_NR_S; x++)
      for (int k = 0; k < 4; k++)
        c[(r * ldc + x) * 4 + k] += (uint32_t)sum[4 * (r * SM_NR_S + x) + k];
}

typedef void (*ukr_fn)(size_t, const uint64_t *, size_t, size_t, const uint64_t *,
                       const uint64_t *, size_t, uint32_t *, size_t);

/* sym: B is A (m = n): planes packed once, tiles wholly below the diagonal
 * skipped and their moments mirrored from (j, i) at the end. */
static void ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                 const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
                 int sym)
{
  if (m == 0 || n == 0)
    return;
  const size_t MR = sparse ? SM_MR_S : SM_MR_D, NR = sparse ? SM_NR_S : SM_NR_D;
  planes_t pa, pb;
  /* planes padded to whole tiles with zero vectors */
  size_t mp = (m + MR - 1) / MR * MR, np = (n + NR - 1) / NR * NR;
  if (sym)
    mp = np = mp > np ? mp : np;
  if (planes_pack(&pa, m, mp, nf, A, lda, sparse) != 0) {
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  if (sym)
    pb = pa;
  else if (planes_pack(&pb, n, np, nf, B, ldb, sparse) != 0) {
    planes_free(&pa);
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  const size_t nwp = pa.nwp, stride = (size_t)pa.np * nwp;
  const size_t nmom = SM_CCC2_NMOM(sparse);
  const ukr_fn ukr = sparse ? ukr_sparse : ukr_dense;
  /* start values: dense sum r_i r_j = R_i + R_j - nf + (T - 2U); sparse
   * accumulates its raw counts from 0 */
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      uint32_t *c = C + (i * ldc + j) * nmom;
      if (sparse)
        c[0] = c[1] = c[2] = c[3] = 0;
      else
        c[0] = pa.marg[3 * i] + pb.marg[3 * j] - (uint32_t)nf;
    }
  uint32_t edge[4 * 4 * 4];
  /* columns per block: all their planes stay in L2 while the row tiles go
   * by; a row tile's planes of one field block stay in L1 across the
   * columns, and its rows of C in L1 across the field blocks */
  size_t NC = stride ? SM_L2_PLANES / (stride * sizeof(uint64_t)) / NR * NR : SM_NC_MAX;
  NC = NC < NR ? NR : NC > SM_NC_MAX ? SM_NC_MAX : NC;
  for (size_t jc = 0; jc < n; jc += NC) {
    size_t nc = n - jc < NC ? n - jc : NC;
    for (size_t i0 = 0; i0 < m; i0 += MR) {
      size_t mr = m - i0 < MR ? m - i0 : MR;
      for (size_t w0 = 0; w0 < nwp; w0 += SM_KW) {
        const size_t bk = w0 / SM_KW, kw = pl_ks(&pa, bk), vs = pa.np * kw;
        for (size_t j0 = jc; j0 < jc + nc; j0 += NR) {
          size_t nr = jc + nc - j0 < NR ? jc + nc - j0 : NR;
          if (sym && j0 + nr <= i0)
            continue; /* below the diagonal: mirrored at the end */
          const uint64_t *a = pl_at(&pa, bk, i0), *b = pl_at(&pb, bk, j0);
          /* next tile's columns (for the prefetch): this row's next, or the
           * first of the next field block */
          const uint64_t *bn = j0 + NR < jc + nc  ? b + NR * vs
                               : w0 + SM_KW < nwp ? pl_at(&pb, bk + 1, jc)
                                                  : b;
          if (mr == MR && nr == NR) {
            ukr(kw, a, vs, kw, b, bn, vs, C + (i0 * ldc + j0) * nmom, ldc);
            continue;
          }
          /* edge tile: padding vectors are zero planes; add the valid part */
          memset(edge, 0, sizeof edge);
          ukr(kw, a, vs, kw, b, bn, vs, edge, NR);
          for (size_t r = 0; r < mr; r++)
            for (size_t x = 0; x < nr; x++)
              for (size_t q = 0; q < nmom; q++)
                C[((i0 + r) * ldc + j0 + x) * nmom + q] += edge[(r * NR + x) * nmom + q];
        }
      }
    }
  }
  if (sparse) /* raw counts to moments, with the per-vector counts */
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j++) {
        uint32_t *c = C + (i * ldc + j) * 4;
        const uint32_t *gi = pa.marg + 3 * i, *gj = pb.marg + 3 * j;
        uint32_t tu = c[0], fy = c[1], fx = c[2], xx = c[3];
        uint32_t mm = (uint32_t)nf - gi[1] - gj[1] + xx;
        uint32_t rm = gi[0] - gj[1] + xx - fy + gi[2];
        uint32_t mr = gj[0] - gi[1] + xx - fx + gj[2];
        c[0] = rm + mr - mm + tu;
        c[1] = rm;
        c[2] = mr;
        c[3] = mm;
      }
  if (sym) /* (i, j) from (j, i): rm and mr trade places */
    for (size_t i = 1; i < m; i++)
      for (size_t j = 0; j < i; j++) {
        uint32_t *c = C + (i * ldc + j) * nmom;
        const uint32_t *t = C + (j * ldc + i) * nmom;
        c[0] = t[0];
        if (sparse) {
          c[1] = t[2];
          c[2] = t[1];
          c[3] = t[3];
        }
      }
  planes_free(&pa);
  if (!sym)
    planes_free(&pb);
}

void sm_kern_ccc2_long_avx512(size_t m, size_t n, size_t nf, const uint64_t *A,
                              size_t lda, const uint64_t *B, size_t ldb, int sparse,
                              uint32_t *C, size_t ldc)
{
  ccc2(m, n, nf, A, lda, B, ldb, sparse, C, ldc, 0);
}

void sm_kern_ccc2_syrk_long_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                   int sparse, uint32_t *C, size_t ldc)
{
  ccc2(n, n, nf, A, lda, A, lda, sparse, C, ldc, 1);
}
#else
void sm_kern_ccc2_syrk_long_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                   int sparse, uint32_t *C, size_t ldc)
{
  sm_kern_ccc2_ref(n, n, nf, A, lda, A, lda, sparse, C, ldc);
}
void sm_kern_ccc2_long_avx512(size_t m, size_t n, size_t nf, const uint64_t *A,
                              size_t lda, const uint64_t *B, size_t ldb, int sparse,
                              uint32_t *C, size_t ldc)
{
  sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}
#endif
