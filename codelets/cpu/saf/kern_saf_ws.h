/* kern_saf_ws.h: the scratch memory of the SAF kernels (kern_saf.c,
 * kern_saf_ref.c), private to them. */
#ifndef KERN_SAF_WS_H
#define KERN_SAF_WS_H

#include <stdint.h>

#include "sm_kern_saf.h"

/* Longest run of bins convolved in linear space. */
#define SM_SAF_SEG_MAX 64

/* A node of the reduction tree: nind individuals, 2 nind + 1 bins stored
 * from off in a level buffer; only bins [lo, hi] may be non-zero. */
typedef struct saf_node {
  int32_t off, nind, lo, hi;
} saf_node_t;

/* A run of non-zero bins [start, start + len) of one operand whose binary
 * exponents lie within SM_SAF_SEG_RANGE below E. */
typedef struct saf_seg {
  int32_t start, len, E;
} saf_seg_t;

struct sm_saf_ws {
  size_t nind;
  /* tree: two level buffers (mantissa, exponent) of cap bins and nodes */
  size_t cap;
  double *m[2];
  int32_t *e[2];
  saf_node_t *node[2];
  /* one merge: scaled mantissas and runs of both operands, per output bin
   * the largest exponent and the accumulator */
  double *xa, *xb;
  saf_seg_t *sa, *sb;
  int32_t *R;
  double *acc;
  double local[2 * SM_SAF_SEG_MAX];
  double ypad[SM_SAF_SEG_MAX + 64];
  /* reference: two rows of 2N + 1 log values */
  double *u[2];
};

#endif
