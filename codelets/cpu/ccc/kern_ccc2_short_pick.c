/* kern_ccc2_short_pick.c: which instruction set the short-vector CCC
 * kernels run (sm_ccc_short.h): the one a kernel variant asks for, or the
 * widest this CPU runs. Apart from the kernels it chooses among, which
 * call the portable file's driver. */
#include "sm_ccc_short.h"
#include "sm_cpu.h"
#include "sm_kern.h"

const sm_short_isa_t *sm_short_isa(sm_kvar_t v)
{
#if SM_BUILD_X86
  if (v == SM_KVAR_AVX512)
    return &sm_short_avx512;
  if (v == SM_KVAR_AVX2)
    return &sm_short_avx2;
#else
  (void)v;
#endif
  return &sm_short_popc;
}

const sm_short_isa_t *sm_short_best(void)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  return sm_short_isa(cpu->vpopcntdq ? SM_KVAR_AVX512
                      : cpu->avx2    ? SM_KVAR_AVX2
                                     : SM_KVAR_POPC);
}
