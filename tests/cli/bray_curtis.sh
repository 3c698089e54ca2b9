#!/bin/sh
# bray_curtis.sh: the dissimilarities of Czekanowski's numerators as
# microbial ecologists compute them (--metric bray-curtis, jaccard,
# --binary) and empty samples (--zero-pairs). The values are scipy's
# (braycurtis, and jaccard and dice on booleans) and R vegan's (vegdist
# bray and jaccard, binary or not, on its data sets dune, varespec, BCI):
# bit for bit on integer counts where the quotient is of two exact
# integers, within 1e-15 otherwise. Every path gives the same values:
# --compute-method ref and the task graph, every finalize instruction set
# and kernel, OpenCL (PoCL), 2 and 3 MPI ranks; single precision within
# 1e-6. Thresholds keep the values <= T, --top-k the K nearest (scipy's
# argsort), histograms count NaN apart; the empty vectors are named once,
# their pairs hold NaN or the old value; czekanowski's outputs are as they
# were. Parts whose tool (python3 with scipy, R with vegan, PoCL, MPI) is
# missing are skipped.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
PY=${PYTHON3:-/usr/bin/python3}
c() { "$S" compute --quiet "$@"; }
have_scipy=0
"$PY" -c 'import numpy, scipy.spatial' 2> /dev/null && have_scipy=1
have_vegan=0
command -v Rscript > /dev/null 2>&1 &&
  Rscript -e 'suppressMessages(library(vegan))' > /dev/null 2>&1 && have_vegan=1

# Integer counts, most of them zero, 120 samples of 90 taxa; samples 3, 17,
# 50 and 119 are empty
awk 'BEGIN { srand(7); printf "id"; for (j = 0; j < 90; j++) printf "\tt%d", j; printf "\n"
  for (i = 0; i < 120; i++) { printf "s%d", i
    for (j = 0; j < 90; j++) {
      x = rand() < 0.35 ? int(rand() * rand() * 300) : 0
      if (i == 3 || i == 17 || i == 50 || i == 119) x = 0
      printf "\t%d", x }
    printf "\n" } }' > "$T/cnt.tsv"
# the same counts without names (the empty vectors are then numbered)
tail -n +2 "$T/cnt.tsv" | cut -f 2- > "$T/nonames.tsv"

# ---- 1. every path the same values, checksums too (NaN included)
for m in bray-curtis jaccard "czekanowski --zero-pairs nan" "bray-curtis --binary" \
  "jaccard --binary" "bray-curtis --zero-pairs zero"; do
  tag=$(echo "$m" | tr -dc 'a-z')
  # shellcheck disable=SC2086
  run_ok "$m ref" c --input "$T/cnt.tsv" --metric $m --compute-method ref --output "$T/r_$tag"
  for hide in "" avx512 avx2,avx512; do
    for k in auto blocked ref; do
      # shellcheck disable=SC2086
      run_ok "$m $k $hide" env STARMET_CPU_DISABLE=$hide "$S" compute --quiet \
        --input "$T/cnt.tsv" --metric $m --kernel $k --block-size 37 --output "$T/t_$tag"
      same_text "$m, kernel $k, hidden '$hide' = ref" "$T/r_$tag.tsv" "$T/t_$tag.tsv"
      same_cks "$m, kernel $k, hidden '$hide' checksum = ref" "$T/r_$tag.json" "$T/t_$tag.json"
    done
  done
  # thresholds: the finalize's filter (every instruction set) and the sink's
  thr=0.7
  case $m in jaccard) thr=0.85 ;; czek*) thr=0.1 ;; esac
  # shellcheck disable=SC2086
  run_ok "$m ref threshold" c --input "$T/cnt.tsv" --metric $m --threshold $thr \
    --compute-method ref --output "$T/rt_$tag"
  for hide in "" avx512 avx2,avx512; do
    # shellcheck disable=SC2086
    run_ok "$m threshold $hide" env STARMET_CPU_DISABLE=$hide "$S" compute --quiet \
      --input "$T/cnt.tsv" --metric $m --threshold $thr --block-size 29 --output "$T/tt_$tag"
    same_text "$m threshold, hidden '$hide' = ref" "$T/rt_$tag.tsv" "$T/tt_$tag.tsv"
  done
