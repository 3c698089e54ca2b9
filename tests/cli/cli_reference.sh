#!/bin/sh
# cli_reference.sh: starmet's values on CoMet's reference inputs equal
# CoMet's outputs (CCC bit for bit in float32; Czekanowski within one
# float32 ulp), 2-way through the task graph (several block sizes and
# schedulers) and 2-/3-way through the reference implementation.
. "$(dirname "$0")/../lib.sh"

c() { "$STARMET" compute --quiet "$@"; }

# 2-way task graph, every block size class: one tile, odd tiles, tiny tiles
for bs in 200 37 7; do
  for sched in eager lws dmda; do
    o=$T/ccc2_$bs$sched
    run_ok "ccc2 bs=$bs $sched" c --metric ccc --input "$DATA/bits2_uniform_200x500.bin" \
      --num-field 500 --no-sparse --block-size $bs --sched $sched --output "$o" --output-format comet
    same "ccc2 dense vs CoMet bs=$bs $sched" --comet-way 2 --ccc "$DATA/ccc2_f64_0.bin.gz" "$o.bin"
  done
  o=$T/ccc2s_$bs
  run_ok "ccc2 sparse bs=$bs" c --metric ccc --input "$DATA/bits2_miss10_200x500.bin" \
    --num-field 500 --block-size $bs --output "$o" --output-format comet
  same "ccc2 sparse vs CoMet bs=$bs" --comet-way 2 --ccc "$DATA/ccc2_sparse_f64_0.bin.gz" "$o.bin"
  for kind in int real; do
    o=$T/czek2_${kind}_$bs
    run_ok "czek2 $kind bs=$bs" c --input "$DATA/czek_${kind}_200x500_f64.bin" --num-field 500 \
      --block-size $bs --output "$o" --output-format comet
    same "czek2 $kind vs CoMet bs=$bs" --comet-way 2 --ulp32 1 "$DATA/czek2_${kind}_f64_0.bin.gz" "$o.bin"
  done
done

# odd sizes, thresholds
run_ok "ccc2 odd" c --metric ccc --input "$DATA/bits2_miss10_37x517.bin" --num-field 517 \
  --block-size 5 --output "$T/odd" --output-format comet
same "ccc2 sparse odd vs CoMet" --comet-way 2 --ccc "$DATA/ccc2_sparse_odd_f64_0.bin.gz" "$T/odd.bin"
run_ok "ccc2 threshold" c --metric ccc --input "$DATA/bits2_miss10_200x500.bin" --num-field 500 \
  --threshold 0.53 --output "$T/thr" --output-format comet
same "ccc2 threshold vs CoMet" --comet-way 2 --ccc "$DATA/ccc2_sparse_thr0.53_f64_0.bin.gz" "$T/thr.bin"
run_ok "czek2 threshold" c --input "$DATA/czek_real_200x500_f64.bin" --num-field 500 \
  --threshold 0.67 --output "$T/cthr" --output-format comet
same "czek2 threshold vs CoMet" --comet-way 2 --ulp32 1 "$DATA/czek2_real_thr0.67_f64_0.bin.gz" "$T/cthr.bin"

# the reference implementation, 2-way and 3-way
run_ok "ref ccc2" c --metric ccc --compute-method ref --input "$DATA/bits2_miss10_200x500.bin" \
  --num-field 500 --output "$T/rs" --output-format comet
same "ref ccc2 sparse vs CoMet" --comet-way 2 --ccc "$DATA/ccc2_sparse_f64_0.bin.gz" "$T/rs.bin"
run_ok "ref ccc3" c --metric ccc --num-way 3 --compute-method ref --no-sparse \
  --input "$DATA/bits2_uniform_200x500.bin" --num-vector 60 --num-field 500 --output "$T/r3" --output-format comet
same "ref ccc3 dense vs CoMet" --comet-way 3 --ccc "$DATA/ccc3_60_f64_0.bin.gz" "$T/r3.bin"
run_ok "ref ccc3 sparse" c --metric ccc --num-way 3 --compute-method ref \
  --input "$DATA/bits2_miss10_200x500.bin" --num-vector 60 --num-field 500 --output "$T/r3s" --output-format comet
same "ref ccc3 sparse vs CoMet" --comet-way 3 --ccc "$DATA/ccc3_sparse_60_f64_0.bin.gz" "$T/r3s.bin"
for kind in int real; do
  run_ok "ref czek3 $kind" c --num-way 3 --compute-method ref --input "$DATA/czek_${kind}_200x500_f64.bin" \
    --num-vector 60 --num-field 500 --output "$T/c3$kind" --output-format comet
  same "ref czek3 $kind vs CoMet" --comet-way 3 --ulp32 1 "$DATA/czek3_${kind}_60_f64_0.bin.gz" "$T/c3$kind.bin"
done

# the 3-way task graph on CoMet's 3-way cases (several tile sizes)
for bs in 60 16 7; do
  run_ok "ccc3 dense bs=$bs" c --metric ccc --num-way 3 --no-sparse --input "$DATA/bits2_uniform_200x500.bin" \
    --num-vector 60 --num-field 500 --block-size $bs --output "$T/t3d$bs" --output-format comet
  same "ccc3 dense vs CoMet bs=$bs" --comet-way 3 --ccc "$DATA/ccc3_60_f64_0.bin.gz" "$T/t3d$bs.bin"
  run_ok "ccc3 sparse bs=$bs" c --metric ccc --num-way 3 --input "$DATA/bits2_miss10_200x500.bin" \
    --num-vector 60 --num-field 500 --block-size $bs --output "$T/t3s$bs" --output-format comet
  same "ccc3 sparse vs CoMet bs=$bs" --comet-way 3 --ccc "$DATA/ccc3_sparse_60_f64_0.bin.gz" "$T/t3s$bs.bin"
  for kind in int real; do
    run_ok "czek3 $kind bs=$bs" c --num-way 3 --input "$DATA/czek_${kind}_200x500_f64.bin" \
      --num-vector 60 --num-field 500 --block-size $bs --output "$T/t3c$kind$bs" --output-format comet
    same "czek3 $kind vs CoMet bs=$bs" --comet-way 3 --ulp32 1 "$DATA/czek3_${kind}_60_f64_0.bin.gz" \
      "$T/t3c$kind$bs.bin"
  done
done

# float32 raw input reads the same integer values
run_ok "czek2 f32 raw" c --input "$DATA/czek_int_200x500_f32.bin" --raw-type float32 --num-field 500 \
  --output "$T/f32" --output-format comet
same "czek2 f32 raw vs CoMet" --comet-way 2 --ulp32 1 "$DATA/czek2_int_f64_0.bin.gz" "$T/f32.bin"
# .npy (int64) holds the same data
run_ok "czek2 npy" c --input "$DATA/czek_int_200x500.npy" --output "$T/npy" --output-format comet
same "czek2 npy vs CoMet" --comet-way 2 --ulp32 1 "$DATA/czek2_int_f64_0.bin.gz" "$T/npy.bin"
finish
