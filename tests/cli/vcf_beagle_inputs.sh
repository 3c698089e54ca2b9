#!/bin/sh
# vcf_beagle_inputs.sh: hostile VCF/BCF and BEAGLE inputs. A BEAGLE file
# without its header line; headers of the wrong shape; gzip, BGZF and BCF
# files cut short at many points, or damaged (an error naming the file,
# never a shorter input read as whole); valid multi-member gzip and
# concatenated BGZF read whole; gVCF reference blocks skipped and counted,
# and gVCF's symbolic ALT no allele (values equal those of the same VCF with
# the blocks and the symbolic ALT removed by hand); a sample named twice in
# the header. Both readers: `maf` (GL/PL) and `compute` (GT).
. "$(dirname "$0")/../lib.sh"

M() { "$STARMET" maf --quiet "$@"; }
C() { "$STARMET" compute --quiet --metric ccc "$@"; }
O=$T/out
# same_maf A B WHAT: two maf runs (prefixes) wrote the same files
same_maf() {
  for ext in saf.tsv maf.tsv sfs; do
    cmp -s "$1.$ext" "$2.$ext" || { fail "$3 ($ext differs)"; return; }
  done
  pass
}
# cut FILE BYTES OUT: FILE without its last BYTES bytes
cut_end() { head -c "$(($(wc -c < "$1") - $2))" "$1" > "$3"; }

# --- BEAGLE: 4 individuals, 400 sites (several deflate blocks in gzip)
awk 'BEGIN { srand(11); N = 4
  printf "marker\tallele1\tallele2"; for (i = 0; i < N; i++) printf "\tInd%d\tInd%d\tInd%d", i, i, i
  printf "\n"
  for (s = 1; s <= 400; s++) {
    printf "chr1_%d\t0\t1", 10 * s; f = rand()
    for (i = 0; i < N; i++) {
      g = (rand() < f) + (rand() < f); a = 0.01 + (g == 0) * rand(); b = 0.01 + (g == 1) * rand()
      c = 0.01 + (g == 2) * rand(); printf "\t%.6f\t%.6f\t%.6f", a, b, c }
    printf "\n" } }' > "$T/g.beagle"
gzip -nc "$T/g.beagle" > "$T/g.beagle.gz"
run_ok "beagle reference run" M --input "$T/g.beagle" --output "$T/ref"

# 0. a NUL byte (binary data, a damaged file) is refused at its line, plain
# or compressed: zlib's line reader would otherwise cut the line at it and
# join what follows; a stream of NULs (/dev/zero) ends at once
sed '3s/\t/\t\x00/' "$T/g.beagle" > "$T/nul.beagle"
gzip -nc "$T/nul.beagle" > "$T/nul.beagle.gz"
for f in nul.beagle nul.beagle.gz; do
  expect_error "beagle with a NUL byte ($f)" "$(echo "$f" | sed 's/\./\\./g'):3: a NUL byte: not a text file" \
    "$O" M --input "$T/$f" --output "$O"
done
expect_error "beagle from /dev/zero" "/dev/zero:1: a NUL byte" "$O" \
  timeout 60 "$STARMET" maf --quiet --input /dev/zero --output "$O"

# 1. the first line must be the header
tail -n +2 "$T/g.beagle" > "$T/nohdr.beagle"
expect_error "beagle without header" \
  "nohdr\.beagle:1: the first line is not a BEAGLE header: its columns 4 to 15 are numbers" "$O" \
  M --input "$T/nohdr.beagle" --output "$O"
gzip -nc "$T/nohdr.beagle" > "$T/nohdr.beagle.gz"
expect_error "gzip beagle without header" "nohdr\.beagle\.gz:1: the first line is not a BEAGLE header" \
  "$O" M --input "$T/nohdr.beagle.gz" --output "$O"
sed -e '1d' -e 's/\t0\t1\t/\tA\tC\t/' "$T/g.beagle" > "$T/nohdr_acgt.beagle"
expect_error "beagle without header, letter alleles" "nohdr_acgt\.beagle:1: the first line is not" \
  "$O" M --input "$T/nohdr_acgt.beagle" --output "$O"
