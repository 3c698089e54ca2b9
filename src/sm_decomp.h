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
  size_t block_size;  /* vectors per tile */
  int num_phase;
} sm_decomp_t;

/* One task-sized piece of a 2-way block: the tile pair (tI of partition I,
 * tJ of partition J). */
typedef struct sm_subblock {
  int I, J;           /* partitions */
  int tI, tJ;         /* tiles within them */
  int k;              /* circulant offset of the block */
  int phase;
  uint64_t seq;       /* position in the rank row's list */
} sm_subblock_t;

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
