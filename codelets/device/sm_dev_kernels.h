/* sm_dev_kernels.h: starmet's device kernels, written once for CUDA and
 * OpenCL (sm_dev.h is the layer between). The genotype algebra and the
 * formulas are sm_formulas.h's and sm_saf_step.h's; layouts as in
 * codelets/cpu/sm_kern.h. Every kernel strides over its groups (any
 * problem size runs on a capped grid), and sums each output over the
 * fields in order, so results do not depend on the launch geometry.
 *
 *   sm_czek2_d/_s   C[i,j] = sum_q min(A[i,q], B[j,q])
 *   sm_czek3_d/_s   out[(a mx + x) my + y] = sum_q min(P[a,q], X[x,q], Y[y,q])
 *   sm_ccc2_dense/_sparse, sm_ccc3_dense/_sparse   CCC moments (popcount)
 *   sm_i8_expand, sm_i8_gather (sm_i8_gemm under OpenCL)   CCC 2-way moments
 *                   as an int8 GEMM on cached int8 tiles
 *   sm_saf          exact SAF likelihoods of a block of sites
 *   sm_add_f64/_f32/_u32   C += B, the field-axis reductions of numerators
 *   sm_fin2_count_*, sm_fin2_emit_*   the 2-way finalize (values, checksum,
 *                   threshold, records) of CCC and Czekanowski blocks
 *
 * Czekanowski and CCC kernels are register blocked: a group stages a
 * K-wide slice of its rows in local memory (fields of the Czekanowski
 * rows; bit planes of the CCC code words, computed once per word), and
 * every thread computes an R x R block of outputs from it. */
#ifndef SM_DEV_KERNELS_H
#define SM_DEV_KERNELS_H

/* ---- Czekanowski min-plus products */
#define SM_DEV_CZ_LDS (SM_DEV_CZ_ROWS + 1) /* staged slice: s[q * LDS + row] */

/* One type T (suffix SFX): the staging of a slice, the block product and
 * the 2-way and 3-way kernels. */
/* Whether the rows0 x cols0 block at (r0, c0) of plane p of a 3-way task
 * (mx x my) holds a triple its piece keeps (kind, a0, x0, y0: sm_keep3_t,
 * as sm_keep3_first reads them): a row's first kept y does not decrease
 * with x, so the block's first row with a kept triple decides. The CPU
 * kernels skip the same triples (their numerators 0). */
SM_DEVFN int sm_dev_keep3_block(int kind, int ka0, int kx0, int ky0, int p, int r0,
                                int rows0, int c0, int cols0, int mx, int my)
{
  if (kind == 2)
    return 1;
  sm_i64 x = r0;
  if (kind == 0 && x < (sm_i64)ka0 + p + 1 - kx0) /* a < x */
    x = (sm_i64)ka0 + p + 1 - kx0;
  if (x >= r0 + rows0 || x >= mx)
    return 0;
  const sm_u64 ylo = sm_keep3_first(kind, (sm_u64)ka0 + (sm_u64)p,
                                    (sm_u64)kx0 + (sm_u64)x, (sm_u64)ky0, (sm_u64)my);
  return ylo < (sm_u64)(c0 + cols0 < my ? c0 + cols0 : my);
}

