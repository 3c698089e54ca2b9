#!/bin/sh
# maf_cli.sh: `starmet maf` end to end: BEAGLE plain and gzip give the same
# files; the binary SAF; the iterative reference agrees with the tree; a
# huge band tolerance is exact and a small one drops bins and says so; the
# spectrum's EM: accelerated and plain reach the same spectrum, the
# accelerated one in fewer E-steps, --em-maxiter reached before --em-tole
# is a warning, --fold is realSFS's folded spectrum and equals the unfolded
# one folded where the two agree; VCF with GL and with PL (multi-allelic
# records skipped and counted); VCF genotypes for `starmet compute --metric
# ccc` equal the same calls as .npy; bad inputs and option values give one
# clear error line, a non-zero exit and no output.
. "$(dirname "$0")/../lib.sh"

M() { "$STARMET" maf --quiet "$@"; }
O=$T/bad
# json_num FILE KEY: a number from the JSON summary
json_num() { sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1" | head -n 1; }
# close A B: two SAF TSV files agree within 1e-12 on values >= -50
close() {
  if awk -F'\t' 'NR == FNR { for (i = 3; i <= NF; i++) a[FNR, i] = $i; n = FNR; next }
      FNR == 1 { next }
      { for (i = 3; i <= NF; i++) { x = a[FNR, i]; y = $i
          if (y == "-inf" || x == "-inf") { if (x != y) exit 1; continue }
          if (y + 0 >= -50 && (x - y > 1e-12 || y - x > 1e-12)) exit 1 } }
      END { if (FNR != n) exit 1 }' "$1" "$2"; then pass; else fail "$3"; fi
}

# 12 individuals, 90 sites, some individuals and one whole site without data
awk 'BEGIN { srand(7); N = 12
  printf "marker\tallele1\tallele2"; for (i = 0; i < N; i++) printf "\tInd%d\tInd%d\tInd%d", i, i, i
  printf "\n"
  for (s = 1; s <= 90; s++) {
    printf "chr%d_%d\t0\t1", 1 + int(s / 40), 100 * s; f = rand()
    for (i = 0; i < N; i++) {
      if (s == 33 || rand() < 0.1) { printf "\t0.333333\t0.333333\t0.333333"; continue }
      g = (rand() < f) + (rand() < f); a = 0.01 + (g == 0) * rand(); b = 0.01 + (g == 1) * rand()
      c = 0.01 + (g == 2) * rand(); printf "\t%.6f\t%.6f\t%.6f", a, b, c }
    printf "\n" } }' > "$T/g.beagle"
gzip -c "$T/g.beagle" > "$T/g.beagle.gz"

run_ok "maf help" "$STARMET" maf --help
grep -q "Example" "$T/log.out" && pass || fail "maf help has no example"
"$STARMET" --help | grep -q "starmet maf" && pass || fail "starmet --help does not list maf"

run_ok "beagle" M --input "$T/g.beagle" --output "$T/p" --block-size 8
run_ok "beagle.gz" M --input "$T/g.beagle.gz" --output "$T/z" --block-size 8
for ext in saf.tsv maf.tsv sfs; do
  cmp -s "$T/p.$ext" "$T/z.$ext" && pass || fail "plain and gzip BEAGLE differ ($ext)"
done
[ "$(json_num "$T/p.json" computed)" = 89 ] && pass || fail "computed sites: $(json_num "$T/p.json" computed)"
[ "$(json_num "$T/p.json" skipped_no_data)" = 1 ] && pass || fail "the site without data was not skipped"
[ "$(wc -l < "$T/p.saf.tsv")" -eq 90 ] && pass || fail "saf.tsv lines"
[ "$(awk -F'\t' 'NR > 1 { print NF; exit }' "$T/p.saf.tsv")" -eq 27 ] && pass ||
  fail "saf.tsv: chrom pos and 2N + 1 values"
awk -F'\t' 'NR > 1 { m = -1e300; for (i = 3; i <= NF; i++) if ($i != "-inf" && $i + 0 > m) m = $i + 0
  if (m != 0) bad = 1 } END { exit bad }' "$T/p.saf.tsv" && pass || fail "a SAF's maximum is not 0"
[ "$(wc -w < "$T/p.sfs")" -eq 25 ] && pass || fail "sfs: 2N + 1 values"
awk '{ for (i = 1; i <= NF; i++) s += $i } END { exit !(s > 88.999 && s < 89.001) }' "$T/p.sfs" &&
  pass || fail "the spectrum does not sum to the sites"
