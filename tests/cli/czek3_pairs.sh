#!/bin/sh
# czek3_pairs.sh: the 3-way graph computes each 2-way numerator of a tile
# pair once per rank row and shares it among the tile triples that read it
# (src/graph/sm_graph3.c): the values stay those of a graph that computes
# them per plane tile or per triple ($STARMET_PAIR_BYTES=0 keeps only a
# plane tile's own pairs; a small budget keeps some), byte for byte, in
# double and single precision, with field partitions whose reduction
# order differs by field slice (3 and 4 ranks, --num-proc-field), with
# vector partitions (face and volume slices), phases and stages; and the
# summary counts one 2-way task per tile pair.
. "$(dirname "$0")/../lib.sh"
S=$STARMET

# codelet count NAME JSON: the count of codelet NAME in a run's summary
count() { grep "\"name\": \"$1\"" "$2" | head -n 1 | sed -n 's/.*"count": \([0-9]*\).*/\1/p'; }

# budgets NAME ARGS...: the default run against budgets 0 and 20000 bytes
budgets() {
  name=$1; shift
  run_ok "$name" "$S" compute --quiet "$@" --output "$T/d" --summary "$T/d.json"
  for b in 0 20000; do
    rm -f "$T/b.tsv" "$T/b.json"
    run_ok "$name, budget $b" env STARMET_PAIR_BYTES=$b "$S" compute --quiet "$@" \
      --output "$T/b" --summary "$T/b.json"
    cmp -s "$T/d.tsv" "$T/b.tsv" && pass || fail "$name: budget $b gives other values"
    same_cks "$name, budget $b" "$T/d.json" "$T/b.json"
  done
  rm -f "$T/d.tsv" "$T/d.json"
}

P="--metric czekanowski --num-way 3 --synthetic random --num-vector 96 --num-field 300 --seed 3"
for prec in double single; do
  # shellcheck disable=SC2086
  budgets "one rank, $prec" $P --precision $prec --block-size 16
  # shellcheck disable=SC2086
  budgets "one rank, $prec, odd tiles" $P --precision $prec --num-vector 91 --block-size 13
done

# 6 tiles of 16: 21 tile pairs, each computed once; without the budget
# more (the (x, y) pairs per triple)
# shellcheck disable=SC2086
run_ok "counted" "$S" compute --quiet $P --block-size 16 --output-format none --summary "$T/c.json"
n=$(count sm_czek2_d "$T/c.json")
[ "$n" = 21 ] && pass || fail "2-way numerator tasks: $n, not one per tile pair (21)"
# shellcheck disable=SC2086
run_ok "counted, budget 0" env STARMET_PAIR_BYTES=0 "$S" compute --quiet $P --block-size 16 \
  --output-format none --summary "$T/c0.json"
n0=$(count sm_czek2_d "$T/c0.json")
[ "${n0:-0}" -gt 21 ] && pass || fail "budget 0: $n0 2-way numerator tasks, expected more than 21"
# a run with threshold and records through the finalize: the same
# shellcheck disable=SC2086
budgets "threshold" $P --block-size 16 --threshold 0.55

if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  # mranks NAME NP ARGS...: the NP ranks' files, default against budget 0
  mranks() {
    name=$1 np=$2; shift 2
    run_ok "$name" mpi_starmet "$np" compute "$@" --output "$T/m"
    run_ok "$name, budget 0" env STARMET_PAIR_BYTES=0 \
      "$MPIEXEC" ${MPIEXEC_FLAGS:-} -np "$np" "$S" compute --quiet "$@" --output "$T/m0"
    r=0
    while [ $r -lt "$np" ]; do
      cmp -s "$T/m_$r.tsv" "$T/m0_$r.tsv" && pass || fail "$name: rank $r's values differ at budget 0"
      r=$((r + 1))
    done
    rm -f "$T"/m_*.tsv "$T"/m0_*.tsv "$T"/m.json "$T"/m0.json
  }
  Q="--metric czekanowski --num-way 3 --input $DATA/czek_real_200x500_f64.bin --num-vector 41 --num-field 500 --block-size 5"
  # shellcheck disable=SC2086
  mranks "3 field slices" 3 $Q --num-proc-field 3
  # single precision: the same real values as 4-byte floats
  PY=${PYTHON3:-/usr/bin/python3}
  if "$PY" -c 'import array, sys
a = array.array("d"); a.frombytes(open(sys.argv[1], "rb").read())
array.array("f", a).tofile(open(sys.argv[2], "wb"))' "$DATA/czek_real_200x500_f64.bin" "$T/real_f32.bin"; then
    # shellcheck disable=SC2086
    mranks "4 field slices, single" 4 $(echo "$Q" | sed "s|[^ ]*czek_real_200x500_f64.bin|$T/real_f32.bin|") \
      --num-proc-field 4 --precision single
  else
    skip_part "no python3: the single precision file is not made"
  fi
  # shellcheck disable=SC2086
  mranks "2 x 2 partitions" 4 $Q --num-proc-field 2 --num-proc-vector 2
  # shellcheck disable=SC2086
  mranks "3 vector partitions, 2 phases" 3 $Q --num-proc-vector 3 --num-phase 2 --phase-min 1 --phase-max 1
  # shellcheck disable=SC2086
  mranks "2 vector partitions, stage 1 of 2" 2 $Q --num-proc-vector 2 --num-stage 2 --stage-min 1 --stage-max 1
else
  skip_part "no MPI launcher: field and vector partitions are not run"
fi
finish
