/* sm_resume.c: the resume manifest: a header line with the run's
 * fingerprint, one with the tile size and the output header's size and
 * CRC, then one line per completed output block, and last, once the job
 * commits, the commit line with the final header's CRC. The lines after
 * the first end with their own CRC-32C; a last line cut short (the run
 * died while writing it) is dropped, any other line that does not check
 * out makes the resume refuse. */
#include "sm_resume.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_commit.h"
#include "sm_crc32c.h"
#include "sm_timer.h"

#define SM_MANIFEST_NAME "starmet-manifest"
#define SM_MANIFEST_MAGIC SM_MANIFEST_NAME " 2"

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

static int cmp_line(const void *a, const void *b)
{
  unsigned x = ((const sm_resume_entry_t *)a)->line,
           y = ((const sm_resume_entry_t *)b)->line;
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

/* A line: text, a blank and its CRC-32C; negative when the write failed. */
static int put_line(FILE *f, const char *text, int len)
{
  if (len < 0)
    return -1;
  return fprintf(f, "%s %08" PRIx32 "\n", text, sm_crc32c(0, text, (size_t)len));
}

/* One block's line. */
static int put_entry(FILE *f, const sm_resume_entry_t *e)
{
  char t[256];
  return put_line(f, t,
                  snprintf(t, sizeof t,
                           "B %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIx64
                           " %" PRIx64 " %" PRIx64 " %" PRIu64 " %08" PRIx32,
                           e->block, e->end_off, e->count, e->nvalues, e->cksum.sum_lo,
                           e->cksum.sum_hi, e->cksum.hash, e->cksum.count, e->bytes_crc));
}

/* The line with the tile size and the output header's size and CRC. */
static int put_sizes(FILE *f, const sm_manifest_t *m)
{
  char t[128];
  return put_line(f, t,
                  snprintf(t, sizeof t, "block_size %zu header %" PRIu64 " %08" PRIx32,
                           m->block_size, m->header_end, m->header_crc));
}

/* Cut a line's CRC off (in place) and check it: 1 when it checks out. */
static int line_checks(char *line)
{
  char *sp = strrchr(line, ' ');
  if (!sp || strlen(sp + 1) != 8 || strspn(sp + 1, "0123456789abcdef") != 8)
    return 0;
  const uint32_t want = (uint32_t)strtoul(sp + 1, NULL, 16);
  *sp = 0;
  return sm_crc32c(0, line, (size_t)(sp - line)) == want;
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
    if (lineno == 1 &&
        strncmp(line, SM_MANIFEST_MAGIC " ", strlen(SM_MANIFEST_MAGIC) + 1) &&
        !strncmp(line, SM_MANIFEST_NAME " ", strlen(SM_MANIFEST_NAME) + 1)) {
      sm_log_error("%s: this manifest was written by another version of starmet (%.20s); "
                   "rerun without --resume to start over",
                   m->path, line);
      err = SM_EINCONSIST;
      break;
    }
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
    if (!line_checks(line)) {
      sm_log_error("%s:%d: this line of the manifest is damaged (it does not match its "
                   "checksum): rerun without --resume",
                   m->path, lineno);
      err = SM_EFORMAT;
      break;
    }
    if (lineno == 2) {
      unsigned long long bs, he;
      unsigned hc;
      if (sscanf(line, "block_size %llu header %llu %x", &bs, &he, &hc) != 3) {
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
      m->header_crc = (uint32_t)hc;
      sizes = 1;
      continue;
    }
    unsigned fc;
    if (line[0] == 'C' && sscanf(line, "C %x", &fc) == 1) {
      m->complete = 1; /* the last line: the job was renaming its files */
      m->final_crc = (uint32_t)fc;
      continue;
    }
    if (m->complete) {
      sm_log_error("%s:%d: a block line after the commit line; the manifest is damaged: "
                   "rerun without --resume",
                   m->path, lineno);
      err = SM_EFORMAT;
      break;
    }
    sm_resume_entry_t e = {.line = (unsigned)lineno};
    if (sscanf(line,
               "B %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNx64 " %" SCNx64
               " %" SCNx64 " %" SCNu64 " %" SCNx32,
               &e.block, &e.end_off, &e.count, &e.nvalues, &e.cksum.sum_lo,
               &e.cksum.sum_hi, &e.cksum.hash, &e.cksum.count, &e.bytes_crc) != 9) {
      sm_log_error("%s:%d: not a block line of a manifest: rerun without --resume",
                   m->path, lineno);
      err = SM_EFORMAT;
      break;
    }
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

sm_err_t sm_manifest_read(sm_manifest_t *m, const char *path, const char *fingerprint,
                          int resume)
{
  memset(m, 0, sizeof *m);
  m->path = strdup(path);
  m->fingerprint = strdup(fingerprint);
  if (!m->path || !m->fingerprint)
    return SM_ENOMEM;
  /* a run holds its manifest locked while it writes it: refuse to take
   * over the manifest of a run that is still going */
  FILE *old = fopen(path, "r");
  if (!old)
    return SM_OK;
  if (sm_commit_lock(old) != SM_OK) {
    sm_log_error("%s: %s", path, sm_commit_strerror(errno));
    fclose(old);
    return SM_EIO;
  }
  if (!resume) {
    fclose(old);
    return SM_OK;
  }
  sm_err_t err = read_manifest(m, old, fingerprint);
  fclose(old);
  if (!err && !m->block_size) /* stopped before its tile size was known */
    sm_manifest_forget(m);
  return err;
}

void sm_manifest_forget(sm_manifest_t *m)
{
  m->ndone = 0;
  m->complete = 0;
  m->block_size = 0;
}

sm_err_t sm_manifest_begin(sm_manifest_t *m, size_t block_size, uint64_t header_end,
                           uint32_t header_crc)
{
  if (!m->ndone) { /* nothing kept: the new file's header */
    m->header_end = header_end;
    m->header_crc = header_crc;
  }
  m->block_size = block_size;
  m->complete = 0;
  sm_commit_t c;
  if (sm_commit_open(&c, m->path, ".new", 0, "w") != SM_OK) {
    sm_log_error("%s: cannot create the resume manifest: %s", c.tmp,
                 sm_commit_strerror(errno));
    return SM_EIO;
  }
  int bad = fprintf(c.f, "%s %s\n", SM_MANIFEST_MAGIC, m->fingerprint) < 0;
  bad |= put_sizes(c.f, m) < 0;
  /* the kept blocks in the order they were written */
  sm_resume_entry_t *e = m->ndone ? malloc(m->ndone * sizeof *e) : NULL;
  if (m->ndone && !e) {
    sm_commit_abort(&c);
    sm_log_error("%s: out of memory rewriting the resume manifest", m->path);
    return SM_ENOMEM;
  }
  if (m->ndone) {
    memcpy(e, m->done, m->ndone * sizeof *e);
    qsort(e, m->ndone, sizeof *e, cmp_line);
  }
  for (size_t k = 0; k < m->ndone; k++)
    bad |= put_entry(c.f, &e[k]) < 0;
  free(e);
  /* the file stays open under its final name: blocks are appended to it */
  if (bad || sm_commit_sync(&c) != SM_OK || sm_commit_rename(&c) != SM_OK) {
    sm_log_error("%s: cannot write the resume manifest: %s", m->path,
                 sm_commit_strerror(errno));
    sm_commit_abort(&c);
    return SM_EIO;
  }
  m->f = c.f;
  m->last_sync = sm_now();
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

void sm_manifest_close(sm_manifest_t *m, int remove)
{
  if (m->f)
    fclose(m->f);
  if (remove && m->path)
    unlink(m->path);
  free(m->path);
  free(m->fingerprint);
  free(m->done);
  free(m->pending);
  memset(m, 0, sizeof *m);
}

/* The completed blocks in the order they were written (malloc'd; NULL
 * when there are none or no memory: *n then tells). */
static sm_resume_entry_t *in_file_order(const sm_manifest_t *m, size_t *n)
{
  *n = 0;
  sm_resume_entry_t *e = m->ndone ? malloc(m->ndone * sizeof *e) : NULL;
  if (!e)
    return NULL;
  memcpy(e, m->done, m->ndone * sizeof *e);
  qsort(e, m->ndone, sizeof *e, cmp_line);
  *n = m->ndone;
  return e;
}

/* Check fd against the manifest: *bad gets the index (in e, file order)
 * of the first block whose bytes differ or are missing, n when all check
 * out; -1 when the header itself does not. *cut is 1 when the file ends
 * first (else 0). SM_EIO with errno set when it cannot be read. */
static sm_err_t first_bad(const sm_manifest_t *m, const sm_resume_entry_t *e, size_t n,
                          int fd, long *bad, int *cut, uint32_t *head_crc)
{
  uint32_t crc = 0;
  *cut = 0;
  sm_err_t err = sm_crc32c_fd(fd, 0, m->header_end, &crc);
  if (err == SM_EIO && errno)
    return err;
  if (err || (crc != m->header_crc && !(m->complete && crc == m->final_crc))) {
    *cut = err != SM_OK;
    *bad = -1;
    return SM_OK;
  }
  *head_crc = crc;
  uint64_t start = m->header_end;
  for (size_t k = 0; k < n; k++) {
    err = sm_crc32c_fd(fd, start, e[k].end_off - start, &crc);
    if (err == SM_EIO && errno)
      return err;
    if (err || crc != e[k].bytes_crc) {
      *cut = err != SM_OK;
      *bad = (long)k;
      return SM_OK;
    }
    start = e[k].end_off;
  }
  *bad = (long)n;
  return SM_OK;
}

sm_err_t sm_manifest_trim(sm_manifest_t *m, int fd, const char *part, uint64_t *kept_end,
                          uint32_t *kept_crc)
{
  *kept_end = 0;
  *kept_crc = 0;
  if (!m->ndone) {
    sm_manifest_forget(m);
    return SM_OK;
  }
  size_t n;
  sm_resume_entry_t *e = in_file_order(m, &n);
  if (!e) {
    sm_log_error("%s: out of memory checking the partial output", part);
    return SM_ENOMEM;
  }
  long bad;
  int cut;
  uint32_t head = 0;
  if (first_bad(m, e, n, fd, &bad, &cut, &head) != SM_OK) {
    sm_log_error("%s: cannot read the partial output: %s", part, strerror(errno));
    free(e);
    return SM_EIO;
  }
  const int final_header = bad >= 0 && m->complete && m->header_crc != m->final_crc;
  if (bad < 0 || (final_header && (size_t)bad < n)) {
    sm_log_warn(
        "%s: %s: the partial output was changed since the run stopped; "
        "computing its %zu completed blocks again",
        part, cut ? "shorter than its header" : "its header is not the one recorded", n);
    sm_manifest_forget(m);
  } else if ((size_t)bad < n) {
    const uint64_t from = bad ? e[bad - 1].end_off : m->header_end;
    sm_log_warn("%s: block %" PRIu64 " (line %u of %s, bytes %" PRIu64 "..%" PRIu64
                ") %s: the partial output was changed since the run stopped (or a line "
                "of the manifest before it is missing); computing it and the %zu blocks "
                "written after it again",
                part, e[bad].block, e[bad].line, m->path, from, e[bad].end_off,
                cut ? "is cut short" : "does not hold what the manifest records for it",
                n - (size_t)bad - 1);
    /* keep what was written before it, in id order for lookups */
    memcpy(m->done, e, (size_t)bad * sizeof *e);
    m->ndone = (size_t)bad;
    if (m->ndone)
      qsort(m->done, m->ndone, sizeof *m->done, cmp_entry);
    else
      sm_manifest_forget(m);
  }
  if (m->ndone) { /* the kept bytes' CRC, from what the manifest vouches for */
    uint32_t crc = head;
    uint64_t start = m->header_end;
    for (size_t k = 0; k < m->ndone; k++) {
      crc = sm_crc32c_combine(crc, e[k].bytes_crc, e[k].end_off - start);
      start = e[k].end_off;
    }
    *kept_end = start;
    *kept_crc = crc;
  }
  free(e);
  return SM_OK;
}

sm_err_t sm_manifest_mark_complete(sm_manifest_t *m, uint32_t final_crc)
{
  char t[32];
  if (put_line(m->f, t, snprintf(t, sizeof t, "C %08" PRIx32, final_crc)) < 0 ||
      fflush(m->f) != 0 || fsync(fileno(m->f)) != 0) {
    sm_log_error("%s: cannot write the resume manifest: %s", m->path, strerror(errno));
    return SM_EIO;
  }
  m->complete = 1;
  m->final_crc = final_crc;
  return SM_OK;
}

void sm_manifest_locate(const sm_manifest_t *m, int fd, const char *part)
{
  sm_manifest_t disk = {.path = m->path};
  FILE *f = fopen(m->path, "r");
  if (!f)
    return;
  const sm_err_t err = read_manifest(&disk, f, m->fingerprint);
  fclose(f);
  size_t n = 0;
  sm_resume_entry_t *e = err ? NULL : in_file_order(&disk, &n);
  long bad;
  int cut;
  uint32_t head;
  if (e && first_bad(&disk, e, n, fd, &bad, &cut, &head) == SM_OK) {
    if (bad < 0)
      sm_log_error("%s: its header (%" PRIu64 " bytes) is not the one written", part,
                   disk.header_end);
    else if ((size_t)bad < n)
      sm_log_error(
          "%s: block %" PRIu64 " (bytes %" PRIu64 "..%" PRIu64 ") %s", part, e[bad].block,
          bad ? e[bad - 1].end_off : disk.header_end, e[bad].end_off,
          cut ? "is missing: the file is shorter" : "does not hold what was written");
  }
  free(e);
  free(disk.done);
}
