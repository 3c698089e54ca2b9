#!/bin/sh
# plink_messages.sh: PLINK .bim/.fam lines that break PLINK's rules are
# refused naming the file and the line; numbers that are finite (subnormal
# ones) are taken, ones that are not get a message that says why; and the
# conversions that messages suggest (plink, numpy, iconv, bcftools) give
# inputs that the same command accepts, with the same values.
. "$(dirname "$0")/../lib.sh"

O=$T/out
c() { "$STARMET" compute --quiet --output "$O" "$@"; }
cq() { "$STARMET" compute --quiet "$@"; }
PY=${PYTHON3:-/usr/bin/python3}
have() { command -v "$1" > /dev/null 2>&1; }

# g: 10 SNPs x 21 samples (21 = 5 x 4 + 1: 3 padding slots per SNP)
"$STARMET" synth --metric ccc --num-vector 10 --num-field 21 --output-format plink \
  --output "$T/g" > /dev/null 2>&1 || fail "synth plink"
"$STARMET" compute --quiet --bfile "$T/g" --output "$T/ref" > /dev/null 2>&1 || fail "reference run"
# set_of NAME: a copy of g as $T/NAME.{bed,bim,fam}
set_of() { for x in bed bim fam; do cp "$T/g.$x" "$T/$1.$x"; done; }
# reads_as NAME PREFIX [OPTIONS]: PREFIX is accepted and gives ref's values
reads_as() {
  name=$1 p=$2; shift 2
  run_ok "$name" "$STARMET" compute --quiet --bfile "$p" --output "$p.o" "$@"
  same "$name: values" "$T/ref.tsv" "$p.o.tsv"
}