grep -q '"iterations": [0-9]' "$T/p.json" && grep -q '"loglik": -' "$T/p.json" && pass ||
  fail "summary lacks the EM's iterations and log-likelihood"
"$STARMET" maf --input "$T/g.beagle" > "$T/sum.out" 2>&1
grep -q "sfs em .* iterations .*log-likelihood" "$T/sum.out" && pass || fail "printed summary lacks the EM"

run_ok "binary saf" M --input "$T/g.beagle" --output "$T/b" --output-format bin --block-size 8
[ "$(head -c 7 "$T/b.saf.bin")" = STARSAF ] && pass || fail "binary SAF magic"
cmp -s "$T/b.sfs" "$T/p.sfs" && pass || fail "binary run changed the spectrum"

run_ok "reference kernel" M --input "$T/g.beagle" --output "$T/r" --kernel ref --block-size 8
close "$T/p.saf.tsv" "$T/r.saf.tsv" "tree and iterative reference differ beyond 1e-12"

run_ok "huge band" M --input "$T/g.beagle" --output "$T/h" --band-tol 1e6 --block-size 8
cmp -s "$T/h.saf.tsv" "$T/p.saf.tsv" && pass || fail "a huge band tolerance is not exact"
run_ok "band" M --input "$T/g.beagle" --output "$T/bd" --band-tol 3 --block-size 8
d=$(json_num "$T/bd.json" bins_dropped)
[ -n "$d" ] && [ "$d" -gt 0 ] && pass || fail "banding dropped no bin ($d)"
"$STARMET" maf --input "$T/g.beagle" --band-tol 3 > "$T/band.out" 2>&1
grep -q "banding .* bins dropped" "$T/band.out" && pass || fail "printed summary lacks the band"

# --- the spectrum's EM: realSFS's -tole, Anderson acceleration, --fold
# sfs_close A B TOL: two .sfs files hold the same number of values, within TOL sites
sfs_close() {
  tr ' ' '\n' < "$1" > "$T/a.col"; tr ' ' '\n' < "$2" > "$T/b.col"
  [ "$(wc -l < "$T/a.col")" -eq "$(wc -l < "$T/b.col")" ] &&
    paste "$T/a.col" "$T/b.col" | awk -v t="$3" '{ d = $1 - $2; if (d < 0) d = -d; if (d > t) exit 1 }'
}
# fold_sfs FILE [DIV]: an unfolded .sfs folded by hand (bins k and 2N - k
# added, the middle alone, N + 1.. zero), every value divided by DIV
fold_sfs() {
  tr ' ' '\n' < "$1" | awk -v d="${2:-1}" '{ v[NR - 1] = $1; n = NR - 1 }
    END { h = n / 2; for (k = 0; k <= n; k++) {
      x = k < h ? v[k] + v[n - k] : k == h ? v[h] : 0
      printf "%s%.17g", k ? " " : "", x / d }; printf "\n" }'
}
run_ok "em anderson" M --input "$T/g.beagle" --output "$T/ea" --em-maxiter 100000
run_ok "em plain" M --input "$T/g.beagle" --output "$T/ep" --em-maxiter 100000 --em-accel none
for o in ea ep; do
  grep -q '"converged": true' "$T/$o.json" && pass || fail "$o: the EM did not converge"
  c=$(json_num "$T/$o.json" loglik_change)
  awk -v c="$c" 'BEGIN { exit !(c >= 0 && c < 1e-10) }' && pass || fail "$o: last change $c"
done
grep -q '"accel": "anderson"' "$T/ea.json" && grep -q '"accel": "none"' "$T/ep.json" && pass ||
  fail "the summary does not name the acceleration"
sfs_close "$T/ea.sfs" "$T/ep.sfs" 0.005 && pass || fail "accelerated and plain EM reach different spectra"
ia=$(json_num "$T/ea.json" iterations) ip=$(json_num "$T/ep.json" iterations)
[ "$ia" -lt "$ip" ] && pass || fail "the accelerated EM took $ia E-steps, plain EM $ip"
awk -v a="$(json_num "$T/ea.json" loglik)" -v b="$(json_num "$T/ep.json" loglik)" \
  'BEGIN { d = a - b; exit !(d > -1e-8 && d < 1e-6) }' && pass || fail "log-likelihoods differ"
# --em-maxiter reached before --em-tole: said on stderr and in the summaries, files complete
"$STARMET" maf --input "$T/g.beagle" --output "$T/em3" --em-maxiter 3 > "$T/em3.out" 2> "$T/em3.err" &&
  pass || fail "--em-maxiter 3 failed"
