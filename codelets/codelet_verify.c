/* codelet_verify.c: resilience (--verify, --inject-faults), by one of two
 * mechanisms that make the same checks and the same injections:
 *  - check (--retry check, StarPU 1.3 and 1.4): a verify task runs on a
 *    CPU right after each numerator task, on the same data, before
 *    anything reads it: it may corrupt the result (fault injection, for
 *    testing), checks it (codelets/cpu/kern_verify.c) and when the check
 *    fails re-executes the numerator kernel itself, up to SM_VERIFY_RETRIES
 *    times;
 *  - runtime (--retry runtime, StarPU 1.4's TaskRetry, the default there):
 *    each numerator is a fault-tolerant task; its implementation checks its
 *    own result on the worker that made it (sm_cl_check; a device's result
 *    is read back for a CPU check) and marks the task failed; StarPU then
 *    lets retry_or_done submit another try, steered away from a failing
 *    accelerator (to the CPUs once it failed twice), up to
 *    SM_VERIFY_RETRIES tries more; failed tries stay out of the
 *    performance models.
 * Checking before the data is released is what keeps consumers on other
 * ranks from ever receiving a bad result. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_cl_common.h"
#include "sm_opencl.h"
#include "sm_sidecache.h"
#include "sm_starpu_compat.h"

#define SM_VERIFY_RETRIES 5

static struct {
  int verify, runtime, inject_kind;
  double rate;
  uint64_t seed;
  atomic_ullong checks, failures, reexec, injected, fatal;
  atomic_ullong fatal_block;
  uint64_t next_task;
  /* runtime retry: per codelet, tries by worker type */
  pthread_mutex_t mu;
  int ncl;
  const struct starpu_codelet *cl[SM_RETRY_CODELETS];
  sm_retry_stats_t st[SM_RETRY_CODELETS];
} res = {.mu = PTHREAD_MUTEX_INITIALIZER};

int sm_codelets_runtime_retry_available(void)
{
#if SM_STARPU_HAS_FT && !defined(SM_SIMULATION)
  return 1;
#else
  return 0; /* StarPU 1.3; a simulation runs no kernel to check */
#endif
}

void sm_codelets_set_resilience(int verify, double inject_rate, uint64_t seed,
                                int runtime_retry)
{
  res.verify = verify;
  res.rate = inject_rate;
  res.seed = seed;
  res.runtime = runtime_retry && sm_codelets_runtime_retry_available();
  (void)sm_kern_abft_use((sm_kvar_t)sm_cl_kernel); /* --kernel avx2: AVX2 checks too */
  res.next_task = 0;
  atomic_store(&res.checks, 0);
  atomic_store(&res.failures, 0);
  atomic_store(&res.reexec, 0);
  atomic_store(&res.injected, 0);
  atomic_store(&res.fatal, 0);
  res.ncl = 0;
  memset(res.st, 0, sizeof res.st);
}

void sm_codelets_set_inject_kind(int kind)
{
  res.inject_kind = kind;
}

void sm_codelets_resilience_stats(sm_resilience_stats_t *st)
{
  st->checks = atomic_load(&res.checks);
  st->failures = atomic_load(&res.failures);
  st->reexecuted = atomic_load(&res.reexec);
  st->injected = atomic_load(&res.injected);
  st->unrecovered = atomic_load(&res.fatal);
  st->unrecovered_block = atomic_load(&res.fatal_block);
  pthread_mutex_lock(&res.mu);
  memcpy(st->retry, res.st, sizeof st->retry);
  pthread_mutex_unlock(&res.mu);
}

int sm_codelets_resilience_on(void)
{
  return res.verify || res.rate > 0;
}

int sm_codelets_resilience_tasks(void)
{
  return sm_codelets_resilience_on() && !res.runtime;
}

sm_cl_num_t sm_cl_num(int family, size_t nf, uint64_t block)
{
  sm_cl_num_t a = {.nf = nf, .family = family, .block = block};
  /* numbered as the check mechanism numbers its verify tasks: one per
   * numerator, in insertion order, so both inject the same faults */
  if (res.runtime && sm_codelets_resilience_on() && family != SM_VF_CCC_I8)
    a.task = res.next_task++;
  return a;
}

/* buffers: 0 numerators (RW), 1 tile A, 2 tile B (2-way) or X, 3 Y (3-way) */
#define MPTR(k) ((void *)STARPU_MATRIX_GET_PTR(b[k]))
#define MNY(k) STARPU_MATRIX_GET_NY(b[k])
#define MNX(k) STARPU_MATRIX_GET_NX(b[k])
#define MLD(k) STARPU_MATRIX_GET_LD(b[k])
#define VPTR(k) ((const void *)STARPU_VARIABLE_GET_PTR(b[k]))

