/* sm_decomp.h: the papers' parallel decomposition, as pure arithmetic.
 * Ranks form a grid npv x npf x npr. The vectors are cut into npv balanced
 * partitions, the fields into npf balanced slices; each partition is cut
 * into tiles of at most block_size vectors. 2-way: rank row I computes the
 * block-circulant set of partition blocks (I, I+k mod npv), k = 0..npv/2
 * (for even npv, rows I and I + npv/2 both reach the k = npv/2 block and
 * share it: alternate tile pairs each). A block is made of tile pairs (the
 * diagonal block: tile pairs tI <= tJ, and inside the diagonal tile pair
 * only i < j). A row's tile pairs are dealt round-robin over the npr
 * replicas (with one tile per partition, that is dealing its blocks), and a
 * rank's tile pairs round-robin into num_phase phases. */
#ifndef SM_DECOMP_H
#define SM_DECOMP_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"

typedef struct sm_decomp {
  size_t nv, nf;
  int npv, npf, npr;
  size_t block_size; /* vectors per tile */
  int num_phase;
} sm_decomp_t;

/* One task-sized piece of a 2-way block: the tile pair (tI of partition I,
 * tJ of partition J). */
typedef struct sm_subblock {
  int I, J;   /* partitions */
  int tI, tJ; /* tiles within them */
  int k;      /* circulant offset of the block */
  int phase;
  uint64_t seq; /* position in the rank row's list */
} sm_subblock_t;

/* 3-way: one slice of a block of rank row I. The plane axis runs over the
 * vectors of partition pa (planes [a0, a1), partition-local); every plane a
 * is combined with vectors x of partition px and y of partition py:
 * SM_SLICE_DIAG (pa = px = py = I): triples a < x < y;
 * SM_SLICE_FACE (block (I,J,J), pa = I, px = py = J): a with x < y;
 * SM_SLICE_VOLUME (block (I,J,K) distinct; pa is the lowest of I, J, K and
 * the slice s is the rank of the permutation (I,J,K) among the six
 * orderings, so the six ordered blocks cover the cube once): all a, x, y. */
enum { SM_SLICE_DIAG = 0, SM_SLICE_FACE, SM_SLICE_VOLUME };

typedef struct sm_slice3 {
  int kind;
  int I, J, K;    /* the ordered block */
  int pa, px, py; /* plane, x and y partitions (px <= py) */
  int s;          /* slice number 0..5 */
  size_t a0, a1;  /* planes of the slice, local to partition pa */
  int phase;
  uint64_t seq; /* position in this replica's list */
} sm_slice3_t;

/** Number of stages cut from [a0, a1): the planes of stage st. */
void sm_decomp_stage(size_t a0, size_t a1, int st, int nst, size_t *lo, size_t *hi);

/** The 3-way slices of rank row I computed by replica pr, in order
 * (6 diagonal slices, 6 per face block, one per volume block: (npv+1)(npv+2)
 * per row, dealt round-robin over the replicas), phases assigned. Returns a
 * malloc'd array (NULL when empty), *n the count. */
sm_slice3_t *sm_decomp_slices3(const sm_decomp_t *d, int I, int pr, size_t *n,
                               sm_err_t *err);

/** Validate a decomposition for nranks ranks (logs and returns SM_EOPTION
 * with what to change). */
sm_err_t sm_decomp_check(const sm_decomp_t *d, int nranks) SM_MUST_CHECK;

/** Rank of grid coordinates, and back. rank = pv + npv (pr + npr pf). */
int sm_decomp_rank(const sm_decomp_t *d, int pv, int pf, int pr);
void sm_decomp_coords(const sm_decomp_t *d, int rank, int *pv, int *pf, int *pr);

/** First vector and count of partition I; first field and count of slice f. */
void sm_decomp_part(const sm_decomp_t *d, int I, size_t *v0, size_t *nv);
void sm_decomp_slice(const sm_decomp_t *d, int f, size_t *f0, size_t *nf);

/** Number of tiles of partition I, and the first vector (within the
 * partition) and count of its tile t. */
int sm_decomp_ntiles(const sm_decomp_t *d, int I);
void sm_decomp_tile(const sm_decomp_t *d, int I, int t, size_t *v0, size_t *nv);

/** Number of circulant blocks of row I (offsets k = 0..n-1). */
int sm_decomp_row_blocks(const sm_decomp_t *d, int I);

/** 1 when offset k is the shared half-offset block of an even npv. */
int sm_decomp_half_block(const sm_decomp_t *d, int k);

/** The 2-way sub-blocks of the rank row (I, pr), in order; *n gets the
 * count. Returns a malloc'd array (NULL when empty or out of memory with
 * *n = 0 and, for memory, SM_ENOMEM in *err). */
sm_subblock_t *sm_decomp_subblocks2(const sm_decomp_t *d, int I, int pr, size_t *n,
                                    sm_err_t *err);

#endif
