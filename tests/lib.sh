# lib.sh: helpers shared by the shell tests (sourced). Each test gets a
# scratch directory; `fail` reports and exits 1; `expect_error` runs a
# command that must fail cleanly.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$PWD}"
: "${STARMET:=$top_builddir/starmet}"
SMCMP="$top_builddir/tests/tools/smcmp"
DATA="$top_srcdir/tests/data/comet"
export STARPU_SILENT=1
# StarPU takes XDG_CACHE_HOME before STARPU_HOME: the tests' own home wins
unset XDG_CACHE_HOME
export STARPU_HOME="${STARPU_HOME:-$top_builddir/.cache/starpu}"
# runs with PoCL's OpenCL device keep StarPU's files apart (another bus
# configuration; make check samples both before the tests start)
export STARPU_HOME_OPENCL="${STARPU_HOME_OPENCL:-$top_builddir/.cache/starpu-opencl}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$top_builddir/.cache/pocl}"
mkdir -p "$STARPU_HOME" "$STARPU_HOME_OPENCL" "$POCL_CACHE_DIR"
# ocl CMD...: CMD with PoCL's CPU device as StarPU's one OpenCL worker (and
# one CPU worker); ocl_probe: 0 when that worker exists
ocl() { env STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1 \
  STARPU_HOME="$STARPU_HOME_OPENCL" "$@"; }
ocl_probe() {
  ocl "$STARMET" compute --metric ccc --synthetic random --num-vector 4 --num-field 8 \
    --devices accel --summary "$T/probe.json" > "$T/probe" 2>&1 || true
  grep -q '"name": "OpenCL' "$T/probe.json" 2> /dev/null
}
T=$(mktemp -d "$top_builddir/tests/tmp.XXXXXX")
# Open MPI's session directory, one per test: concurrent mpiruns sharing
# one can fail with "File exists" (short path: it holds Unix sockets)
OMPI_MCA_orte_tmpdir_base=$(mktemp -d /tmp/smmpi.XXXXXX)
export OMPI_MCA_orte_tmpdir_base
trap 'rm -rf "$T" "$OMPI_MCA_orte_tmpdir_base"' EXIT
NPASS=0
NFAIL=0
# a rank that dies of a signal appends its stack here (src/cli/sm_crash.h):
# mpirun may end the job before the rank's stderr reaches it
export STARMET_CRASH_LOG="$T/crash.log"
# StarPU's bus files, a copy per test: StarPU writes them again whenever it
# samples the bus once more, and a run that reads them meanwhile aborts
# ("Error when reading from file .../vm.affinity"), as tests running side by
# side did. The performance models stay shared (StarPU locks their files).
private_bus() {
  mkdir -p "$1/.starpu/sampling/codelets" "$2/.starpu/sampling"
  if [ -d "$1/.starpu/sampling/bus" ]; then
    cp -R "$1/.starpu/sampling/bus" "$2/.starpu/sampling/bus"
  fi
  ln -s "$1/.starpu/sampling/codelets" "$2/.starpu/sampling/codelets"
}
private_bus "$STARPU_HOME" "$T/.starpu-home"
private_bus "$STARPU_HOME_OPENCL" "$T/.starpu-home-opencl"
export STARPU_HOME="$T/.starpu-home" STARPU_HOME_OPENCL="$T/.starpu-home-opencl"

# fail MSG: a failure, with the stacks of any crash since the last one
fail() {
  echo "FAIL: $*" >&2
  NFAIL=$((NFAIL + 1))
  if [ -s "$STARMET_CRASH_LOG" ]; then
    cat "$STARMET_CRASH_LOG" >&2
    : > "$STARMET_CRASH_LOG"
  fi
}
pass() { NPASS=$((NPASS + 1)); }

