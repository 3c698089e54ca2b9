#!/bin/sh
# cli_basic.sh: the starmet command end to end: help, every input format
# round-tripped through `starmet synth`, task graph vs reference, run-to-run
# and worker/scheduler reproducibility, output formats, threshold, summary.
. "$(dirname "$0")/../lib.sh"

c() { "$STARMET" compute --quiet "$@"; }

run_ok "help" "$STARMET" --help
grep -q "Examples:" "$T/log.out" && pass || fail "help has no examples"
run_ok "version" "$STARMET" --version

# --- synth round trips: a file written by synth reads back to the same problem
for fmt in tsv npy raw; do
  f=$T/cz.$fmt
  run_ok "synth czek $fmt" "$STARMET" synth --metric czekanowski --num-vector 41 --num-field 67 \
    --seed 5 --output-format $fmt --output "$f"
  extra=""; [ $fmt = raw ] && extra="--num-field 67"
  run_ok "read czek $fmt" c --input "$f" $extra --output "$T/rt_$fmt" --output-format bin
done
run_ok "czek synthetic direct" c --synthetic random --num-vector 41 --num-field 67 --seed 5 \
  --output "$T/direct" --output-format bin
for fmt in tsv npy raw; do same "czek $fmt round trip" "$T/direct.bin" "$T/rt_$fmt.bin"; done

for fmt in plink npy raw; do
  f=$T/gt_$fmt; [ $fmt = npy ] && f=$f.npy
  run_ok "synth ccc $fmt" "$STARMET" synth --metric ccc --num-vector 33 --num-field 101 --seed 9 \
    --missing-rate 0.05 --output-format $fmt --output "$f"
  case $fmt in
    plink) inp="--bfile $f" ;; raw) inp="--metric ccc --input $f --num-field 101" ;;
    *) inp="--metric ccc --input $f" ;;
  esac
  run_ok "read ccc $fmt" c $inp --output "$T/g_$fmt" --output-format bin
done
run_ok "ccc synthetic direct" c --metric ccc --synthetic random --num-vector 33 --num-field 101 \
  --seed 9 --missing-rate 0.05 --output "$T/gdirect" --output-format bin
for fmt in plink npy raw; do same "ccc $fmt round trip" "$T/gdirect.bin" "$T/g_$fmt.bin"; done
grep -q '"variant": "sparse"' "$T/gdirect.json" && pass || fail "missing calls did not select sparse"

# --- task graph vs reference on random problems with odd sizes
for args in "--metric ccc --missing-rate 0.1" "--metric ccc" "--metric ccc --missing-rate 0.1 --no-sparse" \
            "--metric czekanowski" "--metric czekanowski --precision single"; do
  tag=$(echo "$args" | tr -dc 'a-z0-9')
  tol=""; case "$args" in *single*) tol="--tol-rel 1e-5" ;; esac
  run_ok "ref $args" c $args --synthetic random --num-vector 97 --num-field 203 --seed 3 \
    --compute-method ref --output "$T/ref_$tag" --output-format bin
  for bs in 1 13 97; do
    run_ok "tasks $args bs=$bs" c $args --synthetic random --num-vector 97 --num-field 203 --seed 3 \
      --block-size $bs --output "$T/tk_${tag}_$bs" --output-format bin
    same "tasks vs ref $args bs=$bs" $tol "$T/ref_$tag.bin" "$T/tk_${tag}_$bs.bin"
  done
done

# --- reproducibility: identical bytes run to run, for any worker count and
# scheduler (dyadic random values make czekanowski sums exact)
for metric in ccc czekanowski; do
  base=""
  for ncpu in 1 2; do
    for sched in eager lws dmda; do
      o=$T/rep_${metric}_${ncpu}_$sched
      STARPU_NCPU=$ncpu run_ok "repro $metric $ncpu $sched" c --metric $metric --synthetic random \
        --num-vector 150 --num-field 300 --block-size 16 --sched $sched --output "$o"
      if [ -z "$base" ]; then base=$o; else
        cmp -s "$base.tsv" "$o.tsv" && pass || fail "$metric output differs: $ncpu cpus, $sched"
        [ "$(cks "$base.json")" = "$(cks "$o.json")" ] && pass || fail "$metric checksum differs"
      fi
    done
  done
