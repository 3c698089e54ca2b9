#!/bin/sh
# biom_input.sh: BIOM tables (docs/inputs.md, "BIOM tables"). QIIME-like
# tables made by biom-format (counts with numeric sample ids, Qiita's
# 10317.000001 and 1001; relative abundances with text ids) as BIOM 2.1
# (HDF5) and as the text `biom convert --to-tsv` writes (with and without
# a taxonomy column): the samples are compared by default, every value is
# 1 - scipy's braycurtis and scikit-bio's beta_diversity('braycurtis')
# (exactly 2 sum(min) / (sum + sum) for counts), the ids are the file's;
# both forms give the same output file; --compare observations; MPI ranks
# reading slices of the HDF5 file agree with one rank; damaged and wrong
# files are refused, naming what is wrong, leaving no output.
. "$(dirname "$0")/../lib.sh"
S=$STARMET
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c 'import biom, h5py, numpy, scipy, skbio' 2> /dev/null; then
  echo "python3 with biom-format, h5py, scipy and scikit-bio not found (apt-get install" \
    "python3-biom-format python3-h5py python3-scipy python3-skbio): skipped"
  exit 77
fi
c() { "$S" compute --quiet "$@"; }
refuse() { rn=$1 rp=$2 rf=$3; shift 3; rm -f "$T/err"*; expect_error "$rn" "$rp" "$T/err" c --input "$rf" --output "$T/err" "$@"; }

# ---- the tables: NAME.biom (HDF5), NAME.tsv, NAME_tax.tsv (taxonomy column)
cat > "$T/make.py" << 'PYEOF'
import sys
import numpy as np
import biom
from biom.util import biom_open

out = sys.argv[1]
rng = np.random.default_rng(39)


def table(name, data, obs, samp):
    md = [{"taxonomy": ["k__Bacteria", "p__P%d" % (i % 5), "g__G%d" % i]}
          for i in range(len(obs))]
    t = biom.Table(data, obs, samp, observation_metadata=md, type="OTU table")
    with biom_open("%s/%s.biom" % (out, name), "w") as f:
        t.to_hdf5(f, "starmet tests")
    with open("%s/%s.tsv" % (out, name), "w") as f:
        f.write(t.to_tsv())
    with open("%s/%s_tax.tsv" % (out, name), "w") as f:
        f.write(t.to_tsv(header_key="taxonomy", header_value="taxonomy",
                         metadata_formatter=lambda x: "; ".join(x)))


def counts(nobs, nsamp):
    """Sparse counts as amplicon tables have them; no empty sample or OTU."""
    d = rng.poisson(rng.gamma(0.3, 40, size=(nobs, nsamp))).astype(float)
    d[np.arange(nobs), np.arange(nobs) % nsamp] += 1
    return d


ids = ["1001", "1002", "10317.000001", "10317.000002", "007", "7"] + \
      ["10317.%06d" % k for k in range(3, 17)]
table("counts", counts(60, 20), ["OTU_%d" % k for k in range(60)], ids)
rel = counts(45, 13)
rel /= rel.sum(axis=0)
table("rel", rel, ["ASV_%02d" % k for k in range(45)],
      ["gut.A1", "skin B2", "S-3", "soil_4", "x", "Sample6", "s7", "s8", "s9",
       "s10", "s11", "s12", "s13"])
table("big", counts(300, 37), ["G%d" % k for k in range(300)],
      ["S%03d" % k for k in range(37)])
PYEOF
if "$PY" "$T/make.py" "$T" > "$T/make.log" 2>&1; then pass; else fail "making the tables"; cat "$T/make.log" >&2; finish; fi

# ---- check.py BIOM OUT.tsv AXIS EXACT: OUT holds every pair of AXIS's ids
# (in the file's order) once, each value 1 - braycurtis by scipy and by
# scikit-bio within 1e-12 relative, and with EXACT=1 the correctly rounded
# 2 sum(min) / (sum + sum) of the counts
cat > "$T/check.py" << 'PYEOF'
import sys
from fractions import Fraction
import numpy as np
import biom
from scipy.spatial.distance import braycurtis
from skbio.diversity import beta_diversity

path, res, axis, exact = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
t = biom.load_table(path)
x = t.matrix_data.toarray()  # observations x samples
if axis == "samples":
    x = x.T
