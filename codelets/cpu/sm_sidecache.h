/* sm_sidecache.h: what a kernel derives from a tile of vectors (their
 * planes transposed, their lanes, their lists of missing calls), kept
 * between calls. A tile takes part in many tile pairs, and each pair's
 * task would otherwise derive both its tiles again: the same tile's
 * item is handed back while the vectors at the same place still hold the
 * same codes, compared word by word with a copy taken when it was built,
 * so a result never depends on whether the item was kept; an item is
 * kept from the second time its place is asked for. Process-wide,
 * shared by the workers (read-only once built), within a byte budget:
 * STARMET_SIDE_CACHE_MB (default 256; 0 keeps nothing). Kernels only: no
 * StarPU here. */
#ifndef SM_SIDECACHE_H
#define SM_SIDECACHE_H

#include <stddef.h>
#include <stdint.h>

/* What a kernel derives from nv vectors of nf 2-bit codes at X (ldx
 * words apart): the item, and its size in *bytes; NULL when out of
 * memory. */
typedef void *(*sm_side_build_fn)(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                                  size_t *bytes);
typedef void (*sm_side_drop_fn)(void *item);

/* An item in use (sm_side_get to sm_side_release). */
typedef struct sm_side_ref {
  struct sm_side_ent *ent; /* kept, or NULL: item is the caller's alone */
  void *item;
  sm_side_drop_fn drop;
} sm_side_ref_t;

/* Fewer vectors (the strips of LD windows, small tiles) are not kept:
 * seldom asked for again, they would only cost the copy and the lookups. */
#define SM_SIDE_MIN_VECTORS 128

/* The item of `kind` (one number per build function) for the nv vectors
 * of nf codes at X (ldx words apart; the (nf + 31) / 32 words a vector
 * that hold its codes are compared): a kept one when the same vectors
 * were there with the same codes, else build's (kept when the place was
 * asked for before, nv >= SM_SIDE_MIN_VECTORS and the budget allows).
 * build NULL: only a kept one, else NULL. NULL when build fails. Hold it
 * until sm_side_release. */
const void *sm_side_get(int kind, const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                        sm_side_build_fn build, sm_side_drop_fn drop, sm_side_ref_t *ref);
void sm_side_release(sm_side_ref_t *ref);

/* Drops every item (those in use when released): a check that failed
 * must not meet the same derived data on its retry. */
void sm_side_flush(void);

/* The byte budget (the default or STARMET_SIDE_CACHE_MB until set);
 * tests and benchmarks. */
void sm_side_set_limit(size_t bytes);
/* Calls that found their item kept, and those that built it. */
void sm_side_stats(uint64_t *hits, uint64_t *builds);

#endif
