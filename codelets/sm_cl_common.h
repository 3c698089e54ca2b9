/* sm_cl_common.h: what the codelet files share: the insertion switch
 * (plain StarPU or StarPU-MPI), the selected CPU kernel, the unpacking of
 * matrix buffers for the kernels and the pieces of a codelet definition.
 * The helpers it declares each live in a file of their own, named at each
 * group (sm_cl_settings.c, sm_cl_kernels.c, sm_cl_observe.c,
 * sm_cl_force.c, codelet_verify.c, sm_cl_cuda.c, sm_cl_sim.c,
 * sm_cl_model.c); they know no family. What the registry
 * (sm_cl_registry.c) calls in the families is sm_cl_families.h. */
#ifndef SM_CL_COMMON_H
#define SM_CL_COMMON_H

#include "config.h" /* SM_USE_CUDA: the CUDA adapters are compiled in */

#include <starpu.h>
#include "sm_starpu_compat.h"
#include "sm_starpu_mpi.h"

#include "sm_codelets.h"
#include "sm_kern_simd.h"

/* The settings of the run (sm_cl_settings.c; sm_cl_settings: set by
 * sm_codelets_init, sm_cl_registry.c). */
void sm_cl_settings(int use_mpi, sm_kernel_t kernel);
extern int sm_cl_use_mpi;
extern sm_kernel_t sm_cl_kernel;
/* Worker types the numerator tasks may run on (--devices). */
extern unsigned long long sm_cl_num_where;
/* Where the tasks that follow the numerators (their field reductions and
 * device-capable finalizes) may run: sm_cl_num_where, or the CPUs
 * (sm_codelets_set_follow). */
extern unsigned long long sm_cl_end_where;

/* The 2-way CPU kernels sm_cl_kernel selects on this CPU (sm_kern_simd.h;
 * sm_cl_kernels.c). */
sm_czek2_d_fn sm_cl_czek2_d(void);
sm_czek2_s_fn sm_cl_czek2_s(void);
sm_ccc2_fn sm_cl_ccc2(int sparse);
/* Their symmetric variants for diagonal blocks (B = A), or NULL. */
sm_czek2_syrk_d_fn sm_cl_czek2_syrk_d(void);
sm_czek2_syrk_s_fn sm_cl_czek2_syrk_s(void);
sm_ccc2_syrk_fn sm_cl_ccc2_syrk(int sparse);
/* Their row-bounded variants for 3-way planes, or NULL. */
sm_czek2_lo_d_fn sm_cl_czek2_lo_d(void);
sm_czek2_lo_s_fn sm_cl_czek2_lo_s(void);
/* The 3-way planes kernels sm_cl_kernel selects (SIMD), or NULL: the
 * planes then run on the 2-way kernel (sm_kern_czek3_on_*). */
sm_czek3_d_kern_fn sm_cl_czek3_d(void);
sm_czek3_s_kern_fn sm_cl_czek3_s(void);

/* Every task gets a number and reports when it ran (sm_cl_observe.c);
 * sm_cl_task_popped (sm_cl_force.c) also counts the implementations that run the
 * codelets STARMET_FORCE_IMPL keeps to one, then calls sm_cl_task_started. */
void *sm_cl_task_id(void);
void sm_cl_task_done(void *id);
void sm_cl_task_started(void *unused);
void sm_cl_task_popped(void *unused);
#define SM_CL_OBSERVE                                                                    \
  STARPU_PROLOGUE_CALLBACK_POP, sm_cl_task_popped, STARPU_CALLBACK_WITH_ARG_NFREE,       \
      sm_cl_task_done, sm_cl_task_id()

/* Every codelet's can_execute: 1, unless $STARMET_FORCE_IMPL (read once
 * by sm_codelets_init) keeps the task's codelet to another implementation:
 * "sm_ccc2=cuda_ccc2_gemm,sm_finalize2=cpu_finalize2" by the names
 * --version lists, or "sm_ccc2:1", StarPU's implementation number on any
 * worker type that has it. For checking each implementation (scripts/
 * gpu-selftest); sm_codelets_fini reports what ran (sm_cl_force.c). */
