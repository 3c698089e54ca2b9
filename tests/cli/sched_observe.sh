#!/bin/sh
# sched_observe.sh: scheduling policies and run observability. Every policy
# that --sched accepts gives the same output bytes and checksum (heteroprio
# with and without priorities, with an OpenCL worker present when PoCL
# gives one); the summary's task counts match the graph (per codelet, per
# worker, per rank); the --trace file has every task of the graph exactly
# once, on one and two ranks; priorities follow the task kinds and
# --no-priorities zeroes them; --calibrate and --perfmodel-dir keep the
# models where asked; the progress line counts tasks; bad values are
# refused; many short runs end cleanly.
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import json, csv' 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
export STARPU_NCPU=2
PM="$T/models"
TO=""; command -v timeout > /dev/null && TO="timeout 300" # a policy that hangs fails
# shellcheck disable=SC2086
c() { $TO "$STARMET" compute --quiet --perfmodel-dir "$PM" "$@"; }
P_CCC="--metric ccc --synthetic random --num-vector 70 --num-field 150 --seed 4 --block-size 16"

# --- every policy: same bytes, same checksum
run_ok "policy list" "$STARMET" compute --sched help
cp "$T/log.out" "$T/policies"
[ "$(wc -l < "$T/policies")" -ge 30 ] && grep -qx heteroprio "$T/policies" && pass ||
  fail "--sched help lists $(wc -l < "$T/policies") policies"
# shellcheck disable=SC2086
run_ok "base" c $P_CCC --sched eager --output "$T/base" --output-format bin
while read -r pol; do
  # shellcheck disable=SC2086
  run_ok "policy $pol" c $P_CCC --sched "$pol" --output "$T/p_$pol" --output-format bin
  cmp -s "$T/base.bin" "$T/p_$pol.bin" && pass || fail "policy $pol: output differs"
  [ "$(cks "$T/base.json")" = "$(cks "$T/p_$pol.json")" ] && pass || fail "policy $pol: checksum"
  grep -q "\"sched\": \"$pol\"" "$T/p_$pol.json" && pass || fail "policy $pol not in effect"
done < "$T/policies"
for pol in heteroprio dmdas prio; do
  # shellcheck disable=SC2086
  run_ok "$pol no priorities" c $P_CCC --sched $pol --no-priorities --output "$T/np_$pol" \
    --output-format bin
  cmp -s "$T/base.bin" "$T/np_$pol.bin" && pass || fail "$pol --no-priorities: output differs"
done
# heteroprio with an OpenCL worker present (PoCL on the CPU): buckets the
# OpenCL worker cannot run stay with the CPU workers
if STARPU_HOME=$STARPU_HOME_OPENCL STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1 "$STARMET" compute --quiet \
     --synthetic random --num-vector 20 --num-field 20 --summary "$T/ocl.json" > /dev/null 2>&1 &&
   grep -q '"arch": "opencl"' "$T/ocl.json"; then
  # shellcheck disable=SC2086
  STARPU_HOME=$STARPU_HOME_OPENCL STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1 run_ok \
    "heteroprio + opencl" \
    c $P_CCC --sched heteroprio --output "$T/hocl" --output-format bin
  cmp -s "$T/base.bin" "$T/hocl.bin" && pass || fail "heteroprio with OpenCL: output differs"
else
  skip_part "no OpenCL device from PoCL: heteroprio + OpenCL"
fi

