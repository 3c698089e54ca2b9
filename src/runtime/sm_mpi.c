/* sm_mpi.c: MPI start-up and the non-data collectives of a run. */
#include "sm_mpi.h"

#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SM_SMPI /* SimGrid's MPI: this thread is no MPI process (sm_smpi.h) */
#define SM_SMPI_MAP_MPI
#include "sm_smpi.h"
#endif

static int active, rank, size = 1, local_rank, local_size = 1;
static MPI_Comm node = MPI_COMM_NULL; /* the ranks on this machine */

/* STARMET_MPI: 1 for yes, 0 for no, -1 unset (or anything else). */
static int forced(void)
{
  const char *force = getenv("STARMET_MPI");
  if (force && (!strcmp(force, "yes") || !strcmp(force, "1")))
    return 1;
  if (force && (!strcmp(force, "no") || !strcmp(force, "0")))
    return 0;
  return -1;
}

/* Started by an MPI launcher? STARMET_MPI=yes|no decides when set; else
 * the variables the launchers set for their processes (Open MPI, MPICH and
 * Intel MPI's Hydra, MVAPICH, PMI/PMIx clients, Slurm's srun, LSF's jsrun,
 * Flux). */
static int launcher_seen(void)
{
  if (forced() >= 0)
    return forced();
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE",
                                     "OMPI_COMM_WORLD_RANK",
                                     "PMI_SIZE",
                                     "PMI_RANK",
                                     "PMI_FD",
                                     "PMIX_RANK",
                                     "PMIX_NAMESPACE",
                                     "MPI_LOCALNRANKS",
                                     "MV2_COMM_WORLD_SIZE",
                                     "HYDRA_CONTROL_FD",
                                     "SLURM_STEP_NUM_TASKS",
                                     "JSM_NAMESPACE_SIZE",
                                     "FLUX_TASK_RANK"};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
    if (getenv(vars[k]))
      return 1;
  return 0;
}

sm_err_t sm_mpi_init(int *argc, char ***argv, long want_ranks)
{
#ifdef SM_SMPI
  /* StarPU started MPI before main, in every simulated rank */
  (void)argc, (void)argv, (void)want_ranks;
  if (sm_smpi_init(&rank, &size)) {
    sm_log_error("this starmet is built for SimGrid's MPI: run it under smpirun "
                 "(scripts/sim-cluster)");
    return SM_ERUNTIME;
  }
  active = 1;
  return SM_OK;
#endif
#ifndef SM_HAVE_STARPU_MPI
  /* a simulation build: one rank, MPI never started (see sm_starpu_mpi.h) */
  (void)argc;
  (void)argv;
  if (want_ranks > 1 || launcher_seen()) {
    sm_log_error("this starmet is a simulation build (StarPU with SimGrid, no "
                 "StarPU-MPI): it runs one rank; start it without mpirun, or use a "
                 "regular build for several ranks");
    return SM_EOPTION;
  }
  return SM_OK;
#endif
  /* a launcher that sets none of those variables still starts its
   * processes as one MPI job: when the command asks for several ranks,
   * MPI_Init learns from MPI itself how many there are (one, when started
   * alone, and the rank grid's check then says so) */
  if (!launcher_seen() && !(want_ranks > 1 && forced() != 0))
    return SM_OK;
  /* Open MPI's progress loop (StarPU-MPI's communication thread polls it
   * while transfers are pending) gives its core back between polls: with
   * few cores per rank that thread shares the workers' cores (sm_bind.c),
   * and busy polling there cost 2 ranks on 2 cores 9% of their Czekanowski
   * rate; with a core of its own, a yield returns at once. The user's
   * setting wins. */
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  /* the main thread's collectives run while StarPU-MPI's progress thread
   * communicates: MPI must allow calls from several threads at once */
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  active = 1;
  /* the ranks that share this machine (they share its cores) */
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                          &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
  } else {
    node = MPI_COMM_NULL;
  }
  if (provided < MPI_THREAD_MULTIPLE && size > 1) {
    if (rank == 0)
      sm_log_error("the MPI library gives thread level %d, not MPI_THREAD_MULTIPLE (%d), "
                   "which starmet needs on several ranks; use an MPI built with thread "
                   "support (Open MPI and MPICH are)",
                   provided, MPI_THREAD_MULTIPLE);
    return SM_ERUNTIME;
  }
  return SM_OK;
}

void sm_mpi_abort(int code)
{
  fflush(stdout);
  fflush(stderr);
  if (active)
    MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
}

