# SM_STARPU: find StarPU, 1.4 or 1.3: the one installed in --with-starpu=PREFIX,
# else the newest that pkg-config finds (StarPU 1.4 also installs a
# starpu-1.3.pc, so 1.4 is asked for first). Sets STARPU_CFLAGS / STARPU_LIBS,
# sm_starpu_series (1.3 or 1.4, the pkg-config module suffix, also for
# starpumpi-SERIES) and sm_starpu_version; defines SM_STARPU_BUILT_VERSION
# and SM_STARPU_BINDIR (StarPU's tools: starpu_fxt_tool for --trace-paje).
# Stops, naming the ways to get one, when there is none. With a PREFIX its
# libraries get an rpath, so that starmet runs without LD_LIBRARY_PATH.
AC_DEFUN([SM_STARPU], [
  AC_REQUIRE([SM_PKG_CONFIG_PROG])
  AC_ARG_WITH([starpu],
    [AS_HELP_STRING([--with-starpu=PREFIX],
      [build against the StarPU (1.3 or 1.4) installed in PREFIX; default: the newest pkg-config finds])],
    [], [with_starpu=check])
  sm_starpu_hint="install Debian's (apt-get install libstarpu-dev: StarPU 1.3 on Debian 12, 1.4 on Debian 13), or build StarPU 1.4 with scripts/setup-starpu 1.4 @<:@TARBALL@:>@, or give --with-starpu=PREFIX"
  sm_starpu_series=
  AS_CASE([$with_starpu],
    [no], [AC_MSG_ERROR([starmet cannot be built without StarPU: $sm_starpu_hint])],
    [check|yes], [],
    [sm_starpu_pc=
     for d in "$with_starpu/lib/pkgconfig" "$with_starpu/lib64/pkgconfig" "$with_starpu"/lib/*-linux-gnu/pkgconfig; do
       for s in 1.4 1.3; do
         if test -z "$sm_starpu_pc" && test -f "$d/starpu-$s.pc"; then
           sm_starpu_pc=$d
           sm_starpu_series=$s
         fi
       done
     done
     AS_IF([test -z "$sm_starpu_pc"],
       [AC_MSG_ERROR([--with-starpu=$with_starpu: no starpu-1.4.pc or starpu-1.3.pc in $with_starpu/lib*/pkgconfig (give the prefix StarPU was installed into)])])
     PKG_CONFIG_PATH="$sm_starpu_pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
     export PKG_CONFIG_PATH
     LDFLAGS="-Wl,-rpath,`dirname $sm_starpu_pc` $LDFLAGS"])
  AS_IF([test -z "$sm_starpu_series"], [
    for s in 1.4 1.3; do
      if test -z "$sm_starpu_series" && $PKG_CONFIG --exists "starpu-$s" 2>/dev/null; then
        sm_starpu_series=$s
      fi
    done])
  AS_IF([test -z "$sm_starpu_series"],
    [AC_MSG_ERROR([StarPU not found (pkg-config knows neither starpu-1.4 nor starpu-1.3): $sm_starpu_hint])])
  SM_PKG_REQUIRE([STARPU], [starpu-$sm_starpu_series], [libstarpu-dev])
  sm_starpu_version=`$PKG_CONFIG --modversion "starpu-$sm_starpu_series"`
  AS_CASE([$sm_starpu_version],
    [1.3.*|1.4.*], [],
    [AC_MSG_ERROR([StarPU $sm_starpu_version (starpu-$sm_starpu_series): starmet runs on StarPU 1.3 and 1.4; $sm_starpu_hint])])
  AC_DEFINE_UNQUOTED([SM_STARPU_BUILT_VERSION], ["$sm_starpu_version"],
    [the StarPU version starmet was configured against])
  sm_starpu_bindir=`$PKG_CONFIG --variable=exec_prefix "starpu-$sm_starpu_series"`/bin
  AC_DEFINE_UNQUOTED([SM_STARPU_BINDIR], ["$sm_starpu_bindir"],
    [where the StarPU starmet was configured against has its tools])
  AC_SUBST([STARPU_SERIES], [$sm_starpu_series])
])
