#!/bin/sh
# setup_gpu_check.sh: the decisions of scripts/setup-gpu's toolchain check,
# driven by a fake nvidia-smi first in PATH and fake toolkits (a bin/nvcc
# that prints CUDA 13.0's or 12.4's version banner and architecture list):
# a V100 with CUDA 13 is refused naming CUDA 12.x, an A100 with a driver too
# old for the toolkit naming NVIDIA's minimum driver, an H100 with a recent
# driver and CUDA 13 and a V100 with CUDA 12.4 are accepted; a build's GPU
# code must cover each GPU (SASS of its major version or older PTX); no
# nvidia-smi, a failing one, no toolkit each give their documented exit
# status; and with the real toolkit, when this build has one.
. "$(dirname "$0")/../lib.sh"
SETUP=$top_srcdir/scripts/setup-gpu

# ---- fakes
mkdir -p "$T/bin" "$T/nosmi"
cat > "$T/bin/nvidia-smi" << 'EOF'
#!/bin/sh
# the few queries scripts/setup-gpu makes, answered from $FAKE_SMI
case ${FAKE_SMI_MODE:-} in
  fail) echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2; exit 9 ;;
esac
case "$*" in
  "--query-gpu=name,driver_version,compute_cap --format=csv,noheader")
    if [ "${FAKE_SMI_MODE:-}" = nocap ]; then
      echo 'Field "compute_cap" is not a valid field to query.' >&2; exit 2
    fi
    cat "$FAKE_SMI" ;;
  "--query-gpu=name,driver_version --format=csv,noheader") cut -d, -f1,2 "$FAKE_SMI" ;;
  *) echo "fake nvidia-smi: unexpected arguments: $*" >&2; exit 2 ;;
esac
EOF
# fake_cuda DIR RELEASE ARCH...: a toolkit whose nvcc says so
fake_cuda() {
  mkdir -p "$1/bin"
  d=$1 rel=$2
  shift 2
  {
    echo '#!/bin/sh'
    echo 'case $1 in'
    echo "  --version) printf 'nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\nCuda compilation tools, release $rel, V$rel.99\nBuild cuda_$rel.r$rel/compiler.0_0\n' ;;"
    printf '  --list-gpu-arch) printf "'
    for n; do printf 'compute_%s\\n' "$n"; done
    echo '" ;;'
    echo '  *) echo "fake nvcc: $*" >&2; exit 1 ;;'
    echo 'esac'
  } > "$d/bin/nvcc"
  chmod +x "$d/bin/nvcc"
}
chmod +x "$T/bin/nvidia-smi"
# a toolkit without --list-gpu-arch, whose --help names its architectures
mkdir -p "$T/cuda-11.0/bin"
cat > "$T/cuda-11.0/bin/nvcc" << 'EOF'
#!/bin/sh
case $1 in
  --version) printf 'Cuda compilation tools, release 11.0, V11.0.194\n' ;;
  --help) printf -- "--gpu-architecture <arch>  (-arch)\n        Allowed values for this option:  'compute_35','compute_37',\n        'compute_52','compute_70','compute_75','compute_80','sm_35','sm_80'.\n" ;;
  *) echo "nvcc fatal   : Unknown option '$1'" >&2; exit 1 ;;
esac
EOF
chmod +x "$T/cuda-11.0/bin/nvcc"
CUDA13=$T/cuda-13.0
CUDA124=$T/cuda-12.4
fake_cuda "$CUDA13" 13.0 75 80 86 87 88 89 90 100 103 110 120 121
fake_cuda "$CUDA124" 12.4 50 52 53 60 61 62 70 72 75 80 86 87 89 90
# fake_build DIR CODE: a build tree whose config.h records CODE ("none":
# no CUDA codelets)
fake_build() {
  mkdir -p "$1"
  if [ "$2" = none ]; then echo '#define SM_HAVE_STARPU_MPI 1' > "$1/config.h"; else
    printf '#define SM_USE_CUDA 1\n#define SM_CUDA_ARCHS "%s"\n' "$2" > "$1/config.h"
  fi
}
fake_build "$T/b13" "sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120"
fake_build "$T/b12" "sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 compute_90"
fake_build "$T/b90" "sm_90"
fake_build "$T/b80ptx" "sm_80 compute_80"
fake_build "$T/bcpu" none

