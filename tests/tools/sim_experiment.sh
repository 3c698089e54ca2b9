#!/bin/sh
# sim_experiment.sh: the simulation build (scripts/setup-sim, in
# _build-sim/ or $STARMET_SIM) end to end. It says it is one, refuses what
# needs values and a missing simulated machine, runs the scheduling
# experiment on a simulated Summit-like node (policies on every worker, and
# with the finalize on the GPUs), draws its plots and the scaling plot; and
# the simulated 2-core machine, calibrated here by scripts/sim-calibrate,
# gives the makespan this machine measures for the same problem.
. "$(dirname "$0")/../lib.sh"

SIM=${STARMET_SIM:-$top_srcdir/_build-sim/starmet}
if [ ! -x "$SIM" ]; then
  echo "no simulation build at $SIM (scripts/setup-sim, or scripts/check --sim): skipped"
  exit 77
fi
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import csv, json, statistics' 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
if ! command -v gnuplot > /dev/null 2>&1 && [ "$(id -u)" -ne 0 ]; then
  echo "no gnuplot (and not root to install it): skipped"; exit 77
fi

"$SIM" --version > "$T/version" 2>&1 && grep -q "^simulation: StarPU with SimGrid" "$T/version" &&
  pass || fail "--version does not say it is a simulation build"
grep -Eq "^features: [^(]*simulation" "$T/version" && pass || fail "features lack simulation"
"$STARMET" --version > "$T/version.regular" 2>&1
grep -q "^simulation:" "$T/version.regular" && fail "the regular build says simulation" || pass
grep -Eq "^features: .*\(not built: .*simulation" "$T/version.regular" && pass ||
  fail "the regular build does not say simulation is not built"

# what a simulation cannot give, and a machine that is not there
expect_error "output asked" "simulation build.*no values" "$T/out" \
  "$SIM" compute --metric ccc --synthetic random --num-vector 50 --num-field 64 \
  --output "$T/out"
expect_error "no machine" "STARPU_HOSTNAME is not set|platform files are missing" - \
  env -u STARPU_HOSTNAME "$SIM" compute --metric ccc --synthetic random --num-vector 50 \
  --num-field 64 --perfmodel-dir "$T/nowhere"
"$top_srcdir/scripts/sim-platform" summit --model-dir "$T/pmS" > /dev/null
printf 'summit cpu * 1e9 1 ok\nsummit cuda sm_ccc2 fast 10 bad\n' > "$T/bad.tsv"
expect_error "bad models file" "bad.tsv line 2: expected" - env STARPU_HOSTNAME=summit \
  STARMET_SIM_MODELS="$T/bad.tsv" "$SIM" compute --metric ccc --synthetic random \
  --num-vector 50 --num-field 64 --perfmodel-dir "$T/pmS"
printf 'summit cpu * 1e9 1 only CPUs\n' > "$T/nogpu.tsv"
expect_error "models without GPU rates" "no rate for codelet sm_.* on cuda workers" - \
  env STARPU_HOSTNAME=summit STARMET_SIM_MODELS="$T/nogpu.tsv" "$SIM" compute --metric ccc \
  --synthetic random --num-vector 50 --num-field 64 --perfmodel-dir "$T/pmS"
# --devices accel on the simulated GPUs: the products run there from cached
# int8 tiles (the automatic choice with CUDA workers only), the finalize on
# the CPUs, or on the GPUs with STARMET_SIM_GPU_FINALIZE=1 (both ran into a
# task no worker could take before)
for gf in 0 1; do
  run_ok "accel, gpu finalize $gf" env STARPU_HOSTNAME=summit STARMET_SIM_GPU_FINALIZE=$gf \
    "$SIM" compute --metric ccc --synthetic random --num-vector 3000 --num-field 2000 \
    --devices accel --perfmodel-dir "$T/pmS" --output-format none --summary "$T/acc$gf.json"
  if "$PY" - "$T/acc$gf.json" $gf > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "accel $gf"; cat "$T/py.log" >&2; fi
import json, sys
js = json.load(open(sys.argv[1]))
cl = {c["name"]: c["count"] for c in js["runtime"]["codelets"]}
assert cl.get("sm_ccc2_i8", 0) > 0 and "sm_ccc2" not in cl, cl
assert cl["sm_ccc_i8"] < cl["sm_ccc2_i8"], cl  # once per tile, not per pair
cuda = sum(w["tasks"] for w in js["runtime"]["workers"] if w["arch"] == "cuda")
cpu = sum(w["tasks"] for w in js["runtime"]["workers"] if w["arch"] == "cpu")
gpu_fin = sys.argv[2] == "1"
products = cl["sm_ccc_i8"] + cl["sm_ccc2_i8"]
assert cuda == products + (cl["sm_finalize2"] if gpu_fin else 0), (cuda, cl)
PYEOF
done
printf 'marker\tallele1\tallele2\tInd0\tInd0\tInd0\nc1_1\t0\t1\t0.2\t0.5\t0.3\n' > "$T/g.beagle"
expect_error "maf" "simulation build" "$T/maf" "$SIM" maf --input "$T/g.beagle" --output "$T/maf"

