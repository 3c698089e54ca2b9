/* kern_czek2.c: Czekanowski 2-way modified GEMM (min instead of multiply)
 * and vector sums, in single and double precision from one source. */
#include "sm_cpu.h"
#include "sm_kern.h"

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
