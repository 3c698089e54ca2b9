#!/bin/sh
# trace_paje.sh: --trace-paje FILE. On a StarPU without FxT (Debian's 1.3)
# the option is refused before anything runs, saying how to get one; on a
# StarPU with FxT (scripts/setup-starpu 1.4) the run writes a Paje trace
# (that ViTE reads without an error or a warning and draws, when vite is
# installed; the header ViTE reads, one task event per task: as many as the
# summary's tasks_executed, per codelet as the summary counts them) and
# FILE.fxt/ with the FxT file and starpu_fxt_tool's files (StarVZ), on one
# rank and on two; a second run replaces them; what is not its own is not;
# a run writing FILE while another does is refused.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
PY=${PYTHON3:-/usr/bin/python3}
prob="--metric ccc --synthetic random --num-vector 120 --num-field 256 --block-size 30 --output-format none"

# refused with the ref method, and into a missing directory, on any StarPU
# shellcheck disable=SC2086
expect_error "ref method" "--trace-paje applies to the task graph" "$T/p.paje" \
  "$S" compute $prob --compute-method ref --trace-paje "$T/p.paje"

if ! "$S" --version | grep -Eq '^features: [^(]*fxt'; then
  "$S" --version | grep -Eq '^features: .*\(not built: .*fxt' && pass ||
    fail "--version says nothing of fxt"
  # shellcheck disable=SC2086
  expect_error "no FxT" "--trace-paje $T/p.paje: this starmet runs on a StarPU [0-9.]+ built without FxT.*scripts/setup-starpu 1\.4.*--trace FILE" \
    "$T/p.paje" "$S" compute $prob --trace-paje "$T/p.paje"
  grep -q "docs/troubleshooting.md#options" "$T/log.err" && pass || fail "no pointer to the docs"
  # what this StarPU does (the refusal) is checked in full; the trace is
  # checked where StarPU has FxT (CI's StarPU 1.4 stage)
  echo "the trace itself is checked on a StarPU with FxT (scripts/setup-starpu 1.4, _build-starpu14/)"
  finish
  exit 0
fi

# shellcheck disable=SC2086
expect_error "missing directory" "--trace-paje.*$T/nodir" "$T/nodir" \
  "$S" compute $prob --trace-paje "$T/nodir/p.paje"

# check_paje NAME PAJE SUMMARY RANKS: the Paje file and FILE.fxt hold the run
check_paje() {
  if "$PY" - "$2" "$3" "$4" > "$T/py.log" 2>&1 <<'PYEOF'; then pass; else fail "$1"; cat "$T/py.log" >&2; fi
import collections, json, os, sys
paje, summary, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(paje).read().splitlines()
defs = [l for l in lines if l.startswith("%EventDef")]
# the Paje header: event definitions, each closed, the ones ViTE needs
assert defs and lines[0].startswith(("%", "#")), lines[:3]
assert len(defs) == sum(1 for l in lines if l.startswith("%EndEventDef")), "unclosed"
names = {l.split()[1]: l.split()[2] for l in defs}
for need in ("PajeDefineContainerType", "PajeDefineStateType", "PajeCreateContainer",
             "PajeSetState", "PajeDestroyContainer"):
    assert need in names, (need, names)
ids = {l.split()[2] for l in defs}
body = [l for l in lines if l.strip() and not l.startswith(("%", "#"))]
assert body and all(l.split()[0] in ids for l in body), "an event of no definition"
# one PajeSetState 20 per task: time, worker, state type, the task's name
# (its kind: sums, ccc2, finalize2, output ...), codelet footprint, job id
tasks = collections.Counter(l.split("\t")[4].strip('"') for l in body
                            if l.split("\t")[0] == "20")
js = json.load(open(summary))
rt = js["runtime"]
assert sum(tasks.values()) == rt["tasks_executed"] == js["decomposition"]["tasks"], \
    (sum(tasks.values()), rt["tasks_executed"])
want = collections.Counter()
for c in rt["codelets"]:
    want[c["kind"]] += c["count"]
assert tasks == want, (tasks, want)
d = paje + ".fxt"
have = set(os.listdir(d))
for f in ["paje.trace", "tasks.rec", "data.rec", "trace.rec", "dag.dot", "README.starmet"] + \
        [f"prof_file_{r}" for r in range(ranks)]:
    assert f in have, (f, sorted(have))
assert open(os.path.join(d, "paje.trace")).read() == "\n".join(lines) + "\n"
# tasks.rec: a record per task StarPU ran (the graph's under their kind and
# performance model, beside StarPU's own: data acquisitions, unregisters)
recs = open(os.path.join(d, "tasks.rec")).read().split("\n\n")
ran = collections.Counter()
for r in recs:
    f = dict(l.split(": ", 1) for l in r.splitlines() if ": " in l)
    if "StartTime" in f and f.get("Model", "").startswith("sm_"):
        ran[f["Name"]] += 1
assert ran == want, (ran, want)
PYEOF
}

