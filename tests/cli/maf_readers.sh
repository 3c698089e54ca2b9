#!/bin/sh
# maf_readers.sh: python/starmet_io.py (read_maf, read_sfs) and
# R/starmet_io.R (starmet_read_maf, starmet_read_sfs) read the files
# `starmet maf` writes, unfolded and --fold: the .maf.tsv columns chrom pos
# allele1 allele2 n_data alt_freq minor_freq with the values of the file's
# text, minor_freq = min(alt_freq, 1 - alt_freq), the allele frequencies
# agreeing with the converged spectrum; the .saf.tsv; the .sfs with whether
# it is folded (from the summary; unknown without it); the same data frames
# in R as in Python (pandas); a file of an earlier starmet (column maf);
# damaged files refused naming the file and line.
# The R part is skipped without Rscript, the data-frame part without pandas.
. "$(dirname "$0")/../lib.sh"

py_setup

M() { "$STARMET" maf --quiet --input "$top_srcdir/data/example_gl.vcf" --em-maxiter 20000 "$@"; }
run_ok "maf unfolded" M --output "$T/u"
run_ok "maf folded" M --output "$T/f" --fold
run_ok "maf binary saf" M --output "$T/b" --output-format bin
grep -q '"converged": true' "$T/u.json" && grep -q '"converged": true' "$T/f.json" && pass ||
  fail "the EM did not converge"
mkdir "$T/alone" && cp "$T/u.sfs" "$T/alone/x.sfs" # no summary beside it
# an earlier starmet's .maf.tsv: one frequency, named maf
{ printf 'chrom\tpos\tallele1\tallele2\tn_data\tmaf\n'; printf 'c\\t1\t7\tA\tG\t3\t0.75\n'; } > "$T/v1.maf.tsv"
{ printf 'chrom\tpos\tallele1\tallele2\tn_data\tfreq\n'; printf 'c\t7\tA\tG\t3\t0.75\n'; } > "$T/bad.maf.tsv"
sed '3s/\t[^\t]*$//' "$T/u.maf.tsv" > "$T/ragged.maf.tsv"

cat > "$T/check.py" << 'PYEOF'
"""Checks of read_maf and read_sfs against starmet maf's files (maf_readers.sh)."""
import csv
import json
import sys

import numpy as np

import starmet_io as sio

d, nind = sys.argv[1], 30
NAMES = ("chrom", "pos", "allele1", "allele2", "n_data", "alt_freq", "minor_freq")


def text_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return rows[0], rows[1:]


for p in ("u", "f"):
    m = sio.read_maf("%s/%s.maf.tsv" % (d, p))
    assert m.dtype.names == NAMES, m.dtype.names
    head, rows = text_rows("%s/%s.maf.tsv" % (d, p))
    assert tuple(head) == NAMES, head
    with open("%s/%s.json" % (d, p)) as f:
        summ = json.load(f)
    assert len(m) == len(rows) == summ["sites"]["computed"] == 200, len(m)
    for k, r in enumerate(rows):  # the values of the file's text, exactly
        assert (m["chrom"][k], int(m["pos"][k]), m["allele1"][k], m["allele2"][k]) == \
            (r[0], int(r[1]), r[2], r[3]), (m[k], r)
        assert int(m["n_data"][k]) == int(r[4]) and 1 <= int(r[4]) <= nind, r
        assert m["alt_freq"][k] == float(r[5]) and m["minor_freq"][k] == float(r[6]), r
    assert m["n_data"].dtype == np.uint32 and m["alt_freq"].dtype == np.float64
    a = m["alt_freq"]
    assert np.all((a >= 0) & (a <= 1)), a
    assert np.array_equal(m["minor_freq"], np.minimum(a, 1 - a))
    assert (a > 0.5).sum() > 0  # allele2 is not the minor allele everywhere
    assert np.all(m["minor_freq"] <= 0.5)
    s = sio.read_sfs("%s/%s" % (d, p))
    assert isinstance(s, sio.SFS) and s.shape == (2 * nind + 1,), s.shape
    assert s.folded is (p == "f"), s.folded
    assert np.array_equal(np.asarray(s), np.array(summ["sfs_em"]["sfs"])) or \
        np.allclose(s, summ["sfs_em"]["sfs"], rtol=1e-15, atol=0)
    assert abs(float(s.sum()) - 200) < 1e-8, s.sum()
    if p == "f":
        assert np.all(s[nind + 1:] == 0) and s[:nind + 1].sum() > 199.99
    else:
        # at the EM's fixed point the mean posterior count is the spectrum's
        mean = float((np.arange(2 * nind + 1) / (2 * nind) * s).sum())
        assert abs(a.sum() - mean) < 1e-6, (a.sum(), mean)
    sio.read_sfs("%s/%s.sfs" % (d, p))  # a path reads the same
