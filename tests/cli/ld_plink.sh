#!/bin/sh
# ld_plink.sh: --metric r2 and r against plink1.9 --r2/--r run here, on
# genotypes with missing calls, monomorphic SNPs, a SNP never called and
# three chromosomes: every pair's value within PLINK's 6 printed digits,
# the pairs PLINK leaves out (no variance over the shared samples) NaN;
# r's sign as PLINK's (its minor allele counted); the int8 products and a
# second sample count give the same; genotype inputs without --metric run
# ccc and say so; what r and r2 refuse.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON3:-/usr/bin/python3}
GEN="$top_srcdir/tests/tools/ld_data.py"
CMP="$top_srcdir/tests/tools/ld_compare.py"
"$PY" -c 'import math' 2> /dev/null || { echo "no python3: skipped"; exit 77; }

"$PY" "$GEN" "$T/g" --samples 157 --snps 300 --missing 0.05 --mono 4 --seed 3
"$PY" "$GEN" "$T/h" --samples 64 --snps 130 --missing 0 --chroms 2 --seed 5

for m in r2 r; do
  for d in g h; do
    run_ok "$m $d" "$STARMET" compute --quiet --bfile "$T/$d" --metric $m --output "$T/${d}_$m"
    if command -v plink1.9 > /dev/null 2>&1; then
      plink1.9 --bfile "$T/$d" --$m inter-chr --ld-window-r2 0 --out "$T/pl_${d}_$m" \
        > /dev/null 2>&1 || fail "plink1.9 --$m on $d"
      if "$PY" "$CMP" "$T/${d}_$m.tsv" "$T/pl_${d}_$m.ld" > "$T/cmp.out"; then pass; else
        fail "$m $d against plink1.9: $(tail -3 "$T/cmp.out")"; fi
    fi
  done
  # the int8 products give the same moments
  run_ok "$m int8" "$STARMET" compute --quiet --bfile "$T/g" --metric $m --ccc-gemm int8 \
    --output "$T/i8_$m"
  same_text "$m int8 products" "$T/g_$m.tsv" "$T/i8_$m.tsv"
  # small tiles: many blocks, off-diagonal ones swapped
  run_ok "$m tiles" "$STARMET" compute --quiet --bfile "$T/g" --metric $m --block-size 17 \
    --output "$T/b_$m"
  same_text "$m tiles of 17" "$T/g_$m.tsv" "$T/b_$m.tsv"
done
command -v plink1.9 > /dev/null 2>&1 || skip_part "no plink1.9: values not compared with PLINK's"

# r^2 is r squared, pair for pair (both written to 17 digits)
"$PY" - "$T/g_r.tsv" "$T/g_r2.tsv" > "$T/sq.out" << 'PYEOF' && pass || fail "r2 is not r^2: $(cat "$T/sq.out")"
import math, sys
r = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:]]
r2 = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()[1:]]
assert len(r) == len(r2) > 0
for a, b in zip(sorted(r), sorted(r2)):
    assert a[:2] == b[:2]
    x, y = float(a[2]), float(b[2])
    assert (math.isnan(x) and math.isnan(y)) or abs(x * x - y) <= 4e-16, (a, b)
PYEOF

# the header names one value per pair
[ "$(head -n 1 "$T/g_r2.tsv")" = "$(printf 'id_i\tid_j\tvalue')" ] && pass ||
  fail "r2 header: $(head -n 1 "$T/g_r2.tsv")"

# genotype inputs choose ccc, and the first line says so
run_ok "bfile without --metric" "$STARMET" compute --bfile "$T/h" --output "$T/nometric"
head -n 1 "$T/log.err" | grep -q "ccc" && pass || fail "first line: $(head -n 1 "$T/log.err")"
run_ok "bfile --metric ccc" "$STARMET" compute --quiet --bfile "$T/h" --metric ccc \
  --output "$T/ccc"
same_text "no --metric is ccc" "$T/ccc.tsv" "$T/nometric.tsv"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/h" --keep-allele-order --recode vcf --out "$T/hv" > /dev/null 2>&1
  run_ok "vcf without --metric" "$STARMET" compute --input "$T/hv.vcf" --output "$T/vnometric"
  head -n 1 "$T/log.err" | grep -q "ccc" && pass || fail "vcf first line: $(head -n 1 "$T/log.err")"
fi

# what r and r2 refuse
expect_error "r2 3-way" "measure of pairs" "$T/e1" \
  "$STARMET" compute --bfile "$T/h" --metric r2 --num-way 3 --output "$T/e1"
expect_error "r2 threshold" "ld-window-r2" "$T/e2" \
  "$STARMET" compute --bfile "$T/h" --metric r2 --threshold 0.5 --output "$T/e2"
expect_error "r no-sparse" "missing calls out" "$T/e3" \
  "$STARMET" compute --bfile "$T/h" --metric r --no-sparse --output "$T/e3"
expect_error "r2 ref" "task graph" "$T/e4" \
  "$STARMET" compute --bfile "$T/h" --metric r2 --compute-method ref --output "$T/e4"
finish
