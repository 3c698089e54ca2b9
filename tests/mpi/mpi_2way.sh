#!/bin/sh
# mpi_2way.sh: the 2-way graph under mpirun with real ranks, P = 1..4 and
# every grid shape npv x npf x npr of P: CCC (dense and sparse) and
# Czekanowski on integer inputs identical to the single-rank run, real
# inputs within 1e-12, checksums equal; npf > 1 bit-reproducible run to run;
# phases run separately give the full result; a grid that does not match the
# rank count is refused.
. "$(dirname "$0")/../lib.sh"
mpi_setup

mpi() { np=$1; shift; mpi_starmet "$np" compute "$@"; }

P_CCC="--metric ccc --synthetic random --num-vector 53 --num-field 211 --seed 2"
P_CCCS="$P_CCC --missing-rate 0.1"
P_INT="--input $DATA/czek_int_200x500_f64.bin --num-vector 61 --num-field 500"
P_REAL="--input $DATA/czek_real_200x500_f64.bin --num-vector 61 --num-field 500"

for prob in CCC CCCS INT REAL; do
  eval "args=\$P_$prob"
  # shellcheck disable=SC2086
  run_ok "one rank $prob" "$STARMET" compute --quiet $args --block-size 7 --output "$T/ref_$prob"
done

every_grid 7 CCC CCCS INT REAL

# --ccc-gemm int8: a tile's int8 form is made once per rank row, on the
# rank that multiplies it (from the tile StarPU-MPI brings there)
for run in "2 2 1 CCC" "2 2 1 CCCS" "1 2 2 CCC" "4 1 1 CCCS"; do
  set -- $run
  grid="$1 $2 $3"
  for prob in $4; do
    eval "args=\$P_$prob"
    o=$T/i8_$1$2$3_$prob
    # shellcheck disable=SC2086
    run_ok "int8 tiles $grid $prob" mpi 4 $args --block-size 7 --num-proc-vector $1 \
      --num-proc-field $2 --num-proc-repl $3 --ccc-gemm int8 --output "$o"
    merge_ranks "$o" 4 tsv "$o.all.tsv"
    same "int8 tiles $grid $prob vs one rank" "$T/ref_$prob.tsv" "$o.all.tsv"
    grep -q '"sm_ccc2_i8' "$o.json" && pass || fail "int8 tiles $grid: no int8 product ran"
    # only code tiles cross between ranks (int8 ones would be 4 to 8 times larger)
    [ -f "$T/g_4_$1$2$3_$prob.json" ] || grid_run 7 4 "$1" "$2" "$3" "$prob"
    sent() { grep -o '"mpi_bytes_sent": [0-9]*' "$1" | tail -n 1; }
    [ "$(sent "$o.json")" = "$(sent "$T/g_4_$1$2$3_$prob.json")" ] && pass ||
      fail "int8 tiles $grid $prob: MPI moved $(sent "$o.json"), the popcount run $(sent "$T/g_4_$1$2$3_$prob.json")"
  done
done

# npf > 1 on real data: bit-identical from run to run
for k in 1 2; do
  # shellcheck disable=SC2086
  run_ok "npf=2 run $k" mpi 2 $P_REAL --block-size 5 --num-proc-vector 1 --num-proc-field 2 --output "$T/rep$k"
done
cmp -s "$T/rep1_0.tsv" "$T/rep2_0.tsv" && cmp -s "$T/rep1_1.tsv" "$T/rep2_1.tsv" && pass ||
  fail "npf=2 output differs between two runs"