/* The numerator kernel again (the check mechanism's re-execution). */
static void compute(const sm_cl_num_t *a, void *b[])
{
  const int ref = sm_cl_kernel == SM_KERNEL_REF;
  switch (a->family) {
  case SM_VF_CZEK2_SPARSE_D:
    sm_kern_czek2_sparse_d(VPTR(1), VPTR(2), MPTR(0), MLD(0));
    break;
  case SM_VF_CZEK2_SPARSE_S:
    sm_kern_czek2_sparse_s(VPTR(1), VPTR(2), MPTR(0), MLD(0));
    break;
  case SM_VF_CZEK2_D:
    sm_cl_czek2_d()(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2), MPTR(0),
                    MLD(0));
    break;
  case SM_VF_CZEK2_S:
    sm_cl_czek2_s()(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2), MPTR(0),
                    MLD(0));
    break;
  case SM_VF_LD_HOM:
    if (sm_cl_ld_hom_tile(a, sm_cl_mat(b, 1), sm_cl_mat(b, 2), sm_cl_mat(b, 0)))
      memset(MPTR(0), 0xff, 4); /* without memory: a result its check refuses */
    break;
  case SM_VF_CCC2:
  case SM_VF_CCC2_SPARSE:
    sm_cl_ccc2_tile(a, sm_cl_mat(b, 1), sm_cl_mat(b, 2), sm_cl_mat(b, 0), 0);
    break;
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

/* The CCC 2-way moments' check: the whole tile, or each strip of LD
 * windows (sm_cl_ccc2_tile's) as a tile of its own. */
static int check_tile(const sm_cl_num_t *a, size_t m, size_t n, const void *A, size_t lda,
                      const void *B, size_t ldb, const void *C, size_t ldc)
{
  if (a->family == SM_VF_LD_HOM) /* PLINK's homozygous tallies */
    return sm_kern_abft_ld_hom(m, n, a->nf, A, lda, B, ldb, C, ldc);
  return (res.verify == SM_VERIFY_FULL ? sm_kern_verify_ccc2 : sm_kern_abft_ccc2)(
      m, n, a->nf, A, lda, B, ldb, a->family == SM_VF_CCC2_SPARSE, C, ldc);
}

/* Whether the tile pair's pairs in LD windows are checked (and faults
 * injected) run by run: the sparse moments and PLINK's homozygous
 * tallies in windows without an index (sm_band_span), whichever way they
 * were computed (pair by pair, strips, the counters' bands or whole);
 * then rows [*r0, *r1) hold its pairs. */
static int band_runs(const sm_cl_num_t *a, size_t m, size_t n, size_t *r0, size_t *r1)
{
  size_t c0, c1, run;
  return (a->family == SM_VF_CCC2_SPARSE || a->family == SM_VF_LD_HOM) &&
         sm_band_span(&a->band, m, n, r0, r1, &c0, &c1, &run);
}

static int check_ccc2(const sm_cl_num_t *a, void *b[])
{
  const sm_cl_mat_t C = sm_cl_mat(b, 0), A = sm_cl_mat(b, 1), B = sm_cl_mat(b, 2);
  size_t r0, r1;
  if (band_runs(a, A.ny, B.ny, &r0, &r1)) {
    if (res.verify != SM_VERIFY_FULL || a->family == SM_VF_LD_HOM)
      /* each row's run as it slides */
      return sm_kern_abft_ld_band(&a->band, A.ny, B.ny, a->nf, A.ptr, A.ld, B.ptr, B.ld,
                                  C.ptr, C.ld, a->family == SM_VF_LD_HOM);
    for (size_t i = r0; i < r1; i++) { /* --verify full: each row's run again */
      size_t lo, hi;
      sm_band_run(&a->band, B.ny, i, &lo, &hi);
      if (hi > lo &&
          !check_tile(a, 1, hi - lo, sm_cl_mat_row(A, i), A.ld, sm_cl_mat_row(B, lo),
                      B.ld, sm_cl_mat_at(C, i, lo), C.ld))
        return 0;
    }
    return 1;
  }
  if (sm_band_whole(&a->band, A.ny, B.ny))
    return check_tile(a, A.ny, B.ny, A.ptr, A.ld, B.ptr, B.ld, C.ptr, C.ld);
  size_t row = 0;
  sm_strip_t s;
  while (sm_band_next(&a->band, A.ny, B.ny, &row, &s))
    if (!check_tile(a, s.r1 - s.r0, s.c1 - s.c0, sm_cl_mat_row(A, s.r0), A.ld,
                    sm_cl_mat_row(B, s.c0), B.ld, sm_cl_mat_at(C, s.r0, s.c0), C.ld))
      return 0;
  return 1;
}

