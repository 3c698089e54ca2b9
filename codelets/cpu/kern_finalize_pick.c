/* kern_finalize_pick.c: which inner loops the finalize kernels run: the
 * widest instruction set this CPU runs (as sm_kern_pick.c chooses kernels
 * from sm_cpu_get), or the one a test or benchmark asked for. */
#include <pthread.h>

#include "kern_finalize_simd.h"
#include "sm_cpu.h"

/* AVX-512 with DQ (64-bit multiplies and conversions): every AVX-512 CPU
 * with BW and VL has it, but sm_cpu_t does not say. */
static int has_avx512dq(void)
{
#if SM_BUILD_X86
  __builtin_cpu_init();
  return sm_cpu_get()->avx512 && __builtin_cpu_supports("avx512dq");
#else
  return 0;
#endif
}

static const sm_fin_isa_t *widest(void)
{
#if SM_BUILD_X86
  if (has_avx512dq())
    return &sm_fin_isa_avx512;
  if (sm_cpu_get()->avx2)
    return &sm_fin_isa_avx2;
#endif
  return NULL;
}

static const sm_fin_isa_t *chosen;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int forced;

static void choose(void)
{
  chosen = widest();
}

const sm_fin_isa_t *sm_fin_isa(void)
{
  if (!forced)
    pthread_once(&once, choose);
  return chosen;
}

const char *sm_kern_fin_variant(sm_kvar_t v)
{
  const sm_fin_isa_t *isa = NULL;
  switch (v) {
  case SM_KVAR_AUTO:
    isa = widest();
    break;
  case SM_KVAR_REF:
  case SM_KVAR_BLOCKED:
    break;
#if SM_BUILD_X86
  case SM_KVAR_AVX2:
    if (!sm_cpu_get()->avx2)
      return NULL;
    isa = &sm_fin_isa_avx2;
    break;
  case SM_KVAR_AVX512:
    if (!has_avx512dq())
      return NULL;
    isa = &sm_fin_isa_avx512;
    break;
#endif
  default:
    return NULL;
  }
  pthread_once(&once, choose); /* a later first call must not undo this */
  chosen = isa;
  forced = 1;
  return isa ? isa->name : "portable";
}
