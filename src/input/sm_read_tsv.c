/* sm_read_tsv.c: delimited text input for czekanowski (tab, comma or spaces;
 * optional header row and row-name column; rows, or columns when transposed,
 * are the vectors; a BIOM table's samples, its columns, unless its
 * observations are compared). The whole file is checked; only the slice is
 * kept. */
#include "sm_read.h"
#include "sm_read_util.h"
#include "sm_stream.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Growable array of pointers (cells of a line, names). */
typedef struct ptrvec {
  char **p;
  size_t n, cap;
} ptrvec_t;

/* The parse state. Rows are the file's data rows, columns its data columns
 * (row names excluded); vectors are rows, or columns with transpose. */
typedef struct tsv {
  const char *path;
  const sm_read_opts_t *o;
  char sep;        /* '\t', ',' or ' ' (runs of blanks), 0 = not known */
  ptrvec_t cells;  /* cells of the current line (pointers into it) */
  ptrvec_t header; /* header cells (copies), if there is a header */
  size_t header_line;
  int rownames;     /* the first column holds row names */
  int ids_guess;    /* auto: the first column was taken as ids from its header cell */
  int ids_rising;   /* auto, numeric first column: integers rising so far */
  double ids_last;  /* the last of them */
  size_t ncells;    /* cells per data row, 0 until the first one */
  size_t nrows;     /* data rows seen */
  size_t r0, rc;    /* rows to keep: [r0, r0 + rc), rc 0 = to the end */
  size_t c0, ckeep; /* columns to keep: [c0, c0 + ckeep) */
  double *vals;     /* kept values, [kept row][ckeep] */
  size_t nvals, valcap;
  ptrvec_t rnames;     /* row names of the kept rows */
  int started;         /* the header or the first data row was read */
  char *comment;       /* the last '#' line before that (a QIIME header?) */
  size_t comment_line; /* its line number */
  int first_quoted;    /* the current line's first cell was in double quotes ... */
  int other_bare;      /* ... and another of its cells was not */
  ptrvec_t pending;    /* auto: a first line of numbers (copies), until the
                          second line says whether it was R's header */
  size_t pending_line;
  size_t data_line;           /* the first data row's line */
  const char *why_id;         /* auto: why the first column's number is a name */
  char first_cell[48];        /* the first data row's first cell, for messages */
  int r_header;               /* auto: the first line, of numbers, is R's header */
  int pend_quoted, pend_bare; /* the pending line's first_quoted, other_bare */
  int transpose;              /* columns are the vectors (--transpose, BIOM samples) */
  int biom_mark;              /* a '# Constructed from biom file' line came first */
  int biom;                   /* a BIOM table: SM_COMPARE_* compared, else 0 */
  char *meta;                 /* its last column's name when it holds metadata
                                 (taxonomy), skipped; else NULL */
} tsv_t;

/* Append s to v: SM_OK or SM_ENOMEM (logged by the caller, who knows the
 * line). */
static sm_err_t push_ptr(ptrvec_t *v, char *s)
{
  if (v->n == v->cap) {
    size_t cap = v->cap ? 2 * v->cap : 64;
    char **p = realloc(v->p, cap * sizeof *p);
    if (!p)
      return SM_ENOMEM;
    v->p = p;
    v->cap = cap;
  }
  v->p[v->n++] = s;
  return SM_OK;
}

static void free_strings(ptrvec_t *v)
{
  for (size_t i = 0; i < v->n; i++)
    free(v->p[i]);
  free(v->p);
  memset(v, 0, sizeof *v);
}

/* A whole cell that strtod reads completely ("nan" and "inf" count: they are
 * numbers, refused later as values). */
static int parse_number(const char *s, double *x)
{
  char *end;
  if (!*s)
    return 0;
  *x = strtod(s, &end);
  return *end == '\0';
}

/* Split a line in place into t->cells. Tab and comma separate single cells
 * (trimmed of blanks and surrounding double quotes, as spreadsheets write
 * them); with spaces, runs of blanks separate cells. SM_OK or SM_ENOMEM. */
