#!/bin/sh
# preflight.sh: what a run needs from its environment is checked before
# StarPU starts and before any output is opened (src/cli/sm_preflight.c):
# an unwritable StarPU home (HOME, STARPU_HOME, XDG_CACHE_HOME, a file
# where a directory should be, a read-only mount), --perfmodel-dir and
# STARPU_PERF_MODEL_DIR, a path too long for StarPU's buffers, PoCL's
# kernel cache; ulimit -n below what the run needs (alone, with an OpenCL
# device, under mpirun), and a soft limit that starmet raises itself;
# ulimit -f below the expected output (refused), or reached mid-run (an
# error, never a SIGXFSZ death). Each refusal: one starmet error naming the
# directory or limit and what to change, exit 1 (not StarPU's abort, 134,
# nor 128 + SIGXFSZ, 153), nothing left behind. The hints, followed, run.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
unset XDG_CACHE_HOME STARPU_PERF_MODEL_DIR STARPU_CALIBRATE STARPU_SCHED
mkdir -p "$T/out"
C="compute --quiet --metric ccc --synthetic random --num-vector 60 --num-field 50"

# refused NAME PATTERN OUT CMD...: exit 1 with an error line matching
# PATTERN, no StarPU abort, and no file at OUT* (manifest, .part, lock,
# summary, results)
refused() {
  name=$1 pattern=$2 out=$3; shift 3
  st=0
  "$@" > "$T/log.out" 2> "$T/log.err" || st=$?
  if [ $st -ne 1 ]; then
    fail "$name: exit $st (want 1)"; cat "$T/log.err" >&2; return; fi
  if ! grep -Eq -- "^starmet: error: .*$pattern" "$T/log.err"; then
    fail "$name: message does not match /$pattern/:"; cat "$T/log.err" >&2; return; fi
  if grep -q '^\[starpu\]' "$T/log.err"; then
    fail "$name: StarPU's own message:"; cat "$T/log.err" >&2; return; fi
  if ls "$out"* > /dev/null 2>&1; then
    fail "$name: left behind: $(ls "$out"*)"; return; fi
  pass
}
# lim OPT N CMD...: CMD under `ulimit OPT N`
lim() { o=$1 n=$2; shift 2; sh -c 'ulimit '"$o"' '"$n"' && exec "$@"' sh "$@"; }
# a BEAGLE file of N individuals and SITES sites
beagle() {
  awk -v N="$1" -v S="$2" 'BEGIN { srand(5)
    printf "marker\tallele1\tallele2"; for (i = 0; i < N; i++) printf "\tInd%d\tInd%d\tInd%d", i, i, i
    printf "\n"
    for (s = 1; s <= S; s++) { printf "chr1_%d\t0\t1", 100 * s; f = rand()
      for (i = 0; i < N; i++) { g = (rand() < f) + (rand() < f)
        printf "\t%.6f\t%.6f\t%.6f", 0.01 + (g == 0) * rand(), 0.01 + (g == 1) * rand(), 0.01 + (g == 2) * rand() }
      printf "\n" } }'
}
beagle 12 300 > "$T/g.beagle"
beagle 200 2 > "$T/wide.beagle"
M="maf --quiet --input $T/g.beagle"

# a normal environment: both commands run
run_ok "compute, normal environment" "$S" $C --output "$T/ok"
[ -s "$T/ok.tsv" ] && pass || fail "no ok.tsv"
run_ok "maf, normal environment" "$S" $M --output "$T/okm"
[ -s "$T/okm.saf.tsv" ] && [ -s "$T/okm.sfs" ] && pass || fail "maf: no files"

# --- StarPU's directories ---
: > "$T/afile"
refused "STARPU_HOME is a file" "STARPU_HOME=$T/afile: StarPU's performance-model directory $T/afile/\.starpu/sampling cannot be created: not a directory\. StarPU creates it at start-up, and aborts when it cannot: set STARPU_HOME to a writable directory, or give --perfmodel-dir DIR" \
  "$T/out/a" env STARPU_HOME="$T/afile" "$S" $C --output "$T/out/a"
refused "maf: STARPU_HOME is a file" "STARPU_HOME=$T/afile: StarPU's performance-model directory $T/afile/\.starpu/sampling cannot be created: not a directory.*: set STARPU_HOME to a writable directory$" \
  "$T/out/am" env STARPU_HOME="$T/afile" "$S" $M --output "$T/out/am"
refused "HOME under /proc" "HOME=/proc/self/none \(STARPU_HOME is not set\): StarPU's performance-model directory /proc/self/none/\.starpu/sampling cannot be created: .*set STARPU_HOME to a writable directory" \
  "$T/out/b" env -u STARPU_HOME HOME=/proc/self/none "$S" $C --output "$T/out/b"
