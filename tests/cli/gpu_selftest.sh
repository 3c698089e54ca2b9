#!/bin/sh
# gpu_selftest.sh: scripts/gpu-selftest's verdicts, and the forcing of one
# implementation it relies on (STARMET_FORCE_IMPL).
#  - With a fake nvidia-smi claiming one GPU: against this build (StarPU
#    with no CUDA worker) a FAIL "no CUDA worker" (a build without CUDA
#    codelets: "no CUDA codelets"), never a skip; a starmet that hangs: a
#    FAIL naming the timeout; one that dies by SIGSEGV: a FAIL naming the
#    signal. nvidia-smi listing no GPU, or missing, and no NVIDIA GPU on
#    the PCI bus: exit 77 "no NVIDIA GPU"; an NVIDIA GPU on the bus that
#    nvidia-smi cannot list (no driver, a broken one): a FAIL.
#  - On PoCL's OpenCL device (--device opencl --quick): every check
#    passes, and every OpenCL implementation of every device codelet
#    --version lists is forced in a passing check; --expect summit judges
#    PoCL's rates against a V100's and FAILs them as too slow.
#  - STARMET_FORCE_IMPL: an unknown codelet, implementation or number is
#    an error at start; forcing the CPU or the OpenCL implementation puts
#    every task of that codelet on that worker type (the trace), with the
#    same values and checksum.
. "$(dirname "$0")/../lib.sh"
SELF=$top_srcdir/scripts/gpu-selftest

# ---- fake GPUs (no GPU is used: STARPU_NCUDA=0 everywhere here)
export STARPU_NCUDA=0
mkdir -p "$T/bin"
cat > "$T/bin/nvidia-smi" << 'EOF'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-00000000-0000-0000-0000-000000000000)" ;;
  *query-gpu=index*) echo "0, NVIDIA A100-SXM4-40GB, 8.0, 580.65.06, 40960 MiB" ;;
  *query-gpu=name,driver_version,compute_cap*) echo "NVIDIA A100-SXM4-40GB, 580.65.06, 8.0" ;;
  *) echo "NVIDIA-SMI 580.65.06 (fake)" ;;
esac
EOF
mkdir -p "$T/nogpu"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' > "$T/nogpu/nvidia-smi"
chmod +x "$T/bin/nvidia-smi" "$T/nogpu/nvidia-smi"

# selftest NAME EXPECTED-STATUS PATTERN ARGS...: the verdict and its line
selftest() {
  name=$1 want=$2 pattern=$3; shift 3
  "$SELF" "$@" > "$T/st.out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$name: exit $got, expected $want"; cat "$T/st.out" >&2
  elif ! grep -Eq -- "$pattern" "$T/st.out"; then
    fail "$name: no line matching /$pattern/"; cat "$T/st.out" >&2
  else pass; fi
}

# PCI buses: none with an NVIDIA GPU (the default here, whatever this
# machine has), and one with a data-centre GPU (3D controller) and its
# audio function
pci_dev() { # DIR VENDOR CLASS
  mkdir -p "$1"
  echo "$2" > "$1/vendor"
  echo "$3" > "$1/class"
}
pci_dev "$T/pci-none/0000:00:01.0" 0x8086 0x060000
pci_dev "$T/pci-nv/0000:00:01.0" 0x8086 0x060000
pci_dev "$T/pci-nv/0000:3b:00.0" 0x10de 0x030200
pci_dev "$T/pci-nv/0000:3b:00.1" 0x10de 0x040300
pci_dev "$T/pci-audio/0000:3b:00.1" 0x10de 0x040300
STARMET_PCI_DEVICES=$T/pci-none
export STARMET_PCI_DEVICES
mkdir -p "$T/nodriver" "$T/minbin"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn'"'"'t communicate with the NVIDIA driver."\nexit 9\n' \
  > "$T/nodriver/nvidia-smi"
chmod +x "$T/nodriver/nvidia-smi"
# a PATH without nvidia-smi, whatever this machine has
for t in dirname cat grep; do ln -s "$(command -v $t)" "$T/minbin/$t"; done

