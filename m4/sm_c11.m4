# SM_C11: require a C11 compiler and select -std=c11 when it is accepted.
AC_DEFUN([SM_C11], [
  AC_CACHE_CHECK([whether $CC accepts -std=c11], [sm_cv_std_c11], [
    sm_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -std=c11"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[_Static_assert(1, "c11");]], [[]])],
      [sm_cv_std_c11=yes], [sm_cv_std_c11=no])
    CFLAGS=$sm_save_CFLAGS])
  AS_IF([test "x$sm_cv_std_c11" = xyes], [SM_STD_CFLAGS="-std=c11"],
    [AC_MSG_ERROR([a C11 compiler is required (install gcc >= 5 or clang)])])
  AC_SUBST([SM_STD_CFLAGS])
])
