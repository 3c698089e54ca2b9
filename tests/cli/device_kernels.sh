#!/bin/sh
# device_kernels.sh: the device kernels (codelets/device/sm_dev_kernels.h,
# the source nvcc compiles too) in their OpenCL form on PoCL's CPU device,
# against the CPU kernels: every numerator kernel (Czekanowski double and
# single, CCC dense and sparse, 2-way and 3-way) on odd sizes and several
# tile shapes (tiles smaller than, equal to and larger than a work-group's
# block, field counts across the staging width), once with the grid capped
# at one group per dimension (the striding that lets CUDA's 65535-group
# limits hold any size), and the exact SAF kernel under `maf`. CCC and
# integer Czekanowski must be identical, real Czekanowski within 1e-12,
# SAF within 1e-12 of the CPU tree; the 2-way and 3-way finalize on the
# device, records and checksums identical; CCC 2-way on cached int8 tiles
# (--ccc-gemm int8), identical. With CUDA configured, --version must
# list the CUDA implementations of every numerator and reduction codelet
# (the reductions run on PoCL in tests/mpi/mpi_2way.sh).
. "$(dirname "$0")/../lib.sh"

# a CUDA-enabled build (configure defined SM_USE_CUDA) links the CUDA codelets
if grep -q "define SM_USE_CUDA 1" "$top_builddir/config.h" 2> /dev/null; then
  "$STARMET" --version > "$T/version" 2>&1
  for c in sm_ccc2 sm_ccc2_sparse sm_ccc3 sm_ccc3_sparse sm_czek2_d sm_czek2_s sm_czek3_d \
    sm_czek3_s sm_saf sm_add_f64 sm_add_f32 sm_add_u32 sm_finalize2 sm_finalize3; do
    grep -Eq "^  $c +cpu cuda\(" "$T/version" && pass || fail "--version: no CUDA implementation of $c"
  done
  grep -q "cuda_ccc2_gemm" "$T/version" && pass || fail "--version: no cuBLAS int8 CCC implementation"
  for c in sm_ccc_i8 sm_ccc2_i8 sm_ccc2_i8_sparse; do
    grep -Eq "^  $c +cpu cuda\(" "$T/version" && pass || fail "--version: no CUDA implementation of $c"
  done
  grep -q "^features:.* cuda" "$T/version" && pass || fail "--version: features lack cuda"
fi

export STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1
export STARPU_HOME="$STARPU_HOME_OPENCL"
"$STARMET" compute --metric ccc --synthetic random --num-vector 4 --num-field 8 \
  --devices accel --summary "$T/probe.json" > "$T/probe" 2>&1 || true
if ! grep -q '"name": "OpenCL' "$T/probe.json" 2> /dev/null; then
  echo "no OpenCL device (install pocl-opencl-icd): skipped"; cat "$T/probe"; exit 77
fi
opencl_tasks() { tr -d '\n' < "$1" | grep -o '"name": "OpenCL[^}]*"tasks": [0-9]*' | sed 's/.*: //' | head -n 1; }

# shape: num-vector(2-way) num-vector(3-way) num-field block-size cap;
# under a half sweep (sweep_take) each shape and way takes every second
# problem, in turn
dk_s=0
for shape in "53 23 31 7 -" "131 41 257 64 -" "150 70 1001 67 -" "97 29 517 33 1"; do
  set -- $shape
  dk_s=$((dk_s + 1))
  for way in 2 3; do
    nv=$1; [ $way = 3 ] && nv=$2
    dk_k=0
    for prob in "ccc" "ccc --missing-rate 0.1" "czekanowski" "czekanowski --precision single" real; do
      dk_k=$((dk_k + 1))
      sweep_take $((dk_s + way + dk_k)) || continue
      tag=$(echo "$way $prob $shape" | tr -dc 'a-z0-9')
      tol=""
      if [ "$prob" = real ]; then
        [ "$3" -le 500 ] || continue
        P="--input $DATA/czek_real_200x500_f64.bin --num-field $3"
        tol="--tol-rel 1e-12"
      else
        P="--metric $prob --synthetic random --num-field $3"
      fi
      P="$P --num-vector $nv --num-way $way --block-size $4 --quiet"
      # shellcheck disable=SC2086
      STARPU_NOPENCL=0 run_ok "cpu $tag" "$STARMET" compute $P --output "$T/cpu_$tag"
      cap=""
      [ "$5" != - ] && cap=$5
      # shellcheck disable=SC2086
      STARMET_DEV_MAX_GROUPS=$cap run_ok "opencl $tag" "$STARMET" compute $P --devices accel \
        --sched dmda --output "$T/acc_$tag"
      # shellcheck disable=SC2086
      same "opencl vs cpu: $tag" $tol "$T/cpu_$tag.tsv" "$T/acc_$tag.tsv"
      [ "$(opencl_tasks "$T/acc_$tag.json")" -gt 0 ] && pass || fail "$tag: no task on the OpenCL worker"
    done
  done
