#!/bin/sh
# headers_names.sh: headers and names as users' files have them (docs/inputs.md,
# "Text tables: the rules"). QIIME tables (OTUs as rows) whose sample ids
# are numbers (Qiita's 10317.000001, 1001) under `OTU ID` or `#OTU ID`;
# row names the number parser reads (plate wells 1E03, ids 007, NaN); R's
# write.table header one cell short with numeric names; R's write.csv
# quoted row names; hostile spellings (a byte-order mark, CR LF, an empty
# first cell, quoted ids, duplicate header cells, a first line of numbers
# written as names). Each run's values are those of the same table
# written plainly (numbers only, vectors as rows), its names those the
# file holds. The readers keep names as names: python/starmet_io.py and
# R/starmet_io.R give back 7, 07 and 007 as those strings. An npy with a
# JSON-style header is read; `python3 starmet_io.py PREFIX` describes a
# maf run's files.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
c() { "$S" compute --quiet "$@"; }
# vals NAME FILE PLAIN ARGS...: FILE read with ARGS has the values of PLAIN
# (numbers only, one vector per row); its output (names) is $T/v.tsv
vals() {
  vn=$1 vf=$2 vp=$3; shift 3
  rm -f "$T/v".* "$T/vi".* "$T/p".*
  run_ok "$vn" c --input "$vf" --output "$T/v" "$@"
  cp "$T/log.err" "$T/v.err"
  run_ok "$vn (indices)" c --input "$vf" --output "$T/vi" --keys index "$@"
  run_ok "$vn (the plain table)" c --input "$vp" --output "$T/p" --header no --row-names no
  if cmp -s "$T/vi.tsv" "$T/p.tsv"; then pass; else
    fail "$vn: values differ from the plain table"; diff "$T/vi.tsv" "$T/p.tsv" | head -5 >&2
  fi
}
# ids NAME WANT: the vector names of $T/v.tsv (its first pair's, then every
# id in order of first appearance) are WANT
ids() {
  got=$(tail -n +2 "$T/v.tsv" | cut -f 1,2 | tr '\t' '\n' | awk '!seen[$0]++' | tr '\n' ' ')
  [ "$got" = "$2" ] && pass || fail "$1: names '$got', not '$2'"
}
refuse() { rn=$1 rp=$2 rf=$3; shift 3; rm -f "$T/err"*; expect_error "$rn" "$rp" "$T/err" c --input "$rf" --output "$T/err" "$@"; }
# warned NAME PATTERN: vals' run NAME said PATTERN on stderr
warned() { grep -Eq -- "$2" "$T/v.err" && pass || { fail "$1: no warning /$2/"; cat "$T/v.err" >&2; }; }

# the plain tables: 3 samples x 4 OTUs (samples as vectors), and 3 x 3
printf '1 4 0 2\n2 5 1 0\n3 6 7 1\n' > "$T/plain3x4.txt"
printf '1 2 3\n4 5 6\n1 1 1\n' > "$T/plain3.txt"

