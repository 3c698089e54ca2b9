#!/bin/sh
# hist_thr.sh: CoMet's thresholds per CCC table entry give CoMet's own
# records (2-way tLL,tLH,tHH,tLLHH and 3-way tLLL,..,tLLLHHH: the files
# ccc2_sparse_mthr and ccc3_sparse_60_mthr), through the task graph, the
# reference loops and two ranks; --histogram counts equal a brute-force
# count of every value of the full output, and are the same for every tile
# size, method, rank count and phase split (phases add up to the whole);
# the PNG is drawn when gnuplot is there; bad uses are refused.
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c "import math, collections" 2> /dev/null; then echo "no python3 for the brute-force check: skipped"; exit 77; fi
B="$top_srcdir/tests/tools/hist_brute.py"
c() { "$STARMET" compute --quiet "$@"; }
CCC2="--metric ccc --input $DATA/bits2_miss10_200x500.bin --num-field 500"
CCC3="$CCC2 --num-way 3 --num-vector 60"
THR2="0.52,0.53,0.52,1.02"
THR3="0.19,0.19,0.19,0.19,0.37"

# --- CoMet's thresholds per table entry, record for record
for bs in 7 34 200; do
  # shellcheck disable=SC2086
  run_ok "mthr 2-way bs=$bs" c $CCC2 --threshold $THR2 --block-size $bs --output "$T/m2_$bs" --output-format comet
  same "mthr 2-way vs CoMet bs=$bs" --comet-way 2 --ccc "$DATA/ccc2_sparse_mthr_f64_0.bin.gz" "$T/m2_$bs.bin"
done
# shellcheck disable=SC2086
run_ok "mthr 2-way ref" c $CCC2 --threshold $THR2 --compute-method ref --output "$T/m2r" --output-format comet
same "mthr 2-way ref vs CoMet" --comet-way 2 --ccc "$DATA/ccc2_sparse_mthr_f64_0.bin.gz" "$T/m2r.bin"
for bs in 5 16; do
  # shellcheck disable=SC2086
  run_ok "mthr 3-way bs=$bs" c $CCC3 --threshold $THR3 --block-size $bs --output "$T/m3_$bs" --output-format comet
  same "mthr 3-way vs CoMet bs=$bs" --comet-way 3 --ccc "$DATA/ccc3_sparse_60_mthr_f64_0.bin.gz" "$T/m3_$bs.bin"
done
# shellcheck disable=SC2086
run_ok "mthr 3-way ref" c $CCC3 --threshold $THR3 --compute-method ref --output "$T/m3r" --output-format comet
same "mthr 3-way ref vs CoMet" --comet-way 3 --ccc "$DATA/ccc3_sparse_60_mthr_f64_0.bin.gz" "$T/m3r.bin"
grep -q '"threshold_entries": \[0.52, 0.53, 0.52, 1.02\]' "$T/m2_7.json" && pass ||
  fail "the summary does not record the thresholds per entry"

# --- histograms against a brute-force count of the full output
hist_case() { # (run_ok sets $name: these variables are the case's own)
  hc=$1 bins=$2 lo=$3 hi=$4; shift 4
  run_ok "hist $hc" c "$@" --histogram "$bins,$lo,$hi" --output "$T/h_$hc"
  if "$PY" "$B" "$T/h_$hc.tsv" "$T/h_$hc.hist.tsv" "$bins" "$lo" "$hi" > "$T/log.py" 2>&1; then
    pass; else fail "hist $hc: $(cat "$T/log.py")"; fi
}
# shellcheck disable=SC2086
hist_case ccc2 37 0.3 0.7 $CCC2 --block-size 13
# shellcheck disable=SC2086
hist_case ccc3 11 0.4 0.6 $CCC3 --block-size 7
hist_case czek2 50 0.45 0.55 --input "$DATA/czek_real_200x500_f64.bin" --num-field 500 --block-size 17
hist_case czek3s 23 0.5 0.8 --input "$DATA/czek_int_200x500_f64.bin" --num-field 500 --num-vector 40 \
  --num-way 3 --precision single --block-size 6
# the default range is the metric's: values outside the bins go below/above
# shellcheck disable=SC2086
run_ok "hist default range" c $CCC2 --histogram 9 --output "$T/hd"
"$PY" "$B" "$T/h_ccc2.tsv" "$T/hd.hist.tsv" 9 0 4.5 > "$T/log.py" 2>&1 && pass ||
  fail "hist default range: $(cat "$T/log.py")"

