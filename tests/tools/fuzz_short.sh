#!/bin/sh
# fuzz_short.sh: a short libFuzzer run (a few seconds per input parser) over
# the committed seed corpus, with ASan + UBSan; skipped when clang's
# libFuzzer is not installed. Longer runs: scripts/fuzz SECONDS.
. "$(dirname "$0")/../lib.sh"
if ! command -v clang > /dev/null ||
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a > /dev/null 2>&1; then
  echo "clang/libFuzzer not installed: skipped"; exit 77
fi
FUZZ_BUILD_DIR="$top_builddir/fuzz-build" FUZZ_CRASH_DIR="$T/crashes" \
  run_ok "fuzz all parsers" sh "$top_srcdir/scripts/fuzz" "${SM_FUZZ_SECONDS:-3}"
cat "$T/log.out"
for t in tsv npy plink raw vcf gl manifest options; do
  n=$(find "$T/crashes/$t" -type f 2> /dev/null | wc -l)
  [ "$n" -eq 0 ] && pass || fail "fuzzer found $n crashing inputs for $t (in $T/crashes/$t)"
done
finish
