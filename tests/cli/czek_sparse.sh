#!/bin/sh
# czek_sparse.sh: the sparse Czekanowski method (--czek-method sparse)
# gives the dense method's values on random abundance tables of every
# shape (empty samples, one field, samples that share no field, 0.1% to
# 50% non-zero): byte-identical TSV outputs and checksums on integer
# counts, within 1e-12 on real values, for czekanowski, bray-curtis,
# jaccard and --binary; on 2 and 3 MPI ranks with the fields split;
# beside an OpenCL device under every kind of scheduler;
# under --verify with injected faults; resumed after a kill; from a BIOM
# table. auto picks it on sparse tables and says so in the summary; 3-way
# and CCC runs refuse it.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
PY=${PYTHON3:-/usr/bin/python3}
c() { "$S" compute --quiet "$@"; }

# table NAME NV NF DENSITY INT SEED: NV samples of NF fields, about
# DENSITY of the entries non-zero (integer counts, or reals when INT is 0);
# samples 3, 4 and NV-1 empty; samples below NV/2 on even fields only,
# the others on odd ones when NF > 1 (the two halves share no field)
table() {
  awk -v nv="$2" -v nf="$3" -v d="$4" -v isint="$5" -v seed="$6" 'BEGIN { srand(seed)
    printf "id"; for (j = 0; j < nf; j++) printf "\tf%d", j; printf "\n"
    for (i = 0; i < nv; i++) { printf "s%d", i
      for (j = 0; j < nf; j++) {
        x = 0
        if (rand() < d && i != 3 && i != 4 && i != nv - 1 && (nf == 1 || (i < nv / 2) == (j % 2 == 0)))
          x = isint ? 1 + int(rand() * rand() * 500) : rand() * 100
        printf (isint ? "\t%d" : "\t%.17g"), x }
      printf "\n" } }' > "$T/$1.tsv"
}
table d001 120 3000 0.001 1 1
table d01 150 800 0.01 1 2
table d10 90 300 0.1 1 3
table d50 60 200 0.5 1 4
table one 40 1 0.7 1 5
table real 80 500 0.05 0 6

# ---- 1. sparse = dense, every metric form, odd tiles
for t in d001 d01 d10 d50 one real; do
  for m in czekanowski bray-curtis jaccard "bray-curtis --binary"; do
    tag=$t$(echo "$m" | tr -dc 'a-z')
    # reals are compared by value (smcmp), which takes NaN for a difference
    zp=""; [ $t = real ] && zp="--zero-pairs zero"
    for k in dense sparse; do
      # shellcheck disable=SC2086
      run_ok "$t $m $k" c --input "$T/$t.tsv" --metric $m --czek-method $k --block-size 23 \
        $zp --output "$T/${tag}_$k"
    done
    if [ $t = real ] && [ "$m" != "bray-curtis --binary" ]; then
      same "$t $m: sparse = dense within 1e-12" --tol-rel 1e-12 "$T/${tag}_dense.tsv" \
        "$T/${tag}_sparse.tsv"
    else
      same_text "$t $m: sparse = dense" "$T/${tag}_dense.tsv" "$T/${tag}_sparse.tsv"
      same_cks "$t $m: checksums" "$T/${tag}_dense.json" "$T/${tag}_sparse.json"
    fi
  done
done
grep -q '"czek_method": "sparse"' "$T/d01braycurtis_sparse.json" &&
  grep -q '"czek_method": "dense"' "$T/d01braycurtis_dense.json" && pass ||
  fail "the summary does not say which method ran"

# ---- 2. auto: sparse on a sparse table (said once), dense on a dense one
run_ok "auto sparse" "$S" compute --input "$T/d01.tsv" --metric bray-curtis --output "$T/auto1"
grep -q "using the sparse Czekanowski method" "$T/log.err" && pass || fail "auto did not say sparse"
grep -q '"czek_method": "sparse"' "$T/auto1.json" && pass || fail "auto did not run sparse"
run_ok "auto dense" c --input "$T/d50.tsv" --metric bray-curtis --output "$T/auto2"
grep -q '"czek_method": "dense"' "$T/auto2.json" && pass || fail "auto did not run dense at 50%"

# ---- 3. --verify with injected faults: the clean run's output
run_ok "verify" c --input "$T/d10.tsv" --czek-method sparse --block-size 23 --verify \
  --inject-faults 0.3,11 --output "$T/ver"
same_text "verify + faults = clean" "$T/d10czekanowski_dense.tsv" "$T/ver.tsv"
grep -q '"faults_injected": [1-9]' "$T/ver.json" && pass || fail "no fault was injected"

# ---- 4. killed, then resumed: byte-identical to the uninterrupted run
R="--input $T/d01.tsv --metric bray-curtis --czek-method sparse --block-size 15"
# shellcheck disable=SC2086
run_ok "uninterrupted" c $R --output "$T/full"
# shellcheck disable=SC2086
c $R --output "$T/kr" --debug-stop-after-blocks 7 > /dev/null 2>&1
[ $? -eq 137 ] && pass || fail "the run did not kill itself"
# shellcheck disable=SC2086
run_ok "resume" "$S" compute $R --output "$T/kr" --resume
grep -q -- "--resume: [0-9]* output blocks were complete" "$T/log.err" && pass ||
  fail "the run did not resume"