static sm_err_t split_line(tsv_t *t, char *s)
{
  t->cells.n = 0;
  t->first_quoted = t->other_bare = 0;
  if (t->sep == ' ') {
    /* runs of blanks; a cell in double quotes (R's write.table) may hold
     * blanks and loses its quotes */
    for (s += strspn(s, " \t"); *s; s += strspn(s, " \t")) {
      char *end = s[0] == '"' ? strchr(s + 1, '"') : NULL;
      const int quoted = end && (end[1] == '\0' || end[1] == ' ' || end[1] == '\t');
      char *c = quoted ? s + 1 : s;
      end = quoted ? end : s + strcspn(s, " \t");
      if (!t->cells.n)
        t->first_quoted = quoted;
      else if (!quoted)
        t->other_bare = 1;
      s = *end ? end + 1 : end;
      *end = '\0';
      if (push_ptr(&t->cells, c))
        return SM_ENOMEM;
    }
    return SM_OK;
  }
  for (;;) {
    char *next = strchr(s, t->sep);
    if (next)
      *next = '\0';
    s += strspn(s, " \t");
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
      s[--len] = '\0';
    const int quoted = len >= 2 && s[0] == '"' && s[len - 1] == '"';
    if (quoted) {
      s[len - 1] = '\0';
      s++;
    }
    if (!t->cells.n)
      t->first_quoted = quoted;
    else if (!quoted)
      t->other_bare = 1;
    if (push_ptr(&t->cells, s))
      return SM_ENOMEM;
    if (!next)
      return SM_OK;
    s = next + 1;
  }
}

/* Is w (lower case, without blanks, '_', '-' or '.') a word that heads a
 * column of ids? */
static int id_word(const char *w)
{
  static const char *const words[] = {
      "id",      "ids",       "sample",  "samples",   "sampleid", "samplename",
      "site",    "sites",     "siteid",  "name",      "names",    "row",
      "rowname", "rownames",  "rowid",   "index",     "iid",      "fid",
      "taxon",   "taxa",      "taxonid", "otu",       "otus",     "otuid",
      "asv",     "asvid",     "feature", "featureid", "gene",     "genes",
      "geneid",  "genename",  "snp",     "snpid",     "marker",   "individual",
      "subject", "subjectid", "species", "probe",     "probeid",  "barcode"};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (!strcmp(w, words[k]))
      return 1;
  return 0;
}

/* An id label: a header cell over a column of ids. Empty (R's write.csv,
 * pandas' to_csv), or, a leading '#' and blanks aside, one of id_word's
 * words in any case and spelling ("OTU ID", "#SampleID", "feature-id",
 * "sample_name"), or a name ending in "_id", "-id", ".id", " id" or a
 * capital "ID" after a small letter ("subjectID"). */
static int is_id_label(const char *h)
{
  h += *h == '#';
  h += strspn(h, " \t");
  size_t n = strlen(h);
  while (n > 0 && (h[n - 1] == ' ' || h[n - 1] == '\t'))
    n--;
  if (n == 0)
    return 1;
  char w[64];
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < sizeof w; i++)
    if (!strchr(" _-.", h[i]))
      w[k++] = (char)tolower((unsigned char)h[i]);
  w[k] = '\0';
  if (n < sizeof w && id_word(w))
    return 1;
  if (n < 3 || tolower((unsigned char)h[n - 2]) != 'i' ||
      tolower((unsigned char)h[n - 1]) != 'd')
    return 0;
  const char b = h[n - 3];
  return strchr(" _-.", b) != NULL ||
         (h[n - 2] == 'I' && h[n - 1] == 'D' && b >= 'a' && b <= 'z');
}

/* Why a cell that strtod reads is written as a name rather than as a
 * number any program writes, or NULL: leading zeros ("007"), a capital E
 * between digits with no sign or point (the plate well "1E03"; programs
 * write exponents as "1e+03", "1E+03" or "1.5e3", and people "1e39", all
 * read as numbers), hexadecimal, a word ("Inf", "nan"). */
static const char *name_shape(const char *s)
{
  const char *d = s + (*s == '-' || *s == '+');
  const size_t nd = strspn(d, "0123456789");
  if (nd >= 2 && d[0] == '0' && d[nd] == '\0')
    return "leading zeros";
  if (nd >= 1 && d[nd] == 'E' && d[nd + 1] &&
      strspn(d + nd + 1, "0123456789") == strlen(d + nd + 1))
    return "a letter E between digits, as in a plate well";
  if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
    return "hexadecimal";
  if (isalpha((unsigned char)d[0]))
    return "a word";
  return NULL;
}

/* Why the first cell of the current line, a number to strtod, is a name
 * (name_shape, or in quotes beside bare cells: R's write.csv quotes names,
 * not numbers), or NULL. */
static const char *first_cell_name(const tsv_t *t)
{
  if (t->first_quoted && t->other_bare)
    return "in double quotes, which R's write.csv puts around names and not numbers";
  return name_shape(t->cells.p[0]);
}

