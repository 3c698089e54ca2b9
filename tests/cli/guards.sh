#!/bin/sh
# guards.sh: cases that once ended in "ok" with a wrong or incomplete file,
# or destroyed the user's data: resume across a changed tile size, worker
# count or input, damaged manifests and partial outputs; outputs that are
# the input; numbers that wrap; Czekanowski sums beyond the precision.
# Runs are stopped at a known point (--debug-stop-after-blocks, a SIGKILL of
# the process itself once N blocks are on disk) and each resume is checked
# to have really resumed.
. "$(dirname "$0")/../lib.sh"

A="compute --metric ccc --synthetic random --num-vector 300 --num-field 200 --missing-rate 0.05"

# stopped NAME PREFIX ARGS...: the run must die from its own SIGKILL, leave
# no final file, and leave a manifest and a partial output to resume
stopped() {
  name=$1 prefix=$2; shift 2
  rm -f "$prefix".*
  "$@" --output "$prefix" > /dev/null 2>&1
  rc=$?
  if [ $rc -ne 137 ]; then fail "$name: exit $rc, not a SIGKILL (137)"; return 1; fi
  if [ -e "$prefix.tsv" ]; then fail "$name: a killed run left a final file"; return 1; fi
  if [ ! -e "$prefix.manifest" ] || [ ! -e "$prefix.tsv.part" ]; then
    fail "$name: nothing to resume"; return 1; fi
  pass
}

# resumed NAME PREFIX REF ARGS...: --resume must say it skipped completed
# blocks and give REF's file and checksum
resumed() {
  name=$1 prefix=$2 ref=$3; shift 3
  if ! "$@" --output "$prefix" --resume > "$T/log.out" 2> "$T/log.err"; then
    fail "$name: resume failed"; cat "$T/log.err" >&2; return; fi
  grep -q "output blocks were complete" "$T/log.err" && pass ||
    fail "$name: the run did not resume anything"
  cmp -s "$prefix.tsv" "$ref.tsv" && pass || fail "$name: resumed output differs"
  [ "$(cks "$prefix.json")" = "$(cks "$ref.json")" ] && pass || fail "$name: checksum differs"
}

# --- resume keeps the interrupted run's tile size
# shellcheck disable=SC2086
run_ok "full, tiles of 40" "$STARMET" $A --block-size 40 --output "$T/f40"
# shellcheck disable=SC2086
stopped "stop with --block-size 40" "$T/r40" "$STARMET" $A --block-size 40 --debug-stop-after-blocks 5 &&
  resumed "resume without --block-size" "$T/r40" "$T/f40" "$STARMET" $A

# an automatic tile size is recorded once chosen: a resume with another
# worker count (which chooses another size) continues with the recorded one
tiles() { sed -n 's/.*"block_size": \([0-9]*\).*/\1/p' "$1" | head -n 1; }
# shellcheck disable=SC2086
run_ok "full, automatic tiles, 2 workers" env STARPU_NCPU=2 "$STARMET" $A --output "$T/fa"
# shellcheck disable=SC2086
run_ok "full, automatic tiles, 1 worker" env STARPU_NCPU=1 "$STARMET" $A --output "$T/fa1"
[ "$(tiles "$T/fa.json")" != "$(tiles "$T/fa1.json")" ] && pass ||
  fail "1 and 2 workers choose the same tile size: the next case proves nothing"
# shellcheck disable=SC2086
if stopped "stop with automatic tiles" "$T/ra" env STARPU_NCPU=2 "$STARMET" $A --debug-stop-after-blocks 1; then
  bs=$(sed -n 's/^block_size \([0-9]*\) .*/\1/p' "$T/ra.manifest")
  [ "$bs" = "$(tiles "$T/fa.json")" ] && pass || fail "manifest records tile size '$bs'"
  # shellcheck disable=SC2086
  resumed "resume with one worker" "$T/ra" "$T/fa" env STARPU_NCPU=1 "$STARMET" $A
fi

# --- damaged manifests and partial outputs are refused, nothing is renamed
# shellcheck disable=SC2086
damaged() {
  name=$1 pattern=$2 edit=$3
  stopped "$name: stop" "$T/d" "$STARMET" $A --block-size 40 --debug-stop-after-blocks 6 || return
  eval "$edit"
  expect_error "$name" "$pattern" - "$STARMET" $A --block-size 40 --output "$T/d" --resume
  [ ! -e "$T/d.tsv" ] && pass || fail "$name: a final file appeared"
}
damaged "absurd tile size" "d\.manifest:2: this line of the manifest is damaged" \
  'sed -i "2s/^block_size [0-9]*/block_size 18446744073709551615/" "$T/d.manifest"'