#define SM_DEV_CZEK(T, SFX, FMIN)                                                        \
  /* rows [r0, r0 + CZ_ROWS) of M, fields [q0, q0 + CZ_K) -> s[q][row], 0                \
   * outside the matrix; with_p: min with the plane vector's field too */                \
  SM_DEVFN void sm_dev_cz_stage_##SFX(SM_L T *s, SM_G const T *M, int ldm, int rows,     \
                                      int r0, int k, int q0, SM_G const T *P,            \
                                      int with_p)                                        \
  {                                                                                      \
    const int t = SM_LID(1) * SM_DEV_TX + SM_LID(0);                                     \
    for (int e = t; e < SM_DEV_CZ_ROWS * SM_DEV_CZ_K; e += SM_DEV_TX * SM_DEV_TY) {      \
      const int row = e / SM_DEV_CZ_K, dq = e % SM_DEV_CZ_K, q = q0 + dq;                \
      T v = (T)0;                                                                        \
      if (r0 + row < rows && q < k) {                                                    \
        v = M[(sm_i64)(r0 + row) * ldm + q];                                             \
        if (with_p)                                                                      \
          v = FMIN(P[q], v);                                                             \
      }                                                                                  \
      s[dq * SM_DEV_CZ_LDS + row] = v;                                                   \
    }                                                                                    \
  }                                                                                      \
                                                                                         \
  /* the (bi, bj) block of C = min-plus(A (optionally min P), B); mirror: also           \
   * its transpose (a diagonal block, B = A: (j, i) is (i, j)) */                        \
  SM_DEVFN void sm_dev_cz_block_##SFX(int m, int n, int k, SM_G const T *A, int lda,     \
                                      SM_G const T *P, int with_p, SM_G const T *B,      \
                                      int ldb, SM_G T *C, int ldc, int bi, int bj,       \
                                      int mirror, SM_L T *as, SM_L T *bs)                \
  {                                                                                      \
    const int tx = SM_LID(0), ty = SM_LID(1);                                            \
    T acc[SM_DEV_CZ_R][SM_DEV_CZ_R];                                                     \
    for (int r = 0; r < SM_DEV_CZ_R; r++)                                                \
      for (int c = 0; c < SM_DEV_CZ_R; c++)                                              \
        acc[r][c] = (T)0;                                                                \
    for (int q0 = 0; q0 < k; q0 += SM_DEV_CZ_K) {                                        \
      sm_dev_cz_stage_##SFX(as, A, lda, m, bi *SM_DEV_CZ_ROWS, k, q0, P, with_p);        \
      sm_dev_cz_stage_##SFX(bs, B, ldb, n, bj *SM_DEV_CZ_COLS, k, q0, P, 0);             \
      SM_BARRIER();                                                                      \
      for (int t = 0; t < SM_DEV_CZ_K; t++) {                                            \
        T a[SM_DEV_CZ_R], b[SM_DEV_CZ_R];                                                \
        for (int r = 0; r < SM_DEV_CZ_R; r++)                                            \
          a[r] = as[t * SM_DEV_CZ_LDS + ty + SM_DEV_TY * r];                             \
        for (int c = 0; c < SM_DEV_CZ_R; c++)                                            \
          b[c] = bs[t * SM_DEV_CZ_LDS + tx + SM_DEV_TX * c];                             \
        for (int r = 0; r < SM_DEV_CZ_R; r++)                                            \
          for (int c = 0; c < SM_DEV_CZ_R; c++)                                          \
            acc[r][c] += FMIN(a[r], b[c]);                                               \
      }                                                                                  \
      SM_BARRIER();                                                                      \
    }                                                                                    \
    for (int r = 0; r < SM_DEV_CZ_R; r++)                                                \
      for (int c = 0; c < SM_DEV_CZ_R; c++) {                                            \
        const int i = bi * SM_DEV_CZ_ROWS + ty + SM_DEV_TY * r;                          \
        const int j = bj * SM_DEV_CZ_COLS + tx + SM_DEV_TX * c;                          \
        if (i < m && j < n) {                                                            \
          C[(sm_i64)i * ldc + j] = acc[r][c];                                            \
          if (mirror)                                                                    \
            C[(sm_i64)j * ldc + i] = acc[r][c];                                          \
        }                                                                                \
      }                                                                                  \
  }                                                                                      \
                                                                                         \
  SM_DEV_KERNEL void sm_czek2_##SFX(int m, int n, int k, SM_G const T *A, int offa,      \
                                    int lda, SM_G const T *B, int offb, int ldb,         \
                                    SM_G T *C, int offc, int ldc)                        \
  {                                                                                      \
    SM_SHARED T as[SM_DEV_CZ_K * SM_DEV_CZ_LDS];                                         \
    SM_SHARED T bs[SM_DEV_CZ_K * SM_DEV_CZ_LDS];                                         \
    const int nbi = (m + SM_DEV_CZ_ROWS - 1) / SM_DEV_CZ_ROWS;                           \
    const int nbj = (n + SM_DEV_CZ_COLS - 1) / SM_DEV_CZ_COLS;                           \
    /* a diagonal block (B = A): the blocks above the diagonal also write                \
     * their mirror below, which is not computed (the CPU's syrk kernels) */             \
    const int same = A + offa == B + offb && m == n && lda == ldb;                       \
    for (int bi = SM_GRP(1); bi < nbi; bi += SM_NGRP(1))                                 \
      for (int bj = SM_GRP(0); bj < nbj; bj += SM_NGRP(0))                               \
        if (!same || bi <= bj)                                                           \
          sm_dev_cz_block_##SFX(m, n, k, A + offa, lda, A + offa, 0, B + offb, ldb,      \
                                C + offc, ldc, bi, bj, same && bi < bj, as, bs);         \
  }                                                                                      \
                                                                                         \
  SM_DEV_KERNEL void sm_czek3_##SFX(                                                     \
      int g, int mx, int my, int k, SM_G const T *P, int offp, int ldp, SM_G const T *X, \
      int offx, int ldx, SM_G const T *Y, int offy, int ldy, SM_G T *out, int offo,      \
      int kind, int ka0, int kx0, int ky0)                                               \
  {                                                                                      \
    SM_SHARED T as[SM_DEV_CZ_K * SM_DEV_CZ_LDS];                                         \
    SM_SHARED T bs[SM_DEV_CZ_K * SM_DEV_CZ_LDS];                                         \
    const int nbi = (mx + SM_DEV_CZ_ROWS - 1) / SM_DEV_CZ_ROWS;                          \
    const int nbj = (my + SM_DEV_CZ_COLS - 1) / SM_DEV_CZ_COLS;                          \
    for (int a = SM_GRP(2); a < g; a += SM_NGRP(2))                                      \
      for (int bi = SM_GRP(1); bi < nbi; bi += SM_NGRP(1))                               \
        for (int bj = SM_GRP(0); bj < nbj; bj += SM_NGRP(0)) {                           \
          SM_G T *o = out + offo + (sm_i64)a * mx * my;                                  \
          if (sm_dev_keep3_block(kind, ka0, kx0, ky0, a, bi * SM_DEV_CZ_ROWS,            \
                                 SM_DEV_CZ_ROWS, bj * SM_DEV_CZ_COLS, SM_DEV_CZ_COLS,    \
                                 mx, my))                                                \
            sm_dev_cz_block_##SFX(mx, my, k, X + offx, ldx, P + offp + (sm_i64)a * ldp,  \
                                  1, Y + offy, ldy, o, my, bi, bj, 0, as, bs);           \
          else /* nothing kept: zeros, as the CPU kernels leave */                       \
            for (int e = SM_LID(1) * SM_DEV_TX + SM_LID(0);                              \
                 e < SM_DEV_CZ_ROWS * SM_DEV_CZ_COLS; e += SM_DEV_TX * SM_DEV_TY) {      \
              const int x = bi * SM_DEV_CZ_ROWS + e / SM_DEV_CZ_COLS,                    \
                        y = bj * SM_DEV_CZ_COLS + e % SM_DEV_CZ_COLS;                    \
              if (x < mx && y < my)                                                      \
                o[(sm_i64)x * my + y] = (T)0;                                            \
            }                                                                            \
        }                                                                                \
  }

SM_DEV_CZEK(double, d, SM_FMIN_D)
SM_DEV_CZEK(float, s, SM_FMIN_F)

/* ---- CCC popcount products on bit planes (sm_formulas.h) */

/** Stage words [w0, w0 + CC_W) of rows [r0, r0 + nrows) of code matrix M
 * as bit planes: p1/p2/pm[w * nrows_max + row] (zero outside the matrix). */
SM_DEVFN void sm_dev_cc_stage(SM_L sm_u64 *p1, SM_L sm_u64 *p2, SM_L sm_u64 *pm,
                              int nrows_max, SM_G const sm_u64 *M, int ldm, int rows,
                              int r0, int nf, int w0, int sparse)
{
  const int t = SM_LID(1) * SM_DEV_TX + SM_LID(0);
  const int nw = (nf + 31) / 32;
  for (int e = t; e < nrows_max * SM_DEV_CC_W; e += SM_DEV_TX * SM_DEV_TY) {
    const int row = e / SM_DEV_CC_W, dw = e % SM_DEV_CC_W, w = w0 + dw;
    sm_u64 a1 = 0, a2 = 0, am = 0;
    if (r0 + row < rows && w < nw) {
      sm_u64 lo, hi, valid;
      sm_gt_bits(M[(sm_i64)(r0 + row) * ldm + w], (sm_u64)(nf - 32 * (sm_i64)w), &lo, &hi,
                 &valid);
      sm_gt_planes(lo, hi, valid, sparse, &a1, &a2, &am);
    }
    p1[dw * nrows_max + row] = a1;
    p2[dw * nrows_max + row] = a2;
    pm[dw * nrows_max + row] = am;
  }
}

