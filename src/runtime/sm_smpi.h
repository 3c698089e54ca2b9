/* sm_smpi.h: starmet's own collectives (sm_mpi.c) under SimGrid's MPI
 * (SMPI, an SM_SMPI build: configure --with-smpi, scripts/setup-sim --mpi).
 *
 * There smpirun loads starmet once per simulated rank into one process;
 * StarPU's main starts MPI in each rank's MPI process (it becomes
 * StarPU-MPI's communication thread) and runs starmet's main in another
 * simulated thread, which is no MPI process: MPI calls from it fail ("MPI_Init
 * was not called"). starmet's collectives (agreeing on an error, the
 * summary's sums and gathers, the broadcasts of the set-up) therefore go
 * through memory every rank of the process sees, synchronized by a SimGrid
 * barrier: they take no simulated time, like the set-up they belong to.
 * Task data still moves through StarPU-MPI, on the simulated network.
 *
 * sm_mpi.c includes this header under SM_SMPI: the MPI calls it makes map
 * to these functions, with MPI's meaning for MPI_COMM_WORLD. */
#ifndef SM_SMPI_H
#define SM_SMPI_H

#include <mpi.h>

/** This rank and the rank count (StarPU-MPI's, known before main runs);
 * -1 when this is not a simulated rank under smpirun. */
int sm_smpi_init(int *rank, int *size);

int sm_smpi_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm);
int sm_smpi_gather(const void *in, int count, MPI_Datatype type, void *out, int outcount,
                   MPI_Datatype outtype, int root, MPI_Comm comm);
int sm_smpi_allgather(const void *in, int count, MPI_Datatype type, void *out,
                      int outcount, MPI_Datatype outtype, MPI_Comm comm);
int sm_smpi_allgatherv(const void *in, int count, MPI_Datatype type, void *out,
                       const int *counts, const int *displs, MPI_Datatype outtype,
                       MPI_Comm comm);
int sm_smpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
/** Every rank waits for the others (MPI_Finalize: StarPU-MPI finalizes MPI
 * itself, in its communication thread). */
int sm_smpi_finalize(void);
/** Ends the whole simulation with exit status code. */
int sm_smpi_abort(MPI_Comm comm, int code);

#ifdef SM_SMPI_MAP_MPI
#undef MPI_Allreduce
#undef MPI_Gather
#undef MPI_Allgather
#undef MPI_Allgatherv
#undef MPI_Bcast
#undef MPI_Finalize
#undef MPI_Abort
#define MPI_Allreduce sm_smpi_allreduce
#define MPI_Gather sm_smpi_gather
#define MPI_Allgather sm_smpi_allgather
#define MPI_Allgatherv sm_smpi_allgatherv
#define MPI_Bcast sm_smpi_bcast
#define MPI_Finalize sm_smpi_finalize
#define MPI_Abort sm_smpi_abort
#endif

#endif
