#!/bin/sh
# streams.sh: inputs that are streams are read exactly once (docs/inputs.md,
# "Streams"): a FIFO with a writer in the background, a table piped on
# /dev/stdin, a process substitution (bash's <(...), a /dev/fd/N pipe),
# for every format that streams (text, CSV, npy, raw, VCF plain and gzip,
# BCF, a PLINK set of FIFOs), each giving the output of the same bytes in a
# regular file; a stream of no telling name read by its first bytes;
# /dev/zero refused at once where it cannot be data (timeout: a regression
# fails instead of hanging); a stream over the memory limit refused with
# the limit named; --resume and several MPI ranks refused for a stream;
# starmet maf on a FIFO and /dev/stdin, and /dev/zero refused.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
if ! command -v timeout > /dev/null 2>&1; then echo "no timeout(1): skipped"; exit 77; fi
W=60 # seconds one run may take: a run stuck on a stream fails the test
c() { timeout $W "$S" compute --quiet "$@"; }
fifo_n=0
# fifo_of FILE EXT: a new FIFO named *.EXT fed FILE by a writer in the
# background (which gives up after $W s if nobody reads); its path in $fifo
fifo_of() {
  fifo_n=$((fifo_n + 1))
  fifo=$T/fifo$fifo_n.$2
  mkfifo "$fifo"
  timeout $W sh -c 'cat "$1" > "$2"' sh "$1" "$fifo" > /dev/null 2>&1 &
}
# drain: read what a refused run left in $fifo, ending its writer
drain() { timeout 10 cat "$fifo" > /dev/null 2>&1 || true; }
# same_as NAME OUT REF: the stream run's output OUT.tsv is REF.tsv
same_as() {
  if [ -f "$2.tsv" ] && cmp -s "$2.tsv" "$3.tsv"; then pass; else
    fail "$1: the output differs from the regular file's"; diff "$2.tsv" "$3.tsv" 2>&1 | head -5 >&2
  fi
}
# (run_ok and expect_error set $name: the helpers here use other names)
# streamed NAME FILE EXT [ARGS]: FILE read as a FIFO *.EXT, on /dev/stdin
# (with --input-format EXT when EXT names one) and through bash's <(...)
# gives the output of FILE itself (REF: $T/ref_NAME, made by the caller)
streamed() {
  sn=$1 sf=$2 ext=$3; shift 3
  fifo_of "$sf" "$ext"
  run_ok "$sn: FIFO" c --input "$fifo" --output "$T/s_$sn" "$@"
  same_as "$sn: FIFO" "$T/s_$sn" "$T/ref_$sn"
  fmt=""
  case $ext in tsv | csv | npy | raw | vcf | bcf) fmt="--input-format $ext" ;; esac
  rm -f "$T/s_$sn".*
  # shellcheck disable=SC2086
  run_ok "$sn: /dev/stdin" sh -c 'f=$1; shift; cat "$f" | "$@"' sh "$sf" timeout $W "$S" \
    compute --quiet --input /dev/stdin $fmt --output "$T/s_$sn" "$@"
  same_as "$sn: /dev/stdin" "$T/s_$sn" "$T/ref_$sn"
  rm -f "$T/s_$sn".*
  if [ -n "$BASH" ]; then
    # shellcheck disable=SC2086
    run_ok "$sn: <(cat FILE)" "$BASH" -c 'f=$1 s=$2; shift 2; timeout '$W' "$s" compute --quiet --input <(cat "$f") "$@"' \
      bash "$sf" "$S" $fmt --output "$T/s_$sn" "$@"
    same_as "$sn: <(cat FILE)" "$T/s_$sn" "$T/ref_$sn"
    rm -f "$T/s_$sn".*
  fi
}
BASH=$(command -v bash || true)
[ -n "$BASH" ] || skip_part "bash not installed: process substitution is not tried"

# --- text: TSV (the bundled table), CSV
TSV=$top_srcdir/data/example_abundance.tsv
run_ok "tsv: the file" c --input "$TSV" --output "$T/ref_tsv"
streamed tsv "$TSV" tsv
tr '\t' ',' < "$TSV" > "$T/abund.csv"
run_ok "csv: the file" c --input "$T/abund.csv" --output "$T/ref_csv"
streamed csv "$T/abund.csv" csv
# the layout options apply as to a file
run_ok "tsv --transpose: the file" c --input "$TSV" --transpose --output "$T/ref_tsvt"
streamed tsvt "$TSV" tsv --transpose
# no format said, a name that tells none: read by its first bytes (text
# here), a stream or a file redirected to stdin alike
rm -f "$T/s".*
run_ok "a file on /dev/stdin, no --input-format" sh -c 'timeout '$W' "$1" compute --quiet --input /dev/stdin --output "$2" < "$3"' \
  sh "$S" "$T/s" "$T/abund.csv"
same_as "a file on /dev/stdin" "$T/s" "$T/ref_csv"
rm -f "$T/s".*
run_ok "csv piped, no --input-format" sh -c 'cat "$3" | timeout '$W' "$1" compute --quiet --input /dev/stdin --output "$2"' \
  sh "$S" "$T/s" "$T/abund.csv"
