/* sm_codelets.h: the task-insertion interface of starmet's codelets. The
 * task-graph layer (src/) calls these and never sees a codelet or a kernel.
 * One family per file in codelets/: codelet + CPU/CUDA adapters + insert
 * function + performance model. */
#ifndef SM_CODELETS_H
#define SM_CODELETS_H

#include <stdio.h>

#include <starpu.h>
#include <stdint.h>

#include "sm_error.h"
#include "sm_kern.h"
#include "sm_kern_variants.h"

/* Kernel implementations a codelet can run on CPU workers: the variants of
 * sm_kern_variants.h, SM_KERNEL_<ID> = SM_KVAR_<ID>. */
#define SM_KERNEL_ENUM_(id, name, doc) SM_KERNEL_##id = SM_KVAR_##id,
typedef enum sm_kernel { SM_KERN_VARIANTS(SM_KERNEL_ENUM_) } sm_kernel_t;
#undef SM_KERNEL_ENUM_

/** NULL when this CPU can run the 2-way kernel for the metric (ccc or
 * czekanowski), else why not. */
const char *sm_codelets_kernel_check(sm_kernel_t kernel, int ccc);

/** Set up the codelets (after StarPU started): MPI insertion when use_mpi,
 * the CPU kernel, the OpenCL program when OpenCL workers exist, and the
 * checking settings of the environment (STARMET_CUDA_SYNC,
 * STARMET_FORCE_IMPL: sm_cl_common.h). After logging an error:
 * SM_ERUNTIME when the OpenCL program does not build for the OpenCL
 * workers, SM_EOPTION when STARMET_FORCE_IMPL names no codelet or
 * implementation here. */
sm_err_t sm_codelets_init(int use_mpi, sm_kernel_t kernel);

/** Release what sm_codelets_init set up (before StarPU stops). */
void sm_codelets_fini(void);
/** The CPU kernels' derived tile data (planes, lanes, lists; kept between
 * the tasks of a tile's pairs): calls that found it kept, and those that
 * built it, in this process. */
void sm_codelets_kept_stats(uint64_t *reused, uint64_t *built);

/** Restrict the numerator tasks (the modified GEMMs) to these worker types
 * (STARPU_CPU | STARPU_CUDA | STARPU_OPENCL); the other tasks run on CPUs. */
void sm_codelets_set_devices(unsigned long long where);
/** Whether the numerators' field reductions and finalize follow them onto
 * the devices (default 1); 0 keeps them on CPUs (heteroprio, whose
 * buckets need one set of worker types per kind of task). */
void sm_codelets_set_follow(int follow);

/** Name of the CPU kernel a family runs ("czek2_d", "czek2_s", "ccc2",
 * "ccc2_sparse"; "ccc2" names both when dense and sparse differ). */
const char *sm_codelets_kernel_name(const char *family);
/** One line per codelet of the binary: its name and the implementations
 * built in (cpu, cuda(...), opencl(...)), for --version. */
void sm_codelets_list(FILE *f);

/* Numerator of a 2-way block: C = A^T (x) B.
 * A, B: tiles (matrix handles, nx = ld elements/words, ny = vectors);
 * C: matrix nx = n, ny = m (czek: float/double; ccc: moments, elemsize
 * 4 * SM_CCC2_NMOM). nf: fields in the tiles. block: the output block
 * (messages of --verify). band (ccc, NULL: every pair): the tile pair's
 * place among LD windows; a CPU then computes the strips that hold the
 * windows' pairs (sm_band_next) and sets the others to 0, a device the
 * whole tile; the checks (sm_task_verify2) read the strips. */
int sm_task_czek2(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                  int single, size_t nf, uint64_t block, int prio);
int sm_task_ccc2(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                 int sparse, size_t nf, const sm_band_t *band, uint64_t block, int prio);
/* PLINK's r and r^2: the homozygous-called tally of each pair of rows of
 * A and B (sm_kern_ld_hom) into C, 2 x uint32 per pair; CPU only; band
 * as sm_task_ccc2's; checked as the moments (sm_task_verify2 variant 2). */
int sm_task_ld_hom(starpu_data_handle_t A, starpu_data_handle_t B, starpu_data_handle_t C,
                   size_t nf, const sm_band_t *band, uint64_t block, int prio);