printf '\n\nc_1\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\t0.3\nc_2\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\t0.3\n' \
  > "$T/blank_first.beagle"
expect_error "beagle without header after blank lines" "blank_first\.beagle:3: the first line is not" \
  "$O" M --input "$T/blank_first.beagle" --output "$O"
# a first site without data (equal likelihoods, in decimals or integers)
printf 'c_1\t0\t1\t0.333333\t0.333333\t0.333333\t0.333333\t0.333333\t0.333333\nc_2\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\t0.3\n' \
  > "$T/nodata_first.beagle"
expect_error "beagle without header, first site without data" "nodata_first\.beagle:1: the first line is not" \
  "$O" M --input "$T/nodata_first.beagle" --output "$O"
printf 'c_1\t0\t1\t1\t1\t1\t1\t1\t1\nc_2\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\t0.3\n' > "$T/ones_first.beagle"
expect_error "beagle without header, integer likelihoods" "ones_first\.beagle:1: the first line is not" \
  "$O" M --input "$T/ones_first.beagle" --output "$O"
printf 'c_1 0 1 1e-3 .5 +0.25 0 0 1\n' > "$T/exp_first.beagle"
expect_error "beagle without header, exponents and signs" "exp_first\.beagle:1: the first line is not" \
  "$O" M --input "$T/exp_first.beagle" --output "$O"
# headers that are headers: numeric sample names, other column names, spaces
sed '1s/.*/marker\tallele1\tallele2\t101\t101\t101\t102\t102\t102\t7\t7\t7\t3\t3\t3/' "$T/g.beagle" \
  > "$T/numnames.beagle"
run_ok "beagle with numeric sample names" M --input "$T/numnames.beagle" --output "$T/numnames"
same_maf "$T/ref" "$T/numnames" "numeric sample names change the values"
sed '1s/.*/marker alleleA alleleB NA1 NA1 NA1 NA2 NA2 NA2 NA3 NA3 NA3 NA4 NA4 NA4/' "$T/g.beagle" \
  > "$T/names.beagle"
run_ok "beagle with other header names" M --input "$T/names.beagle" --output "$T/names"
same_maf "$T/ref" "$T/names" "other header names change the values"
# headers of the wrong shape: not 3 + 3 per individual
for h in 'marker allele1 allele2 Ind0' 'marker allele1 allele2 I I I J J' \
  'marker allele1 allele2 I I I J J J K' 'marker allele1 allele2'; do
  n=$(echo "$h" | wc -w)
  printf '%s\nc_1 0 1 0.1 0.2 0.7 0.3 0.3 0.3\n' "$h" > "$T/hdr$n.beagle"
  expect_error "beagle header of $n columns" "hdr$n\.beagle:1: the header has $n columns" "$O" \
    M --input "$T/hdr$n.beagle" --output "$O"
done
# a header for 2 individuals over lines for 3
printf 'marker allele1 allele2 I I I J J J\nc_1 0 1 0.1 0.2 0.7 0.3 0.3 0.3 0.2 0.2 0.6\n' > "$T/more.beagle"
expect_error "beagle lines wider than the header" "more\.beagle:2: 12 columns where the header has 9" \
  "$O" M --input "$T/more.beagle" --output "$O"

# 2. gzip cut short: at its trailer, within it, in the middle of the deflate
# data, right after the gzip header, at its first byte
size=$(wc -c < "$T/g.beagle.gz")
for k in 1 4 8 9 40 $((size / 2)) $((size - 30)) $((size - 1)); do
  cut_end "$T/g.beagle.gz" $k "$T/cut$k.beagle.gz"
  expect_error "beagle.gz without its last $k bytes" \
    "cut$k\.beagle\.gz: ends before the end of its gzip stream: the file is truncated" "$O" \
    M --input "$T/cut$k.beagle.gz" --output "$O"
done
# valid multi-member gzip: the header alone, then the sites in two members
{ head -n 1 "$T/g.beagle" | gzip -nc; sed -n '2,150p' "$T/g.beagle" | gzip -nc
  tail -n +151 "$T/g.beagle" | gzip -nc; } > "$T/multi.beagle.gz"
