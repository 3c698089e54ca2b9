# SM_WARNINGS: the warning flags starmet is built with (--disable-werror
# keeps them as warnings; -Werror is on by default for developers).
AC_DEFUN([SM_WARNINGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--disable-werror], [do not turn warnings into errors])],
    [], [enable_werror=yes])
  SM_WARN_CFLAGS="-Wall -Wextra -Wshadow -Wno-unused-parameter"
  AS_IF([test "x$enable_werror" = xyes],
        [SM_WARN_CFLAGS="$SM_WARN_CFLAGS -Werror"])
  AC_SUBST([SM_WARN_CFLAGS])
])
