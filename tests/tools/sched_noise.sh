#!/bin/sh
# sched_noise.sh: scripts/sched-experiment's honesty about timings. Busy
# loops keep the cores busy during a sweep: every run is marked disturbed
# in runs.csv with the load other processes put on the machine before and
# during it, results.csv counts them, and the sweep warns; with a
# --max-load no machine reaches, none is. A policy's runs that spread are
# repeated up to --max-repeat; the Gantt chart is one of the measured runs
# (its trace is that run's), not a run of its own.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import csv, json, statistics, resource' 2> /dev/null; then
  echo "no python3: skipped"; exit 77
fi
[ -r /proc/stat ] || { echo "no /proc/stat: skipped"; exit 77; }
X="$top_srcdir/scripts/sched-experiment"

# busy loops, one per core, at the lowest priority: the sweep's 0.3 s look
# before each run sees every core busy, while the runs (and the other tests
# make -j runs beside this one) take the cores back from them
pids=""
for k in $(seq "$(nproc)"); do
  nice -n 19 sh -c 'while :; do :; done' &
  pids="$pids $!"
done
tiny="--num-vector 120 --num-field 256 --block-size 16 --calibrate-runs 0 --mixes cpu"
# shellcheck disable=SC2086
run_ok "loaded sweep" "$PY" "$X" --starmet "$STARMET" $tiny --repeat 1 --max-repeat 1 --no-plots \
  --policies eager,dmda --max-load 0.3 --out "$T/busy"
for p in $pids; do kill "$p"; done
wait 2> /dev/null
grep -q "warning: 2 of 2 runs were taken while other processes used more than 0.3 cores" \
  "$T/log.err" && pass || { fail "no warning about the load:"; cat "$T/log.err" >&2; }
if "$PY" - "$T/busy" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "loaded sweep"; cat "$T/py.log" >&2; fi
import csv, os, sys
runs = list(csv.DictReader(open(os.path.join(sys.argv[1], "runs.csv"))))
assert len(runs) == 2, runs
for r in runs:
    assert r["disturbed"] == "yes", r
    assert float(r["load_before"]) > 0.3 and float(r["load_during"]) >= 0, r
res = list(csv.DictReader(open(os.path.join(sys.argv[1], "results.csv"))))
assert [r["disturbed_runs"] for r in res] == ["1", "1"], res
assert {r["noise"] for r in res} == {"best", "unknown (1 run)"}, res
PYEOF

# a threshold no machine reaches: nothing disturbed; three runs each at
# least, repeated while they spread by more than 0.1% (up to 4)
# shellcheck disable=SC2086
run_ok "sweep" "$PY" "$X" --starmet "$STARMET" $tiny --policies eager,dmda \
  --max-load 1000 --repeat 3 --max-repeat 4 --spread 0.001 --out "$T/calm"
grep -q "runs were taken while other processes" "$T/log.err" && fail "warned at --max-load 1000" || pass
if "$PY" - "$T/calm" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "sweep"; cat "$T/py.log" >&2; fi
import csv, os, sys
d = sys.argv[1]
runs = list(csv.DictReader(open(os.path.join(d, "runs.csv"))))
assert all(r["disturbed"] == "no" for r in runs), runs
for p in ("eager", "dmda"):
    mine = [r for r in runs if r["policy"] == p]
    assert 3 <= len(mine) <= 4, (p, len(mine))
res = {r["policy"]: r for r in csv.DictReader(open(os.path.join(d, "results.csv")))}
for p, r in res.items():
    assert r["noise"] in ("best", "within noise", "slower"), r
    assert float(r["makespan_min_s"]) <= float(r["makespan_s"]) <= float(r["makespan_max_s"]), r
    assert int(r["runs"]) >= 3 and r["disturbed_runs"] == "0", r
# the Gantt chart's trace is a measured run's: the fastest policy's run
# closest to its median
best = min(res.values(), key=lambda r: float(r["makespan_s"]))
trace = open(os.path.join(d, "trace.csv")).read()
mine = [r for r in runs if r["policy"] == best["policy"]]
med = float(best["makespan_s"])
pick = min(mine, key=lambda r: (abs(float(r["makespan_s"]) - med), int(r["repeat"])))
assert open(os.path.join(d, pick["trace"])).read() == trace, "trace.csv is not that run's"
n = len([f for f in os.listdir(os.path.join(d, "runs")) if f.endswith(".json")])
assert n == len(runs), (n, len(runs))  # no run besides the measured ones
PYEOF
finish
