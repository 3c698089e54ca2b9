#!/bin/sh
# option_rules.sh: how options combine. Options that touch each other give
# the same run in either order (a per-entry CCC --threshold and a
# --histogram range, --bfile and --input-format, --help and a bad option,
# --sched help and --help): the same files, byte for byte, and the same
# summaries but for the time things took.
# An option whose result no file or summary of the run would hold is
# refused, exit status 2, as --top-k without --output is (--histogram,
# --threshold, --keys index, --top-k-by entry); those whose result shows
# are run. The histogram's picture goes through the output policy: gnuplot
# writes to a pipe, into a temporary of this process only, so that a link
# or a file planted at PREFIX.hist.png.part is never opened, written
# through or removed; without gnuplot, or when it fails or stops half-way,
# no picture is claimed and nothing is left behind.
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c "import json" 2> /dev/null; then echo "no python3 to read the summaries: skipped"; exit 77; fi
CCC2="--metric ccc --input $DATA/bits2_miss10_200x500.bin --num-field 500 --num-vector 80"
CCC3="--metric ccc --input $DATA/bits2_miss10_200x500.bin --num-field 500 --num-vector 30 --num-way 3"
CZ2="--input $DATA/czek_real_200x500_f64.bin --num-field 500 --num-vector 80"
CZ3="--input $DATA/czek_int_200x500_f64.bin --num-field 500 --num-vector 30 --num-way 3"

# what does not depend on the time a run took: the summary's problem,
# counts, checksum, thresholds, histogram and files
stable() {
  "$PY" - "$1" << 'PY'
import json, sys
j = json.load(open(sys.argv[1]))
keep = ("status", "problem", "counts", "checksum", "threshold", "threshold_entries",
        "histogram", "histogram_file", "histogram_picture", "output", "top_k")
print(json.dumps({k: j.get(k) for k in keep}, sort_keys=True, indent=1))
PY
}
# the lines of the printed summary that say what was computed and written
said() { grep -E '^  (results|checksum|output|histogram|top-k) ' "$1"; }

# both_orders TAG "A" "B" ARGS...: `compute ARGS A B` and `compute ARGS B A`,
# each in a directory of its own with the same relative prefix, write the
# same files (byte for byte) and summaries
both_orders() {
  tag=$1 a=$2 b=$3; shift 3
  mkdir -p "$T/$tag.ab" "$T/$tag.ba"
  # shellcheck disable=SC2086
  (cd "$T/$tag.ab" && "$STARMET" compute "$@" $a $b --output r --output-format bin > out) ||
    fail "$tag: $a $b: exit $?"
  # shellcheck disable=SC2086
  (cd "$T/$tag.ba" && "$STARMET" compute "$@" $b $a --output r --output-format bin > out) ||
    fail "$tag: $b $a: exit $?"
  for f in r.bin r.hist.tsv; do
    [ -s "$T/$tag.ab/$f" ] && cmp -s "$T/$tag.ab/$f" "$T/$tag.ba/$f" && pass ||
      fail "$tag: $f differs between '$a $b' and '$b $a'"
  done
  stable "$T/$tag.ab/r.json" > "$T/$tag.ab/stable" && stable "$T/$tag.ba/r.json" > "$T/$tag.ba/stable" &&
    cmp -s "$T/$tag.ab/stable" "$T/$tag.ba/stable" && pass ||
    { fail "$tag: the JSON summaries differ:"; diff "$T/$tag.ab/stable" "$T/$tag.ba/stable" >&2; }
  said "$T/$tag.ab/out" > "$T/$tag.ab/said"; said "$T/$tag.ba/out" > "$T/$tag.ba/said"
  [ -s "$T/$tag.ab/said" ] && cmp -s "$T/$tag.ab/said" "$T/$tag.ba/said" && pass ||
    { fail "$tag: the printed summaries differ:"; diff "$T/$tag.ab/said" "$T/$tag.ba/said" >&2; }
}