# npf > 1 with the products on an OpenCL device (PoCL's CPU device): the
# field-axis reductions of the numerators and the finalize run there too
# (--devices accel allows nothing else) and give the CPU run's values, bit
# for bit
if ocl_probe; then
  for prob in CCCS INT; do
    eval "args=\$P_$prob"
    # shellcheck disable=SC2086
    run_ok "npf=2 on OpenCL $prob" ocl $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute \
      --quiet $args --block-size 7 --num-proc-vector 1 --num-proc-field 2 --devices accel \
      --output "$T/ocl_$prob" --summary "$T/ocl_$prob.json"
    merge_ranks "$T/ocl_$prob" 2 tsv "$T/ocl_$prob.all.tsv"
    same "npf=2 on OpenCL $prob = one CPU rank" "$T/ref_$prob.tsv" "$T/ocl_$prob.all.tsv"
    grep -q '"sm_add_' "$T/ocl_$prob.json" && pass || fail "no reduction task in the OpenCL run"
    # npv = 2: blocks below the diagonal, written (j, i) with the CCC entry
    # bits swapped, by the finalize on the device
    # shellcheck disable=SC2086
    run_ok "npv=2 on OpenCL $prob" ocl $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute \
      --quiet $args --block-size 7 --num-proc-vector 2 --devices accel \
      --output "$T/ov_$prob" --summary "$T/ov_$prob.json"
    merge_ranks "$T/ov_$prob" 2 tsv "$T/ov_$prob.all.tsv"
    same "npv=2 on OpenCL $prob = one CPU rank" "$T/ref_$prob.tsv" "$T/ov_$prob.all.tsv"
    [ "$(cks "$T/ov_$prob.json")" = "$(cks "$T/ref_$prob.json")" ] && pass ||
      fail "npv=2 on OpenCL $prob: checksum differs from the CPU run's"
  done
  # the int8 tiles on the device, across ranks and field slices
  for grid in "2 1" "1 2"; do
    set -- $grid
    # shellcheck disable=SC2086
    run_ok "int8 tiles on OpenCL $grid" ocl $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute \
      --quiet $P_CCCS --block-size 7 --num-proc-vector $1 --num-proc-field $2 --devices accel \
      --ccc-gemm int8 --output "$T/oi_$1$2" --summary "$T/oi_$1$2.json"
    merge_ranks "$T/oi_$1$2" 2 tsv "$T/oi_$1$2.all.tsv"
    same "int8 tiles on OpenCL $grid = one CPU rank" "$T/ref_CCCS.tsv" "$T/oi_$1$2.all.tsv"
  done
else
  skip_part "no OpenCL device: the device reductions and finalize are not run"
fi

# phases: every phase on its own, together, equals the full run
for ph in 0 1 2; do
  # shellcheck disable=SC2086
  run_ok "phase $ph" mpi 2 $P_CCCS --block-size 7 --num-phase 3 --phase-min $ph --phase-max $ph \
    --output "$T/ph$ph"
  merge_ranks "$T/ph$ph" 2 tsv "$T/ph$ph.all.tsv"
done
{ head -n 1 "$T/ph0.all.tsv"; for ph in 0 1 2; do tail -n +2 "$T/ph$ph.all.tsv"; done; } > "$T/phases.tsv"
same "phases 0..2 = full run" "$T/ref_CCCS.tsv" "$T/phases.tsv"
# shellcheck disable=SC2086
run_ok "phases 1..2" mpi 2 $P_CCCS --block-size 7 --num-phase 3 --phase-min 1 --phase-max 2 --output "$T/ph12"
merge_ranks "$T/ph12" 2 tsv "$T/ph12.all.tsv"
{ cat "$T/ph12.all.tsv"; tail -n +2 "$T/ph0.all.tsv"; } > "$T/ph012.tsv"
same "phase 0 + phases 1..2 = full run" "$T/ref_CCCS.tsv" "$T/ph012.tsv"

# the summary reports every rank and the load balance
[ -f "$T/g_4_221_CCC.json" ] || grid_run 7 4 2 2 1 CCC
grep -q '"ranks": \[' "$T/g_4_221_CCC.json" && grep -q '"max_over_mean_pairs"' "$T/g_4_221_CCC.json" &&
  pass || fail "summary lacks per-rank figures"

# a grid that does not match the ranks is refused, nothing written
expect_error "grid mismatch" "does not match the 3 MPI ranks" "$T/bad" \
  mpi 3 $P_CCC --num-proc-vector 2 --output "$T/bad"
expect_error "phase out of range" "phase.*out of range" "$T/badph" \
  mpi 2 $P_CCC --num-phase 2 --phase-min 2 --output "$T/badph"
# a rank that dies (SIGKILL, at a known point) ends the whole job within
# seconds, non-zero, with nothing complete-looking; --resume of the same
# command then gives the uninterrupted run's files
# shellcheck disable=SC2086
run_ok "uninterrupted 2 ranks" mpi 2 $P_CCCS --block-size 7 --output "$T/kf"
start=$(date +%s)
# shellcheck disable=SC2086
if mpi 2 $P_CCCS --block-size 7 --output "$T/kk" --debug-stop-after-blocks 5 > /dev/null 2>&1; then
  fail "a killed rank ended in success"