int sm_cl_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl);
/* Read $STARMET_FORCE_IMPL (0, or -1 logged) and report what the forced
 * codelets ran (sm_cl_force.c, called by sm_codelets_init and _fini). */
int sm_cl_force_setup(void);
void sm_cl_force_report(void);

/* Insert a task on one rank or, under MPI, on the rank that owns the
 * written data (every rank submits the same graph). */
#define SM_INSERT(cl, ...)                                                               \
  (sm_cl_use_mpi                                                                         \
       ? starpu_mpi_task_insert(MPI_COMM_WORLD, (cl), SM_CL_OBSERVE, __VA_ARGS__)        \
       : starpu_task_insert((cl), SM_CL_OBSERVE, __VA_ARGS__))

/* Copy an args struct for STARPU_CL_ARGS (StarPU frees it after the task)
 * for a task that writes W. Under MPI only the rank that runs the task (the
 * owner of W) makes the copy and the others pass NULL: StarPU-MPI does not
 * free the arguments of tasks another rank runs. */
void *sm_cl_args_dup(starpu_data_handle_t W, const void *args, size_t size);

/* The insertion arguments that pass a copy of the args struct `args` to a
 * task that writes W. */
#define SM_CL_ARGS(W, args)                                                              \
  STARPU_CL_ARGS, sm_cl_args_dup((W), &(args), sizeof(args)), sizeof(args)

/* The arguments of every numerator codelet (and of the int8 tile
 * expansion), and what --verify and --inject-faults know of its task.
 * Under StarPU 1.4's runtime retry (--retry runtime) the try-tasks StarPU
 * makes of one task share this one copy, which also keeps their count. */
enum {
  SM_VF_NONE = 0, /* not checked */
  SM_VF_CZEK2_D,
  SM_VF_CZEK2_S,
  SM_VF_CCC2,
  SM_VF_CCC2_SPARSE,
  SM_VF_CZEK3_D,
  SM_VF_CZEK3_S,
  SM_VF_CCC3,
  SM_VF_CCC3_SPARSE,
  SM_VF_CCC2_I8,        /* a product of int8 tiles (variant: sparse) */
  SM_VF_CCC_I8,         /* an int8 expansion of a tile (checked, never corrupted) */
  SM_VF_CZEK2_SPARSE_D, /* packed sparse tiles (variable handles) */
  SM_VF_CZEK2_SPARSE_S,
  SM_VF_LD_HOM, /* PLINK's homozygous-called tallies (sm_task_ld_hom) */
  SM_VF_CCC2_LD /* both from one task (sm_task_ccc2_ld): sparse moments, tallies */
};
typedef struct sm_cl_num {
  size_t nf, a_off, g; /* fields; 3-way: planes [a_off, a_off + g) of tile A */
  int sparse, single;  /* CCC with missing calls; Czekanowski in float */
  sm_keep3_t keep;     /* 3-way: the triples the slice keeps */
  int family;          /* SM_VF_*: the check that applies */
  uint64_t task;       /* resilience number (deterministic injection) */
  uint64_t block;      /* output block, for messages */
  sm_band_t band;      /* CCC 2-way, ld_hom: the pairs in LD windows (win NULL: all) */
  /* runtime retry: the observation number, tries so far, failures on
   * accelerators, and the workers a retry may use (bitmap) */
  uint64_t obs_id;
  unsigned tries, dev_failures;
  uint32_t workers[(STARPU_NMAXWORKERS + 31) / 32];
} sm_cl_num_t;

/* Fill a numerator task's arguments (this and what follows down to
 * sm_cl_insert_planes: codelet_verify.c); with resilience on it takes the next
 * resilience number (numerators are numbered in insertion order, the same
 * for both retry mechanisms). */
sm_cl_num_t sm_cl_num(int family, size_t nf, uint64_t block);

/* Called by every numerator implementation after its kernel (any worker
 * type): under --retry runtime, corrupts the result (--inject-faults) and
 * checks it (--verify), marking the task failed for StarPU to retry;
 * nothing otherwise. */
void sm_cl_check(void *buffers[], void *cl_arg);