done
# scipy's spelling is the same metric
run_ok "braycurtis" c --input "$T/cnt.tsv" --metric braycurtis --output "$T/alias"
same_text "braycurtis = bray-curtis" "$T/r_braycurtis.tsv" "$T/alias.tsv"
grep -q '"metric": "bray-curtis"' "$T/alias.json" && pass || fail "summary: metric not bray-curtis"

# ---- 2. what the values are: <= T kept, NaN exactly for two empty vectors
thr_ok=$(awk -F'\t' 'NR > 1 && !($3 <= 0.7) { bad++ } END { print bad + 0 }' "$T/tt_braycurtis.tsv")
[ "$thr_ok" = 0 ] && pass || fail "bray-curtis --threshold 0.7 wrote $thr_ok values > 0.7 or NaN"
want=$(awk -F'\t' 'NR > 1 && $3 != "nan" && $3 <= 0.7' "$T/r_braycurtis.tsv" | wc -l)
got=$(tail -n +2 "$T/tt_braycurtis.tsv" | wc -l)
[ "$want" -gt 0 ] && [ "$want" = "$got" ] && pass ||
  fail "bray-curtis --threshold 0.7: $got values kept, $want are <= 0.7"
empty_re='^s(3|17|50|119)$'
awk -F'\t' -v re="$empty_re" 'NR > 1 { e = ($1 ~ re) + ($2 ~ re)
  if ((e == 2) != ($3 == "nan") || (e == 1 && $3 != 1)) bad++ } END { exit bad > 0 }' \
  "$T/r_braycurtis.tsv" && pass || fail "bray-curtis: NaN is not exactly the pairs of two empty vectors"
awk -F'\t' -v re="$empty_re" 'NR > 1 { e = ($1 ~ re) + ($2 ~ re)
  if (e >= 1 && $3 != 1) bad++ } END { exit bad > 0 }' "$T/r_braycurtiszeropairszero.tsv" &&
  pass || fail "bray-curtis --zero-pairs zero: an empty vector's pair is not 1"
# czekanowski as it was: the default run's file and checksum, and
# --zero-pairs zero is that default
run_ok "czekanowski" c --input "$T/cnt.tsv" --output "$T/cz"
run_ok "czekanowski zero" c --input "$T/cnt.tsv" --zero-pairs zero --output "$T/czz"
cmp -s "$T/cz.tsv" "$T/czz.tsv" && pass || fail "czekanowski --zero-pairs zero differs from the default"
same_cks "czekanowski --zero-pairs zero checksum" "$T/cz.json" "$T/czz.json"
awk -F'\t' -v re="$empty_re" 'NR > 1 { e = ($1 ~ re) + ($2 ~ re); if (e >= 1 && $3 != 0) bad++ }
  END { exit bad > 0 }' "$T/cz.tsv" && pass || fail "czekanowski: an empty vector's pair is not 0"
# --zero-pairs nan changes those pairs alone
sorted "$T/cz.tsv" > "$T/a.s"; sorted "$T/t_czekanowskizeropairsnan.tsv" > "$T/b.s"
paste "$T/a.s" "$T/b.s" | awk -F'\t' -v re="$empty_re" '
  { e = ($1 ~ re) + ($2 ~ re); n++
    if ($1 != $4 || $2 != $5 || (e == 2 ? $6 != "nan" : $3 != $6)) bad++ }
  END { exit bad > 0 || n != 7140 }' && pass || fail "czekanowski --zero-pairs nan: not the default but NaN for 0/0"
# the checksums of NaN values: defined, and the same over block sizes
run_ok "bray-curtis blocks of 5" c --input "$T/cnt.tsv" --metric bray-curtis --block-size 5 \
  --output "$T/b5"
