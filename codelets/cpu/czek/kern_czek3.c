/* kern_czek3.c: Czekanowski 3-way planes: n3(p, x, y) = sum_q min(p, x, y),
 * as a modified GEMM of X' = min(p, X) against Y per plane (the papers'
 * X_j construction), float and double. */
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
  void sm_kern_czek3_on_##SFX(sm_czek2_##SFX##_kern_fn kern2, size_t g, size_t mx,       \
                              size_t my, size_t k, const T *P, size_t ldp, const T *X,   \
                              size_t ldx, const T *Y, size_t ldy, T *out)                \
  {                                                                                      \
    T *Z = malloc((mx ? mx : 1) * ldx * sizeof(T));                                      \
    if (!Z) {                                                                            \
      sm_kern_czek3_ref_##SFX(g, mx, my, k, P, ldp, X, ldx, Y, ldy, out);                \
      return;                                                                            \
    }                                                                                    \
    for (size_t a = 0; a < g; a++) {                                                     \
      const T *p = P + a * ldp;                                                          \
      for (size_t x = 0; x < mx; x++) {                                                  \
        for (size_t q = 0; q < k; q++) {                                                 \
          T u = p[q], v = X[x * ldx + q];                                                \
          Z[x * ldx + q] = u < v ? u : v;                                                \
        }                                                                                \
        for (size_t q = k; q < ldx; q++) /* the padding SIMD kernels may read */         \
          Z[x * ldx + q] = 0;                                                            \
      }                                                                                  \
      kern2(mx, my, k, Z, ldx, Y, ldy, out + a * mx * my, my);                           \
    }                                                                                    \
    free(Z);                                                                             \
  }                                                                                      \
  void sm_kern_czek3_blocked_##SFX(size_t g, size_t mx, size_t my, size_t k, const T *P, \
                                   size_t ldp, const T *X, size_t ldx, const T *Y,       \
                                   size_t ldy, T *out)                                   \
  {                                                                                      \
    sm_kern_czek3_on_##SFX(sm_kern_czek2_blocked_##SFX, g, mx, my, k, P, ldp, X, ldx, Y, \
                           ldy, out);                                                    \
  }

SM_DEF_CZEK3(double, d)
SM_DEF_CZEK3(float, s)
