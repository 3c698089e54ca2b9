/* sm_kern_simd.h: the instruction-set specific CPU kernels (AVX2, AVX-512,
 * VNNI, AMX) and the run-time choice among them. Same contracts and
 * layouts as sm_kern.h; each kernel gives exactly what its _ref twin gives
 * there (Czekanowski: the same sums in the same order, so bit-identical;
 * CCC: the same integer moments).
 *
 * A kernel exists in every build; called on a CPU without its instruction
 * set it would fault, so callers pick through sm_kern_pick_* below, which
 * only returns what sm_cpu_get() reports usable. */
#ifndef SM_KERN_SIMD_H
#define SM_KERN_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "sm_kern.h"
#include "sm_kern_variants.h"

/* ---- Czekanowski 2-way mGEMM, BLIS-style: packed panels, five loops around
 * a register-blocked min + add micro-kernel (tile MR x NR below). Each C
 * element adds its k terms in k order, as the _ref twin does. */
void sm_kern_czek2_avx512_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                            const double *B, size_t ldb, double *C, size_t ldc);
void sm_kern_czek2_avx512_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                            const float *B, size_t ldb, float *C, size_t ldc);
void sm_kern_czek2_avx2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                          const double *B, size_t ldb, double *C, size_t ldc);
void sm_kern_czek2_avx2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc);

/* Symmetric variants for diagonal blocks (B = A, m = n): the same C, with
 * only the tiles on or above the diagonal computed and the rest mirrored
 * (bit-identical: each element's sum runs over the same terms in the same
 * order). BLIS's name for C = A A^T is syrk. */
void sm_kern_czek2_syrk_avx512_d(size_t n, size_t k, const double *A, size_t lda,
                                 double *C, size_t ldc);
void sm_kern_czek2_syrk_avx512_s(size_t n, size_t k, const float *A, size_t lda, float *C,
                                 size_t ldc);
void sm_kern_czek2_syrk_avx2_d(size_t n, size_t k, const double *A, size_t lda, double *C,
                               size_t ldc);
void sm_kern_czek2_syrk_avx2_s(size_t n, size_t k, const float *A, size_t lda, float *C,
                               size_t ldc);
/* Row-bounded variants for the 3-way planes: row i needs only its columns
 * j >= lo[i]; micro-tiles holding none of them are 0, the others exact. */
void sm_kern_czek2_lo_avx512_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                               const double *B, size_t ldb, double *C, size_t ldc,
                               const uint32_t *lo);
void sm_kern_czek2_lo_avx512_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                               const float *B, size_t ldb, float *C, size_t ldc,
                               const uint32_t *lo);
void sm_kern_czek2_lo_avx2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                             const double *B, size_t ldb, double *C, size_t ldc,
                             const uint32_t *lo);
void sm_kern_czek2_lo_avx2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                             const float *B, size_t ldb, float *C, size_t ldc,
                             const uint32_t *lo);

/* ---- Czekanowski 3-way planes (sm_czek3_*_kern_fn, sm_kern.h): the 2-way
 * micro-kernels on the rows min(p, x), formed per block of rows x fields as
 * the loops reach it (in L2, never whole in memory); each element adds its
 * fields in order, as sm_kern_czek3_ref does. */
void sm_kern_czek3_avx512_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                            size_t ldp, const double *X, size_t ldx, const double *Y,
                            size_t ldy, double *out, const uint32_t *lo);
void sm_kern_czek3_avx512_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                            size_t ldp, const float *X, size_t ldx, const float *Y,
                            size_t ldy, float *out, const uint32_t *lo);
void sm_kern_czek3_avx2_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                          size_t ldp, const double *X, size_t ldx, const double *Y,
                          size_t ldy, double *out, const uint32_t *lo);
void sm_kern_czek3_avx2_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                          size_t ldp, const float *X, size_t ldx, const float *Y,
                          size_t ldy, float *out, const uint32_t *lo);

/* ---- CCC 2-way moments (sm_kern.h contract) with AVX-512 VPOPCNTDQ on bit
 * planes, 64 fields per word and the fewest popcounts the algebra allows:
 * with u = r - 1 in {-1, 0, 1} (present entries), D = (u != 0), S = (u > 0),
 *   sum r_i r_j = sum_i r + sum_j r - n + |Di & Dj| - 2 |Di & Dj & (Si ^ Sj)|
 * (2 popcounts per word pair; one cannot do: see bench/README.md); sparse
 * adds X = missing, Z = (r == 0) and three more: |Xi & Xj|,
 * |Xi ? Sj : Zj| and |Xj ? Si : Zi| (5 in all, also the minimum). */
