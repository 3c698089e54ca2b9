#!/bin/sh
# ld_plink.sh: --metric r2 and r against plink1.9 --r2/--r run here, on
# genotypes with missing calls, monomorphic SNPs, a SNP never called and
# three chromosomes: every pair's value within PLINK's 6 printed digits,
# the pairs PLINK leaves out (no variance over the shared samples) NaN;
# r's sign as PLINK's (its minor allele counted); the int8 products and a
# second sample count give the same; genotype inputs without --metric run
# ccc and say so; what r and r2 refuse.
. "$(dirname "$0")/../lib.sh"
PY=${PYTHON3:-/usr/bin/python3}
GEN="$top_srcdir/tests/tools/ld_data.py"
CMP="$top_srcdir/tests/tools/ld_compare.py"
"$PY" -c 'import math' 2> /dev/null || { echo "no python3: skipped"; exit 77; }
# like_plink NAME OUT ARGS...: starmet compute ARGS --out $T/OUT and
# plink1.9 ARGS --out $T/p_OUT write the same .ld
like_plink() {
  lp_name=$1 lp_out=$2
  shift 2
  run_ok "$lp_name" "$STARMET" compute --quiet "$@" --out "$T/$lp_out"
  plink1.9 "$@" --out "$T/p_$lp_out" > /dev/null 2>&1
  cmp -s "$T/$lp_out.ld" "$T/p_$lp_out.ld" && pass ||
    fail "$lp_name: $(diff "$T/$lp_out.ld" "$T/p_$lp_out.ld" | head -3)"
}

"$PY" "$GEN" "$T/g" --samples 157 --snps 300 --missing 0.05 --mono 4 --seed 3
"$PY" "$GEN" "$T/h" --samples 64 --snps 130 --missing 0 --chroms 2 --seed 5

for m in r2 r; do
  for d in g h; do
    run_ok "$m $d" "$STARMET" compute --quiet --bfile "$T/$d" --metric $m --output-format tsv \
      --output "$T/${d}_$m"
    if command -v plink1.9 > /dev/null 2>&1; then
      plink1.9 --bfile "$T/$d" --$m inter-chr --ld-window-r2 0 --out "$T/pl_${d}_$m" \
        > /dev/null 2>&1 || fail "plink1.9 --$m on $d"
      if "$PY" "$CMP" "$T/${d}_$m.tsv" "$T/pl_${d}_$m.ld" > "$T/cmp.out"; then pass; else
        fail "$m $d against plink1.9: $(tail -3 "$T/cmp.out")"; fi
    fi
  done
  # the int8 products give the same moments
  run_ok "$m int8" "$STARMET" compute --quiet --bfile "$T/g" --metric $m --ccc-gemm int8 \
    --output-format tsv --output "$T/i8_$m"
  same_text "$m int8 products" "$T/g_$m.tsv" "$T/i8_$m.tsv"
  # without AVX-512: the portable popcount loops
  run_ok "$m portable" env STARMET_CPU_DISABLE=avx512,vpopcntdq "$STARMET" compute --quiet \
    --bfile "$T/g" --metric $m --output-format tsv --output "$T/p_$m"
  same_text "$m portable loops" "$T/g_$m.tsv" "$T/p_$m.tsv"
  # small tiles: many blocks, off-diagonal ones swapped
  run_ok "$m tiles" "$STARMET" compute --quiet --bfile "$T/g" --metric $m --block-size 17 \
    --output-format tsv --output "$T/b_$m"
  same_text "$m tiles of 17" "$T/g_$m.tsv" "$T/b_$m.tsv"
  # what the kernels derive from a tile, kept between its pairs' tasks or
  # not (budgets of 0, 1 MB and the default; tiles of 150, past
  # SM_SIDE_MIN_VECTORS): the same values; kept, it is found again
  for mb in 0 1 256; do
    run_ok "$m kept tile data $mb" env STARMET_SIDE_CACHE_MB=$mb STARPU_NCPU=2 "$STARMET" \
      compute --quiet --bfile "$T/g" --metric $m --block-size 150 --output-format tsv \
      --output "$T/k${mb}_$m" --summary "$T/k${mb}_$m.json"
    same_text "$m kept tile data $mb" "$T/g_$m.tsv" "$T/k${mb}_$m.tsv"
  done
  reused() { sed -n 's/.*"tile_data_reused": \([0-9]*\).*/\1/p' "$1"; }
  [ "$(reused "$T/k0_$m.json")" = 0 ] && pass || fail "$m: tile data kept with a budget of 0"
  # (the checks keep theirs on every ISA, the AVX-512 counters theirs too)
  [ "$(reused "$T/k256_$m.json")" -gt 0 ] && pass || fail "$m: no tile data kept"
done
command -v plink1.9 > /dev/null 2>&1 || skip_part "no plink1.9: values not compared with PLINK's"

# r^2 is r squared, pair for pair (both written to 17 digits)
"$PY" - "$T/g_r.tsv" "$T/g_r2.tsv" > "$T/sq.out" << 'PYEOF' && pass || fail "r2 is not r^2: $(cat "$T/sq.out")"
import math, sys
r = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:]]
r2 = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()[1:]]
assert len(r) == len(r2) > 0
for a, b in zip(sorted(r), sorted(r2)):
    assert a[:2] == b[:2]
    x, y = float(a[2]), float(b[2])
    assert (math.isnan(x) and math.isnan(y)) or abs(x * x - y) <= 4e-16, (a, b)
PYEOF

# the header names one value per pair
[ "$(head -n 1 "$T/g_r2.tsv")" = "$(printf 'id_i\tid_j\tvalue')" ] && pass ||
  fail "r2 header: $(head -n 1 "$T/g_r2.tsv")"

# genotype inputs choose ccc, and the first line says so
run_ok "bfile without --metric" "$STARMET" compute --bfile "$T/h" --output "$T/nometric"
head -n 1 "$T/log.err" | grep -q "ccc" && pass || fail "first line: $(head -n 1 "$T/log.err")"
run_ok "bfile --metric ccc" "$STARMET" compute --quiet --bfile "$T/h" --metric ccc \
  --output "$T/ccc"
same_text "no --metric is ccc" "$T/ccc.tsv" "$T/nometric.tsv"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/h" --keep-allele-order --recode vcf --out "$T/hv" > /dev/null 2>&1
  run_ok "vcf without --metric" "$STARMET" compute --input "$T/hv.vcf" --output "$T/vnometric"
  head -n 1 "$T/log.err" | grep -q "ccc" && pass || fail "vcf first line: $(head -n 1 "$T/log.err")"
fi

# PLINK's windows and its .ld table: the same file as plink1.9's, byte for
# byte (columns, order, number formatting), for its window options
"$PY" "$GEN" "$T/w" --samples 120 --snps 900 --missing 0.03 --mono 3 --chroms 3 --span 600000 --seed 9
n=0
for args in "--ld-window 10" "--ld-window-r2 0" "--ld-window 999999 --ld-window-kb 1000 --ld-window-r2 0" \
  "--ld-window 50 --ld-window-kb 20 --ld-window-r2 0.1" "--ld-window-kb 5" "--inter-chr" \
  "--inter-chr --ld-window-r2 0.3"; do
  n=$((n + 1))
  for m in r2 r; do
    # shellcheck disable=SC2086
    run_ok "$m $args" "$STARMET" compute --quiet --bfile "$T/w" --metric $m $args \
      --output-format ld --output "$T/w${n}_$m"
    if command -v plink1.9 > /dev/null 2>&1; then
      # shellcheck disable=SC2046,SC2086
      plink1.9 --bfile "$T/w" --$m $(echo $args | sed 's/--inter-chr/inter-chr/') \
        --out "$T/pw${n}_$m" > /dev/null 2>&1 || fail "plink1.9 --$m $args"
      cmp -s "$T/w${n}_$m.ld" "$T/pw${n}_$m.ld" && pass ||
        fail "$m $args: .ld differs from plink1.9's: $(diff "$T/w${n}_$m.ld" "$T/pw${n}_$m.ld" | head -4)"
    fi
  done
done
# long windows (runs of 100 to 300 variants) on 900 samples with few
# missing calls: with AVX-512 the counters compute the runs' pairs alone
# (whole tile pairs too, tiles of 256 and of 100); the same .ld as
# plink1.9's and as the portable strips' without AVX-512; faults injected
# into those tile pairs' tallies are caught (--verify full too), the table the same
"$PY" "$GEN" "$T/lw" --samples 900 --snps 700 --missing 0.004 --mono 3 --chroms 2 \
  --span 1500000 --seed 12
# caught_all NAME SUMMARY: faults were injected and every one was caught
caught_all() {
  ca_inj=$(tr -d '\n' < "$2" | sed -n 's/.*"faults_injected": \([0-9]*\).*/\1/p')
  ca_cau=$(tr -d '\n' < "$2" | sed -n 's/.*"failures_caught": \([0-9]*\).*/\1/p')
  [ "${ca_inj:-0}" -gt 0 ] && [ "$ca_inj" = "$ca_cau" ] && pass ||
    fail "$1: $ca_inj faults injected, $ca_cau caught"
}
LW="--bfile $T/lw --ld-window 999999 --ld-window-kb 1000 --ld-window-r2 0 --output-format ld"
for m in r2 r; do
  for bs in 256 100; do
    # shellcheck disable=SC2086
    run_ok "$m long windows, tiles of $bs" "$STARMET" compute --quiet --metric $m $LW \
      --block-size $bs --output "$T/lw${bs}_$m"
  done
  same_text "$m long windows: tiles of 100" "$T/lw256_$m.ld" "$T/lw100_$m.ld"
  # shellcheck disable=SC2086
  run_ok "$m long windows portable" env STARMET_CPU_DISABLE=avx512,vpopcntdq "$STARMET" \
    compute --quiet --metric $m $LW --output "$T/lwp_$m"
  same_text "$m long windows without AVX-512" "$T/lw256_$m.ld" "$T/lwp_$m.ld"
  # shellcheck disable=SC2086
  run_ok "$m long windows, faults" "$STARMET" compute --quiet --metric $m $LW --block-size 100 \
    --verify --inject-faults 0.3,4 --output "$T/lwf_$m" --summary "$T/lwf_$m.json"
  same_text "$m long windows, faults caught" "$T/lw256_$m.ld" "$T/lwf_$m.ld"
  caught_all "$m long windows" "$T/lwf_$m.json"
  # --verify full: each row's run computed again and compared
  # shellcheck disable=SC2086
  run_ok "$m long windows, full check" "$STARMET" compute --quiet --metric $m $LW \
    --verify full --inject-faults 0.3,7 --output "$T/lwv_$m" --summary "$T/lwv_$m.json"
  same_text "$m long windows, full check" "$T/lw256_$m.ld" "$T/lwv_$m.ld"
  caught_all "$m long windows, full check" "$T/lwv_$m.json"
  if command -v plink1.9 > /dev/null 2>&1; then
    plink1.9 --bfile "$T/lw" --$m --ld-window 999999 --ld-window-kb 1000 --ld-window-r2 0 \
      --out "$T/plw_$m" > /dev/null 2>&1 || fail "plink1.9 --$m long windows"
    cmp -s "$T/lw256_$m.ld" "$T/plw_$m.ld" && pass ||
      fail "$m long windows: .ld differs from plink1.9's: $(diff "$T/lw256_$m.ld" "$T/plw_$m.ld" | head -4)"
  fi
