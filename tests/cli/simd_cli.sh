#!/bin/sh
# simd_cli.sh: every --kernel choice through the whole command gives the
# same results as the reference kernels; choices this CPU cannot run are
# refused with a reason; STARMET_CPU_DISABLE makes auto fall back (and the
# summary names the kernel that ran); the CPU products of --ccc-gemm int8
# with and without AVX2.
. "$(dirname "$0")/../lib.sh"

c() { "$STARMET" compute --quiet "$@"; }
kern() { sed -n 's/.*"kernel": "\([^"]*\)".*/\1/p' "$1"; }

# try NAME ARGS...: the run succeeds, or is refused because of this CPU
try() {
  name=$1; shift
  if c "$@" > "$T/log.out" 2> "$T/log.err"; then return 0; fi
  if grep -Eq -- "--kernel [a-z0-9]+: (this CPU|Linux did not grant)" "$T/log.err"; then
    echo "  ($name: not on this CPU)"; pass; return 1; fi
  fail "$name: $(cat "$T/log.err")"; return 1
}

for prec in double single; do
  p="--synthetic random --num-vector 53 --num-field 301 --seed 3 --precision $prec --block-size 16"
  run_ok "czek $prec ref" c $p --kernel ref --output "$T/cz_ref" --output-format bin
  for k in auto blocked avx2 avx512; do
    if try "czek $prec $k" $p --kernel $k --output "$T/cz_$k" --output-format bin; then
      same "czek $prec $k = ref" "$T/cz_ref.bin" "$T/cz_$k.bin"
    fi
  done
done
for miss in 0 0.1; do
  p="--metric ccc --synthetic random --num-vector 47 --num-field 1111 --seed 4 --missing-rate $miss --block-size 16"
  run_ok "ccc $miss ref" c $p --kernel ref --output "$T/g_ref" --output-format bin
  for k in auto blocked popc avx2 avx512 vnni amx; do
    if try "ccc $miss $k" $p --kernel $k --output "$T/g_$k" --output-format bin; then
      same "ccc $miss $k = ref" "$T/g_ref.bin" "$T/g_$k.bin"
    fi
  done
  # int8 tiles (--ccc-gemm int8): the AVX2 products, then the portable ones
  for hide in "" avx2,avx512; do
    run_ok "ccc $miss int8 $hide" env STARMET_CPU_DISABLE=$hide "$STARMET" compute --quiet $p \
      --ccc-gemm int8 --output "$T/g_i8" --output-format bin
    same "ccc $miss int8 (hidden: $hide) = ref" "$T/g_ref.bin" "$T/g_i8.bin"
  done
done

# kernels of the other metric are refused
expect_error "czek vnni" "--kernel vnni: vnni is a ccc kernel" "$T/bad" \
  c --synthetic random --num-vector 5 --num-field 5 --kernel vnni --output "$T/bad"
expect_error "czek popc" "--kernel popc: popc is a ccc kernel" "$T/bad" \
  c --synthetic random --num-vector 5 --num-field 5 --kernel popc --output "$T/bad"

# auto falls back to the portable kernels when the ISA is hidden
run_ok "czek portable" env STARMET_CPU_DISABLE=avx2,avx512 "$STARMET" compute --quiet \
  --synthetic random --num-vector 20 --num-field 50 --output-format none --summary "$T/p.json"
[ "$(kern "$T/p.json")" = sm_kern_czek2_blocked_d ] && pass || fail "fallback czek: $(kern "$T/p.json")"
run_ok "ccc portable" env STARMET_CPU_DISABLE=avx2,avx512 "$STARMET" compute --quiet --metric ccc \
  --synthetic random --num-vector 20 --num-field 50 --output-format none --summary "$T/q.json"
[ "$(kern "$T/q.json")" = sm_kern_ccc2_popc ] && pass || fail "fallback ccc: $(kern "$T/q.json")"
# without AVX-512, the AVX2 popcount kernel where the CPU has AVX2
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  run_ok "ccc avx2 auto" env STARMET_CPU_DISABLE=avx512 "$STARMET" compute --quiet --metric ccc \
    --synthetic random --num-vector 20 --num-field 50 --output-format none --summary "$T/r.json"
  [ "$(kern "$T/r.json")" = sm_kern_ccc2_avx2 ] && pass || fail "avx2 ccc: $(kern "$T/r.json")"
fi
expect_error "hidden avx512" "--kernel avx512: this CPU" "$T/bad" env STARMET_CPU_DISABLE=avx512 \
  "$STARMET" compute --synthetic random --num-vector 5 --num-field 5 --kernel avx512 --output "$T/bad"

finish
