/* sm_csr.h: the packed sparse tile of Czekanowski vectors (--czek-method
 * sparse), one buffer that src/ fills and registers as one StarPU handle
 * and that the kernels read: a header, the tile's rows in compressed
 * sparse rows (CSR) and the same values feature-major (CSC), each part
 * 64-byte aligned. Plain C, no runtime header. */
#ifndef SM_CSR_H
#define SM_CSR_H

#include <stddef.h>
#include <stdint.h>

/* The header (the first 64 bytes). rows: vectors of the tile; nf: fields
 * of its field slice; nnz: its non-zero entries; elem: 4 (float) or 8
 * (double). Then, each part starting on a 64-byte boundary:
 *   roff[rows + 1] (uint64): row i's entries are [roff[i], roff[i+1]);
 *   idx[nnz] (uint32): their fields, ascending within a row;
 *   val[nnz] (elem): their values (all > 0);
 *   coff[nf + 1] (uint32): field f's entries are [coff[f], coff[f+1]);
 *   ridx[nnz] (uint32): their rows, ascending within a field;
 *   cval[nnz] (elem): their values. */
typedef struct sm_csr_hdr {
  uint64_t rows, nf, nnz, elem;
  uint64_t pad[4];
} sm_csr_hdr_t;

/* The parts of a packed tile. */
typedef struct sm_csr_view {
  size_t rows, nf, nnz;
  const uint64_t *roff;
  const uint32_t *idx;
  const void *val;
  const uint32_t *coff;
  const uint32_t *ridx;
  const void *cval;
} sm_csr_view_t;

/* The largest nnz of one tile (field offsets are 32-bit). */
#define SM_CSR_MAX_NNZ ((uint64_t)UINT32_MAX)

static inline size_t sm_csr_up64(size_t b)
{
  return (b + 63) & ~(size_t)63;
}

/** Bytes of a packed tile of rows vectors, nf fields, nnz entries of elem
 * bytes. */
static inline size_t sm_csr_bytes(size_t rows, size_t nf, size_t nnz, size_t elem)
{
  return sizeof(sm_csr_hdr_t) + sm_csr_up64((rows + 1) * sizeof(uint64_t)) +
         2 * sm_csr_up64(nnz * sizeof(uint32_t)) + 2 * sm_csr_up64(nnz * elem) +
         sm_csr_up64((nf + 1) * sizeof(uint32_t));
}

/** The parts of the packed tile at buf (64-byte aligned), from its header. */
static inline sm_csr_view_t sm_csr_view(const void *buf)
{
  const sm_csr_hdr_t *h = (const sm_csr_hdr_t *)buf;
  const char *p = (const char *)buf + sizeof *h;
  sm_csr_view_t v = {.rows = (size_t)h->rows, .nf = (size_t)h->nf, .nnz = (size_t)h->nnz};
  const size_t e = (size_t)h->elem;
  v.roff = (const uint64_t *)p;
  p += sm_csr_up64((v.rows + 1) * sizeof(uint64_t));
  v.idx = (const uint32_t *)p;
  p += sm_csr_up64(v.nnz * sizeof(uint32_t));
  v.val = p;
  p += sm_csr_up64(v.nnz * e);
  v.coff = (const uint32_t *)p;
  p += sm_csr_up64((v.nf + 1) * sizeof(uint32_t));
  v.ridx = (const uint32_t *)p;
  p += sm_csr_up64(v.nnz * sizeof(uint32_t));
  v.cval = p;
  return v;
}

#endif