/* 2-way moments, NMOM 1 (dense: rr) or 4 (sparse: rr, rm, mr, mm). */
#define SM_DEV_CCC2(NAME, SPARSE, NMOM)                                                  \
  SM_DEV_KERNEL void NAME(int m, int n, int nf, SM_G const sm_u64 *A, int offa, int lda, \
                          SM_G const sm_u64 *B, int offb, int ldb, SM_G sm_u32 *C,       \
                          int offc, int ldc)                                             \
  {                                                                                      \
    SM_SHARED sm_u64 a1[SM_DEV_CC_W * SM_DEV_C2_ROWS], a2[SM_DEV_CC_W * SM_DEV_C2_ROWS], \
        am[SM_DEV_CC_W * SM_DEV_C2_ROWS];                                                \
    SM_SHARED sm_u64 b1[SM_DEV_CC_W * SM_DEV_C2_COLS], b2[SM_DEV_CC_W * SM_DEV_C2_COLS], \
        bm[SM_DEV_CC_W * SM_DEV_C2_COLS];                                                \
    const int tx = SM_LID(0), ty = SM_LID(1), nw = (nf + 31) / 32;                       \
    const int nbi = (m + SM_DEV_C2_ROWS - 1) / SM_DEV_C2_ROWS;                           \
    const int nbj = (n + SM_DEV_C2_COLS - 1) / SM_DEV_C2_COLS;                           \
    /* a diagonal block (B = A): the blocks above the diagonal also write                \
     * their mirror below (rm and mr trade places), which is not computed                \
     * (the CPU's syrk kernels) */                                                       \
    const int same = A + offa == B + offb && m == n && lda == ldb;                       \
    for (int bi = SM_GRP(1); bi < nbi; bi += SM_NGRP(1))                                 \
      for (int bj = SM_GRP(0); bj < nbj; bj += SM_NGRP(0)) {                             \
        if (same && bi > bj)                                                             \
          continue; /* uniform in the group: no barrier is skipped by some */            \
        sm_u32 mom[SM_DEV_C2_R][SM_DEV_C2_R][4];                                         \
        for (int r = 0; r < SM_DEV_C2_R; r++)                                            \
          for (int c = 0; c < SM_DEV_C2_R; c++)                                          \
            for (int u = 0; u < 4; u++)                                                  \
              mom[r][c][u] = 0;                                                          \
        for (int w0 = 0; w0 < nw; w0 += SM_DEV_CC_W) {                                   \
          sm_dev_cc_stage(a1, a2, am, SM_DEV_C2_ROWS, A + offa, lda, m,                  \
                          bi * SM_DEV_C2_ROWS, nf, w0, SPARSE);                          \
          sm_dev_cc_stage(b1, b2, bm, SM_DEV_C2_COLS, B + offb, ldb, n,                  \
                          bj * SM_DEV_C2_COLS, nf, w0, SPARSE);                          \
          SM_BARRIER();                                                                  \
          for (int t = 0; t < SM_DEV_CC_W; t++) {                                        \
            sm_u64 x1[SM_DEV_C2_R], x2[SM_DEV_C2_R], xm[SM_DEV_C2_R];                    \
            for (int r = 0; r < SM_DEV_C2_R; r++) {                                      \
              const int s = t * SM_DEV_C2_ROWS + ty + SM_DEV_TY * r;                     \
              x1[r] = a1[s];                                                             \
              x2[r] = a2[s];                                                             \
              xm[r] = am[s];                                                             \
            }                                                                            \
            for (int c = 0; c < SM_DEV_C2_R; c++) {                                      \
              const int s = t * SM_DEV_C2_COLS + tx + SM_DEV_TX * c;                     \
              const sm_u64 y1 = b1[s], y2 = b2[s], ym = bm[s];                           \
              for (int r = 0; r < SM_DEV_C2_R; r++) {                                    \
                if (SPARSE)                                                              \
                  sm_ccc_moments_word(x1[r], x2[r], xm[r], y1, y2, ym, mom[r][c]);       \
                else                                                                     \
                  mom[r][c][0] += sm_ccc_rr_word(x1[r], x2[r], y1, y2);                  \
              }                                                                          \
            }                                                                            \
          }                                                                              \
          SM_BARRIER();                                                                  \
        }                                                                                \
        for (int r = 0; r < SM_DEV_C2_R; r++)                                            \
          for (int c = 0; c < SM_DEV_C2_R; c++) {                                        \
            const int i = bi * SM_DEV_C2_ROWS + ty + SM_DEV_TY * r;                      \
            const int j = bj * SM_DEV_C2_COLS + tx + SM_DEV_TX * c;                      \
            if (i < m && j < n)                                                          \
              for (int u = 0; u < NMOM; u++) {                                           \
                C[offc + ((sm_i64)i * ldc + j) * NMOM + u] = mom[r][c][u];               \
                if (same && bi < bj) {                                                   \
                  const int um = u == 1 ? 2 : u == 2 ? 1 : u;                            \
                  C[offc + ((sm_i64)j * ldc + i) * NMOM + u] = mom[r][c][um];            \
                }                                                                        \
              }                                                                          \
          }                                                                              \
      }                                                                                  \
  }

SM_DEV_CCC2(sm_ccc2_dense, 0, 1)
SM_DEV_CCC2(sm_ccc2_sparse, 1, 4)

/* ---- CCC 2-way moments as an int8 GEMM (the papers' tensor-core method):
 * a tile's int8 form holds, for each of its `rows` vectors, the allele
 * counts r (row v) and, sparse, the presences m (row rows + v), kpad
 * bytes each (fields past nf are 0), then zero rows up to prows (a
 * multiple of 16, the shapes cuBLAS's int8 kernels want:
 * codelets/cuda/sm_i8_gemm.h). On CUDA cuBLAS multiplies them (G = R^T L,
 * int32, column-major as cublasGemmEx writes it); under OpenCL sm_i8_gemm
 * stands in for it, so that the expansion and the gather run here as they
 * run on a GPU. */
SM_DEV_KERNEL void sm_i8_expand(int rows, int prows, int nf, int kpad,
                                SM_G const sm_u64 *X, int offx, int ldx, int sparse,
                                SM_G sm_i8 *R, int offr, int ldr)
{
  for (int v = SM_GRP(1) * SM_DEV_TY + SM_LID(1); v < rows; v += SM_NGRP(1) * SM_DEV_TY)
    for (int q = SM_GRP(0) * SM_DEV_TX + SM_LID(0); q < kpad;
         q += SM_NGRP(0) * SM_DEV_TX) {
      sm_i8 r = 0, p = 0;
      if (q < nf) {
        const unsigned c =
            (unsigned)(X[offx + (sm_i64)v * ldx + q / 32] >> (2 * (q % 32))) & 3u;
        r = (sm_i8)sm_gt_r(c, sparse);
        p = (sm_i8)sm_gt_m(c, sparse);
      }
      R[offr + (sm_i64)v * ldr + q] = r;
      if (sparse)
        R[offr + (sm_i64)(rows + v) * ldr + q] = p;
    }
  /* the padding rows: zero (no product of theirs is gathered) */
  for (int v = (sparse ? 2 : 1) * rows + SM_GRP(1) * SM_DEV_TY + SM_LID(1); v < prows;
       v += SM_NGRP(1) * SM_DEV_TY)
    for (int q = SM_GRP(0) * SM_DEV_TX + SM_LID(0); q < kpad; q += SM_NGRP(0) * SM_DEV_TX)
      R[offr + (sm_i64)v * ldr + q] = 0;
}

/* G (ldg, column-major: G[j' + i' ldg]) -> the interleaved moments of
 * m x n vector pairs: moment k = rr, rm, mr, mm takes left block k / 2
 * (rows of r, then of m) and right block k % 2; the padding rows' and
 * columns' products are not read */
SM_DEV_KERNEL void sm_i8_gather(int m, int n, int sparse, SM_G const int *G, int offg,
                                int ldg, SM_G sm_u32 *C, int offc, int ldc)
{
  const int nmom = sparse ? 4 : 1;
  for (int i = SM_GRP(1) * SM_DEV_TY + SM_LID(1); i < m; i += SM_NGRP(1) * SM_DEV_TY)
    for (int j = SM_GRP(0) * SM_DEV_TX + SM_LID(0); j < n; j += SM_NGRP(0) * SM_DEV_TX)
      for (int k = 0; k < nmom; k++) {
        const sm_i64 li = (sm_i64)(k / 2) * m + i, rj = (sm_i64)(k % 2) * n + j;
        C[offc + ((sm_i64)i * ldc + j) * nmom + k] = (sm_u32)G[offg + rj + li * ldg];
      }
}

