# SM_MPIRUN: the MPI launcher used by the multi-rank tests, and the flags it
# needs here (running as root, more ranks than cores).
AC_DEFUN([SM_MPIRUN], [
  AC_ARG_VAR([MPIEXEC], [MPI launcher for the multi-rank tests])
  AS_IF([test "x$MPIEXEC" = x], [AC_PATH_PROGS([MPIEXEC], [mpirun mpiexec], [])])
  AS_IF([test "x$MPIEXEC" = x],
    [AC_MSG_WARN([no mpirun found: multi-rank tests will be skipped (apt-get install openmpi-bin)])])
  MPIEXEC_FLAGS="--oversubscribe --bind-to none"
  AS_IF([test "`id -u`" = 0], [MPIEXEC_FLAGS="$MPIEXEC_FLAGS --allow-run-as-root"])
  AC_SUBST([MPIEXEC_FLAGS])
])
