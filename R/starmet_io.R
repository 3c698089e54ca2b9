# starmet_io.R: read starmet's result files into data.frames, base R only.
# The formats are described in starmet's guide (docs/outputs.md,
# docs/ranks.md); python/starmet_io.py is the NumPy twin.
#
#   source("R/starmet_io.R")
#   d <- starmet_read_results("out/ccc")       # PREFIX.bin/.tsv or PREFIX_<rank>.*
#   d <- starmet_read_bin("out/ccc.bin")
#   d <- starmet_read_tsv("out/ccc.tsv")
#   m <- starmet_read_npy("out/ps")            # PREFIX.npy, named by PREFIX.ids.txt
#   m <- starmet_read_lsmat("out/ps")          # PREFIX.lsmat: distances; as.dist(m)
#   m <- starmet_to_matrix(d)                  # the matrix of 2-way records
#   dd <- starmet_to_dist("out/ps")            # a dist of distances (1 - PS)
#
# Every record reader returns a data.frame with the TSV header's columns:
# id_i, id_j[, id_k] (0-based vector indices, or the vector names when a
# TSV has them, as the run's summary says: "7", "07" and "007" are three
# names), for CCC the table entry's bits a, b[, c], then value (double;
# float32 values of --precision single are exact in it). The same readers
# take the top-k files PREFIX.topk.bin / .topk.tsv (columns vector, rank,
# neighbour, [a, b], value); starmet_read_maf reads the .maf.tsv and
# .saf.tsv files of starmet maf, starmet_read_sfs its .sfs (with
# attr(x, "folded")). The matrices (npy, lsmat,
# starmet_to_matrix) have the ids as dimnames; their diagonal is the
# metric's value of a vector with itself (1 for Czekanowski, 0 for
# Bray-Curtis and Jaccard, NaN for CCC; 0 in lsmat's distances, which hold
# 1 - PS for Czekanowski: Bray-Curtis); starmet_to_dist makes a dist.
#
# Names in the TSV files (vector names, chromosomes, alleles) are written
# escaped (docs/outputs.md): tab, newline, carriage return and backslash
# as \t \n \r \\, the other bytes below 0x20 and 0x7f as \xHH. The
# readers undo exactly that (starmet_unescape), so names come back as the
# input had them, byte for byte.

# Unsigned 32-bit integers from little-endian bytes: integer when every
# value fits, else double.
.starmet_u32 <- function(bytes, n) {
  x <- readBin(bytes, "integer", n = n, size = 4L, endian = "little")
  if (any(x < 0L, na.rm = TRUE) || anyNA(x)) {
    x <- as.double(x)
    x[is.na(x)] <- -2^31 # readBin gives NA for 0x80000000
    x[x < 0] <- x[x < 0] + 2^32
  }
  x
}

#' Names as starmet's TSV writers escape them, given back: \t \n \r \\
#' become tab, newline, carriage return and backslash, \xHH the byte HH
#' (\x00, which starmet never writes and an R string cannot hold, stays as
#' it is); any other text, a backslash not followed by those included, is
#' kept. Works on bytes: names need not be valid in the locale.
starmet_unescape <- function(x) {
  hit <- grepl("\\", x, fixed = TRUE, useBytes = TRUE)
  if (!any(hit)) return(x)
  u <- unique(x[hit]) # each name once: a name is on many rows
  x[hit] <- vapply(u, .starmet_unescape1, "", USE.NAMES = FALSE)[match(x[hit], u)]
  x
}

.starmet_unescape1 <- function(s) {
  m <- gregexpr("\\\\(x[0-9a-fA-F]{2}|[tnr\\\\])", s, perl = TRUE, useBytes = TRUE)[[1]]
  if (m[1] < 0) return(s)
  b <- charToRaw(s)
  len <- attr(m, "match.length")
  keep <- rep(TRUE, length(b))
  for (q in seq_along(m)) {
    at <- m[q]
    code <- switch(rawToChar(b[at + 1L]), t = 9L, n = 10L, r = 13L,
                   x = strtoi(rawToChar(b[at + 2:3]), 16L), 92L)
    if (code == 0L) next
    b[at] <- as.raw(code)
    keep[at + seq_len(len[q] - 1L)] <- FALSE
  }
  r <- rawToChar(b[keep])
  Encoding(r) <- Encoding(s)
  r
}