/* The check of a verify task's buffers (numerators first). */
static int check(const sm_cl_num_t *a, void *b[])
{
  switch (a->family) {
  case SM_VF_CZEK2_SPARSE_D:
    return sm_kern_verify_czek2_sparse_d(VPTR(1), VPTR(2), MPTR(0), MLD(0));
  case SM_VF_CZEK2_SPARSE_S:
    return sm_kern_verify_czek2_sparse_s(VPTR(1), VPTR(2), MPTR(0), MLD(0));
  case SM_VF_CZEK2_D:
    if (res.verify != SM_VERIFY_FULL)
      return sm_kern_abft_czek2_d(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                                  MPTR(0), MLD(0));
    return sm_kern_verify_czek2_d(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                                  MPTR(0), MLD(0), sm_cl_czek2_d());
  case SM_VF_CZEK2_S:
    if (res.verify != SM_VERIFY_FULL)
      return sm_kern_abft_czek2_s(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                                  MPTR(0), MLD(0));
    return sm_kern_verify_czek2_s(MNY(1), MNY(2), a->nf, MPTR(1), MLD(1), MPTR(2), MLD(2),
                                  MPTR(0), MLD(0), sm_cl_czek2_s());
  case SM_VF_CCC2:
  case SM_VF_CCC2_SPARSE:
  case SM_VF_LD_HOM:
    return check_ccc2(a, b);
  case SM_VF_CZEK3_D:
    return sm_kern_verify_czek3_d(a->g, MNY(2), MNY(3), a->nf,
                                  (const double *)MPTR(1) + a->a_off * MLD(1), MLD(1),
                                  MPTR(2), MLD(2), MPTR(3), MLD(3), &a->keep, MPTR(0));
  case SM_VF_CZEK3_S:
    return sm_kern_verify_czek3_s(a->g, MNY(2), MNY(3), a->nf,
                                  (const float *)MPTR(1) + a->a_off * MLD(1), MLD(1),
                                  MPTR(2), MLD(2), MPTR(3), MLD(3), &a->keep, MPTR(0));
  default:
    return (res.verify == SM_VERIFY_FULL ? sm_kern_verify_ccc3 : sm_kern_abft_ccc3)(
        a->g, MNY(2), MNY(3), a->nf, (const uint64_t *)MPTR(1) + a->a_off * MLD(1),
        MLD(1), MPTR(2), MLD(2), MPTR(3), MLD(3), a->family == SM_VF_CCC3_SPARSE,
        &a->keep, MPTR(0));
  }
}

/* One random bit of the numerators in buffer 0, or one of their rows
 * (LD windows: of one of the strips, the pairs that are read). */
