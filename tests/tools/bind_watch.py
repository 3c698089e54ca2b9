#!/usr/bin/env python3
"""bind_watch.py MARKER OUT -- CMD...: run CMD and, while it runs, read the CPU
affinity of every StarPU CPU worker thread ("CPU n") of the processes whose
command line contains MARKER. Prints one line per thread, the last affinity
seen: RANK THREAD-NAME CPULIST (RANK from the MPI launcher's environment, 0
without one) into the file OUT, and exits with CMD's status."""
import os
import subprocess
import sys
import time


def rank_of(pid):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        return None
    for var in (b"OMPI_COMM_WORLD_RANK=", b"PMI_RANK=", b"PMIX_RANK="):
        for e in env:
            if e.startswith(var):
                return int(e[len(var):])
    return 0


def sample(marker, seen):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if marker.encode() not in cmd or not cmd.split(b"\0")[0].endswith(b"starmet"):
            continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
                if not name.startswith("CPU "):
                    continue
                for line in open(f"/proc/{pid}/task/{tid}/status"):
                    if line.startswith("Cpus_allowed_list:"):
                        r = rank_of(pid)
                        if r is not None:
                            seen[(pid, tid)] = (r, name, line.split(":", 1)[1].strip())
            except OSError:
                continue


def main():
    marker, out = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    seen = {}
    p = subprocess.Popen(cmd)
    while p.poll() is None:
        sample(marker, seen)
        time.sleep(0.02)
    with open(out, "w") as f:
        for r, name, cpus in sorted(seen.values()):
            print(r, name.replace(" ", "_"), cpus, file=f)
    sys.exit(p.returncode)


main()