done
# a PLINK user's own command line: --r2 / --r, --out, --threads, and
# without a format or window option PLINK's .ld table in plink1.9 --r2's
# default window (the log says so); the same table as plink1.9's and as
# --metric with --ld-window 10 (w1 above)
for m in r2 r; do
  run_ok "plink's spelling $m" "$STARMET" compute --bfile "$T/w" --$m --threads 2 \
    --out "$T/ps_$m"
  grep -q "default window" "$T/log.err" && pass || fail "$m default window not said: $(head -2 "$T/log.err")"
  cmp -s "$T/ps_$m.ld" "$T/w1_$m.ld" && pass || fail "--$m --out is not the window-10 table"
  [ "$(grep -c '"name": "CPU' "$T/ps_$m.json")" = 2 ] && pass || fail "--threads 2: not 2 CPU workers"
  if command -v plink1.9 > /dev/null 2>&1; then
    plink1.9 --bfile "$T/w" --$m --threads 2 --out "$T/pps_$m" > /dev/null 2>&1 || fail "plink1.9 --$m"
    cmp -s "$T/ps_$m.ld" "$T/pps_$m.ld" && pass || fail "--$m --out: not plink1.9's .ld"
  fi
done
run_ok "--metric r2 --out" "$STARMET" compute --quiet --bfile "$T/w" --metric r2 --threads 1 \
  --out "$T/pm" --summary "$T/pm.json"
cmp -s "$T/pm.ld" "$T/ps_r2.ld" && pass || fail "--metric r2 --out is not --r2 --out"
[ "$(grep -c '"name": "CPU' "$T/pm.json")" = 1 ] && pass || fail "--threads 1: not 1 CPU worker"
# the .ld goes straight to the disk under a lease (where the file system
# allows both): not read back unless another process opened it. Switched
# off (STARMET_DIRECT_IO=0), the same table through the page cache, read
# back; a reader while the run is stopped breaks the lease (the same
# table, read back); a byte another process changes in what is on the
# disk fails the run
ocheck() { sed -n 's/.*"output_check": "\([a-z ]*\)".*/\1/p' "$1"; }
if [ "$(ocheck "$T/pm.json")" = leased ]; then
  pass
  run_ok "direct I/O off" env STARMET_DIRECT_IO=0 "$STARMET" compute --quiet --bfile "$T/w" \
    --metric r2 --threads 1 --out "$T/pb" --summary "$T/pb.json"
  cmp -s "$T/pb.ld" "$T/pm.ld" && pass || fail "STARMET_DIRECT_IO=0: another table"
  [ "$(ocheck "$T/pb.json")" = "read back" ] && pass || fail "STARMET_DIRECT_IO=0: not read back"
  "$PY" "$GEN" "$T/dw" --samples 200 --snps 3000 --missing 0.02 --seed 9
  DWARGS="compute --quiet --bfile $T/dw --metric r2 --ld-window 999999 --ld-window-kb 1000 --ld-window-r2 0 --block-size 64 --output-format ld"
  # shellcheck disable=SC2086
  run_ok "direct I/O clean" "$STARMET" $DWARGS --output "$T/dwc"
  # shellcheck disable=SC2086
  while_stopped "$T/dwr" '(cat "$T/dwr.ld.part" > /dev/null) & sleep 0.3' \
    "$STARMET" $DWARGS --output "$T/dwr" --summary "$T/dwr.json" --debug-pause-after-blocks 60 &&
    pass || fail "direct I/O, a reader: $(cat "$T/bg.err")"
  cmp -s "$T/dwr.ld" "$T/dwc.ld" && pass || fail "direct I/O, a reader: another table"
  [ "$(ocheck "$T/dwr.json")" = "read back" ] && pass || fail "direct I/O, a reader: lease kept"
  # (60 blocks: more than a 4 MiB buffer on the disk, never written again)
  # shellcheck disable=SC2086
  while_stopped "$T/dwt" \
    '(printf Z | dd of="$T/dwt.ld.part" bs=1 seek=10 conv=notrunc 2> /dev/null) & sleep 0.3' \
    "$STARMET" $DWARGS --output "$T/dwt" --debug-pause-after-blocks 60 &&
    fail "direct I/O: succeeded with a byte of its output changed"
  grep -q "dwt\.ld\.part: the output does not hold the bytes written" "$T/bg.err" && pass ||
    fail "direct I/O, a byte changed: $(cat "$T/bg.err")"
  [ ! -e "$T/dwt.ld" ] && pass || fail "direct I/O, a byte changed: committed"
else
  skip_part "no O_DIRECT or no leases here: the .ld through the page cache"
fi
run_ok "--r2 inter-chr" "$STARMET" compute --quiet --bfile "$T/w" --r2 inter-chr --ld-window-r2 0.3 \
  --out "$T/pi"
cmp -s "$T/pi.ld" "$T/w7_r2.ld" && pass || fail "--r2 inter-chr is not --inter-chr"
# PLINK's modifiers follow --r2 in any number and order: yes-really (its
# consent to a large table) is accepted, an unknown one named
run_ok "--r2 yes-really inter-chr" "$STARMET" compute --quiet --bfile "$T/w" --r2 yes-really \
  inter-chr --ld-window-r2 0.3 --out "$T/pi"
cmp -s "$T/pi.ld" "$T/w7_r2.ld" && pass || fail "--r2 yes-really inter-chr is not --inter-chr"
expect_error "--r2 inter-chr dprime" "modifier dprime is not one of starmet's" "$T/e15" \
  "$STARMET" compute --bfile "$T/w" --r2 inter-chr yes-really dprime --out "$T/e15"
expect_error "--r2 square" "output-format npy" "$T/e15" \
  "$STARMET" compute --bfile "$T/w" --r2 square --out "$T/e15"
# gz: PLINK's .ld.gz, the same table gzip-compressed (one rank or several)
run_ok "--r2 gz inter-chr" "$STARMET" compute --quiet --bfile "$T/w" --r2 gz inter-chr \
  --ld-window-r2 0.3 --out "$T/pz"
[ ! -e "$T/pz.ld" ] && gzip -t "$T/pz.ld.gz" && pass || fail "--r2 gz: not a gzip file PREFIX.ld.gz"
gzip -dc "$T/pz.ld.gz" | cmp -s - "$T/w7_r2.ld" && pass || fail "--r2 gz: not the same table"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/w" --r2 gz --ld-window 5 --out "$T/ppz" > /dev/null 2>&1
  run_ok "--r2 gz window" "$STARMET" compute --quiet --bfile "$T/w" --r2 gz --ld-window 5 \
    --out "$T/spz"
  [ "$(gzip -dc "$T/spz.ld.gz" | cksum)" = "$(gzip -dc "$T/ppz.ld.gz" | cksum)" ] && pass ||
    fail "--r2 gz: not plink1.9's table"
fi
expect_error "--r2 gz with tsv" "gz compresses PLINK's .ld table" "$T/e15" \
  "$STARMET" compute --bfile "$T/w" --r2 gz --output-format tsv --out "$T/e15"
expect_error "with-freqs with bin" "with-freqs adds allele frequencies to PLINK's .ld table" \
  "$T/e15" "$STARMET" compute --bfile "$T/w" --r with-freqs --output-format bin --out "$T/e15"
expect_error "default ld table resumed" "cannot be resumed" "$T/e16" \
  "$STARMET" compute --bfile "$T/w" --r2 --out "$T/e16" --resume
# narrow windows: a tile pair's pairs in the windows are computed pair by
# pair over each row's run (runs of up to 48 columns; the rest is not
# written) and checked row by row as the run slides, or, for longer runs,
# in strips checked strip by strip: faults injected into those pairs (a
# bit, a whole row) are all caught and re-executed, the table unchanged;
# unchecked, the same faults reach the table
jn() { tr -d '\n' < "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"; }
for way in runs strips; do
  case $way in
  runs) BARGS="--ld-window 10 --block-size 64" ;;
  strips) BARGS="--ld-window 60 --block-size 256" ;;
  esac
  BARGS="--bfile $T/w --metric r2 --ld-window-r2 0 --output-format ld $BARGS"
  # shellcheck disable=SC2086
  run_ok "$way clean" "$STARMET" compute --quiet $BARGS --output "$T/sc_$way"
  for kind in bit row; do
    # shellcheck disable=SC2086
    run_ok "$way injected $kind" "$STARMET" compute --quiet $BARGS \
      --inject-faults 0.3,11,$kind --output "$T/si_$kind"
    cmp -s "$T/si_$kind.ld" "$T/sc_$way.ld" && pass || fail "$way $kind: faults changed the table"
    [ "$(jn "$T/si_$kind.json" faults_injected)" -gt 0 ] &&
      [ "$(jn "$T/si_$kind.json" failures_caught)" = "$(jn "$T/si_$kind.json" faults_injected)" ] &&
      pass || fail "$way $kind: $(jn "$T/si_$kind.json" failures_caught) of $(jn "$T/si_$kind.json" faults_injected) faults caught"
  done
  # shellcheck disable=SC2086
  run_ok "$way unchecked" "$STARMET" compute --quiet $BARGS --no-verify \
    --inject-faults 0.3,11 --output "$T/su"
  cmp -s "$T/su.ld" "$T/sc_$way.ld" && fail "$way: unchecked faults changed nothing" || pass
done
cmp -s "$T/sc_runs.ld" "$T/w2_r2.ld" && pass ||
  fail "runs: not the table of --ld-window-r2 0 with the default tiles"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/w" --r2 --ld-window 60 --ld-window-r2 0 --out "$T/pw60" > /dev/null 2>&1
  cmp -s "$T/sc_strips.ld" "$T/pw60.ld" && pass || fail "strips: not plink1.9's table"
fi
# a window keeps few of the pairs: a file-size limit far below every pair's
# table but above the window's lets the run write it (the preflight does
# not take every pair's size for the window's)
run_ok "window under ulimit -f" sh -c 'ulimit -f 4096 && exec "$@"' sh "$STARMET" compute \
  --quiet --bfile "$T/w" --metric r2 --ld-window 10 --output-format ld --output "$T/wlim"
cmp -s "$T/wlim.ld" "$T/w1_r2.ld" && pass || fail "window under ulimit -f: not the same table"
# a VCF of the same genotypes (plink1.9 --recode vcf: ALT is A1) gives the
# same table
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/w" --keep-allele-order --recode vcf --out "$T/wv" > /dev/null 2>&1
  run_ok "vcf window" "$STARMET" compute --quiet --input "$T/wv.vcf" --metric r \
    --ld-window 50 --ld-window-kb 20 --ld-window-r2 0.1 --output-format ld --output "$T/wv"
  cmp -s "$T/wv.ld" "$T/w4_r.ld" && pass || fail "vcf window: $(diff "$T/wv.ld" "$T/w4_r.ld" | head -3)"
fi

# founders only, as PLINK: samples with a parent in the .fam are left out;
# --all-samples keeps them (PLINK: the same .fam with the parents cleared)
cp "$T/w.bed" "$T/f.bed"; cp "$T/w.bim" "$T/f.bim"; cp "$T/w.bed" "$T/z.bed"; cp "$T/w.bim" "$T/z.bim"
awk 'NR % 7 == 3 { $3 = "fam1"; $4 = "fam2" } { print }' "$T/w.fam" > "$T/f.fam"
cp "$T/w.fam" "$T/z.fam"
run_ok "founders" "$STARMET" compute --bfile "$T/f" --metric r2 --inter-chr --ld-window-r2 0 \
  --output-format ld --output "$T/f"
grep -q "17 samples with a parent in the file left out" "$T/log.err" && pass ||
  fail "founders: not said: $(cat "$T/log.err")"
run_ok "all samples" "$STARMET" compute --quiet --bfile "$T/f" --metric r2 --all-samples \
  --inter-chr --ld-window-r2 0 --output-format ld --output "$T/fa"
run_ok "no parents" "$STARMET" compute --quiet --bfile "$T/z" --metric r2 --inter-chr \
  --ld-window-r2 0 --output-format ld --output "$T/z"
cmp -s "$T/fa.ld" "$T/z.ld" && pass || fail "--all-samples is not the table of every sample"
cmp -s "$T/f.ld" "$T/z.ld" && fail "founders only changed nothing" || pass
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/f" --r2 inter-chr --ld-window-r2 0 --out "$T/pf" > /dev/null 2>&1
  cmp -s "$T/f.ld" "$T/pf.ld" && pass || fail "founders: $(diff "$T/f.ld" "$T/pf.ld" | head -3)"
