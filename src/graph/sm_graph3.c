/* sm_graph3.c: the 3-way task graph. Each rank row's slab is cut into
 * (npv+1)(npv+2) slices (sm_decomp_slices3); a slice's planes (restricted
 * to the stages asked for) are walked tile by tile of the plane partition,
 * against tile pairs (tX, tY) of the two other partitions. Per tile triple:
 * the 2-way numerators it reads, (a, x), (a, y) and (x, y), computed once
 * per rank row as tasks and shared by the triples that read them (a
 * plane tile's own pairs for its triples at least); per group of planes:
 * the plane numerators per field slice, their reduction in a fixed order,
 * a finalize and an output task. */
#include "sm_graph.h"
#include "sm_graph_core.h"

#include <starpu.h>
#include <stdlib.h>
#include <string.h>

#include "sm_codelets.h"
#include "sm_observe.h"
#include "sm_sched.h"

/* The comparisons (triples x fields) of the shortest 3-way plane group
 * worth its overhead on a CPU core, for plane groups: about a millisecond
 * of the CCC kernels here (1.3e11 comparisons/s per core: 200 x 8192 tasks
 * of 16^3 triples ran 0.25 ms each, a quarter of which was StarPU's
 * per-task cost). A constant, not the measured rate of sm_grain.h: output
 * blocks are numbered by plane group, and --resume, which records only the
 * tile size, must number them as the interrupted run did. */
#define SM_CPU3_MIN_WORK 1.3e8

size_t sm_graph_auto_block3(size_t nv, size_t nf, int ngpus, double min_work)
{
  if (ngpus > 0) {
    /* A GPU needs thousands of thread blocks per launch: tiles of 256 or
     * more (256 x 256 columns of 4 x 4 or 2 x 2 per thread: 1024-4096
     * blocks per plane), a few tile triples per GPU to share. */
    size_t bs = (nv / (size_t)(2 * ngpus) + 15) / 16 * 16;
    bs = bs < 256 ? 256 : bs > 1024 ? 1024 : bs;
    return bs > nv ? (nv < 16 ? 16 : nv) : bs; /* one tile */
  }
  /* Tiles of the diagonal and face blocks compute whole tile triples of
   * which only the ordered part (a < x < y) is kept, so smaller tiles waste
   * less; 32..64 keeps the per-plane modified GEMMs efficient (measured:
   * 300 x 4000 czekanowski single, 1.0e10 comparisons/s at 32 vs 3.5e9 at
   * 256 on 2 cores). */
  size_t bs = nv / 8 / 16 * 16; /* whole register tiles */
  bs = bs < 16 ? 16 : bs > 64 ? 64 : bs;
  /* short problems: on CPUs a task is a whole tile triple (planes are
   * grouped up to the tile, sm_graph_plane_group), which must be worth
   * min_work comparisons (sm_grain.h: the measured rate times about a
   * millisecond), keeping 3 tiles at least */
  while (bs < 64 && (double)bs * (double)bs * (double)bs * (double)nf < min_work &&
         bs + 16 <= nv / 3)
    bs += 16;
  return bs;
}

size_t sm_graph_plane_group(int emit, int ngpus, size_t nf, size_t mx, size_t my)
{
  /* triples per task: records of 8 entries x 24 bytes bound the buffers
   * (65536 triples: 12.6 MB; on GPU nodes 2^20: 201 MB of host memory) */
  size_t target = ngpus > 0 ? (emit ? (size_t)1 << 20 : (size_t)1 << 23)
                            : (emit ? (size_t)1 << 16 : (size_t)1 << 18);
  if (ngpus <= 0 && nf > 0) {
    const size_t least = (size_t)(SM_CPU3_MIN_WORK / (double)nf) + 1;
    if (!emit && least > target)
      target = least;
  }
  const size_t pairs = mx * my;
  const size_t g = target / (pairs ? pairs : 1);
  return g ? g : 1;
}

typedef struct piece {
  int row_repl; /* replica of the row */
  const sm_slice3_t *sl;
  size_t lo, hi; /* planes of this stage (partition-local) */
} piece_t;

