/* codelet_verify.c: the resilience codelets (--verify, --inject-faults).
 * Each runs right after a numerator task on the same data, before anything
 * reads it: it may corrupt the result (fault injection, for testing),
 * checks the result's invariants (codelets/cpu/kern_verify.c), and when
 * they fail re-executes the numerator kernel, up to SM_VERIFY_RETRIES
 * times. Checking before the data is released is what keeps consumers on
 * other ranks from ever receiving a bad result. */
#include <stdatomic.h>

#include "sm_cl_common.h"

#define SM_VERIFY_RETRIES 5

static struct {
  int verify;
  double rate;
  uint64_t seed;
  atomic_ullong checks, failures, reexec, injected, fatal;
  atomic_ullong fatal_block;
} res;

void sm_codelets_set_resilience(int verify, double inject_rate, uint64_t seed)
{
  res.verify = verify;
  res.rate = inject_rate;
  res.seed = seed;
  atomic_store(&res.checks, 0);
  atomic_store(&res.failures, 0);
  atomic_store(&res.reexec, 0);
  atomic_store(&res.injected, 0);
  atomic_store(&res.fatal, 0);
}

void sm_codelets_resilience_stats(sm_resilience_stats_t *st)
{
  st->checks = atomic_load(&res.checks);
  st->failures = atomic_load(&res.failures);
  st->reexecuted = atomic_load(&res.reexec);
  st->injected = atomic_load(&res.injected);
  st->unrecovered = atomic_load(&res.fatal);
  st->unrecovered_block = atomic_load(&res.fatal_block);
}

int sm_codelets_resilience_on(void)
{
  return res.verify || res.rate > 0;
}

typedef struct verify_args {
  int family;          /* SM_VF_* */
  size_t nf, a_off, g; /* fields; 3-way: planes [a_off, a_off + g) of tile A */
  uint64_t task;       /* the task's number (deterministic injection) */
  uint64_t block;      /* output block, for the error message */
  sm_keep3_t keep;     /* 3-way: the triples the slice keeps */
} verify_args_t;

enum {
  SM_VF_CZEK2_D,
  SM_VF_CZEK2_S,
  SM_VF_CCC2,
  SM_VF_CCC2_SPARSE,
  SM_VF_CZEK3_D,
  SM_VF_CZEK3_S,
  SM_VF_CCC3,
  SM_VF_CCC3_SPARSE
};

/* buffers: 0 numerators (RW), 1 tile A, 2 tile B (2-way) or X, 3 Y (3-way) */
static void compute(const verify_args_t *a, void *b[])
{
#define MPTR(k) ((void *)STARPU_MATRIX_GET_PTR(b[k]))
#define MNY(k) STARPU_MATRIX_GET_NY(b[k])
#define MLD(k) STARPU_MATRIX_GET_LD(b[k])
  const int ref = sm_cl_kernel == SM_KERNEL_REF;
  switch (a->family) {
  case SM_VF_CZEK2_D:
    sm_cl_czek2_d()(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2), MPTR(0),
                    MLD(0));
    break;
  case SM_VF_CZEK2_S:
    sm_cl_czek2_s()(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2), MPTR(0),
                    MLD(0));
    break;
  case SM_VF_CCC2:
  case SM_VF_CCC2_SPARSE: {
    int sp = a->family == SM_VF_CCC2_SPARSE;
    sm_cl_ccc2(sp)(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2), sp, MPTR(0),
                   MLD(0));
    break;
  }
  case SM_VF_CZEK3_D:
    (ref ? sm_kern_czek3_ref_d : sm_kern_czek3_blocked_d)(
        a->g, MNY(2), MNY(3), a->nf, (const double *)MPTR(1) + a->a_off * MLD(1), MLD(1),
        MPTR(2), MLD(2), MPTR(3), MLD(3), MPTR(0));
    break;
  case SM_VF_CZEK3_S:
    (ref ? sm_kern_czek3_ref_s : sm_kern_czek3_blocked_s)(
        a->g, MNY(2), MNY(3), a->nf, (const float *)MPTR(1) + a->a_off * MLD(1), MLD(1),
        MPTR(2), MLD(2), MPTR(3), MLD(3), MPTR(0));
    break;
  default: {
    int sp = a->family == SM_VF_CCC3_SPARSE;
    (ref ? sm_kern_ccc3_ref : sm_kern_ccc3_popc)(
        a->g, MNY(2), MNY(3), a->nf, (const uint64_t *)MPTR(1) + a->a_off * MLD(1),
        MLD(1), MPTR(2), MLD(2), MPTR(3), MLD(3), sp, MPTR(0));
  }
  }
}

