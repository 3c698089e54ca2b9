/* sm_optable.c: the machinery behind every command's option table:
 * getopt_long's array built from the table, values parsed and checked by
 * kind (strict numbers, choices), and the --help text printed from it. */
#include "sm_optable.h"

#include <ctype.h>
#include <stdint.h>

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SM_OPT_INT_MAX 1000000000 /* default upper bound of SM_OPT_INT */
#define SM_OPT_HELP_COL 29        /* where descriptions start in --help */
#define SM_OPT_VAL0 256           /* getopt's value of row 0 (above any short option) */

sm_err_t sm_opt_size(const char *opt, const char *s, size_t *out)
{
  char *end;
  errno = 0;
  /* digits only: strtoull would take leading blanks and a sign (and wrap
   * "-1" to 2^64 - 1) */
  unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
  if (!isdigit((unsigned char)s[0]) || errno || *end || v > SIZE_MAX) {
    sm_log_error("%s: '%s' is not a non-negative integer", opt, s);
    return SM_EOPTION;
  }
  *out = (size_t)v;
  return SM_OK;
}

sm_err_t sm_opt_int(const char *opt, const char *s, long long min, long long max,
                    int *out)
{
  size_t v;
  if (sm_opt_size(opt, s, &v))
    return SM_EOPTION;
  if (v > (unsigned long long)max || (long long)v < min) {
    sm_log_error("%s: %s is out of range (%lld..%lld)", opt, s, min, max);
    return SM_EOPTION;
  }
  *out = (int)v;
  return SM_OK;
}

sm_err_t sm_opt_double(const char *opt, const char *s, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  /* ERANGE is overflow (v = +-HUGE_VAL) or underflow: a subnormal result
   * is a number (kept as strtod rounded it); one rounded to 0 is not the
   * value given */
  const int range = errno == ERANGE;
  if (end == s || *end || isspace((unsigned char)s[0]) || isnan(v) ||
      (isinf(v) && !range)) {
    sm_log_error("%s: '%s' is not a finite number", opt, s);
    return SM_EOPTION;
  }
  if (isinf(v)) {
    sm_log_error("%s: '%s' is not a finite number: it is out of double's range "
                 "(magnitudes up to %.2g)",
                 opt, s, DBL_MAX);
    return SM_EOPTION;
  }
  if (range && v == 0) {
    sm_log_error("%s: '%s' is too close to 0 for a double: it is not 0, but nearer "
                 "to it than the smallest positive double, %.2g; give 0 or a magnitude "
                 "of at least %.2g",
                 opt, s, DBL_TRUE_MIN, DBL_TRUE_MIN);
    return SM_EOPTION;
  }
  *out = v;
  return SM_OK;
}

/* The names joined by sep, cut to len. */
static void join(const char *const *names, const char *sep, char *buf, size_t len)
{
  buf[0] = 0;
  for (int k = 0; names[k]; k++) {
    strncat(buf, names[k], len - strlen(buf) - 1);
    if (names[k + 1])
      strncat(buf, sep, len - strlen(buf) - 1);
  }
}

sm_err_t sm_opt_choice(const char *opt, const char *s, const char *const *names, int *out)
{
  for (int k = 0; names[k]; k++)
    if (!strcmp(s, names[k])) {
      *out = k;
      return SM_OK;
    }
  char list[256];
  join(names, ", ", list, sizeof list);
  sm_log_error("%s: unknown value '%s' (use one of: %s)", opt, s, list);
  return SM_EOPTION;
}

static sm_err_t set_size(const sm_opt_t *d, const char *opt, const char *arg, size_t *out)
{
  size_t v;
  if (sm_opt_size(opt, arg, &v))
    return SM_EOPTION;
  if (v < (unsigned long long)d->min || (d->max && v > (unsigned long long)d->max)) {
    if (d->max)
      sm_log_error("%s: %s is out of range (%lld..%lld)", opt, arg, d->min, d->max);
    else
      sm_log_error("%s: %s is out of range (at least %lld)", opt, arg, d->min);
    return SM_EOPTION;
  }
  *out = v;
  return SM_OK;
}

