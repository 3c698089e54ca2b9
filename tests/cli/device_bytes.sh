#!/bin/sh
# device_bytes.sh: a finalize on a device moves only what a run keeps. On
# PoCL's OpenCL device (its own memory node, real transfers), CCC and
# Czekanowski 2-way and 3-way with --devices accel, written in full, with
# a threshold keeping about 1% of the values (chosen from the full output)
# and with one keeping none. The record buffers stay in the host's memory;
# the device finalize copies the sums of its checksum terms (40 bytes a
# task), and, when a task keeps values, its row counts and offsets and the
# kept records (24 bytes each). So:
# - what StarPU moves (the input tiles and sums) does not depend on the
#   threshold, and a run keeping none moves less than half the bytes of
#   the records a full run writes;
# - keeping none adds exactly 40 bytes per finalize task;
# - the finalize's bytes are the records' 24 bytes each plus 40 a task
#   plus 12 a row of the tasks that keep a value;
# and every run gives the CPU's checksum, the thresholded files the
# full file's records above the threshold.
. "$(dirname "$0")/../lib.sh"
ocl_probe || { echo "no OpenCL device (install pocl-opencl-icd): skipped"; cat "$T/probe"; exit 77; }

# fields NAME SUMMARY: "written bus fin nfin" of a run (nfin: its finalize tasks)
fields() {
  python3 - "$1" << 'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
rt = s["runtime"]
nfin = sum(c["count"] for c in rt["codelets"] if c["name"].startswith("sm_finalize"))
print(s["counts"]["written"], rt["bytes_between_memory_nodes"],
      rt["bytes_copied_by_device_finalize"], nfin)
EOF
}

# pick_thr FILE: a threshold that keeps about 1% of FILE's values, the
# records above it, and FILE's largest value (a threshold keeping none)
pick_thr() {
  python3 - "$1" << 'EOF'
import sys
v = sorted(float(l.split("\t")[-1]) for l in open(sys.argv[1]).readlines()[1:])
t = v[int(len(v) * 0.99)]
print(repr(t), sum(1 for x in v if x > t), repr(v[-1]))
EOF
}

check() { # check NAME CONDITION-TEXT (python expression on the variables)
  if python3 -c "import sys; sys.exit(0 if ($2) else 1)"; then pass; else
    fail "$1: $2"; fi
}

for way in 2 3; do
  for metric in ccc "ccc --missing-rate 0.05" czekanowski; do
    tag=$(echo "$way$metric" | tr -dc 'a-z0-9')
    # rows: a finalize task's rows at most (2-way: a tile's; 3-way: planes x a tile's)
    if [ $way = 2 ]; then size="--num-vector 400 --num-field 256 --block-size 96" rows=96
    else size="--num-vector 40 --num-field 128 --block-size 16" rows=256; fi
    # shellcheck disable=SC2086
    P="compute --metric $metric --num-way $way --synthetic random $size --quiet"
    # shellcheck disable=SC2086
    run_ok "cpu $tag" "$STARMET" $P --devices cpu --output "$T/cpu_$tag"
    # shellcheck disable=SC2086
    run_ok "accel $tag" ocl "$STARMET" $P --devices accel --output "$T/all_$tag"
    same "accel $tag vs cpu" "$T/cpu_$tag.tsv" "$T/all_$tag.tsv"
    set -- $(pick_thr "$T/all_$tag.tsv")
    thr=$1 above=$2 vmax=$3
    # shellcheck disable=SC2086
    run_ok "accel $tag 1%" ocl "$STARMET" $P --devices accel --threshold "$thr" \
      --output "$T/one_$tag"
    # shellcheck disable=SC2086
    run_ok "accel $tag none kept" ocl "$STARMET" $P --devices accel --threshold "$vmax" \
      --output "$T/none_$tag"
    for r in cpu all one none; do
      [ "$(cks "$T/${r}_$tag.json")" = "$(cks "$T/cpu_$tag.json")" ] ||
        fail "$tag $r: checksum $(cks "$T/${r}_$tag.json") is not the CPU's"
    done
    set -- $(fields "$T/all_$tag.json") $(fields "$T/one_$tag.json") \
      $(fields "$T/none_$tag.json")
    w_all=$1 bus_all=$2 fin_all=$3 n_all=$4 w_one=$5 bus_one=$6 fin_one=$7 n_one=$8
    w_none=$9 bus_none=${10} fin_none=${11} n_none=${12}
    echo "$tag: all $w_all records, $bus_all bytes ($fin_all by the finalize);" \
      "1% $w_one, $bus_one ($fin_one); none $w_none, $bus_none ($fin_none)"
    check "$tag: tasks ran on the device" "$n_all > 0 and $n_all == $n_one == $n_none"
    check "$tag: 1% keeps the values above it" "$w_one == $above"
    # (StarPU's own transfers vary a little from run to run: where the
    # scheduler puts the sums, what it prefetches)
    check "$tag: StarPU moves about the same whatever is kept" \
      "max($bus_all - $fin_all, $bus_one - $fin_one) <= 2 * ($bus_none - $fin_none) + 4096"
    check "$tag: keeping none moves less than half the records' bytes" \
      "$bus_none < 12 * $w_all"
    check "$tag: keeping none copies 40 bytes a task" "$fin_none == 40 * $n_none"
    check "$tag: a full run copies its records" \
      "24 * $w_all + 40 * $n_all < $fin_all <= 24 * $w_all + 40 * $n_all + 12 * $rows * $n_all"
    check "$tag: 1% copies its records" \
      "24 * $w_one + 40 * $n_one <= $fin_one <= 24 * $w_one + 40 * $n_one + 12 * $rows * $n_one"
    # the thresholded file holds the full file's records above the threshold
    python3 - "$T/all_$tag.tsv" "$T/one_$tag.tsv" "$thr" << 'EOF' || fail "$tag: 1% records"
import sys
full = [l for l in open(sys.argv[1]).readlines()[1:] if float(l.split("\t")[-1]) > float(sys.argv[3])]
part = open(sys.argv[2]).readlines()[1:]
sys.exit(0 if sorted(full) == sorted(part) else 1)
EOF
  done
done
finish