#if defined(__OPENCL_VERSION__)
/* G[j' + i' ldg] = sum_q R[j', q] L[i', q] for rn x lm rows of kpad bytes:
 * what cublasGemmEx computes on CUDA (plain loops: a stand-in for tests) */
SM_DEV_KERNEL void sm_i8_gemm(int lm, int rn, int kpad, SM_G const sm_i8 *L, int offl,
                              int ldl, SM_G const sm_i8 *R, int offr, int ldr,
                              SM_G int *G, int ldg)
{
  for (int i = SM_GRP(1) * SM_DEV_TY + SM_LID(1); i < lm; i += SM_NGRP(1) * SM_DEV_TY)
    for (int j = SM_GRP(0) * SM_DEV_TX + SM_LID(0); j < rn; j += SM_NGRP(0) * SM_DEV_TX) {
      int s = 0;
      for (int q = 0; q < kpad; q++)
        s += (int)L[offl + (sm_i64)i * ldl + q] * (int)R[offr + (sm_i64)j * ldr + q];
      G[j + (sm_i64)i * ldg] = s;
    }
}
#endif

/* 3-way plane moments (sm_ccc3_word's layout): NMOM 2 (dense: rr over E1,
 * E2) or 12 (sparse: rr rm mr mm over E0, E1, E2); the parts of the plane
 * vector's words are staged with the planes of X and Y. */
#define SM_DEV_CCC3(NAME, SPARSE, NMOM)                                                  \
  SM_DEV_KERNEL void NAME(int g, int mx, int my, int nf, SM_G const sm_u64 *P, int offp, \
                          int ldp, SM_G const sm_u64 *X, int offx, int ldx,              \
                          SM_G const sm_u64 *Y, int offy, int ldy, SM_G sm_u32 *out,     \
                          int offo, int kind, int ka0, int kx0, int ky0)                 \
  {                                                                                      \
    SM_SHARED sm_u64 x1s[SM_DEV_CC_W * SM_DEV_C3_ROWS],                                  \
        x2s[SM_DEV_CC_W * SM_DEV_C3_ROWS], xms[SM_DEV_CC_W * SM_DEV_C3_ROWS];            \
    SM_SHARED sm_u64 y1s[SM_DEV_CC_W * SM_DEV_C3_COLS],                                  \
        y2s[SM_DEV_CC_W * SM_DEV_C3_COLS], yms[SM_DEV_CC_W * SM_DEV_C3_COLS];            \
    SM_SHARED sm_u64 parts[SM_DEV_CC_W * 3];                                             \
    const int tx = SM_LID(0), ty = SM_LID(1), nw = (nf + 31) / 32;                       \
    const int lin = ty * SM_DEV_TX + tx;                                                 \
    const int nbi = (mx + SM_DEV_C3_ROWS - 1) / SM_DEV_C3_ROWS;                          \
    const int nbj = (my + SM_DEV_C3_COLS - 1) / SM_DEV_C3_COLS;                          \
    for (int a = SM_GRP(2); a < g; a += SM_NGRP(2))                                      \
      for (int bi = SM_GRP(1); bi < nbi; bi += SM_NGRP(1))                               \
        for (int bj = SM_GRP(0); bj < nbj; bj += SM_NGRP(0)) {                           \
          if (!sm_dev_keep3_block(kind, ka0, kx0, ky0, a, bi * SM_DEV_C3_ROWS,           \
                                  SM_DEV_C3_ROWS, bj * SM_DEV_C3_COLS, SM_DEV_C3_COLS,   \
                                  mx, my)) {                                             \
            /* nothing kept: zeros, as the CPU kernels leave (uniform in                 \
             * the group: no barrier is skipped by some) */                              \
            for (int e = lin; e < SM_DEV_C3_ROWS * SM_DEV_C3_COLS * NMOM;                \
                 e += SM_DEV_TX * SM_DEV_TY) {                                           \
              const int x = bi * SM_DEV_C3_ROWS + e / (SM_DEV_C3_COLS * NMOM),           \
                        y = bj * SM_DEV_C3_COLS + e / NMOM % SM_DEV_C3_COLS;             \
              if (x < mx && y < my)                                                      \
                out[offo + (((sm_i64)a * mx + x) * my + y) * NMOM + e % NMOM] = 0;       \
            }                                                                            \
            continue;                                                                    \
          }                                                                              \
          SM_G const sm_u64 *p = P + offp + (sm_i64)a * ldp;                             \
          sm_u32 mom[SM_DEV_C3_R][SM_DEV_C3_R][NMOM];                                    \
          for (int r = 0; r < SM_DEV_C3_R; r++)                                          \
            for (int c = 0; c < SM_DEV_C3_R; c++)                                        \
              for (int u = 0; u < NMOM; u++)                                             \
                mom[r][c][u] = 0;                                                        \
          for (int w0 = 0; w0 < nw; w0 += SM_DEV_CC_W) {                                 \
            sm_dev_cc_stage(x1s, x2s, xms, SM_DEV_C3_ROWS, X + offx, ldx, mx,            \
                            bi * SM_DEV_C3_ROWS, nf, w0, SPARSE);                        \
            sm_dev_cc_stage(y1s, y2s, yms, SM_DEV_C3_COLS, Y + offy, ldy, my,            \
                            bj * SM_DEV_C3_COLS, nf, w0, SPARSE);                        \
            if (lin < SM_DEV_CC_W) {                                                     \
              const int w = w0 + lin;                                                    \
              sm_u64 pt[3] = {0, 0, 0};                                                  \
              if (w < nw) {                                                              \
                sm_u64 lo, hi, valid;                                                    \
                sm_gt_bits(p[w], (sm_u64)(nf - 32 * (sm_i64)w), &lo, &hi, &valid);       \
                sm_ccc3_parts(lo, hi, valid, SPARSE, pt);                                \
              }                                                                          \
              for (int e = 0; e < 3; e++)                                                \
                parts[lin * 3 + e] = pt[e];                                              \
            }                                                                            \
            SM_BARRIER();                                                                \
            for (int t = 0; t < SM_DEV_CC_W; t++) {                                      \
              sm_u64 x1[SM_DEV_C3_R], x2[SM_DEV_C3_R], xm[SM_DEV_C3_R];                  \
              for (int r = 0; r < SM_DEV_C3_R; r++) {                                    \
                const int s = t * SM_DEV_C3_ROWS + ty + SM_DEV_TY * r;                   \
                x1[r] = x1s[s];                                                          \
                x2[r] = x2s[s];                                                          \
                xm[r] = xms[s];                                                          \
              }                                                                          \
              for (int c = 0; c < SM_DEV_C3_R; c++) {                                    \
                const int s = t * SM_DEV_C3_COLS + tx + SM_DEV_TX * c;                   \
                const sm_u64 y1 = y1s[s], y2 = y2s[s], ym = yms[s];                      \
                for (int e = 0; e < (SPARSE ? 3 : 2); e++) {                             \
                  const sm_u64 E = parts[t * 3 + e];                                     \
                  for (int r = 0; r < SM_DEV_C3_R; r++) {                                \
                    if (SPARSE)                                                          \
                      sm_ccc_moments_word(x1[r] & E, x2[r] & E, xm[r] & E, y1, y2, ym,   \
                                          mom[r][c] + 4 * e);                            \
                    else                                                                 \
                      mom[r][c][e] += sm_ccc_rr_word(x1[r] & E, x2[r] & E, y1, y2);      \
                  }                                                                      \
                }                                                                        \
              }                                                                          \
            }                                                                            \
            SM_BARRIER();                                                                \
          }                                                                              \
          for (int r = 0; r < SM_DEV_C3_R; r++)                                          \
            for (int c = 0; c < SM_DEV_C3_R; c++) {                                      \
              const int x = bi * SM_DEV_C3_ROWS + ty + SM_DEV_TY * r;                    \
              const int y = bj * SM_DEV_C3_COLS + tx + SM_DEV_TX * c;                    \
              if (x < mx && y < my)                                                      \
                for (int u = 0; u < NMOM; u++)                                           \
                  out[offo + (((sm_i64)a * mx + x) * my + y) * NMOM + u] = mom[r][c][u]; \
            }                                                                            \
        }                                                                                \
  }