fi
expect_error "all-samples with ccc" "all-samples" "$T/e12" \
  "$STARMET" compute --bfile "$T/w" --metric ccc --all-samples --output "$T/e12"

# the haploid chromosomes as PLINK's LD reads them: on X a male's
# heterozygous call is missing and his homozygous calls count 0 or 1 minor
# allele (PLINK's allele flip decides which), on Y only males' homozygous
# calls count; sexes male, female and unknown, non-founders, X SNPs whose
# A1 is the major allele: the same .ld as plink1.9 (r2, r; every pair and a
# window); ccc reads X and Y as written
"$PY" "$GEN" "$T/x" --samples 150 --snps 400 --missing 0.03 --mono 3 --chrom-names 7,X,chrY,XY \
  --seed 4
awk 'NR % 9 == 4 { $3 = "fam1"; $4 = "fam2" } { print }' "$T/x.fam" > "$T/x2.fam"
mv "$T/x2.fam" "$T/x.fam"
for m in r2 r; do
  run_ok "X and Y $m" "$STARMET" compute --bfile "$T/x" --$m --inter-chr --ld-window-r2 0 \
    --out "$T/x_$m"
  grep -q "100 SNPs on X and 100 on Y read as PLINK's LD reads them (6[0-9] males" "$T/log.err" &&
    pass || fail "X and Y $m: not said: $(cat "$T/log.err")"
  run_ok "X and Y $m window" "$STARMET" compute --quiet --bfile "$T/x" --$m --ld-window 20 \
    --ld-window-r2 0.05 --block-size 64 --out "$T/xw_$m"
  if command -v plink1.9 > /dev/null 2>&1; then
    plink1.9 --bfile "$T/x" --$m inter-chr --ld-window-r2 0 --out "$T/px_$m" > /dev/null 2>&1
    cmp -s "$T/x_$m.ld" "$T/px_$m.ld" && pass ||
      fail "X and Y $m: $(diff "$T/x_$m.ld" "$T/px_$m.ld" | head -3)"
    plink1.9 --bfile "$T/x" --$m --ld-window 20 --ld-window-r2 0.05 --out "$T/pxw_$m" \
      > /dev/null 2>&1
    cmp -s "$T/xw_$m.ld" "$T/pxw_$m.ld" && pass ||
      fail "X and Y $m window: $(diff "$T/xw_$m.ld" "$T/pxw_$m.ld" | head -3)"
  fi
