#!/bin/sh
# verify_checksums.sh: --verify checks CCC tallies and 2-way Czekanowski
# numerators by their checksums and --verify full field by field (CCC) or
# by recomputation (Czekanowski); both catch every injected fault, single
# bit flips and whole corrupted rows alike, in 2-way and 3-way, dense,
# sparse and the int8 products, Czekanowski on integer data in double and
# single, by every retry mechanism this build has (check; runtime on
# StarPU 1.4), on CPUs, on an OpenCL device (PoCL) when there is one, and
# on two ranks: the files equal a clean run's and every injected fault is
# counted as caught. On real Czekanowski data whole rows are all caught;
# single bit flips below the check's rounding bound may pass (counted). The
# options' spellings and errors.
. "$(dirname "$0")/../lib.sh"
jnum() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }
jstr() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \"\([a-z]*\)\".*/\1/p"; }

retries="check"
"$STARMET" compute --metric ccc --synthetic random --num-vector 4 --num-field 8 --verify \
  --retry runtime --output-format none --quiet > /dev/null 2>&1 && retries="check runtime"

# caught NAME ARGS...: a run with faults equals the clean run $T/clean_$cl,
# and counts every fault it injected as caught
caught() {
  name=$1; shift
  # shellcheck disable=SC2086
  run_ok "$name" "$STARMET" compute $P "$@" --output "$T/v"
  cmp -s "$T/clean_$cl.tsv" "$T/v.tsv" && pass || fail "$name: output differs from the clean run"
  i=$(jnum "$T/v.json" faults_injected) c=$(jnum "$T/v.json" failures_caught)
  [ "${i:-0}" -gt 0 ] && [ "$i" = "$c" ] && pass || fail "$name: $c of $i faults caught"
}

for cl in 2 2s 2i8 3 3s; do
  case $cl in
    2) P="--num-vector 90 --block-size 16" ;;
    2s) P="--num-vector 90 --block-size 16 --missing-rate 0.1" ;;
    2i8) P="--num-vector 90 --block-size 16 --missing-rate 0.1 --ccc-gemm int8" ;;
    3) P="--num-way 3 --num-vector 30 --block-size 6" ;;
    3s) P="--num-way 3 --num-vector 30 --block-size 6 --missing-rate 0.1" ;;
  esac
  P="--metric ccc --synthetic random --num-field 333 --quiet $P"
  # shellcheck disable=SC2086
  run_ok "clean $cl" "$STARMET" compute $P --output "$T/clean_$cl"
  for r in $retries; do
    # shellcheck disable=SC2086
    run_ok "verified clean $cl $r" "$STARMET" compute $P --verify --retry $r --output "$T/vc"
    cmp -s "$T/clean_$cl.tsv" "$T/vc.tsv" && pass || fail "$cl $r: --verify changed the output"
    [ "$(jnum "$T/vc.json" failures_caught)" = 0 ] && pass || fail "$cl $r: a clean run failed"
    [ "$(jstr "$T/vc.json" verify_mode)" = checksum ] && pass || fail "$cl $r: mode is not checksum"
    for kind in bit row; do
      for v in "" full; do
        caught "$cl $r $kind ${v:-checksum}" --verify $v --retry "$r" \
          --inject-faults "0.3,11,$kind"
      done
    done
  done
  [ "$(jstr "$T/v.json" verify_mode)" = full ] && pass || fail "$cl: --verify full is not mode full"
  # whole rows are real faults: unchecked, they reach the output
  # shellcheck disable=SC2086
  run_ok "unchecked rows $cl" "$STARMET" compute $P --no-verify --inject-faults 0.3,11,row \
    --output "$T/u"
  cmp -s "$T/clean_$cl.tsv" "$T/u.tsv" && fail "$cl: corrupted rows changed nothing" || pass
done

