#!/usr/bin/env python3
"""bench/bench.py: starmet's 2-way benchmark, driven by bench/run.

Measures on this machine, in one run:
  (a) the physical limits (bench/kernels: SIMD min+add, AND+popcount, int8 MACs),
  (b) every 2-way CPU kernel's rate (bench/kernels),
  (c) whole `starmet compute` runs (one rank, all cores, --output-format none;
      rates from the run's JSON summary) and the bare kernel on the run's tiles,
  (c'') 3-way whole runs against the 2-way ones (per element comparison:
      triples x fields against pairs x fields), and 3-way against 2-way CCC
      on the same problems; short vectors (500 to 5000 samples): the CCC
      kernels and whole runs on HapMap-like genotypes (bench/genotypes.py)
      against the popcount limit, their finalize share and PLINK 1.9 --r2
      on the same .bed; the 28501 x 1000 sparse shape of a real genotype
      set; and a run that writes 1% of its values,
  (c') P = 2 ranks under mpirun on the same cores against one rank (the
      workers each setting gives them: starmet's choice for the ranks),
  (e) maf (GAMA) on simulated BEAGLE files (bench/beagle.py): exact and
      banded SAF, the EM, peak memory, the banded error against exact on
      bins within 10 nats of each site's maximum, the iterative reference,
      and ANGSD -doSaf 4 where an `angsd` is on the PATH,
  (d) the peer tools on the same data: scipy pdist 'braycurtis', R vegan
      vegdist "bray", PLINK 1.9 --r2 square, plink2 --make-king square,
and writes a CSV of every measurement and a markdown table to bench/results/.
A peer that is missing or fails, or a section that fails, is a line of the
table ("plink1.9: not installed", "plink2: failed: exit 2, ..."), never the
end of the run.
Element comparisons: Czekanowski pairs x fields; genotype kernels pairs x
samples (SNP pairs for starmet and PLINK --r2, sample pairs for KING),
always counting unique pairs.
"""
import argparse
import csv
import datetime
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SIZES = {  # full, quick, tiny
    "kernel_czek": ("1024,4096", "512,1024", "64,256"),
    "kernel_ccc": ("1024,32768", "512,4096", "64,1024"),
    "run_czek_s": ((8000, 20000), (2000, 4000), (300, 500)),
    "run_czek_d": ((8000, 10000), (2000, 2000), (300, 500)),
    "run_ccc": ((16000, 32768), (3000, 4096), (300, 1024)),
    "run_ccc_sparse": ((12000, 20000), (2000, 4096), (300, 1024)),
    "output_ccc": ((1500, 1000), (300, 200), (100, 100)),
    "peer_scipy": ((4000, 10000), (500, 2000), (100, 200)),
    "peer_vegan": ((2000, 2000), (300, 1000), (50, 100)),
    "peer_bed": ((10000, 10000), (1000, 1000), (200, 200)),
    "ranks_czek_d": ((6000, 10000), (1500, 2000), (200, 500)),
    "three_czek_s": ((600, 4000), (200, 1000), (40, 200)),
    "three_czek_d": ((500, 4000), (200, 1000), (40, 200)),
    "three_ccc": ((600, 16384), (200, 2048), (40, 512)),
    "three_ccc_sparse": ((500, 16384), (200, 2048), (40, 512)),
    # 3-way against 2-way CCC on the same problems (vectors, samples)
    "three_two_ccc": (((200, 8192), (800, 8192)), ((100, 2048), (200, 2048)),
                      ((30, 256), (60, 256))),
    # short vectors: sample counts; kernel blocks (M x M per core); SNPs of
    # the whole runs (HapMap-like genotypes, bench/genotypes.py)
    "short_samples": ((500, 1000, 2500, 5000), (500, 1000, 2500, 5000), (500, 1000)),
    "short_kernel_m": (1024, 512, 64),
    "short_snps": (10000, 2000, 200),
    "shape_sparse": ((28501, 1000), (4000, 1000), (300, 1000)),
    "ranks_ccc": ((8000, 32768), (2000, 4096), (200, 1024)),
    "threshold_ccc": ((6000, 8192), (1500, 2048), (300, 256)),
    "maf": (((1024, 2000), (4096, 300)), ((256, 500), (1024, 60)), ((64, 50), (256, 10))),
}
SECTIONS = ("runs", "output", "threshold", "three", "short", "ranks", "maf", "peers")
SHORT_MISSING = 0.01  # missing calls of the sparse short-vector runs and of the real shape

MAF_BAND_TOL = 30


def read_saf_bin(path):
    """The SAF values of a starmet --output-format bin file (docs/maf.md's
    layout), one numpy array per site (-inf outside the kept bins)."""
    import struct

    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"STARSAF\0", path
    nbins, nsites = struct.unpack_from("<I", data, 16)[0], struct.unpack_from("<Q", data, 24)[0]
    off, out = 64, []
    for _ in range(nsites):
        (nl,) = struct.unpack_from("<I", data, off)
        off += 4 + nl + 8
        first, count = struct.unpack_from("<II", data, off)
        off += 8
        v = np.full(nbins, -np.inf)
        v[first:first + count] = np.frombuffer(data, "<f8", count, off)
        off += 8 * count
        out.append(v)
    return out


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def npairs(n):
    return n * (n - 1) / 2


