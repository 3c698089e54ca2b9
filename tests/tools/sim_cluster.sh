#!/bin/sh
# sim_cluster.sh: the SMPI build (scripts/setup-sim --mpi, in
# _build-simmpi/ or $STARMET_SIMMPI) end to end. scripts/sim-platform
# writes the clusters (a fat tree of the nodes, one zone of StarPU's hosts
# per rank, ranks sharing a node's cores) and refuses those it cannot
# build; two simulated ranks of this machine run the task graph of a real
# 2-rank run of this build and every rank sends the same bytes, 2-way and
# 3-way; two simulated Summit-like nodes run with their CPU and CUDA
# workers.
. "$(dirname "$0")/../lib.sh"

simmpi_setup
SP="$top_srcdir/scripts/sim-platform"
SC="$top_srcdir/scripts/sim-cluster"

# the clusters' files
"$SP" summit --nodes 64 --model-dir "$T/m" > "$T/sp.out" && pass || fail "summit x 64"
grep -q 'topology="FAT_TREE" topo_parameters="2;16,4;1,16;1,1"' "$T/m/cluster/summit-64.xml" &&
  pass || fail "64 nodes: not a two-level fat tree of 16-node leaves"
[ "$(grep -c '<zone id="StarPU-MPI' "$T/m/cluster/summit-64.xml")" -eq 64 ] && pass ||
  fail "not one zone per rank"
grep -q '<host id="StarPU-MPI63-CUDA5"' "$T/m/cluster/summit-64.xml" && pass ||
  fail "rank 63 has no sixth GPU"
[ "$(sort -u "$T/m/cluster/summit-64.hostfile" | wc -l)" -eq 64 ] && pass || fail "hostfile"
"$SP" here --nodes 1 --ranks-per-node 4 --model-dir "$T/m" > "$T/sp.out" && pass ||
  fail "here, 4 ranks"
grep -q "here-r4" "$T/sp.out" && [ "$(grep -c "^node0$" "$T/m/cluster/here-1-r4.hostfile")" -eq 4 ] &&
  pass || fail "4 ranks on node0, platform here-r4"
grep -q "^1 # Number of CPUs" "$T/m/bus/here-r4.config" && pass || fail "here-r4: one core"
expect_error "shared memory across nodes" "one machine" - "$SP" here --nodes 2 --model-dir "$T/m"
expect_error "no fat tree" "no two-level fat tree" - "$SP" summit --nodes 37 --model-dir "$T/m"

# the same task graph as a real run: every rank's bytes and the tasks
for p in "2 600 4096" "3 96 2048"; do
  set -- $p
  # (--no-verify: a simulation runs no checks)
  args="--metric ccc --num-way $1 --synthetic random --num-vector $2 --num-field $3
        --num-proc-vector 2 --output-format none --no-verify"
  # shellcheck disable=SC2086
  run_ok "real $1-way" mpi_starmet 2 compute $args --summary "$T/real$1.json"
  run_ok "simulated $1-way" "$PY" "$SC" run --platform here --nodes 1 --ranks-per-node 2 \
    --starmet "$SIMMPI" --out "$T/sc" --num-way "$1" --num-vector "$2" --num-field "$3"
  cp "$(ls -t "$T"/sc/runs/*.json | head -n 1)" "$T/sim$1.json"
  if "$PY" - "$T/real$1.json" "$T/sim$1.json" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "$1-way graph"; cat "$T/py.log" >&2; fi
import json, sys
real, sim = (json.load(open(f)) for f in sys.argv[1:])
assert sim["status"] == "simulated" and sim["simulation"]["platform"] == "here-r2", sim["status"]
rb = [r["mpi_bytes_sent"] for r in real["ranks"]]
sb = [r["mpi_bytes_sent"] for r in sim["ranks"]]
assert rb == sb and min(rb) > 0, (rb, sb)
assert real["decomposition"]["tasks"] == sim["decomposition"]["tasks"]
assert real["runtime"]["tasks_executed"] == sim["runtime"]["tasks_executed"]
assert sim["timings_s"]["compute"] > 0
PYEOF
done

# two Summit-like nodes: 35 CPU and 6 CUDA workers a rank, data on the network
run_ok "summit x 2" "$PY" "$SC" run --platform summit --nodes 2 --starmet "$SIMMPI" \
  --out "$T/ss" --num-vector 4000 --num-field 4096
if "$PY" - "$(ls -t "$T"/ss/runs/*.json | head -n 1)" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "summit x 2"; cat "$T/py.log" >&2; fi
import json, sys
js = json.load(open(sys.argv[1]))
w = js["runtime"]["workers"]
for r in (0, 1):
    arch = [x["arch"] for x in w if x["rank"] == r]
    assert arch.count("cpu") == 35 and arch.count("cuda") == 6, arch
assert sum(x["tasks"] for x in w if x["arch"] == "cuda") > 0
assert all(r["mpi_bytes_sent"] > 0 for r in js["ranks"])
PYEOF
finish