same_cks "bray-curtis checksum over tile sizes" "$T/b5.json" "$T/r_braycurtis.json"
grep -Eq '"checksum": "7140-' "$T/b5.json" && pass || fail "bray-curtis: checksum $(cks "$T/b5.json")"

# ---- 3. the empty vectors, said once, by name or number
run_ok "warning" "$S" compute --input "$T/cnt.tsv" --metric bray-curtis --output-format none \
  --summary "$T/w.json"
[ "$(grep -c 'empty vector' "$T/log.err")" = 1 ] && pass || fail "the empty vectors are not said once"
grep -q "4 empty vectors (every value 0): 's3', 's17', 's50', 's119'; .* are NaN (--zero-pairs nan)" \
  "$T/log.err" && pass || { fail "warning: $(cat "$T/log.err")"; }
run_ok "warning, numbers" "$S" compute --input "$T/nonames.tsv" --row-names no \
  --metric jaccard --zero-pairs zero --output-format none --summary "$T/w.json"
grep -q "4 empty vectors (every value 0): 3, 17, 50, 119 (numbers from 0); .* are 1 (--zero-pairs zero)" \
  "$T/log.err" && pass || fail "warning without names: $(cat "$T/log.err")"
awk 'BEGIN { printf "id\ta\tb\n"; for (i = 0; i < 14; i++) printf "v%d\t0\t0\n", i; print "w\t1\t2" }' \
  > "$T/many.tsv"
run_ok "many empty" "$S" compute --input "$T/many.tsv" --output-format none --summary "$T/w.json"
grep -q "14 empty vectors.*'v9' and 4 more;.*are 0 (--zero-pairs zero)" "$T/log.err" && pass ||
  fail "warning, 14 empty: $(cat "$T/log.err")"
grep -q "'v10'" "$T/log.err" && fail "warning names more than 10" || pass
run_ok "no warning" "$S" compute --synthetic random --num-vector 20 --num-field 30 \
  --metric bray-curtis --output-format none --summary "$T/w.json"
grep -q "empty vector" "$T/log.err" && fail "a warning without empty vectors" || pass

# ---- 4. the summary, lsmat and npy
grep -q '"metric": "jaccard", "binary": true, "zero_pairs": "nan"' "$T/t_jaccardbinary.json" &&
  pass || fail "summary of jaccard --binary: $(grep -o '"problem": {[^}]*' "$T/t_jaccardbinary.json")"
grep -q '"zero_pairs"\|"binary"' "$T/cz.json" && fail "czekanowski's summary names the new options" || pass
run_ok "lsmat" c --input "$T/cnt.tsv" --metric bray-curtis --zero-pairs zero --output "$T/lm" \
  --output-format lsmat
# row r, column k > r of the matrix: the pair (r, k) as the TSV has it
awk -F'\t' 'NR == 1 { for (k = 2; k <= NF; k++) id[k] = $k; next }
  { r = NR; if ($r != 0) bad++; for (k = r + 1; k <= NF; k++) print $1 "\t" id[k] "\t" $k }
  END { exit bad > 0 }' "$T/lm.lsmat" | LC_ALL=C sort > "$T/lm.pairs" && pass ||
  fail "lsmat: a diagonal value is not 0"
sorted "$T/r_braycurtiszeropairszero.tsv" > "$T/tsv.pairs"
[ -s "$T/tsv.pairs" ] && cmp -s "$T/lm.pairs" "$T/tsv.pairs" && pass ||
  fail "lsmat: the distances are not the bray-curtis values"
expect_error "lsmat with NaN pairs" "--output-format lsmat: a distance matrix needs every pair, and the 6 pairs of two empty vectors \(above\) have none \(0/0 is NaN with --zero-pairs nan\): give --zero-pairs zero" - \
  c --input "$T/cnt.tsv" --metric bray-curtis --output "$T/ln" --output-format lsmat
