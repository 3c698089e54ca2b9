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
PREFIX.npy                        ``--output-format npy``     read_npy
PREFIX.json                       every run (rank 0)          read_summary
PREFIX.topk.tsv, PREFIX.topk.bin  top-k neighbours            read_topk
PREFIX.hist.tsv                   value histograms            read_hist
PREFIX.maf.tsv, PREFIX.saf.tsv    ``starmet maf``             read_maf
================================  ==========================  ================

``read_results(PREFIX)`` finds the result files of a run, on one rank or
several (the rank count is in PREFIX.json), and concatenates them.

Results come as NumPy structured arrays, one element per value:

``i, j[, k]``
    the vector indices, 0-based, ascending (uint32). A TSV written from an
    input with vector names holds the names instead: the fields are then
    Python str objects.
``entry``
    CCC only: the table entry, a*2+b (3-way a*4+b*2+c), uint8, as in the
    binary format (``entry_bits`` splits it).
``value``
    float64, or float32 for ``--precision single``.

With ``as_frame=True`` the result is a pandas DataFrame with the columns of
the TSV header: ``i, j[, k]``, for CCC ``a, b[, c]`` instead of ``entry``,
then ``value``.

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
not computed) and on the diagonal. ``to_matrix`` builds the same matrix
from 2-way records.

Run as a program, ``python3 starmet_io.py PREFIX`` prints what a run wrote.
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
    "read_topk_bin", "read_hist", "read_maf", "entry_bits", "to_matrix",
    "to_frame", "unescape_name",
]

HEADER_BYTES = 64
RESULT_MAGIC = b"STARMET\0"
TOPK_MAGIC = b"STARTOPK"
METRICS = ("czekanowski", "ccc")
TOPK_MODES = ("per entry", "max entry")


# ---------------------------------------------------------------- helpers
def _u32(b, off):
    return int.from_bytes(b[off:off + 4], "little")


def _u64(b, off):
    return int.from_bytes(b[off:off + 8], "little")


def _value_dtype(value_bytes):
    return np.dtype("<f4") if value_bytes == 4 else np.dtype("<f8")


def _id_fields(way):
    return ("i", "j", "k")[:way]


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
    """A structured array of this module as a pandas DataFrame.

    The ``entry`` field (CCC) becomes columns a, b[, c]. way: the number of
    indices of a result record (default: guessed from the fields).
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
    if (hd["num_way"] not in (2, 3) or hd["metric"] not in (0, 1)
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


def _is_index(s):
    return s.isdigit()


def _load_columns(path, fields, id_fields):
    """Rows of a TSV file with a header line, as a structured array.

    fields: (name, dtype) per column, in order; the columns in id_fields
    hold indices (uint32) unless a row holds a name: then Python str,
    unescaped (unescape_name).
    """
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
        start = f.tell()
        first = f.readline().rstrip("\r\n").split("\t")
        # names or indices, as the first row says (checked on every row)
        names = len(first) == len(fields) and any(
            not _is_index(first[c])
            for c, (n, _) in enumerate(fields) if n in id_fields)
        for attempt in (0, 1):
            dt = np.dtype([(n, "O" if (names and n in id_fields) else t)
                           for n, t in fields])
            f.seek(start)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # no rows: an empty array
                    arr = np.loadtxt(f, dtype=dt, delimiter="\t", ndmin=1,
                                     comments=None, encoding="utf-8")
                for n in id_fields:
                    if arr.dtype[n] == object:
                        _unescape_column(arr[n])
                return arr
            except ValueError:
                if names or attempt:
                    raise
                names = True  # a name further down: read ids as str


def read_tsv(path, as_frame=False, single=False):
    """Read a starmet TSV result file (``--output-format tsv``).

    Returns the same structured array as read_bin (ids as str when the
    file holds vector names, unescaped: see unescape_name), or a DataFrame
    with as_frame=True.
    single: values as float32 (a ``--precision single`` run; its 9 digits
    give back the float32 values exactly), else float64.
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
    if ccc:
        fields += [(n, "u1") for n in "abc"[:way]]
    fields.append(("value", vt))
    raw = _load_columns(path, fields, _id_fields(way))
    out_fields = [(n, raw.dtype[n]) for n in _id_fields(way)]
    if ccc:
        out_fields.append(("entry", "u1"))
    out_fields.append(("value", vt))
    arr = np.empty(raw.shape, dtype=out_fields)
    for n in _id_fields(way):
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


def read_results(prefix, fmt=None, as_frame=False):
    """Every result record of the run PREFIX, one rank or several.

    prefix: the run's --output (or the path of one .bin/.tsv/.npy file).
    fmt: "bin" or "tsv" (default: see result_files); "npy" returns the
    matrix of read_npy. The ranks' records are concatenated in rank order
    (within a file they come in block order, not sorted). Values are
    float32 when the summary says --precision single.
    """
    if prefix.endswith(".npy") or fmt == "npy":
        return read_npy(prefix)
    paths = None
    for ext in ("bin", "tsv"):
        if prefix.endswith("." + ext) and os.path.exists(prefix):
            fmt, paths = ext, [prefix]
            prefix = prefix[:-4]
    summ = _summary_or_none(prefix) or {}
    if paths is None:
        if fmt is None and str(summ.get("output", "")).endswith(".npy"):
            return read_npy(prefix)
        fmt, paths = result_files(prefix, fmt)
    single = summ.get("problem", {}).get("variant") == "single"
    if fmt == "bin":
        parts = [read_bin(p) for p in paths]
        way = read_header(paths[0])["num_way"]
    else:
        parts = [read_tsv(p, single=single) for p in paths]
        way = 3 if "k" in parts[0].dtype.names else 2
    return _finish(_concat(parts), as_frame, way)


