/* sm_cl_kernels.c: which CPU kernel each family runs, as --kernel (the
 * run's sm_cl_kernel) and this CPU allow it (codelets/cpu/sm_kern_pick.c),
 * and its name for the summary. */
#include <stdio.h>
#include <string.h>

#include "sm_cl_common.h"

const char *sm_codelets_kernel_check(sm_kernel_t kernel, int ccc)
{
  return sm_kern_unusable((sm_kvar_t)kernel, ccc);
}

/* A forced kernel this CPU cannot run was refused with the options; should
 * one get here anyway, the portable kernel runs. */
sm_czek2_d_fn sm_cl_czek2_d(void)
{
  sm_czek2_d_fn f = sm_kern_czek2_blocked_d;
  sm_kern_pick_czek2_d((sm_kvar_t)sm_cl_kernel, &f);
  return f;
}

sm_czek2_s_fn sm_cl_czek2_s(void)
{
  sm_czek2_s_fn f = sm_kern_czek2_blocked_s;
  sm_kern_pick_czek2_s((sm_kvar_t)sm_cl_kernel, &f);
  return f;
}

sm_ccc2_fn sm_cl_ccc2(int sparse)
{
  sm_ccc2_fn f = sm_kern_ccc2_popc;
  sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, sparse, &f);
  return f;
}

sm_czek2_lo_d_fn sm_cl_czek2_lo_d(void)
{
  return sm_kern_lo_czek2_d((sm_kvar_t)sm_cl_kernel);
}

sm_czek2_lo_s_fn sm_cl_czek2_lo_s(void)
{
  return sm_kern_lo_czek2_s((sm_kvar_t)sm_cl_kernel);
}

sm_czek3_d_kern_fn sm_cl_czek3_d(void)
{
  sm_czek3_d_kern_fn f = NULL;
  return sm_kern_pick_czek3_d((sm_kvar_t)sm_cl_kernel, &f) ? f : NULL;
}

sm_czek3_s_kern_fn sm_cl_czek3_s(void)
{
  sm_czek3_s_kern_fn f = NULL;
  return sm_kern_pick_czek3_s((sm_kvar_t)sm_cl_kernel, &f) ? f : NULL;
}

sm_czek2_syrk_d_fn sm_cl_czek2_syrk_d(void)
{
  return sm_kern_syrk_czek2_d((sm_kvar_t)sm_cl_kernel);
}

sm_czek2_syrk_s_fn sm_cl_czek2_syrk_s(void)
{
  return sm_kern_syrk_czek2_s((sm_kvar_t)sm_cl_kernel);
}

sm_ccc2_syrk_fn sm_cl_ccc2_syrk(int sparse)
{
  return sm_kern_syrk_ccc2((sm_kvar_t)sm_cl_kernel, sparse);
}

/* Every pair of C outside the strips 0 (C's rows are ld pairs apart) */
static void zero_tile(sm_cl_mat_t C)
{
  for (size_t i = 0; i < C.ny; i++)
    memset(sm_cl_mat_at(C, i, 0), 0, C.nx * C.elem);
}

void sm_cl_ccc2_tile(const sm_cl_num_t *a, sm_cl_mat_t A, sm_cl_mat_t B, sm_cl_mat_t C,
                     int sym)
{
  const sm_ccc2_fn k = sm_cl_ccc2(a->sparse);
  if (!sm_band_whole(&a->band, A.ny, B.ny)) {
    /* short runs pair by pair (only those pairs written: the finalize,
     * the check and the fault injection read no other) */
    const sm_ccc2_band_fn bk =
        a->sparse ? sm_kern_pick_ccc2_band((sm_kvar_t)sm_cl_kernel) : NULL;
    if (bk && bk(&a->band, A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, C.ptr, C.ld) > 0)
      return;
    zero_tile(C);
    size_t row = 0;
    sm_strip_t s;
    while (sm_band_next(&a->band, A.ny, B.ny, &row, &s))
      k(s.r1 - s.r0, s.c1 - s.c0, a->nf, sm_cl_mat_row(A, s.r0), A.ld,
        sm_cl_mat_row(B, s.c0), B.ld, a->sparse, sm_cl_mat_at(C, s.r0, s.c0), C.ld);
    return;
  }
  sm_ccc2_syrk_fn sy = sym && sm_cl_mat_same(A, B) ? sm_cl_ccc2_syrk(a->sparse) : NULL;
  if (sy) /* a diagonal block: half the work */
    sy(B.ny, a->nf, A.ptr, A.ld, a->sparse, C.ptr, C.ld);
  else
    k(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, a->sparse, C.ptr, C.ld);
}

/* PLINK's homozygous tallies of a tile pair, whole or in strips: the ld_hom
 * codelet and the checks' re-execution */