run_ok "multi-member gzip beagle" M --input "$T/multi.beagle.gz" --output "$T/multi"
same_maf "$T/ref" "$T/multi" "multi-member gzip is not read whole"
# ... and its last member cut short
cut_end "$T/multi.beagle.gz" 8 "$T/multicut.beagle.gz"
expect_error "multi-member gzip, last member cut" "multicut\.beagle\.gz: ends before the end of its gzip stream" \
  "$O" M --input "$T/multicut.beagle.gz" --output "$O"
# damaged: the CRC of the trailer changed
cut_end "$T/g.beagle.gz" 8 "$T/crc.beagle.gz"
{ printf '\000\000\000\000'; tail -c 4 "$T/g.beagle.gz"; } >> "$T/crc.beagle.gz"
expect_error "beagle.gz with a wrong CRC" "crc\.beagle\.gz: read error after line [0-9]+ \(incorrect data check\); the file is damaged" \
  "$O" M --input "$T/crc.beagle.gz" --output "$O"

# --- VCF / BCF through htslib. BGZF and BCF are written by a small Python
# writer (bgzip and bcftools may be missing); plain gzip by gzip.
PY=${PYTHON3:-/usr/bin/python3}
hdr='##fileformat=VCFv4.2
##contig=<ID=1,length=100000>
##contig=<ID=2,length=100000>
##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">
##FORMAT=<ID=GL,Number=G,Type=Float,Description="log10 likelihoods">'
cols='#CHROM	POS	ID	REF	ALT	QUAL	FILTER	INFO	FORMAT'
# 40 bi-allelic variants x 5 samples, GT and GL, some missing
{ echo "$hdr"; printf '%s\tS1\tS2\tS3\tS4\tS5\n' "$cols"
  awk 'BEGIN { srand(5); OFS = "\t"
    for (v = 1; v <= 40; v++) {
      line = (v <= 20 ? 1 : 2) "\t" (100 * v) "\tv" v "\tA\tG\t.\t.\t.\tGT:GL"
      for (s = 0; s < 5; s++) {
        if (rand() < 0.1) { line = line "\t./.:."; continue }
        g = int(3 * rand()); gt = g == 0 ? "0/0" : g == 1 ? "0/1" : "1/1"
        l0 = -(g != 0) * (1 + int(20 * rand()) / 10); l1 = -(g != 1) * (1 + int(20 * rand()) / 10)
        l2 = -(g != 2) * (1 + int(20 * rand()) / 10)
        line = line "\t" gt ":" l0 "," l1 "," l2 }
      print line } }'
} > "$T/v.vcf"
run_ok "vcf reference run (maf)" M --input "$T/v.vcf" --output "$T/vref"
run_ok "vcf reference run (compute)" C --input "$T/v.vcf" --output "$T/cref" --output-format bin

if "$PY" -c "import zlib, struct" 2> /dev/null; then
  cat > "$T/hts.py" << 'EOF'
# hts.py bgzip IN OUT BLOCK | bcf IN OUT: BGZF (blocks of BLOCK bytes, then
# the end-of-file block) and a minimal BCF 2.2 writer (GT, GL; no INFO)
import struct, sys, zlib
EOF_BLOCK = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")
def bgzf(data, size):
    out = b""
    for i in range(0, max(len(data), 1), size):
        chunk = data[i:i + size]
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        comp = c.compress(chunk) + c.flush()
        out += struct.pack("<4BI2BH2BHH", 31, 139, 8, 4, 0, 0, 255, 6, 66, 67, 2, len(comp) + 25)
        out += comp + struct.pack("<II", zlib.crc32(chunk) & 0xffffffff, len(chunk))
    return out + EOF_BLOCK
def typed(n, t):
    return struct.pack("<B", n << 4 | t) if n < 15 else struct.pack("<BBb", 15 << 4 | t, 0x11, n)
def tstr(s):
    return typed(len(s.encode()), 7) + s.encode()
