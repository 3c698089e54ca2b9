/* sm_types.h: the application's result types, shared by the kernels
 * (codelets/cpu) and src/: result records and their buffer, the
 * order-independent checksum, the finalize arguments and the threshold
 * test. Plain C, no runtime header. */
#ifndef SM_TYPES_H
#define SM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "sm_formulas.h" /* the checksum's pieces of one value */

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

/* Header of a block's record buffer; the records follow it, then (when
 * hist_off is not 0) the block's histogram counts (sm_hist_t layout). */
typedef struct sm_recbuf {
  uint64_t count;    /* records written below */
  uint64_t nvalues;  /* values computed (before threshold) */
  sm_cksum_t cksum;  /* over every computed value */
  uint64_t hist_off; /* byte offset of the histogram counts, 0: none */
  sm_rec_t rec[];
} sm_recbuf_t;

/* A block's records as the output's text, formatted before their turn to
 * be written: data (malloc'ed by the format function, freed by the sink),
 * len bytes, count records; or, for outputs whose lines are put in order
 * across blocks, piece (the writer's, taken by it); done: formatted (else
 * the sink writes the records itself). */
typedef struct sm_textbuf {
  char *data;
  size_t len;
  uint64_t count;
  void *piece;
  int done;
} sm_textbuf_t;

/* The histogram counts of a record buffer, or NULL. */
static inline uint64_t *sm_recbuf_hist(const sm_recbuf_t *rb)
{
  return rb->hist_off ? (uint64_t *)((char *)rb + rb->hist_off) : (uint64_t *)0;
}

/* ---- value histograms (--histogram) */
#define SM_HIST_MAX_BINS                                                                 \
  10000 /* counts travel with every block: 8 x 10003 x 8 bytes for 3-way CCC */
/* Fixed bins over [lo, hi] per table entry: each entry's row holds
 * bins + 3 counts: below lo, the bins, above hi, NaN. */
typedef struct sm_hist_spec {
  uint32_t bins; /* 0: no histogram */
  uint32_t nent; /* table entries: 1 (czekanowski), 4 or 8 (ccc 2-/3-way) */
  double lo, hi;
} sm_hist_spec_t;

/* Counts per entry row. */
static inline uint64_t sm_hist_row(const sm_hist_spec_t *h)
{
  return (uint64_t)h->bins + 3;
}

/* Counts in all. */
static inline uint64_t sm_hist_words(const sm_hist_spec_t *h)
{
  return h->bins ? h->nent * sm_hist_row(h) : 0;
}

/* Where value v falls in its entry's row: 0 below lo, 1..bins the bins
 * (the last one closed: v = hi is in it), bins + 1 above hi, bins + 2 NaN.
 * The same arithmetic everywhere, so that counts do not depend on where a
 * value was computed. */
static inline uint32_t sm_hist_slot(const sm_hist_spec_t *h, double v)
{
  if (v != v)
    return h->bins + 2;
  if (v < h->lo)
    return 0;
  if (v > h->hi)
    return h->bins + 1;
  const double x = (v - h->lo) / (h->hi - h->lo) * (double)h->bins;
  const uint32_t b = x >= (double)h->bins ? h->bins - 1 : (uint32_t)x;
  return 1 + b;
}

/* Byte offset of the histogram after a record buffer's header and room
 * for `nrec` records (8-byte aligned as sm_rec_t is). */
static inline uint64_t sm_recbuf_hist_offset(uint64_t nrec)
{
  return sizeof(sm_recbuf_t) + nrec * sizeof(sm_rec_t);
}

/* ---- nearest neighbours (--top-k): per vector, the K largest values of
 * its pairs; for CCC of each table entry (lists 4, entry = the vector's
 * bit then the neighbour's) or of the pair's largest entry (lists 1). */
typedef struct sm_topk_spec {
  uint32_t k;     /* 0: none */
  uint32_t lists; /* lists per vector: 1, or 4 (CCC per entry) */
  int by_max;     /* CCC: one list of each pair's largest entry */
} sm_topk_spec_t;

/* One candidate; nb SM_TOPK_EMPTY marks an empty place. */
typedef struct sm_topk_ent {
  double value;
  uint32_t nb;    /* the neighbour's global index */
  uint32_t entry; /* CCC table entry (the vector's bit, the neighbour's) */
} sm_topk_ent_t;
#define SM_TOPK_EMPTY 0xffffffffu
#define SM_TOPK_MAX                                                                      \
  256 /* largest k: a block's candidates take (m + n) x lists x k x 16 bytes */

/* The order of a list: larger value first, then smaller neighbour index,
 * then smaller entry; empty places last. A total order, so a list's
 * content does not depend on the order candidates arrive in. */
static inline int sm_topk_before(const sm_topk_ent_t *x, const sm_topk_ent_t *y)
{
  if (x->nb == SM_TOPK_EMPTY)
    return 0;
  if (y->nb == SM_TOPK_EMPTY || x->value > y->value)
    return 1;
  if (x->value < y->value)
    return 0;
  return x->nb < y->nb || (x->nb == y->nb && x->entry < y->entry);
}

/* Offer a candidate to a sorted list of k places (NaN values are not
 * neighbours). */
static inline void sm_topk_offer(sm_topk_ent_t *list, uint32_t k, uint32_t nb,
                                 uint32_t entry, double v)
{
  const sm_topk_ent_t c = {v, nb, entry};
  if (v != v || !sm_topk_before(&c, &list[k - 1]))
    return;
  uint32_t p = k - 1;
  while (p > 0 && sm_topk_before(&c, &list[p - 1])) {
    list[p] = list[p - 1];
    p--;
  }
  list[p] = c;
}

