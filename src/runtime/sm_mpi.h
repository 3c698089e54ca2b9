/* sm_mpi.h: the MPI process layer: whether starmet runs under an MPI
 * launcher, this rank and the rank count, and the few collective steps that
 * are not task data (agreeing on an error, gathering the summary and the
 * vector names). Vector data move only through StarPU-MPI. */
#ifndef SM_MPI_H
#define SM_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"

/** Initialize MPI (thread level MPI_THREAD_MULTIPLE) when started by an MPI
 * launcher (mpirun, mpiexec, srun: the variables they set) or when the
 * command asks for several ranks (want_ranks > 1: MPI itself then tells
 * how many run, whatever launched them); STARMET_MPI=yes|no overrides
 * both. Otherwise run as a single process without MPI. SM_ERUNTIME
 * (logged) when MPI cannot give the thread level several ranks need; MPI
 * is then initialized and sm_mpi_finalize must still be called. */
sm_err_t sm_mpi_init(int *argc, char ***argv, long want_ranks) SM_MUST_CHECK;

/** End every rank of the job now with exit status code (MPI_Abort): for a
 * rank that cannot go on while the others wait for it. Returns only
 * without MPI. */
void sm_mpi_abort(int code);

/** Finalize MPI if it was initialized. */
void sm_mpi_finalize(void);

int sm_mpi_active(void); /* MPI initialized */
int sm_mpi_rank(void);
int sm_mpi_size(void);
/** Among the ranks on this machine whose n bytes at mine equal this rank's:
 * this rank's index (in rank order) and their count (0 and 1 without MPI).
 * Collective over the machine's ranks. */
void sm_mpi_node_peers(const void *mine, size_t n, int *index, int *count);

/** Every rank passes its error code; all get the largest (0 when all OK). */
int sm_mpi_agree(int err);

/** Sum (uint64) / max (double) over ranks, in place, on every rank. */
void sm_mpi_sum_u64(uint64_t *v, int n);
void sm_mpi_max_double(double *v, int n);

/** Gather n doubles from every rank to rank 0 (out: size x n on rank 0). */
void sm_mpi_gather_double(const double *v, int n, double *out);

/** Gather n bytes from every rank to rank 0 (out: size x n on rank 0). */
void sm_mpi_gather_bytes(const void *v, size_t n, void *out);

/** Rank r > 0 sends its n bytes at mine to rank 0, which hands each
 * rank's to take (in rank order; the buffer is freed after). On rank 0,
 * take's first error, or SM_ENOMEM (every message is still received);
 * SM_OK elsewhere. Collective; nothing with one rank. */
sm_err_t sm_mpi_gather_blobs(const void *mine, size_t n,
                             sm_err_t (*take)(void *ctx, int from, const void *buf,
                                              size_t n),
                             void *ctx);

/** Concatenate every rank's array of uint64 (malloc'd *all, *nall). */
sm_err_t sm_mpi_allgather_u64(const uint64_t *mine, size_t n, uint64_t **all,
                              size_t *nall) SM_MUST_CHECK;

/** Broadcast n bytes from rank 0. */
void sm_mpi_bcast(void *buf, size_t n);

/** Build the global list of nv names from each rank's contribution:
 * ranks with contribute != 0 give names of vectors [v0, v0 + count). On
 * return *all holds nv malloc'd strings (NULL entries where nobody gave
 * one). Returns SM_OK or SM_ENOMEM. */
sm_err_t sm_mpi_allgather_names(char **mine, size_t v0, size_t count, int contribute,
                                size_t nv, char ***all) SM_MUST_CHECK;

/** Compare every rank's text, line by line, with rank 0's (collective).
 * When all are equal, *other is -1; otherwise, on every rank, *other is the
 * lowest rank whose text differs and *line0, *liner (malloc'd) are rank
 * 0's and that rank's first line that differs ("" where one text ended).
 * Without MPI or with one rank: *other -1. SM_ENOMEM when a copy failed. */
sm_err_t sm_mpi_compare_lines(const char *mine, int *other, char **line0,
                              char **liner) SM_MUST_CHECK;

#endif
