#!/bin/sh
# opencl.sh: the heterogeneous path on a real accelerator worker (PoCL's
# CPU OpenCL device, with its own memory node and transfers): CPU-only,
# OpenCL-only and CPU+OpenCL under dmda and eager, with and without a small
# STARPU_LIMIT_OPENCL_MEM that forces eviction, OpenCL-only under
# heteroprio (CCC; --verify by check tasks too), 2-way and 3-way: CCC and
# integer Czekanowski identical to CPU-only, real Czekanowski within 1e-12;
# the summary shows per-worker task counts and bytes moved.
. "$(dirname "$0")/../lib.sh"
export STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1
export STARPU_HOME="$STARPU_HOME_OPENCL"
probe=$(STARPU_NCPU=1 "$STARMET" compute --metric ccc --synthetic random --num-vector 4 \
  --num-field 8 --devices accel --summary "$T/probe.json" 2>&1) || true
if ! grep -q '"name": "OpenCL' "$T/probe.json" 2> /dev/null; then
  echo "no OpenCL device (install pocl-opencl-icd): skipped"; echo "$probe"; exit 77
fi
opencl_tasks() { tr -d '\n' < "$1" | grep -o '"name": "OpenCL[^}]*"tasks": [0-9]*' | sed 's/.*: //' | head -n 1; }
bytes() { sed -n 's/.*"bytes_between_memory_nodes": \([0-9]*\).*/\1/p' "$1"; }

for way in 2 3; do
  for prob in "ccc --missing-rate 0.1" "ccc" "czekanowski" "czekanowski --precision single" "real"; do
    tag=$(echo "$way$prob" | tr -dc 'a-z0-9')
    nv=120; [ $way = 3 ] && nv=28
    case $prob in
      real) P="--input $DATA/czek_real_200x500_f64.bin --num-field 500 --num-vector $nv"; tol="--tol-rel 1e-12" ;;
      *czekanowski*single*) P="--metric $prob --synthetic random --num-vector $nv --num-field 300"; tol="" ;;
      *) P="--metric $prob --synthetic random --num-vector $nv --num-field 300"; tol="" ;;
    esac
    P="$P --num-way $way --block-size 16 --quiet"
    # shellcheck disable=SC2086
    STARPU_NOPENCL=0 run_ok "cpu only $tag" "$STARMET" compute $P --output "$T/cpu_$tag"
    for sched in dmda eager; do
      for mem in "" 1; do
        o=$T/het_${tag}_$sched$mem
        # shellcheck disable=SC2086
        STARPU_LIMIT_OPENCL_MEM=$mem run_ok "cpu+opencl $tag $sched mem=$mem" \
          "$STARMET" compute $P --sched $sched --output "$o"
        # shellcheck disable=SC2086
        same "cpu+opencl $tag $sched mem=$mem vs cpu" $tol "$T/cpu_$tag.tsv" "$o.tsv"
      done
    done
    o=$T/acc_$tag
    # shellcheck disable=SC2086
    run_ok "opencl only $tag" "$STARMET" compute $P --devices accel --sched dmda --output "$o"
    # shellcheck disable=SC2086
    same "opencl only $tag vs cpu" $tol "$T/cpu_$tag.tsv" "$o.tsv"
    [ "$(opencl_tasks "$o.json")" -gt 0 ] && pass || fail "$tag: no task ran on the OpenCL worker"
    [ "$(bytes "$o.json")" -gt 0 ] && pass || fail "$tag: no bytes moved to the OpenCL memory node"
    # heteroprio: each bucket (a kind of task) has one set of worker types,
    # so the reductions and finalize stay on the CPU, the products on OpenCL
    case $prob in ccc*) ;; *) continue ;; esac
    o=$T/hp_$tag
    # shellcheck disable=SC2086
    run_ok "heteroprio opencl only $tag" "$STARMET" compute $P --devices accel --sched heteroprio \
      --output "$o"
    same "heteroprio opencl only $tag vs cpu" "$T/cpu_$tag.tsv" "$o.tsv"
    [ "$(opencl_tasks "$o.json")" -gt 0 ] && pass || fail "$tag heteroprio: no task on OpenCL"
  done
done
# what heteroprio cannot do with the products on accelerators only
P="--metric ccc --synthetic random --num-vector 30 --num-field 100"
# shellcheck disable=SC2086
expect_error "heteroprio, one bucket" "--no-priorities \\(one bucket" "$T/hb.tsv" "$STARMET" \
  compute $P --devices accel --sched heteroprio --no-priorities --output "$T/hb"
# --verify's check tasks have a CPU bucket of their own (the first): the
# products stay on OpenCL, the injected faults are caught and the values
# are the CPU run's; StarPU 1.4's task retry would re-run a failed product
# on a CPU, in the products' bucket: refused
# shellcheck disable=SC2086
run_ok "heteroprio, cpu" "$STARMET" compute $P --devices cpu --output "$T/hc"
# shellcheck disable=SC2086
run_ok "heteroprio, verify by check tasks" "$STARMET" compute $P --devices accel \
  --sched heteroprio --verify --retry check --inject-faults 0.5,3 --output "$T/hv" \
  --summary "$T/hv.json"
same "heteroprio, verify by check tasks vs cpu" "$T/hc.tsv" "$T/hv.tsv"
[ "$(opencl_tasks "$T/hv.json")" -gt 0 ] && pass || fail "heteroprio, verify: no task on OpenCL"
inj=$(sed -n 's/.*"faults_injected": \([0-9]*\).*/\1/p' "$T/hv.json")
[ "${inj:-0}" -gt 0 ] && pass || fail "heteroprio, verify: no fault injected"
# shellcheck disable=SC2086
if "$STARMET" compute $P --devices accel --sched heteroprio --verify --retry runtime \
  --output "$T/hr" > "$T/log.out" 2> "$T/log.err"; then
  fail "heteroprio, --retry runtime: accepted"
elif grep -q "task retry needs StarPU 1.4" "$T/log.err"; then
  pass # StarPU 1.3: no runtime retry at all
else
  grep -q "heteroprio: --verify (its retries may run on CPUs)" "$T/log.err" && pass ||
    fail "heteroprio, --retry runtime: $(cat "$T/log.err")"
fi

# No OpenCL device asked for (PoCL alone, without STARPU_OPENCL_ON_CPUS):
# the loader is pointed at no vendors, so neither StarPU nor hwloc loads
# PoCL (and LLVM); a user's OCL_ICD_VENDORS is kept, and then it loads.
pocl_loaded() {
  env -u STARPU_OPENCL_ON_CPUS -u STARPU_NOPENCL LD_DEBUG=files "$@" "$STARMET" compute \
    --metric ccc --synthetic random --num-vector 8 --num-field 20 --quiet \
    --output "$T/nopocl" 2>&1 | grep -c "file=libpocl"
}
n=$(pocl_loaded env -u OCL_ICD_VENDORS)
[ "$n" = 0 ] && pass || fail "no OpenCL device asked for: PoCL still loaded ($n)"
n=$(pocl_loaded env OCL_ICD_VENDORS=/etc/OpenCL/vendors)
[ "$n" -gt 0 ] && pass || fail "the user's OCL_ICD_VENDORS: PoCL not loaded"
finish
