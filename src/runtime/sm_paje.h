/* sm_paje.h: --trace-paje FILE: StarPU's own FxT trace of the run, every
 * rank's, converted by StarPU's starpu_fxt_tool into a Paje trace (ViTE),
 * with the files StarVZ reads kept in FILE.fxt/ beside it. Needs a StarPU
 * built with FxT (scripts/setup-starpu 1.4); Debian's has none. */
#ifndef SM_PAJE_H
#define SM_PAJE_H

#include <stddef.h>

#include "sm_error.h"

/** Whether this starmet can record FxT traces: 1, or 0 with why (what to
 * do instead) in why[0..len). */
int sm_paje_available(char *why, size_t len);

/** Before the run computes: FILE.fxt must be absent or a directory an
 * earlier --trace-paje wrote (it is replaced). SM_OK, or SM_EIO logged. */
sm_err_t sm_paje_check(const char *path) SM_MUST_CHECK;

/** Collective, before sm_runtime_init: rank 0 makes the working directory
 * (FILE.fxt.part.XXXXXX), every rank has StarPU record its FxT trace there
 * (STARPU_FXT_TRACE, STARPU_FXT_PREFIX, STARPU_FXT_SUFFIX). */
sm_err_t sm_paje_prepare(const char *path) SM_MUST_CHECK;

/** Collective, after sm_runtime_shutdown (StarPU writes the FxT files
 * there). With ok: rank 0 converts every rank's file with starpu_fxt_tool,
 * checks the Paje trace (its header, and tasks executed equal to the
 * graph's tasks), writes FILE and puts the working directory in place as
 * FILE.fxt. Otherwise (or on failure) the working directory is removed.
 * Returns SM_OK, or the error logged once. */
sm_err_t sm_paje_finish(const char *path, int ok, unsigned long long tasks) SM_MUST_CHECK;

#endif
