/* sm_resume.c: the resume manifest: a header line with the run's
 * fingerprint, one with the tile size and output header size, then one line
 * per completed output block. Lines are only trusted when complete. */
#include "sm_resume.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_commit.h"
#include "sm_timer.h"

#define SM_MANIFEST_MAGIC "starmet-manifest 1"

void sm_manifest_path(char *buf, size_t len, const char *prefix, int rank, int nranks)
{
  if (nranks <= 1)
    snprintf(buf, len, "%s.manifest", prefix);
  else
    snprintf(buf, len, "%s_%d.manifest", prefix, rank);
}

static int cmp_entry(const void *a, const void *b)
{
  uint64_t x = ((const sm_resume_entry_t *)a)->block,
           y = ((const sm_resume_entry_t *)b)->block;
  return x < y ? -1 : x > y;
}

/* Append *e to the array *a of *n entries (capacity *cap). */
static sm_err_t push_entry(sm_resume_entry_t **a, size_t *n, size_t *cap,
                           const sm_resume_entry_t *e)
{
  if (*n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    sm_resume_entry_t *p = realloc(*a, nc * sizeof *p);
    if (!p)
      return SM_ENOMEM;
    *a = p;
    *cap = nc;
  }
  (*a)[(*n)++] = *e;
  return SM_OK;
}

/* One block's line; 0 or a negative value when the write failed. */
static int put_entry(FILE *f, const sm_resume_entry_t *e)
{
  return fprintf(f,
                 "B %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIx64
                 " %" PRIx64 " %" PRIu64 "\n",
                 e->block, e->end_off, e->count, e->nvalues, e->cksum.sum_lo,
                 e->cksum.sum_hi, e->cksum.hash, e->cksum.count);
}

/* The line with the tile size and the output header size. */
static int put_sizes(FILE *f, const sm_manifest_t *m)
{
  return fprintf(f, "block_size %zu header %" PRIu64 "\n", m->block_size, m->header_end);
}

/* Read an existing manifest; returns SM_OK, SM_EINCONSIST or SM_EFORMAT. */
static sm_err_t read_manifest(sm_manifest_t *m, FILE *f, const char *fingerprint)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int lineno = 0, sizes = 0;
  sm_err_t err = SM_OK;
  while ((n = getline(&line, &cap, f)) > 0) {
    lineno++;
    if (line[n - 1] != '\n')
      break; /* an incomplete last line: not trusted */
    line[n - 1] = 0;
    if (lineno == 1) {
      if (strncmp(line, SM_MANIFEST_MAGIC " ", strlen(SM_MANIFEST_MAGIC) + 1) ||
          strcmp(line + strlen(SM_MANIFEST_MAGIC) + 1, fingerprint)) {
        sm_log_error("%s: this manifest was written by a different run (%s); the "
                     "current command is (%s); rerun without --resume to start over",
                     m->path, line, fingerprint);
        err = SM_EINCONSIST;
        break;
      }
      continue;
    }
    if (lineno == 2) {
      unsigned long long bs, he;
      if (sscanf(line, "block_size %llu header %llu", &bs, &he) != 2) {
        sm_log_error("%s:2: malformed manifest line; rerun without --resume", m->path);
        err = SM_EFORMAT;
        break;
      }
      if (bs == 0 || bs > UINT32_MAX) {
        sm_log_error("%s:2: tile size %llu is not a tile size starmet uses; the manifest "
                     "is damaged: rerun without --resume",
                     m->path, bs);
        err = SM_EFORMAT;
        break;
      }
      m->block_size = (size_t)bs;
      m->header_end = he;
      sizes = 1;
      continue;
    }
    sm_resume_entry_t e;
    if (sscanf(line,
               "B %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNx64 " %" SCNx64
               " %" SCNx64 " %" SCNu64,
               &e.block, &e.end_off, &e.count, &e.nvalues, &e.cksum.sum_lo,
               &e.cksum.sum_hi, &e.cksum.hash, &e.cksum.count) != 8)
      break; /* torn write: ignore this and what follows */
    /* blocks are appended in the order they were written */
    uint64_t prev_end = m->ndone ? m->done[m->ndone - 1].end_off : m->header_end;
    if (e.end_off < prev_end) {
      sm_log_error("%s:%d: block %llu ends at byte %llu, before the previous entry "
                   "(%llu); the manifest is damaged: rerun without --resume",
                   m->path, lineno, (unsigned long long)e.block,
                   (unsigned long long)e.end_off, (unsigned long long)prev_end);
      err = SM_EFORMAT;
      break;
    }
    if ((err = push_entry(&m->done, &m->ndone, &m->cap, &e)))
      break;
  }
  free(line);
  if (!err && lineno < 1) {
    sm_log_error("%s: manifest is incomplete; rerun without --resume", m->path);
    err = SM_EFORMAT;
  }
  if (!err && !sizes)
    m->block_size = 0;  /* stopped before its tile size was known: nothing done */
  if (!err && m->ndone) /* (qsort's base may not be NULL, even for 0 items) */
    qsort(m->done, m->ndone, sizeof *m->done, cmp_entry);
  for (size_t k = 1; !err && k < m->ndone; k++)
    if (m->done[k].block == m->done[k - 1].block) {
      sm_log_error("%s: block %llu is recorded twice; the manifest is damaged: rerun "
                   "without --resume",
                   m->path, (unsigned long long)m->done[k].block);
      err = SM_EFORMAT;
    }
  m->cap = 0;
  return err;
}