expect_error "experiment on a regular build" "is not a simulation build" - "$PY" \
  "$top_srcdir/scripts/sched-experiment" --starmet "$STARMET" --platform summit --no-plots \
  --out "$T/wrong"

# the experiment on a simulated Summit-like node, tiny
run_ok "experiment" "$PY" "$top_srcdir/scripts/sched-experiment" --starmet "$SIM" \
  --platform summit --repeat 1 --num-vector 2000 --num-field 2000 --block-size 250 \
  --policies eager,dmda,heteroprio --scaling 1000,2000 --out "$T/exp"
cat "$T/log.err" >&2
for f in results.csv runs.csv trace.csv makespan.png gantt.png scaling.csv scaling.png; do
  [ -s "$T/exp/$f" ] && pass || fail "experiment did not write $f"
done
if "$PY" - "$T/exp" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "results"; cat "$T/py.log" >&2; fi
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
got = sorted((r["policy"], r["mix"]) for r in rows)
want = sorted((p, m) for p in ("eager", "dmda", "heteroprio") for m in ("sim", "sim+gpufin"))
assert got == want, (got, want)
for r in rows:
    assert r["status"] == "ok", r
    assert float(r["makespan_s"]) > 0 and 0 < float(r["gpu_busy"]) <= 1, r
    assert int(r["bytes_moved"]) > 0, r  # the tiles went to the simulated GPUs
# the GPU finalize moves the finalize tasks to the GPUs
for run in sorted(f for f in os.listdir(os.path.join(d, "runs")) if f.endswith(".json")):
    js = json.load(open(os.path.join(d, "runs", run)))
    assert js["status"] == "simulated" and js["simulation"]["platform"] == "summit", run
    assert js["checksum"].startswith("none"), run
    workers = js["runtime"]["workers"]
    assert sum(w["name"].startswith("CUDA") for w in workers) == 6, run
    assert sum(w["name"].startswith("CPU") for w in workers) == 36, run
sc = list(csv.DictReader(open(os.path.join(d, "scaling.csv"))))
assert [int(r["num_vector"]) for r in sc] == [1000, 2000], sc
assert float(sc[1]["makespan_s"]) > float(sc[0]["makespan_s"]), sc
PYEOF

# the simulated 2-core machine against this one: the same CCC problem,
# eager on 2 CPU workers. The rates are measured here first (the machine
# may not be the one sim/models.tsv was written on); other tests share the
# cores, so the bound is looser than the experiment's (docs/scheduling.md), and a
# new attempt (calibration and runs again) is allowed: under make -j
# another test can hold a core through a whole calibration, which says
# nothing of the simulation
validate() {
  run_ok "calibrate" "$PY" "$top_srcdir/scripts/sim-calibrate" --starmet "$STARMET" \
    --only "ccc 2-way dense" --out "$T/models.tsv"
  "$top_srcdir/scripts/sim-platform" here --model-dir "$T/pm" > /dev/null
  prob="--metric ccc --synthetic random --num-vector 3000 --num-field 10000 --sched eager"
  for k in 1 2 3; do
    # shellcheck disable=SC2086
    STARPU_NCPU=2 STARPU_NCUDA=0 STARPU_NOPENCL=0 "$STARMET" compute --quiet $prob \
      --summary "$T/real$k.json" > /dev/null 2>&1 || fail "real run $k"
  done
  # shellcheck disable=SC2086
  STARPU_HOSTNAME=here STARMET_SIM_MODELS="$T/models.tsv" "$SIM" compute --quiet $prob \
    --perfmodel-dir "$T/pm" --summary "$T/sim.json" > /dev/null 2>&1 || fail "simulated run"
  "$PY" - "$T" > "$T/py.log" 2>&1 <<'PYEOF'
import json, os, sys
t = sys.argv[1]
# the fastest of the real runs, as sim-calibrate keeps its fastest: under
# make -j the other tests slow some runs down, which says nothing of either
real = min(json.load(open(os.path.join(t, f"real{k}.json")))["timings_s"]["compute"]
           for k in (1, 2, 3))
sim = json.load(open(os.path.join(t, "sim.json")))["timings_s"]["compute"]
err = (sim - real) / real
print(f"simulated {sim:.3f} s, measured {real:.3f} s (fastest of 3): error {100 * err:+.1f}%")
assert abs(err) < 0.35, err
PYEOF
}
# up to three attempts: a loaded moment that lasts through one whole
# calibration (a neighbour test on the other core) says nothing of the
# simulator, and the error of each attempt is printed
ok=0
for attempt in 1 2 3; do
  if validate; then ok=1; break; fi
  cat "$T/py.log"; echo "validation: attempt $attempt missed the bound"
done
if [ "$ok" = 1 ]; then pass; else fail "validation (3 attempts)"; fi
cat "$T/py.log"
finish
