#!/bin/sh
# mpi_3way.sh: the 3-way graph under mpirun, P = 1..4 and every grid shape:
# CCC (sparse) and Czekanowski on integer inputs identical to the one-rank
# run, real inputs within 1e-12, checksums equal; stages run separately give
# exactly the union of a full run; phases likewise.
. "$(dirname "$0")/../lib.sh"
mpi_setup

mpi() { np=$1; shift; mpi_starmet "$np" compute "$@"; }

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

every_grid 5 CCCS INT REAL
# dense CCC on two ranks
# shellcheck disable=SC2086
run_ok "dense CCC P=2" mpi 2 $P_CCC --block-size 5 --num-proc-vector 2 --output "$T/d2"
merge_ranks "$T/d2" 2 tsv "$T/d2.all.tsv"
same "dense CCC P=2 vs one rank" "$T/ref_CCC.tsv" "$T/d2.all.tsv"

# stages: each stage alone; their union is the full run (one rank and two)
for np in 1 2; do
  for st in 0 1 2; do
    # shellcheck disable=SC2086
    run_ok "stage $st np=$np" mpi $np $P_CCCS --block-size 5 --num-stage 3 --stage-min $st --stage-max $st \
      --output "$T/st${np}_$st"
    merge_ranks "$T/st${np}_$st" $np tsv "$T/st${np}_$st.all.tsv"
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
  merge_ranks "$T/ph$ph" 2 tsv "$T/ph$ph.all.tsv"
done
{ cat "$T/ph0.all.tsv"; tail -n +2 "$T/ph1.all.tsv"; } > "$T/phases.tsv"
same "3-way phases 0..1 = full run" "$T/ref_CCCS.tsv" "$T/phases.tsv"
expect_error "stage out of range" "stage.*out of range" "$T/badst" \
  mpi 1 $P_CCCS --num-stage 2 --stage-min 2 --output "$T/badst"

# the 3-way finalize on an OpenCL device (PoCL's CPU device) with two
# partitions: face and volume slices, whose planes are not always the
# smallest index of a triple (entries relabelled in ascending order);
# thresholds keep a part. The CPU run's records and checksums.
if ocl_probe; then
  for prob in CCCS CCC INT; do
    eval "args=\$P_$prob"
    thr=0.2 # about a tenth of the CCC values
    [ $prob = INT ] && thr=0.3
    # shellcheck disable=SC2086
    run_ok "one rank $prob thr" "$STARMET" compute --quiet $args --block-size 5 --threshold $thr \
      --output "$T/rt_$prob"
    # shellcheck disable=SC2086
    run_ok "npv=2 on OpenCL $prob" ocl $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute \
      --quiet $args --block-size 5 --threshold $thr --num-proc-vector 2 --devices accel \
      --output "$T/o3_$prob" --summary "$T/o3_$prob.json"
    merge_ranks "$T/o3_$prob" 2 tsv "$T/o3_$prob.all.tsv"
    same "npv=2 on OpenCL $prob = one CPU rank" "$T/rt_$prob.tsv" "$T/o3_$prob.all.tsv"
    [ "$(cks "$T/o3_$prob.json")" = "$(cks "$T/rt_$prob.json")" ] && pass ||
      fail "npv=2 on OpenCL $prob: checksum differs from the CPU run's"
  done
else
  skip_part "no OpenCL device: the 3-way finalize on a device is not run"
fi
finish