# --- .fam and .bim lines
set_of h1; { echo "#FID IID PAT MAT SEX PHENOTYPE"; cat "$T/g.fam"; } > "$T/h1.fam"
# (22 lines fit the .bed's 6 bytes per SNP: only the header rule stops it)
expect_error "#FID header in .fam" "h1\.fam:1: a line starting with '#' .*PLINK \.fam/\.bim files have no header line: remove it" "$O" c --bfile "$T/h1"
set_of h2; { printf '#CHROM\tID\tCM\tPOS\tALT\tREF\n'; cat "$T/g.bim"; } > "$T/h2.bim"
expect_error "#CHROM header in .bim" "h2\.bim:1: a line starting with '#'.*no header line" "$O" c --bfile "$T/h2"
set_of h3; sed '4i # a comment' "$T/g.bim" > "$T/h3.bim"
expect_error "comment line in .bim" "h3\.bim:4: a line starting with '#'" "$O" c --bfile "$T/h3"
set_of h4; sed '1s/^/  /; 1s/fam0/#fam0/' "$T/g.fam" > "$T/h4.fam"
expect_error "indented '#' line in .fam" "h4\.fam:1: a line starting with '#'" "$O" c --bfile "$T/h4"
set_of b1; sed '5i\\' "$T/g.fam" > "$T/b1.fam"
expect_error "blank line in .fam" "b1\.fam:5: blank line before line 6; a PLINK \.fam has one line per sample" "$O" c --bfile "$T/b1"
set_of b2; sed '3s/.*/ \t /' "$T/g.bim" > "$T/b2.bim"
expect_error "blank .bim line (blanks only) in place of a SNP" "b2\.bim:3: blank line before line 4; a PLINK \.bim has one line per SNP" "$O" c --bfile "$T/b2"
set_of b3; { head -n 1 "$T/g.fam"; printf '\n\n'; tail -n +2 "$T/g.fam"; } > "$T/b3.fam"
expect_error "two blank lines in .fam: the first is named" "b3\.fam:2: blank line before line 4" "$O" c --bfile "$T/b3"
set_of f5; sed '3s/[^\t]*$//; 3s/\t$//' "$T/g.fam" > "$T/f5.fam"
expect_error ".fam line of 5 fields" "f5\.fam:3: 5 fields, but a PLINK \.fam line has exactly 6 \(family id, sample id, father, mother, sex, phenotype\)" "$O" c --bfile "$T/f5"
set_of f7; sed '21s/$/\textra/' "$T/g.fam" > "$T/f7.fam"
expect_error ".fam line of 7 fields (the last line)" "f7\.fam:21: 7 fields, but a PLINK \.fam line has exactly 6" "$O" c --bfile "$T/f7"
set_of f1; sed '2s/\t/,/g' "$T/g.fam" > "$T/f1.fam"
expect_error ".fam line separated by commas" "f1\.fam:2: 1 field, but a PLINK \.fam line has exactly 6.*spaces or tabs" "$O" c --bfile "$T/f1"
set_of f0; printf 'fam0 ind0 0 0 0 -9\nfam1\000 ind1 0 0 0 -9\n' > "$T/f0.fam"
expect_error ".fam with a NUL byte" "f0\.fam:2: a NUL byte: not a text file" "$O" c --bfile "$T/f0"
set_of m5; sed '2s/\t0\t/\t/' "$T/g.bim" > "$T/m5.bim"
expect_error ".bim line without cM (5 fields)" "m5\.bim:2: 5 fields, but a PLINK \.bim line has exactly 6 \(chromosome, SNP id, position in cM, bp position" "$O" c --bfile "$T/m5"
set_of m7; sed '10s/$/\tx/' "$T/g.bim" > "$T/m7.bim"
expect_error ".bim line of 7 fields" "m7\.bim:10: 7 fields" "$O" c --bfile "$T/m7"
set_of p1; sed '6s/\t6\t/\t6x\t/' "$T/g.bim" > "$T/p1.bim"
expect_error ".bim bp position not an integer" "p1\.bim:6: bp position '6x' is not an integer" "$O" c --bfile "$T/p1"
set_of p2; sed '6s/\t6\t/\t6.5e3\t/' "$T/g.bim" > "$T/p2.bim"
expect_error ".bim bp position in floating point" "p2\.bim:6: bp position '6\.5e3' is not an integer" "$O" c --bfile "$T/p2"
set_of p3; sed '10s/\t10\t/\t-10\t/' "$T/g.bim" > "$T/p3.bim"
expect_error ".bim negative bp position" "p3\.bim:10: bp position -10 is negative: PLINK skips such a SNP.*plink --bfile .*p3 --keep-allele-order --make-bed --out NEW" "$O" c --bfile "$T/p3"
set_of p4; sed '7s/\t0\t/\tabc\t/' "$T/g.bim" > "$T/p4.bim"
expect_error ".bim cM position not a number" "p4\.bim:7: position in cM 'abc' is not a finite number" "$O" c --bfile "$T/p4"
set_of p5; sed '7s/\t0\t/\tinf\t/' "$T/g.bim" > "$T/p5.bim"
expect_error ".bim cM position infinite" "p5\.bim:7: position in cM 'inf' is not a finite number" "$O" c --bfile "$T/p5"
set_of mode2; printf '\002' | dd of="$T/mode2.bed" bs=1 seek=2 conv=notrunc 2> /dev/null
expect_error ".bed mode byte 2" "mode2\.bed: unknown-mode \.bed file \(mode byte 0x02; PLINK writes 0x01.*damaged or not a \.bed" "$O" c --bfile "$T/mode2"
# the counts against the .bed's size, as before
set_of n1; for i in 1 2 3 4; do echo "famx$i indx$i 0 0 0 -9" >> "$T/n1.fam"; done
expect_error ".fam of 25 lines, .bed of 21 samples" "n1\.bed: size is 63 bytes but 10 SNPs .* x 25 samples .*need 3 \+ 10 x 7 = 73" "$O" c --bfile "$T/n1"
set_of n2; head -n 9 "$T/g.bim" > "$T/n2.bim"
expect_error ".bim of 9 lines, .bed of 10 SNPs" "n2\.bed: size is 63 bytes but 9 SNPs" "$O" c --bfile "$T/n2"

