/* kern_czek2.c: Czekanowski 2-way modified GEMM (min instead of multiply)
 * and vector sums, in single and double precision from one source. */
#include "sm_kern.h"

/* Clones for the widest ISA the CPU reports, chosen at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_TARGETS                                                                       \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SM_TARGETS
#endif

#define SM_T double
#define SM_SFX d
#define SM_LANES 8
#include "kern_czek2_impl.h"
#undef SM_T
#undef SM_SFX
#undef SM_LANES

#define SM_T float
#define SM_SFX s
#define SM_LANES 16
#include "kern_czek2_impl.h"
#undef SM_T
#undef SM_SFX
#undef SM_LANES