/* Insert a numerator task: under --retry runtime with --verify as a
 * fault-tolerant task (StarPU's try-tasks, sm_cl_num_t as its arguments,
 * kept until its last try), else as SM_INSERT with SM_CL_ARGS. */
int sm_cl_insert_num(struct starpu_codelet *cl, starpu_data_handle_t W,
                     const sm_cl_num_t *args, int nbuf, const starpu_data_handle_t *h,
                     const enum starpu_data_access_mode *modes, int prio,
                     const char *name);
/* The two shapes of numerator tasks through sm_cl_insert_num: a 2-way
 * product (R A, R B, W C), and a 3-way plane group (R A, R X, R Y, W N3;
 * planes [a_off, a_off + g) of A, keep: the triples kept). */
int sm_cl_insert_pair(struct starpu_codelet *cl, sm_cl_num_t *args,
                      starpu_data_handle_t A, starpu_data_handle_t B,
                      starpu_data_handle_t C, int prio, const char *name);
int sm_cl_insert_planes(struct starpu_codelet *cl, sm_cl_num_t *args,
                        starpu_data_handle_t A, size_t a_off, size_t g,
                        starpu_data_handle_t X, starpu_data_handle_t Y,
                        starpu_data_handle_t N3, const sm_keep3_t *keep, int prio,
                        const char *name);

/* Implementations a codelet has where the build has the device, for its
 * designated initializer: SM_CL_CUDA(f, ...) SM_CL_OPENCL(g). */
#if defined(SM_USE_CUDA) && !defined(STARPU_USE_CUDA)
#error "configure enabled the CUDA codelets but this StarPU has no CUDA"
#endif
#ifdef SM_USE_CUDA
/* Every CUDA implementation queues its work on the worker's stream. */
#define SM_CL_CUDA(...)                                                                  \
  .cuda_funcs = {__VA_ARGS__},                                                           \
  .cuda_flags = {STARPU_CUDA_ASYNC, STARPU_CUDA_ASYNC, STARPU_CUDA_ASYNC,                \
                 STARPU_CUDA_ASYNC},
#define SM_CL_HAS_CUDA 1
#elif defined(SM_SIMULATION) && SM_STARPU_SIM_CUDA_STANDINS
/* A SimGrid StarPU that simulates CUDA workers without CUDA (1.4): there
 * each CUDA implementation named is a stand-in that only a simulation
 * "runs" (sm_cl_sim.c); up to two. */
#define SM_CL_SIM_PICK_(a, b, NAME, ...) NAME
#define SM_CL_SIM_ONE_ sm_cl_sim_modeled_only
#define SM_CL_SIM_TWO_ sm_cl_sim_modeled_only, sm_cl_sim_modeled_only
#define SM_CL_CUDA(...)                                                                  \
  .cuda_funcs = {SM_CL_SIM_PICK_(__VA_ARGS__, SM_CL_SIM_TWO_, SM_CL_SIM_ONE_, )},
#define SM_CL_HAS_CUDA 1
#else
#define SM_CL_CUDA(...)
#define SM_CL_HAS_CUDA 0
#endif
#ifdef SM_USE_CUDA
#include "cuda/sm_kern_cuda.h"
/* The calling CUDA worker's scratch of at least bytes, from StarPU's
 * allocator (counted against the device's memory, kept and grown per
 * worker, released by sm_codelets_fini): aborts naming the codelet when
 * the device has no room. Tasks on one worker's stream run in order, so
 * one buffer serves them all. */
void *sm_cl_cuda_scratch(size_t bytes, const char *codelet);
/* Run a CUDA launcher, library or copy call queued on the worker's
 * stream: a failure stops the run naming the codelet, the kernel or call
 * (sm_cuda_take_failed, else CALL's function) and CUDA's reason. With
 * STARMET_CUDA_SYNC=1 (read once by sm_codelets_init) every launcher
 * synchronises after each kernel and library call, and this after CALL,
 * so that a kernel that faults (an illegal address, a trap) is named
 * instead of surfacing later in another task or in StarPU's polling. */
