#!/bin/sh
# topk.sh: --top-k keeps every vector's K largest values exactly: equal to a
# brute-force selection from the full output for Czekanowski (double and
# single) and CCC (by the largest entry, and per entry), for several tile
# sizes, rank grids (the merge tasks run on rank 0, candidates move between
# ranks) and phase splits (the phases' lists merged give the whole run's);
# the binary file holds the same rows; bad uses are refused.
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c "import math, collections" 2> /dev/null; then echo "no python3 for the brute-force check: skipped"; exit 77; fi
B="$top_srcdir/tests/tools/topk_brute.py"
c() { "$STARMET" compute --quiet "$@"; }
CCC="--metric ccc --input $DATA/bits2_miss10_200x500.bin --num-field 500 --num-vector 120"
CZ="--input $DATA/czek_real_200x500_f64.bin --num-field 500 --num-vector 90"
CZS="--input $DATA/czek_int_200x500_f64.bin --num-field 500 --num-vector 70 --precision single"

brute() { # NAME K MODE PREFIX [RESULTS]: the lists against the full output
  name=$1 k=$2 mode=$3 p=$4 res=${5:-$4.tsv}
  if "$PY" "$B" "$k" "$mode" "$p.topk.tsv" "$res" > "$T/log.py" 2>&1; then pass; else
    fail "$name: $(cat "$T/log.py")"; fi
}

for bs in 7 33 200; do
  # shellcheck disable=SC2086
  run_ok "ccc max bs=$bs" c $CCC --top-k 5 --block-size $bs --output "$T/cm$bs"
  brute "ccc max bs=$bs" 5 max "$T/cm$bs"
  # shellcheck disable=SC2086
  run_ok "ccc entry bs=$bs" c $CCC --top-k 3 --top-k-by entry --block-size $bs --output "$T/ce$bs"
  brute "ccc entry bs=$bs" 3 entry "$T/ce$bs"
  # shellcheck disable=SC2086
  run_ok "czek bs=$bs" c $CZ --top-k 4 --block-size $bs --output "$T/cz$bs"
  brute "czek bs=$bs" 4 value "$T/cz$bs"
done
# shellcheck disable=SC2086
run_ok "czek single" c $CZS --top-k 6 --block-size 9 --output "$T/czs"
brute "czek single" 6 value "$T/czs"
# K beyond the neighbours there are: every neighbour, in order
# shellcheck disable=SC2086
run_ok "K > n - 1" c $CZ --num-vector 12 --top-k 50 --block-size 5 --output "$T/big"
brute "K > n - 1" 50 value "$T/big"
[ "$(($(wc -l < "$T/big.topk.tsv") - 1))" -eq $((12 * 11)) ] && pass || fail "K > n - 1: not every pair"
# a threshold does not change the lists (they see every value), while it
# keeps part of the values written (a threshold with nothing written is
# refused: tests/cli/option_rules.sh)
# shellcheck disable=SC2086
run_ok "with threshold" c $CCC --top-k 5 --block-size 33 --threshold 0.6 --output "$T/thr"
cmp -s "$T/thr.topk.tsv" "$T/cm33.topk.tsv" && pass || fail "a threshold changed the lists"
kept=$(awk -F'\t' 'NR > 1 { n++; if (!($5 > 0.6)) bad++ } END { print n + 0, bad + 0 }' "$T/thr.tsv")
all=$(($(wc -l < "$T/cm33.tsv") - 1))
[ "${kept% *}" -gt 0 ] && [ "${kept% *}" -lt "$all" ] && [ "${kept#* }" -eq 0 ] && pass ||
  fail "the threshold kept $kept (rows, rows <= 0.6) of $all values"

