#!/bin/sh
# cli_errors.sh: bad input and bad options give one clear error line that
# names the file or option and the problem, a non-zero exit, and no output
# file (complete-looking or temporary) left behind.
. "$(dirname "$0")/../lib.sh"

O=$T/out
c() { "$STARMET" compute --quiet --output "$O" "$@"; }

# a good genotype set to corrupt
"$STARMET" synth --metric ccc --num-vector 10 --num-field 21 --output-format plink --output "$T/g" \
  > /dev/null 2>&1 || fail "synth plink"
"$STARMET" synth --metric czekanowski --num-vector 4 --num-field 5 --output-format npy --output "$T/good.npy" \
  > /dev/null 2>&1 || fail "synth npy"

expect_error "missing file" "nope\.tsv.*(No such file|cannot open)" "$O" c --input "$T/nope.tsv"
expect_error "missing plink" "nope.*(No such file|cannot open)" "$O" c --bfile "$T/nope"

cp "$T/g.bim" "$T/m.bim"; cp "$T/g.fam" "$T/m.fam"
printf 'XY\001' > "$T/m.bed"; tail -c +4 "$T/g.bed" >> "$T/m.bed"
expect_error "bed magic" "m\.bed.*magic" "$O" c --bfile "$T/m"

cp "$T/g.bim" "$T/s.bim"; cp "$T/g.fam" "$T/s.fam"; head -c 20 "$T/g.bed" > "$T/s.bed"
expect_error "bed size" "s\.bed.*(size|bytes)" "$O" c --bfile "$T/s"

cp "$T/g.bed" "$T/x.bed"; cp "$T/g.fam" "$T/x.fam"; cp "$T/g.bim" "$T/x.bim"
echo "1	extra	0	99	A	G" >> "$T/x.bim"
expect_error "bim/bed count mismatch" "x\.(bed|bim).*(11|size|bytes)" "$O" c --bfile "$T/x"

cp "$T/g.bed" "$T/y.bed"; cp "$T/g.bim" "$T/y.bim"; head -n 20 "$T/g.fam" > "$T/y.fam"
expect_error "fam/bed count mismatch" "y\.(bed|fam).*(20|size|bytes)" "$O" c --bfile "$T/y"

printf 'a\t1\t2\nb\t3\tx\n' > "$T/nonnum.tsv"
expect_error "non-numeric tsv" "nonnum\.tsv.*2.*'x'" "$O" c --input "$T/nonnum.tsv"
printf 'a\t1\t2\nb\t3\n' > "$T/ragged.tsv"
expect_error "ragged tsv" "ragged\.tsv.*2.*(column|field)" "$O" c --input "$T/ragged.tsv"
printf 'a\t1\t2\nb\t-3\t1\n' > "$T/neg.tsv"
expect_error "negative value" "neg\.tsv.*-3" "$O" c --input "$T/neg.tsv"
printf 'a\t1\t2\nb\tnan\t1\n' > "$T/nan.tsv"
expect_error "nan value" "nan\.tsv.*nan" "$O" c --input "$T/nan.tsv"
: > "$T/empty.tsv"
expect_error "empty file" "empty\.tsv.*(empty|no vector|no data)" "$O" c --input "$T/empty.tsv"
printf 'name\tf1\tf2\n' > "$T/hdr.tsv"
expect_error "header only" "hdr\.tsv.*(no vector|no data|empty)" "$O" c --input "$T/hdr.tsv"
printf 'a\t1\t2\n' > "$T/one.tsv"
expect_error "one vector" "one\.tsv.*1 vector.*at least 2" "$O" c --input "$T/one.tsv"
printf 'a\t1\t2\nb\t2\t2\n' > "$T/two.tsv"
expect_error "two vectors 3-way" "two\.tsv.*2 vectors.*at least 3" "$O" c --input "$T/two.tsv" \
  --num-way 3 --compute-method ref

sed 's/<f8/<c8/' "$T/good.npy" > "$T/cplx.npy"
expect_error "npy dtype" "cplx\.npy.*c8" "$O" c --input "$T/cplx.npy"
sed 's/<f8/>f8/' "$T/good.npy" > "$T/be.npy"
expect_error "npy big-endian" "be\.npy.*(>f8|big)" "$O" c --input "$T/be.npy"
sed 's/False/True /' "$T/good.npy" > "$T/fort.npy"
expect_error "npy fortran" "fort\.npy.*Fortran" "$O" c --input "$T/fort.npy"
head -c 100 "$T/good.npy" > "$T/trunc.npy"
expect_error "npy truncated" "trunc\.npy.*(truncat|size|short)" "$O" c --input "$T/trunc.npy"

head -c 1001 /dev/zero > "$T/odd.bin"
expect_error "raw size" "odd\.bin.*(size|bytes)" "$O" c --input "$T/odd.bin" --num-field 25
expect_error "raw needs num-field" "num-field" "$O" c --input "$T/odd.bin"