# check EXPECTED-STATUS NAME CUDA_HOME GPUS(lines, "|" between) [ARGS...]:
# scripts/setup-gpu --check ARGS with those GPUs; its output in $T/out
check() {
  want=$1 name=$2 cuda=$3 gpus=$4
  shift 4
  printf '%s\n' "$gpus" | tr '|' '\n' > "$T/smi.csv"
  env PATH="$T/bin:$PATH" FAKE_SMI="$T/smi.csv" CUDA_HOME="$cuda" "$SETUP" --check "$@" \
    > "$T/out" 2>&1
  got=$?
  [ "$got" -eq "$want" ] && pass || { fail "$name: exit $got, not $want"; cat "$T/out" >&2; }
}
# says PATTERN NAME: the last check's output matches PATTERN
says() {
  grep -Eq -- "$1" "$T/out" && pass || { fail "$2: no /$1/ in:"; cat "$T/out" >&2; }
}
V100="Tesla V100-SXM2-16GB, 580.82.07, 7.0"
A100_OLD="NVIDIA A100-SXM4-40GB, 535.104.05, 8.0"
H100="NVIDIA H100 80GB HBM3, 580.82.07, 9.0"

# the Debian release the refusals' second way out depends on (the default
# for every check: one without it)
printf 'ID=debian\nVERSION_CODENAME=bookworm\n' > "$T/os-12"
printf 'ID=debian\nVERSION_CODENAME=trixie\n' > "$T/os-13"
STARMET_OS_RELEASE=$T/os-13
# and no NVIDIA GPU on the PCI bus, whatever this machine has
STARMET_PCI_DEVICES=$T/no-such-dir
export STARMET_OS_RELEASE STARMET_PCI_DEVICES
# no_contrib NAME: the last check's output offers no contrib build
no_contrib() { grep -q "setup-gpu contrib" "$T/out" && { fail "$1: offers the contrib build"; cat "$T/out" >&2; } || pass; }