[ -z "$(ls "$T"/ln.* 2> /dev/null)" ] && pass || fail "lsmat with NaN pairs: left $(ls "$T"/ln.*)"

# ---- 5. refused
sh_refuse() { name=$1 pat=$2; shift 2; expect_error "$name" "$pat" "$T/bad" "$S" compute --input "$T/cnt.tsv" --output "$T/bad" "$@"; }
sh_refuse "3-way bray-curtis" "--metric bray-curtis is a measure of pairs: --num-way 3 is czekanowski's" \
  --metric bray-curtis --num-way 3
sh_refuse "3-way jaccard" "--metric jaccard is a measure of pairs" --metric jaccard --num-way 3
sh_refuse "bad --zero-pairs" "--zero-pairs: unknown value 'null' \(use one of: nan, zero\)" \
  --metric bray-curtis --zero-pairs null
sh_refuse "bad --metric" "--metric: unknown value 'bray' \(use one of: czekanowski, bray-curtis, jaccard, ccc, r2, r\)" \
  --metric bray
sh_refuse "--zero-pairs 3-way" "--zero-pairs says what a pair of two empty vectors holds: 2-way runs only" \
  --zero-pairs nan --num-way 3
sh_refuse "threshold > 1" "--threshold: 1.5 is out of range: bray-curtis keeps the values <= T" \
  --metric bray-curtis --threshold 1.5
expect_error "--binary ccc" "--binary applies to czekanowski, bray-curtis and jaccard" "$T/bad" \
  "$S" compute --metric ccc --synthetic random --num-vector 5 --num-field 9 --binary --output "$T/bad"
expect_error "--zero-pairs ccc" "--zero-pairs applies to czekanowski, bray-curtis and jaccard" "$T/bad" \
  "$S" compute --metric ccc --synthetic random --num-vector 5 --num-field 9 --zero-pairs nan \
  --output "$T/bad"
expect_error "analytic" "--synthetic analytic checks czekanowski's closed form" "$T/bad" \
  "$S" compute --metric bray-curtis --synthetic analytic --num-vector 5 --num-field 9 --output "$T/bad"
expect_error "ccc option" "--sparse applies to ccc only" "$T/bad" \
  "$S" compute --metric jaccard --input "$T/cnt.tsv" --sparse --output "$T/bad"

# ---- 6. resume: the metric is part of what must not change
rm -f "$T/rs".*
"$S" compute --quiet --input "$T/cnt.tsv" --metric bray-curtis --block-size 20 --output "$T/rs" \
  --debug-stop-after-blocks 3 > /dev/null 2>&1
[ -e "$T/rs.manifest" ] && pass || fail "resume: nothing to resume"
for other in "--metric jaccard" "--metric bray-curtis --binary" "--metric bray-curtis --zero-pairs zero" \
  "--metric czekanowski"; do
  # shellcheck disable=SC2086
  expect_error "resume as $other" "different run" - "$S" compute --quiet --input "$T/cnt.tsv" \
    $other --block-size 20 --output "$T/rs" --resume
done
run_ok "resume" c --input "$T/cnt.tsv" --metric bray-curtis --block-size 20 --output "$T/rs" --resume
same_text "resumed bray-curtis" "$T/r_braycurtis.tsv" "$T/rs.tsv"
same_cks "resumed bray-curtis checksum" "$T/r_braycurtis.json" "$T/rs.json"

# ---- 7. histograms: NaN in its own slot, the rest in the bins
for meth in tasks ref; do
  run_ok "histogram $meth" c --input "$T/cnt.tsv" --metric bray-curtis --histogram 10 \
    --compute-method $meth --output "$T/h_$meth" --output-format none