#' The 64-byte header of a starmet binary file, as a list: kind ("results"
#' or "topk"), version, num_way, metric ("czekanowski" or "ccc"),
#' value_bytes, num_vector, num_field, count; k and mode for top-k files.
starmet_read_header <- function(path) {
  con <- file(path, "rb")
  on.exit(close(con))
  h <- readBin(con, "raw", 64L)
  if (length(h) < 64L)
    stop(sprintf("%s: %d bytes, shorter than the 64-byte header of a starmet binary file",
                 path, length(h)))
  is_result <- identical(h[1:8], c(charToRaw("STARMET"), as.raw(0)))
  if (!is_result && !identical(h[1:8], charToRaw("STARTOPK")))
    stop(sprintf("%s: not a starmet binary file (--output-format comet files have no header)",
                 path))
  u32 <- function(off) .starmet_u32(h[(off + 1):(off + 4)], 1L)
  u64 <- function(off) u32(off) + u32(off + 4) * 2^32
  hd <- list(kind = if (is_result) "results" else "topk",
             version = u32(8), num_way = u32(12), metric = u32(16),
             value_bytes = u32(20), num_vector = u64(24), num_field = u64(32),
             count = u64(40))
  if (hd$version != 1)
    stop(sprintf("%s: format version %d, this reader knows version 1", path, hd$version))
  if (!(hd$num_way %in% 2:3) || !(hd$metric %in% 0:5) || !(hd$value_bytes %in% c(4, 8)))
    stop(sprintf("%s: malformed header", path))
  hd$metric <- c("czekanowski", "ccc", "bray-curtis", "jaccard", "r2", "r")[hd$metric + 1]
  if (hd$kind == "topk") {
    hd$k <- u32(48)
    hd$mode <- u32(52)
  }
  hd
}

#' Read a starmet binary result file (--output-format bin) into a
#' data.frame (id_i, id_j[, id_k], [a, b[, c]], value). chunk: records read
#' at a time (memory use, not the result).
starmet_read_bin <- function(path, chunk = 1048576L) {
  hd <- starmet_read_header(path)
  way <- hd$num_way
  ccc <- hd$metric == "ccc"
  vb <- hd$value_bytes
  ids <- if (hd$kind == "topk") c("vector", "rank", "neighbour")
         else c("id_i", "id_j", "id_k")[1:way]
  nid <- length(ids)
  rs <- 4L * nid + ccc + vb # packed record size
  n <- hd$count
  size <- file.info(path)$size
  if (size != 64 + n * rs)
    stop(sprintf("%s: %.0f bytes, but its header announces %.0f records of %d bytes: the file is truncated or not starmet's",
                 path, size, n, rs))
  con <- file(path, "rb")
  on.exit(close(con))
  invisible(readBin(con, "raw", 64L))
  cols <- vector("list", nid + 2L)
  left <- n
  while (left > 0) {
    m <- min(left, chunk)
    raw <- readBin(con, "raw", m * rs)
    b <- matrix(raw, nrow = rs)
    part <- lapply(seq_len(nid), function(c)
      .starmet_u32(as.vector(b[(4L * (c - 1L) + 1L):(4L * c), ]), m))
    part[[nid + 1L]] <- if (ccc) as.integer(b[4L * nid + 1L, ]) else integer(0)
    part[[nid + 2L]] <- readBin(as.vector(b[(rs - vb + 1L):rs, ]), "double", n = m,
                                size = vb, endian = "little")
    for (c in seq_along(cols)) cols[[c]] <- c(cols[[c]], part[[c]])
    left <- left - m
  }
  if (n == 0) cols <- c(lapply(seq_len(nid), function(c) integer(0)),
                        list(integer(0), double(0)))
  d <- stats::setNames(as.data.frame(cols[1:nid]), ids)
  if (ccc) {
    bits <- if (hd$kind == "topk") 2L else way
    for (k in seq_len(bits))
      d[[c("a", "b", "c")[k]]] <- bitwAnd(bitwShiftR(cols[[nid + 1L]], bits - k), 1L)
  }
  d$value <- cols[[nid + 2L]]
  d
}

