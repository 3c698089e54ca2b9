/* sm_error.c: error messages and logging. */
#include "sm_error.h"

#include <stdio.h>

static const char *const sm_err_msg[SM_ERR_COUNT] = {
    [SM_OK] = "success",
    [SM_EIO] = "input/output error",
    [SM_EFORMAT] = "malformed file",
    [SM_EINCONSIST] = "inconsistent inputs",
    [SM_EVALUE] = "value outside the metric's domain",
    [SM_EDEGEN] = "degenerate data",
    [SM_EOPTION] = "bad option",
    [SM_ENOMEM] = "out of memory",
    [SM_ERUNTIME] = "task runtime failure",
    [SM_ECHECK] = "self-check failed",
};

static int sm_quiet;

const char *sm_strerror(sm_err_t err)
{
  if ((unsigned)err >= SM_ERR_COUNT)
    return "unknown error";
  return sm_err_msg[err];
}

static void sm_vlog(const char *tag, const char *fmt, va_list ap)
{
  fprintf(stderr, "starmet: %s", tag);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void sm_log_error(const char *fmt, ...)
{
  if (sm_quiet > 1)
    return;
  va_list ap;
  va_start(ap, fmt);
  sm_vlog("error: ", fmt, ap);
  va_end(ap);
}

void sm_log_warn(const char *fmt, ...)
{
  if (sm_quiet > 1)
    return;
  va_list ap;
  va_start(ap, fmt);
  sm_vlog("warning: ", fmt, ap);
  va_end(ap);
}

void sm_log_info(const char *fmt, ...)
{
  if (sm_quiet)
    return;
  va_list ap;
  va_start(ap, fmt);
  sm_vlog("", fmt, ap);
  va_end(ap);
}

void sm_log_set_quiet(int quiet)
{
  sm_quiet = quiet;
}
