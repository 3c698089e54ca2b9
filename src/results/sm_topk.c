/* sm_topk.c: writing the nearest-neighbour lists. */
#include "sm_topk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sm_bytes.h"
#include "sm_commit.h"
#include "sm_output.h"

/* One TSV row, names escaped as in the result TSV (sm_put_vector_id); < 0
 * on a write error. */
static int put_tsv(FILE *f, const sm_topk_file_t *t, uint32_t v, uint32_t rank,
                   const sm_topk_ent_t *x)
{
  int bad = sm_put_vector_id(f, t->names, v) < 0;
  bad |= fprintf(f, "\t%u\t", rank) < 0;
  bad |= sm_put_vector_id(f, t->names, x->nb) < 0;
  if (t->ccc)
    bad |= fprintf(f, "\t%u\t%u", (x->entry >> 1) & 1u, x->entry & 1u) < 0;
  if (t->single)
    bad |= fprintf(f, "\t%.9g\n", (double)(float)x->value) < 0;
  else
    bad |= fprintf(f, "\t%.17g\n", x->value) < 0;
  return bad ? -1 : 0;
}

/* One binary record: uint32 vector, rank, neighbour, [uint8 entry], value. */
static int put_bin(FILE *f, const sm_topk_file_t *t, uint32_t v, uint32_t rank,
                   const sm_topk_ent_t *x)
{
  unsigned char b[32];
  size_t n = 0;
  sm_put_le32(b, v);
  sm_put_le32(b + 4, rank);
  sm_put_le32(b + 8, x->nb);
  n = 12;
  if (t->ccc)
    b[n++] = (unsigned char)x->entry;
  n += sm_put_value(b + n, x->value, t->single);
  return fwrite(b, 1, n, f) == n ? 0 : -1;
}

static int put_header(FILE *f, const sm_topk_file_t *t, unsigned long long nrows)
{
  if (!t->binary)
    return fputs(t->ccc ? "vector\trank\tneighbour\ta\tb\tvalue\n"
                        : "vector\trank\tneighbour\tvalue\n",
                 f) == EOF
               ? -1
               : 0;
  unsigned char h[SM_BIN_HEADER];
  sm_bin_header(h, "STARTOPK", 2, t->ccc, t->single, t->nv, t->nf, nrows);
  sm_put_le32(h + 48, t->spec->k);
  sm_put_le32(h + 52, t->spec->by_max || !t->ccc ? 1 : 0);
  return fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : -1;
}

sm_err_t sm_topk_write(const char *path, const sm_topk_file_t *t,
                       unsigned long long *nrows)
{
  const uint32_t k = t->spec->k, L = t->spec->lists;
  unsigned long long rows = 0; /* known first: the binary header says it */
  for (size_t p = 0; p < t->nv * L * k; p++)
    rows += t->lists[p].nb != SM_TOPK_EMPTY;
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 0, "wb") != SM_OK) {
    sm_log_error("%s: cannot create the neighbour lists: %s%s", c.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    return SM_EIO;
  }
  setvbuf(c.f, NULL, _IOFBF, 1 << 20);
  int bad = put_header(c.f, t, rows);
  for (size_t v = 0; v < t->nv && !bad; v++)
    for (uint32_t l = 0; l < L && !bad; l++) {
      const sm_topk_ent_t *list = t->lists + (v * L + l) * k;
      for (uint32_t r = 0; r < k && list[r].nb != SM_TOPK_EMPTY && !bad; r++)
        bad = t->binary ? put_bin(c.f, t, (uint32_t)v, r + 1, &list[r])
                        : put_tsv(c.f, t, (uint32_t)v, r + 1, &list[r]);
    }
  if (bad || sm_commit_finish(&c) != SM_OK) {
    sm_log_error("%s: cannot write the neighbour lists: %s", path,
                 sm_commit_strerror(errno));
    sm_commit_abort(&c);
    return SM_EIO;
  }
  *nrows = rows;
  return SM_OK;
}
