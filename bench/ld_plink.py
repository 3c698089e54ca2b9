#!/usr/bin/python3
"""bench/ld_plink.py: starmet's LD (--metric r2) against PLINK 1.9's --r2,
whole commands on the same .bed and the same threads; run by bench/ld-plink
(see there and bench/README.md, "LD against PLINK 1.9").

  ld_plink.py [--snps 28500] [--samples 2000] [--span-mb 30] [--missing 0.01]
              [--seed 1] [--threads 1,2] [--reps 3] [--data example,sim]
              [--cases 1,1n,2,3,3npy] [--npy-max-gb 8] [--out FILE.md]
  ld_plink.py --generate PREFIX [--snps ...] [--samples ...] [...]

Cases (each tool's output checked before any timing):
  1     the 1 Mb window, no SNP cap, every pair written to the .ld table:
        plink1.9 --r2 --ld-window 999999 --ld-window-kb 1000 --ld-window-r2 0
        starmet --metric r2 (the same options) --output-format ld
        (the two .ld files must be identical, cmp)
  1n    starmet alone, case 1 with --output-format none (the window's
        computing without formatting and writing the table)
  2     PLINK's default window: plink1.9 --r2; starmet --metric r2
        --output-format ld, no window option: plink1.9 --r2's default
        window (identical .ld files)
  3     every pair: plink1.9 --r2 square bin4 (its .ld.bin a link to
        /dev/null while timed); starmet --metric r2 --output-format none
  3npy  starmet --output-format npy (the n x n float64 matrix on disk),
        when n^2 x 8 bytes <= --npy-max-gb; against the same PLINK times
  Case 3 is checked once, untimed: PLINK's real bin4 file against
  starmet's .npy on a sample of pairs (within float32 rounding, NaN where
  PLINK has NaN) and every starmet run's checksum equal to that .npy run's.
  Case 4 (no run of its own): the windowed run's time per pair (pairs in
  the window / wall) against the all-pairs run's (n(n-1)/2 / wall).
  Case 1 also times its floors, interleaved with the runs: the .ld's bytes
  written in 1 MiB writes into the page cache (what PLINK leaves), and with
  O_DIRECT plus an fsync (durable on the disk, as starmet commits it).
  5     PLINK's --ld-snp-list: every 300th variant's lines with those within
        1 Mb on either side (case 1's window options), identical .ld files
The goal of 3x PLINK is the issue's for case 1; cases 2 and 5 are shown
against PLINK without one.

The simulated chromosome (--generate, and --data sim): SNPs at distinct
positions drawn uniformly over --span-mb on chromosome 1, in LD blocks of 5
to 60 consecutive SNPs; each block has 2 to 5 founder haplotypes (each
founder allele drawn as in ld_data.py: below a uniform threshold in [0.05,
0.95], so an even coin), each sample carries two founders per block drawn
uniformly, every allele copied with a 3% chance of flipping; then each
call is missing with probability --missing. tests/tools/ld_data.py's
model (one chromosome, the span given), with NumPy: that script is pure
Python, minutes at this size.
"""
import argparse
import datetime
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(ROOT, "_build")))
STARMET = os.path.join(BUILD, "starmet")
PLINK = os.environ.get("PLINK", "plink1.9")
WIN1 = ["--ld-window", "999999", "--ld-window-kb", "1000", "--ld-window-r2", "0"]


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def generate(prefix, nsnp, nsamp, span, missing, seed):
    """Writes PREFIX.bed/.bim/.fam: one chromosome of LD blocks."""
    rng = np.random.default_rng(seed)
    pos = np.sort(rng.choice(np.arange(1, span + 1), nsnp, replace=False))
    nbyte = (nsamp + 3) // 4
    # SNP-major .bed, ld_data.py's coding: 00 hom A1 (0), 10 het, 11 hom A2, 01 missing
    code = np.array([0b00, 0b10, 0b11], dtype=np.uint8)
    with open(prefix + ".bed", "wb") as f:
        f.write(bytes((0x6C, 0x1B, 0x01)))
        j = 0
        while j < nsnp:
            blen = min(int(rng.integers(5, 61)), nsnp - j)
            nfound = int(rng.integers(2, 6))
            # ld_data.py draws each founder allele against its own uniform
            # threshold: an even coin, independent per SNP and founder
            found = rng.random((blen, nfound)) < rng.uniform(0.05, 0.95, (blen, nfound))
            hap = rng.integers(0, nfound, (2, nsamp))
            a1 = found[:, hap[0]] ^ (rng.random((blen, nsamp)) < 0.03)
            a2 = found[:, hap[1]] ^ (rng.random((blen, nsamp)) < 0.03)
            c = code[a1.astype(np.uint8) + a2.astype(np.uint8)]
            if missing > 0:
                c[rng.random(c.shape) < missing] = 0b01
            pad = np.zeros((blen, nbyte * 4), dtype=np.uint8)
            pad[:, :nsamp] = c
            packed = pad[:, 0::4] | pad[:, 1::4] << 2 | pad[:, 2::4] << 4 | pad[:, 3::4] << 6
            f.write(packed.astype(np.uint8).tobytes())
            j += blen
    with open(prefix + ".bim", "w") as f:
        f.writelines("1\tsnp1_%d\t0\t%d\tA\tG\n" % (q, q) for q in pos)
    with open(prefix + ".fam", "w") as f:
        f.writelines("fam%d ind%d 0 0 %d -9\n" % (s, s, 1 + s % 2) for s in range(nsamp))


