#!/bin/sh
# install.sh: `make install DESTDIR=...` from the build tree: the files it
# puts in place, the installed starmet (--version and its features, a run
# outside the trees), the manual page (renders without warnings, lists every
# option --help prints, is what the binary writes), the bash completion,
# the installed scripts, and `make uninstall`.
. "$(dirname "$0")/../lib.sh"

D=$T/inst
# a make of its own: not the jobs of a `make check` that may be running this
make_here() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" "$@"; }
run_ok "make install" make_here install DESTDIR="$D"
[ $NFAIL -eq 0 ] || finish

# the one installed file named like $1 under a directory matching $2
installed() { find "$D" -type f -name "$1" -path "$2" | head -n 1; }
bin=$(installed starmet '*/bin/starmet')
man1=$(installed starmet.1 '*/man1/starmet.1')
comp=$(installed starmet '*/bash-completion/completions/starmet')
readme=$(installed README.md '*/doc/starmet/README.md')
for v in bin man1 comp readme; do
  eval "f=\$$v"
  [ -n "$f" ] && pass || fail "make install wrote no $v file"
done
[ -n "$bin" ] && [ -x "$bin" ] && pass || fail "no executable starmet in bin/"
docdir=$(dirname "${readme:-$D/none/README.md}")
for f in "$top_srcdir"/docs/* "$top_srcdir"/docs/sim/*; do
  [ -f "$f" ] || continue
  rel=${f#"$top_srcdir"/docs/}
  cmp -s "$f" "$docdir/docs/$rel" && pass || fail "docs/$rel not installed"
done
# the readers, and the installed Python one works from there
for f in python/starmet_io.py R/starmet_io.R; do
  got=$(installed "$(basename "$f")" "*/share/starmet/$(basename "$f")")
  [ -n "$got" ] && cmp -s "$top_srcdir/$f" "$got" && pass || fail "$f not installed in share/starmet"
done
for s in sched-experiment gantt gpu-selftest; do
  [ -f "$top_srcdir/scripts/$s" ] || continue
  [ -x "$(dirname "${bin:-$D/none/x}")/starmet-$s" ] && pass || fail "starmet-$s not installed"
done

# --- the installed starmet, run away from the source and build trees
if [ -n "$bin" ]; then
  (cd "$T" && "$bin" --version) > "$T/version" 2> "$T/log.err" && pass ||
    { fail "installed starmet --version"; cat "$T/log.err" >&2; }
  [ "$(head -n 1 "$T/version")" = "$("$STARMET" --version | head -n 1)" ] && pass ||
    fail "installed --version: first line differs from the build's"
  for pat in '^starmet [0-9]' '^codelets: cpu' '^StarPU: [0-9.]+ \(built against [0-9.]+' \
             '^MPI: .+' '^htslib: [0-9]' '^features: mpi( |$)' '^features: .*htslib' \
             '^checks: output paths, output lock, input rules, ranks agree, memory estimate, outputs read back at commit \(or, for an \.ld written direct, an unbroken write lease\), resume CRC-32C \((sse4\.2|table)\)$' \
             '^CPU kernels: ref blocked'; do
    grep -Eq "$pat" "$T/version" && pass || { fail "--version has no line /$pat/:"; cat "$T/version" >&2; }
  done
  # OpenCL and CUDA are said built or not, as the codelets line says
  for feat in opencl cuda; do
    if grep -q "^codelets:.* $feat" "$T/version"; then
      grep -Eq "^features: [^(]*$feat" "$T/version" && pass || fail "--version: $feat not in features"
    else
      grep -Eq "^features: .*\(not built: .*$feat" "$T/version" && pass ||
        fail "--version: $feat neither built nor said missing"
    fi
  done
  run_ok "installed starmet runs" sh -c "cd '$T' && '$bin' compute --quiet --synthetic analytic \
    --num-vector 9 --num-field 13 --output-format none"
fi

# --- the manual page: what the binary writes, rendered without warnings
[ -n "$man1" ] && "$STARMET" --man | cmp -s - "$man1" && pass ||
  fail "installed starmet.1 is not what starmet --man writes"
