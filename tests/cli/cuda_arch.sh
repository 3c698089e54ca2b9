#!/bin/sh
# cuda_arch.sh: the GPU code in a CUDA build is what configure chose. The
# built starmet holds exactly the SASS and PTX of SM_CUDA_ARCHS (config.h,
# the Makefile), and `starmet --version` names the same; a build
# configured with NVCC_ARCH_FLAGS (a scratch directory, one .cu object)
# holds that code only; the default depends on the toolkit; configure
# refuses an architecture the toolkit cannot target, naming the fix. A
# build with nvcc but without StarPU's CUDA checks all but the binary.
# The code is listed by cuobjdump when the toolkit has it, else by
# tests/tools/fatbin_archs.py (the fat binary's headers), and by both,
# compared, when both are there. Skipped without nvcc.
. "$(dirname "$0")/../lib.sh"

mk_var() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1; }
NVCC=$(mk_var NVCC)
CUDA_PREFIX=$(mk_var CUDA_PREFIX)
if [ -z "$NVCC" ]; then
  echo "no nvcc in this build: skipped"
  exit 77
fi

# the GPU code of FILE, one line: "sm_75 ... compute_120"
CUOBJDUMP=""
for c in "$CUDA_PREFIX/bin/cuobjdump" "$(command -v cuobjdump 2> /dev/null || true)"; do
  [ -n "$c" ] && [ -x "$c" ] && { CUOBJDUMP=$c; break; }
done
by_cuobjdump() {
  { "$CUOBJDUMP" --list-elf "$1" | sed -n 's/.*\.\(sm_[0-9]*[a-z]*\)\.cubin$/\1/p' | sort -t_ -k2,2n -u
    "$CUOBJDUMP" --list-ptx "$1" | sed -n 's/.*\.sm_\([0-9]*[a-z]*\)\.ptx$/compute_\1/p' |
      sort -t_ -k2,2n -u; } | tr '\n' ' ' | sed 's/ *$//'
}
by_headers() { python3 "$top_srcdir/tests/tools/fatbin_archs.py" "$1" | tr '\n' ' ' | sed 's/ *$//'; }
gpu_code() {
  if [ -n "$CUOBJDUMP" ]; then
    a=$(by_cuobjdump "$1")
    if command -v python3 > /dev/null; then
      b=$(by_headers "$1")
      [ "$a" = "$b" ] && pass || fail "$1: cuobjdump lists '$a', fatbin_archs.py '$b'"
    fi
    echo "$a"
  else
    by_headers "$1"
  fi
}
if [ -n "$CUOBJDUMP" ]; then
  echo "listing GPU code with $CUOBJDUMP"
elif command -v python3 > /dev/null; then
  echo "no cuobjdump in this toolkit: listing GPU code with tests/tools/fatbin_archs.py"
else
  echo "neither cuobjdump nor python3: the GPU code cannot be listed: skipped"
  exit 77
fi

# ---- the built starmet: exactly the code configure chose
if grep -q "define SM_USE_CUDA 1" "$top_builddir/config.h"; then
  want=$(sed -n 's/^#define SM_CUDA_ARCHS "\(.*\)"$/\1/p' "$top_builddir/config.h")
  [ -n "$want" ] && pass || fail "config.h records no SM_CUDA_ARCHS"
  [ "$(mk_var SM_CUDA_ARCHS)" = "$want" ] && pass ||
    fail "the Makefile's SM_CUDA_ARCHS '$(mk_var SM_CUDA_ARCHS)' differs from config.h's '$want'"
  have=$(gpu_code "$STARMET")
  [ "$have" = "$want" ] && pass || fail "starmet holds '$have', configure chose '$want'"
  # every kernel object alike (each was compiled with the same flags)
  for o in "$top_builddir"/codelets/cuda/kern_*.o; do
    case $o in *.check.o) continue ;; esac
    [ "$(gpu_code "$o")" = "$want" ] && pass || fail "$o holds '$(gpu_code "$o")', not '$want'"
  done
  said=$("$STARMET" --version | sed -n 's/^CUDA architectures: \(.*\) (CUDA \([0-9.]*\))$/\1/p')
  [ "$said" = "$want" ] && pass || fail "starmet --version names '$said', the binary holds '$want'"
  rel=$("$NVCC" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  "$STARMET" --version | grep -qx "CUDA architectures: .* (CUDA $rel)" && pass ||
    fail "starmet --version does not name the toolkit CUDA $rel"
  echo "starmet holds: $have (CUDA $rel)"
else
  # nvcc without StarPU's CUDA: the binary has no GPU code (the .cu files
  # are still compiled by make check), and --version names none
  echo "not a CUDA build (no SM_USE_CUDA in config.h): the binary's GPU code is not checked"
  "$STARMET" --version | grep -q "^CUDA architectures" &&
    fail "--version names CUDA code in a build without it" || pass
fi

# ---- NVCC_ARCH_FLAGS is honoured: a scratch build configured as this one,
# with sm_80 only, and one .cu object compiled there
eval "set -- $("$top_builddir/config.status" --config)"
n=$#
while [ "$n" -gt 0 ]; do
  a=$1
  shift
  case $a in NVCC_ARCH_FLAGS=* | --with-cuda=* | --without-cuda) ;; *) set -- "$@" "$a" ;; esac
  n=$((n - 1))
