/* sm_trace.c: the per-task trace: each rank packs the records of the tasks
 * it ran, rank 0 gathers them and writes the CSV. */
#include "sm_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_commit.h"
#include "sm_mpi.h"
#include "sm_observe.h"

enum { WORDS = 6 }; /* uint64 words per packed record */

static uint64_t dbits(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static double bitsd(uint64_t u)
{
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* This rank's records of the tasks it ran, packed for the gather. */
static uint64_t *pack(int rank, size_t *nwords)
{
  uint64_t n = sm_observe_ninserted(), mine = 0;
  for (uint64_t id = 0; id < n; id++) {
    const sm_task_rec_t *r = sm_observe_record(id);
    mine += r && r->worker >= 0;
  }
  uint64_t *w = malloc((mine ? mine : 1) * WORDS * sizeof *w), *p = w;
  if (!w)
    return NULL;
  for (uint64_t id = 0; id < n; id++) {
    const sm_task_rec_t *r = sm_observe_record(id);
    if (!r || r->worker < 0)
      continue;
    *p++ = r->id;
    *p++ = (uint64_t)(uint32_t)r->i | (uint64_t)(uint32_t)r->j << 32;
    *p++ = (uint64_t)(uint32_t)r->k | (uint64_t)(uint32_t)rank << 32;
    *p++ = (uint64_t)(uint16_t)r->worker | (uint64_t)(uint16_t)r->codelet << 16 |
           (uint64_t)(uint32_t)r->priority << 32;
    *p++ = dbits(r->start_s);
    *p++ = dbits(r->end_s);
  }
  *nwords = (size_t)(p - w);
  return w;
}

typedef struct line {
  uint64_t id;
  int32_t i, j, k, rank, worker, codelet, priority;
  double start, end;
} line_t;

static int by_start(const void *a, const void *b)
{
  const line_t *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static void csv_text(FILE *f, const char *s)
{
  int quote = strpbrk(s, ",\"\n") != NULL;
  if (!quote) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static sm_err_t write_csv(const char *path, const uint64_t *w, size_t nrec,
                          const sm_runtime_stats_t *all, int nranks)
{
  line_t *l = malloc((nrec ? nrec : 1) * sizeof *l);
  if (!l) {
    sm_log_error("--trace %s: out of memory for %zu task records", path, nrec);
    return SM_ENOMEM;
  }
  for (size_t k = 0; k < nrec; k++, w += WORDS)
    l[k] = (line_t){.id = w[0],
                    .i = (int32_t)(uint32_t)w[1],
                    .j = (int32_t)(uint32_t)(w[1] >> 32),
                    .k = (int32_t)(uint32_t)w[2],
                    .rank = (int32_t)(w[2] >> 32),
                    .worker = (int16_t)(w[3] & 0xffff),
                    .codelet = (int16_t)((w[3] >> 16) & 0xffff),
                    .priority = (int32_t)(uint32_t)(w[3] >> 32),
                    .start = bitsd(w[4]),
                    .end = bitsd(w[5])};
  qsort(l, nrec, sizeof *l, by_start);
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 1, "w") != SM_OK) {
    sm_log_error("--trace %s: cannot write it: %s", path, sm_commit_strerror(errno));
    free(l);
    return SM_EIO;
  }
  FILE *f = c.f;
  fputs("task,kind,codelet,i,j,k,rank,worker,worker_name,priority,start_s,end_s\n", f);
  for (size_t k = 0; k < nrec; k++) {
    const line_t *x = &l[k];
    const sm_runtime_stats_t *rs =
        x->rank >= 0 && x->rank < nranks ? &all[x->rank] : NULL;
    const sm_codelet_stats_t *cl =
        rs && x->codelet >= 0 && x->codelet < rs->ncodelets ? &rs->cl[x->codelet] : NULL;
    const char *wname =
        rs && x->worker >= 0 && x->worker < rs->nworkers ? rs->w[x->worker].name : "?";
    fprintf(f, "%llu,", (unsigned long long)x->id);
    csv_text(f, cl ? cl->kind : "?");
    fputc(',', f);
    csv_text(f, cl ? cl->name : "?");
    fprintf(f, ",%d,%d,%d,%d,%d,", x->i, x->j, x->k, x->rank, x->worker);
    csv_text(f, wname);
    fprintf(f, ",%d,%.6f,%.6f\n", x->priority, x->start, x->end);
  }
  free(l);
  if (sm_commit_finish(&c) != SM_OK) {
    sm_log_error("--trace %s: cannot write it: %s", path, sm_commit_strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_trace_write(const char *path, const sm_runtime_stats_t *all)
{
  const int me = sm_mpi_rank();
  size_t nw = 0, nall = 0;
  uint64_t *mine = pack(me, &nw), *every = NULL;
  sm_err_t err = (sm_err_t)sm_mpi_agree(mine ? SM_OK : SM_ENOMEM);
  if (!err)
    err = (sm_err_t)sm_mpi_agree(sm_mpi_allgather_u64(mine, nw, &every, &nall));
  free(mine);
  if (err) {
    if (me == 0)
      sm_log_error("--trace %s: out of memory gathering the task records", path);
    free(every);
    return err;
  }
  if (me == 0)
    err = write_csv(path, every, nall / WORDS, all, sm_mpi_size());
  free(every);
  return (sm_err_t)sm_mpi_agree(err);
}