def bcf(lines):
    meta = [l for l in lines if l.startswith("##") and not l.startswith("##fileformat")]
    contigs = [l[13:].split(",")[0].rstrip(">") for l in meta if l.startswith("##contig=<ID=")]
    ids = {"PASS": 0}
    for l in meta:
        if l.startswith(("##FORMAT=<ID=", "##INFO=<ID=", "##FILTER=<ID=")):
            ids.setdefault(l[l.index("ID=") + 3:].split(",")[0].rstrip(">"), len(ids))
    head = [l for l in lines if l.startswith("#CHROM")][0]
    ns = len(head.split("\t")) - 9
    text = "\n".join(["##fileformat=VCFv4.2", '##FILTER=<ID=PASS,Description="All filters passed">']
                     + meta + [head]) + "\n\0"
    out = b"BCF\2\2" + struct.pack("<I", len(text)) + text.encode()
    for l in lines:
        if l.startswith("#"):
            continue
        r = l.split("\t")
        al = [r[3]] + r[4].split(",")
        ng = len(al) * (len(al) + 1) // 2
        keys = r[8].split(":")
        sh = struct.pack("<iiiIII", contigs.index(r[0]), int(r[1]) - 1, len(r[3]), 0x7F800001,
                         len(al) << 16, len(keys) << 24 | ns)
        sh += tstr("" if r[2] == "." else r[2]) + b"".join(tstr(a) for a in al) + typed(0, 0)
        ind = b""
        cells = [c.split(":") for c in r[9:]]
        for k, key in enumerate(keys):
            ind += typed(1, 1) + struct.pack("<b", ids[key])
            vals = [c[k] if k < len(c) else "." for c in cells]
            if key == "GT":
                ind += typed(2, 1)
                for v in vals:
                    a = [0 if x == "." else (int(x) + 1) << 1 | (j > 0 and "|" in v)
                         for j, x in enumerate(v.replace("|", "/").split("/"))]
                    ind += struct.pack("<2b", *(a + [-127] * (2 - len(a))))
            else:
                ind += typed(ng, 5)
                for v in vals:
                    x = [] if v == "." else [struct.pack("<f", float(y)) for y in v.split(",")]
                    if len(x) < ng:
                        x += [struct.pack("<I", 0x7F800001)] + [struct.pack("<I", 0x7F800002)] * (ng - len(x) - 1)
                    ind += b"".join(x)
        out += struct.pack("<II", len(sh), len(ind)) + sh + ind
    return out
if sys.argv[1] == "bgzip":
    data = open(sys.argv[2], "rb").read()
    open(sys.argv[3], "wb").write(bgzf(data, int(sys.argv[4])))
else:
    lines = open(sys.argv[2]).read().rstrip("\n").split("\n")
    open(sys.argv[3], "wb").write(bgzf(bcf(lines), 1000))
EOF
  py() { "$PY" "$T/hts.py" "$@"; }
  py bgzip "$T/v.vcf" "$T/v.vcf.gz" 700
  py bcf "$T/v.vcf" "$T/v.bcf"
  # whole files read as the plain VCF
  for f in v.vcf.gz v.bcf; do
    run_ok "$f (maf)" M --input "$T/$f" --output "$T/m_$f"
    same_maf "$T/vref" "$T/m_$f" "$f and the plain VCF differ (maf)"
    run_ok "$f (compute)" C --input "$T/$f" --output "$T/c_$f" --output-format bin
    same "$f and the plain VCF differ (compute)" "$T/cref.bin" "$T/c_$f.bin"
  done
  # concatenated BGZF files (each with its end-of-file block) are one file
  head -n 26 "$T/v.vcf" > "$T/a.vcf"; tail -n +27 "$T/v.vcf" > "$T/b.vcf"
  py bgzip "$T/a.vcf" "$T/a.vcf.gz" 500; py bgzip "$T/b.vcf" "$T/b.vcf.gz" 500
  cat "$T/a.vcf.gz" "$T/b.vcf.gz" > "$T/cat.vcf.gz"
  run_ok "concatenated bgzf (maf)" M --input "$T/cat.vcf.gz" --output "$T/catm"
  same_maf "$T/vref" "$T/catm" "concatenated BGZF is not read whole"
  # cut short: without the end-of-file block (at a block boundary), in it,
  # in the middle of a data block, within the header's block
  for f in v.vcf.gz v.bcf; do
    fsize=$(wc -c < "$T/$f")
    for k in 28 10 100 $((fsize / 2)) $((fsize - 20)); do
      cut_end "$T/$f" $k "$T/cut$k.$f"
      expect_error "$f without its last $k bytes (maf)" \
        "cut$k\.$f: ends before the end of its gzip stream: the file is truncated" "$O" \
        M --input "$T/cut$k.$f" --output "$O"
      expect_error "$f without its last $k bytes (compute)" \
        "cut$k\.$f: ends before the end of its gzip stream: the file is truncated" "$O" \
        C --input "$T/cut$k.$f" --output "$O"
    done
  done
  # concatenated BGZF files, the second one cut short
  cut_end "$T/cat.vcf.gz" 100 "$T/catcut.vcf.gz"
  expect_error "concatenated bgzf, second part cut" "catcut\.vcf\.gz: ends before the end of its gzip stream" \
    "$O" M --input "$T/catcut.vcf.gz" --output "$O"