# the binary file: the same rows
# shellcheck disable=SC2086
run_ok "binary" c $CCC --top-k 5 --block-size 33 --output "$T/bin" --output-format bin
"$PY" - "$T/bin.topk.bin" "$T/cm33.topk.tsv" > "$T/log.py" 2>&1 << 'PY' && pass || fail "binary top-k: $(cat "$T/log.py")"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"STARTOPK", b[:8]
ver, way, metric, vb, nv, nf, n, k, mode = struct.unpack_from("<IIIIQQQII", b, 8)
assert (ver, way, metric, vb, k, mode) == (1, 2, 1, 8, 5, 1), (ver, way, metric, vb, k, mode)
rows = [struct.unpack_from("<IIIBd", b, 64 + r * 21) for r in range(n)]
assert len(b) == 64 + 21 * n
tsv = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()[1:]]
want = [(int(c[0]), int(c[1]), int(c[2]), int(c[3]) * 2 + int(c[4]), float(c[5])) for c in tsv]
assert rows == want, (rows[:3], want[:3])
PY

# ranks: merges on rank 0, candidates from the other ranks; every grid of 2
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  for g in "2 1 1" "1 2 1" "1 1 2"; do
    set -- $g
    # shellcheck disable=SC2086
    run_ok "2 ranks $g" mpi_starmet 2 compute $CCC --top-k 5 --block-size 13 --num-proc-vector $1 \
      --num-proc-field $2 --num-proc-repl $3 --output "$T/m$1$2$3" --output-format none
    cmp -s "$T/m$1$2$3.topk.tsv" "$T/cm33.topk.tsv" && pass || fail "top-k differs on 2 ranks ($g)"
  done
else
  skip_part "no MPI launcher: top-k on 2 ranks"
fi
# phases: each phase's lists, merged, are the whole run's
for ph in 0 1 2; do
  # shellcheck disable=SC2086
  run_ok "phase $ph" c $CCC --top-k 5 --block-size 13 --num-phase 3 --phase-min $ph --phase-max $ph \
    --output "$T/ph$ph" --output-format none
done
if "$PY" "$B" --merge 5 max "$T/cm33.topk.tsv" "$T/ph0.topk.tsv" "$T/ph1.topk.tsv" "$T/ph2.topk.tsv" \
  > "$T/log.py" 2>&1; then pass; else fail "phases: $(cat "$T/log.py")"; fi
grep -q '"top_k": {"k": 5, "by": "max"' "$T/cm33.json" && pass || fail "the summary has no top_k"

# --- names: the lists name the vectors whatever the results' format (bin
# numbers them: its lists are binary too)
A="$top_srcdir/data/example_abundance.tsv"
run_ok "names, tsv results" c --input "$A" --top-k 3 --output "$T/nt"
for f in none comet npy; do
  run_ok "names, $f results" c --input "$A" --top-k 3 --output "$T/n$f" --output-format $f
  cmp -s "$T/nt.topk.tsv" "$T/n$f.topk.tsv" && pass || fail "names, $f: other top-k lists than with tsv"
done
[ "$(sed -n 2p "$T/nt.topk.tsv" | cut -f 1,3)" = "$(printf 'site01_rep1\tsite01_rep3')" ] && pass ||
  fail "names: $(sed -n 2p "$T/nt.topk.tsv")"

# --- refused
# shellcheck disable=SC2086
expect_error "3-way" "is for 2-way results" "$T/bad" c $CCC --num-way 3 --top-k 3 --output "$T/bad"
# shellcheck disable=SC2086
expect_error "no output" "give --output PREFIX" - c $CCC --top-k 3
# shellcheck disable=SC2086
expect_error "ref method" "not --compute-method ref" "$T/bad" c $CCC --top-k 3 --compute-method ref --output "$T/bad"
# shellcheck disable=SC2086
expect_error "K = 0" "out of range \(1\.\.256\)" "$T/bad" c $CCC --top-k 0 --output "$T/bad"
# shellcheck disable=SC2086
expect_error "resume" "top-k cannot be resumed" "$T/bad" c $CCC --top-k 3 --resume --output "$T/bad"
finish
