#!/bin/sh
# names_escape.sh: names holding tabs, carriage returns, other control
# bytes, backslashes, UTF-8 or bytes that are not UTF-8 (CSV row names,
# VCF IDs, PLINK SNP ids, BEAGLE markers and alleles) are written escaped
# in every TSV (results 2- and 3-way, top-k, maf's .saf.tsv and .maf.tsv;
# docs/outputs.md), each line keeping its columns, the same by both text
# writers (tasks and --compute-method ref); python/starmet_io.py and
# R/starmet_io.R give the names back byte for byte, at the indices of the
# binary run; ordinary names are written as they are; the JSON summary of
# an input path with control and non-UTF-8 bytes is valid JSON. The Python
# part is skipped without NumPy, the R part without Rscript.
. "$(dirname "$0")/../lib.sh"

LC_ALL=C
export LC_ALL
c() { "$STARMET" compute --quiet "$@"; }
# hexes: each line of stdin (a %b spec) as the hex of its bytes
hexes() { while IFS= read -r s; do printf '%b' "$s" | od -An -tx1 | tr -d ' \n'; echo; done; }
# cols FILE N: every line of FILE has N tab-separated fields
cols() {
  if awk -F'\t' -v n="$2" 'NF != n { bad = 1 } END { exit bad }' "$1"; then pass; else
    fail "$1: a line without $2 columns: $(awk -F'\t' -v n="$2" 'NF != n' "$1" | od -c | head -n 3)"
  fi
}

# --- a CSV table: quoted cells hold tabs and CRs (one name per line, %b)
cat > "$T/csv.spec" << 'EOF'
a\tb
cr\rin
back\\slash
\t\r
\t
\01\033\0177
\rstart
caf\0303\0251 \0346\0227\0245 \0360\0237\0247\0254
 sp 
lat\0351
\\t
end\\
\\x41
EOF
hexes < "$T/csv.spec" > "$T/csv.hex"
k=0
echo "name,f1,f2,f3,f4,f5" > "$T/h.csv"
while IFS= read -r s; do
  k=$((k + 1))
  printf '"%b",%d,%d,%d,%d,%d\n' "$s" $((k % 3)) $((k * 7 % 5)) $((k % 4 + 1)) \
    $((k * k % 6)) $((k * 5 % 7)) >> "$T/h.csv"
done < "$T/csv.spec"
run_ok "csv tsv" c --input "$T/h.csv" --output "$T/h" --top-k 3
run_ok "csv bin" c --input "$T/h.csv" --output "$T/hb" --top-k 3 --output-format bin
run_ok "csv ref" c --input "$T/h.csv" --output "$T/hr" --compute-method ref
cmp -s "$T/h.tsv" "$T/hr.tsv" && pass || fail "tasks and ref write other TSV bytes"
cols "$T/h.tsv" 3
cols "$T/h.topk.tsv" 4
[ "$(wc -l < "$T/h.tsv")" -eq $((1 + 13 * 12 / 2)) ] && pass || fail "h.tsv: $(wc -l < "$T/h.tsv") lines"
grep -q '^a\\tb	cr\\rin	' "$T/h.tsv" && pass || fail "a tab or a CR is not escaped"
grep -q '	\\x01\\x1b\\x7f	' "$T/h.tsv" && pass || fail "other control bytes are not escaped as hex"
grep -q '^back\\\\slash	' "$T/h.tsv" && pass || fail "a backslash is not doubled"
# the JSON summary of a path with CR, ^A, UTF-8 and bytes that are not
# UTF-8 (a lone byte, an overlong form, a surrogate, a cut sequence)
odd=$(printf 'in\r\001\377\303\251\300\200\355\240\200\360\237\247\254\346\227.csv')
cp "$T/h.csv" "$T/$odd"
run_ok "odd input path" c --input "$T/$odd" --output "$T/p" --output-format none
grep -q '"input": ".*/in\\u000d\\u0001\\ufffd'"$(printf '\303\251')"'\\ufffd\\ufffd' "$T/p.json" && pass ||
  fail "summary's input path: $(grep '"input"' "$T/p.json" | od -c | head -n 4)"