# --- order: a per-entry CCC threshold used to reset the histogram's range
both_orders ccc2 "--histogram 4,0.5,1" "--threshold 0.52,0.53,0.52,1.02" $CCC2
grep -q '"min": 0.5,' "$T/ccc2.ba/r.json" && grep -q '"max": 1,' "$T/ccc2.ba/r.json" && pass ||
  fail "ccc2: the histogram's range is not the one given"
grep -q 'histogram   4 bins over \[0.5, 1\]' "$T/ccc2.ab/out" && pass ||
  fail "ccc2: the summary does not say the range given: $(said "$T/ccc2.ab/out")"
both_orders ccc3 "--histogram 5,0.1,0.4" "--threshold 0.19,0.19,0.19,0.19,0.37" $CCC3
both_orders ccc2_one "--histogram 7,0.3,0.7" "--threshold 0.55" $CCC2
both_orders czek2 "--histogram 6,0.5,1" "--threshold 0.6" $CZ2
both_orders czek3 "--histogram 3,0.5,0.8" "--threshold 0.6" $CZ3
# and the range given is the range counted: the same as without a threshold
(cd "$T" && "$STARMET" compute --quiet $CCC2 --histogram 4,0.5,1 --output nothr > /dev/null) &&
  cmp -s "$T/nothr.hist.tsv" "$T/ccc2.ab/r.hist.tsv" && pass ||
  fail "ccc2: the counts differ from the run without a threshold"

# --- order: --bfile is PLINK whatever comes after it; another format is
# refused either way, "plink" (or auto) accepted either way
G="$top_srcdir/data/example_geno"
for args in "--input-format tsv --bfile $G" "--bfile $G --input-format tsv" \
  "--input-format vcf --bfile $G" "--bfile $G --input-format raw"; do
  # shellcheck disable=SC2086
  expect_error "$args" "^starmet: error: --bfile .*example_geno reads the PLINK files .*example_geno\.bed/\.bim/\.fam, and --input-format names another format: leave --input-format out, or give a file of that format with --input$" \
    "$T/bf" "$STARMET" compute --quiet $args --output "$T/bf"
done
# shellcheck disable=SC2086
run_ok "--input-format plink --bfile" "$STARMET" compute --quiet --input-format plink --bfile "$G" --output "$T/bf1"
# shellcheck disable=SC2086
run_ok "--bfile --input-format plink" "$STARMET" compute --quiet --bfile "$G" --input-format plink --output "$T/bf2"
# shellcheck disable=SC2086
run_ok "--bfile --input-format auto" "$STARMET" compute --quiet --bfile "$G" --input-format auto --output "$T/bf3"
cmp -s "$T/bf1.tsv" "$T/bf2.tsv" && cmp -s "$T/bf1.tsv" "$T/bf3.tsv" && pass || fail "--bfile: the results depend on the order"

# --- order: --help is printed once every option parsed: a bad option is
# refused on either side of it, and --help wins over --sched help
for args in "--help --frobnicate" "--frobnicate --help" "--help --threshold x" "--threshold x --help" \
  "--sched help --frobnicate" "--frobnicate --sched help"; do
  rc=0
  # shellcheck disable=SC2086
  "$STARMET" compute $args > "$T/h.out" 2> "$T/h.err" || rc=$?
  [ $rc -eq 2 ] && [ ! -s "$T/h.out" ] && grep -q "^starmet: error: .*\(frobnicate\|'x' is not a finite number\)" "$T/h.err" &&
    pass || fail "compute $args: exit $rc, $(head -c 300 "$T/h.err")"
done
"$STARMET" compute --help > "$T/help.ref" 2>&1 || fail "compute --help"
for args in "--help --threshold 0.5" "--threshold 0.5 --help" "--sched help --help" "--help --sched help" \
  "-h --sched help"; do
  # shellcheck disable=SC2086
  "$STARMET" compute $args > "$T/h.out" 2>&1 && cmp -s "$T/h.out" "$T/help.ref" && pass ||
    fail "compute $args: not the help"