assert sio.read_sfs(d + "/alone/x.sfs").folded is None
t = sio.read_maf(d + "/u.saf.tsv")
b = sio.read_saf_bin(d + "/b.saf.bin")
assert t["saf"].shape == (200, 2 * nind + 1) and np.array_equal(t["saf"], b["saf"])
assert np.all(t["saf"].max(axis=1) == 0)
assert np.array_equal(t["pos"], sio.read_maf(d + "/u.maf.tsv")["pos"])
v1 = sio.read_maf(d + "/v1.maf.tsv")
assert v1.dtype.names[-1] == "maf" and v1["maf"][0] == 0.75 and v1["chrom"][0] == "c\t1"
for bad, what in (("bad.maf.tsv", "neither a .maf.tsv"), ("ragged.maf.tsv", "ragged.maf.tsv:3:")):
    try:
        sio.read_maf("%s/%s" % (d, bad))
        raise SystemExit("read_maf read %s" % bad)
    except ValueError as e:
        assert what in str(e) and bad in str(e), e
with open(d + "/py.alt", "w") as f:  # for the R reader: the values, exactly
    f.write("\n".join(repr(float(x)) for x in sio.read_maf(d + "/u.maf.tsv")["alt_freq"]))
try:
    import pandas
except ImportError:
    print("no pandas")
    sys.exit(0)
fr = sio.read_maf(d + "/f.maf.tsv", as_frame=True)
assert tuple(fr.columns) == NAMES and len(fr) == 200
assert fr["alt_freq"].tolist() == sio.read_maf(d + "/f.maf.tsv")["alt_freq"].tolist()
sf = sio.read_maf(d + "/u.saf.tsv", as_frame=True)
assert list(sf.columns) == ["chrom", "pos"] + ["saf_%d" % j for j in range(2 * nind + 1)]
assert sf.shape == (200, 2 * nind + 3)
fr.to_csv(d + "/py.frame.tsv", sep="\t", index=False, float_format="%.17g")
print("ok")
PYEOF
if "$PY" "$T/check.py" "$T" > "$T/py.log" 2>&1; then pass; else
  fail "python: maf's files"; cat "$T/py.log" >&2; fi
grep -q "no pandas" "$T/py.log" && skip_part "python3 has no pandas: read_maf(as_frame=True) not tested"

if command -v Rscript > /dev/null 2>&1; then
  cat > "$T/check.R" << 'REOF'
a <- commandArgs(TRUE)
source(a[1])
d <- a[2]
names7 <- c("chrom", "pos", "allele1", "allele2", "n_data", "alt_freq", "minor_freq")
for (p in c("u", "f")) {
  m <- starmet_read_maf(file.path(d, paste0(p, ".maf.tsv")))
  stopifnot(identical(names(m), names7), nrow(m) == 200, is.integer(m$n_data),
            is.character(m$allele2), identical(m$minor_freq, pmin(m$alt_freq, 1 - m$alt_freq)))
  s <- starmet_read_sfs(file.path(d, p))
  stopifnot(length(s) == 61, abs(sum(s) - 200) < 1e-8,
            identical(attr(s, "folded"), p == "f"))
  if (p == "f") stopifnot(all(s[32:61] == 0))
}
stopifnot(is.na(attr(starmet_read_sfs(file.path(d, "alone", "x.sfs")), "folded")))
u <- starmet_read_maf(file.path(d, "u.maf.tsv"))
stopifnot(identical(u$alt_freq, scan(file.path(d, "py.alt"), quiet = TRUE)))
if (file.exists(file.path(d, "py.frame.tsv"))) { # the same frame as pandas'
  pf <- utils::read.delim(file.path(d, "py.frame.tsv"), colClasses = c("character", "numeric",
                          "character", "character", "integer", "numeric", "numeric"))
  f <- starmet_read_maf(file.path(d, "f.maf.tsv"))
  stopifnot(identical(names(pf), names(f)), isTRUE(all.equal(pf, f, tolerance = 0)))
}
s <- starmet_read_maf(file.path(d, "u.saf.tsv"))
stopifnot(ncol(s) == 63, identical(names(s)[63], "saf_60"), all(apply(s[, -(1:2)], 1, max) == 0))
v1 <- starmet_read_maf(file.path(d, "v1.maf.tsv"))
stopifnot(identical(names(v1)[6], "maf"), v1$maf == 0.75, v1$chrom == "c\t1")
e <- tryCatch(starmet_read_maf(file.path(d, "bad.maf.tsv")), error = conditionMessage)
stopifnot(grepl("bad.maf.tsv: neither a .maf.tsv", e))
cat("ok\n")
REOF
  if Rscript "$T/check.R" "$top_srcdir/R/starmet_io.R" "$T" > "$T/r.log" 2>&1; then pass; else
    fail "R: maf's files"; cat "$T/r.log" >&2; fi
else skip_part "Rscript not installed (Debian: r-base-core): the R reader is not tested"; fi
finish
