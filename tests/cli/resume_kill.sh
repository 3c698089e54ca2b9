#!/bin/sh
# resume_kill.sh: runs killed with SIGKILL at several moments (while
# computing and while writing output) and started again with --resume give
# output files byte-identical to an uninterrupted run, and the same
# checksum; a manifest from another command is refused; --resume without a
# manifest computes everything; under mpirun too.
. "$(dirname "$0")/../lib.sh"

A="compute --metric ccc --synthetic random --num-vector 900 --num-field 1500 --missing-rate 0.05 --block-size 60 --quiet"
# shellcheck disable=SC2086
run_ok "uninterrupted" "$STARMET" $A --output "$T/full"

# kill at increasing delays; the last ones land in the output writing
for delay in 0.15 0.4 0.7 1.0 1.4; do
  rm -f "$T"/kr.*
  # shellcheck disable=SC2086
  "$STARMET" $A --output "$T/kr" > /dev/null 2>&1 &
  pid=$!
  sleep $delay
  kill -9 $pid 2> /dev/null
  wait $pid 2> /dev/null
  if [ -e "$T/kr.tsv" ]; then
    # finished before the kill: nothing to resume, the file must be whole
    cmp -s "$T/kr.tsv" "$T/full.tsv" && pass || fail "run finished before kill at $delay s but differs"
    continue
  fi
  [ ! -e "$T/kr.tsv" ] && pass || fail "killed run left a complete-looking file"
  # a second kill during the resumed run, then a final resume
  # shellcheck disable=SC2086
  "$STARMET" $A --output "$T/kr" --resume > /dev/null 2>&1 &
  pid=$!
  sleep 0.2
  kill -9 $pid 2> /dev/null
  wait $pid 2> /dev/null
  # shellcheck disable=SC2086
  run_ok "resume after kill at $delay s" "$STARMET" $A --output "$T/kr" --resume
  cmp -s "$T/kr.tsv" "$T/full.tsv" && pass || fail "resumed output differs (kill at $delay s)"
  [ "$(cks "$T/kr.json")" = "$(cks "$T/full.json")" ] && pass || fail "resumed checksum differs"
  [ ! -e "$T/kr.manifest" ] && [ ! -e "$T/kr.tsv.part" ] && pass || fail "leftovers after resume"
done

# binary output resumes too (its header holds the record count)
B="$A --output-format bin"
# shellcheck disable=SC2086
run_ok "bin uninterrupted" "$STARMET" $B --output "$T/fb"
# shellcheck disable=SC2086
"$STARMET" $B --output "$T/kb" > /dev/null 2>&1 &
pid=$!; sleep 0.5; kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null
# shellcheck disable=SC2086
run_ok "bin resume" "$STARMET" $B --output "$T/kb" --resume
cmp -s "$T/kb.bin" "$T/fb.bin" && pass || fail "resumed binary output differs"

# a manifest written by another command is refused
rm -f "$T"/km.*
# shellcheck disable=SC2086
"$STARMET" $A --output "$T/km" > /dev/null 2>&1 &
pid=$!; sleep 0.4; kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null
if [ -e "$T/km.manifest" ]; then
  expect_error "different command" "km.manifest.*different run" - \
    "$STARMET" compute --metric ccc --synthetic random --num-vector 900 --num-field 1500 \
    --missing-rate 0.05 --seed 2 --block-size 60 --quiet --output "$T/km" --resume
  [ ! -e "$T/km.tsv" ] && [ -e "$T/km.manifest" ] && [ -e "$T/km.tsv.part" ] && pass ||
    fail "a refused resume touched the interrupted run's files"
else
  fail "no manifest left by a killed run"
fi
# --resume without anything to resume computes everything
rm -f "$T"/kn.*
# shellcheck disable=SC2086
run_ok "resume from nothing" "$STARMET" $A --output "$T/kn" --resume
cmp -s "$T/kn.tsv" "$T/full.tsv" && pass || fail "resume from nothing differs"

# under mpirun: two ranks, kill, resume
if [ -n "${MPIEXEC:-}" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1
  # shellcheck disable=SC2086
  run_ok "mpi uninterrupted" $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" $A --output "$T/mf"
  # shellcheck disable=SC2086
  $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" $A --output "$T/mk" > /dev/null 2>&1 &
  pid=$!; sleep 1.2; kill -9 $pid 2> /dev/null; pkill -9 -f "output $T/mk" 2> /dev/null
  wait $pid 2> /dev/null
  # shellcheck disable=SC2086
  run_ok "mpi resume" $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" $A --output "$T/mk" --resume
  cmp -s "$T/mk_0.tsv" "$T/mf_0.tsv" && cmp -s "$T/mk_1.tsv" "$T/mf_1.tsv" && pass ||
    fail "mpi resumed output differs"
fi
finish