damaged "duplicated block line" "d\.manifest: block [0-9]+ is recorded twice" \
  'tail -n 1 "$T/d.manifest" >> "$T/d.manifest"'
damaged "block line out of order" "d\.manifest:[0-9]+: block [0-9]+ ends at byte [0-9]+, before" \
  'sed -n 3p "$T/d.manifest" >> "$T/d.manifest"'
# a partial output cut short is no damage to the manifest: what it lost is
# computed again (resume_verify.sh compares the bytes)
stopped "truncated partial output: stop" "$T/d" "$STARMET" $A --block-size 40 --debug-stop-after-blocks 6 &&
  truncate -s 100 "$T/d.tsv.part" &&
  run_ok "truncated partial output" "$STARMET" $A --block-size 40 --output "$T/d" --resume &&
  grep -Eq "d\.tsv\.part: (block [0-9]+ .* is cut short|its header is not the one recorded)" "$T/log.err" &&
  [ -s "$T/d.tsv" ] && [ ! -e "$T/d.tsv.part" ] && pass || fail "truncated partial output: not recomputed"

# --- names edited in the .bim between the kill and the resume
"$STARMET" synth --metric ccc --num-vector 300 --num-field 100 --output-format plink \
  --output "$T/g" > /dev/null 2>&1 || fail "synth plink"
G="compute --bfile $T/g --block-size 40"
# shellcheck disable=SC2086
if stopped "plink stop" "$T/p" "$STARMET" $G --debug-stop-after-blocks 3; then
  sleep 1 # a new modification time even on coarse clocks
  sed -i 's/^\([^\t]*\)\t\([^\t]*\)\t/\1\tRENAMED_\2\t/' "$T/g.bim"
  # shellcheck disable=SC2086
  expect_error "edited .bim" "p\.manifest: this manifest was written by a different run" - \
    "$STARMET" $G --output "$T/p" --resume
fi

# --- no output, summary, trace or manifest may be the input
printf 'a\t1\t2\t3\nb\t4\t5\t6\nc\t1\t1\t1\n' > "$T/x.tsv"
cp "$T/x.tsv" "$T/x.orig"
unchanged() { cmp -s "$T/x.tsv" "$T/x.orig" && pass || fail "$1: the input was changed"; }
expect_error "output is the input" "x\.tsv \(from --output\) is the input file" - \
  "$STARMET" compute --input "$T/x.tsv" --output "$T/x"
unchanged "output is the input"
expect_error "summary is the input" "x\.tsv \(from --summary\) is the input file" - \
  "$STARMET" compute --input "$T/x.tsv" --output "$T/y" --summary "$T/x.tsv"
unchanged "summary is the input"
expect_error "trace is the input" "x\.tsv \(from --trace\) is the input file" - \
  "$STARMET" compute --input "$T/x.tsv" --output "$T/y" --trace "$T/x.tsv"
unchanged "trace is the input"
ln -s x.tsv "$T/link.tsv"
expect_error "output is the input through a link" "is the input file" - \
  "$STARMET" compute --input "$T/link.tsv" --output "$T/x"
unchanged "output is the input through a link"
"$STARMET" synth --metric czekanowski --num-vector 5 --num-field 7 --output-format raw \
  --output "$T/raw.bin" > /dev/null 2>&1 || fail "synth raw"
cp "$T/raw.bin" "$T/raw.orig"
expect_error "raw input, bin output with its name" "raw\.bin \(from --output\) is the input file" - \
  "$STARMET" compute --input "$T/raw.bin" --input-format raw --num-vector 5 --num-field 7 \
  --output "$T/raw" --output-format bin
cmp -s "$T/raw.bin" "$T/raw.orig" && pass || fail "raw input was changed"
printf 'marker\tallele1\tallele2\tI\tI\tI\nc_1\t0\t1\t0.1\t0.2\t0.7\n' > "$T/m.beagle"
cp "$T/m.beagle" "$T/m.orig"
expect_error "maf summary is the input" "m\.beagle \(from --summary\) is the input file" - \
  "$STARMET" maf --input "$T/m.beagle" --summary "$T/m.beagle"
cmp -s "$T/m.beagle" "$T/m.orig" && pass || fail "maf input was changed"

# --- numbers parse strictly: no blanks, no sign, no wrap-around
for bad in " -1" "-1" "+5" " 5" "18446744073709551615" "4294967296" "5x" ""; do
  expect_error "--block-size '$bad'" "block-size" "$T/bs" \
    "$STARMET" compute --synthetic random --num-vector 10 --num-field 10 --block-size "$bad" \
    --output "$T/bs"
