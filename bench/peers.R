# bench/peers.R: times R vegan's vegdist(x, "bray") for bench/bench.py.
# usage: Rscript bench/peers.R FILE NROW NCOL REPS  (FILE: raw little-endian
# float64, row after row); prints the best time of a call over REPS
# measurements, in seconds. A measurement repeats the call for at least
# 0.2 s (R's clock ticks in milliseconds: one call on a small matrix reads
# as 0) and divides by the calls.
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
  calls <- 0L
  t0 <- proc.time()[["elapsed"]]
  repeat {
    d <- vegdist(x, method = "bray")
    calls <- calls + 1L
    el <- proc.time()[["elapsed"]] - t0
    if (el >= 0.2) break
  }
  best <- min(best, el / calls)
}
cat(best, "\n")
