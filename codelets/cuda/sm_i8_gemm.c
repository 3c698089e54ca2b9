/* sm_i8_gemm.c: the shapes of the CCC 2-way int8 GEMMs (sm_i8_gemm.h):
 * plain C, compiled in every build. */
#include "sm_i8_gemm.h"

#include <limits.h>
#include <stdint.h>

#include "sm_formulas.h"

static size_t round_up(size_t x, size_t to)
{
  return (x + to - 1) / to * to;
}

/* *out = a * b, 0 when it does not fit size_t */
static int mul_ok(size_t a, size_t b, size_t *out)
{
  if (b && a > SIZE_MAX / b)
    return 0;
  *out = a * b;
  return 1;
}

/* a padded operand of at least `need` rows, kpad bytes used of ld */
static int operand_ok(size_t rows, size_t need, size_t ld, size_t kpad)
{
  return rows >= need && rows % SM_I8_GEMM_ROWS == 0 && rows <= INT_MAX && ld >= kpad &&
         ld % SM_I8_GEMM_ALIGN == 0 && ld <= INT_MAX;
}

size_t sm_i8_gemm_rows(size_t rows, int sparse)
{
  return round_up((sparse ? 2 : 1) * rows, SM_I8_GEMM_ROWS);
}

int sm_i8_gemm_plan(sm_i8_gemm_t *g, size_t m, size_t n, size_t kpad, int sparse,
                    size_t lrows, size_t ldl, size_t rrows, size_t ldr)
{
  const size_t blocks = sparse ? 2 : 1;
  size_t cells, bytes;
  if (m == 0 || n == 0 || m > SIZE_MAX / blocks || n > SIZE_MAX / blocks || kpad == 0 ||
      kpad % SM_I8_GEMM_ALIGN != 0 || kpad > SM_I8_GEMM_KMAX ||
      !operand_ok(lrows, blocks * m, ldl, kpad) ||
      !operand_ok(rrows, blocks * n, ldr, kpad) || !mul_ok(rrows, lrows, &cells) ||
      !mul_ok(cells, sizeof(int32_t), &bytes))
    return -1;
  *g = (sm_i8_gemm_t){.transa = SM_I8_OP_T,
                      .transb = SM_I8_OP_N,
                      .atype = SM_I8_S8,
                      .btype = SM_I8_S8,
                      .ctype = SM_I8_S32,
                      .compute = SM_I8_S32,
                      .m = (int)rrows,
                      .n = (int)lrows,
                      .k = (int)kpad,
                      .lda = (int)ldr,
                      .ldb = (int)ldl,
                      .ldc = (int)rrows, /* a multiple of 16: 64-byte columns */
                      .alpha = 1,
                      .beta = 0,
                      .scratch_bytes = bytes};
  return 0;
}

int sm_i8_gemm_plan_scratch(sm_i8_gemm_t *g, size_t m, size_t n, size_t nf, int sparse)
{
  const size_t kpad = sm_ccc_i8_kpad(nf), lrows = sm_i8_gemm_rows(m, sparse),
               rrows = sm_i8_gemm_rows(n, sparse);
  size_t lbytes, rbytes;
  if (nf > SM_I8_GEMM_KMAX ||
      sm_i8_gemm_plan(g, m, n, kpad, sparse, lrows, kpad, rrows, kpad) ||
      !mul_ok(lrows, kpad, &lbytes) || !mul_ok(rrows, kpad, &rbytes))
    return -1;
  /* L, R, G one after the other, each at a multiple of 256 bytes (cudaMalloc's
   * alignment) */
  const size_t r_off = round_up(lbytes, 256), g_off = round_up(r_off + rbytes, 256);
  if (r_off < lbytes || g_off < r_off + rbytes || g_off + g->scratch_bytes < g_off)
    return -1;
  g->l_off = 0;
  g->r_off = r_off;
  g->g_off = g_off;
  g->scratch_bytes += g_off;
  return 0;
}

int sm_i8_gemm_aligned(const void *p)
{
  return (uintptr_t)p % SM_I8_GEMM_ALIGN == 0;
}
