/* sm_i8_gemm.h: the shape of the CCC 2-way int8 GEMMs (kern_ccc2_gemm.cu)
 * in plain C, no CUDA and no StarPU, so that the rules cuBLAS sets for
 * them are checked on every machine (tests/unit/test_i8_gemm.c): the
 * padded rows of a tile's int8 form, the arguments of cublasGemmEx and
 * the layout of the scratch. The OpenCL stand-in (codelet_ccc2.c) runs
 * the same plan.
 *
 * cuBLAS's rules for int8 inputs with int32 accumulation (NVIDIA cuBLAS
 * documentation, CUDA 12/13):
 *  - "cublasGemmEx()" (2.8.12): CUBLAS_COMPUTE_32I is only supported with
 *    A, B 4-byte aligned and lda, ldb multiples of 4; Atype = Btype =
 *    CUDA_R_8I, Ctype = scale type = CUDA_R_32I; CUBLAS_STATUS_NOT_SUPPORTED
 *    otherwise (older manuals add: alpha and beta 0 or 1);
 *  - "cublasLtMatmul()" (3.4.17), whose kernels cublasGemmEx runs: the IMMA
 *    (int8 tensor core) kernels on the regular column-major order want the
 *    "TN" format (A transposed, B not), m and k multiples of 4, lda, ldb,
 *    ldc multiples of 4 and the pointers 4-byte aligned (16 better);
 *  - "Tensor Core Usage" (2.1.11): the best performance needs, in bytes,
 *    op(A)'s and op(B)'s leading extent (k here), m * 4, lda, ldb, ldc * 4
 *    and the pointers A, B, C all multiples of 16.
 * The plans below meet all of them: rows of int8 tiles padded to 16 (zero
 * rows, whose products the gather never reads), k = sm_ccc_i8_kpad(nf) (a
 * multiple of 16) and scratch offsets at multiples of 256 bytes. */
#ifndef SM_I8_GEMM_H
#define SM_I8_GEMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rows of a tile's int8 form: a multiple of this */
#define SM_I8_GEMM_ROWS 16
/* bytes: the alignment of the operands and of the int32 result */
#define SM_I8_GEMM_ALIGN 16
/* the longest k whose int32 sums are exact: every product of two int8
 * entries (allele counts 0..2, presences 0..1) is at most 4 */
#define SM_I8_GEMM_KMAX ((size_t)2147483647 / 4)

typedef enum sm_i8_op { SM_I8_OP_N, SM_I8_OP_T } sm_i8_op_t;
typedef enum sm_i8_type { SM_I8_S8, SM_I8_S32 } sm_i8_type_t; /* CUDA_R_8I, _32I */

/* One int8 GEMM, as cublasGemmEx takes it (column-major): the m x n int32
 * result G (ldc) = op(A) op(B), op(A) = A^T with A the right tile's int8
 * form (k x m, lda: its rows are A's columns), op(B) = B the left tile's
 * (k x n, ldb). So G[j' + i' ldc] = sum_q R[j', q] L[i', q] over rows j'
 * of the right tile and i' of the left one, what sm_i8_gather reads. */
typedef struct sm_i8_gemm {
  sm_i8_op_t transa, transb;                 /* T, N */
  sm_i8_type_t atype, btype, ctype, compute; /* S8, S8, S32, S32 */
  int m, n, k, lda, ldb, ldc;                /* m, n: padded rows */
  int alpha, beta;                           /* 1, 0 */
  size_t l_off, r_off, g_off, scratch_bytes; /* bytes, see the plans */
} sm_i8_gemm_t;

/** Rows of the int8 form of a tile of `rows` vectors: r of each vector,
 * sparse then m of each, then zero rows up to a multiple of
 * SM_I8_GEMM_ROWS. */
size_t sm_i8_gemm_rows(size_t rows, int sparse);

/** The GEMM of m x n vector pairs from cached int8 tiles: the left tile's
 * form has lrows rows of ldl bytes, the right one's rrows of ldr, kpad
 * bytes of each row used. The scratch holds G only (g_off 0,
 * scratch_bytes its size; l_off = r_off = 0: the operands are the
 * tiles). Returns 0, or -1 when a rule above would break: rows fewer than
 * the vectors' or not padded, kpad 0, not a multiple of 16 or above
 * SM_I8_GEMM_KMAX, leading dimensions short or not multiples of 16, a
 * dimension beyond int or a size beyond size_t. */
int sm_i8_gemm_plan(sm_i8_gemm_t *g, size_t m, size_t n, size_t kpad, int sparse,
                    size_t lrows, size_t ldl, size_t rrows, size_t ldr);

/** The same when both tiles (nf fields) are expanded into the scratch
 * first: the left one's form at l_off (g->n rows of g->ldb bytes), the
 * right one's at r_off (g->m rows of g->lda), G at g_off, all multiples
 * of 256 bytes; scratch_bytes in all. Returns 0 or -1 as above. */
int sm_i8_gemm_plan_scratch(sm_i8_gemm_t *g, size_t m, size_t n, size_t nf, int sparse);

/** 1 when p is aligned to SM_I8_GEMM_ALIGN bytes. */
int sm_i8_gemm_aligned(const void *p);

#ifdef __cplusplus
}
#endif

#endif