#' Read a starmet TSV result file into a data.frame with the same columns
#' as starmet_read_bin (ids are character when the file holds names, which
#' starmet_unescape gives back as the input had them: "7", "07" and "007"
#' are three names). keys: "names", "index" or NULL: as the run's summary
#' beside the file says (starmet_summary_keys; the TSV header is the same
#' either way), else indices only when every id is written as starmet
#' writes an index (decimal, no leading zero).
starmet_read_tsv <- function(path, keys = NULL) {
  header <- strsplit(readLines(path, n = 1L), "\t", fixed = TRUE)[[1]]
  if (length(header) < 3 || header[length(header)] != "value")
    stop(sprintf("%s: not a starmet TSV (header %s)", path, paste(header, collapse = " ")))
  cls <- ifelse(header %in% c("value", "pos_i", "pos_j", "pos_k"), "numeric",
                ifelse(header %in% c("a", "b", "c", "rank"), "integer", "character"))
  d <- utils::read.delim(path, header = TRUE, sep = "\t", quote = "", comment.char = "",
                         colClasses = cls, na.strings = character(0),
                         check.names = FALSE, stringsAsFactors = FALSE)
  names(d) <- header
  nv <- NA_real_
  if (is.null(keys)) {
    s <- .starmet_file_summary(path)
    keys <- s$keys
    nv <- s$num_vector
  }
  if (!is.na(keys) && !(keys %in% c("names", "index")))
    stop(sprintf("keys = '%s': use \"names\", \"index\" or NULL", keys))
  cols <- intersect(names(d), c("id_i", "id_j", "id_k", "vector", "neighbour"))
  ids <- unlist(d[cols], use.names = FALSE)
  canon <- grepl("^(0|[1-9][0-9]*)$", ids, useBytes = TRUE)
  index <- if (is.na(keys)) all(canon) && (is.na(nv) || all(as.double(ids) < nv))
           else keys == "index"
  if (index && !all(canon))
    stop(sprintf("%s: an id that is not a vector index, but keys = \"index\"; read it with keys = \"names\"",
                 path))
  for (col in cols) {
    x <- d[[col]]
    if (index) {
      x <- as.double(x)
      d[[col]] <- if (all(x < 2^31)) as.integer(x) else x
    } else {
      d[[col]] <- starmet_unescape(x)
    }
  }
  d
}

# A JSON string field of a summary text js, as written (escapes kept: the
# fields read here are words and paths), or NA when absent.
.starmet_json_str <- function(js, key) {
  m <- regmatches(js, regexpr(sprintf('"%s": *"(\\\\.|[^"\\\\])*"', key), js))
  if (!length(m)) return(NA_character_)
  v <- sub(sprintf('^"%s": *"', key), "", m)
  substr(v, 1L, nchar(v) - 1L)
}

# Whether a command line (words) holds --name as getopt_long reads it (a
# unique abbreviation, or --name=value): its value (the next word, or
# after "="), TRUE for a flag, or NULL.
.starmet_option <- function(cmd, name) {
  for (n in seq_along(cmd)) {
    opt <- sub("=.*", "", cmd[n])
    if (nchar(opt) > 3 && startsWith(opt, "--") && startsWith(paste0("--", name), opt)) {
      if (grepl("=", cmd[n], fixed = TRUE)) return(sub("^[^=]*=", "", cmd[n]))
      return(if (n < length(cmd)) cmd[n + 1L] else TRUE)
    }
  }
  NULL
}

