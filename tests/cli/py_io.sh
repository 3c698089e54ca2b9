#!/bin/sh
# py_io.sh: python/starmet_io.py and R/starmet_io.R read what starmet
# writes: bin records equal the TSV values exactly (float32 exactly with
# --precision single), with and without --threshold, 2-way and 3-way; the
# per-rank files of a 2-rank run concatenate to the one-rank records; the
# JSON summary; --output-format npy opens with numpy.load and holds the TSV
# values at (i,j) and (j,i), the self-value on the diagonal (1, CCC NaN),
# NaN elsewhere, byte-identical for any block order; npy refuses 3-way,
# MPI ranks, a matrix over 16 GiB and --resume.
# The R part is skipped without Rscript, the MPI part without a launcher.
. "$(dirname "$0")/../lib.sh"

py_setup

c() { "$STARMET" compute --quiet "$@"; }

cat > "$T/check.py" << 'PYEOF'
"""Checks of starmet_io against starmet's own files (see py_io.sh)."""
import sys

import numpy as np

import starmet_io as sio


def key(a):
    """Records sorted by indices and entry."""
    names = [n for n in ("i", "j", "k", "entry") if n in a.dtype.names]
    return a[np.lexsort([np.asarray(a[n]) for n in reversed(names)])]


def same_records(a, b, what):
    a, b = key(a), key(b)
    assert len(a) == len(b), "%s: %d vs %d records" % (what, len(a), len(b))
    for n in a.dtype.names:
        x, y = np.asarray(a[n]), np.asarray(b[n])
        assert x.dtype == y.dtype, "%s: %s is %s vs %s" % (what, n, x.dtype, y.dtype)
        bad = np.flatnonzero(x != y)
        assert not len(bad), "%s: %s differs at %d records, first %r vs %r" % (
            what, n, len(bad), a[bad[0]], b[bad[0]])


def cmd_pair(tsv, binp):
    """TSV and bin runs of one problem: the same records, exactly."""
    t = sio.read_results(tsv)
    b = sio.read_results(binp)
    assert isinstance(b, np.memmap), type(b)
    s = sio.read_summary(binp)
    assert len(b) == s["counts"]["written"] == len(t), (len(b), s["counts"], len(t))
    single = s["problem"]["variant"] == "single"
    assert b["value"].dtype == (np.float32 if single else np.float64), b.dtype
    assert sio.read_header(binp + ".bin")["count"] == len(b)
    same_records(t, b, "tsv vs bin")
    # a file path reads the same; a float32 TSV also reads as float64
    same_records(sio.read_bin(binp + ".bin"), b, "read_bin")
    if single:
        t64 = sio.read_tsv(tsv + ".tsv")
        assert np.array_equal(key(t64)["value"].astype(np.float32), key(b)["value"])
    try:
        import pandas  # noqa: F401
    except ImportError:
        try:
            sio.read_results(binp, as_frame=True)
            raise AssertionError("as_frame=True without pandas did not fail")
        except ImportError as exc:
            assert "pandas" in str(exc), exc
    else:
        f = sio.read_results(binp, as_frame=True)
        assert list(f.columns)[-1] == "value" and len(f) == len(b)
    print("records", len(b))