static void corrupt(const sm_cl_num_t *a, void *b[], uint64_t pick)
{
  const size_t words = STARPU_MATRIX_GET_ELEMSIZE(b[0]) / 4;
  const int ccc2 = a->family == SM_VF_CCC2 || a->family == SM_VF_CCC2_SPARSE ||
                   a->family == SM_VF_LD_HOM; /* b[1], b[2]: matrices (tiles) */
  const sm_cl_mat_t C = sm_cl_mat(b, 0), A = ccc2 ? sm_cl_mat(b, 1) : C,
                    B = ccc2 ? sm_cl_mat(b, 2) : C;
  size_t r0, r1;
  if (ccc2 && band_runs(a, A.ny, B.ny, &r0, &r1)) {
    /* a row with pairs in the windows (from the bits the word and bit
     * picks leave alone), its run */
    size_t rows = 0, lo = 0, hi = 0, k = 0;
    for (size_t i = r0; i < r1; i++)
      sm_band_run(&a->band, B.ny, i, &lo, &hi), rows += hi > lo;
    if (!rows)
      return;
    size_t i = r0;
    for (;; i++) {
      sm_band_run(&a->band, B.ny, i, &lo, &hi);
      if (hi > lo && k++ == (pick >> 37) % rows)
        break;
    }
    void *at = sm_cl_mat_at(C, i, lo);
    if (res.inject_kind == SM_INJECT_ROW)
      sm_kern_inject_row(at, 1, (hi - lo) * words * 4, C.ld * words * 4, pick);
    else
      sm_kern_inject_u32(at, 1, (hi - lo) * words, C.ld * words, pick);
    return;
  }
  if (ccc2 && !sm_band_whole(&a->band, A.ny, B.ny)) {
    size_t row = 0, ns = 0, k;
    sm_strip_t s;
    while (sm_band_next(&a->band, A.ny, B.ny, &row, &s))
      ns++;
    /* the strip from bits the word and bit picks leave alone (37 up) */
    for (row = 0, k = 0; ns && sm_band_next(&a->band, A.ny, B.ny, &row, &s); k++)
      if (k == (pick >> 37) % ns)
        break;
    if (!ns)
      return;
    void *at = sm_cl_mat_at(C, s.r0, s.c0);
    if (res.inject_kind == SM_INJECT_ROW)
      sm_kern_inject_row(at, s.r1 - s.r0, (s.c1 - s.c0) * words * 4, C.ld * words * 4,
                         pick);
    else
      sm_kern_inject_u32(at, s.r1 - s.r0, (s.c1 - s.c0) * words, C.ld * words, pick);
    return;
  }
  if (res.inject_kind == SM_INJECT_ROW) {
    sm_kern_inject_row(MPTR(0), MNY(0), MNX(0) * words * 4, MLD(0) * words * 4, pick);
    return;
  }
  switch (a->family) {
  case SM_VF_CZEK2_D:
  case SM_VF_CZEK2_SPARSE_D:
  case SM_VF_CZEK3_D:
    sm_kern_inject_f64(MPTR(0), MNY(0), MNX(0), MLD(0), pick);
    break;
  case SM_VF_CZEK2_S:
  case SM_VF_CZEK2_SPARSE_S:
  case SM_VF_CZEK3_S:
    sm_kern_inject_f32(MPTR(0), MNY(0), MNX(0), MLD(0), pick);
    break;
  default: /* CCC: elements of several 32-bit moments */
    sm_kern_inject_u32(MPTR(0), MNY(0), MNX(0) * words, MLD(0) * words, pick);
  }
}

/* The verify task of the check mechanism. */
static void cpu_verify(void *buffers[], void *cl_arg)
{
  const sm_cl_num_t *a = cl_arg;
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
    sm_side_flush(); /* the retry derives its tiles' data afresh */
    compute(a, buffers);
  }
}

SM_CODELET(verify2, cpu_verify, , 3, STARPU_RW, STARPU_R, STARPU_R);
SM_CODELET(verify3, cpu_verify, , 4, STARPU_RW, STARPU_R, STARPU_R, STARPU_R);

int sm_task_verify2(starpu_data_handle_t C, starpu_data_handle_t A,
                    starpu_data_handle_t B, int metric_ccc, int variant, size_t nf,
                    const sm_band_t *band, uint64_t block, int prio)
{
  sm_cl_num_t args = {.family = metric_ccc    ? (variant == 2 ? SM_VF_LD_HOM
                                                 : variant    ? SM_VF_CCC2_SPARSE
                                                              : SM_VF_CCC2)
                                : variant & 2 ? (variant & 1 ? SM_VF_CZEK2_SPARSE_S
                                                             : SM_VF_CZEK2_SPARSE_D)
                                : variant     ? SM_VF_CZEK2_S
                                              : SM_VF_CZEK2_D,
                      .nf = nf,
                      .sparse = metric_ccc && variant, /* the re-execution's kernel */
                      .task = res.next_task++,
                      .block = block};
  if (band && metric_ccc)
    args.band = *band;
  return SM_INSERT(&cl_verify2, STARPU_RW, C, STARPU_R, A, STARPU_R, B,
                   SM_CL_ARGS(C, args), STARPU_PRIORITY, prio, STARPU_NAME, "verify2", 0);
}

int sm_task_verify3(starpu_data_handle_t N3, starpu_data_handle_t A, size_t a_off,
                    size_t g, starpu_data_handle_t X, starpu_data_handle_t Y,
                    int metric_ccc, int variant, size_t nf, const sm_keep3_t *keep,
                    uint64_t block, int prio)
{
  sm_cl_num_t args = {.family = metric_ccc ? (variant ? SM_VF_CCC3_SPARSE : SM_VF_CCC3)
                                           : (variant ? SM_VF_CZEK3_S : SM_VF_CZEK3_D),
                      .nf = nf,
                      .a_off = a_off,
                      .g = g,
                      .task = res.next_task++,
                      .block = block,
                      .keep = *keep};
  return SM_INSERT(&cl_verify3, STARPU_RW, N3, STARPU_R, A, STARPU_R, X, STARPU_R, Y,
                   SM_CL_ARGS(N3, args), STARPU_PRIORITY, prio, STARPU_NAME, "verify3",
                   0);
}

