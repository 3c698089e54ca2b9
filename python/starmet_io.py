#!/usr/bin/env python3
"""starmet_io: read starmet's output files into NumPy (or pandas).

Needs NumPy only; pandas is used when a DataFrame is asked for
(``as_frame=True``). The formats are described in starmet's guide
(docs/outputs.md, docs/ranks.md). PREFIX is the ``--output``
of the run:

================================  ==========================  ================
file                              written by                  read with
================================  ==========================  ================
PREFIX.bin, PREFIX_<rank>.bin     ``--output-format bin``     read_bin
PREFIX.tsv, PREFIX_<rank>.tsv     ``--output-format tsv``     read_tsv
PREFIX.npy, PREFIX.ids.txt        ``--output-format npy``     read_npy, read_ids
PREFIX.lsmat                      ``--output-format lsmat``   read_lsmat
PREFIX.json                       every run (rank 0)          read_summary
PREFIX.topk.tsv, PREFIX.topk.bin  top-k neighbours            read_topk
PREFIX.hist.tsv                   value histograms            read_hist
PREFIX.maf.tsv, PREFIX.saf.tsv    ``starmet maf``             read_maf
PREFIX.saf.bin                    ``starmet maf`` (bin)       read_saf_bin
PREFIX.sfs                        ``starmet maf``             read_sfs
================================  ==========================  ================

``read_results(PREFIX)`` finds the result files of a run, on one rank or
several (the rank count is in PREFIX.json), and concatenates them;
``maf_files(PREFIX)`` lists those of a ``starmet maf`` run.

Results come as NumPy structured arrays, one element per value:

``i, j[, k]``
    the vector indices, 0-based, ascending (uint32). A TSV written from an
    input with vector names holds the names instead: the fields are then
    Python str objects, exactly as the file holds them ("7", "07" and
    "007" are three names). The TSV header is the same either way; the
    run's summary (PREFIX.json) says which (``summary_keys``), and without
    it only ids written as starmet writes indices (decimal, no leading
    zero) are read as indices; ``keys="names"`` or ``"index"`` says it.
``entry``
    CCC only: the table entry, a*2+b (3-way a*4+b*2+c), uint8, as in the
    binary format (``entry_bits`` splits it).
``value``
    float64, or float32 for ``--precision single``.

With ``as_frame=True`` the result is a pandas DataFrame with the columns of
the TSV header: ``id_i, id_j[, id_k]``, for CCC ``a, b[, c]`` instead of
``entry``, then ``value``.

Names in the TSV files (results, top-k, maf) are written escaped
(docs/outputs.md): tab, newline, carriage return and backslash as ``\\t``
``\\n`` ``\\r`` ``\\\\``, other control bytes (below 0x20, and 0x7f) as
``\\xHH``; every other byte as it is. The readers undo exactly that
(``unescape_name``), so a name comes back as the input had it; bytes that
are not UTF-8 come back as surrogates (Python's "surrogateescape":
``os.fsencode(name)`` gives the original bytes).

The npy matrix (2-way, one rank) is what ``numpy.load`` returns: n x n
(x 4 for CCC, the last axis the entry a*2+b, with ``m[i, j, a*2+b] ==
m[j, i, b*2+a]``), NaN where no value was kept (``--threshold``, phases
not computed), the diagonal the metric's value of a vector with itself
(``self_value``: 1 for Czekanowski, NaN for CCC). PREFIX.ids.txt beside it
names the rows (``read_ids``; ``read_npy(PREFIX, with_ids=True)``).
``to_matrix`` builds the same matrix from 2-way records, with the ids when
the records hold names.

Distances: ``to_distance_matrix(PREFIX)`` gives a scikit-bio
``DistanceMatrix`` from a run's lsmat, npy (with its ids) or records. A
similarity (Czekanowski's PS) becomes the dissimilarity 1 - value (1 - PS
is the Bray-Curtis dissimilarity), the diagonal 0, as in the lsmat files
starmet writes (``distance``); CCC values are no distances.

Run as a program, ``python3 starmet_io.py PREFIX`` prints what a run
(compute or maf) wrote.
"""

import glob
import json
import os
import re
import sys
import warnings

import numpy as np

__all__ = [
    "read_header", "read_bin", "read_tsv", "read_results", "result_files",
    "read_npy", "read_summary", "read_topk", "read_topk_tsv",
    "read_topk_bin", "read_hist", "read_maf", "read_saf_bin", "read_sfs", "SFS",
    "maf_files", "entry_bits", "to_matrix", "to_frame", "unescape_name",
    "summary_keys", "read_ids", "read_lsmat", "to_distance_matrix",
    "self_value", "distance",
]

HEADER_BYTES = 64
RESULT_MAGIC = b"STARMET\0"
TOPK_MAGIC = b"STARTOPK"
METRICS = ("czekanowski", "ccc", "bray-curtis", "jaccard", "r2", "r")  # header codes 0..5
TOPK_MODES = ("per entry", "max entry")
# A vector's value with itself, the matrices' diagonal (starmet's
# sm_matrix_self_value): 1 for a similarity, 0 for a dissimilarity, NaN
# where it is no constant (CCC's table depends on the vector).
SELF_VALUES = {"czekanowski": 1.0, "bray-curtis": 0.0, "jaccard": 0.0,
               "ccc": float("nan"), "r2": 1.0, "r": 1.0}


# ---------------------------------------------------------------- helpers
def _u32(b, off):
    return int.from_bytes(b[off:off + 4], "little")


def _u64(b, off):
    return int.from_bytes(b[off:off + 8], "little")


def _value_dtype(value_bytes):
    return np.dtype("<f4") if value_bytes == 4 else np.dtype("<f8")


def _id_fields(way):
    return ("i", "j", "k")[:way]


def self_value(metric):
    """The metric's value of a vector with itself (what the diagonal of
    starmet's matrices holds): 1.0 for Czekanowski (a similarity), 0.0 for
    a dissimilarity (Bray-Curtis, Jaccard), NaN for CCC (no constant)."""
    try:
        return SELF_VALUES[metric]
    except KeyError:
        raise ValueError("metric %r: this reader knows %s"
                         % (metric, ", ".join(SELF_VALUES))) from None


def distance(metric, values):
    """The distances of a metric's values, as starmet's lsmat holds them:
    the values of a dissimilarity (self-value 0); 1 - value for a
    similarity (self-value 1: Czekanowski's 1 - PS is the Bray-Curtis
    dissimilarity). ValueError for a metric without distances (CCC)."""
    s = self_value(metric)
    if metric in ("r2", "r"):
        raise ValueError("%s values are correlations, not distances" % metric)
    v = np.asarray(values, dtype=np.float64)
    if s == 0:
        return v.copy()
    if s == 1:
        return 1.0 - v
    raise ValueError("%s values are not distances (a vector's value with "
                     "itself is no constant)" % metric)