def cmd_npy(npy, tsv):
    """The npy matrix: the TSV values at (i,j) and (j,i), NaN elsewhere."""
    m = np.load(npy)
    s = sio.read_summary(tsv)
    n = s["problem"]["num_vector"]
    ccc = s["problem"]["metric"] == "ccc"
    single = s["problem"]["variant"] == "single"
    assert m.shape == ((n, n, 4) if ccc else (n, n)), m.shape
    assert m.dtype == (np.float32 if single else np.float64), m.dtype
    t = sio.read_results(tsv)
    i, j = t["i"].astype(np.int64), t["j"].astype(np.int64)
    v = t["value"]
    if ccc:
        e = t["entry"].astype(np.int64)
        et = ((e & 1) << 1) | (e >> 1)
        assert np.array_equal(m[i, j, e], v) and np.array_equal(m[j, i, et], v)
    else:
        assert np.array_equal(m[i, j], v) and np.array_equal(m[j, i], v)
    nan = int(np.isnan(m).sum())
    d = m[np.arange(n), np.arange(n)]
    if ccc:  # a vector's table with itself is no constant: NaN
        assert np.isnan(d).all(), "ccc diagonal is not NaN"
        assert nan == m.size - 2 * len(t), (nan, m.size, len(t))
    else:  # PS of a vector with itself: 1
        assert (d == 1).all(), "czekanowski diagonal is not 1"
        assert nan == m.size - 2 * len(t) - n, (nan, m.size, len(t))
    assert np.array_equal(m, sio.to_matrix(t, n), equal_nan=True)
    assert np.array_equal(sio.read_npy(npy[:-4]), m, equal_nan=True)
    print("values", len(t), "nan", nan)


def cmd_ranks(prefix, one):
    """A 2-rank run's files concatenated = the one-rank run's records."""
    fmt, paths = sio.result_files(prefix)
    assert len(paths) == sio.read_summary(prefix)["decomposition"]["num_proc"] == 2, paths
    assert all(p.endswith("_%d.%s" % (r, fmt)) for r, p in enumerate(paths)), paths
    same_records(sio.read_results(prefix), sio.read_results(one), "ranks vs one rank")


def cmd_broken(path):
    """A truncated or foreign binary file is refused with a message."""
    for bad, why in ((open(path, "rb").read()[:-3], "truncated"),
                     (b"NOTSTARM" + b"\0" * 56, "not a starmet")):
        with open(path + ".bad", "wb") as f:
            f.write(bad)
        try:
            sio.read_bin(path + ".bad")
            raise AssertionError("read a %s file" % why)
        except ValueError as exc:
            assert why in str(exc), exc


def cmd_synthetic(d):
    """The top-k and histogram readers on files made to their spec."""
    import struct
    rec = struct.pack("<IIIBd", 0, 1, 5, 2, 0.25) + struct.pack("<IIIBd", 5, 1, 0, 1, 0.5)
    hdr = (b"STARTOPK" + struct.pack("<IIII", 1, 2, 1, 8) + struct.pack("<QQQ", 7, 9, 2)
           + struct.pack("<II", 3, 1)).ljust(64, b"\0")
    with open(d + "/s.topk.bin", "wb") as f:
        f.write(hdr + rec)
    a = sio.read_topk(d + "/s")
    h = sio.read_header(d + "/s.topk.bin")
    assert (h["k"], h["mode"], h["metric"]) == (3, "max entry", "ccc"), h
    assert a["neighbour"].tolist() == [5, 0] and a["entry"].tolist() == [2, 1]
    assert a["value"].tolist() == [0.25, 0.5]
    with open(d + "/t.topk.tsv", "w") as f:
        f.write("vector\trank\tneighbour\tvalue\nx\t1\ty\t0.75\nx\t2\tz\t0.5\n")
    t = sio.read_topk(d + "/t")
    assert t["neighbour"].tolist() == ["y", "z"] and t["rank"].tolist() == [1, 2]
    with open(d + "/h.hist.tsv", "w") as f:
        f.write("metric\tway\tentry\tbin\tlo\thi\tcount\n"
                "ccc\t2\t01\t-1\t-inf\t0\t3\nccc\t2\t01\t0\t0\t0.5\t4\n"
                "ccc\t2\t01\t2\t1\tinf\t0\n")
    hh = sio.read_hist(d + "/h")
    assert hh["entry"].tolist() == ["01"] * 3 and hh["bin"].tolist() == [-1, 0, 2]
    assert hh["lo"][0] == -np.inf and hh["hi"][2] == np.inf and hh["count"].sum() == 7