# --- accepted: what PLINK's writers and editors leave
set_of e1; reads_as "final newline (as written)" "$T/e1"
set_of e2; printf '%s' "$(cat "$T/g.fam")" > "$T/e2.fam"; printf '%s' "$(cat "$T/g.bim")" > "$T/e2.bim"
reads_as "no final newline" "$T/e2"
set_of e3; printf '\n \n\t\n' >> "$T/e3.fam"; printf '\n\n' >> "$T/e3.bim"
reads_as "blank lines after the last line" "$T/e3"
set_of e4; sed 's/$/\r/' "$T/g.fam" > "$T/e4.fam"; sed 's/$/\r/' "$T/g.bim" > "$T/e4.bim"
reads_as "CR LF line ends" "$T/e4"
set_of e5; sed 's/\t/  /g' "$T/g.fam" > "$T/e5.fam"; sed '1s/\t0\t/\t-0.5e-2\t/; s/\t/ /g' "$T/g.bim" > "$T/e5.bim"
reads_as "spaces for tabs, a cM in exponent form" "$T/e5"

# --- padding bits that are not 0: read as PLINK reads them, with a warning
# (SNP 5's last byte, at 3 + 4 x 6 + 5: its 6 high bits set, sample 21 kept)
set_of pad; b=$(od -An -tu1 -j 32 -N 1 "$T/g.bed")
printf "\\$(printf %o $((b | 252)))" | dd of="$T/pad.bed" bs=1 seek=32 conv=notrunc 2> /dev/null
if "$STARMET" compute --bfile "$T/pad" --output "$T/pad.o" > "$T/pad.log" 2>&1; then pass; else
  fail "padding bits: refused"; cat "$T/pad.log" >&2; fi
grep -Eq "warning: .*pad\.bed: padding bits that are not 0 in 1 of the 10 SNPs read .*first: SNP 5, byte offset 32.*pad\.fam lacks" "$T/pad.log" &&
  pass || { fail "padding bits: no warning"; cat "$T/pad.log" >&2; }
same "padding bits: values" "$T/ref.tsv" "$T/pad.o.tsv"
# a sample line lost from a .fam of 22: the .bed's size still fits 21
"$STARMET" synth --metric ccc --num-vector 6 --num-field 22 --output-format plink \
  --output "$T/l" > /dev/null 2>&1 || fail "synth 22"
head -n 21 "$T/l.fam" > "$T/l.fam.new"; mv "$T/l.fam.new" "$T/l.fam"
"$STARMET" compute --bfile "$T/l" --output "$T/l.o" > "$T/l.log" 2>&1 && pass || fail "lost sample: refused"
grep -Eq "warning: .*l\.bed: padding bits that are not 0 in [1-6] of the 6 SNPs read .*after sample 21.*l\.fam lacks" "$T/l.log" &&
  pass || { fail "lost sample: no warning"; cat "$T/l.log" >&2; }

