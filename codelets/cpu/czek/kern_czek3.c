/* kern_czek3.c: Czekanowski 3-way planes: n3(p, x, y) = sum_q min(p, x, y),
 * as a modified GEMM of X' = min(p, X) against Y per plane (the papers'
 * X_j construction), float and double: the reference, the planes on any
 * 2-way kernel, and the slices' kept part for the SIMD planes kernels. */
/* At -O3 with no-trapping-math GCC vectorizes the min(p, X) of each plane
 * (no value changes); clones for the widest ISA the CPU reports. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif
#include <stdlib.h>

#include "sm_kern.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_CZEK3_CLONES                                                                  \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SM_CZEK3_CLONES
#endif

/* Rows of min(p, X) per modified GEMM: a few MiB, so that Y's packing
 * serves many planes and the rows stay in the last-level cache. */
#define SM_CZEK3_CHUNK_BYTES ((size_t)8 << 20)

#define SM_DEF_CZEK3(T, SFX)                                                             \
  void sm_kern_czek3_ref_##SFX(size_t g, size_t mx, size_t my, size_t k, const T *P,     \
                               size_t ldp, const T *X, size_t ldx, const T *Y,           \
                               size_t ldy, T *out)                                       \
  {                                                                                      \
    for (size_t a = 0; a < g; a++)                                                       \
      for (size_t x = 0; x < mx; x++)                                                    \
        for (size_t y = 0; y < my; y++) {                                                \
          T s = 0;                                                                       \
          for (size_t q = 0; q < k; q++) {                                               \
            T u = P[a * ldp + q], v = X[x * ldx + q], w = Y[y * ldy + q];                \
            T m = u < v ? u : v;                                                         \
            s += m < w ? m : w;                                                          \
          }                                                                              \
          out[(a * mx + x) * my + y] = s;                                                \
        }                                                                                \
  }                                                                                      \
  SM_CZEK3_CLONES                                                                        \
  void sm_kern_czek3_on_##SFX(                                                           \
      sm_czek2_##SFX##_kern_fn kern2, sm_czek2_lo_##SFX##_kern_fn kern2lo,               \
      const sm_keep3_t *keep, size_t g, size_t mx, size_t my, size_t k, const T *P,      \
      size_t ldp, const T *X, size_t ldx, const T *Y, size_t ldy, T *out)                \
  {                                                                                      \
    /* rows a * mx + x of every plane's min(p, X), stacked: one modified GEMM per        \
     * chunk of rows against Y (whose packing the rows share), written where the         \
     * planes' outputs follow one another */                                             \
    const size_t rows = g * mx;                                                          \
    size_t chunk = SM_CZEK3_CHUNK_BYTES / (ldx * sizeof(T) + 1);                         \
    chunk = chunk < mx ? mx : chunk;                                                     \
    chunk = chunk > rows ? rows : chunk;                                                 \
    T *Z = malloc((chunk ? chunk : 1) * ldx * sizeof(T));                                \
    /* the first y each row keeps, when the slice keeps part of the triple */            \
    uint32_t *lo = NULL;                                                                 \
    if (keep && keep->kind != 2 && kern2lo && Z) {                                       \
      lo = malloc((rows ? rows : 1) * sizeof *lo);                                       \
      for (size_t i = 0; lo && i < rows; i++)                                            \
        lo[i] = (uint32_t)sm_keep3_lo(keep, i / mx, i % mx, my);                         \
    }                                                                                    \
    if (!Z) {                                                                            \
      sm_kern_czek3_ref_##SFX(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out);                \
      return;                                                                            \
    }                                                                                    \
    for (size_t r0 = 0; r0 < rows; r0 += chunk) {                                        \
      const size_t nr = rows - r0 < chunk ? rows - r0 : chunk;                           \
      for (size_t i = 0; i < nr; i++) {                                                  \
        const T *p = P + (r0 + i) / mx * ldp, *x = X + (r0 + i) % mx * ldx;              \
        T *z = Z + i * ldx;                                                              \
        for (size_t q = 0; q < k; q++)                                                   \
          z[q] = p[q] < x[q] ? p[q] : x[q];                                              \
        for (size_t q = k; q < ldx; q++) /* the padding SIMD kernels may read */         \
          z[q] = 0;                                                                      \
      }                                                                                  \
      if (lo)                                                                            \
        kern2lo(nr, my, k, Z, ldx, Y, ldy, out + r0 * my, my, lo + r0);                  \
      else                                                                               \
        kern2(nr, my, k, Z, ldx, Y, ldy, out + r0 * my, my);                             \
    }                                                                                    \
    free(lo);                                                                            \
    free(Z);                                                                             \
  }                                                                                      \
  void sm_kern_czek3_keep_##SFX(sm_czek3_##SFX##_kern_fn planes, const sm_keep3_t *keep, \
                                size_t g, size_t mx, size_t my, size_t k, const T *P,    \
                                size_t ldp, const T *X, size_t ldx, const T *Y,          \
                                size_t ldy, T *out)                                      \
  {                                                                                      \
    /* the first y each row (a, x) keeps, when the slice keeps part of the triple */     \
    const size_t rows = g * mx;                                                          \
    uint32_t *lo = NULL;                                                                 \
    if (keep && keep->kind != 2) {                                                       \
      lo = malloc((rows ? rows : 1) * sizeof *lo);                                       \
      for (size_t i = 0; lo && i < rows; i++)                                            \
        lo[i] = (uint32_t)sm_keep3_lo(keep, i / mx, i % mx, my);                         \
    }                                                                                    \
    planes(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out, lo); /* no memory: all */          \
    free(lo);                                                                            \
  }                                                                                      \
  void sm_kern_czek3_blocked_##SFX(size_t g, size_t mx, size_t my, size_t k, const T *P, \
                                   size_t ldp, const T *X, size_t ldx, const T *Y,       \
                                   size_t ldy, T *out)                                   \
  {                                                                                      \
    sm_kern_czek3_on_##SFX(sm_kern_czek2_blocked_##SFX, NULL, NULL, g, mx, my, k, P,     \
                           ldp, X, ldx, Y, ldy, out);                                    \
  }

SM_DEF_CZEK3(double, d)
SM_DEF_CZEK3(float, s)
