#!/bin/sh
# cli_scipy.sh: an independent tool agrees: Czekanowski 2-way equals
# 1 - scipy.spatial.distance.braycurtis on the bundled abundance table and on
# a real-valued table (skipped when scipy is not installed).
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import scipy.spatial' 2> /dev/null; then
  echo "scipy not available: skipped"; exit 77
fi
check() {
  name=$1 tsv=$2
  run_ok "$name" "$STARMET" compute --quiet --input "$tsv" --output "$T/res_$name"
  if "$PY" - "$tsv" "$T/res_$name.tsv" > "$T/py.log" 2>&1 <<'PYEOF'
import sys
import numpy as np
from scipy.spatial.distance import pdist, squareform
names, rows = [], []
with open(sys.argv[1]) as f:
    header = f.readline()
    for line in f:
        p = line.rstrip("\n").split("\t")
        names.append(p[0]); rows.append([float(x) for x in p[1:]])
d = squareform(pdist(np.array(rows), "braycurtis"))
idx = {n: k for k, n in enumerate(names)}
n = worst = 0
with open(sys.argv[2]) as f:
    f.readline()
    for line in f:
        a, b, v = line.split("\t")
        want = 1.0 - d[idx[a], idx[b]]
        worst = max(worst, abs(float(v) - want) / max(abs(want), 1e-300))
        n += 1
assert n == len(names) * (len(names) - 1) // 2, n
print("pairs", n, "max rel diff", worst)
sys.exit(0 if worst < 1e-12 else 1)
PYEOF
  then pass; else fail "$name differs from scipy"; cat "$T/py.log" >&2; fi
}
check abundance "$top_srcdir/data/example_abundance.tsv"
"$STARMET" synth --metric czekanowski --num-vector 70 --num-field 90 --seed 4 --output-format tsv \
  --output "$T/real.tsv" > /dev/null 2>&1
check real "$T/real.tsv"
finish