else
  skip_part "python3 not found: BGZF and BCF inputs"
fi
# plain (not BGZF) gzip: whole, multi-member, cut short at several points
gzip -nc "$T/v.vcf" > "$T/p.vcf.gz"
run_ok "gzip vcf (maf)" M --input "$T/p.vcf.gz" --output "$T/pz"
same_maf "$T/vref" "$T/pz" "gzip and plain VCF differ"
{ head -n 20 "$T/v.vcf" | gzip -nc; tail -n +21 "$T/v.vcf" | gzip -nc; } > "$T/pm.vcf.gz"
run_ok "multi-member gzip vcf (maf)" M --input "$T/pm.vcf.gz" --output "$T/pm"
same_maf "$T/vref" "$T/pm" "multi-member gzip VCF is not read whole"
run_ok "multi-member gzip vcf (compute)" C --input "$T/pm.vcf.gz" --output "$T/cpm" --output-format bin
same "multi-member gzip VCF (compute)" "$T/cref.bin" "$T/cpm.bin"
psize=$(wc -c < "$T/p.vcf.gz")
for k in 4 8 $((psize / 2)); do
  cut_end "$T/p.vcf.gz" $k "$T/pcut$k.vcf.gz"
  expect_error "gzip vcf without its last $k bytes (maf)" \
    "pcut$k\.vcf\.gz: ends before the end of its gzip stream: the file is truncated" "$O" \
    M --input "$T/pcut$k.vcf.gz" --output "$O"
  expect_error "gzip vcf without its last $k bytes (compute)" \
    "pcut$k\.vcf\.gz: ends before the end of its gzip stream: the file is truncated" "$O" \
    C --input "$T/pcut$k.vcf.gz" --output "$O"
done
# a bigger one, cut after its header was read (htslib then reports the end
# of the file, and a partial last line)
{ echo "$hdr"; printf '%s\tS1\tS2\tS3\tS4\tS5\n' "$cols"
  awk 'BEGIN { for (v = 1; v <= 6000; v++)
    printf "1\t%d\t.\tA\tG\t.\t.\t.\tGT:GL\t0/0:0,-1,-2\t0/1:-1,0,-1\t1/1:-2,-1,0\t0/1:-1,0,-2\t./.:.\n", 10 * v }'
} | gzip -nc > "$T/big.vcf.gz"
cut_end "$T/big.vcf.gz" 8 "$T/bigcut.vcf.gz"
expect_error "big gzip vcf without its trailer (maf)" \
  "bigcut\.vcf\.gz: ends before the end of its gzip stream: the file is truncated \(after record" "$O" \
  M --input "$T/bigcut.vcf.gz" --output "$O"
expect_error "big gzip vcf without its trailer (compute)" \
  "bigcut\.vcf\.gz: ends before the end of its gzip stream: the file is truncated \(after record" "$O" \
  C --input "$T/bigcut.vcf.gz" --output "$O"