getattr(sys.modules[__name__], "cmd_" + sys.argv[1])(*sys.argv[2:])
PYEOF

py() {
  name=$1; shift
  if "$PY" "$T/check.py" "$@" > "$T/py.log" 2>&1; then pass; else
    fail "$name"; cat "$T/py.log" >&2; fi
}

# --- tsv = bin, exactly; npy = tsv (2-way); several blocks per problem.
# Run k's files are $T/{t,b,n}<k>.*; t1/b1 is CZ, t5/b5 is CC.
CZ="--metric czekanowski --synthetic random --num-vector 37 --num-field 53 --seed 3"
CC="--metric ccc --synthetic random --num-vector 29 --num-field 71 --seed 5 --missing-rate 0.1"
k=0
for prob in "$CZ" "$CZ --precision single" "$CZ --threshold 0.6" \
            "$CZ --precision single --threshold 0.6" "$CC" "$CC --no-sparse --threshold 0.5" \
            "$CZ --num-way 3 --num-vector 14" "$CC --num-way 3 --num-vector 12"; do
  k=$((k + 1))
  # shellcheck disable=SC2086
  run_ok "tsv $prob" c $prob --block-size 8 --output "$T/t$k"
  # shellcheck disable=SC2086
  run_ok "bin $prob" c $prob --block-size 8 --output "$T/b$k" --output-format bin
  py "tsv = bin: $prob" pair "$T/t$k" "$T/b$k"
  case "$prob" in *num-way\ 3*) continue ;; esac
  # shellcheck disable=SC2086
  run_ok "npy $prob" c $prob --block-size 8 --output "$T/n$k" --output-format npy
  py "npy = tsv: $prob" npy "$T/n$k.npy" "$T/t$k"
  # other block sizes, worker counts, schedulers and the reference loops
  # give the records in other orders: the same bytes
  for v in "--block-size 5 --sched eager" "--block-size 13 --sched dmda" "--compute-method ref"; do
    # shellcheck disable=SC2086
    STARPU_NCPU=1 run_ok "npy $prob $v" c $prob $v --output "$T/o$k" --output-format npy
    cmp -s "$T/n$k.npy" "$T/o$k.npy" && pass || fail "npy $prob: $v changes the file"
  done
