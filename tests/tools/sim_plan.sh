#!/bin/sh
# sim_plan.sh: scripts/starmet-plan on the SMPI build (scripts/setup-sim
# --mpi). On two simulated ranks of this machine the few candidates its
# model keeps include what an exhaustive simulation of every grid, tile and
# policy picks, or one within its tolerance, with the same simulated time
# for the same candidate; a candidate too large for --budget is
# extrapolated from two smaller problems close to its direct simulation; the command it prints runs under mpirun with the regular
# build, whose graph (tasks, bytes every rank sends) is the simulated one;
# a node of one's own file is simulated; bad requests are refused.
. "$(dirname "$0")/../lib.sh"

simmpi_setup
PLAN="$top_srcdir/scripts/starmet-plan"

# the planner against the exhaustive simulation of its candidates, 2-way
# and 3-way (small problems: tiles from 8 vectors, several grids)
for p in "2 1200 3000 dm,lws" "3 120 1000 dm"; do
  set -- $p
  shape="--platform here --nodes 1 --ranks-per-node 2 --metric ccc --num-way $1
         --num-vector $2 --num-field $3 --policies $4 --starmet $SIMMPI --quiet"
  # shellcheck disable=SC2086
  run_ok "plan $1-way" "$PY" "$PLAN" $shape --json "$T/plan$1.json" --out "$T/po$1"
  # shellcheck disable=SC2086
  run_ok "exhaustive $1-way" "$PY" "$PLAN" $shape --exhaustive --json "$T/all$1.json" \
    --out "$T/pa$1"
  if "$PY" - "$T/plan$1.json" "$T/all$1.json" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "$1-way: plan against exhaustive"; cat "$T/py.log" >&2; fi
import json, sys
plan, full = (json.load(open(f)) for f in sys.argv[1:])
key = lambda r: (r["grid"], r["block_size"], r["policy"])
ok = {key(r): r for r in full["candidates"] if r["status"] == "ok"}
grids = {r["grid"] for r in full["candidates"]}
assert grids == {"2x1x1", "1x2x1", "1x1x2"}, grids
assert len(ok) >= 12, len(ok)
best = min(r["makespan_s"] for r in ok.values())
c = plan["choice"]
# its pick is at most its tolerance (2%) from the best of them all
assert c["makespan_s"] <= best * 1.02 + 1e-12, (c, best)
# fewer simulations, each one among the exhaustive ones with the same time
assert len(plan["candidates"]) < len(full["candidates"])
for r in plan["candidates"]:
    if r["status"] == "ok":
        assert abs(ok[key(r)]["makespan_s"] - r["makespan_s"]) <= 1e-9 * r["makespan_s"], r
# and the exhaustive search's own choice is its best within the tolerance
assert full["choice"]["makespan_s"] <= best * 1.02 + 1e-12
print(c)
PYEOF
done

# a candidate the budget cannot simulate: two smaller problems of its tile
# and partition, and a straight line through them, against its direct
# simulation
run_ok "plan from proxies" "$PY" "$PLAN" --platform summit --nodes 8 --num-vector 32000 \
  --num-field 20480 --max-field-split 1 --policies dm --budget 0.001 --survivors 1 \
  --starmet "$SIMMPI" --quiet --json "$T/px.json" --out "$T/px"