/* ---- CoMet's thresholds per table entry (CCC; --threshold with 4 values
 * for 2-way: tLL,tLH,tHH,tLLHH, or 5 for 3-way: tLLL,tLLH,tLHH,tHHH,tLLLHHH).
 * An entry with w bits set is kept when its value is > t[w]; the all-0 and
 * all-1 entries are also kept when both their values are > 0 and their sum
 * is > t[way + 1]. */
typedef struct sm_thr_list {
  int n; /* 0: not used (one threshold for every value) */
  double t[5];
} sm_thr_list_t;

/** Whether entry e of a CCC result whose values per entry are v[] (4 or 8
 * of them) passes the list l, comparing float32-rounded values when f32. */
static inline int sm_thr_list_keep(const sm_thr_list_t *l, int way, int f32,
                                   const double *v, uint32_t e)
{
  const uint32_t all = way == 2 ? 3u : 7u;
  const int w = (int)(e & 1u) + (int)((e >> 1) & 1u) + (int)((e >> 2) & 1u);
  const double x = f32 ? (double)(float)v[e] : v[e];
  if (x > l->t[w])
    return 1;
  if (e != 0 && e != all)
    return 0;
  const double lo = f32 ? (double)(float)v[0] : v[0];
  const double hi = f32 ? (double)(float)v[all] : v[all];
  return lo > 0 && hi > 0 && lo + hi > l->t[way + 1];
}

/* ---- finalize arguments */
/** Whether a value passes the output threshold: threshold < 0 (or NaN)
 * keeps everything; else values > threshold, compared as float32 when
 * thr_f32 (float outputs). */
static inline int sm_threshold_keep(double threshold, int thr_f32, double v)
{
  return !(threshold >= 0) || (thr_f32 ? (double)(float)v : v) > threshold;
}

/** The same for a value that is a dissimilarity when dis (the min-sum
 * family's Bray-Curtis and Jaccard forms): values <= threshold, the near
 * pairs; NaN is never kept by a threshold. */
static inline int sm_threshold_keep_dis(int dis, double threshold, int thr_f32, double v)
{
  if (!dis)
    return sm_threshold_keep(threshold, thr_f32, v);
  return !(threshold >= 0) || (thr_f32 ? (double)(float)v : v) <= threshold;
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
  int keep_all;          /* write every value (threshold applied later) */
  double threshold;      /* keep values > threshold; < 0 keeps everything */
  sm_thr_list_t thr_ent; /* or thresholds per table entry (CCC) */
  int thr_f32;           /* compare the float32-rounded value (float outputs) */
  int emit;              /* 0: checksum only, no records (output none) */
  sm_hist_spec_t hist;   /* count every value (hist.bins > 0) */
  sm_topk_spec_t topk;   /* candidate neighbours of the block (topk.k > 0) */
  int form;              /* czekanowski: the value's form (SM_FORM_*, sm_formulas.h);
                            a dissimilarity is thresholded <= threshold and its
                            top-k candidates hold -value (the smallest first) */
  int zero_nan;          /* czekanowski: a pair of two zero sums is NaN */
  /* ccc read as PLINK's LD (form SM_FORM_R2, SM_FORM_R): one value per
   * pair; ld_min >= 0 keeps values with r^2 >= ld_min (r: |r| >=
   * sqrt(ld_min)), never NaN, else every value is kept; ld_win (or NULL:
   * every pair) holds per vector the last one in its window: pair (i < j)
   * is computed when j <= ld_win[i]; ld_index (PLINK's --ld-snp, or NULL)
   * only those pairs with a vector v whose ld_index[v] has its low bit. */
  double ld_min;
  const uint32_t *ld_win;
  const unsigned char *ld_index;
  int ld_a1; /* r: the sign of the file's A1 counts (PLINK's
                --keep-allele-order), not of the minor alleles' */
  /* r: per vector, whether PLINK counts its other allele (its A1 the
   * major one over every sample: PLINK's --nonfounders); NULL: decided
   * from the vector sums (the samples read) */
  const unsigned char *ld_rev;
} sm_fin2_args_t;

/* Candidate lists of a 2-way block: its m rows' lists, then its n
 * columns' (topk.lists x topk.k places per vector). */
static inline uint64_t sm_fin2_topk_places(const sm_fin2_args_t *a)
{
  return ((uint64_t)a->m + a->n) * a->topk.lists * a->topk.k;
}

/* Largest number of records a 2-way block can produce. */
static inline uint64_t sm_fin2_max_records(const sm_fin2_args_t *a)
{
  const int ld = a->form == 3 || a->form == 4; /* SM_FORM_R2, SM_FORM_R */
  return (uint64_t)a->m * a->n * (a->metric == 1 && !ld ? 4u : 1u);
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
  sm_thr_list_t thr_ent;
  int thr_f32;
  int emit;
  sm_hist_spec_t hist;
} sm_fin3_args_t;

/* Largest number of records a 3-way piece can produce. */
static inline uint64_t sm_fin3_max_records(const sm_fin3_args_t *a)
{
  return (uint64_t)a->g * a->mx * a->my * (a->metric == 1 ? 8u : 1u);
}

/* A 2-way tile pair's place among PLINK's LD windows (kern_band.c):
 * win[x] the last vector in x's window (NULL: every pair of the tile is
 * computed), a0 and b0 the first vectors of its rows and columns; index
 * (PLINK's --ld-snp; NULL: every pair in the windows): only the pairs in
 * the windows with a vector v whose index[v] has its low bit set. */
typedef struct sm_band {
  const uint32_t *win;
  const unsigned char *index;
  uint32_t a0, b0;
} sm_band_t;

#endif