/* One tile triple of a piece: planes [a, aend) of plane tile ta against
 * tiles tx and ty of the two other partitions. */
/* The 2-way numerators of a tile pair (rows of global tile i against tile
 * j), reduced into field slice f2, which the triples of a piece share. */
typedef struct pair {
  int i, j;               /* key: global tiles (i < 0: an empty slot) */
  int cls;                /* key: the values' reduction order (pair_class) */
  int keep;               /* PAIR_* : how long it is kept */
  int f2;                 /* field slice holding the reduced numerators */
  size_t bytes;           /* of the reduced numerators */
  starpu_data_handle_t h; /* the reduced numerators (NULL when counting) */
} pair_t;

/* How long a pair is kept: for its triple only, for the triples of its
 * plane tile, or for the whole piece (within SM_PAIR_CACHE_BYTES). */
enum { PAIR_TRIPLE, PAIR_PLANE, PAIR_PIECE };

/* The 2-way numerators a piece keeps for its later triples: the pairs a
 * plane tile makes with the others ((a, x), (a, y)) for every triple of
 * the plane tile, and every pair while their bytes stay below this (on a
 * few hundred vectors, each pair of the piece is computed once; before,
 * once per triple: 11-15% of a 3-way Czekanowski run). */
#define SM_PAIR_CACHE_BYTES ((size_t)32 << 20)

/* Open addressing over (i, j, cls), linear probing; cap a power of 2. */
typedef struct pairs {
  pair_t *slot;
  size_t cap, n;
  size_t piece_bytes; /* bytes of the PAIR_PIECE entries */
  size_t budget;      /* at most this many (SM_PAIR_CACHE_BYTES) */
} pairs_t;

typedef struct triple {
  int ta, tx, ty;                 /* tiles within their partitions */
  int tileA, tileX, tileY;        /* global tile indices */
  size_t ta0, tx0, txn, ty0, tyn; /* first vector and size of the tiles */
  size_t a, aend;                 /* planes (partition-local) */
  int f2;                         /* field slice reducing its new 2-way numerators */
  /* its 2-way numerators (a, x), (a, y), (x, y): entries of the piece's
   * pairs or of own[] (PAIR_TRIPLE); fresh[k]: to be computed now */
  pair_t *n2[3];
  int fresh[3];
  pair_t own[3];
} triple_t;

/* What walk_piece calls, in walk order; a non-zero return stops the walk. */
typedef struct visitor {
  /* a tile triple, before its groups of planes */
  sm_err_t (*triple)(void *ctx, const piece_t *pc, const triple_t *t);
  /* planes [p0, p0 + gn) of the triple, reduced and finalized on the rank
   * of field slice ffin */
  sm_err_t (*group)(void *ctx, const piece_t *pc, const triple_t *t, size_t p0, size_t gn,
                    int ffin);
  /* a 2-way numerator the piece no longer needs (NULL: nothing) */
  void (*release)(void *ctx, pair_t *p);
  void *ctx;
} visitor_t;

/* ---- the 2-way numerators the triples of a piece share */

/* Pairs whose values are equal: the field slices' partial numerators are
 * added into slice f2 first, then the others in ascending order
 * (sm_gcore_reduce), so f2 = 0 and f2 = 1 add in the same order (up to
 * the commutative first addition) and any other f2 in its own (with 3 or
 * more field slices). Integer moments (CCC) add exactly in any order. */
static int pair_class(const sm_gcore_t *g, int f2)
{
  return g->ccc || f2 <= 1 ? 0 : f2;
}

static size_t pair_hash(int i, int j, int cls, size_t cap)
{
  uint64_t h = ((uint64_t)(uint32_t)i << 32 | (uint32_t)j) * 0x9e3779b97f4a7c15u;
  h ^= (uint64_t)(uint32_t)cls * 0xc2b2ae3d27d4eb4fu;
  return (size_t)(h >> 17) & (cap - 1);
}