class Bench:
    def __init__(self, a):
        self.a = a
        self.build = os.path.abspath(a.build_dir)
        self.starmet = os.path.join(self.build, "starmet")
        self.kernels = os.path.join(self.build, "bench", "kernels")
        self.ncores = a.threads or os.cpu_count() or 1
        self.q = 2 if a.tiny else 1 if a.quick else 0
        self.rows = []  # every measurement
        self.kernels_used = set()  # the kernels of the whole runs (their summaries)
        self.tmp = tempfile.mkdtemp(prefix="starmet-bench-")
        cache = os.path.join(self.build, ".cache")
        self.env = dict(os.environ)
        self.env.update({
            "STARPU_NCPU": str(self.ncores), "STARPU_NOPENCL": "0", "STARPU_NCUDA": "0",
            "STARPU_SILENT": "1", "STARPU_HOME": os.path.join(cache, "starpu"),
            "POCL_CACHE_DIR": os.path.join(cache, "pocl"), "OMP_NUM_THREADS": "1",
        })

    def size(self, key):
        return SIZES[key][self.q]

    def add(self, **kw):
        row = {"section": "", "name": "", "threads": "", "rate": "", "unit": "", "time_s": "",
               "detail": "", "family": "", "b2b": "", "status": ""}
        row.update(kw)
        self.rows.append(row)
        log("  %-8s %-34s %3s threads  %-12s %s" % (row["section"], row["name"], row["threads"],
                                                   fmt(row["rate"]) or row["status"],
                                                   row["detail"]))
        return row

    def section(self, name, fn):
        """Runs one section; a failure is a row of the table (and its
        traceback on stderr), not the end of the benchmark."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001: any failure is reported, the rest goes on
            import traceback
            traceback.print_exc()
            if isinstance(e, subprocess.CalledProcessError):
                cmd = e.cmd if isinstance(e.cmd, str) else " ".join(map(str, e.cmd))
                why = "%s: %s, %s" % (os.path.basename(cmd.split()[0]), exit_text(e.returncode),
                                      last_line(e.stderr, e.stdout))
            else:
                why = "%s: %s" % (type(e).__name__, e)
            self.add(section="failed", name=fn.__name__, status="failed: " + why,
                     detail="section %s" % name)

    # ------------------------------------------------------------ (a), (b)
    def run_kernels(self, args):
        out = subprocess.run([self.kernels, "--threads", str(self.ncores),
                              "--reps", str(self.a.reps)] + args,
                             check=True, capture_output=True, text=True).stdout
        return list(csv.DictReader(out.splitlines()))

    def limits_and_kernels(self):
        log("== limits and kernels (bench/kernels)")
        for r in self.run_kernels(["--czek", self.size("kernel_czek"),
                                   "--ccc", self.size("kernel_ccc")]):
            if r["what"] == "cpu":
                self.features = r["detail"]
                continue
            self.add(section=r["what"], name=r["name"], threads=int(r["threads"]),
                     rate=float(r["rate"]), unit=r["unit"], detail=r["detail"],
                     family=r["detail"].split()[0] if r["what"] != "limit" else "",
                     b2b=float(r["ratio"]) if r.get("ratio") else "")
        auto = ", ".join(sorted({"%s %s" % (r["family"], r["name"]) for r in self.rows
                                 if r["section"] == "kernel_auto"}))
        log("== CPU %s (%s); kernels: %s" % (self.machine()[0], getattr(self, "features", "?"),
                                            auto))

    def limit(self, name, threads, detail=None):
        """The limit's rate: the fastest of its loops (and_popcnt: scalar
        popcnt, or the AVX2 nibble table where that is faster), or the
        loop `detail`."""
        rates = [r["rate"] for r in self.rows
                 if r["section"] == "limit" and r["name"] == name and r["threads"] == threads
                 and (detail is None or r["detail"] == detail)]
        return max(rates) if rates else None

    def ccc_limit(self, threads, sparse):
        """Sample pairs/s at the popcount limit: 64 fields per word, and the
        fewest popcounts per word pair the algebra allows (2 dense, 5 sparse)."""
        w = self.limit("and_popcnt", threads)
        return w * 64 / (5 if sparse else 2) if w else None

    # ------------------------------------------------------------ (c)
    def starmet_run(self, args, tag, launcher=(), env=None):
        """Best of reps runs: (JSON summary of the fastest, its wall time);
        launcher: the command that starts starmet (mpirun -np P), env: its
        environment (default: the benchmark's)."""
        best, best_wall = None, None
        for rep in range(self.a.run_reps):
            js = os.path.join(self.tmp, tag + ".json")
            t = time.perf_counter()
            cmd = list(launcher) + [self.starmet, "compute", "--quiet", "--summary", js] + args
            p = subprocess.run(cmd, env=env or self.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            wall = time.perf_counter() - t
            if p.returncode:
                raise subprocess.CalledProcessError(p.returncode, cmd, stderr=p.stderr)
            if p.stderr and not launcher:
                sys.stderr.write(p.stderr)
            with open(js) as f:
                s = json.load(f)
            if best is None or s["rates"]["comparisons_per_s"] > best["rates"]["comparisons_per_s"]:
                best, best_wall = s, wall
        if best.get("kernel"):
            self.kernels_used.add(best["kernel"])
        return best, best_wall

    def whole_runs(self):
        log("== whole runs (starmet compute, one rank, %d CPU workers)" % self.ncores)
        runs = [
            ("czek2_s", "run_czek_s", ["--synthetic", "random", "--precision", "single"]),
            ("czek2_d", "run_czek_d", ["--synthetic", "random"]),
            ("ccc2", "run_ccc", ["--metric", "ccc", "--synthetic", "random"]),
            ("ccc2_sparse", "run_ccc_sparse",
             ["--metric", "ccc", "--synthetic", "random", "--missing-rate", "0.1"]),
        ]
        for family, key, args in runs:
            nv, nf = self.size(key)
            # the limits just before the run (the machine may be shared)
            # (--tiny: the table's)
            lim = {r["name"]: float(r["rate"]) for r in
                   self.run_kernels(["--only", "limits", "--threads", str(self.ncores)])
                   if r["what"] == "limit" and int(r["threads"]) == self.ncores} \
                if self.q < 2 else None
            s, wall = self.starmet_run(args + ["--num-vector", str(nv), "--num-field", str(nf)],
                                       family)
            bs = s["decomposition"]["block_size"]
            ccc = family.startswith("ccc")
            unit = "sample-pairs/s" if ccc else "comparisons/s"
            self.add(section="run", name=family, threads=self.ncores,
                     rate=s["rates"]["comparisons_per_s"], unit=unit,
                     time_s=s["timings_s"]["compute"], limits=lim,
                     detail="%d x %d, block %d, kernel %s, wall %.2f s" % (nv, nf, bs, s["kernel"],
                                                                         wall))
            # the bare kernel on tiles of the run's block size, all cores at once
            k = self.run_kernels(["--only", family, "--ccc" if ccc else "--czek",
                                  "%d,%d" % (bs, nf)])
            auto = [r for r in k if r["what"] == "kernel_auto" and int(r["threads"]) == self.ncores]
            if auto:  # wall-clock rate, as the run's
                r = auto[0]
                self.add(section="run_kernel", name=family, threads=self.ncores,
                         rate=float(r.get("rate_wall") or r["rate"]), unit=unit,
                         detail="%s on %d x %d tiles of %d fields" % (r["name"], bs, bs, nf))

    def output_runs(self):
        """Writing results: the same CCC 2-way run (1500 x 1000, every value
        written) with --output-format none, bin and tsv; the writing rate is
        values / (wall - wall of none), against the disk's rate for as many
        bytes written from memory (the limit)."""
        nv, nf = self.size("output_ccc")
        log("== output (ccc 2-way %d x %d, every value written)" % (nv, nf))
        nvalues = nv * (nv - 1) // 2 * 4
        walls = {}
        for fmtname in ("none", "bin", "tsv"):
            best = None
            for rep in range(max(2, self.a.run_reps)):
                out = os.path.join(self.tmp, "out_" + fmtname)
                t = time.perf_counter()
                subprocess.run([self.starmet, "compute", "--quiet", "--metric", "ccc",
                                "--synthetic", "random", "--num-vector", str(nv),
                                "--num-field", str(nf), "--output", out,
                                "--output-format", fmtname], env=self.env, check=True,
                               stdout=subprocess.DEVNULL)
                w = time.perf_counter() - t
                best = w if best is None else min(best, w)
            walls[fmtname] = best
        self.wall_none = walls["none"]
        for fmtname, ext in (("bin", ".bin"), ("tsv", ".tsv")):
            path = os.path.join(self.tmp, "out_" + fmtname + ext)
            size = os.path.getsize(path)
            # the disk: as many bytes written from memory and flushed to the page cache
            buf = os.urandom(1 << 20)
            t = time.perf_counter()
            with open(os.path.join(self.tmp, "disk"), "wb") as f:
                for _ in range(size >> 20):
                    f.write(buf)
            disk = (size >> 20 << 20) / (time.perf_counter() - t)
            os.remove(os.path.join(self.tmp, "disk"))
            extra = walls[fmtname] - walls["none"]
            rate = nvalues / extra if extra > 0 else None
            self.add(section="output", name=fmtname, threads=self.ncores, rate=rate,
                     unit="values/s", limits={"disk": disk * nvalues / size},
                     detail="%d values, %.0f MB; wall %.2f s vs %.2f s without output; "
                            "disk %.0f MB/s" % (nvalues, size / 1e6, walls[fmtname],
                                                walls["none"], disk / 1e6))

    def threeway_runs(self):
        """3-way whole runs, one rank, all cores, --output-format none; the
        ratio to the 2-way whole run of the same family (section run)."""
        log("== 3-way whole runs (one rank, %d CPU workers)" % self.ncores)
        for family, key, args in (
                ("czek2_s", "three_czek_s", ["--synthetic", "random", "--precision", "single"]),
                ("czek2_d", "three_czek_d", ["--synthetic", "random"]),
                ("ccc2", "three_ccc", ["--metric", "ccc", "--synthetic", "random"]),
                ("ccc2_sparse", "three_ccc_sparse",
                 ["--metric", "ccc", "--synthetic", "random", "--missing-rate", "0.1"])):
            nv, nf = self.size(key)
            s, wall = self.starmet_run(args + ["--num-way", "3", "--num-vector", str(nv),
                                               "--num-field", str(nf)], "three_" + family)
            two = [r for r in self.rows if r["section"] == "run" and r["name"] == family]
            rate = s["rates"]["comparisons_per_s"]
            self.add(section="run3", name=family, threads=self.ncores, rate=rate,
                     unit="triple comparisons/s", time_s=s["timings_s"]["compute"],
                     ratio=rate / two[0]["rate"] if two else "",
                     detail="%d x %d, block %d, kernel %s, wall %.2f s" % (
                         nv, nf, s["decomposition"]["block_size"], s["kernel"], wall))

    @staticmethod
    def popcount_limit(rows, threads, sparse):
        """Sample pairs/s at the popcount limit from bench/kernels rows (the
        limits of one call): the faster and_popcnt loop x 64 / (2 or 5)."""
        w = [float(r["rate"]) for r in rows
             if r["what"] == "limit" and r["name"] == "and_popcnt" and int(r["threads"]) == threads]
        return max(w) * 64 / (5 if sparse else 2) if w else None

    @staticmethod
    def finalize_share(s):
        """The finalize codelets' share of the run's codelet time (the JSON
        summary's runtime.codelets: total_s per codelet, kind finalize2...)."""
        cod = s.get("runtime", {}).get("codelets", [])
        total = sum(c["total_s"] for c in cod)
        fin = sum(c["total_s"] for c in cod if c["kind"].startswith("finalize"))
        return fin / total if total > 0 else None

    def genotypes(self, prefix, nsnp, nsamp, missing):
        """A .bed of HapMap-like genotypes (bench/genotypes.py); without
        numpy, starmet synth's (uniform genotypes). Returns the generator."""
        if importlib.util.find_spec("numpy") is None:
            self.synth(["--metric", "ccc", "--synthetic", "random", "--missing-rate",
                        repr(missing), "--num-vector", str(nsnp), "--num-field", str(nsamp),
                        "--output-format", "plink"], prefix)
            return "starmet synth (numpy not installed)"
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "genotypes.py"), prefix,
                        str(nsnp), str(nsamp), "--missing", repr(missing)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return "bench/genotypes.py"

    def plink_r2(self, bed, tag):
        """PLINK 1.9 --r2 square bin4 on BED, all threads, the whole command
        timed (best of peer_reps): (wall, None), or (None, status)."""
        return self.peer_cmd("plink1.9", ["plink1.9", "--bfile", bed, "--r2", "square", "bin4",
                                          "--threads", str(self.ncores), "--out",
                                          os.path.join(self.tmp, tag)],
                             sink=os.path.join(self.tmp, tag + ".ld.bin"))

    def short_runs(self):
        """Short vectors, for each sample count: every CCC kernel (dense and
        sparse) on blocks of M x M SNPs with the limits of the same call; the
        whole run on a .bed of HapMap-like genotypes (dense, and sparse with
        1% missing) against the popcount limit, its finalize share, and PLINK
        1.9 --r2 square on the same .bed (whole commands). Then every kernel
        at 1000 samples against its rate on the kernel table's samples, and
        the real shape (28501 SNPs x 1000 samples, 1% missing)."""
        m, nsnp = self.size("short_kernel_m"), self.size("short_snps")
        nc = self.ncores
        lims1000 = None
        for nf in self.size("short_samples"):
            log("== short vectors: %d samples (kernels %d x %d, runs %d SNPs)" % (nf, m, m, nsnp))
            # the limits again in the same call (--tiny: the table's)
            k = self.run_kernels(["--only", ("limits," if self.q < 2 else "") + "ccc2,ccc2_sparse",
                                  "--ccc", "%d,%d" % (m, nf)])
            if nf == 1000:
                lims1000 = k
            for r in k:
                if r["what"] not in ("kernel", "kernel_auto"):
                    continue
                fam, sparse = r["detail"].split()[0], r["detail"].startswith("ccc2_sparse")
                rate, b2b = float(r["rate"]), float(r["ratio"] or 0)
                lim = (self.popcount_limit(k, int(r["threads"]), sparse)
                       or self.ccc_limit(int(r["threads"]), sparse))
                vs = (b2b if self.lim_kind(r["name"]) == "popcount" and b2b
                      else rate / lim if lim else "")
                self.add(section="short_kernel", name=r["name"], family=fam,
                         threads=int(r["threads"]), rate=rate, unit="sample-pairs/s", ratio=vs,
                         samples=nf, auto=r["what"] == "kernel_auto",
                         detail="%s m=n=%d k=%d%s" % (fam, m, nf,
                                                      " (auto)" if r["what"] == "kernel_auto"
                                                      else ""))
            for fam, missing in (("ccc2", 0.0), ("ccc2_sparse", SHORT_MISSING)):
                bed = os.path.join(self.tmp, "short_%d_%s" % (nf, fam))
                gen = self.genotypes(bed, nsnp, nf, missing)
                s, wall = self.starmet_run(["--metric", "ccc", "--bfile", bed], "short")
                rate = s["rates"]["comparisons_per_s"]
                lim = (self.popcount_limit(k, nc, fam == "ccc2_sparse")
                       or self.ccc_limit(nc, fam == "ccc2_sparse"))
                t, status = self.plink_r2(bed, "short_r2")
                self.add(section="short_run", name=fam, family=fam, threads=nc, rate=rate,
                         unit="sample-pairs/s", time_s=s["timings_s"]["compute"],
                         ratio=rate / lim if lim else "", samples=nf, wall=wall,
                         finalize=self.finalize_share(s), kernel=s["kernel"],
                         peer_rate=t and npairs(nsnp) * nf / t, peer_wall=t,
                         peer_ratio=t and t / wall, status=status or "",
                         detail="%d SNPs x %d samples, %g%% missing (%s), block %d, kernel %s, "
                                "wall %.2f s; PLINK 1.9 --r2 square: %s" % (
                                    nsnp, nf, 100 * missing, gen,
                                    s["decomposition"]["block_size"], s["kernel"], wall,
                                    status or "wall %.2f s" % t))
                for f in os.listdir(self.tmp):
                    if f.startswith("short_%d_" % nf):
                        os.unlink(os.path.join(self.tmp, f))
        # every kernel at 1000 samples against the kernel table's samples
        best = {}  # (name, family) -> (rate, auto)
        for r in self.rows:
            if r["section"] == "short_kernel" and r["samples"] == 1000 and r["threads"] == nc:
                key = (r["name"], r["family"])
                old = best.get(key, (0.0, False))
                best[key] = (max(old[0], r["rate"]), old[1] or r["auto"])
        for (name, fam), (rate, auto) in best.items():
            longs = [x["rate"] for x in self.rows if x["section"] in ("kernel", "kernel_auto")
                     and x["name"] == name and x["family"] == fam and x["threads"] == nc]
            self.add(section="short", name=name, family=fam, threads=nc, rate=rate,
                     unit="sample-pairs/s", ratio=rate / max(longs) if longs else "",
                     detail="%s m=n=%d k=1000%s" % (fam, m, " (auto)" if auto else ""))
        # the shape of a real genotype set, sparse
        nv, nf = self.size("shape_sparse")
        log("== the %d x %d sparse shape (%g%% missing)" % (nv, nf, 100 * SHORT_MISSING))
        bed = os.path.join(self.tmp, "shape")
        gen = self.genotypes(bed, nv, nf, SHORT_MISSING)
        s, wall = self.starmet_run(["--metric", "ccc", "--bfile", bed], "shape")
        rate = s["rates"]["comparisons_per_s"]
        lim = (self.popcount_limit(lims1000, nc, True) if lims1000 else None) or \
            self.ccc_limit(nc, True)
        t, status = (None, "not run (--no-peers)") if self.a.no_peers else \
            self.plink_r2(bed, "shape_r2")
        self.add(section="shape", name="ccc2_sparse", threads=nc, rate=rate,
                 unit="sample-pairs/s", time_s=s["timings_s"]["compute"],
                 ratio=rate / lim if lim else "", wall=wall, finalize=self.finalize_share(s),
                 kernel=s["kernel"],
                 detail="%d SNPs x %d samples, %g%% missing (%s), block %d, kernel %s, "
                        "wall %.2f s" % (nv, nf, 100 * SHORT_MISSING, gen,
                                         s["decomposition"]["block_size"], s["kernel"], wall))
        self.add(section="shape_peer", name="PLINK 1.9 --r2 square", threads=nc,
                 rate=t and npairs(nv) * nf / t, unit="sample-pairs/s", time_s=t or "",
                 ratio=t and t / wall, status=status or "",
                 detail=status or "whole command %.1f s, starmet %.1f s wall" % (t, wall))
        for f in os.listdir(self.tmp):
            if f.startswith("shape"):
                os.unlink(os.path.join(self.tmp, f))

    def three_two_runs(self):
        """3-way against 2-way CCC on the same problems (dense, and sparse
        with 10% missing): rates per element comparison (triples x samples
        against pairs x samples), compute time from the summaries."""
        log("== 3-way / 2-way CCC on the same problems")
        for nv, nf in self.size("three_two_ccc"):
            for fam, extra in (("ccc", []), ("ccc_sparse", ["--missing-rate", "0.1"])):
                args = ["--metric", "ccc", "--synthetic", "random", "--num-vector", str(nv),
                        "--num-field", str(nf)] + extra
                s2, w2 = self.starmet_run(args, "tt2")
                s3, w3 = self.starmet_run(args + ["--num-way", "3"], "tt3")
                r2, r3 = s2["rates"]["comparisons_per_s"], s3["rates"]["comparisons_per_s"]
                self.add(section="three_two", name=fam, family=fam, threads=self.ncores,
                         rate=r3, unit="triple comparisons/s", time_s=s3["timings_s"]["compute"],
                         ratio=r3 / r2, rate2=r2, problem="%d x %d" % (nv, nf),
                         detail="%d vectors x %d samples; 2-way %s /s (compute %.3f s, wall "
                                "%.2f s, kernel %s), 3-way %s /s (compute %.3f s, wall %.2f s)"
                                % (nv, nf, fmt(r2), s2["timings_s"]["compute"], w2, s2["kernel"],
                                   fmt(r3), s3["timings_s"]["compute"], w3))

    def threshold_run(self):
        """CCC 2-way writing the values above their 99th percentile (1%, TSV)
        against the same run writing none: wall clock, best of run_reps. The
        run is a few seconds long (a run of a tenth of a second measures the
        process's start, not the threshold); the percentile comes from a
        small run of the same field count (the values' spread depends on it)."""
        nv, nf = self.size("threshold_ccc")
        log("== threshold (ccc 2-way %d x %d, 1%% of the values written)" % (nv, nf))
        small = os.path.join(self.tmp, "thr_small")
        subprocess.run([self.starmet, "compute", "--quiet", "--metric", "ccc", "--synthetic",
                        "random", "--num-vector", str(min(nv, 400)), "--num-field", str(nf),
                        "--output", small], env=self.env, check=True, stdout=subprocess.DEVNULL)
        vals = []
        with open(small + ".tsv") as f:
            next(f)
            for line in f:
                vals.append(float(line.rsplit("\t", 1)[1]))
        vals.sort()
        thr = vals[int(0.99 * len(vals))]
        walls, js = {}, None
        for tag, extra in (("none", ["--output-format", "none"]),
                           ("thr", ["--threshold", repr(thr)])):
            for rep in range(max(2, self.a.run_reps)):
                out = os.path.join(self.tmp, "out_" + tag)
                t = time.perf_counter()
                subprocess.run([self.starmet, "compute", "--quiet", "--metric", "ccc",
                                "--synthetic", "random", "--num-vector", str(nv), "--num-field",
                                str(nf), "--output", out, "--summary", out + ".json"] + extra,
                               env=self.env, check=True, stdout=subprocess.DEVNULL)
                w = time.perf_counter() - t
                walls[tag] = w if tag not in walls else min(walls[tag], w)
            if tag == "thr":
                with open(out + ".json") as f:
                    js = json.load(f)
        frac = js["counts"]["written"] / js["counts"]["values"]
        self.add(section="threshold", name="tsv", threads=self.ncores, time_s=walls["thr"],
                 ratio=walls["thr"] / walls["none"],
                 detail="%d x %d: --threshold %.6g writes %.2f%% of %d values; wall %.2f s vs "
                        "%.2f s without output" % (nv, nf, thr, 100 * frac,
                                                   js["counts"]["values"], walls["thr"],
                                                   walls["none"]))

    def ranks_runs(self):
        """P = 2 ranks (npv = 2) under mpirun on the machine's cores against
        P = 1 on the same cores, best of run_reps each: the ranks run with
        the workers and binding starmet chooses (STARPU_NCPU unset)."""
        mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
        if not mpirun:
            log("== ranks: no mpirun, skipped")
            return
        log("== ranks (P = 2 under mpirun against P = 1, %d cores)" % self.ncores)
        env = dict(self.env)
        env.pop("STARPU_NCPU", None)
        env.update({"OMPI_MCA_orte_tmpdir_base": self.tmp, "OMPI_ALLOW_RUN_AS_ROOT": "1",
                    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                    "OMPI_MCA_rmaps_base_oversubscribe": "1"})
        for family, key, args in (
                ("czek2_d", "ranks_czek_d", ["--synthetic", "random"]),
                ("ccc2", "ranks_ccc", ["--metric", "ccc", "--synthetic", "random"])):
            nv, nf = self.size(key)
            args = args + ["--num-vector", str(nv), "--num-field", str(nf)]
            one, _ = self.starmet_run(args, "ranks1_" + family)
            best, _ = self.starmet_run(args + ["--num-proc-vector", "2"], "ranks2_" + family,
                                       launcher=(mpirun, "-np", "2"), env=env)
            r1, r2 = one["rates"]["comparisons_per_s"], best["rates"]["comparisons_per_s"]
            workers = {}
            for w in best["runtime"]["workers"]:
                workers[w["rank"]] = workers.get(w["rank"], 0) + 1
            bind = ", ".join("rank %d cpus %s (%s)" % (b["rank"], b["cpus"], b["mode"])
                             for b in best["runtime"]["binding"])
            self.add(section="ranks", name=family, threads=self.ncores, rate=r2,
                     unit="sample-pairs/s" if family == "ccc2" else "comparisons/s",
                     time_s=best["timings_s"]["compute"], ratio=r2 / r1,
                     detail="%d x %d; P=1 %s; P=2 %s workers %s; %s" % (
                         nv, nf, fmt(r1), fmt(r2), "+".join(str(workers[k]) for k in sorted(workers)),
                         bind))

    # ------------------------------------------------------------ (d)
    def timed_rss(self, cmd, env=None):
        """(wall seconds, peak resident MB) of a command run to completion."""
        t = time.perf_counter()
        p = subprocess.Popen(cmd, env=env or self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise RuntimeError("%s failed: %s" % (" ".join(cmd), err.strip()[-400:]))
        return wall, ru.ru_maxrss / 1024.0

    def maf_runs(self):
        """maf on simulated BEAGLE files: exact and banded whole runs (SAF,
        EM, peak memory), the banded error on bins >= -10, the iterative
        reference on the first sites, ANGSD where installed."""
        import numpy as np
        here = os.path.dirname(os.path.abspath(__file__))
        log("== maf (simulated BEAGLE files, %d CPU workers)" % self.ncores)
        for n, sites in self.size("maf"):
            beagle = os.path.join(self.tmp, "maf%d.beagle" % n)
            subprocess.run([sys.executable, os.path.join(here, "beagle.py"), str(n), str(sites),
                            beagle], check=True)
            res = {}
            for tag, tol in (("exact", 0), ("banded", MAF_BAND_TOL)):
                out = os.path.join(self.tmp, "maf%d_%s" % (n, tag))
                best = None
                for _ in range(self.a.run_reps):
                    wall, rss = self.timed_rss([self.starmet, "maf", "--quiet", "--input", beagle,
                                                "--band-tol", str(tol), "--output-format", "bin",
                                                "--output", out, "--summary", out + ".json"])
                    if best is None or wall < best[0]:
                        best = (wall, rss)
                with open(out + ".json") as f:
                    js = json.load(f)
                res[tag] = (best, js, read_saf_bin(out + ".saf.bin"))
            err = 0.0
            for e, b in zip(res["exact"][2], res["banded"][2]):
                top = e >= -10
                err = max(err, float(np.max(np.abs(e[top] - b[top]))) if top.any() else 0.0)
            for tag in ("exact", "banded"):
                (wall, rss), js, _ = res[tag]
                t = js["timings_s"]
                self.add(section="maf", name="%s N=%d" % (tag, n), threads=self.ncores,
                         rate=sites / wall, unit="sites/s", time_s=wall, family=tag,
                         detail="%d individuals x %d sites, block %d; SAF %.2f s, EM %.2f s "
                                "(%d iterations), wall %.2f s, peak %.0f MB%s" % (
                                    n, sites, js["block_size"], t["saf"], t["em"],
                                    js["sfs_em"]["iterations"], wall, rss,
                                    "; T = %g, largest error on bins >= -10: %.2g" % (
                                        MAF_BAND_TOL, err) if tag == "banded" else ""),
                         err=err if tag == "banded" else "", n=n, saf_s=t["saf"])
            # the iterative reference on the first sites (it is N times slower)
            nref = max(2, min(sites, 40960 // n))
            sub = os.path.join(self.tmp, "maf%d_sub.beagle" % n)
            with open(beagle) as fi, open(sub, "w") as fo:
                for k, line in enumerate(fi):
                    if k > nref:
                        break
                    fo.write(line)
            out = os.path.join(self.tmp, "maf%d_ref" % n)
            wall, rss = self.timed_rss([self.starmet, "maf", "--quiet", "--input", sub,
                                        "--kernel", "ref", "--output-format", "bin", "--output",
                                        out, "--summary", out + ".json"])
            with open(out + ".json") as f:
                t = json.load(f)["timings_s"]
            ex_saf = res["exact"][1]["timings_s"]["saf"]
            self.add(section="maf_ref", name="iterative reference N=%d" % n,
                     threads=self.ncores, rate=nref / t["saf"], unit="sites/s",
                     ratio=(sites / ex_saf) / (nref / t["saf"]), n=n,
                     detail="SAF of the first %d sites, %.2f s; exact tree / reference "
                            "SAF rate" % (nref, t["saf"]))
            angsd = shutil.which("angsd")
            if not angsd:
                self.add(section="maf_angsd", name="ANGSD N=%d" % n, n=n,
                         detail="no angsd on the PATH: not compared")
                continue
            # ANGSD -doSaf 4 reads the BEAGLE file (gzipped) with a .fai
            gz = beagle + ".gz"
            subprocess.run("gzip -c %s > %s" % (beagle, gz), shell=True, check=True)
            with open(beagle + ".fai", "w") as f:
                f.write("chr1\t%d\t6\t60\t61\n" % (1000 + 10 * sites + 10))
            for P in (2, 3):
                try:
                    wall, rss = self.timed_rss([angsd, "-beagle", gz, "-fai", beagle + ".fai",
                                                "-doSaf", "4", "-P", str(P), "-out",
                                                os.path.join(self.tmp, "angsd%d_%d" % (n, P))])
                except RuntimeError as e:
                    self.add(section="maf_angsd", name="ANGSD N=%d -P %d" % (n, P), n=n,
                             detail="failed: %s" % e)
                    continue
                self.add(section="maf_angsd", name="ANGSD N=%d -P %d" % (n, P), n=n,
                         rate=sites / wall, unit="sites/s", time_s=wall, threads=P,
                         ratio=res["banded"][0][0] and wall / res["banded"][0][0][0],
                         detail="-doSaf 4 (its default banding), wall %.2f s, peak %.0f MB; "
                                "x = ANGSD wall / starmet banded wall" % (wall, rss))

    def synth(self, args, out):
        subprocess.run([self.starmet, "synth", "--output", out] + args, env=self.env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def peer_cmd(self, tool, cmd, sink=None):
        """A peer tool's whole command, run in the scratch directory, best
        wall time of peer_reps: (seconds, None); or (None, status) when it
        cannot be measured: "TOOL: not installed" (not on the PATH), "TOOL:
        failed: exit N, <its last stderr line>". sink: its output file,
        made a link to /dev/null while it runs (the tool computes, formats
        and writes every value; none is stored, as with starmet's
        --output-format none)."""
        if not shutil.which(cmd[0]):
            return None, "%s: not installed" % tool
        best = None
        for _ in range(self.a.peer_reps):
            if sink:
                if os.path.lexists(sink):
                    os.unlink(sink)
                os.symlink(os.devnull, sink)
            t = time.perf_counter()
            try:
                p = subprocess.run(cmd, cwd=self.tmp, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
            except OSError as e:
                return None, "%s: failed: %s" % (tool, e.strerror or e)
            wall = time.perf_counter() - t
            if sink and os.path.lexists(sink):
                os.unlink(sink)
            if p.returncode != 0:
                return None, "%s: failed: %s, %s" % (tool, exit_text(p.returncode),
                                                      last_line(p.stderr, p.stdout))
            best = wall if best is None else min(best, wall)
        return best, None

    def starmet_on(self, peer, args, ncmp, tag, unit, precision="double"):
        extra = ["--precision", precision] if precision == "single" else []
        s, wall = self.starmet_run(args + extra, tag)
        name = "starmet (%s)" % s["kernel"]
        self.add(section="peer_starmet", name=name, threads=self.ncores,
                 rate=s["rates"]["comparisons_per_s"], unit=unit,
                 time_s=s["timings_s"]["compute"],
                 detail="%s data; wall %.2f s = %.4g /s" % (peer, wall, ncmp / wall))
        return s["rates"]["comparisons_per_s"], ncmp / wall

    def peer_missing(self, name, threads, status, data):
        self.add(section="peer", name=name, threads=threads, status=status, detail=data)

    def peers(self):
        log("== peers on the same data")
        try:
            import numpy as np
        except ImportError:
            np = None
        try:
            from scipy.spatial.distance import pdist
        except ImportError:
            pdist = None
        # scipy pdist braycurtis (float64, one thread) on an .npy
        nv, nf = self.size("peer_scipy")
        data = "scipy data (%d x %d float64); pdist call only" % (nv, nf)
        if np is None or pdist is None:
            self.peer_missing("scipy pdist braycurtis", 1, "scipy: not installed" if np else
                              "scipy: not measured (numpy not installed)", data)
        else:
            npy = os.path.join(self.tmp, "cz.npy")
            self.synth(["--metric", "czekanowski", "--synthetic", "random", "--num-vector",
                        str(nv), "--num-field", str(nf), "--output-format", "npy"], npy)
            X = np.load(npy)
            ncmp = npairs(nv) * nf
            best = 1e30
            for _ in range(self.a.peer_reps):
                t = time.perf_counter()
                pdist(X, "braycurtis")
                best = min(best, time.perf_counter() - t)
            self.add(section="peer", name="scipy pdist braycurtis", threads=1, rate=ncmp / best,
                     unit="comparisons/s", time_s=best, detail=data)
            for prec in ("double", "single"):
                self.starmet_on("scipy", ["--input", npy], ncmp, "scipy_" + prec,
                                "comparisons/s", prec)
        # R vegan vegdist bray (one thread) on the same values (raw float64)
        nv, nf = self.size("peer_vegan")
        data = "vegan data (%d x %d float64); vegdist call only" % (nv, nf)
        if np is None:
            self.peer_missing("R vegan vegdist bray", 1,
                              "R vegan: not measured (numpy not installed)", data)
        else:
            npy = os.path.join(self.tmp, "vg.npy")
            self.synth(["--metric", "czekanowski", "--synthetic", "random", "--num-vector",
                        str(nv), "--num-field", str(nf), "--output-format", "npy"], npy)
            raw = os.path.join(self.tmp, "vg.f64")
            np.load(npy).astype("<f8").tofile(raw)
            ncmp = npairs(nv) * nf
            t, status = self.vegan(raw, nv, nf)
            if status:
                self.peer_missing("R vegan vegdist bray", 1, status, data)
            else:
                self.add(section="peer", name="R vegan vegdist bray", threads=1, rate=ncmp / t,
                         unit="comparisons/s", time_s=t, detail=data)
                self.starmet_on("vegan", ["--input", npy], ncmp, "vegan", "comparisons/s")
        # PLINK 1.9 --r2 square (SNP pairs x samples) and plink2 --make-king
        # square (sample pairs x SNPs) on one .bed, as many SNPs as samples
        ns, nsamp = self.size("peer_bed")
        bed = os.path.join(self.tmp, "geno")
        self.synth(["--metric", "ccc", "--synthetic", "random", "--num-vector", str(ns),
                    "--num-field", str(nsamp), "--output-format", "plink"], bed)
        ncmp = npairs(ns) * nsamp
        data = "r2 data (%d SNPs x %d samples); whole command" % (ns, nsamp)
        t, status = self.plink_r2(bed, "r2o")
        if status:
            self.peer_missing("PLINK 1.9 --r2 square", self.ncores, status, data)
        else:
            self.add(section="peer", name="PLINK 1.9 --r2 square", threads=self.ncores,
                     rate=ncmp / t, unit="sample-pairs/s", time_s=t, detail=data)
        data2 = "king data (the same .bed); whole command"
        t2, status2 = self.peer_cmd("plink2", ["plink2", "--bfile", bed, "--make-king", "square",
                                               "bin4", "--threads", str(self.ncores), "--out",
                                               os.path.join(self.tmp, "kingo")],
                                    sink=os.path.join(self.tmp, "kingo.king.bin"))
        if status2:
            self.peer_missing("plink2 --make-king square", self.ncores, status2, data2)
        else:
            self.add(section="peer", name="plink2 --make-king square", threads=self.ncores,
                     rate=npairs(nsamp) * ns / t2, unit="sample-pairs/s", time_s=t2,
                     detail=data2)
        if not (status and status2):
            self.starmet_on("r2", ["--bfile", bed], ncmp, "geno", "sample-pairs/s")

    def vegan(self, raw, nv, nf):
        """R vegan's vegdist time (bench/peers.R): (seconds, None), or (None,
        status): no Rscript, no vegan package (peers.R exits 3), failed."""
        if not shutil.which("Rscript"):
            return None, "R vegan: not installed (no Rscript)"
        try:
            p = subprocess.run(["Rscript", os.path.join(ROOT, "bench", "peers.R"), raw, str(nv),
                                str(nf), str(self.a.peer_reps)], capture_output=True, text=True)
        except OSError as e:
            return None, "R vegan: failed: %s" % (e.strerror or e)
        if p.returncode == 3:
            return None, "R vegan: not installed (no R package vegan)"
        try:
            t = float(p.stdout.split()[-1]) if p.returncode == 0 else None
        except (IndexError, ValueError):
            t = None
        if t is None or t <= 0:
            return None, "R vegan: failed: %s, %s" % (exit_text(p.returncode),
                                                      last_line(p.stderr, p.stdout))
        return t, None

    # ------------------------------------------------------------ report
    def machine(self):
        model = "?"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        model = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        try:
            commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                    capture_output=True, text=True).stdout.strip() or "?"
        except OSError:
            commit = "?"
        return model, commit

    def report(self, argv):
        model, commit = getattr(self, "built_from", None) or self.machine()
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M")
        host = socket.gethostname().split(".")[0]
        outdir = self.a.out
        os.makedirs(outdir, exist_ok=True)
        base = os.path.join(outdir, "%s-%s" % (stamp, host))
        fields = ["section", "name", "family", "threads", "rate", "unit", "time_s", "ratio",
                  "detail", "status"]
        self.ratios()
        for path in (base + ".csv", os.path.join(outdir, "latest.csv")):
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
                w.writeheader()
                for r in self.rows:
                    w.writerow(r)
        md = self.markdown(model, commit, argv)
        for path in (base + ".md", os.path.join(outdir, "latest.md")):
            with open(path, "w") as f:
                f.write(md)
        log("== wrote %s.csv, %s.md (and latest.*)" % (base, base))
        sys.stdout.write(md)

    def own_limit(self, name, family, threads, lims=None):
        """The limit of a kernel's own formulation at this thread count, in
        its units: min+add pairs, sample pairs at the popcount limit, or
        sample pairs at the int8 MAC limit (1 MAC per pair dense, 4 sparse).
        lims: limits measured just before (name -> rate), else the table's."""
        get = (lambda n: lims.get(n)) if lims else (lambda n: self.limit(n, threads))
        if family == "czek2_s":
            return get("minadd_sp")
        if family == "czek2_d":
            return get("minadd_dp")
        sparse = family == "ccc2_sparse"
        if "amx" in name or "vnni" in name or "i8" in name:
            mac = get("int8_mac_amx" if "amx" in name else "int8_mac")
            return mac / (4 if sparse else 1) if mac else None
        w = get("and_popcnt")
        return w * 64 / (5 if sparse else 2) if w else None

    @staticmethod
    def lim_kind(name):
        return "int8" if ("amx" in name or "vnni" in name or "i8" in name) else "popcount"

    def ratios(self):
        """ratio: kernels and runs to their limit (same thread count); run
        kernels: the run to the bare kernel on its tiles."""
        for r in self.rows:
            if r["section"] in ("kernel", "kernel_auto"):
                # measured back to back with its limit (bench/kernels)
                r["ratio"] = r["b2b"]
            elif r["section"] == "run":
                lim = self.own_limit(r["detail"], r["name"], r["threads"], r.get("limits"))
                r["ratio"] = r["rate"] / lim if lim else ""
            elif r["section"] == "output":
                lim = r["limits"]["disk"]
                r["ratio"] = r["rate"] / lim if r["rate"] and lim else ""
            elif r["section"] == "run_kernel":
                run = [x for x in self.rows if x["section"] == "run" and x["name"] == r["name"]]
                r["ratio"] = run[0]["rate"] / r["rate"] if run else ""

    def isa_lines(self, model):
        """The table's header: the CPU, the ISA extensions bench/kernels
        found, the kernel variant each family's automatic choice runs, the
        kernels the whole runs used (their JSON summaries) and the CPU
        kernels starmet --version lists."""
        auto = {}
        for r in self.rows:
            if r["section"] in ("kernel_auto",) and r["family"] not in auto:
                auto[r["family"]] = r["name"]
        ver = ""
        try:
            out = subprocess.run([self.starmet, "--version"], capture_output=True, text=True,
                                 env=self.env).stdout
            ver = next((x.split(":", 1)[1].strip() for x in out.splitlines()
                        if x.startswith("CPU kernels:")), "")
        except OSError:
            pass
        L = ["- CPU: %s; %d cores used" % (model, self.ncores),
             "- ISA extensions: %s" % getattr(self, "features", "?"),
             "- kernels (each family's automatic choice, bench/kernels): %s" % (
                 ", ".join("%s %s" % kv for kv in auto.items()) or "?")]
        if self.kernels_used:
            L.append("- kernels the whole runs used (their summaries): %s" %
                     ", ".join(sorted(self.kernels_used)))
        if ver:
            L.append("- starmet's CPU kernels: %s" % ver)
        return L + [""]

    def markdown(self, model, commit, argv):
        L = []
        nc = self.ncores
        L.append("Measured by `bench/run%s`, %s, starmet %s.\n" % (
            (" " + " ".join(argv)) if argv else "", datetime.date.today().isoformat(), commit))
        L.extend(self.isa_lines(model))
        L.append("Rates are element comparisons per second (pairs x fields; for genotypes "
                 "pairs x samples), best of several runs on a shared machine.\n")
        fails = [r for r in self.rows if r["section"] == "failed"]
        if fails:
            L.append("**Sections that failed** (the rest of the table is complete)\n")
            for r in fails:
                L.append("- %s (%s): %s" % (r["detail"], r["name"], r["status"]))
            L.append("")
        # limits
        L.append("**Physical limits** (instruction loops, operands in registers)\n")
        L.append("| limit | 1 core | %d cores | what |" % nc)
        L.append("| --- | ---: | ---: | --- |")
        for name, det in dict.fromkeys((r["name"], r["detail"]) for r in self.rows
                                       if r["section"] == "limit"):
            one, alln = self.limit(name, 1, det), self.limit(name, nc, det)
            d = [r for r in self.rows if r["section"] == "limit" and r["name"] == name][0]
            L.append("| %s | %s | %s | %s, %s |" % (name, fmt(one), fmt(alln), det, d["unit"]))
        for sp in (0, 1):
            L.append("| ccc %s popcount limit | %s | %s | the faster and_popcnt x 64 / %d "
                     "popcounts per word pair, sample-pairs/s |" % ("sparse" if sp else "dense",
                                                 fmt(self.ccc_limit(1, sp)),
                                                 fmt(self.ccc_limit(nc, sp)), 5 if sp else 2))
        # kernels
        L.append("\n**Kernels** (one call per core, blocks of %s; Czekanowski m=n,k; CCC m=n,samples)\n"
                 % "/".join(self.size(k) for k in ("kernel_czek", "kernel_ccc")))
        L.append("| kernel | family | 1 core | vs limit | %d cores | vs limit | %d cores vs popcount limit |" % (nc, nc))
        L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        seen = set()
        for r in self.rows:
            if r["section"] not in ("kernel", "kernel_auto"):
                continue
            key = (r["name"], r["family"])
            if key in seen:
                continue
            seen.add(key)
            one = self.find(r["section"], r["name"], 1, r["detail"])
            alln = self.find(r["section"], r["name"], nc, r["detail"])
            auto = any(x["section"] == "kernel_auto" and x["name"] == r["name"] and
                       x["family"] == r["family"] for x in self.rows)
            pl = ""
            if r["family"].startswith("ccc2") and alln:
                pl = (pct(alln["ratio"]) if "int8" not in self.lim_kind(r["name"])
                      else pct(alln["rate"] / self.ccc_limit(nc, r["family"] == "ccc2_sparse")))
            L.append("| %s%s | %s | %s | %s | %s | %s | %s |" % (
                r["name"], " (auto)" if auto else "", r["family"], fmt(one and one["rate"]),
                pct(one and one["ratio"]), fmt(alln and alln["rate"]), pct(alln and alln["ratio"]),
                pl))
        L.append("\n(vs limit: Czekanowski against min+add, popcount kernels against the "
                 "popcount limit, int8 kernels against the int8 MAC limit; each measured back to "
                 "back with its limit, best of %d.)" % self.a.reps)
        # whole runs
        L.append("\n**Whole runs** (`starmet compute`, one rank, %d CPU workers, "
                 "--output-format none; compute time from the JSON summary)\n" % nc)
        L.append("| run | problem | comparisons/s | vs limit | bare kernel on the run's tiles | run / kernel |")
        L.append("| --- | --- | ---: | ---: | ---: | ---: |")
        for r in self.rows:
            if r["section"] != "run":
                continue
            k = [x for x in self.rows if x["section"] == "run_kernel" and x["name"] == r["name"]]
            L.append("| %s | %s | %s | %s | %s | %s |" % (
                r["name"], r["detail"], fmt(r["rate"]), pct(r["ratio"]),
                fmt(k[0]["rate"]) if k else "", pct(k[0]["ratio"]) if k else ""))
        r3 = [r for r in self.rows if r["section"] == "run3"]
        if r3:
            L.append("\n**3-way whole runs** (one rank, %d CPU workers, --output-format none; "
                     "triples x fields per second, against the 2-way run of the same family "
                     "above, pairs x fields per second)\n" % nc)
            L.append("| run | problem | comparisons/s | 3-way / 2-way |")
            L.append("| --- | --- | ---: | ---: |")
            for r in r3:
                L.append("| %s | %s | %s | %s |" % (r["name"], r["detail"], fmt(r["rate"]),
                                                    pct(r["ratio"])))
        tt = [r for r in self.rows if r["section"] == "three_two"]
        if tt:
            L.append("\n**3-way against 2-way CCC on the same problems** (one rank, %d CPU "
                     "workers, --output-format none; synthetic genotypes, sparse: 10%% missing; "
                     "compute time from the summaries; 3-way triples x samples per second "
                     "against 2-way pairs x samples per second)\n" % nc)
            L.append("| family | vectors x samples | 2-way sample-pairs/s | 3-way "
                     "sample-triples/s | 3-way / 2-way |")
            L.append("| --- | --- | ---: | ---: | ---: |")
            for r in tt:
                L.append("| %s | %s | %s | %s | %s |" % (r["name"], r["problem"], fmt(r["rate2"]),
                                                         fmt(r["rate"]), pct(r["ratio"])))
        L.extend(self.short_md())
        sh = [r for r in self.rows if r["section"] == "short"]
        if sh:
            L.append("\n**Every CCC kernel at 1000 samples** (%d x %d blocks x 1000 samples, "
                     "against its rate on the kernel table's samples; %d cores)\n" % (
                         self.size("short_kernel_m"), self.size("short_kernel_m"), nc))
            L.append("| kernel | family | sample-pairs/s | vs the long-vector rate |")
            L.append("| --- | --- | ---: | ---: |")
            for r in sh:
                L.append("| %s%s | %s | %s | %s |" % (r["name"], " (auto)" if "(auto)" in r["detail"]
                                                    else "", r["family"], fmt(r["rate"]),
                                                    pct(r["ratio"])))
        for r in self.rows:
            if r["section"] == "threshold":
                L.append("\nWriting 1%% of the values: %s (%s of the run without output)." %
                         (r["detail"], pct(r["ratio"])))
        ranks = [r for r in self.rows if r["section"] == "ranks"]
        if ranks:
            L.append("\n**Ranks on the same cores** (`mpirun -np 2`, npv = 2, workers and "
                     "binding as starmet chooses them, against one rank with %d workers)\n" % nc)
            L.append("| run | P = 2 / P = 1 | detail |")
            L.append("| --- | ---: | --- |")
            for r in ranks:
                L.append("| %s | %s | %s |" % (r["name"], pct(r["ratio"]), r["detail"]))
        outs = [r for r in self.rows if r["section"] == "output"]
        if outs:
            L.append("\n**Writing results** (CCC 2-way, every value written; rate = values / "
                     "extra wall time over --output-format none; limit: the disk's rate for "
                     "the same bytes)\n")
            L.append("| format | values/s | vs disk | detail |")
            L.append("| --- | ---: | ---: | --- |")
            for r in outs:
                L.append("| %s | %s | %s | %s |" % (r["name"], fmt(r["rate"]), pct(r["ratio"]),
                                                    r["detail"]))
        mafs = [r for r in self.rows if r["section"] in ("maf", "maf_ref", "maf_angsd")]
        if mafs:
            L.append("\n**maf (GAMA)** (`starmet maf` whole runs on simulated BEAGLE files, "
                     "bench/beagle.py: mostly rare variants, 0-5 reads, 5%% of individuals "
                     "without data; %d CPU workers; banded: --band-tol %g)\n" % (
                         self.ncores, MAF_BAND_TOL))
            L.append("| run | sites/s | x | detail |")
            L.append("| --- | ---: | ---: | --- |")
            for r in mafs:
                L.append("| %s | %s | %s | %s |" % (r["name"], fmt(r["rate"]),
                                                    "%.1f" % r["ratio"] if r.get("ratio") else "",
                                                    r["detail"]))
        # peers
        peers = [r for r in self.rows if r["section"] == "peer"]
        if peers:
            L.append("\n**Peers on the same data** (starmet: all cores; its compute rate and its "
                     "whole-process rate, wall)\n")
            L.append("| tool | threads | comparisons/s | starmet (compute) | x | starmet (wall) | x | data |")
            L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
            for p in peers:
                if p["status"]:
                    L.append("| %s | %s | %s | | | | | %s |" % (p["name"], p["threads"],
                                                               p["status"],
                                                               p["detail"].split("; ")[0]))
                    continue
                tag = p["detail"].split()[0]
                tag = "r2" if tag == "king" else tag  # one .bed for both PLINK tools
                for s in self.rows:
                    if s["section"] == "peer_starmet" and s["detail"].startswith(tag + " "):
                        wall = float(s["detail"].split("= ")[1].split()[0])
                        L.append("| %s vs %s | %s | %s | %s | %.1f | %s | %.1f | %s |" % (
                            p["name"], s["name"], p["threads"], fmt(p["rate"]), fmt(s["rate"]),
                            s["rate"] / p["rate"], fmt(wall), wall / p["rate"],
                            p["detail"].split("; ")[0]))
        L.append("\n**Goals**\n")
        L.extend(self.goals())
        return "\n".join(L) + "\n"

    def short_md(self):
        """The short-vector table (one row per sample count and family) and
        the real shape's row."""
        L, nc = [], self.ncores
        rows = [r for r in self.rows if r["section"] == "short_run"]
        if rows:
            m = self.size("short_kernel_m")
            L.append("\n**Short vectors** (CCC 2-way, %d cores. Kernel: the automatic choice, "
                     "one call per core on %d x %d SNP blocks, CPU time, against the popcount "
                     "limit measured in the same call (sparse: 10%% missing). Whole run: "
                     "`starmet compute --bfile` on %d SNPs of HapMap-like genotypes "
                     "(bench/genotypes.py; dense: no missing call, sparse: %g%% missing), "
                     "compute time from the summary, against the popcount limit; finalize: the "
                     "finalize tasks' share of the codelets' time. PLINK 1.9: `--r2 square "
                     "bin4` on the same .bed, %d threads, its whole command against starmet's "
                     "whole command)\n" % (nc, m, m, self.size("short_snps"),
                                            100 * SHORT_MISSING, nc))
            L.append("| samples | family | kernel | kernel sample-pairs/s | kernel / popcount "
                     "limit | run sample-pairs/s | run / popcount limit | finalize | "
                     "PLINK 1.9 sample-pairs/s | PLINK wall / starmet wall |")
            L.append("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for r in rows:
                k = [x for x in self.rows if x["section"] == "short_kernel" and x["auto"]
                     and x["samples"] == r["samples"] and x["family"] == r["family"]
                     and x["threads"] == nc]
                L.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    r["samples"], "dense" if r["family"] == "ccc2" else "sparse",
                    k[0]["name"] if k else "", fmt(k[0]["rate"]) if k else "",
                    pct(k[0]["ratio"]) if k else "", fmt(r["rate"]), pct(r["ratio"]),
                    pct(r["finalize"]), r["status"] or fmt(r["peer_rate"]),
                    "" if r["status"] else "%.1fx" % r["peer_ratio"]))
        shape = [r for r in self.rows if r["section"] == "shape"]
        peer = [r for r in self.rows if r["section"] == "shape_peer"]
        if shape:
            r, p = shape[0], (peer[0] if peer else None)
            L.append("\n**A real genotype set's shape** (sparse CCC whole run, %d cores; "
                     "PLINK 1.9 `--r2 square bin4` on the same .bed, whole commands)\n" % nc)
            L.append("| problem | sample-pairs/s | / sparse popcount limit | finalize | "
                     "starmet wall | PLINK 1.9 | PLINK wall / starmet wall |")
            L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            L.append("| %s | %s | %s | %s | %.2f s | %s | %s |" % (
                r["detail"], fmt(r["rate"]), pct(r["ratio"]), pct(r["finalize"]), r["wall"],
                (p["status"] or "%.2f s" % p["time_s"]) if p else "",
                "%.1fx" % p["ratio"] if p and p["ratio"] else ""))
        return L

    def find(self, section, name, threads, detail):
        """The best of the kernel's measurements (kernel and kernel_auto rows
        measure the same kernel) at this thread count."""
        best = None
        for r in self.rows:
            if (r["section"] in ("kernel", "kernel_auto") and r["name"] == name
                    and r["threads"] == threads and r["detail"] == detail):
                if best is None or r["rate"] > best["rate"]:
                    best = dict(r)
                    if r["ratio"] == "" or (best.get("ratio") or 0) < r["ratio"]:
                        best["ratio"] = r["ratio"]
        return best

    def goals(self):
        nc = self.ncores
        out = []

        def kern(family, sparse):
            for r in self.rows:
                if (r["section"] == "kernel_auto" and r["threads"] == nc
                        and r["family"] == family + ("_sparse" if sparse else "")):
                    return self.find(r["section"], r["name"], nc, r["detail"])
            return None

        def goal(text, value, target, ok_fmt=pct, why=""):
            if value is None or value == "":
                out.append("- %s: not measured%s" % (text, " (%s)" % why if why else ""))
            else:
                out.append("- %s: %s (goal %s) %s" % (text, ok_fmt(value), ok_fmt(target),
                                                       "**met**" if value >= target else "**not met**"))

        for fam, target in (("czek2_s", 0.85), ("czek2_d", 0.80)):
            r = kern(fam, False)
            goal("Czekanowski %s kernel / min+add limit, %d cores" % (
                "single" if fam.endswith("s") else "double", nc), r and r["ratio"], target)
        r = kern("ccc2", False)
        goal("CCC dense kernel / popcount limit (2 popcounts per word pair), %d cores" % nc,
             r and (r["ratio"] if self.lim_kind(r["name"]) == "popcount"
                    else r["rate"] / self.ccc_limit(nc, False)), 0.75)
        if r and r["ratio"] and self.lim_kind(r["name"]) == "popcount":
            out.append("  (against one popcount per 64 sample pairs: %s)" % pct(r["ratio"] / 2))
        d, s = kern("ccc2", False), kern("ccc2", True)
        goal("CCC sparse / dense kernel rate", d and s and s["rate"] / d["rate"], 0.60)
        for fam, text in (("czek2_s", "Czekanowski single"), ("czek2_d", "Czekanowski double"),
                          ("ccc2", "CCC dense"), ("ccc2_sparse", "CCC sparse")):
            run = [x for x in self.rows if x["section"] == "run_kernel" and x["name"] == fam]
            goal("whole run / bare kernel, %s" % text, run[0]["ratio"] if run else None, 0.90)

        def peer_ratio(tag, use_wall):
            stag = "r2" if tag == "king" else tag  # one .bed for both PLINK tools
            for p in self.rows:
                if p["section"] == "peer" and p["detail"].startswith(tag + " ") and p["rate"]:
                    best = None
                    for s in self.rows:
                        if s["section"] == "peer_starmet" and s["detail"].startswith(stag + " "):
                            v = (float(s["detail"].split("= ")[1].split()[0]) if use_wall
                                 else s["rate"]) / p["rate"]
                            best = v if best is None else max(best, v)
                    return best
            return None

        for fam, text, target in (("czek2_s", "Czekanowski single", 0.6),
                                  ("czek2_d", "Czekanowski double", 0.6),
                                  ("ccc2", "CCC dense", 0.33), ("ccc2_sparse", "CCC sparse", 0.33)):
            r3 = [x for x in self.rows if x["section"] == "run3" and x["name"] == fam]
            goal("3-way / 2-way rate per element comparison, %s" % text,
                 r3[0]["ratio"] if r3 else None, target)
        for fam, text in (("ccc2", "dense"), ("ccc2_sparse", "sparse")):
            sh = [x for x in self.rows if x["section"] == "short" and x["family"] == fam]
            goal("CCC %s kernels at 1000 samples / at the table's samples (the slowest of "
                 "them)" % text, min((x["ratio"] for x in sh if x["ratio"] != ""), default=None),
                 0.50)
        shape = [x for x in self.rows if x["section"] == "shape"]
        goal("whole run of the %s sparse shape, sample-pairs/s" %
             " x ".join(map(str, self.size("shape_sparse"))),
             shape[0]["rate"] if shape else None, 1e11, fmt)
        sp = [x for x in self.rows if x["section"] == "shape_peer"]
        goal("the same shape, PLINK 1.9 --r2 square wall / starmet wall (x)",
             sp[0]["ratio"] if sp else None, 10, lambda v: "%.1fx" % v,
             sp[0]["status"] if sp else "")
        outs = {x["name"]: x for x in self.rows if x["section"] == "output"}
        goal("TSV writing, values/s", outs["tsv"]["rate"] if "tsv" in outs else None, 1e7, fmt)
        th = [x for x in self.rows if x["section"] == "threshold"]
        if th:
            out.append("- a run writing 1%% of its values / the run without output: %s "
                       "(goal <= 110%%) %s" % (pct(th[0]["ratio"]), "**met**" if th[0]["ratio"]
                                              <= 1.10 else "**not met**"))
        for fam, text in (("czek2_d", "Czekanowski double"), ("ccc2", "CCC 2-way")):
            rk = [x for x in self.rows if x["section"] == "ranks" and x["name"] == fam]
            goal("P = 2 ranks / P = 1 on the same %d cores, %s" % (nc, text),
                 rk[0]["ratio"] if rk else None, 0.90)

        errs = [x["err"] for x in self.rows if x["section"] == "maf" and x["family"] == "banded"]
        if errs:
            out.append("- maf banded (T = %g) largest error on bins >= -10, N up to %d: %.2g "
                       "(goal < 1e-6) %s" % (MAF_BAND_TOL, max(x["n"] for x in self.rows
                                                              if x["section"] == "maf"),
                                            max(errs), "**met**" if max(errs) < 1e-6
                                            else "**not met**"))
        ang = [x for x in self.rows if x["section"] == "maf_angsd" and x.get("ratio")]
        goal("maf banded / ANGSD -doSaf 4 -P 3 (wall)",
             min((x["ratio"] for x in ang if x["name"].endswith("-P 3")), default=None), 3,
             lambda v: "%.1fx" % v)
        xf = lambda v: "%.1fx" % v
        def peer_status(tag):
            return next((p["status"] for p in self.rows if p["section"] == "peer"
                         and p["detail"].startswith(tag + " ") and p["status"]), "")

        goal("starmet Czekanowski / scipy braycurtis (compute)", peer_ratio("scipy", False), 100,
             xf, peer_status("scipy"))
        goal("starmet CCC / plink2 --make-king (whole commands)", peer_ratio("king", True), 4, xf,
             peer_status("king"))
        return out


def exit_text(code):
    return "killed by signal %d" % -code if code < 0 else "exit %d" % code


def last_line(*outputs):
    """The last non-empty line of the first output that has one (bytes or
    str; progress lines ending in carriage returns count as lines)."""
    for out in outputs:
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        lines = [x.strip() for x in (out or "").replace("\r", "\n").splitlines() if x.strip()]
        if lines:
            return lines[-1][:200]
    return "no message"


def fmt(x):
    if x is None or x == "":
        return ""
    return "%.3g" % x


def pct(x):
    if x is None or x == "":
        return ""
    return ("%.1f%%" if abs(x) < 0.1 else "%.0f%%") % (100 * x)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "_build"))
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--tiny", action="store_true",
                   help="the smallest sizes, one repetition of everything (checks that every "
                        "section runs; the rates mean little)")
    p.add_argument("--only", default="", help="comma-separated sections to run among %s "
                   "(the limits and kernels always run)" % ",".join(SECTIONS))
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--no-runs", action="store_true")
    p.add_argument("--no-install", action="store_true", help="(bench/run) install nothing")
    p.add_argument("--no-build", action="store_true", help="(bench/run) build nothing")
    p.add_argument("--threads", type=int, default=0, help="cores to use (default: all)")
    p.add_argument("--reps", type=int, default=None, help="kernel repetitions (best kept; "
                   "default 5, --tiny 1)")
    p.add_argument("--run-reps", type=int, default=None, help="whole-run repetitions "
                   "(default 2, --tiny 1)")
    p.add_argument("--peer-reps", type=int, default=1, help="peer repetitions")
    a = p.parse_args()
    if a.reps is None:
        a.reps = 1 if a.tiny else 5
    if a.run_reps is None:
        a.run_reps = 1 if a.tiny else 2
    only = [x for x in a.only.split(",") if x]
    bad = [x for x in only if x not in SECTIONS]
    if bad:
        p.error("--only: unknown section %s (sections: %s)" % (",".join(bad), ",".join(SECTIONS)))
    argv = [x for x in sys.argv[1:] if x not in ("--build-dir", a.build_dir)]
    b = Bench(a)
    try:
        # the commit as the binary was built (bench/run builds just before):
        # sources edited while the benchmark runs do not make it "-dirty"
        b.built_from = b.machine()
        b.limits_and_kernels()
        runs = (("runs", b.whole_runs), ("output", b.output_runs),
                ("threshold", b.threshold_run), ("three", b.threeway_runs),
                ("three", b.three_two_runs), ("short", b.short_runs), ("ranks", b.ranks_runs),
                ("maf", b.maf_runs))
        for name, fn in runs:
            if (only and name not in only) or (not only and a.no_runs):
                continue
            b.section(name, fn)
        if (only and "peers" in only) or (not only and not a.no_peers):
            b.section("peers", b.peers)
        b.report(argv)
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