else pass; fi
[ $(($(date +%s) - start)) -lt 60 ] && pass || fail "the job took over a minute to end"
[ ! -e "$T/kk_0.tsv" ] && [ ! -e "$T/kk_1.tsv" ] && [ -e "$T/kk_0.manifest" ] && pass ||
  fail "killed job: final files or no manifest"
# shellcheck disable=SC2086
$MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute $P_CCCS --block-size 7 --output "$T/kk" \
  --resume > "$T/kk.out" 2> "$T/kk.err" && pass || { fail "resume after a killed rank"; cat "$T/kk.err" >&2; }
grep -q "output blocks were complete" "$T/kk.err" && pass || fail "the job did not resume"
cmp -s "$T/kk_0.tsv" "$T/kf_0.tsv" && cmp -s "$T/kk_1.tsv" "$T/kf_1.tsv" && pass ||
  fail "resumed 2-rank output differs"
[ "$(cks "$T/kk.json")" = "$(cks "$T/kf.json")" ] && pass || fail "resumed 2-rank checksum differs"
# the same with int8 tiles: the blocks left to compute register and
# release their own int8 tiles, on both ranks alike
# shellcheck disable=SC2086
mpi 2 $P_CCCS --block-size 7 --ccc-gemm int8 --output "$T/ki" --debug-stop-after-blocks 7 > /dev/null 2>&1
# shellcheck disable=SC2086
run_ok "int8 resume" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute $P_CCCS --block-size 7 \
  --ccc-gemm int8 --output "$T/ki" --resume
grep -q "output blocks were complete" "$T/log.err" && pass || fail "the int8 job did not resume"
cmp -s "$T/ki_0.tsv" "$T/kf_0.tsv" && cmp -s "$T/ki_1.tsv" "$T/kf_1.tsv" && pass ||
  fail "resumed int8 2-rank output differs"
# PLINK's r and r^2 (moments and homozygous-called tallies reduced along
# the fields): every grid of 2 and 3 ranks gives the one-rank file's pairs
for m in r2 r; do
  P_LD="--metric $m --synthetic random --num-vector 47 --num-field 233 --seed 4 --missing-rate 0.1"
  # shellcheck disable=SC2086
  run_ok "one rank $m" "$STARMET" compute --quiet $P_LD --block-size 7 --output "$T/ld1_$m"
  for run in "2 1 1 2" "1 2 1 2" "3 1 1 3" "1 3 1 3" "2 1 2 4"; do
    set -- $run
    o=$T/ld_$1$2$3_$m
    # shellcheck disable=SC2086
    run_ok "$m grid $1 x $2 x $3" mpi $4 $P_LD --block-size 7 --num-proc-vector $1 \
      --num-proc-field $2 --num-proc-repl $3 --output "$o"
    merge_ranks "$o" $4 tsv "$o.all.tsv"
    same_text "$m grid $1 x $2 x $3 vs one rank" "$T/ld1_$m.tsv" "$o.all.tsv"
    same_cks "$m grid $1 x $2 x $3 checksum" "$T/ld1_$m.json" "$o.json"
  done
done
# PLINK's windows: each rank reads every variant's locus and builds the
# tile pairs of its rank row that hold pairs in a window
GENO="$top_srcdir/data/example_geno"
for m in r2 ccc; do
  run_ok "one rank $m window" "$STARMET" compute --quiet --bfile "$GENO" --metric $m \
    --ld-window 30 --ld-window-kb 200 --block-size 23 --output-format tsv --output "$T/w1_$m"
  for run in "2 1 1 2" "1 2 1 2" "3 1 1 3"; do
    set -- $run
    o=$T/w_$1$2$3_$m
    run_ok "$m window grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --metric $m --ld-window 30 \
      --ld-window-kb 200 --block-size 23 --num-proc-vector $1 --num-proc-field $2 \
      --num-proc-repl $3 --output-format tsv --output "$o"
    merge_ranks "$o" $4 tsv "$o.all.tsv"
    same_text "$m window grid $1 x $2 x $3 vs one rank" "$T/w1_$m.tsv" "$o.all.tsv"
  done
