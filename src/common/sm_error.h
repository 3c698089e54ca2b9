/* sm_error.h: starmet's error codes, their messages, and the one logging
 * helper used where an error is first detected. */
#ifndef SM_ERROR_H
#define SM_ERROR_H

#include <stdarg.h>

typedef enum sm_err {
  SM_OK = 0,     /* success */
  SM_EIO,        /* a file cannot be opened, read, written or renamed */
  SM_EFORMAT,    /* a file is malformed (bad magic, ragged rows, text where
                    a number belongs, unsupported dtype) */
  SM_EINCONSIST, /* inputs disagree with each other (.bed size vs .bim/.fam,
                    declared sizes vs file size) */
  SM_EVALUE,     /* a value is outside the metric's domain (negative, NaN) */
  SM_EDEGEN,     /* degenerate data: empty input, fewer vectors than needed */
  SM_EOPTION,    /* an unknown option, a bad option value or combination */
  SM_ENOMEM,     /* an allocation failed */
  SM_ERUNTIME,   /* the task runtime failed (StarPU init, no worker) */
  SM_ECHECK,     /* a built-in self-check failed (analytic problem) */
  SM_ERR_COUNT
} sm_err_t;

/** One-line description of an error code. */
const char *sm_strerror(sm_err_t err);

/** Print "starmet: error: <message>" on stderr (one line). */
void sm_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Print "starmet: warning: <message>" on stderr. */
void sm_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Print "starmet: <message>" on stderr unless quiet mode is on. */
void sm_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** 1: silence sm_log_info (errors and warnings still print); 2: silence
 * everything (fuzzing). */
void sm_log_set_quiet(int quiet);

#define SM_MUST_CHECK __attribute__((warn_unused_result))

#endif
