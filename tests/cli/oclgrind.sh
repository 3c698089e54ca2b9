#!/bin/sh
# oclgrind.sh: the device kernels (codelets/device/sm_dev_kernels.h, in
# the OpenCL form starmet builds at start-up) on Oclgrind, the OpenCL
# device simulator, with all its checks: data races within a work-group
# and between work-groups, and barriers not reached by every work-item
# (--data-races), accesses outside a buffer (always on), uninitialised
# values (--uninitialized), misuse of the OpenCL API (--check-api). Every
# kernel family runs: Czekanowski 2-way and 3-way, double and single; CCC
# 2-way and 3-way, dense and sparse; CCC 2-way on int8 tiles (expand, the
# stand-in GEMM, gather); the field-axis reductions (2 ranks, 2 field
# slices); the 2-way and 3-way finalize (count and emit); the SAF of
# `starmet maf`. Sizes are odd (vector and field counts not multiples of
# a group's block or of a staging slice; one staging slice or more),
# grids capped at one group per dimension in half of the runs
# (STARMET_DEV_MAX_GROUPS=1: every kernel strides over the rest). Any
# Oclgrind report fails; every run must give the CPU's results (files and
# checksum) and run on Oclgrind's device, and every kernel of the program
# must have run. Last, mutants of the program (made here from the
# built-in text, loaded through $STARMET_OPENCL_PROGRAM) must be reported:
# without the barrier after the staging of the Czekanowski block product,
# a data race; with a column of its numerators left unwritten, the
# finalize's uninitialised read. The checks do see what they are for.
#
# Oclgrind 21.10's uninitialised-value checker stops ("OCLGRIND FATAL
# ERROR ... Unsupported instruction: freeze", and the kernel is abandoned)
# on the code LLVM's optimiser makes of the staging loops (sm_czek2/3,
# sm_ccc2/3), of sm_i8_expand and of the 3-way finalize: the program is
# built with -cl-opt-disable here, where no kernel has that instruction and
# every kernel runs under every check. tests/tools/ocl_shadow.c, preloaded,
# keeps that checker's view of global memory exact under StarPU (see
# there). Oclgrind interprets every work-item: about 2 minutes of CPU
# time (7 minutes on 2 cores busy with other work).
. "$(dirname "$0")/../lib.sh"

if ! command -v oclgrind > /dev/null 2>&1; then
  echo "oclgrind is not installed (apt-get install oclgrind): skipped"; exit 77
fi
if ! "$STARMET" --version 2> /dev/null | grep -q '^codelets:.* opencl'; then
  echo "starmet was built without OpenCL codelets: skipped"; exit 77
fi
if [ -n "$(sed -n 's/^SM_SAN_CFLAGS = *//p' "$top_builddir/Makefile" 2> /dev/null)" ]; then
  echo "starmet is built with sanitizers, whose runtime must be preloaded before Oclgrind's: skipped"
  exit 77
fi
CC=$(sed -n 's/^CC = //p' "$top_builddir/Makefile" 2> /dev/null)
# shellcheck disable=SC2086
if ! ${CC:-cc} -shared -fPIC -o "$T/ocl_shadow.so" "$top_srcdir/tests/tools/ocl_shadow.c" \
  -ldl -lpthread 2> "$T/cc.err"; then
  fail "cannot build tests/tools/ocl_shadow.c:"; cat "$T/cc.err" >&2; finish
fi

# og LOG CMD...: CMD on Oclgrind's runtime (which the oclgrind wrapper
# preloads) with ocl_shadow.so before it; Oclgrind's reports into
# LOG.<rank>, the kernels into $OCL_SHADOW_LOG
cat > "$T/og" << EOF
#!/bin/sh
log=\$1; shift
OCLGRIND_LOG=\$log.\${OMPI_COMM_WORLD_RANK:-0} LD_PRELOAD="$T/ocl_shadow.so:\$LD_PRELOAD" exec "\$@"
EOF
chmod +x "$T/og"
OG_CHECKS="--data-races --uninitialized --check-api --max-errors 20 --build-options -cl-opt-disable"
# StarPU's workers: Oclgrind's device and one CPU (for the CPU-only
# codelets), with calibration files of their own (another bus; the CPU
# runs keep make check's)
export STARPU_NCPU=1 STARPU_NOPENCL=1 STARPU_NCUDA=0 STARPU_OPENCL_ON_CPUS=1
OG_HOME="$top_builddir/.cache/starpu-oclgrind"
mkdir -p "$OG_HOME"
MPI=1
if [ -z "${MPIEXEC:-}" ]; then MPI=0; skip_part "no MPI launcher: the reductions (sm_add_*) do not run"; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# reports TAG: fail with Oclgrind's reports of run TAG, if any
reports() {
  for f in "$T/$1".log.*; do
    [ -s "$f" ] || continue
    fail "$1: Oclgrind reported (${f##*/}):"; head -n 40 "$f" >&2
  done
}

