# SM_SANITIZERS: --enable-sanitizers builds everything with AddressSanitizer
# and UndefinedBehaviorSanitizer (scripts/check --sanitize uses it).
AC_DEFUN([SM_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined])],
    [], [enable_sanitizers=no])
  SM_SAN_CFLAGS=
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SM_SAN_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    sm_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $SM_SAN_CFLAGS"
    AC_MSG_CHECKING([whether $CC supports $SM_SAN_CFLAGS])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[]], [[]])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([the compiler cannot build with sanitizers: install gcc's libasan/libubsan (apt-get install gcc) or configure without --enable-sanitizers])])
    CFLAGS=$sm_save_CFLAGS])
  AC_SUBST([SM_SAN_CFLAGS])
  AM_CONDITIONAL([SM_SANITIZE], [test "x$enable_sanitizers" = xyes])
])
