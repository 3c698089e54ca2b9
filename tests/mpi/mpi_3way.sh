#!/bin/sh
# mpi_3way.sh: the 3-way graph under mpirun, P = 1..4 and every grid shape:
# CCC (sparse) and Czekanowski on integer inputs identical to the one-rank
# run, real inputs within 1e-12, checksums equal; stages run separately give
# exactly the union of a full run; phases likewise.
. "$(dirname "$0")/../lib.sh"
if [ -z "${MPIEXEC:-}" ]; then echo "no MPI launcher: skipped"; exit 77; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export STARPU_NCPU=1

mpi() { np=$1; shift; $MPIEXEC ${MPIEXEC_FLAGS:-} -np "$np" "$STARMET" compute --quiet "$@"; }
cks() { sed -n 's/.*"checksum": "\([^"]*\)".*/\1/p' "$1"; }
merge() {
  prefix=$1 np=$2 out=$3
  if [ "$np" -eq 1 ]; then cp "$prefix.tsv" "$out"; return; fi
  head -n 1 "${prefix}_0.tsv" > "$out"
  r=0; while [ $r -lt "$np" ]; do tail -n +2 "${prefix}_$r.tsv" >> "$out"; r=$((r + 1)); done
}

P_CCCS="--metric ccc --num-way 3 --synthetic random --num-vector 23 --num-field 150 --seed 4 --missing-rate 0.1"
P_CCC="--metric ccc --num-way 3 --synthetic random --num-vector 21 --num-field 97 --seed 6"
P_INT="--num-way 3 --input $DATA/czek_int_200x500_f64.bin --num-vector 22 --num-field 500"
P_REAL="--num-way 3 --input $DATA/czek_real_200x500_f64.bin --num-vector 22 --num-field 500"

for prob in CCCS CCC INT REAL; do
  eval "args=\$P_$prob"
  # shellcheck disable=SC2086
  run_ok "one rank $prob" "$STARMET" compute --quiet $args --block-size 5 --output "$T/ref_$prob"
done
# the reference implementation agrees with the one-rank graph
# shellcheck disable=SC2086
run_ok "ref CCCS" "$STARMET" compute --quiet $P_CCCS --compute-method ref --output "$T/refimpl"
same "graph vs reference implementation" "$T/refimpl.tsv" "$T/ref_CCCS.tsv"

for P in 1 2 3 4; do
  for npv in 1 2 3 4; do for npf in 1 2 3 4; do for npr in 1 2 3 4; do
    [ $((npv * npf * npr)) -eq $P ] || continue
    for prob in CCCS INT REAL; do
      [ $prob = CCC ] && [ $P -gt 2 ] && continue
      eval "args=\$P_$prob"
      o=$T/g_${P}_${npv}${npf}${npr}_$prob
      # shellcheck disable=SC2086
      run_ok "P=$P $npv x $npf x $npr $prob" mpi $P $args --block-size 5 --num-proc-vector $npv \
        --num-proc-field $npf --num-proc-repl $npr --output "$o"
      merge "$o" $P "$o.all.tsv"
      tol=""; [ $prob = REAL ] && tol="--tol-rel 1e-12"
      # shellcheck disable=SC2086
      same "P=$P $npv x $npf x $npr $prob vs one rank" $tol "$T/ref_$prob.tsv" "$o.all.tsv"
      if [ $prob != REAL ]; then
        [ "$(cks "$o.json")" = "$(cks "$T/ref_$prob.json")" ] && pass ||
          fail "P=$P $npv x $npf x $npr $prob: checksum differs"
      fi
    done
  done; done; done
done
# dense CCC on two ranks
# shellcheck disable=SC2086
run_ok "dense CCC P=2" mpi 2 $P_CCC --block-size 5 --num-proc-vector 2 --output "$T/d2"
merge "$T/d2" 2 "$T/d2.all.tsv"
same "dense CCC P=2 vs one rank" "$T/ref_CCC.tsv" "$T/d2.all.tsv"

# stages: each stage alone; their union is the full run (one rank and two)
for np in 1 2; do
  for st in 0 1 2; do
    # shellcheck disable=SC2086
    run_ok "stage $st np=$np" mpi $np $P_CCCS --block-size 5 --num-stage 3 --stage-min $st --stage-max $st \
      --output "$T/st${np}_$st"
    merge "$T/st${np}_$st" $np "$T/st${np}_$st.all.tsv"
  done
  { head -n 1 "$T/st${np}_0.all.tsv"; for st in 0 1 2; do tail -n +2 "$T/st${np}_$st.all.tsv"; done; } \
    > "$T/stages$np.tsv"
  same "stages 0..2 = full run (np=$np)" "$T/ref_CCCS.tsv" "$T/stages$np.tsv"
done
# phases of 3-way slices
for ph in 0 1; do
  # shellcheck disable=SC2086
  run_ok "3-way phase $ph" mpi 2 $P_CCCS --block-size 5 --num-phase 2 --phase-min $ph --phase-max $ph \
    --output "$T/ph$ph"
  merge "$T/ph$ph" 2 "$T/ph$ph.all.tsv"
done
{ cat "$T/ph0.all.tsv"; tail -n +2 "$T/ph1.all.tsv"; } > "$T/phases.tsv"
same "3-way phases 0..1 = full run" "$T/ref_CCCS.tsv" "$T/phases.tsv"
expect_error "stage out of range" "stage.*out of range" "$T/badst" \
  mpi 1 $P_CCCS --num-stage 2 --stage-min 2 --output "$T/badst"
finish