# --- QIIME: OTUs as rows, numeric sample ids, --transpose
Q='1\t2\t3\nOTU_2\t4\t5\t6\nOTU_3\t0\t1\t7\nOTU_4\t2\t0\t1\n'
# shellcheck disable=SC2059
printf "OTU ID\t10317.000001\t10317.000002\t10317.000003\nOTU_1\t$Q" > "$T/q1.tsv"
vals "OTU ID over Qiita ids" "$T/q1.tsv" "$T/plain3x4.txt" --transpose
ids "OTU ID over Qiita ids" "10317.000001 10317.000002 10317.000003 "
# shellcheck disable=SC2059
printf "# Constructed from biom file\n#OTU ID\t1001\t1002\t1003\nOTU_1\t$Q" > "$T/q2.tsv"
vals "#OTU ID over 1001" "$T/q2.tsv" "$T/plain3x4.txt" --transpose
ids "#OTU ID over 1001" "1001 1002 1003 "
grep -q '"text_header": "yes"' "$T/v.json" && pass || fail "#OTU ID: the summary says no header"
# Greengenes OTU ids (numbers) in the first column, under '#OTU ID'
printf '#OTU ID\t1001\t1002\t1003\n4479944\t1\t2\t3\n1110190\t4\t5\t6\n215193\t0\t1\t7\n7\t2\t0\t1\n' > "$T/q3.tsv"
vals "numeric OTU ids" "$T/q3.tsv" "$T/plain3x4.txt" --transpose
warned "numeric OTU ids" "the first column \(headed 'OTU ID'\) is taken as row names"
# the same table's OTUs compared: they are the vectors, named by their ids
run_ok "numeric OTU ids, OTUs as vectors" c --input "$T/q3.tsv" --compare observations --output "$T/v"
ids "numeric OTU ids, OTUs as vectors" "4479944 1110190 215193 7 "
# #SampleID, feature-id, sample_name: other id labels
for label in '#SampleID' 'feature-id' 'sample_name' 'Feature ID' 'subjectID'; do
  # shellcheck disable=SC2059
  printf "$label\t1001\t1002\t1003\nOTU_1\t$Q" > "$T/lab.tsv"
  vals "label '$label'" "$T/lab.tsv" "$T/plain3x4.txt" --transpose
  ids "label '$label'" "1001 1002 1003 "
done
# --header no: that line is data (the row 'OTU ID'... is a name, then)
printf 'sample\t3\t4\t5\nb\t1\t2\t3\nc\t4\t5\t6\n' > "$T/hno.tsv"
run_ok "--header no" c --input "$T/hno.tsv" --header no --output "$T/v"
ids "--header no" "sample b c "

# --- row names that read as numbers: plate wells, leading zeros, words
printf '1E03\t1\t2\t3\n1E01\t4\t5\t6\n1E02\t1\t1\t1\n' > "$T/wells.tsv"
vals "plate wells" "$T/wells.tsv" "$T/plain3.txt"
ids "plate wells" "1E03 1E01 1E02 "
warned "plate wells" "wells\.tsv:1:1: '1E03' reads as a number but is written as a name \(a letter E between digits.*--row-names no"
run_ok "plate wells, --row-names no" c --input "$T/wells.tsv" --row-names no --output "$T/v"
grep -q '"text_row_names": "no"' "$T/v.json" && pass || fail "--row-names no: wells still names"
printf '007\t1\t2\t3\n07\t4\t5\t6\n7\t1\t1\t1\n' > "$T/zeros.tsv"
vals "ids with leading zeros" "$T/zeros.tsv" "$T/plain3.txt"
ids "ids with leading zeros" "007 07 7 "
printf 'NaN 1 2 3\nInf 4 5 6\nnan 1 1 1\n' > "$T/words.txt"
vals "rows named NaN, Inf" "$T/words.txt" "$T/plain3.txt"
ids "rows named NaN, Inf" "NaN Inf nan "
# a name further down a column read as data: refused, with both options
printf '2\t1\t2\t3\n007\t4\t5\t6\n7\t1\t1\t1\n' > "$T/late.tsv"
refuse "a leading-zero id in a data column" "late\.tsv:2:1: '007' reads as a number but is written as a name \(leading zeros\), and the first column was read as data \(line 1 starts with the number '2'\): say --row-names yes.*--row-names no" "$T/late.tsv"
printf '2\t1\t2\t3\nA01\t4\t5\t6\n' > "$T/late2.tsv"
refuse "a name in a data column" "late2\.tsv:2:1: 'A01' is not a number, and the first column was read as data.*--row-names yes" "$T/late2.tsv"
run_ok "--row-names yes settles it" c --input "$T/late.tsv" --row-names yes --output "$T/v"
ids "--row-names yes settles it" "2 007 7 "
# a first line of numbers written as names (no id label): refused
printf 'x\t007\t008\t009\nb\t1\t2\t3\nc\t1\t1\t1\n' > "$T/hz.tsv"
refuse "a header of leading-zero ids" "hz\.tsv:1: cell 2 of the first line, '007', reads as a number but is written as a name.*--header yes.*--header no" "$T/hz.tsv"
run_ok "--header yes settles it" c --input "$T/hz.tsv" --header yes --transpose --output "$T/v"
ids "--header yes settles it" "007 008 009 "

