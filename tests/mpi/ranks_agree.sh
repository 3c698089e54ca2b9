#!/bin/sh
# ranks_agree.sh: ranks started with different options or seeing different
# input files (an MPMD launch, a wrapper script, a typo in one line of a
# batch file) stop before any task with one message from rank 0 naming the
# first difference, a non-zero exit and no output file; they never hang,
# abort inside StarPU or MPI, or merge two problems into one result.
# Options that may differ per rank (--devices, --quiet, ...) and spellings
# of one value ("0.50", "0.5") still run and give the single-rank result.
. "$(dirname "$0")/../lib.sh"
mpi_setup

# rank 1 (or every rank but 0) appends $R1 to its command line, or runs
# $R1_ALL instead of it, and runs in $R1_DIR when set: what a wrapper
# script or an MPMD launch does
W=$T/per-rank
cat > "$W" << EOS
#!/bin/sh
rank=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
if [ "\$rank" != 0 ]; then
  [ -n "\${R1_DIR:-}" ] && cd "\$R1_DIR"
  # shellcheck disable=SC2086
  [ -n "\${R1_ALL:-}" ] && exec "$STARMET" \$R1_ALL
  # shellcheck disable=SC2086
  exec "$STARMET" "\$@" \${R1:-}
fi
exec "$STARMET" "\$@"
EOS
chmod +x "$W"
# per NP ARGS...: `starmet ARGS` on NP ranks through the wrapper, ended
# after 120 s (a hang is a failure, not a stuck suite)
per() {
  np=$1; shift
  # shellcheck disable=SC2086
  timeout 120 $MPIEXEC ${MPIEXEC_FLAGS:-} -np "$np" "$W" "$@"
}
# differ NAME R1 PATTERN ARGS...: rank 1 given R1 too must fail naming it
differ() {
  name=$1 r1=$2 pattern=$3; shift 3
  rm -rf "$T/out"*
  R1=$r1 expect_error "$name" "$pattern" "$T/out" per 2 "$@"
  if grep -q "ranks of this run were not started alike" "$T/log.err"; then
    [ "$(grep -c 'not started alike' "$T/log.err")" -eq 1 ] && pass ||
      fail "$name: the message is printed more than once"
  fi
}

mkdir -p "$T/a" "$T/b"
awk 'BEGIN { srand(5); for (i = 0; i < 30; i++) { printf "v%d", i
  for (j = 0; j < 20; j++) printf "\t%.3f", rand(); printf "\n" } }' > "$T/a/x.tsv"
awk 'BEGIN { srand(6); for (i = 0; i < 31; i++) { printf "v%d", i
  for (j = 0; j < 20; j++) printf "\t%.3f", rand(); printf "\n" } }' > "$T/b/x.tsv"
C="compute --quiet --metric czekanowski --input $T/a/x.tsv --threshold 0.5"
S="--summary $T/out.json --output $T/out"

# the single-rank result, and the same on 2 ranks started alike
run_ok "one rank" "$STARMET" $C --summary "$T/one.json" --output "$T/one"
REF=$(cks "$T/one.json")
rm -rf "$T/out"*
R1= run_ok "2 ranks alike" per 2 $C $S
[ "$(cks "$T/out.json")" = "$REF" ] && pass || fail "2 ranks alike: checksum differs"

# every kind of option that changes the problem or its outputs
M='rank 0 has --threshold 0.5, rank 1 has --threshold 0.9\. Every rank'
differ "threshold" "--threshold 0.9" "$M" $C $S
rm -rf "$T/out"*
R1="--threshold 0.9" per 2 $C $S > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && pass || fail "ranks that disagree: exit $rc, not 2 (a bad command line)"
differ "num-way" "--num-way 3" "rank 0 has --num-way 2, rank 1 has --num-way 3" $C $S
R1_ALL="$(echo "$C" | sed "s/czekanowski/ccc/") $S" differ "metric" "" \
  "rank 0 has --metric czekanowski, rank 1 has --metric ccc" $C $S
differ "block-size" "--block-size 2" "rank 0 has --block-size 0, rank 1 has --block-size 2" $C $S
differ "precision" "--precision single" "--precision double, rank 1 has --precision single" $C $S
differ "output" "--output $T/out2" "rank 1 has --output $T/out2" $C $S
[ ! -e "$T/out2.tsv" ] && [ ! -e "$T/out2_1.tsv" ] && pass || fail "output: rank 1 wrote a file"
differ "summary" "--summary $T/out3.json" "rank 1 has --summary $T/out3.json" $C $S
R1_ALL="$(echo "$C" | sed "s|/a/x|/b/x|") $S" differ "input" "" \
  "rank 0 has --input $T/a/x.tsv, rank 1 has --input $T/b/x.tsv" $C $S
