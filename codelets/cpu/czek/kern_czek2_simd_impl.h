/* kern_czek2_simd_impl.h: the BLIS-style Czekanowski mGEMM written once for
 * every element type and instruction set. The including file defines:
 *   SM_T       element type          SM_FNAME   exported function name
 *   SM_ID(x)   unique static names   SM_TARGET  function attribute (ISA)
 *   SM_V, SM_VL                      vector type, lanes
 *   SM_VZERO(), SM_VLOADU(p), SM_VSTOREU(p, v), SM_VBCAST(p),
 *   SM_VMIN(a, b), SM_VADD(a, b)     vector operations
 *   SM_MR, SM_NV                     micro-tile: MR rows x (NV x VL) columns
 *   SM_KC, SM_MC, SM_NC              cache blocks (fields, rows, columns)
 *   SM_REF                           the _ref twin (used when out of memory)
 *   SM_SYRK                          name of the symmetric variant (B = A;
 *                                    undefined: none)
 *   SM_LOFN                          name of the variant computing only the
 *                                    columns j >= lo[i] of each row i
 *   SM_PLANESFN                      name of the 3-way planes kernel (optional;
 *                                    SM_FNAME and SM_LOFN are optional then)
 *
 * Micro-kernel contract (after BLIS's): kc > 0; a points to MR rows of A
 * (row r at a + r * lda, fields contiguous: vectors are field-major already,
 * so A needs no packing), b to an NR-column micro-panel packed field-major
 * (b[q * NR + c], zero past the edge); the MR x NR tile of C at c (row stride
 * ldc) is overwritten (load_c = 0) or accumulated into (load_c = 1). The
 * driver handles edges by running the micro-kernel on local copies.
 * Every element adds its terms in field order, so results equal the plain
 * loops of the _ref twin bit for bit. */

#define SM_NR (SM_NV * SM_VL)
/* prefetch distance in the B panel, in fields */
#define SM_PF_B 8

SM_TARGET
static void SM_ID(ukr)(size_t kc, const SM_T *restrict a, size_t lda,
                       const SM_T *restrict b, SM_T *restrict c, size_t ldc, int load_c)
{
  SM_V acc[SM_MR][SM_NV];
  if (load_c) {
#pragma GCC unroll 16
    for (int r = 0; r < SM_MR; r++)
#pragma GCC unroll 4
      for (int v = 0; v < SM_NV; v++)
        acc[r][v] = SM_VLOADU(c + r * ldc + v * SM_VL);
  } else {
#pragma GCC unroll 16
    for (int r = 0; r < SM_MR; r++)
#pragma GCC unroll 4
      for (int v = 0; v < SM_NV; v++)
        acc[r][v] = SM_VZERO();
  }
  for (size_t q = 0; q < kc; q++) {
    SM_V bv[SM_NV];
    /* the panel streams from L2: ask for it a few fields ahead */
    __builtin_prefetch(b + SM_PF_B * SM_NR, 0, 3);
#pragma GCC unroll 4
    for (int v = 0; v < SM_NV; v++)
      bv[v] = SM_VLOADU(b + v * SM_VL);
#pragma GCC unroll 16
    for (int r = 0; r < SM_MR; r++) {
      SM_V av = SM_VBCAST(a + r * lda + q);
#pragma GCC unroll 4
      for (int v = 0; v < SM_NV; v++)
        acc[r][v] = SM_VADD(acc[r][v], SM_VMIN(av, bv[v]));
    }
    b += SM_NR;
  }
#pragma GCC unroll 16
  for (int r = 0; r < SM_MR; r++)
#pragma GCC unroll 4
    for (int v = 0; v < SM_NV; v++)
      SM_VSTOREU(c + r * ldc + v * SM_VL, acc[r][v]);
}

/* Pack vectors x0..x0+nx-1 (fields q0..q0+kc-1) of X into micro-panels of P
 * columns: dst[(x / P) * P * kc + q * P + x % P], zero past nx. Fields go
 * by chunks of 16 so reads and writes both stay within a few lines. */
static void SM_ID(pack)(size_t nx, size_t kc, const SM_T *X, size_t ldx, size_t P,
                        SM_T *dst)
{
  for (size_t x0 = 0; x0 < nx; x0 += P, dst += P * kc) {
    size_t np = nx - x0 < P ? nx - x0 : P;
    const SM_T *src = X + x0 * ldx;
    for (size_t q0 = 0; q0 < kc; q0 += 16) {
      size_t qn = kc - q0 < 16 ? kc - q0 : 16;
      for (size_t x = 0; x < np; x++) {
        const SM_T *s = src + x * ldx + q0;
        SM_T *d = dst + q0 * P + x;
        for (size_t q = 0; q < qn; q++)
          d[q * P] = s[q];
      }
      for (size_t x = np; x < P; x++)
        for (size_t q = 0; q < qn; q++)
          dst[(q0 + q) * P + x] = 0;
    }
  }
}

static size_t SM_ID(round_up)(size_t x, size_t to)
{
  return (x + to - 1) / to * to;
}

