#!/bin/sh
# storage_faults.sh: a fault of the storage under a run is never success.
# Before the final rename every output is read back and checked against
# what was written (its size and CRC-32C; npy: every value at its place),
# so a partial output that another process truncated, overwrote, grew or
# replaced while the run was stopped fails the run, naming the block, keeps
# the partial output and its manifest, and --resume recomputes what is bad.
# A final path taken by a directory mid-run keeps the complete .part and
# says how to finish; maf commits its files together and keeps every
# complete one. A write that fails (disk full, the file-size limit) is an
# error exit; so is a summary that cannot be printed.
. "$(dirname "$0")/../lib.sh"

A="compute --quiet --metric czekanowski --synthetic random --num-vector 600 --num-field 40 --block-size 32"
# shellcheck disable=SC2086
run_ok "uninterrupted" "$STARMET" $A --output "$T/full"
# shellcheck disable=SC2086
run_ok "uninterrupted, bin" "$STARMET" $A --output-format bin --output "$T/fullb"
# shellcheck disable=SC2086
run_ok "uninterrupted, npy" "$STARMET" $A --output-format npy --output "$T/fulln"

# says NAME PATTERN: $T/bg.err matches PATTERN
says() {
  grep -Eq -- "$2" "$T/bg.err" && pass || { fail "$1: message"; cat "$T/bg.err" >&2; }
}
# tampered NAME EXT PATTERN ACTION [ARGS]: a run stopped after 20 blocks,
# ACTION done to its partial output ($part) while it is stopped: it must
# fail saying PATTERN, keep the partial output and its manifest, and
# --resume must then give the uninterrupted run's bytes
tampered() {
  name=$1 ext=$2 pattern=$3 action=$4
  shift 4
  p=$T/t part=$T/t.$ext.part
  rm -f "$p".*
  # shellcheck disable=SC2086
  while_stopped "$p" "$action" "$STARMET" $A "$@" --output "$p" --debug-pause-after-blocks 20
  rc=$?
  [ $rc -eq 125 ] && return
  [ $rc -ne 0 ] && pass || { fail "$name: succeeded with its output changed under it"; return; }
  says "$name" "$pattern"
  says "$name" "not committed; it and .*t\.manifest are kept: run the same command with --resume"
  [ ! -e "$p.$ext" ] && [ -e "$part" ] && [ -e "$p.manifest" ] && pass ||
    fail "$name: a final file, or the partial output or manifest gone: $(ls "$p".*)"
  # shellcheck disable=SC2086
  run_ok "$name: --resume" "$STARMET" $A "$@" --output "$p" --resume
  ref=$T/full.$ext
  [ "$ext" = bin ] && ref=$T/fullb.bin
  cmp -s "$p.$ext" "$ref" && pass || fail "$name: the resumed output differs from a clean run's"
}
CHANGED="t\.(tsv|bin)\.part: the output (is not the size written|does not hold the bytes written)"
tampered "truncated to 0" tsv "$CHANGED" 'truncate -s 0 "$part"'
tampered "truncated to half" tsv \
  "t\.tsv\.part: block [0-9]+ \(bytes [0-9]+\.\.[0-9]+\) (does not hold what was written|is missing)" \
  'truncate -s $(($(stat -c %s "$part") / 2)) "$part"'
tampered "a byte overwritten" tsv "$CHANGED" \
  'printf Z | dd of="$part" bs=1 seek=$(($(stat -c %s "$part") - 40)) conv=notrunc 2> /dev/null'
tampered "grown past its end" tsv "$CHANGED" 'truncate -s +10M "$part"'
tampered "bin truncated" bin "$CHANGED" 'truncate -s $(($(stat -c %s "$part") / 2)) "$part"' \
  --output-format bin
tampered "bin overwritten" bin "$CHANGED" \
  'printf Z | dd of="$part" bs=1 seek=$(($(stat -c %s "$part") - 40)) conv=notrunc 2> /dev/null' \
  --output-format bin
# another file put in its place (same bytes so far, another inode: the run
# writes to the file it opened, so the new one would miss the rest)
tampered "replaced" tsv "t\.tsv\.part: this is no longer the file the run wrote" \
  'cp "$part" "$T/copy" && mv "$T/copy" "$part"'

