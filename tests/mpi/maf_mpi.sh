#!/bin/sh
# maf_mpi.sh: `starmet maf` under mpirun: P = 2 and 3 ranks give the same
# output as P = 1: the per-rank SAF and allele frequency files together hold
# exactly the single-rank lines, and the spectrum, its log-likelihood and
# iterations are bit-identical (the EM sums per chunk, in chunk order).
. "$(dirname "$0")/../lib.sh"
mpi_setup

mpi() { np=$1; shift; mpi_starmet "$np" maf "$@"; }
json_val() { sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1" | head -n 1; }
# merge PREFIX NP EXT OUT: the data lines of every rank's file, sorted
merge() { merge_ranks "$1" "$2" "$3" "$4.u" && tail -n +2 "$4.u" | sort > "$4"; }

awk 'BEGIN { srand(11); N = 9
  printf "marker\tallele1\tallele2"; for (i = 0; i < N; i++) printf "\tInd%d\tInd%d\tInd%d", i, i, i
  printf "\n"
  for (s = 1; s <= 150; s++) {
    printf "chr%d_%d\tA\tT", 1 + int(s / 60), 37 * s; f = rand()
    for (i = 0; i < N; i++) {
      if (rand() < 0.1) { printf "\t0.333333\t0.333333\t0.333333"; continue }
      g = (rand() < f) + (rand() < f)
      printf "\t%.6f\t%.6f\t%.6f", 0.02 + (g == 0) * rand(), 0.02 + (g == 1) * rand(), 0.02 + (g == 2) * rand() }
    printf "\n" } }' > "$T/g.beagle"

for P in 1 2 3; do
  for band in 0 4; do
    o=$T/m${P}_$band
    run_ok "P=$P band $band" mpi $P --input "$T/g.beagle" --block-size 5 --band-tol $band --output "$o"
    merge "$o" $P saf.tsv "$o.saf.all"
    merge "$o" $P maf.tsv "$o.maf.all"
    [ -s "$o.saf.all" ] && [ "$(wc -l < "$o.saf.all")" -eq 150 ] && pass || fail "P=$P: saf lines"
    if [ $P -gt 1 ]; then
      r=$T/m1_$band
      cmp -s "$o.saf.all" "$r.saf.all" && pass || fail "P=$P band $band: SAF differs from P=1"
      cmp -s "$o.maf.all" "$r.maf.all" && pass || fail "P=$P band $band: MAF differs from P=1"
      cmp -s "$o.sfs" "$r.sfs" && pass || fail "P=$P band $band: SFS differs from P=1"
      for k in loglik iterations computed bins_dropped; do
        [ "$(json_val "$o.json" $k)" = "$(json_val "$r.json" $k)" ] && pass ||
          fail "P=$P band $band: $k $(json_val "$o.json" $k) vs $(json_val "$r.json" $k)"
      done
      # every rank computed a share
      rk=0; while [ $rk -lt $P ]; do
        [ "$(wc -l < "${o}_$rk.saf.tsv")" -gt 1 ] && pass || fail "P=$P: rank $rk computed nothing"
        rk=$((rk + 1)); done
    fi
  done
done
grep -q '"ranks": \[' "$T/m3_0.json" && pass || fail "summary lacks the ranks"
expect_error "bad input under mpirun" "nope\.beagle: cannot open" "$T/bad" \
  mpi 2 --input "$T/nope.beagle" --output "$T/bad"
finish
