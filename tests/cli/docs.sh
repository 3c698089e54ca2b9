#!/bin/sh
# docs.sh: the guide runs. docs/reference.md is what the binary writes
# (`starmet --reference`, from the option tables); every ```sh, ```python
# and ```r block of README.md and docs/*.md runs on the bundled data and
# succeeds, the output excerpts shown after them are what they print, and
# no starmet command line shown uses an option the binary lacks
# (tests/tools/docs_run.py says how blocks are marked).
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
finish
