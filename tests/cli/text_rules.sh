#!/bin/sh
# text_rules.sh: the text reader's automatic mode decides only what it can
# tell apart and refuses the rest, naming the file, the line and the
# option that settles it (docs/inputs.md, "Text tables: the rules"); the
# settled runs give the values of the same table written plainly. Vector
# names must be unique for text output (or --keys index writes numbers).
. "$(dirname "$0")/../lib.sh"
S=$STARMET
# values NAME FILE REF ARGS...: FILE read with ARGS gives REF's values
# (the same pairs, names and numbers as the plain table REF read plainly)
values() {
  name=$1 f=$2 ref=$3; shift 3
  rm -f "$T/v.tsv" "$T/r.tsv"
  run_ok "$name" "$S" compute --quiet --input "$f" --output "$T/v" --summary "$T/v.json" "$@"
  run_ok "$name (reference)" "$S" compute --quiet --input "$ref" --output "$T/r" --summary "$T/r.json"
  cmp -s "$T/v.tsv" "$T/r.tsv" && pass || { fail "$name: values differ from the plain table"; diff "$T/v.tsv" "$T/r.tsv" | head -5 >&2; }
}
refuse() { name=$1 pat=$2 f=$3; shift 3; expect_error "$name" "$pat" "$T/out" "$S" compute --input "$f" --output "$T/out" "$@"; }

printf 'name\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/plain.tsv"

# a NUL byte after the first line: the cell would end at it ("4<NUL>5"
# read as 4), so the file is refused with the line and the byte's column
printf 'name\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t4\0005\t0.1\nc\t1\t2\t3\n' > "$T/nul.tsv"
refuse "a NUL byte in a cell" "nul\.tsv:3:8: a NUL byte: this is not a text table, or it is damaged" "$T/nul.tsv"
printf 'name\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\000\n' > "$T/nulend.tsv"
refuse "a NUL byte before a newline" "nulend\.tsv:3:14: a NUL byte" "$T/nulend.tsv"

# a missing value in the first data row: not a header, not data
printf 'a\t0.1\tNA\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/na1.tsv"
refuse "NA in the first row" "na1\.tsv:1: the first line mixes names and numbers \(cell 3 'NA' is not a number.*--header yes" "$T/na1.tsv"
printf 'a\t0.1\t0.5\t0.3\nb\t0.2\tNA\t0.1\n' > "$T/na2.tsv"
refuse "NA in the second row" "na2\.tsv:2:3: 'NA' is not a number" "$T/na2.tsv"
# ... and in a header: one numeric column name among names
printf 'x\ts1\t2\ts3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/mixhdr.tsv"
refuse "a numeric name in a header" "mixhdr\.tsv:1: the first line mixes names and numbers" "$T/mixhdr.tsv"
values "a numeric name, --header yes" "$T/mixhdr.tsv" "$T/plain.tsv" --header yes
# under an id label (id, sample, site, OTU ID, an empty cell...) the first
# line is a header whatever follows: numeric column names (years; R's
# write.csv quotes them)
printf 'id\ts1\t2\ts3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/idmix.tsv"
values "an id label over a numeric name" "$T/idmix.tsv" "$T/plain.tsv"
printf 'site\t2001\t2002\t2003\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/years.tsv"
values "numeric column names under 'site'" "$T/years.tsv" "$T/plain.tsv"
printf '"","2001","2002","2003"\n"a",0.1,0.5,0.3\n"b",0.2,0.4,0.1\n"c",1,2,3\n' > "$T/r.csv"
values "R write.csv, numeric names" "$T/r.csv" "$T/plain.tsv"
# a first line of integers under 'sample' is a header; --header no makes it data
printf 'sample\t3\t4\t5\nb\t1\t2\t3\nc\t4\t5\t6\n' > "$T/id_int.tsv"
run_ok "'sample' and integers: a header" "$S" compute --quiet --input "$T/id_int.tsv" --output "$T/h0" --summary "$T/h0.json"
[ "$(cut -f 1,2 "$T/h0.tsv" | tr '\n' ' ')" = "id_i	id_j b	c " ] && pass || fail "'sample' and integers: not a header"
run_ok "--header no reads it as data" "$S" compute --quiet --input "$T/id_int.tsv" --header no --output "$T/h" --summary "$T/h.json"
grep -q '^sample	b	' "$T/h.tsv" && pass || fail "--header no: the row 'sample' is not a vector"

