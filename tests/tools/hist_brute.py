#!/usr/bin/env python3
"""hist_brute.py RESULTS.tsv HIST.tsv BINS LO HI [MORE.tsv ...]: the counts
of HIST.tsv (starmet --histogram) must equal a brute-force count of every
value in the TSV result files (written unthresholded), binned as
docs/outputs.md says: slot -1 below LO, bins 0..BINS-1
over [LO, HI] (the last one closed), BINS above HI, BINS+1 NaN. The bin of
a value is floor((v - LO) / (HI - LO) * BINS) in double precision."""
import math
import sys
from collections import Counter


def slot(v, bins, lo, hi):
    if math.isnan(v):
        return bins + 1
    if v < lo:
        return -1
    if v > hi:
        return bins
    x = (v - lo) / (hi - lo) * bins
    return bins - 1 if x >= bins else int(x)


def main():
    tsv, hist, bins, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    want = Counter()
    nval = 0
    for path in [tsv] + sys.argv[6:]:
        with open(path) as f:
            head = f.readline().split("\t")
            ccc = "a" in head
            way = 3 if "id_k" in head else 2
            for line in f:
                c = line.rstrip("\n").split("\t")
                v = float(c[-1])
                entry = "".join(c[way:2 * way]) if ccc else "-"
                want[(entry, slot(v, bins, lo, hi))] += 1
                nval += 1
    got = Counter()
    with open(hist) as f:
        f.readline()
        for line in f:
            metric, w, entry, b, _lo, _hi, count = line.rstrip("\n").split("\t")
            if int(count):
                got[(entry, int(b))] += int(count)
    if nval == 0:
        sys.exit("hist_brute: no values read: nothing was compared")
    if got != want:
        diff = {k: (got.get(k, 0), want.get(k, 0)) for k in set(got) | set(want) if got.get(k, 0) != want.get(k, 0)}
        sys.exit("hist_brute: %d slots differ (got, want): %s" % (len(diff), sorted(diff.items())[:8]))
    print("hist_brute: %d values, %d slots agree" % (nval, len(want)))


main()
