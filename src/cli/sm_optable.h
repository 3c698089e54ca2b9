/* sm_optable.h: table-driven command-line options, shared by `compute`,
 * `synth` and `maf`. One table per command gives getopt_long's option
 * array, the parsing and checking of every value, and the --help text. */
#ifndef SM_OPTABLE_H
#define SM_OPTABLE_H

#include <stddef.h>
#include <stdio.h>

#include "sm_error.h"

/* How an option's argument is parsed and stored. */
typedef enum sm_optkind {
  SM_OPT_TEXT = 0, /* not an option: help text printed as it is */
  SM_OPT_FLAG,     /* no argument: stores .ival (int) */
  SM_OPT_INT,      /* integer in [.min, .max] (int; .max 0: 10^9) */
  SM_OPT_SIZE,     /* non-negative integer >= .min, <= .max (size_t; .max 0: no limit) */
  SM_OPT_DOUBLE,   /* finite number; with .range also .dmin <= v < .dmax (double) */
  SM_OPT_CHOICE,   /* one of .choices: stores .values[k], or k without .values (int) */
  SM_OPT_STRING,   /* the argument itself (const char *) */
  SM_OPT_HELP,     /* prints the help; the command is then done */
} sm_optkind_t;

typedef struct sm_opt sm_opt_t;

/* A setter for what a kind cannot say: parse arg into the options at dst.
 * Returns SM_OK or SM_EOPTION (logged). A setter records its own option
 * only: it neither reads nor changes another option's field, nor prints
 * (what follows from several options is derived once they are all
 * parsed, so that their order on the command line does not count). */
typedef sm_err_t (*sm_opt_set_t)(const sm_opt_t *opt, char *arg, void *dst);

/* One row of a command's table. */
struct sm_opt {
  const char *name;           /* long name without "--"; NULL for help text */
  sm_optkind_t kind;          /* with .set, only says whether it takes an argument */
  size_t off;                 /* where the value goes (offsetof in the options) */
  unsigned cmds;              /* commands that accept it (bit mask); 0: all */
  int ival;                   /* SM_OPT_FLAG: the value stored */
  long long min, max;         /* SM_OPT_INT, SM_OPT_SIZE: the allowed range */
  double dmin, dmax;          /* SM_OPT_DOUBLE: the allowed range, with .range */
  const char *range;          /* SM_OPT_DOUBLE: that range in words, for the error */
  const char *dflt;           /* SM_OPT_DOUBLE: its value when given without one
                                 (PLINK's --maf): the next word is its value
                                 only when it is a number */
  const char *const *choices; /* SM_OPT_CHOICE: the names, NULL-terminated;
                                 SM_OPT_FLAG: words that may follow it */
  const int *values;          /* SM_OPT_CHOICE, SM_OPT_FLAG: each name's value,
                                 or NULL */
  sm_opt_set_t set;           /* custom parsing, or NULL */
  const char *arg;            /* help: what follows --name (default: choices, a|b) */
  const char *help;           /* help: the description ('\n' between lines), or the
                                 text; NULL: not listed */
  void (*show)(const void *dst, FILE *f); /* with .set: prints the value it
                                 stored, for sm_opt_canonical (else its argument) */
  int per_rank; /* may differ between the ranks of one run (where a
                   rank's tasks run, what it logs): left out of
                   sm_opt_canonical */
};

/* A command: its table and how it words its errors. */
typedef struct sm_optcmd {
  const sm_opt_t *opts;
  size_t nopts;
  unsigned cmd;        /* this command's bit in sm_opt_t.cmds */
  const char *who;     /* prefix of the errors ("maf: "), or "" */
  const char *see;     /* where help is ("starmet --help") */
  int ignore_operands; /* accept (and ignore) arguments after the options */
} sm_optcmd_t;

/** Parse argv (argv[0] is the command's name) into the options at dst,
 * whose defaults are already set. Returns SM_OK, SM_EOPTION (logged: the
 * first bad option, or an unexpected argument) or SM_ENOMEM. --help (-h),
 * wherever it is, prints the help once every option parsed, and sets
 * *done: the command has nothing more to do. An option given twice keeps
 * its last value. */
