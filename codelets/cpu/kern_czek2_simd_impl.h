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
 *
 * Micro-kernel contract (after BLIS's): kc > 0; a is an MR-row micro-panel
 * packed field-major (a[q * MR + r]), b an NR-column micro-panel (b[q * NR
 * + c]), both zero-padded past the edge; the MR x NR tile of C at c (row
 * stride ldc) is overwritten (load_c = 0) or accumulated into (load_c = 1).
 * The driver handles edges by running the micro-kernel on a local tile.
 * Every element adds its terms in field order, so results equal the plain
 * loops of the _ref twin bit for bit. */

#define SM_NR (SM_NV * SM_VL)

SM_TARGET
static void SM_ID(ukr)(size_t kc, const SM_T *restrict a, const SM_T *restrict b,
                       SM_T *restrict c, size_t ldc, int load_c)
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
#pragma GCC unroll 4
    for (int v = 0; v < SM_NV; v++)
      bv[v] = SM_VLOADU(b + v * SM_VL);
#pragma GCC unroll 16
    for (int r = 0; r < SM_MR; r++) {
      SM_V av = SM_VBCAST(a + r);
#pragma GCC unroll 4
      for (int v = 0; v < SM_NV; v++)
        acc[r][v] = SM_VADD(acc[r][v], SM_VMIN(av, bv[v]));
    }
    a += SM_MR;
    b += SM_NR;
  }
#pragma GCC unroll 16
  for (int r = 0; r < SM_MR; r++)
#pragma GCC unroll 4
    for (int v = 0; v < SM_NV; v++)
      SM_VSTOREU(c + r * ldc + v * SM_VL, acc[r][v]);
}

/* Pack rows x0..x0+nx-1 (nx <= P), fields q0..q0+kc-1 of X into micro-panels
 * of P rows: dst[(x / P) * P * kc + q * P + x % P], zero past nx. */
static void SM_ID(pack)(size_t nx, size_t kc, const SM_T *X, size_t ldx, size_t P,
                        SM_T *dst)
{
  for (size_t x0 = 0; x0 < nx; x0 += P, dst += P * kc) {
    size_t np = nx - x0 < P ? nx - x0 : P;
    for (size_t x = 0; x < np; x++) {
      const SM_T *src = X + (x0 + x) * ldx;
      for (size_t q = 0; q < kc; q++)
        dst[q * P + x] = src[q];
    }
    for (size_t x = np; x < P; x++)
      for (size_t q = 0; q < kc; q++)
        dst[q * P + x] = 0;
  }
}

static size_t SM_ID(round_up)(size_t x, size_t to) { return (x + to - 1) / to * to; }

void SM_FNAME(size_t m, size_t n, size_t k, const SM_T *A, size_t lda, const SM_T *B,
              size_t ldb, SM_T *C, size_t ldc)
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
  const size_t mcmax = SM_ID(round_up)(m < SM_MC ? m : SM_MC, SM_MR);
  const size_t ncmax = SM_ID(round_up)(n < SM_NC ? n : SM_NC, SM_NR);
  SM_T *Ap = aligned_alloc(64, SM_ID(round_up)(mcmax * kcmax * sizeof(SM_T), 64));
  SM_T *Bp = aligned_alloc(64, SM_ID(round_up)(ncmax * kcmax * sizeof(SM_T), 64));
  if (!Ap || !Bp) { /* no memory for panels: same sums, slowly */
    free(Ap);
    free(Bp);
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
      for (size_t ic = 0; ic < m; ic += SM_MC) {
        size_t mc = m - ic < SM_MC ? m - ic : SM_MC;
        SM_ID(pack)(mc, kc, A + ic * lda + pc, lda, SM_MR, Ap);
        for (size_t jr = 0; jr < nc; jr += SM_NR) {
          size_t nr = nc - jr < SM_NR ? nc - jr : SM_NR;
          for (size_t ir = 0; ir < mc; ir += SM_MR) {
            size_t mr = mc - ir < SM_MR ? mc - ir : SM_MR;
            SM_T *c = C + (ic + ir) * ldc + jc + jr;
            const SM_T *a = Ap + ir * kc, *b = Bp + jr * kc;
            if (mr == SM_MR && nr == SM_NR) {
              SM_ID(ukr)(kc, a, b, c, ldc, pc > 0);
              continue;
            }
            if (pc > 0)
              for (size_t r = 0; r < mr; r++)
                for (size_t x = 0; x < nr; x++)
                  edge[r * SM_NR + x] = c[r * ldc + x];
            SM_ID(ukr)(kc, a, b, edge, SM_NR, pc > 0);
            for (size_t r = 0; r < mr; r++)
              for (size_t x = 0; x < nr; x++)
                c[r * ldc + x] = edge[r * SM_NR + x];
          }
        }
      }
    }
  }
  free(Ap);
  free(Bp);
}

#undef SM_NR