done
expect_error "--threshold ' 0.5'" "threshold" - \
  "$STARMET" compute --synthetic random --num-vector 10 --num-field 10 --threshold " 0.5" \
  --output-format none
expect_error "--num-vector 2^60" "num-vector" - \
  "$STARMET" compute --input "$T/raw.bin" --input-format raw --num-vector 1152921504606846976 \
  --num-field 7 --output-format none

# --- Czekanowski sums beyond the precision are refused, not NaN
printf 'a\t1e308\t1e308\nb\t1\t2\nc\t3\t4\n' > "$T/big.tsv"
expect_error "double sums overflow" "big\.tsv: a vector's values sum to .*scale the input down" "$T/o_big" \
  "$STARMET" compute --input "$T/big.tsv" --output "$T/o_big"
printf 'a\t2e38\t2e38\nb\t1\t2\nc\t3\t4\n' > "$T/bigs.tsv"
expect_error "single sums overflow" "bigs\.tsv: a vector's values sum to" "$T/o_bigs" \
  "$STARMET" compute --input "$T/bigs.tsv" --precision single --output "$T/o_bigs"
# the same rows in double are fine, and so are large values that fit
run_ok "single-size values in double" "$STARMET" compute --input "$T/bigs.tsv" --output "$T/bigd"
printf 'a\t1e307\t1e307\nb\t1e307\t2\nc\t3\t4\n' > "$T/fit.tsv"
run_ok "large values that fit" "$STARMET" compute --input "$T/fit.tsv" --output "$T/o_fit"
grep -qi "nan" "$T/o_fit.tsv" && fail "NaN in a result that fits" || pass

# --- text tables as real tools write them
# layout NAME FILE WANT-NAMES WANT-HEADER WANT-ROWNAMES [OPTIONS...]: the
# first pair's names, and what the summary says was read
layout() {
  name=$1 file=$2 want=$3 hdr=$4 rn=$5; shift 5
  rm -f "$T/lay".*
  if ! "$STARMET" compute --input "$file" --output "$T/lay" "$@" > /dev/null 2> "$T/lay.err"; then
    fail "$name: failed"; cat "$T/lay.err" >&2; return; fi
  got=$(sed -n 2p "$T/lay.tsv" | cut -f 1,2)
  [ "$got" = "$want" ] && pass || fail "$name: first pair '$got', want '$want'"
  grep -q "\"text_header\": \"$hdr\", \"text_row_names\": \"$rn\"" "$T/lay.json" && pass ||
    fail "$name: summary does not say header $hdr, row names $rn"
}
tab=$(printf '\t')
printf '\357\273\277a\t2\t3\nb\t5\t6\nc\t8\t10\n' > "$T/bom.tsv"
layout "byte-order mark before a name" "$T/bom.tsv" "a${tab}b" no yes
printf '\357\273\2771\t2\t3\n4\t5\t6\n7\t8\t10\n' > "$T/bomnum.tsv"
layout "byte-order mark before a number" "$T/bomnum.tsv" "0${tab}1" no no
grep -q "rising integers" "$T/lay.err" && pass || fail "rising first column: no warning"
printf 'id\tf0\tf1\n101\t1\t2\n102\t3\t4\n103\t5\t5\n' > "$T/ids.tsv"
layout "numeric ids under an id header" "$T/ids.tsv" "101${tab}102" yes yes
grep -q "headed 'id'.*row names" "$T/lay.err" && pass || fail "id column: no warning"
layout "--row-names no" "$T/ids.tsv" "0${tab}1" yes no --row-names no
printf 'f0\tf1\n1\t1\t2\n2\t3\t4\n3\t5\t5\n' > "$T/rwt.tsv"
layout "R write.table (no cell over the row names)" "$T/rwt.tsv" "1${tab}2" yes yes
printf '1\t1\t2\n2\t3\t4\n3\t5\t5\n' > "$T/rise.tsv"
layout "--row-names yes on numbers" "$T/rise.tsv" "1${tab}2" no yes --row-names yes
printf '5\t6\t7\n1\t1\t2\n2\t3\t4\n' > "$T/numhdr.tsv"
layout "--header yes on a numeric first line" "$T/numhdr.tsv" "0${tab}1" yes no --header yes
expect_error "--header no on a header" "ids\.tsv:1:2: 'f0' is not a number" - \
  "$STARMET" compute --input "$T/ids.tsv" --header no --row-names yes --output-format none

# --- sizes beyond 2^64 bytes are said as such, not wrapped
python3 - "$T/huge.npy" << 'PY'
import sys
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }"
h += " " * (64 - (10 + len(h) + 1) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode() + bytes(64))
PY
expect_error "npy shape 2^62 x 2^62" "huge\.npy: shape .* needs more than 2\^64 data bytes" - \
  "$STARMET" compute --input "$T/huge.npy" --output-format none