static pair_t *pair_slot(pairs_t *ps, int i, int j, int cls)
{
  size_t k = pair_hash(i, j, cls, ps->cap);
  while (ps->slot[k].i >= 0 &&
         !(ps->slot[k].i == i && ps->slot[k].j == j && ps->slot[k].cls == cls))
    k = (k + 1) & (ps->cap - 1);
  return &ps->slot[k];
}

/* Rebuild the table at capacity cap, keeping the entries kept at least
 * for the piece when drop_plane (the others released), all else. */
static sm_err_t pairs_rebuild(pairs_t *ps, size_t cap, int drop_plane, const visitor_t *v)
{
  pair_t *old = ps->slot;
  const size_t ocap = ps->cap;
  pair_t *slot = malloc(cap * sizeof *slot);
  if (!slot)
    return SM_ENOMEM;
  for (size_t k = 0; k < cap; k++)
    slot[k].i = -1;
  ps->slot = slot, ps->cap = cap, ps->n = 0;
  for (size_t k = 0; k < ocap; k++) {
    if (old[k].i < 0)
      continue;
    if (drop_plane && old[k].keep == PAIR_PLANE) {
      if (v->release)
        v->release(v->ctx, &old[k]);
      continue;
    }
    *pair_slot(ps, old[k].i, old[k].j, old[k].cls) = old[k];
    ps->n++;
  }
  free(old);
  return SM_OK;
}

/* Release every pair of the table (the piece's end). */
static void pairs_clear(pairs_t *ps, const visitor_t *v)
{
  for (size_t k = 0; k < ps->cap; k++)
    if (ps->slot[k].i >= 0 && v->release)
      v->release(v->ctx, &ps->slot[k]);
  free(ps->slot);
  *ps = (pairs_t){.budget = ps->budget};
}

/* The entry of pair (i, j) for triple t in role k (0: (a, x), 1: (a, y),
 * 2: (x, y)): the piece's, or a new one to be computed into slice t->f2;
 * kept for the plane tile in roles 0 and 1, and for the piece while the
 * budget allows. */
static sm_err_t pair_get(const sm_gcore_t *g, pairs_t *ps, triple_t *t, int k, int i,
                         int j, size_t rows, size_t cols, const visitor_t *v)
{
  const int cls = pair_class(g, t->f2);
  t->fresh[k] = 0;
  if (ps->cap) {
    pair_t *p = pair_slot(ps, i, j, cls);
    if (p->i >= 0) {
      t->n2[k] = p;
      return SM_OK;
    }
  }
  for (int m = 0; m < k; m++) /* (a, x) = (a, y) on the diagonal tile */
    if (t->n2[m]->i == i && t->n2[m]->j == j) {
      t->n2[k] = t->n2[m];
      return SM_OK;
    }
  const size_t elem =
      g->ccc ? SM_CCC2_NMOM(g->o->sparse) * sizeof(uint32_t) : g->v->elem_size;
  pair_t e = {.i = i, .j = j, .cls = cls, .f2 = t->f2, .bytes = rows * cols * elem};
  e.keep = ps->piece_bytes + e.bytes <= ps->budget ? PAIR_PIECE
           : k < 2                                 ? PAIR_PLANE
                                                   : PAIR_TRIPLE;
  t->fresh[k] = 1;
  if (e.keep == PAIR_TRIPLE) {
    t->own[k] = e;
    t->n2[k] = &t->own[k];
    return SM_OK;
  }
  pair_t *p = pair_slot(ps, i, j, cls); /* room made by walk_triple */
  *p = e;
  ps->n++;
  ps->piece_bytes += e.keep == PAIR_PIECE ? e.bytes : 0;
  t->n2[k] = p;
  return SM_OK;
}

/* A tile triple and its groups of planes; *counter numbers the triple's
 * 2-way numerators and each group (its field slice of reduction). */