# npy (one file written in place, no manifest): the check sums the values
p=$T/n
# shellcheck disable=SC2086
while_stopped "$p" 'truncate -s 4096 "$p.npy.part"' \
  "$STARMET" $A --output-format npy --output "$p" --debug-pause-after-blocks 20
rc=$?
if [ $rc -ne 125 ]; then
  [ $rc -ne 0 ] && pass || fail "npy truncated: succeeded"
  says "npy truncated" "n\.npy\.part: the output (is not the size written|does not hold the values written)"
  [ ! -e "$p.npy" ] && pass || fail "npy truncated: a final file appeared"
fi

# a directory at the final path, made while the run is stopped
p=$T/d
# shellcheck disable=SC2086
while_stopped "$p" 'mkdir "$p.tsv"' "$STARMET" $A --output "$p" --debug-pause-after-blocks 20
rc=$?
if [ $rc -ne 125 ]; then
  [ $rc -ne 0 ] && pass || fail "a directory at the final path: succeeded"
  says "a directory at the final path" \
    "d\.tsv: cannot rename the complete output .*d\.tsv\.part to it: the path is now taken by what is not a regular file.*move .*d\.tsv away, then run the same command with --resume"
  [ -d "$p.tsv" ] && [ -s "$p.tsv.part" ] && [ -e "$p.manifest" ] && pass ||
    fail "a directory at the final path: the complete output or its manifest is gone"
  rmdir "$p.tsv"
  # shellcheck disable=SC2086
  run_ok "finished with --resume" "$STARMET" $A --output "$p" --resume
  cmp -s "$p.tsv" "$T/full.tsv" && [ ! -e "$p.manifest" ] && pass ||
    fail "finished with --resume: output differs or manifest left"
fi

# maf: its files are committed together; a directory at the spectrum's
# path keeps it complete as .part and commits the SAF and frequencies
GL="$top_srcdir/data/example_gl.beagle.gz"
M="maf --quiet --input $GL --block-size 8"
# shellcheck disable=SC2086
run_ok "maf uninterrupted" "$STARMET" $M --output "$T/mfull"
p=$T/mf
# shellcheck disable=SC2086
while_stopped "$p" 'mkdir "$p.sfs"' "$STARMET" $M --output "$p" --debug-pause-after-blocks 2
rc=$?
if [ $rc -ne 125 ]; then
  [ $rc -ne 0 ] && pass || fail "maf, a directory at the spectrum's path: succeeded"
  says "maf, a directory at the spectrum's path" \
    "mf\.sfs: cannot rename the complete file .*mf\.sfs\.part to it: .*It is kept as .*mf\.sfs\.part: move what is at that path away, then rename the \.part file to it"
  cmp -s "$p.saf.tsv" "$T/mfull.saf.tsv" && cmp -s "$p.maf.tsv" "$T/mfull.maf.tsv" &&
    cmp -s "$p.sfs.part" "$T/mfull.sfs" && pass ||
    fail "maf: the complete files were not all kept: $(ls "$p".*)"
fi
# its SAF truncated while it was stopped: nothing is committed
p=$T/mt
# shellcheck disable=SC2086
while_stopped "$p" 'truncate -s 10 "$p.saf.tsv.part"' \
  "$STARMET" $M --output "$p" --debug-pause-after-blocks 2
rc=$?
if [ $rc -ne 125 ]; then
  [ $rc -ne 0 ] && pass || fail "maf, SAF truncated: succeeded"
  says "maf, SAF truncated" "mt\.saf\.tsv\.part: the file does not hold what was written"
  ls "$p".* | grep -v '\.json$' | grep -q . && fail "maf, SAF truncated: files left: $(ls "$p".*)" || pass
  grep -q '"status": "ok"' "$p.json" && fail "maf, SAF truncated: the summary says ok" || pass
fi

