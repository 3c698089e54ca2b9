/* kern_czek2_sparse.c: Czekanowski 2-way numerators over packed sparse
 * tiles (sm_csr.h): each pair sums the minima of the fields both vectors
 * have, row i's entries against the other tile's field lists; vector sums
 * and the --verify check on the same tiles; float and double from one
 * source. */
#include <stdlib.h>
#include <string.h>

#include "sm_kern.h"

#define SM_T double
#define SM_SFX d
#include "kern_czek2_sparse_impl.h"
#undef SM_T
#undef SM_SFX

#define SM_T float
#define SM_SFX s
#include "kern_czek2_sparse_impl.h"
#undef SM_T
#undef SM_SFX
