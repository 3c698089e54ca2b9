#!/bin/sh
# resilience.sh: --verify with --inject-faults 0.05: every corrupted task
# result is caught and its kernel re-executed, so output and checksum equal
# a clean run's (CCC and Czekanowski, 2-way and 3-way, one and two ranks);
# without --verify the same faults change the output; a task that keeps
# failing ends the run with an error naming its block and no output.
. "$(dirname "$0")/../lib.sh"
reexec() { sed -n 's/.*"reexecuted_tasks": \([0-9]*\).*/\1/p' "$1"; }

for way in 2 3; do
  for metric in "ccc --missing-rate 0.1" "czekanowski"; do
    nv=90 bs=8; [ $way = 3 ] && nv=36 bs=4
    P="--metric $metric --num-way $way --synthetic random --num-vector $nv --num-field 150 --block-size $bs --quiet"
    tag=$(echo "$way$metric" | tr -dc 'a-z0-9')
    # shellcheck disable=SC2086
    run_ok "clean $tag" "$STARMET" compute $P --output "$T/c_$tag"
    # shellcheck disable=SC2086
    run_ok "injected $tag" "$STARMET" compute $P --verify --inject-faults 0.05,3 --output "$T/i_$tag"
    cmp -s "$T/c_$tag.tsv" "$T/i_$tag.tsv" && pass || fail "$tag: output differs under injection"
    [ "$(cks "$T/c_$tag.json")" = "$(cks "$T/i_$tag.json")" ] && pass || fail "$tag: checksum differs"
    [ "$(reexec "$T/i_$tag.json")" -gt 0 ] && pass || fail "$tag: no task was re-executed"
    # the faults are real: unchecked, they reach the output
    # shellcheck disable=SC2086
    run_ok "unchecked $tag" "$STARMET" compute $P --inject-faults 0.05,3 --output "$T/u_$tag"
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
# a task that fails every time: a clear error, nothing written
expect_error "unrecoverable" "block [0-9]+ still fails its checks" - \
  "$STARMET" compute --metric ccc --synthetic random --num-vector 40 --num-field 50 --quiet \
  --verify --inject-faults 1 --output "$T/bad"
[ ! -e "$T/bad.tsv" ] && grep -q '"status": "self-check failed"' "$T/bad.json" && pass ||
  fail "unrecoverable: output left or summary without the failure"
expect_error "bad rate" "--inject-faults.*out of range" "$T/bad2" \
  "$STARMET" compute --metric ccc --synthetic random --num-vector 40 --num-field 50 \
  --inject-faults 1.5 --output "$T/bad2"
finish