/* ---- the runtime mechanism ---- */

/* The result buffer of a task (its last). */
static int result_index(const sm_cl_num_t *a)
{
  return a->family >= SM_VF_CZEK3_D && a->family <= SM_VF_CCC3_SPARSE ? 3
         : a->family == SM_VF_CCC_I8                                  ? 1
                                                                      : 2;
}

static int nbuffers_of(const sm_cl_num_t *a)
{
  return a->family == SM_VF_CCC2_LD ? 4 : result_index(a) + 1;
}

/* Result k (0 the moments, 1 the tallies) of a task of both (SM_VF_CCC2_LD,
 * buffers A, B, C, H in codelet order) as the checks take a task of one:
 * its family into *one, its buffers (numerators first) into b. */
static void ld_part(const sm_cl_num_t *a, void *buffers[], int k, sm_cl_num_t *one,
                    void *b[3])
{
  *one = *a;
  one->family = k ? SM_VF_LD_HOM : SM_VF_CCC2_SPARSE;
  b[0] = buffers[2 + k], b[1] = buffers[0], b[2] = buffers[1];
}

/* A numerator task's own buffers (in codelet order: inputs, then the
 * result) as the checks above take them: numerators first. */
static void check_order(const sm_cl_num_t *a, void *buffers[], void *b[4])
{
  const int n = nbuffers_of(a);
  b[0] = buffers[n - 1];
  for (int k = 1; k < n; k++)
    b[k] = buffers[k - 1];
}

/* The runtime checks, on the task's buffers in codelet order. */
static int check_task(const sm_cl_num_t *a, void *buffers[])
{
  switch (a->family) {
  case SM_VF_CCC2_I8: { /* C's m x n pairs (the int8 tiles' rows are padded) */
    void **b = buffers;
    return (res.verify == SM_VERIFY_FULL ? sm_kern_verify_ccc2_i8 : sm_kern_abft_ccc2_i8)(
        MNY(2), MNX(2), a->nf, MPTR(0), MLD(0), MPTR(1), MLD(1), a->sparse, MPTR(2),
        MLD(2));
  }
  case SM_VF_CCC_I8: {
    void **b = buffers;
    return sm_kern_verify_ccc_i8(MNY(0), a->nf, MNX(1), MPTR(0), MLD(0), a->sparse,
                                 MPTR(1), MLD(1));
  }
  case SM_VF_CCC2_LD: { /* both results */
    for (int k = 0; k < 2; k++) {
      sm_cl_num_t one;
      void *b[3];
      ld_part(a, buffers, k, &one, b);
      if (!check(&one, b))
        return 0;
    }
    return 1;
  }
  default: {
    void *b[4];
    check_order(a, buffers, b);
    return check(a, b);
  }
  }
}

/* Host copies of a device task's matrix buffers (same ld, so the checks
 * read them as they read a CPU task's), and back. */
typedef struct host_view {
  int n;
  struct starpu_matrix_interface m[4];
  void *p[4];
} host_view_t;

static size_t span_bytes(const struct starpu_matrix_interface *m)
{
  return m->ny ? ((m->ny - 1) * m->ld + m->nx) * m->elemsize : 0;
}

