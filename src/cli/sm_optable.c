/* sm_optable.c: the machinery behind every command's option table:
 * getopt_long's array built from the table, values parsed and checked by
 * kind (strict numbers, choices), and the --help text printed from it. */
#include "sm_optable.h"

#include <ctype.h>
#include <stdint.h>

#include <errno.h>
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
  if (errno || end == s || *end || !isfinite(v) || isspace((unsigned char)s[0])) {
    sm_log_error("%s: '%s' is not a finite number", opt, s);
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
static sm_err_t apply(const sm_optcmd_t *cmd, const sm_opt_t *d, char *arg, void *dst,
                      int *done)
{
  char opt[96];
  void *p = (char *)dst + d->off;
  int k;
  snprintf(opt, sizeof opt, "--%s", d->name);
  if (d->set)
    return d->set(d, arg, dst, done);
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
  case SM_OPT_HELP:
    sm_opt_help(cmd->opts, cmd->nopts, stdout);
    *done = 1;
    return SM_OK;
  case SM_OPT_TEXT:
    break;
  }
  return SM_EOPTION;
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
      lo[n++] = (struct option){d->name,
                                d->kind == SM_OPT_FLAG || d->kind == SM_OPT_HELP
                                    ? no_argument
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
  int c;
  *done = 0;
  optind = 1;
  opterr = 0;
  while (!err && !*done && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    const size_t i = c == 'h'           ? help_row(cmd)
                     : c >= SM_OPT_VAL0 ? (size_t)(c - SM_OPT_VAL0)
                                        : cmd->nopts;
    const sm_opt_t *d = i < cmd->nopts ? row_for(cmd, i) : NULL;
    if (d) {
      err = apply(cmd, d, optarg, dst, done);
    } else {
      sm_log_error("%sunknown or incomplete option '%s%s' (see %s)", cmd->who,
                   i < cmd->nopts ? "--" : "",
                   i < cmd->nopts ? cmd->opts[i].name : argv[optind - 1], cmd->see);
      err = SM_EOPTION;
    }
  }
  free(lo);
  if (!err && !*done && optind < argc && !cmd->ignore_operands) {
    sm_log_error("%sunexpected argument '%s' (see %s)", cmd->who, argv[optind], cmd->see);
    err = SM_EOPTION;
  }
  return err;
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