/* --header auto: whether the first line (in t->cells) names the columns.
 * A first cell that is an id label makes it a header, whatever follows
 * ("OTU ID 1001 1002": numeric column names). Otherwise the cells after
 * the first decide: all of them text, a header; all of them numbers, data;
 * both, refused (one NA in a first data row, or a header with a numeric
 * column name, cannot be told apart). So are numbers written as names
 * ("x 007 008"). --header yes|no settles both. A line of one cell is a
 * header when that cell is not a number. */
static sm_err_t auto_header(const tsv_t *t, size_t lineno, int *header)
{
  const ptrvec_t *c = &t->cells;
  double x;
  if (c->n == 1) {
    *header = !parse_number(c->p[0], &x);
    return SM_OK;
  }
  if (is_id_label(c->p[0])) {
    *header = 1;
    return SM_OK;
  }
  size_t text = 0, numbers = 0, first_text = 0, first_number = 0, named = 0;
  for (size_t i = 1; i < c->n; i++) {
    if (!parse_number(c->p[i], &x)) {
      if (!text++)
        first_text = i;
    } else if (!numbers++) {
      first_number = i;
    }
    if (!named && parse_number(c->p[i], &x) && name_shape(c->p[i]))
      named = i;
  }
  if (text && numbers) {
    sm_log_error("%s:%zu: the first line mixes names and numbers (cell %zu '%.40s' is "
                 "not a number, cell %zu '%.40s' is): say --header yes if it names the "
                 "columns; if it is data, fix cell %zu (czekanowski takes no missing "
                 "values)",
                 t->path, lineno, first_text + 1, c->p[first_text], first_number + 1,
                 c->p[first_number], first_text + 1);
    return SM_EFORMAT;
  }
  if (named) {
    sm_log_error(
        "%s:%zu: cell %zu of the first line, '%.40s', reads as a number but is "
        "written as a name (%s): say --header yes if the line names the columns, "
        "--header no if it is data",
        t->path, lineno, named + 1, c->p[named], name_shape(c->p[named]));
    return SM_EFORMAT;
  }
  *header = text > 0;
  return SM_OK;
}

/* The header's name for data column c (NULL without a header). The header
 * may or may not have a cell above the row names. */
static const char *column_name(const tsv_t *t, size_t c)
{
  if (!t->header.n)
    return NULL;
  size_t skip = t->header.n == t->ncells ? (size_t)t->rownames : 0;
  return t->header.p[skip + c];
}

/* Is h (blanks, '_' and '-' aside, in any case) the name biom gives a
 * column of observation metadata (`biom convert --header-key taxonomy`,
 * QIIME 1's "Consensus Lineage", PICRUSt's KEGG columns)? */
static int metadata_name(const char *h)
{
  static const char *const words[] = {"taxonomy",     "consensuslineage", "lineage",
                                      "keggpathways", "keggdescription",  "keggpathway"};
  char w[32];
  size_t k = 0;
  for (; *h && k + 1 < sizeof w; h++)
    if (!strchr(" _-", *h))
      w[k++] = (char)tolower((unsigned char)*h);
  w[k] = '\0';
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (!strcmp(w, words[i]))
      return 1;
  return 0;
}

/* A BIOM table written as text (`biom convert --to-tsv`: a '# Constructed
 * from biom file' line, a header headed '#OTU ID' or 'OTU ID'): its rows
 * are observations, and its columns, the samples, are the vectors unless
 * the observations are compared. A last column named as metadata, or whose
 * first cell is not a number (`--header-key taxonomy`), is set aside (the
 * data rows' cells keep it: data_row drops it). */
static void biom_layout(tsv_t *t)
{
  if (!t->header.n)
    return;
  const char *h = t->header.p[0];
  h += *h == '#';
  if (!t->biom_mark && strcasecmp(h, "OTU ID"))
    return;
  t->biom = t->o->compare == SM_COMPARE_OBSERVATIONS ? SM_COMPARE_OBSERVATIONS
                                                     : SM_COMPARE_SAMPLES;
  t->transpose = t->biom == SM_COMPARE_SAMPLES;
  const size_t n = t->cells.n;
  double x;
  if (t->header.n == n && n >= 3 &&
      (metadata_name(t->header.p[n - 1]) || !parse_number(t->cells.p[n - 1], &x))) {
    t->meta = t->header.p[n - 1]; /* taken from the header */
    t->header.n--;
  }
}