void sm_cl_cuda_ran(const char *codelet, const char *call, int err);
/* cuBLAS's handles and STARMET_CUDA_SYNC; the scratch released and the
 * handles closed (sm_cl_cuda.c, called by sm_codelets_init and _fini). */
void sm_cl_cuda_init(void);
void sm_cl_cuda_fini(void);
#define SM_CUDA_RUN(CODELET, CALL) sm_cl_cuda_ran((CODELET), #CALL, (int)(CALL))
#endif
#ifdef STARPU_USE_OPENCL
#define SM_CL_OPENCL(...) .opencl_funcs = {__VA_ARGS__},
#else
#define SM_CL_OPENCL(...)
#endif

/* The performance model of codelet "sm_<VAR>" (one per codelet: models are
 * keyed on size): history-based on a real machine; in a simulation build
 * (SM_SIMULATION) the cost model of sm_cl_sim.c, which gives the time of a
 * task on each simulated worker type from its work (sm_cl_work) and the
 * platform's rates (sim/models.tsv). */
#ifdef SM_SIMULATION
double sm_cl_sim_cost(struct starpu_task *t, struct starpu_perfmodel_arch *arch,
                      unsigned nimpl);
#define SM_CL_MODEL(SYM)                                                                 \
  .type = STARPU_PER_ARCH, .symbol = SYM, .arch_cost_function = sm_cl_sim_cost
/* What a simulation build can model beyond the codelets as they are: the
 * finalize codelets on CUDA workers (STARMET_SIM_GPU_FINALIZE=1), which
 * starmet does not have yet: sm_codelets_init then gives them an
 * implementation that only a simulation may "run" (sm_cl_sim_gpu_finalize2
 * and 3, in their families). */
int sm_cl_sim_gpu_finalize(void);
/* A CUDA implementation only a simulation may "run" (it aborts). */
void sm_cl_sim_modeled_only(void *buffers[], void *cl_arg);
#else
#define SM_CL_MODEL(SYM) .type = STARPU_HISTORY_BASED, .symbol = SYM
#endif

/* The 3-way models' footprint (codelet_finalize3.c, codelet_czek3.c,
 * codelet_ccc3.c): the data footprint with the class of the share of its
 * tile triple a 3-way task keeps (k; mx rows in X) (sm_cl_model.c). */
uint32_t sm_cl_keep3_footprint(struct starpu_task *t, const sm_keep3_t *k, uint32_t mx);

/* Define codelet cl_<VAR> named "sm_<VAR>" with its performance model: CPU
 * adapter CPU, the device adapters IMPLS (SM_CL_CUDA(...) SM_CL_OPENCL(...),
 * or nothing), NBUF buffers of the access modes that follow. */
#define SM_CODELET(VAR, CPU, IMPLS, NBUF, ...)                                           \
  static struct starpu_perfmodel model_##VAR = {SM_CL_MODEL("sm_" #VAR)};                \
  static struct starpu_codelet cl_##VAR = {                                              \
      .name = "sm_" #VAR,                                                                \
      IMPLS.cpu_funcs = {CPU},                                                           \
      .cpu_funcs_name = {#CPU},                                                          \
      .nbuffers = NBUF,                                                                  \
      .modes = {__VA_ARGS__},                                                            \
      .model = &model_##VAR,                                                             \
      .can_execute = sm_cl_can_execute,                                                  \
  };                                                                                     \
  SM_CL_REGISTER(VAR, IMPLS)

/* Every codelet of the binary, in a linker section, for --version: the
 * codelet and the text of its device implementations (SM_CL_CUDA(f, g)
 * SM_CL_OPENCL(h)), whose names are listed where the build has them. */