# '#' lines: comments before the data, refused after it
printf '# made by hand\n# second comment\nname\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/comments.tsv"
values "comments before the header" "$T/comments.tsv" "$T/plain.tsv"
printf 'name\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\n#b\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/hashrow.tsv"
refuse "a row named #b" "hashrow\.tsv:3: a line starting with '#' after the data began.*'#b'" "$T/hashrow.tsv"
printf 'name\tf1\tf2\tf3\n# note\na\t0.1\t0.5\t0.3\n' > "$T/hashmid.tsv"
refuse "a comment after the header" "hashmid\.tsv:2: a line starting with '#'" "$T/hashmid.tsv"
# QIIME: the last '#' line is the header (a BIOM table: its rows, the
# observations, are the vectors with --compare observations)
printf '# Constructed from biom file\n#OTU ID\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/qiime.tsv"
values "a QIIME table" "$T/qiime.tsv" "$T/plain.tsv" --compare observations
grep -q '"text_header": "yes"' "$T/v.json" && pass || fail "QIIME: the summary does not record a header"
# ... transposed (samples as vectors): the '#OTU ID' line names them
printf '#OTU ID\ts1\ts2\ts3\nO1\t1\t2\t3\nO2\t4\t5\t6\n' > "$T/qt.tsv"
run_ok "QIIME transposed" "$S" compute --quiet --input "$T/qt.tsv" --transpose --output "$T/q" --summary "$T/q.json"
[ "$(cut -f 1,2 "$T/q.tsv" | tr '\n' ' ')" = "id_i	id_j s1	s2 s1	s3 s2	s3 " ] && pass ||
  fail "QIIME transposed: the samples are not named s1 s2 s3: $(cut -f 1,2 "$T/q.tsv" | tr '\n' ' ')"
# a '#' line that is not a header (another cell count) stays a comment
printf '#OTU ID\tf1\nname\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/notq.tsv"
values "a '#' line of another width" "$T/notq.tsv" "$T/plain.tsv"
# --header no: every '#' line before the data is a comment
printf '#OTU ID\tf1\tf2\tf3\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/qno.tsv"
printf 'a\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\nc\t1\t2\t3\n' > "$T/noh.tsv"
values "QIIME line with --header no" "$T/qno.tsv" "$T/noh.tsv" --header no

# blank lines anywhere; quoted numbers are numbers
printf '\nname\tf1\tf2\tf3\n\na\t0.1\t0.5\t0.3\nb\t0.2\t0.4\t0.1\n\nc\t1\t2\t3\n\n\n' > "$T/blank.tsv"
values "blank lines" "$T/blank.tsv" "$T/plain.tsv"
printf '"name","f1","f2","f3"\n"a","0.1","0.5","0.3"\n"b","0.2","0.4","0.1"\n"c","1","2","3"\n' > "$T/quoted.csv"
values "every cell quoted" "$T/quoted.csv" "$T/plain.tsv"

# UTF-16 (Windows' "Unicode text"): refused, and the hint's conversion reads
if command -v iconv > /dev/null; then
  iconv -f UTF-8 -t UTF-16 "$T/plain.tsv" > "$T/u16.tsv"
  refuse "UTF-16 with a BOM" "u16\.tsv: this looks like UTF-16 text.*iconv -f UTF-16 -t UTF-8" "$T/u16.tsv"
  iconv -f UTF-8 -t UTF-16LE "$T/plain.tsv" > "$T/u16le.tsv"
  refuse "UTF-16LE without a BOM" "u16le\.tsv: this looks like UTF-16 text" "$T/u16le.tsv"
  iconv -f UTF-16 -t UTF-8 "$T/u16.tsv" > "$T/copy.tsv"
  values "the hint's conversion" "$T/copy.tsv" "$T/plain.tsv"
else skip_part "iconv not installed: UTF-16 cases"; fi

# duplicate names: refused for text output, --keys index writes numbers
printf 'a\t1\t2\nb\t3\t4\na\t5\t6\n' > "$T/dup.tsv"
refuse "duplicate row names" "dup\.tsv: vector names repeat .*'a' names vectors 0 and 2.*--keys index" "$T/dup.tsv"
printf '1\t2\n3\t4\n5\t6\n' > "$T/nonames.tsv"
values "--keys index" "$T/dup.tsv" "$T/nonames.tsv" --keys index --row-names yes
printf 'x\ta\ta\n1\t2\t3\n4\t5\t6\n' > "$T/duph.tsv"
refuse "duplicate column names, transposed" "duph\.tsv: vector names repeat .*'a'" "$T/duph.tsv" --transpose
run_ok "binary output needs no names" "$S" compute --quiet --input "$T/dup.tsv" --output "$T/b" --output-format bin
# PLINK: '.' ids refused; the hint's plink1.9 command gives a set that runs
awk 'BEGIN { OFS = "\t" } NR <= 3 { $2 = "." } { print }' "$top_srcdir/data/example_geno.bim" > "$T/g.bim"
cp "$top_srcdir/data/example_geno.bed" "$T/g.bed"; cp "$top_srcdir/data/example_geno.fam" "$T/g.fam"
expect_error "'.' SNP ids" "g: vector names repeat .*'\.' names vectors 0 and 1.*set-missing-var-ids" "$T/out" \
  "$S" compute --bfile "$T/g" --output "$T/out"
if command -v plink1.9 > /dev/null; then
  plink1.9 --bfile "$T/g" --set-missing-var-ids '@:#:$1:$2' --keep-allele-order --make-bed --out "$T/g2" > /dev/null 2>&1
  run_ok "the hint's plink1.9 command" "$S" compute --quiet --bfile "$T/g2" --output "$T/g2o" --summary "$T/g2o.json"
  run_ok "the original set" "$S" compute --quiet --bfile "$top_srcdir/data/example_geno" --output "$T/g0" --summary "$T/g0.json"
  [ "$(cks "$T/g2o.json")" = "$(cks "$T/g0.json")" ] && pass || fail "renamed SNPs: other values"
else skip_part "plink1.9 not installed: the hint is not tried"; fi
finish
