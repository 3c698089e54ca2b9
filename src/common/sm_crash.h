/* sm_crash.h: a fatal signal (an abort in a library, a segmentation
 * fault) is reported before the process dies: the signal, the rank under
 * MPI and the stack, written to stderr with async-signal-safe calls only.
 * Under mpirun the launcher may kill the other ranks before a dying
 * rank's last lines reach it, so the report is also appended to the file
 * $STARMET_CRASH_LOG names (tests set it), when set. The default action
 * then follows, through the handler ours replaced if any (exit 134 for an abort, a core
 * dump where enabled). While stderr goes to a file of its own (StarPU-MPI's start and
 * shutdown messages, filtered: sm_runtime.c), a report also copies what that file holds,
 * a library's last words before its abort, to the real stderr. */
#ifndef SM_CRASH_H
#define SM_CRASH_H

/** Install the report on SIGABRT, SIGSEGV, SIGBUS, SIGFPE and SIGILL
 * (not in sanitizer builds, whose reports are better); again after a
 * library (MPI, StarPU) put its own handlers there. */
void sm_crash_install(void);

/** The rank the reports name, once known (-1: none, alone). */
void sm_crash_set_rank(int rank);

/** stderr goes to the file open as caught until sm_crash_released; the
 * real stderr is open as real meanwhile. */
void sm_crash_caught(int real, int caught);
void sm_crash_released(void);

#endif
