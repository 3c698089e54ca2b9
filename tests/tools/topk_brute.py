#!/usr/bin/env python3
"""topk_brute.py K MODE TOPK.tsv RESULTS.tsv [MORE.tsv ...]: the neighbour
lists of TOPK.tsv (starmet --top-k K, MODE value|max|entry) must equal a
brute-force selection from every value of the result files (written
unthresholded, vector ids as 0-based indices).
  --merge K MODE TOPK.tsv PART.topk.tsv...: TOPK.tsv must equal the K best
of the union of the PART lists (phases computed separately).
Order: larger value first, then smaller neighbour index, then smaller entry;
for MODE max a pair counts once, with its largest entry seen from the vector
(the smaller entry among equal values); NaN values are not neighbours."""
import math
import sys
from collections import defaultdict


def read_topk(path):
    rows = []
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        ccc = "a" in head
        for line in f:
            c = line.rstrip("\n").split("\t")
            v, rank, nb = int(c[0]), int(c[1]), int(c[2])
            e = int(c[3]) * 2 + int(c[4]) if ccc else 0
            rows.append((v, rank, nb, e, c[-1]))
    return rows


def select(cands, k, mode):
    """cands: vector -> list of (value, nb, entry, text); the lists as rows"""
    out = []
    for v in sorted(cands):
        groups = defaultdict(list)
        for val, nb, e, txt in cands[v]:
            if math.isnan(val):
                continue
            groups[e if mode == "entry" else 0].append((-val, nb, e, txt))
        for g in sorted(groups):
            for rank, (_, nb, e, txt) in enumerate(sorted(groups[g])[:k], 1):
                out.append((v, rank, nb, e, txt))
    return out


def main():
    a = sys.argv[1:]
    merge = a[0] == "--merge"
    if merge:
        a = a[1:]
    k, mode, topk, parts = int(a[0]), a[1], a[2], a[3:]
    cands = defaultdict(list)
    n = 0
    for path in parts:
        if merge:
            for v, _, nb, e, txt in read_topk(path):
                cands[v].append((float(txt), nb, e, txt))
                n += 1
            continue
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            if "id_k" in head:
                sys.exit("topk_brute: 3-way results")
            ccc = "a" in head
            pairs = defaultdict(dict)
            for line in f:
                c = line.rstrip("\n").split("\t")
                i, j = int(c[0]), int(c[1])
                e = int(c[2]) * 2 + int(c[3]) if ccc else 0
                pairs[(i, j)][e] = (float(c[-1]), c[-1])
                n += 1
        for (i, j), ents in pairs.items():
            for me, other, flip in ((i, j, False), (j, i, True)):
                seen = {((e & 1) << 1 | e >> 1) if flip else e: x for e, x in ents.items()}
                if mode == "max":
                    best = None
                    for e in sorted(seen):
                        val = seen[e][0]
                        if math.isnan(val):
                            continue
                        if best is None or val > seen[best][0]:
                            best = e
                    if best is not None:
                        cands[me].append((seen[best][0], other, best, seen[best][1]))
                else:
                    for e, (val, txt) in seen.items():
                        cands[me].append((val, other, e, txt))
    if n == 0:
        sys.exit("topk_brute: no values read: nothing was compared")
    want = select(cands, k, mode)
    got = read_topk(topk)
    if [(v, r, nb, e, float(t)) for v, r, nb, e, t in got] != \
       [(v, r, nb, e, float(t)) for v, r, nb, e, t in want]:
        bad = [(g, w) for g, w in zip(got, want) if g != w][:5]
        sys.exit("topk_brute: %d rows, %d expected; first differences (got, want): %s"
                 % (len(got), len(want), bad))
    print("topk_brute: %d rows agree (%d values read)" % (len(got), n))


main()