SM_DEV_CCC3(sm_ccc3_dense, 0, 2)
SM_DEV_CCC3(sm_ccc3_sparse, 1, 12)

/* ---- SAF: one group per site runs the iterative update of kern_saf_ref.c
 * (sm_saf_step.h) in its output row: each step computes the bins from the
 * top down in chunks of the group's size (bin j needs bins j, j-1, j-2 of
 * the previous row only, so a chunk reads, then overwrites), then shifts
 * the row to a maximum of 0. info: 4 words per site (sm_saf_site_t). */
SM_DEV_KERNEL void sm_saf(int nsites, int nind, SM_G const double *gl, int offg, int ldgl,
                          SM_G double *out, int offo, int ldout, SM_G sm_u32 *info,
                          int offi)
{
  SM_SHARED double red[SM_DEV_SAF_THREADS];
  const int tid = SM_LID(0), nbins = 2 * nind + 1;
  for (int s = SM_GRP(0); s < nsites; s += SM_NGRP(0)) {
    SM_G const double *p = gl + offg + (sm_i64)s * ldgl;
    SM_G double *row = out + offo + (sm_i64)s * ldout;
    int ndata = 0;
    if (tid == 0)
      row[0] = 0.0;
    SM_BARRIER_G();
    for (int i = 0; i < nind; i++) {
      double q[3], lp[3];
      for (int g = 0; g < 3; g++)
        q[g] = p[3 * (sm_i64)i + g];
      ndata += sm_saf_gl_logs(q, lp);
      const int n = 2 * (i + 1);
      double vmax = -INFINITY;
      for (int top = n; top >= 0; top -= SM_DEV_SAF_THREADS) {
        const int j = top - tid;
        double v = -INFINITY;
        if (j >= 0) {
          /* the previous row has bins 0 .. n - 2 */
          const double u0 = j <= n - 2 ? row[j] : -INFINITY;
          const double u1 = j >= 1 && j <= n - 1 ? row[j - 1] : -INFINITY;
          const double u2 = j >= 2 ? row[j - 2] : -INFINITY;
          v = sm_saf_bin3(u0, u1, u2, lp, n, j);
        }
        SM_BARRIER_G(); /* the chunk's reads before its writes */
        if (j >= 0) {
          row[j] = v;
          vmax = vmax > v ? vmax : v;
        }
      }
      /* group-wide maximum */
      red[tid] = vmax;
      SM_BARRIER();
      for (int h = SM_DEV_SAF_THREADS / 2; h > 0; h /= 2) {
        if (tid < h)
          red[tid] = red[tid] > red[tid + h] ? red[tid] : red[tid + h];
        SM_BARRIER();
      }
      vmax = red[0];
      SM_BARRIER_G();
      for (int j = tid; j <= n; j += SM_DEV_SAF_THREADS)
        row[j] -= vmax;
      SM_BARRIER_G();
    }
    if (tid == 0) {
      int lo = nbins, hi = -1;
      for (int j = 0; j < nbins; j++)
        if (ndata == 0)
          row[j] = -INFINITY;
        else if (row[j] != -INFINITY) {
          lo = j < lo ? j : lo;
          hi = j;
        }
      SM_G sm_u32 *in = info + offi + 4 * (sm_i64)s;
      in[0] = ndata ? (sm_u32)lo : 0;
      in[1] = ndata ? (sm_u32)hi : 0;
      in[2] = (sm_u32)ndata;
      in[3] = 0;
    }
    SM_BARRIER_G();
  }
}

/* ---- field-axis reductions: C += B on ny rows of nx elements (each
 * element one addition, as on the CPU: the same bits) */
#define SM_DEV_ADD(T, SFX)                                                               \
  SM_DEV_KERNEL void sm_add_##SFX(int nx, int ny, SM_G T *C, int offc, int ldc,          \
                                  SM_G const T *B, int offb, int ldb)                    \
  {                                                                                      \
    for (int y = SM_GRP(1) * SM_DEV_TY + SM_LID(1); y < ny; y += SM_NGRP(1) * SM_DEV_TY) \
      for (int x = SM_GRP(0) * SM_DEV_TX + SM_LID(0); x < nx;                            \
           x += SM_NGRP(0) * SM_DEV_TX)                                                  \
        C[offc + (sm_i64)y * ldc + x] += B[offb + (sm_i64)y * ldb + x];                  \
  }

SM_DEV_ADD(double, f64)
SM_DEV_ADD(float, f32)
SM_DEV_ADD(sm_u32, u32)

/* ---- the 2-way finalize (codelets/cpu/kern_finalize2.c's values,
 * checksum terms, threshold and records; blocks with a histogram, top-k
 * or per-entry thresholds stay on CPUs). sm_fin2_count_* gives each row's
 * kept values and each group's checksum sums (lo, uhi, neg, hash as in
 * sm_fin_ck_terms); the host turns the counts into the rows' first record
 * and writes the block's header; sm_fin2_emit_* writes the records in the
 * CPU's order (row, column, entry). One group of SM_DEV_SAF_THREADS per
 * row, groups striding over the rows. */

/* a record, as sm_rec_t (src/common/sm_types.h): 24 bytes */
typedef struct sm_dev_rec {
  sm_u32 idx[3];
  sm_u32 entry;
  double value;
} sm_dev_rec_t;

SM_DEVFN sm_u32 sm_dev_swap_entry(sm_u32 e)
{
  return ((e & 1u) << 1) | (e >> 1);
}

/* sm_threshold_keep_dis under the flags */
SM_DEVFN int sm_dev_keep(int flags, double thr, double v)
{
  if (!(flags & SM_FIN_EMIT))
    return 0;
  if (flags & SM_FIN_KEEPALL)
    return 1;
  const double x = (flags & SM_FIN_THRF32) ? (double)(float)v : v;
  if (flags & (SM_FIN_BC | SM_FIN_JACCARD))
    return !(thr >= 0) || x <= thr;
  return !(thr >= 0) || x > thr;
}

/* The value's form (sm_f_minsum2) under the flags. */
SM_DEVFN int sm_dev_form(int flags)
{
  return (flags & SM_FIN_BC)        ? SM_FORM_BC
         : (flags & SM_FIN_JACCARD) ? SM_FORM_JACCARD
                                    : SM_FORM_PS;
}