# shadow_ok TAG: ocl_shadow.so met nothing it could not keep exact (it
# says so on stderr, which run_ok kept in $T/log.err)
shadow_ok() {
  if grep -q '^ocl_shadow:' "$T/log.err"; then
    fail "$1: Oclgrind's view of memory may be wrong:"; grep '^ocl_shadow:' "$T/log.err" >&2
  fi
}

# og_run TAG NP CAP COMMAND ARGS...: `starmet COMMAND ARGS` on NP ranks
# (1: no launcher), first on the CPU, then with --devices accel on
# Oclgrind (grid capped at CAP groups when CAP is not -): no report, the
# CPU's files and checksum, tasks on Oclgrind's device
og_run() {
  tag=$1 np=$2 cap=$3 cmd=$4; shift 4
  t1=$(date +%s)
  launch=""
  if [ "$np" -gt 1 ]; then
    [ $MPI = 1 ] || return 0
    launch="$MPIEXEC ${MPIEXEC_FLAGS:-} -np $np"
  fi
  [ "$cap" = - ] && cap=""
  # shellcheck disable=SC2086
  STARPU_NOPENCL=0 run_ok "$tag on the CPU" $launch "$STARMET" $cmd --quiet "$@" \
    --output "$T/c_$tag" --summary "$T/c_$tag.json"
  # shellcheck disable=SC2086
  STARPU_HOME="$OG_HOME" STARMET_DEV_MAX_GROUPS=$cap OCL_SHADOW_LOG="$T/k_$tag" run_ok \
    "$tag on Oclgrind" \
    $launch oclgrind $OG_CHECKS \
    "$T/og" "$T/$tag.log" "$STARMET" $cmd --quiet "$@" --devices accel \
    --output "$T/o_$tag" --summary "$T/o_$tag.json"
  r=0
  while [ $r -lt "$np" ]; do
    [ -e "$T/$tag.log.$r" ] || fail "$tag: Oclgrind wrote no log for rank $r (did it run?)"
    r=$((r + 1))
  done
  reports "$tag"
  shadow_ok "$tag"
  if [ "$cmd" = maf ]; then
    # the device's exact SAF against the CPU's tree: within 1e-12
    # (device_kernels.sh's rule)
    awk -F'\t' 'FNR == 1 { next } NR == FNR { for (i = 3; i <= NF; i++) v[FNR, i] = $i; next }
      { for (i = 3; i <= NF; i++) { a = v[FNR, i]; b = $i
          if (a == "-inf" || b == "-inf") { if (a != b) bad = 1; continue }
          d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); if (d > 1e-12 * (m > 1 ? m : 1)) bad = 1 } }
      END { exit bad }' "$T/c_$tag.saf.tsv" "$T/o_$tag.saf.tsv" && pass ||
      fail "$tag: the SAF on Oclgrind differs from the CPU's beyond 1e-12"
  else
    n=0
    for f in "$T/c_$tag".* "$T/c_${tag}"_[0-9]*; do # one rank's files; per rank
      case $f in *.json | *.png | *\*) continue ;; esac # the histogram's data: .tsv
      n=$((n + 1))
      cmp -s "$f" "$T/o_${f#"$T"/c_}" && pass ||
        fail "$tag: ${f##*/} on Oclgrind differs from the CPU's"
    done
    [ $n -gt 0 ] || fail "$tag: no result file to compare"
    [ "$(cks "$T/c_$tag.json")" = "$(cks "$T/o_$tag.json")" ] && pass ||
      fail "$tag: the checksum on Oclgrind differs from the CPU's"
  fi
  tr -d '\n' < "$T/o_$tag.json" | grep -o '"name": "OpenCL[^}]*"tasks": [0-9]*' > "$T/w_$tag"
  grep -q 'Oclgrind' "$T/w_$tag" && ! grep -v 'Oclgrind' "$T/w_$tag" | grep -q . &&
    ! grep -q '"tasks": 0$' "$T/w_$tag" && pass ||
    fail "$tag: not every OpenCL worker was Oclgrind's device with tasks: $(cat "$T/w_$tag")"
  echo "$tag: $(($(date +%s) - t1)) s on the CPU and Oclgrind"
  # capped: every launch had one group
  if [ -n "$cap" ]; then
    awk '$1 == "ran" && ($3 != 1 || $4 != 1 || $5 != 1) { bad = 1 } END { exit bad }' \
      "$T/k_$tag" && pass || fail "$tag: a launch had more than one group under the cap"
  fi
}

