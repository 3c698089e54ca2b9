/* kern_ld.c: the tally PLINK's r and r^2 need beside CCC's sparse moments:
 * per pair of variants, the samples called in both where the first is
 * homozygous for allele 1, and where the second is (sum x^2 over the
 * shared samples = sum x + 2 of them; sm_f_ld). With the planes S (code
 * 11, homozygous for allele 1) and X (code 10, missing) of each vector,
 * 64 fields per word, and nS its count of S: h(i,j) = nS_i - |S_i & X_j|,
 * two popcounts per word pair; AVX-512 VPOPCNTDQ where the CPU has it
 * (2 x 4 pairs a step, 512 fields), else 64-bit popcounts.
 * Missing calls are usually few: then |S_i & X_j| is counted over j's
 * missing fields only (the rows' S bits transposed once per task: work
 * grows with the missing calls times the row chunks, not with the pairs
 * times the fields): with AVX-512 into byte counters as masks
 * (kern_xcnt512.c), else as sums of int8/int16 values (kern_mfix.c). */
#include <stdlib.h>
#include <string.h>

#include "sm_ccc_planes.h"
#include "sm_cpu.h"
#include "sm_kern.h"
#include "sm_mfix.h"
#include "sm_xcnt512.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SM_LD_X86 1
#else
#define SM_LD_X86 0
#endif

/* Planes of a set of vectors: per vector nw words of S, then nw of X (nw a
 * multiple of 8, zero past the fields), and its nS. */
typedef struct ld_planes {
  size_t nw;
  uint64_t *p;
  uint32_t *ns;
} ld_planes_t;

SM_POPC_CLONES
static int ld_pack(ld_planes_t *pl, size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  const size_t ncw = (nf + 31) / 32;
  pl->nw = ((ncw + 1) / 2 + 7) / 8 * 8;
  pl->p =
      aligned_alloc(64, ((nv ? nv : 1) * 2 * (pl->nw ? pl->nw : 8) * 8 + 63) / 64 * 64);
  pl->ns = malloc((nv ? nv : 1) * sizeof *pl->ns);
  if (!pl->p || !pl->ns) {
    free(pl->p), free(pl->ns);
    return -1;
  }
  for (size_t v = 0; v < nv; v++) {
    uint64_t *s = pl->p + v * 2 * pl->nw, *x = s + pl->nw;
    uint32_t n = 0;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t lo, hi;
      sm_code_word64(X + v * ldx, w, ncw, nf, &lo, &hi);
      s[w] = lo & hi, x[w] = hi & ~lo;
      n += SM_POPC64(s[w]);
    }
    pl->ns[v] = n;
  }
  return 0;
}

static void ld_free(ld_planes_t *pl)
{
  free(pl->p), free(pl->ns);
}

/* One pair: |S_a & X_b| and |X_a & S_b|. */
SM_POPC_CLONES
static void pair_port(size_t nw, const uint64_t *a, const uint64_t *b, uint32_t out[2])
{
  uint32_t sx = 0, xs = 0;
  for (size_t w = 0; w < nw; w++) {
    sx += SM_POPC64(a[w] & b[nw + w]);
    xs += SM_POPC64(a[nw + w] & b[w]);
  }
  out[0] = sx, out[1] = xs;
}

#if SM_LD_X86
#define SM_LD_TARGET __attribute__((target("avx512f,avx512vpopcntdq,popcnt")))

/* The sums of the lanes of v[0..7], in that order, as one vector: pairs
 * of lanes, then of 128-bit blocks, then of 256-bit halves. */
