/* sm_smpi.c: starmet's own collectives under SimGrid's MPI (sm_smpi.h). */
#include "config.h"

#ifdef SM_SMPI
#include "sm_smpi.h"

#include <simgrid/barrier.h>
#include <simgrid/host.h>
#include <starpu_mpi.h>

#include <errno.h>
#include <smpi/smpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#undef getpid /* smpicc's is the simulated rank's; this is the process's */

/* What the ranks share: one per simulation, made by the first rank to
 * need it. Every rank has its own copy of starmet's variables; the heap
 * and the environment are the process's: the environment tells the others
 * where it is (SimGrid runs one simulated thread at a time and switches
 * only in its own calls, so looking and making are one step). */
typedef struct shared {
  sg_bar_t bar;
  int size;
  const void **data; /* rank r's contribution, until the second barrier */
  size_t *bytes;
} shared_t;

#define SM_SMPI_ENV "STARMET_SMPI_COLLECTIVES"

static shared_t *sh;
static int me = -1, np;

/* "StarPU-MPI<r>-MAIN": StarPU runs main on its rank's MAIN host */
static int simulated_rank(void)
{
  const char *h = sg_host_self_get_name();
  return h && !strncmp(h, "StarPU-MPI", 10) ? atoi(h + 10) : -1;
}

static shared_t *shared_state(void)
{
  const char *v = getenv(SM_SMPI_ENV);
  unsigned long pid = 0;
  void *p = NULL;
  if (v && sscanf(v, "%lu:%p", &pid, &p) == 2 && pid == (unsigned long)getpid() && p)
    return p;
  shared_t *s = calloc(1, sizeof *s);
  if (!s || !(s->data = calloc((size_t)np, sizeof *s->data)) ||
      !(s->bytes = calloc((size_t)np, sizeof *s->bytes)))
    return NULL;
  s->size = np;
  s->bar = sg_barrier_init((unsigned)np);
  char text[64];
  snprintf(text, sizeof text, "%lu:%p", (unsigned long)getpid(), (void *)s);
  setenv(SM_SMPI_ENV, text, 1);
  return s;
}

/* The buffers StarPU allocates in RAM: tiles received from other ranks,
 * copies. Kernels do not run, so their contents do not matter: from
 * SM_SMPI_FOLD_BYTES on they come from SMPI's shared allocation, which
 * under smpirun's --cfg=smpi/shared-malloc:global maps one small block
 * over and over (and spares the copy of a message into them); a simulated
 * rank then costs the memory of its task graph, not of its data. */
#define SM_SMPI_FOLD_BYTES ((size_t)64 << 10)

static int fold_malloc(unsigned node, void **ptr, size_t bytes, int flags)
{
  (void)node, (void)flags;
  if (bytes >= SM_SMPI_FOLD_BYTES)
    *ptr = SMPI_SHARED_MALLOC(bytes);
  else if (posix_memalign(ptr, 64, bytes))
    *ptr = NULL;
  return *ptr ? 0 : -ENOMEM;
}

static int fold_free(unsigned node, void *ptr, size_t bytes, int flags)
{
  (void)node, (void)flags;
  if (bytes >= SM_SMPI_FOLD_BYTES)
    SMPI_SHARED_FREE(ptr);
  else
    free(ptr);
  return 0;
}

int sm_smpi_init(int *rank, int *size)
{
  if (simulated_rank() < 0)
    return -1;
  me = starpu_mpi_world_rank();
  np = starpu_mpi_world_size();
  if (me != simulated_rank() || np < 1 || !(sh = shared_state()) || sh->size != np)
    return -1;
  *rank = me;
  *size = np;
  starpu_malloc_set_hooks(fold_malloc, fold_free);
  return 0;
}

/* Publish n bytes at mine; after the call every rank's are in sh->data
 * until done(). */
static void publish(const void *mine, size_t n)
{
  sh->data[me] = mine;
  sh->bytes[me] = n;
  sg_barrier_wait(sh->bar);
}

static void done(void)
{
  sg_barrier_wait(sh->bar);
}

