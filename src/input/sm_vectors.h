/* sm_vectors.h: the in-memory vector set every reader produces and every
 * computation consumes: n_v vectors of n_f fields, one vector after another
 * with a padded leading dimension. */
#ifndef SM_VECTORS_H
#define SM_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"

typedef enum sm_metric {
  SM_METRIC_CZEK = 0, /* Proportional Similarity (Czekanowski), real entries */
  SM_METRIC_CCC = 1,  /* Custom Correlation Coefficient, 2-bit genotypes */
  /* What the values of a czekanowski run are when it computes a
   * dissimilarity of the same numerators (--metric bray-curtis, jaccard):
   * said only where values are described (matrix outputs, histograms);
   * the vectors and the computation are SM_METRIC_CZEK's. */
  SM_METRIC_BRAY_CURTIS = 2,
  SM_METRIC_JACCARD = 3,
  /* What the values of a ccc run are when it reads its numerators as
   * PLINK's LD (--metric r2, r): one value per pair, the vectors and the
   * numerators SM_METRIC_CCC's. */
  SM_METRIC_R2 = 4,
  SM_METRIC_R = 5,
} sm_metric_t;

/* 2-bit genotype codes (CoMet's): number of copies of allele "1". */
enum {
  SM_GT_0 = 0,       /* 0b00: 0 copies */
  SM_GT_1 = 1,       /* 0b01: 1 copy */
  SM_GT_MISSING = 2, /* 0b10: missing call (dense CCC counts it as 1 copy) */
  SM_GT_2 = 3,       /* 0b11: 2 copies */
};

/* Fields per 64-bit word in the packed genotype layout. */
#define SM_GT_PER_WORD 32

typedef struct sm_vectors {
  sm_metric_t metric;
  size_t elem_size; /* czekanowski: 4 (float) or 8 (double); ccc: 8 (word) */
  size_t nv;        /* number of vectors held */
  size_t nf;        /* number of fields per vector */
  size_t ld;        /* leading dimension, in elements (czek) or words (ccc) */
  /* czekanowski: float/double [nv][ld], entries past nf are 0.
   * ccc: uint64_t [nv][ld]; field f of a vector is at bits 2*(f%32) of word
   * f/32 (least significant first, CoMet's byte layout read as little-endian
   * words); codes SM_GT_*; the bits past nf are 0. */
  void *data;
  /* czekanowski read in compressed sparse rows (a reader asked for
   * sm_read_opts_t.czek_sparse, where it can): data is NULL, vector i's
   * non-zero entries are [csr_off[i], csr_off[i+1]) of csr_idx (fields,
   * ascending) and csr_val (elem_size each, all > 0). */
  uint64_t *csr_off;
  uint32_t *csr_idx;
  void *csr_val;
  char **names;    /* nv vector names, or NULL when the input has none */
  size_t nmissing; /* ccc: number of missing calls in the data */
} sm_vectors_t;

/** Leading dimension used for nf fields of the given metric/element size. */
size_t sm_vectors_ld(sm_metric_t metric, size_t elem_size, size_t nf);

/** Allocate zeroed, 64-byte aligned storage for nv x nf (names left NULL).
 * Returns SM_ENOMEM or SM_OK. */
sm_err_t sm_vectors_alloc(sm_vectors_t *v, sm_metric_t metric, size_t elem_size,
                          size_t nv, size_t nf) SM_MUST_CHECK;

/** 1 when v holds compressed sparse rows (csr_off) rather than data. */
static inline int sm_vectors_is_sparse(const sm_vectors_t *v)
{
  return v->csr_off != NULL;
}

/** Allocate compressed sparse rows for nv x nf czekanowski vectors with
 * room for nnz entries (csr_off zeroed; names left NULL). SM_ENOMEM (said)
 * or SM_OK. */
sm_err_t sm_vectors_alloc_sparse(sm_vectors_t *v, size_t elem_size, size_t nv, size_t nf,
                                 uint64_t nnz) SM_MUST_CHECK;

/** Sparse rows to the dense layout, in place (names kept). SM_ENOMEM
 * (said) or SM_OK; nothing to do on dense vectors. */
sm_err_t sm_vectors_densify(sm_vectors_t *v) SM_MUST_CHECK;

/** Free the storage of the values only (dense or sparse), names kept. */
void sm_vectors_free_values(sm_vectors_t *v);

/** Free the storage and names; accepts a zeroed or already freed struct. */
void sm_vectors_free(sm_vectors_t *v);

/** Czekanowski: the largest sum of a vector's values (+inf beyond double's
 * range); 0 for other metrics. */
double sm_vectors_max_sum(const sm_vectors_t *v);

/** Pointer to vector i. */
static inline void *sm_vectors_row(const sm_vectors_t *v, size_t i)
{
  return (char *)v->data + i * v->ld * v->elem_size;
}

/** Read / write the 2-bit code of field f of a packed genotype row. */
static inline unsigned sm_gt_get(const uint64_t *row, size_t f)
{
  return (unsigned)(row[f / SM_GT_PER_WORD] >> (2 * (f % SM_GT_PER_WORD))) & 3u;
}
static inline void sm_gt_set(uint64_t *row, size_t f, unsigned code)
{
  uint64_t *w = &row[f / SM_GT_PER_WORD];
  unsigned sh = 2 * (f % SM_GT_PER_WORD);
  *w = (*w & ~((uint64_t)3 << sh)) | ((uint64_t)(code & 3u) << sh);
}

/** Count the missing codes of a genotype set into v->nmissing. */
void sm_vectors_count_missing(sm_vectors_t *v);

/** Give the vectors names (copied); NULL clears them. */
sm_err_t sm_vectors_set_names(sm_vectors_t *v, char **names) SM_MUST_CHECK;

/** Check Czekanowski entries: every value finite and >= 0. On failure logs
 * "<what>: vector <name or index>, field <f>: <value> ..." and returns
 * SM_EVALUE. */
sm_err_t sm_vectors_check_czek(const sm_vectors_t *v, const char *what) SM_MUST_CHECK;

#endif