static sm_err_t set_double(const sm_opt_t *d, const char *opt, const char *arg,
                           double *out)
{
  if (sm_opt_double(opt, arg, out))
    return SM_EOPTION;
  if (d->range && !(*out >= d->dmin && *out < d->dmax)) {
    sm_log_error("%s: %g is out of range (%s)", opt, *out, d->range);
    return SM_EOPTION;
  }
  return SM_OK;
}

/* Store one option's value by its kind. */
static sm_err_t apply(const sm_opt_t *d, char *arg, void *dst)
{
  char opt[96];
  void *p = (char *)dst + d->off;
  int k;
  snprintf(opt, sizeof opt, "--%s", d->name);
  if (d->set)
    return d->set(d, arg, dst);
  switch (d->kind) {
  case SM_OPT_FLAG:
    *(int *)p = d->ival;
    return SM_OK;
  case SM_OPT_STRING:
    *(const char **)p = arg;
    return SM_OK;
  case SM_OPT_INT:
    return sm_opt_int(opt, arg, d->min, d->max ? d->max : SM_OPT_INT_MAX, (int *)p);
  case SM_OPT_SIZE:
    return set_size(d, opt, arg, (size_t *)p);
  case SM_OPT_DOUBLE:
    return set_double(d, opt, arg, (double *)p);
  case SM_OPT_CHOICE:
    if (sm_opt_choice(opt, arg, d->choices, &k))
      return SM_EOPTION;
    *(int *)p = d->values ? d->values[k] : k;
    return SM_OK;
  case SM_OPT_HELP: /* sm_opt_parse's */
  case SM_OPT_TEXT:
    break;
  }
  return SM_EOPTION;
}

/* The index of s in a NULL-terminated list, or -1. */
static int choice_index(const char *const *choices, const char *s)
{
  for (int k = 0; choices[k]; k++)
    if (!strcmp(choices[k], s))
      return k;
  return -1;
}

/* getopt_long's array: every name once (a name may have one row per
 * command), val SM_OPT_VAL0 + the index of its first row. */
static struct option *long_options(const sm_optcmd_t *cmd)
{
  struct option *lo = calloc(cmd->nopts + 1, sizeof *lo);
  size_t n = 0;
  for (size_t i = 0; lo && i < cmd->nopts; i++) {
    const sm_opt_t *d = &cmd->opts[i];
    size_t j = 0;
    while (d->name && j < i &&
           !(cmd->opts[j].name && !strcmp(cmd->opts[j].name, d->name)))
      j++;
    if (d->name && j == i)
      lo[n++] = (struct option){
          d->name,
          d->kind == SM_OPT_FLAG || d->kind == SM_OPT_HELP || d->dflt ? no_argument
                                                                      : required_argument,
          NULL, SM_OPT_VAL0 + (int)i};
  }
  return lo;
}

/* The row of this command for the name of row i, or NULL. */
static const sm_opt_t *row_for(const sm_optcmd_t *cmd, size_t i)
{
  for (size_t j = i; j < cmd->nopts; j++) {
    const sm_opt_t *d = &cmd->opts[j];
    if (d->name && !strcmp(d->name, cmd->opts[i].name) &&
        (!d->cmds || (d->cmds & cmd->cmd)))
      return d;
  }
  return NULL;
}

/* The first help row, found for -h. */
static size_t help_row(const sm_optcmd_t *cmd)
{
  size_t i = 0;
  while (i < cmd->nopts && cmd->opts[i].kind != SM_OPT_HELP)
    i++;
  return i;
}

