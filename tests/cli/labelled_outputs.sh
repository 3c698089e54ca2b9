#!/bin/sh
# labelled_outputs.sh: the labelled matrices of a 2-way run, as ecologists
# read them. --output-format lsmat of a Czekanowski run read back by
# scikit-bio's DistanceMatrix.read is 1 - PS, scipy's Bray-Curtis matrix
# (squareform(pdist(x, 'braycurtis'))), with the input's ids in order
# (007 and 1001 stay text, names with spaces, tabs and backslashes
# escaped as in the TSV); npy holds the square matrix with the diagonal 1
# and PREFIX.ids.txt the names; python/starmet_io.py's to_matrix,
# to_distance_matrix (from tsv, npy and lsmat), read_npy/read_lsmat and
# the frames' columns, and R/starmet_io.R's readers agree. lsmat refuses
# --threshold, ccc, 3-way, several MPI ranks, --resume and ids scikit-bio
# would not read back, leaving nothing; a run killed (or stopped) before
# its commit leaves no PREFIX.lsmat, PREFIX.npy nor PREFIX.ids.txt, and the
# next run writes them whole. --quiet prints nothing but errors and
# warnings, for compute and maf, on one rank or two.
# Python parts are skipped without numpy, scipy and scikit-bio, the R part
# without Rscript, the MPI part without a launcher.
. "$(dirname "$0")/../lib.sh"

PY=${PYTHON3:-/usr/bin/python3}
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE
c() { "$STARMET" compute --quiet "$@"; }

# the input: 12 samples x 30 taxa of counts; ids that read as numbers
# (007, 1001), with a space, a backslash; a CSV copy adds a tab in a name
awk 'BEGIN { srand(7); printf "sample"; for (j = 0; j < 30; j++) printf "\ttaxon%d", j; printf "\n"
  split("007 1001 s_a s_b x\\\\y alpha beta gamma delta 42x omega z", id, " ")
  for (i = 1; i <= 12; i++) { n = id[i]; if (n == "s_a") n = "soil A"; printf "%s", n
    for (j = 0; j < 30; j++) printf "\t%d", int(rand() * rand() * 40); printf "\n" } }' > "$T/in.tsv"
sed -e 's/\t/,/g' -e 's/^s_b,/"s\tb",/' "$T/in.tsv" > "$T/in.csv"
grep -q '^"s	b",' "$T/in.csv" || fail "the CSV input has no name with a tab (nothing tested)"
A="--metric czekanowski --block-size 4"
# shellcheck disable=SC2086
run_ok "lsmat" c $A --input "$T/in.tsv" --output "$T/l" --output-format lsmat
# shellcheck disable=SC2086
run_ok "npy" c $A --input "$T/in.tsv" --output "$T/n" --output-format npy
# shellcheck disable=SC2086
run_ok "tsv" c $A --input "$T/in.tsv" --output "$T/t"
# shellcheck disable=SC2086
run_ok "lsmat (csv, a tab in a name)" c $A --input "$T/in.csv" --output "$T/lc" --output-format lsmat
# shellcheck disable=SC2086
run_ok "npy (csv, a tab in a name)" c $A --input "$T/in.csv" --output "$T/nc" --output-format npy
# shellcheck disable=SC2086
run_ok "tsv (csv, a tab in a name)" c $A --input "$T/in.csv" --output "$T/tc"
grep -q '"output": ".*/l\.lsmat"' "$T/l.json" && pass || fail "the summary does not name l.lsmat"
[ "$(head -n 1 "$T/l.lsmat" | cut -f 2-3)" = "$(printf '007\t1001')" ] && pass ||
  fail "lsmat header: $(head -n 1 "$T/l.lsmat")"
grep -q '^s\\tb	' "$T/lc.lsmat" && grep -qx 's\\tb' "$T/nc.ids.txt" && pass ||
  fail "the name with a tab is not written escaped (s\\tb)"
# the ids file: one escaped name a line, in the input's order
cut -f 1 "$T/in.tsv" | tail -n +2 | sed 's/\\/\\\\/g' > "$T/names.esc"
cmp -s "$T/n.ids.txt" "$T/names.esc" && pass || fail "n.ids.txt is not the names: $(cat "$T/n.ids.txt")"
# the block order does not change the files
# shellcheck disable=SC2086
STARPU_NCPU=1 run_ok "lsmat, other blocks" c --metric czekanowski --block-size 5 --sched eager \
  --input "$T/in.tsv" --output "$T/l2" --output-format lsmat
