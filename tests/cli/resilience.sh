#!/bin/sh
# resilience.sh: --verify with --inject-faults (one random bit of a random
# result word): for CCC (exact row-sum checks) and for Czekanowski on
# integer data (exact there too) every corrupted task result is caught and
# its kernel re-executed, so output and checksum equal a clean run's (2-way
# and 3-way, one and two ranks); on real-valued Czekanowski a flip is
# caught unless it is below the rounding bound, so the output stays within
# 1e-9 of a clean run's; a clean run never fails its checks; with
# --no-verify the same faults change the output; a task that keeps failing
# ends the run with an error naming its block and no output. The checks
# are on by default for CCC (on CPUs), off for Czekanowski.
. "$(dirname "$0")/../lib.sh"
reexec() { sed -n 's/.*"reexecuted_tasks": \([0-9]*\).*/\1/p' "$1"; }
jnum() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }

INT="--input $DATA/czek_int_200x500_f64.bin --input-format raw --num-field 500"
for way in 2 3; do
  for metric in "ccc --missing-rate 0.1" "ccc" "czekanowski $INT"; do
    nv=90 bs=8; [ $way = 3 ] && nv=36 bs=4
    case $metric in
      ccc*) P="--metric $metric --synthetic random --num-field 150" ;;
      *) P="--metric $metric" ;;
    esac
    P="$P --num-way $way --num-vector $nv --block-size $bs --quiet"
    tag=$(echo "$way$metric" | tr -dc 'a-z0-9')
    # shellcheck disable=SC2086
    run_ok "clean $tag" "$STARMET" compute $P --verify --output "$T/c_$tag"
    # shellcheck disable=SC2086
    run_ok "injected $tag" "$STARMET" compute $P --verify --inject-faults 0.05,3 --output "$T/i_$tag"
    cmp -s "$T/c_$tag.tsv" "$T/i_$tag.tsv" && pass || fail "$tag: output differs under injection"
    [ "$(cks "$T/c_$tag.json")" = "$(cks "$T/i_$tag.json")" ] && pass || fail "$tag: checksum differs"
    [ "$(reexec "$T/i_$tag.json")" -gt 0 ] && pass || fail "$tag: no task was re-executed"
    [ "$(jnum "$T/i_$tag.json" failures_caught)" = "$(jnum "$T/i_$tag.json" faults_injected)" ] &&
      pass || fail "$tag: not every injected fault was caught"
    [ "$(jnum "$T/c_$tag.json" failures_caught)" = 0 ] && pass || fail "$tag: clean run fails checks"
    # the faults are real: unchecked, they reach the output
    # shellcheck disable=SC2086
    run_ok "unchecked $tag" "$STARMET" compute $P --no-verify --inject-faults 0.05,3 \
      --output "$T/u_$tag"
    cmp -s "$T/c_$tag.tsv" "$T/u_$tag.tsv" && fail "$tag: injected faults changed nothing" || pass
    if [ -n "${MPIEXEC:-}" ]; then
      # shellcheck disable=SC2086
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1 \
        run_ok "P=2 injected $tag" $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" compute $P --verify \
        --inject-faults 0.05,5 --num-proc-field 2 --output "$T/m_$tag"
      [ "$(cks "$T/m_$tag.json")" = "$(cks "$T/c_$tag.json")" ] && pass ||
        fail "$tag: P=2 checksum differs under injection"
      [ "$(reexec "$T/m_$tag.json")" -gt 0 ] && pass || fail "$tag: P=2 no re-execution"
    fi
  done
