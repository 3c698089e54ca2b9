# SM_WITH_SMPI: --with-smpi[=PREFIX] builds starmet for SimGrid's MPI
# (SMPI): a simulation build (SM_WITH_SIMULATION, SM_STARPU_SIMGRID) whose
# StarPU, in PREFIX (default /opt/starpu-simmpi, where scripts/setup-sim
# --mpi installs it), is static and has StarPU-MPI on SMPI. starmet is then
# compiled with smpicc (CC, default smpicc), which links a shared object
# that smpirun loads once per simulated rank; configure's own test programs
# are linked as ordinary executables (SMPI_PRETEND_CC). Call before
# AC_PROG_CC.
# SM_MPI: the MPI starmet compiles against. Normally the system's (mpi-c:
# Open MPI); with --with-smpi SMPI's, which smpicc brings (MPI_CFLAGS and
# MPI_LIBS stay empty), with the static StarPU-MPI (starpumpi, and StarPU's
# own libraries as a static link needs them). Defines SM_SMPI then.
# Call after SM_STARPU_SIMGRID.
AC_DEFUN([SM_WITH_SMPI], [
  AC_BEFORE([$0], [AC_PROG_CC])
  AC_ARG_WITH([smpi],
    [AS_HELP_STRING([--with-smpi@<:@=PREFIX@:>@],
      [build for SimGrid's MPI against the static SimGrid StarPU-MPI in PREFIX (default /opt/starpu-simmpi, scripts/setup-sim --mpi), with smpicc: several simulated nodes])],
    [], [with_smpi=no])
  AS_IF([test "x$with_smpi" != xno], [
    AS_IF([test "x$with_smpi" = xyes], [with_smpi=/opt/starpu-simmpi])
    AS_IF([test -d "$with_smpi"], [],
      [AC_MSG_ERROR([--with-smpi: no StarPU in $with_smpi (run scripts/setup-sim --mpi first)])])
    AS_IF([test "x${with_simulation:-no}" != xno && test "x$with_simulation" != "x$with_smpi"],
      [AC_MSG_ERROR([--with-smpi=$with_smpi and --with-simulation=$with_simulation name two StarPUs: give one])])
    dnl SM_WITH_SIMULATION then takes that StarPU as if given
    with_simulation=$with_smpi
    AS_IF([test "x$CC" = x], [CC=smpicc])
    SMPI_PRETEND_CC=1
    export SMPI_PRETEND_CC
  ])
])

AC_DEFUN([SM_MPI], [
  AS_IF([test "x$with_smpi" = xno], [
    SM_PKG_REQUIRE([MPI], [mpi-c], [libopenmpi-dev])
  ], [
    AS_IF([test "x$sm_starpu_simgrid" != xyes],
      [AC_MSG_ERROR([--with-smpi: the StarPU in $with_smpi was not built with SimGrid (rebuild it with scripts/setup-sim --mpi)])])
    AC_MSG_CHECKING([whether $CC is SimGrid's smpicc])
    AS_IF([$CC --version 2>/dev/null | grep -q SimGrid], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-smpi: CC=$CC is not smpicc (install libsimgrid-dev)])])
    AC_MSG_CHECKING([for StarPU-MPI on SMPI (static starpumpi-$sm_starpu_series)])
    AS_IF([$PKG_CONFIG --exists "starpumpi-$sm_starpu_series" 2>/dev/null &&
           test -f "$with_smpi/lib/libstarpumpi-$sm_starpu_series.a"],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-smpi: no static StarPU-MPI in $with_smpi (rebuild it with scripts/setup-sim --mpi)])])
    dnl a static link: the libraries StarPU itself needs follow it
    STARPUMPI_CFLAGS=`$PKG_CONFIG --cflags "starpumpi-$sm_starpu_series" | sed -e 's/^-I/-isystem /' -e 's/ -I/ -isystem /g'`
    STARPUMPI_LIBS=`$PKG_CONFIG --static --libs "starpumpi-$sm_starpu_series"`
    STARPU_LIBS=`$PKG_CONFIG --static --libs "starpu-$sm_starpu_series"`
    MPI_CFLAGS=
    MPI_LIBS=
    dnl smpicc's malloc, calloc, realloc and free macros (SMPI's shared
    dnl allocations) would also rename their declarations in <malloc.h>
    CPPFLAGS="$CPPFLAGS -DSMPI_NO_OVERRIDE_MALLOC"
    AC_DEFINE([SM_HAVE_STARPU_MPI], [1], [StarPU-MPI moves data between ranks])
    AC_DEFINE([SM_SMPI], [1],
      [SimGrid's MPI: several simulated ranks in one process (smpirun), MPI started by StarPU])
  ])
])