ids = list(t.ids(axis="sample" if axis == "samples" else "observation"))
dm = beta_diversity("braycurtis", x, ids, validate=False)
at = {s: k for k, s in enumerate(ids)}
seen, worst, bad = set(), 0.0, []
with open(res) as f:
    assert f.readline() == "id_i\tid_j\tvalue\n", "header"
    for line in f:
        a, b, v = line.rstrip("\n").split("\t")
        i, j, v = at[a], at[b], float(v)
        assert i < j and (i, j) not in seen, (a, b)
        seen.add((i, j))
        u, w = x[i], x[j]
        for want in (1 - braycurtis(u, w), 1 - dm[a, b]):
            worst = max(worst, abs(v - want) / abs(want))
        if exact:
            e = float(Fraction(2 * int(np.minimum(u, w).sum()), int(u.sum() + w.sum())))
            if e != v:
                bad.append((a, b, v, e))
n = len(ids)
assert len(seen) == n * (n - 1) // 2, ("pairs", len(seen))
print("pairs", len(seen), "max rel diff", worst, "inexact", bad[:3])
sys.exit(0 if worst < 1e-12 and not bad else 1)
PYEOF
# agree NAME BIOM OUT AXIS EXACT
agree() {
  if "$PY" "$T/check.py" "$2" "$3" "$4" "$5" > "$T/check.log" 2>&1; then pass; else
    fail "$1: not what scipy and scikit-bio say"; cat "$T/check.log" >&2; fi
}
# same_file NAME A B: byte-identical outputs
same_file() { cmp -s "$2" "$3" && pass || { fail "$1: $2 and $3 differ"; diff "$2" "$3" | head -5 >&2; }; }

# a starmet built without HDF5 (configure --without-hdf5) refuses the HDF5
# form, saying how to read the table, and reads the text form
if ! "$S" --version | grep -Eq '^features: [^(]*hdf5'; then
  refuse "built without HDF5" "counts\.biom: a BIOM 2\.1 \(HDF5\) table, and this starmet was built without HDF5: install libhdf5-dev and rebuild, or convert the table to text with \`biom convert -i .*counts\.biom -o .*counts\.tsv --to-tsv\`" "$T/counts.biom"
  run_ok "counts_tax.tsv, without HDF5" c --input "$T/counts_tax.tsv" --output "$T/x_counts"
  agree "counts_tax.tsv, without HDF5" "$T/counts.biom" "$T/x_counts.tsv" samples 1
  skip_part "starmet was built without HDF5: BIOM 2.1 input is not tested"
  finish
fi

for tab in counts rel; do
  exact=0; [ $tab = counts ] && exact=1
  run_ok "$tab.biom" "$S" compute --metric czekanowski --input "$T/$tab.biom" --output "$T/h_$tab"
  cp "$T/log.out" "$T/h_$tab.out"
  agree "$tab.biom" "$T/$tab.biom" "$T/h_$tab.tsv" samples $exact
  run_ok "$tab.tsv" c --input "$T/$tab.tsv" --output "$T/t_$tab"
  same_file "$tab: HDF5 and text" "$T/h_$tab.tsv" "$T/t_$tab.tsv"
  run_ok "${tab}_tax.tsv" "$S" compute --input "$T/${tab}_tax.tsv" --output "$T/x_$tab"
  same_file "$tab: a taxonomy column" "$T/h_$tab.tsv" "$T/x_$tab.tsv"
  grep -q "${tab}_tax\.tsv: the last column, 'taxonomy', holds observation metadata.*skipped" "$T/log.err" &&
    pass || { fail "$tab: the taxonomy column is not said to be skipped"; cat "$T/log.err" >&2; }
  run_ok "$tab --compare observations" c --input "$T/$tab.biom" --compare observations --output "$T/ho_$tab"
  agree "$tab --compare observations" "$T/$tab.biom" "$T/ho_$tab.tsv" observations $exact
  run_ok "$tab.tsv --compare observations" c --input "$T/${tab}_tax.tsv" --compare observations --output "$T/to_$tab"
  same_file "$tab: observations, HDF5 and text" "$T/ho_$tab.tsv" "$T/to_$tab.tsv"
  # --transpose (columns as vectors) is what a BIOM table gets anyway
  run_ok "$tab.tsv --transpose" c --input "$T/$tab.tsv" --transpose --output "$T/tt_$tab"
  same_file "$tab: --transpose" "$T/h_$tab.tsv" "$T/tt_$tab.tsv"
done
# the summary says which axis is compared, by its name
head -n 1 "$T/h_counts.out" | grep -q "^starmet ok: czekanowski 2-way (double), 20 samples x 60 observations (BIOM: samples compared), .*counts\.biom$" &&
  pass || fail "summary line: $(head -n 1 "$T/h_counts.out")"
