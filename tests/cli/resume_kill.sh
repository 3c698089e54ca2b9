#!/bin/sh
# resume_kill.sh: runs killed with SIGKILL at known points (the run kills
# itself after N blocks: --debug-stop-after-blocks), and once from outside,
# then started again with --resume, really resume and give output files
# byte-identical to an uninterrupted run, and the same checksum; a manifest from another command is refused; --resume without a
# manifest computes everything; under mpirun too.
. "$(dirname "$0")/../lib.sh"

A0="compute --metric ccc --synthetic random --num-vector 900 --num-field 1500 --missing-rate 0.05 --block-size 60"
A="$A0 --quiet"
# shellcheck disable=SC2086
run_ok "uninterrupted" "$STARMET" $A --output "$T/full"

# stop_at PREFIX N ARGS...: the run kills itself (SIGKILL) once N output
# blocks are on disk; it must die so and leave no complete-looking file
stop_at() {
  prefix=$1 n=$2; shift 2
  "$STARMET" "$@" --output "$prefix" --debug-stop-after-blocks "$n" > /dev/null 2>&1
  rc=$?
  [ $rc -eq 137 ] && pass || fail "stop after $n blocks: exit $rc, not a SIGKILL"
  [ ! -e "$prefix.tsv" ] && pass || fail "a killed run left a complete-looking file"
}

# killed after 1, 7 and 40 of the 120 blocks, killed again 5 blocks into
# the resumed run, then resumed to the end
for n in 1 7 40; do
  rm -f "$T"/kr.*
  # shellcheck disable=SC2086
  stop_at "$T/kr" $n $A
  # shellcheck disable=SC2086
  stop_at "$T/kr" 5 $A --resume
  # shellcheck disable=SC2086
  run_ok "resume after kills at block $n" "$STARMET" $A0 --output "$T/kr" --resume
  grep -q -- "--resume: [0-9]* output blocks were complete" "$T/log.err" && pass ||
    fail "the run after kills at block $n did not resume"
  cmp -s "$T/kr.tsv" "$T/full.tsv" && pass || fail "resumed output differs (kill at block $n)"
  [ "$(cks "$T/kr.json")" = "$(cks "$T/full.json")" ] && pass || fail "resumed checksum differs"
  [ ! -e "$T/kr.manifest" ] && [ ! -e "$T/kr.tsv.part" ] && pass || fail "leftovers after resume"
done

# a SIGKILL from outside at a moment of the scheduler's choosing (it may
# land inside a write): the resumed file is still exact
rm -f "$T"/kx.*
# shellcheck disable=SC2086
"$STARMET" $A --output "$T/kx" > /dev/null 2>&1 &
pid=$!
sleep 0.5
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
# shellcheck disable=SC2086
run_ok "resume after an outside kill" "$STARMET" $A --output "$T/kx" --resume
cmp -s "$T/kx.tsv" "$T/full.tsv" && pass || fail "resumed output differs (outside kill)"

# binary output resumes too (its header holds the record count)
B="$A --output-format bin"
# shellcheck disable=SC2086
run_ok "bin uninterrupted" "$STARMET" $B --output "$T/fb"
"$STARMET" $B --output "$T/kb" --debug-stop-after-blocks 30 > /dev/null 2>&1
[ -e "$T/kb.manifest" ] && [ ! -e "$T/kb.bin" ] && pass || fail "bin: nothing to resume"
# shellcheck disable=SC2086
run_ok "bin resume" "$STARMET" $A0 --output-format bin --output "$T/kb" --resume
grep -q -- "--resume: [0-9]* output blocks were complete" "$T/log.err" && pass ||
  fail "the bin run did not resume"
cmp -s "$T/kb.bin" "$T/fb.bin" && pass || fail "resumed binary output differs"

# a manifest written by another command is refused
rm -f "$T"/km.*
# shellcheck disable=SC2086
"$STARMET" $A --output "$T/km" --debug-stop-after-blocks 10 > /dev/null 2>&1
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
  $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" $A --output "$T/mk" --debug-stop-after-blocks 9 \
    > /dev/null 2>&1 && fail "a killed rank ended in success" || pass
  # shellcheck disable=SC2086
  run_ok "mpi resume" $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" $A0 --output "$T/mk" --resume
  grep -q -- "--resume: [0-9]* output blocks were complete" "$T/log.err" && pass ||
    fail "the 2-rank run did not resume"
  cmp -s "$T/mk_0.tsv" "$T/mf_0.tsv" && cmp -s "$T/mk_1.tsv" "$T/mf_1.tsv" && pass ||
    fail "mpi resumed output differs"
fi
finish