done
# real-valued Czekanowski: flips below the rounding bound may pass, so the
# output is within 1e-9 of the clean one, and most faults are caught
for way in 2 3; do
  P="--num-way $way --input $DATA/czek_real_200x500_f64.bin --input-format raw --num-field 500 --num-vector 60 --block-size 8 --quiet"
  # shellcheck disable=SC2086
  run_ok "real clean $way" "$STARMET" compute $P --verify --output "$T/rc$way"
  [ "$(jnum "$T/rc$way.json" failures_caught)" = 0 ] && pass || fail "real $way: clean run fails checks"
  # shellcheck disable=SC2086
  run_ok "real injected $way" "$STARMET" compute $P --verify --inject-faults 0.2,7 --output "$T/ri$way"
  same "real $way: within 1e-9 under injection" --tol-rel 1e-9 "$T/rc$way.tsv" "$T/ri$way.tsv"
  c=$(jnum "$T/ri$way.json" failures_caught) i=$(jnum "$T/ri$way.json" faults_injected)
  [ "$i" -gt 0 ] && [ $((2 * c)) -ge "$i" ] && pass || fail "real $way: $c of $i faults caught"
done

# a task that fails every time: a clear error, nothing written
expect_error "unrecoverable" "block [0-9]+ still fails its checks" - \
  "$STARMET" compute --metric ccc --synthetic random --num-vector 40 --num-field 50 --quiet \
  --verify --inject-faults 1 --output "$T/bad"
[ ! -e "$T/bad.tsv" ] && grep -q '"status": "self-check failed"' "$T/bad.json" && pass ||
  fail "unrecoverable: output left or summary without the failure"
# a run that did not complete has no rate: its counts are the problem's
grep -q '"rates": {"results_per_s": null, "comparisons_per_s": null}' "$T/bad.json" && pass ||
  fail "unrecoverable: the summary gives a rate: $(grep '"rates"' "$T/bad.json")"
grep -q '"rates": {"results_per_s": [0-9]' "$T/rc2.json" && pass || fail "a clean run has no rate"
# the default: CCC checked (and its faults caught) without --verify,
# Czekanowski not; --no-verify turns the CCC checks off
D="--synthetic random --num-vector 60 --num-field 200 --block-size 16 --quiet"
jbool() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \(true\|false\).*/\1/p"; }
# shellcheck disable=SC2086
run_ok "ccc by default" "$STARMET" compute --metric ccc $D --inject-faults 0.2,3 --output "$T/d1"
# shellcheck disable=SC2086
run_ok "ccc clean" "$STARMET" compute --metric ccc $D --no-verify --output "$T/d0"
[ "$(jbool "$T/d1.json" verify)" = true ] && [ "$(jbool "$T/d1.json" verify_default)" = true ] &&
  [ "$(jnum "$T/d1.json" checks)" -gt 0 ] && pass || fail "ccc: not checked by default"
c=$(jnum "$T/d1.json" failures_caught) i=$(jnum "$T/d1.json" faults_injected)
[ "$i" -gt 0 ] && [ "$c" = "$i" ] && cmp -s "$T/d0.tsv" "$T/d1.tsv" && pass ||
  fail "ccc by default: $c of $i faults caught, or the output differs from a clean run's"
"$STARMET" compute --metric ccc --synthetic random --num-vector 60 --num-field 200 \
  --output-format none 2>&1 | grep -q 'verify .*(on by default for ccc; --no-verify: off)' &&
  pass || fail "ccc: the summary does not say the checks are on by default"
[ "$(jbool "$T/d0.json" verify)" = false ] && [ "$(jnum "$T/d0.json" checks)" = 0 ] && pass ||
  fail "ccc --no-verify: still checked"
# shellcheck disable=SC2086
run_ok "czekanowski by default" "$STARMET" compute --metric czekanowski $D --output "$T/d2"
[ "$(jbool "$T/d2.json" verify)" = false ] && [ "$(jnum "$T/d2.json" checks)" = 0 ] && pass ||
  fail "czekanowski: checked by default"
expect_error "bad rate" "--inject-faults.*out of range" "$T/bad2" \
  "$STARMET" compute --metric ccc --synthetic random --num-vector 40 --num-field 50 \
  --inject-faults 1.5 --output "$T/bad2"
finish