static int check(const verify_args_t *a, void *b[])
{
  switch (a->family) {
  case SM_VF_CZEK2_D:
    return sm_kern_verify_czek2_d(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                                  MPTR(0), MLD(0), sm_cl_czek2_d());
  case SM_VF_CZEK2_S:
    return sm_kern_verify_czek2_s(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                                  MPTR(0), MLD(0), sm_cl_czek2_s());
  case SM_VF_CCC2:
  case SM_VF_CCC2_SPARSE:
    return sm_kern_verify_ccc2(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                               a->family == SM_VF_CCC2_SPARSE, MPTR(0), MLD(0));
  case SM_VF_CZEK3_D:
    return sm_kern_verify_czek3_d(a->g, MNY(2), MNY(3), a->nf,
                                  (const double *)MPTR(1) + a->a_off * MLD(1), MLD(1),
                                  MPTR(2), MLD(2), MPTR(3), MLD(3), &a->keep, MPTR(0));
  case SM_VF_CZEK3_S:
    return sm_kern_verify_czek3_s(a->g, MNY(2), MNY(3), a->nf,
                                  (const float *)MPTR(1) + a->a_off * MLD(1), MLD(1),
                                  MPTR(2), MLD(2), MPTR(3), MLD(3), &a->keep, MPTR(0));
  default:
    return sm_kern_verify_ccc3(a->g, MNY(2), MNY(3), a->nf,
                               (const uint64_t *)MPTR(1) + a->a_off * MLD(1), MLD(1),
                               MPTR(2), MLD(2), MPTR(3), MLD(3),
                               a->family == SM_VF_CCC3_SPARSE, &a->keep, MPTR(0));
  }
}

static void corrupt(const verify_args_t *a, void *b[], uint64_t pick)
{
  const size_t nx = STARPU_MATRIX_GET_NX(b[0]), ny = STARPU_MATRIX_GET_NY(b[0]);
  const size_t ld = STARPU_MATRIX_GET_LD(b[0]),
               words = STARPU_MATRIX_GET_ELEMSIZE(b[0]) / 4;
  switch (a->family) {
  case SM_VF_CZEK2_D:
  case SM_VF_CZEK3_D:
    sm_kern_inject_f64(MPTR(0), ny, nx, ld, pick);
    break;
  case SM_VF_CZEK2_S:
  case SM_VF_CZEK3_S:
    sm_kern_inject_f32(MPTR(0), ny, nx, ld, pick);
    break;
  default: /* CCC: elements of several 32-bit moments */
    sm_kern_inject_u32(MPTR(0), ny, nx * words, ld * words, pick);
  }
}

static void cpu_verify(void *buffers[], void *cl_arg)
{
  const verify_args_t *a = cl_arg;
  for (unsigned attempt = 0;; attempt++) {
    uint64_t pick;
    if (res.rate > 0 &&
        sm_kern_inject_decide(res.rate, res.seed, a->task, attempt, &pick)) {
      corrupt(a, buffers, pick);
      atomic_fetch_add(&res.injected, 1);
    }
    if (!res.verify)
      return;
    atomic_fetch_add(&res.checks, 1);
    if (check(a, buffers))
      return;
    atomic_fetch_add(&res.failures, 1);
    if (attempt >= SM_VERIFY_RETRIES) {
      atomic_fetch_add(&res.fatal, 1);
      atomic_store(&res.fatal_block, a->block);
      return;
    }
    atomic_fetch_add(&res.reexec, 1);
    compute(a, buffers);
  }
#undef MPTR
#undef MNY
#undef MLD
}

SM_CODELET(verify2, cpu_verify, , 3, STARPU_RW, STARPU_R, STARPU_R);
SM_CODELET(verify3, cpu_verify, , 4, STARPU_RW, STARPU_R, STARPU_R, STARPU_R);

static uint64_t next_task;

int sm_task_verify2(starpu_data_handle_t C, starpu_data_handle_t A,
                    starpu_data_handle_t B, int metric_ccc, int variant, size_t nf,
                    uint64_t block, int prio)
{
  verify_args_t args = {.family = metric_ccc ? (variant ? SM_VF_CCC2_SPARSE : SM_VF_CCC2)
                                             : (variant ? SM_VF_CZEK2_S : SM_VF_CZEK2_D),
                        .nf = nf,
                        .task = next_task++,
                        .block = block};
  return SM_INSERT(&cl_verify2, STARPU_RW, C, STARPU_R, A, STARPU_R, B,
                   SM_CL_ARGS(C, args), STARPU_PRIORITY, prio, STARPU_NAME, "verify2", 0);
}

int sm_task_verify3(starpu_data_handle_t N3, starpu_data_handle_t A, size_t a_off,
                    size_t g, starpu_data_handle_t X, starpu_data_handle_t Y,
                    int metric_ccc, int variant, size_t nf, const sm_keep3_t *keep,
                    uint64_t block, int prio)
{
  verify_args_t args = {.family = metric_ccc ? (variant ? SM_VF_CCC3_SPARSE : SM_VF_CCC3)
                                             : (variant ? SM_VF_CZEK3_S : SM_VF_CZEK3_D),
                        .nf = nf,
                        .a_off = a_off,
                        .g = g,
                        .task = next_task++,
                        .block = block,
                        .keep = *keep};
  return SM_INSERT(&cl_verify3, STARPU_RW, N3, STARPU_R, A, STARPU_R, X, STARPU_R, Y,
                   SM_CL_ARGS(N3, args), STARPU_PRIORITY, prio, STARPU_NAME, "verify3",
                   0);
}