refused "--perfmodel-dir under a file" "--perfmodel-dir $T/afile/pm: StarPU's performance-model directory $T/afile/pm cannot be created: not a directory.*give a writable directory to --perfmodel-dir" \
  "$T/out/c" "$S" $C --perfmodel-dir "$T/afile/pm" --output "$T/out/c"
refused "STARPU_PERF_MODEL_DIR under a file" "STARPU_PERF_MODEL_DIR=$T/afile/pm: StarPU's performance-model directory $T/afile/pm cannot be created.*set STARPU_PERF_MODEL_DIR to a writable directory, or unset it" \
  "$T/out/d" env STARPU_PERF_MODEL_DIR="$T/afile/pm" "$S" $C --output "$T/out/d"
refused "maf: STARPU_PERF_MODEL_DIR under a file" "STARPU_PERF_MODEL_DIR=$T/afile/pm: .*cannot be created: not a directory.*set STARPU_PERF_MODEL_DIR to a writable directory, or unset it$" \
  "$T/out/dm" env STARPU_PERF_MODEL_DIR="$T/afile/pm" "$S" $M --output "$T/out/dm"
# StarPU 1.3 and 1.4 take XDG_CACHE_HOME before STARPU_HOME
refused "XDG_CACHE_HOME under a file" "XDG_CACHE_HOME=$T/afile: StarPU's performance-model directory $T/afile/\.starpu/sampling cannot be created.*StarPU takes XDG_CACHE_HOME before STARPU_HOME" \
  "$T/out/e" env XDG_CACHE_HOME="$T/afile" "$S" $C --output "$T/out/e"
