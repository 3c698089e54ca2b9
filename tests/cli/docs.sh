#!/bin/sh
# docs.sh: the guide runs. docs/reference.md is what the binary writes
# (`starmet --reference`, from the option tables); every ```sh, ```python
# and ```r block of README.md and docs/*.md runs on the bundled data and
# succeeds, the output excerpts shown after them are what they print, and
# no starmet command line shown uses an option the binary lacks
# (tests/tools/docs_run.py says how blocks are marked). README.md's examples
# also run as after scripts/demo: starmet off PATH but for the README's line.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c "import numpy" 2> /dev/null; then echo "no python3 with numpy: skipped"; exit 77; fi
"$STARMET" --reference > "$T/reference.md" 2>&1 && pass || fail "starmet --reference failed"
if cmp -s "$T/reference.md" "$top_srcdir/docs/reference.md"; then pass; else
  fail "docs/reference.md differs from starmet --reference (run make reference):"
  diff "$top_srcdir/docs/reference.md" "$T/reference.md" | head -n 20 >&2
fi
# every option --help lists is in the reference
# (the option column of --help: a line's start up to its description)
opts_of() {
  awk '/^  --/ { s = substr($0, 3); i = index(s, "   "); if (i > 0) s = substr(s, 1, i - 1)
    while (match(s, /--[a-z0-9-]+/)) { print substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }'
}
"$STARMET" --help | opts_of > "$T/help.opts"
"$STARMET" maf --help | opts_of >> "$T/help.opts"
[ "$(wc -l < "$T/help.opts")" -gt 50 ] && pass || fail "read only $(wc -l < "$T/help.opts") options from --help"
missing=""
for o in $(sort -u "$T/help.opts"); do
  grep -q -- "\`$o\b\|[ ,|] $o\b" "$top_srcdir/docs/reference.md" || missing="$missing $o"
done
[ -z "$missing" ] && pass || fail "options of --help not in docs/reference.md:$missing"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if "$PY" "$top_srcdir/tests/tools/docs_run.py" --srcdir "$top_srcdir" \
  --builddir "$top_builddir" > "$T/docs.out" 2>&1; then pass; else
  fail "the guide's commands:"; cat "$T/docs.out" >&2
fi
tail -n 1 "$T/docs.out"

# README.md as a reader who only ran scripts/demo meets it: starmet is in
# _build/, not on PATH, until the line the README gives (and scripts/demo
# prints) puts it there; then every ```sh, ```python and ```r block runs
# in a copy of the source tree's layout whose _build/starmet is this build's
line=$(grep -m 1 '^export PATH=\$PWD/_build:\$PATH$' "$top_srcdir/README.md" || true)
[ -n "$line" ] && pass || fail "README.md gives no 'export PATH=\$PWD/_build:\$PATH' line"
grep -q 'export PATH=\$BUILD_DIR:\\\$PATH' "$top_srcdir/scripts/demo" && pass ||
  fail "scripts/demo does not print the PATH line of the README"
mkdir -p "$T/demo/_build"
for d in data python R scripts; do ln -s "$top_srcdir/$d" "$T/demo/$d"; done
ln -s "$(cd "$(dirname "$STARMET")" && pwd)/$(basename "$STARMET")" "$T/demo/_build/starmet"
# PATH without any directory that holds a starmet (this build's among them)
bare=$(echo "$PATH" | tr ':' '\n' | while read -r d; do [ -n "$d" ] && [ ! -e "$d/starmet" ] && echo "$d"; done |
  paste -s -d ':' -)
if (cd "$T/demo" && PATH=$bare command -v starmet > /dev/null); then
  fail "starmet is on PATH without the README's line (nothing tested)"; else pass; fi
if [ -n "$line" ] && (cd "$T/demo" && PATH=$bare "$PY" - "$top_srcdir" "$line" > "$T/demo.out" 2>&1 << 'PYEOF'
"""README.md's run blocks after its PATH line, in the current directory."""
import os
import subprocess
import sys

src, line = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests", "tools"))
import docs_run  # noqa: E402

bad = 0
where = subprocess.run(["sh", "-c", line + "; command -v starmet"], capture_output=True,
                       text=True).stdout.strip()
if where != os.path.join(os.getcwd(), "_build", "starmet"):
    print("after %r, starmet is %r, not _build/starmet" % (line, where))
    bad += 1
for start, info, text in docs_run.blocks(os.path.join(src, "README.md")):
    cmd = {"sh": ["sh", "-e", "-c", line + "\n" + text],
           "python": [sys.executable, "-c", text], "r": ["Rscript", "-e", text]}.get(info)
    if cmd is None:
        continue
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        print("README.md:%d: exit %d:\n%s\n--- it printed:\n%s" % (start, p.returncode, text,
                                                               p.stdout[-2000:]))
        bad += 1
sys.exit(1 if bad else 0)
PYEOF
); then pass; else fail "README.md's examples after its PATH line:"; cat "$T/demo.out" >&2; fi
finish
