# SM_PKG_REQUIRE(PREFIX, MODULES, DEBIAN-PACKAGE): find MODULES with
# pkg-config, set PREFIX_CFLAGS / PREFIX_LIBS, or stop saying what to install.
# Their headers are included as system headers (-isystem): our warnings, and
# -Werror, are for our code (CUDA 13's cusparse.h, which a CUDA-enabled
# starpu.h includes, uses its own deprecated types).
# SM_PKG_OPTIONAL(PREFIX, MODULES, DEBIAN-PACKAGE): the same, but only warns;
# sets sm_have_<prefix in lower case> and the conditional HAVE_<PREFIX>.
AC_DEFUN([SM_PKG_CONFIG_PROG], [
  AC_ARG_VAR([PKG_CONFIG], [path to the pkg-config program])
  AC_ARG_VAR([PKG_CONFIG_PATH], [where pkg-config looks first (kept when make reruns configure)])
  AS_IF([test "x$PKG_CONFIG" = x], [AC_PATH_PROG([PKG_CONFIG], [pkg-config], [])])
  AS_IF([test "x$PKG_CONFIG" = x],
    [AC_MSG_ERROR([pkg-config not found: install it (apt-get install pkg-config)])])
])

AC_DEFUN([SM_PKG_PROBE], [
  AC_REQUIRE([SM_PKG_CONFIG_PROG])
  AC_ARG_VAR([$1][_CFLAGS], [C compiler flags for $2, overriding pkg-config])
  AC_ARG_VAR([$1][_LIBS], [linker flags for $2, overriding pkg-config])
  AC_MSG_CHECKING([for $2])
  AS_IF([test "x$$1[]_LIBS" != x], [sm_pkg_found=yes],
        [$PKG_CONFIG --exists "$2" 2>/dev/null],
        [$1[]_CFLAGS=`$PKG_CONFIG --cflags "$2" | sed -e 's/^-I/-isystem /' -e 's/ -I/ -isystem /g'`
         $1[]_LIBS=`$PKG_CONFIG --libs "$2"`
         sm_pkg_found=yes],
        [sm_pkg_found=no])
  AC_MSG_RESULT([$sm_pkg_found])
])

AC_DEFUN([SM_PKG_REQUIRE], [
  SM_PKG_PROBE([$1], [$2])
  AS_IF([test "x$sm_pkg_found" != xyes],
    [AC_MSG_ERROR([$2 not found: install $3 (apt-get install $3), or set $1_CFLAGS and $1_LIBS])])
])

AC_DEFUN([SM_PKG_OPTIONAL], [
  SM_PKG_PROBE([$1], [$2])
  m4_tolower([sm_have_$1])=$sm_pkg_found
  AS_IF([test "x$sm_pkg_found" != xyes],
    [AC_MSG_WARN([$2 not found: the unit tests need it (apt-get install $3)])])
  AM_CONDITIONAL([HAVE_$1], [test "x$sm_pkg_found" = xyes])
])