#' What the ids of a compute run's TSV files are, from its summary text
#' (PREFIX.json read whole): "names", "index", or NA when it cannot tell.
#' Its "keys" entry when there is one; else --keys index on the command
#' line; else the input: a text table has names when its row names (with
#' --transpose, its header) were read; a synthetic problem, an npy or a
#' raw file has none; PLINK and VCF inputs have them.
starmet_summary_keys <- function(js) {
  k <- .starmet_json_str(js, "keys")
  if (!is.na(k) && k %in% c("names", "index")) return(k)
  cmd <- strsplit(.starmet_json_str(js, "command"), " ", fixed = TRUE)[[1]]
  if (identical(.starmet_option(cmd, "keys"), "index")) return("index")
  header <- .starmet_json_str(js, "text_header")
  if (!is.na(header)) {
    rows <- identical(.starmet_json_str(js, "text_row_names"), "yes")
    header <- header == "yes"
    has <- if (header == rows) header else if (!is.null(.starmet_option(cmd, "transpose"))) header else rows
    return(if (has) "names" else "index")
  }
  inp <- tolower(.starmet_json_str(js, "input"))
  if (!is.na(inp) && startsWith(inp, "synthetic ")) return("index")
  fmt <- .starmet_option(cmd, "input-format")
  if (!is.null(.starmet_option(cmd, "bfile")) || identical(fmt, "plink") ||
      identical(fmt, "vcf") || identical(fmt, "bcf")) return("names")
  if (identical(fmt, "npy") || identical(fmt, "raw")) return("index")
  if (!is.na(inp) && grepl("\\.(vcf|vcf\\.gz|vcf\\.bgz|bcf|bed)$", inp)) return("names")
  if (!is.na(inp) && grepl("\\.npy$", inp)) return("index")
  NA_character_
}

# keys and num_vector of the compute run that wrote path, from the summary
# beside it (PREFIX.json of PREFIX[_<rank>][.topk].tsv), NA without one.
.starmet_file_summary <- function(path) {
  base <- sub("\\.topk$", "", sub("\\.tsv$", "", path))
  for (prefix in unique(c(base, sub("_[0-9]+$", "", base)))) {
    js <- paste0(prefix, ".json")
    if (!file.exists(js)) next
    js <- paste(readLines(js, warn = FALSE), collapse = "\n")
    if (!grepl('"problem":', js, fixed = TRUE)) next
    nv <- regmatches(js, regexpr('"num_vector": *[0-9]+', js))
    return(list(keys = starmet_summary_keys(js),
                num_vector = if (length(nv)) as.double(sub(".*: *", "", nv)) else NA_real_))
  }
  list(keys = NA_character_, num_vector = NA_real_)
}

#' Read a TSV of starmet maf (PREFIX.maf.tsv or PREFIX.saf.tsv, or one
#' rank's PREFIX_<rank>.*) into a data.frame: chrom, pos, allele1,
#' allele2, n_data (individuals with data, ANGSD's nInd), alt_freq
#' (allele2's frequency: the VCF's ALT, the BEAGLE file's allele2; the
#' posterior mean under the run's spectrum), minor_freq (min(alt_freq,
#' 1 - alt_freq)); a file of an earlier starmet has maf (allele2's
#' frequency) instead of the last two. Or chrom, pos, saf_0 .. saf_2N
#' (-Inf for impossible bins). Names (chrom, alleles) are unescaped
#' (starmet_unescape).
starmet_read_maf <- function(path) {
  header <- strsplit(readLines(path, n = 1L), "\t", fixed = TRUE)[[1]]
  maf <- identical(header, c("chrom", "pos", "allele1", "allele2", "n_data", "alt_freq",
                             "minor_freq")) ||
    identical(header, c("chrom", "pos", "allele1", "allele2", "n_data", "maf"))
  if (!maf && !(length(header) > 2 && identical(header[1:2], c("chrom", "pos")) &&
                all(grepl("^saf_[0-9]+$", header[-(1:2)]))))
    stop(sprintf("%s: neither a .maf.tsv nor a .saf.tsv header (%s)", path,
                 paste(header, collapse = " ")))
  cls <- ifelse(header %in% c("chrom", "allele1", "allele2"), "character",
                ifelse(header == "n_data", "integer", "numeric"))
  d <- utils::read.delim(path, header = TRUE, sep = "\t", quote = "", comment.char = "",
                         colClasses = cls, na.strings = character(0),
                         check.names = FALSE, stringsAsFactors = FALSE)
  for (col in intersect(names(d), c("chrom", "allele1", "allele2")))
    d[[col]] <- starmet_unescape(d[[col]])
  d
}