void sm_kern_ccc2_avx512(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                         const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                         size_t ldc);
/* sm_kern_ccc2_avx512 and its symmetric form run one of two forms, by
 * length (sm_kern_ccc2_short_nf): long vectors, cache blocked, a tile of 4 x
 * 2 pairs (dense) whose vector sums are reduced once per field block; short
 * ones (sm_ccc_short.h), the columns in the lanes, each lane's count its
 * own pair's over the whole field loop (no reduction across lanes). The
 * AVX2 and portable kernels have the same two forms. */
void sm_kern_ccc2_long_avx512(size_t m, size_t n, size_t nf, const uint64_t *A,
                              size_t lda, const uint64_t *B, size_t ldb, int sparse,
                              uint32_t *C, size_t ldc);
void sm_kern_ccc2_syrk_long_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                   int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_short_avx512(size_t m, size_t n, size_t nf, const uint64_t *A,
                               size_t lda, const uint64_t *B, size_t ldb, int sparse,
                               uint32_t *C, size_t ldc);
void sm_kern_ccc2_syrk_short_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                    int sparse, uint32_t *C, size_t ldc);

/* ---- CCC 2-way moments as an int8 GEMM (the papers' tensor-core method):
 * per-entry allele counts r (0, 1, 2; sparse also the presence m, 0 or 1)
 * as bytes, products summed in int32: dense C = R_A R_B^T; sparse the 2x2
 * blocks [r; m]_i [r; m]_j^T give {rr, rm, mr, mm}. Exact for nf < 2^29.
 * The three share packing and blocking and differ in the tile product:
 * _amx (TDPBUSD on 16x16 tiles), _vnni (VPDPBUSD, register-blocked), and
 * _i8ref, the plain-loop twin of the tile product (any CPU). */
/* Symmetric variants (B = A, m = n; sparse: the mirrored entry swaps rm
 * and mr), as for Czekanowski above. */
void sm_kern_ccc2_syrk_avx512(size_t n, size_t nf, const uint64_t *A, size_t lda,
                              int sparse, uint32_t *C, size_t ldc);
/* AVX2 (CPUs without VPOPCNTDQ): the planes of sm_ccc_planes.h counted with
 * the nibble table, 256 bits at a time. */
void sm_kern_ccc2_avx2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                       size_t ldc);
void sm_kern_ccc2_syrk_avx2(size_t n, size_t nf, const uint64_t *A, size_t lda,
                            int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_long_avx2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                            const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                            size_t ldc);