done
cmp -s "$T/h_tasks.hist.tsv" "$T/h_ref.hist.tsv" && pass || fail "histogram: tasks and ref differ"
awk -F'\t' 'NR > 1 && $1 != "bray-curtis" { bad++ } NR > 1 && $4 == 11 { nan = $7 }
  NR > 1 && $4 >= 0 && $4 < 10 { inb += $7 } END { exit bad || nan != 6 || inb != 7134 }' \
  "$T/h_tasks.hist.tsv" && pass || fail "histogram: not 6 NaN apart and 7134 in the bins: $(cat "$T/h_tasks.hist.tsv")"
awk -F'\t' 'NR > 1 && $3 != "nan" { b = int($3 * 10); if (b > 9) b = 9; n[b]++ }
  END { for (b = 0; b < 10; b++) print b "\t" n[b] + 0 }' "$T/r_braycurtis.tsv" > "$T/hw"
awk -F'\t' 'NR > 1 && $4 >= 0 && $4 < 10 { print $4 "\t" $7 }' "$T/h_tasks.hist.tsv" > "$T/hg"
cmp -s "$T/hw" "$T/hg" && pass || fail "histogram counts: $(paste "$T/hw" "$T/hg" | tr '\n' ' ')"

# ---- 8. single precision: within 1e-6 of double
run_ok "single" c --input "$T/cnt.tsv" --metric jaccard --precision single --output "$T/sp"
sorted "$T/t_jaccard.tsv" > "$T/a.s"; sorted "$T/sp.tsv" > "$T/b.s"
paste "$T/a.s" "$T/b.s" | awk -F'\t' '{ n++; d = $3 - $6; if (d < 0) d = -d
  if (($3 == "nan") != ($6 == "nan") || ($3 != "nan" && d > 1e-6 * ($3 > 1e-300 ? $3 : 1))) bad++ }
  END { exit bad > 0 || n != 7140 }' && pass || fail "jaccard single is not within 1e-6 of double"

# ---- 9. scipy: exactly its values on integer counts, its nearest neighbours
if [ $have_scipy = 1 ]; then
  run_ok "top-k" c --input "$T/cnt.tsv" --metric bray-curtis --top-k 7 --block-size 23 --output "$T/tk"
  run_ok "top-k jaccard" c --input "$T/cnt.tsv" --metric jaccard --top-k 5 --output "$T/tkj"
  "$S" synth --metric czekanowski --num-vector 60 --num-field 80 --seed 4 --output-format tsv \
    --output "$T/real.tsv" > /dev/null 2>&1
  run_ok "real" c --input "$T/real.tsv" --metric bray-curtis --output "$T/realbc"
  if "$PY" - "$T" > "$T/py.log" 2>&1 <<'PYEOF'
import sys, warnings
import numpy as np
from scipy.spatial.distance import braycurtis, jaccard, dice
warnings.simplefilter("ignore")
T = sys.argv[1]
def table(path):
    names, rows = [], []
    with open(path) as f:
        f.readline()
        for line in f:
            p = line.rstrip("\n").split("\t")
            names.append(p[0]); rows.append([float(x) for x in p[1:]])
    return names, np.array(rows)
def pairs(path):
    with open(path) as f:
        f.readline()
        for line in f:
            a, b, v = line.rstrip("\n").split("\t")
            yield a, b, float(v)
bad = 0
def same(what, got, want, tol=0.0):
    global bad
    ok = (np.isnan(got) and np.isnan(want)) or (tol == 0 and got == want) or \
        (tol > 0 and abs(got - want) <= tol)
    if not ok:
        bad += 1
        if bad < 5: print(what, repr(got), repr(want))
names, X = table(T + "/cnt.tsv")
ix = {n: k for k, n in enumerate(names)}
B = X > 0
def bjac(u, v):  # scipy's jaccard of two empty vectors is 0; 0/0 here
    return jaccard(u, v) if (u | v).any() else float("nan")
def bdice(u, v):
    return dice(u, v) if (u | v).any() else float("nan")
def qjac(u, v):
    mn = np.minimum(u, v).sum(); s = u.sum() + v.sum()
    return (s - 2 * mn) / (s - mn) if s > 0 else float("nan")