grep -q '"compare": "samples"' "$T/h_counts.json" && pass || fail "JSON summary: no \"compare\": \"samples\""
grep -q '"compare": "observations"' "$T/ho_counts.json" && pass || fail "JSON summary: no \"compare\": \"observations\""
grep -q '"compare"' "$T/t_counts.json" && pass || fail "JSON summary of the text form: no \"compare\""
# numeric ids are kept as written
[ "$(head -n 6 "$T/h_counts.tsv" | tail -n 5 | cut -f 2 | tr '\n' ' ')" = "1002 10317.000001 10317.000002 007 7 " ] &&
  pass || fail "ids: $(head -n 6 "$T/h_counts.tsv" | cut -f 2 | tr '\n' ' ')"

# the text form's other spellings: 'OTU ID' without '#', no first comment
# line, "#OTU<TAB>ID" (the label split by a tab)
sed -n '2,$p' "$T/counts.tsv" > "$T/nocomment.tsv"
sed -n '2,$p' "$T/counts.tsv" | sed '1s/^#OTU ID/OTU ID/' > "$T/nohash.tsv"
sed '2s/^#OTU ID/#OTU\tID/' "$T/counts.tsv" > "$T/splitlabel.tsv"
for f in nocomment nohash splitlabel; do
  run_ok "text form: $f" c --input "$T/$f.tsv" --output "$T/s_$f"
  same_file "text form: $f" "$T/h_counts.tsv" "$T/s_$f.tsv"
done

# the format by its signature: another name, a stream, --input-format
cp "$T/counts.biom" "$T/counts.h5"
run_ok "HDF5 named .h5" c --input "$T/counts.h5" --output "$T/n_h5"
same_file "HDF5 named .h5" "$T/h_counts.tsv" "$T/n_h5.tsv"
run_ok "HDF5 from a pipe" sh -c "cat '$T/counts.biom' | '$S' compute --quiet --input /dev/stdin --output '$T/n_pipe'"
same_file "HDF5 from a pipe" "$T/h_counts.tsv" "$T/n_pipe.tsv"
cp "$T/counts.biom" "$T/counts.dat"
run_ok "--input-format biom" c --input "$T/counts.dat" --input-format biom --output "$T/n_fmt"
same_file "--input-format biom" "$T/h_counts.tsv" "$T/n_fmt.tsv"
# single precision reads the same table
run_ok "--precision single" c --input "$T/counts.biom" --precision single --output "$T/n_single"
"$SMCMP" --tol-rel 1e-5 "$T/h_counts.tsv" "$T/n_single.tsv" > /dev/null 2>&1 && pass || fail "--precision single: other values"

# ---- several ranks, each reading its slice (odd vector slices, fields split)
if [ -n "${MPIEXEC:-}" ]; then
  mpi_setup
  run_ok "big.biom, one rank" c --input "$T/big.biom" --block-size 5 --output "$T/m1" --summary "$T/m1.json"
  agree "big.biom" "$T/big.biom" "$T/m1.tsv" samples 1
  for grid in "2 1" "3 1" "2 2" "1 3" "4 1"; do
    # shellcheck disable=SC2086
    set -- $grid
    np=$(($1 * $2))
    run_ok "big.biom on $np ranks (npf $2)" mpi_starmet $np compute --input "$T/big.biom" --block-size 5 \
      --num-proc-field "$2" --output "$T/mp" --summary "$T/mp.json"
    merge_ranks "$T/mp" $np tsv "$T/mp_all.tsv"
    same "big.biom on $np ranks (npf $2)" "$T/m1.tsv" "$T/mp_all.tsv"
    [ "$(cks "$T/mp.json")" = "$(cks "$T/m1.json")" ] && pass || fail "$np ranks (npf $2): other checksum"
    rm -f "$T"/mp_*.tsv "$T/mp.json"
  done
  run_ok "observations on 3 ranks" mpi_starmet 3 compute --input "$T/big.biom" --compare observations \
    --block-size 7 --output "$T/mo" --summary "$T/mo.json"
  merge_ranks "$T/mo" 3 tsv "$T/mo_all.tsv"
  agree "observations on 3 ranks" "$T/big.biom" "$T/mo_all.tsv" observations 1
else skip_part "no MPI launcher: the multi-rank runs"; fi

# ---- hostile files, each made from counts.biom by h5py
cat > "$T/break.py" << 'PYEOF'
import json, shutil, struct, sys
import numpy as np
import h5py

d, src = sys.argv[1], sys.argv[1] + "/counts.biom"