render() { # render WIDTH FILE: the page as plain text; warnings on stderr
  if command -v man > /dev/null; then
    LC_ALL=C MANWIDTH=$1 man --warnings=w -l "$2"
  elif command -v groff > /dev/null; then
    LC_ALL=C groff -man -Tascii -ww -rLL="$1"n -P-cbou "$2"
  else
    LC_ALL=C mandoc -Tascii -Wwarning -Owidth="$1" "$2" | col -b
  fi
}
if [ -z "$man1" ]; then
  :
elif ! command -v man > /dev/null && ! command -v groff > /dev/null &&
  ! command -v mandoc > /dev/null; then
  skip_part "manual page: no man, groff or mandoc to render it (scripts/setup.sh installs man-db)"
else
  for width in 80 60; do
    if render $width "$man1" > "$T/man.txt" 2> "$T/man.err" && [ ! -s "$T/man.err" ]; then pass
    else fail "the manual page renders with warnings at $width columns:"; cat "$T/man.err" >&2; fi
  done
  render 200 "$man1" > "$T/man.txt" 2> /dev/null
  for c in compute synth maf; do
    grep -q "starmet $c" "$T/man.txt" && pass || fail "manual: no synopsis of starmet $c"
    "$STARMET" $c --help > "$T/help.$c" 2>&1 || fail "starmet $c --help"
    for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$T/help.$c" | sort -u); do
      grep -Eq -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)" "$T/man.txt" && pass ||
        fail "manual: $o (starmet $c --help) is missing"
    done
  done
  grep -q -- '--version' "$T/man.txt" && pass || fail "manual: no --version"
fi

# --- bash completion: source it, call its function as bash would
# complete WORDS...: COMPREPLY for the last word, one per line, sorted
complete_words() {
  bash -c '. "$1"; shift
    f=$(complete -p starmet | sed -n "s/.*-F \([^ ]*\).*/\1/p")
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    "$f" starmet "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@" | sort
}
if [ -z "$comp" ]; then
  :
elif ! command -v bash > /dev/null; then
  skip_part "bash completion: no bash"
else
  [ "$(complete_words starmet comp)" = compute ] && pass ||
    fail "completion of 'starmet comp': '$(complete_words starmet comp)'"
  # every --num-* option compute --help prints, and no other word
  want=$("$STARMET" compute --help | grep -o -- '--num-[a-z0-9-]*' | sort -u)
  got=$(complete_words starmet compute --num-)
  [ -n "$got" ] && [ "$got" = "$want" ] && pass ||
    fail "completion of 'starmet compute --num-': '$got', want '$want'"
  [ "$(complete_words starmet compute --metric '' | tr '\n' ' ')" = "bray-curtis ccc czekanowski jaccard r r2 " ] && pass ||
    fail "completion of 'starmet compute --metric ': $(complete_words starmet compute --metric '')"
  [ "$(complete_words starmet maf --output-f)" = "--output-format" ] && pass ||
    fail "completion of 'starmet maf --output-f'"
  [ -z "$(complete_words starmet compute --num-vector '')" ] && pass ||
    fail "completion after --num-vector offers words"
fi

# --- the installed scheduling experiment finds the starmet beside it
exp=$(dirname "${bin:-$D/none/x}")/starmet-sched-experiment
if [ ! -f "$top_srcdir/scripts/sched-experiment" ]; then
  :
elif ! command -v python3 > /dev/null; then
  skip_part "starmet-sched-experiment: no python3"
else
  run_ok "installed starmet-sched-experiment --help" "$exp" --help
  (cd "$T" && env -u STARMET PATH=/usr/bin:/bin STARPU_NCPU=1 "$exp" --tiny --no-plots \
    --mixes cpu --policies eager --priorities on --out "$T/exp") > "$T/log.out" 2> "$T/log.err" &&
    tr -d '\r' < "$T/exp/results.csv" | grep -q ',ok$' && pass ||
    { fail "installed starmet-sched-experiment did not run:"; cat "$T/log.err" >&2; }
fi

# --- make uninstall leaves no file behind
run_ok "make uninstall" make_here uninstall DESTDIR="$D"
left=$(find "$D" -type f | head -n 5)
[ -z "$left" ] && pass || fail "make uninstall left: $left"
finish
