#!/usr/bin/env python3
"""ccc_numpy.py: CCC 2-way and 3-way written from the CCC paper's equations
(1)-(5) with numpy, independently of starmet's code, for a PLINK fileset
without missing calls; compares them with a starmet TSV output.

usage: ccc_numpy.py PREFIX WAY GAMMA MULTIPLIER STARMET.tsv
Exit 0 when every value agrees within 1e-12 (relative) and every tuple of
vectors and table entries is present exactly once."""
import itertools
import sys

import numpy as np


def read_bed(prefix):
    """Copies of allele 1 (PLINK's A1) per SNP and sample, from the .bed."""
    nsnp = sum(1 for _ in open(prefix + ".bim"))
    nsamp = sum(1 for _ in open(prefix + ".fam"))
    names = [line.split()[1] for line in open(prefix + ".bim")]
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    assert raw[0] == 0x6C and raw[1] == 0x1B and raw[2] == 1, "not a SNP-major .bed"
    per = (nsamp + 3) // 4
    data = raw[3:].reshape(nsnp, per)
    codes = np.zeros((nsnp, nsamp), dtype=np.int64)
    for s in range(nsamp):
        codes[:, s] = (data[:, s // 4] >> (2 * (s % 4))) & 3
    # PLINK: 00 = two copies of A1, 10 = one, 11 = none, 01 = missing
    if np.any(codes == 1):
        sys.exit("ccc_numpy.py: missing calls are outside this check")
    copies = np.select([codes == 0, codes == 2, codes == 3], [2, 1, 0])
    return names, copies


def main():
    prefix, way, gamma, mult, tsv = sys.argv[1:6]
    way, gamma, mult = int(way), float(gamma), float(mult)
    names, r1 = read_bed(prefix)
    nv, nf = r1.shape
    rho = {1: r1, 0: 2 - r1}  # rho_{i,q}(a): entries equal to a
    f = {a: rho[a].sum(axis=1) / (2.0 * nf) for a in (0, 1)}  # equation (1)
    want = {}
    for idx in itertools.combinations(range(nv), way):
        for ent in itertools.product((0, 1), repeat=way):
            prod = np.ones(nf)
            for v, a in zip(idx, ent):
                prod = prod * rho[a][v]
            fij = prod.sum() / ((2.0 ** way) * nf)  # equations (2), (5)
            val = mult * fij
            for v, a in zip(idx, ent):
                val *= 1.0 - gamma * f[a][v]  # equations (3), (4)
            want[tuple(names[v] for v in idx) + ent] = val
    got = {}
    with open(tsv) as fh:
        next(fh)
        for line in fh:
            cells = line.split("\t")
            key = tuple(cells[:way]) + tuple(int(c) for c in cells[way:2 * way])
            if key in got:
                sys.exit(f"ccc_numpy.py: {key} twice in {tsv}")
            got[key] = float(cells[2 * way])
    if set(got) != set(want):
        sys.exit(f"ccc_numpy.py: {len(got)} values in {tsv}, {len(want)} expected; "
                 f"e.g. missing {sorted(set(want) - set(got))[:3]}")
    worst = max(abs(got[k] - want[k]) / max(abs(want[k]), 1e-300) for k in want)
    print(f"ccc_numpy.py: {len(want)} values, worst relative difference {worst:.3g}")
    sys.exit(0 if worst <= 1e-12 else 1)


main()