done
# PLINK's QC filters --geno, --maf (its value optional), --max-maf, as
# plink1.9 computes them (calc_freqs_and_hwe): call rates over every sample
# (on Y over the males), allele frequencies of the founders (every sample
# with --nonfounders), a male's X call one allele, Y calls males' only; the
# .ld as wide as the ids before them: the same .ld as plink1.9's, on the set
# with X, Y, XY, three sexes, non-founders, missing calls
if command -v plink1.9 > /dev/null 2>&1; then
  W="--r2 --ld-window 12 --ld-window-r2 0"
  # shellcheck disable=SC2086
  run_ok "no QC filter" "$STARMET" compute --quiet --bfile "$T/x" $W --out "$T/qc0"
  for qc in "--maf 0.05" "--maf" "--geno 0.02" "--max-maf 0.2" "--maf 0.1 --max-maf 0.3 --geno 0.03" \
    "--maf 0.2 --nonfounders" "--maf 0.2" "--maf 0.1 --chr X,chrY --geno 0.04"; do
    # shellcheck disable=SC2086
    like_plink "QC $qc" qc --bfile "$T/x" $W $qc
    grep -q "[1-9][0-9]* variants\{0,1\} removed due to" "$T/p_qc.log" && pass ||
      fail "QC $qc: plink1.9 removed no variant: the comparison proves little"
    cp "$T/qc.ld" "$T/qc_$(echo "$qc" | tr -dc 'a-z0-9')"
  done
  cmp -s "$T/qc_maf02nonfounders" "$T/qc_maf02" && fail "--nonfounders changed nothing of --maf" ||
    pass
  # with-freqs: PLINK's MAF_A, MAF_B columns (the frequency of the allele
  # it counts, X and Y as it counts them; --keep-allele-order: A1's)
  for wf in "--r2 with-freqs" "--r with-freqs --keep-allele-order" "--r with-freqs --nonfounders" \
    "--r2 with-freqs gz --maf 0.05"; do
    # shellcheck disable=SC2086
    run_ok "$wf" "$STARMET" compute --quiet --bfile "$T/x" $wf --ld-window 6 --ld-window-r2 0 \
      --out "$T/wf"
    rm -f "$T/pwf.ld" "$T/pwf.ld.gz"
    # shellcheck disable=SC2086
    plink1.9 --bfile "$T/x" $wf --ld-window 6 --ld-window-r2 0 --out "$T/pwf" > /dev/null 2>&1
    if [ -e "$T/pwf.ld.gz" ]; then gzip -dc "$T/pwf.ld.gz"; else cat "$T/pwf.ld"; fi > "$T/pwf.txt"
    if [ -e "$T/wf.ld.gz" ]; then gzip -dc "$T/wf.ld.gz"; else cat "$T/wf.ld"; fi > "$T/wf.txt"
    head -n 1 "$T/wf.txt" | grep -q "MAF_A.*MAF_B" && cmp -s "$T/wf.txt" "$T/pwf.txt" && pass ||
      fail "$wf: $(diff "$T/wf.txt" "$T/pwf.txt" | head -3)"
    rm -f "$T/wf.ld" "$T/wf.ld.gz"
  done
  # --nonfounders: PLINK decides its counted (minor) allele over every
  # sample, which moves r's sign and the X coding of males
  for m in r r2; do
    run_ok "--$m --nonfounders" "$STARMET" compute --quiet --bfile "$T/x" --$m --ld-window 30 \
      --ld-window-r2 0 --nonfounders --out "$T/xnf_$m"
    plink1.9 --bfile "$T/x" --$m --ld-window 30 --ld-window-r2 0 --nonfounders \
      --out "$T/pxnf_$m" > /dev/null 2>&1
    cmp -s "$T/xnf_$m.ld" "$T/pxnf_$m.ld" && pass ||
      fail "--$m --nonfounders: $(diff "$T/xnf_$m.ld" "$T/pxnf_$m.ld" | head -3)"
    run_ok "--$m without --nonfounders" "$STARMET" compute --quiet --bfile "$T/x" --$m \
      --ld-window 30 --ld-window-r2 0 --out "$T/xf_$m"
    cmp -s "$T/xnf_$m.ld" "$T/xf_$m.ld" && fail "--$m: --nonfounders changed nothing here" ||
      pass
  done
  "$STARMET" compute --bfile "$T/x" --r2 --maf 0.1 --geno 0.03 --out "$T/qc" > /dev/null \
    2> "$T/qc.err"
  grep -q "geno 0.03: [0-9]* variants removed due to missing genotype data" "$T/qc.err" &&
    grep -q "maf/--max-maf/--mac/--max-mac: [0-9]* variants removed due to minor allele" "$T/qc.err" && pass ||
    fail "QC counts not said: $(cat "$T/qc.err")"
  # PLINK's sample filters --keep, --remove (family and sample id, more
  # words ignored, ids the .fam lacks ignored, blank lines skipped),
  # --keep-fam, --remove-fam (family ids): the samples left, not just their
  # calls, decide everything (call rates, allele frequencies, X's flip,
  # the MAF columns); samples whose parents are removed stay non-founders
  # (PLINK 1.9's rule): the same .ld as plink1.9's
  awk 'NR % 3 != 0 { print $1, $2, "extra", "words" } NR == 7 { print "" }
    END { print "nofam noone" }' "$T/x.fam" | sort -R > "$T/keep.txt"
  awk 'NR % 11 == 1 { print $1 "\t" $2 }' "$T/x.fam" > "$T/remove.txt"
  awk 'NR % 5 == 2 { print $1 }' "$T/x.fam" > "$T/fams.txt"
  # trios: every 9th sample the child of the two before it (one family)
  cp "$T/x.bed" "$T/xt.bed" && cp "$T/x.bim" "$T/xt.bim"
  awk '{ f[NR] = $1; i[NR] = $2; l[NR] = $0 }
    END { for (n = 1; n <= NR; n++) {
      if (n % 9 == 4) { print "trio" n, i[n], i[n - 2], i[n - 1], 1, -9; continue }
      if (n % 9 == 2 || n % 9 == 3) { m = n + (n % 9 == 2 ? 2 : 1); split(l[n], w, " ")
        print "trio" m, w[2], 0, 0, w[5], w[6]; continue }
      print l[n] } }' "$T/x.fam" > "$T/xt.fam"
  awk '$3 != "0" { print $1, $3; print $1, $4 }' "$T/xt.fam" > "$T/parents.txt"
  [ "$(wc -l < "$T/parents.txt")" -gt 20 ] && pass || fail "no trio in the set"
  for kr in "--keep $T/keep.txt" "--remove $T/remove.txt" "--keep $T/keep.txt --remove $T/remove.txt" \
    "--keep-fam $T/fams.txt" "--remove-fam $T/fams.txt --keep $T/keep.txt"; do
    for w in "--r2 with-freqs --ld-window 25 --ld-window-r2 0 --maf 0.05 --geno 0.05" \
      "--r inter-chr --ld-window-r2 0.01"; do
      # shellcheck disable=SC2086
      like_plink "$kr $w" kr --bfile "$T/x" $kr $w
      grep -q "people remaining" "$T/p_kr.log" && pass || fail "$kr: plink1.9 kept everyone"
    done
  done
  for w in "--r2 with-freqs --ld-window 25 --ld-window-r2 0" "--r inter-chr --ld-window-r2 0.01"; do
    # shellcheck disable=SC2086
    like_plink "--remove parents $w" kr --bfile "$T/xt" --remove "$T/parents.txt" $w
    grep -q "remove: $(($(wc -l < "$T/xt.fam") - $(wc -l < "$T/parents.txt"))) people remaining" \
      "$T/p_kr.log" && pass || fail "--remove parents: $(grep remaining "$T/p_kr.log")"
  done
  # PLINK's --mind: the samples missing in at most a fraction of the
  # variants chosen (males over every variant, the others over those not
  # on Y), after --keep/--remove and --chr/--extract, before --geno/--maf
  for mi in "--mind 0.03" "--mind 0.028 --keep $T/keep.txt --geno 0.04 --maf 0.05" \
    "--mind 0.035 --chr 7,Y"; do
    # shellcheck disable=SC2086
    like_plink "$mi" mi --bfile "$T/x" $mi --r2 --ld-window 25 --ld-window-r2 0
    grep -q "^[1-9][0-9]* people removed due to missing genotype data (--mind)" "$T/p_mi.log" &&
      ! grep -q "^0 people remaining\|[^0-9]0 people.*remaining" "$T/p_mi.log" && pass ||
      fail "$mi: plink1.9 removed no sample: $(grep people "$T/p_mi.log")"
  done
  # PLINK's filters of positions, as plink1.9 applies them while it reads
  # the .bim (--not-chr, --autosome, --from/--to by position in either
  # order, --from-bp ... --to-mb truncated to bp on --chr's one chromosome,
  # --snp and --exclude-snp with --window's half width), --mac/--max-mac
  # (founders' alleles, X's males one) with its QC, --bp-space after them:
  # the same .ld as plink1.9's, which must have removed something
  id() { sed -n "${1}p" "$T/x.bim" | cut -f2; }
  for pf in "--not-chr X,25" "--autosome" "--from $(id 20) --to $(id 60)" \
    "--from $(id 160) --to $(id 120)" "--from $(id 330)" "--chr 7 --from-bp 100000 --to-bp 900000" \
    "--chr X --from-kb 200.5 --to-mb 0.9" "--chr 7 --to-bp 500000" \
    "--snp $(id 50) --window 400" "--exclude-snp $(id 50)" \
    "--exclude-snp $(id 50) --window 300 --chr 7" "--mac 20" "--mac 3 --max-mac 30" \
    "--mac 25 --nonfounders --maf 0.05" "--bp-space 20000" "--bp-space 15000 --mac 10 --geno 0.03" \
    "--chr 7 --from-bp 100000 --to-bp 2000000 --min-ac 5 --bp-space 5000 --exclude-snp $(id 50)" \
    "--snps $(id 5)-$(id 40),$(id 90),$(id 230)-$(id 120) --not-chr XY" \
    "--exclude-snps $(id 10)-$(id 60),$(id 70) --from $(id 5)"; do
    # shellcheck disable=SC2086
    like_plink "$pf" pf --bfile "$T/x" $pf --r2 --ld-window 10 --ld-window-r2 0
    grep -q "^[0-9]* out of 400 variants loaded\|^[1-9][0-9]* variants\{0,1\} removed\|--bp-space: [1-9]" \
      "$T/p_pf.log" && pass || fail "$pf: plink1.9 removed no variant: $(grep variants "$T/p_pf.log")"
  done
  # --hwe P [midp] [include-nonctrl]: Hardy-Weinberg's exact test of the
  # founder controls (a .fam's 1; every founder without controls, with a
  # quantitative trait, with include-nonctrl; every sample with
  # --nonfounders), X of the non-males, Y and MT untested, a control of
  # unknown sex not one without --allow-no-sex: the same .ld as plink1.9's
  cp "$T/x.bed" "$T/xh.bed" && cp "$T/x.bim" "$T/xh.bim" && cp "$T/x.bed" "$T/xq.bed" &&
    cp "$T/x.bim" "$T/xq.bim"
  awk '{ p = NR % 3 == 0 ? 2 : NR % 3 == 1 ? 1 : NR % 7 == 0 ? 0 : -9
    print $1, $2, $3, $4, $5, p }' "$T/x.fam" > "$T/xh.fam"
  awk '{ print $1, $2, $3, $4, $5, (NR % 5 == 0 ? -9 : NR / 7) }' "$T/x.fam" > "$T/xq.fam"
  # (with the males alone one XY variant's controls are 4/3/5, p 0.1031,
  # which plink1.9 --hwe 0.1 drops: its far tail's walk ends undecided)
  for hw in "xh --hwe 0.1 --filter-males" "xh --hwe 0.05" "xh --hwe 0.2 --allow-no-sex" "xh --hwe 0.2 midp" \
    "xh --hwe 0.2 --nonfounders" "xh --hwe 0.5 include-nonctrl" "xq --hwe 0.2" \
    "xh --hwe 0.1 midp include-nonctrl --maf 0.05 --geno 0.03"; do
    # shellcheck disable=SC2086
    like_plink "$hw" hw --bfile "$T"/$hw --r2 --ld-window 10 --ld-window-r2 0
    grep -q "^--hwe: [1-9][0-9]* variants\{0,1\} removed" "$T/p_hw.log" && pass ||
      fail "$hw: plink1.9 removed no variant: $(grep "hwe:" "$T/p_hw.log")"
    cp "$T/hw.ld" "$T/hw_$(echo "$hw" | tr -dc 'a-z0-9')"
    # plink1.9's warning when the tested variants' observations vary by
    # more than 10% (off X, or because of X), given when plink1.9 gives it
    for w in "observation counts vary" "due to the X"; do
      [ "$(grep -c "$w" "$T/p_hw.log")" = "$(grep -c "$w" "$T/log.err")" ] && pass ||
        fail "$hw: '$w': plink1.9 $(grep -c "$w" "$T/p_hw.log"), starmet $(grep -c "$w" "$T/log.err")"
    done
    hw_x=$((${hw_x:-0} + $(grep -c "due to the X" "$T/p_hw.log")))
  done
  [ "${hw_x:-0}" -gt 0 ] && pass || fail "--hwe: no run had plink1.9's X warning"
  like_plink "--hwe, calls alike" hwh --bfile "$T/h" --hwe 0.01 --r2 --ld-window-r2 0
  ! grep -q "observation counts vary" "$T/log.err" "$T/p_hwh.log" && pass ||
    fail "--hwe warned on a set without missing calls: $(cat "$T/log.err")"
  cmp -s "$T/hw_xhhwe02midp" "$T/hw_xhhwe02nonfounders" && fail "--hwe: midp and --nonfounders agree" ||
    pass
  # PLINK's sample filters by sex, parents and phenotype (after --keep,
  # before --mind; a control of unknown sex none without --allow-no-sex)
  for sf in "--filter-males" "--filter-females --maf 0.05" "--filter-founders" "--filter-controls" \
    "--filter-cases --allow-no-sex" "--filter-controls --filter-males --keep $T/keep.txt"; do
    # shellcheck disable=SC2086
    like_plink "$sf" sf --bfile "$T/xh" $sf --r2 --ld-window 10 --ld-window-r2 0
    grep -q "^[1-9][0-9]* people removed due to" "$T/p_sf.log" && pass ||
      fail "$sf: plink1.9 removed nobody: $(grep people "$T/p_sf.log")"
  done
  expect_error "--filter-nonfounders" "0 founders among the [0-9]* samples chosen: PLINK's LD uses founders only" \
    "$T/sfe" "$STARMET" compute --bfile "$T/xh" --r2 --filter-nonfounders --out "$T/sfe"
  expect_error "--filter-males --filter-females" "--filter-females with the other filter of its kind" \
    "$T/sfe" "$STARMET" compute --bfile "$T/xh" --r2 --filter-males --filter-females --out "$T/sfe"
  "$STARMET" compute --bfile "$T/xh" --r2 --hwe 0.2 --out "$T/hw" > /dev/null 2> "$T/hw.err"
  grep -q "^starmet: --hwe: [0-9]* variants removed due to Hardy-Weinberg exact test" "$T/hw.err" &&
    pass || fail "--hwe's count not said: $(cat "$T/hw.err")"
  # --snps-only [just-acgt]: both alleles one character (just-acgt: A, C,
  # G, T or 0), a VCF's REF and the ALT read (plink1.9 --vcf's alleles)
  cp "$T/x.bed" "$T/xa.bed" && cp "$T/x.fam" "$T/xa.fam"
  awk 'BEGIN { OFS = "\t" } NR % 7 == 0 { $5 = "AT" } NR % 11 == 0 { $5 = "I"; $6 = "D" }
    NR % 13 == 0 { $6 = "N" } NR % 17 == 0 { $5 = "0" } NR % 19 == 0 { $6 = "c" } { print }' \
    "$T/x.bim" > "$T/xa.bim"
  plink1.9 --bfile "$T/xa" --keep-allele-order --recode vcf --out "$T/xav" > /dev/null 2>&1
  for so in "--bfile $T/xa --snps-only" "--bfile $T/xa --snps-only just-acgt" \
    "--vcf $T/xav.vcf --snps-only just-acgt" "--vcf $T/xav.vcf --snps-only --chr 7,X"; do
    # shellcheck disable=SC2086
    like_plink "$so" so $so --r2 --ld-window 10 --ld-window-r2 0
    grep -q "^[0-9]* out of [0-9]* variants loaded" "$T/p_so.log" && pass ||
      fail "$so: plink1.9 removed no variant: $(grep variants "$T/p_so.log")"
    so_n=$((${so_n:-0} + 1))
    cp "$T/so.ld" "$T/so_$so_n"
  done
  cmp -s "$T/so_1" "$T/so_2" && fail "--snps-only: just-acgt changed nothing" || pass
  for e in "--hwe 0.5 midp|must be below 0.5 with the mid-p" "--hwe 1|--hwe '1': give a p-value" \
    "--hwe midp|--hwe needs a p-value threshold" \
    "--from $(id 20) --chr 7|--from cannot be used with --autosome or --\[not-\]chr" \
    "--window 10|--window must be used with --snp or --exclude-snp" \
    "--snps nosuch|--snps variant 'nosuch' not found" \
    "--snps $(id 5) --snp $(id 6)|--snps cannot be used with --snp or --exclude-snp" \
    "--snps $(id 5)-|--snps '$(id 5)-': give ids or ranges of ids" \
    "--from-bp 10|require a single chromosome" "--chr 7,X --to-bp 10|require a single chromosome" \
    "--chr 1-3 --to-kb 10|require a single chromosome" \
    "--mac 5 --max-mac 3|--max-mac 3 is below --mac 5" "--from nosuch|--from variant 'nosuch' not found" \
    "--not-chr 7 --chr X|--not-chr with --chr" "--from $(id 20) --to $(id 120)|not on the same chromosome" \
    "--chr 7 --from-bp 900000000|no variant left by its chromosome and position filters" \
    "--from-bp 1.5 --chr 7|--from-bp '1.5': give a position in bp"; do
    # shellcheck disable=SC2086
    expect_error "${e%%|*}" "${e#*|}" "$T/pe" "$STARMET" compute --bfile "$T/x" --r2 ${e%%|*} \
      --out "$T/pe"
  done
  run_ok "--r inter-chr, every sample" "$STARMET" compute --quiet --bfile "$T/xt" --r inter-chr \
    --ld-window-r2 0.01 --out "$T/kr0"
  cmp -s "$T/kr.ld" "$T/kr0.ld" && fail "--remove parents changed nothing" || pass
  # ccc on the samples kept: the values of the set plink1.9 writes with
  # them (--keep-allele-order: the alleles as written)
  run_ok "ccc --keep --remove" "$STARMET" compute --quiet --bfile "$T/x" --metric ccc \
    --keep "$T/keep.txt" --remove "$T/remove.txt" --output-format tsv --output "$T/kc"
  plink1.9 --bfile "$T/x" --keep "$T/keep.txt" --remove "$T/remove.txt" --keep-allele-order \
    --make-bed --out "$T/xk" > /dev/null 2>&1
  run_ok "ccc on plink1.9's set" "$STARMET" compute --quiet --bfile "$T/xk" --metric ccc \
    --output-format tsv --output "$T/kcp"
  cmp -s "$T/kc.tsv" "$T/kcp.tsv" && pass || fail "ccc --keep: $(diff "$T/kc.tsv" "$T/kcp.tsv" | head -3)"
  run_ok "ccc every sample" "$STARMET" compute --quiet --bfile "$T/x" --metric ccc \
    --output-format tsv --output "$T/kca"
  cmp -s "$T/kc.tsv" "$T/kca.tsv" && fail "ccc: --keep changed nothing" || pass
fi
# the sample filters' errors: a --keep line of one word (file and line
# named), no sample left, a missing file, a VCF or a table input
printf 'fam1 ind1\n\nlonely\n' > "$T/bad_keep.txt"
expect_error "--keep line of one word" "bad_keep.txt:3: one word, but a --keep file has a family id and a sample id" \
  "$T/e30" "$STARMET" compute --bfile "$T/x" --r2 --keep "$T/bad_keep.txt" --out "$T/e30"
echo "nofam noone" > "$T/none.txt"
expect_error "--keep of no sample" "--keep .*none.txt: no sample remaining" "$T/e31" \
  "$STARMET" compute --bfile "$T/x" --r2 --keep "$T/none.txt" --out "$T/e31"
awk '{ print $1 }' "$T/x.fam" | sort -u > "$T/allfam.txt"
expect_error "--remove-fam of every family" "--remove-fam .*: no sample remaining" "$T/e32" \
  "$STARMET" compute --bfile "$T/x" --r2 --remove-fam "$T/allfam.txt" --out "$T/e32"
expect_error "--mind removing every sample" "all 150 samples removed due to missing genotype data \\(--mind 0\\)" \
  "$T/e36" "$STARMET" compute --bfile "$T/x" --r2 --mind 0 --out "$T/e36"
expect_error "--mind on a VCF" "--mind selects the samples of a PLINK set .*plink1.9 --vcf IN --mind F --make-bed" \
  "$T/e37" "$STARMET" compute --input "$T/any.vcf" --r2 --mind --out "$T/e37"