# ---- the toolkit and the GPUs
check 4 "V100 + CUDA 13" "$CUDA13" "$V100" --build none
says "refused: GPU 0 \(Tesla V100-SXM2-16GB, sm_70\) is older than every architecture CUDA 13.0 targets \(sm_75 and newer\): use a CUDA 12.x toolkit: CUDA_HOME=/usr/local/cuda-12.x scripts/setup-gpu" "V100 + CUDA 13"
check 3 "A100 + driver 535 + CUDA 13" "$CUDA13" "$A100_OLD" --build none
says "refused: driver 535.104.05 is older than CUDA 13.0 needs \(>= 580, NVIDIA's minimum for CUDA 13.x\): update the NVIDIA driver to 580 or newer, or use a CUDA 12.x toolkit, which this driver runs" "A100 + old driver"
check 3 "A100 + driver 470 + CUDA 12.4" "$CUDA124" "NVIDIA A100-SXM4-40GB, 470.57.02, 8.0" --build none
says "driver 470.57.02 is older than CUDA 12.4 needs \(>= 525.60.13" "A100 + driver 470 + CUDA 12.4"
check 0 "H100 + driver 580 + CUDA 13" "$CUDA13" "$H100" --build none
says "^fit: CUDA 13.0, driver 580.82.07, 1 GPU\(s\)$" "H100 accepted"
says "^GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0 \(sm_90\), driver 580.82.07$" "H100 described"
check 0 "V100 + CUDA 12.4" "$CUDA124" "Tesla V100-SXM2-16GB, 550.54.15, 7.0" --build none
says "^toolkit: CUDA 12.4 \(.*cuda-12.4/bin/nvcc\): sm_50 to sm_90; driver >= 525.60.13$" "the CUDA 12.4 toolkit"
says "^fit: CUDA 12.4" "V100 + CUDA 12.4 accepted"
no_contrib "V100 + CUDA 13 off Debian 12"
# on Debian 12, Debian's CUDA 11.8 (sm_35 to sm_90, drivers from
# 450.80.02) is the second way out, when it fits
STARMET_OS_RELEASE=$T/os-12
check 4 "V100 + CUDA 13 on Debian 12" "$CUDA13" "$V100" --build none
says "use a CUDA 12.x toolkit: CUDA_HOME=/usr/local/cuda-12.x scripts/setup-gpu; or, on this Debian 12, Debian's CUDA 11.8 with its CUDA-enabled StarPU 1.3: scripts/setup-gpu contrib$" "V100 + CUDA 13 on Debian 12"
check 3 "A100 + driver 535 + CUDA 13 on Debian 12" "$CUDA13" "$A100_OLD" --build none
says "which this driver runs: CUDA_HOME=/usr/local/cuda-12.x scripts/setup-gpu; or, on this Debian 12, .*scripts/setup-gpu contrib$" "A100 + old driver on Debian 12"
check 3 "A100 + driver 470 + CUDA 12.4 on Debian 12" "$CUDA124" "NVIDIA A100-SXM4-40GB, 470.57.02, 8.0" --build none
says "scripts/setup-gpu contrib$" "A100 + driver 470 + CUDA 12.4 on Debian 12"
check 3 "K80 + driver 440 + CUDA 13 on Debian 12" "$CUDA13" "Tesla K80, 440.33.01, 3.7" --build none
says "GPU 0 \(Tesla K80, sm_37\) is older" "K80 refused on Debian 12"
no_contrib "K80 + driver 440 (older than CUDA 11.8's minimum)"
check 4 "Kepler sm_30 + CUDA 13 on Debian 12" "$CUDA13" "Tesla K10, 580.82.07, 3.0" --build none
no_contrib "sm_30 (older than CUDA 11.8's sm_35)"
STARMET_OS_RELEASE=$T/os-13
check 0 "A100 + CUDA 11.0 (architectures from --help)" "$T/cuda-11.0" \
  "NVIDIA A100-SXM4-40GB, 450.80.02, 8.0" --build none
says "^toolkit: CUDA 11.0 \(.*\): sm_35 to sm_80; driver >= 450.80.02$" "CUDA 11.0's architectures"
# a mixed node: the GPU the toolkit cannot target is named
check 4 "H100 + V100 + CUDA 13" "$CUDA13" "$H100|$V100" --build none
says "refused: GPU 1 \(Tesla V100" "mixed node"
# a GPU newer than the toolkit runs the newest PTX
check 0 "RTX 5090 + CUDA 12.4" "$CUDA124" "NVIDIA GeForce RTX 5090, 580.82.07, 12.0" --build none
says "newer than every architecture CUDA 12.4 targets: it runs the PTX of sm_90" "newer GPU"
# a driver too old to report the compute capability: said, not guessed
export FAKE_SMI_MODE=nocap
check 0 "driver without compute_cap" "$CUDA124" "Tesla V100-SXM2-16GB, 550.54.15, 7.0" --build none
says "^GPU 0: Tesla V100-SXM2-16GB, compute capability \?, driver 550.54.15$" "unknown compute capability"
says "its compute capability is unknown" "unknown compute capability noted"
unset FAKE_SMI_MODE