sm_err_t sm_opt_parse(const sm_optcmd_t *cmd, int argc, char **argv, void *dst, int *done)
{
  struct option *lo = long_options(cmd);
  if (!lo) {
    sm_log_error("%sout of memory for the option table", cmd->who);
    return SM_ENOMEM;
  }
  sm_err_t err = SM_OK;
  int c, help = 0;
  *done = 0;
  /* 0, not 1: glibc then resets getopt whole, also when a previous parse
   * stopped inside an argument (its pointer would be left into it) */
  optind = 0;
  opterr = 0;
  /* every option, --help too: a bad option is refused wherever --help is */
  while (!err && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    const size_t i = c == 'h'           ? help_row(cmd)
                     : c >= SM_OPT_VAL0 ? (size_t)(c - SM_OPT_VAL0)
                                        : cmd->nopts;
    const sm_opt_t *d = i < cmd->nopts ? row_for(cmd, i) : NULL;
    if (d && d->kind == SM_OPT_HELP) {
      help = 1;
    } else if (d && d->dflt) { /* its value, if the next word is a number */
      char *end = NULL, *a = (char *)d->dflt;
      if (optind < argc && argv[optind][0] &&
          (strtod(argv[optind], &end), end && !*end && end != argv[optind]))
        a = argv[optind++];
      err = apply(d, a, dst);
    } else if (d) {
      err = apply(d, optarg, dst);
      /* a flag with choices takes one of them as an optional next word
       * (--verify full); with a setter, each of the words that follow (its
       * setter reads them: PLINK's --r2 inter-chr yes-really; an option
       * with an argument, a setter and choices likewise: --hwe P midp) */
      int k;
      while (!err && (d->kind == SM_OPT_FLAG || d->set) && d->choices && optind < argc &&
             (k = choice_index(d->choices, argv[optind])) >= 0) {
        if (d->set)
          err = d->set(d, argv[optind], dst);
        else
          *(int *)((char *)dst + d->off) = d->values ? d->values[k] : k;
        optind++;
        if (!d->set)
          break;
      }
    } else {
      sm_log_error("%sunknown or incomplete option '%s%s' (see %s)", cmd->who,
                   i < cmd->nopts ? "--" : "",
                   i < cmd->nopts ? cmd->opts[i].name : argv[optind - 1], cmd->see);
      err = SM_EOPTION;
    }
  }
  free(lo);
  if (!err && optind < argc && !cmd->ignore_operands) {
    sm_log_error("%sunexpected argument '%s' (see %s)", cmd->who, argv[optind], cmd->see);
    err = SM_EOPTION;
  }
  if (!err && help) {
    sm_opt_help(cmd->opts, cmd->nopts, stdout);
    *done = 1;
  }
  return err;
}

/* Whether row i is the first row named like it. */
static int first_of_name(const sm_optcmd_t *cmd, size_t i)
{
  for (size_t j = 0; j < i; j++)
    if (cmd->opts[j].name && !strcmp(cmd->opts[j].name, cmd->opts[i].name))
      return 0;
  return 1;
}

/* Whether flag d (the row of name i) stores where an earlier flag of cmd
 * does (--no-sparse after --sparse): one line says both. */
static int same_flag_before(const sm_optcmd_t *cmd, size_t i, const sm_opt_t *d)
{
  for (size_t j = 0; d->kind == SM_OPT_FLAG && !d->set && j < i; j++) {
    const sm_opt_t *e = cmd->opts[j].name ? row_for(cmd, j) : NULL;
    if (e && e->kind == SM_OPT_FLAG && !e->set && e->off == d->off)
      return 1;
  }
  return 0;
}

/* A flag's value as the option that sets it (rows of cmd storing v at the
 * same place: "--no-sparse"), or "-" for a value none sets (the default). */
static void flag_value(const sm_optcmd_t *cmd, const sm_opt_t *d, int v, FILE *f)
{
  for (size_t j = 0; j < cmd->nopts; j++) {
    const sm_opt_t *e = &cmd->opts[j];
    if (e->name && e->kind == SM_OPT_FLAG && !e->set && e->off == d->off &&
        e->ival == v && (!e->cmds || (e->cmds & cmd->cmd))) {
      fprintf(f, "--%s", e->name);
      return;
    }
  }
  fputc('-', f);
}

/* A choice's value as its name, or "-" for a value none gives (the
 * default). */
static void choice_value(const sm_opt_t *d, int v, FILE *f)
{
  for (int k = 0; d->choices && d->choices[k]; k++)
    if ((d->values ? d->values[k] : k) == v) {
      fputs(d->choices[k], f);
      return;
    }
  fputc('-', f);
}