grep -q "warning: maf: the SFS EM stopped at --em-maxiter 3 before --em-tole 1e-10" "$T/em3.err" &&
  pass || fail "no warning when --em-maxiter stops the EM: $(cat "$T/em3.err")"
grep -q "3 iterations (stopped at --em-maxiter)" "$T/em3.out" && pass || fail "printed summary: $(cat "$T/em3.out")"
grep -q '"iterations": 3, "converged": false' "$T/em3.json" && pass || fail "summary: EM not stopped at 3"
awk -v c="$(json_num "$T/em3.json" loglik_change)" 'BEGIN { exit !(c > 1e-10) }' && pass ||
  fail "the last change is not reported"
[ "$(wc -w < "$T/em3.sfs")" -eq 25 ] && [ "$(wc -l < "$T/em3.maf.tsv")" -eq 90 ] && pass || fail "em3 files"
"$STARMET" maf --input "$T/g.beagle" --output "$T/em1" --em-maxiter 1 > "$T/em1.out" 2> "$T/em1.err" &&
  grep -q "stopped at --em-maxiter 1 before --em-tole 1e-10: one E-step evaluates the flat" "$T/em1.err" &&
  grep -q '"iterations": 1, "converged": false' "$T/em1.json" && grep -q '"loglik_change": null' "$T/em1.json" &&
  grep -q "one E-step, at most .* below the maximum" "$T/em1.out" && pass || fail "--em-maxiter 1: $(cat "$T/em1.err")"
"$STARMET" maf --quiet --input "$T/g.beagle" --em-maxiter 100000 > /dev/null 2> "$T/conv.err"
[ ! -s "$T/conv.err" ] && pass || fail "a converged EM warns: $(cat "$T/conv.err")"
"$STARMET" maf --quiet --input "$T/g.beagle" --em-maxiter 3 > /dev/null 2> "$T/q.err"
grep -q "warning: maf: the SFS EM stopped" "$T/q.err" && pass || fail "--quiet hides the EM's warning"
# --fold: realSFS -fold 1's spectrum, 2N + 1 values, N + 1.. zero
run_ok "fold" M --input "$T/g.beagle" --output "$T/f" --fold --em-maxiter 100000
[ "$(wc -w < "$T/f.sfs")" -eq 25 ] && pass || fail "folded sfs: 2N + 1 values"
awk '{ for (i = 14; i <= NF; i++) if ($i != 0) exit 1; for (i = 1; i <= NF; i++) s += $i }
  END { exit !(s > 88.999 && s < 89.001) }' "$T/f.sfs" && pass || fail "folded sfs: bins N + 1.. not zero or sum"
grep -q '"folded": true' "$T/f.json" && grep -q '"folded": false' "$T/ea.json" && pass ||
  fail "the summary does not say whether the spectrum is folded"
"$STARMET" maf --input "$T/g.beagle" --fold > "$T/f.out" 2>&1
grep -q "sfs em      folded, anderson" "$T/f.out" && pass || fail "printed summary: not folded"
# where realSFS's folded EM and folding the unfolded estimate agree: sites
# with their mirror images (alleles swapped, likelihoods reversed), and
# the folded estimate of the bundled data is the unfolded one of the data
# and its mirror, folded, halved
gzip -dc "$top_srcdir/data/example_gl.beagle.gz" | awk -F'\t' -v OFS='\t' 'NR == 1 { print; next }
  { print; l[NR] = $0 } END { for (k = 2; k <= NR; k++) { n = split(l[k], f, "\t"); sub(/_/, "m_", f[1])
      s = f[1] "\t" f[3] "\t" f[2]; for (i = 4; i <= n; i += 3) s = s "\t" f[i + 2] "\t" f[i + 1] "\t" f[i]
      print s } }' > "$T/mirror.beagle"
run_ok "mirror unfolded" M --input "$T/mirror.beagle" --output "$T/mu" --em-maxiter 100000 --output-format none
run_ok "mirror folded" M --input "$T/mirror.beagle" --output "$T/mf" --em-maxiter 100000 --fold --output-format none
run_ok "bundled folded" M --input "$top_srcdir/data/example_gl.beagle.gz" --output "$T/bf" --em-maxiter 100000 \
  --fold --output-format none
