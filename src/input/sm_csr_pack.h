/* sm_csr_pack.h: Czekanowski vectors (dense or sparse rows) to packed sparse tiles
 * (sm_csr.h), for the sparse method (--czek-method sparse). */
#ifndef SM_CSR_PACK_H
#define SM_CSR_PACK_H

#include "sm_csr.h"
#include "sm_vectors.h"

/** Non-zero entries of vectors [r0, r0 + rows) of v (czekanowski). */
uint64_t sm_csr_pack_count(const sm_vectors_t *v, size_t r0, size_t rows);

/** The fraction of non-zero entries of v (0 when v is empty). */
double sm_csr_pack_density(const sm_vectors_t *v);

/** Pack vectors [r0, r0 + rows) of v into a new 64-byte aligned buffer
 * (*buf, *bytes = sm_csr_bytes(...); free() it). Returns SM_ENOMEM, or
 * SM_EVALUE when the tile has more entries than SM_CSR_MAX_NNZ (logged:
 * smaller tiles or the dense method), else SM_OK. */
sm_err_t sm_csr_pack_tile(const sm_vectors_t *v, size_t r0, size_t rows, void **buf,
                          size_t *bytes) SM_MUST_CHECK;

#endif