# ---- a build's GPU code must cover each GPU
check 0 "H100 on the CUDA 13 default" "$CUDA13" "$H100" --build "$T/b13"
says "^build: .*/b13: sm_75 sm_80" "the build's code is printed"
check 0 "A10 (8.6) on the CUDA 13 default" "$CUDA13" "NVIDIA A10, 580.82.07, 8.6" --build "$T/b13"
check 0 "Orin-like 8.7 on sm_86 SASS" "$CUDA13" "Orin, 580.82.07, 8.7" --build "$T/b13"
check 0 "RTX 5090 on the CUDA 13 default" "$CUDA13" "NVIDIA GeForce RTX 5090, 580.82.07, 12.0" --build "$T/b13"
check 0 "H100 on sm_80 + compute_80 (PTX)" "$CUDA13" "$H100" --build "$T/b80ptx"
check 5 "A100 on sm_90 only" "$CUDA13" "NVIDIA A100-SXM4-40GB, 580.82.07, 8.0" --build "$T/b90"
says "refused: .*/b90 has no GPU code for GPU 0 \(NVIDIA A100-SXM4-40GB, sm_80\): its code \(sm_90\) has neither SASS of sm_8x up to sm_80 nor PTX up to compute_80; rebuild with the default GPU code of CUDA 13.0 \(sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120\): unset NVCC_ARCH_FLAGS" "A100 on sm_90"
check 5 "V100 + CUDA 12.4 on a CUDA 13 build" "$CUDA124" "Tesla V100-SXM2-16GB, 550.54.15, 7.0" --build "$T/b13"
says "rebuild with the default GPU code of CUDA 12.4 \(sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 compute_90\): unset NVCC_ARCH_FLAGS and run CUDA_HOME=$CUDA124 scripts/setup-gpu" "V100 rebuild with CUDA 12.4"
check 0 "V100 + CUDA 12.4 on a CUDA 12.4 build" "$CUDA124" "Tesla V100-SXM2-16GB, 550.54.15, 7.0" --build "$T/b12"
check 5 "Pascal + CUDA 12.4 on its default" "$CUDA124" "Tesla P100, 550.54.15, 6.0" --build "$T/b12"
says "rebuild with code for it: NVCC_ARCH_FLAGS=\"-gencode arch=compute_60,code=sm_60\" CUDA_HOME=" "Pascal rebuild"
check 5 "a build without CUDA codelets" "$CUDA13" "$H100" --build "$T/bcpu"
says "has no CUDA codelets: build them with scripts/setup-gpu" "no CUDA codelets"
check 0 "no build yet" "$CUDA13" "$H100" --build "$T/nothing"
says "^build: none in .*/nothing yet$" "no build yet"

