#!/bin/sh
# crash_report.sh: a starmet that dies of a fatal signal (here SIGABRT,
# sent while it is paused mid-run) says so on stderr, with its stack, and
# appends the same report to $STARMET_CRASH_LOG; it still dies of the
# signal (exit 134), leaving no complete-looking output. Under mpirun the
# report names the rank, and reaches the crash log even when mpirun ends
# the job first. (src/common/sm_crash.c)
. "$(dirname "$0")/../lib.sh"
if [ -n "$(sed -n 's/^SM_SAN_CFLAGS = *//p' "$top_builddir/Makefile" 2> /dev/null)" ]; then
  echo "starmet is built with sanitizers, whose own reports replace this one: skipped"
  exit 77
fi
A="compute --metric ccc --synthetic random --num-vector 600 --num-field 800 --block-size 60 --quiet"
LOG=$T/crash.test.log

# shellcheck disable=SC2086
STARMET_CRASH_LOG=$LOG while_stopped "$T/c" 'kill -ABRT "$WS_PID"' \
  "$STARMET" $A --output "$T/c" --debug-pause-after-blocks 3
rc=$?
[ $rc -eq 134 ] && pass || fail "aborted run: exit $rc, not 134 (SIGABRT)"
grep -q "^starmet: fatal signal 6 (abort), pid [0-9]*; the stack:" "$T/bg.err" && pass ||
  fail "no report on stderr: $(head -c 300 "$T/bg.err")"
[ "$(grep -c '(+0x[0-9a-f]*)\[0x' "$T/bg.err")" -ge 3 ] && pass || fail "no stack frames on stderr"
grep -q "^starmet: fatal signal 6 (abort)" "$LOG" && pass || fail "no report in the crash log"
[ ! -e "$T/c.tsv" ] && pass || fail "the aborted run left a complete-looking $T/c.tsv"

if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  rm -f "$LOG"
  # shellcheck disable=SC2086
  STARMET_CRASH_LOG=$LOG while_stopped "$T/m" 'kill -ABRT "$WS_PID"' \
    "$MPIEXEC" ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" $A --output "$T/m" --debug-pause-after-blocks 3
  rc=$?
  [ $rc -ne 0 ] && pass || fail "2 ranks, one aborted: exit 0"
  grep -q "^starmet: fatal signal 6 (abort) on rank [01], pid [0-9]*; the stack:" "$LOG" && pass ||
    fail "2 ranks: no report naming the rank in the crash log: $(head -c 300 "$LOG" 2> /dev/null)"
  [ ! -e "$T/m_0.tsv" ] && [ ! -e "$T/m_1.tsv" ] && pass ||
    fail "2 ranks: the aborted run left complete-looking files"
else
  skip_part "no MPI launcher: the 2-rank abort"
fi
finish
