/* sm_csr_pack.c: Czekanowski vectors (dense, or compressed sparse rows
 * as the BIOM reader keeps them) to packed sparse tiles: the
 * rows' non-zero entries in field order (CSR), then the same entries
 * field by field (CSC), in one 64-byte aligned buffer (sm_csr.h). */
#include "sm_csr_pack.h"

#include <stdlib.h>
#include <string.h>

/* Entry q of row i as a double (what decides zero or not). */
static inline double entry(const sm_vectors_t *v, size_t i, size_t q)
{
  const void *row = sm_vectors_row(v, i);
  return v->elem_size == 4 ? (double)((const float *)row)[q] : ((const double *)row)[q];
}

uint64_t sm_csr_pack_count(const sm_vectors_t *v, size_t r0, size_t rows)
{
  if (sm_vectors_is_sparse(v))
    return v->csr_off[r0 + rows] - v->csr_off[r0];
  uint64_t n = 0;
  for (size_t i = r0; i < r0 + rows; i++)
    for (size_t q = 0; q < v->nf; q++)
      n += entry(v, i, q) != 0;
  return n;
}

double sm_csr_pack_density(const sm_vectors_t *v)
{
  const double cells = (double)v->nv * (double)v->nf;
  return cells > 0 ? (double)sm_csr_pack_count(v, 0, v->nv) / cells : 0;
}

sm_err_t sm_csr_pack_tile(const sm_vectors_t *v, size_t r0, size_t rows, void **buf,
                          size_t *bytes)
{
  const size_t nf = v->nf, es = v->elem_size;
  const uint64_t nnz = sm_csr_pack_count(v, r0, rows);
  *buf = NULL;
  if (nnz > SM_CSR_MAX_NNZ) {
    sm_log_error("--czek-method sparse: a tile of %zu vectors has %llu non-zero entries, "
                 "more than %llu: give a smaller --block-size or --czek-method dense",
                 rows, (unsigned long long)nnz, (unsigned long long)SM_CSR_MAX_NNZ);
    return SM_EVALUE;
  }
  *bytes = sm_csr_bytes(rows, nf, (size_t)nnz, es);
  char *b = aligned_alloc(64, *bytes);
  if (!b)
    return SM_ENOMEM;
  memset(b, 0, *bytes);
  *(sm_csr_hdr_t *)b = (sm_csr_hdr_t){.rows = rows, .nf = nf, .nnz = nnz, .elem = es};
  const sm_csr_view_t w = sm_csr_view(b);
  uint64_t *roff = (uint64_t *)w.roff;
  uint32_t *idx = (uint32_t *)w.idx, *coff = (uint32_t *)w.coff,
           *ridx = (uint32_t *)w.ridx;
  char *val = (char *)w.val, *cval = (char *)w.cval;
  uint64_t p = 0;
  if (sm_vectors_is_sparse(v)) { /* the rows as they are */
    const uint64_t b0 = v->csr_off[r0];
    for (size_t i = 0; i <= rows; i++)
      roff[i] = v->csr_off[r0 + i] - b0;
    p = roff[rows];
    memcpy(idx, v->csr_idx + b0, (size_t)p * sizeof *idx);
    memcpy(val, (const char *)v->csr_val + (size_t)b0 * es, (size_t)p * es);
    for (uint64_t e = 0; e < p; e++)
      coff[idx[e] + 1]++;
  }
  for (size_t i = 0; i < rows && !sm_vectors_is_sparse(v); i++) {
    roff[i] = p;
    const char *row = sm_vectors_row(v, r0 + i);
    for (size_t q = 0; q < nf; q++)
      if (entry(v, r0 + i, q) != 0) {
        idx[p] = (uint32_t)q;
        memcpy(val + p * es, row + q * es, es);
        coff[q + 1]++;
        p++;
      }
  }
  roff[rows] = p;
  for (size_t q = 0; q < nf; q++) /* counts to offsets */
    coff[q + 1] += coff[q];
  /* rows in ascending order within each field: a counting sort */
  uint32_t *next = malloc((nf ? nf : 1) * sizeof *next);
  if (!next) {
    free(b);
    return SM_ENOMEM;
  }
  memcpy(next, coff, nf * sizeof *next);
  for (size_t i = 0; i < rows; i++)
    for (uint64_t e = roff[i]; e < roff[i + 1]; e++) {
      const uint32_t d = next[idx[e]]++;
      ridx[d] = (uint32_t)i;
      memcpy(cval + (size_t)d * es, val + e * es, es);
    }
  free(next);
  *buf = b;
  return SM_OK;
}
