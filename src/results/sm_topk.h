/* sm_topk.h: the nearest-neighbour file of a run (--top-k): every vector's
 * K largest values, from the lists the task graph's merge tasks built
 * (sm_topk_ent_t, sm_types.h), as PREFIX.topk.tsv or PREFIX.topk.bin. */
#ifndef SM_TOPK_H
#define SM_TOPK_H

#include <stddef.h>

#include "sm_error.h"
#include "sm_types.h"

typedef struct sm_topk_file {
  const sm_topk_spec_t *spec;
  const sm_topk_ent_t *lists; /* nv x spec->lists x spec->k places */
  size_t nv, nf;
  int ccc, single;
  char **names; /* vector names, or NULL (0-based indices) */
  int binary;   /* PREFIX.topk.bin (docs/computed.md, "Nearest neighbours") */
} sm_topk_file_t;

/** Write the file at path (atomically). TSV: a header, then per vector
 * and list `vector rank neighbour [a b] value`, rank 1..K, a the vector's
 * bit and b the neighbour's. Returns the rows written in *nrows. Logs its
 * errors. */
sm_err_t sm_topk_write(const char *path, const sm_topk_file_t *t,
                       unsigned long long *nrows) SM_MUST_CHECK;

#endif
