#!/bin/sh
# job_commit.sh: a multi-rank job commits as one, under real mpirun. No
# rank renames its output before every rank has finished and verified its
# part; a rank killed at any step of the commit, or before it, leaves a
# job that --resume completes with the uninterrupted run's files; a final
# file its rank committed is taken back by the resume when another rank's
# did not get there; a rank that finds no manifest recomputes its part
# instead of hanging the others; a rank whose output was changed under it
# stops every rank, and nothing is renamed; ranks of two StarPU builds are
# refused before any task.
. "$(dirname "$0")/../lib.sh"
mpi_setup

# rank 1 appends $R1 to its command line (per-rank test options)
W=$T/per-rank
cat > "$W" << EOS
#!/bin/sh
rank=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
# shellcheck disable=SC2086
[ "\$rank" != 0 ] && exec "\${R1_BIN:-$STARMET}" "\$@" \${R1:-}
exec "$STARMET" "\$@" \${R0:-}
EOS
chmod +x "$W"
# per ARGS...: `starmet ARGS` on 2 ranks through the wrapper; a hang fails
per() {
  # shellcheck disable=SC2086
  timeout 120 $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$W" "$@"
}
# merged PREFIX: both ranks' records, sorted (the job's content)
merged() { tail -q -n +2 "${1}_0.tsv" "${1}_1.tsv" | sort; }

awk 'BEGIN { srand(3); for (i = 0; i < 70; i++) { printf "v%d", i
  for (j = 0; j < 30; j++) printf "\t%.4f", rand(); printf "\n" } }' > "$T/in.tsv"
A="compute --quiet --metric czekanowski --input $T/in.tsv --block-size 8"
# shellcheck disable=SC2086
R1= run_ok "2 ranks" per $A --output "$T/full"
merged "$T/full" > "$T/full.sorted"
[ -s "$T/full.sorted" ] && pass || fail "the clean job wrote nothing"

# resumed NAME PREFIX: --resume on 2 ranks completes the job exactly
resumed() {
  # shellcheck disable=SC2086
  R1= R0= run_ok "$1: --resume" per $A --output "$2" --resume
  merged "$2" | cmp -s - "$T/full.sorted" && pass || fail "$1: the resumed job differs"
  ls "$2".* "$2"_* 2> /dev/null | grep -Eq '\.(part|manifest|lock)$' &&
    fail "$1: files left: $(ls "$2"*)" || pass
}

# 1. rank 1 killed mid-run; rank 0's part complete or not, never renamed
rm -f "$T"/k*
# shellcheck disable=SC2086
R1="--debug-stop-after-blocks 6" per $A --output "$T/k" > /dev/null 2>&1 &&
  fail "rank 1 killed: the job succeeded" || pass
[ ! -e "$T/k_0.tsv" ] && [ ! -e "$T/k_1.tsv" ] && pass || fail "rank 1 killed: a rank renamed its file"
resumed "rank 1 killed mid-run" "$T/k"

# 2. rank 1 killed at each step of the commit
for step in 1 2 3; do
  rm -f "$T"/c*
  # shellcheck disable=SC2086
  R1="--debug-stop-in-commit $step" per $A --output "$T/c" > /dev/null 2>&1 &&
    fail "commit step $step: the job succeeded" || pass
  if [ $step -lt 3 ]; then
    [ ! -e "$T/c_0.tsv" ] && [ ! -e "$T/c_1.tsv" ] && pass ||
      fail "commit step $step: a rank renamed before the job agreed"
  fi
  resumed "rank 1 killed at commit step $step" "$T/c"
done

# 3. rank 0 committed its file, rank 1 could not (a directory at its
# final path, made while it was stopped): the resume takes rank 0's
# final file back and completes the job
rm -rf "$T"/g*
# shellcheck disable=SC2086
R1="--debug-pause-after-blocks 3" while_stopped "$T/g" 'mkdir "$T/g_1.tsv"' per $A --output "$T/g"
rc=$?
R1=
if [ $rc -ne 125 ]; then
  [ $rc -ne 0 ] && pass || fail "a directory at rank 1's path: the job succeeded"
  grep -q "g_1\.tsv: cannot rename the complete output" "$T/bg.err" && pass ||
    { fail "a directory at rank 1's path: message"; cat "$T/bg.err" >&2; }
  [ -f "$T/g_0.tsv" ] && [ -s "$T/g_1.tsv.part" ] && [ -e "$T/g_0.manifest" ] &&
    [ -e "$T/g_1.manifest" ] && pass || fail "the committed and the kept files: $(ls "$T"/g*)"
  rmdir "$T/g_1.tsv"
  resumed "rank 0 committed, rank 1 not" "$T/g"
fi

# 4. a manifest missing on one rank (node-local scratch, removed): that
# rank recomputes its part; nobody hangs
for gone in 0 1; do
  rm -f "$T"/m*
  # shellcheck disable=SC2086
  R1= per $A --output "$T/m" --debug-stop-after-blocks 10 > /dev/null 2>&1
  rm -f "$T/m_$gone.manifest"
  resumed "rank $gone's manifest removed" "$T/m"
done

# 5. rank 1's partial output truncated while it was stopped: every rank
# fails, no file is renamed, the resume recomputes what is bad
rm -f "$T"/t*
# shellcheck disable=SC2086
R1="--debug-pause-after-blocks 10" while_stopped "$T/t" 'truncate -s 100 "$T/t_1.tsv.part"' \
  per $A --output "$T/t"
rc=$?
R1=
if [ $rc -ne 125 ]; then
  [ $rc -ne 0 ] && pass || fail "rank 1's output truncated: the job succeeded"
  grep -q "t_1\.tsv\.part: the output" "$T/bg.err" && pass ||
    { fail "rank 1's output truncated: message"; cat "$T/bg.err" >&2; }
  [ ! -e "$T/t_0.tsv" ] && [ ! -e "$T/t_1.tsv" ] && pass || fail "a rank renamed a file"
  resumed "rank 1's output truncated" "$T/t"
fi

# 6. a 2-rank job beside a 1-rank run of the same prefix: one is refused
rm -f "$T"/l*
# shellcheck disable=SC2086
R1="--debug-pause-after-blocks 2" while_stopped "$T/l" \
  'expect_error "a run beside a job" "another starmet run is writing files named .*/l\.\*" - \
    "$STARMET" $A --output "$T/l"' per $A --output "$T/l"
rc=$?
R1=
if [ $rc -ne 125 ]; then
  [ $rc -eq 0 ] && pass || fail "the job failed"
  merged "$T/l" | cmp -s - "$T/full.sorted" && pass || fail "the job's files differ"
fi

# 7. ranks of another StarPU generation (the other build of this tree,
# when both exist: CI builds both) are refused before any task
other=
case $STARMET in
  */_build-starpu14/*) other=$top_srcdir/_build/starmet ;;
  *) other=$top_srcdir/_build-starpu14/starmet ;;
esac
if [ -x "$other" ] && [ "$other" != "$STARMET" ]; then
  rm -f "$T"/x*
  # shellcheck disable=SC2086
  R1_BIN=$other expect_error "two StarPU builds" \
    "ranks of this run were not started alike: rank 0 has build starmet .*StarPU [0-9.]+ .*rank 1 has build starmet .*StarPU [0-9.]+" \
    "$T/x" per $A --output "$T/x"
else
  echo "note: no other StarPU build beside this one ($other): the cross-build case runs where both exist"
fi
finish