same_as "csv piped, no --input-format" "$T/s" "$T/ref_csv"

# --- npy, raw (czekanowski), raw CCC
"$S" synth --metric czekanowski --synthetic random --num-vector 40 --num-field 30 \
  --output-format npy --output "$T/cz.npy" > /dev/null 2>&1
"$S" synth --metric czekanowski --synthetic random --num-vector 40 --num-field 30 \
  --output-format raw --output "$T/cz.raw" > /dev/null 2>&1
run_ok "npy: the file" c --input "$T/cz.npy" --output "$T/ref_npy"
streamed npy "$T/cz.npy" npy
rm -f "$T/s".*
run_ok "npy piped, no --input-format" sh -c 'cat "$3" | timeout '$W' "$1" compute --quiet --input /dev/stdin --output "$2"' \
  sh "$S" "$T/s" "$T/cz.npy"
same_as "npy piped, no --input-format" "$T/s" "$T/ref_npy"
run_ok "raw: the file" c --input "$T/cz.raw" --num-field 30 --output "$T/ref_raw"
streamed raw "$T/cz.raw" raw --num-field 30
run_ok "raw --num-vector: the file" c --input "$T/cz.raw" --num-field 30 --num-vector 25 --output "$T/ref_rawn"
streamed rawn "$T/cz.raw" raw --num-field 30 --num-vector 25
"$S" synth --metric ccc --synthetic random --num-vector 30 --num-field 21 --missing-rate 0.1 \
  --output-format raw --output "$T/g.raw" > /dev/null 2>&1
run_ok "ccc raw: the file" c --metric ccc --input "$T/g.raw" --num-field 21 --output "$T/ref_cccraw"
streamed cccraw "$T/g.raw" raw --metric ccc --num-field 21

# --- VCF: plain, gzip, BCF (bcftools)
awk 'BEGIN { srand(5); n = 7
  print "##fileformat=VCFv4.2"; print "##contig=<ID=1>"
  print "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">"
  printf "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT"
  for (i = 0; i < n; i++) printf "\ts%d", i; printf "\n"
  for (v = 1; v <= 25; v++) {
    printf "1\t%d\trs%d\tA\tG\t.\tPASS\t.\tGT", 100 * v, v
    for (i = 0; i < n; i++) { r = rand(); printf "\t%s", r < 0.3 ? "0/0" : r < 0.6 ? "0/1" : r < 0.9 ? "1/1" : "./." }
    printf "\n" } }' > "$T/g.vcf"
gzip -c "$T/g.vcf" > "$T/g.vcf.gz"
run_ok "vcf: the file" c --metric ccc --input "$T/g.vcf" --output "$T/ref_vcf"
streamed vcf "$T/g.vcf" vcf --metric ccc
cp "$T/ref_vcf.tsv" "$T/ref_vcfgz.tsv"
streamed vcfgz "$T/g.vcf.gz" vcf.gz --metric ccc
rm -f "$T/s".*
run_ok "vcf.gz piped, no --input-format" sh -c 'cat "$3" | timeout '$W' "$1" compute --quiet --metric ccc --input /dev/stdin --output "$2"' \
  sh "$S" "$T/s" "$T/g.vcf.gz"
same_as "vcf.gz piped, no --input-format" "$T/s" "$T/ref_vcf"
if command -v bcftools > /dev/null 2>&1; then
  bcftools view -Ob -o "$T/g.bcf" "$T/g.vcf" 2> /dev/null
  cp "$T/ref_vcf.tsv" "$T/ref_bcf.tsv"
  streamed bcf "$T/g.bcf" bcf --metric ccc
else skip_part "bcftools not installed: BCF on a stream is not tried"; fi

# --- PLINK: a set of three FIFOs, each read once; one stream is no set
"$S" synth --metric ccc --synthetic random --num-vector 30 --num-field 13 \
  --output-format plink --output "$T/pl" > /dev/null 2>&1
run_ok "plink: the files" c --bfile "$T/pl" --output "$T/ref_plink"
mkdir "$T/pf"
for e in bed bim fam; do
  mkfifo "$T/pf/g.$e"
  timeout $W sh -c 'cat "$1" > "$2"' sh "$T/pl.$e" "$T/pf/g.$e" > /dev/null 2>&1 &
done
run_ok "plink: three FIFOs" c --bfile "$T/pf/g" --output "$T/s_plink"
same_as "plink: three FIFOs" "$T/s_plink" "$T/ref_plink"
expect_error "plink: one stream" "/dev/stdin: a stream \(a pipe, FIFO or device\) cannot be a PLINK file set" \
  "$T/err_plink" sh -c 'cat "$1" | timeout '$W' "$2" compute --metric ccc --input /dev/stdin --input-format plink --output "$3"' \
  sh "$T/pl.bed" "$S" "$T/err_plink"

