#!/bin/sh
# retry.sh: how failed tasks are re-run, and runs that stop finishing tasks.
# - On a build with StarPU 1.4's task retry (--retry runtime, the default
#   there): its runs give the check mechanism's results and counts (checks,
#   failures caught, re-executions, faults injected) on CCC 2-way dense and
#   sparse, 3-way and integer Czekanowski; numerator tasks of PoCL's OpenCL
#   device whose injected faults were caught are retried on the CPU, so the
#   files equal a clean CPU run's and the summary says where each retry ran
#   (2-way, 3-way, int8 tiles, --devices accel and all); under MPI too.
#   On StarPU 1.3, --retry runtime is refused with the reason.
# - --task-timeout (StarPU's watchdog, both generations): a numerator that
#   never ends (--debug-hang-block) makes the run fail within the limit,
#   naming the codelet and block, with no finished output; on one rank and
#   on two; an ordinary run under a timeout is not disturbed.
. "$(dirname "$0")/../lib.sh"
jnum() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }
# retries SUMMARY FIELD ARCH: a count of the first codelet's retries record
retries() {
  tr -d '\n ' < "$1" | sed -n "s/.*\"retries\":\[\(.*\)\].*/\1/p" |
    sed -n "s/.*\"$2\":{[^}]*\"$3\":\([0-9]*\).*/\1/p" | head -n 1
}
counts() { echo "$(jnum "$1" checks) $(jnum "$1" failures_caught) $(jnum "$1" reexecuted) $(jnum "$1" faults_injected)"; }

CCC="--metric ccc --synthetic random --num-field 300"
INT="--metric czekanowski --input $DATA/czek_int_200x500_f64.bin --input-format raw --num-field 500"

expect_error "retry without verify" "--retry check with --no-verify: only tasks that fail" - \
  "$STARMET" compute $CCC --num-vector 20 --retry check --no-verify
# --retry asks for the checks: Czekanowski's too (off by default)
"$STARMET" compute $INT --num-vector 20 --quiet --retry check --output-format none \
  --summary "$T/rc.json" && grep -q '"verify": true' "$T/rc.json" && pass ||
  fail "--retry check without --verify did not check"

"$STARMET" compute $CCC --num-vector 20 --quiet --verify --retry runtime --output-format none \
  > "$T/rt.out" 2> "$T/rt.err"
if grep -q "task retry needs StarPU 1.4" "$T/rt.err"; then
  # StarPU 1.3: the check mechanism only, refused otherwise with the reason
  "$STARMET" --version | grep -q "^StarPU: 1\.3" && pass || fail "runtime retry refused on $("$STARMET" --version | grep StarPU)"
  run_ok "check on 1.3" "$STARMET" compute $CCC --num-vector 60 --block-size 8 --quiet --verify \
    --inject-faults 0.1,3 --retry check --output "$T/c13"
  grep -q '"retry": "check"' "$T/c13.json" && pass || fail "1.3: summary does not say retry check"
  runtime=0
else
  [ -s "$T/rt.err" ] && { fail "--retry runtime: $(cat "$T/rt.err")"; }
  runtime=1
fi