expect_error "--keep missing file" "--keep .*nosuch.txt: cannot open" "$T/e33" \
  "$STARMET" compute --bfile "$T/x" --r2 --keep "$T/nosuch.txt" --out "$T/e33"
expect_error "--keep on a VCF" "--keep selects the samples of a PLINK set .*plink1.9 --vcf IN --keep FILE --make-bed .*bcftools view -S" \
  "$T/e34" "$STARMET" compute --input "$T/any.vcf" --r2 --keep "$T/keep.txt" --out "$T/e34"
expect_error "--remove on a table" "--remove selects the samples of a PLINK set \\(--bfile\\): this input has no .fam" \
  "$T/e35" "$STARMET" compute --input "$T/any.tsv" --remove "$T/keep.txt" --out "$T/e35"
expect_error "--maf above 0.5" "--maf: 0.6 is out of range" - \
  "$STARMET" compute --bfile "$T/x" --r2 --maf 0.6 --out "$T/e24"
expect_error "--maf above --max-maf" "--maf 0.3 is above --max-maf 0.1" - \
  "$STARMET" compute --bfile "$T/x" --r2 --maf 0.3 --max-maf 0.1 --out "$T/e25"
awk '$1 == 7 { print $2 }' "$T/x.bim" | head -n 5 > "$T/few.txt"
expect_error "--maf removing every variant" "all variants removed by PLINK.s QC filters .*by --maf/--max-maf/--mac/--max-mac" - \
  "$STARMET" compute --bfile "$T/x" --r2 --extract "$T/few.txt" --max-maf 0 --maf 0 --out "$T/e26"
# a VCF has no sexes: plink1.9 --vcf reads X as diploid (a haploid call
# homozygous) and every Y call as missing (a non-male's); --vcf and --bcf
# are PLINK's names for the input
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/x" --keep-allele-order --recode vcf --out "$T/xv" > /dev/null 2>&1
  # the males' homozygous calls on X and Y written haploid, as callers do
  awk -v fam="$T/x.fam" 'BEGIN { while ((getline l < fam) > 0) { split(l, w, " "); sex[++n] = w[5] } }
    /^#/ || ($1 != "23" && $1 != "24") { print; next }
    { for (k = 10; k <= NF; k++) if (sex[k - 9] == "1" && ($k == "0/0" || $k == "1/1")) $k = substr($k, 1, 1)
      print }' OFS='\t' "$T/xv.vcf" > "$T/xh.vcf"
  grep -q "$(printf '\t0\t')" "$T/xh.vcf" && pass || fail "no haploid call written"
  run_ok "vcf X and Y" "$STARMET" compute --vcf "$T/xh.vcf" --r2 --inter-chr --ld-window-r2 0 \
    --out "$T/xh"
  grep -q "100 variants on Y read as missing" "$T/log.err" && pass ||
    fail "vcf Y: not said: $(cat "$T/log.err")"
  plink1.9 --vcf "$T/xh.vcf" --r2 inter-chr --ld-window-r2 0 --out "$T/pxh" > /dev/null 2>&1
  cmp -s "$T/xh.ld" "$T/pxh.ld" && pass || fail "vcf X and Y: $(diff "$T/xh.ld" "$T/pxh.ld" | head -3)"
  if command -v bcftools > /dev/null 2>&1; then
    bcftools view -Ob -o "$T/xh.data" "$T/xh.vcf" # --bcf: whatever the name
    run_ok "bcf X and Y" "$STARMET" compute --quiet --bcf "$T/xh.data" --r --ld-window 20 \
      --out "$T/xb"
    plink1.9 --bcf "$T/xh.data" --r --ld-window 20 --out "$T/pxb" > /dev/null 2>&1
    cmp -s "$T/xb.ld" "$T/pxb.ld" && pass || fail "bcf X and Y: $(diff "$T/xb.ld" "$T/pxb.ld" | head -3)"
  else
    skip_part "no bcftools: the BCF under --bcf not compared"
  fi
fi
# multi-allelic records and records without ALT, read as plink1.9 --vcf
# reads them: ALT the most common of a record's ALTs (a haploid call's
# allele counted twice, the first of equals), a call with another ALT
# missing; ALT "." a variant whose calls are REF's; phased calls as others
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/g" --recode vcf-iid --out "$T/gv" > /dev/null 2>&1
  "$PY" - "$T/gv.vcf" "$T/gm.vcf" << 'EOF'
import random, sys
random.seed(11)
third = {"A": "C", "C": "G", "G": "T", "T": "A"}
out, n = open(sys.argv[2], "w"), 0
for line in open(sys.argv[1]):
    if line.startswith("#"):
        out.write(line)
        continue
    f = line.rstrip("\n").split("\t")
    n, g = n + 1, f[9:]
    alt3 = [a for a in "ACGT" if a not in (f[3], f[4])][0]
    if n % 7 == 0:  # another ALT in some calls
        f[4] += "," + alt3
        g = [c if random.random() < 0.75 else random.choice(["0/2", "1/2", "2/2", "2|0"]) for c in g]
    elif n % 7 == 3:  # two ALTs called equally often: the first is ALT
        f[4] += "," + alt3
        h = len(g) // 2
        g = [random.choice(["0/0", "0/1", "1/1", "./."]) for _ in range(h)]
        g += [c.replace("1", "2") for c in g] + ["./."] * (len(f[9:]) - 2 * h)
    elif n % 7 == 5:  # 5 het calls of ALT 1, 3 haploid calls of ALT 2: ALT 2
        f[4] += "," + alt3
        g = ["0/1"] * 5 + ["2"] * 3 + ["0/0"] * (len(g) - 8)
    elif n % 11 == 0:  # no ALT
        f[4], g = ".", ["./." if c == "./." else "0/0" for c in g]
    if n % 5 == 0:
        g = [c.replace("/", "|") for c in g]
    if n % 13 == 0:  # unnamed
        f[2] = "."
    out.write("\t".join(f[:9] + g) + "\n")
EOF
  for m in r2 r; do
    like_plink "vcf multi-allelic $m" "gm_$m" --vcf "$T/gm.vcf" --$m --ld-window 6 --ld-window-r2 0
  done
  like_plink "vcf --maf --geno" gmq --vcf "$T/gm.vcf" --r2 --maf 0.1 --geno 0.04
  # PLINK's --set-missing-var-ids: "." ids named from a template (the
  # chromosome as written, the position, the alleles in ASCII order, a
  # multi-allelic record's ALT the one read), also for --extract; "." in an
  # --extract list is every unnamed variant, as in PLINK
  TM='@:#[b37]$1,$2'
  like_plink "vcf --set-missing-var-ids" gmid --vcf "$T/gm.vcf" --r2 --ld-window 6 \
    --ld-window-r2 0 --set-missing-var-ids "$TM"
  grep -q "b37" "$T/gmid.ld" && pass || fail "no id made from the template"
  { echo .; grep -o '[0-9]*:[0-9]*\[b37\][A-Z,]*' "$T/gmid.ld" | sort -u | head -n 4; } > "$T/gmx.txt"
  for how in "" "--set-missing-var-ids $TM"; do
    # shellcheck disable=SC2086
    like_plink "vcf --extract ($how)" gmx --vcf "$T/gm.vcf" --r2 --ld-window-r2 0 \
      --extract "$T/gmx.txt" $how
  done
  awk 'BEGIN { OFS = "\t" } NR % 5 == 0 { $2 = "." } { print }' "$T/x.bim" > "$T/xd.bim"
  cp "$T/x.bed" "$T/xd.bed" && cp "$T/x.fam" "$T/xd.fam"
  like_plink "bfile --set-missing-var-ids" xdid --bfile "$T/xd" --r --ld-window 8 \
    --ld-window-r2 0 --set-missing-var-ids '@:#:$2:$1'
  expect_error "--set-missing-var-ids without #" "the template needs exactly one '@'" - \
    "$STARMET" compute --bfile "$T/xd" --r2 --set-missing-var-ids '@:$1' --out "$T/e28"
  # half-calls (0/., ./1): plink1.9's --vcf-half-call m, h, r; e refuses
  awk 'BEGIN { OFS = "\t" } /^#/ { print; next }
    { for (k = 10; k <= NF; k++) if ((k * 7 + NR * 3) % 23 == 0 && $k ~ /^[0-9][\/|][0-9]$/)
        $k = (k % 2) ? substr($k, 1, 1) "/." : "./" substr($k, 3, 1)
      print }' "$T/gm.vcf" > "$T/gh.vcf"
  grep -q "$(printf '\t')0/\.$(printf '\t')" "$T/gh.vcf" && pass || fail "no half-call written"
  for h in m h r; do
    like_plink "vcf --vcf-half-call $h" "gh_$h" --vcf "$T/gh.vcf" --r --ld-window 6 \
      --ld-window-r2 0 --vcf-half-call $h
  done
  cmp -s "$T/gh_m.ld" "$T/gh_h.ld" && fail "half-calls as missing and as haploid agree" || pass
  expect_error "vcf --vcf-half-call e" "gh.vcf: .* has a half-call .*give --vcf-half-call" - \
    "$STARMET" compute --vcf "$T/gh.vcf" --r2 --vcf-half-call e --out "$T/e27"
  "$STARMET" compute --vcf "$T/gm.vcf" --r2 --output-format none > /dev/null 2> "$T/gm.err"
  grep -q "gm.vcf: 128 multi-allelic records read as plink1.9 --vcf reads them" "$T/gm.err" &&
    pass || fail "multi-allelic records not said: $(cat "$T/gm.err")"
fi
# PLINK's other filters are refused with the plink1.9 command that
# applies them; --nonfounders, as in PLINK, does not change LD
expect_error "--thin-count" "--thin-count is one of PLINK's filters .*plink1.9 --bfile IN --thin-count" - \
  "$STARMET" compute --bfile "$T/g" --r2 --thin-count --out "$T/e21"
expect_error "--autosome-xy" "--autosome-xy: give --chr 1-22,XY" - \
  "$STARMET" compute --bfile "$T/g" --r2 --autosome-xy --out "$T/e23"
expect_error "--thin" "--thin is one of PLINK's filters .*plink1.9 --bfile IN --thin" - \
  "$STARMET" compute --bfile "$T/g" --r2 --thin 0.5 --out "$T/e23"
cp "$T/g.bed" "$T/gp.bed" && cp "$T/g.bim" "$T/gp.bim"
awk 'NR % 3 == 0 { $3 = "p1" } { print }' "$T/g.fam" > "$T/gp.fam" # a third with a father
run_ok "--nonfounders" "$STARMET" compute --quiet --bfile "$T/gp" --r2 --nonfounders --out "$T/nf"
run_ok "without --nonfounders" "$STARMET" compute --quiet --bfile "$T/gp" --r2 --out "$T/nf0"
run_ok "--all-samples" "$STARMET" compute --quiet --bfile "$T/gp" --r2 --all-samples --out "$T/nfa"
cmp -s "$T/nf.ld" "$T/nf0.ld" && pass || fail "--nonfounders changed the table"
cmp -s "$T/nf.ld" "$T/nfa.ld" && fail "the non-founders changed nothing: the test proves nothing" || pass
expect_error "--vcf with --input-format" "--vcf .* reads a VCF or BCF, and --input-format" - \
  "$STARMET" compute --vcf "$T/x.bed" --input-format plink --r2 --out "$T/e20"