done

# The 2-way finalize on the device (--devices accel puts it with the
# numerators; only records cross back): thresholds that keep part of the
# values, no output, binary output, rows strided over one group (cap 1);
# blocks with a histogram or top-k stay on the CPU. The same files and
# checksums as the CPU run.
for prob in "ccc --threshold 0.55" "ccc --missing-rate 0.1 --threshold 0.55" \
  "czekanowski --threshold 0.66" "czekanowski --precision single --threshold 0.66" \
  "ccc --missing-rate 0.1 --output-format none" "czekanowski --output-format bin" \
  "ccc --output-format bin" "ccc --histogram 10" "ccc --top-k 3"; do
  for cap in "" 1; do
    tag=fin$(echo "$prob $cap" | tr -dc 'a-z0-9')
    P="--metric $prob --synthetic random --num-vector 70 --num-field 301 --block-size 23 --quiet"
    # shellcheck disable=SC2086
    STARPU_NOPENCL=0 run_ok "cpu $tag" "$STARMET" compute $P --output "$T/c_$tag"
    # shellcheck disable=SC2086
    STARMET_DEV_MAX_GROUPS=$cap run_ok "opencl $tag" "$STARMET" compute $P --devices accel \
      --output "$T/a_$tag"
    [ "$(cks "$T/c_$tag.json")" = "$(cks "$T/a_$tag.json")" ] && pass ||
      fail "finalize on OpenCL, $prob (cap $cap): checksum differs from the CPU's"
    for f in "$T/c_$tag".*; do
      case $f in *.json) continue ;; esac
      cmp -s "$f" "$T/a_${f#"$T"/c_}" && pass ||
        fail "finalize on OpenCL, $prob (cap $cap): ${f##*.} differs from the CPU's"
    done
  done
done

# The 3-way finalize on the device likewise, over rows (plane, x) of the
# pieces (diagonal, face and volume slices; rows strided over one group
# with cap 1): it runs on the OpenCL worker, except with a histogram or
# per-entry thresholds (CPU); the same files and checksums.
for prob in "ccc --threshold 0.6" "ccc --missing-rate 0.1 --threshold 0.6" \
  "czekanowski --threshold 0.5" "czekanowski --precision single --threshold 0.5" \
  "ccc --missing-rate 0.1 --output-format none" "czekanowski --output-format bin" \
  "ccc --histogram 10" "ccc --missing-rate 0.1 --threshold 0.5,0.5,0.5,0.5,1.2"; do
  caps='"" 1'
  case $prob in *format* | *histogram* | *,*) caps='""' ;; esac # the grid matters little there
  eval "set -- $caps"
  for cap in "$@"; do
    tag=fin3$(echo "$prob $cap" | tr -dc 'a-z0-9')
    P="--metric $prob --num-way 3 --synthetic random --num-vector 37 --num-field 301 --block-size 11 --quiet"
    # shellcheck disable=SC2086
    STARPU_NOPENCL=0 run_ok "cpu $tag" "$STARMET" compute $P --output "$T/c_$tag"
    # shellcheck disable=SC2086
    STARMET_DEV_MAX_GROUPS=$cap run_ok "opencl $tag" "$STARMET" compute $P --devices accel \
      --output "$T/a_$tag" --trace "$T/a_$tag.csv"
    [ "$(cks "$T/c_$tag.json")" = "$(cks "$T/a_$tag.json")" ] && pass ||
      fail "3-way finalize on OpenCL, $prob (cap $cap): checksum differs from the CPU's"
    for f in "$T/c_$tag".*; do
      case $f in *.json) continue ;; esac
      cmp -s "$f" "$T/a_${f#"$T"/c_}" && pass ||
        fail "3-way finalize on OpenCL, $prob (cap $cap): ${f##*.} differs from the CPU's"
    done
    where=OpenCL
    case $prob in *histogram* | *,*) where=CPU ;; esac
    awk -F, -v w="$where" '$2 == "finalize3" { n++; if (index($9, w) != 1) bad++ }
      END { exit !(n > 0 && !bad) }' "$T/a_$tag.csv" && pass ||
      fail "3-way finalize, $prob: not every finalize ran on the $where worker"
  done
done

