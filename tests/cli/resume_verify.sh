#!/bin/sh
# resume_verify.sh: --resume trusts nothing it has not checked. The
# fingerprint covers the options that change how the input is read and the
# input's bytes (not only its size and time); every manifest line carries
# its own CRC and that of the output bytes it vouches for. A different run
# or a damaged manifest is refused with a message naming the file (and the
# line), the partial output and its manifest are left as they were, and no
# final file appears. A partial output changed since the run stopped
# (edited, cut short, its header replaced, a manifest line before a block
# missing) keeps what still checks out: the resume names the first block
# that does not, computes it and everything after it again, and ends with
# the uninterrupted run's bytes. Controls: a torn last line and an
# untouched resume give the uninterrupted run's bytes too.
. "$(dirname "$0")/../lib.sh"

# a square table: --transpose reads another problem of the same sizes
awk 'BEGIN { srand(9); printf "id"; for (j = 0; j < 60; j++) printf "\tc%d", j; printf "\n"
  for (i = 0; i < 60; i++) { printf "r%d", i
    for (j = 0; j < 60; j++) printf "\t%.4f", rand(); printf "\n" } }' > "$T/sq.tsv"
A="compute --quiet --metric czekanowski --input $T/sq.tsv --block-size 8"
# shellcheck disable=SC2086
run_ok "uninterrupted" "$STARMET" $A --output "$T/full"
# shellcheck disable=SC2086
run_ok "uninterrupted, transposed" "$STARMET" $A --transpose --output "$T/fullt"
cmp -s "$T/full.tsv" "$T/fullt.tsv" && fail "the transposed problem is the same one" || pass

# killed PREFIX N [ARGS]: a run of $A killed after N output blocks
killed() {
  p=$1 n=$2; shift 2
  rm -f "$p".*
  # shellcheck disable=SC2086
  "$STARMET" $A "$@" --output "$p" --debug-stop-after-blocks "$n" > /dev/null 2>&1
  [ -e "$p.manifest" ] && [ -e "$p.tsv.part" ] && pass || fail "$p: nothing to resume"
}
# refused NAME PATTERN PREFIX [ARGS]: --resume must fail with PATTERN and
# leave the partial output and the manifest untouched
refused() {
  name=$1 pattern=$2 p=$3; shift 3
  sum_before=$(cat "$p.tsv.part" "$p.manifest" | cksum)
  # shellcheck disable=SC2086
  if "$STARMET" $A "$@" --output "$p" --resume > "$T/log.out" 2> "$T/log.err"; then
    fail "$name: resumed, should have refused"; return; fi
  grep -Eq -- "$pattern" "$T/log.err" && pass ||
    { fail "$name: message does not match /$pattern/:"; cat "$T/log.err" >&2; }
  [ ! -e "$p.tsv" ] && pass || fail "$name: a final file appeared"
  [ "$(cat "$p.tsv.part" "$p.manifest" | cksum)" = "$sum_before" ] && pass ||
    fail "$name: the partial output or the manifest changed"
}
# recomputed NAME PATTERN PREFIX [ARGS]: --resume must warn with PATTERN,
# compute what is bad again and end with the uninterrupted run's file
recomputed() {
  name=$1 pattern=$2 p=$3; shift 3
  # shellcheck disable=SC2086
  run_ok "$name" "$STARMET" $A "$@" --output "$p" --resume
  grep -Eq -- "$pattern" "$T/log.err" && pass ||
    { fail "$name: message does not match /$pattern/:"; cat "$T/log.err" >&2; }
  cmp -s "$p.tsv" "$T/full.tsv" && pass || fail "$name: the output differs from the uninterrupted run's"
  [ ! -e "$p.tsv.part" ] && [ ! -e "$p.manifest" ] && pass || fail "$name: files left behind"
}
# the manifest's block lines with records (line number, then the line)
nonempty_lines() { awk '/^B / && $4 > 0 { print NR }' "$1"; }

# 1. an option that changes how the input is read
killed "$T/t" 10
refused "--transpose on resume" "sq\.tsv|different run" "$T/t" --transpose
refused "--header yes on resume" "different run" "$T/t" --header yes

# 2. the input corrected in place: same size, same time to the second and
# the nanosecond (touch -r), one digit changed
killed "$T/i" 10
cp -p "$T/sq.tsv" "$T/sq.orig"
sed '5s/0\./1./' "$T/sq.orig" > "$T/sq.new" && cat "$T/sq.new" > "$T/sq.tsv"
touch -r "$T/sq.orig" "$T/sq.tsv"
[ "$(stat -c %s.%Y "$T/sq.tsv")" = "$(stat -c %s.%Y "$T/sq.orig")" ] && pass ||
  fail "the corrected input's size or time differs: the case tests nothing"