def read_bim(prefix):
    chrom, pos = [], []
    with open(prefix + ".bim") as f:
        for line in f:
            x = line.split()
            chrom.append(x[0])
            pos.append(int(x[3]))
    return np.array(chrom), np.array(pos, dtype=np.int64)


def window_pairs(chrom, pos, nsnp_win, kb):
    """PLINK's window: pairs on one chromosome at most nsnp_win - 1 variants
    and kb kilobases apart (the .bim sorted by position)."""
    total = 0
    for c in np.unique(chrom):
        q = pos[chrom == c]
        i = np.arange(len(q))
        end = np.minimum(np.searchsorted(q, q + kb * 1000, side="right"), i + nsnp_win)
        total += int((np.minimum(end, len(q)) - i - 1).sum())
    return total


def run(cmd, env, cwd):
    """A whole command: (wall s, CPU s, peak RSS MB). Fails loudly. The peak
    RSS and CPU time come from /usr/bin/time (the wait4 of this process
    would report its own peak for its children: fork copies it, and exec
    keeps the larger)."""
    rec = os.path.join(cwd, ".time")
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", rec] + cmd, env=env, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace")[-3000:])
        raise SystemExit("bench/ld-plink: failed (exit %d): %s" % (p.returncode, " ".join(cmd)))
    with open(rec) as f:
        rss, user, sys_ = f.read().split()[-3:]
    os.unlink(rec)
    return wall, float(user) + float(sys_), int(rss) / 1024


def write_floor(path, nbytes, direct):
    """The physical floor of writing an .ld of nbytes: the same bytes (the
    first MiB of the .ld repeated) in 1 MiB writes, into the page cache
    only (direct=False, what PLINK's run leaves behind), or with O_DIRECT
    to the disk and an fsync (direct=True: the bytes durable, as starmet
    commits its output; rounded up to whole MiB). (wall s, CPU s, 0)."""
    import mmap
    buf = mmap.mmap(-1, 1 << 20)  # page-aligned, as O_DIRECT needs
    with open(path, "rb") as f:
        head = f.read(1 << 20)
    buf[:len(head)] = head
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (os.O_DIRECT if direct else 0)
    t0, c0 = time.perf_counter(), os.times()
    fd = os.open(path + ".floor", flags, 0o644)
    left = nbytes
    while left > 0:
        os.write(fd, buf)
        left -= len(buf)
    if direct:
        os.fsync(fd)
    os.close(fd)
    wall, c1 = time.perf_counter() - t0, os.times()
    os.unlink(path + ".floor")
    return (wall, (c1.user - c0.user) + (c1.system - c0.system), 0), None


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def same_file(a, b):
    return subprocess.run(["cmp", "-s", a, b]).returncode == 0