def entry_bits(entry, way=2):
    """Split CCC table entries into their allele bits.

    entry: array of entries (a*2+b, or a*4+b*2+c for way 3).
    Returns a tuple of uint8 arrays (a, b) or (a, b, c).
    """
    e = np.asarray(entry).astype(np.uint8)
    return tuple(((e >> (way - 1 - k)) & 1).astype(np.uint8)
                 for k in range(way))


def _pandas():
    try:
        import pandas
    except ImportError as exc:  # optional dependency
        raise ImportError("as_frame=True needs pandas (Debian: apt-get install "
                          "python3-pandas; or pip install pandas)") from exc
    return pandas


def to_frame(arr, way=None):
    """A structured array of this module as a pandas DataFrame, with the
    columns of the file's header: a result record's ids i, j[, k] become
    id_i, id_j[, id_k], and the ``entry`` field (CCC) columns a, b[, c].
    way: the number of indices of a result record (default: guessed from
    the fields).
    """
    pd = _pandas()
    names = arr.dtype.names
    if way is None:
        way = 3 if "k" in names else 2
    cols = {}
    for name in names:
        if name == "entry":
            for letter, bits in zip("abc", entry_bits(arr["entry"], way)):
                cols[letter] = bits
        elif name in ("i", "j", "k"):
            cols["id_" + name] = np.asarray(arr[name])
        else:
            cols[name] = np.asarray(arr[name])
    return pd.DataFrame(cols)


def _finish(arr, as_frame, way):
    return to_frame(arr, way) if as_frame else arr


# ---------------------------------------------------------------- binary
def read_header(path):
    """The 64-byte header of a starmet binary file as a dict.

    Result files (magic ``STARMET\\0``) and top-k files (``STARTOPK``, which
    add ``k`` and ``mode``). Keys: kind ("results" or "topk"), version,
    num_way, metric ("czekanowski" or "ccc"), value_bytes, num_vector,
    num_field, count (records). Raises ValueError for anything else.
    """
    with open(path, "rb") as f:
        h = f.read(HEADER_BYTES)
    if len(h) < HEADER_BYTES:
        raise ValueError("%s: %d bytes, shorter than the %d-byte header of a "
                         "starmet binary file" % (path, len(h), HEADER_BYTES))
    magic = h[:8]
    if magic not in (RESULT_MAGIC, TOPK_MAGIC):
        raise ValueError("%s: not a starmet binary file (magic %r; "
                         "--output-format comet files have no header)"
                         % (path, magic))
    hd = {
        "kind": "results" if magic == RESULT_MAGIC else "topk",
        "version": _u32(h, 8),
        "num_way": _u32(h, 12),
        "metric": _u32(h, 16),
        "value_bytes": _u32(h, 20),
        "num_vector": _u64(h, 24),
        "num_field": _u64(h, 32),
        "count": _u64(h, 40),
    }
    if hd["version"] != 1:
        raise ValueError("%s: format version %d, this reader knows version 1"
                         % (path, hd["version"]))
    if (hd["num_way"] not in (2, 3) or hd["metric"] >= len(METRICS)
            or hd["value_bytes"] not in (4, 8)):
        raise ValueError("%s: malformed header (num_way %d, metric %d, value "
                         "bytes %d)" % (path, hd["num_way"], hd["metric"],
                                        hd["value_bytes"]))
    hd["metric"] = METRICS[hd["metric"]]
    if hd["kind"] == "topk":
        hd["k"] = _u32(h, 48)
        mode = _u32(h, 52)
        hd["mode"] = TOPK_MODES[mode] if mode < len(TOPK_MODES) else mode
    return hd


def _record_dtype(hd):
    ccc = hd["metric"] == "ccc"
    if hd["kind"] == "topk":
        fields = [("vector", "<u4"), ("rank", "<u4"), ("neighbour", "<u4")]
    else:
        fields = [(name, "<u4") for name in _id_fields(hd["num_way"])]
    if ccc:
        fields.append(("entry", "u1"))
    fields.append(("value", _value_dtype(hd["value_bytes"])))
    return np.dtype(fields)  # packed: no alignment padding, as on disk


def _map_records(path, hd):
    dt = _record_dtype(hd)
    size = os.path.getsize(path)
    want = HEADER_BYTES + hd["count"] * dt.itemsize
    if size != want:
        raise ValueError("%s: %d bytes, but its header announces %d records of "
                         "%d bytes (%d bytes): the file is truncated or not "
                         "starmet's" % (path, size, hd["count"], dt.itemsize,
                                        want))
    if hd["count"] == 0:
        return np.zeros(0, dtype=dt)
    return np.memmap(path, dtype=dt, mode="r", offset=HEADER_BYTES,
                     shape=(hd["count"],))


def read_bin(path, as_frame=False):
    """Read a starmet binary result file (``--output-format bin``).

    Returns a read-only numpy.memmap of structured records (fields i, j[, k],
    [entry], value), or a DataFrame with as_frame=True. The header is
    checked against the file size.
    """
    hd = read_header(path)
    if hd["kind"] != "results":
        raise ValueError("%s: a top-k file: use read_topk_bin" % path)
    return _finish(_map_records(path, hd), as_frame, hd["num_way"])


# ---------------------------------------------------------------- text
_ESCAPE = re.compile(r"\\(?:([tnr\\])|x([0-9a-fA-F]{2}))")
_ESCAPED = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}


def unescape_name(s):
    """A name as starmet's TSV writers escape it, given back.

    ``\\t`` ``\\n`` ``\\r`` ``\\\\`` become tab, newline, carriage
    return and backslash, ``\\xHH`` the byte HH (starmet writes it for the
    other bytes below 0x20 and 0x7f; a byte from 0x80 up would come back as
    its surrogate, as undecodable bytes do); any other text, a backslash
    not followed by one of those included, is left as it is.
    """
    if "\\" not in s:
        return s
    return _ESCAPE.sub(lambda m: _ESCAPED[m.group(1)] if m.group(1) else
                       bytes([int(m.group(2), 16)]).decode(
                           "utf-8", "surrogateescape"), s)


def _unescape_column(col):
    """unescape_name on an object array of names, in place (each distinct
    name once: a name is on many rows)."""
    seen = {}
    for n, s in enumerate(col):
        if "\\" in s:
            if s not in seen:
                seen[s] = unescape_name(s)
            col[n] = seen[s]


_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")


def _is_index(s):
    """A vector index as starmet writes one: decimal, no sign, no leading
    zero ("7" is, "07" and "007" are not)."""
    return _INDEX.match(s) is not None