# CCC 2-way on cached int8 tiles (--ccc-gemm int8): sm_i8_expand and
# sm_i8_gather are what CUDA runs around cuBLAS (sm_i8_gemm stands in for
# it here). On PoCL and on the CPU, the files of the popcount run; each
# tile expanded once (sm_ccc_i8 tasks = tiles), every pair multiplied from
# the int8 tiles.
count_of() { grep -o "\"name\": \"$2\"[^}]*\"count\": [0-9]*" "$1" | sed 's/.*: //'; }
for shape in "53 31 7 -" "131 257 64 -" "97 517 33 1" "150 1001 67 -"; do
  set -- $shape
  for prob in "" "--missing-rate 0.1"; do
    tag=i8$(echo "$prob $shape" | tr -dc 'a-z0-9')
    P="--metric ccc $prob --synthetic random --num-vector $1 --num-field $2 --block-size $3 --quiet"
    # shellcheck disable=SC2086
    STARPU_NOPENCL=0 run_ok "cpu $tag" "$STARMET" compute $P --ccc-gemm popcount --output "$T/p_$tag"
    # shellcheck disable=SC2086
    STARPU_NOPENCL=0 run_ok "cpu int8 $tag" "$STARMET" compute $P --ccc-gemm int8 --output "$T/c_$tag"
    cap=""
    [ "$4" != - ] && cap=$4
    # shellcheck disable=SC2086
    STARMET_DEV_MAX_GROUPS=$cap run_ok "opencl int8 $tag" "$STARMET" compute $P --ccc-gemm int8 \
      --devices accel --output "$T/o_$tag"
    same "int8 tiles on the CPU vs popcount: $tag" "$T/p_$tag.tsv" "$T/c_$tag.tsv"
    same "int8 tiles on OpenCL vs popcount: $tag" "$T/p_$tag.tsv" "$T/o_$tag.tsv"
    tiles=$(( ($1 + $3 - 1) / $3 ))
    for run in c o; do
      [ "$(count_of "$T/${run}_$tag.json" sm_ccc_i8)" = "$tiles" ] && pass ||
        fail "$tag ($run): $tiles tiles but $(count_of "$T/${run}_$tag.json" sm_ccc_i8) int8 expansions"
      [ "$(count_of "$T/${run}_$tag.json" "sm_ccc2_i8[_a-z]*")" = $(( tiles * (tiles + 1) / 2 )) ] &&
        pass || fail "$tag ($run): not every tile pair ran from the int8 tiles"
    done
    [ "$(opencl_tasks "$T/o_$tag.json")" -gt 0 ] && pass || fail "$tag: no task on the OpenCL worker"
  done
done

# SAF: 15 individuals (31 bins: chunks of a 256-thread group hold a row;
# 150 individuals: several chunks per step), some without data
for nind in 15 150; do
  awk -v N=$nind 'BEGIN { srand(11)
    printf "marker\tallele1\tallele2"; for (i = 0; i < N; i++) printf "\tI%d\tI%d\tI%d", i, i, i
    printf "\n"
    for (s = 1; s <= 37; s++) {
      printf "chr1_%d\t0\t1", 10 * s; f = rand()
      for (i = 0; i < N; i++) {
        if (s == 5 || rand() < 0.1) { printf "\t0.333333\t0.333333\t0.333333"; continue }
        g = (rand() < f) + (rand() < f); a = 0.01 + (g == 0) * rand(); b = 0.01 + (g == 1) * rand()
        c = 0.01 + (g == 2) * rand(); printf "\t%.6f\t%.6f\t%.6f", a, b, c }
      printf "\n" } }' > "$T/g$nind.beagle"
  STARPU_NOPENCL=0 run_ok "maf cpu $nind" "$STARMET" maf --input "$T/g$nind.beagle" \
    --output "$T/mc$nind" --block-size 5 --quiet
  for cap in "" 2; do
    STARMET_DEV_MAX_GROUPS=$cap run_ok "maf opencl $nind $cap" "$STARMET" maf \
      --input "$T/g$nind.beagle" --output "$T/mo$nind$cap" --block-size 5 --devices accel --quiet
    awk -F'\t' 'FNR == 1 { next } NR == FNR { for (i = 3; i <= NF; i++) v[FNR, i] = $i; next }
      { for (i = 3; i <= NF; i++) { a = v[FNR, i]; b = $i
          if (a == "-inf" || b == "-inf") { if (a != b) bad = 1; continue }
          d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); if (d > 1e-12 * (m > 1 ? m : 1)) bad = 1 } }
      END { exit bad }' "$T/mc$nind.saf.tsv" "$T/mo$nind$cap.saf.tsv" && pass ||
      fail "maf: the OpenCL SAF of $nind individuals (cap $cap) differs from the CPU's beyond 1e-12"
    [ "$(opencl_tasks "$T/mo$nind$cap.json")" -gt 0 ] && pass || fail "maf $nind: no task on OpenCL"
  done
done
expect_error "maf accel with ref" "only the exact tree" "$T/bad" "$STARMET" maf \
  --input "$T/g15.beagle" --output "$T/bad" --kernel ref --devices accel
finish
