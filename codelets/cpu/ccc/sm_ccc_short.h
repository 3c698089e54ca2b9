/* sm_ccc_short.h: the CCC kernels for short vectors (internal to
 * codelets/cpu). On a few hundred plane words per vector, kernels that
 * reduce each pair's vector accumulators across their lanes once per tile
 * (kern_ccc2_avx512.c, kern_ccc2_avx2.c) spend as much on the reductions as
 * on the popcounts. Here the vectors are packed in lanes instead: a group
 * of L vectors holds, word after word, its L vectors' words side by side,
 * so that one SIMD register holds word w of L columns; a row's word,
 * broadcast, against it gives L pairs at once, and each lane accumulates
 * its own pair over the whole field loop: no reduction across lanes, the
 * moments formed in the lanes and stored once per register tile (MR rows x
 * NG groups of L columns).
 *
 * The planes and the algebra are sm_ccc_planes.h's (dense D, S: 2
 * popcounts per word pair; sparse X, S, D: 5). Each instruction set
 * (kern_ccc2_short*.c) brings its packing and the micro-kernel that runs
 * one tile; the tiles, the edges and the symmetric form are shared
 * (kern_ccc2_short.c), and the 3-way plane kernel (kern_ccc3.c) runs on
 * the same tiles. Exact: every count is an integer, the moments are those
 * of the _ref twins (mod 2^32, as there). */
#ifndef SM_CCC_SHORT_H
#define SM_CCC_SHORT_H

#include <stddef.h>
#include <stdint.h>

#include "sm_ccc_planes.h"
#include "sm_kern_variants.h"

/* The largest register tiles of any micro-kernel. */
#define SM_SHORT_MR_MAX 8
#define SM_SHORT_NG_MAX 4

/* Vectors packed in lanes: vector v's plane k, word w at
 * p[((v / L * nw + w) * np + k) * L + v % L] (dense np = 2: D, S; sparse
 * np = 3: X, S, D); the lanes past nv (up to whole groups, nvp) are zero.
 * Per vector its R, nX, nZ (sm_cplanes_t.marg) in three arrays of nvp: R
 * at g[v], nX at g[nvp + v], nZ at g[2 nvp + v]. */
typedef struct sm_clanes {
  size_t nw;  /* words per plane */
  size_t L;   /* vectors per group */
  int np;     /* planes per vector */
  size_t nvp; /* vectors with the padding: whole groups */
  uint64_t *p;
  int64_t *g;
} sm_clanes_t;

/* One register tile: rows a[0..MR-1] against the groups b[0..NG-1], both
 * in lanes (a[r] is row r's lane: word w, plane k at a[r][(w * np + k) *
 * L]; b[x] group x's first word). A micro-kernel computes all of it (the
 * driver repeats the last row or group where the block has fewer) and
 * stores the pairs of the first mr rows and nr columns: moment k of (row
 * r, column x L + l) at c[r * ldc + (x * L + l) * cs + k] (2-way: cs =
 * nmom; 3-way: wider). */
typedef struct sm_short_tile {
  size_t nw;                          /* words per plane */
  int64_t nf;                         /* fields */
  const uint64_t *a[SM_SHORT_MR_MAX]; /* rows */
  const int64_t *ga[SM_SHORT_MR_MAX]; /* row r's R; nX at + gsa, nZ at + 2 gsa */
  const uint64_t *b[SM_SHORT_NG_MAX]; /* column groups */
  const int64_t *gb[SM_SHORT_NG_MAX]; /* lane l's R at gb[x][l]; nX + gsb, nZ + 2 gsb */
  size_t gsa, gsb;
  uint32_t *c;
  size_t ldc, cs;
  size_t mr, nr;
} sm_short_tile_t;

typedef void (*sm_short_ukr_fn)(const sm_short_tile_t *t);

/* Packs nv vectors of codes into pl (laid out and allocated by
 * sm_clanes_alloc). */
typedef void (*sm_short_pack_fn)(sm_clanes_t *pl, size_t nv, size_t nf, const uint64_t *X,
                                 size_t ldx, int sparse);

/* The 3-way restriction (kern_ccc3.c): vectors x of xp (nv of them) with
 * the fields outside part E made missing (sparse) or of no copy (dense),
 * into xr (laid out like xp; its lanes past nv are then never read), their
 * R, nX, nZ recounted; V: the fields that exist, packed (nw words). */
typedef void (*sm_short_restrict_fn)(const sm_clanes_t *xp, size_t nv, const uint64_t *E,
                                     const uint64_t *V, sm_clanes_t *xr);

/* An instruction set's packing, micro-kernels and their tiles. */
typedef struct sm_short_isa {
  size_t L;            /* lanes: columns per group */
  size_t mr[2], ng[2]; /* tile rows and groups, [dense, sparse] */
  sm_short_ukr_fn ukr[2];
  sm_short_pack_fn pack;
  sm_short_restrict_fn restrict3;
} sm_short_isa_t;