# --- R: write.table's header one cell short, numeric column names
printf '"1001" "1002" "1003"\n"a" 1 4 0\n"b" 2 5 1\n"c" 3 6 7\n' > "$T/rwt.txt"
printf '1 2 3\n4 5 6\n0 1 7\n' > "$T/plain_t.txt"
vals "R write.table, numeric names" "$T/rwt.txt" "$T/plain_t.txt" --transpose
ids "R write.table, numeric names" "1001 1002 1003 "
warned "R write.table, numeric names" "rwt\.txt:1: the first line, of numbers, has one cell fewer than the rows: it is taken as the header"
printf '1001\t1002\t1003\na\t1\t4\t0\nb\t2\t5\t1\nc\t3\t6\t7\n' > "$T/rwt.tsv"
vals "R write.table, tabs, unquoted" "$T/rwt.tsv" "$T/plain_t.txt" --transpose
ids "R write.table, tabs, unquoted" "1001 1002 1003 "
# rows of one cell more than a first line of data: the hint names --header
printf 'x\t1\t2\na\t1\t4\t0\nb\t2\t5\t1\n' > "$T/short.tsv"
refuse "a short first line" "short\.tsv:2: expected 3 columns, found 4.*the first line was read as data: if it names the columns, say --header yes" "$T/short.tsv"
# R's write.csv: an empty first header cell, row names in quotes
printf '"","x","y","z"\n"1",1,2,3\n"2",4,5,6\n"3",1,1,1\n' > "$T/rcsv.csv"
vals "R write.csv, numeric row names" "$T/rcsv.csv" "$T/plain3.txt"
ids "R write.csv, numeric row names" "1 2 3 "
# ... and quoted row names with no header
printf '"12",1,2,3\n"13",4,5,6\n"14",1,1,1\n' > "$T/rq.csv"
vals "quoted numeric row names" "$T/rq.csv" "$T/plain3.txt"
ids "quoted numeric row names" "12 13 14 "
# pandas' to_csv: an empty first header cell over the index
printf ',x,y,z\n0,1,2,3\n1,4,5,6\n2,1,1,1\n' > "$T/pd.csv"
vals "pandas to_csv" "$T/pd.csv" "$T/plain3.txt"
ids "pandas to_csv" "0 1 2 "

# --- hostile spellings
printf '\357\273\277#OTU ID\t1001\t1002\t1003\r\nOTU_1\t1\t2\t3\r\nOTU_2\t4\t5\t6\r\nOTU_3\t0\t1\t7\r\nOTU_4\t2\t0\t1\r\n' > "$T/bom.tsv"
vals "a byte-order mark and CR LF" "$T/bom.tsv" "$T/plain3x4.txt" --transpose
ids "a byte-order mark and CR LF" "1001 1002 1003 "
printf '\t1001\t1002\t1003\nOTU_1\t1\t2\t3\nOTU_2\t4\t5\t6\nOTU_3\t0\t1\t7\nOTU_4\t2\t0\t1\n' > "$T/empty.tsv"
vals "an empty first cell" "$T/empty.tsv" "$T/plain3x4.txt" --transpose
ids "an empty first cell" "1001 1002 1003 "
printf 'SampleID,"007","07","7"\nOTU_1,1,2,3\nOTU_2,4,5,6\nOTU_3,0,1,7\nOTU_4,2,0,1\n' > "$T/quoted.csv"
vals "quoted ids" "$T/quoted.csv" "$T/plain3x4.txt" --transpose
ids "quoted ids" "007 07 7 "
printf '"my sample" 1 2 3\n"other one" 4 5 6\n"third" 1 1 1\n' > "$T/blanks.txt"
vals "quoted names holding blanks" "$T/blanks.txt" "$T/plain3.txt"
ids "quoted names holding blanks" "my sample other one third "
printf 'id\t1001\t1001\t1003\nOTU_1\t1\t2\t3\nOTU_2\t4\t5\t6\n' > "$T/dup.tsv"
refuse "duplicate header cells" "dup\.tsv: vector names repeat .*'1001' names vectors 0 and 1" "$T/dup.tsv" --transpose
printf '1 4\n2 5\n3 6\n' > "$T/plain3x2.txt"
vals "duplicate header cells, --keys index" "$T/dup.tsv" "$T/plain3x2.txt" --transpose --keys index

