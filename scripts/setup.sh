# setup.sh: shared by scripts/check and scripts/demo (sourced, POSIX sh).
# Installs the Debian packages starmet needs when they are missing, then
# configures and builds out of tree in $BUILD_DIR (default: _build).

SM_PACKAGES="gcc make autoconf automake pkg-config libstarpu-dev libopenmpi-dev openmpi-bin
libhwloc-dev ocl-icd-opencl-dev pocl-opencl-icd oclgrind check zlib1g-dev clang libclang-rt-14-dev libhts-dev libhdf5-dev python3 python3-numpy python3-scipy
python3-h5py python3-biom-format python3-skbio
gnuplot-nox clang-format man-db groff-base r-base-core r-cran-vegan plink1.9 bcftools vite"

sm_root=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$sm_root/_build}

sm_installed() { dpkg-query -W -f='${Status}' "$1" 2> /dev/null | grep -q "install ok installed"; }

sm_install_deps() {
  missing=""
  for p in $SM_PACKAGES; do
    # Debian 12's CUDA-enabled StarPU (scripts/setup-gpu contrib) conflicts
    # with libstarpu-dev and provides the same starpu-1.3: installing
    # libstarpu-dev would remove it
    [ "$p" = libstarpu-dev ] && sm_installed libstarpu-contrib-dev && continue
    sm_installed "$p" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "== installing:$missing"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo > /dev/null; then sudo=sudo; else
    echo "error: missing packages:$missing (run as root or install them)" >&2; exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get -o DPkg::Lock::Timeout=300 update -q
  # shellcheck disable=SC2086
  $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends $missing
}

sm_build() {
  # caches of StarPU (performance models) and PoCL stay in the build tree
  export STARPU_HOME="$BUILD_DIR/.cache/starpu"
  export POCL_CACHE_DIR="$BUILD_DIR/.cache/pocl"
  mkdir -p "$STARPU_HOME" "$POCL_CACHE_DIR"
  if [ ! -x "$sm_root/configure" ] || [ "$sm_root/configure.ac" -nt "$sm_root/configure" ] ||
     [ "$sm_root/Makefile.am" -nt "$sm_root/Makefile.in" ]; then
    echo "== autoreconf"
    (cd "$sm_root" && autoreconf -fi)
  fi
  mkdir -p "$BUILD_DIR"
  cd "$BUILD_DIR"
  if [ ! -f Makefile ] || [ "$sm_root/configure" -nt Makefile ]; then
    echo "== configure"
    "$sm_root/configure" $SM_CONFIGURE_FLAGS
  fi
  echo "== make"
  make -j"$(nproc)"
}