/* First data row: row names or not, the column count and the columns kept. */
static sm_err_t first_data_row(tsv_t *t, size_t lineno)
{
  double x;
  const sm_read_opts_t *o = t->o;
  biom_layout(t);
  const size_t meta = t->meta != NULL; /* the cells end with it */
  t->r0 = t->transpose ? o->f0 : o->v0;
  t->rc = t->transpose ? o->fcount : o->vcount;
  const char *c0 = t->cells.p[0];
  int names = !parse_number(c0, &x);
  t->data_line = lineno;
  snprintf(t->first_cell, sizeof t->first_cell, "%s", c0);
  if (o->row_names == SM_TEXT_AUTO && !names && t->cells.n > 1 &&
      (t->why_id = first_cell_name(t))) {
    names = 1; /* `1E03 4 5`, `007 4 5`, `"12",4,5`: a name, not a value */
    t->ids_guess = 3;
  }
  t->rownames = o->row_names == SM_TEXT_YES ? 1 : o->row_names == SM_TEXT_NO ? 0 : names;
  t->ncells = t->cells.n - meta;
  if (o->row_names == SM_TEXT_AUTO && !t->rownames && t->cells.n > 1 &&
      t->header.n == t->ncells && is_id_label(t->header.p[0])) {
    t->rownames = 1; /* `id f1 f2` over `101 ...`: ids, not data */
    t->ids_guess = 1;
  } else if (o->row_names == SM_TEXT_AUTO && !t->rownames && t->cells.n > 1 &&
             t->header.n + 1 == t->ncells) {
    t->rownames = 1; /* R's write.table: no header cell over numeric row names */
    t->ids_guess = 2;
  }
  t->ids_rising = o->row_names == SM_TEXT_AUTO && !t->rownames;
  t->ids_last = -INFINITY;
  size_t ncols = t->ncells - (size_t)t->rownames;
  if (ncols == 0) {
    sm_log_error("%s:%zu: no numeric columns (only a row name); no %ss", t->path, lineno,
                 t->transpose ? "vector" : "field");
    return SM_EDEGEN;
  }
  if (t->header.n && t->header.n != t->ncells && !(t->rownames && t->header.n == ncols)) {
    sm_log_error("%s:%zu: the header has %zu names but the data rows (line %zu) "
                 "have %zu columns; fix the header",
                 t->path, t->header_line, t->header.n, lineno, t->ncells);
    return SM_EFORMAT;
  }
  t->c0 = t->transpose ? o->v0 : o->f0;
  return sm_read_slice_axis(t->path, t->transpose ? "vector" : "field", ncols, t->c0,
                            t->transpose ? o->vcount : o->fcount, &t->ckeep);
}

/* Auto mode read the first column as data: a later cell of it that is not
 * a number, or is one written as a name, is refused with the option that
 * settles it. (NaN and Inf there are values, refused as such.) */
static sm_err_t first_column_data(const tsv_t *t, const char *s, size_t lineno)
{
  double x;
  const int number = parse_number(s, &x);
  const char *why = number && isfinite(x) ? first_cell_name(t) : NULL;
  if (number && !why)
    return SM_OK;
  char what[160];
  if (number)
    snprintf(what, sizeof what, "reads as a number but is written as a name (%s)", why);
  else
    snprintf(what, sizeof what, "is not a number");
  sm_log_error("%s:%zu:1: '%.60s' %s, and the first column was read as data (line %zu "
               "starts with the number '%.40s'): say --row-names yes if the first column "
               "names the rows%s",
               t->path, lineno, s, what, t->data_line, t->first_cell,
               number ? ", --row-names no if it is data" : "");
  return SM_EFORMAT;
}

/* One data row: every cell must be a number in the metric's domain; the
 * kept ones are stored. */
