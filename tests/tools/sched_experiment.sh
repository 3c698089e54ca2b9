#!/bin/sh
# sched_experiment.sh: scripts/sched-experiment end to end on a tiny
# problem: a row per policy and worker mix in results.csv (the OpenCL mix
# skipped when starmet has no OpenCL codelets, the MPI mixes run), every
# run giving the same checksum, and the plots drawn (PNG and SVG).
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import csv, json, statistics' 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
if ! command -v gnuplot > /dev/null 2>&1 && [ "$(id -u)" -ne 0 ]; then
  echo "no gnuplot (and not root to install it): skipped"; exit 77
fi
mixes=cpu,cpu+opencl
if [ -n "${MPIEXEC:-}" ]; then mixes=$mixes,mpi-1,mpi-2; fi
run_ok "experiment" "$PY" "$top_srcdir/scripts/sched-experiment" --starmet "$STARMET" --tiny \
  --policies eager,dmda,heteroprio --mixes "$mixes" --priorities both --out "$T/exp"
cat "$T/log.err" >&2
for f in results.csv runs.csv trace.csv makespan.png makespan.svg gantt.png gantt.svg; do
  [ -s "$T/exp/$f" ] && pass || fail "experiment did not write $f"
done
for f in makespan.png gantt.png; do
  head -c 4 "$T/exp/$f" | grep -q PNG && pass || fail "$f is not a PNG"
done
if "$PY" - "$T/exp/results.csv" "$mixes" "$STARMET" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "results.csv"; cat "$T/py.log" >&2; fi
import csv, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1])))
mixes = sys.argv[2].split(",")
want = {(p, m, pr) for p in ("eager", "dmda", "heteroprio") for m in mixes for pr in ("on", "off")}
got = [(r["policy"], r["mix"], r["priorities"]) for r in rows]
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
opencl = "opencl" in subprocess.run([sys.argv[3], "--version"], capture_output=True,
                                    text=True).stdout
best = 0
for r in rows:
    if r["mix"] == "cpu+opencl" and not opencl:
        assert r["status"].startswith("skipped"), r
        continue
    assert r["status"] == "ok", r
    assert float(r["makespan_s"]) > 0 and 0 < float(r["efficiency_vs_best"]) <= 1, r
    assert 0 < float(r["efficiency_in_mix"]) <= 1 and 0 <= float(r["idle_fraction"]) <= 1, r
    assert int(r["bytes_moved"]) >= 0, r
    best = max(best, float(r["efficiency_vs_best"]))
    if r["mix"] == "mpi-2":
        assert int(r["mpi_bytes"]) > 0, r
assert best == 1.0
PYEOF
grep -q "checksum differs" "$T/exp/runs.csv" && fail "a policy changed the results" || pass
finish
