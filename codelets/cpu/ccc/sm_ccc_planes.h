/* sm_ccc_planes.h: bit planes of 2-bit genotype codes, shared by the CCC
 * popcount kernels (internal to codelets/cpu). The planes and the per-word
 * moments are sm_formulas.h's (sm_gt_planes, sm_ccc_rr_word); here they are
 * packed 64 fields per word (code word 2w in the even bits, 2w+1 in the odd
 * bits), so one popcount covers 64 fields; bits past nf are zero. */
#ifndef SM_CCC_PLANES_H
#define SM_CCC_PLANES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm_formulas.h"
#include "sm_kern.h"

/* Clones of a kernel for the widest ISA the CPU reports (hardware popcount
 * at least), chosen when the program loads. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_POPC_CLONES                                                                   \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "popcnt", "default")))
#else
#define SM_POPC_CLONES
#endif

/* The raw per-word pieces of code word cw of a row of nf fields: lo/hi bits
 * in even positions and the mask of fields that exist. */
static inline void sm_code_bits(const uint64_t *row, size_t cw, size_t nf, uint64_t *lo,
                                uint64_t *hi, uint64_t *valid)
{
  sm_gt_bits(row[cw], nf - cw * 32, lo, hi, valid);
}

/* Fields 64 w .. 64 w + 63 of a row of codes (ncw code words, nf fields):
 * lo and hi bits by position, code word 2w in the even bits and 2w + 1 in
 * the odd ones (the packed planes' order); zero past the fields. */
static inline void sm_code_word64(const uint64_t *row, size_t w, size_t ncw, size_t nf,
                                  uint64_t *lo, uint64_t *hi)
{
  if (64 * w + 64 <= nf) { /* every field there: both code words at once */
    const uint64_t x0 = row[2 * w], x1 = row[2 * w + 1];
    *lo = (x0 & SM_EVEN64) | (x1 & SM_EVEN64) << 1;
    *hi = (x0 >> 1 & SM_EVEN64) | (x1 >> 1 & SM_EVEN64) << 1;
    return;
  }
  uint64_t l[2] = {0, 0}, h[2] = {0, 0};
  for (size_t k = 0; k < 2 && 2 * w + k < ncw; k++) {
    uint64_t valid;
    sm_code_bits(row, 2 * w + k, nf, &l[k], &h[k], &valid);
    l[k] &= valid, h[k] &= valid;
  }
  *lo = l[0] | l[1] << 1, *hi = h[0] | h[1] << 1;
}

/* Planes with the fewest popcounts per word pair (bench/README.md), 64
 * fields per word (code word 2w in the even bits, 2w+1 in the odd bits;
 * zero past nf), the planes of a group of g words side by side (g = 1 for
 * scalar kernels, the SIMD width in words for vector kernels: nw is then a
 * multiple of g, the words past the data zero), and per vector its sums:
 * - dense (np = 2): D = (r != 1), S = (r == 2), fields that exist only;
 *   with u = r - 1, D = (u != 0), S = (u > 0):
 *   sum r_i r_j = R_i + R_j - n + |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)|;
 * - sparse (np = 3): X = missing, S = (r == 2), D = S | Z with Z = present
 *   0; the raw counts tu = |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)|,
 *   fy = |Xj ? Si : Zi|, fx = |Xi ? Sj : Zj|, xx = |Xi & Xj| give the four
 *   moments (sm_cplanes_moments). */
typedef struct sm_cplanes {
  size_t nw;     /* words per plane */
  int np;        /* planes per vector */
  size_t g;      /* words per group */
  uint64_t *p;   /* [v][w / g][np planes][g] */
  int64_t *marg; /* [v][3]: R (sum of r over present entries), nX, nZ */
} sm_cplanes_t;

/* The nv vectors at X (ldx words apart) with their missing calls (10)
 * read as 00, (nf + 31) / 32 words a vector (free() it); NULL when out of
 * memory. */