void sm_opt_print_double(double v, FILE *f)
{
  char b[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*g", p, v);
    if (strtod(b, NULL) == v)
      break;
  }
  fputs(b, f);
}

char *sm_opt_canonical(const sm_optcmd_t *cmd, int argc, char **argv, const void *dst)
{
  /* a custom row's last argument, by the index of its name's first row */
  const char **given = calloc(cmd->nopts + 1, sizeof *given);
  struct option *lo = long_options(cmd);
  char *text = NULL;
  size_t len = 0;
  FILE *f = given && lo ? open_memstream(&text, &len) : NULL;
  if (!f) {
    free(given), free(lo);
    return NULL;
  }
  int c;
  /* 0, not 1: glibc then resets getopt whole, also when a previous parse
   * stopped inside an argument (its pointer would be left into it) */
  optind = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1)
    if (c >= SM_OPT_VAL0 && (size_t)(c - SM_OPT_VAL0) < cmd->nopts)
      given[c - SM_OPT_VAL0] = optarg;
  for (size_t i = 0; i < cmd->nopts; i++) {
    const sm_opt_t *d =
        cmd->opts[i].name && first_of_name(cmd, i) ? row_for(cmd, i) : NULL;
    if (!d || d->per_rank || d->kind == SM_OPT_HELP || same_flag_before(cmd, i, d))
      continue;
    const void *p = (const char *)dst + d->off;
    fprintf(f, "--%s ", d->name);
    if (d->set && d->show) {
      d->show(dst, f);
    } else if (d->set) {
      fputs(given[i] ? given[i] : "-", f);
    } else {
      switch (d->kind) {
      case SM_OPT_FLAG:
        flag_value(cmd, d, *(const int *)p, f);
        break;
      case SM_OPT_CHOICE:
        choice_value(d, *(const int *)p, f);
        break;
      case SM_OPT_INT:
        fprintf(f, "%d", *(const int *)p);
        break;
      case SM_OPT_SIZE:
        fprintf(f, "%zu", *(const size_t *)p);
        break;
      case SM_OPT_DOUBLE:
        sm_opt_print_double(*(const double *)p, f);
        break;
      case SM_OPT_STRING:
        fputs(*(const char *const *)p ? *(const char *const *)p : "-", f);
        break;
      default:
        break;
      }
    }
    fputc('\n', f);
  }
  free(given), free(lo);
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

void sm_opt_per_rank_names(const sm_optcmd_t *cmd, char *buf, size_t len)
{
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < cmd->nopts && k < len; i++) {
    const sm_opt_t *d =
        cmd->opts[i].name && first_of_name(cmd, i) ? row_for(cmd, i) : NULL;
    if (d && d->per_rank)
      k += (size_t)snprintf(buf + k, len - k, "%s--%s", k ? ", " : "", d->name);
  }
}

/* One option's help: "  --name ARG", then its description from column
 * SM_OPT_HELP_COL (3 spaces after a longer left side). */
static void help_option(const sm_opt_t *d, FILE *f)
{
  char arg[256] = "";
  if (d->arg)
    snprintf(arg, sizeof arg, " %s", d->arg);
  else if (d->choices) {
    arg[0] = ' ';
    join(d->choices, "|", arg + 1, sizeof arg - 1);
  }
  int n = fprintf(f, "  --%s%s", d->name, arg);
  if (!d->help[0]) {
    fputc('\n', f);
    return;
  }
  fprintf(f, "%*s", n < SM_OPT_HELP_COL ? SM_OPT_HELP_COL - n : 3, "");
  for (const char *s = d->help;;) {
    const char *nl = strchr(s, '\n');
    if (!nl) {
      fprintf(f, "%s\n", s);
      return;
    }
    fprintf(f, "%.*s\n%*s", (int)(nl - s), s, SM_OPT_HELP_COL, "");
    s = nl + 1;
  }
}