class Bench:
    def __init__(self, a):
        self.a = a
        self.tmp = tempfile.mkdtemp(prefix="ld-plink-", dir=a.tmpdir)
        self.rows = []
        self.notes = []
        self.summaries = []
        self.checks = []

    def env(self, threads):
        e = dict(os.environ)
        e.update({"STARPU_NCPU": str(threads), "STARPU_NOPENCL": "0", "STARPU_NCUDA": "0",
                  "STARPU_SILENT": "1", "STARPU_HOME": os.path.join(BUILD, ".cache", "starpu"),
                  "OMP_NUM_THREADS": "1"})
        return e

    def plink(self, bfile, args, out, threads, sink=None):
        cmd = [PLINK, "--bfile", bfile, "--threads", str(threads), "--out", out] + args
        if sink:
            if os.path.lexists(sink):
                os.unlink(sink)
            os.symlink(os.devnull, sink)
        r = run(cmd, self.env(threads), self.tmp)
        if sink:
            os.unlink(sink)
        return r, None

    def starmet(self, bfile, args, out, threads):
        summ = out + ".summary.json"
        cmd = [STARMET, "compute", "--quiet", "--bfile", bfile, "--metric", "r2",
               "--summary", summ] + args
        if out and "none" not in args:
            cmd += ["--output", out]
        r = run(cmd, self.env(threads), self.tmp)
        with open(summ) as f:
            s = json.load(f)
        os.unlink(summ)
        return r, s

    def timed(self, data, threads, pairs, entries):
        """REPS rounds of the entries [(case, tool, fn, after)], interleaved (one
        run of each per round, so the machine's load falls on all alike), each
        started after a sync (outside its time: no run pays for the writeback
        of the file a former run left dirty): one table row of medians per
        entry, by case."""
        res = [{"walls": [], "cpus": [], "rss": [], "sums": [], "loads": []} for _ in entries]
        for _ in range(self.a.reps):
            for (case, tool, fn, after), r in zip(entries, res):
                os.sync()
                r["loads"].append(loadavg())
                (w, c, m), s = fn()
                if after:
                    after(s)
                r["walls"].append(w)
                r["cpus"].append(c)
                r["rss"].append(m)
                r["sums"].append((w, s))
        rows = {}
        for (case, tool, _, _), r in zip(entries, res):
            walls = r["walls"]
            med = statistics.median(walls)
            row = {"data": data, "case": case, "tool": tool, "threads": threads,
                   "median": med, "min": min(walls), "max": max(walls),
                   "cpu": statistics.median(r["cpus"]), "rss": max(r["rss"]), "pairs": pairs,
                   "load": (min(r["loads"]), max(r["loads"])), "walls": walls}
            self.rows.append(row)
            rows[case] = row
            log("  %-12s %-5s %-8s %d thr: median %.3f s (%.3f-%.3f), load %.2f-%.2f" % (
                data, case, tool, threads, med, min(walls), max(walls), row["load"][0],
                row["load"][1]))
            if tool == "starmet":
                # the summary of the median run
                w, s = sorted(r["sums"], key=lambda x: x[0])[len(walls) // 2]
                self.summaries.append((data, case, threads, w, s))
        return rows

    def dataset(self, name, bfile):
        a = self.a
        chrom, pos = read_bim(bfile)
        n = len(pos)
        with open(bfile + ".fam") as f:
            nsamp = sum(1 for _ in f)
        p_all = n * (n - 1) // 2
        p_w1 = window_pairs(chrom, pos, 999999, 1000)
        p_w2 = window_pairs(chrom, pos, 10, 1000)
        desc = "%s: %d SNPs x %d samples, %d chromosome(s), %.1f Mb" % (
            name, n, nsamp, len(np.unique(chrom)), (pos.max() - pos.min()) / 1e6)
        self.notes.append("%s; pairs: all %d, 1 Mb window %d (%.2f%%), default window %d" % (
            desc, p_all, p_w1, 100.0 * p_w1 / p_all, p_w2))
        log(self.notes[-1])
        top = max(self.a.threads)
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)

        def ld_case(case, pargs, sargs, pairs):
            # untimed check: PLINK's .ld is the reference for every starmet run
            self.plink(bfile, pargs, d + "/ref", top)
            ref = d + "/ref.ld"
            self.starmet(bfile, sargs + ["--output-format", "ld"], d + "/chk", top)
            ok = same_file(ref, d + "/chk.ld")
            with open(ref, "rb") as f:
                lines = sum(1 for _ in f) - 1
            self.checks.append("%s case %s: starmet's .ld %s PLINK's (%d lines, %d bytes)" % (
                name, case, "identical to (cmp)" if ok else "DIFFERS FROM", lines,
                os.path.getsize(ref)))
            log("  " + self.checks[-1])
            if not ok:
                raise SystemExit("bench/ld-plink: case %s: the .ld files differ (%s, %s)" %
                                 (case, ref, d + "/chk.ld"))
            os.unlink(d + "/chk.ld")

            def check_run(s):
                if not same_file(ref, d + "/t.ld"):
                    raise SystemExit("bench/ld-plink: a timed run's .ld differs from PLINK's")
                os.unlink(d + "/t.ld")

            size = os.path.getsize(ref)
            for t in self.a.threads:
                entries = [
                    ("P", "plink1.9", lambda: self.plink(bfile, pargs, d + "/p", t),
                     lambda s: os.unlink(d + "/p.ld")),
                    (case, "starmet",
                     lambda: self.starmet(bfile, sargs + ["--output-format", "ld"], d + "/t", t),
                     check_run)]
                if case == "1":  # the physical floors of writing its .ld
                    entries += [("W", "write (page cache)",
                                 lambda: write_floor(ref, size, False), None),
                                ("D", "write (disk, O_DIRECT + fsync)",
                                 lambda: write_floor(ref, size, True), None)]
                rows = self.timed(name, t, pairs, entries)
                rows["P"]["case"] = case
                rows[case]["speedup"] = rows["P"]["median"] / rows[case]["median"]
                for k in ("W", "D"):
                    if k in rows:
                        rows[k]["case"] = case
                        rows[k]["floor"] = True
            os.unlink(ref)

        if "1" in a.cases:
            ld_case("1", ["--r2"] + WIN1, WIN1, p_w1)
        if "1n" in a.cases:
            for t in self.a.threads:
                ck = []
                self.timed(name, t, p_w1, [
                    ("1n", "starmet",
                     lambda: self.starmet(bfile, WIN1 + ["--output-format", "none"], d + "/n", t),
                     lambda s: ck.append(s["counts"]["values"]))])
                if set(ck) != {p_w1}:
                    raise SystemExit("bench/ld-plink: case 1n: values %s, pairs in the window %d"
                                     % (sorted(set(ck)), p_w1))
        if "2" in a.cases:
            ld_case("2", ["--r2"], [], p_w2)
        if "5" in a.cases:
            lst = d + "/ldsnp.txt"
            with open(bfile + ".bim") as f, open(lst, "w") as o:
                ids = [line.split()[1] for line in f]
                o.write("".join(x + "\n" for x in ids[6::300]))
            lines = 0  # PLINK's lines examined: each index variant's window, itself too
            for k in range(6, n, 300):
                same = chrom == chrom[k]
                lines += int((same & (np.abs(pos - pos[k]) <= 1000 * 1000)).sum())
            ld_case("5", ["--r2", "--ld-snp-list", lst] + WIN1, ["--ld-snp-list", lst] + WIN1,
                    lines)
        if "3" in a.cases or "3npy" in a.cases:
            self.square(name, bfile, d, n, p_all, top)

    def square(self, name, bfile, d, n, p_all, top):
        a = self.a
        npy_ok = "3npy" in a.cases and n * n * 8 <= a.npy_max_gb * 1e9
        # untimed check: PLINK's real bin4 matrix against starmet's .npy
        (w, _, _), _ = self.plink(bfile, ["--r2", "square", "bin4"], d + "/ref", top)
        self.notes.append("%s: PLINK --r2 square bin4 writing its %.2f GB matrix to disk "
                          "(the check run, %d threads, once): %.2f s" % (
                              name, 4.0 * n * n / 1e9, top, w))
        (w2, _, _), s = self.starmet(bfile, ["--output-format", "npy"], d + "/chk", top)
        self.notes.append("%s: starmet --output-format npy (%.2f GB, the check run, %d threads, "
                          "once): %.2f s" % (name, 8.0 * n * n / 1e9, top, w2))
        checksum = s["checksum"]
        a_ = np.load(d + "/chk.npy", mmap_mode="r")
        b_ = np.memmap(d + "/ref.ld.bin", dtype=np.float32, mode="r", shape=(n, n))
        rng = np.random.default_rng(7)
        k = min(a.check_pairs, p_all)
        i = rng.integers(0, n, k)
        j = rng.integers(0, n, k)
        i = np.concatenate([i, np.arange(min(n, 2000))])  # and some rows in full
        j = np.concatenate([j, np.minimum(np.arange(min(n, 2000)) + 1, n - 1)])
        x = np.asarray(a_[i, j], dtype=np.float64)
        y = np.asarray(b_[i, j], dtype=np.float64)
        nan_same = bool(np.array_equal(np.isnan(x), np.isnan(y)))
        fin = ~np.isnan(x) & ~np.isnan(y)
        # within float32 rounding: PLINK stores a float of its own double (2.1
        # float32 ulps apart at most on data/example_geno); 4 ulps allowed
        ulp = np.spacing(np.abs(y[fin]).astype(np.float32)).astype(np.float64)
        ulps = np.abs(x[fin] - y[fin]) / ulp
        bad = int((ulps > 4).sum())
        self.checks.append(
            "%s case 3: starmet's .npy against PLINK's bin4 on %d sampled pairs: NaN at the "
            "same pairs: %s (%d NaN), largest difference %.2f float32 ulps of PLINK's value "
            "(%d above 4)" % (name, len(x), "yes" if nan_same else "NO",
                              int(np.isnan(y).sum()), float(ulps.max()) if fin.any() else 0.0,
                              bad))
        log("  " + self.checks[-1])
        del a_, b_
        os.unlink(d + "/chk.npy")
        os.unlink(d + "/ref.ld.bin")
        if not nan_same or bad:
            raise SystemExit("bench/ld-plink: case 3: starmet's matrix differs from PLINK's")

        def same_sum(s):
            if s["checksum"] != checksum or s["counts"]["results"] != p_all:
                raise SystemExit("bench/ld-plink: case 3: checksum %s (the .npy run's %s), "
                                 "results %d (pairs %d)" % (s["checksum"], checksum,
                                                            s["counts"]["results"], p_all))
            for f in ("n.npy", "n.ids.txt", "n.json"):
                if os.path.exists(d + "/" + f):
                    os.unlink(d + "/" + f)

        for t in a.threads:
            entries = [("P", "plink1.9",
                        lambda: self.plink(bfile, ["--r2", "square", "bin4"], d + "/p", t,
                                           sink=d + "/p.ld.bin"), None)]
            if "3" in a.cases:
                entries.append(("3", "starmet",
                                lambda: self.starmet(bfile, ["--output-format", "none"],
                                                     d + "/n", t), same_sum))
            if npy_ok:
                entries.append(("3npy", "starmet",
                                lambda: self.starmet(bfile, ["--output-format", "npy"],
                                                     d + "/n", t), same_sum))
            rows = self.timed(name, t, p_all, entries)
            rows["P"]["case"] = "3"
            for c in ("3", "3npy"):
                if c in rows:
                    rows[c]["speedup"] = rows["P"]["median"] / rows[c]["median"]
        if "3npy" in a.cases and not npy_ok:
            self.notes.append("%s: case 3npy not timed: the matrix would be %.1f GB "
                              "(--npy-max-gb %g)" % (name, 8.0 * n * n / 1e9, a.npy_max_gb))


