#!/usr/bin/env python3
"""bench/genotypes.py: writes a PLINK 1 fileset (PREFIX.bed/.bim/.fam) of
genotypes shaped like a HapMap-derived SNP panel, for bench/bench.py.

usage: bench/genotypes.py PREFIX SNPS SAMPLES [--missing R] [--seed S]

Allele frequencies: each SNP's minor-allele frequency p is drawn once,
  - 85% of SNPs: p uniform in [0.05, 0.5] (the common SNPs a genotyping
    array and HapMap select: a spectrum roughly flat from 5% to 50%),
  - 15% of SNPs: p uniform in [0.01, 0.05] (low-frequency SNPs),
so the mean MAF is about 0.24 (HapMap 3 array SNPs: about 0.2-0.25).
Genotypes follow Hardy-Weinberg proportions: (1-p)^2, 2p(1-p), p^2 for
0, 1, 2 copies of the minor allele, which is A1 (PLINK's convention, and
starmet's allele 1). Each call is then missing with probability R
(default 0: a dense set), independently. Samples are unrelated (no
population structure, no linkage between SNPs): the kernels' speed does
not depend on either, only on the shape and on the missing calls.
"""
import argparse
import sys

import numpy as np

COMMON_SHARE = 0.85  # SNPs with MAF in [0.05, 0.5]; the others in [0.01, 0.05]


def allele_freqs(rng, nsnp):
    common = rng.random(nsnp) < COMMON_SHARE
    return np.where(common, rng.uniform(0.05, 0.5, nsnp), rng.uniform(0.01, 0.05, nsnp))


def write(prefix, nsnp, nsamp, missing=0.0, seed=1, chunk=4096):
    """Writes PREFIX.bed/.bim/.fam; returns the allele frequencies drawn."""
    rng = np.random.default_rng(seed)
    p = allele_freqs(rng, nsnp)
    nbyte = (nsamp + 3) // 4
    # PLINK 1 .bed codes, SNP-major: 00 hom A1, 10 het, 11 hom A2, 01 missing
    code = np.array([0b11, 0b10, 0b00], dtype=np.uint8)  # by copies of A1 (minor)
    with open(prefix + ".bed", "wb") as f:
        f.write(bytes((0x6C, 0x1B, 0x01)))
        for s0 in range(0, nsnp, chunk):
            pc = p[s0:s0 + chunk, None]
            u = rng.random((len(pc), nsamp))
            # copies of the minor allele: 2 below p^2, 1 up to p^2 + 2p(1-p)
            g = np.where(u < pc * pc, 2, np.where(u < pc * (2 - pc), 1, 0))
            c = code[g]
            if missing > 0:
                c[rng.random(c.shape) < missing] = 0b01
            pad = np.zeros((len(pc), nbyte * 4), dtype=np.uint8)
            pad[:, :nsamp] = c
            packed = pad[:, 0::4] | pad[:, 1::4] << 2 | pad[:, 2::4] << 4 | pad[:, 3::4] << 6
            f.write(packed.astype(np.uint8).tobytes())
    with open(prefix + ".bim", "w") as f:
        for s in range(nsnp):
            f.write("1\trs%d\t0\t%d\tA\tG\n" % (s + 1, 1000 * (s + 1)))
    with open(prefix + ".fam", "w") as f:
        for i in range(nsamp):
            f.write("F%d I%d 0 0 0 -9\n" % (i + 1, i + 1))
    return p


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("prefix")
    a.add_argument("snps", type=int)
    a.add_argument("samples", type=int)
    a.add_argument("--missing", type=float, default=0.0, help="fraction of missing calls")
    a.add_argument("--seed", type=int, default=1)
    o = a.parse_args()
    if o.snps < 1 or o.samples < 1 or not 0 <= o.missing < 1:
        sys.exit("bench/genotypes.py: SNPS and SAMPLES must be positive, 0 <= R < 1")
    p = write(o.prefix, o.snps, o.samples, o.missing, o.seed)
    print("%s: %d SNPs x %d samples, mean MAF %.3f, %.1f%% missing" % (
        o.prefix, o.snps, o.samples, float(p.mean()), 100 * o.missing))


if __name__ == "__main__":
    main()
