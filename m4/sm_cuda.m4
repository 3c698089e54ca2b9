# SM_CUDA: find nvcc and cuBLAS. The CUDA codelets go into the binary only
# when StarPU itself has CUDA; otherwise the .cu files are still compiled by
# "make check" so that they keep building.
#
# The GPU architectures: NVCC_ARCH_FLAGS when given (every architecture it
# names must be one the toolkit targets, or configure stops), else SASS for
# each of sm_70 (Volta: V100), 75, 80, 86, 89, 90, 100 and 120 that this
# toolkit targets (nvcc --list-gpu-arch; CUDA 13 dropped sm_70, CUDA 12.x
# has it) plus PTX for the highest. The codes chosen ("sm_80 ...
# compute_120") are printed, kept in SM_CUDA_ARCHS (config.h and the
# Makefile) with the toolkit's version, SM_CUDA_VERSION, so that
# `starmet --version` names them.
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
     CUDA_LIBS="-L$CUDA_PREFIX/lib64 -lcublas -lcudart -lstdc++"
     dnl the toolkit's libraries are found at run time wherever it is
     dnl (CUDA_HOME=/usr/local/cuda-12.x): an rpath, as for StarPU's
     AS_IF([test -d "$CUDA_PREFIX/lib64" && test "x$CUDA_PREFIX" != x/usr],
       [CUDA_LIBS="-Wl,-rpath,$CUDA_PREFIX/lib64 $CUDA_LIBS"])])
  AC_ARG_VAR([NVCC_ARCH_FLAGS],
    [nvcc architecture flags, e.g. "-gencode arch=compute_80,code=sm_80" (default: SASS for sm_70 (V100), 75, 80, 86, 89, 90, 100 and 120 where the toolkit has them, and PTX for the highest)])
  SM_CUDA_ARCHS=
  SM_CUDA_VERSION=
  AS_IF([test "x$NVCC" != x], [SM_CUDA_ARCH_FLAGS])
  AC_SUBST([SM_CUDA_ARCHS])
  AC_SUBST([NVCC])
  AC_SUBST([CUDA_PREFIX])
  AC_SUBST([CUDA_LIBS])
  AM_CONDITIONAL([HAVE_NVCC], [test "x$NVCC" != x])
  AM_CONDITIONAL([SM_CUDA_ENABLED], [test "x$sm_cuda_enabled" = xyes])
])

# SM_CUDA_ARCH_FLAGS: NVCC_ARCH_FLAGS checked (when given) or chosen, and
# SM_CUDA_ARCHS / SM_CUDA_VERSION set (see SM_CUDA).
AC_DEFUN([SM_CUDA_ARCH_FLAGS], [
  SM_CUDA_VERSION=`"$NVCC" --version 2>/dev/null | sed -n 's/.*release \([[0-9]][[0-9]]*\.[[0-9]][[0-9]]*\).*/\1/p' | head -n 1`
  AC_MSG_CHECKING([the GPU architectures nvcc ${SM_CUDA_VERSION:-?} targets])
  dnl the architecture numbers (75 80 ...), ascending
  sm_nvcc_archs=`"$NVCC" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([[0-9]][[0-9]]*\)$/\1/p' | sort -n -u | tr '\n' ' ' | sed 's/ *$//'`
  dnl older toolkits name them in --help, under --gpu-architecture
  AS_IF([test -z "$sm_nvcc_archs"],
    [sm_nvcc_archs=`"$NVCC" --help 2>/dev/null | tr -s "',; " '\n\n\n\n' | sed -n 's/^compute_\([[0-9]][[0-9]]*\)\.*$/\1/p' | sort -n -u | tr '\n' ' ' | sed 's/ *$//'`])
  AS_IF([test -z "$sm_nvcc_archs"],
    [AC_MSG_RESULT([unknown])
     AC_MSG_ERROR([$NVCC does not name the architectures it targets (nvcc --list-gpu-arch, nor nvcc --help): use another toolkit, or --without-cuda])])
  AC_MSG_RESULT([$sm_nvcc_archs])
  sm_cuda_user=no
  AS_IF([test -n "$NVCC_ARCH_FLAGS"], [
    sm_cuda_user=yes
    SM_CUDA_PARSE_ARCHS([$NVCC_ARCH_FLAGS])
    AS_IF([test -z "$SM_CUDA_ARCHS"],
      [AC_MSG_ERROR([NVCC_ARCH_FLAGS="$NVCC_ARCH_FLAGS" names no GPU architecture: give -gencode arch=compute_NN,code=sm_NN for each (NN: one of $sm_nvcc_archs), or leave NVCC_ARCH_FLAGS unset for the default])])
    sm_bad=
    for c in $SM_CUDA_ARCHS; do
      n=`echo "$c" | sed 's/^[[a-z]]*_\([[0-9]][[0-9]]*\).*/\1/'`
      case " $sm_nvcc_archs " in
        *" $n "*) ;;
        *) sm_bad="$sm_bad $c" ;;
      esac
    done
    AS_IF([test -n "$sm_bad"], [
      sm_lo=`echo "$sm_nvcc_archs" | awk '{print $[1]}'`
      sm_older=
      for c in $sm_bad; do
        n=`echo "$c" | sed 's/^[[a-z]]*_\([[0-9]][[0-9]]*\).*/\1/'`
        if test "$n" -lt "$sm_lo"; then
          if test "$n" -ge 50; then sm_older="CUDA 12.x"; elif test -z "$sm_older"; then sm_older="CUDA 11.x"; fi
        fi
      done
      sm_fix="drop it from NVCC_ARCH_FLAGS (this toolkit targets: $sm_nvcc_archs)"
      sm_dir=`echo "$sm_older" | sed 's/CUDA /cuda-/'`
      AS_IF([test -n "$sm_older"],
        [sm_fix="$sm_fix, or build with a $sm_older toolkit, which still targets it: --with-cuda=/usr/local/$sm_dir (scripts/setup-gpu: CUDA_HOME=/usr/local/$sm_dir scripts/setup-gpu)"])
      AC_MSG_ERROR([NVCC_ARCH_FLAGS names$sm_bad, which CUDA ${SM_CUDA_VERSION:-?} ($NVCC) cannot target: $sm_fix])])
  ], [
    sm_sass=
    for n in 70 75 80 86 89 90 100 120; do
      case " $sm_nvcc_archs " in
        *" $n "*) sm_sass="$sm_sass $n" ;;
      esac
    done
    AS_IF([test -z "$sm_sass"],
      [AC_MSG_ERROR([CUDA ${SM_CUDA_VERSION:-?} ($NVCC) targets none of sm_70 .. sm_120 (it targets $sm_nvcc_archs): use another toolkit, or name the architectures in NVCC_ARCH_FLAGS])])
    NVCC_ARCH_FLAGS=
    SM_CUDA_ARCHS=
    for n in $sm_sass; do
      NVCC_ARCH_FLAGS="$NVCC_ARCH_FLAGS -gencode arch=compute_$n,code=sm_$n"
      SM_CUDA_ARCHS="$SM_CUDA_ARCHS sm_$n"
      sm_top=$n
    done
    NVCC_ARCH_FLAGS="${NVCC_ARCH_FLAGS# } -gencode arch=compute_$sm_top,code=compute_$sm_top"
    SM_CUDA_ARCHS="${SM_CUDA_ARCHS# } compute_$sm_top"
  ])
  AS_IF([test "x$sm_cuda_user" = xyes], [sm_from="from NVCC_ARCH_FLAGS"], [sm_from="default for CUDA ${SM_CUDA_VERSION:-?}"])
  AC_MSG_CHECKING([the GPU code compiled in (SASS sm_NN, PTX compute_NN)])
  AC_MSG_RESULT([$SM_CUDA_ARCHS ($sm_from)])
  AC_DEFINE_UNQUOTED([SM_CUDA_ARCHS], ["$SM_CUDA_ARCHS"],
    [GPU code in the CUDA kernels: SASS sm_NN and PTX compute_NN])
  AC_DEFINE_UNQUOTED([SM_CUDA_VERSION], ["$SM_CUDA_VERSION"], [The CUDA toolkit's version])
])