void sm_opt_help(const sm_opt_t *opts, size_t nopts, FILE *f)
{
  for (size_t i = 0; i < nopts; i++) {
    if (!opts[i].help)
      continue;
    if (opts[i].name)
      help_option(&opts[i], f);
    else
      fputs(opts[i].help, f);
  }
}

/* ---- the manual page and the completion, from the same rows */

/* Whether s names option "--name" (not a longer one). */
static int names_option(const char *s, const char *name)
{
  const size_t n = strlen(name);
  for (const char *p = strstr(s, "--"); p; p = strstr(p + 2, "--")) {
    if (strncmp(p + 2, name, n)) /* (p[2 + n] is only read after a match) */
      continue;
    const char c = p[2 + n];
    if (!(isalnum((unsigned char)c) || c == '-'))
      return 1;
  }
  return 0;
}

int sm_opt_listed(const sm_opt_t *opts, size_t nopts, const char *name)
{
  for (size_t i = 0; i < nopts; i++) {
    const sm_opt_t *d = &opts[i];
    if (d->name && !strcmp(d->name, name) && (d->help || d->kind == SM_OPT_HELP))
      return 1;
    if ((d->arg && names_option(d->arg, name)) ||
        (d->help && names_option(d->help, name)))
      return 1;
  }
  return 0;
}

void sm_opt_argtext(const sm_opt_t *d, char *buf, size_t len)
{
  if (d->arg)
    snprintf(buf, len, "%s", d->arg);
  else if (d->choices)
    join(d->choices, "|", buf, len);
  else
    buf[0] = 0;
}

size_t sm_opt_rows(const sm_optcmd_t *cmd, const sm_opt_t **rows)
{
  size_t n = 0;
  for (size_t i = 0; i < cmd->nopts; i++) {
    const sm_opt_t *d = cmd->opts[i].name ? row_for(cmd, i) : NULL;
    size_t j = 0;
    while (d && j < n && strcmp(rows[j]->name, d->name))
      j++;
    if (d && j == n && sm_opt_listed(cmd->opts, cmd->nopts, d->name))
      rows[n++] = d;
  }
  return n;
}

void sm_opt_roff(const char *s, size_t n, FILE *f)
{
  for (size_t i = 0; i < n; i++) {
    const char c = s[i];
    if (i == 0 && (c == '.' || c == '\''))
      fputs("\\&", f);
    if (c == '-' && i + 2 < n && s[i + 1] == '-' && isalpha((unsigned char)s[i + 2]) &&
        (i == 0 || !isalnum((unsigned char)s[i - 1]))) {
      size_t e = i + 2;
      while (e < n && (isalnum((unsigned char)s[e]) || s[e] == '-'))
        e++;
      fputs("\\fB", f);
      for (; i < e; i++)
        fputs(s[i] == '-' ? "\\-" : (char[]){s[i], 0}, f);
      fputs("\\fR", f);
      i--;
    } else if (c == '\\')
      fputs("\\e", f);
    else if (c == '-')
      fputs("\\-", f);
    else
      fputc(c, f);
  }
}

/* An option's argument in roff: option names in bold, placeholders such
 * as FILE or N in italics, anything else (choices) unchanged. */
static void man_arg(const char *arg, FILE *f)
{
  for (const char *s = arg; *s;) {
    size_t n = 0;
    while (isupper((unsigned char)s[n]) || (n && s[n] == '_'))
      n++;
    const int word = n && !isalnum((unsigned char)s[n]) &&
                     (s == arg || !isalnum((unsigned char)s[-1]));
    if (word) {
      fputs("\\fI", f);
      sm_opt_roff(s, n, f);
      fputs("\\fR", f);
    } else {
      const char *e = s + 1;
      while (*e && !(isupper((unsigned char)*e) && !isalnum((unsigned char)e[-1])))
        e++;
      n = (size_t)(e - s);
      sm_opt_roff(s, n, f);
    }
    s += n;
  }
}

/* The names of the commands in mask, comma-separated. */
static void man_cmds(const char *const *names, unsigned mask, FILE *f)
{
  const char *sep = "";
  for (unsigned k = 0; names[k]; k++)
    if (!mask || (mask & (1u << k))) {
      fprintf(f, "%s%s", sep, names[k]);
      sep = ", ";
    }
}