def _prefix_of(path):
    """The run prefixes a result file may belong to: PREFIX of PREFIX.tsv,
    PREFIX.topk.tsv, PREFIX_<rank>.tsv, PREFIX_<rank>.topk.tsv."""
    base = path[:-4] if path.endswith(".tsv") else path
    if base.endswith(".topk"):
        base = base[:-5]
    m = re.match(r"(.*)_[0-9]+\Z", base, re.S)
    return [base] + ([m.group(1)] if m else [])


def _option_given(cmd, name):
    """Whether the command line (a list) holds --NAME, as getopt_long reads
    it (a unique abbreviation, or --NAME=VALUE); returns its value (the
    next word, or after '='), True for a flag, or None."""
    for n, word in enumerate(cmd):
        opt, eq, val = word.partition("=")
        if len(opt) > 3 and opt.startswith("--") and ("--" + name).startswith(opt):
            return val if eq else (cmd[n + 1] if n + 1 < len(cmd) else True)
    return None


def summary_keys(summ):
    """What the ids of a compute run's TSV files are, from its summary (a
    dict of read_summary): "names" (the input's vector names), "index"
    (numbers from 0), or None when the summary cannot tell.

    The TSV header is the same either way (id_i, id_j), so the summary
    decides: its "keys" entry when it has one; else --keys index on the
    command line; else the input: a text table has names when its row
    names (or, with --transpose, its header) were read, a synthetic
    problem, an npy or a raw file has none, PLINK and VCF inputs have
    them."""
    prob = summ.get("problem") or {}
    keys = prob.get("keys", summ.get("keys"))
    if keys in ("names", "index"):
        return keys
    cmd = str(summ.get("command", "")).split()
    if _option_given(cmd, "keys") == "index":
        return "index"
    inp = str(prob.get("input", ""))
    if "text_header" in prob:
        header = prob.get("text_header") == "yes"
        rows = prob.get("text_row_names") == "yes"
        if header == rows:
            return "names" if header else "index"
        return "names" if (header if _option_given(cmd, "transpose") else rows) \
            else "index"
    if inp.startswith("synthetic "):
        return "index"
    fmt = _option_given(cmd, "input-format")
    if _option_given(cmd, "bfile") is not None or fmt in ("plink", "vcf", "bcf"):
        return "names"
    if fmt in ("npy", "raw"):
        return "index"
    low = inp.lower()
    if low.endswith((".vcf", ".vcf.gz", ".vcf.bgz", ".bcf", ".bed")):
        return "names"
    if low.endswith(".npy"):
        return "index"
    return None


def _file_keys(path):
    """(keys, num_vector) of the run that wrote path, from the summary
    beside it (None, None without one)."""
    for prefix in _prefix_of(path):
        summ = _summary_or_none(prefix)
        if summ is not None and "problem" in summ:
            nv = (summ.get("problem") or {}).get("num_vector")
            return summary_keys(summ), (int(nv) if nv is not None else None)
    return None, None


def _load_columns(path, fields, id_fields, keys=None):
    """Rows of a TSV file with a header line, as a structured array.

    fields: (name, dtype) per column, in order; the columns in id_fields
    hold indices (uint32) or names (Python str, unescaped: unescape_name),
    as keys says: "index", "names", or None: as the run's summary beside
    the file says (summary_keys), else indices only when every id is one
    as starmet writes indices (decimal, no leading zero, below the run's
    vector count when known): "7", "07" and "007" are three names.
    """
    nv = None
    if keys is None:
        keys, nv = _file_keys(path)
    if keys not in (None, "names", "index"):
        raise ValueError("keys=%r: use 'names', 'index' or None" % (keys,))
    with open(path, "r", encoding="utf-8", errors="surrogateescape",
              newline="") as f:
        header = f.readline()
        if not header:
            raise ValueError("%s: empty file (a starmet TSV starts with a "
                             "header line)" % path)
        ncol = len(header.rstrip("\r\n").split("\t"))
        if ncol != len(fields):
            raise ValueError("%s: the header has %d columns, expected %d (%s)"
                             % (path, ncol, len(fields),
                                " ".join(n for n, _ in fields)))
        dt = np.dtype([(n, "O" if (keys != "index" and n in id_fields) else t)
                       for n, t in fields])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # no rows: an empty array
                arr = np.loadtxt(f, dtype=dt, delimiter="\t", ndmin=1,
                                 comments=None, encoding="utf-8")
        except ValueError as exc:
            if keys == "index":
                raise ValueError("%s: an id that is not a vector index, but "
                                 "keys='index' (%s); read it with keys='names'"
                                 % (path, exc)) from exc
            raise
    if keys == "index":
        return arr
    ids = set()
    for n in id_fields:
        ids.update(arr[n])
    index = keys is None and all(
        _is_index(s) and (nv is None or int(s) < nv) for s in ids)
    if not index:
        for n in id_fields:
            _unescape_column(arr[n])
        return arr
    out = np.empty(arr.shape, dtype=[(n, "<u4" if n in id_fields else arr.dtype[n])
                                     for n in arr.dtype.names])
    for n in arr.dtype.names:
        out[n] = (np.fromiter((int(s) for s in arr[n]), dtype=np.uint32,
                              count=len(arr)) if n in id_fields else arr[n])
    return out


def read_tsv(path, as_frame=False, single=False, keys=None):
    """Read a starmet TSV result file (``--output-format tsv``).

    Returns the same structured array as read_bin (ids as str when the
    file holds vector names, unescaped: see unescape_name), or a DataFrame
    with as_frame=True.
    single: values as float32 (a ``--precision single`` run; its 9 digits
    give back the float32 values exactly), else float64.
    keys: "names" (ids are str, exactly as the file holds them), "index"
    (uint32) or None: as the run's summary beside the file says
    (summary_keys), else indices only when every id is written as starmet
    writes an index (so "7", "07" and "007" are names).
    """
    with open(path, "r", encoding="utf-8", errors="surrogateescape") as f:
        cols = f.readline().rstrip("\r\n").split("\t")
    ids = [c for c in cols if c.startswith("id_")]
    way = len(ids)
    ccc = "a" in cols
    if way not in (2, 3) or cols[-1] != "value":
        raise ValueError("%s: header %r is not a starmet result header"
                         % (path, "\t".join(cols)))
    vt = "<f4" if single else "<f8"
    fields = [(n, "<u4") for n in _id_fields(way)]
    # --output-loci: each vector's chromosome and position after the ids
    loci = [c for c in cols if c.startswith("chr_") or c.startswith("pos_")]
    fields += [(n, "O" if n.startswith("chr_") else "<u4") for n in loci]
    if ccc:
        fields += [(n, "u1") for n in "abc"[:way]]
    fields.append(("value", vt))
    raw = _load_columns(path, fields, _id_fields(way), keys)
    out_fields = [(n, raw.dtype[n]) for n in _id_fields(way)]
    out_fields += [(n, raw.dtype[n]) for n in loci]
    if ccc:
        out_fields.append(("entry", "u1"))
    out_fields.append(("value", vt))
    arr = np.empty(raw.shape, dtype=out_fields)
    for n in _id_fields(way) + tuple(loci):
        arr[n] = raw[n]
    if ccc:
        e = np.zeros(raw.shape, dtype=np.uint8)
        for n in "abc"[:way]:
            e = (e << 1) | raw[n]
        arr["entry"] = e
    arr["value"] = raw["value"]
    return _finish(arr, as_frame, way)


