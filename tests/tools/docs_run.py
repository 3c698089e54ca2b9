#!/usr/bin/env python3
"""docs_run.py: run the commands of README.md and docs/*.md (tests/cli/docs.sh).

A page's code blocks are marked by their info string:
  ```sh             a shell block that runs (sh -e) in a scratch directory
                    with the project's data/, python/, R/ and scripts/ and
                    the build's starmet first on PATH; it must exit 0
  ```text           right after a run block: an excerpt of what it prints;
                    its lines must appear in that order, "..." in a line
                    standing for anything (numbers that vary, paths)
  ```python, ```r   run with python3 / Rscript in the same directory
  ```sh no-run: WHY shown only: needs what a test run lacks (a GPU, a
                    cluster, hours, root on another machine); WHY is required
Blocks of other kinds (```, ```json, ```csv, ...) are not commands. Every
starmet command line shown, run or not, may use only the options the
binary has (the reference page lists them, docs/reference.md).

  docs_run.py --srcdir DIR --builddir DIR [--page FILE ...] [--list]

Exit 0 when every page passed; 1 otherwise, naming the page, the block's
line and what went wrong."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(.*)$")


def blocks(path):
    """(line, info, text) of each fenced block of a page."""
    out, info, start, buf = [], None, 0, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if m and info is None:
                info, start, buf = m.group(1).strip(), n, []
            elif m and info is not None:
                out.append((start, info, "".join(buf)))
                info = None
            elif info is not None:
                buf.append(line)
    if info is not None:
        raise SystemExit(f"{path}:{start}: a code block is not closed")
    return out


def known_options(srcdir):
    """The options the reference page lists (`--name` at a bullet's start)."""
    opts = set()
    with open(os.path.join(srcdir, "docs", "reference.md"), encoding="utf-8") as f:
        for line in f:
            for m in re.finditer(r"`(--[a-z0-9-]+)", line):
                opts.add(m.group(1))
            for m in re.finditer(r"\| (--[a-z0-9-]+)", line):  # --a | --b
                opts.add(m.group(1))
            for m in re.finditer(r", (--[a-z0-9-]+)", line):  # --a N, --b N
                opts.add(m.group(1))
    return opts


# a starmet command: after environment assignments, a launcher and its
# options (mpirun ... [env VAR=...]), the binary by name or path
COMMAND = re.compile(r"^\s*(?:\w+=\S*\s+)*(?:(?:mpirun|mpiexec|srun)\s+.*?\s+"
                     r"(?:env\s+(?:\w+=\S*\s+)*)?)?(?:\S*/)?starmet\s+(.*)")


def starmet_lines(text):
    """The starmet command lines of a shell block (continuations joined)."""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        for part in re.split(r"[;&|]+", line):
            m = COMMAND.match(part)
            if m:
                yield line, m.group(1)


def check_options(page, line, text, opts):
    bad = []
    for cmd, rest in starmet_lines(text):
        for o in re.findall(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*)", rest):
            if o not in opts:
                bad.append(f"{page}:{line}: `{o}` is not an option of starmet (in: {cmd.strip()})")
    return bad


def excerpt_ok(excerpt, output):
    """Each excerpt line, in order, matches a later output line."""
    lines = output.splitlines()
    k = 0
    for want in excerpt.splitlines():
        if not want.strip():
            continue
        parts = [re.escape(p) for p in want.strip().split("...")]
        rx = re.compile(r"\s+".join(".*".join(parts).split(r"\ ")))
        while k < len(lines) and not rx.search(lines[k]):
            k += 1
        if k == len(lines):
            return want
        k += 1
    return None


def run_page(page, srcdir, builddir, opts, verbose):
    errors = []
    bl = blocks(page)
    rel = os.path.relpath(page, srcdir)
    work = tempfile.mkdtemp(prefix="docs.", dir=os.path.join(builddir, "tests"))
    try:
        for d in ("data", "python", "R", "scripts"):
            os.symlink(os.path.join(srcdir, d), os.path.join(work, d))
        env = dict(os.environ)
        env["PATH"] = builddir + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = os.path.join(srcdir, "python")
        last_out = None
        for i, (line, info, text) in enumerate(bl):
            kind = info.split()[0] if info else ""
            if kind in ("sh", "console", "bash"):
                errors += check_options(rel, line, text, opts)
            if kind == "sh" and info.startswith("sh no-run"):
                if not re.match(r"sh no-run: \S", info):
                    errors.append(f"{rel}:{line}: a no-run block must say why (```sh no-run: WHY)")
                last_out = None
                continue
            if kind == "text" and last_out is not None:
                miss = excerpt_ok(text, last_out)
                if miss is not None:
                    errors.append(f"{rel}:{line}: the excerpt line {miss!r} is not in what the "
                                  f"block above printed:\n{last_out[-3000:]}")
                last_out = None
                continue
            if kind not in ("sh", "python", "r"):
                last_out = None
                continue
            if info != kind:
                errors.append(f"{rel}:{line}: unknown marker ```{info} (```{kind} or "
                              f"```{kind} no-run: WHY)")
                continue
            cmd = {"sh": ["sh", "-e", "-c", text], "python": [sys.executable, "-c", text],
                   "r": ["Rscript", "-e", text]}[kind]
            if verbose:
                print(f"== {rel}:{line} ({kind})", flush=True)
            try:
                p = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=300)
                last_out = p.stdout
                if p.returncode != 0:
                    errors.append(f"{rel}:{line}: exit {p.returncode}:\n{text}\n--- it "
                                  f"printed:\n{last_out[-3000:]}")
                    last_out = None
            except subprocess.TimeoutExpired:
                errors.append(f"{rel}:{line}: did not finish in 300 s:\n{text}")
                last_out = None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--page", action="append", help="only these pages")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    src = os.path.abspath(a.srcdir)
    pages = a.page or ([os.path.join(src, "README.md")] +
                       sorted(glob.glob(os.path.join(src, "docs", "*.md"))))
    # STARMET_TEST_SWEEP=even or odd (tests/lib.sh's sweep_take): every
    # second page, counted from 1 (each page runs in a directory of its own)
    sweep = os.environ.get("STARMET_TEST_SWEEP", "all")
    if sweep not in ("all", "even", "odd"):
        print(f"STARMET_TEST_SWEEP={sweep}: all, even or odd", file=sys.stderr)
        return 2
    if sweep != "all":
        pages = [p for n, p in enumerate(pages, 1) if n % 2 == (sweep == "odd")]
    opts = known_options(src)
    errors = []
    for page in pages:
        errors += run_page(os.path.abspath(page), src, os.path.abspath(a.builddir), opts,
                           a.verbose)
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    print(f"{len(pages)} pages, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