void sm_mpi_finalize(void)
{
  if (active && node != MPI_COMM_NULL)
    MPI_Comm_free(&node);
  node = MPI_COMM_NULL;
  if (active)
    MPI_Finalize();
  active = 0;
}

int sm_mpi_active(void)
{
  return active;
}
int sm_mpi_rank(void)
{
  return rank;
}
int sm_mpi_size(void)
{
  return size;
}
void sm_mpi_node_peers(const void *mine, size_t n, int *index, int *count)
{
  *index = 0;
  *count = 1;
  if (!active || node == MPI_COMM_NULL || local_size < 2)
    return;
  unsigned char *all = malloc(n * (size_t)local_size);
  if (!all)
    return;
  MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, node);
  *count = 0;
  for (int r = 0; r < local_size; r++)
    if (!memcmp(all + (size_t)r * n, mine, n)) {
      if (r < local_rank)
        ++*index;
      ++*count;
    }
  free(all);
}

int sm_mpi_agree(int err)
{
  if (!active || size == 1)
    return err;
  int all = err;
  MPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

void sm_mpi_sum_u64(uint64_t *v, int n)
{
  if (active && size > 1)
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void sm_mpi_max_double(double *v, int n)
{
  if (active && size > 1)
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

void sm_mpi_gather_double(const double *v, int n, double *out)
{
  if (active && size > 1)
    MPI_Gather(v, n, MPI_DOUBLE, out, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  else
    memcpy(out, v, (size_t)n * sizeof *v);
}

void sm_mpi_gather_bytes(const void *v, size_t n, void *out)
{
  if (active && size > 1)
    MPI_Gather(v, (int)n, MPI_BYTE, out, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
  else
    memcpy(out, v, n);
}

sm_err_t sm_mpi_gather_blobs(const void *mine, size_t n,
                             sm_err_t (*take)(void *ctx, int from, const void *buf,
                                              size_t n),
                             void *ctx)
{
  enum { TAG = 7301, CHUNK = 1 << 30 }; /* MPI counts are ints */
  if (!active || size < 2)
    return SM_OK;
  if (rank != 0) {
    uint64_t len = n;
    MPI_Send(&len, 1, MPI_UINT64_T, 0, TAG, MPI_COMM_WORLD);
    for (size_t at = 0; at < n; at += CHUNK)
      MPI_Send((const char *)mine + at, (int)(n - at < CHUNK ? n - at : CHUNK), MPI_BYTE,
               0, TAG, MPI_COMM_WORLD);
    return SM_OK;
  }
  sm_err_t err = SM_OK;
  for (int from = 1; from < size; from++) {
    uint64_t len = 0;
    MPI_Recv(&len, 1, MPI_UINT64_T, from, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *buf = err ? NULL : malloc(len ? (size_t)len : 1);
    char *scratch = buf ? NULL : malloc(len < CHUNK ? (size_t)len + 1 : CHUNK);
    if (!buf && !err)
      err = SM_ENOMEM;
    for (uint64_t at = 0; at < len; at += CHUNK) { /* without memory: received, dropped */
      const int c = (int)(len - at < CHUNK ? len - at : CHUNK);
      MPI_Recv(buf ? buf + at : scratch, scratch || buf ? c : 0, MPI_BYTE, from, TAG,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (buf && !err)
      err = take(ctx, from, buf, (size_t)len);
    free(buf), free(scratch);
  }
  return err;
}

sm_err_t sm_mpi_allgather_u64(const uint64_t *mine, size_t n, uint64_t **allp,
                              size_t *nall)
{
  int *lens = calloc((size_t)size, sizeof *lens),
      *offs = calloc((size_t)size, sizeof *offs);
  int myn = (int)n;
  if (!lens || !offs) {
    free(lens), free(offs);
    return SM_ENOMEM;
  }
  if (active && size > 1)
    MPI_Allgather(&myn, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD);
  else
    lens[0] = myn;
  size_t total = 0;
  for (int r = 0; r < size; r++) {
    offs[r] = (int)total;
    total += (size_t)lens[r];
  }
  uint64_t *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) {
    free(lens), free(offs);
    return SM_ENOMEM;
  }
  if (active && size > 1)
    MPI_Allgatherv(mine, myn, MPI_UINT64_T, all, lens, offs, MPI_UINT64_T,
                   MPI_COMM_WORLD);
  else if (n)
    memcpy(all, mine, n * sizeof *all);
  free(lens), free(offs);
  *allp = all;
  *nall = total;
  return SM_OK;
}

void sm_mpi_bcast(void *buf, size_t n)
{
  if (active && size > 1)
    MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
}

sm_err_t sm_mpi_allgather_names(char **mine, size_t v0, size_t count, int contribute,
                                size_t nv, char ***allp)
{
  *allp = NULL;
  char **all = calloc(nv ? nv : 1, sizeof *all);
  if (!all)
    return SM_ENOMEM;
  /* my contribution: "index\0name\0" ... */
  size_t len = 0;
  if (contribute && mine)
    for (size_t i = 0; i < count; i++)
      len += 24 + strlen(mine[i]) + 1;
  char *buf = malloc(len ? len : 1), *p = buf;
  if (!buf) {
    free(all);
    return SM_ENOMEM;
  }
  if (contribute && mine)
    for (size_t i = 0; i < count; i++) {
      int k = snprintf(p, 24, "%zu", v0 + i);
      p += k + 1;
      size_t l = strlen(mine[i]) + 1;
      memcpy(p, mine[i], l);
      p += l;
    }
  int mylen = (int)(p - buf);
  int *lens = calloc((size_t)size, sizeof *lens),
      *offs = calloc((size_t)size, sizeof *offs);
  if (!lens || !offs) {
    free(buf), free(lens), free(offs), free(all);
    return SM_ENOMEM;
  }
  if (active && size > 1)
    MPI_Allgather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD);
  else
    lens[0] = mylen;
  size_t total = 0;
  for (int r = 0; r < size; r++) {
    offs[r] = (int)total;
    total += (size_t)lens[r];
  }
  char *every = malloc(total ? total : 1);
  if (!every) {
    free(buf), free(lens), free(offs), free(all);
    return SM_ENOMEM;
  }
  if (active && size > 1)
    MPI_Allgatherv(buf, mylen, MPI_CHAR, every, lens, offs, MPI_CHAR, MPI_COMM_WORLD);
  else
    memcpy(every, buf, (size_t)mylen);
  sm_err_t err = SM_OK;
  for (char *q = every; q < every + total && !err;) {
    size_t idx = strtoull(q, NULL, 10);
    q += strlen(q) + 1;
    if (idx < nv && !all[idx] && !(all[idx] = strdup(q)))
      err = SM_ENOMEM;
    q += strlen(q) + 1;
  }
  free(buf), free(lens), free(offs), free(every);
  if (err) {
    for (size_t i = 0; i < nv; i++)
      free(all[i]);
    free(all);
    return err;
  }
  *allp = all;
  return SM_OK;
}

/* The first line of a that b does not have at the same place: its start and
 * length in a, and the start of b's line there ("" past b's end). */
static int first_other_line(const char *a, const char *b, size_t *at, size_t *alen,
                            size_t *bat)
{
  const char *p = a, *q = b;
  while (*p || *q) {
    const char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
    size_t pl = pe ? (size_t)(pe - p) : strlen(p), ql = qe ? (size_t)(qe - q) : strlen(q);
    if (pl != ql || memcmp(p, q, pl)) {
      *at = (size_t)(p - a), *alen = pl, *bat = (size_t)(q - b);
      return 1;
    }
    p += pl + (pe != NULL);
    q += ql + (qe != NULL);
  }
  return 0;
}

/* A copy of the line at s (up to its newline). */
static char *line_copy(const char *s)
{
  const char *e = strchr(s, '\n');
  return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

sm_err_t sm_mpi_compare_lines(const char *mine, int *other, char **line0, char **liner)
{
  *other = -1, *line0 = *liner = NULL;
  if (!active || size < 2)
    return SM_OK;
  /* a rank short of memory still takes part, with a text none has */
  char *text = strdup(mine ? mine : "(no memory to describe this rank's run)");
  char **all = NULL;
  sm_err_t err =
      sm_mpi_allgather_names(&text, (size_t)rank, 1, text != NULL, (size_t)size, &all);
  free(text);
  if (err)
    return err;
  for (int r = 1; r < size && *other < 0; r++) {
    size_t at, len, bat;
    const char *t0 = all[0] ? all[0] : "", *tr = all[r] ? all[r] : "";
    if (first_other_line(tr, t0, &at, &len, &bat)) {
      *other = r;
      *liner = line_copy(tr + at);
      *line0 = line_copy(t0 + bat);
    }
  }
  for (int r = 0; r < size; r++)
    free(all[r]);
  free(all);
  return *other >= 0 && (!*line0 || !*liner) ? SM_ENOMEM : SM_OK;
}