/* The checksum terms of value v, entry e of the result of key, into the
 * thread's sums ck = {lo, unsigned high halves, negatives, hash}
 * (sm_fin_ck_terms' on the CPU). */
SM_DEVFN void sm_dev_ck_term(sm_u64 *ck, double v, sm_u64 key, sm_u32 e)
{
  const sm_u64 q = (sm_u64)sm_cksum_q(v);
  ck[0] += q & (sm_u64)0xffffffffUL;
  ck[1] += q >> 32;
  ck[2] += q >> 63;
  ck[3] += q * ((key + (sm_u64)e * SM_CKSUM_ENTRY_STEP) | (sm_u64)1);
}

/* What the two finalize passes do in a group of SM_DEV_SAF_THREADS
 * threads (every thread calls them; red and scan in local memory): the
 * group's sum of v (returned to every thread); the group's checksum sums
 * and its kept values (the sum of its rows' counts, which every thread
 * has) into part[SM_FIN_PART_WORDS g ..]; the exclusive scan of cnt
 * (*total: the group's sum). */
SM_DEVFN sm_u64 sm_dev_group_sum(SM_L sm_u64 *red, int tid, sm_u64 v)
{
  red[tid] = v;
  SM_BARRIER();
  for (int h = SM_DEV_SAF_THREADS / 2; h > 0; h >>= 1) {
    if (tid < h)
      red[tid] += red[tid + h];
    SM_BARRIER();
  }
  const sm_u64 sum = red[0];
  SM_BARRIER(); /* red[0] is read above before a next call writes red */
  return sum;
}
SM_DEVFN void sm_dev_group_cksum(SM_L sm_u64 *red, int tid, const sm_u64 *ck, sm_u64 kept,
                                 SM_G sm_u64 *part)
{
  SM_G sm_u64 *mine = part + SM_FIN_PART_WORDS * (sm_i64)SM_GRP(0);
  for (int k = 0; k < 4; k++) {
    const sm_u64 sum = sm_dev_group_sum(red, tid, ck[k]);
    if (tid == 0)
      mine[k] = sum;
  }
  if (tid == 0)
    mine[4] = kept;
}
SM_DEVFN sm_u32 sm_dev_group_scan(SM_L sm_u32 *scan, int tid, sm_u32 cnt, sm_u32 *total)
{
  scan[tid] = cnt; /* inclusive scan */
  SM_BARRIER();
  for (int d = 1; d < SM_DEV_SAF_THREADS; d <<= 1) {
    const sm_u32 z = tid >= d ? scan[tid - d] : 0;
    SM_BARRIER();
    scan[tid] += z;
    SM_BARRIER();
  }
  const sm_u32 before = scan[tid] - cnt;
  *total = scan[SM_DEV_SAF_THREADS - 1];
  SM_BARRIER(); /* scan[] is read above before a next call writes it */
  return before;
}

/* The groups' sums of a finalize's count pass added up on the device, so
 * that 40 bytes cross to the host whatever the groups: one group of
 * SM_DEV_SAF_THREADS threads; part[SM_FIN_PART_WORDS groups ..] (the slot
 * after the groups') gets the sums of the groups' words (unsigned, modulo
 * 2^64: any order gives the same). */
SM_DEV_KERNEL void sm_fin_parts(int groups, SM_G sm_u64 *part)
{
  SM_SHARED sm_u64 red[SM_DEV_SAF_THREADS];
  const int tid = SM_LID(0);
  for (int k = 0; k < SM_FIN_PART_WORDS; k++) {
    sm_u64 acc = 0;
    for (int g = tid; g < groups; g += SM_DEV_SAF_THREADS)
      acc += part[SM_FIN_PART_WORDS * (sm_i64)g + k];
    const sm_u64 sum = sm_dev_group_sum(red, tid, acc);
    if (tid == 0)
      part[SM_FIN_PART_WORDS * (sm_i64)groups + k] = sum;
  }
}

/* The values of pair (i, j) of a block (kern_finalize2.c's ccc_chunk and
 * czek_chunk); returns how many (4 CCC, 1 Czekanowski). */
SM_DEVFN int sm_dev_fin2_vals_ccc(SM_G const sm_u32 *num, int ldn, SM_G const sm_u32 *si,
                                  SM_G const sm_u32 *sj, int i, int j, int flags,
                                  double nf, double mult, double param, double *v)
{
  const int sparse = flags & SM_FIN_SPARSE;
  const double s1i = (double)si[2 * i], ci = (double)si[2 * i + 1];
  const double s1j = (double)sj[2 * j], cj = (double)sj[2 * j + 1];
  double t[4];
  if (sparse) {
    SM_G const sm_u32 *mo = num + ((sm_i64)i * ldn + j) * 4;
    sm_ccc2_tally_d((double)mo[0], (double)mo[1], (double)mo[2], (double)mo[3], t);
  } else
    sm_ccc2_tally_d((double)num[(sm_i64)i * ldn + j], s1i, s1j, nf, t);
  sm_ccc2_values_d(t, s1i, s1j, ci, cj, nf, !sparse, mult, param, v);
  return 4;
}
#define SM_DEV_FIN2_CZEK(T, SFX)                                                         \
  SM_DEVFN int sm_dev_fin2_vals_##SFX(SM_G const T *num, int ldn, SM_G const T *si,      \
                                      SM_G const T *sj, int i, int j, int flags,         \
                                      double nf, double mult, double param, double *v)   \
  {                                                                                      \
    v[0] = sm_f_minsum2(sm_dev_form(flags), (flags & SM_FIN_ZNAN) != 0,                  \
                        (double)num[(sm_i64)i * ldn + j], (double)si[i], (double)sj[j]); \
    return 1;                                                                            \
  }
SM_DEV_FIN2_CZEK(double, czek_d)
SM_DEV_FIN2_CZEK(float, czek_s)

