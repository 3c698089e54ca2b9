# SM_CUDA: find nvcc and cuBLAS. The CUDA codelets go into the binary only
# when StarPU itself has CUDA; otherwise the .cu files are still compiled by
# "make check" so that they keep building.
AC_DEFUN([SM_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=DIR], [CUDA toolkit prefix (default: /usr/local/cuda); --without-cuda disables it])],
    [], [with_cuda=check])
  NVCC=
  CUDA_PREFIX=
  AS_IF([test "x$with_cuda" != xno], [
    AS_IF([test "x$with_cuda" = xcheck || test "x$with_cuda" = xyes],
          [sm_cuda_dirs="/usr/local/cuda /usr"], [sm_cuda_dirs="$with_cuda"])
    for d in $sm_cuda_dirs; do
      if test -x "$d/bin/nvcc"; then NVCC="$d/bin/nvcc"; CUDA_PREFIX="$d"; break; fi
    done
    AS_IF([test "x$NVCC" = x && test "x$with_cuda" != xcheck],
      [AC_MSG_ERROR([nvcc not found under $sm_cuda_dirs: install the CUDA toolkit or use --without-cuda])])
  ])
  AC_MSG_CHECKING([for nvcc])
  AC_MSG_RESULT([${NVCC:-no}])
  AC_MSG_CHECKING([whether StarPU was built with CUDA])
  sm_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $STARPU_CFLAGS"
  AC_PREPROC_IFELSE([AC_LANG_PROGRAM([[#include <starpu_config.h>
#ifndef STARPU_USE_CUDA
#error no cuda
#endif]], [[]])], [sm_starpu_cuda=yes], [sm_starpu_cuda=no])
  CPPFLAGS=$sm_save_CPPFLAGS
  AC_MSG_RESULT([$sm_starpu_cuda])
  sm_cuda_enabled=no
  AS_IF([test "x$NVCC" != x && test "x$sm_starpu_cuda" = xyes], [sm_cuda_enabled=yes])
  AS_IF([test "x$sm_cuda_enabled" = xyes],
    [AC_DEFINE([SM_USE_CUDA], [1], [CUDA codelets are compiled into starmet])
     CUDA_LIBS="-L$CUDA_PREFIX/lib64 -lcublas -lcudart -lstdc++"])
  NVCC_ARCH_FLAGS="-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
  AC_ARG_VAR([NVCC_ARCH_FLAGS], [nvcc -gencode flags (default: sm_75 .. sm_90 plus compute_90 PTX)])
  AC_SUBST([NVCC])
  AC_SUBST([CUDA_PREFIX])
  AC_SUBST([CUDA_LIBS])
  AM_CONDITIONAL([HAVE_NVCC], [test "x$NVCC" != x])
  AM_CONDITIONAL([SM_CUDA_ENABLED], [test "x$sm_cuda_enabled" = xyes])
])