static sm_err_t data_row(tsv_t *t, size_t lineno)
{
  const sm_read_opts_t *o = t->o;
  const size_t meta = t->meta != NULL; /* the last cell is metadata: dropped */
  if (t->cells.n != t->ncells + meta) {
    const int first = !t->header.n && t->nrows == 1 && t->cells.n > t->ncells;
    sm_log_error("%s:%zu: expected %zu columns, found %zu; every row needs the "
                 "same number of cells%s",
                 t->path, lineno, t->ncells + meta, t->cells.n,
                 first ? " (the first line was read as data: if it names the columns, "
                         "say --header yes)"
                       : "");
    return SM_EFORMAT;
  }
  t->cells.n -= meta;
  sm_err_t err;
  if (o->row_names == SM_TEXT_AUTO && !t->rownames && t->nrows > 0 && t->ncells > 1 &&
      (err = first_column_data(t, t->cells.p[0], lineno)))
    return err;
  size_t r = t->nrows++;
  int keep = r >= t->r0 && (t->rc == 0 || r < t->r0 + t->rc);
  if (keep && t->nvals + t->ckeep > t->valcap) {
    size_t cap = t->valcap ? 2 * t->valcap : 4096;
    while (cap < t->nvals + t->ckeep)
      cap *= 2;
    double *v = realloc(t->vals, cap * sizeof *v);
    if (!v)
      goto nomem;
    t->vals = v;
    t->valcap = cap;
  }
  for (size_t c = 0; c + t->rownames < t->ncells; c++) {
    const char *s = t->cells.p[c + t->rownames];
    double x;
    if (!parse_number(s, &x)) {
      sm_log_error("%s:%zu:%zu: '%.60s' is not a number; fix the cell", t->path, lineno,
                   c + t->rownames + 1, s);
      return SM_EFORMAT;
    }
    const char *why = sm_read_czek_why(x, o->elem_size);
    if (why) {
      /* Name the vector as the output would: its name, else its number. */
      size_t vi = t->transpose ? c : r, fi = t->transpose ? r : c;
      const char *name = t->transpose  ? column_name(t, c)
                         : t->rownames ? t->cells.p[0]
                                       : NULL;
      char num[32];
      snprintf(num, sizeof num, "%zu", vi + 1);
      sm_log_error("%s:%zu:%zu: vector %s, field %zu: value %s %s", t->path, lineno,
                   c + t->rownames + 1, name ? name : num, fi + 1, s, why);
      return SM_EVALUE;
    }
    if (keep && c >= t->c0 && c < t->c0 + t->ckeep)
      t->vals[t->nvals++] = x;
    if (c == 0 && t->ids_rising) { /* 1, 2, 3, ...: row ids taken as data? */
      t->ids_rising = x == floor(x) && x > t->ids_last;
      t->ids_last = x;
    }
  }
  if (keep && t->rownames) {
    char *name = strdup(t->cells.p[0]);
    if (!name || push_ptr(&t->rnames, name)) {
      free(name);
      goto nomem;
    }
  }
  return SM_OK;
nomem:
  sm_log_error("%s:%zu: out of memory", t->path, lineno);
  return SM_ENOMEM;
}

/* Copies of the cells of t->cells, appended to v: SM_OK or SM_ENOMEM. */
static sm_err_t copy_cells(const tsv_t *t, ptrvec_t *v)
{
  for (size_t i = 0; i < t->cells.n; i++) {
    char *cell = strdup(t->cells.p[i]);
    if (!cell || push_ptr(v, cell)) {
      free(cell);
      return SM_ENOMEM;
    }
  }
  return SM_OK;
}

/* Keep the cells of t->cells as the header (copies), read at line. */
static sm_err_t keep_header(tsv_t *t, size_t line)
{
  t->header_line = line;
  return copy_cells(t, &t->header);
}

/* A QIIME table's header is its last '#' line ("#OTU ID<TAB>S1<TAB>S2"):
 * taken when, split like the first line (s), it has as many cells, more
 * than one, and its first cell is an id label ("#OTU ID", "#SampleID":
 * the column names may then be numbers, Qiita's sample ids) or the cells
 * after it are all text. Then s is data (*taken 1). */
static sm_err_t qiime_header(tsv_t *t, const char *s, int *taken)
{
  *taken = 0;
  char *line = strdup(s), *hdr = strdup(t->comment + 1);
  if (!line || !hdr || split_line(t, line)) {
    free(line), free(hdr);
    return SM_ENOMEM;
  }
  const size_t n = t->cells.n;
  if (split_line(t, hdr)) {
    free(line), free(hdr);
    return SM_ENOMEM;
  }
  /* "#OTU<TAB>ID": BIOM's id label split by a tab, one cell too many */
  if (t->cells.n == n + 1 && n > 1 && t->sep == '\t' && !strcmp(t->cells.p[0], "OTU") &&
      !strcmp(t->cells.p[1], "ID") && t->cells.p[1] == t->cells.p[0] + 4) {
    t->cells.p[0][3] = ' '; /* the tab, made a NUL by split_line */
    memmove(t->cells.p + 1, t->cells.p + 2, (n - 1) * sizeof *t->cells.p);
    t->cells.n--;
  }
  double x;
  int names = t->cells.n == n && n > 1;
  const int label = names && is_id_label(t->cells.p[0]);
  for (size_t i = 1; names && !label && i < n; i++)
    names = !parse_number(t->cells.p[i], &x);
  sm_err_t err = names ? keep_header(t, t->comment_line) : SM_OK;
  *taken = names && !err;
  free(line), free(hdr);
  return err;
}