expect_error "raw sizes beyond 2^64 bytes" "raw\.bin: 4294967295 vectors .* need more than 2\^64 bytes" - \
  "$STARMET" compute --input "$T/raw.bin" --input-format raw --num-vector 4294967295 \
  --num-field 1099511627776 --output-format none

# --- the comparison tool does not call two empty sets equal
: > "$T/e1.tsv"; : > "$T/e2.tsv"
if "$SMCMP" "$T/e1.tsv" "$T/e2.tsv" > /dev/null 2>&1; then fail "smcmp: two empty files agree"; else pass; fi
"$SMCMP" --allow-empty "$T/e1.tsv" "$T/e2.tsv" > /dev/null 2>&1 && pass || fail "smcmp --allow-empty"

# --- the command line as given: extra operands are refused, the summary
# quotes every option whole
expect_error "synth with an extra operand" "synth: unexpected argument 'extra'" "$T/sx" \
  "$STARMET" synth --metric ccc --num-vector 5 --num-field 7 --output "$T/sx" extra
run_ok "inject-faults seed" "$STARMET" compute --quiet --metric ccc --synthetic random \
  --num-vector 20 --num-field 30 --verify --inject-faults 0.1,7 --output "$T/inj"
grep -q '"command": "[^"]*--inject-faults 0.1,7' "$T/inj.json" && pass ||
  fail "the summary's command lost the seed of --inject-faults"


# --- two runs writing the same output: the second stops before it touches
# the first's partial output or manifest (here `flock` holds them, as a
# running starmet does), and says why
S="compute --quiet --metric ccc --synthetic random --num-vector 50 --num-field 60"
if command -v flock > /dev/null; then
  echo "another run's bytes" > "$T/two.tsv.part"
  # shellcheck disable=SC2086
  expect_error "output held by another run" "two\.tsv\.part: .*another process is writing it" - \
    flock "$T/two.tsv.part" "$STARMET" $S --output "$T/two"
  [ "$(cat "$T/two.tsv.part")" = "another run's bytes" ] && pass ||
    fail "the held partial output was changed"
  [ ! -e "$T/two.tsv" ] && [ ! -e "$T/two.manifest" ] && pass ||
    fail "the refused run left files behind: $(ls "$T"/two.*)"
  rm -f "$T"/two.*
  echo "another run's manifest" > "$T/two.manifest"
  for r in "" --resume; do
    # shellcheck disable=SC2086
    expect_error "manifest held by another run $r" "two\.manifest: another process is writing it" - \
      flock "$T/two.manifest" "$STARMET" $S --output "$T/two" $r
    [ "$(cat "$T/two.manifest")" = "another run's manifest" ] && [ ! -e "$T/two.tsv.part" ] &&
      pass || fail "the held manifest was replaced or a partial output started ($r)"
  done
else
  skip_part "flock (util-linux) is not installed"
fi

# --- a rank grid without the ranks: MPI itself is asked how many run, and
# a process started alone is told to use a launcher
# shellcheck disable=SC2086
expect_error "grid without a launcher" "= 2 does not match the 1 MPI ranks.*MPI launcher" "$T/g2" \
  env -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMIX_NAMESPACE \
  "$STARMET" $S --num-proc-vector 2 --output "$T/g2"


# --- VCF records and headers htslib would end the process on (it calls
# exit() on an undecodable FORMAT field): starmet's error instead
expect_error "VCF record with an undecodable GT" "1:10: the GT field cannot be decoded" - \
  "$STARMET" compute --input "$top_srcdir/fuzz/corpus/vcf/regress-gt-undecodable.vcf" --metric ccc \
  --output-format none
printf '##fileformat=VCFv4.2\n##FORMAT=<ID=GT,Number=1,Type=Integer,Description="g">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\tB\n1\t5\tr\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n' > "$T/gtint.vcf"
expect_error "VCF header with GT Type=Integer" "FORMAT/GT with Type=Integer; the VCF specification says Type=String" - \
  "$STARMET" compute --input "$T/gtint.vcf" --metric ccc --output-format none

printf '##fileformat=VCFv4.2\n##FORMAT=<ID=GL,Number=G,Type=Integer,Description="g">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\tB\n1\t5\tr\tA\tG\t.\t.\t.\tGL\t0,-1,-2\t-2,-1,0\n' > "$T/glint.vcf"
expect_error "maf: VCF header with GL Type=Integer" "FORMAT/GL with Type=Integer; the VCF specification says Type=Float" "$T/glo" \
  "$STARMET" maf --input "$T/glint.vcf" --output "$T/glo"

finish