done
grep -q '"output": ".*/n1\.npy"' "$T/n1.json" && pass || fail "summary does not name the npy file"
# the commit read each file back (the values of the npy, the bytes of the rest)
grep -q '"output_check": "read back"' "$T/n1.json" && pass || fail "npy: not read back"
grep -q '"output_check": "read back"' "$T/t1.json" && pass || fail "tsv: not read back"
if ls "$T"/*.part* > /dev/null 2>&1; then fail "temporary files left: $(ls "$T"/*.part*)"; else pass; fi

# --- the module's command line and its refusals of broken files
run_ok "starmet_io.py PREFIX" "$PY" "$top_srcdir/python/starmet_io.py" "$T/b5"
grep -q '^results .* 1 bin file' "$T/log.out" && pass || fail "starmet_io.py printed: $(cat "$T/log.out")"
if "$PY" "$top_srcdir/python/starmet_io.py" "$T/nothing" > "$T/log.out" 2>&1; then
  fail "starmet_io.py of a missing run succeeded"
else grep -q 'no result file' "$T/log.out" && pass || fail "missing run: $(cat "$T/log.out")"; fi
py "broken files" broken "$T/b1.bin"
py "top-k and histogram readers" synthetic "$T"

# --- npy refuses what it cannot hold, before computing, leaving nothing
# shellcheck disable=SC2086
expect_error "npy 3-way" "npy holds the 2-way matrix" "$T/e3" \
  c $CC --num-way 3 --num-vector 10 --output "$T/e3" --output-format npy
# shellcheck disable=SC2086
expect_error "npy resume" "npy cannot --resume" "$T/er" \
  c $CZ --resume --output "$T/er" --output-format npy
expect_error "npy too large (synthetic)" "23171 vectors make a 16.0 GiB matrix, over the 16 GiB limit" \
  "$T/eb" c --metric ccc --synthetic random --num-vector 23171 --num-field 4 --output "$T/eb" \
  --output-format npy
# an input file, whose size is known once read: 46341 float64 vectors of one field
head -c $((46341 * 8)) /dev/zero > "$T/zeros.raw"
expect_error "npy too large (input)" "46341 vectors make a 16.0 GiB matrix" "$T/ez" \
  c --input "$T/zeros.raw" --num-field 1 --output "$T/ez" --output-format npy

# --- R: the binary and TSV readers give the same records; ranks concatenate
cat > "$T/check.R" << 'REOF'
a <- commandArgs(TRUE)
source(a[2])
ord <- function(d) {
  d <- d[do.call(order, unname(d[setdiff(names(d), "value")])), ]
  rownames(d) <- NULL
  d
}
if (a[1] == "pair") { # bin and tsv runs of one problem
  b <- starmet_read_results(a[3]); t <- starmet_read_results(a[4])
  stopifnot(identical(b, starmet_read_bin(paste0(a[3], ".bin"))),
            identical(t, starmet_read_tsv(paste0(a[4], ".tsv"))), nrow(b) > 0)
  b <- ord(b); t <- ord(t)
  ids <- setdiff(names(b), "value")
  stopifnot(identical(names(b), names(t)), identical(b[ids], t[ids]))
  js <- paste(readLines(paste0(a[3], ".json")), collapse = "")
  fmt <- if (grepl('"variant": "single"', js)) "%.9g" else "%.17g"
  bad <- which(sprintf(fmt, b$value) != sprintf(fmt, t$value))
  if (length(bad)) stop(sprintf("%d values differ, first %s vs %s", length(bad),
                                sprintf(fmt, b$value[bad[1]]), sprintf(fmt, t$value[bad[1]])))
} else { # "ranks": a 2-rank run = the one-rank run
  stopifnot(length(starmet_result_files(a[3])$paths) == 2)
  stopifnot(identical(ord(starmet_read_results(a[3])), ord(starmet_read_results(a[4]))))
}
REOF
R_IO=$top_srcdir/R/starmet_io.R
r_check() {
  name=$1; shift
  if Rscript "$T/check.R" "$1" "$R_IO" "$2" "$3" > "$T/r.log" 2>&1; then pass; else
    fail "$name"; cat "$T/r.log" >&2; fi
}
if command -v Rscript > /dev/null 2>&1; then
  R_OK=1
  for k in 1 2 3 4 5 6 7 8; do r_check "R bin = tsv: run $k" pair "$T/b$k" "$T/t$k"; done
else
  R_OK=0
  skip_part "Rscript not installed (Debian: r-base-core): the R readers are not tested"
fi

# --- MPI (last: mpi_setup sets one CPU worker per rank for what follows)
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  for fmt in tsv bin; do
    one=$T/b5; [ $fmt = tsv ] && one=$T/t5
    # shellcheck disable=SC2086
    run_ok "2 ranks $fmt" mpi_starmet 2 compute $CC --block-size 8 --output "$T/m_$fmt" \
      --output-format $fmt
    py "2 ranks $fmt = one rank" ranks "$T/m_$fmt" "$one"
    [ "$R_OK" = 1 ] && r_check "R: 2 ranks $fmt = one rank" ranks "$T/m_$fmt" "$one"
  done
  # shellcheck disable=SC2086
  expect_error "npy on 2 ranks" "npy is written by one process, not by 2 MPI ranks" "$T/em" \
    mpi_starmet 2 compute $CZ --output "$T/em" --output-format npy
else
  skip_part "no MPI launcher: the per-rank files and npy's refusal under mpirun are not tested"
fi
finish