static size_t type_size(MPI_Datatype t)
{
  if (t == MPI_BYTE || t == MPI_CHAR)
    return 1;
  if (t == MPI_INT)
    return sizeof(int);
  if (t == MPI_UINT64_T)
    return sizeof(uint64_t);
  if (t == MPI_DOUBLE)
    return sizeof(double);
  fprintf(stderr, "starmet: error: SMPI collectives: unknown MPI datatype\n");
  _exit(1);
}

int sm_smpi_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm)
{
  (void)comm;
  const size_t es = type_size(type), n = (size_t)count * es;
  const int sum = op == MPI_SUM;
  if (!sum && op != MPI_MAX) {
    fprintf(stderr, "starmet: error: SMPI collectives: only MPI_SUM and MPI_MAX\n");
    _exit(1);
  }
  /* in place: out is read by the others until done() */
  void *mine = malloc(n ? n : 1), *acc = malloc(n ? n : 1);
  if (!mine || !acc) {
    fprintf(stderr, "starmet: error: SMPI collectives: out of memory\n");
    _exit(1);
  }
  memcpy(mine, in == MPI_IN_PLACE ? out : in, n);
  publish(mine, n);
  memcpy(acc, sh->data[0], n);
  for (int r = 1; r < np; r++)
    for (int k = 0; k < count; k++) {
      const char *x = (const char *)sh->data[r] + (size_t)k * es;
      char *a = (char *)acc + (size_t)k * es;
      if (type == MPI_INT) {
        int v, w;
        memcpy(&v, a, es), memcpy(&w, x, es);
        v = sum ? v + w : (w > v ? w : v);
        memcpy(a, &v, es);
      } else if (type == MPI_UINT64_T) {
        uint64_t v, w;
        memcpy(&v, a, es), memcpy(&w, x, es);
        v = sum ? v + w : (w > v ? w : v);
        memcpy(a, &v, es);
      } else {
        double v, w;
        memcpy(&v, a, es), memcpy(&w, x, es);
        v = sum ? v + w : (w > v ? w : v);
        memcpy(a, &v, es);
      }
    }
  done();
  memcpy(out, acc, n);
  free(mine);
  free(acc);
  return MPI_SUCCESS;
}

int sm_smpi_gather(const void *in, int count, MPI_Datatype type, void *out, int outcount,
                   MPI_Datatype outtype, int root, MPI_Comm comm)
{
  (void)comm, (void)outcount, (void)outtype;
  const size_t n = (size_t)count * type_size(type);
  publish(in, n);
  if (me == root)
    for (int r = 0; r < np; r++)
      memcpy((char *)out + (size_t)r * n, sh->data[r], n);
  done();
  return MPI_SUCCESS;
}

int sm_smpi_allgather(const void *in, int count, MPI_Datatype type, void *out,
                      int outcount, MPI_Datatype outtype, MPI_Comm comm)
{
  (void)comm, (void)outcount, (void)outtype;
  const size_t n = (size_t)count * type_size(type);
  publish(in, n);
  for (int r = 0; r < np; r++)
    memcpy((char *)out + (size_t)r * n, sh->data[r], n);
  done();
  return MPI_SUCCESS;
}

int sm_smpi_allgatherv(const void *in, int count, MPI_Datatype type, void *out,
                       const int *counts, const int *displs, MPI_Datatype outtype,
                       MPI_Comm comm)
{
  (void)comm;
  const size_t es = type_size(outtype);
  publish(in, (size_t)count * type_size(type));
  for (int r = 0; r < np; r++)
    memcpy((char *)out + (size_t)displs[r] * es, sh->data[r], (size_t)counts[r] * es);
  done();
  return MPI_SUCCESS;
}

int sm_smpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  (void)comm;
  const size_t n = (size_t)count * type_size(type);
  publish(buf, n);
  if (me != root)
    memcpy(buf, sh->data[root], n);
  done();
  return MPI_SUCCESS;
}

int sm_smpi_finalize(void)
{
  if (sh)
    sg_barrier_wait(sh->bar);
  return MPI_SUCCESS;
}

int sm_smpi_abort(MPI_Comm comm, int code)
{
  (void)comm;
  fflush(stdout);
  fflush(stderr);
  _exit(code ? code : 1);
}
#endif