# --- a VCF: IDs with CR, control bytes, a backslash, UTF-8 (CCC, 2- and 3-way)
cat > "$T/vcf.spec" << 'EOF'
rs\r1
id\01x\033
bs\\1
\0303\0274\0360\0237\0247\0254
1:500
\r\0177
EOF
hexes < "$T/vcf.spec" > "$T/vcf.hex"
{
  printf '##fileformat=VCFv4.2\n##contig=<ID=1>\n'
  printf '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n'
  printf '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\ts4\ts5\n'
  k=0
  while IFS= read -r s; do
    k=$((k + 1))
    [ "$s" = 1:500 ] && s=.
    printf '1\t%d00\t%b\tA\tG\t.\t.\t.\tGT' $k "$s"
    for g in $((k % 3)) $((k * 2 % 3)) $((k * k % 3)) $(((k + 1) % 3)) $((k / 2 % 3)); do
      case $g in 0) printf '\t0/0' ;; 1) printf '\t0/1' ;; *) printf '\t1/1' ;; esac
    done
    printf '\n'
  done < "$T/vcf.spec"
} > "$T/v.vcf"
for w in 2 3; do
  run_ok "vcf $w-way tsv" c --metric ccc --num-way $w --input "$T/v.vcf" --output "$T/v$w"
  run_ok "vcf $w-way bin" c --metric ccc --num-way $w --input "$T/v.vcf" --output "$T/vb$w" \
    --output-format bin
  cols "$T/v$w.tsv" $((2 * w + 1))
done
run_ok "vcf top-k" c --metric ccc --input "$T/v.vcf" --output "$T/vt" --top-k 2 --output-format none
cols "$T/vt.topk.tsv" 6

# --- PLINK: .bim ids with control bytes, a backslash, UTF-8 (blanks split them)
run_ok "synth plink" "$STARMET" synth --metric ccc --synthetic random --num-vector 6 \
  --num-field 10 --output-format plink --output "$T/g"
cat > "$T/bim.spec" << 'EOF'
snp\010
s\\n
x\0177y
\033
snp\0342\0202\0254
plain
EOF
hexes < "$T/bim.spec" > "$T/bim.hex"
k=0
while IFS= read -r s; do
  k=$((k + 1))
  printf '1\t%b\t0\t%d\tA\tG\n' "$s" $k
done < "$T/bim.spec" > "$T/g.bim"
run_ok "plink tsv" c --bfile "$T/g" --output "$T/g"
run_ok "plink bin" c --bfile "$T/g" --output "$T/gb" --output-format bin
cols "$T/g.tsv" 5

# --- BEAGLE for starmet maf: markers (chrom_pos) and alleles
cat > "$T/chrom.spec" << 'EOF'
c\01r
bs\\x
caf\0303\0251
\033\r
plain
EOF
printf '%s\n' A '\0177' '\\' '\0303\0274' 0 > "$T/allele.spec"
hexes < "$T/chrom.spec" > "$T/chrom.hex"
hexes < "$T/allele.spec" > "$T/allele.hex"
{
  printf 'marker\tallele1\tallele2'
  for i in 0 1 2 3; do printf '\tInd%d\tInd%d\tInd%d' $i $i $i; done
  printf '\n'
  k=0
  while IFS= read -r s && IFS= read -r a <&3; do
    k=$((k + 1))
    printf '%b_%d00\t%b\t1' "$s" $k "$a"
    for i in 0 1 2 3; do printf '\t0.%d\t0.%d\t0.%d' $((k + i)) $((9 - k)) $((i + 1)); done
    printf '\n'
  done < "$T/chrom.spec" 3< "$T/allele.spec"
} > "$T/m.beagle"
run_ok "maf" "$STARMET" maf --quiet --input "$T/m.beagle" --output "$T/m"
cols "$T/m.maf.tsv" 7
cols "$T/m.saf.tsv" 11
cut -f1 "$T/m.maf.tsv" | sed 1d > "$T/m.chrom"
[ "$(sed -n 2p "$T/m.chrom")" = 'bs\\x' ] && [ "$(sed -n 4p "$T/m.chrom")" = '\x1b\r' ] && pass ||
  fail "maf.tsv chromosomes: $(od -c "$T/m.chrom" | head -n 4)"