done
# X and Y as PLINK's LD reads them (males haploid): a rank holding some
# samples decides PLINK's allele flip of an X SNP from all of them
PY=${PYTHON3:-/usr/bin/python3}
if "$PY" "$top_srcdir/tests/tools/ld_data.py" "$T/x" --samples 90 --snps 120 --missing 0.03 \
  --chrom-names 5,X,Y --seed 6; then
  run_ok "one rank X" "$STARMET" compute --quiet --bfile "$T/x" --metric r --block-size 13 \
    --output-format tsv --output "$T/x1"
  for run in "1 2 1 2" "1 3 1 3" "2 1 1 2"; do
    set -- $run
    o=$T/x_$1$2$3
    run_ok "X grid $1 x $2 x $3" mpi $4 --bfile "$T/x" --metric r --block-size 13 \
      --num-proc-vector $1 --num-proc-field $2 --num-proc-repl $3 --output-format tsv --output "$o"
    merge_ranks "$o" $4 tsv "$o.all.tsv"
    same_text "X grid $1 x $2 x $3 vs one rank" "$T/x1.tsv" "$o.all.tsv"
  done
  # PLINK's --chr and --exclude: 5 and Y around X, every third variant
  # left out, split over ranks
  awk 'NR % 3 == 0 { print $2 }' "$T/x.bim" > "$T/xex.txt"
  SEL="--chr 5,Y --exclude $T/xex.txt"
  # shellcheck disable=SC2086
  run_ok "one rank $SEL" "$STARMET" compute --quiet --bfile "$T/x" --metric r $SEL \
    --block-size 7 --output-format tsv --output "$T/xc1"
  n=$(awk '($1 == "5" || $1 == "Y") && NR % 3' "$T/x.bim" | wc -l)
  [ "$(($(wc -l < "$T/xc1.tsv") - 1))" = $((n * (n - 1) / 2)) ] && pass ||
    fail "$SEL: not the pairs of $n variants: $(wc -l < "$T/xc1.tsv") lines"
  for run in "1 2 1 2" "2 1 1 2"; do
    set -- $run
    o=$T/xc_$1$2$3
    # shellcheck disable=SC2086
    run_ok "$SEL grid $1 x $2 x $3" mpi $4 --bfile "$T/x" --metric r $SEL --block-size 7 \
      --num-proc-vector $1 --num-proc-field $2 --num-proc-repl $3 --output-format tsv --output "$o"
    merge_ranks "$o" $4 tsv "$o.all.tsv"
    same_text "$SEL grid $1 x $2 x $3 vs one rank" "$T/xc1.tsv" "$o.all.tsv"
  done
  # the reader's line is said once, of the whole file, whichever rank
  # reads which part of it
  for g in "--num-proc-field 2" "--num-proc-vector 2"; do
    # shellcheck disable=SC2086
    run_ok "X log $g" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute --bfile "$T/x" \
      --metric r --output-format tsv $g --output "$T/xlog"
    [ "$(grep -c "on X and" "$T/log.err")" = 1 ] &&
      grep -q "x.bim: 40 SNPs on X and 40 on Y read as PLINK's LD reads them" "$T/log.err" &&
      pass || fail "X log $g: $(grep "on X" "$T/log.err")"
  done
else
  skip_part "no python3: X chromosome grids not run"
fi
# PLINK's .ld table under mpirun: one file, rank 0's, the other ranks'
# lines sent to it when their blocks are done; every grid writes the
# one-rank table byte for byte (r2's default table: PLINK's default window;
# --ld-snp-list, whose own lines need every rank's calls of the index
# variants; ccc's four entries)
run_ok "one rank .ld" "$STARMET" compute --quiet --bfile "$GENO" --r2 --block-size 23 \
  --out "$T/ld1"
awk 'NR % 37 == 0 { print $2 }' "$GENO.bim" > "$T/idx.txt"
run_ok "one rank --ld-snp-list" "$STARMET" compute --quiet --bfile "$GENO" --r --block-size 23 \
  --ld-snp-list "$T/idx.txt" --ld-window 40 --ld-window-r2 0 --out "$T/ls1"
run_ok "one rank ccc .ld" "$STARMET" compute --quiet --bfile "$GENO" --metric ccc \
  --output-format ld --ld-window 12 --block-size 23 --out "$T/lc1"
run_ok "one rank .ld.gz" "$STARMET" compute --quiet --bfile "$GENO" --r2 gz --ld-window 7 \
  --block-size 23 --out "$T/lz1"
run_ok "one rank --maf --geno" "$STARMET" compute --quiet --bfile "$GENO" --r --maf 0.1 \
  --geno 0.02 --nonfounders --block-size 23 --out "$T/lq1"