# --- the summary's counts match the graph; the trace has every task once
check_run() { # NAME JSON TRACE NPF: counts of the summary and the trace agree with the graph
  if "$PY" - "$2" "$3" "$4" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "$1"; cat "$T/py.log" >&2; fi
import collections, csv, json, sys
js = json.load(open(sys.argv[1]))
npf = int(sys.argv[3])
d, rt = js["decomposition"], js["runtime"]
ntasks, nblocks, ntiles = d["tasks"], d["blocks"], d["tiles"]
cl = {c["kind"]: c["count"] for c in rt["codelets"]}
assert rt["tasks_executed"] == ntasks, (rt["tasks_executed"], ntasks)
assert sum(cl.values()) == ntasks, (cl, ntasks)
assert sum(w["tasks"] for w in rt["workers"]) == ntasks, rt["workers"]
assert len({w["rank"] for w in rt["workers"]}) == d["num_proc"]
assert all(w["busy_s"] >= 0 and w["idle_s"] >= 0 for w in rt["workers"])
assert 0 <= rt["idle_fraction"] <= 1
for c in rt["codelets"]:
    assert c["count"] > 0 and 0 <= c["min_s"] <= c["mean_s"] <= c["max_s"], c
assert cl["output"] == nblocks and cl.get("finalize2", cl.get("finalize3")) == nblocks, cl
if "finalize2" in cl:
    num = cl.get("ccc2", 0) + cl.get("czek2", 0)
    assert num == nblocks * npf, (num, nblocks, npf)
    assert cl["sums"] == ntiles * npf * d["num_proc_repl"], cl
    assert cl.get("add", 0) == (npf - 1) * (nblocks + ntiles * d["num_proc_repl"]), cl
rows = list(csv.DictReader(open(sys.argv[2])))
ids = sorted(int(r["task"]) for r in rows)
assert ids == list(range(ntasks)), "trace ids are not 0..%d once each" % (ntasks - 1)
kinds = collections.Counter(r["kind"] for r in rows)
assert kinds == collections.Counter(cl), (kinds, cl)
assert {int(r["rank"]) for r in rows} == set(range(d["num_proc"]))
span = js["timings_s"]["compute"]
for r in rows:
    s, e = float(r["start_s"]), float(r["end_s"])
    assert 0 <= s <= e <= span + 0.01, (r, span)
    assert int(r["worker"]) >= 0 and r["worker_name"]
PYEOF
}
# shellcheck disable=SC2086
run_ok "trace 2-way" c $P_CCC --missing-rate 0.1 --trace "$T/t2.csv" --summary "$T/t2.json"
check_run "trace 2-way counts" "$T/t2.json" "$T/t2.csv" 1
run_ok "trace 3-way" c --metric czekanowski --num-way 3 --synthetic random --num-vector 30 \
  --num-field 40 --block-size 8 --trace "$T/t3.csv" --summary "$T/t3.json"