# ---------------------------------------------------------------- runs
def read_summary(prefix):
    """The JSON summary of a run (PREFIX.json, or a path ending in .json)
    as a dict."""
    path = prefix if prefix.endswith(".json") else prefix + ".json"
    with open(path, "r", encoding="utf-8") as f:
        return json.load(f)


def _summary_or_none(prefix):
    try:
        return read_summary(prefix)
    except (OSError, ValueError):
        return None


def _rank_files(base, ext, nranks=None):
    """base_<r>.ext for r = 0..nranks-1 (nranks None: those that exist,
    which must be 0..n-1)."""
    if nranks is not None:
        return ["%s_%d.%s" % (base, r, ext) for r in range(nranks)]
    pat = re.compile(re.escape(os.path.basename(base)) + r"_(\d+)\." +
                     re.escape(ext) + "$")
    ranks = sorted(int(m.group(1)) for m in
                   (pat.match(os.path.basename(p)) for p in
                    glob.glob(glob.escape(base) + "_*." + ext)) if m)
    if ranks and ranks != list(range(len(ranks))):
        raise FileNotFoundError("%s_<rank>.%s: ranks %s found, not 0..%d"
                                % (base, ext, ranks, len(ranks) - 1))
    return ["%s_%d.%s" % (base, r, ext) for r in ranks]


def result_files(prefix, fmt=None):
    """The result files of the run PREFIX and their format.

    fmt: "bin" or "tsv" (default: the one the summary names, else whichever
    exists, bin first). One rank wrote PREFIX.<fmt>; several wrote
    PREFIX_<rank>.<fmt>, their count given by PREFIX.json when it is there.
    Returns (format, [paths]); raises FileNotFoundError naming what is
    missing.
    """
    summ = _summary_or_none(prefix)
    nranks = None
    if _is_maf(summ):
        raise FileNotFoundError(
            "%s: the files of a starmet maf run, not of compute (read them "
            "with read_maf, read_saf_bin and read_sfs; maf_files lists them)"
            % prefix)
    if summ is not None:
        nranks = int(summ.get("decomposition", {}).get("num_proc", 1))
        out = summ.get("output") or ""
        if fmt is None and out.endswith((".bin", ".tsv")):
            fmt = out[-3:]
    fmts = [fmt] if fmt else ["bin", "tsv"]
    for ext in fmts:
        if nranks in (None, 1) and os.path.exists(prefix + "." + ext):
            return ext, [prefix + "." + ext]
        if nranks == 1:
            continue
        paths = _rank_files(prefix, ext, nranks)
        missing = [p for p in paths if not os.path.exists(p)]
        if paths and not missing:
            return ext, paths
        if paths and nranks is not None and len(missing) < len(paths):
            raise FileNotFoundError("%s: the run had %d ranks, missing: %s"
                                    % (prefix, nranks, ", ".join(missing)))
    raise FileNotFoundError("%s: no result file (%s)" % (prefix, ", ".join(
        "%s.%s or %s_<rank>.%s" % (prefix, e, prefix, e) for e in fmts)))


def _concat(parts):
    if len(parts) == 1:
        return parts[0]
    if any(p.dtype != parts[0].dtype for p in parts):
        # names in some ranks' files only: ids as str everywhere
        dt = np.dtype([(n, "O" if n in ("i", "j", "k", "vector", "neighbour")
                        else parts[0].dtype[n]) for n in parts[0].dtype.names])
        parts = [p.astype(dt) for p in parts]
    return np.concatenate(parts)


def _strip_ext(prefix, exts):
    for ext in exts:
        if prefix.endswith("." + ext):
            return prefix[:-len(ext) - 1]
    return prefix


def read_results(prefix, fmt=None, as_frame=False, keys=None):
    """Every result record of the run PREFIX, one rank or several.

    prefix: the run's --output (or the path of one .bin/.tsv/.npy/.lsmat
    file). fmt: "bin" or "tsv" (default: see result_files); "npy" returns
    the matrix of read_npy, "lsmat" the (matrix, ids) of read_lsmat (with
    as_frame=True both give a labelled DataFrame). The ranks' records are
    concatenated in rank order (within a file they come in block order,
    not sorted). Values are float32 when the summary says --precision
    single. keys: what the ids of TSV files are (see read_tsv).
    """
    if prefix.endswith(".npy") or fmt == "npy":
        return read_npy(prefix, as_frame=as_frame)
    if prefix.endswith(".lsmat") or fmt == "lsmat":
        return read_lsmat(prefix, as_frame=as_frame)
    paths = None
    for ext in ("bin", "tsv"):
        if prefix.endswith("." + ext) and os.path.exists(prefix):
            fmt, paths = ext, [prefix]
            prefix = prefix[:-4]
    summ = _summary_or_none(prefix) or {}
    if paths is None:
        out = str(summ.get("output", ""))
        if fmt is None and out.endswith(".npy"):
            return read_npy(prefix, as_frame=as_frame)
        if fmt is None and out.endswith(".lsmat"):
            return read_lsmat(prefix, as_frame=as_frame)
        fmt, paths = result_files(prefix, fmt)
    single = summ.get("problem", {}).get("variant") == "single"
    if fmt == "bin":
        parts = [read_bin(p) for p in paths]
        way = read_header(paths[0])["num_way"]
    else:
        if keys is None and summ:
            keys = summary_keys(summ)
        parts = [read_tsv(p, single=single, keys=keys) for p in paths]
        way = 3 if "k" in parts[0].dtype.names else 2
    return _finish(_concat(parts), as_frame, way)