static inline uint64_t *sm_codes_no_missing(size_t nv, size_t nf, const uint64_t *X,
                                            size_t ldx)
{
  const size_t ncw = (nf + 31) / 32;
  uint64_t *o = malloc((nv * ncw + 1) * sizeof *o);
  if (!o)
    return NULL;
  for (size_t v = 0; v < nv; v++)
    for (size_t w = 0; w < ncw; w++) {
      const uint64_t c = X[v * ldx + w], miss = (c >> 1) & ~c & SM_EVEN64;
      o[v * ncw + w] = c & ~(miss << 1);
    }
  return o;
}

static inline void sm_cplanes_free(sm_cplanes_t *pl)
{
  free(pl->p), free(pl->marg);
  pl->p = NULL, pl->marg = NULL;
}

/* The planes of packed word w (code words 2w and 2w + 1) of a row of nf
 * fields (ncw code words): out = {D, S} dense, {X, S, D} sparse; adds the
 * word's R, nX, nZ to g. Always inlined (the caller's popcount). */
static inline __attribute__((always_inline)) void
sm_cplanes_word(const uint64_t *row, size_t w, size_t ncw, size_t nf, int sparse,
                uint64_t out[3], int64_t g[3])
{
  uint64_t px = 0, ps = 0, pd = 0;
  for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
    uint64_t lo, hi, valid;
    sm_code_bits(row, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
    lo &= valid, hi &= valid;
    const uint64_t sv = lo & hi;
    if (sparse) {
      const uint64_t xv = hi & ~lo, zv = valid & ~lo & ~hi;
      g[0] += SM_POPC64(lo) + SM_POPC64(sv);
      g[1] += SM_POPC64(xv);
      g[2] += SM_POPC64(zv);
      px |= xv << half;
      pd |= (sv | zv) << half;
    } else { /* r = (lo | hi) + (lo & hi): 1 for a missing code too */
      g[0] += SM_POPC64(lo | hi) + SM_POPC64(sv);
      pd |= (valid & ~(lo ^ hi)) << half;
    }
    ps |= sv << half;
  }
  if (sparse)
    out[0] = px, out[1] = ps, out[2] = pd;
  else
    out[0] = pd, out[1] = ps, out[2] = 0;
}

/* Pack nv rows of codes in groups of g words; returns -1 when out of
 * memory (nothing held). Always inlined, so that it runs the caller
 * clone's hardware popcount. */
static inline __attribute__((always_inline)) int
sm_cplanes_pack_g(sm_cplanes_t *pl, size_t nv, size_t nf, const uint64_t *X, size_t ldx,
                  int sparse, size_t g)
{
  const size_t ncw = (nf + 31) / 32;
  pl->g = g;
  pl->nw = ((ncw + 1) / 2 + g - 1) / g * g;
  pl->np = sparse ? 3 : 2;
  pl->p = (uint64_t *)aligned_alloc(
      64, ((nv ? nv : 1) * (size_t)pl->np * (pl->nw ? pl->nw : g) * sizeof *pl->p + 63) /
              64 * 64);
  pl->marg = malloc((nv ? nv : 1) * 3 * sizeof *pl->marg);
  if (!pl->p || !pl->marg) {
    sm_cplanes_free(pl);
    return -1;
  }
  const size_t full = nf / 64; /* words of 64 fields */
  for (size_t v = 0; v < nv; v++) {
    uint64_t *o = pl->p + v * (size_t)pl->np * pl->nw;
    int64_t gv[3] = {0, 0, 0};
    const uint64_t *row = X + v * ldx;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t pw[3];
      if (w < full && sparse) { /* every field there: both code words at once */
        const uint64_t x0 = row[2 * w], x1 = row[2 * w + 1];
        const uint64_t lo = (x0 & SM_EVEN64) | ((x1 & SM_EVEN64) << 1);
        const uint64_t hi = ((x0 >> 1) & SM_EVEN64) | (((x1 >> 1) & SM_EVEN64) << 1);
        const uint64_t sv = lo & hi, xv = hi & ~lo, zv = ~(lo | hi);
        gv[0] += SM_POPC64(lo) + SM_POPC64(sv);
        gv[1] += SM_POPC64(xv);
        gv[2] += SM_POPC64(zv);
        pw[0] = xv, pw[1] = sv, pw[2] = sv | zv;
      } else
        sm_cplanes_word(row, w, ncw, nf, sparse, pw, gv);
      uint64_t *ow = o + w / g * (size_t)pl->np * g + w % g;
      for (int k = 0; k < pl->np; k++)
        ow[(size_t)k * g] = pw[k];
    }
    memcpy(pl->marg + 3 * v, gv, sizeof gv);
  }
  return 0;
}