# run_ok NAME CMD...: the command must succeed. Under the sanitizers,
# LeakSanitizer's own tracer can crash at exit while a library's threads
# (PoCL's) go away; that is no finding about the run (a leak reads
# "detected memory leaks"), so such a run is repeated once and the second
# verdict stands. The same for an MPI rank killed by a signal that left
# no crash report ($STARMET_CRASH_LOG stays empty: starmet's handler,
# installed before MPI_Init, never ran): seen about once in several
# loaded suite runs, never in hundreds of runs of the same command, and
# taken for Open MPI's start-up or shutdown; the note says it happened.
# (Its variables are global, as every shell function's: they have names
# no test uses.)
run_ok() {
  name=$1; shift
  run_ok_st=0
  "$@" > "$T/log.out" 2> "$T/log.err" || run_ok_st=$?
  if [ $run_ok_st -ne 0 ] && grep -q "LeakSanitizer has encountered a fatal error" "$T/log.err"; then
    echo "note: $name: LeakSanitizer's tracer crashed (exit $run_ok_st); running it again" >&2
    run_ok_st=0
    "$@" > "$T/log.out" 2> "$T/log.err" || run_ok_st=$?
  fi
  if [ $run_ok_st -ne 0 ] && grep -q "exited on signal" "$T/log.err" &&
    [ ! -s "$STARMET_CRASH_LOG" ]; then
    echo "note: $name: an MPI rank died of a signal without starmet's crash report" \
      "(exit $run_ok_st; its launcher said: $(grep "exited on signal" "$T/log.err"));" \
      "running it again" >&2
    run_ok_st=0
    "$@" > "$T/log.out" 2> "$T/log.err" || run_ok_st=$?
  fi
  if [ $run_ok_st -eq 0 ]; then pass; else fail "$name: exit $run_ok_st from: $*"; cat "$T/log.err" >&2; fi
}

# same NAME SMCMP-ARGS...: two result files must agree
same() {
  name=$1; shift
  if "$SMCMP" "$@" > "$T/log.cmp" 2>&1; then pass; else
    fail "$name"; cat "$T/log.cmp" >&2; fi
}

# expect_error NAME PATTERN OUTPUT CMD...: the command must exit non-zero,
# print one error line matching PATTERN (extended regex) and leave no file
# at OUTPUT (or "-" to skip that check) nor a temporary file beside it.
expect_error() {
  name=$1 pattern=$2 out=$3; shift 3
  if "$@" > "$T/log.out" 2> "$T/log.err"; then
    fail "$name: succeeded but should have failed: $*"; return; fi
  if ! grep -Eq -- "$pattern" "$T/log.err"; then
    fail "$name: message does not match /$pattern/:"; cat "$T/log.err" >&2; return; fi
  if [ "$out" != - ] && ls "$out"* > /dev/null 2>&1; then
    fail "$name: left output behind: $(ls "$out"*)"; return; fi
  pass
}

# skip_part WHY: a part of the test that cannot run here; the script then
# ends as a SKIP (exit 77) unless something failed
NSKIP=0
# sorted NAME.tsv: its data lines sorted (pairs in any order of the blocks)
sorted() { tail -n +2 "$1" | LC_ALL=C sort; }
# same_text NAME A B: two result TSVs hold the same lines (values exactly,
# nan too, which smcmp takes as unequal)
same_text() {
  sorted "$2" > "$T/a.s"; sorted "$3" > "$T/b.s"
  if [ -s "$T/a.s" ] && cmp -s "$T/a.s" "$T/b.s"; then pass; else
    fail "$1: $(diff "$T/a.s" "$T/b.s" | head -3)"; fi
}
# same_cks NAME A.json B.json: the two runs' checksums are equal
same_cks() { [ "$(cks "$2")" = "$(cks "$3")" ] && pass || fail "$1: checksum $(cks "$2") vs $(cks "$3")"; }

skip_part() { echo "SKIPPED: $*"; NSKIP=$((NSKIP + 1)); }

finish() {
  echo "$NPASS passed, $NFAIL failed, $NSKIP parts skipped"
  [ "$NFAIL" -eq 0 ] || exit 1
  [ "$NSKIP" -eq 0 ] || exit 77
}

