#!/bin/sh
# memory.sh: a run that cannot fit is refused before it allocates, with
# its estimate and what to change: under STARMET_MEMORY_LIMIT, under a real
# address-space limit (ulimit -v, where StarPU's start-up would abort),
# with absurd sizes (no OOM killer, no minutes of allocation), with tiles
# too large, and for the ranks sharing a machine under mpirun. The hints
# are followed and then run. The estimate recorded in the summary bounds
# the peak RSS measured by the kernel (getrusage) on runs of every kind.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
P="compute --synthetic random --num-vector 2000 --num-field 20000"

# needs ARGS...: the estimate (MB, rounded up) a run of ARGS states
needs() {
  env STARMET_MEMORY_LIMIT=1 "$S" "$@" 2>&1 | sed -n 's/.*needs about \([0-9.]*\) MB of memory.*/\1/p' |
    awk '{ printf "%d\n", $1 + 1 }'
}
double=$(needs $P --output-format none)
single=$(needs $P --precision single --output-format none)
[ -n "$double" ] && [ -n "$single" ] && [ "$single" -lt "$double" ] && pass ||
  fail "estimates: single '$single' MB, double '$double' MB"
# a limit halfway between the two (the estimate's share of the program
# and StarPU is the process's own size, measured: a few MB apart from one
# run to the next): double is refused, nothing written, with the hint
mid=$(((single + double) / 2))
expect_error "below the limit" \
  "needs about [0-9.]+ MB of memory per rank \(its vectors 305 MB, .*\), but STARMET_MEMORY_LIMIT leaves $mid MB: spread the run over more machines .*--precision single" \
  "$T/a" env STARMET_MEMORY_LIMIT=${mid}M "$S" $P --output-format none --summary "$T/a.json"
# the hint: single precision halves the vectors, and fits
run_ok "the hint (--precision single)" env STARMET_MEMORY_LIMIT=${mid}M "$S" $P --precision single --output-format none
# tiles too large for the limit: the hint names --block-size, and a smaller one runs
Q="compute --metric ccc --synthetic random --num-vector 3000 --num-field 400 --output $T/t"
expect_error "tiles too large" "tasks in flight [0-9.]+ GB.*use smaller tiles \(--block-size below yours\)" \
  "$T/t" env STARMET_MEMORY_LIMIT=1G "$S" $Q --block-size 3000
run_ok "smaller tiles" env STARMET_MEMORY_LIMIT=1G "$S" $Q --block-size 200
rm -f "$T"/t.*
# absurd sizes: refused at once against the machine's memory
start=$(date +%s)
expect_error "10^7 x 10^6" "needs about 72.8 TB of memory per rank.*but (this machine's available memory|the memory limit of the cgroup)" \
  "$T/h" "$S" compute --synthetic random --num-vector 10000000 --num-field 1000000 --output "$T/h"
[ $(( $(date +%s) - start )) -le 5 ] && pass || fail "the absurd size took more than 5 s to refuse"
expect_error "absurd 3-way" "needs about .* of memory per rank" "$T/h" \
  "$S" compute --synthetic random --num-way 3 --num-vector 4000000 --num-field 100000 --output "$T/h"
# synth builds its vectors whole: checked the same way, before allocating
expect_error "synth too large" "^starmet: error: synth: 1000 vectors x 1000 fields are built whole before they are written, about 7.63 MB, but STARMET_MEMORY_LIMIT leaves 1 MB" \
  "$T/sy" env STARMET_MEMORY_LIMIT=1M "$S" synth --num-vector 1000 --num-field 1000 --output "$T/sy"
run_ok "synth that fits" env STARMET_MEMORY_LIMIT=9M "$S" synth --num-vector 1000 --num-field 1000 --output "$T/sy"
[ -s "$T/sy" ] && pass || fail "synth that fits: no $T/sy"
expect_error "synth beyond the machine" "synth: 10000000 vectors x 1000000 fields .* about 72.8 TB, but (this machine's available memory|the memory limit of the cgroup)" \
  "$T/sy2" "$S" synth --num-vector 10000000 --num-field 1000000 --output "$T/sy2"
# AddressSanitizer (scripts/check --sanitize) maps terabytes of shadow
# memory and keeps freed blocks: no address-space limit, and its RSS is
# not the program's
asan=0
[ -n "${ASAN_OPTIONS:-}" ] && asan=1
# a real address-space limit: refused, not a StarPU assertion (exit 134)
if [ $asan -eq 1 ]; then skip_part "under AddressSanitizer: ulimit -v"; else
# the smallest limit (in 100 MB steps) under which the binary loads at all
# (one linked with CUDA's libraries maps over 1 GB before main), plus 100 MB
lim=""
v=100000
while [ $v -le 4000000 ]; do
  if (ulimit -v $v && exec "$S" --version) > /dev/null 2>&1; then lim=$((v + 100000)); break; fi
  v=$((v + 100000))