done
"$STARMET" compute --sched help > "$T/s1" 2>&1 && grep -qx lws "$T/s1" && pass || fail "--sched help: no list"
"$STARMET" compute --sched eager --sched help > "$T/s2" 2>&1 && cmp -s "$T/s1" "$T/s2" && pass ||
  fail "--sched eager --sched help: not the list"
"$STARMET" maf --frobnicate --help > "$T/h.out" 2> "$T/h.err" && fail "maf --frobnicate --help: accepted" ||
  { grep -q "maf: unknown or incomplete option '--frobnicate'" "$T/h.err" && [ ! -s "$T/h.out" ] && pass ||
    fail "maf --frobnicate --help: $(cat "$T/h.err")"; }

# --- refused: a result the run would write nowhere. Exit status 2 (a bad
# command line), one error line, nothing written
refused() { # NAME PATTERN ARGS...: refused in the empty directory $T/ref
  name=$1 pat=$2; shift 2
  rc=0
  (cd "$T/ref" && "$STARMET" compute --quiet "$@" > "$T/log.out" 2> "$T/log.err") || rc=$?
  if [ $rc -ne 2 ]; then fail "$name: exit $rc, not 2: $(cat "$T/log.err")"; return; fi
  [ "$(grep -c '^starmet: error:' "$T/log.err")" -eq 1 ] && grep -Eq -- "$pat" "$T/log.err" && pass ||
    { fail "$name: message does not match /$pat/:"; cat "$T/log.err" >&2; }
  [ -z "$(ls -A "$T/ref")" ] && pass || fail "$name: left files: $(ls -A "$T/ref")"
}
mkdir -p "$T/ref"
S="--synthetic random --num-vector 20 --num-field 30"
# shellcheck disable=SC2086
{
  refused "--top-k without --output (as it was)" "^starmet: error: --top-k writes PREFIX.topk.tsv: give --output PREFIX$" $S --top-k 3
  refused "--histogram without --output" "^starmet: error: --histogram writes PREFIX.hist.tsv, its picture and the counts in PREFIX.json: give --output PREFIX \(or --summary FILE for the counts alone\)$" $S --histogram 10
  refused "--histogram, per-entry threshold, no --output" "^starmet: error: --histogram writes PREFIX.hist.tsv" \
    $CCC2 --threshold 0.52,0.53,0.52,1.02 --histogram 4,0.5,1
  refused "--threshold without --output" "^starmet: error: --threshold keeps the values above it in the results file, and this run writes none \(no --output\): give --output PREFIX, or leave --threshold out \(--top-k and --histogram see every value, kept or not\)$" $S --threshold 0.5
  refused "--threshold with --output-format none" "--threshold keeps .* this run writes none \(--output-format none\): give --output-format tsv, bin, npy or comet, or leave --threshold out" \
    $S --threshold 0.5 --output o --output-format none
  refused "per-entry --threshold with --output-format none" "--threshold keeps .*\(--output-format none\)" \
    $CCC2 --threshold 0.52,0.53,0.52,1.02 --output o --output-format none --histogram 4
  refused "--threshold, --top-k, --output-format none" "--threshold keeps .*--top-k and --histogram see every value" \
    $S --threshold 0.5 --top-k 2 --output o --output-format none
  refused "--keys index without --output" "^starmet: error: --keys index numbers the vectors in text files, and this run writes none \(no --output\): give --output PREFIX, or leave --keys out$" \
    $S --keys index
  refused "--keys index with --output-format none" "--keys index numbers the vectors in text files, and --output-format none writes none: give --output-format tsv, or leave --keys out" \
    $S --keys index --output o --output-format none
  for f in bin comet; do
    refused "--keys index with --output-format $f" "--keys index numbers the vectors in text files; --output-format $f numbers them always: leave --keys out" \
      $S --keys index --output o --output-format $f
  done
  refused "--keys index, --top-k, bin" "--output-format bin numbers them always" $S --keys index --top-k 2 --output o --output-format bin
  refused "--top-k-by entry without --top-k" "^starmet: error: --top-k-by entry says how the --top-k lists are kept, and this run keeps none: give --top-k K, or leave --top-k-by out$" \
    $CCC2 --top-k-by entry --output o
  refused "--top-k-by entry, czekanowski" "^starmet: error: --top-k-by entry applies to ccc only \(czekanowski has one value per pair\)$" \
    $S --top-k 2 --top-k-by entry --output o
}