expect_error "unknown metric" "--metric.*'foo'" "$O" c --metric foo --synthetic random --num-vector 5 --num-field 5
expect_error "unknown option" "unknown.*--frobnicate" "$O" c --frobnicate
cs() { c --synthetic random --num-vector 5 --num-field 5 "$@"; }
expect_error "int8 czekanowski" "--ccc-gemm int8 applies to ccc 2-way" "$O" cs --metric czekanowski --ccc-gemm int8
expect_error "int8 3-way" "--ccc-gemm int8 applies to ccc 2-way" "$O" cs --metric ccc --num-way 3 --ccc-gemm int8
expect_error "int8 ref" "--ccc-gemm int8 applies to ccc 2-way" "$O" cs --metric ccc --compute-method ref --ccc-gemm int8
expect_error "int8 and --kernel" "--kernel blocked: --ccc-gemm int8" "$O" cs --metric ccc --kernel blocked --ccc-gemm int8
expect_error "bad --ccc-gemm" "--ccc-gemm.*'fp16'" "$O" cs --metric ccc --ccc-gemm fp16
expect_error "bad number" "--num-vector.*'12x'" "$O" c --synthetic random --num-vector 12x --num-field 5
expect_error "threshold too big" "--threshold.*out of range" "$O" c --synthetic random --num-vector 5 \
  --num-field 5 --threshold 1.5
expect_error "threshold negative" "--threshold.*out of range" "$O" c --synthetic random --num-vector 5 \
  --num-field 5 --threshold -0.1
expect_error "no input" "no input" "$O" c
expect_error "two inputs" "one input" "$O" c --input a.tsv --synthetic random
expect_error "tsv for ccc" "(PLINK|plink)" "$O" c --metric ccc --input "$T/two.tsv"
expect_error "single ccc" "single.*czekanowski" "$O" c --metric ccc --precision single --synthetic random \
  --num-vector 5 --num-field 5
expect_error "bad sched" "--sched.*'nosuch'" "$O" c --synthetic random --num-vector 5 --num-field 5 --sched nosuch
mkdir -p "$T/ro"; chmod 500 "$T/ro"
if [ "$(id -u)" -ne 0 ]; then
  expect_error "unwritable dir" "ro/x.*(cannot create|Permission)" "$T/ro/x" \
    "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 --output "$T/ro/x"
fi
expect_error "missing dir" "--output .*nodir/x: the directory .*nodir does not exist: create it first \(mkdir -p .*nodir\)" "$T/nodir/x" \
  "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 --output "$T/nodir/x"
# every path a run writes is checked before it computes: a summary in a
# missing directory, one under a file, a synth output; nothing is written
expect_error "summary dir" "--summary .*nodir/s.json: the directory .*nodir does not exist" "$T/sdir" \
  "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 --output "$T/sdir" \
  --summary "$T/nodir/s.json"
touch "$T/afile"
expect_error "summary under a file" "--summary .*afile/s.json: .*afile is not a directory" "$T/sdir" \
  "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 --output "$T/sdir" \
  --summary "$T/afile/s.json"
expect_error "synth dir" "--output .*nodir/g: the directory .*nodir does not exist" "$T/nodir/g" \
  "$STARMET" synth --metric ccc --num-vector 5 --num-field 5 --output-format plink --output "$T/nodir/g"
# sizes whose byte count does not fit in 64 bits: refused, never a wrapped
# (too small) allocation
expect_error "synth beyond 2^64 bytes" "4294967295 vectors x 4294967295 fields need more bytes than this machine can address" \
  "$T/huge" "$STARMET" synth --num-vector 4294967295 --num-field 4294967295 --output "$T/huge"
expect_error "synth beyond 2^64 bytes (wrapping to 128 GiB)" "2147483648 vectors x 1073741825 fields need more bytes" \
  "$T/huge" "$STARMET" synth --num-vector 2147483648 --num-field 1073741825 --output "$T/huge"

mkdir -p "$T/pd"
# a directory given as the input file (it opens, and read as raw, text or
# BEAGLE it said "needs --num-field", "empty" or "damaged")
for fmt in auto tsv npy raw; do
  expect_error "directory input ($fmt)" "^starmet: error: .*/pd: a directory, not an input file: give the file's path" \
    "$T/dirin" "$STARMET" compute --quiet --input "$T/pd" --input-format "$fmt" --output "$T/dirin"
done
expect_error "directory input (maf)" "^starmet: error: .*/pd: a directory, not an input file: give the BEAGLE or VCF" \
  "$T/dirin" "$STARMET" maf --quiet --input "$T/pd" --output "$T/dirin"

# a prefix is a name: a directory alone ("d/", ".", "..") would make hidden
# files (d/.tsv); refused for compute, synth and maf, nothing written
for p in "$T/pd/" "$T/pd/." "$T/pd/.."; do
  expect_error "prefix $p" "--output '.*pd/?\.{0,2}' ends without a file name .* as in --output .*pd/+(\.{1,2}/)?run1" \
    "$T/pd/." "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 --output "$p"
done
(cd "$T/pd" && "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 \
  --output "" 2> "$T/log.err") && fail "empty prefix: accepted" ||
  { grep -q "^starmet: error: --output '' ends without a file name.* as in --output run1$" "$T/log.err" &&
    [ -z "$(ls -A "$T/pd")" ] && pass || { fail "empty prefix: message or files:"; cat "$T/log.err" >&2; }; }
expect_error "synth prefix" "--output '.*pd/' ends without a file name" "$T/pd/." \
  "$STARMET" synth --metric ccc --num-vector 5 --num-field 5 --output-format plink --output "$T/pd/"
expect_error "maf prefix" "--output '.*pd/' ends without a file name" "$T/pd/." \
  "$STARMET" maf --input "$top_srcdir/data/example_gl.beagle.gz" --output "$T/pd/"
expect_error "summary name" "--summary '.*pd/' ends without a file name" "$T/pd/." \
  "$STARMET" compute --quiet --synthetic random --num-vector 5 --num-field 5 --summary "$T/pd/"
[ -z "$(ls -A "$T/pd")" ] && pass || fail "refused prefixes left files: $(ls -A "$T/pd")"
finish