def read_ids(prefix):
    """The ids of the npy matrix of the run PREFIX (PREFIX.ids.txt, or a
    path ending in .ids.txt or .npy): one per row, as a list of str,
    names unescaped (see unescape_name) or the 0-based indices as text.
    FileNotFoundError when there is none (runs before starmet wrote it)."""
    if not prefix.endswith(".ids.txt"):
        prefix = _strip_ext(prefix, ("npy",)) + ".ids.txt"
    with open(prefix, "r", encoding="utf-8", errors="surrogateescape",
              newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        raise ValueError("%s: the last line has no end: the file is truncated"
                         % prefix)
    return [unescape_name(s) for s in text.split("\n")[:-1]]


def _labelled(m, ids, as_frame, with_ids):
    """m as asked: a DataFrame (index and columns the ids), (m, ids), or m."""
    if as_frame:
        if m.ndim != 2:
            raise ValueError("as_frame: the CCC matrix has 4 table entries per "
                             "pair, not one value (use m[:, :, a*2+b])")
        pd = _pandas()
        return pd.DataFrame(np.asarray(m), index=ids, columns=ids)
    return (m, ids) if with_ids else m


def read_npy(prefix, mmap=True, with_ids=False, as_frame=False):
    """The matrix of ``--output-format npy`` (PREFIX.npy, or a path ending
    in .npy): numpy.load, memory-mapped read-only unless mmap=False. Its
    diagonal is the metric's self-value (self_value).

    with_ids=True returns (matrix, ids), ids from PREFIX.ids.txt
    (read_ids; None when there is none); as_frame=True a pandas DataFrame
    whose index and columns are the ids (Czekanowski)."""
    path = prefix if prefix.endswith(".npy") else prefix + ".npy"
    m = np.load(path, mmap_mode="r" if mmap else None)
    if not with_ids and not as_frame:
        return m
    try:
        ids = read_ids(path)
    except FileNotFoundError:
        ids = None
    if ids is not None and len(ids) != m.shape[0]:
        raise ValueError("%s: %d ids for a matrix of %d rows"
                         % (path[:-4] + ".ids.txt", len(ids), m.shape[0]))
    return _labelled(m, ids, as_frame, True)


def read_lsmat(prefix, as_frame=False):
    """The distance matrix of ``--output-format lsmat`` (PREFIX.lsmat, or
    a path ending in .lsmat): (matrix, ids), float64 n x n and the ids
    (names unescaped, or indices as text), or with as_frame=True a
    DataFrame labelled by them. scikit-bio reads the file itself:
    ``skbio.DistanceMatrix.read(path)`` (its ids are the names as the file
    writes them, escaped; to_distance_matrix unescapes them)."""
    path = prefix if prefix.endswith(".lsmat") else prefix + ".lsmat"
    with open(path, "r", encoding="utf-8", errors="surrogateescape",
              newline="") as f:
        head = f.readline().rstrip("\n").split("\t")
        if len(head) < 2 or head[0] != "":
            raise ValueError("%s: not an lsmat file (its first line is an "
                             "empty cell, then the ids)" % path)
        raw = head[1:]
        n = len(raw)
        m = np.empty((n, n))
        for r in range(n):
            row = f.readline().rstrip("\n").split("\t")
            if len(row) != n + 1 or row[0] != raw[r]:
                raise ValueError("%s: line %d is not the row of %r with %d "
                                 "values: the file is truncated or not "
                                 "starmet's" % (path, r + 2, raw[r], n))
            m[r] = np.array(row[1:], dtype=np.float64)
        if f.readline():
            raise ValueError("%s: lines after the %d rows" % (path, n))
    return _labelled(m, [unescape_name(s) for s in raw], as_frame, True)


def to_matrix(records, n=None, ids=None, with_ids=None, as_frame=False,
              metric=None):
    """The n x n (CCC: n x n x 4) matrix of 2-way records, as
    ``--output-format npy`` writes it: both (i, j) and (j, i), NaN where no
    record is, the diagonal the metric's self-value (self_value; metric:
    "czekanowski" or "ccc", by default "ccc" for records with an entry).

    records: a structured array of read_bin / read_tsv / read_results.
    With integer ids the matrix has n rows (default: the largest id + 1).
    With names (TSV of a named input) the rows follow ids (a list of
    names, such as read_ids gives; default: the names sorted).
    Returns the matrix; with_ids=True (the default for named records)
    (matrix, ids); as_frame=True a pandas DataFrame labelled by the ids
    (Czekanowski).
    """
    names = records.dtype.names
    if "k" in names:
        raise ValueError("to_matrix: 3-way records")
    if metric is None:
        metric = "ccc" if "entry" in names else "czekanowski"
    a, b = np.asarray(records["i"]), np.asarray(records["j"])
    named = a.dtype == object
    if with_ids is None:
        with_ids = named
    if named:
        if ids is None:
            ids = sorted(set(a.tolist()) | set(b.tolist()))
        pos = {name: k for k, name in enumerate(ids)}
        if len(pos) != len(ids):
            raise ValueError("to_matrix: ids repeat")
        try:
            i = np.fromiter((pos[x] for x in a), dtype=np.int64, count=len(a))
            j = np.fromiter((pos[x] for x in b), dtype=np.int64, count=len(b))
        except KeyError as exc:
            raise ValueError("to_matrix: the records name %r, which ids does "
                             "not hold" % (exc.args[0],)) from None
        if n is not None and n != len(ids):
            raise ValueError("to_matrix: n = %d, but %d ids" % (n, len(ids)))
        n = len(ids)
    else:
        i, j = a.astype(np.int64), b.astype(np.int64)
        if n is None:
            n = len(ids) if ids is not None else int(max(i.max(initial=-1),
                                                         j.max(initial=-1))) + 1
        if ids is None:
            ids = [str(k) for k in range(n)]
        elif len(ids) != n:
            raise ValueError("to_matrix: n = %d, but %d ids" % (n, len(ids)))
    v = np.asarray(records["value"])
    d = np.arange(n)
    if "entry" in names:
        e = np.asarray(records["entry"], dtype=np.int64)
        m = np.full((n, n, 4), np.nan, dtype=v.dtype)
        m[d, d, :] = self_value(metric)
        m[i, j, e] = v
        m[j, i, ((e & 1) << 1) | (e >> 1)] = v
    else:
        m = np.full((n, n), np.nan, dtype=v.dtype)
        m[d, d] = self_value(metric)
        m[i, j] = v
        m[j, i] = v
    return _labelled(m, list(ids), as_frame, with_ids)


def _skbio():
    try:
        import skbio
    except ImportError as exc:  # optional dependency
        raise ImportError("to_distance_matrix needs scikit-bio (Debian: apt-get "
                          "install python3-skbio; or pip install "
                          "scikit-bio)") from exc
    return skbio


def _run_metric(prefix):
    summ = _summary_or_none(prefix) or {}
    return (summ.get("problem") or {}).get("metric"), summ


def to_distance_matrix(source, metric=None, ids=None, keys=None):
    """A scikit-bio DistanceMatrix of a 2-way run's values.

    source: a run's prefix (or the path of its .lsmat, .npy, .tsv or .bin
    file), whose lsmat is read as it is, else its npy matrix with
    PREFIX.ids.txt, else its records (read_results); or records (a
    structured array); or a square matrix (with ids). metric: what the
    values are (default: the run's summary, else "czekanowski"); a
    similarity becomes 1 - value (Czekanowski: 1 - PS, the Bray-Curtis
    dissimilarity; see distance), the diagonal 0. ids: the ids of a matrix
    or the order of named records (see to_matrix); indices become "0",
    "1", ... Every pair must have a value (no --threshold): ValueError
    otherwise, and for CCC, whose values are no distances. ImportError
    without scikit-bio.
    """
    skbio = _skbio()
    m = None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        prefix = _strip_ext(path, ("lsmat", "npy", "tsv", "bin"))
        run_metric, summ = _run_metric(prefix)
        metric = metric or run_metric
        out = str(summ.get("output", ""))
        lsmat = path.endswith(".lsmat") or (
            not path.endswith((".npy", ".tsv", ".bin")) and
            os.path.exists(prefix + ".lsmat") and
            (out.endswith(".lsmat") or not out))
        if lsmat:
            d, names = read_lsmat(prefix)
            return skbio.DistanceMatrix(d, names)
        if path.endswith(".npy") or (not path.endswith((".tsv", ".bin")) and
                                     os.path.exists(prefix + ".npy") and
                                     (out.endswith(".npy") or not out)):
            m, got = read_npy(prefix, mmap=False, with_ids=True)
            ids = ids or got
        else:
            source = read_results(path if path.endswith((".tsv", ".bin"))
                                  else prefix, keys=keys)
    if m is None and getattr(source, "dtype", None) is not None and \
            source.dtype.names:
        m, ids = to_matrix(source, ids=ids, with_ids=True, metric=metric)
    elif m is None:
        m = np.asarray(source)
    metric = metric or "czekanowski"
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError("to_distance_matrix: a %s array, not a square matrix "
                         "(CCC values are no distances)" % (m.shape,))
    d = distance(metric, m)
    n = d.shape[0]
    d[np.arange(n), np.arange(n)] = 0.0
    missing = int(np.isnan(d).sum())
    if missing:
        raise ValueError("to_distance_matrix: %d of the %d pairs have no value "
                         "(a --threshold run keeps some): a distance matrix "
                         "needs every pair" % (missing // 2, n * (n - 1) // 2))
    if ids is None:
        ids = [str(k) for k in range(n)]
    return skbio.DistanceMatrix(d, [str(x) for x in ids])


# ---------------------------------------------------------------- top-k
def read_topk_tsv(path, as_frame=False, single=False, keys=None):
    """Read PREFIX.topk.tsv: a header line, then rows ``vector rank
    neighbour value`` (Czekanowski) or ``vector rank neighbour a b value``
    (CCC). Fields vector, rank (1..K), neighbour, [entry], value; vector
    and neighbour are indices (uint32) or names (str, unescaped: see
    unescape_name), as keys says (see read_tsv)."""
    with open(path, "r", encoding="utf-8", errors="surrogateescape") as f:
        ncol = len(f.readline().rstrip("\r\n").split("\t"))
    if ncol not in (4, 6):
        raise ValueError("%s: %d columns: a top-k TSV has 4 (vector rank "
                         "neighbour value) or 6 (with a b)" % (path, ncol))
    ccc = ncol == 6
    vt = "<f4" if single else "<f8"
    fields = [("vector", "<u4"), ("rank", "<u4"), ("neighbour", "<u4")]
    if ccc:
        fields += [("a", "u1"), ("b", "u1")]
    fields.append(("value", vt))
    raw = _load_columns(path, fields, ("vector", "neighbour"), keys)
    out = [(n, raw.dtype[n]) for n in ("vector", "rank", "neighbour")]
    if ccc:
        out.append(("entry", "u1"))
    out.append(("value", vt))
    arr = np.empty(raw.shape, dtype=out)
    for n in ("vector", "rank", "neighbour", "value"):
        arr[n] = raw[n]
    if ccc:
        arr["entry"] = (raw["a"] << 1) | raw["b"]
    return _finish(arr, as_frame, 2)


def read_topk_bin(path, as_frame=False):
    """Read PREFIX.topk.bin (magic STARTOPK; read_header gives K and the
    mode): a read-only memmap of records vector, rank, neighbour,
    [entry], value."""
    hd = read_header(path)
    if hd["kind"] != "topk":
        raise ValueError("%s: a result file, not top-k: use read_bin" % path)
    return _finish(_map_records(path, hd), as_frame, 2)


def read_topk(prefix, as_frame=False, keys=None):
    """The top-k neighbours of the run PREFIX: PREFIX.topk.bin or
    PREFIX.topk.tsv (or PREFIX_<rank>.topk.* of several ranks,
    concatenated). keys: what the ids of TSV files are (see read_tsv)."""
    summ = _summary_or_none(prefix) or {}
    single = summ.get("problem", {}).get("variant") == "single"
    if keys is None and summ:
        keys = summary_keys(summ)
    for ext in ("bin", "tsv"):
        paths = [prefix + ".topk." + ext]
        if not os.path.exists(paths[0]):
            paths = _rank_files(prefix, "topk." + ext)
        if paths and all(os.path.exists(p) for p in paths):
            parts = [read_topk_bin(p) if ext == "bin" else
                     read_topk_tsv(p, single=single, keys=keys) for p in paths]
            return _finish(_concat(parts), as_frame, 2)
    raise FileNotFoundError("%s: no %s.topk.bin nor %s.topk.tsv"
                            % (prefix, prefix, prefix))


# ---------------------------------------------------------------- histogram
HIST_DTYPE = np.dtype([("metric", "O"), ("way", "<i4"), ("entry", "O"),
                       ("bin", "<i8"), ("lo", "<f8"), ("hi", "<f8"),
                       ("count", "<u8")])


def read_hist(prefix, as_frame=False):
    """Read PREFIX.hist.tsv (or a path ending in .tsv): a header line, then
    rows ``metric way entry bin lo hi count``.

    Fields: metric (str), way, entry (str: "-" for Czekanowski, the table
    entry's bits such as "01" or "101" for CCC), bin (-1: below the range,
    BINS: above it), lo, hi (may be -inf, inf), count.
    """
    path = prefix if prefix.endswith(".tsv") else prefix + ".hist.tsv"
    rows = []
    with open(path, "r", encoding="utf-8") as f:
        f.readline()
        for lineno, line in enumerate(f, 2):
            p = line.rstrip("\r\n").split("\t")
            if p == [""]:
                continue
            if len(p) != 7:
                raise ValueError("%s:%d: %d columns, a histogram row has 7 "
                                 "(metric way entry bin lo hi count)"
                                 % (path, lineno, len(p)))
            rows.append((p[0], int(p[1]), p[2], int(p[3]), float(p[4]),
                         float(p[5]), int(p[6])))
    arr = np.array(rows, dtype=HIST_DTYPE)
    if as_frame:
        pd = _pandas()
        return pd.DataFrame({n: arr[n] for n in HIST_DTYPE.names})
    return arr


# ---------------------------------------------------------------- maf
MAF_DTYPE = np.dtype([("chrom", "O"), ("pos", "<u8"), ("allele1", "O"),
                      ("allele2", "O"), ("n_data", "<u4"), ("alt_freq", "<f8"),
                      ("minor_freq", "<f8")])
# the .maf.tsv of earlier starmets: one frequency, allele2's, named maf
MAF_DTYPE_V1 = np.dtype([("chrom", "O"), ("pos", "<u8"), ("allele1", "O"),
                         ("allele2", "O"), ("n_data", "<u4"), ("maf", "<f8")])


def read_maf(path, as_frame=False):
    """Read a TSV of ``starmet maf``: PREFIX.maf.tsv or PREFIX.saf.tsv
    (PREFIX_<rank>.* of several ranks: one file each).

    .maf.tsv: fields chrom (str), pos, allele1, allele2 (str), n_data (the
    individuals with data, ANGSD's nInd), alt_freq (allele2's frequency:
    the VCF's ALT, the BEAGLE file's allele2; the posterior mean under the
    run's spectrum) and minor_freq (min(alt_freq, 1 - alt_freq)). A file of
    an earlier starmet has maf (allele2's frequency) instead of the last
    two. .saf.tsv: fields chrom (str), pos and saf, the 2N + 1 values of
    the site's frequency likelihood (float64, -inf for impossible bins).
    Names (chrom, alleles) are unescaped (unescape_name).

    With as_frame=True a pandas DataFrame with the file's columns (those of
    starmet_read_maf in R/starmet_io.R: saf_0 .. saf_2N for a .saf.tsv).
    """
    rows = []
    with open(path, "r", encoding="utf-8", errors="surrogateescape",
              newline="") as f:
        cols = f.readline().rstrip("\n").split("\t")
        saf = cols[:2] == ["chrom", "pos"] and len(cols) > 2 and all(
            c.startswith("saf_") for c in cols[2:])
        dtype = MAF_DTYPE if cols == list(MAF_DTYPE.names) else \
            MAF_DTYPE_V1 if cols == list(MAF_DTYPE_V1.names) else None
        if not saf and dtype is None:
            raise ValueError("%s: header %r is neither a .maf.tsv nor a "
                             ".saf.tsv header" % (path, "\t".join(cols)))
        for lineno, line in enumerate(f, 2):
            p = line.rstrip("\n").split("\t")
            if len(p) != len(cols):
                raise ValueError("%s:%d: %d columns, the header has %d"
                                 % (path, lineno, len(p), len(cols)))
            try:
                if saf:
                    rows.append((unescape_name(p[0]), int(p[1]),
                                 [float(x) for x in p[2:]]))
                else:
                    rows.append((unescape_name(p[0]), int(p[1]),
                                 unescape_name(p[2]), unescape_name(p[3]),
                                 int(p[4])) + tuple(float(x) for x in p[5:]))
            except ValueError as exc:
                raise ValueError("%s:%d: %s" % (path, lineno, exc)) from exc
    if saf:
        dt = np.dtype([("chrom", "O"), ("pos", "<u8"),
                       ("saf", "<f8", (len(cols) - 2,))])
        arr = np.array(rows, dtype=dt)
        if as_frame:
            pd = _pandas()
            frame = pd.DataFrame({"chrom": arr["chrom"], "pos": arr["pos"]})
            vals = pd.DataFrame(arr["saf"].reshape(len(arr), len(cols) - 2),
                                columns=cols[2:])
            return pd.concat([frame, vals], axis=1)
        return arr
    arr = np.array(rows, dtype=dtype)
    if as_frame:
        pd = _pandas()
        return pd.DataFrame({n: arr[n] for n in dtype.names})
    return arr


SAF_MAGIC = b"STARSAF\0"


def read_saf_bin(path):
    """Read PREFIX.saf.bin of ``starmet maf --output-format bin`` (one
    rank's PREFIX_<rank>.saf.bin under mpirun): the fields of read_maf on
    a .saf.tsv, chrom (str), pos and saf (2N + 1 float64 values, -inf for
    the bins outside a site's stored range). The header (docs/maf.md) is
    checked against the file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER_BYTES or data[:8] != SAF_MAGIC:
        raise ValueError("%s: not a starmet SAF binary file (magic %r, %d "
                         "bytes)" % (path, data[:8], len(data)))
    version, nind, bins, vb = (_u32(data, off) for off in (8, 12, 16, 20))
    nsites = _u64(data, 24)
    if version != 1 or vb != 8 or bins != 2 * nind + 1:
        raise ValueError("%s: SAF header version %d, %d individuals, %d bins, "
                         "%d-byte values: this reader knows version 1, 2N + 1 "
                         "bins of float64" % (path, version, nind, bins, vb))
    chrom, pos = [], np.empty(nsites, dtype=np.uint64)
    saf = np.full((nsites, bins), -np.inf)
    off = HEADER_BYTES
    try:
        for n in range(nsites):
            if off + 4 > len(data):
                raise IndexError(n)
            ln = _u32(data, off)
            if off + 4 + ln + 16 > len(data):
                raise IndexError(n)
            chrom.append(data[off + 4:off + 4 + ln].decode("utf-8",
                                                          "surrogateescape"))
            off += 4 + ln
            pos[n] = _u64(data, off)
            first, count = _u32(data, off + 8), _u32(data, off + 12)
            off += 16
            if first + count > bins or off + 8 * count > len(data):
                raise IndexError(n)
            saf[n, first:first + count] = np.frombuffer(data, "<f8", count, off)
            off += 8 * count
    except (IndexError, ValueError) as exc:
        raise ValueError("%s: site %d of %d runs past the end of the file or "
                         "of its %d bins: the file is truncated or damaged"
                         % (path, len(chrom), nsites, bins)) from exc
    if off != len(data):
        raise ValueError("%s: %d bytes after the %d sites its header "
                         "announces" % (path, len(data) - off, nsites))
    dt = np.dtype([("chrom", "O"), ("pos", "<u8"), ("saf", "<f8", (bins,))])
    arr = np.empty(nsites, dtype=dt)
    arr["chrom"] = chrom
    arr["pos"] = pos
    arr["saf"] = saf
    return arr


class SFS(np.ndarray):
    """A site frequency spectrum read by read_sfs: a float64 array of
    2N + 1 expected site counts (realSFS's layout), and ``folded``: True
    when it is the folded spectrum of ``starmet maf --fold`` (classes
    0..N, then N zeros), False when unfolded, None when no summary of the
    run says (R: attr(x, "folded"))."""

    folded = None

    def __array_finalize__(self, obj):
        self.folded = getattr(obj, "folded", None)


def read_sfs(path):
    """Read PREFIX.sfs of ``starmet maf`` (or a prefix): its one line of
    2N + 1 values (realSFS's format), as an SFS (a float64 array) whose
    ``folded`` comes from the run's summary PREFIX.json."""
    path = path if path.endswith(".sfs") else path + ".sfs"
    with open(path, "r", encoding="utf-8") as f:
        vals = np.array([float(x) for x in f.read().split()])
    out = vals.view(SFS)
    summ = _summary_or_none(path[:-len(".sfs")])
    em = summ.get("sfs_em") if isinstance(summ, dict) else None
    if isinstance(em, dict) and isinstance(em.get("folded"), bool):
        out.folded = em["folded"]
    elif _is_maf(summ):  # a summary of an earlier starmet: never folded
        out.folded = False
    return out


def _is_maf(summ):
    return summ is not None and (summ.get("analysis") == "maf" or
                                 isinstance(summ.get("output"), dict))


def maf_files(prefix):
    """The files of the ``starmet maf`` run PREFIX, as a dict: "maf" and
    "saf" (lists, one file per rank), "sfs" (a path or None); the SAF files
    are .saf.tsv or .saf.bin. Raises FileNotFoundError when there is none."""
    found = {"maf": [], "saf": [], "sfs": None}
    for key, exts in (("maf", ("maf.tsv",)), ("saf", ("saf.tsv", "saf.bin"))):
        for ext in exts:
            one = "%s.%s" % (prefix, ext)
            paths = [one] if os.path.exists(one) else _rank_files(prefix, ext)
            if paths:
                found[key] = paths
                break
    if os.path.exists(prefix + ".sfs"):
        found["sfs"] = prefix + ".sfs"
    if not found["maf"] and not found["saf"] and not found["sfs"]:
        raise FileNotFoundError("%s: no starmet maf file (%s.maf.tsv, "
                                "%s.saf.tsv or .saf.bin, %s.sfs)"
                                % (prefix, prefix, prefix, prefix))
    return found


# ---------------------------------------------------------------- command
def _describe_maf(prefix, summ, out):
    """What a starmet maf run wrote (summ: its summary, or None)."""
    if summ is not None:
        sites = summ.get("sites", {})
        em = summ.get("sfs_em", {})
        out.write("run        %s, maf, %s individuals, %s (%s), %d rank(s)\n"
                  % (summ.get("status"), summ.get("individuals"),
                     summ.get("input"), summ.get("input_format"),
                     len(summ.get("ranks", [])) or 1))
        out.write("sites      %s read, %s computed, %s without data\n"
                  % (sites.get("read"), sites.get("computed"),
                     sites.get("skipped_no_data")))
        out.write("sfs em     %s, %s iterations, converged %s, log-likelihood "
                  "%.10g\n" % ("folded" if em.get("folded") else "unfolded",
                               em.get("iterations"), em.get("converged"),
                               em.get("loglik", float("nan"))))
    files = maf_files(prefix)
    if files["maf"]:
        m = np.concatenate([read_maf(p) for p in files["maf"]])
        out.write("maf        %d sites from %d file(s)" % (len(m), len(files["maf"])))
        f = m["alt_freq" if "alt_freq" in m.dtype.names else "maf"]
        if len(m):
            out.write(", allele2 frequency min %.6g, max %.6g, mean %.6g"
                      % (f.min(), f.max(), f.mean()))
        out.write("\n")
    if files["saf"]:
        bin_ = files["saf"][0].endswith(".bin")
        parts = [read_saf_bin(p) if bin_ else read_maf(p) for p in files["saf"]]
        n = sum(len(p) for p in parts)
        bins = parts[0].dtype["saf"].shape[0]
        out.write("saf        %d sites x %d bins from %d %s file(s)\n"
                  % (n, bins, len(parts), "bin" if bin_ else "tsv"))
    if files["sfs"]:
        sfs = read_sfs(files["sfs"])
        out.write("sfs        %d values, sum %.10g%s\n"
                  % (len(sfs), float(sfs.sum()),
                     {True: ", folded", False: ", unfolded"}.get(sfs.folded, "")))
    return 0


def _describe(prefix, out):
    summ = _summary_or_none(prefix)
    if _is_maf(summ) or (summ is None and not os.path.exists(prefix + ".npy")
                         and not os.path.exists(prefix + ".lsmat")
                         and _maf_only(prefix)):
        return _describe_maf(prefix, summ, out)
    if summ is not None:
        p = summ.get("problem", {})
        d = summ.get("decomposition", {})
        out.write("run        %s, %s %s-way (%s), %s vectors x %s fields, "
                  "%s rank(s)\n" % (summ.get("status"), p.get("metric"),
                                    p.get("num_way"), p.get("variant"),
                                    p.get("num_vector"), p.get("num_field"),
                                    d.get("num_proc", 1)))
        out.write("checksum   %s\n" % summ.get("checksum"))
    found = summ is not None
    if os.path.exists(prefix + ".npy"):
        m = read_npy(prefix)
        kept = int(np.count_nonzero(~np.isnan(m)))
        out.write("npy        %s.npy: %s %s, %d values (each pair twice, and "
                  "the diagonal)\n"
                  % (prefix, " x ".join(map(str, m.shape)), m.dtype, kept))
        if os.path.exists(prefix + ".ids.txt"):
            ids = read_ids(prefix)
            out.write("ids        %s.ids.txt: %d, first %r\n"
                      % (prefix, len(ids), ids[0] if ids else None))
        found = True
    if os.path.exists(prefix + ".lsmat"):
        d, ids = read_lsmat(prefix)
        out.write("lsmat      %s.lsmat: %d x %d distances, first id %r, max %.17g\n"
                  % (prefix, len(ids), len(ids), ids[0] if ids else None,
                     d.max() if len(ids) else float("nan")))
        found = True
    try:
        fmt, paths = result_files(prefix)
        r = read_results(prefix, fmt)
        out.write("results    %d records from %d %s file(s)\n"
                  % (len(r), len(paths), fmt))
        if len(r):
            v = np.asarray(r["value"], dtype=np.float64)
            out.write("values     min %.17g, max %.17g, mean %.17g\n"
                      % (v.min(), v.max(), v.mean()))
            for rec in r[:5]:
                out.write("           %s\n" % (rec,))
        found = True
    except FileNotFoundError:
        if not found:
            raise
    for what, fn in (("top-k", read_topk), ("histogram", read_hist)):
        try:
            a = fn(prefix)
        except FileNotFoundError:
            continue
        out.write("%-10s %d rows\n" % (what, len(a)))
    return 0


def _maf_only(prefix):
    """No compute result file, and a maf file."""
    try:
        result_files(prefix)
        return False
    except FileNotFoundError:
        pass
    try:
        maf_files(prefix)
        return True
    except FileNotFoundError:
        return False


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: starmet_io.py PREFIX\n  prints what the "
                         "starmet run with --output PREFIX wrote\n")
        return 2
    try:
        return _describe(argv[0], sys.stdout)
    except (OSError, ValueError) as exc:
        sys.stderr.write("starmet_io: %s\n" % exc)
        return 1


if __name__ == "__main__":
    sys.exit(main())
