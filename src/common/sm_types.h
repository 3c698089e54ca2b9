/* sm_types.h: the application's result types, shared by the kernels
 * (codelets/cpu) and src/: result records and their buffer, the
 * order-independent checksum, the finalize arguments and the threshold
 * test. Plain C, no runtime header. */
#ifndef SM_TYPES_H
#define SM_TYPES_H

#include <stdint.h>

/* ---- records and the checksum (sm_cksum.c) */
/* One result record: vector indices (global, ascending; idx[2] unused in
 * 2-way), the table entry for CCC (a*2+b, 3-way a*4+b*2+c; 0 for czek) and
 * the value. */
typedef struct sm_rec {
  uint32_t idx[3];
  uint32_t entry;
  double value;
} sm_rec_t;

/* Order-independent checksum accumulator (SPEC 5): sum of the fixed-point
 * values (128 bits), sum of value x index-hash (mod 2^64), and the count. */
typedef struct sm_cksum {
  uint64_t sum_lo, sum_hi;
  uint64_t hash;
  uint64_t count;
} sm_cksum_t;

/* Fixed-point scale of the checksum: 2^-40 resolution. */
#define SM_CKSUM_SCALE 1099511627776.0

/** Add value of entry `entry` of the result of vector indices idx (way 2
 * or 3) to c. */
void sm_cksum_add(sm_cksum_t *c, const uint32_t idx[3], int way, uint32_t entry,
                  double value);
/* The same in two steps, when one result has several table entries: the
 * indices' hash once, then each entry's value. */
uint64_t sm_cksum_key(const uint32_t idx[3], int way);
void sm_cksum_add_key(sm_cksum_t *c, uint64_t key, uint32_t entry, double value);
/** into += from (any order of merges gives the same sums). */
void sm_cksum_merge(sm_cksum_t *into, const sm_cksum_t *from);

/** splitmix64's finalizer: a well-mixed 64-bit hash (checksum keys, the
 * fault injection's random stream). */
static inline uint64_t sm_mix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Header of a block's record buffer; the records follow it. */
typedef struct sm_recbuf {
  uint64_t count;   /* records written below */
  uint64_t nvalues; /* values computed (before threshold) */
  sm_cksum_t cksum; /* over every computed value */
  uint64_t pad;
  sm_rec_t rec[];
} sm_recbuf_t;

/* ---- finalize arguments */
/** Whether a value passes the output threshold: threshold < 0 (or NaN)
 * keeps everything; else values > threshold, compared as float32 when
 * thr_f32 (float outputs). */
static inline int sm_threshold_keep(double threshold, int thr_f32, double v)
{
  return !(threshold >= 0) || (thr_f32 ? (double)(float)v : v) > threshold;
}

/* What a 2-way finalize needs to know about its block. */
typedef struct sm_fin2_args {
  int metric;      /* 0 czekanowski, 1 ccc */
  int single;      /* czekanowski: numerators and sums are float */
  int sparse;      /* ccc: sparse method */
  int diag;        /* diagonal block: only i < j */
  int swap;        /* block below the diagonal (i0 > j0): records are
                      written (j, i) with the CCC entry bits swapped */
  uint32_t i0, j0; /* global index of the block's first row / column */
  uint32_t m, n;   /* block size */
  uint64_t nf;     /* fields (dense CCC normalization) */
  double ccc_mult, ccc_param;
  int keep_all;     /* write every value (threshold applied later) */
  double threshold; /* keep values > threshold; < 0 keeps everything */
  int thr_f32;      /* compare the float32-rounded value (float outputs) */
  int emit;         /* 0: checksum only, no records (output none) */
} sm_fin2_args_t;

/* Largest number of records a 2-way block can produce. */
static inline uint64_t sm_fin2_max_records(const sm_fin2_args_t *a)
{
  return (uint64_t)a->m * a->n * (a->metric == 1 ? 4u : 1u);
}

/* What a 3-way finalize needs to know about its piece: planes [a, a+g) of
 * partition-tile A (global index a_glob of the first plane; row a_off of
 * tile A), rows of tiles X and Y (global x0, y0). kind: 0 diagonal block
 * (keep a < x < y), 1 face block (keep x < y), 2 volume block (all). */
typedef struct sm_fin3_args {
  int metric, single, sparse, kind;
  uint32_t g, mx, my;
  uint32_t a_glob, a_off, x0, y0;
  uint64_t nf;
  double ccc_mult, ccc_param;
  int keep_all;
  double threshold;
  int thr_f32;
  int emit;
} sm_fin3_args_t;

/* Largest number of records a 3-way piece can produce. */
static inline uint64_t sm_fin3_max_records(const sm_fin3_args_t *a)
{
  return (uint64_t)a->g * a->mx * a->my * (a->metric == 1 ? 8u : 1u);
}

#endif
