/* kern_ccc2_short.c: the CCC 2-way kernels for short vectors
 * (sm_ccc_short.h): the vectors' planes in lanes, the register tiles and
 * their edges, the symmetric form; and the portable packing, 3-way
 * restriction and micro-kernels (64-bit popcount, lanes as arrays), the
 * twins of the SIMD ones. */
#include <stdlib.h>
#include <string.h>

#include "sm_ccc_short.h"
#include "sm_kern.h"

/* Bytes of column planes per block: the block's planes stay in L2 while
 * the row tiles go by. */
#define SM_SHORT_L2 (512 * 1024)

void sm_clanes_free(sm_clanes_t *pl)
{
  free(pl->p), free(pl->g);
  pl->p = NULL, pl->g = NULL;
}

int sm_clanes_alloc(sm_clanes_t *pl, size_t nv, size_t nf, int sparse, size_t L)
{
  const size_t ncw = (nf + 31) / 32;
  pl->nw = (ncw + 1) / 2;
  pl->L = L;
  pl->np = sparse ? 3 : 2;
  pl->nvp = (nv + L - 1) / L * L;
  const size_t words = pl->nvp * (size_t)pl->np * pl->nw;
  const size_t bytes = ((words ? words : 1) * sizeof *pl->p + 63) / 64 * 64;
  pl->p = aligned_alloc(64, bytes);
  pl->g = calloc(3 * (pl->nvp ? pl->nvp : 1), sizeof *pl->g);
  if (!pl->p || !pl->g) {
    sm_clanes_free(pl);
    return -1;
  }
  if (nv % L) /* the last group, whose lanes past nv stay zero */
    memset(pl->p + (words - L * (size_t)pl->np * pl->nw), 0,
           L * (size_t)pl->np * pl->nw * sizeof *pl->p);
  return 0;
}

int sm_clanes_pack(const sm_short_isa_t *isa, sm_clanes_t *pl, size_t nv, size_t nf,
                   const uint64_t *X, size_t ldx, int sparse)
{
  if (sm_clanes_alloc(pl, nv, nf, sparse, isa->L))
    return -1;
  isa->pack(pl, nv, nf, X, ldx, sparse);
  return 0;
}

SM_POPC_CLONES
void sm_short_pack_c(sm_clanes_t *pl, size_t nv, size_t nf, const uint64_t *X, size_t ldx,
                     int sparse)
{
  const size_t ncw = (nf + 31) / 32, L = pl->L, np = (size_t)pl->np;
  for (size_t v = 0; v < nv; v++) {
    uint64_t *o = pl->p + v / L * L * np * pl->nw + v % L;
    int64_t g[3] = {0, 0, 0};
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t pw[3];
      sm_cplanes_word(X + v * ldx, w, ncw, nf, sparse, pw, g);
      for (size_t k = 0; k < np; k++)
        o[(w * np + k) * L] = pw[k];
    }
    pl->g[v] = g[0], pl->g[pl->nvp + v] = g[1], pl->g[2 * pl->nvp + v] = g[2];
  }
}

/* sparse: X' = X on E, missing elsewhere; S' = S & E; D' = D & E (R' = 2
 * |S'| + the ones, present fields of E outside D); dense: D' = D on E, 1
 * (no copy) elsewhere; S' = S & E. */
SM_POPC_CLONES
void sm_short_restrict_c(const sm_clanes_t *xp, size_t nv, const uint64_t *E,
                         const uint64_t *V, sm_clanes_t *xr)
{
  const size_t L = xp->L, nw = xp->nw, np = (size_t)xp->np, nvp = xp->nvp;
  for (size_t v = 0; v < nv; v++) {
    const uint64_t *a = xp->p + v / L * L * np * nw + v % L;
    uint64_t *o = xr->p + v / L * L * np * nw + v % L;
    int64_t R = 0, nX = 0, nZ = 0;
    for (size_t w = 0; w < nw; w++) {
      const uint64_t e = E[w], ve = V[w] & e, vo = V[w] & ~e;
      const uint64_t *aw = a + w * np * L;
      uint64_t *ow = o + w * np * L;
      if (np == 3) {
        const uint64_t x = aw[0], s = aw[L], d = aw[2 * L];
        ow[0] = (x & e) | vo, ow[L] = s & e, ow[2 * L] = d & e;
        R += 2 * (int64_t)SM_POPC64(s & e) + SM_POPC64(ve & ~x & ~d);
        nX += SM_POPC64((x & e) | vo);
        nZ += SM_POPC64(d & e & ~s);
      } else {
        const uint64_t d = aw[0], s = aw[L];
        ow[0] = (d & e) | vo, ow[L] = s & e;
        R += 2 * (int64_t)SM_POPC64(s & e) + SM_POPC64(ve & ~d);
      }
    }
    xr->g[v] = R, xr->g[nvp + v] = nX, xr->g[2 * nvp + v] = nZ;
  }
}