# shellcheck disable=SC2086
STARPU_NCPU=2 run_ok "one rank" "$S" compute --quiet $prob --trace-paje "$T/p.paje" \
  --summary "$T/p.json"
check_paje "one rank" "$T/p.paje" "$T/p.json" 1
# ViTE itself reads it without an error or a warning and draws it (its SVG
# export, headless)
if command -v vite > /dev/null 2>&1; then
  (cd "$T" && QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$T" timeout 120 vite "$T/p.paje" \
    -e "$T/p.svg") > "$T/vite.out" 2>&1
  tr '\r' '\n' < "$T/vite.out" | grep -q "^0 errors and 0 warnings were found during parsing" &&
    [ "$(grep -c '<rect' "$T/p.svg" 2> /dev/null)" -gt 10 ] && pass ||
    fail "ViTE: $(tr '\r' '\n' < "$T/vite.out" | grep -i "error\|warning" | head -3)"
else
  skip_part "no vite (Debian: apt-get install vite; scripts/check installs it): ViTE's own reading not checked"
fi
ls "$T" | grep -q "part" && fail "temporary files left: $(ls "$T")" || pass
# again: the earlier trace replaced, with a different policy
# shellcheck disable=SC2086
STARPU_NCPU=2 run_ok "again" "$S" compute --quiet $prob --sched eager \
  --trace-paje "$T/p.paje" --summary "$T/p2.json"
check_paje "again" "$T/p.paje" "$T/p2.json" 1
# FILE.fxt that is not a trace's: refused before the run, left alone
mkdir -p "$T/q.paje.fxt" && echo mine > "$T/q.paje.fxt/notes"
# shellcheck disable=SC2086
expect_error "not its own FILE.fxt" "q\.paje\.fxt exists and was not written by --trace-paje" \
  "$T/q.paje.json" "$S" compute $prob --trace-paje "$T/q.paje" --summary "$T/q.paje.json"
[ "$(cat "$T/q.paje.fxt/notes")" = mine ] && [ ! -e "$T/q.paje" ] && pass ||
  fail "a directory not its own was touched"

# one run per name: a second run writing the same FILE while the first
# (stopped after its first output blocks) holds it is refused; the first
# then ends with its trace
second() {
  # shellcheck disable=SC2086
  expect_error "locked" "--trace-paje $T/k.paje: another starmet run is writing files named" \
    - "$S" compute $prob --trace-paje "$T/k.paje" --summary "$T/k2.json"
}
# shellcheck disable=SC2086
STARPU_NCPU=2 while_stopped "$T/ko" second "$S" compute --quiet $prob --output-format tsv \
  --output "$T/ko" --debug-pause-after-blocks 1 --trace-paje "$T/k.paje" --summary "$T/k.json" &&
  pass || { fail "the first run:"; cat "$T/bg.err" >&2; }
check_paje "the run that held the lock" "$T/k.paje" "$T/k.json" 1

if [ -n "${MPIEXEC:-}" ]; then
  # shellcheck disable=SC2086
  STARPU_NCPU=1 run_ok "two ranks" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$S" compute --quiet \
    $prob --num-proc-vector 2 --trace-paje "$T/m.paje" --summary "$T/m.json"
  check_paje "two ranks" "$T/m.paje" "$T/m.json" 2
else
  skip_part "no MPI launcher: two ranks"
fi
finish
