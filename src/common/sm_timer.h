/* sm_timer.h: wall-clock time in seconds (monotonic). */
#ifndef SM_TIMER_H
#define SM_TIMER_H

#include <time.h>

static inline double sm_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