# the same counts whatever the tiles, method, ranks or phases, with a
# threshold too (counts cover every value, written or not: the threshold
# writes its results file, as a threshold without one is refused)
# shellcheck disable=SC2086
for v in "--block-size 200 --output-format none" "--compute-method ref --output-format none" \
  "--threshold 0.55 --block-size 5 --output-format bin"; do
  tag=$(echo "$v" | tr -dc 'a-z0-9')
  run_ok "hist $tag" c $CCC2 $v --histogram 37,0.3,0.7 --output "$T/hv_$tag"
  cmp -s "$T/h_ccc2.hist.tsv" "$T/hv_$tag.hist.tsv" && pass || fail "hist differs with $v"
done
for ph in 0 1 2; do
  # shellcheck disable=SC2086
  run_ok "hist phase $ph" c $CCC2 --num-phase 3 --phase-min $ph --phase-max $ph --block-size 13 \
    --histogram 37,0.3,0.7 --output "$T/hp$ph" --output-format none
done
awk -F'\t' 'FNR > 1 { k = $3 "\t" $4; s[k] += $7 } END { for (k in s) print k "\t" s[k] }' \
  "$T/hp0.hist.tsv" "$T/hp1.hist.tsv" "$T/hp2.hist.tsv" | sort > "$T/hp.sum"
awk -F'\t' 'FNR > 1 { print $3 "\t" $4 "\t" $7 }' "$T/h_ccc2.hist.tsv" | sort > "$T/h.sum"
cmp -s "$T/hp.sum" "$T/h.sum" && pass || fail "the phases' histograms do not add up to the whole"
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  # shellcheck disable=SC2086
  run_ok "hist 2 ranks npf=2" mpi_starmet 2 compute $CCC2 --block-size 13 --num-proc-vector 1 \
    --num-proc-field 2 --histogram 37,0.3,0.7 --output "$T/hm" --output-format none
  cmp -s "$T/h_ccc2.hist.tsv" "$T/hm.hist.tsv" && pass || fail "hist differs on 2 ranks"
  # shellcheck disable=SC2086
  run_ok "mthr 2 ranks" mpi_starmet 2 compute $CCC2 --threshold $THR2 --block-size 13 \
    --output "$T/mm" --output-format comet
  cat "$T/mm_0.bin" "$T/mm_1.bin" > "$T/mm.bin"
  same "mthr 2 ranks vs CoMet" --comet-way 2 --ccc "$DATA/ccc2_sparse_mthr_f64_0.bin.gz" "$T/mm.bin"
else
  skip_part "no MPI launcher: the 2-rank histogram and thresholds"
fi
grep -q '"histogram": {' "$T/h_ccc2.json" && grep -q '"00": \[' "$T/h_ccc2.json" && pass ||
  fail "the JSON summary has no histogram"
if command -v gnuplot > /dev/null; then
  [ -s "$T/h_ccc2.hist.png" ] && head -c 8 "$T/h_ccc2.hist.png" | od -c | grep -q 'P   N   G' &&
    pass || fail "no PNG picture of the histogram"
else
  skip_part "gnuplot is not installed: the picture"
fi

# --- refused
o="--output $T/bad"
# shellcheck disable=SC2086
expect_error "list threshold, czekanowski" "per table entry of CCC 2-way; czekanowski 2-way takes one" "$T/bad" \
  c --input "$DATA/czek_int_200x500_f64.bin" --num-field 500 --threshold 0.1,0.2,0.3,0.4 $o
# shellcheck disable=SC2086
expect_error "4 thresholds for 3-way" "takes one or 5" "$T/bad" c $CCC3 --threshold $THR2 $o
# shellcheck disable=SC2086
expect_error "3 thresholds" "give one value, or 4" "$T/bad" c $CCC2 --threshold 0.1,0.2,0.3 $o
# shellcheck disable=SC2086
expect_error "negative threshold in a list" "-0.5 is out of range" "$T/bad" c $CCC2 --threshold 0.1,-0.5,0.3,0.4 $o
# shellcheck disable=SC2086
expect_error "histogram 0 bins" "whole number from 1 to 10000" "$T/bad" c $CCC2 --histogram 0 $o
# shellcheck disable=SC2086
expect_error "histogram 2.5 bins" "whole number" "$T/bad" c $CCC2 --histogram 2.5 $o
# shellcheck disable=SC2086
expect_error "histogram BINS,MIN" "not BINS or BINS,MIN,MAX" "$T/bad" c $CCC2 --histogram 10,0.5 $o
# shellcheck disable=SC2086
expect_error "histogram empty range" "range 0.7..0.3 is empty" "$T/bad" c $CCC2 --histogram 10,0.7,0.3 $o
# shellcheck disable=SC2086
expect_error "histogram with --resume" "histogram cannot be resumed" "$T/bad" c $CCC2 --histogram 10 --resume $o
finish
