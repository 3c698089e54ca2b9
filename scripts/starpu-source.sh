# starpu-source.sh: what scripts/setup-starpu, setup-gpu and setup-sim
# share (sourced, POSIX sh, by scripts in scripts/; the caller defines die):
# running as root, installing Debian packages, deb822 sources files, StarPU
# 1.4 source tarballs, building a StarPU into a prefix, and building starmet
# against it.

sm_root_dir=$(cd "$(dirname "$0")/.." && pwd)
sm_me="scripts/$(basename "$0")"

sm_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo > /dev/null; then sudo "$@"; else
    die "needs root for: $* (run as root, or install sudo)"
  fi
}

# Install the packages that are missing (apt-get update first if needed).
sm_apt_install() {
  missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "== installing:$missing"
  # shellcheck disable=SC2086
  sm_as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q \
    --no-install-recommends $missing ||
    { sm_as_root apt-get -o DPkg::Lock::Timeout=300 update -q &&
      sm_as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install \
        -y -q --no-install-recommends $missing; }
}

# Add a deb822 sources file (Debian 12 describes its sources in
# /etc/apt/sources.list.d/*.sources; /etc/apt/sources.list may not exist).
sm_add_sources() { # FILE TYPES COMPONENTS
  [ -f "$1" ] && return 0
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  printf 'Types: %s\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: %s\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$2" "$suite" "$3" > /tmp/starmet-sources.$$
  sm_as_root install -m 644 /tmp/starmet-sources.$$ "$1"
  rm -f /tmp/starmet-sources.$$
  sm_as_root apt-get -o DPkg::Lock::Timeout=300 update -q
}

# The directory of PREFIX's starpu-SERIES.pc (lib, lib64 or Debian's
# multiarch lib/<triplet>), printed; fails when there is none.
sm_starpu_pc_dir() { # PREFIX SERIES
  for d in "$1/lib/pkgconfig" "$1/lib64/pkgconfig" "$1"/lib/*-linux-gnu/pkgconfig; do
    [ -f "$d/starpu-$2.pc" ] && { echo "$d"; return 0; }
  done
  return 1
}

# Debian 13's source of StarPU 1.4 (the orig tarball of starpu 1.4.7+dfsg-2,
# as listed in trixie's Sources index with this sha256).
SM_DEBIAN13_STARPU=starpu_1.4.7+dfsg.orig.tar.gz
SM_DEBIAN13_STARPU_SHA256=3e310ee8742307fec981ca0d83f14a974507f47f5ba589041c9aaf6d0b93b250

# The StarPU 1.4 source tarball to build, printed: the one given, else
# $STARMET_STARPU_TARBALL, else one beside the project (../shared/vendor/,
# checked against the sha256 its README gives), else Debian 13's, fetched
# into /var/cache/starmet/.
sm_starpu14_tarball() { # [TARBALL]
  t=${1:-${STARMET_STARPU_TARBALL:-}}
  if [ -n "$t" ]; then
    [ -f "$t" ] || { echo "$sm_me: $t: no such StarPU tarball" >&2; return 1; }
    echo "$t"
    return 0
  fi
  for v in "$sm_root_dir/../shared/vendor"; do
    for t in "$v"/starpu-1.4.*.tar.*; do
      [ -f "$t" ] || continue
      sum=$(grep -o "$(basename "$t").*" "$v/README.md" 2> /dev/null | grep -oE '[0-9a-f]{64}' | head -n 1)
      if [ -n "$sum" ] && [ "$(sha256sum < "$t" | cut -c1-64)" != "$sum" ]; then
        echo "$sm_me: $t does not match the sha256 in $v/README.md: not used" >&2
        continue
      fi
      echo "$t"
      return 0
    done
  done
  cache=/var/cache/starmet
  t=$cache/$SM_DEBIAN13_STARPU
  if [ ! -f "$t" ] || [ "$(sha256sum < "$t" | cut -c1-64)" != "$SM_DEBIAN13_STARPU_SHA256" ]; then
    echo "== no StarPU 1.4 tarball given or found: fetching Debian 13's StarPU 1.4.7 source" >&2
    sm_apt_install curl ca-certificates >&2
    sm_as_root mkdir -p "$cache"
    sm_as_root curl -fsSL -o "$t.part" "http://deb.debian.org/debian/pool/main/s/starpu/$SM_DEBIAN13_STARPU" ||
      { sm_as_root rm -f "$t.part"
        echo "$sm_me: no StarPU 1.4 source here: none beside the project ($sm_root_dir/../shared/vendor/), and Debian 13's ($SM_DEBIAN13_STARPU) cannot be fetched from deb.debian.org; give a StarPU 1.4 release tarball (scripts/setup-starpu 1.4 TARBALL: StarPU's releases are at https://files.inria.fr/starpu/) or the prefix of an installed StarPU 1.4" >&2
        return 1; }
    if [ "$(sha256sum < "$t.part" | cut -c1-64)" != "$SM_DEBIAN13_STARPU_SHA256" ]; then
      sm_as_root rm -f "$t.part"
      echo "$sm_me: the fetched $SM_DEBIAN13_STARPU does not have Debian's sha256: not used" >&2
      return 1
    fi
    sm_as_root mv "$t.part" "$t"
  fi
  echo "$t"
}

# The StarPU version of a source tarball (its configure.ac's AC_INIT).
sm_starpu14_version() { # TARBALL
  v=$(tar -xOf "$1" --wildcards '*/configure.ac' 2> /dev/null |
    sed -n 's/^AC_INIT(\[StarPU\], *\[\([0-9][0-9.]*\)\].*/\1/p' | head -n 1)
  case $v in 1.4.*) echo "$v" ;; *) return 1 ;; esac
}