done
if [ -z "$lim" ]; then skip_part "the binary does not load under ulimit -v 4000000"; else
  (ulimit -v $lim && exec "$S" compute --synthetic random --num-vector 200 --num-field 200 \
    --output-format none) > "$T/log.out" 2> "$T/log.err"
  rc=$?
  [ $rc -eq 1 ] && grep -q "needs about [0-9.]* [MG]B of address space (what its libraries map.*the address-space limit (ulimit -v) is" "$T/log.err" &&
    pass || { fail "ulimit -v $lim: exit $rc"; cat "$T/log.err" >&2; }
  (ulimit -v 4000000 && exec "$S" compute --quiet --synthetic random --num-vector 200 --num-field 200 \
    --output-format none) > /dev/null 2>&1 && pass || fail "ulimit -v 4000000: the run did not fit"
fi
fi
# STARMET_MEMORY_LIMIT=none turns the check off; a malformed value is ignored
run_ok "limit none" env STARMET_MEMORY_LIMIT=none "$S" compute --quiet --synthetic random \
  --num-vector 100 --num-field 100 --output-format none

# the estimate bounds the peak RSS, on runs of each kind (within 10x: it
# counts the worst case of the tasks in flight, every finalize of the
# window waiting for its turn in the file)
for args in "--metric czekanowski --num-vector 2000 --num-field 20000 --output-format none" \
  "--metric czekanowski --num-vector 3000 --num-field 3000 --precision single --output $T/m" \
  "--metric ccc --num-vector 4000 --num-field 4000 --output $T/m" \
  "--metric ccc --num-vector 4000 --num-field 4000 --missing-rate 0.05 --output $T/m --output-format bin" \
  "--metric czekanowski --num-vector 300 --num-field 4000 --num-way 3 --output $T/m" \
  "--metric ccc --num-vector 400 --num-field 4000 --num-way 3 --output $T/m" \
  "--metric czekanowski --num-vector 3000 --num-field 2000 --top-k 20 --output $T/m"; do
  rm -f "$T"/m.*
  if [ $asan -eq 1 ]; then skip_part "under AddressSanitizer: estimate vs RSS"; break; fi
  run_ok "estimate: $args" "$S" compute --quiet --synthetic random $args --summary "$T/m.json"
  est=$(sed -n 's/.*"estimate_bytes": \([0-9]*\).*/\1/p' "$T/m.json")
  peak=$(sed -n 's/.*"peak_rss_bytes": \([0-9]*\).*/\1/p' "$T/m.json")
  if [ -n "$est" ] && [ -n "$peak" ] && [ "$peak" -le "$est" ] && [ "$est" -le $((10 * peak)) ]; then pass
  else fail "estimate $est bytes vs peak RSS $peak bytes: not an upper bound within 10x ($args)"; fi
done

# PLINK's default --r2 (windows of 10 variants): a tile pair's records are
# its rows x 10, not its rows x columns (the estimate was 37 times the
# peak RSS on this set before it counted them so)
PY=${PYTHON3:-/usr/bin/python3}
if [ $asan -eq 1 ]; then skip_part "under AddressSanitizer: LD estimate vs RSS"
elif ! "$PY" -c 'import math' 2> /dev/null; then skip_part "no python3: LD estimate vs RSS"
else
  "$PY" "$top_srcdir/tests/tools/ld_data.py" "$T/ld" --samples 400 --snps 6000 --chroms 2 \
    --missing 0.01 --seed 7
  rm -f "$T"/m.*
  run_ok "estimate: --metric r2 (PLINK's default window)" env STARPU_NCPU=2 "$S" compute \
    --quiet --bfile "$T/ld" --metric r2 --output "$T/m" --summary "$T/m.json"
  est=$(sed -n 's/.*"estimate_bytes": \([0-9]*\).*/\1/p' "$T/m.json")
  peak=$(sed -n 's/.*"peak_rss_bytes": \([0-9]*\).*/\1/p' "$T/m.json")
  if [ -n "$est" ] && [ -n "$peak" ] && [ "$peak" -le "$est" ] && [ "$est" -le $((10 * peak)) ]; then pass
  else fail "estimate $est bytes vs peak RSS $peak bytes: not an upper bound within 10x (--metric r2)"; fi
fi

# ranks on one machine count together
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  expect_error "2 ranks on one machine" \
    "rank [01]: synthetic random.*needs about [0-9.]+ [MG]B of memory per rank .*, 2 ranks on this machine: [0-9.]+ [MG]B, but STARMET_MEMORY_LIMIT leaves 600 MB" \
    "$T/r" env STARMET_MEMORY_LIMIT=600M timeout 120 $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 \
    "$S" $P --output "$T/r"
else skip_part "no MPI launcher: ranks sharing a machine"; fi
finish