# 3. gVCF: reference blocks (ALT <NON_REF> or <*> only, with END) skipped;
# the symbolic ALT beside another is no allele: a call with it is missing,
# likelihoods are those of REF/REF, REF/ALT, ALT/ALT. g.vcf is v.vcf with
# blocks added and the symbolic ALT added to some records, clean.vcf the
# same data as a plain VCF written by hand.
hdr_g="$hdr
##INFO=<ID=END,Number=1,Type=Integer,Description=\"End of the block\">"
{ echo "$hdr_g"; printf '%s\tS1\tS2\tS3\n' "$cols"
  printf '1\t1\t.\tA\t<NON_REF>\t.\t.\tEND=9\tGT:GL\t0/0:0,-3,-6\t0/0:0,-2,-4\t0/0:.\n'
  printf '1\t10\tv1\tA\tG,<NON_REF>\t.\t.\t.\tGT:GL\t0/1:-1,0,-2,-3,-3,-5\t0/2:-1,-2,-3,0,-2,-1\t1/1:-3,-1,0,-4,-4,-6\n'
  printf '1\t11\t.\tC\t<*>\t.\t.\tEND=19\tGT:GL\t0/0:0,-3,-6\t0/0:0,-3,-6\t0/0:0,-3,-6\n'
  printf '1\t20\tv2\tC\tT\t.\t.\t.\tGT:GL\t0/0:0,-1,-2\t1/1:-2,-1,0\t0/1:-1,0,-1\n'
  printf '1\t30\tv3\tG\t<*>,A\t.\t.\t.\tGT:GL\t0/2:-1,-5,-5,0,-5,-2\t2/2:-4,-5,-5,-2,-5,0\t0/1:-1,0,-1,-2,-2,-3\n'
  printf '1\t40\tv4\tT\tA,C,<NON_REF>\t.\t.\t.\tGT:GL\t0/1:.\t0/2:.\t0/0:.\n'
  printf '1\t41\t.\tT\t<NON_REF>\t.\t.\tEND=99\tGT:GL\t0/0:0,-2,-4\t./.:.\t0/0:0,-2,-4\n'
  printf '2\t50\tv5\tA\tC\t.\t.\t.\tGT:GL\t0/1:-1,0,-1\t0/0:0,-1,-2\t./.:.\n'
} > "$T/x.g.vcf"
{ echo "$hdr_g"; printf '%s\tS1\tS2\tS3\n' "$cols"
  printf '1\t10\tv1\tA\tG\t.\t.\t.\tGT:GL\t0/1:-1,0,-2\t./.:-1,-2,-3\t1/1:-3,-1,0\n'
  printf '1\t20\tv2\tC\tT\t.\t.\t.\tGT:GL\t0/0:0,-1,-2\t1/1:-2,-1,0\t0/1:-1,0,-1\n'
  printf '1\t30\tv3\tG\tA\t.\t.\t.\tGT:GL\t0/1:-1,0,-2\t1/1:-4,-2,0\t./.:-1,-2,-3\n'
  printf '1\t40\tv4\tT\tA,C\t.\t.\t.\tGT:GL\t0/1:.\t0/2:.\t0/0:.\n'
  printf '2\t50\tv5\tA\tC\t.\t.\t.\tGT:GL\t0/1:-1,0,-1\t0/0:0,-1,-2\t./.:.\n'
} > "$T/clean.vcf"
run_ok "clean vcf (maf)" M --input "$T/clean.vcf" --output "$T/gclean"
run_ok "gvcf (maf)" M --input "$T/x.g.vcf" --output "$T/gvcf"
same_maf "$T/gclean" "$T/gvcf" "gVCF and the same VCF cleaned by hand differ (maf)"
grep -q '"skipped_multiallelic": 1' "$T/gvcf.json" && pass || fail "gvcf: multi-allelic count"
"$STARMET" maf --input "$T/x.g.vcf" > /dev/null 2> "$T/gvcf.err"
grep -q "x\.g\.vcf: 3 gVCF reference blocks (ALT <NON_REF> or <\*> only) skipped" "$T/gvcf.err" &&
  pass || { fail "maf: gVCF blocks not logged"; cat "$T/gvcf.err" >&2; }