/* Swap the pending first line with the current line's cells (and their
 * quoting). */
static void swap_pending(tsv_t *t)
{
  const ptrvec_t cells = t->cells;
  const int q = t->first_quoted, b = t->other_bare;
  t->cells = t->pending;
  t->first_quoted = t->pend_quoted;
  t->other_bare = t->pend_bare;
  t->pending = cells;
  t->pend_quoted = q;
  t->pend_bare = b;
}

/* The pending first line is data after all: read it as the first data row. */
static sm_err_t flush_pending(tsv_t *t)
{
  swap_pending(t);
  sm_err_t err = first_data_row(t, t->pending_line);
  if (!err)
    err = data_row(t, t->pending_line);
  swap_pending(t);
  free_strings(&t->pending);
  return err;
}

/* Hold the first line (t->cells, numbers only) until the second one. */
static sm_err_t hold_first_line(tsv_t *t, size_t lineno)
{
  t->pending_line = lineno;
  t->pend_quoted = t->first_quoted;
  t->pend_bare = t->other_bare;
  return copy_cells(t, &t->pending);
}

/* One non-blank, non-comment line (already split when sep was known). */
static sm_err_t parse_line(tsv_t *t, char *s, size_t lineno)
{
  sm_err_t err = SM_OK;
  double x;
  if (!t->started) {
    /* The first line fixes the separator for the whole file, and whether
     * there is a header. */
    const char *dot = strrchr(t->path, '.');
    t->sep = dot && strcasecmp(dot, ".csv") == 0 ? ','
             : strchr(s, '\t')                   ? '\t'
             : strchr(s, ',')                    ? ','
                                                 : ' ';
    t->started = 1;
    int qiime = 0, header = t->o->header == SM_TEXT_YES;
    if (t->comment && t->o->header != SM_TEXT_NO && (err = qiime_header(t, s, &qiime)))
      goto nomem;
    if (split_line(t, s))
      goto nomem;
    if (!qiime && t->o->header == SM_TEXT_AUTO && (err = auto_header(t, lineno, &header)))
      return err;
    if (!qiime && header)
      return keep_header(t, lineno) ? SM_ENOMEM : SM_OK;
    /* a line of numbers only may be R's write.table header of numeric
     * column names, one cell short: the next line tells */
    if (!qiime && t->o->header == SM_TEXT_AUTO && t->o->row_names != SM_TEXT_NO &&
        t->cells.n > 1 && parse_number(t->cells.p[0], &x))
      return hold_first_line(t, lineno) ? SM_ENOMEM : SM_OK;
  } else if (split_line(t, s)) {
    goto nomem;
  }
  if (t->pending.n && t->cells.n == t->pending.n + 1) {
    t->header = t->pending; /* R's header: its names, one per data column */
    t->header_line = t->pending_line;
    memset(&t->pending, 0, sizeof t->pending);
    t->r_header = 1;
  } else if (t->pending.n && (err = flush_pending(t))) {
    return err;
  }
  if (!t->ncells && (err = first_data_row(t, lineno)))
    return err;
  return data_row(t, lineno);
nomem:
  sm_log_error("%s:%zu: out of memory", t->path, lineno);
  return SM_ENOMEM;
}

/* Build *out from the kept values: rows are vectors, or fields with
 * transpose. Names come from the row names, or the header with transpose. */
static sm_err_t build(tsv_t *t, sm_vectors_t *out)
{
  const sm_read_opts_t *o = t->o;
  size_t rkeep = t->nvals / t->ckeep;
  size_t nv = t->transpose ? t->ckeep : rkeep, nf = t->transpose ? rkeep : t->ckeep;
  sm_err_t err = sm_vectors_alloc(out, SM_METRIC_CZEK, o->elem_size, nv, nf);
  if (err)
    return err;
  for (size_t r = 0; r < rkeep; r++) {
    for (size_t c = 0; c < t->ckeep; c++) {
      double x = t->vals[r * t->ckeep + c];
      size_t v = t->transpose ? c : r, f = t->transpose ? r : c;
      sm_read_store_czek(sm_vectors_row(out, v), o->elem_size, f, x);
    }
  }
  if (!t->transpose && t->rownames) {
    out->names = t->rnames.p; /* exactly the kept rows' names */
    t->rnames.p = NULL;
    t->rnames.n = 0;
  } else if (t->transpose && t->header.n) {
    if (!(out->names = calloc(nv, sizeof *out->names)))
      goto nomem;
    for (size_t v = 0; v < nv; v++)
      if (!(out->names[v] = strdup(column_name(t, t->c0 + v))))
        goto nomem;
  }
  return SM_OK;
nomem:
  sm_log_error("%s: out of memory for the vector names", t->path);
  return SM_ENOMEM;
}