static void dev_copy(enum starpu_worker_archtype arch, struct starpu_matrix_interface *m,
                     void *host, int to_device)
{
  const size_t bytes = span_bytes(m);
  if (!bytes)
    return;
#ifdef STARPU_USE_OPENCL
  if (arch == STARPU_OPENCL_WORKER) {
    if (to_device)
      sm_ocl_write((cl_mem)m->dev_handle, m->offset, bytes, host);
    else
      sm_ocl_read((cl_mem)m->dev_handle, m->offset, bytes, host);
    return;
  }
#endif
#ifdef SM_USE_CUDA
  if (arch == STARPU_CUDA_WORKER) {
    cudaStream_t s = starpu_cuda_get_local_stream();
    cudaError_t e =
        to_device
            ? cudaMemcpyAsync((void *)m->ptr, host, bytes, cudaMemcpyHostToDevice, s)
            : cudaMemcpyAsync(host, (void *)m->ptr, bytes, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
      STARPU_ABORT_MSG("--verify: reading a result back from the GPU failed: %s",
                       cudaGetErrorString(e));
    return;
  }
#endif
  (void)arch, (void)m, (void)host, (void)to_device;
  STARPU_ABORT_MSG("--verify: no way to read buffers of worker type %d", (int)arch);
}

static int view_fetch(host_view_t *v, enum starpu_worker_archtype arch, void *buffers[],
                      int n)
{
  v->n = n;
  for (int k = 0; k < n; k++) {
    v->m[k] = *(struct starpu_matrix_interface *)buffers[k];
    v->p[k] = malloc(span_bytes(&v->m[k]) + 64);
    if (!v->p[k]) {
      v->n = k;
      return -1;
    }
    dev_copy(arch, &v->m[k], v->p[k], 0);
    v->m[k].ptr = (uintptr_t)v->p[k];
    v->m[k].dev_handle = (uintptr_t)v->p[k];
    v->m[k].offset = 0;
  }
  return 0;
}

static void view_free(host_view_t *v)
{
  for (int k = 0; k < v->n; k++)
    free(v->p[k]);
}

/* StarPU will try the running task again (runtime retry only) */
static void mark_failed(void)
{
#if SM_STARPU_HAS_FT
  starpu_task_ft_failed(starpu_task_get_current());
#endif
}

static uint64_t hang_block; /* N + 1: block N's numerators never end */

void sm_codelets_set_debug_hang(uint64_t block)
{
  hang_block = block;
}

void sm_cl_check(void *buffers[], void *cl_arg)
{
  sm_cl_num_t *a = cl_arg;
  while (hang_block && a && a->block + 1 == hang_block)
    sleep(1); /* a kernel that hangs (tests: --task-timeout) */
  if (!res.runtime || !a || a->family == SM_VF_NONE || !sm_codelets_resilience_on())
    return;
  const int w = starpu_worker_get_id();
  const enum starpu_worker_archtype arch =
      w >= 0 ? starpu_worker_get_type(w) : STARPU_CPU_WORKER;
  uint64_t pick;
  const int inject = a->family != SM_VF_CCC_I8 && res.rate > 0 &&
                     sm_kern_inject_decide(res.rate, res.seed, a->task, a->tries, &pick);
  if (!inject && !res.verify)
    return;
  host_view_t v = {0};
  void *hb[4];
  void **b = buffers;
  const int n = nbuffers_of(a), ri = result_index(a);
  if (arch != STARPU_CPU_WORKER) {
    if (view_fetch(&v, arch, buffers, n) != 0) {
      view_free(&v);
      if (res.verify) { /* cannot check: not vouched for */
        atomic_fetch_add(&res.checks, 1);
        atomic_fetch_add(&res.failures, 1);
        mark_failed();
      }
      return;
    }
    for (int k = 0; k < n; k++)
      hb[k] = &v.m[k];
    b = hb;
  }
  if (inject && a->family == SM_VF_CCC2_LD) { /* into one of its results (CPUs) */
    sm_cl_num_t one;
    void *c[3];
    ld_part(a, b, (int)(pick >> 63), &one, c);
    corrupt(&one, c, pick);
    atomic_fetch_add(&res.injected, 1);
  } else if (inject) {
    void *c[4]; /* numerators first, as corrupt reads them */
    check_order(a, b, c);
    corrupt(a, c, pick);
    atomic_fetch_add(&res.injected, 1);
    if (arch != STARPU_CPU_WORKER) /* the device's result is the corrupted one */
      dev_copy(arch, buffers[ri], v.p[ri], 1);
  }
  if (res.verify) {
    atomic_fetch_add(&res.checks, 1);
    if (!check_task(a, b)) {
      atomic_fetch_add(&res.failures, 1);
      sm_side_flush(); /* the retry derives its tiles' data afresh */
      mark_failed();
    }
  }
  view_free(&v);
}
#undef MPTR
#undef MNY
#undef MNX
#undef MLD
#undef VPTR

#if SM_STARPU_HAS_FT
static int arch_slot(enum starpu_worker_archtype t)
{
  return t == STARPU_CUDA_WORKER ? 1 : t == STARPU_OPENCL_WORKER ? 2 : 0;
}

/* Count a try of a task of codelet cl on a worker of type t. */
static void count_try(const struct starpu_codelet *cl, enum starpu_worker_archtype t,
                      int retry, int failed)
{
  pthread_mutex_lock(&res.mu);
  int s = 0;
  while (s < res.ncl && res.cl[s] != cl)
    s++;
  if (s == res.ncl && s < SM_RETRY_CODELETS) {
    res.cl[s] = cl;
    snprintf(res.st[s].codelet, sizeof res.st[s].codelet, "%s", cl->name);
    res.ncl++;
  }
  if (s < res.ncl) {
    res.st[s].tries[arch_slot(t)] += (uint64_t)retry;
    res.st[s].failed[arch_slot(t)] += (uint64_t)failed;
  }
  pthread_mutex_unlock(&res.mu);
}

/* The workers other than w that may run task t (where and codelet). */
static int others_allowed(const struct starpu_task *t, int w, sm_cl_num_t *a)
{
  int n = 0;
  memset(a->workers, 0, sizeof a->workers);
  const unsigned nw = starpu_worker_get_count();
  for (unsigned k = 0; k < nw && k < STARPU_NMAXWORKERS; k++) {
    if ((int)k == w)
      continue;
    const enum starpu_worker_archtype type = starpu_worker_get_type((int)k);
    const unsigned mask = type == STARPU_CPU_WORKER      ? STARPU_CPU
                          : type == STARPU_CUDA_WORKER   ? STARPU_CUDA
                          : type == STARPU_OPENCL_WORKER ? STARPU_OPENCL
                                                         : 0;
    if (!(t->where & mask) || !(t->cl->where & mask))
      continue;
    if (type == STARPU_CUDA_WORKER && !t->cl->cuda_funcs[0])
      continue;
    if (type == STARPU_OPENCL_WORKER && !t->cl->opencl_funcs[0])
      continue;
    a->workers[k / 32] |= 1u << (k % 32);
    n += type != STARPU_CPU_WORKER;
  }
  return n;
}

/* The end of a try (its callback, on the worker that ran it): the task
 * is done, or another try goes where this one did not fail. */
static void retry_or_done(void *meta_arg)
{
  struct starpu_task *meta = meta_arg, *cur = starpu_task_get_current();
  sm_cl_num_t *a = meta->cl_arg;
  const int w = starpu_worker_get_id();
  const enum starpu_worker_archtype type =
      w >= 0 ? starpu_worker_get_type(w) : STARPU_CPU_WORKER;
  count_try(cur->cl, type, a->tries > 0, cur->failed != 0);
  if (!cur->failed || a->tries >= SM_VERIFY_RETRIES) {
    if (cur->failed) {
      atomic_fetch_add(&res.fatal, 1);
      atomic_store(&res.fatal_block, a->block);
    }
    sm_cl_task_done((void *)(uintptr_t)a->obs_id);
    starpu_task_ft_success(meta); /* a is freed when meta ends (ft_first_try) */
    return;
  }
  a->tries++;
  atomic_fetch_add(&res.reexec, 1);
  struct starpu_task *t = starpu_task_ft_create_retry(meta, cur, retry_or_done);
  t->workerids = NULL;
  t->workerids_len = 0;
  /* heteroprio keeps a task in a bucket of fixed worker types: there a
   * retry goes where the first try could */
  struct starpu_sched_policy *sp = starpu_sched_ctx_get_sched_policy(meta->sched_ctx);
  const int buckets = sp && sp->policy_name && !strcmp(sp->policy_name, "heteroprio");
  if (type != STARPU_CPU_WORKER && !buckets) {
    /* an accelerator failed: another one, or a CPU; after a second
     * failure on accelerators, the CPUs */
    if (++a->dev_failures < 2 && others_allowed(t, w, a) > 0) {
      t->where |= STARPU_CPU;
      t->workerids = a->workers;
      t->workerids_len = (STARPU_NMAXWORKERS + 31) / 32;
    } else {
      t->where = STARPU_CPU;
    }
  }
  if (starpu_task_submit_nodeps(t) != 0)
    STARPU_ABORT_MSG("--verify: StarPU refused to retry a task of %s (block %llu)",
                     cur->cl->name, (unsigned long long)a->block);
}

/* The meta-task's end: its arguments, which every try read, go. */
static void free_args(void *a)
{
  free(a);
}

/* The prologue of a numerator under runtime retry, as StarPU's
 * starpu_task_ft_prologue but with the meta-task's end dependency added
 * before its first try is submitted: StarPU 1.4.12 adds it after, and a try
 * that ends in between (a small task on another worker) ends the meta-task
 * while it is not running yet (an assertion in
 * _starpu_handle_job_termination). */
static void ft_first_try(void *unused)
{
  (void)unused;
  struct starpu_task *meta = starpu_task_get_current();
  struct starpu_task *t = starpu_task_ft_create_retry(meta, meta, retry_or_done);
  starpu_task_end_dep_add(meta, 1);
  meta->where = STARPU_NOWHERE;
  meta->epilogue_callback_func = free_args;
  meta->epilogue_callback_arg = meta->cl_arg;
  if (starpu_task_submit_nodeps(t) != 0)
    STARPU_ABORT_MSG("--verify: StarPU refused the first try of a task of %s",
                     meta->cl->name);
}
#endif

/* A numerator task's work (sm_cl_work: element comparisons) before it
 * exists, passed as its StarPU flops: the history-based models then keep
 * it per footprint, and the tile size is chosen from the rates they
 * measured (src/graph/sm_grain.c). */
static double num_flops(struct starpu_codelet *cl, const sm_cl_num_t *args, int nbuf,
                        const starpu_data_handle_t *h)
{
  struct starpu_task t = {.cl = cl, .cl_arg = (void *)args, .nbuffers = nbuf};
  for (int k = 0; k < nbuf; k++)
    t.handles[k] = h[k];
  return sm_cl_work(&t);
}

int sm_cl_insert_num(struct starpu_codelet *cl, starpu_data_handle_t W,
                     const sm_cl_num_t *args, int nbuf, const starpu_data_handle_t *h,
                     const enum starpu_data_access_mode *modes, int prio,
                     const char *name)
{
  struct starpu_data_descr d[4];
  for (int k = 0; k < nbuf; k++)
    d[k] = (struct starpu_data_descr){.handle = h[k], .mode = modes[k]};
  const double flops = num_flops(cl, args, nbuf, h);
#if SM_STARPU_HAS_FT
  if (res.runtime && res.verify) {
    sm_cl_num_t *a = sm_cl_args_dup(W, args, sizeof *args);
    const uint64_t id = (uint64_t)(uintptr_t)sm_cl_task_id();
    if (a)
      a->obs_id = id;
      /* the try-tasks StarPU makes report to the observers (started: the
       * pop prologue they inherit; done: retry_or_done); StarPU-MPI frees
       * the arguments it is given unless told not to, and try-tasks must not */
#define SM_FT_ARGS                                                                       \
  STARPU_PROLOGUE_CALLBACK, ft_first_try, STARPU_PROLOGUE_CALLBACK_ARG_NFREE, NULL,      \
      STARPU_PROLOGUE_CALLBACK_POP, sm_cl_task_started,                                  \
      STARPU_PROLOGUE_CALLBACK_POP_ARG_NFREE, NULL, STARPU_CL_ARGS_NFREE, a, sizeof *a,  \
      STARPU_DATA_MODE_ARRAY, d, nbuf, STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE,      \
      sm_cl_num_where, STARPU_NAME, name, STARPU_FLOPS, flops, 0
    int ret = sm_cl_use_mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, cl, SM_FT_ARGS)
                            : starpu_task_insert(cl, SM_FT_ARGS);
#undef SM_FT_ARGS
    if (ret && a)
      free(a);
    return ret;
  }
#endif
  return SM_INSERT(cl, STARPU_DATA_MODE_ARRAY, d, nbuf, SM_CL_ARGS(W, *args),
                   STARPU_PRIORITY, prio, STARPU_EXECUTE_WHERE, sm_cl_num_where,
                   STARPU_NAME, name, STARPU_FLOPS, flops, 0);
}

