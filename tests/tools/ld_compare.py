#!/usr/bin/env python3
"""Compare starmet's r or r^2 TSV (id_i id_j value, every pair) with
PLINK 1.9's .ld table of the same pairs (--r/--r2 inter-chr
--ld-window-r2 0, which has a line for every pair whose value is a number):
every PLINK line has its pair in starmet's file within PLINK's printing
(6 significant digits: half a unit in the 6th digit), every pair PLINK
leaves out is NaN in starmet's, and no NaN pair is in PLINK's. Prints the
counts and the largest difference; exit 1 on a mismatch.

  ld_compare.py STARMET.tsv PLINK.ld
"""
import math
import sys


def main():
    ours = {}
    with open(sys.argv[1]) as f:
        next(f)
        for line in f:
            a, b, v = line.rstrip("\n").split("\t")
            ours[(a, b) if a < b else (b, a)] = float(v)
    seen, bad, worst = set(), 0, 0.0
    with open(sys.argv[2]) as f:
        next(f)
        for line in f:
            fl = line.split()
            a, b, v = fl[2], fl[5], float(fl[6])
            key = (a, b) if a < b else (b, a)
            seen.add(key)
            o = ours.get(key)
            if o is None or math.isnan(o):
                bad += 1
                print("pair %s %s: plink %s, starmet %s" % (a, b, fl[6], o))
                continue
            # PLINK prints 6 significant digits
            tol = 0.5e-5 * 10 ** math.floor(math.log10(abs(v))) if v != 0 else 5e-7
            d = abs(o - v)
            worst = max(worst, d)
            if d > tol * (1 + 1e-9):
                bad += 1
                if bad < 5:
                    print("pair %s %s: plink %s, starmet %r" % (a, b, fl[6], o))
    nan = 0
    for key, o in ours.items():
        if key not in seen:
            if not math.isnan(o):
                bad += 1
                if bad < 5:
                    print("pair %s %s: not in plink's table, starmet %r" % (key[0], key[1], o))
            nan += 1
    print("%d pairs, %d in plink's table, %d NaN (no line in plink's), max difference %.3g, "
          "%d mismatches" % (len(ours), len(seen), nan, worst, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