int sm_cl_ld_hom_tile(const sm_cl_num_t *a, sm_cl_mat_t A, sm_cl_mat_t B, sm_cl_mat_t C)
{
  if (sm_band_whole(&a->band, A.ny, B.ny))
    return sm_kern_ld_hom(A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, C.ptr, C.ld);
  if (sm_kern_ld_hom_band(&a->band, A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld, C.ptr,
                          C.ld) > 0)
    return 0;
  zero_tile(C); /* LD windows: their strips, the other pairs 0 */
  size_t row = 0;
  sm_strip_t s;
  int bad = 0;
  while (!bad && sm_band_next(&a->band, A.ny, B.ny, &row, &s))
    bad = sm_kern_ld_hom(s.r1 - s.r0, s.c1 - s.c0, a->nf, sm_cl_mat_row(A, s.r0), A.ld,
                         sm_cl_mat_row(B, s.c0), B.ld, sm_cl_mat_at(C, s.r0, s.c0), C.ld);
  return bad;
}

int sm_cl_ccc2_ld_tile(const sm_cl_num_t *a, sm_cl_mat_t A, sm_cl_mat_t B, sm_cl_mat_t C,
                       sm_cl_mat_t H)
{
  size_t r0, r1, c0, c1;
  if (a->band.win && !sm_band_direct(&a->band, A.ny, B.ny, &r0, &r1, &c0, &c1)) {
    /* windows' runs longer than pair by pair's: with AVX-512 the counters
     * compute the runs' pairs alone, whole tile pairs too */
    const int r =
        sm_kern_ccc2_ld_band((sm_kvar_t)sm_cl_kernel, &a->band, A.ny, B.ny, a->nf, A.ptr,
                             A.ld, B.ptr, B.ld, C.ptr, C.ld, H.ptr, H.ld);
    if (r <= 0)
      return r;
  }
  if (!sm_band_whole(&a->band, A.ny, B.ny)) {
    sm_cl_ccc2_tile(a, A, B, C, 1);
    return sm_cl_ld_hom_tile(a, A, B, H);
  }
  return sm_kern_ccc2_ld((sm_kvar_t)sm_cl_kernel, A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr,
                         B.ld, sm_cl_mat_same(A, B), C.ptr, C.ld, H.ptr, H.ld);
}

const char *sm_codelets_kernel_name(const char *family)
{
  int ref = sm_cl_kernel == SM_KERNEL_REF;
  sm_czek2_d_fn fd;
  sm_czek2_s_fn fs;
  sm_ccc2_fn fc;
  const char *name;
  if (!strcmp(family, "czek2_d"))
    return (name = sm_kern_pick_czek2_d((sm_kvar_t)sm_cl_kernel, &fd)) ? name
                                                                       : "unavailable";
  if (!strcmp(family, "czek2_s"))
    return (name = sm_kern_pick_czek2_s((sm_kvar_t)sm_cl_kernel, &fs)) ? name
                                                                       : "unavailable";
  if (!strcmp(family, "ccc2_sparse"))
    return (name = sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, 1, &fc)) ? name
                                                                       : "unavailable";
  if (!strcmp(family, "ccc2")) {
    static char both[96];
    const char *d = sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, 0, &fc);
    const char *sp = sm_kern_pick_ccc2((sm_kvar_t)sm_cl_kernel, 1, &fc);
    if (!d || !sp)
      return "unavailable";
    if (!strcmp(d, sp))
      return d;
    snprintf(both, sizeof both, "%s (dense), %s (sparse)", d, sp);
    return both;
  }
  if (ref)
    return !strncmp(family, "czek3", 5)  ? "sm_kern_czek3_ref"
           : !strncmp(family, "ccc3", 4) ? "sm_kern_ccc3_ref"
                                         : "unknown";
  /* 3-way planes run on their own kernel (czekanowski, SIMD) or on the 2-way
   * kernel of the run's precision or method */
  static char on[128];
  if (!strncmp(family, "czek3", 5)) {
    const int single = !strcmp(family, "czek3_s");
    sm_czek3_d_kern_fn f3d;
    sm_czek3_s_kern_fn f3s;
    const char *k3 = single ? sm_kern_pick_czek3_s((sm_kvar_t)sm_cl_kernel, &f3s)
                            : sm_kern_pick_czek3_d((sm_kvar_t)sm_cl_kernel, &f3d);
    if (k3)
      return k3;
    const char *k2 = sm_codelets_kernel_name(single ? "czek2_s" : "czek2_d");
    snprintf(on, sizeof on, "sm_kern_czek3 on %s", k2);
    return on;
  }
  if (!strncmp(family, "ccc3", 4)) {
    const int sparse = !strcmp(family, "ccc3_sparse");
    const char *k2 = sm_codelets_kernel_name(sparse ? "ccc2_sparse" : "ccc2");
    if (sm_cl_kernel == SM_KERNEL_AUTO && sm_cl_ccc2(sparse) == sm_kern_ccc2_popc)
      return "sm_kern_ccc3_popc";       /* codelet_ccc3.c: the plane kernel throughout */
    if (sm_cl_kernel == SM_KERNEL_AUTO) /* codelet_ccc3.c: by vector length */
      snprintf(on, sizeof on, "sm_kern_ccc3 on %s (sm_kern_ccc3_popc below %d fields)",
               k2, sparse ? 1000 : 3000);
    else
      snprintf(on, sizeof on, "sm_kern_ccc3 on %s", k2);
    return on;
  }
  return "unknown";
}