PATH="$T/nogpu:$PATH" selftest "nvidia-smi without GPUs" 77 "^no NVIDIA GPU: nothing tested"
PATH="$T/minbin" selftest "no nvidia-smi, no GPU" 77 "^no NVIDIA GPU: nothing tested \(no nvidia-smi in PATH\)"
STARMET_PCI_DEVICES=$T/pci-audio PATH="$T/nogpu:$PATH" selftest "an NVIDIA audio function only" 77 \
  "^no NVIDIA GPU: nothing tested"
# a GPU on the bus that the driver does not show: a FAIL, never a skip
STARMET_PCI_DEVICES=$T/pci-nv PATH="$T/nogpu:$PATH" selftest "a GPU nvidia-smi does not list" 1 \
  "^probe +FAIL +the PCI bus lists 1 NVIDIA GPU\(s\), but nvidia-smi -L: No devices were found: the NVIDIA driver"
STARMET_PCI_DEVICES=$T/pci-nv PATH="$T/nodriver:$PATH" selftest "a GPU and a broken driver" 1 \
  "^probe +FAIL +the PCI bus lists 1 NVIDIA GPU\(s\), but nvidia-smi -L: NVIDIA-SMI has failed"
STARMET_PCI_DEVICES=$T/pci-nv PATH="$T/minbin" selftest "a GPU and no driver" 1 \
  "^probe +FAIL +the PCI bus lists 1 NVIDIA GPU\(s\), but no nvidia-smi in PATH"
grep -q "nothing tested" "$T/st.out" && fail "a GPU without a driver reads as nothing tested"
STARMET_PCI_DEVICES=$T/pci-none
if grep -q "define SM_USE_CUDA 1" "$top_builddir/config.h" 2> /dev/null; then
  PATH="$T/bin:$PATH" selftest "a GPU and no CUDA worker" 1 \
    "^probe +FAIL +no CUDA worker: StarPU started none although nvidia-smi lists 1 GPU" \
    --build "$top_builddir" --timeout 120
else
  PATH="$T/bin:$PATH" selftest "a GPU and no CUDA codelets" 1 \
    "^probe +FAIL +.*has no CUDA codelets although this node has 1 GPU" --build "$top_builddir"
fi
grep -q "nothing tested" "$T/st.out" && fail "a GPU node's probe failure reads as nothing tested"

# fake builds: a starmet with CUDA codelets that hangs, and one that crashes
for kind in hang crash; do
  mkdir -p "$T/$kind/tests/tools"
  ln -s "$SMCMP" "$T/$kind/tests/tools/smcmp"
  {
    echo '#!/bin/sh'
    echo 'if [ "$1" = --version ]; then echo "  sm_ccc2            cpu cuda(cuda_ccc2 cuda_ccc2_gemm)"; exit 0; fi'
    if [ $kind = hang ]; then echo 'sleep 30'; else echo 'kill -s SEGV $$'; fi
  } > "$T/$kind/starmet"
  chmod +x "$T/$kind/starmet"
done
PATH="$T/bin:$PATH" selftest "a probe that hangs" 1 \
  "^probe +FAIL +a small run on every worker failed: no end after 2 s: timed out" \
  --build "$T/hang" --timeout 2
PATH="$T/bin:$PATH" selftest "a probe that crashes" 1 \
  "^probe +FAIL +a small run on every worker failed: killed by signal SIGSEGV" \
  --build "$T/crash" --timeout 60
selftest "a bad sanitizer" 2 "--sanitizer memcheck, racecheck" --sanitizer valgrind

# ---- PoCL: the self-test passes, every OpenCL implementation forced
export STARPU_HOME="$STARPU_HOME_OPENCL"
have_ocl=1
ocl_probe || have_ocl=0
if [ $have_ocl = 0 ]; then
  skip_part "no OpenCL device (install pocl-opencl-icd): the self-test on OpenCL"