/* A sparse kernel's tiles (static function `name`, attributes `attr`):
 * 32 x 32 pairs whose columns' planes stay in L2, with sym (B is A) only
 * those on and above the diagonal; `row2(len, a, b0, b1, c0, c1)` gives
 * the counts of row a against columns b0 and b1 (len: nw / per), an odd
 * last column pairing with itself (computed twice, kept once). */
#define SM_CPLANES_SPARSE_TILES(attr, name, row2, per)                                   \
  attr static void name(size_t m, size_t n, size_t nf, const sm_cplanes_t *pa,           \
                        const sm_cplanes_t *pb, uint32_t *C, size_t ldc, int sym)        \
  {                                                                                      \
    const size_t len = pa->nw / (per), st = 3 * pa->nw, tb_ = 32;                        \
    const int64_t n0 = (int64_t)nf;                                                      \
    for (size_t i0 = 0; i0 < m; i0 += tb_)                                               \
      for (size_t j0 = sym ? i0 : 0; j0 < n; j0 += tb_) {                                \
        const size_t i1 = i0 + tb_ < m ? i0 + tb_ : m, j1 = j0 + tb_ < n ? j0 + tb_ : n; \
        for (size_t i = i0; i < i1; i++)                                                 \
          for (size_t j = j0; j < j1; j += 2) {                                          \
            const size_t j2 = j + 1 < j1 ? j + 1 : j;                                    \
            const int64_t *gi = pa->marg + 3 * i;                                        \
            int64_t c0[4], c1[4];                                                        \
            row2(len, pa->p + i * st, pb->p + j * st, pb->p + j2 * st, c0, c1);          \
            sm_cplanes_moments(gi, pb->marg + 3 * j, n0, c0, C + (i * ldc + j) * 4);     \
            if (j2 != j)                                                                 \
              sm_cplanes_moments(gi, pb->marg + 3 * j2, n0, c1, C + (i * ldc + j2) * 4); \
          }                                                                              \
      }                                                                                  \
  }

/* LD windows pair by pair (sm_band_direct): each row i of rows [r0, r1)
 * against its run of columns (sm_band_run), two columns a step (an odd
 * last one paired with itself); pa holds the planes of rows ra.., pb those
 * of columns cb... Only the pairs in the windows are written. */
