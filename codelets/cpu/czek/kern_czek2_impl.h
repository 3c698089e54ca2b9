/* kern_czek2_impl.h: the Czekanowski 2-way kernels and vector sums, written
 * once for float and double. Included by kern_czek2.c with SM_T (element
 * type), SM_SFX (name suffix) and SM_LANES (SIMD lanes of a 512-bit vector)
 * defined. */

#define SM_CAT_(a, b) a##b
#define SM_CAT(a, b) SM_CAT_(a, b)
#define SM_NAME(name) SM_CAT(name, SM_SFX)

void SM_NAME(sm_kern_czek2_ref_)(size_t m, size_t n, size_t k, const SM_T *A, size_t lda,
                                 const SM_T *B, size_t ldb, SM_T *C, size_t ldc)
{
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      SM_T s = 0;
      for (size_t q = 0; q < k; q++) {
        SM_T a = A[i * lda + q], b = B[j * ldb + q];
        s += a < b ? a : b;
      }
      C[i * ldc + j] = s;
    }
}

/* Register tile of the blocked kernel: SM_MR rows x SM_NR columns, each
 * accumulator SM_LANES wide along the field axis. The lanes are summed in a
 * fixed order at the end, so results are reproducible run to run. */
#define SM_MR 4
#define SM_NR 4
/* Fields per cache block: keeps the 8 streams of a tile in L1. */
#define SM_KC 512

SM_TARGETS
static void SM_NAME(czek2_tile_)(size_t mr, size_t nr, size_t k, const SM_T *A,
                                 size_t lda, const SM_T *B, size_t ldb, SM_T *C,
                                 size_t ldc)
{
  SM_T acc[SM_MR][SM_NR][SM_LANES];
  for (size_t x = 0; x < SM_MR; x++)
    for (size_t y = 0; y < SM_NR; y++)
      for (size_t w = 0; w < SM_LANES; w++)
        acc[x][y][w] = 0;
  const size_t kfull = k / SM_LANES * SM_LANES;
  if (mr == SM_MR && nr == SM_NR) {
    for (size_t q = 0; q < kfull; q += SM_LANES)
      for (size_t x = 0; x < SM_MR; x++)
        for (size_t y = 0; y < SM_NR; y++)
          for (size_t w = 0; w < SM_LANES; w++) {
            SM_T a = A[x * lda + q + w], b = B[y * ldb + q + w];
            acc[x][y][w] += a < b ? a : b;
          }
  } else {
    for (size_t q = 0; q < kfull; q += SM_LANES)
      for (size_t x = 0; x < mr; x++)
        for (size_t y = 0; y < nr; y++)
          for (size_t w = 0; w < SM_LANES; w++) {
            SM_T a = A[x * lda + q + w], b = B[y * ldb + q + w];
            acc[x][y][w] += a < b ? a : b;
          }
  }
  for (size_t q = kfull; q < k; q++)
    for (size_t x = 0; x < mr; x++)
      for (size_t y = 0; y < nr; y++) {
        SM_T a = A[x * lda + q], b = B[y * ldb + q];
        acc[x][y][0] += a < b ? a : b;
      }
  for (size_t x = 0; x < mr; x++)
    for (size_t y = 0; y < nr; y++) {
      /* pairwise lane sum in a fixed order */
      SM_T v[SM_LANES];
      for (size_t w = 0; w < SM_LANES; w++)
        v[w] = acc[x][y][w];
      for (size_t h = SM_LANES / 2; h > 0; h /= 2)
        for (size_t w = 0; w < h; w++)
          v[w] += v[w + h];
      C[x * ldc + y] += v[0];
    }
}

void SM_NAME(sm_kern_czek2_blocked_)(size_t m, size_t n, size_t k, const SM_T *A,
                                     size_t lda, const SM_T *B, size_t ldb, SM_T *C,
                                     size_t ldc)
{
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++)
      C[i * ldc + j] = 0;
  /* k blocks outermost: each C element sums its k blocks in k order */
  for (size_t q0 = 0; q0 < k; q0 += SM_KC) {
    size_t kc = k - q0 < SM_KC ? k - q0 : SM_KC;
    for (size_t i = 0; i < m; i += SM_MR) {
      size_t mr = m - i < SM_MR ? m - i : SM_MR;
      for (size_t j = 0; j < n; j += SM_NR) {
        size_t nr = n - j < SM_NR ? n - j : SM_NR;
        SM_NAME(czek2_tile_)
        (mr, nr, kc, A + i * lda + q0, lda, B + j * ldb + q0, ldb, C + i * ldc + j, ldc);
      }
    }
  }
}

void SM_NAME(sm_kern_sums_czek_)(size_t nv, size_t k, const SM_T *X, size_t ldx, SM_T *s)
{
  for (size_t v = 0; v < nv; v++) {
    double t = 0; /* at least double: the sums are denominators */
    for (size_t q = 0; q < k; q++)
      t += X[v * ldx + q];
    s[v] = (SM_T)t;
  }
}

#undef SM_MR
#undef SM_NR
#undef SM_KC
#undef SM_NAME
#undef SM_CAT
#undef SM_CAT_