/* Both by one task: the sparse moments into C and the homozygous-called
 * tallies into H, with AVX-512 from one pass of counters over the missing
 * calls (sm_kern_ccc2_ld); CPU only, for runs whose products no
 * accelerator runs; each result checked as the two tasks' are (by a
 * verify task of its own, sm_task_verify2 variants 1 and 2; under
 * --retry runtime both by the task, a fault injected into one of them). */
int sm_task_ccc2_ld(starpu_data_handle_t A, starpu_data_handle_t B,
                    starpu_data_handle_t C, starpu_data_handle_t H, size_t nf,
                    const sm_band_t *band, uint64_t block, int prio);
/* The same for Czekanowski from packed sparse tiles (--czek-method
 * sparse): A, B variable handles of sm_csr.h buffers; on a diagonal tile
 * pair (A = B) only the pairs j > i (CPU only). */
int sm_task_czek2_sparse(starpu_data_handle_t A, starpu_data_handle_t B,
                         starpu_data_handle_t C, int single, size_t nf, uint64_t block,
                         int prio);

/* CCC 2-way numerators from cached int8 tiles (--ccc-gemm int8, the
 * papers' tensor-core method: cuBLAS on GPUs). sm_ccc_i8_register
 * registers, unallocated, the int8 form of a tile of `rows` vectors
 * (sm_kern.h's layout, then zero rows up to a multiple of 16: the shapes
 * of cuBLAS's int8 GEMMs, codelets/cuda/sm_i8_gemm.h); sm_task_ccc_i8
 * fills it from the tile X once; sm_task_ccc2_i8 writes C (as
 * sm_task_ccc2) from two of them. */
void sm_ccc_i8_register(starpu_data_handle_t *h, size_t rows, size_t nf, int sparse);
int sm_task_ccc_i8(starpu_data_handle_t X, starpu_data_handle_t X8, int sparse, size_t nf,
                   uint64_t block, int prio);
int sm_task_ccc2_i8(starpu_data_handle_t A8, starpu_data_handle_t B8,
                    starpu_data_handle_t C, int sparse, size_t nf, uint64_t block,
                    int prio);

/* 3-way planes: planes [a_off, a_off + g) of tile A against tiles X and Y
 * into N3 (matrix handle, ny = g rows of |X| x |Y| numerators: czek float/double,
 * ccc SM_CCC3_NMOM(sparse) uint32 each; see sm_kern.h). */
int sm_task_czek3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                  starpu_data_handle_t Y, starpu_data_handle_t N3, int single, size_t nf,
                  const sm_keep3_t *keep, uint64_t block, int prio);
int sm_task_ccc3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                 starpu_data_handle_t Y, starpu_data_handle_t N3, int sparse, size_t nf,
                 const sm_keep3_t *keep, uint64_t block, int prio);

/* Finalize a 3-way piece into the record buffer R. */
int sm_task_finalize3(starpu_data_handle_t num3, starpu_data_handle_t n2ax,
                      starpu_data_handle_t n2ay, starpu_data_handle_t n2xy,
                      starpu_data_handle_t sa, starpu_data_handle_t sx,
                      starpu_data_handle_t sy, starpu_data_handle_t R,
                      const sm_fin3_args_t *args, int prio);

/* Denominators: per-vector sums of a tile into S (matrix handle, ny = 1;
 * czek: nx = vectors of float/double; ccc: nx = 2 x vectors of uint32). */
int sm_task_sums_czek(starpu_data_handle_t X, starpu_data_handle_t S, int single,
                      size_t nf, int prio);
int sm_task_sums_ccc(starpu_data_handle_t X, starpu_data_handle_t S, int sparse,
                     size_t nf, int prio);
/* The Czekanowski sums of a packed sparse tile X (variable handle). */
int sm_task_sums_czek_sparse(starpu_data_handle_t X, starpu_data_handle_t S, int single,
                             int prio);

/* Field-axis reduction: C += B, elementwise over two matrix handles of the
 * same shape (contiguous rows). type: SM_ADD_F64, SM_ADD_F32, SM_ADD_U32.
 * numerators: partial numerators, summed on the devices --devices gives
 * the products (the vector sums: on CPUs, where they are made and read). */
enum { SM_ADD_F64 = 0, SM_ADD_F32, SM_ADD_U32 };
int sm_task_add(starpu_data_handle_t C, starpu_data_handle_t B, int type, int numerators,
                int prio);