# --keep-allele-order: r's sign and a male's X calls from the file's A1, as
# PLINK's (with the X SNPs, r2 changes too); PLINK's --allow-extra-chr and
# --allow-no-sex accepted, a scaffold name printed as given
sed 's/^7\t/scaffold_7\t/' "$T/x.bim" > "$T/xe.bim"
cp "$T/x.bed" "$T/xe.bed"; cp "$T/x.fam" "$T/xe.fam"
for m in r2 r; do
  run_ok "keep-allele-order $m" "$STARMET" compute --quiet --bfile "$T/xe" --$m \
    --keep-allele-order --allow-extra-chr --allow-no-sex --ld-window 30 --ld-window-r2 0 \
    --out "$T/xk_$m"
  run_ok "minor allele $m" "$STARMET" compute --quiet --bfile "$T/xe" --$m --ld-window 30 \
    --ld-window-r2 0 --out "$T/xm_$m"
  cmp -s "$T/xk_$m.ld" "$T/xm_$m.ld" && fail "keep-allele-order $m changed nothing" || pass
  if command -v plink1.9 > /dev/null 2>&1; then
    plink1.9 --bfile "$T/xe" --keep-allele-order --allow-extra-chr --allow-no-sex --$m \
      --ld-window 30 --ld-window-r2 0 --out "$T/pxk_$m" > /dev/null 2>&1
    cmp -s "$T/xk_$m.ld" "$T/pxk_$m.ld" && pass ||
      fail "keep-allele-order $m: $(diff "$T/xk_$m.ld" "$T/pxk_$m.ld" | head -3)"
  fi
done
grep -q "^scaffold_7 " "$T/xk_r2.ld" && pass || fail "scaffold name: $(sed -n 2p "$T/xk_r2.ld")"
expect_error "keep-allele-order with ccc" "applies to --metric r2 and r" "$T/e22" \
  "$STARMET" compute --bfile "$T/x" --metric ccc --keep-allele-order --output "$T/e22"
# long SNP ids (PLINK widens the id columns to the longest + 2): columns
# under and over the 64 bytes put_line copies at once
for L in 38 47; do
  awk -v L=$L 'BEGIN { OFS = "\t" } { id = $2; while (length(id) < L) id = id "_x"; $2 = substr(id, 1, L) NR; print }' \
    "$T/x.bim" > "$T/xl.bim"
  cp "$T/x.bed" "$T/xl.bed"; cp "$T/x.fam" "$T/xl.fam"
  run_ok "ids of $L" "$STARMET" compute --quiet --bfile "$T/xl" --r2 --ld-window 20 \
    --ld-window-r2 0 --out "$T/xl$L"
  if command -v plink1.9 > /dev/null 2>&1; then
    plink1.9 --bfile "$T/xl" --r2 --ld-window 20 --ld-window-r2 0 --out "$T/pxl$L" > /dev/null 2>&1
    cmp -s "$T/xl$L.ld" "$T/pxl$L.ld" && pass ||
      fail "ids of $L: $(diff "$T/xl$L.ld" "$T/pxl$L.ld" | head -3)"
  fi
done
# "chr5" and "5" are one chromosome to PLINK: split by another, a window
# is refused as PLINK refuses it (its "split chromosome")
"$PY" "$GEN" "$T/cs" --samples 60 --snps 90 --missing 0.02 --chrom-names chr5,PAR1,5 --seed 8
expect_error "chr5 and 5 split" "variant 61 \(chromosome chr5, .*comes after chromosome PAR1" "$T/e23" \
  "$STARMET" compute --bfile "$T/cs" --r2 --ld-window 20 --out "$T/e23"
# the reader's lines are said once, of the whole file: not also by the
# one-vector probe of the sizes (a first SNP on X, a first sample with a
# parent once made it say "1 SNP on X", "1 sample with a parent")
"$PY" "$GEN" "$T/xf" --samples 60 --snps 90 --missing 0.02 --chrom-names X,7,Y --seed 3
awk 'NR == 1 || NR == 5 { $3 = "fam1"; $4 = "fam2" } { print }' "$T/xf.fam" > "$T/xf2.fam"
mv "$T/xf2.fam" "$T/xf.fam"
run_ok "X first" "$STARMET" compute --bfile "$T/xf" --r2 --ld-window 5 --out "$T/xf"
[ "$(grep -c "on X and" "$T/log.err")" = 1 ] && [ "$(grep -c "with a parent" "$T/log.err")" = 1 ] &&
  grep -q "xf.bim: 30 SNPs on X and 30 on Y" "$T/log.err" &&
  grep -q "xf.fam: 2 samples with a parent" "$T/log.err" && pass ||
  fail "X first: the log: $(cat "$T/log.err")"
# PLINK's --chr: the variants of those chromosomes (names, codes, ranges;
# 7,XY around X and Y), the same .ld as plink1.9 --chr; a chromosome the
# file lacks and a malformed list are refused
for c in 7 X chrY 23-24 X,24 7,X 7,XY; do
  run_ok "--chr $c" "$STARMET" compute --quiet --bfile "$T/x" --r2 --chr "$c" --ld-window 20 \
    --ld-window-r2 0 --out "$T/xc"
  if command -v plink1.9 > /dev/null 2>&1; then
    plink1.9 --bfile "$T/x" --r2 --chr "$c" --ld-window 20 --ld-window-r2 0 --out "$T/pxc" \
      > /dev/null 2>&1
    cmp -s "$T/xc.ld" "$T/pxc.ld" && pass || fail "--chr $c: $(diff "$T/xc.ld" "$T/pxc.ld" | head -3)"
  fi
done
run_ok "--chr tsv" "$STARMET" compute --quiet --bfile "$T/x" --r --chr X --output-format tsv \
  --out "$T/xct"
"$PY" - "$T/xct.tsv" "$T/x.bim" << 'PYEOF' && pass || fail "--chr X tsv: not the X variants' pairs"
import sys
rows = open(sys.argv[1]).read().splitlines()[1:]
xs = [l.split()[1] for l in open(sys.argv[2]) if l.split()[0] == "X"]
ids = set(x for r in rows for x in r.split("\t")[:2])
assert ids == set(xs) and len(rows) == len(xs) * (len(xs) - 1) // 2, (len(ids), len(rows))
PYEOF
expect_error "--chr absent" "no variant on --chr 9 \(its chromosomes: 7, X, chrY, XY\)" "$T/e25" \
  "$STARMET" compute --bfile "$T/x" --r2 --chr 9 --out "$T/e25"
expect_error "--chr malformed" "--chr '5-': give chromosomes" "$T/e26" \
  "$STARMET" compute --bfile "$T/x" --r2 --chr 5- --out "$T/e26"
expect_error "--chr without chromosomes" "this input has no chromosomes" "$T/e27" \
  "$STARMET" compute --metric czekanowski --synthetic random --num-vector 9 --num-field 5 \
  --chr 1 --out "$T/e27"
# PLINK's --extract and --exclude: lists of ids (several a line, ids the
# set lacks, an id two variants share), alone, together and with --chr;
# the windows count the variants kept, as PLINK's; a .bim whose ids repeat
# ("." for unnamed variants) gives PLINK's table; a VCF too
awk 'NR % 3 != 1 { printf "%s%s", $2, (NR % 2 ? " " : "\n") } END { print "absent_id" }' \
  "$T/x.bim" > "$T/ext.txt"
awk 'NR % 5 == 2 { print $2 }' "$T/x.bim" > "$T/exc.txt"
awk 'BEGIN { OFS = "\t" } NR == 50 || NR == 160 { $2 = "shared_id" } NR > 300 { $2 = "." } { print }' \
  "$T/x.bim" > "$T/xd.bim"
cp "$T/x.bed" "$T/xd.bed"; cp "$T/x.fam" "$T/xd.fam"
echo shared_id >> "$T/ext.txt"
for args in "--extract $T/ext.txt" "--exclude $T/exc.txt" \
  "--extract $T/ext.txt --exclude $T/exc.txt" "--chr 7,XY --exclude $T/exc.txt" \
  "--chr X --extract $T/ext.txt --exclude $T/exc.txt"; do
  for set in x xd; do
    # shellcheck disable=SC2086
    run_ok "$set $args" "$STARMET" compute --quiet --bfile "$T/$set" --r2 $args --ld-window 12 \
      --ld-window-r2 0 --out "$T/xs"
    if command -v plink1.9 > /dev/null 2>&1; then
      # shellcheck disable=SC2086
      rm -f "$T/pxs.ld"
      plink1.9 --bfile "$T/$set" --r2 $args --ld-window 12 --ld-window-r2 0 --out "$T/pxs" \
        > /dev/null 2>&1
      cmp -s "$T/xs.ld" "$T/pxs.ld" && pass || fail "$set $args: $(diff "$T/xs.ld" "$T/pxs.ld" | head -3)"
    fi
  done
done
run_ok "repeated ids" "$STARMET" compute --quiet --bfile "$T/xd" --r2 --ld-window-r2 0 \
  --inter-chr --out "$T/xs"
grep -q "shared_id.*shared_id" "$T/xs.ld" && grep -q " \. .* \. " "$T/xs.ld" && pass ||
  fail "repeated ids: not in the table"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/xd" --r2 inter-chr --ld-window-r2 0 --out "$T/pxs" > /dev/null 2>&1
  cmp -s "$T/xs.ld" "$T/pxs.ld" && pass || fail "repeated ids: $(diff "$T/xs.ld" "$T/pxs.ld" | head -3)"
fi
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/xd" --recode vcf-iid --out "$T/xdv" > /dev/null 2>&1
  run_ok "vcf --extract" "$STARMET" compute --quiet --vcf "$T/xdv.vcf" --r2 --extract "$T/ext.txt" \
    --chr 7,X --ld-window-r2 0 --out "$T/xsv"
  plink1.9 --vcf "$T/xdv.vcf" --r2 --extract "$T/ext.txt" --chr 7,X --ld-window-r2 0 \
    --out "$T/pxsv" > /dev/null 2>&1
  cmp -s "$T/xsv.ld" "$T/pxsv.ld" && pass || fail "vcf --extract: $(diff "$T/xsv.ld" "$T/pxsv.ld" | head -3)"
fi
run_ok "--extract log" "$STARMET" compute --bfile "$T/x" --r2 --extract "$T/ext.txt" \
  --exclude "$T/exc.txt" --output-format none
grep -q -- "--extract .*ext.txt: 266 variants remaining (268 ids listed)" "$T/log.err" &&
  grep -q -- "--exclude .*exc.txt: 213 variants remaining" "$T/log.err" && pass ||
  fail "--extract log: $(grep -e --ex "$T/log.err")"
echo absent_id > "$T/none.txt"
expect_error "--extract none left" "no variant remains after --extract .*none.txt: none of its 1 ids" \
  "$T/e28" "$STARMET" compute --bfile "$T/x" --r2 --extract "$T/none.txt" --out "$T/e28"
expect_error "--exclude none left" "no variant remains after --exclude" "$T/e29" \
  "$STARMET" compute --bfile "$T/x" --r2 --chr XY --exclude "$T/x.bim" --out "$T/e29"
expect_error "--extract missing file" "--extract .*nofile.txt: cannot open it" "$T/e30" \
  "$STARMET" compute --bfile "$T/x" --r2 --extract "$T/nofile.txt" --out "$T/e30"
expect_error "--extract range" "--extract range: PLINK's ranges are not read" "$T/e31" \
  "$STARMET" compute --bfile "$T/x" --r2 --extract range "$T/ext.txt" --out "$T/e31"
expect_error "--exclude without variants" "by id: this input has no variants" "$T/e32" \
  "$STARMET" compute --metric czekanowski --synthetic random --num-vector 9 --num-field 5 \
  --exclude "$T/exc.txt" --out "$T/e32"
# another list is another run: --resume refuses it (the same list resumes)
XARGS="--bfile $T/x --r2 --inter-chr --extract $T/ext.txt --block-size 16 --output-format tsv"
# shellcheck disable=SC2086
while_stopped "$T/xr" 'kill -9 $WS_PID' "$STARMET" compute --quiet $XARGS --output "$T/xr" \
  --debug-pause-after-blocks 20
mv "$T/ext.txt" "$T/ext0.txt" # (mv keeps the file as it was: inode, time)
{ cat "$T/ext0.txt"; head -1 "$T/x.bim" | cut -f2; } > "$T/ext.txt"
# shellcheck disable=SC2086
expect_error "--extract list changed" "different run" - \
  "$STARMET" compute $XARGS --output "$T/xr" --resume