checks = [("r_braycurtis", lambda i, j: braycurtis(X[i], X[j])),
          ("t_braycurtis", lambda i, j: braycurtis(X[i], X[j])),
          ("t_jaccardbinary", lambda i, j: bjac(B[i], B[j])),
          ("t_braycurtisbinary", lambda i, j: bdice(B[i], B[j])),
          ("t_jaccard", lambda i, j: qjac(X[i], X[j]))]
for name, f in checks:
    n = 0
    for a, b, v in pairs(T + "/" + name + ".tsv"):
        same(name, v, f(ix[a], ix[b])); n += 1
    assert n == len(names) * (len(names) - 1) // 2, (name, n)
# top-k: scipy's matrix sorted (value, then neighbour), NaN left out
for name, k, f in (("tk", 7, braycurtis), ("tkj", 5, qjac)):
    want = []
    for i in range(len(names)):
        c = sorted((f(X[i], X[j]), j) for j in range(len(names)) if j != i)
        c = [x for x in c if not np.isnan(x[0])][:k]
        want += [(names[i], r + 1, names[j], v) for r, (v, j) in enumerate(c)]
    got = []
    with open(T + "/" + name + ".topk.tsv") as fh:
        fh.readline()
        for line in fh:
            a, r, b, v = line.rstrip("\n").split("\t")
            got.append((a, int(r), b, float(v)))
    if got != want:
        bad += 1; print(name, "top-k differs", len(got), len(want))
# thresholds: exactly the pairs whose scipy value is <= 0.7
keep = {(a, b) for a, b, v in pairs(T + "/tt_braycurtis.tsv")}
want = {(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))
        if braycurtis(X[i], X[j]) <= 0.7}
if keep != want:
    bad += 1; print("threshold: pairs differ", len(keep), len(want))
# real values: within 1e-15 (values in [0, 1], sums rounded in other orders)
rn, R = table(T + "/real.tsv")
ri = {n: k for k, n in enumerate(rn)}
for a, b, v in pairs(T + "/realbc.tsv"):
    same("real", v, braycurtis(R[ri[a]], R[ri[b]]), 1e-15)
print("differences:", bad)
sys.exit(bad > 0)
PYEOF
  then pass; else fail "scipy: $(cat "$T/py.log")"; fi
else
  skip_part "python3 with numpy and scipy"
fi

# ---- 10. vegan: vegdist on its own data sets
if [ $have_vegan = 1 ]; then
  for d in dune varespec BCI; do
    Rscript -e "suppressMessages(library(vegan)); data($d)
      write.table(get('$d'), '$T/$d.tsv', sep = '\t', quote = FALSE, col.names = NA)
      for (m in c('bray', 'jaccard')) for (b in c(FALSE, TRUE)) {
        x <- as.matrix(vegdist(get('$d'), m, binary = b)); n <- rownames(x)
        o <- file(sprintf('$T/v_%s_%s_%s.tsv', '$d', m, b), 'w')
        for (i in 1:(nrow(x) - 1)) for (j in (i + 1):nrow(x))
          cat(n[i], '\t', n[j], '\t', sprintf('%.17g', x[i, j]), '\n', sep = '', file = o)
        close(o) }" > "$T/r.log" 2>&1 || { fail "Rscript $d: $(cat "$T/r.log")"; continue; }
    for m in bray jaccard; do
      for b in FALSE TRUE; do
        sm=$m; [ $m = bray ] && sm=bray-curtis
        bf=""; [ $b = TRUE ] && bf=--binary
        # shellcheck disable=SC2086
        run_ok "$d $m binary=$b" c --input "$T/$d.tsv" --metric $sm $bf --output "$T/s_${d}_$m$b"
        # bray on integers (dune, BCI, any binary): the same quotient, exactly;
        # jaccard: vegan's 2B/(1 + B), within 1e-15 relative; varespec's
        # real values: within 1e-15 (sums of reals in other orders)
        mode=exact
        [ $m = jaccard ] && mode=rel
        [ $d = varespec ] && [ $b = FALSE ] && mode=abs
        awk -F'\t' -v mode=$mode 'NR == FNR { w[$1 "\t" $2] = $3; nw++; next }
          FNR > 1 { n++; x = w[$1 "\t" $2]; d = $3 - x; if (d < 0) d = -d
            if (mode == "exact" && $3 != x) bad++
            if (mode == "rel" && d > 1e-15 * x) bad++
            if (mode == "abs" && d > 1e-15) bad++ }
          END { exit bad > 0 || n != nw }' "$T/v_${d}_${m}_$b.tsv" "$T/s_${d}_$m$b.tsv" &&
          pass || fail "$d $m binary=$b differs from vegan ($mode)"
      done
    done
  done