cmp -s "$T/kr.tsv" "$T/full.tsv" && pass || fail "resumed output differs"
# the method is part of what a resumed run must match
c --input "$T/d01.tsv" --metric bray-curtis --czek-method sparse --block-size 15 \
  --output "$T/km" --debug-stop-after-blocks 3 > /dev/null 2>&1
expect_error "resume with the other method" "resume|manifest|another" - \
  c --input "$T/d01.tsv" --metric bray-curtis --czek-method dense --block-size 15 \
  --output "$T/km" --resume

# ---- 5. MPI: 2 ranks, fields split in 2; 3 ranks, vectors in 3 and fields in 3
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  for g in "2 1 2" "3 3 1" "3 1 3"; do
    # shellcheck disable=SC2086
    set -- $g
    o=$T/mpi$1$2$3
    run_ok "mpi $g" mpi_starmet "$1" compute --input "$T/d01.tsv" --metric bray-curtis \
      --czek-method sparse --block-size 23 --num-proc-vector "$2" --num-proc-field "$3" \
      --output "$o"
    merge_ranks "$o" "$1" tsv "$o.all.tsv"
    same_text "mpi $g = dense one rank" "$T/d01braycurtis_dense.tsv" "$o.all.tsv"
    same_cks "mpi $g checksum" "$T/d01braycurtis_dense.json" "$o.json"
  done
  unset STARPU_NCPU
else
  skip_part "no MPI launcher"
fi

# ---- 6. a BIOM table (HDF5, made by biom-format)
if "$PY" -c 'import biom, h5py, numpy, scipy' 2> /dev/null; then
  "$PY" - "$T" << 'PYEOF'
import sys
import numpy as np, scipy.sparse as sp, biom
from biom.util import biom_open
rng = np.random.default_rng(8)
m = sp.random(700, 90, density=0.004, random_state=8, format="csc")
m.data = np.floor(m.data * 200) + 1
t = biom.Table(m, ["o%d" % i for i in range(700)], ["S%d" % j for j in range(90)])
with biom_open(sys.argv[1] + "/t.biom", "w") as f:
    t.to_hdf5(f, "czek_sparse.sh")
PYEOF
  # read into sparse rows under the sparse method (auto: 0.4% non-zero)
  for k in dense sparse auto; do
    run_ok "biom $k" c --input "$T/t.biom" --metric bray-curtis --czek-method $k \
      --output "$T/biom_$k"
    run_ok "biom $k binary" c --input "$T/t.biom" --metric jaccard --binary \
      --czek-method $k --block-size 7 --output "$T/biomb_$k"
  done
  for k in sparse auto; do
    same_text "biom: $k = dense" "$T/biom_dense.tsv" "$T/biom_$k.tsv"
    same_text "biom --binary: $k = dense" "$T/biomb_dense.tsv" "$T/biomb_$k.tsv"
  done
  grep -q '"czek_method": "sparse"' "$T/biom_auto.json" && pass || fail "biom: auto not sparse"
  # fields split over ranks: each rank reads its slice of the observations
  if [ -n "${MPIEXEC:-}" ]; then
    mpi_setup
    for g in "2 1 2" "3 3 1"; do
      # shellcheck disable=SC2086
      set -- $g
      o=$T/bmpi$1$2$3
      run_ok "biom mpi $g" mpi_starmet "$1" compute --input "$T/t.biom" \
        --metric bray-curtis --czek-method sparse --block-size 11 --num-proc-vector "$2" \
        --num-proc-field "$3" --output "$o"
      merge_ranks "$o" "$1" tsv "$o.all.tsv"
      same_text "biom mpi $g = dense one rank" "$T/biom_dense.tsv" "$o.all.tsv"
    done
    unset STARPU_NCPU
  fi
else
  skip_part "python3 with biom-format not found"
fi

# ---- 7. beside an OpenCL device (PoCL): the sparse products stay on the
# CPUs, under heteroprio too (whose buckets would otherwise hand them to
# the device)
if ocl_probe; then
  for sch in lws heteroprio dmda; do
    run_ok "opencl $sch" ocl "$S" compute --quiet --input "$T/d01.tsv" --metric bray-curtis \
      --czek-method sparse --sched $sch --block-size 23 --output "$T/ocl_$sch"
    same_text "opencl $sch = dense" "$T/d01braycurtis_dense.tsv" "$T/ocl_$sch.tsv"
  done
else
  skip_part "no OpenCL device (PoCL)"
fi

# ---- 8. where the sparse method does not apply
expect_error "3-way" "czek-method sparse applies to czekanowski 2-way" - \
  c --input "$T/d01.tsv" --num-way 3 --czek-method sparse --output-format none
expect_error "ccc" "czek-method sparse applies to czekanowski 2-way" - \
  c --metric ccc --synthetic random --num-vector 8 --num-field 8 --czek-method sparse \
  --output-format none
expect_error "accel" "runs on CPUs only" - \
  c --input "$T/d01.tsv" --devices accel --czek-method sparse --output-format none
finish