def cpu_info():
    model, flags = "?", ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1]
    fl = set(flags.split())
    if "avx512f" in fl:
        isa = "AVX-512 (%s)" % " ".join(x for x in ("avx512f", "avx512bw", "avx512_vpopcntdq",
                                                     "avx512_vnni") if x in fl)
    elif "avx2" in fl:
        isa = "AVX2"
    else:
        isa = "no AVX2"
    return model, isa


def versions():
    v = subprocess.run([STARMET, "--version"], capture_output=True, text=True).stdout
    keep = [l.strip() for l in v.splitlines()
            if l.startswith(("starmet ", "StarPU", "CPU kernels"))]
    p = subprocess.run([PLINK, "--version"], capture_output=True, text=True).stdout.strip()
    return keep, p.splitlines()[0] if p else "?"


def report(b, a, started, load_before, load_after):
    model, isa = cpu_info()
    sv, pv = versions()
    L = []
    L.append("# bench/ld-plink, %s (%s)" % (started.strftime("%Y-%m-%d %H:%M"),
                                          socket.gethostname()))
    L.append("")
    L.append("- command: `%s`" % " ".join(["bench/ld-plink"] + sys.argv[1:]))
    L.append("- CPU: %s, %d cores (os.cpu_count); ISA: %s" % (model, os.cpu_count(), isa))
    L.append("- starmet: %s (%s)" % ("; ".join(sv), STARMET))
    L.append("- PLINK: %s" % pv)
    L.append("- load average (1 min) before: %s; after: %s; at the start of each run: the "
             "table's last column" % (load_before, load_after))
    L.append("- threads: plink1.9 --threads N, starmet STARPU_NCPU=N (one rank); wall: the "
             "whole command (Python perf_counter around it), median of %d runs after one "
             "untimed check run per case" % a.reps)
    peak = max([r["load"][1] for r in b.rows] + [float(load_before.split()[0]),
                                                  float(load_after.split()[0])])
    if peak > 0.75 * os.cpu_count():
        L.append("- **the machine was loaded**: the 1-minute load average reached %.2f on %d "
                 "cores (other programs ran): the walls include their share" % (
                     peak, os.cpu_count()))
    for n in b.notes:
        L.append("- " + n)
    L.append("")
    L.append("Checks (before timing; every timed starmet .ld was also cmp'd to PLINK's, "
             "every timed all-pairs run's checksum equal to the checked .npy run's):")
    L.append("")
    for c in b.checks:
        L.append("- " + c)
    L.append("")
    L.append("| data | case | tool | threads | median wall s | min | max | CPU s | peak RSS MB "
             "| pairs | pairs/s | plink / starmet | load |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in b.rows:
        L.append("| %s | %s | %s | %d | %.3f | %.3f | %.3f | %.2f | %.0f | %d | %.3g | %s | "
                 "%.2f-%.2f |" % (
                     r["data"], r["case"], r["tool"], r["threads"], r["median"], r["min"],
                     r["max"], r["cpu"], r["rss"], r["pairs"], r["pairs"] / r["median"],
                     "%.1fx" % r["speedup"] if "speedup" in r else "-", r["load"][0],
                     r["load"][1]))
    L.append("")
    L.append("Cases: 1 = 1 Mb window, no SNP cap, .ld written (`--ld-window 999999 "
             "--ld-window-kb 1000 --ld-window-r2 0`); 1n = starmet, the same without output; "
             "2 = PLINK's default window (`--r2`; starmet `--metric r2`, no window option); 3 = all pairs "
             "(PLINK `--r2 square bin4` into /dev/null; starmet `--output-format none`); "
             "3npy = starmet writing the .npy (against the same PLINK runs). Pairs: those in "
             "the window (cases 1, 2: every pair PLINK examines, also those under "
             "--ld-window-r2) or n(n-1)/2; 5 = `--ld-snp-list` of every 300th variant "
             "with case 1's window (pairs: the lines, each index variant's own too). "
             "Case 1's floors: `write (page cache)` writes the .ld's bytes in 1 MiB writes "
             "and leaves them in the page cache, as PLINK does; `write (disk, O_DIRECT + "
             "fsync)` puts them on the disk, durable, as starmet must before it renames its "
             "output (the physical limit of a committed .ld on this machine's disk).")
    L.append("")
    # case 4 and the goals
    by = {(r["data"], r["case"], r["tool"], r["threads"]): r for r in b.rows}
    L.append("Case 4: time per pair, windowed run against the all-pairs run (wall / pairs; "
             "goal for starmet: the windowed run within 2x of case 3, like for like: case 1n, "
             "without output as case 3 is, when it ran; case 1 writes the .ld, about 82 bytes "
             "of text a pair, which case 3 has no counterpart of):")
    L.append("")
    L.append("| data | tool | threads | windowed case | ns/pair windowed | ns/pair all pairs "
             "(case 3) | ratio |")
    L.append("|---|---|---|---|---|---|---|")
    goals, notes = [], []
    # the goals are judged on the simulated chromosome when it ran (the
    # example's runs take 0.1 s: starmet's start, StarPU's initialization)
    gdata = "sim" if any(r["data"] == "sim" for r in b.rows) else None
    for r in b.rows:
        if r["case"] not in ("1", "1n"):
            continue
        al = by.get((r["data"], "3", r["tool"], r["threads"]))
        if not al:
            continue
        wn = 1e9 * r["median"] / r["pairs"]
        an = 1e9 * al["median"] / al["pairs"]
        L.append("| %s | %s | %d | %s | %.2f | %.3f | %.1f |" % (
            r["data"], r["tool"], r["threads"], r["case"], wn, an, wn / an))
        like = "1n" if by.get((r["data"], "1n", "starmet", r["threads"])) else "1"
        if r["tool"] == "starmet" and gdata in (None, r["data"]):
            if r["case"] == like:
                goals.append(("windowed time per pair within 2x of all pairs (%s, case %s, "
                              "threads=%d)" % (r["data"], r["case"], r["threads"]), wn / an,
                              "%.1fx" % (wn / an), wn / an <= 2))
            else:
                notes.append("windowed time per pair with the .ld written (case 1) against "
                             "all pairs without output (%s, threads=%d): %.1fx" % (
                                 r["data"], r["threads"], wn / an))
    for r in b.rows:
        if r["tool"] != "starmet" or "speedup" not in r or gdata not in (None, r["data"]):
            continue
        if r["case"] == "1":
            disk = by.get((r["data"], "1", "write (disk, O_DIRECT + fsync)", r["threads"]))
            p = by.get((r["data"], "1", "plink1.9", r["threads"]))
            floor = ""
            if disk and p:
                floor = (" (3x PLINK: %.2f s; this disk's durable write of the same bytes "
                         "alone: %.2f s, starmet %.2fx that floor)" % (
                             p["median"] / 3, disk["median"], r["median"] / disk["median"]))
            goals.append(("window case %s >= 3x PLINK (%s, threads=%d)" % (
                r["case"], r["data"], r["threads"]), r["speedup"], "%.1fx%s" % (
                    r["speedup"], floor), r["speedup"] >= 3))
        if r["case"] == "3":
            goals.append(("all pairs >= 25x PLINK (%s, threads=%d)" % (
                r["data"], r["threads"]), r["speedup"], "%.1fx" % r["speedup"],
                r["speedup"] >= 25))
    L.append("")
    L.append("Goals:")
    L.append("")
    for g, _, v, ok in goals:
        L.append("- %s: %s **%s**" % (g, v, "met" if ok else "not met"))
    for n in notes:
        L.append("- (no goal) %s" % n)
    L.append("")
    L.append("starmet's JSON summaries (the median run of each row): seconds")
    L.append("")
    L.append("| data | case | threads | wall | init | input | compute | output close | "
             "read back | tasks | tile pairs | pairs in the tile pairs (the strips compute fewer) | idle | codelets: total s (count) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for data, case, t, w, s in b.summaries:
        ts = s["timings_s"]
        cod = ", ".join("%s %.3f (%d)" % (c["name"].replace("sm_", ""), c["total_s"], c["count"])
                        for c in s["runtime"]["codelets"])
        pairs = sum(r.get("pairs", 0) for r in s.get("ranks", []))
        tiles = sum(r.get("tile_pairs", 0) for r in s.get("ranks", []))
        L.append("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %d | %d | "
                 "%.0f%% | %s |" % (
                     data, case, t, w, ts.get("runtime_init", 0), ts.get("input", 0),
                     ts.get("compute", 0), ts.get("output_close", 0),
                     ts.get("output_read_back", 0), s["runtime"]["tasks_executed"], tiles, pairs,
                     100 * s["runtime"]["idle_fraction"], cod))
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generate", metavar="PREFIX", help="only write the simulated set")
    ap.add_argument("--snps", type=int, default=28500)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--span-mb", type=float, default=30)
    ap.add_argument("--missing", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--data", default="example,sim")
    ap.add_argument("--cases", default="1,1n,2,3,3npy")
    ap.add_argument("--npy-max-gb", type=float, default=8)
    ap.add_argument("--check-pairs", type=int, default=200000)
    ap.add_argument("--out", help="the markdown report (default bench/results/"
                    "ld-plink-<date>-<time>.md)")
    ap.add_argument("--tmpdir", default=None, help="scratch (the .ld and .npy files)")
    a = ap.parse_args()
    span = int(a.span_mb * 1e6)
    if a.snps < 2 or a.samples < 1 or not 0 <= a.missing < 1 or span < a.snps:
        raise SystemExit("bench/ld-plink: --snps >= 2, --samples >= 1, 0 <= --missing < 1 "
                         "and --span-mb at least a base per SNP")
    if a.generate:
        generate(a.generate, a.snps, a.samples, span, a.missing, a.seed)
        return
    a.threads = [int(x) for x in a.threads.split(",")]
    a.cases = a.cases.split(",")
    started = datetime.datetime.now()
    out = a.out or os.path.join(ROOT, "bench", "results",
                                "ld-plink-%s.md" % started.strftime("%Y%m%d-%H%M"))
    b = Bench(a)
    load_before = open("/proc/loadavg").read().split()[:3]
    log("bench/ld-plink: scratch %s, load %s" % (b.tmp, " ".join(load_before)))
    try:
        for name in a.data.split(","):
            if name == "example":
                b.dataset("example_geno", os.path.join(ROOT, "data", "example_geno"))
            elif name == "sim":
                pre = os.path.join(b.tmp, "sim")
                t0 = time.perf_counter()
                generate(pre, a.snps, a.samples, span, a.missing, a.seed)
                log("generated %s in %.1f s" % (pre, time.perf_counter() - t0))
                b.dataset("sim", pre)
            else:
                raise SystemExit("bench/ld-plink: --data: example or sim, not %s" % name)
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)
    load_after = open("/proc/loadavg").read().split()[:3]
    text = report(b, a, started, " ".join(load_before), " ".join(load_after))
    with open(out, "w") as f:
        f.write(text)
    print(text)
    log("written: %s" % out)


if __name__ == "__main__":
    main()