else
  skip_part "R with vegan (r-cran-vegan)"
fi

# ---- 11. OpenCL: the device finalize computes the same forms
if ocl_probe; then
  for m in "bray-curtis" "jaccard --zero-pairs zero" "bray-curtis --binary --threshold 0.6" \
    "jaccard --threshold 0.8" "czekanowski --zero-pairs nan --threshold 0.1"; do
    tag=ocl$(echo "$m" | tr -dc 'a-z0-9')
    # shellcheck disable=SC2086
    run_ok "cpu $tag" c --input "$T/cnt.tsv" --metric $m --block-size 32 --output "$T/c_$tag"
    # shellcheck disable=SC2086
    run_ok "opencl $tag" ocl "$S" compute --quiet --input "$T/cnt.tsv" --metric $m --block-size 32 \
      --devices accel --output "$T/o_$tag" --trace "$T/o_$tag.csv"
    same_text "opencl $m = cpu" "$T/c_$tag.tsv" "$T/o_$tag.tsv"
    same_cks "opencl $m checksum" "$T/c_$tag.json" "$T/o_$tag.json"
    awk -F, '$2 == "finalize2" { n++; if (index($9, "OpenCL") != 1) bad++ }
      END { exit !(n > 0 && !bad) }' "$T/o_$tag.csv" && pass ||
      fail "opencl $m: not every finalize ran on the OpenCL worker"
  done
else
  skip_part "OpenCL (pocl-opencl-icd)"
fi

# ---- 12. MPI: 2 and 3 ranks give the one-rank run's values and checksum
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  for grid in "2 --num-proc-vector 2" "3 --num-proc-field 3" "3 --num-proc-vector 3"; do
    set -- $grid
    np=$1; shift
    tag=mpi$np$(echo "$*" | tr -dc 'a-z0-9')
    # shellcheck disable=SC2068
    run_ok "$tag" mpi_starmet $np compute --input "$T/cnt.tsv" --metric jaccard --block-size 16 \
      $@ --output "$T/$tag"
    merge_ranks "$T/$tag" $np tsv "$T/$tag.all.tsv"
    same_text "$tag = one rank" "$T/r_jaccard.tsv" "$T/$tag.all.tsv"
    same_cks "$tag checksum" "$T/r_jaccard.json" "$T/$tag.json"
    grep -q "4 empty vectors (every value 0): 's3', 's17', 's50', 's119';" "$T/log.err" &&
      pass || fail "$tag: warning $(cat "$T/log.err")"
    [ "$(grep -c 'empty vector' "$T/log.err")" = 1 ] && pass || fail "$tag: not said once"
  done
  # names gathered for the warning alone (binary output has none)
  run_ok "mpi bin" mpi_starmet 3 compute --input "$T/cnt.tsv" --metric bray-curtis --num-proc-field 3 \
    --output "$T/mb" --output-format bin
  grep -q "): 's3', 's17', 's50', 's119';" "$T/log.err" && pass || fail "mpi bin: warning $(cat "$T/log.err")"
  same_cks "mpi bin checksum" "$T/r_braycurtis.json" "$T/mb.json"
else
  skip_part "MPI (no launcher)"
fi
finish