#' Read PREFIX.sfs of starmet maf (a path ending in .sfs, or the prefix):
#' its one line of 2N + 1 expected site counts (realSFS's layout) as a
#' numeric vector, with attr(x, "folded"): TRUE for the folded spectrum of
#' --fold (classes 0..N, then N zeros), FALSE when unfolded, NA when no
#' summary PREFIX.json says (Python: read_sfs(path).folded).
starmet_read_sfs <- function(path) {
  if (!grepl("\\.sfs$", path)) path <- paste0(path, ".sfs")
  x <- scan(path, what = numeric(), quiet = TRUE)
  folded <- NA
  js <- paste0(sub("\\.sfs$", "", path), ".json")
  if (file.exists(js)) {
    js <- paste(readLines(js, warn = FALSE), collapse = "\n")
    f <- regmatches(js, regexpr('"folded": *(true|false)', js))
    if (length(f)) folded <- grepl("true", f, fixed = TRUE)
    else if (grepl('"analysis": *"maf"', js)) folded <- FALSE # an earlier starmet's
  }
  attr(x, "folded") <- folded
  x
}

#' The rank count and the format of a run, from PREFIX.json when it is
#' there (a regular expression on its fields: base R has no JSON reader).
.starmet_summary <- function(prefix) {
  path <- paste0(prefix, ".json")
  if (!file.exists(path)) return(list(nranks = NA_integer_, format = NA_character_))
  js <- paste(readLines(path, warn = FALSE), collapse = "\n")
  np <- regmatches(js, regexpr('"num_proc": *[0-9]+', js))
  out <- regmatches(js, regexpr('"output": *"[^"]*"', js))
  fmt <- if (length(out)) sub('.*\\.([a-z]+)"$', "\\1", out) else NA_character_
  list(nranks = if (length(np)) as.integer(sub(".*: *", "", np)) else NA_integer_,
       format = if (!is.na(fmt) && fmt %in% c("bin", "tsv")) fmt else NA_character_,
       maf = grepl('"analysis": *"maf"', js))
}