# StarPU cuts its paths at 255 bytes and would write elsewhere
long=$T/l
while [ ${#long} -lt 230 ]; do long=$long/0123456789; done
refused "STARPU_HOME too long" "STARPU_HOME=$long: StarPU's performance-model directory $long/\.starpu/sampling is [0-9]+ characters long: StarPU cuts .* at 255" \
  "$T/out/f" env STARPU_HOME="$long" "$S" $C --output "$T/out/f"
[ ! -e "$long" ] && pass || fail "the long STARPU_HOME was created"

# really read-only directories (root writes through chmod): a private
# read-only bind mount, where unshare and mount work
ro_run() { unshare -m sh -c 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"' "$@"; }
mkdir -p "$T/roprobe"
if ro_run "$T/roprobe" sh -c '! touch "$0/x" 2> /dev/null' "$T/roprobe" 2> /dev/null; then
  mkdir -p "$T/rohome" "$T/rostarpu" "$T/ropm" "$T/calhome"
  refused "read-only HOME" "HOME=$T/rohome \(STARPU_HOME is not set\): StarPU's performance-model directory $T/rohome/\.starpu/sampling cannot be created: Read-only file system.*set STARPU_HOME" \
    "$T/out/g" ro_run "$T/rohome" env -u STARPU_HOME HOME="$T/rohome" "$S" $C --output "$T/out/g"
  refused "maf: read-only HOME" "HOME=$T/rohome \(STARPU_HOME is not set\): StarPU's performance-model directory $T/rohome/\.starpu/sampling cannot be created: Read-only file system" \
    "$T/out/gm" ro_run "$T/rohome" env -u STARPU_HOME HOME="$T/rohome" "$S" $M --output "$T/out/gm"
  refused "read-only STARPU_HOME" "STARPU_HOME=$T/rostarpu: StarPU's performance-model directory $T/rostarpu/\.starpu/sampling cannot be created: Read-only file system" \
    "$T/out/h" ro_run "$T/rostarpu" env STARPU_HOME="$T/rostarpu" "$S" $C --output "$T/out/h"
  refused "maf: read-only STARPU_HOME" "STARPU_HOME=$T/rostarpu: StarPU's performance-model directory $T/rostarpu/\.starpu/sampling cannot be created: Read-only file system" \
    "$T/out/hm" ro_run "$T/rostarpu" env STARPU_HOME="$T/rostarpu" "$S" $M --output "$T/out/hm"
  refused "read-only --perfmodel-dir" "--perfmodel-dir $T/ropm: StarPU's performance-model directory $T/ropm cannot be written: Read-only file system.*give a writable directory to --perfmodel-dir" \
    "$T/out/i" ro_run "$T/ropm" "$S" $C --perfmodel-dir "$T/ropm" --output "$T/out/i"
  # a calibrated home, then read-only: a run that only reads it goes on;
  # one that would write its models (StarPU aborted after the run) or
  # measure another host's buses is refused first
  run_ok "calibrate a home" env STARPU_HOME="$T/calhome" "$S" $C --output-format none
  run_ok "read-only calibrated home, lws" ro_run "$T/calhome" env STARPU_HOME="$T/calhome" \
    "$S" $C --output "$T/out/j"
  [ -s "$T/out/j.tsv" ] && pass || fail "read-only calibrated home: no output"
  refused "read-only calibrated home, --calibrate" "cannot be written: Read-only file system\. StarPU writes its performance models there at the end of a run that calibrates" \
    "$T/out/k" ro_run "$T/calhome" env STARPU_HOME="$T/calhome" "$S" $C --calibrate --output "$T/out/k"
  refused "read-only calibrated home, dmda" "policy \(dmda\) uses them: set STARPU_HOME" \
    "$T/out/l" ro_run "$T/calhome" env STARPU_HOME="$T/calhome" "$S" $C --sched dmda --output "$T/out/l"
  refused "read-only calibrated home, another host" "measures this machine's buses at start-up and writes them there \($T/calhome/\.starpu/sampling/bus/otherhost\.\*\)" \
    "$T/out/m" ro_run "$T/calhome" env STARPU_HOME="$T/calhome" STARPU_HOSTNAME=otherhost "$S" $C --output "$T/out/m"
else
  skip_part "no private read-only mount here (unshare -m, mount --bind): read-only HOME, STARPU_HOME, --perfmodel-dir"
fi

# PoCL's kernel cache, when its CPU device is asked for
T_OCL=0
if ocl_probe; then T_OCL=1; fi
if [ $T_OCL -eq 1 ]; then
  refused "PoCL cache under a file" "POCL_CACHE_DIR=$T/afile/pocl: PoCL's kernel cache $T/afile/pocl cannot be created: not a directory.*set POCL_CACHE_DIR" \
    "$T/out/n" ocl env POCL_CACHE_DIR="$T/afile/pocl" "$S" $C --output "$T/out/n"
else
  skip_part "no PoCL OpenCL device: its kernel cache and an OpenCL run's open files"
fi

# --- open files ---
# need CMD...: the open files a refused run says it needs
need() { "$@" 2>&1 | sed -n 's/.*this run needs about \([0-9]*\) open files.*/\1/p'; }
refused "ulimit -n 5" "the open-file limit \(ulimit -n\) is 5, hard limit 5: this run needs about [0-9]+ open files \(the program and StarPU 16, its files [0-9]+\): raise it with ulimit -n 1024" \
  "$T/out/o" lim -n 5 "$S" $C --output "$T/out/o"
refused "maf: ulimit -n 5" "the open-file limit \(ulimit -n\) is 5, hard limit 5: this run needs about [0-9]+ open files" \
  "$T/out/om" lim -n 5 "$S" $M --output "$T/out/om"
# the bound suffices: a run under exactly that limit completes (PLINK
# input, histogram, top-k and trace open; maf)
"$S" synth --metric ccc --num-vector 60 --num-field 50 --output-format plink --output "$T/g" \
  > /dev/null 2>&1 || fail "synth plink"
for cmd in "compute --quiet --metric ccc --bfile $T/g --histogram 10 --top-k 3 --trace $T/out/trace.csv" "$M"; do
  n=$(need lim -n 8 "$S" $cmd --output "$T/out/p" | head -n 1)
  [ -n "$n" ] && pass || fail "no open-file need stated for: $cmd"
  run_ok "under ulimit -n ${n:-?} (its own bound): $cmd" lim -n "${n:-5}" "$S" $cmd --output "$T/out/p"
  rm -f "$T"/out/p* "$T/out/trace.csv"
done
if [ $T_OCL -eq 1 ]; then
  # PoCL compiles its kernels (a fresh cache: its linker runs) in the bound
  OCL="env STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1 STARPU_HOME=$STARPU_HOME_OPENCL"
  n=$(need lim -n 5 $OCL "$S" $C --devices accel --output "$T/out/q" | head -n 1)
  echo "$n" | grep -q '^[0-9][0-9]*$' && [ "$n" -gt 30 ] && pass || fail "OpenCL need '$n'"
  run_ok "OpenCL, cold kernel cache, under ulimit -n ${n:-?}" lim -n "${n:-5}" $OCL POCL_CACHE_DIR="$T/pocl" \
    "$S" $C --devices accel --output "$T/out/q"
  cmp -s "$T/out/q.tsv" "$T/ok.tsv" && pass || fail "OpenCL run under its bound: output differs"
fi
# a low soft limit under a higher hard one: raised, and said
st=0
lim -Sn 8 "$S" compute --metric ccc --synthetic random --num-vector 60 --num-field 50 \
  --output "$T/out/r" > "$T/log.out" 2> "$T/log.err" || st=$?
[ $st -eq 0 ] && grep -q "^starmet: the open-file limit (ulimit -n) was 8, below the [0-9]* this run needs: starmet raised it to 1024" "$T/log.err" &&
  cmp -s "$T/out/r.tsv" "$T/ok.tsv" && pass || { fail "soft ulimit -n 8: exit $st"; cat "$T/log.err" >&2; }

# under mpirun: the limit inside the ranks (mpirun itself needs more than
# a few descriptors); above what MPI_Init needs, below the run's bound
if [ -n "${MPIEXEC:-}" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  # shellcheck disable=SC2086
  mpi2() { STARPU_NCPU=1 $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$@"; }
  refused "mpirun -np 2, ulimit -n 32" "rank [01]: the open-file limit \(ulimit -n\) is 32, hard limit 32: this run needs about [0-9]+ open files \(.*, MPI 32\)" \
    "$T/out/s" mpi2 sh -c 'ulimit -n 32 && exec "$0" "$@"' "$S" $C --output "$T/out/s"
  refused "maf: mpirun -np 2, ulimit -n 32" "rank [01]: the open-file limit \(ulimit -n\) is 32, hard limit 32" \
    "$T/out/sm" mpi2 sh -c 'ulimit -n 32 && exec "$0" "$@"' "$S" $M --output "$T/out/sm"
  n=$(need mpi2 sh -c 'ulimit -n 32 && exec "$0" "$@"' "$S" $C --output "$T/out/t" | head -n 1)
  run_ok "mpirun -np 2 under ulimit -n ${n:-?} (its own bound)" mpi2 sh -c 'ulimit -n '"${n:-5}"' && exec "$0" "$@"' \
    "$S" $C --output "$T/out/t"
  run_ok "mpirun -np 2, soft ulimit -n 8 raised" mpi2 sh -c 'ulimit -Sn 8 && exec "$0" "$@"' \
    "$S" $C --output "$T/out/u"
else
  skip_part "no MPI launcher: ulimit -n under mpirun"
fi

# --- file size (ulimit -f counts blocks of 512 or 1024 bytes: 4 is at
# most 4 KB) ---
B="compute --quiet --metric ccc --synthetic random --num-vector 300 --num-field 50"
refused "ulimit -f, tsv" "$T/out/v\.tsv: the file-size limit \(ulimit -f\) is [0-9.]+ (bytes|KB), but this run writes about [0-9.]+ MB there: raise it \(ulimit -f unlimited\)" \
  "$T/out/v" lim -f 4 "$S" $B --output "$T/out/v"
refused "ulimit -f, bin" "$T/out/w\.bin: the file-size limit \(ulimit -f\) is .* writes about 2\.91 MB there" \
  "$T/out/w" lim -f 4 "$S" $B --output "$T/out/w" --output-format bin
refused "ulimit -f, npy" "$T/out/x\.npy: the file-size limit \(ulimit -f\) is .* holds [0-9.]+ MB before any result" \
  "$T/out/x" lim -f 4 "$S" $B --output "$T/out/x" --output-format npy
refused "maf: ulimit -f below the SAF header" "$T/out/y\.saf\.tsv: the file-size limit \(ulimit -f\) is [0-9.]+ (bytes|KB), but this file holds [0-9.]+ KB before any result" \
  "$T/out/y" lim -f 2 "$S" maf --quiet --input "$T/wide.beagle" --output "$T/out/y"
# past the limit mid-run: EFBIG reported by the writer, exit 1, never
# SIGXFSZ (exit 153); no final file
# past NAME FINAL CMD...
past() {
  name=$1 final=$2; shift 2
  st=0
  "$@" > "$T/log.out" 2> "$T/log.err" || st=$?
  [ $st -eq 1 ] && grep -q "^starmet: error: .*File too large" "$T/log.err" && [ ! -e "$final" ] &&
    pass || { fail "$name: exit $st (153 is SIGXFSZ), or $final exists:"; cat "$T/log.err" >&2; }
}
past "ulimit -f reached with --threshold" "$T/out/z.tsv" lim -f 8 "$S" $B --threshold 0.01 --output "$T/out/z"
grep -q "^starmet: warning: $T/out/z.tsv: the file-size limit (ulimit -f) is .*--threshold make up to" "$T/log.err" &&
  pass || fail "no warning before the run with --threshold"
past "maf: ulimit -f reached" "$T/out/zm.saf.tsv" lim -f 8 "$S" $M --output "$T/out/zm"
[ ! -e "$T/out/zm.maf.tsv" ] && [ ! -e "$T/out/zm.sfs" ] && pass || fail "maf left a final file"
past "maf bin: ulimit -f reached" "$T/out/zb.saf.bin" lim -f 8 "$S" $M --output "$T/out/zb" --output-format bin
# the hint: a limit that holds the file
run_ok "ulimit -f unlimited" lim -f unlimited "$S" $B --output "$T/out/ok2" --output-format bin

finish