void sm_ccc2_short_tiles(const sm_short_isa_t *isa, size_t m, size_t n,
                         const sm_clanes_t *pa, const sm_clanes_t *pb, size_t nf,
                         int sparse, uint32_t *c, size_t ldc, size_t cs, const size_t *lo,
                         int sym)
{
  sparse = !!sparse;
  const size_t L = isa->L, MR = isa->mr[sparse], NG = isa->ng[sparse];
  const size_t nw = pb->nw, ngr = (n + L - 1) / L;
  const size_t gw = L * (size_t)pb->np * nw; /* words per group */
  size_t NB = SM_SHORT_L2 / (gw ? gw * sizeof(uint64_t) : 1) / NG * NG;
  NB = NB < NG ? NG : NB; /* groups per block */
  sm_short_tile_t t;
  t.nw = nw, t.nf = (int64_t)nf, t.gsa = pa->nvp, t.gsb = pb->nvp, t.ldc = ldc, t.cs = cs;
  for (size_t g0 = 0; g0 < ngr; g0 += NB) {
    const size_t g1 = g0 + NB < ngr ? g0 + NB : ngr;
    for (size_t i0 = 0; i0 < m; i0 += MR) {
      const size_t mr = m - i0 < MR ? m - i0 : MR;
      size_t need = n; /* the first column a row of the tile needs */
      for (size_t r = 0; r < mr; r++) {
        const size_t f = sym ? i0 + r : lo ? lo[i0 + r] : 0;
        need = f < need ? f : need;
      }
      if (need >= n || g1 * L <= need)
        continue;
      for (size_t r = 0; r < MR; r++) { /* rows past m: the first again, not stored */
        const size_t i = i0 + (r < mr ? r : 0);
        t.a[r] = pa->p + i / L * gw + i % L;
        t.ga[r] = pa->g + i;
      }
      t.mr = mr;
      for (size_t gx = g0; gx < g1; gx += NG) {
        const size_t j0 = gx * L, nr = n - j0 < NG * L ? n - j0 : NG * L;
        if (j0 + nr <= need)
          continue;
        for (size_t x = 0; x < NG; x++) { /* groups past the last: it again */
          const size_t gi = gx + x < ngr ? gx + x : ngr - 1;
          t.b[x] = pb->p + gi * gw;
          t.gb[x] = pb->g + gi * L;
        }
        t.c = c + i0 * ldc + j0 * cs;
        t.nr = nr;
        isa->ukr[sparse](&t);
      }
    }
  }
}