else
  selftest "--device opencl --quick" 0 "^== PASS: [0-9]+ checks passed on OpenCL$" \
    --device opencl --quick --build "$top_builddir"
  cp "$T/st.out" "$T/ocl.out"
  cat "$T/ocl.out"
  "$STARMET" --version | sed -n 's/^  \(sm_[a-z0-9_]*\) .*opencl(\([^)]*\)).*/\1 \2/p' > "$T/impls"
  [ -s "$T/impls" ] || fail "--version lists no OpenCL implementation"
  while read -r cl impls; do
    for im in $impls; do
      grep -E "^[a-z0-9_]+ [0-9]+/[0-9]+ +PASS +\[" "$T/ocl.out" | grep -Fq "$cl=$im" && pass ||
        fail "no passing check forced $cl=$im"
    done
  done < "$T/impls"
  grep -q "^   sm_ccc2=ocl_ccc2 .*e+" "$T/ocl.out" && pass || fail "no measured rate of sm_ccc2"
  selftest "PoCL judged as a V100" 1 "^rate sm_ccc2=ocl_ccc2 +FAIL +more than 10x slower than summit" \
    --device opencl --quick --only tile2048 --expect summit --build "$top_builddir"
fi

# ---- STARMET_FORCE_IMPL
P="--metric ccc --synthetic random --num-vector 120 --num-field 300 --block-size 40"
P="$P --ccc-gemm popcount --quiet"
# shellcheck disable=SC2086
for bad in "sm_nosuch=cpu_ccc2|no codelet sm_nosuch" "sm_ccc2=ocl_nosuch|sm_ccc2 has no implementation ocl_nosuch" \
  "sm_ccc2:7|sm_ccc2 has no implementation number 7" "sm_ccc2|is not codelet=implementation" \
  "sm_ccc2=cpu_ccc2,ccc2=ocl_ccc2|sm_ccc2 is named twice"; do
  STARMET_FORCE_IMPL=${bad%%|*} expect_error "STARMET_FORCE_IMPL=${bad%%|*}" \
    "error: STARMET_FORCE_IMPL: .*${bad#*|}" "$T/bad.tsv" ocl "$STARMET" compute $P --output "$T/bad"
done
# shellcheck disable=SC2086
STARPU_NOPENCL=0 STARMET_FORCE_IMPL=sm_ccc2=ocl_ccc2 expect_error "no OpenCL worker" \
  "sm_ccc2=ocl_ccc2 runs on OpenCL workers and StarPU started none" "$T/bad.tsv" \
  "$STARMET" compute $P --output "$T/bad"
# shellcheck disable=SC2086
run_ok "unforced" ocl "$STARMET" compute $P --output "$T/free"
forced="cpu_ccc2:CPU"
[ $have_ocl = 0 ] || forced="$forced ocl_ccc2:OpenCL"
for f in $forced; do
  # shellcheck disable=SC2086
  STARMET_FORCE_IMPL=sm_ccc2=${f%%:*} run_ok "forced ${f%%:*}" ocl "$STARMET" compute $P \
    --output "$T/f_${f%%:*}" --trace "$T/f_${f%%:*}.csv"
  grep -q "STARMET_FORCE_IMPL sm_ccc2=${f%%:*}: 6 tasks ran it, 0 another implementation" \
    "$T/log.err" && pass || { fail "forced ${f%%:*}: the report"; cat "$T/log.err" >&2; }
  awk -F, -v w="${f#*:}" '$3 == "sm_ccc2" { n++; if (index($9, w) != 1) bad++ }
    END { exit !(n == 6 && !bad) }' "$T/f_${f%%:*}.csv" && pass ||
    fail "forced ${f%%:*}: sm_ccc2 tasks not all on ${f#*:} workers"
  same "forced ${f%%:*}: values" "$T/free.tsv" "$T/f_${f%%:*}.tsv"
  [ "$(cks "$T/free.json")" = "$(cks "$T/f_${f%%:*}.json")" ] && pass ||
    fail "forced ${f%%:*}: checksum"
done
finish