void sm_kern_ccc2_syrk_long_avx2(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                 int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_short_avx2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                             const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                             size_t ldc);
void sm_kern_ccc2_syrk_short_avx2(size_t n, size_t nf, const uint64_t *A, size_t lda,
                                  int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_syrk_amx(size_t n, size_t nf, const uint64_t *A, size_t lda, int sparse,
                           uint32_t *C, size_t ldc);
void sm_kern_ccc2_syrk_vnni(size_t n, size_t nf, const uint64_t *A, size_t lda,
                            int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_syrk_i8ref(size_t n, size_t nf, const uint64_t *A, size_t lda,
                             int sparse, uint32_t *C, size_t ldc);

void sm_kern_ccc2_amx(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc);
void sm_kern_ccc2_vnni(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                       size_t ldc);
void sm_kern_ccc2_i8ref(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                        const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                        size_t ldc);

/* The int8 tile product the three differ in: S[r][c] += sum_{q<kb} A8[r][q]
 * B8[q/4][c][q%4] for r < rows, c < cols (multiples of 32), kb a multiple of 64. A8:
 * bytes (taken as unsigned), row r at A8 + r * lda8; B8: dwords of 4 bytes (taken as
 * signed; 4 consecutive q of one column, the VNNI layout) in panels of 32 columns: quad
 * row x of column c at B8[(c / 32) * ldb8 + x * 32 + c % 32] (ldb8 >= 8 kb); S: int32,
 * row r at S + r * lds. Returns 0, or -1 when it cannot run (AMX: the tile configuration
 * was refused); then S is as it was. */
typedef int (*sm_i8tile_fn)(size_t rows, size_t cols, size_t kb, const uint8_t *A8,
                            size_t lda8, const uint32_t *B8, size_t ldb8, int32_t *S,
                            size_t lds);
int sm_i8tile_ref(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
                  const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds);
int sm_i8tile_vnni(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
                   const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds);
int sm_i8tile_amx(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
                  const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds);

/* The int8 CCC driver (packing, field blocks, moments) around a tile
 * product; simd_pack: pack with AVX-512BW + BMI2 (CPUs with VNNI or AMX
 * have them); sym: B is A, only strips from the diagonal on are multiplied.
 * Returns -1 (C untouched) when the tile product or memory fails. */
int sm_kern_ccc2_i8(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                    const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
                    sm_i8tile_fn tile, int simd_pack, int sym);

/* ---- CCC 3-way planes: the plane kernel (sm_kern_ccc3_popc_keep, which
 * runs on the widest instruction set this CPU has) on the short-vector
 * tiles of variant v (AVX512, AVX2; the others: portable). */
void sm_kern_ccc3_popc_isa(sm_kvar_t v, const sm_keep3_t *keep, size_t g, size_t mx,
                           size_t my, size_t nf, const uint64_t *P, size_t ldp,
                           const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy,
                           int sparse, uint32_t *out);

/* ---- run-time choice */
/* Kernel variants (the --kernel choices): sm_kvar_t, sm_kern_variants.h. */

/* The 2-way kernel types (sm_kern.h) under the names the choice uses. */
typedef sm_czek2_d_kern_fn sm_czek2_d_fn;
typedef sm_czek2_s_kern_fn sm_czek2_s_fn;
typedef sm_ccc2_kern_fn sm_ccc2_fn;

typedef sm_czek2_lo_d_kern_fn sm_czek2_lo_d_fn;
typedef sm_czek2_lo_s_kern_fn sm_czek2_lo_s_fn;

typedef void (*sm_czek2_syrk_d_fn)(size_t, size_t, const double *, size_t, double *,
                                   size_t);
typedef void (*sm_czek2_syrk_s_fn)(size_t, size_t, const float *, size_t, float *,
                                   size_t);
typedef void (*sm_ccc2_syrk_fn)(size_t, size_t, const uint64_t *, size_t, int, uint32_t *,
                                size_t);

/** NULL when variant v can run here for the family (ccc or czekanowski),
 * else why not (for the error message of a forced --kernel). */
const char *sm_kern_unusable(sm_kvar_t v, int ccc);

/** The row-bounded kernels of variant v (NULL: it has none). */
sm_czek2_lo_d_fn sm_kern_lo_czek2_d(sm_kvar_t v);
sm_czek2_lo_s_fn sm_kern_lo_czek2_s(sm_kvar_t v);
/** The 3-way planes kernel of variant v (AVX512, AVX2; AUTO: the widest
 * usable) and its name; NULL when v has none (ref, blocked: the planes run
 * on the 2-way kernel, sm_kern_czek3_on) or is unusable. */
const char *sm_kern_pick_czek3_d(sm_kvar_t v, sm_czek3_d_kern_fn *fn);
const char *sm_kern_pick_czek3_s(sm_kvar_t v, sm_czek3_s_kern_fn *fn);

/** The kernel of variant v (AUTO: the fastest usable) and its name; NULL
 * when unusable. */
const char *sm_kern_pick_czek2_d(sm_kvar_t v, sm_czek2_d_fn *fn);
const char *sm_kern_pick_czek2_s(sm_kvar_t v, sm_czek2_s_fn *fn);
/** CCC: AUTO times the usable candidates once per process on a small
 * problem (a few milliseconds) and keeps the fastest for dense and for
 * sparse separately. Thread-safe. */
const char *sm_kern_pick_ccc2(sm_kvar_t v, int sparse, sm_ccc2_fn *fn);

/** PLINK's r and r^2 on one tile pair: CCC's sparse moments of A x B into
 * C (the kernel of variant v) and PLINK's homozygous tally into H
 * (sm_kern_ld_hom's layout, ld ldh); sym: B is A (m = n). With AVX-512
 * the counters make both from one pass over the missing calls, else each
 * its own kernel. 0 done, -1 out of memory (H not written: compute it
 * again). */
int sm_kern_ccc2_ld(sm_kvar_t v, size_t m, size_t n, size_t nf, const uint64_t *A,
                    size_t lda, const uint64_t *B, size_t ldb, int sym, uint32_t *C,
                    size_t ldc, uint32_t *H, size_t ldh);
/** The same for the pairs of LD windows without an index alone (b; A may
 * be B, a diagonal tile pair), by 16 rows and the columns their runs
 * reach, from the tiles' kept sides: the AVX-512 counters, where variant
 * v's kernel is AVX-512's and the missing calls are few. 0 done, 1 not
 * for this kernel or these tiles (nothing written), -1 out of memory. */
int sm_kern_ccc2_ld_band(sm_kvar_t v, const sm_band_t *b, size_t m, size_t n, size_t nf,
                         const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                         uint32_t *C, size_t ldc, uint32_t *H, size_t ldh);

/** The popcount kernels' crossover: below this many fields the CCC 2-way
 * kernel of variant v (AVX512, AVX2, POPC, BLOCKED; 0 for the others)
 * runs its short-vector form. */
size_t sm_kern_ccc2_short_nf(sm_kvar_t v, int sparse);

/** The symmetric variant of the kernel sm_kern_pick_* gives for v, or NULL
 * when that kernel has none (then call it with B = A). */
sm_czek2_syrk_d_fn sm_kern_syrk_czek2_d(sm_kvar_t v);
sm_czek2_syrk_s_fn sm_kern_syrk_czek2_s(sm_kvar_t v);
sm_ccc2_syrk_fn sm_kern_syrk_ccc2(sm_kvar_t v, int sparse);

#endif
