/* sm_about.h: what starmet says about itself: its versions and the
 * features built in (--version), and, from the option tables, its manual
 * page (--man) and its shell completion (--completion bash). */
#ifndef SM_ABOUT_H
#define SM_ABOUT_H

#include <stdio.h>

#include "sm_error.h"

/** Print starmet's version ("starmet VERSION"), the worker types of the
 * codelets ("codelets: cpu ..."), the StarPU, MPI and htslib versions, the
 * features built in and the CPU kernel variants. */
void sm_about_version(FILE *f);

/** What every rank of an MPI run must have alike in its build: starmet's
 * version, the StarPU it runs on and was built against, the MPI library
 * and the features built in (two lines). */
void sm_about_build(FILE *f);

/** Write the manual page starmet(1) in man(7) roff: every command, and
 * every option as --help lists it (the same tables). */
void sm_about_man(FILE *f);

/** The guide's command-line reference (docs/reference.md), in markdown,
 * from the same tables. */
void sm_about_reference(FILE *f);

/** Write the completion script of `shell` ("bash"): the commands, each
 * command's options and the values of those that take a choice. Returns
 * SM_OK, or SM_EOPTION (logged) for a shell it cannot write for. */
sm_err_t sm_about_completion(const char *shell, FILE *f) SM_MUST_CHECK;

#endif