mv "$T/ext0.txt" "$T/ext.txt"
# shellcheck disable=SC2086
run_ok "--extract resume" "$STARMET" compute $XARGS --output "$T/xr" --resume
grep -q "output blocks were complete" "$T/log.err" && pass || fail "--extract run did not resume"
# shellcheck disable=SC2086
run_ok "--extract clean" "$STARMET" compute --quiet $XARGS --output "$T/xr2"
cmp -s "$T/xr.tsv" "$T/xr2.tsv" && pass || fail "resumed --extract run differs"
# PLINK's --ld-snp and --ld-snp-list: an index variant's lines with those
# in its window on either side and itself (r = 1; none for a variant that
# does not vary), two lines for a pair of index variants; windows of
# variants, of kb, none (inter-chr), PLINK's default; with --chr and
# --exclude; tiles of 7 (pieces of many blocks merged); the same table as
# plink1.9 --ld-snp, the SNP columns as wide as PLINK makes them
awk 'NR % 9 == 4 { print $2 }' "$T/w.bim" > "$T/lds.txt"
awk 'NR % 37 == 5 { print $2 }' "$T/x.bim" > "$T/ldx.txt"
mono=$(awk '{ print $2; exit }' "$T/w.bim") # a variant that does not vary, if PLINK says one
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/w" --freq --out "$T/wf" > /dev/null 2>&1
  mono=$(awk 'NR > 1 && ($5 == 0 || $5 == "NA") { print $2; exit }' "$T/wf.frq")
fi
for args in "--r2 --ld-snp-list $T/lds.txt --ld-window 6 --ld-window-r2 0" \
  "--r --ld-snp-list $T/lds.txt --ld-window 99999 --ld-window-kb 8 --ld-window-r2 0.02" \
  "--r2 --ld-snp-list $T/lds.txt" "--r2 inter-chr --ld-snp-list $T/lds.txt --ld-window-r2 0.05" \
  "--r2 --ld-snp $mono --ld-window 4 --ld-window-r2 0"; do
  for bs in 7 500; do
    # shellcheck disable=SC2086
    run_ok "ld-snp $args $bs" "$STARMET" compute --quiet --bfile "$T/w" $args --block-size $bs \
      --out "$T/ls"
    if command -v plink1.9 > /dev/null 2>&1; then
      # shellcheck disable=SC2086
      rm -f "$T/pls.ld"
      plink1.9 --bfile "$T/w" $args --out "$T/pls" > /dev/null 2>&1
      cmp -s "$T/ls.ld" "$T/pls.ld" && pass || fail "ld-snp $args $bs: $(diff "$T/ls.ld" "$T/pls.ld" | head -3)"
    fi
  done
done
sets="--bfile $T/x"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/x" --recode vcf-iid --out "$T/xv" > /dev/null 2>&1
  sets="$sets:--vcf $T/xv.vcf"
fi
IFS=:
for set in $sets; do
  unset IFS
  # shellcheck disable=SC2086
  run_ok "ld-snp $set" "$STARMET" compute --quiet $set --r --ld-snp-list "$T/ldx.txt" --chr 7,X,XY \
    --exclude "$T/exc.txt" --ld-window 20 --ld-window-r2 0 --block-size 16 --out "$T/lx"
  if command -v plink1.9 > /dev/null 2>&1; then
    # shellcheck disable=SC2086
    rm -f "$T/plx.ld"
    plink1.9 $set --r --ld-snp-list "$T/ldx.txt" --chr 7,X,XY --exclude "$T/exc.txt" \
      --ld-window 20 --ld-window-r2 0 --out "$T/plx" > /dev/null 2>&1
    cmp -s "$T/lx.ld" "$T/plx.ld" && pass || fail "ld-snp $set: $(diff "$T/lx.ld" "$T/plx.ld" | head -3)"
  fi
done
"$PY" - "$T/lx.ld" "$T/ldx.txt" << 'PYEOF' && pass || fail "ld-snp: not the index variants' lines"
import sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
index = set(open(sys.argv[2]).read().split())
assert rows and all(r[2] in index for r in rows), rows[:3]
assert any(r[2] == r[5] and r[6] == "1" for r in rows), "no line of a variant with itself"
PYEOF
# ids that repeat: --ld-snp takes the first variant of its id, and
# --ld-snp-list refuses them, as PLINK
run_ok "ld-snp repeated id" "$STARMET" compute --quiet --bfile "$T/xd" --r2 --ld-snp shared_id \
  --ld-window-r2 0 --out "$T/lsd"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/xd" --r2 --ld-snp shared_id --ld-window-r2 0 --out "$T/plsd" > /dev/null 2>&1
  cmp -s "$T/lsd.ld" "$T/plsd.ld" && pass || fail "ld-snp repeated id: $(diff "$T/lsd.ld" "$T/plsd.ld" | head -3)"
fi
expect_error "ld-snp-list repeated ids" "names several variants: --ld-snp-list needs unique" \
  "$T/e36" "$STARMET" compute --bfile "$T/xd" --r2 --ld-snp-list "$T/ldx.txt" --out "$T/e36"
expect_error "ld-snp absent" "no variant of id absent_id \(--ld-snp\)" "$T/e33" \
  "$STARMET" compute --bfile "$T/x" --r2 --ld-snp absent_id --out "$T/e33"
expect_error "ld-snp tsv" "--ld-snp chooses lines of PLINK's .ld table" "$T/e34" \
  "$STARMET" compute --bfile "$T/x" --r2 --ld-snp "$mono" --output-format tsv --out "$T/e34"
# --ld-snps RANGES: the index variants of PLINK's ranges of ids (file
# order, over the variants chosen), windowed and inter-chr: plink1.9's .ld
xid() { sed -n "${1}p" "$T/x.bim" | cut -f2; }
if command -v plink1.9 > /dev/null 2>&1; then
  for ls in "--r2 --ld-snps $(xid 5)-$(xid 9),$(xid 40) --ld-window-kb 200 --ld-window 99999 --ld-window-r2 0" \
    "--r --ld-snps $(xid 95)-$(xid 105) --ld-window 20 --ld-window-r2 0 --chr 7,X" \
    "--r2 inter-chr --ld-snps $(xid 90)-$(xid 110) --ld-window-r2 0.05"; do
    # shellcheck disable=SC2086
    like_plink "$ls" ls --bfile "$T/x" $ls
  done
fi
expect_error "ld-snps reversed" "the range's second variant comes before its first" "$T/e37" \
  "$STARMET" compute --bfile "$T/x" --r2 --ld-snps "$(xid 60)-$(xid 50)" --out "$T/e37"
expect_error "ld-snps absent" "--ld-snps variant 'nosuch' not found" "$T/e37" \
  "$STARMET" compute --bfile "$T/x" --r2 --ld-snps nosuch --out "$T/e37"
expect_error "ld-snps with ld-snp" "--ld-snps cannot be used with --ld-snp" "$T/e37" \
  "$STARMET" compute --bfile "$T/x" --r2 --ld-snps "$(xid 60)" --ld-snp "$(xid 3)" --out "$T/e37"
expect_error "ld-snp and list" "give one of them" "$T/e35" \
  "$STARMET" compute --bfile "$T/x" --r2 --ld-snp "$mono" --ld-snp-list "$T/ldx.txt" --out "$T/e35"
# --all-samples: every sample, as PLINK reads the .fam without parents
awk '{ $3 = "0"; $4 = "0"; print }' "$T/x.fam" > "$T/xz.fam"
cp "$T/x.bed" "$T/xz.bed"; cp "$T/x.bim" "$T/xz.bim"
run_ok "X and Y all samples" "$STARMET" compute --quiet --bfile "$T/x" --r2 --all-samples \
  --inter-chr --ld-window-r2 0 --out "$T/xa"
if command -v plink1.9 > /dev/null 2>&1; then
  plink1.9 --bfile "$T/xz" --r2 inter-chr --ld-window-r2 0 --out "$T/pxz" > /dev/null 2>&1
  cmp -s "$T/xa.ld" "$T/pxz.ld" && pass || fail "X and Y all samples: $(diff "$T/xa.ld" "$T/pxz.ld" | head -3)"
fi
# ccc: CoMet's tallies of the calls as written (X read as an autosome)
sed 's/^X\t/7\t/; s/^chrY\t/7\t/' "$T/x.bim" > "$T/xc.bim"
cp "$T/x.bed" "$T/xc.bed"; cp "$T/x.fam" "$T/xc.fam"
run_ok "X ccc" "$STARMET" compute --quiet --bfile "$T/x" --metric ccc --output "$T/xccc"
run_ok "X ccc as autosome" "$STARMET" compute --quiet --bfile "$T/xc" --metric ccc --output "$T/xcc7"
same_text "ccc reads X and Y as written" "$T/xccc.tsv" "$T/xcc7.tsv"

# windows against a brute-force filter of every pair (r2 and ccc): the
# windowed TSV holds exactly the pairs of the all-pairs TSV in the windows
for m in r2 ccc; do
  run_ok "$m all pairs" "$STARMET" compute --quiet --bfile "$T/w" --metric $m --block-size 40 \
    --output-format tsv --output "$T/all_$m" --summary "$T/all_$m.json"
  run_ok "$m window" "$STARMET" compute --quiet --bfile "$T/w" --metric $m --block-size 40 \
    --ld-window 7 --ld-window-kb 30 --output-format tsv --output "$T/win_$m" --summary "$T/win_$m.json"
  "$PY" - "$T/w.bim" "$T/all_$m.tsv" "$T/win_$m.tsv" 7 30000 "$m" > "$T/bf.out" << 'PYEOF' && pass || fail "$m window vs brute force: $(cat "$T/bf.out")"
import sys
bim, alls, win, W, BP, m = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
loc = {}
for k, l in enumerate(open(bim)):
    f = l.split()
    loc[f[1]] = (k, f[0], int(f[3]))
def inwin(a, b):
    (i, ci, pi), (j, cj, pj) = sorted((loc[a], loc[b]))
    return ci == cj and j - i < W and pj - pi <= BP
def lines(p):
    return [l for l in open(p).read().splitlines()[1:]]
want = sorted(l for l in lines(alls) if inwin(*l.split("\t")[:2]))
# r2 keeps r2 >= 0.2 by default with a window (PLINK's --ld-window-r2)
if m == "r2":
    want = [l for l in want if float(l.split("\t")[2]) >= 0.2]
got = sorted(lines(win))
assert len(got) > 0 and got == want, (len(got), len(want))
print(len(got), "lines")
PYEOF
done
# only the tile pairs with pairs in a window are built
t_all=$(sed -n 's/.*"tasks": \([0-9]*\).*/\1/p' "$T/all_r2.json" | head -n 1)
t_win=$(sed -n 's/.*"tasks": \([0-9]*\).*/\1/p' "$T/win_r2.json" | head -n 1)
[ -n "$t_win" ] && [ -n "$t_all" ] && [ "$t_win" -lt "$t_all" ] && pass ||
  fail "a windowed run should build fewer tasks: $t_win vs $t_all"