typedef struct sm_cl_entry {
  const struct starpu_codelet *cl;
  const char *impls;
} sm_cl_entry_t;
/* The table, from the linker (sm_cl_registry.c and sm_cl_force.c read it). */
extern const sm_cl_entry_t __start_sm_codelets[], __stop_sm_codelets[];
#define SM_CL_REGISTER(VAR, ...)                                                         \
  static const sm_cl_entry_t reg_##VAR                                                   \
      __attribute__((used, section("sm_codelets"), aligned(sizeof(void *)))) = {         \
          &cl_##VAR, #__VA_ARGS__}

/* The work of a task (sm_cl_work, what its codelet's rates count) is the
 * bytes of its buffers, unless SM_CL_WORK(VAR, FN) gives codelet cl_<VAR>
 * a function that counts it (the numerators count element comparisons:
 * sm_cl_work_2way, sm_cl_work_3way). */
typedef double (*sm_cl_work_fn)(const struct starpu_task *t);
typedef struct sm_cl_work_entry {
  const struct starpu_codelet *cl;
  sm_cl_work_fn work;
} sm_cl_work_entry_t;
#define SM_CL_WORK(VAR, FN)                                                              \
  static const sm_cl_work_entry_t work_entry_##VAR __attribute__((                       \
      used, section("sm_cl_work"), aligned(sizeof(void *)))) = {&cl_##VAR, (FN)}
/* Element comparisons of a 2-way task (rows of buffer 0 x rows of buffer 1
 * x nf) and of a 3-way plane group (g x rows of buffers 1 and 2 x nf)
 * (sm_cl_model.c). */
double sm_cl_work_2way(const struct starpu_task *t, size_t nf);
double sm_cl_work_3way(const struct starpu_task *t, size_t g, size_t nf);

/* A matrix buffer of a task as the kernels take it (on the worker's
 * device): ptr to its first element, ld elements from one row (a vector,
 * a plane or a block row) to the next, nx elements in use per row, ny rows
 * of elem bytes per element. */
typedef struct sm_cl_mat {
  void *ptr;
  size_t ld, nx, ny, elem;
} sm_cl_mat_t;

/** Buffer k of a task, a matrix handle. */
static inline sm_cl_mat_t sm_cl_mat(void *buffers[], int k)
{
  return (sm_cl_mat_t){.ptr = (void *)STARPU_MATRIX_GET_PTR(buffers[k]),
                       .ld = STARPU_MATRIX_GET_LD(buffers[k]),
                       .nx = STARPU_MATRIX_GET_NX(buffers[k]),
                       .ny = STARPU_MATRIX_GET_NY(buffers[k]),
                       .elem = STARPU_MATRIX_GET_ELEMSIZE(buffers[k])};
}

/** Where row `row` of a matrix starts (3-way: the first plane of a group). */
static inline void *sm_cl_mat_row(sm_cl_mat_t m, size_t row)
{
  return (char *)m.ptr + row * m.ld * m.elem;
}

/** 1 when a and b are the same tile (a diagonal block: symmetric kernel). */
static inline int sm_cl_mat_same(sm_cl_mat_t a, sm_cl_mat_t b)
{
  return a.ptr == b.ptr && a.ny == b.ny && a.ld == b.ld;
}

/* The CCC moments of a 2-way tile pair into C on a CPU: the whole tile
 * (symmetric kernel on a diagonal one when sym), or, LD windows holding
 * under half its pairs (a->band), its strips (sm_band_next), every other
 * pair 0. The codelet and the check mechanism's re-execution. */
void sm_cl_ccc2_tile(const sm_cl_num_t *a, sm_cl_mat_t A, sm_cl_mat_t B, sm_cl_mat_t C,
                     int sym);
/* The same for PLINK's homozygous-called tallies (sm_kern_ld_hom); 0, or
 * -1 without memory for its planes. */
int sm_cl_ld_hom_tile(const sm_cl_num_t *a, sm_cl_mat_t A, sm_cl_mat_t B, sm_cl_mat_t C);
/* Both into C and H (the ccc2_ld codelet): the whole tile pair from one
 * kernel call (sm_kern_ccc2_ld), LD windows' strips each by its own. */
int sm_cl_ccc2_ld_tile(const sm_cl_num_t *a, sm_cl_mat_t A, sm_cl_mat_t B, sm_cl_mat_t C,
                       sm_cl_mat_t H);
/* Where pair (i, j) of a result tile starts. */
static inline void *sm_cl_mat_at(sm_cl_mat_t m, size_t i, size_t j)
{
  return (char *)m.ptr + (i * m.ld + j) * m.elem;
}

#endif