#' The result files of the run PREFIX: PREFIX.<format> on one rank,
#' PREFIX_<rank>.<format> for rank 0..P-1 on several (P from PREFIX.json,
#' else the files there). format: "bin" or "tsv" (default: the summary's,
#' else whichever exists, bin first). A list(format, paths).
starmet_result_files <- function(prefix, format = NULL) {
  s <- .starmet_summary(prefix)
  if (isTRUE(s$maf))
    stop(sprintf("%s: the files of a starmet maf run, not of compute: read its .maf.tsv and .saf.tsv with starmet_read_maf",
                 prefix))
  fmts <- if (!is.null(format)) format else if (!is.na(s$format)) s$format else c("bin", "tsv")
  for (ext in fmts) {
    one <- paste0(prefix, ".", ext)
    if (is.na(s$nranks) || s$nranks == 1) {
      if (file.exists(one)) return(list(format = ext, paths = one))
      if (!is.na(s$nranks)) next
    }
    if (!is.na(s$nranks)) {
      paths <- sprintf("%s_%d.%s", prefix, seq_len(s$nranks) - 1L, ext)
    } else {
      found <- list.files(dirname(prefix), full.names = FALSE,
                          pattern = paste0("^", gsub("([.|()\\^{}+$*?\\[\\]\\\\])", "\\\\\\1",
                                                     basename(prefix)), "_[0-9]+\\.", ext, "$"))
      ranks <- sort(as.integer(sub(".*_([0-9]+)\\.[a-z]+$", "\\1", found)))
      if (length(ranks) && !identical(ranks, seq_along(ranks) - 1L))
        stop(sprintf("%s_<rank>.%s: ranks %s found, not 0..%d", prefix, ext,
                     paste(ranks, collapse = " "), length(ranks) - 1L))
      paths <- sprintf("%s_%d.%s", prefix, ranks, ext)
    }
    there <- file.exists(paths)
    if (length(paths) && all(there)) return(list(format = ext, paths = paths))
    if (any(there))
      stop(sprintf("%s: the run had %d ranks, missing: %s", prefix, length(paths),
                   paste(paths[!there], collapse = ", ")))
  }
  stop(sprintf("%s: no result file (%s.bin, %s.tsv or %s_<rank>.*)", prefix, prefix,
               prefix, prefix))
}

#' Every result record of the run PREFIX (its --output), one rank or
#' several, as one data.frame (ranks in order; records in block order).
#' keys: what the ids of TSV files are (see starmet_read_tsv).
starmet_read_results <- function(prefix, format = NULL, keys = NULL) {
  f <- starmet_result_files(prefix, format)
  parts <- if (f$format == "bin") lapply(f$paths, starmet_read_bin)
           else lapply(f$paths, starmet_read_tsv, keys = keys)
  if (length(parts) == 1) return(parts[[1]])
  ids <- intersect(names(parts[[1]]), c("id_i", "id_j", "id_k"))
  if (length(unique(lapply(parts, function(p) sapply(p[ids], class)))) > 1)
    parts <- lapply(parts, function(p) { p[ids] <- lapply(p[ids], as.character); p })
  d <- do.call(rbind, parts)
  rownames(d) <- NULL
  d
}

#' The ids of the npy matrix of the run PREFIX (PREFIX.ids.txt, or a path
#' ending in .ids.txt or .npy): one per row, names unescaped
#' (starmet_unescape) or the 0-based indices as text; NULL when there is
#' none (runs before starmet wrote it).
starmet_read_ids <- function(prefix) {
  path <- if (grepl("\\.ids\\.txt$", prefix)) prefix else paste0(sub("\\.npy$", "", prefix), ".ids.txt")
  if (!file.exists(path)) return(NULL)
  starmet_unescape(readLines(path, warn = FALSE))
}

#' The matrix of --output-format npy (PREFIX.npy, or a path ending in
#' .npy): n x n (CCC n x n x 4, the last index the table entry a*2+b + 1),
#' float32 values read as double; NaN where no value was kept, the
#' diagonal the metric's self-value (1; CCC NaN); dimnames the ids of
#' PREFIX.ids.txt when it is there.
starmet_read_npy <- function(prefix) {
  path <- if (grepl("\\.npy$", prefix)) prefix else paste0(prefix, ".npy")
  con <- file(path, "rb")
  on.exit(close(con))
  magic <- readBin(con, "raw", 8L)
  if (length(magic) < 8L || !identical(magic[1:6], c(as.raw(0x93), charToRaw("NUMPY"))))
    stop(sprintf("%s: not a NumPy file", path))
  hb <- as.integer(readBin(con, "raw", if (magic[7] == as.raw(1)) 2L else 4L))
  header <- rawToChar(readBin(con, "raw", sum(hb * 256^(seq_along(hb) - 1L))))
  descr <- sub(".*'descr': *'([^']*)'.*", "\\1", header)
  if (!(descr %in% c("<f8", "<f4")) || grepl("'fortran_order': *True", header))
    stop(sprintf("%s: %s, not the little-endian C-order float matrix starmet writes",
                 path, header))
  shape <- strsplit(sub(".*'shape': *\\(([^)]*)\\).*", "\\1", header), ", *")[[1]]
  shape <- as.integer(shape[nzchar(shape)])
  n <- prod(shape)
  v <- readBin(con, "double", n = n, size = if (descr == "<f8") 8L else 4L,
               endian = "little")
  if (length(v) != n)
    stop(sprintf("%s: %d values, its header announces %.0f: the file is truncated",
                 path, length(v), n))
  m <- aperm(array(v, dim = rev(shape)), rev(seq_along(shape)))
  ids <- starmet_read_ids(path)
  if (!is.null(ids)) {
    if (length(ids) != shape[1])
      stop(sprintf("%s: %d ids for %d rows", sub("\\.npy$", ".ids.txt", path),
                   length(ids), shape[1]))
    dimnames(m) <- c(list(ids, ids), if (length(shape) == 3) list(c("00", "01", "10", "11")))
  }
  m
}