/* Say what auto mode decided where a user may have meant otherwise. */
static void explain_layout(const tsv_t *t)
{
  if (t->meta)
    sm_log_info("%s: the last column, '%s', holds observation metadata (as `biom convert "
                "--header-key` writes it), not counts: skipped",
                t->path, t->meta);
  if (t->r_header)
    sm_log_warn(
        "%s:%zu: the first line, of numbers, has one cell fewer than the rows: it "
        "is taken as the header (numeric column names, as R's write.table writes "
        "them); say --header no if it is data",
        t->path, t->header_line);
  if (t->ids_guess == 1 && !t->header.p[0][0])
    sm_log_warn("%s: the first column (under an empty header cell, as R's write.csv and "
                "pandas write row names) is taken as row names, not data; say "
                "--row-names no to use it as data",
                t->path);
  else if (t->ids_guess == 1)
    sm_log_warn("%s: the first column (headed '%s') is taken as row names, not data; "
                "say --row-names no to use it as data",
                t->path, t->header.p[0]);
  else if (t->ids_guess == 2)
    sm_log_warn("%s: the header has one name fewer than the rows have cells: the first "
                "column is taken as row names (as R's write.table writes them)",
                t->path);
  else if (t->ids_guess == 3)
    sm_log_warn(
        "%s:%zu:1: '%s' reads as a number but is written as a name (%s): the first "
        "column is taken as row names; say --row-names no if it is data",
        t->path, t->data_line, t->first_cell, t->why_id);
  else if (t->ids_rising && t->nrows >= 3)
    sm_log_warn("%s: the first column holds rising integers (ending %.0f after %zu rows) "
                "like row ids, and is used as data; say --row-names yes if they are ids",
                t->path, t->ids_last, t->nrows);
}

/* A first line of UTF-16: its byte-order mark (FF FE or FE FF), or, among
 * its first 64 bytes, NULs at even offsets only or at odd offsets only, at
 * half of them at least (ASCII in UTF-16 has one every other byte; a run
 * of NULs, /dev/zero, is no text at all). */
static int looks_utf16(const char *buf, size_t len)
{
  const unsigned char *u = (const unsigned char *)buf;
  if (len >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff)))
    return 1;
  size_t nul[2] = {0, 0}, n = len < 64 ? len : 64;
  for (size_t i = 0; i < n; i++)
    nul[i % 2] += u[i] == 0;
  return n >= 2 && ((nul[0] == 0 && 2 * nul[1] >= n / 2) ||
                    (nul[1] == 0 && 2 * nul[0] >= (n + 1) / 2));
}