/* Rows r0..r0+nr-1 of the planes' A (row i: min(P[i / mx], X[i % mx]),
 * p < x ? p : x as sm_kern_czek3_ref, which is what SM_VMIN(p, x) gives:
 * the second operand unless the first is less) over kc fields into dst
 * (row stride kc), then zero rows up to a multiple of MR. With lo, the
 * micro-tiles of MR rows that keep no column (lo >= n for each row: the
 * gemm loop never reads them) are left as they are. */
SM_TARGET
static void SM_ID(form)(size_t r0, size_t nr, size_t kc, const SM_T *X, size_t ldx,
                        const SM_T *P, size_t ldp, size_t mx, SM_T *restrict dst,
                        const uint32_t *lo, size_t n)
{
  const size_t kv = kc / SM_VL * SM_VL;
  for (size_t i = 0; i < nr; i++) {
    if (lo && i % SM_MR == 0) { /* a micro-tile of rows that keeps nothing */
      size_t need = n;
      for (size_t r = i; r < nr && r < i + SM_MR; r++)
        need = lo[r0 + r] < need ? lo[r0 + r] : need;
      if (need >= n) {
        i += SM_MR - 1;
        continue;
      }
    }
    const SM_T *p = P + (r0 + i) / mx * ldp, *x = X + (r0 + i) % mx * ldx;
    SM_T *restrict z = dst + i * kc;
    for (size_t q = 0; q < kv; q += SM_VL)
      SM_VSTOREU(z + q, SM_VMIN(SM_VLOADU(p + q), SM_VLOADU(x + q)));
    for (size_t q = kv; q < kc; q++)
      z[q] = p[q] < x[q] ? p[q] : x[q];
  }
  for (size_t i = nr; i % SM_MR; i++)
    for (size_t q = 0; q < kc; q++)
      dst[i * kc + q] = 0;
}

/* The planes without panels (out of memory): the same sums in field order. */
static void SM_ID(planes_ref)(size_t m, size_t n, size_t k, const SM_T *X, size_t ldx,
                              const SM_T *Y, size_t ldy, SM_T *C, size_t ldc,
                              const SM_T *P, size_t ldp, size_t mx)
{
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      const SM_T *p = P + i / mx * ldp, *x = X + i % mx * ldx, *y = Y + j * ldy;
      SM_T s = 0;
      for (size_t q = 0; q < k; q++) {
        SM_T z = p[q] < x[q] ? p[q] : x[q];
        s += z < y[q] ? z : y[q];
      }
      C[i * ldc + j] = s;
    }
}

/* sym: B is A (m = n); only micro-tiles with a column >= a row are
 * computed, the strict lower triangle is then mirrored (the same sums: min
 * is symmetric and each element adds its fields in the same order).
 * lo (not with sym): row i needs only its columns j >= lo[i] (lo[i] >= n:
 * none); micro-tiles holding none of them are set to 0, not computed.
 * P (3-way planes, not with sym): row i of A is min(P[i / mx], A[i % mx]),
 * formed per block of MC rows x KC fields as the block is reached, so that
 * it stays in L2 (the papers' X_j, never whole in memory). */