def read_npy(prefix, mmap=True):
    """The matrix of ``--output-format npy`` (PREFIX.npy, or a path ending
    in .npy): numpy.load, memory-mapped read-only unless mmap=False."""
    path = prefix if prefix.endswith(".npy") else prefix + ".npy"
    return np.load(path, mmap_mode="r" if mmap else None)


def to_matrix(records, n):
    """The n x n (CCC: n x n x 4) matrix of 2-way records, as
    ``--output-format npy`` writes it: both (i, j) and (j, i), NaN where no
    record is. records: a structured array of read_bin / read_tsv /
    read_results with integer ids."""
    names = records.dtype.names
    if "k" in names:
        raise ValueError("to_matrix: 3-way records")
    i = np.asarray(records["i"], dtype=np.int64)
    j = np.asarray(records["j"], dtype=np.int64)
    v = np.asarray(records["value"])
    if "entry" in names:
        e = np.asarray(records["entry"], dtype=np.int64)
        m = np.full((n, n, 4), np.nan, dtype=v.dtype)
        m[i, j, e] = v
        m[j, i, ((e & 1) << 1) | (e >> 1)] = v
    else:
        m = np.full((n, n), np.nan, dtype=v.dtype)
        m[i, j] = v
        m[j, i] = v
    return m


# ---------------------------------------------------------------- top-k
def read_topk_tsv(path, as_frame=False, single=False):
    """Read PREFIX.topk.tsv: a header line, then rows ``vector rank
    neighbour value`` (Czekanowski) or ``vector rank neighbour a b value``
    (CCC). Fields vector, rank (1..K), neighbour, [entry], value; vector
    and neighbour are indices (uint32) or names (str, unescaped: see
    unescape_name)."""
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
    raw = _load_columns(path, fields, ("vector", "neighbour"))
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


def read_topk(prefix, as_frame=False):
    """The top-k neighbours of the run PREFIX: PREFIX.topk.bin or
    PREFIX.topk.tsv (or PREFIX_<rank>.topk.* of several ranks,
    concatenated)."""
    summ = _summary_or_none(prefix) or {}
    single = summ.get("problem", {}).get("variant") == "single"
    for ext in ("bin", "tsv"):
        paths = [prefix + ".topk." + ext]
        if not os.path.exists(paths[0]):
            paths = _rank_files(prefix, "topk." + ext)
        if paths and all(os.path.exists(p) for p in paths):
            parts = [read_topk_bin(p) if ext == "bin" else
                     read_topk_tsv(p, single=single) for p in paths]
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
                      ("allele2", "O"), ("n_data", "<u4"), ("maf", "<f8")])


def read_maf(path):
    """Read a TSV of ``starmet maf``: PREFIX.maf.tsv or PREFIX.saf.tsv
    (PREFIX_<rank>.* of several ranks: one file each).

    .maf.tsv: fields chrom (str), pos, allele1, allele2 (str), n_data, maf.
    .saf.tsv: fields chrom (str), pos and saf, the 2N + 1 values of the
    site's frequency likelihood (float64, -inf for impossible bins).
    Names (chrom, alleles) are unescaped (unescape_name).
    """
    rows = []
    with open(path, "r", encoding="utf-8", errors="surrogateescape",
              newline="") as f:
        cols = f.readline().rstrip("\n").split("\t")
        saf = cols[:2] == ["chrom", "pos"] and len(cols) > 2 and all(
            c.startswith("saf_") for c in cols[2:])
        if not saf and cols != list(MAF_DTYPE.names):
            raise ValueError("%s: header %r is neither a .maf.tsv nor a "
                             ".saf.tsv header" % (path, "\t".join(cols)))
        for lineno, line in enumerate(f, 2):
            p = line.rstrip("\n").split("\t")
            if len(p) != len(cols):
                raise ValueError("%s:%d: %d columns, the header has %d"
                                 % (path, lineno, len(p), len(cols)))
            if saf:
                rows.append((unescape_name(p[0]), int(p[1]),
                             [float(x) for x in p[2:]]))
            else:
                rows.append((unescape_name(p[0]), int(p[1]),
                             unescape_name(p[2]), unescape_name(p[3]),
                             int(p[4]), float(p[5])))
    if saf:
        dt = np.dtype([("chrom", "O"), ("pos", "<u8"),
                       ("saf", "<f8", (len(cols) - 2,))])
        return np.array(rows, dtype=dt)
    return np.array(rows, dtype=MAF_DTYPE)


# ---------------------------------------------------------------- command
def _describe(prefix, out):
    summ = _summary_or_none(prefix)
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
        out.write("npy        %s.npy: %s %s, %d values (each pair twice)\n"
                  % (prefix, " x ".join(map(str, m.shape)), m.dtype, kept))
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
