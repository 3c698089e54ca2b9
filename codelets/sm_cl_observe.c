/* sm_cl_observe.c: what the codelet layer tells observers: a number for
 * every inserted task and a call once it ran (through the task's
 * callback), and which worker types can run each kind of task. */
#include <stdint.h>

#include "sm_cl_common.h"

static sm_task_hook_fn hook_inserted, hook_done;
static void (*hook_started)(void);
static uint64_t next_id; /* atomic: a task may be inserted from a worker too */

void sm_codelets_observe(sm_task_hook_fn inserted, void (*started)(void),
                         sm_task_hook_fn done)
{
  hook_inserted = inserted;
  hook_started = started;
  hook_done = done;
  next_id = 0;
}

void sm_cl_task_started(void *unused)
{
  (void)unused;
  void (*started)(void) = hook_started;
  if (started)
    started();
}

void *sm_cl_task_id(void)
{
  uint64_t id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
  if (hook_inserted)
    hook_inserted(id);
  return (void *)(uintptr_t)id;
}

void sm_cl_task_done(void *id)
{
  sm_task_hook_fn done = hook_done;
  if (done)
    done((uint64_t)(uintptr_t)id);
}

unsigned sm_codelets_where(sm_task_kind_t kind)
{
  /* Keep in step with the codelets' *_funcs: a kind lists a worker type
   * only when every codelet of that kind has a function for it. The
   * numerators (codelet_czek2.c, codelet_ccc2.c, codelet_czek3.c,
   * codelet_ccc3.c) have CUDA and OpenCL ones and go where --devices says. */
  if (kind != SM_TK_BLOCK2 && kind != SM_TK_PAIR3 && kind != SM_TK_PLANE3)
    return STARPU_CPU;
  unsigned where = STARPU_CPU;
#if SM_CL_HAS_CUDA
  where |= STARPU_CUDA;
#endif
#ifdef STARPU_USE_OPENCL
  where |= STARPU_OPENCL;
#endif
  return where & (unsigned)sm_cl_num_where;
}
