/* sm_kernels.cl: OpenCL versions of starmet's modified GEMMs, for any
 * OpenCL device (tested on PoCL's CPU device). Layouts as in
 * codelets/cpu/sm_kern.h; offsets are in elements (or 64-bit words). The
 * program text is codelets/cpu/sm_formulas.h followed by this file
 * (Makefile.am), so the genotype algebra (sm_gt_*, sm_ccc_*) is the C one. */

#define TILE 16

/* Czekanowski 2-way: C[i,j] = sum_q min(A[i,q], B[j,q]), tiled in local
 * memory; the sum runs over q in order, so results do not depend on the
 * work-group size. */
#define CZEK2(NAME, T)                                                          \
  __kernel void NAME(int m, int n, int k, __global const T *A, int offa, int lda, \
                     __global const T *B, int offb, int ldb, __global T *C,    \
                     int offc, int ldc)                                        \
  {                                                                            \
    __local T as[TILE][TILE + 1];                                              \
    __local T bs[TILE][TILE + 1];                                              \
    const int ty = get_local_id(1), tx = get_local_id(0);                      \
    const int i = get_group_id(1) * TILE + ty, j = get_group_id(0) * TILE + tx; \
    const int bj = get_group_id(0) * TILE + ty;                                \
    T acc = 0;                                                                 \
    for (int q0 = 0; q0 < k; q0 += TILE) {                                     \
      int q = q0 + tx;                                                         \
      as[ty][tx] = (i < m && q < k) ? A[offa + (long)i * lda + q] : (T)0;       \
      bs[ty][tx] = (bj < n && q < k) ? B[offb + (long)bj * ldb + q] : (T)0;     \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      for (int t = 0; t < TILE; t++)                                           \
        acc += fmin(as[ty][t], bs[tx][t]);                                     \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
    }                                                                          \
    if (i < m && j < n)                                                        \
      C[offc + (long)i * ldc + j] = acc;                                       \
  }
CZEK2(sm_czek2_d, double)
CZEK2(sm_czek2_s, float)

/* Czekanowski 3-way planes: out[(a*mx + x)*my + y] = sum_q min(p, x, y). */
#define CZEK3(NAME, T)                                                          \
  __kernel void NAME(int g, int mx, int my, int k, __global const T *P, int offp, \
                     int ldp, __global const T *X, int offx, int ldx,          \
                     __global const T *Y, int offy, int ldy, __global T *out,  \
                     int offo)                                                 \
  {                                                                            \
    const int y = get_global_id(0), x = get_global_id(1), a = get_global_id(2); \
    if (y >= my || x >= mx || a >= g)                                          \
      return;                                                                  \
    __global const T *p = P + offp + (long)a * ldp, *xr = X + offx + (long)x * ldx, \
                     *yr = Y + offy + (long)y * ldy;                           \
    T acc = 0;                                                                 \
    for (int q = 0; q < k; q++)                                                \
      acc += fmin(fmin(p[q], xr[q]), yr[q]);                                   \
    out[offo + ((long)a * mx + x) * my + y] = acc;                             \
  }
CZEK3(sm_czek3_d, double)
CZEK3(sm_czek3_s, float)

/* CCC 2-way moments (sm_kern.h): dense sum r_i r_j; sparse rr, rm, mr, mm. */
__kernel void sm_ccc2(int m, int n, int nf, __global const ulong *A, int offa, int lda,
                      __global const ulong *B, int offb, int ldb, int sparse,
                      __global uint *C, int offc, int ldc)
{
  const int j = get_global_id(0), i = get_global_id(1);
  if (i >= m || j >= n)
    return;
  __global const ulong *a = A + offa + (long)i * lda, *b = B + offb + (long)j * ldb;
  const int nw = (nf + 31) / 32;
  uint mom[4] = {0, 0, 0, 0};
  for (int w = 0; w < nw; w++)
    sm_ccc2_word(a[w], b[w], nf - w * 32, sparse, mom);
  __global uint *c = C + offc + ((long)i * ldc + j) * (sparse ? 4 : 1);
  for (int t = 0; t < (sparse ? 4 : 1); t++)
    c[t] = mom[t];
}

/* CCC 3-way plane moments (sm_kern.h): the fields split by the plane
 * vector's genotype; 2-way moments of x and y on each part. */
__kernel void sm_ccc3(int g, int mx, int my, int nf, __global const ulong *P, int offp,
                      int ldp, __global const ulong *X, int offx, int ldx,
                      __global const ulong *Y, int offy, int ldy, int sparse,
                      __global uint *out, int offo)
{
  const int y = get_global_id(0), x = get_global_id(1), a = get_global_id(2);
  if (y >= my || x >= mx || a >= g)
    return;
  __global const ulong *p = P + offp + (long)a * ldp, *xr = X + offx + (long)x * ldx,
                       *yr = Y + offy + (long)y * ldy;
  const int nw = (nf + 31) / 32;
  uint mom[12];
  for (int t = 0; t < 12; t++)
    mom[t] = 0;
  for (int w = 0; w < nw; w++)
    sm_ccc3_word(p[w], xr[w], yr[w], nf - w * 32, sparse, mom);
  const int nmom = sparse ? 12 : 2;
  __global uint *o = out + offo + (((long)a * mx + x) * my + y) * nmom;
  for (int t = 0; t < nmom; t++)
    o[t] = mom[t];
}
