/* sm_maf_options.h: the options of `starmet maf`, their table, parsing
 * and checks (sm_maf_options.c). */
#ifndef SM_MAF_OPTIONS_H
#define SM_MAF_OPTIONS_H

#include <stdio.h>

#include "sm_codelets_saf.h"
#include "sm_gl.h"
#include "sm_maf_fit.h"

typedef enum sm_saf_outfmt {
  SM_SAF_OUT_TSV = 0, /* chrom pos then 2N + 1 values */
  SM_SAF_OUT_BIN,     /* starmet SAF binary (docs/maf.md) */
  SM_SAF_OUT_NONE,    /* no SAF file (allele frequencies and SFS still written) */
} sm_saf_outfmt_t;

typedef struct sm_maf_options {
  const char *input;
  sm_gl_format_t input_format;
  const char *output; /* prefix, or NULL */
  sm_saf_outfmt_t output_format;
  const char *summary;     /* JSON summary path (default PREFIX.json) */
  sm_saf_method_t method;  /* --kernel tree|ref */
  double band_tol;         /* nats; 0 = exact */
  int devices;             /* --devices all|cpu|accel (exact SAF tasks) */
  size_t block_size;       /* sites per task; 0 = automatic */
  int fold;                /* --fold: the folded spectrum (realSFS -fold 1) */
  int em_maxiter;          /* EM E-steps at most */
  double em_tole;          /* stop when the log-likelihood changes less (realSFS -tole) */
  sm_maf_accel_t em_accel; /* --em-accel anderson|none */
  const char *sched;
  int progress; /* 1 on, 0 off, -1 when stderr is a terminal */
  int quiet;
  size_t debug_pause_after; /* tests: SIGSTOP after N blocks written */
} sm_maf_options_t;

/** Parse and check `starmet maf` (argv[0] is "maf") from the table in
 * sm_maf_options.c. Returns SM_OK or SM_EOPTION (logged); *done is set
 * when --help was printed. */
sm_err_t sm_maf_options_parse(int argc, char **argv, sm_maf_options_t *o,
                              int *done) SM_MUST_CHECK;

/** The help of `starmet maf`. */
void sm_maf_usage(FILE *f);

/** The option table of `starmet maf` (sm_optable.h), for the manual page
 * and the completion. */
const struct sm_optcmd *sm_maf_command(void);

/** The run o (parsed from argc, argv) as text that ranks compare
 * (sm_opt_canonical): malloc'd, NULL without memory. */
char *sm_maf_options_canonical(int argc, char **argv, const sm_maf_options_t *o);

/** Automatic sites per task for N individuals (a few milliseconds of work). */
size_t sm_maf_auto_block(size_t nind);

#endif