done
# real-valued input: bit-identical run to run with the same decomposition
for k in 1 2; do
  run_ok "real run $k" c --input "$DATA/czek_real_200x500_f64.bin" --num-field 500 --block-size 23 \
    --output "$T/real$k"
done
cmp -s "$T/real1.tsv" "$T/real2.tsv" && pass || fail "real-valued czekanowski not reproducible"

# --- output formats agree; none writes nothing but the same checksum
run_ok "fmt tsv" c --metric ccc --synthetic random --num-vector 40 --num-field 50 --output "$T/f"
run_ok "fmt bin" c --metric ccc --synthetic random --num-vector 40 --num-field 50 --output "$T/fb" --output-format bin
run_ok "fmt none" c --metric ccc --synthetic random --num-vector 40 --num-field 50 --output "$T/fn" --output-format none
same "tsv vs bin" --tol-rel 1e-15 "$T/f.tsv" "$T/fb.bin"
[ ! -e "$T/fn.tsv" ] && [ ! -e "$T/fn.bin" ] && pass || fail "output none wrote a file"
[ "$(cks "$T/f.json")" = "$(cks "$T/fn.json")" ] && pass || fail "checksum depends on output format"
[ "$(head -1 "$T/f.tsv")" = "$(printf 'id_i\tid_j\ta\tb\tvalue')" ] && pass || fail "tsv header"
[ "$(($(wc -l < "$T/f.tsv") - 1))" -eq $((40 * 39 / 2 * 4)) ] && pass || fail "tsv record count"

# --- threshold keeps exactly the values > T
run_ok "threshold" c --synthetic random --num-vector 60 --num-field 80 --threshold 0.5 --output "$T/th"
run_ok "no threshold" c --synthetic random --num-vector 60 --num-field 80 --output "$T/nth"
want=$(awk 'NR > 1 && $3 > 0.5' "$T/nth.tsv" | wc -l)
got=$(($(wc -l < "$T/th.tsv") - 1))
[ "$want" -eq "$got" ] && [ "$got" -gt 0 ] && pass || fail "threshold kept $got, expected $want"
awk 'NR > 1 && $3 <= 0.5 { bad = 1 } END { exit bad }' "$T/th.tsv" && pass || fail "threshold leak"

# --- analytic problems check themselves (and would fail the run otherwise)
for args in "--metric czekanowski" "--metric czekanowski --precision single" "--metric ccc" \
            "--metric ccc --missing-rate 0.2" "--metric ccc --missing-rate 0.2 --no-sparse"; do
  run_ok "analytic $args" c $args --synthetic analytic --num-vector 120 --num-field 333 --block-size 17 \
    --summary "$T/an.json"
  grep -q '"failed": 0' "$T/an.json" && grep -q '"checked": [1-9]' "$T/an.json" && pass || fail "analytic $args"
done
run_ok "analytic ref 3-way" c --metric ccc --num-way 3 --compute-method ref --synthetic analytic \
  --num-vector 25 --num-field 70 --missing-rate 0.1 --summary "$T/an3.json"
grep -q '"failed": 0' "$T/an3.json" && pass || fail "analytic 3-way"

# --- bundled example data: names in the output, summary written
run_ok "example ccc" c --bfile "$top_srcdir/data/example_geno" --output "$T/ex"
grep -q '"variant": "sparse"' "$T/ex.json" && pass || fail "example genotypes not sparse"
sed -n 2p "$T/ex.tsv" | grep -q '^snp_' && pass || fail "example output lacks SNP names"
run_ok "example czek" c --input "$top_srcdir/data/example_abundance.tsv" --output "$T/ab"
sed -n 2p "$T/ab.tsv" | grep -q '^site' && pass || fail "abundance output lacks sample names"
finish
