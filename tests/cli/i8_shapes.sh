#!/bin/sh
# i8_shapes.sh: CCC 2-way on cached int8 tiles (--ccc-gemm int8) with
# tiles whose rows are not multiples of 16, whose int8 forms carry zero
# padding rows up to the shapes cuBLAS's int8 kernels want
# (codelets/cuda/sm_i8_gemm.h): --block-size 37 (tiles of 37 and a
# remainder of 26) and 1334-vector tiles with a remainder of 6, dense and
# sparse, field counts at (32), below (300) and past (20) a multiple of 16. On PoCL's
# OpenCL device (sm_i8_expand, the stand-in GEMM run on the padded plan,
# sm_i8_gather), on the CPU, and with both in one run (a tile expanded on
# one device and multiplied on the other), the files and checksums are
# those of the CPU popcount run, bit for bit; every tile is expanded once
# and every tile pair multiplied from the int8 tiles. --verify's checks of
# the int8 products (in the codelets on StarPU 1.4) find nothing to
# correct, and faults injected into them are all caught.
. "$(dirname "$0")/../lib.sh"
jnum() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }
count_of() { grep -o "\"name\": \"$2\"[^}]*\"count\": [0-9]*" "$1" | sed 's/.*: //'; }
opencl_tasks() { tr -d '\n' < "$1" | grep -o '"name": "OpenCL[^}]*"tasks": [0-9]*' | sed 's/.*: //' | head -n 1; }

if ocl_probe; then have_ocl=1; else
  have_ocl=0; skip_part "no OpenCL device (install pocl-opencl-icd): int8 tiles on OpenCL"
fi
runtime=0
"$STARMET" --version | grep -q "^StarPU: 1\.4" && runtime=1

# shape: num-vector num-field block-size
for shape in "100 32 37" "100 300 37" "1340 20 1334"; do
  set -- $shape
  tiles=$(( ($1 + $3 - 1) / $3 ))
  for prob in "" "--missing-rate 0.1"; do
    tag=$(echo "$prob $shape" | tr -dc 'a-z0-9')
    P="--metric ccc $prob --synthetic random --num-vector $1 --num-field $2 --block-size $3 --quiet --output-format bin"
    # shellcheck disable=SC2086
    run_ok "reference $tag" "$STARMET" compute $P --compute-method ref --output "$T/p_$tag"
    runs="c"
    # shellcheck disable=SC2086
    run_ok "cpu int8 $tag" "$STARMET" compute $P --ccc-gemm int8 --output "$T/c_$tag"
    if [ $have_ocl = 1 ]; then
      runs="c o a"
      # shellcheck disable=SC2086
      run_ok "opencl int8 $tag" ocl "$STARMET" compute $P --ccc-gemm int8 --devices accel \
        --output "$T/o_$tag"
      # shellcheck disable=SC2086
      run_ok "all int8 $tag" ocl "$STARMET" compute $P --ccc-gemm int8 --devices all \
        --sched eager --output "$T/a_$tag"
      [ "$(opencl_tasks "$T/o_$tag.json")" -gt 0 ] && pass || fail "$tag: no task on the OpenCL worker"
    fi
    for run in $runs; do
      same "$tag ($run): int8 tiles' results vs the reference's" "$T/p_$tag.bin" "$T/${run}_$tag.bin"
      [ "$(cks "$T/p_$tag.json")" = "$(cks "$T/${run}_$tag.json")" ] && pass ||
        fail "$tag ($run): checksum differs from the reference's"
      [ "$(count_of "$T/${run}_$tag.json" sm_ccc_i8)" = "$tiles" ] && pass ||
        fail "$tag ($run): $tiles tiles but $(count_of "$T/${run}_$tag.json" sm_ccc_i8) int8 expansions"
      [ "$(count_of "$T/${run}_$tag.json" "sm_ccc2_i8[_a-z]*")" = $((tiles * (tiles + 1) / 2)) ] &&
        pass || fail "$tag ($run): not every tile pair ran from the int8 tiles"
    done
  done
done

# --verify on the int8 products of padded tiles: nothing to correct; with
# StarPU 1.4's task retry the checks run in the codelets (reading the
# padded int8 tiles) and injected faults are all caught and re-run
P="--metric ccc --missing-rate 0.1 --synthetic random --num-vector 90 --num-field 45 --block-size 37 --quiet"
# shellcheck disable=SC2086
run_ok "verify reference" "$STARMET" compute $P --compute-method ref --output "$T/vp"
P="$P --ccc-gemm int8"
for dev in cpu accel; do
  [ $dev = accel ] && [ $have_ocl = 0 ] && continue
  # shellcheck disable=SC2086
  run_ok "verify $dev" ocl "$STARMET" compute $P --verify --devices $dev --output "$T/v_$dev"
  same "verify $dev: output vs the reference's" "$T/vp.tsv" "$T/v_$dev.tsv"
  [ "$(jnum "$T/v_$dev.json" checks)" -gt 0 ] && [ "$(jnum "$T/v_$dev.json" failures_caught)" = 0 ] &&
    pass || fail "verify $dev: $(jnum "$T/v_$dev.json" checks) checks, $(jnum "$T/v_$dev.json" failures_caught) failures"
  if [ $runtime = 1 ]; then
    # shellcheck disable=SC2086
    run_ok "inject $dev" ocl "$STARMET" compute $P --verify --inject-faults 0.3,5 --devices $dev \
      --output "$T/vi_$dev"
    same "inject $dev: output vs the reference's" "$T/vp.tsv" "$T/vi_$dev.tsv"
    [ "$(jnum "$T/vi_$dev.json" faults_injected)" -gt 0 ] &&
      [ "$(jnum "$T/vi_$dev.json" failures_caught)" = "$(jnum "$T/vi_$dev.json" faults_injected)" ] &&
      pass || fail "inject $dev: not every fault caught"
  fi
done
[ $runtime = 1 ] || echo "StarPU 1.3: --verify checks the int8 products in verify tasks; the checks inside the codelets need 1.4"
finish