#' The distance matrix of --output-format lsmat (PREFIX.lsmat, or a path
#' ending in .lsmat), a numeric matrix with the ids (unescaped) as
#' dimnames; stats::as.dist(m) makes it a dist object.
starmet_read_lsmat <- function(prefix) {
  path <- if (grepl("\\.lsmat$", prefix)) prefix else paste0(prefix, ".lsmat")
  lines <- readLines(path, warn = FALSE)
  head <- strsplit(lines[1], "\t", fixed = TRUE, useBytes = TRUE)[[1]]
  n <- length(head) - 1L
  if (n < 1L || nzchar(head[1]) || length(lines) != n + 1L)
    stop(sprintf("%s: not an lsmat file of starmet (a header of an empty cell and the ids, then one row per id)",
                 path))
  rows <- strsplit(lines[-1], "\t", fixed = TRUE, useBytes = TRUE)
  if (any(lengths(rows) != n + 1L) ||
      !identical(vapply(rows, `[`, "", 1L), head[-1]))
    stop(sprintf("%s: a row is not its id and %d values: the file is truncated or not starmet's",
                 path, n))
  m <- matrix(as.numeric(unlist(lapply(rows, `[`, -1L))), n, n, byrow = TRUE)
  ids <- starmet_unescape(head[-1])
  dimnames(m) <- list(ids, ids)
  m
}

#' The metric's value of a vector with itself, the diagonal of starmet's
#' matrices: 1 for a similarity (czekanowski), 0 for a dissimilarity
#' (bray-curtis, jaccard), NaN where it is no constant (ccc).
starmet_self_value <- function(metric) {
  switch(metric, czekanowski = 1, "bray-curtis" = 0, jaccard = 0, ccc = NaN, r2 = 1, r = 1,
         stop(sprintf("metric '%s': this reader knows czekanowski, bray-curtis, jaccard and ccc",
                      metric)))
}

#' The distances of a metric's values, as starmet's lsmat holds them: a
#' dissimilarity's values as they are, 1 - value for a similarity
#' (czekanowski: 1 - PS, the Bray-Curtis dissimilarity); an error for ccc.
starmet_distance <- function(metric, v) {
  s <- starmet_self_value(metric)
  if (metric %in% c("r2", "r")) stop(sprintf("%s values are correlations, not distances", metric))
  if (is.nan(s)) stop(sprintf("%s values are not distances (a vector's value with itself is no constant)", metric))
  if (s == 0) v else 1 - v
}