sm_err_t sm_opt_parse(const sm_optcmd_t *cmd, int argc, char **argv, void *dst,
                      int *done) SM_MUST_CHECK;

/** The options argv gives cmd, as sm_opt_parse stored them in dst, as
 * text that two ranks compare to know they run the same problem: a line
 * "--name value" per option of cmd (the table's order, each name once,
 * rows marked per_rank and the help left out). Values of typed rows are
 * written as stored, so order, repetition, defaults given or not and
 * spellings ("0.50", "0.5") do not count; a custom row's value is what
 * its .show prints, else its last argument on the command line ("-" when
 * not given). Returns a
 * malloc'd string, or NULL without memory. */
char *sm_opt_canonical(const sm_optcmd_t *cmd, int argc, char **argv, const void *dst);

/** v in the fewest digits that read back as v ("0.9", not
 * "0.90000000000000002"). */
void sm_opt_print_double(double v, FILE *f);

/** The options of cmd that may differ between ranks, "--a, --b", in buf. */
void sm_opt_per_rank_names(const sm_optcmd_t *cmd, char *buf, size_t len);

/** Print the help of a table: its text rows and its options in order. */
void sm_opt_help(const sm_opt_t *opts, size_t nopts, FILE *f);

/** Whether the help of a table shows option `name`: a row of that name
 * has a description (or is the help), or a row's argument or text names
 * "--name". The others (tests' options) are left out of the manual and
 * the completion too. */
int sm_opt_listed(const sm_opt_t *opts, size_t nopts, const char *name);

/** What --help prints after "--name" (the argument, or the choices as
 * a|b), into buf of len bytes; "" when nothing. */
void sm_opt_argtext(const sm_opt_t *d, char *buf, size_t len);

/** The options of a table as markdown (the command-line reference of the
 * guide, docs/reference.md): a bullet per listed option under the table's
 * headings; cmd_names as for sm_opt_man. */
void sm_opt_markdown(const sm_opt_t *opts, size_t nopts, const char *const *cmd_names,
                     FILE *f);

/** Parts of a table in a manual page (sm_opt_man). */
typedef enum sm_opt_manpart {
  SM_OPT_MAN_SYNOPSIS, /* the "usage:" lines of the text rows, no-fill */
  SM_OPT_MAN_OPTIONS,  /* text and options up to the last option */
  SM_OPT_MAN_EXAMPLES, /* the text rows after the last option, headings left out */
} sm_opt_manpart_t;

/** Write one part of a table as man(7) roff: headings of the text rows
 * ("Output:") as .SS, indented text as no-fill blocks, each listed option
 * as a .TP paragraph with its argument and description as in --help.
 * cmd_names (NULL-terminated, or NULL) names the commands of bits 1, 2,
 * 4...; with more than one, each option says which commands take it. */
void sm_opt_man(const sm_opt_t *opts, size_t nopts, const char *const *cmd_names,
                sm_opt_manpart_t part, FILE *f);

/** The rows of the options command cmd takes and its help lists, each name
 * once (the row that parses it for cmd), into rows (room for cmd->nopts).
 * Returns how many. */
size_t sm_opt_rows(const sm_optcmd_t *cmd, const sm_opt_t **rows);

/** Write s escaped for roff text (backslashes, minus signs, a leading dot
 * or quote), option names ("--name") in bold. */
void sm_opt_roff(const char *s, size_t n, FILE *f);

/** Strict numbers: the whole of s, decimal. opt names the option in the
 * error. Each returns SM_OK or SM_EOPTION (logged). */
sm_err_t sm_opt_size(const char *opt, const char *s, size_t *out) SM_MUST_CHECK;
sm_err_t sm_opt_int(const char *opt, const char *s, long long min, long long max,
                    int *out) SM_MUST_CHECK;
sm_err_t sm_opt_double(const char *opt, const char *s, double *out) SM_MUST_CHECK;

/** Index of s among the NULL-terminated names, or SM_EOPTION (logged,
 * with the list). */
sm_err_t sm_opt_choice(const char *opt, const char *s, const char *const *names,
                       int *out) SM_MUST_CHECK;

#endif