def broken(name, fn):
    shutil.copy(src, "%s/%s.biom" % (d, name))
    with h5py.File("%s/%s.biom" % (d, name), "r+") as f:
        fn(f)


def put(f, path, i, v):
    a = f[path][:]
    a[i] = v
    del f[path]
    f.create_dataset(path, data=a)


def swap_ptr(f):
    p = f["sample/matrix/indptr"][:]
    p[3], p[4] = p[4], p[3]
    f["sample/matrix/indptr"][:] = p


def dup(f):
    assert f["sample/matrix/indptr"][1] >= 2
    a = f["sample/matrix/indices"][:]
    a[1] = a[0]
    f["sample/matrix/indices"][:] = a


def short_ids(f):
    ids = f["sample/ids"][:-1]
    del f["sample/ids"]
    f.create_dataset("sample/ids", data=ids, dtype=h5py.string_dtype())


def short_data(f):
    a = f["sample/matrix/data"][:-1]
    del f["sample/matrix/data"]
    f.create_dataset("sample/matrix/data", data=a)


def no_matrix(f):
    del f["sample/matrix"]


broken("oor", lambda f: put(f, "sample/matrix/indices", 7, 60))
broken("negidx", lambda f: put(f, "sample/matrix/indices", 7, -1))
broken("nonmono", swap_ptr)
broken("shape", lambda f: f.attrs.__setitem__("shape", np.array([60, 21])))
broken("ids", short_ids)
broken("short", short_data)
def nan(f):  # in both matrices: either may be read
    put(f, "sample/matrix/data", 7, np.nan)
    put(f, "observation/matrix/data", 7, np.nan)


broken("nan", nan)


