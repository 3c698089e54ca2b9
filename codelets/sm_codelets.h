/* sm_codelets.h: the task-insertion interface of starmet's codelets. The
 * task-graph layer (src/) calls these and never sees a codelet or a kernel.
 * One family per file in codelets/: codelet + CPU/CUDA adapters + insert
 * function + performance model. */
#ifndef SM_CODELETS_H
#define SM_CODELETS_H

#include <starpu.h>
#include <stdint.h>

#include "sm_kern.h"

/* Kernel implementations a codelet can run on CPU workers. */
typedef enum sm_kernel {
  SM_KERNEL_AUTO = 0, /* the fastest available */
  SM_KERNEL_REF,      /* the plain reference twins */
  SM_KERNEL_BLOCKED,  /* portable cache-blocked C (czek) / popcount (ccc) */
} sm_kernel_t;

/** Set up the codelets: MPI insertion when use_mpi, and the CPU kernel. */
void sm_codelets_init(int use_mpi, sm_kernel_t kernel);

/** Name of the CPU kernel a family runs ("czek2_d", "czek2_s", "ccc2",
 * "ccc2_sparse"). */
const char *sm_codelets_kernel_name(const char *family);

/* Numerator of a 2-way block: C = A^T (x) B.
 * A, B: tiles (matrix handles, nx = ld elements/words, ny = vectors);
 * C: matrix nx = n, ny = m (czek: float/double; ccc: moments, elemsize
 * 4 * SM_CCC2_NMOM). nf: fields in the tiles. */
int sm_task_czek2(starpu_data_handle_t A, starpu_data_handle_t B,
                  starpu_data_handle_t C, int single, size_t nf, int prio);
int sm_task_ccc2(starpu_data_handle_t A, starpu_data_handle_t B,
                 starpu_data_handle_t C, int sparse, size_t nf, int prio);

/* 3-way planes: planes [a_off, a_off + g) of tile A against tiles X and Y
 * into N3 (matrix handle, ny = g rows of |X| x |Y| numerators: czek float/double,
 * ccc SM_CCC3_NMOM(sparse) uint32 each; see sm_kern.h). */
int sm_task_czek3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                  starpu_data_handle_t Y, starpu_data_handle_t N3, int single, size_t nf,
                  int prio);
int sm_task_ccc3(starpu_data_handle_t A, size_t a_off, size_t g, starpu_data_handle_t X,
                 starpu_data_handle_t Y, starpu_data_handle_t N3, int sparse, size_t nf,
                 int prio);

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

/* Field-axis reduction: C += B, elementwise over two matrix handles of the
 * same shape (contiguous rows). type: SM_ADD_F64, SM_ADD_F32, SM_ADD_U32. */
enum { SM_ADD_F64 = 0, SM_ADD_F32, SM_ADD_U32 };
int sm_task_add(starpu_data_handle_t C, starpu_data_handle_t B, int type, int prio);

/* Finalize a 2-way block: metrics from numerators and sums into the record
 * buffer R (variable handle holding an sm_recbuf_t). */
int sm_task_finalize2(starpu_data_handle_t num, starpu_data_handle_t si,
                      starpu_data_handle_t sj, starpu_data_handle_t R,
                      const sm_fin2_args_t *args, int prio);

/* Hand a block's records to the output: calls sink(ctx, recbuf, block) on a
 * CPU worker. token (a variable handle, RW) serializes the output tasks in
 * submission order, so files are written in a deterministic order. */
typedef int (*sm_sink_fn)(void *ctx, const sm_recbuf_t *rb, uint64_t block);
int sm_task_output(starpu_data_handle_t R, starpu_data_handle_t token,
                   sm_sink_fn sink, void *ctx, uint64_t block, int prio);

#endif
