# starpu-source.sh: what scripts/setup-gpu and scripts/setup-sim share
# (sourced, POSIX sh; the caller defines die): running as root, installing
# Debian packages, deb822 sources files, and StarPU 1.3.10's source package.

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

# Debian's source package of StarPU 1.3.10, unpacked as released (Debian's
# one patch only drops an example) into WORK/src.
sm_starpu_source() { # WORK
  if ! apt-get source --print-uris -q starpu > /dev/null 2>&1; then
    sm_add_sources /etc/apt/sources.list.d/starmet-deb-src.sources deb-src main
  fi
  rm -rf "$1"
  mkdir -p "$1"
  echo "== fetching StarPU's source package into $1"
  (cd "$1" && apt-get source -q --download-only starpu=1.3.10+dfsg-2 > fetch.log 2>&1) ||
    (cd "$1" && apt-get source -q --download-only starpu > fetch.log 2>&1) ||
    { cat "$1/fetch.log" >&2; die "apt-get source starpu failed (is a deb-src entry for main reachable?)"; }
  dsc=$(ls "$1"/starpu_1.3.10*.dsc 2> /dev/null | head -n 1)
  [ -n "$dsc" ] || die "no StarPU 1.3.10 source package in $1 (got: $(ls "$1"))"
  (cd "$1" && dpkg-source -x --skip-patches "$dsc" src > /dev/null)
}