# --- accepted: the result shows somewhere
# shellcheck disable=SC2086
{
  run_ok "--histogram with --summary only" "$STARMET" compute --quiet $CCC2 --histogram 4,0.5,1 --summary "$T/only.json"
  "$PY" - "$T/only.json" "$T/nothr.json" << 'PY' && pass || fail "--summary only: not the counts of the run with --output"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["histogram"] == b["histogram"], (a["histogram"], b["histogram"])
assert a["histogram_file"] is None and a["histogram_picture"] is None
PY
  run_ok "--histogram with --output-format none" "$STARMET" compute --quiet $S --histogram 5 --output "$T/hn" --output-format none
  [ -s "$T/hn.hist.tsv" ] && [ ! -e "$T/hn.tsv" ] && pass || fail "--output-format none: no histogram file"
  run_ok "--trace without --output" "$STARMET" compute --quiet $S --trace "$T/tr.csv"
  [ -s "$T/tr.csv" ] && pass || fail "--trace without --output: no trace"
  run_ok "--keys index, --top-k, --output-format none" "$STARMET" compute --quiet $S --keys index --top-k 2 \
    --output "$T/kt" --output-format none
  [ -s "$T/kt.topk.tsv" ] && pass || fail "--keys index with --top-k: no top-k file"
  run_ok "--keys names (the default), bin" "$STARMET" compute --quiet $S --keys names --output "$T/kb" --output-format bin
  run_ok "--top-k-by max, czekanowski" "$STARMET" compute --quiet $S --top-k 2 --top-k-by max --output "$T/tm"
  run_ok "--threshold with npy" "$STARMET" compute --quiet $S --threshold 0.5 --output "$T/tn" --output-format npy
}

# --- the picture: gnuplot stood in for by a script (the same on every
# machine; FAKE_GP says what it does); the real one at the end
mkdir -p "$T/bin" "$T/nobin" "$T/pic"
cat > "$T/bin/gnuplot" << 'SH'
#!/bin/sh
# a PNG signature, an 8x8 header chunk, an end chunk
sig() { printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\000\010\000\000\000\010\010\002\000\000\000\113\155\051\334'; }
end() { printf '\000\000\000\000IEND\256B`\202'; }
case ${FAKE_GP:-ok} in
  ok) cat > "$FAKE_GP_SCRIPT"; sig; end ;;
  exit1) exit 1 ;;                              # before reading its script
  half1) cat > /dev/null; sig; exit 1 ;;        # half a picture, then fails
  half0) cat > /dev/null; sig ;;                # half a picture, "succeeds"
  killed) cat > /dev/null; sig; kill -9 $$ ;;   # dies half-way
  empty) cat > /dev/null ;;                     # writes nothing, "succeeds"
  hang) cat > /dev/null; sig; exec sleep 600 ;; # half a picture, then hangs
  hangopen) exec sleep 600 ;;                   # reads nothing, never ends
  lingers) cat > /dev/null; sig; end; exec 1>&-; exec sleep 600 ;; # a picture, no end
