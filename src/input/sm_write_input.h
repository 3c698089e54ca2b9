/* sm_write_input.h: writing a vector set as an input file (the inverse of
 * the readers; `starmet synth`). */
#ifndef SM_WRITE_INPUT_H
#define SM_WRITE_INPUT_H

#include "sm_error.h"
#include "sm_read.h"
#include "sm_vectors.h"

/** Write a vector set as an input file (the inverse of the readers). */
sm_err_t sm_vectors_write(const sm_vectors_t *v, sm_input_format_t fmt,
                          const char *path) SM_MUST_CHECK;

#endif