static void SM_ID(gemm)(size_t m, size_t n, size_t k, const SM_T *A, size_t lda,
                        const SM_T *B, size_t ldb, SM_T *C, size_t ldc, int sym,
                        const uint32_t *lo, const SM_T *P, size_t ldp, size_t mx)
{
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j++)
        C[i * ldc + j] = 0;
    return;
  }
  const size_t kcmax = k < SM_KC ? k : SM_KC;
  const size_t ncmax = SM_ID(round_up)(n < SM_NC ? n : SM_NC, SM_NR);
  SM_T *Bp = aligned_alloc(64, SM_ID(round_up)(ncmax * kcmax * sizeof(SM_T), 64));
  SM_T *Ae = aligned_alloc(64, SM_ID(round_up)(SM_MR * kcmax * sizeof(SM_T), 64));
  /* the planes' block of rows min(p, x): MC rows (MR-padded) x KC fields */
  SM_T *Ap =
      P ? aligned_alloc(64, SM_ID(round_up)(SM_MC * kcmax * sizeof(SM_T), 64)) : NULL;
  if (!Bp || !Ae || (P && !Ap)) { /* no memory for panels: same sums, slowly */
    free(Bp);
    free(Ae);
    free(Ap);
    if (P)
      SM_ID(planes_ref)(m, n, k, A, lda, B, ldb, C, ldc, P, ldp, mx);
    else
      SM_REF(m, n, k, A, lda, B, ldb, C, ldc);
    return;
  }
  _Alignas(64) SM_T edge[SM_MR * SM_NR] = {0};
  for (size_t jc = 0; jc < n; jc += SM_NC) {
    size_t nc = n - jc < SM_NC ? n - jc : SM_NC;
    /* field blocks in order: each element sums its fields in order */
    for (size_t pc = 0; pc < k; pc += SM_KC) {
      size_t kc = k - pc < SM_KC ? k - pc : SM_KC;
      SM_ID(pack)(nc, kc, B + jc * ldb + pc, ldb, SM_NR, Bp);
      /* rows of A in blocks of MC (they stay in L2 across the columns) */
      for (size_t ic = 0; ic < m; ic += SM_MC) {
        size_t mc = m - ic < SM_MC ? m - ic : SM_MC;
        if (P) /* rows ic.. of min(p, X), fields pc.. (zero rows up to MR) */
          SM_ID(form)(ic, mc, kc, A + pc, lda, P + pc, ldp, mx, Ap, lo, n);
        for (size_t jr = 0; jr < nc; jr += SM_NR) {
          size_t nr = nc - jr < SM_NR ? nc - jr : SM_NR;
          for (size_t ir = 0; ir < mc; ir += SM_MR) {
            size_t mr = mc - ir < SM_MR ? mc - ir : SM_MR;
            if (sym && jc + jr + nr <= ic + ir)
              continue; /* below the diagonal: mirrored at the end */
            SM_T *c = C + (ic + ir) * ldc + jc + jr;
            if (lo) { /* the first column any of the rows needs */
              size_t need = n;
              for (size_t r = 0; r < mr; r++)
                need = lo[ic + ir + r] < need ? lo[ic + ir + r] : need;
              if (jc + jr + nr <= need) {
                if (pc == 0)
                  for (size_t r = 0; r < mr; r++)
                    for (size_t x = 0; x < nr; x++)
                      c[r * ldc + x] = 0;
                continue;
              }
            }
            const SM_T *a = P ? Ap + ir * kc : A + (ic + ir) * lda + pc;
            size_t la = P ? kc : lda;
            if (ir + SM_MR < mc) /* the next tile's C, from memory by now */
              for (size_t r = 0; r < SM_MR && ir + SM_MR + r < mc; r++)
                for (size_t x = 0; x < nr; x += 64 / sizeof(SM_T))
                  __builtin_prefetch(c + (SM_MR + r) * ldc + x, 1);
            if (mr < SM_MR && !P) { /* short rows: a zero-padded copy */
              for (size_t r = 0; r < SM_MR; r++)
                for (size_t q = 0; q < kc; q++)
                  Ae[r * kc + q] = r < mr ? a[r * lda + q] : 0;
              a = Ae;
              la = kc;
            }
            if (mr == SM_MR && nr == SM_NR) {
              SM_ID(ukr)(kc, a, la, Bp + jr * kc, c, ldc, pc > 0);
              continue;
            }
            if (pc > 0)
              for (size_t r = 0; r < mr; r++)
                for (size_t x = 0; x < nr; x++)
                  edge[r * SM_NR + x] = c[r * ldc + x];
            SM_ID(ukr)(kc, a, la, Bp + jr * kc, edge, SM_NR, pc > 0);
            for (size_t r = 0; r < mr; r++)
              for (size_t x = 0; x < nr; x++)
                c[r * ldc + x] = edge[r * SM_NR + x];
          }
        }
      }
    }
  }
  free(Bp);
  free(Ae);
  free(Ap);
  if (sym) /* by 32 x 32 blocks, for the caches */
    for (size_t ib = 0; ib < n; ib += 32)
      for (size_t jb = 0; jb <= ib; jb += 32)
        for (size_t i = ib; i < n && i < ib + 32; i++)
          for (size_t j = jb; j < i && j < jb + 32; j++)
            C[i * ldc + j] = C[j * ldc + i];
}

#ifdef SM_FNAME
void SM_FNAME(size_t m, size_t n, size_t k, const SM_T *A, size_t lda, const SM_T *B,
              size_t ldb, SM_T *C, size_t ldc)
{
  SM_ID(gemm)(m, n, k, A, lda, B, ldb, C, ldc, 0, NULL, NULL, 0, 1);
}
#endif

#ifdef SM_SYRK
void SM_SYRK(size_t n, size_t k, const SM_T *A, size_t lda, SM_T *C, size_t ldc)
{
  SM_ID(gemm)(n, n, k, A, lda, A, lda, C, ldc, 1, NULL, NULL, 0, 1);
}
#endif

#ifdef SM_LOFN
void SM_LOFN(size_t m, size_t n, size_t k, const SM_T *A, size_t lda, const SM_T *B,
             size_t ldb, SM_T *C, size_t ldc, const uint32_t *lo)
{
  SM_ID(gemm)(m, n, k, A, lda, B, ldb, C, ldc, 0, lo, NULL, 0, 1);
}
#endif

#ifdef SM_PLANESFN
/* sm_kern.h's 3-way planes contract: out[(a * mx + x) * my + y] = sum_q
 * min(P[a], X[x], Y[y]) in field order, for the rows (a, x) i with lo
 * (NULL: all) the columns y >= lo[i] (others 0 or exact). */
void SM_PLANESFN(size_t g, size_t mx, size_t my, size_t k, const SM_T *P, size_t ldp,
                 const SM_T *X, size_t ldx, const SM_T *Y, size_t ldy, SM_T *out,
                 const uint32_t *lo)
{
  if (mx == 0)
    return;
  SM_ID(gemm)(g * mx, my, k, X, ldx, Y, ldy, out, my, 0, lo, P, ldp, mx);
}
#endif

#undef SM_NR
#undef SM_PF_B