# PLINK's --keep, --remove and --mind: the fields are the samples kept,
# split over the field ranks as the others are
awk 'NR % 4 != 1 { print $1, $2 }' "$GENO.fam" > "$T/keep.txt"
awk 'NR % 7 == 3 { print $1, $2 }' "$GENO.fam" > "$T/remove.txt"
run_ok "one rank --keep --remove" "$STARMET" compute --quiet --bfile "$GENO" --r --maf 0.05 \
  --keep "$T/keep.txt" --remove "$T/remove.txt" --mind 0.05 --ld-window 15 --block-size 23 \
  --out "$T/lk1"
for run in "2 1 1 2" "1 2 1 2" "3 1 1 3" "2 1 2 4"; do
  set -- $run
  g="--num-proc-vector $1 --num-proc-field $2 --num-proc-repl $3"
  # shellcheck disable=SC2086
  run_ok ".ld grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --r2 --block-size 23 $g \
    --out "$T/ldm$1$2$3"
  cmp -s "$T/ld1.ld" "$T/ldm$1$2$3.ld" && pass ||
    fail ".ld grid $1 x $2 x $3: $(diff "$T/ld1.ld" "$T/ldm$1$2$3.ld" | head -3)"
  [ "$(ls "$T/ldm$1$2$3"*)" = "$(printf '%s\n%s' "$T/ldm$1$2$3.json" "$T/ldm$1$2$3.ld")" ] &&
    pass || fail ".ld grid $1 x $2 x $3: not one table: $(ls "$T/ldm$1$2$3"*)"
  grep -q "\"output\": \"$T/ldm$1$2$3.ld\"" "$T/ldm$1$2$3.json" && pass ||
    fail ".ld grid $1 x $2 x $3: the summary does not name the table"
  same_cks ".ld grid $1 x $2 x $3 checksum" "$T/ld1.json" "$T/ldm$1$2$3.json"
  # shellcheck disable=SC2086
  run_ok "--ld-snp-list grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --r --block-size 23 $g \
    --ld-snp-list "$T/idx.txt" --ld-window 40 --ld-window-r2 0 --out "$T/lsm$1$2$3"
  cmp -s "$T/ls1.ld" "$T/lsm$1$2$3.ld" && pass ||
    fail "--ld-snp-list grid $1 x $2 x $3: $(diff "$T/ls1.ld" "$T/lsm$1$2$3.ld" | head -3)"
  # shellcheck disable=SC2086
  run_ok "ccc .ld grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --metric ccc --output-format ld \
    --ld-window 12 --block-size 23 $g --out "$T/lcm$1$2$3"
  cmp -s "$T/lc1.ld" "$T/lcm$1$2$3.ld" && pass || fail "ccc .ld grid $1 x $2 x $3 differs"
  # shellcheck disable=SC2086
  run_ok "--maf --geno grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --r --maf 0.1 --geno 0.02 \
    --nonfounders --block-size 23 $g --out "$T/lqm$1$2$3"
  cmp -s "$T/lq1.ld" "$T/lqm$1$2$3.ld" && pass || fail "--maf --geno grid $1 x $2 x $3 differs"
  # shellcheck disable=SC2086
  run_ok "--keep --remove grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --r --maf 0.05 \
    --keep "$T/keep.txt" --remove "$T/remove.txt" --mind 0.05 --ld-window 15 --block-size 23 $g \
    --out "$T/lkm$1$2$3"
  cmp -s "$T/lk1.ld" "$T/lkm$1$2$3.ld" && pass || fail "--keep --remove grid $1 x $2 x $3 differs"
  # shellcheck disable=SC2086
  run_ok ".ld.gz grid $1 x $2 x $3" mpi $4 --bfile "$GENO" --r2 gz --ld-window 7 --block-size 23 \
    $g --out "$T/lzm$1$2$3"
  [ "$(gzip -dc "$T/lz1.ld.gz" | cksum)" = "$(gzip -dc "$T/lzm$1$2$3.ld.gz" | cksum)" ] && pass ||
    fail ".ld.gz grid $1 x $2 x $3 differs"
done
# a refused --devices stops every rank before any task is inserted (it
# used to fail at the first insertion on each rank, and could hang)
# shellcheck disable=SC2086
expect_error "--devices accel without an accelerator" "--devices accel: StarPU has no CUDA or OpenCL worker" \
  - timeout 120 $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute $P_CCC --devices accel \
  --output "$T/acc"
ls "$T"/acc*.tsv* "$T"/acc*.manifest > /dev/null 2>&1 && fail "refused run left results behind" || pass
grep -q '"status": "' "$T/acc.json" && ! grep -q '"status": "ok"' "$T/acc.json" && pass ||
  fail "refused run: the summary does not say it failed"
finish