cmp -s "$T/l.lsmat" "$T/l2.lsmat" && pass || fail "lsmat depends on the block order"

cat > "$T/check.py" << 'PYEOF'
"""Checks of the labelled outputs against scipy and scikit-bio (see labelled_outputs.sh)."""
import csv
import sys

import numpy as np
import skbio
from scipy.spatial.distance import pdist, squareform

import starmet_io as sio


def table(path):
    """ids (str) and the rows of counts of the input table."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t" if path.endswith(".tsv") else ","))
    return [r[0] for r in rows[1:]], np.array([[float(x) for x in r[1:]] for r in rows[1:]])


def same_dm(dm, ref, ids, what):
    assert list(dm.ids) == list(ids), "%s: ids %r, expected %r" % (what, dm.ids, ids)
    bad = np.abs(dm.data - ref).max()
    assert bad < 1e-13, "%s: differs from scipy's braycurtis by %g" % (what, bad)


def main(inp, d):
    names, x = table(inp)
    csv_in = inp.endswith(".csv")
    pre = d + ("/%sc" if csv_in else "/%s")
    bc = squareform(pdist(x, "braycurtis"))
    esc = [n.replace("\\", "\\\\").replace("\t", "\\t") for n in names]
    # lsmat: scikit-bio reads it itself; its ids are the file's (escaped)
    dm = skbio.DistanceMatrix.read(pre % "l" + ".lsmat")
    same_dm(dm, bc, esc, "DistanceMatrix.read(lsmat)")
    assert "007" in dm.ids and "1001" in dm.ids, dm.ids
    m, ids = sio.read_lsmat(pre % "l")
    assert ids == names and np.abs(m - bc).max() < 1e-13, "read_lsmat"
    f = sio.read_lsmat(pre % "l", as_frame=True)
    assert list(f.index) == names == list(f.columns), list(f.columns)
    # npy: the square matrix, the diagonal 1 (PS), the ids file the names
    n = np.load(pre % "n" + ".npy")
    assert n.shape == (len(names), len(names)) and n.dtype == np.float64, n.shape
    assert (np.diag(n) == 1).all(), "npy diagonal: %r" % np.diag(n)
    assert np.abs((1 - n) - bc).max() < 1e-13, "npy is not 1 - braycurtis"
    with open(pre % "n" + ".ids.txt", newline="") as fh:
        assert fh.read().split("\n")[:-1] == esc, "ids.txt lines"
    assert sio.read_ids(pre % "n") == names
    m2, ids2 = sio.read_npy(pre % "n", with_ids=True)
    assert ids2 == names and np.array_equal(m2, n)
    f = sio.read_npy(pre % "n", as_frame=True)
    assert list(f.index) == names == list(f.columns)
    assert sio.self_value("czekanowski") == 1.0
    # TSV records with names: to_matrix gives the labels and the npy matrix
    t = sio.read_results(pre % "t")
    assert t["i"].dtype == object and "007" in set(t["i"]) | set(t["j"]), t.dtype
    mt, idt = sio.to_matrix(t, ids=names)
    assert idt == names and np.array_equal(mt, n), "to_matrix(ids=names) != npy"
    ms, ids_s = sio.to_matrix(t)
    assert ids_s == sorted(names), ids_s
    order = [names.index(s) for s in ids_s]
    assert np.array_equal(ms, n[np.ix_(order, order)]), "to_matrix sorted"
    # a frame's columns are the file's header
    with open(pre % "t" + ".tsv", newline="") as fh:
        header = fh.readline().rstrip("\n").split("\t")
    fr = sio.read_results(pre % "t", as_frame=True)
    assert list(fr.columns) == header == ["id_i", "id_j", "value"], (list(fr.columns), header)
    assert fr["id_i"].tolist() == list(t["i"]), "frame ids"
    # to_distance_matrix = scipy's, from each format (ids in the input's order)
    for what, src, kw in (("lsmat", pre % "l", {}), ("npy", pre % "n", {}),
                          ("tsv", pre % "t", {"ids": names}),
                          ("tsv path", pre % "t" + ".tsv", {"ids": names}),
                          ("npy path", pre % "n" + ".npy", {})):
        same_dm(sio.to_distance_matrix(src, **kw), bc, names, "to_distance_matrix(%s)" % what)
    dt = sio.to_distance_matrix(pre % "t")  # named records: sorted ids
    same_dm(dt, bc[np.ix_(order, order)], ids_s, "to_distance_matrix(tsv, sorted)")
    print("ok", len(names), "ids")


def thresholded(prefix):
    """A --threshold npy keeps NaN: no distance matrix from it."""
    try:
        sio.to_distance_matrix(prefix)
    except ValueError as exc:
        assert "no value" in str(exc), exc
    else:
        raise AssertionError("to_distance_matrix of a thresholded run succeeded")


if sys.argv[1] == "thresholded":
    thresholded(sys.argv[2])
else:
    main(sys.argv[1], sys.argv[2])
PYEOF
py() {
  name=$1; shift
  if "$PY" "$T/check.py" "$@" > "$T/py.log" 2>&1; then pass; else
    fail "$name"; cat "$T/py.log" >&2; fi
}
if "$PY" -c 'import numpy, scipy, skbio, pandas' 2> /dev/null; then
  py "lsmat, npy, tsv = scipy's braycurtis" "$T/in.tsv" "$T"
  py "the same with a tab in a name (csv)" "$T/in.csv" "$T"
  # shellcheck disable=SC2086
  run_ok "npy --threshold" c $A --input "$T/in.tsv" --output "$T/nt" --output-format npy --threshold 0.5
  py "to_distance_matrix refuses NaN" thresholded "$T/nt"
else
  skip_part "$PY lacks numpy, scipy, scikit-bio or pandas (Debian: python3-scipy python3-skbio python3-pandas): the Python readers are not tested"
fi

# --- R: the same matrices, the Bray-Curtis distances computed in R
cat > "$T/check.R" << 'REOF'
a <- commandArgs(TRUE)
source(a[1])
d <- a[2]
x <- read.delim(file.path(d, "in.tsv"), colClasses = "character", check.names = FALSE,
                quote = "")
ids <- x[[1]]
v <- sapply(x[-1], as.numeric)
n <- length(ids)
bc <- outer(seq_len(n), seq_len(n), Vectorize(function(i, j)
  sum(abs(v[i, ] - v[j, ])) / sum(v[i, ] + v[j, ])))
l <- starmet_read_lsmat(file.path(d, "l"))
stopifnot(identical(rownames(l), ids), identical(colnames(l), ids),
          max(abs(l - bc)) < 1e-13)
m <- starmet_read_npy(file.path(d, "n"))
stopifnot(identical(rownames(m), ids), all(diag(m) == 1), max(abs(1 - m - bc)) < 1e-13)
stopifnot(identical(starmet_read_ids(file.path(d, "n")), ids))
r <- starmet_read_results(file.path(d, "t"))
stopifnot(identical(names(r), c("id_i", "id_j", "value")), is.character(r$id_i))
tm <- starmet_to_matrix(r, ids = ids)
stopifnot(identical(dimnames(tm), list(ids, ids)), isTRUE(all.equal(tm, m, tolerance = 0)))
for (s in list(file.path(d, "l"), file.path(d, "n"), file.path(d, "t"))) {
  dd <- starmet_to_dist(s, ids = ids)
  stopifnot(inherits(dd, "dist"), identical(attr(dd, "Labels"), ids),
            max(abs(as.matrix(dd) - bc)) < 1e-13)
}
stopifnot(starmet_self_value("czekanowski") == 1, is.nan(starmet_self_value("ccc")))
cat("ok\n")
REOF
if command -v Rscript > /dev/null 2>&1; then
  if Rscript "$T/check.R" "$top_srcdir/R/starmet_io.R" "$T" > "$T/r.log" 2>&1; then pass; else
    fail "R readers"; cat "$T/r.log" >&2; fi
else
  skip_part "Rscript not installed (Debian: r-base-core): the R readers are not tested"
fi

# --- refusals: a clear message before computing, nothing left
CC="--metric ccc --synthetic random --num-vector 10 --num-field 40 --seed 2"
# shellcheck disable=SC2086
expect_error "lsmat --threshold" "lsmat is the whole distance matrix, and --threshold leaves pairs without a value" \
  "$T/e1" c $A --input "$T/in.tsv" --output "$T/e1" --output-format lsmat --threshold 0.5
# shellcheck disable=SC2086
expect_error "lsmat ccc" "lsmat holds distances, and ccc values are not" "$T/e2" \
  c $CC --output "$T/e2" --output-format lsmat
# shellcheck disable=SC2086
expect_error "lsmat 3-way" "lsmat holds the 2-way matrix: use tsv or bin for --num-way 3" "$T/e3" \
  c $A --input "$T/in.tsv" --num-way 3 --output "$T/e3" --output-format lsmat
# shellcheck disable=SC2086
expect_error "lsmat --resume" "lsmat cannot --resume .*rerun without --resume" "$T/e4" \
  c $A --input "$T/in.tsv" --resume --output "$T/e4" --output-format lsmat
# shellcheck disable=SC2086
expect_error "lsmat, some phases" "lsmat is the whole distance matrix, and --phase-min/--phase-max" "$T/e5" \
  c $A --input "$T/in.tsv" --num-phase 2 --phase-max 0 --output "$T/e5" --output-format lsmat
printf 'id,f1,f2\n" lead",1,2\nb,3,4\n' > "$T/lead.csv"
expect_error "lsmat, a name with a space at its start" \
  "the name of vector 0 .*' lead', begins or ends with white space.*use --output-format npy" "$T/e6" \
  c --input "$T/lead.csv" --output "$T/e6" --output-format lsmat
printf 'id,f1,f2\n"#x",1,2\nb,3,4\n' > "$T/hash.csv"
expect_error "lsmat, a first name with #" "'#x', begins with '#'" "$T/e7" \
  c --input "$T/hash.csv" --output "$T/e7" --output-format lsmat
printf 'id,f1,f2\n"",1,2\nb,3,4\n' > "$T/empty.csv"
expect_error "lsmat, an empty name" "'', is empty" "$T/e8" \
  c --input "$T/empty.csv" --output "$T/e8" --output-format lsmat
# npy keeps such names exactly
run_ok "npy of a name with a space at its start" c --input "$T/lead.csv" --output "$T/sp" --output-format npy
[ "$(head -n 1 "$T/sp.ids.txt")" = " lead" ] && pass || fail "sp.ids.txt: $(head -n 1 "$T/sp.ids.txt")"

# --- the commit: under the lock, nothing complete-looking before the end
awk 'BEGIN { srand(5); printf "id"; for (j = 0; j < 20; j++) printf "\tf%d", j; printf "\n"
  for (i = 0; i < 60; i++) { printf "v%d", i; for (j = 0; j < 20; j++) printf "\t%d", int(rand() * 9); printf "\n" } }' > "$T/big.tsv"
B="compute --quiet --metric czekanowski --input $T/big.tsv --block-size 8"
for f in lsmat npy; do
  # shellcheck disable=SC2086
  run_ok "$f uninterrupted" "$STARMET" $B --output "$T/full_$f" --output-format $f
  # killed after 3 blocks: no final file; the next run writes it whole
  # shellcheck disable=SC2086
  "$STARMET" $B --output "$T/k_$f" --output-format $f --debug-stop-after-blocks 3 > /dev/null 2>&1 &&
    fail "$f: the run did not stop itself"
  if [ -e "$T/k_$f.$f" ] || [ -e "$T/k_$f.ids.txt" ] || [ -e "$T/k_$f.json" ]; then
    fail "$f: a killed run left $(ls "$T"/k_"$f".*)"
  else pass; fi
  # shellcheck disable=SC2086
  run_ok "$f after a kill" "$STARMET" $B --output "$T/k_$f" --output-format $f
  cmp -s "$T/k_$f.$f" "$T/full_$f.$f" && pass || fail "$f after a kill: the file differs"
  if [ $f = npy ]; then cmp -s "$T/k_$f.ids.txt" "$T/full_$f.ids.txt" && pass || fail "npy ids after a kill"; fi
  ls "$T"/k_$f.*part* > /dev/null 2>&1 && fail "$f: temporaries left: $(ls "$T"/k_$f.*part*)" || pass
  # stopped mid-run: only temporaries, the lock refuses a second run; then SIGKILL
  # shellcheck disable=SC2086
  while_stopped "$T/p_$f" '
    if [ -e "$T/p_$f.$f" ] || [ -e "$T/p_$f.ids.txt" ]; then fail "$f: a final file while the run is stopped"; else pass; fi
    [ -e "$T/p_$f.$f.part" ] && pass || fail "$f: no $T/p_$f.$f.part while it runs: $(ls "$T"/p_$f.*)"
    "$STARMET" $B --output "$T/p_$f" --output-format $f > "$T/log.out" 2> "$T/log.err" &&
      fail "$f: a second run beside it succeeded" ||
      { grep -q "another starmet run is writing files named $T/p_$f\.\*" "$T/log.err" && pass ||
        { fail "$f: the second run: $(cat "$T/log.err")"; }; }
    kill -9 "$WS_PID"' \
    "$STARMET" $B --output "$T/p_$f" --output-format $f --debug-pause-after-blocks 2 && fail "$f: survived SIGKILL"
  if [ -e "$T/p_$f.$f" ] || [ -e "$T/p_$f.ids.txt" ]; then fail "$f: SIGKILL left a final file"; else pass; fi
  # killed in the commit, once verified (1) and after the commit line (2): no final file
  for step in 1 2; do
    # shellcheck disable=SC2086
    "$STARMET" $B --output "$T/s${step}_$f" --output-format $f --debug-stop-in-commit $step > /dev/null 2>&1 &&
      fail "$f: did not stop in commit step $step"
    if [ -e "$T/s${step}_$f.$f" ] || [ -e "$T/s${step}_$f.ids.txt" ]; then
      fail "$f: killed at commit step $step, it left $(ls "$T"/s${step}_$f.*)"; else pass; fi
  done
done

# --- --quiet: nothing on stdout, nothing on stderr but warnings and errors
GL="$top_srcdir/data/example_gl.beagle.gz"
quiet() {
  name=$1; shift
  if "$@" > "$T/q.out" 2> "$T/q.err"; then pass; else fail "$name: failed: $(cat "$T/q.err")"; return; fi
  [ ! -s "$T/q.out" ] && pass || fail "$name: --quiet printed on stdout: $(head -n 3 "$T/q.out")"
  if grep -v ': warning: ' "$T/q.err" | grep -q .; then fail "$name: on stderr: $(cat "$T/q.err")"; else pass; fi
}
quiet "compute --quiet" c --metric czekanowski --input "$T/big.tsv" --output "$T/q1"
quiet "maf --quiet" "$STARMET" maf --quiet --input "$GL" --output "$T/q2"
[ -s "$T/q2.json" ] && [ -s "$T/q1.json" ] && pass || fail "--quiet wrote no JSON summary"
# a warning is still printed (007 read as a name)
quiet "compute --quiet, a warning" c --metric czekanowski --input "$T/in.tsv" --output "$T/q3"
grep -q "warning: .*'007' reads as a number" "$T/q.err" && pass || fail "--quiet hid the warning: $(cat "$T/q.err")"
"$STARMET" compute --metric czekanowski --input "$T/big.tsv" --output "$T/q4" > "$T/q.out" 2>&1
grep -q "^starmet ok" "$T/q.out" && pass || fail "without --quiet, no summary (nothing tested)"

# --- MPI: lsmat refused on two ranks; --quiet on two ranks
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  # shellcheck disable=SC2086
  expect_error "lsmat on 2 ranks" "lsmat is written by one process, not by 2 MPI ranks" "$T/mpi_l" \
    mpi_starmet 2 compute $A --input "$T/in.tsv" --output "$T/mpi_l" --output-format lsmat
  # shellcheck disable=SC2086
  quiet "2 ranks compute --quiet" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" compute --quiet \
    --metric czekanowski --input "$T/big.tsv" --num-proc-vector 2 --output "$T/qm"
  # shellcheck disable=SC2086
  quiet "2 ranks maf --quiet" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$STARMET" maf --quiet \
    --input "$GL" --output "$T/qm2"
else
  skip_part "no MPI launcher: lsmat's refusal and --quiet under mpirun are not tested"
fi
finish