fold_sfs "$T/mu.sfs" > "$T/mu.fold"
sfs_close "$T/mf.sfs" "$T/mu.fold" 1e-3 && pass || fail "mirrored sites: folded EM != unfolded EM folded"
fold_sfs "$T/mu.sfs" 2 > "$T/mu.half"
sfs_close "$T/bf.sfs" "$T/mu.half" 1e-3 && pass || fail "bundled data: folded EM != unfolded EM of data and mirror, folded"
# bad values
expect_error "em-tole 0" "--em-tole: 0 is out of range \(T > 0\)" "$O" M --input "$T/g.beagle" --em-tole 0 --output "$O"
expect_error "em-tole negative" "--em-tole: -1e-05 is out of range \(T > 0\)" "$O" M --input "$T/g.beagle" --em-tole -1e-5 --output "$O"
expect_error "em-tole text" "--em-tole: 'tiny' is not a finite number" "$O" M --input "$T/g.beagle" --em-tole tiny --output "$O"
expect_error "em-maxiter 0" "--em-maxiter: 0 is out of range \(1\.\." "$O" M --input "$T/g.beagle" --em-maxiter 0 --output "$O"
expect_error "em-accel" "--em-accel: unknown value 'squarem' \(use one of: anderson, none\)" "$O" \
  M --input "$T/g.beagle" --em-accel squarem --output "$O"
expect_error "fold value" "unexpected argument '1'" "$O" M --input "$T/g.beagle" --fold 1 --output "$O"

# --- VCF with GL, with PL; bgzipped
hdr='##fileformat=VCFv4.2
##contig=<ID=2,length=100000>
##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">'
{ echo "$hdr"; echo '##FORMAT=<ID=GL,Number=G,Type=Float,Description="log10 likelihoods">'
  printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\tB\tC\n'
  printf '2\t10\t.\tA\tG\t.\t.\t.\tGT:GL\t0/0:0,-1,-3\t0/1:-2,0,-2\t./.:.\n'
  printf '2\t20\t.\tA\tC,T\t.\t.\t.\tGT:GL\t0/0:0,-1,-3,-1,-3,-3\t0/1:.\t./.:.\n'
  printf '2\t30\t.\tC\tT\t.\t.\t.\tGT:GL\t1/1:-5,-2,0\t0/1:-1,0,-1\t0/0:0,-0.5,-1\n'
} > "$T/gl.vcf"
run_ok "vcf GL" M --input "$T/gl.vcf" --output "$T/v"
[ "$(json_num "$T/v.json" skipped_multiallelic)" = 1 ] && pass || fail "multi-allelic record not counted"
[ "$(json_num "$T/v.json" computed)" = 2 ] && pass || fail "vcf GL: computed sites"
"$STARMET" maf --input "$T/gl.vcf" > "$T/v.out" 2>&1
grep -q "1 not bi-allelic (skipped)" "$T/v.out" && pass || fail "the log does not count multi-allelic records"
gzip -c "$T/gl.vcf" > "$T/gl.vcf.gz"
run_ok "vcf.gz GL" M --input "$T/gl.vcf.gz" --output "$T/vz"
cmp -s "$T/v.saf.tsv" "$T/vz.saf.tsv" && pass || fail "vcf and vcf.gz differ"
sed -e 's/ID=GL,Number=G,Type=Float/ID=PL,Number=G,Type=Integer/' -e 's/GT:GL/GT:PL/' \
    -e 's/0,-1,-3,-1,-3,-3/0,10,30,10,30,30/' -e 's/0,-1,-3/0,10,30/' -e 's/-2,0,-2/20,0,20/' \
    -e 's/-5,-2,0/50,20,0/' -e 's/-1,0,-1/10,0,10/' -e 's/0,-0.5,-1/0,5,10/' "$T/gl.vcf" > "$T/pl.vcf"
run_ok "vcf PL" M --input "$T/pl.vcf" --output "$T/vp"
close "$T/v.saf.tsv" "$T/vp.saf.tsv" "GL and the same likelihoods as PL differ"

# --- compute --metric ccc on VCF genotypes = the same calls as .npy
PY=${PYTHON3:-/usr/bin/python3}
if "$PY" -c "import numpy" 2> /dev/null; then
  run_ok "synth ccc npy" "$STARMET" synth --metric ccc --num-vector 17 --num-field 23 --seed 4 \
    --missing-rate 0.1 --output-format npy --output "$T/gt.npy"
  "$PY" - "$T/gt.npy" "$T/gt.vcf" << 'EOF'
import sys, numpy as np
x = np.load(sys.argv[1])
call = {0: "0/0", 1: "0|1", 2: "./.", 3: "1/1"}
with open(sys.argv[2], "w") as f:
    f.write("##fileformat=VCFv4.2\n##contig=<ID=1>\n")
    f.write('##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n')
    f.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t")
    f.write("\t".join("S%d" % i for i in range(x.shape[1])) + "\n")
    for v in range(x.shape[0]):
        if v == 5:  # tri-allelic, its calls of the second ALT: that ALT is read
            f.write("1\t%d\tv%d\tA\tC,G\t.\t.\t.\tGT\t" % (10 * v + 10, v))
            f.write("\t".join(call[int(c)].replace("1", "2") for c in x[v]) + "\n")
            continue
        f.write("1\t%d\tv%d\tA\tG\t.\t.\t.\tGT\t" % (10 * v + 10, v))
        f.write("\t".join(call[int(c)] for c in x[v]) + "\n")
