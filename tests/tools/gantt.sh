#!/bin/sh
# gantt.sh: scripts/gantt draws a starmet --trace file: PNG and SVG, one row
# per worker (idle workers too, from --summary); a node of many CPU workers
# (36 CPU + 2 CUDA, a Summit-like node) in 3 rows, its CPU workers stacked
# in one; refused: a file that is not a trace, a missing directory.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON3:-/usr/bin/python3}
G="$top_srcdir/scripts/gantt"
if ! "$PY" -c 'import csv, json' 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
if ! command -v gnuplot > /dev/null 2>&1; then echo "no gnuplot: skipped"; exit 77; fi

STARPU_NCPU=2 run_ok "traced run" "$STARMET" compute --quiet --metric ccc --synthetic random \
  --num-vector 120 --num-field 256 --block-size 30 --output-format none \
  --trace "$T/t.csv" --summary "$T/t.json"
run_ok "gantt" "$PY" "$G" "$T/t.csv" --summary "$T/t.json"
for f in t.gantt.png t.gantt.svg; do [ -s "$T/$f" ] && pass || fail "no $f"; done
head -c 4 "$T/t.gantt.png" | grep -q PNG && pass || fail "t.gantt.png is not a PNG"
grep -q "workers in 2 rows" "$T/log.err" && pass || { fail "2 workers, 2 rows:"; cat "$T/log.err" >&2; }
ls "$T" | grep -q "\.dat\|\.part" && fail "scratch files left: $(ls "$T")" || pass

# 36 CPU workers and 2 GPUs (a Summit-like node): numerators on the GPUs,
# sums, finalize and output on the CPUs, in starmet's trace columns
"$PY" - "$T/t.csv" "$T/big.csv" <<'PYEOF'
import csv, sys
cols = next(csv.reader(open(sys.argv[1])))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols)
    w.writeheader()
    n = 0
    for step in range(12):
        for g in range(2):
            w.writerow(dict(task=n, kind="ccc2", codelet="sm_ccc2", i=0, j=step, k=-1, rank=0,
                            worker=36 + g, worker_name=f"CUDA {g}.0 (Tesla V100)", priority=0,
                            start_s=f"{0.01 * step:.6f}", end_s=f"{0.01 * step + 0.009:.6f}"))
            n += 1
        for c in range(36):
            kind = ("sums", "finalize2", "output")[c % 3]
            w.writerow(dict(task=n, kind=kind, codelet="sm_" + kind, i=c, j=step, k=-1, rank=0,
                            worker=c, worker_name=f"CPU {c}", priority=2,
                            start_s=f"{0.01 * step + 0.0002 * c:.6f}",
                            end_s=f"{0.01 * step + 0.0002 * c + 0.004:.6f}"))
            n += 1
PYEOF
run_ok "many workers" "$PY" "$G" "$T/big.csv" --out "$T/big" --title "36 CPU + 2 GPU"
grep -q "38 workers in 3 rows (rank 0: 36 CPU workers in one row)" "$T/log.err" && pass ||
  { fail "36 CPU workers not grouped:"; cat "$T/log.err" >&2; }
head -c 4 "$T/big.png" | grep -q PNG && pass || fail "big.png is not a PNG"
run_ok "many workers, ungrouped" "$PY" "$G" "$T/big.csv" --out "$T/big1" --max-cpu-rows 64
grep -q "38 workers in 38 rows" "$T/log.err" && pass || { fail "--max-cpu-rows 64:"; cat "$T/log.err" >&2; }

printf 'a,b\n1,2\n' > "$T/not.csv"
expect_error "not a trace" "not.csv: not a starmet --trace file \(no column kind" "$T/not.gantt" \
  "$PY" "$G" "$T/not.csv"
expect_error "missing directory" "no directory $T/nodir" - "$PY" "$G" "$T/t.csv" --out "$T/nodir/x"
finish
