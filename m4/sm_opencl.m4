# SM_OPENCL: when StarPU was built with OpenCL, the OpenCL codelets need
# the OpenCL loader (ocl-icd-opencl-dev); PoCL (pocl-opencl-icd) gives a
# CPU OpenCL device for testing the heterogeneous path without a GPU.
AC_DEFUN([SM_OPENCL], [
  AC_MSG_CHECKING([whether StarPU was built with OpenCL])
  sm_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $STARPU_CFLAGS"
  AC_PREPROC_IFELSE([AC_LANG_PROGRAM([[#include <starpu_config.h>
#ifndef STARPU_USE_OPENCL
#error no opencl
#endif]], [[]])], [sm_starpu_opencl=yes], [sm_starpu_opencl=no])
  CPPFLAGS=$sm_save_CPPFLAGS
  AC_MSG_RESULT([$sm_starpu_opencl])
  AS_IF([test "x$sm_starpu_opencl" = xyes], [
    SM_PKG_REQUIRE([OPENCL], [OpenCL], [ocl-icd-opencl-dev])
  ])
  AC_SUBST([OPENCL_LIBS])
  AC_SUBST([OPENCL_CFLAGS])
])