# the .ld is written block by block as soon as no later block can hold a
# line before it: small tiles (many blocks to merge per variant), two
# workers finishing blocks in any order, a window, inter-chr, a threshold
# and ccc's four columns give the same table as one tile, as plink1.9 (r2,
# r) and as the reference loops (ccc, which hold every pair to the end)
k=0
for args in "--metric r2 --ld-window 999999 --ld-window-kb 1000 --ld-window-r2 0" \
  "--metric r --inter-chr --ld-window-r2 0.05" "--metric ccc --ld-window 30" \
  "--metric ccc --ld-window 999999 --ld-window-kb 1000"; do
  k=$((k + 1))
  # shellcheck disable=SC2086
  run_ok "ld by blocks $k" env STARPU_NCPU=2 "$STARMET" compute --quiet --bfile "$T/w" \
    $args --block-size 7 --output-format ld --output "$T/lb$k"
  # shellcheck disable=SC2086
  run_ok "ld one tile $k" "$STARMET" compute --quiet --bfile "$T/w" $args --block-size 900 \
    --output-format ld --output "$T/l1$k"
  [ "$(wc -l < "$T/lb$k.ld")" -gt 1000 ] && cmp -s "$T/lb$k.ld" "$T/l1$k.ld" && pass ||
    fail "ld by blocks $k: $(diff "$T/lb$k.ld" "$T/l1$k.ld" | head -4)"
  case $args in
    *ccc*)
      # shellcheck disable=SC2086
      run_ok "ld ref $k" "$STARMET" compute --quiet --bfile "$T/w" $args \
        --compute-method ref --output-format ld --output "$T/lr$k"
      cmp -s "$T/lb$k.ld" "$T/lr$k.ld" && pass ||
        fail "ld by blocks $k against ref: $(diff "$T/lb$k.ld" "$T/lr$k.ld" | head -4)" ;;
    *)
      if command -v plink1.9 > /dev/null 2>&1; then
        # shellcheck disable=SC2046,SC2086
        plink1.9 --bfile "$T/w" $(echo $args | sed 's/--metric /--/; s/--inter-chr/inter-chr/') \
          --out "$T/pb$k" > /dev/null 2>&1 || fail "plink1.9 $args"
        cmp -s "$T/lb$k.ld" "$T/pb$k.ld" && pass ||
          fail "ld by blocks $k against plink1.9: $(diff "$T/lb$k.ld" "$T/pb$k.ld" | head -4)"
      fi ;;
  esac
done
# the reference loops keep to the window (they used to give every pair)
run_ok "ref window tsv" "$STARMET" compute --quiet --bfile "$T/w" --metric ccc \
  --ld-window 5 --compute-method ref --output "$T/rw"
run_ok "window tsv" "$STARMET" compute --quiet --bfile "$T/w" --metric ccc --ld-window 5 \
  --output "$T/tw"
same_text "ref window" "$T/rw.tsv" "$T/tw.tsv"

# a windowed run killed part way resumes to the same file; another window
# is another run
WARGS="--bfile $T/w --metric r2 --ld-window 40 --ld-window-kb 100 --ld-window-r2 0 --block-size 16 --output-format tsv"
# shellcheck disable=SC2086
run_ok "window clean" "$STARMET" compute --quiet $WARGS --output "$T/rc"
# shellcheck disable=SC2086
while_stopped "$T/rk" 'kill -9 $WS_PID' "$STARMET" compute --quiet $WARGS --output "$T/rk" \
  --debug-pause-after-blocks 20
[ -f "$T/rk.tsv.part" ] && [ ! -f "$T/rk.tsv" ] && pass || fail "killed run: no partial output"
# shellcheck disable=SC2086
expect_error "resume another window" "different run" - \
  "$STARMET" compute $WARGS --ld-window 41 --output "$T/rk" --resume
# shellcheck disable=SC2086
run_ok "window resume" "$STARMET" compute $WARGS --output "$T/rk" --resume
grep -q "output blocks were complete" "$T/log.err" && pass || fail "window run did not resume"
cmp -s "$T/rk.tsv" "$T/rc.tsv" && pass || fail "resumed window run differs"

# top-k and histograms of r over windows: the lists equal a brute-force
# selection from the windowed values, the counts a count of them
run_ok "r top-k in windows" "$STARMET" compute --quiet --bfile "$T/w" --metric r --ld-window 50 \
  --ld-window-r2 0 --output-format tsv --keys index --top-k 4 --histogram 20 --output "$T/tk"
"$PY" "$top_srcdir/tests/tools/topk_brute.py" 4 value "$T/tk.topk.tsv" "$T/tk.tsv" > "$T/tk.out" 2>&1 &&
  pass || fail "r top-k: $(tail -3 "$T/tk.out")"
"$PY" - "$T/tk.tsv" "$T/tk.hist.tsv" > "$T/h.out" << 'PYEOF' && pass || fail "r histogram: $(cat "$T/h.out")"
import math, sys
vals = [float(l.split("\t")[2]) for l in open(sys.argv[1]).read().splitlines()[1:]]
rows = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()[1:]]
assert rows[0][0] == "r" and float(rows[1][4]) == -1.0, rows[:2]
counts = {int(r[3]): int(r[6]) for r in rows}
# the table holds every value but NaN (--ld-window-r2 0), the histogram NaN too
assert sum(c for b, c in counts.items() if b != 21) == len(vals), (counts, len(vals))
for r in rows:
    b, lo, hi = int(r[3]), float(r[4]), float(r[5])
    if 0 <= b < 20:
        want = sum(1 for v in vals if lo <= v < hi or (b == 19 and v == hi))
        near = sum(1 for v in vals if min(abs(v - lo), abs(v - hi)) < 1e-12)
        assert abs(want - int(r[6])) <= near, (r, want)
PYEOF

# --output-loci: each vector's chromosome and position from the .bim, for
# ccc (2-way and 3-way) and r2; the Python reader reads the columns
run_ok "ccc loci" "$STARMET" compute --quiet --bfile "$T/w" --metric ccc --ld-window 5 \
  --output-loci --output "$T/lc"
run_ok "ccc 3-way loci" "$STARMET" compute --quiet --bfile "$T/h" --metric ccc --num-way 3 \
  --output-loci --output "$T/lc3"
run_ok "r2 loci" "$STARMET" compute --quiet --bfile "$T/w" --metric r2 --output-loci \
  --output-format tsv --output "$T/lr"
"$PY" - "$T/w.bim" "$T/h.bim" "$T/lc.tsv" "$T/lc3.tsv" "$T/lr.tsv" "$T/all_r2.tsv" \
  "$top_srcdir/python" > "$T/lo.out" 2>&1 << 'PYEOF' && pass || fail "loci columns: $(tail -3 "$T/lo.out")"
import sys
sys.path.insert(0, sys.argv[7])
import starmet_io as sm
def loci(bim):
    return {f[1]: (f[0], f[3]) for f in (l.split() for l in open(bim))}
w, h = loci(sys.argv[1]), loci(sys.argv[2])
for path, lc, way in ((sys.argv[3], w, 2), (sys.argv[4], h, 3), (sys.argv[5], w, 2)):
    lines = open(path).read().splitlines()
    head = lines[0].split("\t")
    assert head[way:3 * way] == [p + "_" + x for x in "ijk"[:way] for p in ("chr", "pos")], head
    assert len(lines) > 1
    for l in lines[1:]:
        c = l.split("\t")
        for k in range(way):
            assert (c[way + 2 * k], c[way + 2 * k + 1]) == lc[c[k]], l
# the values are those of the run without the columns
a = [l.split("\t") for l in open(sys.argv[5]).read().splitlines()[1:]]
b = [l.split("\t") for l in open(sys.argv[6]).read().splitlines()[1:]]
assert sorted((x[0], x[1], x[-1]) for x in a) == sorted((x[0], x[1], x[-1]) for x in b)
r = sm.read_tsv(sys.argv[5])
assert r.dtype.names == ("i", "j", "chr_i", "pos_i", "chr_j", "pos_j", "value"), r.dtype
assert int(r["pos_j"][0]) == int(w[r["j"][0]][1])
PYEOF
# ccc in PLINK's table: a line per pair, its four entries as columns,
# the TSV's values to the 6 printed digits
run_ok "ccc ld table" "$STARMET" compute --quiet --bfile "$T/w" --metric ccc --ld-window 5 \
  --output-format ld --output "$T/cl"
"$PY" - "$T/cl.ld" "$T/lc.tsv" > "$T/cl.out" 2>&1 << 'PYEOF' && pass || fail "ccc ld table: $(tail -3 "$T/cl.out")"
import math, sys
ld = open(sys.argv[1]).read().splitlines()
assert ld[0].split()[-4:] == ["CCC_00", "CCC_01", "CCC_10", "CCC_11"], ld[0]
tsv = {}
for l in open(sys.argv[2]).read().splitlines()[1:]:
    c = l.split("\t")
    tsv.setdefault((c[0], c[1]), {})[c[6] + c[7]] = float(c[8])
got = {}
for l in ld[1:]:
    f = l.split()
    got[(f[2], f[5])] = f[6:10]
assert set(got) == set(tsv), (len(got), len(tsv))
for k, v in got.items():
    for e, s in zip(("00", "01", "10", "11"), v):
        w = tsv[k][e]
        assert abs(float(s) - w) <= 5e-6 * max(abs(w), 1e-300) + 1e-300, (k, e, s, w)
PYEOF
expect_error "loci on czekanowski" "output-loci" "$T/e13" \
  "$STARMET" compute --metric czekanowski --synthetic random --num-vector 20 --num-field 30 \
  --output-loci --output "$T/e13"
expect_error "loci in the ld table" "has them already" "$T/e14" \
  "$STARMET" compute --bfile "$T/w" --metric r2 --output-loci --output-format ld --output "$T/e14"

# what the windows refuse
expect_error "window 1" "ld-window" "$T/e5" \
  "$STARMET" compute --bfile "$T/w" --metric r2 --ld-window 1 --output "$T/e5"
expect_error "window r2 above 1" "out of range" "$T/e6" \
  "$STARMET" compute --bfile "$T/w" --metric r2 --ld-window-r2 1.5 --output "$T/e6"
# negative values are refused, -1 too (it once read as "not given")
for a in "--ld-window-kb -1" "--ld-window-kb -0.5" "--ld-window-r2 -1" "--ld-window-r2 -0.1"; do
  # shellcheck disable=SC2086
  expect_error "$a" "^starmet: error: --ld-window-(kb|r2): -[0-9.]* is out of range" "$T/e21" \
    "$STARMET" compute --bfile "$T/w" --metric r2 $a --output "$T/e21"
done
expect_error "inter-chr with a window" "every pair" "$T/e7" \
  "$STARMET" compute --bfile "$T/w" --metric r2 --inter-chr --ld-window 5 --output "$T/e7"
expect_error "ld table of 3-way ccc" "r2, r or ccc, 2-way" "$T/e8" \
  "$STARMET" compute --bfile "$T/w" --metric ccc --num-way 3 --output-format ld --output "$T/e8"
expect_error "window without positions" "chromosomes and positions" "$T/e9" \
  "$STARMET" compute --metric r2 --synthetic random --num-vector 20 --num-field 30 \
  --ld-window 5 --output "$T/e9"
expect_error "window on czekanowski" "genotypes" "$T/e10" \
  "$STARMET" compute --metric czekanowski --synthetic random --num-vector 20 --num-field 30 \
  --ld-window 5 --output "$T/e10"
# a .bim whose positions go back: windows need PLINK's order
cp "$T/w.bed" "$T/u.bed"; cp "$T/w.fam" "$T/u.fam"
awk 'NR == 5 { $4 = 1 } { print }' OFS='\t' "$T/w.bim" > "$T/u.bim"
expect_error "unsorted positions" "sorted by position" "$T/e11" \
  "$STARMET" compute --bfile "$T/u" --metric r2 --ld-window 5 --output "$T/e11"

# what r and r2 refuse
expect_error "r2 3-way" "measure of pairs" "$T/e1" \
  "$STARMET" compute --bfile "$T/h" --metric r2 --num-way 3 --output "$T/e1"
expect_error "r2 threshold" "ld-window-r2" "$T/e2" \
  "$STARMET" compute --bfile "$T/h" --metric r2 --threshold 0.5 --output "$T/e2"
expect_error "r no-sparse" "missing calls out" "$T/e3" \
  "$STARMET" compute --bfile "$T/h" --metric r --no-sparse --output "$T/e3"
expect_error "r2 ref" "task graph" "$T/e4" \
  "$STARMET" compute --bfile "$T/h" --metric r2 --compute-method ref --output "$T/e4"
finish