# a sample id's size in HDF5's global heap, 13 x 2^32 bytes too big
shutil.copy(src, d + "/heap.biom")
with open(d + "/heap.biom", "r+b") as fh:
    b = bytearray(fh.read())
    done, g = False, b.find(b"GCOL")
    while g >= 0 and not done:  # each collection, each object in it
        end, p = g + struct.unpack_from("<Q", b, g + 8)[0], g + 16
        while p + 16 <= end:
            idx, ref, res, size = struct.unpack_from("<HHIQ", b, p)
            if idx == 0:
                break
            if b[p + 16:p + 20] == b"1001":  # a sample id
                struct.pack_into("<Q", b, p + 8, size | (13 << 32))
                done = True
                break
            p += 16 + ((size + 7) // 8) * 8
        g = b.find(b"GCOL", g + 4)
    if not done:
        raise SystemExit("no sample id in HDF5's global heap")
    fh.seek(0)
    fh.write(b)
# the first object's size in the global heap of the ids 3072 bytes too
# big: HDF5 walks that heap in a circle
shutil.copy(src, d + "/loop.biom")
with open(d + "/loop.biom", "r+b") as fh:
    b = bytearray(fh.read())
    g = b.find(b"GCOL")
    while g >= 0 and b.find(b"1001", g, g + struct.unpack_from("<Q", b, g + 8)[0]) < 0:
        g = b.find(b"GCOL", g + 4)
    if g < 0:
        raise SystemExit("no global heap holds the sample ids")
    b[g + 16 + 9] = 12
    fh.seek(0)
    fh.write(b)
broken("neg", lambda f: put(f, "sample/matrix/data", 7, -3.0))
broken("inf", lambda f: put(f, "sample/matrix/data", 7, np.inf))
broken("dup", dup)
broken("nnz", lambda f: f.attrs.__setitem__("nnz", 5))
broken("nomatrix", no_matrix)
broken("v1", lambda f: f.attrs.__setitem__("format-version", np.array([1, 0])))
with h5py.File(d + "/plain.biom", "w") as f:
    f.create_dataset("x", data=np.arange(10))
with open(d + "/json.biom", "w") as f:
    json.dump({"id": None, "format": "Biological Observation Matrix 1.0.0",
               "type": "OTU table", "matrix_type": "sparse", "shape": [1, 1],
               "rows": [{"id": "O1"}], "columns": [{"id": "S1"}],
               "data": [[0, 0, 1.0]]}, f)
PYEOF
if "$PY" "$T/break.py" "$T" > "$T/break.log" 2>&1; then pass; else fail "making the damaged files"; cat "$T/break.log" >&2; fi
n=$(wc -c < "$T/counts.biom")
head -c $((n / 2)) "$T/counts.biom" > "$T/trunc.biom"
head -c 100 "$T/counts.biom" > "$T/trunc100.biom"
: > "$T/empty.biom"
mkdir "$T/dir.biom"
D='the file is damaged'
refuse "truncated" "trunc\.biom: HDF5 cannot open it \(truncated file.*damaged or truncated" "$T/trunc.biom"
refuse "truncated in the superblock" "trunc100\.biom: HDF5 cannot open it.*damaged or truncated" "$T/trunc100.biom"
refuse "an index out of range" "oor\.biom: sample/matrix/indices\[7\] = 60, outside 0\.\.59 \(the table has 60 observations\): $D" "$T/oor.biom"
refuse "a negative index" "negidx\.biom: sample/matrix/indices\[7\] = -1, outside 0\.\.59.*$D" "$T/negidx.biom"
refuse "offsets not rising" "nonmono\.biom: sample/matrix/indptr\[4\] = [0-9]+ after [0-9]+: the offsets must rise.*$D" "$T/nonmono.biom"
refuse "shape against the ids" "shape\.biom: sample/ids holds 20 ids but the table's shape \(60 observations x 21 samples\) says 21: $D" "$T/shape.biom"
refuse "ids fewer than the shape" "ids\.biom: sample/ids holds 19 ids.*says 20: $D" "$T/ids.biom"
refuse "values fewer than indices" "short\.biom: sample/matrix holds 21 offsets \(indptr\), [0-9]+ indices and [0-9]+ values.*$D" "$T/short.biom"
refuse "HDF5's global heap damaged" "heap\.biom: the HDF5 library failed reading it \([A-Za-z ]+\): the file is damaged" "$T/heap.biom"
rm -f "$T/err"*
expect_error "HDF5 going round in circles" "loop\.biom: the HDF5 library made no progress reading it for 2 s \(its reads go round in circles\): the file is damaged" \
  "$T/err" env STARMET_HDF5_WAIT=2 "$S" compute --quiet --input "$T/loop.biom" --output "$T/err"
refuse "NaN" "nan\.biom: sample '[^']+', observation 'OTU_[0-9]+': value nan is not allowed for czekanowski" "$T/nan.biom"
refuse "a negative value" "neg\.biom: sample '[^']+', observation 'OTU_[0-9]+': value -3 is not allowed" "$T/neg.biom"
refuse "inf" "inf\.biom: sample '[^']+', observation 'OTU_[0-9]+': value inf is not allowed" "$T/inf.biom"
refuse "NaN, observations compared" "nan\.biom: sample '[^']+', observation 'OTU_[0-9]+': value nan" "$T/nan.biom" --compare observations
refuse "an entry twice" "dup\.biom: sample '1001', observation '[^']+': listed twice in sample/matrix/indices.*$D" "$T/dup.biom"
refuse "nnz against the matrix" "nnz\.biom: the 'nnz' attribute says 5 nonzero values, sample/matrix holds [0-9]+: $D" "$T/nnz.biom"
refuse "no sample matrix" "nomatrix\.biom: no dataset 'sample/matrix/indptr'" "$T/nomatrix.biom"
refuse "format version 1" "v1\.biom: BIOM format version 1\.0; starmet reads BIOM 2\.x" "$T/v1.biom"
refuse "HDF5, not BIOM" "plain\.biom: an HDF5 file, but not a BIOM table" "$T/plain.biom"
refuse "BIOM 1.0 (JSON)" "json\.biom: a BIOM 1\.0 table \(JSON\).*biom convert -i .*json\.biom -o .*json\.h5\.biom --to-hdf5" "$T/json.biom"
refuse "an empty .biom" "empty\.biom: empty file: not a BIOM table" "$T/empty.biom"
refuse "a directory named .biom" "dir\.biom: a directory" "$T/dir.biom"
refuse "text as --input-format biom" "counts\.tsv: text starting with '#'.*--input-format tsv" "$T/counts.tsv" --input-format biom
refuse "ccc on a BIOM table" "counts\.biom: a BIOM table holds counts or abundances, for czekanowski" "$T/counts.biom" --metric ccc
refuse "--compare on a plain table" "--compare applies to BIOM tables.*this input is not one" "$top_srcdir/data/example_abundance.tsv" --compare samples
refuse "--transpose with --compare observations" "--transpose makes the columns .*--compare observations.*give one of the two" "$T/counts.biom" --transpose --compare observations
if [ -n "${MPIEXEC:-}" ]; then
  rm -f "$T/err"*
  expect_error "NaN, 3 ranks" "nan\.biom: sample '[^']+', observation 'OTU_[0-9]+': value nan" "$T/err" \
    mpi_starmet 3 compute --input "$T/nan.biom" --block-size 5 --output "$T/err"
fi
finish