static sm_err_t walk_triple(const sm_gcore_t *g, const piece_t *pc, triple_t *t,
                            uint64_t *counter, pairs_t *ps, const visitor_t *v)
{
  const sm_decomp_t *d = g->d;
  const sm_slice3_t *sl = pc->sl;
  t->tileX = g->tile_base[sl->px] + t->tx;
  t->tileY = g->tile_base[sl->py] + t->ty;
  sm_decomp_tile(d, sl->px, t->tx, &t->tx0, &t->txn);
  sm_decomp_tile(d, sl->py, t->ty, &t->ty0, &t->tyn);
  t->f2 = (int)((*counter)++ % (uint64_t)d->npf);
  memset(t->n2, 0, sizeof t->n2), memset(t->fresh, 0, sizeof t->fresh);
  sm_err_t err = SM_OK;
  /* room for the triple's 3 new pairs, before any entry is pointed to */
  if (ps && 2 * (ps->n + 3) > ps->cap)
    err = pairs_rebuild(ps, ps->cap ? 2 * ps->cap : 64, 0, v);
  if (ps && !err) { /* the triple's 2-way numerators: shared, or new */
    size_t tan, ta0;
    sm_decomp_tile(d, sl->pa, t->ta, &ta0, &tan);
    err = pair_get(g, ps, t, 0, t->tileA, t->tileX, tan, t->txn, v);
    if (!err)
      err = pair_get(g, ps, t, 1, t->tileA, t->tileY, tan, t->tyn, v);
    if (!err)
      err = pair_get(g, ps, t, 2, t->tileX, t->tileY, t->txn, t->tyn, v);
  }
  if (!err)
    err = v->triple(v->ctx, pc, t);
  const size_t gsz = sm_graph_plane_group(g->o->emit, g->o->ngpus, d->nf, t->txn, t->tyn);
  for (size_t p0 = t->a; p0 < t->aend && !err; p0 += gsz) {
    const int ffin = (int)((*counter)++ % (uint64_t)d->npf);
    err = v->group(v->ctx, pc, t, p0, t->aend - p0 < gsz ? t->aend - p0 : gsz, ffin);
  }
  for (int k = 0; ps && k < 3 && v->release; k++) /* its own ones go */
    if (t->n2[k] == &t->own[k])
      v->release(v->ctx, &t->own[k]);
  return err;
}

/* The one walk of a piece, for counting and for submitting: its planes
 * tile by tile of the plane partition, against the tile pairs (tx, ty) the
 * slice keeps (x < y outside volume slices, a < x in diagonal ones); ps:
 * the 2-way numerators its rank row keeps (NULL: none needed). */
static sm_err_t walk_piece(const sm_gcore_t *g, const piece_t *pc, uint64_t *counter,
                           pairs_t *ps, const visitor_t *v)
{
  const sm_decomp_t *d = g->d;
  const sm_slice3_t *sl = pc->sl;
  const int ntx = sm_decomp_ntiles(d, sl->px), nty = sm_decomp_ntiles(d, sl->py);
  sm_err_t err = SM_OK;
  for (size_t a = pc->lo; a < pc->hi && !err;) {
    triple_t t = {.ta = (int)(a / d->block_size), .a = a};
    size_t tan;
    sm_decomp_tile(d, sl->pa, t.ta, &t.ta0, &tan);
    t.aend = pc->hi < t.ta0 + tan ? pc->hi : t.ta0 + tan;
    t.tileA = g->tile_base[sl->pa] + t.ta;
    for (t.tx = 0; t.tx < ntx && !err; t.tx++)
      for (t.ty = 0; t.ty < nty && !err; t.ty++) {
        if (sl->kind != SM_SLICE_VOLUME && t.ty < t.tx)
          continue; /* x < y */
        if (sl->kind == SM_SLICE_DIAG && t.tx < t.ta)
          continue; /* a < x */
        err = walk_triple(g, pc, &t, counter, ps, v);
      }
    if (!err && ps && ps->cap) /* the plane tile's own pairs go */
      err = pairs_rebuild(ps, ps->cap, 1, v);
    a = t.aend;
  }
  return err;
}

/* ---- counting: output blocks and tasks of this rank (progress line) */