# --- ordinary names (UTF-8, blanks, quotes, #, %) are written as they are
printf 'id\tx\ty\n' > "$T/o.tsv"
for s in 'rs1' 'caf\0303\0251' 'a b' "it's" 'a#2' '50%' 'x"y' '\0346\0227\0245\0346\0234\0254'; do
  printf '%b\t%d\t%d\n' "$s" ${#s} 3
done >> "$T/o.tsv"
run_ok "ordinary names" c --input "$T/o.tsv" --output "$T/on" --top-k 2
cut -f1 "$T/o.tsv" | sed 1d | sort -u > "$T/o.want"
cut -f1,2 "$T/on.tsv" | sed 1d | tr '\t' '\n' | sort -u > "$T/o.got"
cmp -s "$T/o.want" "$T/o.got" && pass || fail "ordinary names changed: $(diff "$T/o.want" "$T/o.got")"
cut -f1,3 "$T/on.topk.tsv" | sed 1d | tr '\t' '\n' | sort -u > "$T/o.got"
cmp -s "$T/o.want" "$T/o.got" && pass || fail "ordinary names changed in top-k: $(diff "$T/o.want" "$T/o.got")"

# --- Python: the readers give back the names, at the binary run's indices
PY=${PYTHON3:-/usr/bin/python3}
if "$PY" -c 'import numpy' 2> /dev/null; then
  cat > "$T/check.py" << 'PYEOF'
"""names_escape.sh's checks of starmet_io."""
import json
import sys

import numpy as np

import starmet_io as sio


def names(hexfile):
    with open(hexfile) as f:
        return [bytes.fromhex(h) for h in f.read().split("\n")[:-1]]


def raw(s):
    assert isinstance(s, str), repr(s)
    return s.encode("utf-8", "surrogateescape")


def as_indices(a, want, fields):
    """a's names in fields as indices into want (each must be one of them
    exactly); every name of want must appear."""
    idx = {n: k for k, n in enumerate(want)}
    out = np.empty(a.shape, dtype=[(n, "<u4") if n in fields else (n, a.dtype[n])
                                   for n in a.dtype.names])
    seen = set()
    for n in a.dtype.names:
        if n not in fields:
            out[n] = a[n]
            continue
        for r, s in enumerate(a[n]):
            b = raw(s)
            assert b in idx, "%s: %r is no input name" % (n, b)
            out[n][r] = idx[b]
            seen.add(b)
    missing = [n for n in want if n not in seen]
    assert not missing, "names never read back: %r" % missing
    return out


def same(a, b, fields):
    key = lambda x: x[np.lexsort([np.asarray(x[n]) for n in reversed(fields)])]
    a, b = key(a), key(b)
    assert len(a) == len(b) > 0, (len(a), len(b))
    for n in b.dtype.names:
        assert np.array_equal(np.asarray(a[n]), np.asarray(b[n])), n


def cmd_results(tsv, binp, hexfile):
    t = sio.read_results(tsv)
    b = sio.read_results(binp)
    ids = [n for n in ("i", "j", "k") if n in b.dtype.names]
    same(as_indices(t, names(hexfile), ids), b, ids + [n for n in ("entry",) if n in b.dtype.names])


def cmd_topk(tsv, binp, hexfile):
    t = sio.read_topk(tsv)
    b = sio.read_topk(binp)
    same(as_indices(t, names(hexfile), ("vector", "neighbour")), b, ["vector", "rank"])


def cmd_maf(prefix, chrom_hex, allele_hex):
    chroms, alleles = names(chrom_hex), names(allele_hex)
    m = sio.read_maf(prefix + ".maf.tsv")
    assert [raw(s) for s in m["chrom"]] == chroms, list(m["chrom"])
    assert [raw(s) for s in m["allele1"]] == alleles, list(m["allele1"])
    assert list(m["allele2"]) == ["1"] * len(m)
    s = sio.read_maf(prefix + ".saf.tsv")
    assert [raw(x) for x in s["chrom"]] == chroms and s["saf"].shape == (len(chroms), 9)
    assert np.array_equal(s["pos"], m["pos"]) and np.array_equal(m["pos"], 100 * (1 + np.arange(5)))


def cmd_json(path):
    with open(path, "rb") as f:
        js = json.loads(f.read().decode("utf-8"))  # strict UTF-8, valid JSON
    want = "/in\r\x01\ufffd\u00e9" + "\ufffd" * 5 + "\U0001f9ec" + "\ufffd" * 2 + ".csv"
    assert js["problem"]["input"].endswith(want), js["problem"]["input"]
    assert sio.read_summary(path)["problem"]["input"] == js["problem"]["input"]


def cmd_unescape():
    for s, want in (("a\\tb", "a\tb"), ("\\\\t", "\\t"), ("\\x01\\x7f", "\x01\x7f"),
                    ("\\r\\n", "\r\n"), ("\\q\\", "\\q\\"), ("plain", "plain")):
        assert sio.unescape_name(s) == want, (s, sio.unescape_name(s))


getattr(sys.modules[__name__], "cmd_" + sys.argv[1])(*sys.argv[2:])
PYEOF
  PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
  export PYTHONPATH PYTHONDONTWRITEBYTECODE
  py() {
    name=$1; shift
    if "$PY" "$T/check.py" "$@" > "$T/py.log" 2>&1; then pass; else
      fail "python: $name"; cat "$T/py.log" >&2; fi
  }
  py "csv results" results "$T/h" "$T/hb" "$T/csv.hex"
  py "csv top-k" topk "$T/h" "$T/hb" "$T/csv.hex"
  py "vcf 2-way" results "$T/v2" "$T/vb2" "$T/vcf.hex"
  py "vcf 3-way" results "$T/v3" "$T/vb3" "$T/vcf.hex"
  py "plink" results "$T/g" "$T/gb" "$T/bim.hex"
  py "maf" maf "$T/m" "$T/chrom.hex" "$T/allele.hex"
  py "json summary" json "$T/p.json"
  py "unescape_name" unescape
else
  skip_part "$PY has no numpy (Debian: python3-numpy): the Python reader is not tested"
fi

# --- R: the same, names compared as bytes
if command -v Rscript > /dev/null 2>&1; then
  cat > "$T/check.R" << 'REOF'
a <- commandArgs(TRUE)
source(a[2])
hex <- function(x) vapply(x, function(s) paste(as.character(charToRaw(s)), collapse = ""), "",
                          USE.NAMES = FALSE)
want <- readLines(a[5])
ord <- function(d) {
  d <- d[do.call(order, unname(d[setdiff(names(d), "value")])), ]
  rownames(d) <- NULL
  d
}
if (a[1] == "maf") {
  m <- starmet_read_maf(paste0(a[3], ".maf.tsv"))
  s <- starmet_read_maf(paste0(a[3], ".saf.tsv"))
  stopifnot(identical(hex(m$chrom), readLines(a[4])), identical(hex(m$allele1), want),
            identical(hex(s$chrom), readLines(a[4])), ncol(s) == 11, identical(s$pos, m$pos))
} else {
  t <- if (a[1] == "topk") starmet_read_tsv(paste0(a[3], ".topk.tsv")) else starmet_read_results(a[3])
  b <- if (a[1] == "topk") starmet_read_bin(paste0(a[4], ".topk.bin")) else starmet_read_results(a[4])
  ids <- intersect(names(t), c("id_i", "id_j", "id_k", "vector", "neighbour"))
  for (col in ids) {
    h <- hex(t[[col]])
    if (!all(h %in% want)) stop(sprintf("%s: %s is no input name", col, h[!h %in% want][1]))
    t[[col]] <- match(h, want) - 1L
  }
  seen <- unique(unlist(lapply(ids, function(col) want[t[[col]] + 1L])))
  stopifnot(setequal(seen, want), nrow(t) > 0)
  stopifnot(isTRUE(all.equal(ord(t), ord(b))))
}
REOF
  r_check() {
    name=$1; shift
    if Rscript "$T/check.R" "$1" "$top_srcdir/R/starmet_io.R" "$2" "$3" "$4" > "$T/r.log" 2>&1
    then pass; else fail "R: $name"; cat "$T/r.log" >&2; fi
  }
  r_check "csv results" results "$T/h" "$T/hb" "$T/csv.hex"
  r_check "csv top-k" topk "$T/h" "$T/hb" "$T/csv.hex"
  r_check "vcf 2-way" results "$T/v2" "$T/vb2" "$T/vcf.hex"
  r_check "vcf 3-way" results "$T/v3" "$T/vb3" "$T/vcf.hex"
  r_check "plink" results "$T/g" "$T/gb" "$T/bim.hex"
  r_check "maf" maf "$T/m" "$T/chrom.hex" "$T/allele.hex"
else
  skip_part "Rscript not installed (Debian: r-base-core): the R reader is not tested"
fi
finish
