#!/bin/sh
# outputs.sh: the output policy (src/common/sm_commit.c). Before a run
# computes, every path it will write must be absent or a regular file, in
# an existing directory, distinct from the others and from the inputs; no
# file is ever written through a symbolic link or replaces a directory, a
# FIFO or a link. Each hostile case below must fail with a message naming
# the option and the path, leave what was there as it was, and write no
# result; legitimate runs (an existing regular file, --resume's .part) are
# unaffected.
. "$(dirname "$0")/../lib.sh"
G="--bfile $top_srcdir/data/example_geno"
cd "$T" || exit 1
echo victim > victim
mkfifo fifo
ln -s victim link
mkdir adir

# refused NAME PATTERN COMMAND...: fails, says PATTERN, victim and fifo intact
refused() {
  name=$1 pattern=$2
  shift 2
  expect_error "$name" "$pattern" - "$@"
  [ "$(cat victim)" = victim ] && [ -p fifo ] && [ -L link ] && [ -d adir ] && pass ||
    fail "$name: a planted file was changed"
}
# shellcheck disable=SC2086
{
  refused "summary fifo" "--summary fifo: the path exists and is a FIFO" \
    "$STARMET" compute --quiet $G --output o1 --summary fifo
  [ ! -e o1.tsv ] && pass || fail "summary fifo: results written"
  refused "summary link" "--summary link: the path exists and is a symbolic link" \
    "$STARMET" compute --quiet $G --output o2 --summary link
  refused "trace link" "--trace link: .*symbolic link" \
    "$STARMET" compute --quiet $G --output o3 --trace link
  refused "summary dir" "--summary adir: .*is a directory" \
    "$STARMET" compute --quiet $G --output o4 --summary adir
  mkdir o5.tsv
  refused "results dir" "--output o5.tsv: the path exists and is a directory" \
    "$STARMET" compute --quiet $G --output o5
  [ -d o5.tsv ] && pass || fail "results dir: the directory was replaced"
  refused "summary is the results" "--summary o6.tsv is also the file of --output" \
    "$STARMET" compute --quiet $G --output o6 --summary o6.tsv
  refused "trace is the summary" "--trace s7.json is also the file of --summary" \
    "$STARMET" compute --quiet $G --output o7 --summary s7.json --trace s7.json
  ln -s victim o8.tsv.part
  refused "planted .part" "--output o8.tsv.part: .*symbolic link" \
    "$STARMET" compute --quiet $G --output o8
  ln victim o13.tsv.part
  refused "hard link at .part" "o13\.tsv\.part: cannot create output file: it has other names \(hard links\)" \
    "$STARMET" compute --quiet $G --output o13
  [ "$(stat -c %h victim)" = 2 ] && [ ! -e o13.tsv ] && pass || fail "hard link at .part: changed"
  rm o13.tsv.part
  ln -s victim o9.manifest.new
  refused "planted manifest temporary" "o9.manifest.new: .*symbolic link" \
    "$STARMET" compute --quiet $G --output o9
  mkdir o10.hist.png
  refused "histogram picture dir" "--histogram o10.hist.png: .*directory" \
    "$STARMET" compute --quiet $G --output o10 --histogram 10
  mkfifo o11.topk.tsv
  refused "top-k fifo" "--top-k o11.topk.tsv: .*FIFO" \
    "$STARMET" compute --quiet $G --output o11 --top-k 3
  ln -s victim o12.json
  refused "summary link by prefix" "--output o12.json: .*symbolic link" \
    "$STARMET" compute --quiet $G --output o12
  ln -s victim m1.maf.tsv
  refused "maf link" "--output m1.maf.tsv: .*symbolic link" \
    "$STARMET" maf --quiet --input "$top_srcdir/data/example_gl.beagle.gz" --output m1
  mkdir s1.tsv
  "$STARMET" synth --quiet --metric czekanowski --synthetic random --num-vector 5 \
    --num-field 5 --output-format tsv --output s1.tsv > /dev/null 2> log.err &&
    fail "synth over a directory succeeded" || pass
  [ -d s1.tsv ] && pass || fail "synth replaced a directory"
  grep -q "not a regular file" log.err && pass || fail "synth: $(cat log.err)"
  refused "synth over a link" "not a regular file|symbolic link" \
    "$STARMET" synth --quiet --metric czekanowski --synthetic random --num-vector 5 \
    --num-field 5 --output-format tsv --output link
}

# paths past the system's limits are named as such (a path cut short by a
# buffer must not look like another file)
long=$(awk 'BEGIN { while (n++ < 4096) printf "a" }')
# shellcheck disable=SC2086
expect_error "a 4096-byte --output" "a path of 4095 bytes or more, over the system's limit of 4095 bytes \(PATH_MAX\)" \
  - "$STARMET" compute --quiet $G --output "$long"
name=$(awk 'BEGIN { while (n++ < 300) printf "b" }')
# shellcheck disable=SC2086
expect_error "a 300-byte file name" "is 30[0-9] bytes, over this file system's limit of 255 bytes for one name" \
  - "$STARMET" compute --quiet $G --output "$name"

# what is allowed: replacing a regular file, resuming from a regular .part
echo old > ok.tsv
# shellcheck disable=SC2086
run_ok "replace a regular file" "$STARMET" compute --quiet $G --output ok
head -n 1 ok.tsv | grep -q "^id_i" && pass || fail "ok.tsv was not replaced"

# several ranks: one rank's file a directory stops every rank
if [ -n "${MPIEXEC:-}" ]; then
  mkdir r_1.tsv
  # shellcheck disable=SC2086
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1 \
    expect_error "rank file dir" "--output r_1.tsv: .*directory" - \
    timeout 120 $MPIEXEC $MPIEXEC_FLAGS -np 2 "$STARMET" compute --quiet $G \
    --num-proc-vector 2 --output r
  [ ! -e r_0.tsv ] && [ -d r_1.tsv ] && pass || fail "rank file dir: something was written"
fi
finish
