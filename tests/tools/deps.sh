#!/bin/sh
# deps.sh: no circle of files in src/ and codelets/ (scripts/deps, over the
# includes and the calls between this build's object files); and
# scripts/deps reports a circle when there is one, in a small tree made
# here (by includes, by calls, and a tree without a circle that passes).
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || { echo "python3 not installed: skipped"; exit 77; }
command -v nm > /dev/null || { echo "nm not installed: skipped"; exit 77; }
DEPS="$top_srcdir/scripts/deps"
nobj=$(find "$top_builddir/src" "$top_builddir/codelets" -name '*.o' 2> /dev/null | wc -l)
[ "$nobj" -gt 0 ] || { echo "no object files under $top_builddir: skipped"; exit 77; }

# the tree itself
st=0
python3 "$DEPS" --root "$top_srcdir" --build "$top_builddir" > "$T/tree.out" 2> "$T/tree.err" || st=$?
cat "$T/tree.out" "$T/tree.err"
[ $st -eq 0 ] && pass || fail "scripts/deps found circles of files (exit $st): see above"
grep -q " [1-9][0-9]* object files)" "$T/tree.out" && pass ||
  fail "scripts/deps read no object file of the build"

# a small tree: app/reg.c (a registry) calls app/fam.c, which calls back
# into reg.c through reg.h: a circle by calls and includes
S=$T/synth
mkdir -p "$S/app" "$S/b/app"
cat > "$S/app/reg.h" << 'EOF'
int reg_count(void);
EOF
cat > "$S/app/reg.c" << 'EOF'
#include "reg.h"
int fam_setup(void);
int reg_count(void) { return fam_setup(); }
EOF
cat > "$S/app/fam.c" << 'EOF'
#include "reg.h"
int fam_setup(void) { return 1; }
int fam_twice(void) { return 2 * reg_count(); }
EOF
cat > "$S/app/util.c" << 'EOF'
int util_one(void) { return 1; }
EOF
for f in reg fam util; do
  cc -c "$S/app/$f.c" -o "$S/b/app/prog-$f.o" || fail "cc $f.c"
done
st=0
python3 "$DEPS" --root "$S" --build "$S/b" app > "$T/c.out" 2>&1 || st=$?
cat "$T/c.out"
[ $st -eq 1 ] && pass || fail "a circle reg <-> fam: exit $st, not 1"
grep -q "^circle of 2 modules: app/fam.c app/reg.c app/reg.h" "$T/c.out" && pass ||
  fail "the circle's files are not listed"
grep -q "app/fam.c includes app/reg.h" "$T/c.out" && pass || fail "the include edge is not shown"
grep -q "app/reg calls fam_setup (app/fam)" "$T/c.out" && pass || fail "the call edge is not shown"
grep -q "util" "$T/c.out" && fail "util.c is in no circle but is listed" || pass

# a circle by calls alone (fam no longer includes reg.h)
cat > "$S/app/fam.c" << 'EOF'
int reg_count(void);
int fam_setup(void) { return 1; }
int fam_twice(void) { return 2 * reg_count(); }
EOF
cc -c "$S/app/fam.c" -o "$S/b/app/prog-fam.o" || fail "cc fam.c"
st=0
python3 "$DEPS" --root "$S" --build "$S/b" app > "$T/c2.out" 2>&1 || st=$?
[ $st -eq 1 ] && grep -q "app/fam calls reg_count (app/reg)" "$T/c2.out" && pass ||
  { cat "$T/c2.out"; fail "a circle by calls only: exit $st"; }

# the registry knows the family through a table instead: no circle
cat > "$S/app/fam.c" << 'EOF'
int fam_setup(void) { return 1; }
EOF
cc -c "$S/app/fam.c" -o "$S/b/app/prog-fam.o" || fail "cc fam.c"
st=0
python3 "$DEPS" --root "$S" --build "$S/b" app > "$T/ok.out" 2>&1 || st=$?
cat "$T/ok.out"
[ $st -eq 0 ] && grep -q " 0 circles" "$T/ok.out" && pass || fail "no circle, yet exit $st"

# without objects: the includes alone, said so
mkdir -p "$S/none"
st=0
python3 "$DEPS" --root "$S" --build "$S/none" app > "$T/n.out" 2>&1 || st=$?
[ $st -eq 0 ] && grep -q "following the includes only" "$T/n.out" && pass ||
  { cat "$T/n.out"; fail "no objects: exit $st or no warning"; }
finish