/* The row's R, nX, nZ. */
static inline void sm_short_gi(const sm_short_tile_t *t, size_t r, int64_t gi[3])
{
  gi[0] = t->ga[r][0], gi[1] = t->ga[r][t->gsa], gi[2] = t->ga[r][2 * t->gsa];
}

/* The column's R, nX, nZ of lane l of group x. */
static inline void sm_short_gj(const sm_short_tile_t *t, size_t x, size_t l,
                               int64_t gj[3])
{
  gj[0] = t->gb[x][l], gj[1] = t->gb[x][t->gsb + l], gj[2] = t->gb[x][2 * t->gsb + l];
}

/* Stores pair (row r, column j of the tile) from its raw counts cnt
 * (dense: cnt[0] = |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)|; sparse: tu, fy, fx,
 * xx, sm_cplanes_moments) and the column's R, nX, nZ (gj): the scalar
 * epilogue of the edges and of the 3-way layouts. */
static inline void sm_short_put(const sm_short_tile_t *t, size_t r, size_t j, int sparse,
                                const int64_t cnt[4], const int64_t gj[3])
{
  uint32_t *o = t->c + r * t->ldc + j * t->cs;
  int64_t gi[3];
  sm_short_gi(t, r, gi);
  if (sparse)
    sm_cplanes_moments(gi, gj, t->nf, cnt, o);
  else
    o[0] = (uint32_t)(gi[0] + gj[0] - t->nf + cnt[0]);
}

/* The vectors of pl from v0 on (v0 a multiple of pl->L) as a set of their
 * own, for sm_ccc2_short_tiles: the same memory. */
static inline sm_clanes_t sm_clanes_view(const sm_clanes_t *pl, size_t v0)
{
  sm_clanes_t v = *pl;
  v.p += v0 / pl->L * pl->L * (size_t)pl->np * pl->nw;
  v.g += v0;
  return v;
}

/* Lays out and allocates pl for nv vectors of nf fields in lanes of L;
 * -1 when out of memory (nothing held). g is zero, and so are the lanes
 * past nv in p. */
int sm_clanes_alloc(sm_clanes_t *pl, size_t nv, size_t nf, int sparse, size_t L);
void sm_clanes_free(sm_clanes_t *pl);
/* Allocates and packs with isa's packing; -1 when out of memory. */
int sm_clanes_pack(const sm_short_isa_t *isa, sm_clanes_t *pl, size_t nv, size_t nf,
                   const uint64_t *X, size_t ldx, int sparse);
/* The portable packing and restriction (any L). */
void sm_short_pack_c(sm_clanes_t *pl, size_t nv, size_t nf, const uint64_t *X, size_t ldx,
                     int sparse);
void sm_short_restrict_c(const sm_clanes_t *xp, size_t nv, const uint64_t *E,
                         const uint64_t *V, sm_clanes_t *xr);

/* The tiles of the m rows of pa against the n columns of pb (both packed
 * by isa), the pairs at c (moment k of (i, j) at c[i * ldc + j * cs + k]).
 * lo (NULL: all) gives per row the first column whose pair it needs, sym
 * that row i needs the columns from i on (B is A): the tiles holding no
 * needed pair are skipped (their pairs left as they were), the others
 * computed whole. */
void sm_ccc2_short_tiles(const sm_short_isa_t *isa, size_t m, size_t n,
                         const sm_clanes_t *pa, const sm_clanes_t *pb, size_t nf,
                         int sparse, uint32_t *c, size_t ldc, size_t cs, const size_t *lo,
                         int sym);

/* The 2-way moments of m x n pairs (sm_kern.h's contract) on isa (sym: B
 * is A, m = n, the tiles on and above the diagonal, the rest mirrored);
 * the reference loops when memory runs out. */
void sm_ccc2_short_run(const sm_short_isa_t *isa, size_t m, size_t n, size_t nf,
                       const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                       int sparse, uint32_t *C, size_t ldc, int sym);

/* The instruction sets: the portable one, and where this compiler builds
 * them (sm_kern_variants.h) AVX2 and AVX-512 VPOPCNTDQ. */
extern const sm_short_isa_t sm_short_popc;
#if SM_BUILD_X86
extern const sm_short_isa_t sm_short_avx2, sm_short_avx512;
#endif
/* Those of variant v (AVX512, AVX2; the portable ones for the others and
 * where the compiler could not build v): the caller checks that this CPU
 * runs them (this and sm_short_best: kern_ccc2_short_pick.c). */
const sm_short_isa_t *sm_short_isa(sm_kvar_t v);
/* The widest this CPU runs. */
const sm_short_isa_t *sm_short_best(void);

#endif