# --- /dev/zero: refused at once where it cannot be data (not read to the
# memory limit); raw with --num-vector reads the zeros it needs
zero() {
  zn=$1 zp=$2; shift 2
  t0=$(date +%s)
  expect_error "/dev/zero as $zn" "$zp" "$T/err_zero" c --input /dev/zero --output "$T/err_zero" "$@"
  [ $(($(date +%s) - t0)) -le 10 ] && pass || fail "/dev/zero as $zn: not refused at once"
}
zero tsv "/dev/zero:1:1: a NUL byte: this is not a text table" --input-format tsv
zero "no format" "/dev/zero:1:1: a NUL byte" # a device of no telling name: by its first bytes
zero npy "/dev/zero: not a NumPy .npy file" --input-format npy
zero vcf "/dev/zero: not a VCF or BCF file" --metric ccc --input-format vcf
run_ok "/dev/zero as raw, --num-vector 5" c --input /dev/zero --input-format raw --num-field 4 \
  --num-vector 5 --metric ccc --output "$T/zr"
[ "$(tail -n +2 "$T/zr.tsv" | wc -l)" -eq 40 ] && pass || fail "/dev/zero as raw: not 10 pairs x 4 entries"
expect_error "/dev/zero as raw, no --num-vector, over the limit" \
  "/dev/zero: a stream .* holds more than the 2 MB that STARMET_MEMORY_LIMIT allows; write it to a file" \
  "$T/err_lim" env STARMET_MEMORY_LIMIT=2M timeout $W "$S" compute --input /dev/zero --input-format raw --num-field 4 --output "$T/err_lim"
# a pipe over the memory limit: the limit named
expect_error "a pipe over the memory limit" "/dev/stdin: a stream .* holds more than the 2 MB that STARMET_MEMORY_LIMIT allows" \
  "$T/err_lim" sh -c 'head -c 3000000 /dev/zero | tr "\\0" "1" | STARMET_MEMORY_LIMIT=2M timeout '$W' "$1" compute --input /dev/stdin --input-format tsv --output "$2"' \
  sh "$S" "$T/err_lim"
# an empty stream: no data, said so
expect_error "an empty pipe" "/dev/stdin: no data rows \(empty file\)" "$T/err_empty" \
  sh -c ': | timeout '$W' "$1" compute --input /dev/stdin --input-format tsv --output "$2"' sh "$S" "$T/err_empty"

# --- what a stream cannot do: --resume, several MPI ranks
fifo_of "$TSV" tsv
expect_error "--resume on a FIFO" "fifo$fifo_n\.tsv is a stream .*--resume cannot check" "$T/err_resume" \
  c --input "$fifo" --resume --output "$T/err_resume"
drain
# --- maf: a FIFO and /dev/stdin read once; /dev/zero refused
M() { timeout $W "$S" maf --quiet "$@"; }
GL=$top_srcdir/data/example_gl.vcf
run_ok "maf: the file" M --input "$GL" --output "$T/mref"
fifo_of "$GL" vcf
run_ok "maf: a FIFO" M --input "$fifo" --output "$T/mf"
for e in saf.tsv maf.tsv sfs; do
  cmp -s "$T/mf.$e" "$T/mref.$e" && pass || fail "maf: a FIFO: $e differs from the file's"
done
BG=$top_srcdir/data/example_gl.beagle.gz
run_ok "maf beagle: the file" M --input "$BG" --output "$T/mbref"
run_ok "maf: /dev/stdin" sh -c 'cat "$1" | timeout '$W' "$2" maf --quiet --input /dev/stdin --input-format beagle --output "$3"' \
  sh "$BG" "$S" "$T/mb"
for e in saf.tsv maf.tsv sfs; do
  cmp -s "$T/mb.$e" "$T/mbref.$e" && pass || fail "maf: /dev/stdin: $e differs from the file's"
done
t0=$(date +%s)
expect_error "maf: /dev/zero" "/dev/zero:1: a NUL byte: not a text file" "$T/err_maf" M --input /dev/zero --output "$T/err_maf"
[ $(($(date +%s) - t0)) -le 10 ] && pass || fail "maf: /dev/zero not refused at once"

# --- MPI (last: mpi_setup sets one CPU worker per rank for what follows)
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  # shellcheck disable=SC2086
  expect_error "2 MPI ranks on /dev/stdin" "/dev/stdin is a stream .*2 MPI ranks cannot share it" "$T/err_mpi" \
    sh -c 'f=$1; shift; cat "$f" | "$@"' sh "$TSV" timeout $W $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 \
    "$S" compute --quiet --input /dev/stdin --input-format tsv --output "$T/err_mpi"
  fifo_of "$TSV" tsv
  # shellcheck disable=SC2086
  expect_error "2 MPI ranks on a FIFO" "fifo$fifo_n\.tsv is a stream .*2 MPI ranks cannot share it" "$T/err_mpi" \
    timeout $W $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$S" compute --quiet --input "$fifo" --output "$T/err_mpi"
  drain
else skip_part "no MPI launcher: several ranks on a stream are not tried"; fi
finish