if [ $runtime = 1 ]; then
  # the two mechanisms: the same faults, caught and re-run, the same files
  for prob in "ccc2 $CCC --num-vector 90 --block-size 8" \
    "ccc2s $CCC --missing-rate 0.1 --num-vector 90 --block-size 8" \
    "ccc3s $CCC --missing-rate 0.1 --num-way 3 --num-vector 30 --block-size 4" \
    "czek2 $INT --num-vector 80 --block-size 8" "czek3 $INT --num-way 3 --num-vector 30 --block-size 4"; do
    tag=${prob%% *} args=${prob#* }
    # shellcheck disable=SC2086
    run_ok "clean $tag" "$STARMET" compute $args --quiet --output "$T/c_$tag"
    for how in runtime check; do
      # shellcheck disable=SC2086
      run_ok "$how $tag" "$STARMET" compute $args --quiet --verify --inject-faults 0.2,11 \
        --retry $how --output "$T/${how}_$tag"
      cmp -s "$T/c_$tag.tsv" "$T/${how}_$tag.tsv" && pass || fail "$tag $how: output differs"
      grep -q "\"retry\": \"$how\"" "$T/${how}_$tag.json" && pass || fail "$tag: summary lacks retry $how"
    done
    [ "$(counts "$T/runtime_$tag.json")" = "$(counts "$T/check_$tag.json")" ] && pass ||
      fail "$tag: runtime counts $(counts "$T/runtime_$tag.json") differ from check's $(counts "$T/check_$tag.json")"
    [ "$(jnum "$T/runtime_$tag.json" reexecuted)" -gt 0 ] && pass || fail "$tag: nothing retried"
    # retried as StarPU tasks: the failed tries are in the summary
    [ "$(retries "$T/runtime_$tag.json" failed_tries cpu)" -gt 0 ] && pass ||
      fail "$tag: no failed try on a CPU recorded"
  done

  # PLINK's r^2: a tile pair's moments and homozygous tallies by one task,
  # both checked by it; a fault injected into either is caught and the
  # task tried again: the table of a clean run (one check a task here,
  # one a result with --retry check)
  LD="--bfile $top_srcdir/data/example_geno --metric r2 --output-format tsv --block-size 64"
  # shellcheck disable=SC2086
  run_ok "clean r2" "$STARMET" compute $LD --quiet --output "$T/c_r2"
  for how in runtime check; do
    # shellcheck disable=SC2086
    run_ok "$how r2" "$STARMET" compute $LD --quiet --verify --inject-faults 0.2,11 \
      --retry $how --output "$T/${how}_r2"
    cmp -s "$T/c_r2.tsv" "$T/${how}_r2.tsv" && pass || fail "r2 $how: output differs"
    [ "$(jnum "$T/${how}_r2.json" faults_injected)" -gt 0 ] &&
      [ "$(jnum "$T/${how}_r2.json" failures_caught)" = "$(jnum "$T/${how}_r2.json" faults_injected)" ] &&
      [ "$(jnum "$T/${how}_r2.json" reexecuted)" -gt 0 ] && pass ||
      fail "r2 $how: $(counts "$T/${how}_r2.json") (checks, caught, re-run, injected)"
  done
  [ "$(jnum "$T/check_r2.json" checks)" = $((2 * $(jnum "$T/runtime_r2.json" checks))) ] &&
    pass || fail "r2: $(jnum "$T/runtime_r2.json" checks) tasks checked, $(jnum "$T/check_r2.json" checks) results"

  # small tasks whose first try ends at once, many times: the task they
  # try for must not end before its first try is in place (StarPU's own
  # prologue had that race; about 1 run in 40 here aborted)
  n=0 bad=0
  while [ $n -lt 25 ]; do
    # shellcheck disable=SC2086
    "$STARMET" compute $CCC --missing-rate 0.1 --num-way 3 --num-vector 36 --num-field 150 \
      --block-size 4 --quiet --verify --inject-faults 0.05,$n --output-format none \
      > /dev/null 2> "$T/race.err" || { bad=$((bad + 1)); tail -n 3 "$T/race.err" >&2; }
    n=$((n + 1))
  done
  [ $bad = 0 ] && pass || fail "$bad of 25 small runtime-retry runs failed"

  # faults on the OpenCL device: the retries go to the CPU
  if ocl_probe; then
    for prob in "ccc2 $CCC --num-vector 120 --block-size 16" \
      "ccc2s $CCC --missing-rate 0.1 --num-vector 120 --block-size 16" \
      "i8 $CCC --missing-rate 0.1 --num-vector 120 --block-size 16 --ccc-gemm int8" \
      "ccc3 $CCC --num-way 3 --num-vector 28 --block-size 8" \
      "czek2 $INT --num-vector 120 --block-size 16"; do
      tag=${prob%% *} args=${prob#* }
      # shellcheck disable=SC2086
      run_ok "ocl clean $tag" "$STARMET" compute $args --quiet --output "$T/oc_$tag"
      for devices in accel all; do
        o=$T/od_${tag}_$devices
        # shellcheck disable=SC2086
        run_ok "ocl $devices $tag" ocl "$STARMET" compute $args --quiet --verify \
          --inject-faults 0.3,5 --devices $devices --sched dmda --output "$o"
        cmp -s "$T/oc_$tag.tsv" "$o.tsv" && pass || fail "ocl $devices $tag: output differs from the clean run"
        [ "$(jnum "$o.json" failures_caught)" = "$(jnum "$o.json" faults_injected)" ] && pass ||
          fail "ocl $devices $tag: not every fault caught"
      done
      o=$T/od_${tag}_accel
      f=$(retries "$o.json" failed_tries opencl) c=$(retries "$o.json" retries_ran_on cpu)
      g=$(retries "$o.json" retries_ran_on opencl)
      [ "${f:-0}" -gt 0 ] && [ "${c:-0}" -ge "$f" ] && [ "${g:-0}" = 0 ] && pass ||
        fail "ocl accel $tag: $f failed OpenCL tries, retries on cpu $c, on opencl $g"
    done
    # the human summary says it too
    # shellcheck disable=SC2086
    run_ok "ocl summary" ocl "$STARMET" compute $CCC --num-vector 120 --block-size 16 --verify \
      --inject-faults 0.3,5 --devices accel --sched dmda --output-format none
    grep -Eq "^  retries     sm_ccc2: [0-9]+ failed tries \((cpu [0-9]+, )?opencl [0-9]+\), [0-9]+ retries ran on cpu [0-9]+$" \
      "$T/log.out" && pass || { fail "ocl: no retries line"; cat "$T/log.out" >&2; }
  else
    skip_part "no OpenCL device (PoCL): device retries untested"
  fi

  # under MPI: retries on the rank that owns the block, the same files
  if [ -n "${MPIEXEC:-}" ]; then
    # shellcheck disable=SC2086
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1 \
      run_ok "P=2 runtime" $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" compute $CCC --missing-rate 0.1 \
      --num-vector 90 --block-size 8 --quiet --verify --inject-faults 0.2,11 --num-proc-vector 2 \
      --output "$T/mp"
    merge_ranks "$T/mp" 2 tsv "$T/mp.all.tsv"
    same "P=2 runtime retry" "$T/c_ccc2s.tsv" "$T/mp.all.tsv"
    [ "$(jnum "$T/mp.json" reexecuted)" -gt 0 ] && pass || fail "P=2: nothing retried"
  fi
fi

# --- the watchdog: a task that never ends fails the run, naming it
P1="$CCC --num-vector 200 --block-size 40"
# shellcheck disable=SC2086
run_ok "no false stall" "$STARMET" compute $P1 --quiet --task-timeout 5 --output "$T/wd_ok"
t0=$(date +%s)
# shellcheck disable=SC2086
expect_error "stall" "task [0-9]+ of codelet sm_ccc2, block of tiles \([0-9]+, [0-9]+\) has been running" \
  - timeout 120 "$STARMET" compute $P1 --quiet --task-timeout 2 \
  --debug-hang-block 3 --output "$T/wd_hang"
grep -q "no task finished for 2 s on rank 0 (--task-timeout 2)" "$T/log.err" && pass || fail "stall: no watchdog line"
[ $(($(date +%s) - t0)) -lt 60 ] && pass || fail "stall: took $(($(date +%s) - t0)) s"
[ ! -e "$T/wd_hang.tsv" ] && [ ! -e "$T/wd_hang.json" ] && pass || fail "stall: a finished output was left"
if [ -n "${MPIEXEC:-}" ]; then
  # shellcheck disable=SC2086
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1 \
    expect_error "P=2 stall" "has been running on CPU" - \
    timeout 120 $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" compute $P1 --quiet --task-timeout 2 \
    --debug-hang-block 2 --num-proc-vector 2 --output "$T/wd_mpi"
  [ ! -e "$T/wd_mpi_0.tsv" ] && [ ! -e "$T/wd_mpi_1.tsv" ] && pass || fail "P=2 stall: output left"
fi
finish