set -- $("$PY" -c 'import json, sys
c = json.load(open(sys.argv[1]))["choice"]
assert len(c["extrapolated_from"]) == 2, c
print(c["num_proc_vector"], c["num_proc_repl"], c["block_size"], c["makespan_s"])' "$T/px.json")
[ $# -eq 4 ] && pass || fail "no extrapolated choice"
run_ok "its direct simulation" "$PY" "$top_srcdir/scripts/sim-cluster" run --platform summit \
  --nodes 8 --starmet "$SIMMPI" --out "$T/pxd" -- --metric ccc --num-way 2 --synthetic random \
  --num-vector 32000 --num-field 20480 --num-proc-vector "$1" --num-proc-repl "$2" \
  --block-size "$3" --sched dm --output-format none --quiet
direct=$(sed -n 's/.*simulated \([0-9.e+-]*\) s,.*/\1/p' "$T/log.out" | head -1)
"$PY" -c 'import sys; x, d = map(float, sys.argv[1:]); assert abs(x - d) <= 0.15 * d, (x, d)' \
  "$4" "$direct" && pass || fail "extrapolated $4 s against simulated ${direct:-?} s"

# the printed command runs for real, with the graph the simulation had
"$PY" "$PLAN" --platform here --nodes 1 --ranks-per-node 2 --num-vector 1200 --num-field 3000 \
  --policies dm,lws --starmet "$SIMMPI" --quiet --mpirun MPIRUN --output-format none \
  --json "$T/p.json" --out "$T/pr" > "$T/plan.out" 2> "$T/plan.err" && pass ||
  { fail "plan for a real run"; cat "$T/plan.err" >&2; }
cmd=$(grep "^  MPIRUN " "$T/plan.out" | sed 's/^  MPIRUN -np 2 --map-by ppr:2:node starmet //')
[ -n "$cmd" ] && pass || { fail "no command printed"; cat "$T/plan.out" >&2; }
grep -q "^predicted compute time" "$T/plan.out" && grep -q "^memory per node about" "$T/plan.out" &&
  grep -q "^output: 2877600 values, none written" "$T/plan.out" && pass ||
  { fail "the prediction lines"; cat "$T/plan.out" >&2; }
# shellcheck disable=SC2086
run_ok "the recommended command" mpi_starmet 2 $cmd --no-verify --summary "$T/real.json"
if "$PY" - "$T/p.json" "$T/real.json" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "real run of the plan"; cat "$T/py.log" >&2; fi
import json, sys
plan, real = (json.load(open(f)) for f in sys.argv[1:])
c, d = plan["choice"], real["decomposition"]
assert real["status"] == "ok", real["status"]
assert "{num_proc_vector}x{num_proc_field}x{num_proc_repl}".format(**d) == c["grid"], (d, c)
assert d["block_size"] == c["block_used"], (d, c)
assert real["runtime"]["tasks_executed"] == c["tasks"], (real["runtime"]["tasks_executed"], c)
assert max(r["mpi_bytes_sent"] for r in real["ranks"]) == c["max_bytes_sent_by_a_rank"]
PYEOF

# a node of one's own: [here] with its cores twice as fast; the planner
# takes it from the file, its CPU rates from [here]'s times the factors
cat > "$T/mine.ini" << 'EOF'
[fastbox]
description = twice this machine
cpus = 2
gpus = 0
host_bw = 20
cpu_compute = 2
cpu_memory = 2
cpu_overhead_us = 0
net = shared-memory
loop_bw = 2
loop_lat = 0.33
EOF
run_ok "own node" "$PY" "$PLAN" --platform-file "$T/mine.ini" --platform fastbox --nodes 1 \
  --ranks-per-node 2 --num-vector 1200 --num-field 3000 --policies dm --starmet "$SIMMPI" \
  --quiet --json "$T/mine.json" --out "$T/pm"
if "$PY" - "$T/mine.json" "$T/p.json" "$T/pm/models.tsv" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "own node"; cat "$T/py.log" >&2; fi
import json, sys
mine, here = (json.load(open(f)) for f in sys.argv[1:3])
rows = [l.split("\t") for l in open(sys.argv[3]) if l.startswith("fastbox\t")]
h = {l.split("\t")[2]: float(l.split("\t")[3]) for l in open(sys.argv[3]) if l.startswith("here\tcpu\t")}
assert rows and all(abs(float(r[3]) - 2 * h[r[2]]) <= 1e-5 * float(r[3]) for r in rows), rows
# the same grid and tile on the faster node: faster, not more than twice
a = {(r["grid"], r["block_size"]): r["makespan_s"] for r in here["candidates"]
     if r["status"] == "ok" and r["policy"] == "dm"}
b = {(r["grid"], r["block_size"]): r["makespan_s"] for r in mine["candidates"] if r["status"] == "ok"}
common = set(a) & set(b)
assert common, (a, b)
for k in common:
    assert a[k] / 2.2 <= b[k] < a[k], (k, a[k], b[k])
PYEOF

# refused with the reason
expect_error "no such section" "has no section \[nobox\]" - "$PY" "$PLAN" \
  --platform-file "$T/mine.ini" --platform nobox --nodes 1 --num-vector 100 --num-field 100 \
  --starmet "$SIMMPI"
sed 's/^\[fastbox\]/[summit]/' "$T/mine.ini" > "$T/dup.ini"
expect_error "ours renamed" "is a node of sim/platforms.ini" - "$PY" "$PLAN" \
  --platform-file "$T/dup.ini" --platform summit --nodes 1 --num-vector 100 --num-field 100 \
  --starmet "$SIMMPI"
expect_error "zero nodes" "--nodes 0: must be 1 or more" - "$PY" "$PLAN" --nodes 0 \
  --num-vector 100 --num-field 100 --starmet "$SIMMPI"
expect_error "no fat tree" "no two-level fat tree" - "$PY" "$PLAN" \
  --platform summit --nodes 37 --num-vector 1000 --num-field 100 --starmet "$SIMMPI" --quiet
finish