static sm_err_t count_triple(void *ctx, const piece_t *pc, const triple_t *t)
{
  sm_gcore_t *g = ctx;
  for (int k = 0; k < 3; k++) /* the triple's new 2-way numerators */
    if (t->fresh[k])
      g->local_tasks += sm_gcore_local_tasks(g, pc->sl->I, pc->row_repl, t->f2, 0, 1);
  return SM_OK;
}

static sm_err_t count_group(void *ctx, const piece_t *pc, const triple_t *t, size_t p0,
                            size_t gn, int ffin)
{
  (void)t, (void)p0, (void)gn;
  sm_gcore_t *g = ctx;
  g->sink->blocks_total += sm_decomp_rank(g->d, pc->sl->I, ffin, pc->row_repl) == g->me;
  g->local_tasks += sm_gcore_local_tasks(g, pc->sl->I, pc->row_repl, ffin, 1, 1);
  return SM_OK;
}

/* ---- submitting */

typedef struct submit_ctx {
  sm_gcore_t *g;
  int need_n2;              /* sparse CCC uses plane moments only */
  starpu_data_handle_t *h2; /* a new 2-way numerator per field slice */
  starpu_data_handle_t *h3; /* plane numerators per field slice */
} submit_ctx_t;

static sm_err_t submit_triple(void *ctx, const piece_t *pc, const triple_t *t)
{
  submit_ctx_t *c = ctx;
  const int r = pc->row_repl, I = pc->sl->I;
  sm_observe_block(t->tileA, t->tileX, t->tileY);
  sm_err_t err = SM_OK;
  for (int k = 0; c->need_n2 && k < 3 && !err; k++) {
    if (!t->fresh[k])
      continue;
    pair_t *p = t->n2[k];
    err = sm_gcore_pair(c->g, p->i, p->j, I, r, p->f2, SM_TK_PAIR3, NULL, c->h2, NULL);
    /* the reduced part stays; the others go once the reduction read them */
    for (int f = 0; f < c->g->d->npf; f++) {
      if (f == p->f2)
        p->h = c->h2[f];
      else if (c->h2[f])
        starpu_data_unregister_submit(c->h2[f]);
      c->h2[f] = NULL;
    }
  }
  return err;
}

/* Release a 2-way numerator the piece no longer needs. */
static void submit_release(void *ctx, pair_t *p)
{
  (void)ctx;
  if (p->h)
    starpu_data_unregister_submit(p->h);
  p->h = NULL;
}

/* The plane numerator (and resilience) tasks of a group, per field slice. */
static sm_err_t submit_planes(submit_ctx_t *c, const piece_t *pc, const triple_t *t,
                              size_t p0, size_t gn, const sm_keep3_t *keep)
{
  sm_gcore_t *g = c->g;
  const sm_graph_opts_t *o = g->o;
  const int r = pc->row_repl, pr = sm_sched_prio(o->prio, SM_TK_PLANE3);
  const size_t a_off = p0 - t->ta0;
  int ret = 0;
  for (int f = 0; f < g->d->npf && !ret; f++) {
    size_t f0, nf;
    sm_decomp_slice(g->d, f, &f0, &nf);
    starpu_data_handle_t A = g->x[sm_gcore_hidx(g, t->tileA, f, r)],
                         X = g->x[sm_gcore_hidx(g, t->tileX, f, r)],
                         Y = g->x[sm_gcore_hidx(g, t->tileY, f, r)];
    const uint64_t blk = g->st->nblocks;
    ret = g->ccc
              ? sm_task_ccc3(A, a_off, gn, X, Y, c->h3[f], o->sparse, nf, keep, blk, pr)
              : sm_task_czek3(A, a_off, gn, X, Y, c->h3[f], o->single, nf, keep, blk, pr);
    g->st->ntasks++;
    if (!ret && sm_codelets_resilience_tasks()) {
      ret = sm_task_verify3(c->h3[f], A, a_off, gn, X, Y, g->ccc,
                            g->ccc ? o->sparse : o->single, nf, keep, g->st->nblocks,
                            sm_sched_prio(o->prio, SM_TK_VERIFY));
      g->st->ntasks++;
    }
  }
  sm_gcore_count_mine(g, pc->sl->I, r, (uint64_t)gn * t->txn * t->tyn);
  return ret ? SM_ERUNTIME : SM_OK;
}