# --- option numbers
cs() { c --metric ccc --synthetic random --num-vector 6 --num-field 9 "$@"; }
expect_error "threshold below the smallest double" "--threshold: '1e-400' is too close to 0 for a double: it is not 0.*4\.9e-324" "$O" cs --threshold 1e-400
expect_error "negative underflow" "--ccc-param: '-1e-400' is too close to 0" "$O" cs --ccc-param -1e-400
expect_error "threshold overflow" "--threshold: '1e400' is not a finite number: it is out of double's range" "$O" cs --threshold 1e400
expect_error "multiplier overflow" "--ccc-multiplier: '-1e999' is not a finite number: it is out of double's range" "$O" cs --ccc-multiplier -1e999
expect_error "per-entry threshold overflow" "--threshold: '2e308' is not a finite number: it is out of double's range" "$O" cs --threshold 0,0,2e308,0
expect_error "timeout overflow" "--task-timeout: '1e999' is not a finite number: it is out of" "$O" cs --task-timeout 1e999
expect_error "inf stays not finite" "--threshold: 'inf' is not a finite number$" "$O" cs --threshold inf
expect_error "histogram width overflows" "--histogram: the range -1e\+308\.\.1e\+308 is too wide: MAX - MIN overflows a double.*at most 1\.8e\+308 apart" "$O" cs --histogram 10,-1e308,1e308
expect_error "histogram width overflows (asymmetric)" "--histogram: the range .* is too wide" "$O" cs --histogram 3,-1.7e308,2e307
expect_error "histogram empty subnormal range" "--histogram: the range .* is empty: give MIN < MAX" "$O" cs --histogram 10,1e-320,1e-320
expect_error "missing-rate overflow" "--missing-rate: '1e400' is not a finite number: it is out of" "$O" cs --missing-rate 1e400
# subnormals are numbers: a threshold of 1e-320 keeps what 0 keeps (no value
# lies between), and g = 4e-310 gives g = 0's values (1 - g x rounds to 1)
run_ok "threshold 0" cq --bfile "$T/g" --output "$T/t0" --threshold 0
run_ok "threshold 1e-320" cq --bfile "$T/g" --output "$T/t1" --threshold 1e-320
cmp -s "$T/t0.tsv" "$T/t1.tsv" && pass || fail "threshold 1e-320: not the output of threshold 0"
run_ok "ccc-param 0" cq --bfile "$T/g" --output "$T/g0" --ccc-param 0
run_ok "ccc-param 4e-310" cq --bfile "$T/g" --output "$T/g1" --ccc-param 4e-310
cmp -s "$T/g0.tsv" "$T/g1.tsv" && pass || fail "ccc-param 4e-310: not the values of 0"
run_ok "histogram over a subnormal range" cq --bfile "$T/g" --output "$T/hs" --histogram 4,0,1e-320
grep -q "1e-321\|9.99988867182683e-321\|9.9998886718268301e-321" "$T/hs.hist.tsv" && pass ||
  fail "histogram 4,0,1e-320: the range is not in the histogram"

# --- the conversions the messages suggest
if "$PY" -c 'import sys' 2> /dev/null; then
  # sample-major (mode 0) and pre-1.0 (no magic bytes) copies of g
  "$PY" - "$T/g" << 'PY'
