#!/bin/sh
# bench_peers.sh: bench/run with a peer tool missing and another failing
# still writes its table, with those peers' statuses in it: its smallest
# mode (--tiny --threads 1, the short-vector section and the peers only, the binaries
# of this build) on a PATH of /usr/bin's programs without plink1.9 (not
# installed) and with a plink2 that fails (exit 2); R vegan is measured, or
# reported as not installed, as this machine has it. Also: the header names
# the CPU and the kernels used, the short-vector rows are measured, and the
# genotype generator writes the missing calls it is asked for.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2> /dev/null; then echo "no python3-numpy: skipped"; exit 77; fi
if [ ! -x "$top_builddir/bench/kernels" ]; then echo "no bench/kernels built: skipped"; exit 77; fi

# the PATH: /usr/bin's programs less the PLINKs, and a plink2 that fails
mkdir -p "$T/usr" "$T/fake"
cp -s /usr/bin/* "$T/usr/" 2> /dev/null || true
rm -f "$T/usr/plink1.9" "$T/usr/plink2" "$T/usr/angsd"
cat > "$T/fake/plink2" << 'EOF'
#!/bin/sh
echo "PLINK v2 (a stand-in that fails)"
echo "Error: simulated failure" >&2
exit 2
EOF
chmod +x "$T/fake/plink2"
BPATH="$T/fake:$T/usr"

# what the table should say of R vegan on this PATH
if ! PATH=$BPATH command -v Rscript > /dev/null; then
  vegan="R vegan: not installed (no Rscript)"
elif ! PATH=$BPATH Rscript -e 'quit(status = !requireNamespace("vegan", quietly = TRUE))' \
  > /dev/null 2>&1; then
  vegan="R vegan: not installed (no R package vegan)"
else
  vegan=measured
fi

if PATH=$BPATH BUILD_DIR=$top_builddir sh "$top_srcdir/bench/run" --no-install --no-build \
  --tiny --threads 1 --only short,peers --out "$T/out" > "$T/table.md" 2> "$T/run.err"; then pass; else
  fail "bench/run exited $?"; tail -20 "$T/run.err" >&2
fi
if grep -q Traceback "$T/run.err"; then fail "bench/run printed a traceback"; cat "$T/run.err" >&2
else pass; fi
for f in latest.md latest.csv; do [ -s "$T/out/$f" ] && pass || fail "no $f written"; done
cmp -s "$T/table.md" "$T/out/latest.md" && pass || fail "the printed table is not latest.md"
ls "$T/out"/*-*.md > /dev/null 2>&1 && pass || fail "no dated table written"

md=$T/out/latest.md
has() { # has WHAT FIXED-STRING: the table holds the string
  grep -qF -- "$2" "$md" && pass || fail "$1: no \"$2\" in the table"
}
has "plink1.9 missing" "plink1.9: not installed"
has "plink2 failing" "plink2: failed: exit 2, Error: simulated failure"
has "plink2 goal" "starmet CCC / plink2 --make-king (whole commands): not measured (plink2: failed"
has "shape goal" "PLINK 1.9 --r2 square wall / starmet wall (x): not measured (plink1.9: not installed)"
if [ "$vegan" = measured ]; then
  grep -q '^| R vegan vegdist bray vs starmet' "$md" && pass || fail "R vegan not measured"
else
  has "R vegan" "| R vegan vegdist bray | 1 | $vegan |"
fi
has "header: CPU" "- CPU: "
has "header: kernels" "- kernels (each family's automatic choice, bench/kernels): "
grep -q '^- kernels (each.*ccc2 sm_kern_ccc2_[a-z0-9]' "$md" && pass ||
  fail "the header names no CCC kernel variant"
grep -q '^- kernels the whole runs used (their summaries): .*sm_kern_ccc2' "$md" && pass ||
  fail "the header names no kernel of the whole runs"

# the short-vector rows: 500 and 1000 samples, dense and sparse, measured,
# PLINK's column saying why it is empty; the real shape's row
"$PY" - "$T/out/latest.csv" "$md" > "$T/py.log" 2>&1 << 'PYEOF' && pass || { fail "short-vector rows"; cat "$T/py.log" >&2; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
md = open(sys.argv[2]).read()
runs = [r for r in rows if r["section"] == "short_run"]
got = sorted((r["name"], r["detail"].split(" SNPs x ")[1].split()[0]) for r in runs)
assert got == sorted((f, s) for f in ("ccc2", "ccc2_sparse") for s in ("500", "1000")), got
for r in runs:
    assert float(r["rate"]) > 0 and 0 < float(r["ratio"]) < 1, r
    assert r["status"] == "plink1.9: not installed", r
    assert "bench/genotypes.py" in r["detail"], r
kern = [r for r in rows if r["section"] == "short_kernel"]
assert {r["detail"].split()[0] for r in kern} == {"ccc2", "ccc2_sparse"}, kern
assert all(float(r["rate"]) > 0 and 0 < float(r["ratio"]) < 1.5 for r in kern), kern
shape = [r for r in rows if r["section"] == "shape"]
assert len(shape) == 1 and float(shape[0]["rate"]) > 0, shape
lines = [l for l in md.splitlines() if l.startswith("| 500 |") or l.startswith("| 1000 |")]
assert len(lines) == 4 and all("plink1.9: not installed" in l for l in lines), lines
peers = [r for r in rows if r["section"] == "peer"]
st = {r["name"]: r["status"] for r in peers}
assert st["PLINK 1.9 --r2 square"] == "plink1.9: not installed", st
assert st["plink2 --make-king square"] == "plink2: failed: exit 2, Error: simulated failure", st
assert not [r for r in rows if r["section"] == "failed"], "a section failed"
PYEOF

# bench/genotypes.py: 1% missing calls, as starmet reads them
"$PY" "$top_srcdir/bench/genotypes.py" "$T/g" 2000 500 --missing 0.01 > /dev/null &&
  run_ok "starmet on the generated .bed" "$STARMET" compute --quiet --bfile "$T/g" \
    --output-format none --summary "$T/g.json"
miss=$(sed -n 's/.*"missing_calls": \([0-9]*\).*/\1/p' "$T/g.json")
# 10,000 expected; the binomial's standard deviation is 99.5
[ -n "$miss" ] && [ "$miss" -gt 9600 ] && [ "$miss" -lt 10400 ] && pass ||
  fail "generated .bed: $miss missing calls of 1,000,000 (1% asked)"
finish
