# lib.sh: helpers shared by the shell tests (sourced). Each test gets a
# scratch directory; `fail` reports and exits 1; `expect_error` runs a
# command that must fail cleanly.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$PWD}"
: "${STARMET:=$top_builddir/starmet}"
SMCMP="$top_builddir/tests/tools/smcmp"
DATA="$top_srcdir/tests/data/comet"
export STARPU_SILENT=1
export STARPU_HOME="${STARPU_HOME:-$top_builddir/.cache/starpu}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$top_builddir/.cache/pocl}"
mkdir -p "$STARPU_HOME" "$POCL_CACHE_DIR"
T=$(mktemp -d "$top_builddir/tests/tmp.XXXXXX")
trap 'rm -rf "$T"' EXIT
NPASS=0
NFAIL=0

fail() { echo "FAIL: $*" >&2; NFAIL=$((NFAIL + 1)); }
pass() { NPASS=$((NPASS + 1)); }

# run_ok NAME CMD...: the command must succeed
run_ok() {
  name=$1; shift
  if "$@" > "$T/log.out" 2> "$T/log.err"; then pass; else
    fail "$name: exit $? from: $*"; cat "$T/log.err" >&2; fi
}

# same NAME SMCMP-ARGS...: two result files must agree
same() {
  name=$1; shift
  if "$SMCMP" "$@" > "$T/log.cmp" 2>&1; then pass; else
    fail "$name"; cat "$T/log.cmp" >&2; fi
}

# expect_error NAME PATTERN OUTPUT CMD...: the command must exit non-zero,
# print one error line matching PATTERN (extended regex) and leave no file
# at OUTPUT (or "-" to skip that check) nor a temporary file beside it.
expect_error() {
  name=$1 pattern=$2 out=$3; shift 3
  if "$@" > "$T/log.out" 2> "$T/log.err"; then
    fail "$name: succeeded but should have failed: $*"; return; fi
  if ! grep -Eq -- "$pattern" "$T/log.err"; then
    fail "$name: message does not match /$pattern/:"; cat "$T/log.err" >&2; return; fi
  if [ "$out" != - ] && ls "$out"* > /dev/null 2>&1; then
    fail "$name: left output behind: $(ls "$out"*)"; return; fi
  pass
}

finish() {
  echo "$NPASS passed, $NFAIL failed"
  [ "$NFAIL" -eq 0 ]
}