# stopped_pid PATTERN: the pid of a process stopped (state T) whose command
# line holds PATTERN, once there is one (a run that stopped itself with
# --debug-pause-after-blocks); empty after 60 s
stopped_pid() {
  n=0
  while [ $n -lt 600 ]; do
    for d in /proc/[0-9]*; do
      st=
      { read -r _ _ st _ < "$d/stat"; } 2> /dev/null || continue
      [ "$st" = T ] || continue
      tr '\0' ' ' < "$d/cmdline" 2> /dev/null | grep -qF -- "$1" && { echo "${d#/proc/}"; return; }
    done
    sleep 0.1
    n=$((n + 1))
  done
}

# while_stopped PREFIX ACTION CMD...: CMD (a run writing --output PREFIX,
# which stops itself once with --debug-pause-after-blocks) in the
# background; once it is stopped (its pid in WS_PID), eval ACTION, let it
# go on and wait for it. Returns CMD's exit status, its stderr in
# $T/bg.err; 125 (counted as a failure) when it never stopped.
while_stopped() {
  ws_prefix=$1 ws_action=$2
  shift 2
  "$@" > "$T/bg.out" 2> "$T/bg.err" &
  ws_bg=$!
  WS_PID=$(stopped_pid "--output $ws_prefix ")
  if [ -z "$WS_PID" ]; then
    fail "never stopped itself: $*"
    kill -9 $ws_bg 2> /dev/null
    wait $ws_bg
    return 125
  fi
  eval "$ws_action"
  kill -CONT "$WS_PID"
  wait $ws_bg
}

# cks SUMMARY.json: the run checksum recorded in a JSON summary
cks() { sed -n 's/.*"checksum": "\([^"]*\)".*/\1/p' "$1"; }

# mpi_setup: skip (exit 77) without an MPI launcher; let Open MPI run as
# root and oversubscribe the 2 cores, one StarPU CPU worker per rank
mpi_setup() {
  if [ -z "${MPIEXEC:-}" ]; then echo "no MPI launcher: skipped"; exit 77; fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export STARPU_NCPU=1
}

# simmpi_setup: skip (exit 77) without the simulated clusters' build
# (scripts/setup-sim --mpi: $SIMMPI, default _build-simmpi/starmet),
# smpirun or python3 ($PY); then mpi_setup, for the real runs compared
simmpi_setup() {
  SIMMPI=${STARMET_SIMMPI:-$top_srcdir/_build-simmpi/starmet}
  if [ ! -f "$SIMMPI" ]; then
    echo "no SMPI build at $SIMMPI (scripts/setup-sim --mpi): skipped"
    exit 77
  fi
  if ! command -v smpirun > /dev/null 2>&1; then echo "no smpirun: skipped"; exit 77; fi
  PY=${PYTHON3:-/usr/bin/python3}
  if ! "$PY" -c 'import csv, json, shlex' 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
  mpi_setup
}

# mpi_starmet NP COMMAND ARGS...: `starmet COMMAND --quiet ARGS` on NP ranks
mpi_starmet() {
  np=$1; shift; cmd=$1; shift
  # shellcheck disable=SC2086
  $MPIEXEC ${MPIEXEC_FLAGS:-} -np "$np" "$STARMET" "$cmd" --quiet "$@"
}

# merge_ranks PREFIX NP EXT OUT: the rank files PREFIX_r.EXT of an NP-rank
# run (PREFIX.EXT for one rank) as one file: the first one's header, then
# every rank's data lines in rank order
merge_ranks() {
  if [ "$2" -eq 1 ]; then cp "$1.$3" "$4"; return; fi
  head -n 1 "${1}_0.$3" > "$4"
  r=0; while [ $r -lt "$2" ]; do tail -n +2 "${1}_$r.$3" >> "$4"; r=$((r + 1)); done
}