# writes that fail: a full file system (a 256 KB tmpfs where mounting is
# allowed), and the file-size limit either way
full_fs() {
  mkdir -p "$T/small"
  mount -t tmpfs -o size=256k tmpfs "$T/small" 2> /dev/null || return 1
  # shellcheck disable=SC2086
  expect_error "disk full" "t\.tsv\.part: write failed: No space left on device \(the disk is full\)" - \
    "$STARMET" $A --output "$T/small/t"
  [ ! -e "$T/small/t.tsv" ] && pass || fail "disk full: a final file appeared"
  umount "$T/small"
}
full_fs || echo "note: no tmpfs can be mounted here; the file-size limit stands for a full disk"
# shellcheck disable=SC2086
(ulimit -f 200 && "$STARMET" $A --threshold 0.5 --output "$T/f") > "$T/log.out" 2> "$T/log.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne $((128 + 25)) ] && pass || fail "ulimit -f: exit $rc (SIGXFSZ is 153)"
grep -q "f\.tsv\.part: write failed: File too large (the file-size limit: see ulimit -f)" "$T/log.err" &&
  pass || { fail "ulimit -f: message"; cat "$T/log.err" >&2; }
[ ! -e "$T/f.tsv" ] && pass || fail "ulimit -f: a final file appeared"

# a table of 40 MB reaches the disk in ranges while it is written (the
# writeback started every 16 MiB): every value equals the same run's .npy
# matrix (written in place, without it); past the file-size limit, the
# failure is an error exit naming the file, and no final file
B="compute --quiet --metric czekanowski --synthetic random --num-vector 1700 --num-field 30 --block-size 200 --seed 5"
# shellcheck disable=SC2086
run_ok "large tsv" "$STARMET" $B --output "$T/big"
# shellcheck disable=SC2086
run_ok "large npy" "$STARMET" $B --output-format npy --output "$T/bign"
PY=${PYTHON3:-/usr/bin/python3}
if "$PY" -c 'import numpy' 2> /dev/null; then
  "$PY" - "$T/big.tsv" "$T/bign.npy" > "$T/big.out" 2>&1 << 'PYEOF' && pass || fail "large tsv: $(tail -3 "$T/big.out")"
import os, sys, numpy as np
m = np.load(sys.argv[2])
n = 0
with open(sys.argv[1]) as f:
    next(f)
    for line in f:
        a, b, v = line.split("\t")
        i, j = int(a), int(b)
        n += 1
        assert float(v) == m[i, j], (line, m[i, j])
assert n == 1700 * 1699 // 2, n
assert os.path.getsize(sys.argv[1]) > 32 << 20
PYEOF
else
  skip_part "no numpy: the large tsv is not compared"
fi
# the limit 39 MB, between the preflight's estimate of the table (36.8 MB)
# and its size (41.3 MB): the write fails past the first 16 MiB ranges
# (the shell's blocks for ulimit -f: 512 or 1024 bytes)
blk=$( (ulimit -f 2 && head -c 1500 /dev/zero > "$T/ublk") 2> /dev/null; wc -c < "$T/ublk")
[ "$blk" -eq 1024 ] && blk=512 || blk=1024
# shellcheck disable=SC2086
(ulimit -f $((39000000 / blk)) && "$STARMET" $B --output "$T/bigf") > "$T/log.out" 2> "$T/log.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne $((128 + 25)) ] && pass || fail "large, ulimit -f: exit $rc"
grep -q "bigf\.tsv\.part: write failed: File too large" "$T/log.err" && [ ! -e "$T/bigf.tsv" ] &&
  pass || { fail "large, ulimit -f: message or a final file"; cat "$T/log.err" >&2; }

# the summary on a full standard output, with and without files
# shellcheck disable=SC2086
"$STARMET" compute ${A#compute --quiet } > /dev/full 2> "$T/log.err" && fail "stdout full: exit 0" || pass
grep -q "cannot write the run's summary to standard output: No space left on device" "$T/log.err" &&
  pass || { fail "stdout full: message"; cat "$T/log.err" >&2; }
"$STARMET" maf --input "$GL" > /dev/full 2> "$T/log.err" && fail "maf, stdout full: exit 0" || pass
grep -q "cannot write the run's summary to standard output" "$T/log.err" && pass ||
  fail "maf, stdout full: message"
finish