# StarPU 1.4's source from TARBALL unpacked into WORK/src, its configure
# generated when the tarball has none (a git export), patched for CUDA 13.
sm_starpu14_source() { # WORK TARBALL
  rm -rf "$1"
  mkdir -p "$1/unpack"
  echo "== unpacking $(basename "$2") into $1"
  tar -xf "$2" -C "$1/unpack" || die "cannot unpack $2"
  top=$(ls "$1/unpack")
  [ "$(echo "$top" | wc -l)" -eq 1 ] && [ -f "$1/unpack/$top/configure.ac" ] ||
    die "$2 does not hold one StarPU source directory"
  mv "$1/unpack/$top" "$1/src"
  rmdir "$1/unpack"
  if [ ! -x "$1/src/configure" ]; then
    echo "== generating StarPU's configure (autogen.sh)"
    (cd "$1/src" && ./autogen.sh > autogen.log 2>&1) ||
      { tail -n 20 "$1/src/autogen.log" >&2; die "StarPU's autogen.sh failed"; }
  fi
  if grep -q "props\[devid\]\.computeMode" "$1/src/src/drivers/cuda/driver_cuda.c"; then
    (cd "$1/src" && patch -p1 -s < "$sm_root_dir/scripts/patches/starpu-1.4-cuda13.patch") ||
      die "scripts/patches/starpu-1.4-cuda13.patch does not apply to this StarPU"
  fi
}

# 0 when PREFIX holds a StarPU built by these scripts with STAMP.
sm_prefix_current() { # PREFIX STAMP
  [ -f "$1/.starmet-build" ] && [ "$(cat "$1/.starmet-build")" = "$2" ]
}

# Configure, build and install the StarPU source in SRC into PREFIX with
# OPTIONS, then stamp PREFIX; WHAT names it in messages.
sm_starpu_build() { # SRC PREFIX STAMP WHAT OPTIONS...
  s=$1 p=$2 st=$3 w=$4
  shift 4
  echo "== configuring $w for $p"
  (cd "$s" && ./configure --prefix="$p" "$@" > configure.log 2>&1) ||
    { tail -n 30 "$s/configure.log" >&2; die "StarPU's configure failed (see $s/configure.log)"; }
  echo "== building $w"
  (cd "$s" && make -j"$(nproc)" > make.log 2>&1) ||
    { grep -n "error" "$s/make.log" | head -n 20 >&2; die "StarPU did not build (see $s/make.log)"; }
  sm_as_root rm -rf "$p"
  (cd "$s" && sm_as_root make install > install.log 2>&1) ||
    die "make install of StarPU failed (see $s/install.log)"
  printf '%s\n' "$st" > /tmp/starmet-stamp.$$
  sm_as_root install -m 644 /tmp/starmet-stamp.$$ "$p/.starmet-build"
  rm -f /tmp/starmet-stamp.$$
}

# Debian packages starmet's own build needs, StarPU apart
SM_STARMET_PACKAGES="gcc g++ make autoconf automake pkg-config libopenmpi-dev openmpi-bin libhwloc-dev
ocl-icd-opencl-dev zlib1g-dev libhts-dev"

# starmet configured with CONFIGURE-ARGS and built in DIR (configure rerun
# when configure is newer than DIR's Makefile or the arguments changed);
# its log in DIR/configure.log. $SM_MAKE_TARGETS: what make builds (all).
sm_starmet_build() { # DIR CONFIGURE-ARGS...
  d=$1
  shift
  # what starmet's configure and build need besides StarPU (a fresh machine
  # has no compiler): scripts/setup.sh's list without StarPU and the tools
  # of the test suite
  # shellcheck disable=SC2086
  sm_apt_install $SM_STARMET_PACKAGES
  mkdir -p "$d"
  if [ ! -x "$sm_root_dir/configure" ] || [ "$sm_root_dir/configure.ac" -nt "$sm_root_dir/configure" ]; then
    (cd "$sm_root_dir" && autoreconf -fi)
  fi
  if [ ! -f "$d/Makefile" ] || [ "$sm_root_dir/configure" -nt "$d/Makefile" ] ||
     [ "$(cat "$d/.starmet-configure" 2> /dev/null)" != "$*" ]; then
    rm -f "$d/.starmet-configure"
    (cd "$d" && "$sm_root_dir/configure" "$@" > configure.log 2>&1) ||
      { tail -n 30 "$d/configure.log" >&2; die "starmet's configure failed (see $d/configure.log)"; }
    printf '%s\n' "$*" > "$d/.starmet-configure"
  fi
  # shellcheck disable=SC2086
  (cd "$d" && make -j"$(nproc)" ${SM_MAKE_TARGETS:-})
}
