/* sm_cl_common.c: codelet-wide settings. */
#include <stdlib.h>
#include <string.h>

#include "sm_cl_common.h"

int sm_cl_use_mpi;
sm_kernel_t sm_cl_kernel = SM_KERNEL_AUTO;

void sm_codelets_init(int use_mpi, sm_kernel_t kernel)
{
  sm_cl_use_mpi = use_mpi;
  sm_cl_kernel = kernel;
}

const char *sm_codelets_kernel_name(const char *family)
{
  int ref = sm_cl_kernel == SM_KERNEL_REF;
  if (!strncmp(family, "czek2", 5))
    return ref ? "sm_kern_czek2_ref" : "sm_kern_czek2_blocked";
  if (!strncmp(family, "ccc2", 4))
    return ref ? "sm_kern_ccc2_ref" : "sm_kern_ccc2_popc";
  if (!strncmp(family, "czek3", 5))
    return ref ? "sm_kern_czek3_ref" : "sm_kern_czek3_blocked";
  if (!strncmp(family, "ccc3", 4))
    return ref ? "sm_kern_ccc3_ref" : "sm_kern_ccc3_popc";
  return "unknown";
}

void *sm_cl_args_dup(const void *args, size_t size)
{
  void *p = malloc(size);
  if (p)
    memcpy(p, args, size);
  return p;
}