t0=$(date +%s)
# 2-way: one staging slice or more (16 Czekanowski fields, 256 CCC
# fields; 2 field slices reduced on the device by sm_add_*, of 19 and 18
# fields), one block of 64 x 64 pairs; the finalize on rows strided over
# one group or one group per row; 17 vectors: the reductions on 2 x 2
# groups (strided over one), the finalize on the CPU (--histogram: the
# rows cost most under Oclgrind, and run elsewhere). The first run has
# one rank: StarPU calibrates its new bus once, not in two ranks at once.
P2="--synthetic random --num-vector 5"
P17="--synthetic random --num-vector 17 --block-size 17 --histogram 10"
og_run ccc2sp 1 1 compute --metric ccc --missing-rate 0.1 $P2 --num-field 300
og_run czek2d 2 1 compute --metric czekanowski $P2 --num-field 37 --num-proc-field 2
og_run czek2s 2 - compute --metric czekanowski --precision single $P2 --num-field 21 \
  --num-proc-field 2
og_run czek2s17 2 - compute --metric czekanowski --precision single $P17 --num-field 21 \
  --num-proc-field 2
og_run ccc2 2 1 compute --metric ccc $P17 --num-field 45 --num-proc-field 2
# the int8 tiles: expansion, the GEMM standing in for cuBLAS, gather
og_run i8 1 1 compute --metric ccc --ccc-gemm int8 $P17 --num-field 45
og_run i8sp 1 - compute --metric ccc --missing-rate 0.1 --ccc-gemm int8 $P17 --num-field 45
# 3-way: one slice of the planes (phase 1 of 5: a plane of 5 x 5 pairs,
# or phase 5 of 12 of 8 vectors in tiles of 4: 2 planes of 4 x 4, strided
# over one group), its 2-way numerators (not sparse CCC), the plane
# products, the 3-way finalize
P3="--num-way 3 --synthetic random --num-vector 5 --block-size 5 --num-phase 5 --phase-min 1 --phase-max 1"
P3G="--num-way 3 --synthetic random --num-vector 8 --block-size 4 --num-phase 12 --phase-min 5 --phase-max 5"
og_run czek3d 1 1 compute --metric czekanowski $P3 --num-field 21
og_run czek3s 1 - compute --metric czekanowski --precision single $P3 --num-field 13
og_run ccc3 1 - compute --metric ccc $P3 --num-field 45
og_run ccc3sp 1 1 compute --metric ccc --missing-rate 0.1 $P3G --num-field 300
# SAF: 4 sites (one without data) of 7 individuals, one group per site or
# one group for all
awk 'BEGIN { srand(5); N = 7
  printf "marker\tallele1\tallele2"; for (i = 0; i < N; i++) printf "\tI%d\tI%d\tI%d", i, i, i
  printf "\n"
  for (s = 1; s <= 4; s++) {
    printf "chr1_%d\t0\t1", 10 * s; f = rand()
    for (i = 0; i < N; i++) {
      if (s == 2 || rand() < 0.1) { printf "\t0.333333\t0.333333\t0.333333"; continue }
      g = (rand() < f) + (rand() < f); a = 0.01 + (g == 0) * rand(); b = 0.01 + (g == 1) * rand()
      c = 0.01 + (g == 2) * rand(); printf "\t%.6f\t%.6f\t%.6f", a, b, c }
    printf "\n" } }' > "$T/g.beagle"
og_run saf 1 - maf --input "$T/g.beagle" --block-size 4
og_run safcap 1 1 maf --input "$T/g.beagle" --block-size 4

# every kernel of the program ran on Oclgrind (the reductions need MPI)
cat "$T"/k_* > "$T/kernels"
sed -n 's/^kernel //p' "$T/kernels" | sort -u > "$T/all"
sed -n 's/^ran \([^ ]*\).*/\1/p' "$T/kernels" | sort -u > "$T/ran"
[ -s "$T/all" ] && pass || fail "no kernel was built on Oclgrind"
for k in $(comm -23 "$T/all" "$T/ran"); do
  case $k in sm_add_*) [ $MPI = 1 ] || continue ;; esac
  fail "kernel $k never ran on Oclgrind"
done
# the capped runs strided: one group per dimension
awk '$1 == "ran" && ($3 != 1 || $4 != 1 || $5 != 1) { several = 1 } END { exit !several }' \
  "$T/kernels" && pass || fail "no launch had several groups"