# ---- no GPU, no driver, no toolkit
for tool in sh dash bash sed awk sort tr head tail grep cat cut env dirname basename readlink \
  printf mktemp rm uname; do
  p=$(command -v "$tool" 2> /dev/null) && case $p in /*) ln -sf "$p" "$T/nosmi/$tool" ;; esac
done
env PATH="$T/nosmi" CUDA_HOME="$CUDA13" "$SETUP" --check --build none > "$T/out" 2>&1
got=$?
[ $got -eq 6 ] && pass || { fail "no nvidia-smi: exit $got, not 6"; cat "$T/out" >&2; }
says "^no NVIDIA driver/GPU found \(no nvidia-smi in PATH\)$" "no nvidia-smi"
says "^toolkit: CUDA 13.0 " "no nvidia-smi: the toolkit is still checked"
export FAKE_SMI_MODE=fail
check 6 "nvidia-smi fails" "$CUDA13" "$H100" --build none
says "no NVIDIA driver/GPU found \(nvidia-smi: NVIDIA-SMI has failed" "failing nvidia-smi"
unset FAKE_SMI_MODE
check 6 "an empty GPU list" "$CUDA13" "" --build none
says "no NVIDIA driver/GPU found \(nvidia-smi lists no GPU\)$" "an empty GPU list"
# the same with an NVIDIA GPU on the PCI bus (and its audio function): the
# driver is named as what to repair
mkdir -p "$T/pci/0000:3b:00.0" "$T/pci/0000:3b:00.1"
echo 0x10de | tee "$T/pci/0000:3b:00.0/vendor" > "$T/pci/0000:3b:00.1/vendor"
echo 0x030200 > "$T/pci/0000:3b:00.0/class"
echo 0x040300 > "$T/pci/0000:3b:00.1/class"
STARMET_PCI_DEVICES=$T/pci
export STARMET_PCI_DEVICES FAKE_SMI_MODE=fail
check 6 "nvidia-smi fails, a GPU on the bus" "$CUDA13" "$H100" --build none
says "no NVIDIA driver/GPU found \(nvidia-smi: NVIDIA-SMI has failed.*\), but the PCI bus lists 1 NVIDIA GPU\(s\): install or repair the NVIDIA driver" \
  "failing nvidia-smi, a GPU on the bus"
unset FAKE_SMI_MODE
env PATH="$T/nosmi" CUDA_HOME="$CUDA13" "$SETUP" --check --build none > "$T/out" 2>&1
says "^no NVIDIA driver/GPU found \(no nvidia-smi in PATH\), but the PCI bus lists 1 NVIDIA GPU" \
  "no nvidia-smi, a GPU on the bus"
STARMET_PCI_DEVICES=$T/no-such-dir
check 2 "no toolkit" "$T/no-such-cuda" "$H100" --build none
says "no CUDA toolkit: no nvcc in .*/no-such-cuda/bin" "no toolkit"
check 1 "a bad argument" "$CUDA13" "$H100" --bogus
# the build mode checks first: a mismatch stops before anything is built
# (a copy of the script, beside a setup-starpu that only says it ran)
mkdir -p "$T/root/scripts"
cp "$SETUP" "$T/root/scripts/setup-gpu"
printf '#!/bin/sh\necho "setup-starpu $* CUDA_HOME=$CUDA_HOME" > "%s/built"\n' "$T" \
  > "$T/root/scripts/setup-starpu"
chmod +x "$T/root/scripts/setup-starpu"
printf '%s\n' "$V100" > "$T/smi.csv"
env PATH="$T/bin:$PATH" FAKE_SMI="$T/smi.csv" CUDA_HOME="$CUDA13" "$T/root/scripts/setup-gpu" \
  > "$T/out" 2>&1
got=$?
[ $got -eq 4 ] && [ ! -e "$T/built" ] && pass ||
  { fail "setup-gpu (build) with a V100 and CUDA 13: exit $got, not 4 before building"; cat "$T/out" >&2; }
# with no GPU it builds, for the toolkit given (CUDA_HOME passed on)
env PATH="$T/nosmi" CUDA_HOME="$CUDA124" "$T/root/scripts/setup-gpu" --no-starmet > "$T/out" 2>&1
got=$?
[ $got -eq 0 ] && [ "$(cat "$T/built" 2> /dev/null)" = "setup-starpu 1.4 --no-starmet CUDA_HOME=$CUDA124" ] &&
  pass ||
  { fail "setup-gpu (build) without a GPU: exit $got, setup-starpu $(cat "$T/built" 2> /dev/null)"; cat "$T/out" >&2; }
says "no GPU here: building anyway" "build without a GPU"

# ---- the real toolkit of this build, if any (no GPU here: exit 6)
nvcc=$(sed -n 's/^NVCC = //p' "$top_builddir/Makefile" | head -n 1)
if [ -n "$nvcc" ]; then
  rel=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  env PATH="$T/nosmi" CUDA_HOME="${nvcc%/bin/nvcc}" "$SETUP" --check --build none > "$T/out" 2>&1
  got=$?
  [ $got -eq 6 ] && pass || { fail "real toolkit, no GPU: exit $got, not 6"; cat "$T/out" >&2; }
  says "^toolkit: CUDA $rel \($nvcc\): sm_[0-9]+ to sm_[0-9]+; driver >= " "the real toolkit"
  head -n 1 "$T/out"
else
  skip_part "no CUDA toolkit in this build: the real toolkit's line"
fi
finish