check_run "trace 3-way counts" "$T/t3.json" "$T/t3.csv" 1
grep -q ',czek3,' "$T/t3.csv" && grep -q ',finalize3,' "$T/t3.csv" && pass || fail "3-way kinds"
if [ -n "${MPIEXEC:-}" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # shellcheck disable=SC2086
  STARPU_NCPU=1 run_ok "trace 2 ranks" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute \
    --quiet $P_CCC --num-proc-vector 1 --num-proc-field 2 --trace "$T/tm.csv" --summary "$T/tm.json"
  check_run "trace 2 ranks counts" "$T/tm.json" "$T/tm.csv" 2
  grep -q '"mpi_bytes_sent": [1-9]' "$T/tm.json" && pass || fail "no StarPU-MPI bytes per rank"
fi

# --- priorities: by task kind, off with --no-priorities, buckets for heteroprio
prio_of() { # TRACE KIND: the distinct priorities of that kind
  awk -F, -v k="$2" 'NR > 1 && $2 == k { print $10 }' "$1" | sort -u | tr '\n' ' '
}
# shellcheck disable=SC2086
run_ok "prio dag" c $P_CCC --sched dmdas --trace "$T/pd.csv" --summary "$T/pd.json"
[ "$(prio_of "$T/pd.csv" output)" = "3 " ] && [ "$(prio_of "$T/pd.csv" ccc2)" = "0 " ] &&
  [ "$(prio_of "$T/pd.csv" finalize2)" = "2 " ] && [ "$(prio_of "$T/pd.csv" sums)" = "2 " ] &&
  pass || fail "dag priorities: $(prio_of "$T/pd.csv" output)/$(prio_of "$T/pd.csv" ccc2)"
grep -q '"priorities": "dag"' "$T/pd.json" && pass || fail "summary lacks priorities"
# shellcheck disable=SC2086
run_ok "prio off" c $P_CCC --sched dmdas --no-priorities --trace "$T/po.csv" --summary "$T/po.json"
[ "$(awk -F, 'NR > 1 { print $10 }' "$T/po.csv" | sort -u)" = 0 ] && pass ||
  fail "--no-priorities left priorities"
# shellcheck disable=SC2086
run_ok "prio buckets" c $P_CCC --sched heteroprio --trace "$T/ph.csv" --summary "$T/ph.json"
[ "$(prio_of "$T/ph.csv" output)" = "0 " ] && [ "$(prio_of "$T/ph.csv" sums)" = "1 " ] &&
  [ "$(prio_of "$T/ph.csv" ccc2)" = "2 " ] && pass || fail "heteroprio buckets"
grep -q '"priorities": "heteroprio buckets"' "$T/ph.json" && pass || fail "buckets not said"

# --- performance models: where asked, calibration reported, warning when uncalibrated
# shellcheck disable=SC2086
run_ok "calibrate" "$STARMET" compute $P_CCC --sched dmda --calibrate --perfmodel-dir "$T/pm2/new" \
  --summary "$T/cal.json"
grep -q "calibration:" "$T/log.err" && pass || fail "--calibrate said nothing"
ls "$T/pm2/new/codelets/"*/sm_ccc2* > /dev/null 2>&1 && pass || fail "no model in --perfmodel-dir"
grep -q '"calibrate": true' "$T/cal.json" && grep -q "\"perfmodel_dir\": \"$T/pm2/new\"" "$T/cal.json" &&
  pass || fail "summary lacks calibration"
# shellcheck disable=SC2086
run_ok "uncalibrated dmda" env -u STARPU_SILENT "$STARMET" compute --quiet $P_CCC --sched dmda \
  --perfmodel-dir "$T/pm3" --output-format none
# starmet's warning alone: StarPU's own notes on the same are silenced
# unless STARPU_SILENT=0 asks for them
grep -q "^\[starpu\]" "$T/log.err" && fail "StarPU's notes beside starmet's: $(grep -m1 '^\[starpu' "$T/log.err")" || pass
# shellcheck disable=SC2086
run_ok "STARPU_SILENT=0" env STARPU_SILENT=0 "$STARMET" compute --quiet $P_CCC --sched dmda \
  --perfmodel-dir "$T/pm5" --output-format none
grep -q "^\[starpu\].*not calibrated enough" "$T/log.err" && pass || fail "STARPU_SILENT=0 shows no note of StarPU's"
# shellcheck disable=SC2086
run_ok "uncalibrated dmda, again" env -u STARPU_SILENT "$STARMET" compute --quiet $P_CCC \
  --sched dmda --perfmodel-dir "$T/pm3b" --output-format none
grep -q "warning: policy dmda ran .* without a calibrated performance model" "$T/log.err" && pass ||
  fail "no warning about uncalibrated models"
# shellcheck disable=SC2086
run_ok "eager no warning" "$STARMET" compute --quiet $P_CCC --sched eager --perfmodel-dir "$T/pm4"
grep -q "warning" "$T/log.err" && fail "eager warned about models" || pass

# --- progress: tasks done / total on stderr when asked, nothing otherwise
# shellcheck disable=SC2086
run_ok "progress" c $P_CCC --progress --summary "$T/pg.json"
n=$(sed -n 's/.*"tasks": \([0-9]*\)}.*/\1/p' "$T/pg.json")
tr '\r' '\n' < "$T/log.err" | grep -q "starmet: $n/$n tasks  100.0%" && pass ||
  fail "progress line: $(tr '\r' '\n' < "$T/log.err" | tail -n 1)"
# shellcheck disable=SC2086
run_ok "no progress" c $P_CCC --no-progress
[ ! -s "$T/log.err" ] && pass || fail "progress without --progress"

# --- bad values (a run refused at start-up still writes its JSON summary, with
# the error as status, but no results)
expect_error "bad policy" "unknown scheduling policy 'fastest'" "$T/bad1" \
  c $P_CCC --sched fastest --output "$T/bad1"
expect_error "refused policy" "graph_test cannot run starmet: .*starpu_do_schedule" "$T/bad5" \
  c $P_CCC --sched graph_test --output "$T/bad5"
# what only StarPU 1.4 runs: refused on 1.3 with the reason; on 1.4 the
# run gives every other policy's checksum, and its summary names it
# shellcheck disable=SC2086
run_ok "reference run" c $P_CCC --summary "$T/p14ref.json"
for p in autoheteroprio modular-dmda modular-dmdas modular-heteroprio-heft; do
  if "$STARMET" --version | grep -q "^StarPU: 1\.3"; then
    # shellcheck disable=SC2086
    expect_error "$p on 1.3" "$p cannot run starmet: .*(StarPU 1.4|hangs)" "$T/bad6" \
      c $P_CCC --sched $p --output "$T/bad6"
  else
    # shellcheck disable=SC2086
    run_ok "$p on 1.4" c $P_CCC --sched $p --summary "$T/p14.json"
    [ "$(cks "$T/p14.json")" = "$(cks "$T/p14ref.json")" ] && pass || fail "$p: another checksum"
    grep -q "\"sched\": \"$p\"" "$T/p14.json" && pass || fail "$p: summary does not name it"
  fi
done
expect_error "bad STARPU_SCHED" "STARPU_SCHED: unknown scheduling policy" - \
  env STARPU_SCHED=nope "$STARMET" compute --quiet $P_CCC --output "$T/bad2"
touch "$T/file"
expect_error "model dir is a file" "perfmodel-dir .*not a directory" - \
  "$STARMET" compute --quiet $P_CCC --perfmodel-dir "$T/file" --output "$T/bad3"
[ ! -e "$T/bad2.tsv" ] && [ ! -e "$T/bad3.tsv" ] && pass || fail "refused runs wrote results"
expect_error "trace with ref" "apply to the task graph" "$T/bad4" \
  "$STARMET" compute --quiet $P_CCC --compute-method ref --trace "$T/bad4.csv"
expect_error "trace unwritable" "--trace .*nodir/tr.csv: the directory .*nodir does not exist" "$T/nodir/tr" \
  c $P_CCC --trace "$T/nodir/tr.csv"

# --- the observer looks at a task's data only before it runs: after, the
# task's end may let its handles' unregistration free them (this once
# crashed about one run in ten, in the summary's "without a calibrated
# model" count); many small runs, each with output tasks ending blocks
n=0
for k in $(seq 1 30); do
  "$STARMET" compute --quiet --metric ccc --synthetic random --num-vector 300 --num-field 200 \
    --block-size 20 --sched dmda --output "$T/many" > /dev/null 2>&1 || n=$((n + 1))
done
[ $n -eq 0 ] && pass || fail "$n of 30 small runs failed"
# a policy without models is not asked for predictions: StarPU, not silenced,
# then has no model to warn about (a new user's first run)
# shellcheck disable=SC2086
env -u STARPU_SILENT "$STARMET" compute --quiet $P_CCC --perfmodel-dir "$T/pm5" \
  --output-format none > /dev/null 2> "$T/quiet.err" && pass || fail "run without STARPU_SILENT"
grep -q "Warning: model" "$T/quiet.err" && fail "StarPU warned about models under lws: $(head -n 2 "$T/quiet.err")" || pass
finish