# Czekanowski 2-way: integer data (analytic: every value an integer), the
# checksums are exact; real data (random), within the rounding bound
for cl in z2 z2s zr; do
  case $cl in
    z2) P="--synthetic analytic" ;;
    z2s) P="--synthetic analytic --precision single" ;;
    zr) P="--synthetic random" ;;
  esac
  P="--metric czekanowski --num-vector 70 --block-size 16 --num-field 301 --quiet $P"
  # shellcheck disable=SC2086
  run_ok "clean $cl" "$STARMET" compute $P --output "$T/clean_$cl"
  for r in $retries; do
    # shellcheck disable=SC2086
    run_ok "verified clean $cl $r" "$STARMET" compute $P --verify --retry $r --output "$T/vc"
    cmp -s "$T/clean_$cl.tsv" "$T/vc.tsv" && pass || fail "$cl $r: --verify changed the output"
    [ "$(jnum "$T/vc.json" failures_caught)" = 0 ] && pass || fail "$cl $r: a clean run failed"
    [ "$(jnum "$T/vc.json" checks)" -gt 0 ] && pass || fail "$cl $r: nothing checked"
    for v in "" full; do
      caught "$cl $r row ${v:-checksum}" --verify $v --retry "$r" --inject-faults 0.3,11,row
      if [ $cl != zr ]; then
        caught "$cl $r bit ${v:-checksum}" --verify $v --retry "$r" --inject-faults 0.3,11,bit
      fi
    done
    # real data, bit flips: the low mantissa bits' changes are below the
    # bound of a row's sum and pass; the others are caught
    # shellcheck disable=SC2086
    run_ok "zr $r bit flips" "$STARMET" compute $P --verify --retry "$r" \
      --inject-faults 0.6,7,bit --output "$T/zb"
    i=$(jnum "$T/zb.json" faults_injected) c=$(jnum "$T/zb.json" failures_caught)
    echo "$cl $r: $c of $i single bit flips caught"
    [ "${i:-0}" -gt 0 ] && [ "$c" -le "$i" ] && [ $((2 * c)) -ge "$i" ] && pass ||
      fail "$cl $r: only $c of $i bit flips caught"
  done
done

# on an OpenCL device (PoCL): the device's result is read back and checked
cl=2s
P="--metric ccc --synthetic random --num-field 333 --quiet --num-vector 90 --block-size 16 --missing-rate 0.1"
if STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1 STARPU_HOME="$STARPU_HOME_OPENCL" \
  "$STARMET" compute --metric ccc --synthetic random --num-vector 4 --num-field 8 \
  --devices accel --summary "$T/probe.json" --output-format none > /dev/null 2>&1 &&
  grep -q '"name": "OpenCL' "$T/probe.json"; then
  for r in $retries; do
    STARPU_OPENCL_ON_CPUS=1 STARPU_NOPENCL=1 STARPU_NCPU=1 STARPU_HOME="$STARPU_HOME_OPENCL" \
      caught "opencl $r" --devices accel --verify --retry "$r" --inject-faults 0.3,5,row
  done
else
  skip_part "no OpenCL device: its part"
fi

# two ranks
if [ -z "${MPIEXEC:-}" ]; then
  skip_part "no MPI launcher: the two ranks' part"
else
  for kind in bit row; do
    # shellcheck disable=SC2086
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1 \
      run_ok "P=2 $kind" $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" compute $P --verify \
      --inject-faults "0.3,5,$kind" --num-proc-field 2 --output "$T/m"
    [ "$(cks "$T/m.json")" = "$(cks "$T/clean_$cl.json")" ] && pass ||
      fail "P=2 $kind: checksum differs under injection"
  done
fi

# spellings: --no-verify undoes --verify; errors name the bad value
# shellcheck disable=SC2086
run_ok "no-verify" "$STARMET" compute $P --verify --no-verify --inject-faults 0.3,5 --output "$T/n"
[ "$(jnum "$T/n.json" checks)" = 0 ] && pass || fail "--no-verify still checked"
# shellcheck disable=SC2086
expect_error "bad kind" "column" "$T/e1" "$STARMET" compute $P --inject-faults 0.3,5,column \
  --output "$T/e1"
# shellcheck disable=SC2086
expect_error "bad seed" "seed" "$T/e2" "$STARMET" compute $P --inject-faults 0.3,x,row \
  --output "$T/e2"
# shellcheck disable=SC2086
expect_error "verify word" "unexpected argument 'partial'" "$T/e3" "$STARMET" compute $P \
  --verify partial --output "$T/e3"
finish