#define SM_CPLANES_SPARSE_BAND(attr, name, row2, per)                                    \
  attr static void name(const sm_band_t *b, size_t n, size_t nf, size_t r0, size_t r1,   \
                        size_t ra, size_t cb, const sm_cplanes_t *pa,                    \
                        const sm_cplanes_t *pb, uint32_t *C, size_t ldc)                 \
  {                                                                                      \
    const size_t len = pa->nw / (per), st = 3 * pa->nw;                                  \
    const int64_t n0 = (int64_t)nf;                                                      \
    for (size_t i = r0; i < r1; i++) {                                                   \
      size_t lo, hi;                                                                     \
      sm_band_run(b, n, i, &lo, &hi);                                                    \
      const int64_t *gi = pa->marg + 3 * (i - ra);                                       \
      for (size_t j = lo; j < hi; j += 2) {                                              \
        const size_t j2 = j + 1 < hi ? j + 1 : j;                                        \
        int64_t k0[4], k1[4];                                                            \
        row2(len, pa->p + (i - ra) * st, pb->p + (j - cb) * st, pb->p + (j2 - cb) * st,  \
             k0, k1);                                                                    \
        sm_cplanes_moments(gi, pb->marg + 3 * (j - cb), n0, k0, C + (i * ldc + j) * 4);  \
        if (j2 != j)                                                                     \
          sm_cplanes_moments(gi, pb->marg + 3 * (j2 - cb), n0, k1,                       \
                             C + (i * ldc + j2) * 4);                                    \
      }                                                                                  \
    }                                                                                    \
  }

typedef void (*sm_cplanes_band_fn)(const sm_band_t *b, size_t n, size_t nf, size_t r0,
                                   size_t r1, size_t ra, size_t cb,
                                   const sm_cplanes_t *pa, const sm_cplanes_t *pb,
                                   uint32_t *C, size_t ldc);

/* A band kernel's whole call (sparse moments): the rows with pairs in the
 * windows and their columns packed in groups of g words (a diagonal tile
 * pair's once, rows and columns together), then fn; -1 when out of memory
 * (nothing written), 0 when not a direct band. Inlined into the kernel
 * (its ISA). */
static inline __attribute__((always_inline)) int
sm_cplanes_band(size_t g, sm_cplanes_band_fn fn, const sm_band_t *b, size_t m, size_t n,
                size_t nf, const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                uint32_t *C, size_t ldc)
{
  sm_band_plan_t p;
  if (!sm_band_plan(b, m, n, A == B && lda == ldb, &p))
    return 0;
  if (p.r0 >= p.r1)
    return 1;
  sm_cplanes_t pa, pb;
  if (sm_cplanes_pack_g(&pa, p.na, nf, A + p.ra * lda, lda, 1, g))
    return -1;
  if (!p.one && sm_cplanes_pack_g(&pb, p.nb, nf, B + p.cb * ldb, ldb, 1, g)) {
    sm_cplanes_free(&pa);
    return -1;
  }
  fn(b, n, nf, p.r0, p.r1, p.ra, p.cb, &pa, p.one ? &pa : &pb, C, ldc);
  sm_cplanes_free(&pa);
  if (!p.one)
    sm_cplanes_free(&pb);
  return 1;
}

/* The moments of tiles of pairs (sym: B is A, only the tiles on and above
 * the diagonal). */
typedef void (*sm_cplanes_tiles_fn)(size_t m, size_t n, size_t nf, const sm_cplanes_t *pa,
                                    const sm_cplanes_t *pb, uint32_t *C, size_t ldc,
                                    int sym);

static inline void sm_ccc2_mirror_lower(size_t n, int sparse, uint32_t *C, size_t ldc);

/* A popcount kernel's whole call: A and B packed in groups of g words
 * (once when sym: B is A), the method's tiles, the lower triangle mirrored
 * when sym; the reference loops when memory runs out. Inlined into the
 * kernel (its ISA, its hardware popcount). */