EOF
  c() { "$STARMET" compute --quiet "$@"; }
  run_ok "ccc npy" c --metric ccc --input "$T/gt.npy" --output "$T/cn" --output-format bin
  run_ok "ccc vcf" c --metric ccc --input "$T/gt.vcf" --output "$T/cv" --output-format bin
  same "ccc: vcf genotypes = npy" "$T/cn.bin" "$T/cv.bin"
  "$STARMET" compute --metric ccc --input "$T/gt.vcf" --output-format none > /dev/null 2> "$T/cv.err"
  grep -q "1 multi-allelic record read as plink1.9 --vcf reads them" "$T/cv.err" && pass ||
    fail "compute: multi-allelic not logged"
  grep -q '"variant": "sparse"' "$T/cv.json" && pass || fail "vcf missing calls did not select sparse"
  run_ok "ccc vcf tsv names" c --metric ccc --input "$T/gt.vcf" --output "$T/cvt"
  grep -q "^v0	v1	" "$T/cvt.tsv" && pass || fail "vcf ids are not the vector names"
else
  skip_part "python3 with numpy not found: VCF genotype comparison"
fi

# --- bad inputs: one clear error, non-zero exit, nothing left behind
h='marker\tallele1\tallele2\tI\tI\tI\tJ\tJ\tJ\n'
printf "${h}c_1\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\t0.3\nc_2\t0\t1\t0.1\t0.2\t0.7\t0.3\n" > "$T/ragged.beagle"
expect_error "ragged beagle line" "ragged\.beagle:3: 7 columns.*header has 9" "$O" \
  M --input "$T/ragged.beagle" --output "$O"
printf 'marker\tallele1\tallele2\tI\tI\tI\tJ\nc_1\t0\t1\t0.1\t0.2\t0.7\t0.3\n' > "$T/hdr.beagle"
expect_error "header column count" "hdr\.beagle:1: the header has 7 columns" "$O" \
  M --input "$T/hdr.beagle" --output "$O"
printf "${h}c_1\t0\t1\t0.1\t0.2\t0.7\t0.3\t-0.3\t0.3\n" > "$T/neg.beagle"
expect_error "negative likelihood" "neg\.beagle:2: column 8: negative likelihood -0.3" "$O" \
  M --input "$T/neg.beagle" --output "$O"
printf "${h}c_1\t0\t1\t0.1\t0.2\t0.7\t0.3\tabc\t0.3\n" > "$T/txt.beagle"
expect_error "not a number" "txt\.beagle:2: column 8 \('abc'\) is not a number" "$O" \
  M --input "$T/txt.beagle" --output "$O"
{ echo "$hdr"; printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\n'
  printf '2\t10\t.\tA\tG\t.\t.\t.\tGT\t0/1\n'; } > "$T/gt_only.vcf"
expect_error "vcf without GL/PL" "gt_only\.vcf: the header declares neither FORMAT/GL nor FORMAT/PL" \
  "$O" M --input "$T/gt_only.vcf" --output "$O"
printf "${h}c_1\t0\t1\t0.2\t0.2\t0.2\t0.3\t0.3\t0.3\n" > "$T/nodata.beagle"
expect_error "no site with data" "nodata\.beagle: no site has data" "$O" \
  M --input "$T/nodata.beagle" --output "$O"
expect_error "missing input" "nope\.beagle: cannot open" "$O" M --input "$T/nope.beagle" --output "$O"
expect_error "no input" "no input" "$O" M --output "$O"
expect_error "negative band" "--band-tol.*out of range" "$O" M --input "$T/g.beagle" --band-tol -1
expect_error "band with ref" "--band-tol applies to the tree" "$O" \
  M --input "$T/g.beagle" --kernel ref --band-tol 5
expect_error "bad kernel" "--kernel: unknown value 'fast'" "$O" M --input "$T/g.beagle" --kernel fast
expect_error "unknown maf option" "unknown.*--frobnicate" "$O" M --input "$T/g.beagle" --frobnicate
expect_error "maf output dir" "--output .*nodir/x: the directory .*nodir does not exist" "$T/nodir/x" \
  M --input "$T/g.beagle" --output "$T/nodir/x"
finish
