#!/bin/sh
# prefix_lock.sh: one run per output name. A run holds PREFIX.lock (and
# STEM.lock for a --summary or --trace file of its own) from before it
# computes until its files are committed; a second run that would write
# files of the same name -- compute with another output format or none,
# maf, a --summary or --trace file of that name -- is refused naming the
# first run's pid, and changes none of its files. The lock goes with the
# run: after a kill the next run takes it over; a lock path that is a link
# or a directory is refused; a run whose files share a stem spelled two ways
# holds it once.
. "$(dirname "$0")/../lib.sh"

awk 'BEGIN { srand(4); for (i = 0; i < 90; i++) { printf "r%d", i
  for (j = 0; j < 25; j++) printf "\t%.4f", rand(); printf "\n" } }' > "$T/in.tsv"
A="compute --quiet --metric czekanowski --input $T/in.tsv --block-size 8"
GL="$top_srcdir/data/example_gl.beagle.gz"
# shellcheck disable=SC2086
run_ok "uninterrupted" "$STARMET" $A --output "$T/full"

# the first run, stopped (SIGSTOP) after 5 blocks: it holds the lock
# shellcheck disable=SC2086
"$STARMET" $A --output "$T/x" --debug-pause-after-blocks 5 > "$T/first.out" 2>&1 &
first=$!
pid=$(stopped_pid "--output $T/x ")
if [ -z "$pid" ]; then
  fail "the first run did not stop itself"; kill -9 $first 2> /dev/null
else
  grep -q "^pid $pid on " "$T/x.lock" && pass || fail "x.lock does not name the first run's pid $pid"
  before=$(cat "$T/x.tsv.part" "$T/x.manifest" | cksum)
  # taken NAME ARGS...: refused naming the first run; its files unchanged
  taken() {
    name=$1; shift
    if "$@" > "$T/log.out" 2> "$T/log.err"; then fail "$name: ran beside the first run"; return; fi
    grep -q "another starmet run is writing files named $T/x\.\* (pid $pid on .*lock file $T/x\.lock)" "$T/log.err" &&
      pass || { fail "$name: the message does not name the first run:"; cat "$T/log.err" >&2; }
    [ "$(cat "$T/x.tsv.part" "$T/x.manifest" | cksum)" = "$before" ] && [ ! -e "$T/x.json" ] &&
      [ ! -e "$T/x.tsv" ] && [ ! -e "$T/x.bin.part" ] && [ ! -e "$T/x.saf.tsv.part" ] && pass ||
      fail "$name: the first run's files changed"
  }
  # shellcheck disable=SC2086
  taken "the same command" "$STARMET" $A --output "$T/x"
  # shellcheck disable=SC2086
  taken "no output format" "$STARMET" $A --output-format none --output "$T/x"
  # shellcheck disable=SC2086
  taken "binary output" "$STARMET" $A --output-format bin --output "$T/x"
  # shellcheck disable=SC2086
  taken "its summary" "$STARMET" $A --summary "$T/x.json"
  # shellcheck disable=SC2086
  taken "a trace of its name" "$STARMET" $A --trace "$T/x.csv" --summary "$T/y.json"
  # shellcheck disable=SC2086
  taken "--resume beside it" "$STARMET" $A --output "$T/x" --resume
  taken "maf on its prefix" "$STARMET" maf --quiet --input "$GL" --output "$T/x"
  # another name runs beside it
  # shellcheck disable=SC2086
  run_ok "another prefix" "$STARMET" $A --output "$T/other"
  cmp -s "$T/other.tsv" "$T/full.tsv" && pass || fail "another prefix: output differs"
  kill -CONT "$pid"
  wait $first && pass || fail "the first run failed: $(cat "$T/first.out")"
  cmp -s "$T/x.tsv" "$T/full.tsv" && pass || fail "the first run's output differs"
  [ ! -e "$T/x.lock" ] && pass || fail "x.lock left after the run"
fi

# a run killed while it holds the lock: the next one takes it over
# shellcheck disable=SC2086
"$STARMET" $A --output "$T/k" --debug-stop-after-blocks 3 > /dev/null 2>&1
[ -e "$T/k.lock" ] && pass || fail "the killed run left no lock file (nothing tested)"
# shellcheck disable=SC2086
run_ok "after a kill" "$STARMET" $A --output "$T/k" --resume
cmp -s "$T/k.tsv" "$T/full.tsv" && [ ! -e "$T/k.lock" ] && pass || fail "after a kill: output or lock"

# maf holds it too, against compute and maf
"$STARMET" maf --quiet --input "$GL" --output "$T/m" --block-size 8 \
  --debug-pause-after-blocks 2 > /dev/null 2>&1 &
bgm=$!
pid=$(stopped_pid "--output $T/m ")
if [ -n "$pid" ]; then
  # shellcheck disable=SC2086
  expect_error "compute beside maf" "another starmet run is writing files named $T/m\.\* \(pid $pid " - \
    "$STARMET" $A --output "$T/m"
  expect_error "maf beside maf" "another starmet run is writing files named $T/m\.\* \(pid $pid " - \
    "$STARMET" maf --quiet --input "$GL" --output "$T/m"
  kill -CONT "$pid"
  wait $bgm && pass || fail "maf failed"
  [ -s "$T/m.saf.tsv" ] && [ -s "$T/m.sfs" ] && [ ! -e "$T/m.lock" ] && [ ! -e "$T/m.tsv" ] &&
    pass || fail "maf's files, or its lock left: $(ls "$T"/m*)"
else
  fail "maf did not stop itself"; kill -9 $bgm
fi

# the lock path must be a regular file or nothing
ln -s "$T/elsewhere" "$T/l.lock"
# shellcheck disable=SC2086
expect_error "a link at the lock path" "l\.lock: the path exists and is a symbolic link" \
  "$T/l.tsv" "$STARMET" $A --output "$T/l"
[ ! -e "$T/elsewhere" ] && pass || fail "written through the link"
mkdir "$T/d.lock"
# shellcheck disable=SC2086
expect_error "a directory at the lock path" "d\.lock: the path exists and is a directory" \
  "$T/d.tsv" "$STARMET" $A --output "$T/d"
# one run whose output and summary share a stem spelled two ways (an
# absolute path and the same file from its directory) holds its own lock
# once: it runs, and leaves no lock behind
mkdir -p "$T/d"
# shellcheck disable=SC2086
run_ok "one stem, two spellings" sh -c 'cd "$1" && shift && exec "$@"' sh "$T/d" "$STARMET" \
  $A --output "$T/d/same" --summary same.json
[ -s "$T/d/same.tsv" ] && [ -s "$T/d/same.json" ] && [ ! -e "$T/d/same.lock" ] && pass ||
  fail "one stem, two spellings: $(ls "$T/d")"
finish
