#!/bin/sh
# mpi_bind.sh: where each rank's StarPU workers run. Ranks that share a
# machine never share a core when there are enough (StarPU 1.3 alone puts
# every rank's first worker on core 0): ranks the launcher bound keep to
# their cores, unbound ranks split the machine's cores; a process started
# under taskset keeps to its CPUs; without STARPU_NCPU a rank with few cores
# runs a worker on each; STARPU_WORKERS_CPUID is left to StarPU. The worker
# threads' real affinity (read from /proc while they run) is checked against
# the summary, and every run gives the single-rank checksum.
. "$(dirname "$0")/../lib.sh"
mpi_setup
unset STARPU_NCPU
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c "import json, os" 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
WATCH="$PY $top_srcdir/tests/tools/bind_watch.py"
# the CPUs this test may use (a CI runner may itself be bound)
CPUS=$("$PY" -c "import os; print(','.join(map(str, sorted(os.sched_getaffinity(0)))))")
NCPU=$(echo "$CPUS" | tr ',' '\n' | wc -l)
export STARPU_NOPENCL=0 STARPU_NCUDA=0
PROB="--metric czekanowski --synthetic random --num-vector 1500 --num-field 6000 --precision double"

run_ok "one rank" "$STARMET" compute --quiet $PROB --block-size 200 --summary "$T/one.json"
REF=$(cks "$T/one.json")

# check NAME SUMMARY THREADS MODE EXPECT: every rank's binding has mode
# MODE; the worker threads seen run within their rank's cpus; EXPECT:
# "disjoint" (no CPU in two ranks' sets, together all of $CPUS) or
# "per-core K" (each rank one CPU, K ranks per CPU); each rank runs one
# worker per CPU it has; the checksum is the single-rank one.
check() {
  name=$1 sum=$2 threads=$3 mode=$4 expect=$5
  if ! out=$("$PY" - "$sum" "$threads" "$mode" "$expect" "$CPUS" 2>&1 <<'EOF'
import json, sys
from collections import Counter
summary, threads, mode, expect, allowed = sys.argv[1:]
def cpus(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
d = json.load(open(summary))
bind = {b["rank"]: b for b in d["runtime"]["binding"]}
errs = []
for r, b in bind.items():
    if b["mode"] != mode:
        errs.append(f"rank {r}: mode {b['mode']}, not {mode}")
sets = {r: cpus(b["cpus"]) for r, b in bind.items()}
nworkers = Counter(w["rank"] for w in d["runtime"]["workers"] if w["arch"] == "cpu")
for r, s in sets.items():
    if nworkers[r] != len(s):
        errs.append(f"rank {r}: {nworkers[r]} CPU workers on {len(s)} CPUs {sorted(s)}")
if expect == "disjoint":
    seen = Counter(c for s in sets.values() for c in s)
    if any(n > 1 for n in seen.values()):
        errs.append(f"ranks share CPUs: {dict(seen)}")
    if set(seen) != cpus(allowed):
        errs.append(f"ranks use CPUs {sorted(seen)}, not all of {allowed}")
else:
    k = int(expect.split()[1])
    per = Counter(c for s in sets.values() for c in s)
    if any(len(s) != 1 for s in sets.values()) or any(n != k for n in per.values()):
        errs.append(f"not one CPU per rank, {k} ranks per CPU: {sets}")
nthreads = 0
for line in open(threads):
    r, name, lst = line.split()
    nthreads += 1
    if not cpus(lst) <= sets[int(r)]:
        errs.append(f"rank {r} thread {name} runs on {lst}, outside {sorted(sets[int(r)])}")
if nthreads != sum(nworkers.values()):
    errs.append(f"saw {nthreads} worker threads, the summary has {sum(nworkers.values())}")
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF
  ); then fail "$name: $out"; else pass; fi
  [ "$(cks "$sum")" = "$REF" ] && pass || fail "$name: checksum $(cks "$sum") != one rank's $REF"
}

# mpirun NP BIND TAG: the problem on NP ranks (npv = NP), watched
watched() {
  np=$1 bind=$2 tag=$3
  # shellcheck disable=SC2086
  $WATCH "$T/$tag.json" "$T/$tag.threads" -- $MPIEXEC ${MPIEXEC_FLAGS:-} --bind-to "$bind" -np "$np" \
    "$STARMET" compute --quiet $PROB --block-size 200 --num-proc-vector "$np" \
    --summary "$T/$tag.json" > "$T/$tag.out" 2> "$T/$tag.err" ||
    { fail "$tag: exit $?"; cat "$T/$tag.err" >&2; return 1; }
}

if [ "$NCPU" -ge 2 ]; then
  # unbound ranks split the cores between them
  watched 2 none split2 && check "2 unbound ranks" "$T/split2.json" "$T/split2.threads" split disjoint
  # ranks the launcher bound keep to their cores
  watched 2 core core2 && check "2 ranks bound to cores" "$T/core2.json" "$T/core2.threads" bound disjoint
  if [ "$NCPU" -le 8 ]; then
    # more ranks than cores: a core each, round robin
    np=$((2 * NCPU))
    watched $np none split$np &&
      check "$np unbound ranks on $NCPU CPUs" "$T/split$np.json" "$T/split$np.threads" split "per-core 2"
  else
    skip_part "twice as many ranks as CPUs: $NCPU CPUs would take too many ranks"
  fi
  # a process under taskset keeps to its CPU
  if command -v taskset > /dev/null; then
    last=${CPUS##*,}
    # shellcheck disable=SC2086
    if $WATCH "$T/ts.json" "$T/ts.threads" -- taskset -c "$last" "$STARMET" compute --quiet $PROB --block-size 200 \
      --summary "$T/ts.json" > "$T/ts.out" 2> "$T/ts.err"; then
      CPUS_SAVED=$CPUS; CPUS=$last
      check "taskset -c $last" "$T/ts.json" "$T/ts.threads" bound disjoint
      CPUS=$CPUS_SAVED
    else
      fail "taskset run: exit $?"; cat "$T/ts.err" >&2
    fi
  else
    skip_part "no taskset"
  fi
else
  skip_part "binding of several ranks: this machine gives the test one CPU"
fi

# the user's placement is StarPU's business
STARPU_WORKERS_CPUID=0 STARPU_NCPU=1 run_ok "STARPU_WORKERS_CPUID" mpi_starmet 2 compute $PROB \
  --block-size 200 --num-proc-vector 2 --summary "$T/user.json"
grep -q '"mode": "user", "cpus": "STARPU_WORKERS_CPUID=0"' "$T/user.json" && pass ||
  fail "STARPU_WORKERS_CPUID: the summary does not say the user placed the workers"
[ "$(cks "$T/user.json")" = "$REF" ] && pass || fail "STARPU_WORKERS_CPUID run: checksum differs"

finish