import sys
p = sys.argv[1]
ns = sum(1 for _ in open(p + '.fam')); nv = sum(1 for _ in open(p + '.bim'))
b = open(p + '.bed', 'rb').read()[3:]
bps, bpv = (ns + 3) // 4, (nv + 3) // 4
out = bytearray()
for s in range(ns):
    row = bytearray(bpv)
    for v in range(nv):
        row[v // 4] |= ((b[v * bps + s // 4] >> (2 * (s % 4))) & 3) << (2 * (v % 4))
    out += row
open(p + 'sm.bed', 'wb').write(b'\x6c\x1b\x00' + out)
open(p + 'old.bed', 'wb').write(out)
PY
  for x in bim fam; do cp "$T/g.$x" "$T/gsm.$x"; cp "$T/g.$x" "$T/gold.$x"; done
  expect_error "sample-major .bed" "gsm\.bed: sample-major \.bed file \(mode byte 0x00\).*plink --bfile .*gsm --keep-allele-order --make-bed --out NEW" "$O" c --bfile "$T/gsm"
  expect_error "bed without magic bytes" "gold\.bed: not a PLINK 1 \.bed file \(bad magic bytes.*plink --bfile .*gold --keep-allele-order --make-bed --out NEW" "$O" c --bfile "$T/gold"
  if have plink1.9; then
    plink1.9 --bfile "$T/gsm" --keep-allele-order --make-bed --out "$T/gsm2" > /dev/null 2>&1
    reads_as "sample-major: the hint's plink1.9 command" "$T/gsm2"
    plink1.9 --bfile "$T/gold" --keep-allele-order --make-bed --out "$T/gold2" > /dev/null 2>&1
    reads_as "no magic bytes: the hint's plink1.9 command" "$T/gold2"
  else skip_part "plink1.9 not installed: the .bed hints are not tried"; fi
else skip_part "no python3: sample-major cases"; fi

if have plink1.9; then
  # the negative position: the hint drops SNP 10, as a cut set does
  plink1.9 --bfile "$T/p3" --keep-allele-order --make-bed --out "$T/p3b" > /dev/null 2>&1
  set_of cut; head -n 9 "$T/g.bim" > "$T/cut.bim"; head -c $((3 + 9 * 6)) "$T/g.bed" > "$T/cut.bed"
  run_ok "cut set" "$STARMET" compute --quiet --bfile "$T/cut" --output "$T/cut.o"
  run_ok "negative position: the hint's plink1.9 command" "$STARMET" compute --quiet --bfile "$T/p3b" --output "$T/p3b.o"
  same "negative position: the cut set's values" "$T/cut.o.tsv" "$T/p3b.o.tsv"
  # padding bits: rewritten as 0, no warning, same values
  plink1.9 --bfile "$T/pad" --keep-allele-order --make-bed --out "$T/pad2" > /dev/null 2>&1
  cmp -s "$T/pad2.bed" "$T/g.bed" && pass || fail "plink1.9 did not rewrite the padding bits as 0"
  "$STARMET" compute --bfile "$T/pad2" --output "$T/pad2.o" > "$T/pad2.log" 2>&1 && pass || fail "pad2"
  grep -q "padding" "$T/pad2.log" && fail "padding warning after the hint's command" || pass
  same "padding bits rewritten: values" "$T/ref.tsv" "$T/pad2.o.tsv"
  # repeated '.' ids: the hint's command, with --keep-allele-order (plain
  # --make-bed would make allele 1 the minor one and change the values)
  set_of dot; awk 'BEGIN { OFS = "\t" } NR <= 3 { $2 = "." } { print }' "$T/g.bim" > "$T/dot.bim"
  expect_error "repeated '.' ids" "dot: vector names repeat .*set-missing-var-ids '@:#:\\\$1:\\\$2' --keep-allele-order --make-bed" "$O" c --bfile "$T/dot"
  plink1.9 --bfile "$T/dot" --set-missing-var-ids '@:#:$1:$2' --keep-allele-order --make-bed \
    --out "$T/dot2" > /dev/null 2>&1
  run_ok "repeated ids: the hint's plink1.9 command" cq --bfile "$T/dot2" --output "$T/dot2o" --keys index
  run_ok "the original set, by index" cq --bfile "$T/g" --output "$T/gix" --keys index
  same "repeated ids renamed: values" "$T/gix.tsv" "$T/dot2o.tsv"
else skip_part "plink1.9 not installed: the PLINK hints are not tried"; fi

if "$PY" -c 'import numpy' 2> /dev/null; then
  "$PY" - "$T" << 'PY'
import sys
import numpy as np
t = sys.argv[1]
x = np.arange(54).reshape(6, 9) % 7 / 8
np.save(t + '/z8.npy', x)
np.save(t + '/z2.npy', x.astype('<f2'))
np.save(t + '/zbe.npy', x.astype('>f8'))
g = np.arange(54).reshape(6, 9) % 3
np.save(t + '/c1.npy', g.astype('|u1'))
np.save(t + '/cb.npy', g > 0)
np.save(t + '/cbu.npy', (g > 0).astype('|u1'))
np.save(t + '/cbe.npy', g.astype('>i2'))
PY
  # hint NAME FILE PATTERN REF [OPTIONS]: FILE is refused with the pattern;
  # the numpy command of the message makes T/new.npy, read as REF is
  hint() {
    name=$1 f=$2 pat=$3 ref=$4; shift 4
    expect_error "$name" "$pat" "$O" c --input "$f" "$@"
    cmd=$(sed -n "s/.*(convert it: \(.*\)).*/\1/p" "$T/log.err")
    [ -n "$cmd" ] || { fail "$name: no command in the message"; return; }
    (cd "$T" && "$PY" -c "import numpy as np; $cmd") || { fail "$name: $cmd failed"; return; }
    run_ok "$name: the hint's conversion" cq --input "$T/new.npy" --output "$T/new" "$@"
    run_ok "$name: reference" cq --input "$ref" --output "$T/newref" "$@"
    same "$name: values" "$T/newref.tsv" "$T/new.tsv"
  }
  hint "npy float16" "$T/z2.npy" "z2\.npy: dtype '<f2' is not supported" "$T/z8.npy"
  hint "npy big-endian" "$T/zbe.npy" "zbe\.npy: dtype '>f8' is big-endian" "$T/z8.npy"
  hint "npy bool for ccc" "$T/cb.npy" "cb\.npy: dtype '\|b1' is not supported.*for CCC the integer ones" \
    "$T/cbu.npy" --metric ccc
  hint "npy big-endian codes" "$T/cbe.npy" "cbe\.npy: dtype '>i2' is big-endian" "$T/c1.npy" --metric ccc
else skip_part "no python3 with numpy: the npy hints are not tried"; fi

if have iconv; then
  printf 'name\tf1\tf2\na\t0.1\t0.5\nb\t0.2\t0.4\nc\t1\t2\n' > "$T/u8.tsv"
  iconv -f UTF-8 -t UTF-16LE "$T/u8.tsv" > "$T/ule.tsv"
  expect_error "UTF-16LE without a byte-order mark" "ule\.tsv: this looks like UTF-16 text.*iconv -f UTF-16LE -t UTF-8" "$O" c --input "$T/ule.tsv"
  iconv -f UTF-16LE -t UTF-8 "$T/ule.tsv" > "$T/ule8.tsv"
  run_ok "UTF-16LE: the hint's conversion" cq --input "$T/ule8.tsv" --output "$T/ule8o"
  run_ok "UTF-8 original" cq --input "$T/u8.tsv" --output "$T/u8o"
  same "UTF-16LE: values" "$T/u8o.tsv" "$T/ule8o.tsv"
else skip_part "iconv not installed"; fi

if have bcftools; then
  # calls from alignments keep PL: bcftools mpileup | bcftools call -m
  awk 'BEGIN {
    srand(7); for (i = 0; i < 120; i++) ref = ref substr("ACGT", int(rand() * 4) + 1, 1)
    print ">c1\n" ref > "'"$T"'/ref.fa"
    print "@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:c1\tLN:120"
    for (s = 0; s < 4; s++) print "@RG\tID:r" s "\tSM:s" s
    for (st = 1; st <= 71; st += 2) for (s = 0; s < 4; s++) {
      seq = substr(ref, st, 50)
      if (st <= 60 && st + 49 >= 60 && (st + s) % 4 < s) {
        b = substr(ref, 60, 1); a = b == "A" ? "C" : "A"
        seq = substr(seq, 1, 60 - st) a substr(seq, 62 - st) }
      q = ""; for (k = 0; k < 50; k++) q = q "I"
      print "q" st "_" s "\t0\tc1\t" st "\t60\t50M\t*\t0\t0\t" seq "\t" q "\tRG:Z:r" s
    } }' > "$T/a.sam"
  bcftools mpileup -f "$T/ref.fa" "$T/a.sam" 2> /dev/null | bcftools call -m -Ov -o "$T/pl.vcf" 2> /dev/null
  bcftools annotate -x FORMAT/PL "$T/pl.vcf" 2> /dev/null | grep -v '^##FORMAT=<ID=PL' > "$T/gt.vcf"
  expect_error "VCF without likelihoods" "gt\.vcf: .*(GL|PL).*bcftools call" "$O" \
    "$STARMET" maf --quiet --input "$T/gt.vcf" --output "$O"
  run_ok "bcftools call's PL" "$STARMET" maf --quiet --input "$T/pl.vcf" --output "$T/maf"
  [ -s "$T/maf.sfs" ] && pass || fail "bcftools call's PL: no SFS"
else skip_part "bcftools not installed: the maf hint is not tried"; fi
finish