/* Finalize a 2-way block: metrics from numerators and sums into the record
 * buffer R (variable handle holding an sm_recbuf_t) and, with args->topk.k,
 * the block's candidate neighbours into cand (sm_fin2_topk_places
 * sm_topk_ent_t; not used without). hom: PLINK's r and r^2, the block's
 * homozygous-called tallies (sm_task_ld_hom; on CPUs), else NULL. */
int sm_task_finalize2(starpu_data_handle_t num, starpu_data_handle_t hom,
                      starpu_data_handle_t si, starpu_data_handle_t sj,
                      starpu_data_handle_t R, starpu_data_handle_t cand,
                      const sm_fin2_args_t *args, int prio);

/* Bytes the device implementations of the finalize copied between devices
 * and the host (row counts and sums, row offsets, the kept records): their
 * record buffers stay in the host's memory, so StarPU does not count them. */
uint64_t sm_cl_devfin_bytes(void);

/* Merge the n candidate lists of k places starting at list `from` of cand
 * into the n lists of acc (both variable handles of sm_topk_ent_t). Merges
 * into one acc run in submission order (RW). */
int sm_task_topk_merge(starpu_data_handle_t acc, starpu_data_handle_t cand, uint64_t from,
                       uint32_t n, uint32_t k, int prio);

/* Hand a block's records to the output: calls sink(ctx, recbuf, text,
 * block) on a CPU worker. token (a variable handle, RW) serializes the
 * output tasks in submission order, so files are written in a
 * deterministic order. T (or NULL): a variable handle of an sm_textbuf_t
 * that a format task filled (text is NULL without it). */
typedef int (*sm_sink_fn)(void *ctx, const sm_recbuf_t *rb, const sm_textbuf_t *text,
                          uint64_t block);
int sm_task_output(starpu_data_handle_t R, starpu_data_handle_t T,
                   starpu_data_handle_t token, sm_sink_fn sink, void *ctx, uint64_t block,
                   int prio);

/* Format a block's records into T (W, an sm_textbuf_t) before its output
 * task: format(ctx, recbuf, textbuf) on any CPU worker, in parallel with
 * the other blocks' (the output task then only writes). */
typedef void (*sm_format_fn)(void *ctx, const sm_recbuf_t *rb, sm_textbuf_t *text);
int sm_task_format(starpu_data_handle_t R, starpu_data_handle_t T, sm_format_fn format,
                   void *ctx, int prio);

/* What a task does: its priority, or heteroprio bucket, follows from it
 * (src/sm_sched.c). */
typedef enum sm_task_kind {
  SM_TK_SUMS = 0, /* denominators of a tile */
  SM_TK_BLOCK2,   /* 2-way numerators of a tile pair */
  SM_TK_PAIR3,    /* 2-way numerators that a 3-way tile triple needs */
  SM_TK_PLANE3,   /* 3-way planes */
  SM_TK_REDUCE,   /* field-axis reduction */
  SM_TK_FINALIZE, /* metrics from numerators and sums */
  SM_TK_OUTPUT,   /* records to the sink */
  SM_TK_VERIFY,   /* a numerator's check (--verify, --retry check) */
  SM_TK_COUNT
} sm_task_kind_t;

/** Worker types (STARPU_CPU | STARPU_CUDA | STARPU_OPENCL) that have an
 * implementation of every codelet of a kind, in this build. */
unsigned sm_codelets_where(sm_task_kind_t kind);

/** A task's work, the unit its codelet's rates count: element comparisons
 * for the numerator tasks (pairs or triples x fields), the bytes of its
 * buffers for the others. Call while the task's data are registered. */
double sm_cl_work(const struct starpu_task *t);

/** The CUDA devices of this machine (0 in a build without CUDA codelets). */
int sm_codelets_cuda_devices(void);

/* A simulation build's (SM_SIMULATION) cost model, sm_cl_sim.c; not in
 * other builds. Its platform ($STARPU_HOSTNAME, or NULL) and models file;
 * the check of that file before StarPU starts: readable, well formed, a
 * rate for every codelet on the CPU and, when the machine has gpus GPUs,
 * for every codelet with a CUDA implementation there; else -1 and why. */
const char *sm_cl_sim_platform(void);
const char *sm_cl_sim_models_path(void);
int sm_cl_sim_check(int gpus, char *why, size_t len);

