/* sm_kernels.cl: OpenCL versions of starmet's modified GEMMs, for any
 * OpenCL device (tested on PoCL's CPU device). Layouts as in
 * codelets/cpu/sm_kern.h; offsets are in elements (or 64-bit words). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

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

#define EVEN 0x5555555555555555UL

/* the bits of one code word: lo, hi in even positions, and the fields that
 * exist */
inline void code_bits(ulong w, int left, ulong *lo, ulong *hi, ulong *valid)
{
  *lo = w & EVEN;
  *hi = (w >> 1) & EVEN;
  *valid = left >= 32 ? EVEN : ((1UL << (2 * left)) - 1) & EVEN;
}

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
  uint rr = 0, rm = 0, mr = 0, mm = 0;
  for (int w = 0; w < nw; w++) {
    ulong alo, ahi, av, blo, bhi, bv;
    code_bits(a[w], nf - w * 32, &alo, &ahi, &av);
    code_bits(b[w], nf - w * 32, &blo, &bhi, &bv);
    ulong a1 = (sparse ? alo : (alo | ahi)) & av, a2 = alo & ahi;
    ulong b1 = (sparse ? blo : (blo | bhi)) & bv, b2 = blo & bhi;
    rr += popcount(a1 & b1) + popcount((a1 & b2) | (a2 & b1)) + 2 * popcount(a2 & b2);
    if (sparse) {
      ulong am = (alo | (~ahi & EVEN)) & av, bm = (blo | (~bhi & EVEN)) & bv;
      rm += popcount(a1 & bm) + popcount(a2 & bm);
      mr += popcount(am & b1) + popcount(am & b2);
      mm += popcount(am & bm);
    }
  }
  __global uint *c = C + offc + ((long)i * ldc + j) * (sparse ? 4 : 1);
  c[0] = rr;
  if (sparse) {
    c[1] = rm;
    c[2] = mr;
    c[3] = mm;
  }
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
  const int nw = (nf + 31) / 32, nparts = sparse ? 3 : 2;
  uint mom[12];
  for (int t = 0; t < 12; t++)
    mom[t] = 0;
  for (int w = 0; w < nw; w++) {
    ulong plo, phi, pv, xlo, xhi, xv, ylo, yhi, yv;
    code_bits(p[w], nf - w * 32, &plo, &phi, &pv);
    code_bits(xr[w], nf - w * 32, &xlo, &xhi, &xv);
    code_bits(yr[w], nf - w * 32, &ylo, &yhi, &yv);
    ulong part[3];
    if (sparse) {
      part[0] = ~plo & ~phi & pv;
      part[1] = plo & ~phi & pv;
      part[2] = plo & phi & pv;
    } else {
      part[0] = (plo ^ phi) & pv;
      part[1] = plo & phi & pv;
    }
    ulong x1 = (sparse ? xlo : (xlo | xhi)) & xv, x2 = xlo & xhi;
    ulong y1 = (sparse ? ylo : (ylo | yhi)) & yv, y2 = ylo & yhi;
    ulong xm = (xlo | (~xhi & EVEN)) & xv, ym = (ylo | (~yhi & EVEN)) & yv;
    for (int e = 0; e < nparts; e++) {
      ulong E = part[e], a1 = x1 & E, a2 = x2 & E;
      uint rr = popcount(a1 & y1) + popcount((a1 & y2) | (a2 & y1)) + 2 * popcount(a2 & y2);
      if (sparse) {
        ulong am = xm & E;
        mom[4 * e] += rr;
        mom[4 * e + 1] += popcount(a1 & ym) + popcount(a2 & ym);
        mom[4 * e + 2] += popcount(am & y1) + popcount(am & y2);
        mom[4 * e + 3] += popcount(am & ym);
      } else {
        mom[e] += rr;
      }
    }
  }
  const int nmom = sparse ? 12 : 2;
  __global uint *o = out + offo + (((long)a * mx + x) * my + y) * nmom;
  for (int t = 0; t < nmom; t++)
    o[t] = mom[t];
}