refused "input corrected in place" "different run" "$T/i"
cat "$T/sq.orig" > "$T/sq.tsv"
touch -r "$T/sq.orig" "$T/sq.tsv"

# 3. a block line missing in the middle of the manifest
killed "$T/m" 12
second=$(nonempty_lines "$T/m.manifest" | sed -n 2p)
if [ -n "$second" ]; then
  sed -i "${second}d" "$T/m.manifest"
  recomputed "a manifest line missing" "block [0-9]+ \(line [0-9]+ of .*m\.manifest.*line of the manifest before it is missing\); computing it and the [0-9]+ blocks written after it again" "$T/m"
else fail "the killed run recorded fewer than 2 blocks with records"; fi

# 4. a manifest line edited (a record count), and one replaced by garbage
killed "$T/e" 12
awk 'NR == 4 { $4 = $4 + 1 } { print }' "$T/e.manifest" > "$T/e.new" && mv "$T/e.new" "$T/e.manifest"
refused "a manifest line edited" "e\.manifest:4: this line of the manifest is damaged" "$T/e"
killed "$T/g" 12
sed -i '5s/.*/B 1 2 3/' "$T/g.manifest"
refused "a manifest line replaced" "g\.manifest:5: this line of the manifest is damaged" "$T/g"

# 5. the partial output edited inside a recorded block, same size
killed "$T/p" 12
sz=$(stat -c %s "$T/p.tsv.part")
printf '9' | dd of="$T/p.tsv.part" bs=1 seek=$((sz / 2)) conv=notrunc 2> /dev/null
recomputed "the partial output edited" "p\.tsv\.part: block [0-9]+ .* does not hold what the manifest records" "$T/p"
# its header edited
killed "$T/h" 12
printf 'X' | dd of="$T/h.tsv.part" bs=1 seek=1 conv=notrunc 2> /dev/null
recomputed "the header edited" "h\.tsv\.part: its header is not the one recorded: .* computing its [0-9]+ completed blocks again" "$T/h"

# 6. the partial output cut short
killed "$T/c" 12
head -c 300 "$T/c.tsv.part" > "$T/c.short" && cat "$T/c.short" > "$T/c.tsv.part"
recomputed "the partial output cut short" "c\.tsv\.part: block [0-9]+ .* is cut short" "$T/c"
# removed altogether
killed "$T/r" 12
rm "$T/r.tsv.part"
recomputed "the partial output removed" "r\.tsv\.part: the partial output of the interrupted run cannot be read \(it is missing\): computing its [0-9]+ completed blocks again" "$T/r"

# 7. a manifest of the previous format
killed "$T/v" 12
sed -i '1s/^starmet-manifest 2 /starmet-manifest 1 /' "$T/v.manifest"
refused "an old manifest" "v\.manifest: this manifest was written by another version" "$T/v"

# 8. binary output: a record's value changed
B="--output-format bin"
# shellcheck disable=SC2086
run_ok "bin uninterrupted" "$STARMET" $A $B --output "$T/fb"
rm -f "$T"/b.*
# shellcheck disable=SC2086
"$STARMET" $A $B --output "$T/b" --debug-stop-after-blocks 12 > /dev/null 2>&1
sz=$(stat -c %s "$T/b.bin.part")
printf '\377' | dd of="$T/b.bin.part" bs=1 seek=$((sz - 3)) conv=notrunc 2> /dev/null
# shellcheck disable=SC2086
run_ok "bin: a value edited" "$STARMET" $A $B --output "$T/b" --resume
grep -Eq "b\.bin\.part: block [0-9]+ .* does not hold" "$T/log.err" && pass ||
  { fail "bin: a value edited: no warning naming the block"; cat "$T/log.err" >&2; }
cmp -s "$T/b.bin" "$T/fb.bin" && pass || fail "bin: a value edited: the output differs"

# controls: a torn last line is dropped, an untouched run resumes exactly
killed "$T/k" 12
head -c -7 "$T/k.manifest" > "$T/k.cut" && cat "$T/k.cut" > "$T/k.manifest"
# shellcheck disable=SC2086
run_ok "resume after a torn last line" "$STARMET" $A --output "$T/k" --resume
cmp -s "$T/k.tsv" "$T/full.tsv" && pass || fail "resume after a torn line: output differs"
killed "$T/ok" 7
# shellcheck disable=SC2086
run_ok "plain resume" "$STARMET" compute --metric czekanowski --input "$T/sq.tsv" \
  --block-size 8 --output "$T/ok" --resume
grep -q -- "--resume: the partial output checks out" "$T/log.err" && pass ||
  fail "the resume did not say it checked the partial output"
cmp -s "$T/ok.tsv" "$T/full.tsv" && pass || fail "plain resume: output differs"
finish
