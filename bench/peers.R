# bench/peers.R: times R vegan's vegdist(x, "bray") for bench/bench.py.
# usage: Rscript bench/peers.R FILE NROW NCOL REPS  (FILE: raw little-endian
# float64, row after row); prints the best time of REPS calls, in seconds.
# Exits 3 (a message on stderr) when the vegan package is not installed.
if (!requireNamespace("vegan", quietly = TRUE)) {
  cat("R vegan: not installed (no R package vegan)\n", file = stderr())
  quit(save = "no", status = 3)
}
suppressPackageStartupMessages(library(vegan))
a <- commandArgs(trailingOnly = TRUE)
n <- as.integer(a[2])
k <- as.integer(a[3])
reps <- as.integer(a[4])
con <- file(a[1], "rb")
x <- matrix(readBin(con, "double", n * k, size = 8, endian = "little"), nrow = n, byrow = TRUE)
close(con)
best <- Inf
for (r in seq_len(reps)) {
  t <- system.time(d <- vegdist(x, method = "bray"))[["elapsed"]]
  best <- min(best, t)
}
cat(best, "\n")