static inline __attribute__((always_inline)) void
sm_cplanes_run(size_t g, sm_cplanes_tiles_fn dense, sm_cplanes_tiles_fn sparse_fn,
               size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
               const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
               int sym)
{
  sm_cplanes_t pa, pb;
  if (sm_cplanes_pack_g(&pa, m, nf, A, lda, sparse, g)) {
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  if (!sym && sm_cplanes_pack_g(&pb, n, nf, B, ldb, sparse, g)) {
    sm_cplanes_free(&pa);
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  (sparse ? sparse_fn : dense)(m, n, nf, &pa, sym ? &pa : &pb, C, ldc, sym);
  if (sym)
    sm_ccc2_mirror_lower(n, sparse, C, ldc);
  sm_cplanes_free(&pa);
  if (!sym)
    sm_cplanes_free(&pb);
}

/* The pairs below the diagonal of a symmetric n x n block of moments from
 * those above it (rm and mr trade places), 32 x 32 tiles at a time. */
static inline void sm_ccc2_mirror_lower(size_t n, int sparse, uint32_t *C, size_t ldc)
{
  const size_t nmom = sparse ? 4 : 1, TB = 32;
  for (size_t i0 = 0; i0 < n; i0 += TB)
    for (size_t j0 = 0; j0 <= i0; j0 += TB)
      for (size_t i = i0; i < i0 + TB && i < n; i++)
        for (size_t j = j0; j < j0 + TB && j < i; j++) {
          uint32_t *c = C + (i * ldc + j) * nmom;
          const uint32_t *t = C + (j * ldc + i) * nmom;
          c[0] = t[0];
          if (sparse)
            c[1] = t[2], c[2] = t[1], c[3] = t[3];
        }
}

/* |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)| of one word */
#define SM_DS_TERM(d0, s0, d1, s1)                                                       \
  ((int64_t)SM_POPC64((d0) & (d1)) - 2 * (int64_t)SM_POPC64((d0) & (d1) & ((s0) ^ (s1))))

/* The moments of pair (i, j) from its raw counts c = {tu, fy, fx, xx}. */
static inline void sm_cplanes_moments(const int64_t *gi, const int64_t *gj, int64_t n0,
                                      const int64_t c[4], uint32_t *out)
{
  const int64_t mm = n0 - gi[1] - gj[1] + c[3];
  const int64_t rm = gi[0] - gj[1] + c[3] - c[1] + gi[2];
  const int64_t mr = gj[0] - gi[1] + c[3] - c[2] + gj[2];
  out[0] = (uint32_t)(rm + mr - mm + c[0]);
  out[1] = (uint32_t)rm;
  out[2] = (uint32_t)mr;
  out[3] = (uint32_t)mm;
}

/* Row i against columns j, j + 1: each row word loaded once for both. */
static inline __attribute__((always_inline)) void
sm_cplanes_sparse2(size_t nw, const uint64_t *a, const uint64_t *b0, const uint64_t *b1,
                   int64_t c0[4], int64_t c1[4])
{
  int64_t t0 = 0, y0 = 0, x0 = 0, q0 = 0, t1 = 0, y1 = 0, x1 = 0, q1 = 0;
  for (size_t w = 0; w < 3 * nw; w += 3) {
    const uint64_t xa = a[w], sa = a[w + 1], da = a[w + 2], za = da & ~sa;
    {
      const uint64_t xb = b0[w], sb = b0[w + 1], db = b0[w + 2], dd = da & db;
      t0 += (int64_t)SM_POPC64(dd) - 2 * (int64_t)SM_POPC64(dd & (sa ^ sb));
      y0 += SM_POPC64((xb & sa) | (~xb & za));
      x0 += SM_POPC64((xa & sb) | (~xa & db & ~sb));
      q0 += SM_POPC64(xa & xb);
    }
    {
      const uint64_t xb = b1[w], sb = b1[w + 1], db = b1[w + 2], dd = da & db;
      t1 += (int64_t)SM_POPC64(dd) - 2 * (int64_t)SM_POPC64(dd & (sa ^ sb));
      y1 += SM_POPC64((xb & sa) | (~xb & za));
      x1 += SM_POPC64((xa & sb) | (~xa & db & ~sb));
      q1 += SM_POPC64(xa & xb);
    }
  }
  c0[0] = t0, c0[1] = y0, c0[2] = x0, c0[3] = q0;
  c1[0] = t1, c1[1] = y1, c1[2] = x1, c1[3] = q1;
}

#endif
