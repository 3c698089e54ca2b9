/* kern_ccc2_amx.c: CCC 2-way moments as an int8 GEMM on AMX tiles
 * (sm_kern_ccc2_amx): the int8 driver of kern_ccc2_i8.c around TDPBUSD on
 * 2 x 2 blocks of 16 x 16 int32 tiles (32 x 32 accumulators, 64 fields per
 * instruction). Runs only where sm_cpu_get() reports amx (the CPU has
 * AMX-TILE and AMX-INT8 and Linux granted this process the tile state). */
#include "sm_kern_simd.h"

#if SM_BUILD_AMX
#include <immintrin.h>
#include <string.h>

/* Palette 1: tmm0-3 accumulators (16 rows x 64 bytes of int32), tmm4-5
 * rows of A8 (16 x 64 bytes), tmm6-7 columns of B8 (16 quad rows x 16
 * columns x 4 bytes). */
typedef struct tilecfg {
  uint8_t palette, start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} tilecfg_t;

__attribute__((target("amx-tile,amx-int8"))) int
sm_i8tile_amx(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
              const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds)
{
  tilecfg_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (int t = 0; t < 8; t++) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  /* the whole 64-byte configuration is an input */
  __asm__ volatile("ldtilecfg %0" ::"m"(cfg) : "memory");
  const long sS = (long)(lds * sizeof(int32_t)), sA = (long)lda8,
             sB = 32 * sizeof(uint32_t);
  for (size_t i = 0; i < rows; i += 32)
    for (size_t j = 0; j < cols; j += 32) {
      int32_t *s = S + i * lds + j;
      _tile_loadd(0, s, sS);
      _tile_loadd(1, s + 16, sS);
      _tile_loadd(2, s + 16 * lds, sS);
      _tile_loadd(3, s + 16 * lds + 16, sS);
      for (size_t q = 0; q < kb; q += 64) {
        const uint8_t *a = A8 + i * lda8 + q;
        const uint32_t *b = B8 + (j / 32) * ldb8 + (q / 4) * 32;
        _tile_loadd(4, a, sA);
        _tile_loadd(5, a + 16 * lda8, sA);
        _tile_loadd(6, b, sB);
        _tile_loadd(7, b + 16, sB);
        _tile_dpbusd(0, 4, 6);
        _tile_dpbusd(1, 4, 7);
        _tile_dpbusd(2, 5, 6);
        _tile_dpbusd(3, 5, 7);
      }
      _tile_stored(0, s, sS);
      _tile_stored(1, s + 16, sS);
      _tile_stored(2, s + 16 * lds, sS);
      _tile_stored(3, s + 16 * lds + 16, sS);
    }
  _tile_release();
  return 0;
}
#else
int sm_i8tile_amx(size_t rows, size_t cols, size_t kb, const uint8_t *A8, size_t lda8,
                  const uint32_t *B8, size_t ldb8, int32_t *S, size_t lds)
{
  return -1; /* no AMX support in this compiler */
}
#endif

void sm_kern_ccc2_amx(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc)
{
  if (sm_kern_ccc2_i8(m, n, nf, A, lda, B, ldb, sparse, C, ldc, sm_i8tile_amx, 1, 0) != 0)
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
}

void sm_kern_ccc2_syrk_amx(size_t n, size_t nf, const uint64_t *A, size_t lda, int sparse,
                           uint32_t *C, size_t ldc)
{
  if (sm_kern_ccc2_i8(n, n, nf, A, lda, A, lda, sparse, C, ldc, sm_i8tile_amx, 1, 1) != 0)
    sm_kern_ccc2_ref(n, n, nf, A, lda, A, lda, sparse, C, ldc);
}