/* Observation (run summary, trace, progress): insertions are numbered from
 * 0 in the same order on every rank (all ranks insert the same graph);
 * inserted(id) runs when a task is inserted, started() on the worker that
 * took it, before it runs, and done(id) on that worker after it ran
 * (starpu_task_get_current() is the task in both). Only started() may look
 * at the task's data handles: by done() the last task of a handle may have
 * let its unregistration free it. Setting the hooks restarts the
 * numbering; NULL hooks are not called. */
typedef void (*sm_task_hook_fn)(uint64_t id);
void sm_codelets_observe(sm_task_hook_fn inserted, void (*started)(void),
                         sm_task_hook_fn done);

/* Resilience (codelet_verify.c). Each numerator's result may be corrupted
 * (--inject-faults RATE, deterministic in SEED and the task's number),
 * checked (--verify), and recomputed when the check fails: by a verify
 * task after it that re-runs the kernel itself (--retry check, the only
 * way on StarPU 1.3: sm_task_verify2/3 when sm_codelets_resilience_tasks),
 * or (--retry runtime, StarPU 1.4) by the numerator task itself, which
 * StarPU then tries again, elsewhere after a failure on an accelerator.
 * variant: czek 1 = single, 2 = packed sparse tiles (verify2: A and B
 * variable handles); ccc 1 = sparse, 2 = PLINK's homozygous-called
 * tallies (sm_task_ld_hom). */
/* What --verify checks (sm_codelets_set_resilience's verify): */
typedef enum sm_verify {
  SM_VERIFY_AUTO = -1, /* the options' default, decided before the run
                          (sm_options.h) */
  SM_VERIFY_OFF = 0,   /* nothing */
  SM_VERIFY_CHECKSUM,  /* CCC tallies and 2-way dense Czekanowski
                          numerators by their checksums (row and column
                          sums against the operands), the others as
                          SM_VERIFY_FULL */
  SM_VERIFY_FULL,      /* CCC by row sums field by field, Czekanowski by a
                          recomputation (--verify full) */
} sm_verify_t;
#define SM_RETRY_CODELETS 16
typedef struct sm_retry_stats {
  char codelet[32];
  /* by worker type (cpu, cuda, opencl): tries after a failed one, and
   * failed tries (runtime retry only) */
  uint64_t tries[3], failed[3];
} sm_retry_stats_t;
typedef struct sm_resilience_stats {
  uint64_t checks, failures, reexecuted, injected, unrecovered, unrecovered_block;
  sm_retry_stats_t retry[SM_RETRY_CODELETS]; /* codelet "" ends the list */
} sm_resilience_stats_t;
/** 1 when this build can let StarPU retry tasks (StarPU 1.4, not a
 * simulation). */
int sm_codelets_runtime_retry_available(void);
void sm_codelets_set_resilience(int verify, double inject_rate, uint64_t seed,
                                int runtime_retry);
void sm_codelets_resilience_stats(sm_resilience_stats_t *st);
/* What --inject-faults corrupts in a result: */
enum {
  SM_INJECT_BIT = 0, /* one random bit of one random element */
  SM_INJECT_ROW,     /* a whole random row, random values (a GPU's bad row) */
};
void sm_codelets_set_inject_kind(int kind);
int sm_codelets_resilience_on(void);
/** Tests (--debug-hang-block N, N from 1; 0 off): the numerator tasks of
 * output block N - 1 never end. */
void sm_codelets_set_debug_hang(uint64_t block);
/** 1 when the graph inserts verify tasks (resilience on, --retry check). */
int sm_codelets_resilience_tasks(void);
/** The observation number of a task as the hooks get it (sm_codelets_observe),
 * also for the try-tasks of runtime retry. */
uint64_t sm_codelets_task_number(const struct starpu_task *t);
int sm_task_verify2(starpu_data_handle_t C, starpu_data_handle_t A,
                    starpu_data_handle_t B, int metric_ccc, int variant, size_t nf,
                    const sm_band_t *band, uint64_t block, int prio);
int sm_task_verify3(starpu_data_handle_t N3, starpu_data_handle_t A, size_t a_off,
                    size_t g, starpu_data_handle_t X, starpu_data_handle_t Y,
                    int metric_ccc, int variant, size_t nf, const sm_keep3_t *keep,
                    uint64_t block, int prio);

#endif