# grid_run BS P NPV NPF NPR PROB: PROB (its options in the caller's variable
# P_<PROB>) on P ranks as the grid npv x npf x npr with --block-size BS, into
# $T/g_<P>_<npv><npf><npr>_<PROB>; the merged output must equal the one-rank
# run's $T/ref_<PROB>.tsv: within 1e-12 for REAL, else exactly with equal
# checksums
grid_run() {
  gr_bs=$1 gr_p=$2 gr_v=$3 gr_f=$4 gr_r=$5 gr_prob=$6
  eval "gr_args=\$P_$gr_prob"
  gr_o=$T/g_${gr_p}_${gr_v}${gr_f}${gr_r}_$gr_prob
  gr_g="P=$gr_p $gr_v x $gr_f x $gr_r $gr_prob"
  # shellcheck disable=SC2086,SC2154
  run_ok "$gr_g" mpi_starmet "$gr_p" compute $gr_args --block-size "$gr_bs" \
    --num-proc-vector "$gr_v" --num-proc-field "$gr_f" --num-proc-repl "$gr_r" --output "$gr_o"
  merge_ranks "$gr_o" "$gr_p" tsv "$gr_o.all.tsv"
  gr_tol=""; [ "$gr_prob" = REAL ] && gr_tol="--tol-rel 1e-12"
  # shellcheck disable=SC2086
  same "$gr_g vs one rank" $gr_tol "$T/ref_$gr_prob.tsv" "$gr_o.all.tsv"
  if [ "$gr_prob" != REAL ]; then
    [ "$(cks "$gr_o.json")" = "$(cks "$T/ref_$gr_prob.json")" ] && pass ||
      fail "$gr_g: checksum differs"
  fi
}

# sweep_take N: whether case N (counted from 1) of a test's sweep runs
# here. STARMET_TEST_SWEEP=even or odd runs every second case of the sweeps
# that repeat one check over many shapes (the rank grids, the device
# kernels' shapes; docs_run.py's pages likewise): .ci/run gives the two
# halves to CI's later
# stages (StarPU 1.4, the sanitizers), which repeat a suite whose first
# stage ran every case; unset or all: every case.
sweep_take() {
  case ${STARMET_TEST_SWEEP:-all} in
    all) return 0 ;;
    even) [ $(($1 % 2)) -eq 0 ] ;;
    odd) [ $(($1 % 2)) -eq 1 ] ;;
    *) echo "STARMET_TEST_SWEEP=$STARMET_TEST_SWEEP: all, even or odd" >&2; exit 2 ;;
  esac
}

# every_grid BS PROB...: grid_run of each problem for P = 1..4 ranks and
# every grid npv x npf x npr of P; under a half sweep (sweep_take) the grids
# in turn take the problems of even or odd rank in the list, so that each
# grid and each problem still runs.
every_grid() {
  eg_bs=$1; shift
  eg_grid=0
  for eg_p in 1 2 3 4; do
    for eg_v in 1 2 3 4; do for eg_f in 1 2 3 4; do for eg_r in 1 2 3 4; do
      [ $((eg_v * eg_f * eg_r)) -eq $eg_p ] || continue
      eg_grid=$((eg_grid + 1)) eg_k=0
      for eg_prob in "$@"; do
        eg_k=$((eg_k + 1))
        sweep_take $((eg_grid + eg_k)) || continue
        grid_run "$eg_bs" $eg_p $eg_v $eg_f $eg_r "$eg_prob"
      done
    done; done; done
  done
}

# py_setup: PY, a python3 with numpy (skip, exit 77, without one), and
# starmet_io from the source tree (which may be read-only: distcheck)
py_setup() {
  PY=${PYTHON3:-/usr/bin/python3}
  if ! "$PY" -c 'import numpy' 2> /dev/null; then
    echo "$PY has no numpy (Debian: python3-numpy): skipped"; exit 77
  fi
  PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
  export PYTHONPATH PYTHONDONTWRITEBYTECODE
}