unset R1_ALL
differ "grid" "--num-proc-vector 2" "rank 0 has --num-proc-vector 0, rank 1 has --num-proc-vector 2" $C $S
differ "a flag on one rank" "--transpose" "rank 0 has no --transpose, rank 1 has --transpose" $C $S
differ "histogram" "--histogram 10" "rank 0 has no --histogram, rank 1 has --histogram 10" $C $S
differ "sched" "--sched eager" "rank 1 has --sched eager" $C $S

# one relative path naming different files on the two ranks (another
# working directory, another node's copy)
cd "$T/a" || exit 1
R1_DIR=$T/b differ "same path, other file" "" \
  "rank 0 has input x.tsv of [0-9]+ bytes .*, rank 1 has input x.tsv of [0-9]+ bytes" \
  compute --quiet --metric czekanowski --input x.tsv $S
# another copy of the same size, one value changed in its last line
mkdir -p "$T/c"
sed '$s/0\./1./' "$T/a/x.tsv" > "$T/c/x.tsv"
[ "$(wc -c < "$T/c/x.tsv")" = "$(wc -c < "$T/a/x.tsv")" ] && ! cmp -s "$T/a/x.tsv" "$T/c/x.tsv" &&
  pass || fail "the other copy is not of the same size with other bytes: the case tests nothing"
R1_DIR=$T/c differ "same path, same size, another copy" "" \
  "rank 0 has input x.tsv of ([0-9]+) bytes \(CRC-32C of its ends [0-9a-f]+ [0-9a-f]+\), rank 1 has input x.tsv of \1 bytes" \
  compute --quiet --metric czekanowski --input x.tsv $S
mkdir -p "$T/nowhere-else"
R1_DIR=$T/nowhere-else differ "input missing on rank 1" "" \
  "rank 1 has input x.tsv that cannot be read" \
  compute --quiet --metric czekanowski --input x.tsv $S
unset R1_DIR
cd "$T" || exit 1

# a typo on one rank: that rank's own error, the job ends
rm -rf "$T/out"*
R1="--treshold 0.9" expect_error "typo on rank 1" "unknown or incomplete option '--treshold" \
  "$T/out" per 2 $C $S

# 3 ranks, only the last one differs: it is named
rm -rf "$T/out"*
R1="--threshold 0.5" per 3 $C $S --threshold 0.5 > /dev/null 2>&1 && pass ||
  fail "3 ranks alike through the wrapper"
cat > "$T/per-rank2" << EOS
#!/bin/sh
rank=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
[ "\$rank" = 2 ] && exec "$STARMET" "\$@" --threshold 0.7
exec "$STARMET" "\$@"
EOS
chmod +x "$T/per-rank2"
rm -rf "$T/out"*
expect_error "rank 2 of 3" "rank 0 has --threshold 0.5, rank 2 has --threshold 0.7" "$T/out" \
  timeout 120 $MPIEXEC ${MPIEXEC_FLAGS:-} -np 3 "$T/per-rank2" $C $S

# what may differ: per-rank options, and spellings of one value
for r1 in "--devices cpu" "--no-progress --task-timeout 300" "--threshold 0.50" \
  "--inject-faults 0 --calibrate" "--threshold 5e-1 --precision double"; do
  rm -rf "$T/out"*
  R1=$r1 run_ok "rank 1 with $r1" per 2 $C $S
  [ "$(cks "$T/out.json")" = "$REF" ] && pass || fail "rank 1 with $r1: checksum differs"
done

# maf: the same rule
awk 'BEGIN { srand(3); printf "marker\tallele1\tallele2"
  for (i = 0; i < 4; i++) printf "\tI%d\tI%d\tI%d", i, i, i; printf "\n"
  for (s = 1; s <= 40; s++) { printf "c1_%d\tA\tC", s
    for (i = 0; i < 4; i++) printf "\t%.4f\t%.4f\t%.4f", rand(), rand(), rand(); printf "\n" } }' \
  > "$T/g.beagle"
MAF="maf --quiet --input $T/g.beagle --output $T/out"
rm -rf "$T/out"*
R1="--progress" run_ok "maf, per-rank option" per 2 $MAF
differ "maf band-tol" "--band-tol 2" "rank 0 has --band-tol 0, rank 1 has --band-tol 2" $MAF
differ "maf kernel" "--kernel ref" "rank 0 has --kernel tree, rank 1 has --kernel ref" $MAF
finish
