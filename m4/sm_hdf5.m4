# SM_HDF5: the HDF5 C library, for BIOM 2.1 tables (.biom, what QIIME 2
# and Qiita hand out). --with-hdf5 (default: where it is found), or
# --with-hdf5=PREFIX (PREFIX/include, PREFIX/lib), or --without-hdf5.
# Looked for as pkg-config's hdf5, then as Debian's serial build
# (/usr/include/hdf5/serial, -lhdf5_serial), then as a plain -lhdf5; each
# candidate must link. Sets HDF5_CFLAGS / HDF5_LIBS (headers as system
# headers, like SM_PKG_PROBE's), sm_have_hdf5, and defines SM_HAVE_HDF5.
# Without it a .biom HDF5 input is refused saying how to get one.
AC_DEFUN([SM_HDF5], [
  AC_REQUIRE([SM_PKG_CONFIG_PROG])
  AC_ARG_WITH([hdf5],
    [AS_HELP_STRING([--with-hdf5@<:@=PREFIX@:>@],
      [read BIOM 2.1 (HDF5) tables through the HDF5 C library (default: yes where it is found; libhdf5-dev)])],
    [], [with_hdf5=check])
  AC_ARG_VAR([HDF5_CFLAGS], [C compiler flags for HDF5, overriding the search])
  AC_ARG_VAR([HDF5_LIBS], [linker flags for HDF5, overriding the search])
  sm_have_hdf5=no
  AS_IF([test "x$with_hdf5" != xno], [
    AS_CASE([$with_hdf5],
      [check|yes], [
        sm_hdf5_tries=
        AS_IF([test "x$HDF5_LIBS" != x], [sm_hdf5_tries="given"])
        AS_IF([$PKG_CONFIG --exists hdf5 2>/dev/null], [sm_hdf5_tries="$sm_hdf5_tries pkgconfig"])
        sm_hdf5_tries="$sm_hdf5_tries debian plain"],
      [sm_hdf5_tries=prefix])
    sm_save_CPPFLAGS=$CPPFLAGS
    sm_save_LIBS=$LIBS
    for sm_hdf5_try in $sm_hdf5_tries; do
      AS_CASE([$sm_hdf5_try],
        [given], [sm_hdf5_c=$HDF5_CFLAGS; sm_hdf5_l=$HDF5_LIBS],
        [pkgconfig], [sm_hdf5_c=`$PKG_CONFIG --cflags hdf5`; sm_hdf5_l=`$PKG_CONFIG --libs hdf5`],
        [debian], [sm_hdf5_c=-I/usr/include/hdf5/serial; sm_hdf5_l=-lhdf5_serial],
        [plain], [sm_hdf5_c=; sm_hdf5_l=-lhdf5],
        [prefix], [sm_hdf5_c="-I$with_hdf5/include"
                   sm_hdf5_l="-L$with_hdf5/lib -Wl,-rpath,$with_hdf5/lib -lhdf5"])
      AC_MSG_CHECKING([for HDF5 ($sm_hdf5_try: $sm_hdf5_c $sm_hdf5_l)])
      CPPFLAGS="$sm_save_CPPFLAGS $sm_hdf5_c"
      LIBS="$sm_hdf5_l $sm_save_LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hdf5.h>]],
          [[unsigned a, b, c; return H5open() < 0 || H5get_libversion(&a, &b, &c) < 0;]])],
        [sm_have_hdf5=yes], [])
      AC_MSG_RESULT([$sm_have_hdf5])
      AS_IF([test "x$sm_have_hdf5" = xyes], [
        HDF5_CFLAGS=`echo "$sm_hdf5_c" | sed -e 's/^-I/-isystem /' -e 's/ -I/ -isystem /g'`
        HDF5_LIBS=$sm_hdf5_l
        break])
    done
    CPPFLAGS=$sm_save_CPPFLAGS
    LIBS=$sm_save_LIBS
    AS_IF([test "x$sm_have_hdf5" != xyes && test "x$with_hdf5" != xcheck],
      [AC_MSG_ERROR([HDF5 not found (--with-hdf5=$with_hdf5): install libhdf5-dev (apt-get install libhdf5-dev), give its prefix, or configure --without-hdf5 (.biom HDF5 tables are then refused)])])
    AS_IF([test "x$sm_have_hdf5" != xyes],
      [AC_MSG_WARN([HDF5 not found: .biom (BIOM 2.1, HDF5) tables will be refused; install libhdf5-dev (apt-get install libhdf5-dev) to read them])])
  ])
  AS_IF([test "x$sm_have_hdf5" = xyes],
    [AC_DEFINE([SM_HAVE_HDF5], [1], [BIOM 2.1 (HDF5) input through the HDF5 C library])],
    [HDF5_CFLAGS=; HDF5_LIBS=])
  AC_SUBST([HDF5_CFLAGS])
  AC_SUBST([HDF5_LIBS])
])