sm_err_t sm_read_tsv(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  int had_header = 0;
  tsv_t t;
  char *buf = NULL;
  size_t cap = 0, lineno = 0;
  FILE *f = NULL;
  memset(&t, 0, sizeof t);
  sm_read_begin(out, dims);
  t.path = path;
  t.o = o;
  t.transpose = o->transpose;
  t.r0 = o->transpose ? o->f0 : o->v0;
  t.rc = o->transpose ? o->fcount : o->vcount;

  if (o->metric != SM_METRIC_CZEK) {
    sm_log_error("%s: text input is for czekanowski; CCC needs PLINK, raw, npy "
                 "or VCF input",
                 path);
    err = SM_EOPTION;
    goto fail;
  }
  if (o->elem_size != 4 && o->elem_size != 8) {
    sm_log_error("%s: working precision of %zu bytes; 4 or 8 are supported", path,
                 o->elem_size);
    err = SM_EOPTION;
    goto fail;
  }
  /* a stream is read once, into memory; its copy stops at a NUL byte
   * (refused below: /dev/zero is refused at once) */
  const sm_stream_rule_t rule = {.text = 1};
  char src[4200];
  if ((err = sm_stream_source(path, &rule, src, sizeof src)))
    goto fail;
  if (!(f = fopen(src, "r"))) {
    sm_log_error("%s: cannot open: %s; check the path", path, strerror(errno));
    err = SM_EIO;
    goto fail;
  }
  ssize_t len;
  while ((len = getline(&buf, &cap, f)) >= 0) {
    lineno++;
    if (lineno == 1 && len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
      memmove(buf, buf + 3, (size_t)len - 2); /* a UTF-8 byte-order mark */
      len -= 3;
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
      buf[--len] = '\0';
    /* first: UTF-16BE text starts with a NUL, which looks blank */
    if (lineno == 1 && looks_utf16(buf, (size_t)len)) {
      /* without a byte-order mark iconv's UTF-16 guesses the byte order
       * (big-endian in POSIX): name it, from where the ASCII NULs are */
      const unsigned char *u = (const unsigned char *)buf;
      const int bom =
          len >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff));
      sm_log_error("%s: this looks like UTF-16 text (a byte-order mark or NUL bytes), "
                   "which starmet does not read: convert it to UTF-8 (iconv -f UTF-16%s "
                   "-t UTF-8 %s > copy.tsv)",
                   path,
                   bom    ? ""
                   : u[0] ? "LE"
                          : "BE",
                   path);
      err = SM_EFORMAT;
      goto fail;
    }
    /* a NUL byte later on: a damaged file, or not text (the cell would end
     * at it, silently: "4<NUL>5" read as 4) */
    const char *nul = memchr(buf, 0, (size_t)len);
    if (nul) {
      sm_log_error("%s:%zu:%zu: a NUL byte: this is not a text table, or it is damaged; "
                   "check the file (od -c shows the bytes)",
                   path, lineno, (size_t)(nul - buf) + 1);
      err = SM_EFORMAT;
      goto fail;
    }
    /* Blank lines are skipped anywhere (e.g. at the end); '#' lines are
     * comments before the header or the first data row only: after it, a
     * line starting with '#' may be a row named so, and is refused. */
    if (buf[strspn(buf, " \t")] == '\0')
      continue;
    if (buf[0] == '#' && !t.started) {
      t.biom_mark |= !strncmp(buf, "# Constructed from biom file", 28);
      free(t.comment);
      if (!(t.comment = strdup(buf))) {
        err = SM_ENOMEM;
        sm_log_error("%s:%zu: out of memory", path, lineno);
        goto fail;
      }
      t.comment_line = lineno;
      continue;
    }
    if (buf[0] == '#') {
      sm_log_error("%s:%zu: a line starting with '#' after the data began: comments "
                   "belong before the header (a row named '%.*s'? rename it)",
                   path, lineno, (int)strcspn(buf, "\t, "), buf);
      err = SM_EFORMAT;
      goto fail;
    }
    if ((err = parse_line(&t, buf, lineno)))
      goto fail;
  }
  if (ferror(f)) {
    sm_log_error("%s: read error after line %zu: %s", path, lineno, strerror(errno));
    err = SM_EIO;
    goto fail;
  }
  if (t.pending.n && (err = flush_pending(&t)))
    goto fail; /* a first line of numbers, and no other line */
  if (t.nrows == 0) {
    sm_log_error("%s: no data rows (%s); no vectors", path,
                 t.header.n ? "only a header" : "empty file");
    err = SM_EDEGEN;
    goto fail;
  }
  size_t rkeep;
  if ((err = sm_read_slice_axis(path, t.transpose ? "field" : "vector", t.nrows, t.r0,
                                t.rc, &rkeep)) ||
      (err = build(&t, out)))
    goto fail;
  if (dims) /* once per run: the probe asks for the sizes */
    explain_layout(&t);

fail:
  had_header = t.header.n != 0;
  if (f)
    fclose(f);
  free(buf);
  free(t.cells.p);
  free_strings(&t.header);
  free_strings(&t.rnames);
  free_strings(&t.pending);
  free(t.vals);
  free(t.comment);
  free(t.meta);
  size_t ncols = t.ncells - (size_t)t.rownames;
  err = sm_read_end(err, out, dims, t.transpose ? ncols : t.nrows,
                    t.transpose ? t.nrows : ncols);
  if (!err && dims) {
    dims->header = had_header ? SM_TEXT_YES : SM_TEXT_NO;
    dims->row_names = t.rownames ? SM_TEXT_YES : SM_TEXT_NO;
    dims->compare = t.biom;
  }
  return err;
}