/* The two kernels of one family: numerators of type T, sums of type TS. */
#define SM_DEV_FIN2(T, TS, SFX)                                                          \
  SM_DEV_KERNEL void sm_fin2_count_##SFX(                                                \
      int m, int n, int i0, int j0, int flags, int nfi, double mult, double param,       \
      double thr, SM_G const T *num, int offn, int ldn, SM_G const TS *si, int offsi,    \
      SM_G const TS *sj, int offsj, SM_G sm_u32 *rowcnt, SM_G sm_u64 *part)              \
  {                                                                                      \
    SM_SHARED sm_u64 red[SM_DEV_SAF_THREADS];                                            \
    const int tid = SM_LID(0), sw = flags & SM_FIN_SWAP;                                 \
    const double nf = (double)nfi;                                                       \
    sm_u64 ck[4] = {0, 0, 0, 0}, gkept = 0;                                              \
    for (int i = SM_GRP(0); i < m; i += SM_NGRP(0)) {                                    \
      sm_u64 kept = 0;                                                                   \
      const int jst = (flags & SM_FIN_DIAG) ? i + 1 : 0;                                 \
      for (int j = jst + tid; j < n; j += SM_DEV_SAF_THREADS) {                          \
        double v[4];                                                                     \
        const int ne = sm_dev_fin2_vals_##SFX(num + offn, ldn, si + offsi, sj + offsj,   \
                                              i, j, flags, nf, mult, param, v);          \
        const sm_u64 gi = (sm_u64)i0 + (sm_u64)i, gj = (sm_u64)j0 + (sm_u64)j;           \
        const sm_u64 key = sm_cksum_key2(sw ? gj : gi, sw ? gi : gj);                    \
        for (int e = 0; e < ne; e++) {                                                   \
          const sm_u32 ew = sw ? sm_dev_swap_entry((sm_u32)e) : (sm_u32)e;               \
          sm_dev_ck_term(ck, v[e], key, ew);                                             \
          kept += (sm_u64)sm_dev_keep(flags, thr, v[e]);                                 \
        }                                                                                \
      }                                                                                  \
      const sm_u64 rowsum = sm_dev_group_sum(red, tid, kept);                            \
      if (tid == 0)                                                                      \
        rowcnt[i] = (sm_u32)rowsum;                                                      \
      gkept += rowsum;                                                                   \
    }                                                                                    \
    sm_dev_group_cksum(red, tid, ck, gkept, part);                                       \
  }                                                                                      \
                                                                                         \
  SM_DEV_KERNEL void sm_fin2_emit_##SFX(                                                 \
      int m, int n, int i0, int j0, int flags, int nfi, double mult, double param,       \
      double thr, SM_G const T *num, int offn, int ldn, SM_G const TS *si, int offsi,    \
      SM_G const TS *sj, int offsj, SM_G const sm_u64 *rowoff, SM_G unsigned char *recb, \
      int offr)                                                                          \
  {                                                                                      \
    SM_SHARED sm_u32 scan[SM_DEV_SAF_THREADS];                                           \
    const int tid = SM_LID(0), sw = flags & SM_FIN_SWAP;                                 \
    const double nf = (double)nfi;                                                       \
    SM_G sm_dev_rec_t *rec = (SM_G sm_dev_rec_t *)(recb + offr);                         \
    for (int i = SM_GRP(0); i < m; i += SM_NGRP(0)) {                                    \
      sm_u64 base = rowoff[i];                                                           \
      const int jst = (flags & SM_FIN_DIAG) ? i + 1 : 0;                                 \
      for (int jb = jst; jb < n; jb += SM_DEV_SAF_THREADS) {                             \
        const int j = jb + tid;                                                          \
        double v[4];                                                                     \
        int ne = 0;                                                                      \
        sm_u32 mask = 0, cnt = 0;                                                        \
        if (j < n) {                                                                     \
          ne = sm_dev_fin2_vals_##SFX(num + offn, ldn, si + offsi, sj + offsj, i, j,     \
                                      flags, nf, mult, param, v);                        \
          for (int e = 0; e < ne; e++)                                                   \
            if (sm_dev_keep(flags, thr, v[e])) {                                         \
              mask |= 1u << e;                                                           \
              cnt++;                                                                     \
            }                                                                            \
        }                                                                                \
        sm_u32 total;                                                                    \
        sm_u64 o = base + sm_dev_group_scan(scan, tid, cnt, &total);                     \
        if (cnt) {                                                                       \
          const sm_u32 gi = (sm_u32)(i0 + i), gj = (sm_u32)(j0 + j);                     \
          for (int e = 0; e < ne; e++)                                                   \
            if ((mask >> e) & 1u) {                                                      \
              rec[o].idx[0] = sw ? gj : gi;                                              \
              rec[o].idx[1] = sw ? gi : gj;                                              \
              rec[o].idx[2] = 0;                                                         \
              rec[o].entry = sw ? sm_dev_swap_entry((sm_u32)e) : (sm_u32)e;              \
              rec[o].value = v[e];                                                       \
              o++;                                                                       \
            }                                                                            \
        }                                                                                \
        base += total;                                                                   \
      }                                                                                  \
    }                                                                                    \
  }

SM_DEV_FIN2(sm_u32, sm_u32, ccc)
SM_DEV_FIN2(double, double, czek_d)
SM_DEV_FIN2(float, float, czek_s)

/* ---- the 3-way finalize (codelets/cpu/kern_finalize3.c's values,
 * checksum terms, threshold and records), in the 2-way finalize's two
 * passes: rows are the (plane p, x) pairs of the piece, p mx + x, and a
 * row's columns the y it keeps (sm_keep3_first); records in the CPU's
 * order (p, x, y, entry), indices ascending. Pieces with a histogram or
 * per-entry thresholds stay on CPUs. */

/* the fixed arguments of both passes */
#define SM_DEV_FIN3_ARGS(T, TS)                                                          \
  int g, int mx, int my, int a_glob, int a_off, int x0, int y0, int kind, int flags,     \
      int nfi, double mult, double param, double thr, SM_G const T *num3, int off3,      \
      int ld3, SM_G const T *nax, int offax, int ldax, SM_G const T *nay, int offay,     \
      int lday, SM_G const T *nxy, int offxy, int ldxy, SM_G const TS *sa, int offsa,    \
      SM_G const TS *sx, int offsx, SM_G const TS *sy, int offsy
#define SM_DEV_FIN3_PASS                                                                 \
  mx, my, a_off, x0, y0, flags, nfi, mult, param, num3 + off3, ld3, nax + offax, ldax,   \
      nay + offay, lday, nxy + offxy, ldxy, sa + offsa, sx + offsx, sy + offsy

/* The values of triple (p, x, y) in the order of their entries (labels of
 * the ascending indices) and the ascending indices gs[3]; returns how many
 * (8 CCC, 1 Czekanowski). */