done
mkdir -p "$T/b80/codelets/cuda"
start=$(date +%s)
if (cd "$T/b80" && "$top_srcdir/configure" "$@" --with-cuda="$CUDA_PREFIX" \
  NVCC_ARCH_FLAGS="-gencode arch=compute_80,code=sm_80" > configure.out 2>&1); then
  pass
  grep -q "GPU code compiled in.*sm_80 (from NVCC_ARCH_FLAGS)" "$T/b80/configure.out" && pass ||
    fail "configure did not print the code chosen from NVCC_ARCH_FLAGS"
  grep -q '^NVCC_ARCH_FLAGS = -gencode arch=compute_80,code=sm_80$' "$T/b80/Makefile" && pass ||
    fail "the scratch Makefile's NVCC_ARCH_FLAGS is not the one given"
  grep -q '^#define SM_CUDA_ARCHS "sm_80"$' "$T/b80/config.h" && pass || fail "config.h does not record sm_80 alone"
  if make -C "$T/b80" codelets/cuda/kern_ccc2_gemm.o > "$T/b80/make.out" 2>&1; then
    got=$(gpu_code "$T/b80/codelets/cuda/kern_ccc2_gemm.o")
    [ "$got" = sm_80 ] && pass || fail "the sm_80-only object holds '$got'"
  else
    fail "nvcc failed in the scratch build"
    tail -n 20 "$T/b80/make.out" >&2
  fi
else
  fail "configure with NVCC_ARCH_FLAGS failed"
  tail -n 20 "$T/b80/configure.out" >&2
fi
echo "NVCC_ARCH_FLAGS check: $(($(date +%s) - start)) s"

# ---- the default depends on the toolkit: fake toolkits (an nvcc that
# prints a version banner and its architectures) give the table of
# docs/gpus.md
fake_cuda() { # DIR RELEASE ARCH...
  mkdir -p "$1/bin"
  d=$1 rel=$2
  shift 2
  printf '#!/bin/sh\ncase $1 in\n--version) echo "Cuda compilation tools, release %s, V%s.1" ;;\n--list-gpu-arch) printf "%s" ;;\n*) exit 1 ;;\nesac\n' \
    "$rel" "$rel" "$(for n; do printf 'compute_%s\\n' "$n"; done)" > "$d/bin/nvcc"
  chmod +x "$d/bin/nvcc"
}
fake_cuda "$T/cuda-12.4" 12.4 50 52 53 60 61 62 70 72 75 80 86 87 89 90
fake_cuda "$T/cuda-12.8" 12.8 50 52 53 60 61 62 70 72 75 80 86 87 89 90 100 101 120
fake_cuda "$T/cuda-13.0" 13.0 75 80 86 87 88 89 90 100 103 110 120 121
for t in "12.4:sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 compute_90" \
  "12.8:sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120" \
  "13.0:sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120"; do
  rel=${t%%:*} code=${t#*:}
  mkdir -p "$T/d$rel"
  (cd "$T/d$rel" && "$top_srcdir/configure" "$@" --with-cuda="$T/cuda-$rel" > configure.out 2>&1)
  grep -q "GPU code compiled in (SASS sm_NN, PTX compute_NN)... $code (default for CUDA $rel)$" \
    "$T/d$rel/configure.out" && pass ||
    fail "CUDA $rel: configure chose $(grep "GPU code compiled in" "$T/d$rel/configure.out"), not $code"
done

# ---- an architecture the toolkit cannot target: refused with the fix
archs=$("$NVCC" --list-gpu-arch | sed -n 's/^compute_//p' | tr '\n' ' ')
mkdir -p "$T/bad"
bad=21 # no CUDA 11 or newer targets Fermi
case " $archs " in *" 70 "*) ;; *) bad=70 ;; esac # CUDA 13: a V100
if (cd "$T/bad" && "$top_srcdir/configure" "$@" --with-cuda="$CUDA_PREFIX" \
  NVCC_ARCH_FLAGS="-gencode arch=compute_$bad,code=sm_$bad -gencode arch=compute_80,code=sm_80" \
  > configure.out 2>&1); then
  fail "configure accepted sm_$bad, which this toolkit cannot target"
else
  msg=$(grep "error:" "$T/bad/configure.out")
  echo "$msg" | grep -q "NVCC_ARCH_FLAGS names sm_$bad, which CUDA .* cannot target: drop it" && pass ||
    fail "configure's refusal of sm_$bad: $msg"
  if [ $bad = 70 ]; then
    echo "$msg" | grep -q "CUDA 12.x toolkit.*CUDA_HOME=/usr/local/cuda-12.x scripts/setup-gpu" && pass ||
      fail "the refusal of sm_70 does not point to a CUDA 12.x toolkit: $msg"
  fi
fi
finish
