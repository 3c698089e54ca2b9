# SM_BASH_COMPLETION: where `make install` puts the bash completion
# (bashcompletiondir): --with-bash-completion-dir=DIR, else bash-completion's
# completionsdir (pkg-config) under this package's prefix, else
# DATADIR/bash-completion/completions. Under the prefix, so that a user's
# `make install` (and distcheck) stays there; bash-completion 2.9 or later
# looks beside the command's bin/ too.
AC_DEFUN([SM_BASH_COMPLETION], [
  AC_REQUIRE([SM_PKG_CONFIG_PROG])
  AC_ARG_WITH([bash-completion-dir],
    [AS_HELP_STRING([--with-bash-completion-dir=DIR],
      [install the bash completion in DIR (default: bash-completion's
       completionsdir under PREFIX, or DATADIR/bash-completion/completions)])],
    [bashcompletiondir=$withval], [bashcompletiondir=yes])
  AC_MSG_CHECKING([where to install the bash completion])
  AS_IF([test "x$bashcompletiondir" = xyes],
    [bashcompletiondir=`$PKG_CONFIG --define-variable=prefix='${prefix}' \
       --define-variable=datadir='${datadir}' --variable=completionsdir bash-completion 2>/dev/null`])
  AS_IF([test "x$bashcompletiondir" = x || test "x$bashcompletiondir" = xyes],
    [bashcompletiondir='${datadir}/bash-completion/completions'])
  AC_MSG_RESULT([$bashcompletiondir])
  AC_SUBST([bashcompletiondir])
])