void sm_ccc2_short_run(const sm_short_isa_t *isa, size_t m, size_t n, size_t nf,
                       const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                       int sparse, uint32_t *C, size_t ldc, int sym)
{
  if (m == 0 || n == 0)
    return;
  sm_clanes_t pa, pb;
  if (sm_clanes_pack(isa, &pa, m, nf, A, lda, sparse)) {
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  if (!sym && sm_clanes_pack(isa, &pb, n, nf, B, ldb, sparse)) {
    sm_clanes_free(&pa);
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  const size_t nmom = SM_CCC2_NMOM(sparse);
  sm_ccc2_short_tiles(isa, m, n, &pa, sym ? &pa : &pb, nf, sparse, C, ldc * nmom, nmom,
                      NULL, sym);
  if (sym)
    sm_ccc2_mirror_lower(n, sparse, C, ldc);
  sm_clanes_free(&pa);
  if (!sym)
    sm_clanes_free(&pb);
}

/* ---- the portable micro-kernel: lanes as arrays of 64-bit words, scalar
 * popcounts, dense 2 rows x 4 columns, sparse 1 x 4 (the accumulators stay
 * in registers; 2 x 2 and 3 x 2 measured slower, 1 x 4, 3 x 4 and 1 x 8
 * within 2%). */
enum { PL = 4, PMR_D = 2, PMR_S = 1 };

SM_POPC_CLONES
static void ukr_dense_popc(const sm_short_tile_t *t)
{
  int64_t acc[PMR_D][PL] = {{0}};
  for (size_t w = 0; w < t->nw; w++) {
    const uint64_t *bd = t->b[0] + 2 * PL * w, *bs = bd + PL;
#pragma GCC unroll 8
    for (int r = 0; r < PMR_D; r++) {
      const uint64_t ad = t->a[r][2 * PL * w], as = t->a[r][2 * PL * w + PL];
#pragma GCC unroll 8
      for (int l = 0; l < PL; l++)
        acc[r][l] += SM_DS_TERM(ad, as, bd[l], bs[l]);
    }
  }
  /* constant indices: the accumulators stay registers */
#pragma GCC unroll 8
  for (int r = 0; r < PMR_D; r++)
#pragma GCC unroll 8
    for (int l = 0; l < PL; l++)
      if ((size_t)r < t->mr && (size_t)l < t->nr) {
        int64_t gj[3], cnt[4] = {acc[r][l], 0, 0, 0};
        sm_short_gj(t, 0, (size_t)l, gj);
        sm_short_put(t, (size_t)r, (size_t)l, 0, cnt, gj);
      }
}

SM_POPC_CLONES
static void ukr_sparse_popc(const sm_short_tile_t *t)
{
  int64_t tu[PL] = {0}, fy[PL] = {0}, fx[PL] = {0}, xx[PL] = {0};
  const uint64_t *a = t->a[0];
  for (size_t w = 0; w < t->nw; w++) {
    const uint64_t xa = a[3 * PL * w], sa = a[3 * PL * w + PL],
                   da = a[3 * PL * w + 2 * PL];
    const uint64_t za = da & ~sa;
    const uint64_t *bx = t->b[0] + 3 * PL * w, *bs = bx + PL, *bd = bs + PL;
#pragma GCC unroll 8
    for (int l = 0; l < PL; l++) {
      const uint64_t dd = da & bd[l];
      tu[l] += (int64_t)SM_POPC64(dd) - 2 * (int64_t)SM_POPC64(dd & (sa ^ bs[l]));
      fy[l] += SM_POPC64((bx[l] & sa) | (~bx[l] & za));
      fx[l] += SM_POPC64((xa & bs[l]) | (~xa & bd[l] & ~bs[l]));
      xx[l] += SM_POPC64(xa & bx[l]);
    }
  }
#pragma GCC unroll 8
  for (int l = 0; l < PL; l++)
    if ((size_t)l < t->nr) {
      int64_t gj[3], cnt[4] = {tu[l], fy[l], fx[l], xx[l]};
      sm_short_gj(t, 0, (size_t)l, gj);
      sm_short_put(t, 0, (size_t)l, 1, cnt, gj);
    }
}

const sm_short_isa_t sm_short_popc = {PL,
                                      {PMR_D, PMR_S},
                                      {1, 1},
                                      {ukr_dense_popc, ukr_sparse_popc},
                                      sm_short_pack_c,
                                      sm_short_restrict_c};

SM_POPC_CLONES
void sm_kern_ccc2_short_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc)
{
  sm_ccc2_short_run(&sm_short_popc, m, n, nf, A, lda, B, ldb, sparse, C, ldc, 0);
}

SM_POPC_CLONES
void sm_kern_ccc2_syrk_short_popc(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                  int sparse, uint32_t *C, size_t ldc)
{
  sm_ccc2_short_run(&sm_short_popc, n, n, nf, A, lda, A, lda, sparse, C, ldc, 1);
}