# --- npy: a JSON-style header (other writers than numpy)
PY=${PYTHON3:-/usr/bin/python3}
if command -v "$PY" > /dev/null 2>&1; then
  "$PY" - "$T" << 'PYEOF'
import struct, sys
d = sys.argv[1]
vals = [1, 2, 3, 4, 5, 6, 1, 1, 1]
def npy(name, header):
    h = header.encode()
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    with open("%s/%s" % (d, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h)
        f.write(struct.pack("<9d", *vals))
npy("json.npy", '{"descr": "<f8", "fortran_order": false, "shape": [3, 3]}')
npy("dict.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }")
npy("bad.npy", '{"descr": "<f8", "fortran_order": 0, "shape": [3, 3]}')
npy("fortran.npy", '{"descr": "<f8", "fortran_order": true, "shape": [3, 3]}')
PYEOF
  run_ok "npy, numpy's header" c --input "$T/dict.npy" --output "$T/nd"
  run_ok "npy, a JSON-style header" c --input "$T/json.npy" --output "$T/nj"
  cmp -s "$T/nd.tsv" "$T/nj.tsv" && pass || fail "npy: the JSON-style header gives other values"
  refuse "npy: fortran_order 0" "bad\.npy: npy header: 'fortran_order' is '0', neither False nor True" "$T/bad.npy"
  refuse "npy: fortran_order true" "fortran\.npy: Fortran order is not supported" "$T/fortran.npy"
else skip_part "no python3: the npy headers are not written"; fi

# --- the readers keep names as names (python/starmet_io.py, R/starmet_io.R)
printf 'name\tf1\tf2\n007\t1\t2\n7\t3\t4\n07\t5\t1\n' > "$T/n7.tsv"
run_ok "names 007 7 07" c --input "$T/n7.tsv" --row-names yes --output "$T/r7"
run_ok "names 007 7 07, --keys index" c --input "$T/n7.tsv" --row-names yes --keys index --output "$T/r7i"
printf '2\t1\t2\n0\t3\t4\n1\t5\t1\n' > "$T/n0.tsv" # names that look like indices
run_ok "names 2 0 1" c --input "$T/n0.tsv" --row-names yes --output "$T/r0"
run_ok "synthetic (indices)" c --synthetic random --num-vector 5 --num-field 4 --output "$T/rs"
run_ok "names 1001.., top-k" c --input "$T/q2.tsv" --transpose --top-k 1 --output "$T/rq"
run_ok "maf (tsv)" "$S" maf --quiet --input "$top_srcdir/data/example_gl.vcf" --output "$T/maf"
run_ok "maf (bin)" "$S" maf --quiet --input "$top_srcdir/data/example_gl.vcf" --output-format bin --output "$T/mafb"
if "$PY" -c 'import numpy' 2> /dev/null; then
  cat > "$T/names.py" << 'PYEOF'
import os, shutil, sys
import numpy as np
import starmet_io as sio
d = sys.argv[1]
def ids(a, *f):
    return [str(x) for n in f for x in a[n]]
r = sio.read_results(d + "/r7")
assert r["i"].dtype == object and sorted(set(ids(r, "i", "j"))) == ["007", "07", "7"], r
t = sio.read_tsv(d + "/r7.tsv")
assert ids(t, "i", "j") == ids(r, "i", "j"), t
assert sio.read_tsv(d + "/r7i.tsv")["i"].dtype == np.uint32
assert sio.read_summary(d + "/r7i") and sio.summary_keys(sio.read_summary(d + "/r7i")) == "index"
r0 = sio.read_tsv(d + "/r0.tsv")  # the summary says names: "2" "0" "1" stay strings
assert r0["i"].dtype == object and ids(r0, "i")[0] == "2", r0
shutil.copy(d + "/r0.tsv", d + "/alone.tsv")  # no summary: as indices, or as asked
assert sio.read_tsv(d + "/alone.tsv")["i"].dtype == np.uint32
assert sio.read_tsv(d + "/alone.tsv", keys="names")["i"].dtype == object
assert sio.read_results(d + "/rs")["i"].dtype == np.uint32
k = sio.read_topk(d + "/rq")
assert sorted(set(ids(k, "vector", "neighbour"))) == ["1001", "1002", "1003"], k
assert k["vector"].dtype == object
print("ok")
PYEOF
  if PYTHONPATH="$top_srcdir/python" PYTHONDONTWRITEBYTECODE=1 "$PY" "$T/names.py" "$T" > "$T/py.log" 2>&1; then
    pass; else fail "python: names"; cat "$T/py.log" >&2; fi
  # starmet_io.py PREFIX on maf's files: described, not a traceback
  for m in maf mafb; do
    if "$PY" "$top_srcdir/python/starmet_io.py" "$T/$m" > "$T/d.out" 2> "$T/d.err" &&
      grep -q "^run        ok, maf, 30 individuals" "$T/d.out" &&
      grep -q "^saf        200 sites x 61 bins" "$T/d.out" && grep -q "^sfs        61 values" "$T/d.out"; then
      pass; else fail "starmet_io.py on maf's $m"; cat "$T/d.out" "$T/d.err" >&2; fi
  done
  cat > "$T/saf.py" << 'PYEOF'
import sys
import numpy as np
import starmet_io as sio
d = sys.argv[1]
b, t = sio.read_saf_bin(d + "/mafb.saf.bin"), sio.read_maf(d + "/maf.saf.tsv")
assert len(b) == len(t) == 200 and b["saf"].shape == t["saf"].shape
assert list(b["chrom"]) == list(t["chrom"]) and np.array_equal(b["pos"], t["pos"])
assert np.array_equal(b["saf"], t["saf"])  # 17 digits in the TSV: exact
assert sio.read_sfs(d + "/mafb").shape == (61,)
try:
    sio.read_results(d + "/maf")
    raise SystemExit("read_results read a maf run")
except FileNotFoundError as e:
    assert "starmet maf" in str(e), e
print("ok")
PYEOF
  if PYTHONPATH="$top_srcdir/python" PYTHONDONTWRITEBYTECODE=1 "$PY" "$T/saf.py" "$T" > "$T/py.log" 2>&1; then
    pass; else fail "python: maf's files"; cat "$T/py.log" >&2; fi
else skip_part "$PY has no numpy: the Python reader is not tested"; fi
if command -v Rscript > /dev/null 2>&1; then
  cat > "$T/names.R" << 'REOF'
a <- commandArgs(TRUE)
source(a[1])
d <- a[2]
r <- starmet_read_results(file.path(d, "r7"))
stopifnot(is.character(r$id_i), identical(sort(unique(c(r$id_i, r$id_j))), sort(c("007", "07", "7"))))
stopifnot(is.integer(starmet_read_tsv(file.path(d, "r7i.tsv"))$id_i))
r0 <- starmet_read_tsv(file.path(d, "r0.tsv"))
stopifnot(is.character(r0$id_i), r0$id_i[1] == "2")
stopifnot(is.integer(starmet_read_tsv(file.path(d, "alone.tsv"))$id_i))
stopifnot(is.character(starmet_read_tsv(file.path(d, "alone.tsv"), keys = "names")$id_i))
stopifnot(is.integer(starmet_read_results(file.path(d, "rs"))$id_i))
k <- starmet_read_tsv(file.path(d, "rq.topk.tsv"))
stopifnot(is.character(k$vector), all(k$vector %in% c("1001", "1002", "1003")))
m <- tryCatch(starmet_read_results(file.path(d, "maf")), error = conditionMessage)
stopifnot(grepl("a starmet maf run.*starmet_read_maf", m))
REOF
  [ -f "$T/alone.tsv" ] || cp "$T/r0.tsv" "$T/alone.tsv"
  if Rscript "$T/names.R" "$top_srcdir/R/starmet_io.R" "$T" > "$T/r.log" 2>&1; then pass; else
    fail "R: names"; cat "$T/r.log" >&2; fi
else skip_part "Rscript not installed (Debian: r-base-core): the R reader is not tested"; fi
finish