# SM_CUDA_PARSE_ARCHS(FLAGS): the GPU code nvcc FLAGS produce, as
# SM_CUDA_ARCHS: SASS sm_NN first, then PTX compute_NN, each ascending.
# Understands -gencode/--generate-code arch=compute_NN,code=LIST,
# -arch/--gpu-architecture sm_NN (SASS and PTX) or compute_NN (PTX), with
# -code/--gpu-code LIST, and -arch=all / all-major (every architecture, or
# every major one, of the toolkit, PTX for the highest); stops on
# -arch=native (there may be no GPU where starmet is built).
AC_DEFUN([SM_CUDA_PARSE_ARCHS], [
  sm_words=`echo " $1 " | sed -e 's/--gpu-architecture/-arch/g' -e 's/--gpu-code/-code/g' \
    -e 's/--generate-code/-gencode/g' -e 's/-gencode[[ =]]*/ -gencode=/g' \
    -e 's/ -arch[[ =]]*/ -arch=/g' -e 's/ -code[[ =]]*/ -code=/g' | tr -d '@<:@@:>@{}"' | tr -d "'"`
  sm_codes=
  sm_arch=
  sm_code=
  for w in $sm_words; do
    case $w in
      -gencode=*) sm_codes="$sm_codes `echo "${w#*,code=}" | tr ',' ' '`" ;;
      -arch=*) sm_arch=${w#-arch=} ;;
      -code=*) sm_code=`echo "${w#-code=}" | tr ',' ' '` ;;
    esac
  done
  AS_IF([test -n "$sm_code"], [sm_codes="$sm_codes $sm_code"],
    [case $sm_arch in
      "") ;;
      sm_*) sm_codes="$sm_codes $sm_arch compute_${sm_arch#sm_}" ;;
      compute_*) sm_codes="$sm_codes $sm_arch" ;;
      all | all-major)
        sm_top=
        for n in $sm_nvcc_archs; do
          case $sm_arch:$n in all-major:*[[1-9]]) continue ;; esac
          sm_codes="$sm_codes sm_$n"
          sm_top=$n
        done
        sm_codes="$sm_codes compute_$sm_top" ;;
      native)
        AC_MSG_ERROR([NVCC_ARCH_FLAGS: -arch=native asks nvcc for the GPUs of the machine that builds, which may have none: name the architectures instead (scripts/setup-gpu --check prints each GPU's sm_NN)]) ;;
      *) AC_MSG_ERROR([NVCC_ARCH_FLAGS: unknown architecture $sm_arch (give sm_NN or compute_NN)]) ;;
    esac])
  dnl lto_NN (link-time code) is not GPU code the binary carries as is
  SM_CUDA_ARCHS=`for c in $sm_codes; do echo "$c"; done | grep -E '^(sm|compute)_[[0-9]]+[[a-z]]?$' |
    sed -e 's/^sm_/0 sm_/' -e 's/^compute_/1 compute_/' | sed 's/^\([[01]]\) \([[a-z]]*_\)\([[0-9]]*\)/\1 \3 \2\3/' |
    sort -k1,1n -k2,2n -k3,3 -u | awk '{print $[3]}' | tr '\n' ' ' | sed 's/ *$//'`
])