esac
SH
chmod +x "$T/bin/gnuplot"
export FAKE_GP_SCRIPT="$T/gp.script"
echo victim > "$T/victim"
cd "$T/pic" || exit 1
# pic NAME PREFIX [VAR=VALUE...] -- ARGS...: a histogram run with PATH=$T/bin
pic() {
  name=$1 p=$2; shift 2
  env PATH="$T/bin:$PATH" "$@" "$STARMET" compute $CCC2 --histogram 6 --output "$p" > "$p.out" 2> "$p.err" &&
    pass || { fail "$name: exit $?"; cat "$p.err" >&2; }
}
# no_picture NAME PREFIX: no picture, none claimed, no temporary left
no_picture() {
  name=$1 p=$2
  [ ! -e "$p.hist.png" ] && [ -s "$p.hist.tsv" ] && pass || fail "$name: picture or TSV: $(ls "$p".*)"
  [ -z "$(ls "$p".hist.png.part* 2> /dev/null)" ] && pass || fail "$name: left $(ls "$p".hist.png.part*)"
  grep -q '"histogram_picture": null' "$p.json" && pass || fail "$name: the summary claims a picture"
  grep -q "^  histogram   6 bins over \[0, 4.5\]: $p.hist.tsv\$" "$p.out" && pass ||
    fail "$name: the printed summary: $(grep histogram "$p.out")"
}
picture() { # NAME PREFIX: the fake's picture, claimed
  name=$1 p=$2
  [ -s "$p.hist.png" ] && head -c 8 "$p.hist.png" | od -c | grep -q 'P   N   G' && pass || fail "$name: no picture"
  grep -q "\"histogram_picture\": \"$p.hist.png\"" "$p.json" && pass || fail "$name: the summary claims no picture"
  [ -z "$(ls "$p".hist.png.part.* 2> /dev/null)" ] && pass || fail "$name: left $(ls "$p".hist.png.part.*)"
}

pic "fake gnuplot" ok
picture "fake gnuplot" ok
[ "$(wc -c < ok.hist.png)" -eq 45 ] && pass || fail "the picture is not the bytes gnuplot wrote ($(wc -c < ok.hist.png))"
# gnuplot is told to write to its standard output and given the counts
# inline: no file name in its script at all
grep -qx "set output" "$T/gp.script" && ! grep -q "$T\|ok\.hist\|\.tsv\|\.png" "$T/gp.script" && pass ||
  fail "gnuplot's script names a file: $(grep -n "output\|$T" "$T/gp.script" | head -3)"
[ "$(grep -c '^e$' "$T/gp.script")" -eq 4 ] && pass || fail "gnuplot's script: not 4 curves of inline data"

# a name gnuplot's quoting could not hold (it was not drawn): no name is
# given to gnuplot any more
pic "quote in the name" "it's"
picture "quote in the name" "it's"

# a link planted at PREFIX.hist.png.part: never opened (the temporary is
# this process's own, PREFIX.hist.png.part.PID, created exclusively), so
# the link and its target stay as they were and the picture is made, as
# the summary's (PREFIX.json.part.PID) would be
ln -s "$T/victim" lk.hist.png.part
pic "link at .part" lk
picture "link at .part" lk
[ -L lk.hist.png.part ] && [ "$(readlink lk.hist.png.part)" = "$T/victim" ] && [ "$(cat "$T/victim")" = victim ] &&
  pass || fail "link at .part: the link or its target changed"
# a regular file there: left as it is too
echo mine > rf.hist.png.part
pic "file at .part" rf
picture "file at .part" rf
[ "$(cat rf.hist.png.part)" = mine ] && pass || fail "file at .part: changed"
# a link at the very name this process would use (its pid): not drawn,
# nothing written through it, the link left, the run still succeeds
sh -c 'ln -s "$0" "pl.hist.png.part.$$" && exec "$@"' "$T/victim" \
  env PATH="$T/bin:$PATH" "$STARMET" compute $CCC2 --histogram 6 --output pl > pl.out 2> pl.err &&
  pass || { fail "link at .part.PID: exit $?"; cat pl.err >&2; }
grep -q "^starmet: warning: pl.hist.png: not drawn: cannot create pl.hist.png.part.[0-9]*: File exists$" pl.err &&
  pass || fail "link at .part.PID: $(cat pl.err)"
[ "$(cat "$T/victim")" = victim ] && [ -L "$(ls pl.hist.png.part.*)" ] && [ ! -e pl.hist.png ] && pass ||
  fail "link at .part.PID: written through, removed or a picture: $(ls -l pl.*)"
grep -q '"histogram_picture": null' pl.json && pass || fail "link at .part.PID: a picture claimed"

