#!/bin/sh
# ccc_formulas.sh: CCC values against tests/tools/ccc_numpy.py, a numpy
# implementation written from the CCC paper's equations, independent of
# sm_formulas.h: 2-way and 3-way, CoMet's defaults and other values of
# --ccc-param and --ccc-multiplier, graph and reference implementation.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import numpy' 2> /dev/null; then echo "python3 with numpy not found: skipped"; exit 77; fi
CHECK="$top_srcdir/tests/tools/ccc_numpy.py"

"$STARMET" synth --metric ccc --num-vector 23 --num-field 37 --seed 5 --output-format plink \
  --output "$T/g" > /dev/null 2>&1 || fail "synth plink"
for way in 2 3; do
  for gm in "0.6666666666666666 4.5" "0.6 3.7" "0 1" "1.5 0.25"; do
    set -- $gm
    for method in tasks ref; do
      o="$T/w${way}_$1_$2_$method"
      run_ok "way $way g=$1 m=$2 $method" "$STARMET" compute --quiet --bfile "$T/g" \
        --num-way $way --ccc-param "$1" --ccc-multiplier "$2" --compute-method $method \
        --block-size 5 --output "$o"
      if "$PY" "$CHECK" "$T/g" $way "$1" "$2" "$o.tsv" > "$T/py.log" 2>&1; then pass; else
        fail "way $way g=$1 m=$2 $method: differs from the paper's equations"; cat "$T/py.log" >&2; fi
    done
  done
done
finish