echo "Oclgrind runs: $(($(date +%s) - t0)) s"

# Mutations of the built-in program text (the string make generates from
# codelets/device), each changing exactly one line, loaded through
# $STARMET_OPENCL_PROGRAM: Oclgrind must report them.
src="$top_builddir/codelets/sm_opencl_src.c"
sed -e '1,3d' -e '$d' -e 's/^"//' -e 's/\\n"$//' -e 's/\\\(.\)/\1/g' "$src" > "$T/program.cl"
grep -q 'SM_DEV_KERNEL void sm_czek2_' "$T/program.cl" && pass ||
  fail "no Czekanowski kernel in the program text taken from $src"
# mutant TAG CHECKS...: the Czekanowski 2-way run of program $T/TAG.cl
mutant() {
  m=$1; shift
  STARPU_HOME="$OG_HOME" STARMET_OPENCL_PROGRAM="$T/$m.cl" run_ok "$m on Oclgrind" \
    oclgrind "$@" --max-errors 5 \
    --build-options -cl-opt-disable "$T/og" "$T/$m.log" "$STARMET" compute \
    --metric czekanowski --synthetic random --num-vector 5 --num-field 7 --devices accel \
    --quiet --output "$T/$m"
  shadow_ok "$m"
}
# 1. no barrier between the staging of a slice of the block product and
# its use: a data race in sm_czek2_d
sed '/sm_dev_cz_stage_##SFX(bs,/{n;s/SM_BARRIER();/             /;}' "$T/program.cl" > "$T/race.cl"
[ "$(grep -c 'SM_BARRIER()' "$T/race.cl")" -eq $(($(grep -c 'SM_BARRIER()' "$T/program.cl") - 1)) ] &&
  pass || fail "the mutation did not remove exactly one barrier (the staging loop changed?)"
mutant race --data-races
grep -q 'data race' "$T/race.log.0" && grep -q 'Kernel: sm_czek2_d' "$T/race.log.0" && pass ||
  fail "Oclgrind did not report the race of the kernel without its barrier"
# 2. the block product leaves the last column of its numerators
# unwritten: the finalize reads uninitialised global memory (what
# ocl_shadow.c makes visible)
sed 's/C\[(sm_i64)i \* ldc + j\] = acc\[r\]\[c\];/if (j + 1 < n) C[(sm_i64)i * ldc + j] = acc[r][c];/' \
  "$T/program.cl" > "$T/uninit.cl"
[ "$(diff "$T/program.cl" "$T/uninit.cl" | grep -c '^>')" -eq 1 ] && pass ||
  fail "the mutation did not change exactly one store (the block product changed?)"
mutant uninit --uninitialized
grep -qi 'uninitialized' "$T/uninit.log.0" && grep -q 'Kernel: sm_fin2_count_czek_d' "$T/uninit.log.0" &&
  ! grep -q 'Kernel: sm_czek2_d' "$T/uninit.log.0" && pass ||
  fail "Oclgrind did not report the finalize's read of the numerators left unwritten (and only it)"
# a program file that cannot be read: a clear error, no results
expect_error "program file missing" "STARMET_OPENCL_PROGRAM=.*cannot read" - env \
  STARPU_HOME="$OG_HOME" STARMET_OPENCL_PROGRAM="$T/missing.cl" oclgrind "$T/og" \
  "$T/missing.log" "$STARMET" compute --metric ccc --synthetic random --num-vector 4 \
  --num-field 8 --devices accel --output "$T/none"
ls "$T"/none*.tsv* > /dev/null 2>&1 && fail "program file missing: results left behind" || pass
# a program text that does not build: a clear error naming the file
echo '__kernel void broken(' > "$T/broken.cl"
expect_error "program that does not build" "STARMET_OPENCL_PROGRAM=.*broken.cl did not build" - \
  env STARPU_HOME="$OG_HOME" STARMET_OPENCL_PROGRAM="$T/broken.cl" oclgrind "$T/og" \
  "$T/broken.log" "$STARMET" compute --metric ccc --synthetic random --num-vector 4 \
  --num-field 8 --devices accel --output "$T/none"
# a failure of the runtime, not of the command line: exit 1, not 2
(export STARMET_OPENCL_PROGRAM="$T/broken.cl"
 ocl "$STARMET" compute --metric ccc --synthetic random --num-vector 4 --num-field 8 \
   --devices accel --output-format none > /dev/null 2>&1)
st=$?
[ $st -eq 1 ] && pass || fail "a program that does not build: exit $st (1 expected)"
finish