SM_LD_TARGET static __m512i hsum8(const __m512i v[8])
{
  __m512i t[4], u[2];
  for (int k = 0; k < 4; k++) /* block b of t[k]: (v[2k], v[2k+1]) pairs of block b */
    t[k] = _mm512_add_epi64(_mm512_unpacklo_epi64(v[2 * k], v[2 * k + 1]),
                            _mm512_unpackhi_epi64(v[2 * k], v[2 * k + 1]));
  for (int k = 0; k < 2; k++) /* blocks: t[2k] 0+1, 2+3, t[2k+1] 0+1, 2+3 */
    u[k] = _mm512_add_epi64(
        _mm512_shuffle_i64x2(t[2 * k], t[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
        _mm512_shuffle_i64x2(t[2 * k], t[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm512_add_epi64(_mm512_shuffle_i64x2(u[0], u[1], _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_i64x2(u[0], u[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

/* Rows a0, a1 against columns b[0..3]: out[r][c][0] |S & X|, [1] |X & S|. */
SM_LD_TARGET static void tile_2x4(size_t nw, const uint64_t *a0, const uint64_t *a1,
                                  const uint64_t *const b[4], uint32_t out[2][4][2])
{
  __m512i acc[16]; /* [r * 8 + c * 2 + k], in registers: loops unrolled */
#pragma GCC unroll 16
  for (int k = 0; k < 16; k++)
    acc[k] = _mm512_setzero_si512();
  for (size_t w = 0; w < nw; w += 8) {
    const __m512i s0 = _mm512_load_si512(a0 + w), x0 = _mm512_load_si512(a0 + nw + w);
    const __m512i s1 = _mm512_load_si512(a1 + w), x1 = _mm512_load_si512(a1 + nw + w);
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
      const __m512i sb = _mm512_load_si512(b[c] + w),
                    xb = _mm512_load_si512(b[c] + nw + w);
      __m512i *q0 = acc + 2 * c, *q1 = acc + 8 + 2 * c;
      q0[0] = _mm512_add_epi64(q0[0], _mm512_popcnt_epi64(_mm512_and_si512(s0, xb)));
      q0[1] = _mm512_add_epi64(q0[1], _mm512_popcnt_epi64(_mm512_and_si512(x0, sb)));
      q1[0] = _mm512_add_epi64(q1[0], _mm512_popcnt_epi64(_mm512_and_si512(s1, xb)));
      q1[1] = _mm512_add_epi64(q1[1], _mm512_popcnt_epi64(_mm512_and_si512(x1, sb)));
    }
  }
  uint64_t sum[16] __attribute__((aligned(64)));
  _mm512_store_si512(sum, hsum8(acc));
  _mm512_store_si512(sum + 8, hsum8(acc + 8));
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 4; c++)
      for (int k = 0; k < 2; k++)
        out[r][c][k] = (uint32_t)sum[8 * r + 2 * c + k];
}
#endif

/* The tally of rows [i0, i1) against columns [j0, j1) into C. */
static void ld_block(const ld_planes_t *pa, const ld_planes_t *pb, size_t i0, size_t i1,
                     size_t j0, size_t j1, int simd, uint32_t *C, size_t ldc)
{
  const size_t nw = pa->nw, st = 2 * nw;
  size_t i = i0;
#if SM_LD_X86
  for (; simd && i + 2 <= i1; i += 2) {
    size_t j = j0;
    for (; j + 4 <= j1; j += 4) {
      const uint64_t *b[4] = {pb->p + j * st, pb->p + (j + 1) * st, pb->p + (j + 2) * st,
                              pb->p + (j + 3) * st};
      uint32_t o[2][4][2];
      tile_2x4(nw, pa->p + i * st, pa->p + (i + 1) * st, b, o);
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 4; c++) {
          uint32_t *cc = C + ((i + (size_t)r) * ldc + j + (size_t)c) * 2;
          cc[0] = pa->ns[i + (size_t)r] - o[r][c][0];
          cc[1] = pb->ns[j + (size_t)c] - o[r][c][1];
        }
    }
    for (; j < j1; j++)
      for (size_t r = i; r < i + 2; r++) {
        uint32_t o[2], *cc = C + (r * ldc + j) * 2;
        pair_port(nw, pa->p + r * st, pb->p + j * st, o);
        cc[0] = pa->ns[r] - o[0], cc[1] = pb->ns[j] - o[1];
      }
  }
#else
  (void)simd;
#endif
  for (; i < i1; i++)
    for (size_t j = j0; j < j1; j++) {
      uint32_t o[2], *cc = C + (i * ldc + j) * 2;
      pair_port(nw, pa->p + i * st, pb->p + j * st, o);
      cc[0] = pa->ns[i] - o[0], cc[1] = pb->ns[j] - o[1];
    }
}

/* The missing calls (code 10) of nv vectors (sm_mfix_count's total);
 * SIZE_MAX without memory. */
static size_t missing_calls(size_t nv, size_t nf, const uint64_t *X, size_t ldx)
{
  sm_mfix_miss_t ml;
  if (sm_mfix_count(&ml, nv, nf, X, ldx))
    return SIZE_MAX;
  const size_t nx = ml.off[nv];
  sm_mfix_lists_free(&ml);
  return nx;
}

/* S bits: the value 1 at code 11. */
static const int8_t tab_s[1][4] = {{0, 0, 0, 1}};

/* Both tallies as sums over the partner's missing fields (kern_mfix.c):
 * [0] nS_i - sum_{s in X_j} S_i(s), [1] nS_j - sum_{s in X_i} S_j(s). 0
 * done, 1 not done (choose: popcounts are less work), -1 without memory. */
static int ld_sparse(int choose, size_t m, size_t n, size_t nf, const uint64_t *A,
                     size_t lda, const uint64_t *B, size_t ldb, int same, uint32_t *C,
                     size_t ldc)
{
  sm_mfix_miss_t la = {0}, lb = {0};
  int64_t *g = NULL; /* sm_mfix_margins: nS at [4 v + 3] */
  int ret = -1;
  if (sm_mfix_count(&la, m, nf, A, lda) || (!same && sm_mfix_count(&lb, n, nf, B, ldb)))
    goto done;
  const sm_mfix_miss_t *mb = same ? &la : &lb;
  if (choose &&
      !sm_mfix_worth(SM_MFIX_LD, SM_MFIX_ISA_popc, m, n, nf, la.off[m], mb->off[n])) {
    ret = 1;
    goto done;
  }
  if (sm_mfix_fill(&la, m, nf, A, lda) || (!same && sm_mfix_fill(&lb, n, nf, B, ldb)))
    goto done;
  if (!(g = malloc((m + n + 1) * 4 * sizeof *g)))
    goto done;
  sm_mfix_margins(m, nf, A, lda, g);
  sm_mfix_margins(n, nf, B, ldb, g + 4 * m);
  int32_t *ci = (int32_t *)C;
  int32_t *const o0[2] = {ci, NULL}, *const o1[2] = {ci + 1, NULL};
  const sm_mfix_src_t sa = {A, lda, m, nf, 1, tab_s}, sb = {B, ldb, n, nf, 1, tab_s};
  if (sm_mfix_sums(&sa, mb, n, o0, 2 * ldc, 2) ||
      sm_mfix_sums(&sb, &la, m, o1, 2, 2 * ldc))
    goto done;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      uint32_t *cc = C + (i * ldc + j) * 2;
      cc[0] = (uint32_t)g[4 * i + 3] - cc[0],
      cc[1] = (uint32_t)g[4 * (m + j) + 3] - cc[1];
    }
  ret = 0;
done:
  free(g);
  sm_mfix_lists_free(&la);
  if (!same)
    sm_mfix_lists_free(&lb);
  return ret;
}

int sm_kern_ld_hom_by(int how, size_t m, size_t n, size_t nf, const uint64_t *A,
                      size_t lda, const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc)
{
  const int same = A == B && lda == ldb && m == n;
  const sm_cpu_t *cpu = sm_cpu_get();
  const int x512 = SM_LD_X86 && sm_xc_usable();
  /* without AVX-512: the sums over the missing fields when they are less
   * work (sm_mfix_worth) or asked for (1, 3), unless a vector has more
   * missing fields than they hold */
  if (how == 3 || (!x512 && (how < 0 || how == 1))) {
    const int r = ld_sparse(how < 0, m, n, nf, A, lda, B, ldb, same, C, ldc);
    if (r <= 0)
      return r;
  }
#if SM_LD_X86
  /* with AVX-512, counters over the missing fields (kern_xcnt512.c, which
   * builds its own planes) when that is less work: a missing field costs
   * 4 masked byte adds per 256 partners, the popcounts a word pair per 64
   * fields of each pair (VPOPCNTDQ: 8 word pairs an instruction).
   * Measured on 712 x 712 tiles of 2,000 fields (an AVX-512 EPYC) before
   * the byte counters: 1.6x faster than the popcounts at 1% missing, 2.5x
   * at 0.1%, even at 3%; the byte counters and lists made them 2.3x faster
   * again (every pair of 28,500 variants: 1.96 -> 0.86 s). */
  if (x512 && (how < 0 || how == 1)) {
    int sparse = how == 1;
    if (!sparse) {
      const double xa = (double)missing_calls(m, nf, A, lda),
                   xb = same ? xa : (double)missing_calls(n, nf, B, ldb);
      const double nw = (double)(((nf + 63) / 64 + 7) / 8 * 8), dm = (double)m,
                   dn = (double)n;
      const double cs =
                       (xb * (double)((m + 255) / 256) + xa * (double)((n + 255) / 256)) *
                       24,
                   cd = dm * dn * nw * (cpu->vpopcntdq ? 0.25 : 2);
      sparse = cs < cd;
    }
    if (sparse)
      return sm_xc_hom(m, n, nf, A, lda, B, ldb, same, C, ldc);
  }
#endif
  ld_planes_t pa, pb;
  if (ld_pack(&pa, m, nf, A, lda))
    return -1;
  if (same)
    pb = pa;
  else if (ld_pack(&pb, n, nf, B, ldb)) {
    ld_free(&pa);
    return -1;
  }
  const int simd = SM_LD_X86 && cpu->avx512 && cpu->vpopcntdq && how != 2;
  const size_t tb = 64; /* tiles whose columns' planes stay in L2 */
  for (size_t i0 = 0; i0 < m; i0 += tb)
    for (size_t j0 = 0; j0 < n; j0 += tb)
      ld_block(&pa, &pb, i0, i0 + tb < m ? i0 + tb : m, j0, j0 + tb < n ? j0 + tb : n,
               simd, C, ldc);
  ld_free(&pa);
  if (!same)
    ld_free(&pb);
  return 0;
}

int sm_kern_ld_hom(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                   const uint64_t *B, size_t ldb, uint32_t *C, size_t ldc)
{
  return sm_kern_ld_hom_by(-1, m, n, nf, A, lda, B, ldb, C, ldc);
}

int sm_kern_ld_hom_band(const sm_band_t *b, size_t m, size_t n, size_t nf,
                        const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                        uint32_t *C, size_t ldc)
{
  sm_band_plan_t p;
  if (!sm_band_plan(b, m, n, A == B && lda == ldb, &p))
    return 0;
  if (p.r0 >= p.r1)
    return 1;
  ld_planes_t pa, pb;
  if (ld_pack(&pa, p.na, nf, A + p.ra * lda, lda))
    return -1;
  if (p.one)
    pb = pa;
  else if (ld_pack(&pb, p.nb, nf, B + p.cb * ldb, ldb)) {
    ld_free(&pa);
    return -1;
  }
  const size_t st = 2 * pa.nw;
  for (size_t i = p.r0; i < p.r1; i++) {
    size_t lo, hi;
    sm_band_run(b, n, i, &lo, &hi);
    for (size_t j = lo; j < hi; j++) { /* h = nS - |S & X| each way */
      uint32_t sx[2];
      pair_port(pa.nw, pa.p + (i - p.ra) * st, pb.p + (j - p.cb) * st, sx);
      C[(i * ldc + j) * 2] = pa.ns[i - p.ra] - sx[0];
      C[(i * ldc + j) * 2 + 1] = pb.ns[j - p.cb] - sx[1];
    }
  }
  ld_free(&pa);
  if (!p.one)
    ld_free(&pb);
  return 1;
}