#' A stats::dist of a 2-way run's values: src is a run's prefix (its
#' lsmat as it is, else its npy with PREFIX.ids.txt, else its records) or
#' a square matrix. metric: what the values are (default: the run's
#' summary, else "czekanowski"); ids: the order of named records, or the
#' labels of a matrix. Every pair needs a value (no --threshold).
starmet_to_dist <- function(src, metric = NULL, ids = NULL) {
  if (is.character(src)) {
    prefix <- sub("\\.(lsmat|npy|tsv|bin)$", "", src)
    jp <- paste0(prefix, ".json")
    js <- if (file.exists(jp)) paste(readLines(jp, warn = FALSE), collapse = "\n") else ""
    if (is.null(metric) && !is.na(.starmet_json_str(js, "metric")))
      metric <- .starmet_json_str(js, "metric")
    out <- .starmet_json_str(js, "output")
    if (is.na(out)) out <- ""
    has <- function(ext) file.exists(paste0(prefix, ".", ext)) &&
      (grepl(paste0("\\.", ext, "$"), src) || grepl(paste0("\\.", ext, "$"), out) || !nzchar(out))
    if (has("lsmat")) {
      m <- starmet_read_lsmat(prefix)
      return(stats::as.dist(m))
    }
    src <- if (has("npy")) starmet_read_npy(prefix) else
      starmet_to_matrix(starmet_read_results(prefix), ids = ids,
                        metric = if (is.null(metric)) NULL else metric)
  }
  if (is.data.frame(src)) src <- starmet_to_matrix(src, ids = ids, metric = metric)
  if (is.null(metric)) metric <- "czekanowski"
  if (length(dim(src)) != 2L || nrow(src) != ncol(src))
    stop("starmet_to_dist: not a square matrix (ccc values are no distances)")
  d <- starmet_distance(metric, src)
  diag(d) <- 0
  if (anyNA(d))
    stop(sprintf("starmet_to_dist: %d of the %d pairs have no value (a --threshold run keeps some): a distance matrix needs every pair",
                 sum(is.na(d)) %/% 2L, nrow(d) * (nrow(d) - 1L) %/% 2L))
  if (!is.null(ids) && is.null(rownames(d))) dimnames(d) <- list(ids, ids)
  stats::as.dist(d)
}

#' The matrix of 2-way records (a data.frame of starmet_read_results), as
#' --output-format npy writes it: n x n (CCC n x n x 4, entry a*2+b + 1),
#' both (i, j) and (j, i), NaN where no record is, the diagonal the
#' metric's self-value (metric: "czekanowski", 1, or "ccc", NaN; by
#' default "ccc" when the records have a and b). With names the rows
#' follow ids (default: the names sorted) and the dimnames are the ids;
#' with indices there are n rows (default: the largest index + 1).
starmet_to_matrix <- function(d, n = NULL, ids = NULL, metric = NULL) {
  if ("id_k" %in% names(d)) stop("starmet_to_matrix: 3-way records")
  ccc <- all(c("a", "b") %in% names(d))
  if (is.null(metric)) metric <- if (ccc) "ccc" else "czekanowski"
  self <- starmet_self_value(metric)
  if (is.character(d$id_i)) {
    if (is.null(ids)) ids <- sort(unique(c(d$id_i, d$id_j)))
    i <- match(d$id_i, ids)
    j <- match(d$id_j, ids)
    if (anyNA(i) || anyNA(j)) stop("starmet_to_matrix: the records name ids that ids lacks")
    n <- length(ids)
  } else {
    i <- d$id_i + 1
    j <- d$id_j + 1
    if (is.null(n)) n <- if (!is.null(ids)) length(ids) else max(c(i, j, 0))
  }
  dn <- if (!is.null(ids)) list(ids, ids) else NULL
  if (ccc) {
    e <- d$a * 2L + d$b + 1L
    m <- array(NaN, c(n, n, 4L), dimnames = if (!is.null(dn)) c(dn, list(c("00", "01", "10", "11"))))
    for (k in 1:4) m[cbind(seq_len(n), seq_len(n), k)] <- self
    m[cbind(i, j, e)] <- d$value
    m[cbind(j, i, d$b * 2L + d$a + 1L)] <- d$value
  } else {
    m <- matrix(NaN, n, n, dimnames = dn)
    diag(m) <- self
    m[cbind(i, j)] <- d$value
    m[cbind(j, i)] <- d$value
  }
  m
}
