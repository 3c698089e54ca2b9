# SM_STARPU_SIMGRID: is this StarPU a simulation build (configured with
# --enable-simgrid, see scripts/setup-sim)? Then tasks do not run: StarPU
# simulates the machine of $STARPU_HOSTNAME's platform file with task times
# from the codelets' cost models. Such a StarPU has no StarPU-MPI (SimGrid's
# SMPI would need a static StarPU and smpicc): starmet runs one rank.
# Otherwise StarPU-MPI is required. (A StarPU-MPI found beside a simulation
# StarPU belongs to another StarPU and is not used.) Defines SM_SIMULATION and
# SM_HAVE_STARPU_MPI accordingly.
# SM_WITH_SIMULATION: --with-simulation[=PREFIX] builds against the
# simulation StarPU in PREFIX (default /opt/starpu-sim, where
# scripts/setup-sim installs it) as SM_STARPU's --with-starpu (its
# pkg-config files first, an rpath to its libraries), and configure stops
# if that StarPU does not simulate. Call before SM_STARPU.
AC_DEFUN([SM_WITH_SIMULATION], [
  AC_ARG_WITH([simulation],
    [AS_HELP_STRING([--with-simulation@<:@=PREFIX@:>@],
      [build against the SimGrid StarPU in PREFIX (default /opt/starpu-sim, scripts/setup-sim): a simulation build])],
    [], [with_simulation=no])
  AS_IF([test "x$with_simulation" != xno], [
    AS_IF([test "x$with_simulation" = xyes], [with_simulation=/opt/starpu-sim])
    AS_IF([test -d "$with_simulation"], [],
      [AC_MSG_ERROR([--with-simulation: no StarPU in $with_simulation (run scripts/setup-sim first)])])
    AS_IF([test "x${with_starpu:-check}" != xcheck && test "x$with_starpu" != "x$with_simulation"],
      [AC_MSG_ERROR([--with-simulation=$with_simulation and --with-starpu=$with_starpu name two StarPUs: give one])])
    dnl SM_STARPU then takes that StarPU (its pkg-config files, an rpath)
    with_starpu=$with_simulation
  ])
])

AC_DEFUN([SM_STARPU_SIMGRID], [
  AC_MSG_CHECKING([whether StarPU simulates the machine (SimGrid)])
  sm_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $STARPU_CFLAGS"
  AC_PREPROC_IFELSE([AC_LANG_PROGRAM([[#include <starpu_config.h>
#ifndef STARPU_SIMGRID
#error not a simulation build
#endif]], [[]])], [sm_starpu_simgrid=yes], [sm_starpu_simgrid=no])
  CPPFLAGS=$sm_save_CPPFLAGS
  AC_MSG_RESULT([$sm_starpu_simgrid])
  AS_IF([test "x$sm_starpu_simgrid" = xyes],
    [AC_DEFINE([SM_SIMULATION], [1], [StarPU simulates the machine: kernels do not run])
     dnl not probed: a starpumpi that pkg-config finds is another StarPU's
     sm_pkg_found=no],
    [SM_PKG_REQUIRE([STARPUMPI], [starpumpi-$sm_starpu_series], [libstarpu-dev (with StarPU-MPI)])])
  AS_IF([test "x$sm_pkg_found" = xyes],
    [AC_DEFINE([SM_HAVE_STARPU_MPI], [1], [StarPU-MPI moves data between ranks])],
    [STARPUMPI_CFLAGS= ; STARPUMPI_LIBS=])
  AS_IF([test "x$with_simulation" != xno && test "x$sm_starpu_simgrid" != xyes],
    [AC_MSG_ERROR([--with-simulation: the StarPU in $with_simulation was not built with SimGrid (rebuild it with scripts/setup-sim)])])
  AM_CONDITIONAL([SM_SIMULATION], [test "x$sm_starpu_simgrid" = xyes])
])