/* All tasks of a group of planes: numerators, reduction, finalize, output. */
static sm_err_t submit_group(void *ctx, const piece_t *pc, const triple_t *t, size_t p0,
                             size_t gn, int ffin)
{
  submit_ctx_t *c = ctx;
  sm_gcore_t *g = c->g;
  const sm_graph_opts_t *o = g->o;
  if (sm_graph_skipped(o, g->st->nblocks)) { /* done by an interrupted run */
    g->st->nblocks++;
    return SM_OK;
  }
  const sm_slice3_t *sl = pc->sl;
  const int r = pc->row_repl, fin_rank = sm_decomp_rank(g->d, sl->I, ffin, r);
  size_t pa0, pan, px0, pxn, py0, pyn;
  sm_decomp_part(g->d, sl->pa, &pa0, &pan);
  sm_decomp_part(g->d, sl->px, &px0, &pxn);
  sm_decomp_part(g->d, sl->py, &py0, &pyn);
  const size_t e3 = g->ccc ? SM_CCC3_NMOM(o->sparse) * sizeof(uint32_t) : g->v->elem_size;
  sm_gcore_register_parts(g, c->h3, sl->I, r, t->txn * t->tyn, gn, e3);
  sm_fin3_args_t fa = {
      SM_GCORE_FIN_ARGS(g),
      .kind = sl->kind,
      .g = (uint32_t)gn,
      .mx = (uint32_t)t->txn,
      .my = (uint32_t)t->tyn,
      .a_glob = (uint32_t)(pa0 + p0),
      .a_off = (uint32_t)(p0 - t->ta0),
      .x0 = (uint32_t)(px0 + t->tx0),
      .y0 = (uint32_t)(py0 + t->ty0),
  };
  starpu_data_handle_t rec =
      sm_gcore_register_records(g, sm_fin3_max_records(&fa), fin_rank);
  const sm_keep3_t keep = {(uint32_t)fa.kind, fa.a_glob, fa.x0, fa.y0};
  sm_err_t err = submit_planes(c, pc, t, p0, gn, &keep);
  if (!err)
    err = sm_gcore_reduce(g, c->h3, ffin);
  /* sparse CCC reads no 2-way numerators: the plane handle stands in */
  starpu_data_handle_t nax = c->need_n2 ? t->n2[0]->h : c->h3[ffin],
                       nay = c->need_n2 ? t->n2[1]->h : c->h3[ffin],
                       nxy = c->need_n2 ? t->n2[2]->h : c->h3[ffin];
  if (!err && sm_task_finalize3(c->h3[ffin], nax, nay, nxy,
                                g->sums[sm_gcore_hidx(g, t->tileA, 0, r)],
                                g->sums[sm_gcore_hidx(g, t->tileX, 0, r)],
                                g->sums[sm_gcore_hidx(g, t->tileY, 0, r)], rec, &fa,
                                sm_sched_prio(o->prio, SM_TK_FINALIZE)))
    err = SM_ERUNTIME;
  err = sm_gcore_output(g, err, c->h3, rec, fin_rank);
  g->st->nblocks++;
  sm_gcore_throttle(g);
  return err;
}

/* ---- the graph */

typedef struct graph3_ctx {
  uint64_t *counter; /* per row: counting pass, then submitting pass */
  pairs_t *pairs;    /* the same: the 2-way numerators the row's slices share */
  uint64_t *last;    /* per row: seq of its last slice walked (UINT64_MAX: none) */
  submit_ctx_t submit;
} graph3_ctx_t;

static void *list_slices(const sm_decomp_t *d, int I, int pr, size_t *n, sm_err_t *err)
{
  return sm_decomp_slices3(d, I, pr, n, err);
}

static int slice_phase(const void *item)
{
  return ((const sm_slice3_t *)item)->phase;
}