/* One option's paragraph: its help line, description, the commands that
 * take it so (rows of its name with the same argument, or none) and the
 * other commands' rows with another argument. */
static void man_option(const sm_opt_t *opts, size_t nopts, size_t i,
                       const char *const *cmd_names, FILE *f)
{
  const sm_opt_t *d = &opts[i];
  char arg[256];
  if (d->kind == SM_OPT_HELP) {
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the options and exit\n", f);
    return;
  }
  sm_opt_argtext(d, arg, sizeof arg);
  fprintf(f, ".TP\n\\fB\\-\\-");
  sm_opt_roff(d->name, strlen(d->name), f);
  fputs("\\fR", f);
  if (arg[0]) {
    fputc(' ', f);
    man_arg(arg, f);
  }
  fputc('\n', f);
  for (const char *s = d->help; *s;) {
    const char *nl = strchr(s, '\n');
    const size_t n = nl ? (size_t)(nl - s) : strlen(s);
    sm_opt_roff(s, n, f);
    if (nl)
      fputc('\n', f);
    s += n + (nl != NULL);
  }
  const int several = cmd_names && cmd_names[0] && cmd_names[1];
  unsigned mask = 0;
  char other[256];
  for (size_t j = 0; j < nopts; j++) {
    const sm_opt_t *o = &opts[j];
    if (o->name && !strcmp(o->name, d->name)) {
      sm_opt_argtext(o, other, sizeof other);
      if (!other[0] || !strcmp(other, arg))
        mask |= o->cmds ? o->cmds : ~0u;
    }
  }
  if (several)
    fputs(d->help[0] ? " (" : "(", f), man_cmds(cmd_names, mask, f), fputc(')', f);
  fputc('\n', f);
  for (size_t j = 0; several && j < nopts; j++) {
    const sm_opt_t *o = &opts[j];
    if (j == i || !o->name || strcmp(o->name, d->name))
      continue;
    sm_opt_argtext(o, other, sizeof other);
    if (!other[0] || !strcmp(other, arg))
      continue;
    fputs(".br\n", f);
    man_cmds(cmd_names, o->cmds, f);
    fputs(": \\fB\\-\\-", f);
    sm_opt_roff(o->name, strlen(o->name), f);
    fputs("\\fR ", f);
    man_arg(other, f);
    fputc('\n', f);
  }
}

/* A text row: "usage:" lines and their indented continuation for the
 * synopsis (without "usage: "), or the rest: unindented lines ending in ':'
 * as headings (.SS; left out of the examples), indented lines as no-fill
 * blocks, other lines as filled paragraphs. */
static void man_text(const char *text, sm_opt_manpart_t part, FILE *f)
{
  enum { NONE, FILLED, NOFILL, USAGE } mode = NONE, next;
  static const char usage[] = "usage: ";
  const size_t nu = sizeof usage - 1;
  const int synopsis = part == SM_OPT_MAN_SYNOPSIS;
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    const size_t n = nl ? (size_t)(nl - s) : strlen(s);
    const int indented = n && s[0] == ' ';
    const int usage_line = n >= nu && !strncmp(s, usage, nu);
    size_t skip = 0; /* leading characters left out */
    next = usage_line || (mode == USAGE && indented) ? USAGE
           : !n || s[n - 1] == ':'                   ? NONE
           : indented                                ? NOFILL
                                                     : FILLED;
    if (mode == NOFILL && next != NOFILL && !synopsis)
      fputs(".fi\n", f);
    if (next == USAGE && synopsis) {
      /* aligned as in --help, without "usage: " */
      while (skip < nu && (usage_line ? s[skip] == usage[skip] : s[skip] == ' '))
        skip++;
    } else if (next == NOFILL && !synopsis) {
      if (mode != NOFILL)
        fputs(".PP\n.nf\n", f);
      skip = n >= 2 && s[1] == ' ' ? 2 : 1;
    } else if (next == FILLED && !synopsis) {
      if (mode != FILLED)
        fputs(".PP\n", f);
    } else if (next == NONE && n && part == SM_OPT_MAN_OPTIONS) {
      fputs(".SS \"", f); /* a heading */
      sm_opt_roff(s, n - 1, f);
      fputs("\"\n", f);
      skip = n;
    } else {
      skip = n;
    }
    if (skip < n) {
      sm_opt_roff(s + skip, n - skip, f);
      fputc('\n', f);
    }
    mode = next;
    s += n + (nl != NULL);
  }
  if (mode == NOFILL && !synopsis)
    fputs(".fi\n", f);
}

