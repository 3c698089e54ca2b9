#!/usr/bin/env python3
"""bench/beagle.py: write a simulated BEAGLE genotype-likelihood file (ANGSD
-doGlf 2 layout) for the maf benchmark: per site an allele frequency (the
product of two uniforms: mostly rare variants), per individual a genotype
drawn from it, 0..5 reads with 1% error, and 5% of individuals without
data (equal likelihoods). Usage: beagle.py N SITES OUT [--seed S]"""
import argparse

import numpy as np


def write(n, sites, out, seed=1):
    rng = np.random.default_rng(seed)
    err = 0.01
    with open(out, "w") as f:
        f.write("marker\tallele1\tallele2\t" +
                "\t".join("Ind%d\tInd%d\tInd%d" % (i, i, i) for i in range(n)) + "\n")
        for s in range(sites):
            fr = rng.random() * rng.random()
            g = (rng.random(n) < fr).astype(int) + (rng.random(n) < fr).astype(int)
            depth = rng.integers(0, 6, n)
            # derived reads: binomial in each individual's depth
            pder = (g / 2.0) * (1 - err) + (1 - g / 2.0) * err
            der = rng.binomial(depth, pder)
            ref = depth - der
            gl = np.empty((n, 3))
            for h in range(3):
                q = (h / 2.0) * (1 - err) + (1 - h / 2.0) * err
                gl[:, h] = q ** der * (1 - q) ** ref
            gl /= gl.sum(axis=1, keepdims=True)
            gl[rng.random(n) < 0.05] = 1.0 / 3.0
            f.write("chr1_%d\t0\t1\t" % (1000 + 10 * s) +
                    "\t".join("%.6g" % v for v in gl.ravel()) + "\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("sites", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    write(a.n, a.sites, a.out, a.seed)