/* Every stage asked for of a slice, counted (pass 0) or submitted. */
static sm_err_t walk_slice(sm_gcore_t *g, graph3_ctx_t *c, int row, const sm_slice3_t *sl,
                           int pass)
{
  const sm_graph_opts_t *o = g->o;
  const int nrows = g->d->npv * g->d->npr;
  const visitor_t count = {count_triple, count_group, NULL, g};
  const visitor_t submit = {submit_triple, submit_group, submit_release, &c->submit};
  c->submit.g = g;
  pairs_t *ps = c->submit.need_n2 ? &c->pairs[pass * nrows + row] : NULL;
  sm_err_t err = SM_OK;
  for (int stg = o->stage_min; stg <= o->stage_max && !err; stg++) {
    piece_t pc = {.row_repl = row / g->d->npv, .sl = sl};
    sm_decomp_stage(sl->a0, sl->a1, stg, o->num_stage, &pc.lo, &pc.hi);
    err =
        walk_piece(g, &pc, &c->counter[pass * nrows + row], ps, pass ? &submit : &count);
  }
  if (ps && (err || sl->seq == c->last[row])) /* the row's last slice */
    pairs_clear(ps, pass ? &submit : &count);
  return err;
}

static void count_item(sm_gcore_t *g, void *ctx, int row, const void *item)
{
  (void)walk_slice(g, ctx, row, item, 0); /* counting cannot fail */
}

static sm_err_t submit_item(sm_gcore_t *g, void *ctx, int row, const void *item)
{
  return walk_slice(g, ctx, row, item, 1);
}

sm_err_t sm_graph3_run(const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_sink_t *sink, sm_graph_stats_t *st)
{
  const size_t npf = (size_t)o->d->npf, nrows = (size_t)(o->d->npv * o->d->npr);
  graph3_ctx_t c = {.submit.need_n2 = !(local->metric == SM_METRIC_CCC && o->sparse)};
  c.counter = calloc(2 * nrows, sizeof *c.counter);
  c.pairs = calloc(2 * nrows, sizeof *c.pairs);
  c.last = malloc(nrows * sizeof *c.last);
  starpu_data_handle_t *h = calloc(2 * npf, sizeof *h);
  sm_err_t err = !c.counter || !c.pairs || !c.last || !h ? SM_ENOMEM : SM_OK;
  for (size_t row = 0; row < nrows && !err; row++) { /* each row's last slice walked */
    size_t n = 0;
    sm_slice3_t *sl =
        sm_decomp_slices3(o->d, (int)row % o->d->npv, (int)row / o->d->npv, &n, &err);
    c.last[row] = UINT64_MAX;
    for (size_t k = 0; k < n; k++)
      if (sl[k].phase >= o->phase_min && sl[k].phase <= o->phase_max)
        c.last[row] = sl[k].seq;
    free(sl);
  }
  if (err) {
    free(c.counter), free(c.pairs), free(c.last), free(h);
    return err;
  }
  /* $STARMET_PAIR_BYTES: another budget (tests: 0 keeps (a, x) and (a, y)
   * for their plane tile only, and computes (x, y) per triple) */
  const char *pb = getenv("STARMET_PAIR_BYTES");
  for (size_t k = 0; k < 2 * nrows; k++)
    c.pairs[k].budget = pb && *pb ? (size_t)strtoull(pb, NULL, 10) : SM_PAIR_CACHE_BYTES;
  c.submit.h2 = h, c.submit.h3 = h + npf;
  const sm_gcore_rows_t rows = {
      .item_size = sizeof(sm_slice3_t),
      .list = list_slices,
      .phase = slice_phase,
      .count = count_item,
      .submit = submit_item,
      .ctx = &c,
  };
  err = sm_gcore_run(local, o, sink, st, &rows);
  for (size_t k = 0; k < 2 * nrows; k++) /* none left but after a failure */
    free(c.pairs[k].slot);
  free(c.counter), free(c.pairs), free(c.last), free(h);
  return err;
}
