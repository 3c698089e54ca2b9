#!/bin/sh
# single_precision.sh: --precision single keeps its promise or says so
# before computing. Values outside float32's normal range are refused with
# the remedy, in every reader (text, .npy, raw); long vectors get a warning
# that states the bound (2 x fields x 2^-24); the analytic self-check uses
# that bound as its tolerance, states it, and passes.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
json() { sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1" | head -n 1; }

printf 'a\t1e-50\t2e-50\nb\t3e-50\t1e-50\nc\t1\t2\n' > "$T/tiny.tsv"
printf 'a\t1e39\t2\nb\t3\t1\n' > "$T/huge.tsv"
printf 'a\t1e-39\t2\nb\t3\t1\n' > "$T/subnormal.tsv"
expect_error "1e-50, single" "tiny\.tsv:1:2: vector a, field 1: value 1e-50 is below float32's normal range.*--precision double" \
  "$T/o" "$S" compute --input "$T/tiny.tsv" --precision single --output "$T/o"
expect_error "1e-39 (float32 subnormal), single" "subnormal\.tsv:1:2: .*value 1e-39 is below float32's normal range" \
  "$T/o" "$S" compute --input "$T/subnormal.tsv" --precision single --output "$T/o"
expect_error "1e39, single" "huge\.tsv:1:2: .*value 1e39 is beyond float32's range.*--precision double" \
  "$T/o" "$S" compute --input "$T/huge.tsv" --precision single --output "$T/o"
# the remedy: double precision reads them, and the tiny table gives the
# values of the same table scaled up by 1e50 (a common factor)
run_ok "1e-50, double" "$S" compute --quiet --input "$T/tiny.tsv" --output "$T/d" --summary "$T/d.json"
printf 'a\t1\t2\nb\t3\t1\nc\t1e50\t2e50\n' > "$T/scaled.tsv"
run_ok "scaled" "$S" compute --quiet --input "$T/scaled.tsv" --output "$T/s" --summary "$T/s.json"
same "1e-50 in double = the table scaled by 1e50" --tol-rel 1e-15 "$T/d.tsv" "$T/s.tsv"
run_ok "1e39, double" "$S" compute --quiet --input "$T/huge.tsv" --output-format none
# 0 stays allowed
printf 'a\t0\t2\nb\t3\t0\n' > "$T/zero.tsv"
run_ok "zeros, single" "$S" compute --quiet --input "$T/zero.tsv" --precision single --output-format none

# .npy float64 and raw float64 / float32 go through the same rule
PY=${PYTHON3:-/usr/bin/python3}
if "$PY" -c "import numpy" 2> /dev/null; then
  "$PY" -c "import numpy as np; np.save('$T/t.npy', np.array([[1e-45, 1.0], [2.0, 3.0]]))"
  expect_error ".npy float64 1e-45, single" "t\.npy: vector 1, field 1 .*below float32's normal range" \
    "$T/o" "$S" compute --input "$T/t.npy" --precision single --output "$T/o"
  "$PY" -c "import numpy as np; np.array([[1.0, 2.0], [5e39, 3.0]]).tofile('$T/r.bin')"
  expect_error "raw float64 5e39, single" "r\.bin: vector 2, field 1 .*beyond float32's range" \
    "$T/o" "$S" compute --input "$T/r.bin" --input-format raw --raw-type float64 --num-field 2 --precision single --output "$T/o"
  "$PY" -c "import numpy as np; np.array([[1.0, 2.0], [1e-40, 3.0]], dtype=np.float32).tofile('$T/r4.bin')"
  expect_error "raw float32 subnormal, single" "r4\.bin: vector 2, field 1 .*below float32's normal range" \
    "$T/o" "$S" compute --input "$T/r4.bin" --input-format raw --raw-type float32 --num-field 2 --precision single --output "$T/o"
else skip_part "no NumPy: the .npy and raw cases"; fi

# long vectors: the bound is said before computing, and is the tolerance
run_ok "8000 fields" "$S" compute --synthetic analytic --num-vector 20 --num-field 8000 --precision single \
  --output-format none --summary "$T/a1.json"
grep -q "warning:.*--precision single over" "$T/log.err" && fail "8000 fields: a warning (bound 9.5e-4 < 1e-3)" || pass
[ "$(json "$T/a1.json" failed)" = 0 ] && pass || fail "8000 fields: the analytic check failed"
run_ok "200000 fields" "$S" compute --synthetic analytic --num-vector 12 --num-field 200000 --precision single \
  --output-format none --summary "$T/a2.json"
grep -q "warning: synthetic analytic (seed 1): --precision single over 200000 fields: a float32 sum of that many terms may be off by up to 0.024 relative (2 x fields x 2^-24; usually far less); --precision double keeps every value within 4.4e-11" "$T/log.err" &&
  pass || { fail "200000 fields: no warning with the bound"; cat "$T/log.err" >&2; }
[ "$(json "$T/a2.json" failed)" = 0 ] && pass || fail "200000 fields: the analytic check failed"
tol=$(json "$T/a2.json" tolerance)
awk -v t="$tol" 'BEGIN { exit !(t >= 0.0238 && t <= 0.0239) }' && pass || fail "tolerance $tol, not 2 x 200000 x 2^-24"
run_ok "double, 200000 fields" "$S" compute --synthetic analytic --num-vector 12 --num-field 200000 \
  --output-format none --summary "$T/a3.json"
[ "$(json "$T/a3.json" failed)" = 0 ] && [ "$(json "$T/a3.json" max_rel_error)" = 0 ] && pass ||
  fail "double: analytic values not exact"
grep -q "warning" "$T/log.err" && fail "double precision warned" || pass
finish
