#!/usr/bin/env python3
"""A PLINK 1 file set (PREFIX.bed/.bim/.fam) of realistic genotypes for the
LD tests and benchmarks: chromosomes of SNPs in LD blocks (each block's
haplotypes are mutated copies of a few founders, so nearby SNPs correlate
and distant ones do not), allele frequencies across the range, missing
calls at a given rate, and on request monomorphic SNPs and a SNP with no
call at all.

  ld_data.py PREFIX --samples N --snps M [--chroms C] [--missing R]
             [--mono K] [--seed S] [--span BP] [--chrom-names A,B,...]

--chrom-names names the chromosomes (their number: as many as names) and
makes the .fam's sexes PLINK's mix: males (1), females (2) and unknown
(0); males carry one haplotype on X (23) and Y (24), with the mutations
making a few heterozygous calls there, as real data has.
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--snps", type=int, default=600)
    ap.add_argument("--chroms", type=int, default=3)
    ap.add_argument("--missing", type=float, default=0.02)
    ap.add_argument("--mono", type=int, default=0, help="monomorphic SNPs (and one uncalled)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--span", type=int, default=0, help="bp per chromosome (default 5 kb a SNP)")
    ap.add_argument("--chrom-names", default="", help="comma-separated chromosome names")
    a = ap.parse_args()
    names = a.chrom_names.split(",") if a.chrom_names else []
    if names:
        a.chroms = len(names)
    # sexes: alternating; with names, every 7th unknown
    sex = [0 if names and s % 7 == 6 else 1 + s % 2 for s in range(a.samples)]
    rng = random.Random(a.seed)
    n, m = a.samples, a.snps
    per = [m // a.chroms + (1 if c < m % a.chroms else 0) for c in range(a.chroms)]
    bim, rows = [], []
    special = set(rng.sample(range(m), min(m, a.mono + 1))) if a.mono else set()
    uncalled = min(special) if special else -1
    k = 0
    for c, cnt in enumerate(per):
        span = a.span or 5000 * cnt
        pos = sorted(rng.sample(range(1, span + 1), cnt))
        j = 0
        while j < cnt:
            blen = rng.randint(5, 60)
            nfound = rng.randint(2, 5)
            found = [[rng.random() < rng.uniform(0.05, 0.95) for _ in range(min(blen, cnt - j))]
                     for _ in range(nfound)]
            hap = [(rng.randrange(nfound), rng.randrange(nfound)) for _ in range(n)]
            name = names[c].upper().replace("CHR", "") if names else ""
            if name in ("X", "23", "Y", "24"):  # males: one haplotype
                hap = [(h[0], h[0]) if sex[s] == 1 else h for s, h in enumerate(hap)]
            for t in range(min(blen, cnt - j)):
                g = []
                for s in range(n):
                    a1 = found[hap[s][0]][t] ^ (rng.random() < 0.03)
                    a2 = found[hap[s][1]][t] ^ (rng.random() < 0.03)
                    g.append(int(a1) + int(a2))
                if k in special:
                    g = [0] * n if rng.random() < 0.5 else [2] * n
                calls = [None if (k == uncalled or rng.random() < a.missing) else x for x in g]
                rows.append(calls)
                bim.append("%s\tsnp%d_%d\t0\t%d\tA\tG"
                           % (names[c] if names else c + 1, c + 1, pos[j + t], pos[j + t]))
                k += 1
            j += blen
    with open(a.prefix + ".bim", "w") as f:
        f.write("\n".join(bim) + "\n")
    with open(a.prefix + ".fam", "w") as f:
        for s in range(n):
            f.write("fam%d ind%d 0 0 %d -9\n" % (s, s, sex[s]))
    # SNP-major .bed: 2 bits a sample, 00 hom A1, 10 het, 11 hom A2, 01 missing
    code = {0: 0b00, 1: 0b10, 2: 0b11, None: 0b01}
    with open(a.prefix + ".bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]))
        for calls in rows:
            out = bytearray((n + 3) // 4)
            for s, x in enumerate(calls):
                out[s // 4] |= code[x] << (2 * (s % 4))
            f.write(bytes(out))


if __name__ == "__main__":
    main()