void sm_opt_man(const sm_opt_t *opts, size_t nopts, const char *const *cmd_names,
                sm_opt_manpart_t part, FILE *f)
{
  size_t last = 0; /* one past the last listed option */
  for (size_t i = 0; i < nopts; i++)
    if (opts[i].name && (opts[i].help || opts[i].kind == SM_OPT_HELP))
      last = i + 1;
  if (part == SM_OPT_MAN_SYNOPSIS)
    fputs(".nf\n", f);
  for (size_t i = 0; i < nopts; i++) {
    const sm_opt_t *d = &opts[i];
    const int in_part = part == SM_OPT_MAN_SYNOPSIS ||
                        (part == SM_OPT_MAN_OPTIONS ? i < last : i >= last);
    if (!in_part)
      continue;
    if (!d->name && d->help)
      man_text(d->help, part, f);
    else if (d->name && part == SM_OPT_MAN_OPTIONS && (d->help || d->kind == SM_OPT_HELP))
      man_option(opts, nopts, i, cmd_names, f);
  }
  if (part == SM_OPT_MAN_SYNOPSIS)
    fputs(".fi\n", f);
}

/* A markdown reference of a table: its headings (text rows ending in ':')
 * as level-3 headings, each listed option as a bullet with its argument,
 * description and, where several commands share the table, the commands
 * that take it; the usage and example text rows are left out. */
void sm_opt_markdown(const sm_opt_t *opts, size_t nopts, const char *const *cmd_names,
                     FILE *f)
{
  for (size_t i = 0; i < nopts; i++) {
    const sm_opt_t *d = &opts[i];
    if (!d->name && d->help) {
      for (const char *s = d->help; *s;) {
        const char *nl = strchr(s, '\n');
        const size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n > 1 && s[0] != ' ' && s[n - 1] == ':' && strncmp(s, "Example", 7) != 0 &&
            strncmp(s, "The most common", 15) != 0)
          fprintf(f, "\n### %.*s\n\n", (int)(n - 1), s);
        s += n + (nl != NULL);
      }
      continue;
    }
    if (!d->name || (!d->help && d->kind != SM_OPT_HELP))
      continue;   /* hidden (tests only) */
    int seen = 0; /* listed once, at its first row */
    for (size_t j = 0; j < i && !seen; j++)
      seen = opts[j].name && !strcmp(opts[j].name, d->name);
    if (seen)
      continue;
    if (d->kind == SM_OPT_HELP) {
      fputs("- `--help`, `-h`: print the options and exit\n", f);
      continue;
    }
    char arg[256];
    sm_opt_argtext(d, arg, sizeof arg);
    fprintf(f, "- `--%s%s%s`: ", d->name, arg[0] ? " " : "", arg);
    for (const char *s = d->help; *s; s++)
      fputc(*s == '\n' ? ' ' : *s, f);
    if (d->per_rank)
      fputs(d->help[0] ? " [may differ between the ranks of a run]"
                       : "[may differ between the ranks of a run]",
            f);
    unsigned mask = 0;
    for (size_t j = 0; j < nopts; j++)
      if (opts[j].name && !strcmp(opts[j].name, d->name))
        mask |= opts[j].cmds ? opts[j].cmds : ~0u;
    if (cmd_names && cmd_names[0] && cmd_names[1]) {
      fputs(" (", f);
      man_cmds(cmd_names, mask, f);
      fputc(')', f);
    }
    fputc('\n', f);
  }
}