sm_err_t sm_manifest_open(sm_manifest_t *m, const char *path, const char *fingerprint,
                          int resume, size_t *block_size, int *resumed)
{
  memset(m, 0, sizeof *m);
  *resumed = 0;
  m->path = strdup(path);
  m->fingerprint = strdup(fingerprint);
  if (!m->path || !m->fingerprint)
    return SM_ENOMEM;
  m->block_size = *block_size;
  /* a run holds its manifest locked while it writes it: refuse to take
   * over the manifest of a run that is still going */
  FILE *old = fopen(path, "r");
  if (old && sm_commit_lock(old) != SM_OK) {
    sm_log_error("%s: %s", path, sm_commit_strerror(errno));
    fclose(old);
    return SM_EIO;
  }
  if (old && !resume) {
    fclose(old);
    old = NULL;
  }
  sm_err_t err = SM_OK;
  if (old) {
    err = read_manifest(m, old, fingerprint);
    fclose(old);
    if (err)
      return err;
    if (m->block_size) {
      *block_size = m->block_size;
      *resumed = 1;
    } else {
      m->block_size = *block_size;
    }
  }
  /* rewrite it from what is trusted (drops a torn tail) */
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".new", 0, "w") != SM_OK) {
    sm_log_error("%s: cannot create the resume manifest: %s", c.tmp,
                 sm_commit_strerror(errno));
    return SM_EIO;
  }
  int bad = fprintf(c.f, "%s %s\n", SM_MANIFEST_MAGIC, fingerprint) < 0;
  if (*resumed) {
    bad |= put_sizes(c.f, m) < 0;
    for (size_t k = 0; k < m->ndone; k++)
      bad |= put_entry(c.f, &m->done[k]) < 0;
  }
  /* the file stays open under its final name: blocks are appended to it */
  if (bad || sm_commit_sync(&c) != SM_OK || sm_commit_rename(&c) != SM_OK) {
    sm_log_error("%s: cannot write the resume manifest: %s", path,
                 sm_commit_strerror(errno));
    sm_commit_abort(&c);
    return SM_EIO;
  }
  m->f = c.f;
  m->last_sync = sm_now();
  return SM_OK;
}

sm_err_t sm_manifest_header(sm_manifest_t *m, uint64_t header_end)
{
  m->header_end = header_end;
  if (put_sizes(m->f, m) < 0 || fflush(m->f) != 0) {
    sm_log_error("%s: cannot write the resume manifest: %s", m->path,
                 sm_commit_strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

sm_err_t sm_manifest_add(sm_manifest_t *m, const sm_resume_entry_t *e, int out_fd,
                         int force)
{
  if (e && push_entry(&m->pending, &m->npending, &m->cap, e) != SM_OK)
    return SM_ENOMEM;
  double now = sm_now();
  if (!m->npending || (!force && now - m->last_sync < 0.5))
    return SM_OK;
  /* the output bytes first, then the lines that vouch for them */
  if (out_fd >= 0 && fsync(out_fd) != 0 && errno != EINVAL) {
    sm_log_error("%s: cannot sync the output: %s", m->path, strerror(errno));
    return SM_EIO;
  }
  int bad = 0;
  for (size_t k = 0; k < m->npending; k++)
    bad |= put_entry(m->f, &m->pending[k]) < 0;
  bad |= fflush(m->f) != 0 || fsync(fileno(m->f)) != 0;
  if (bad) {
    sm_log_error("%s: cannot write the resume manifest: %s", m->path,
                 sm_commit_strerror(errno));
    return SM_EIO;
  }
  m->npending = 0;
  m->last_sync = now;
  return SM_OK;
}

int sm_manifest_is_done(const sm_manifest_t *m, uint64_t block)
{
  sm_resume_entry_t key = {.block = block};
  return m->ndone && bsearch(&key, m->done, m->ndone, sizeof key, cmp_entry) != NULL;
}

void sm_manifest_close(sm_manifest_t *m, int done)
{
  if (m->f)
    fclose(m->f);
  if (done && m->path)
    unlink(m->path);
  free(m->path);
  free(m->fingerprint);
  free(m->done);
  free(m->pending);
  memset(m, 0, sizeof *m);
}