# gnuplot failing in every way: a warning, no picture, nothing left
for mode in exit1 half1 half0 killed empty; do
  pic "gnuplot $mode" "f_$mode" FAKE_GP=$mode
  no_picture "gnuplot $mode" "f_$mode"
  grep -q "^starmet: warning: f_$mode.hist.png: not drawn: $T/bin/gnuplot .*; the counts are in the histogram's TSV file and the JSON summary$" "f_$mode.err" &&
    pass || fail "gnuplot $mode: $(cat "f_$mode.err")"
done
# one that hangs, in every place: stopped after STARMET_GNUPLOT_WAIT
# seconds, with the same warning and nothing left
for mode in hang hangopen lingers; do
  t0=$(date +%s)
  pic "gnuplot $mode" "f_$mode" FAKE_GP=$mode STARMET_GNUPLOT_WAIT=2
  [ $(($(date +%s) - t0)) -lt 60 ] && pass || fail "gnuplot $mode: the run waited for it"
  no_picture "gnuplot $mode" "f_$mode"
  grep -q "^starmet: warning: f_$mode.hist.png: not drawn: $T/bin/gnuplot did not end within 2 s (STARMET_GNUPLOT_WAIT) and was stopped; the counts are in" "f_$mode.err" &&
    pass || fail "gnuplot $mode: $(cat "f_$mode.err")"
done
grep -q "failed (exit status 1)" f_half1.err && grep -q "killed by signal 9" f_killed.err &&
  grep -q "wrote no complete PNG" f_half0.err && pass || fail "gnuplot's failures are not told apart"
# one that stops reading a script larger than a pipe holds (4 x 10000
# bins): starmet is not killed by SIGPIPE
rc=0
env PATH="$T/bin:$PATH" FAKE_GP=exit1 "$STARMET" compute $CCC2 --histogram 10000 --output big > big.out 2> big.err || rc=$?
[ $rc -eq 0 ] && grep -q "not drawn: .*failed (exit status 1)" big.err && [ ! -e big.hist.png ] && pass ||
  fail "gnuplot that stops reading: exit $rc, $(cat big.err)"
# no value in the bins: nothing for a log scale, gnuplot not run
rm -f "$T/gp.script"
env PATH="$T/bin:$PATH" "$STARMET" compute $CCC2 --histogram 6,100,200 --output nv > nv.out 2> nv.err &&
  grep -q "^starmet: warning: nv.hist.png: not drawn: no value is in \[100, 200\] (the counts below, above and NaN are in the histogram's TSV file and the JSON summary)$" nv.err &&
  [ ! -e "$T/gp.script" ] && [ ! -e nv.hist.png ] && pass || fail "no value in the bins: $(cat nv.err)"
# no gnuplot: no picture and no word about it (it is optional), as before
rc=0
env PATH="$T/nobin" "$STARMET" compute $CCC2 --histogram 6 --output ng > ng.out 2> ng.err || rc=$?
[ $rc -eq 0 ] && ! grep -qi "gnuplot\|picture\|png" ng.err && pass || fail "no gnuplot: exit $rc, $(cat ng.err)"
no_picture "no gnuplot" ng

# the real gnuplot: a whole PNG, the same picture whatever the option order
if command -v gnuplot > /dev/null; then
  for d in ccc2.ab ccc2.ba; do
    [ -s "$T/$d/r.hist.png" ] && "$PY" -c "
import sys; b = open(sys.argv[1], 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n' and b[-12:] == b'\0\0\0\0IEND\xaeB\x60\x82'" "$T/$d/r.hist.png" &&
      pass || fail "$d: no whole PNG from gnuplot"
  done
  cmp -s "$T/ccc2.ab/r.hist.png" "$T/ccc2.ba/r.hist.png" && pass || fail "the pictures differ with the order"
  [ -z "$(ls "$T"/ccc2.ab/*.part* 2> /dev/null)" ] && pass || fail "gnuplot left a temporary"
else
  skip_part "gnuplot is not installed: the real picture"
fi
finish