int sm_cl_insert_pair(struct starpu_codelet *cl, sm_cl_num_t *args,
                      starpu_data_handle_t A, starpu_data_handle_t B,
                      starpu_data_handle_t C, int prio, const char *name)
{
  const starpu_data_handle_t h[3] = {A, B, C};
  static const enum starpu_data_access_mode modes[3] = {STARPU_R, STARPU_R, STARPU_W};
  return sm_cl_insert_num(cl, C, args, 3, h, modes, prio, name);
}

int sm_cl_insert_planes(struct starpu_codelet *cl, sm_cl_num_t *args,
                        starpu_data_handle_t A, size_t a_off, size_t g,
                        starpu_data_handle_t X, starpu_data_handle_t Y,
                        starpu_data_handle_t N3, const sm_keep3_t *keep, int prio,
                        const char *name)
{
  args->a_off = a_off;
  args->g = g;
  args->keep = *keep;
  const starpu_data_handle_t h[4] = {A, X, Y, N3};
  static const enum starpu_data_access_mode modes[4] = {STARPU_R, STARPU_R, STARPU_R,
                                                        STARPU_W};
  return sm_cl_insert_num(cl, N3, args, 4, h, modes, prio, name);
}

uint64_t sm_codelets_task_number(const struct starpu_task *t)
{
#if SM_STARPU_HAS_FT
  if (t->callback_func == retry_or_done && t->cl_arg)
    return ((const sm_cl_num_t *)t->cl_arg)->obs_id;
#endif
  return (uint64_t)(uintptr_t)t->callback_arg;
}