SM_DEVFN int sm_dev_fin3_vals_ccc(int p, int x, int y, int gp, int mx, int my, int a_off,
                                  int x0, int y0, int flags, int nfi, double mult,
                                  double param, SM_G const sm_u32 *num3, int ld3,
                                  SM_G const sm_u32 *nax, int ldax,
                                  SM_G const sm_u32 *nay, int lday,
                                  SM_G const sm_u32 *nxy, int ldxy, SM_G const sm_u32 *sa,
                                  SM_G const sm_u32 *sx, SM_G const sm_u32 *sy, double *v,
                                  sm_u32 *gs)
{
  const int sparse = (flags & SM_FIN_SPARSE) != 0, ra = a_off + p;
  const sm_u64 nf = (sm_u64)nfi;
  const sm_u64 s1p = sa[2 * ra], cp = sa[2 * ra + 1], s1x = sx[2 * x], cx = sx[2 * x + 1];
  const sm_u64 s1y = sy[2 * y], cy = sy[2 * y + 1];
  SM_G const sm_u32 *m = num3 + (sm_i64)p * ld3 * (sparse ? 12 : 2) +
                         ((sm_i64)x * my + y) * (sparse ? 12 : 2);
  sm_s64 t[8];
  if (sparse) {
    sm_u32 mm[12];
    for (int k = 0; k < 12; k++)
      mm[k] = m[k];
    sm_ccc3_moments_sparse(mm, t);
  } else {
    t[0] = (sm_s64)nf, t[1] = (sm_s64)s1y, t[2] = (sm_s64)s1x;
    t[3] = nxy[(sm_i64)x * ldxy + y];
    t[4] = (sm_s64)s1p, t[5] = nay[(sm_i64)ra * lday + y];
    t[6] = nax[(sm_i64)ra * ldax + x];
    t[7] = (sm_s64)m[0] + 2 * (sm_s64)m[1];
  }
  sm_ccc3_tallies(t);
  sm_u64 tu[8], s1[3] = {s1p, s1x, s1y}, c[3] = {cp, cx, cy};
  for (int u = 0; u < 8; u++)
    tu[u] = (sm_u64)t[u];
  double w[8];
  sm_ccc3_values(tu, s1, c, nf, !sparse, mult, param, w);
  int ord[3];
  const sm_u32 g3[3] = {(sm_u32)gp, (sm_u32)(x0 + x), (sm_u32)(y0 + y)};
  sm_order3(g3[0], g3[1], g3[2], ord);
  for (int k = 0; k < 3; k++)
    gs[k] = g3[ord[k]];
  for (int u = 0; u < 8; u++)
    v[sm_label3(u, ord)] = w[u];
  return 8;
}
#define SM_DEV_FIN3_CZEK(T, SFX)                                                         \
  SM_DEVFN int sm_dev_fin3_vals_##SFX(                                                   \
      int p, int x, int y, int gp, int mx, int my, int a_off, int x0, int y0, int flags, \
      int nfi, double mult, double param, SM_G const T *num3, int ld3,                   \
      SM_G const T *nax, int ldax, SM_G const T *nay, int lday, SM_G const T *nxy,       \
      int ldxy, SM_G const T *sa, SM_G const T *sx, SM_G const T *sy, double *v,         \
      sm_u32 *gs)                                                                        \
  {                                                                                      \
    const int ra = a_off + p;                                                            \
    v[0] = sm_f_czek3((double)nax[(sm_i64)ra * ldax + x],                                \
                      (double)nay[(sm_i64)ra * lday + y],                                \
                      (double)nxy[(sm_i64)x * ldxy + y],                                 \
                      (double)num3[(sm_i64)p * ld3 + (sm_i64)x * my + y],                \
                      (double)sa[ra], (double)sx[x], (double)sy[y]);                     \
    int ord[3];                                                                          \
    const sm_u32 g3[3] = {(sm_u32)gp, (sm_u32)(x0 + x), (sm_u32)(y0 + y)};               \
    sm_order3(g3[0], g3[1], g3[2], ord);                                                 \
    for (int k = 0; k < 3; k++)                                                          \
      gs[k] = g3[ord[k]];                                                                \
    return 1;                                                                            \
  }
SM_DEV_FIN3_CZEK(double, czek_d)
SM_DEV_FIN3_CZEK(float, czek_s)

/* The two kernels of one family: numerators of type T, sums of type TS. */
#define SM_DEV_FIN3(T, TS, SFX)                                                          \
  SM_DEV_KERNEL void sm_fin3_count_##SFX(SM_DEV_FIN3_ARGS(T, TS), SM_G sm_u32 *rowcnt,   \
                                         SM_G sm_u64 *part)                              \
  {                                                                                      \
    SM_SHARED sm_u64 red[SM_DEV_SAF_THREADS];                                            \
    const int tid = SM_LID(0);                                                           \
    sm_u64 ck[4] = {0, 0, 0, 0}, gkept = 0;                                              \
    for (int row = SM_GRP(0); row < g * mx; row += SM_NGRP(0)) {                         \
      const int p = row / mx, x = row % mx, gp = a_glob + p;                             \
      const int ylo = (int)sm_keep3_first(kind, (sm_u64)gp, (sm_u64)(x0 + x),            \
                                          (sm_u64)y0, (sm_u64)my);                       \
      sm_u64 kept = 0;                                                                   \
      for (int y = ylo + tid; y < my; y += SM_DEV_SAF_THREADS) {                         \
        double v[8];                                                                     \
        sm_u32 gs[3];                                                                    \
        const int ne = sm_dev_fin3_vals_##SFX(p, x, y, gp, SM_DEV_FIN3_PASS, v, gs);     \
        const sm_u64 key = sm_cksum_key3(gs[0], gs[1], gs[2]);                           \
        for (int e = 0; e < ne; e++) {                                                   \
          sm_dev_ck_term(ck, v[e], key, (sm_u32)e);                                      \
          kept += (sm_u64)sm_dev_keep(flags, thr, v[e]);                                 \
        }                                                                                \
      }                                                                                  \
      const sm_u64 rowsum = sm_dev_group_sum(red, tid, kept);                            \
      if (tid == 0)                                                                      \
        rowcnt[row] = (sm_u32)rowsum;                                                    \
      gkept += rowsum;                                                                   \
    }                                                                                    \
    sm_dev_group_cksum(red, tid, ck, gkept, part);                                       \
  }                                                                                      \
                                                                                         \
  SM_DEV_KERNEL void sm_fin3_emit_##SFX(SM_DEV_FIN3_ARGS(T, TS),                         \
                                        SM_G const sm_u64 *rowoff,                       \
                                        SM_G unsigned char *recb, int offr)              \
  {                                                                                      \
    SM_SHARED sm_u32 scan[SM_DEV_SAF_THREADS];                                           \
    const int tid = SM_LID(0);                                                           \
    SM_G sm_dev_rec_t *rec = (SM_G sm_dev_rec_t *)(recb + offr);                         \
    for (int row = SM_GRP(0); row < g * mx; row += SM_NGRP(0)) {                         \
      const int p = row / mx, x = row % mx, gp = a_glob + p;                             \
      const int ylo = (int)sm_keep3_first(kind, (sm_u64)gp, (sm_u64)(x0 + x),            \
                                          (sm_u64)y0, (sm_u64)my);                       \
      sm_u64 base = rowoff[row];                                                         \
      for (int yb = ylo; yb < my; yb += SM_DEV_SAF_THREADS) {                            \
        const int y = yb + tid;                                                          \
        double v[8];                                                                     \
        sm_u32 gs[3], mask = 0, cnt = 0;                                                 \
        int ne = 0;                                                                      \
        if (y < my) {                                                                    \
          ne = sm_dev_fin3_vals_##SFX(p, x, y, gp, SM_DEV_FIN3_PASS, v, gs);             \
          for (int e = 0; e < ne; e++)                                                   \
            if (sm_dev_keep(flags, thr, v[e])) {                                         \
              mask |= 1u << e;                                                           \
              cnt++;                                                                     \
            }                                                                            \
        }                                                                                \
        sm_u32 total;                                                                    \
        sm_u64 o = base + sm_dev_group_scan(scan, tid, cnt, &total);                     \
        for (int e = 0; e < ne; e++)                                                     \
          if ((mask >> e) & 1u) {                                                        \
            rec[o].idx[0] = gs[0];                                                       \
            rec[o].idx[1] = gs[1];                                                       \
            rec[o].idx[2] = gs[2];                                                       \
            rec[o].entry = (sm_u32)e;                                                    \
            rec[o].value = v[e];                                                         \
            o++;                                                                         \
          }                                                                              \
        base += total;                                                                   \
      }                                                                                  \
    }                                                                                    \
  }

SM_DEV_FIN3(sm_u32, sm_u32, ccc)
SM_DEV_FIN3(double, double, czek_d)
SM_DEV_FIN3(float, float, czek_s)

#endif