run_ok "clean vcf (compute)" C --input "$T/clean.vcf" --output "$T/cclean" --output-format bin
run_ok "gvcf (compute)" C --input "$T/x.g.vcf" --output "$T/cgvcf" --output-format bin
same "gVCF and the same VCF cleaned by hand differ (compute)" "$T/cclean.bin" "$T/cgvcf.bin"
"$STARMET" compute --metric ccc --input "$T/x.g.vcf" --output-format none > /dev/null 2> "$T/cg.err"
grep -q "x\.g\.vcf: 3 gVCF reference blocks (ALT <NON_REF> or <\*> only) skipped" "$T/cg.err" &&
  grep -q "1 multi-allelic record read as plink1.9 --vcf reads them" "$T/cg.err" && pass ||
  { fail "compute: gVCF blocks not logged"; cat "$T/cg.err" >&2; }
if [ -f "$T/hts.py" ]; then
  "$PY" "$T/hts.py" bcf "$T/x.g.vcf" "$T/x.g.bcf"
  run_ok "gvcf bcf (maf)" M --input "$T/x.g.bcf" --output "$T/gbcf"
  same_maf "$T/gclean" "$T/gbcf" "gVCF as BCF and the cleaned VCF differ (maf)"
  run_ok "gvcf bcf (compute)" C --input "$T/x.g.bcf" --output "$T/cgbcf" --output-format bin
  same "gVCF as BCF and the cleaned VCF differ (compute)" "$T/cclean.bin" "$T/cgbcf.bin"
fi
# a gVCF of reference blocks only: nothing to compute
{ echo "$hdr_g"; printf '%s\tS1\tS2\n' "$cols"
  printf '1\t1\t.\tA\t<NON_REF>\t.\t.\tEND=9\tGT:GL\t0/0:0,-3,-6\t0/0:0,-3,-6\n'
  printf '1\t10\t.\tA\t<*>\t.\t.\tEND=20\tGT:GL\t0/0:0,-3,-6\t0/0:0,-3,-6\n'
} > "$T/blocks.g.vcf"
expect_error "gvcf of blocks only (maf)" "blocks\.g\.vcf: no site with two alleles" "$O" \
  M --input "$T/blocks.g.vcf" --output "$O"
expect_error "gvcf of blocks only (compute)" "blocks\.g\.vcf: no variant .*every record is a gVCF reference block" "$O" \
  C --input "$T/blocks.g.vcf" --output "$O"

# 4. a sample named twice, an empty sample name: said as such
{ echo "$hdr"; printf '%s\tS1\tS2\tS1\n' "$cols"
  printf '1\t10\t.\tA\tG\t.\t.\t.\tGT:GL\t0/0:0,-1,-2\t0/1:-1,0,-1\t1/1:-2,-1,0\n'
  printf '1\t20\t.\tA\tG\t.\t.\t.\tGT:GL\t0/1:-1,0,-1\t0/1:-1,0,-1\t0/0:0,-1,-2\n'
} > "$T/dup.vcf"
for cmd in M C; do
  expect_error "sample named twice ($cmd)" "dup\.vcf: sample 'S1' appears twice in the header line" \
    "$O" $cmd --input "$T/dup.vcf" --output "$O"
done
gzip -nc "$T/dup.vcf" > "$T/dup.vcf.gz"
expect_error "sample named twice, gzip" "dup\.vcf\.gz: sample 'S1' appears twice in the header line" \
  "$O" M --input "$T/dup.vcf.gz" --output "$O"
if [ -f "$T/hts.py" ]; then
  "$PY" "$T/hts.py" bcf "$T/dup.vcf" "$T/dup.bcf"
  expect_error "sample named twice, bcf" "dup\.bcf: sample 'S1' appears twice in the header line" \
    "$O" C --input "$T/dup.bcf" --output "$O"
fi
sed 's/^\(#CHROM.*\)\tS1$/\1\t/' "$T/dup.vcf" > "$T/empty_name.vcf"
expect_error "empty sample name" "empty_name\.vcf: column 12 of the header line \(#CHROM\) is an empty sample name" \
  "$O" M --input "$T/empty_name.vcf" --output "$O"
printf 'hello\tworld\n' > "$T/text.vcf"
expect_error "not a vcf" "text\.vcf: not a VCF or BCF file" "$O" M --input "$T/text.vcf" --output "$O"
finish
