/* sm_read_util.c: helpers shared by the input readers (sm_read_tsv.c,
 * sm_read_npy.c, sm_read_plink.c, sm_read_raw.c, sm_read_vcf.c): slice
 * checks, exact positioned reads, slices of fixed-size vectors,
 * czekanowski value storing and checking, the loci of genotype inputs. */
#include "sm_read_util.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void sm_read_begin(sm_vectors_t *out, sm_dims_t *dims)
{
  memset(out, 0, sizeof *out);
  if (dims)
    memset(dims, 0, sizeof *dims);
}

sm_err_t sm_read_end(sm_err_t err, sm_vectors_t *out, sm_dims_t *dims, size_t nv,
                     size_t nf)
{
  if (err) {
    sm_vectors_free(out);
    memset(out, 0, sizeof *out);
    return err;
  }
  if (out->metric == SM_METRIC_CCC)
    sm_vectors_count_missing(out);
  if (dims) {
    dims->nv = nv;
    dims->nf = nf;
  }
  return SM_OK;
}

sm_err_t sm_read_slice_axis(const char *path, const char *what, size_t n, size_t start,
                            size_t count, size_t *kept)
{
  if (start >= n || count > n - start) {
    char range[64];
    if (count)
      snprintf(range, sizeof range, "%zu..%zu", start + 1, start + count);
    else
      snprintf(range, sizeof range, "from %zu on", start + 1);
    sm_log_error("%s: %ss %s requested but the input has %zu %ss; adjust the "
                 "%s range",
                 path, what, range, n, what, what);
    return SM_EOPTION;
  }
  *kept = count ? count : n - start;
  return SM_OK;
}

sm_err_t sm_read_open(const char *path, const sm_stream_rule_t *rule, int *fd,
                      size_t *size)
{
  struct stat st;
  char src[4200];
  *fd = -1;
  sm_err_t err = sm_stream_source(path, rule, src, sizeof src);
  if (err)
    return err;
  *fd = open(src, O_RDONLY | O_CLOEXEC);
  if (*fd < 0 || fstat(*fd, &st) != 0) {
    sm_log_error("%s: cannot open: %s; check the path", path, strerror(errno));
    if (*fd >= 0)
      close(*fd);
    *fd = -1;
    return SM_EIO;
  }
  *size = (size_t)st.st_size;
  return SM_OK;
}

int sm_read_at(int fd, void *buf, size_t n, off_t off)
{
  char *p = buf;
  while (n > 0) {
    ssize_t r = pread(fd, p, n, off);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return errno;
    if (r == 0)
      return EIO;
    p += r;
    n -= (size_t)r;
    off += r;
  }
  return 0;
}

/* Rows read at once: 4 MiB, or one row when rows are larger. */
#define SM_READ_CHUNK ((size_t)4 << 20)

/* The file's vector that is row i of the rows read from v0. */
static size_t file_vector(const sm_read_rows_t *r, size_t v0, size_t i)
{
  return r->map ? r->map[v0 + i] : v0 + i;
}

sm_err_t sm_read_rows(const sm_read_rows_t *r, size_t v0, size_t n, sm_read_row_fn fn,
                      void *ctx)
{
  /* Consecutive vectors whose bytes follow one another in the file (the
   * bytes between two, when a slice reads part of each, no more than a
   * row's) are read together, up to SM_READ_CHUNK bytes a system call:
   * one pread per row was a third of reading a 200,000-SNP .bed. */
  const int join = r->stride > 0 && r->stride >= r->nbytes &&
                   r->stride - r->nbytes <= r->nbytes && n > 1;
  size_t per = 1; /* rows a read may hold */
  if (join && SM_READ_CHUNK / r->stride > 1)
    per = SM_READ_CHUNK / r->stride < n ? SM_READ_CHUNK / r->stride : n;
  const size_t cap = (per - 1) * r->stride + r->nbytes;
  unsigned char *buf = malloc(cap ? cap : 1);
  if (!buf) {
    sm_log_error("%s: out of memory for a %zu-byte row buffer", r->path, cap);
    return SM_ENOMEM;
  }
  sm_err_t err = SM_OK;
  for (size_t i = 0; i < n && !err;) {
    const size_t v = file_vector(r, v0, i);
    const off_t off = r->first + (off_t)(v * r->stride);
    size_t k = 1;
    while (k < per && i + k < n && file_vector(r, v0, i + k) == v + k)
      k++;
    int e = sm_read_at(r->fd, buf, (k - 1) * r->stride + r->nbytes, off);
    if (e && k > 1) { /* row by row from here: the row that fails is named */
      per = k = 1;
      e = sm_read_at(r->fd, buf, r->nbytes, off);
    }
    struct stat st;
    if (e && fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size < off + (off_t)r->nbytes) {
      sm_log_error("%s: cannot read %s %zu (%zu bytes at byte offset %lld): the file "
                   "ends at byte %lld; it was cut short or changed while read: write it "
                   "again",
                   r->path, r->what, v + 1, r->nbytes, (long long)off,
                   (long long)st.st_size);
      err = SM_EIO;
    } else if (e) {
      sm_log_error("%s: cannot read %s %zu (%zu bytes at byte offset %lld): %s", r->path,
                   r->what, v + 1, r->nbytes, (long long)off, strerror(e));
      err = SM_EIO;
    }
    for (size_t j = 0; j < k && !err; j++)
      err = fn(ctx, buf + j * r->stride, v + j, off + (off_t)(j * r->stride), i + j);
    i += k;
  }
  free(buf);
  return err;
}

const char *sm_read_czek_why(double x, size_t elem_size)
{
  if (!(x >= 0.0) || isinf(x))
    return "is not allowed for czekanowski (entries must be finite and >= 0); fix it";
  if (elem_size == 4 && x > FLT_MAX)
    return "is beyond float32's range (at most 3.4e+38) of --precision single: use "
           "--precision double, or scale the input down (the metric does not change "
           "under a common factor)";
  if (elem_size == 4 && x > 0 && x < FLT_MIN)
    return "is below float32's normal range (at least 1.2e-38) of --precision single, "
           "where it would lose its precision or become 0: use --precision double, or "
           "scale the input up (the metric does not change under a common factor)";
  return NULL;
}

void sm_read_store_czek(void *row, size_t elem_size, size_t f, double x)
{
  x += 0.0; /* -0 becomes +0: results are then never -0 (--verify relies on it) */
  if (elem_size == 4)
    ((float *)row)[f] = (float)x;
  else
    ((double *)row)[f] = x;
}

void sm_read_chrom_code(const char *name, char *buf)
{
  const char *s = strncasecmp(name, "chr", 3) ? name : name + 3;
  static const char *const xymt[] = {"X", "Y", "XY", "MT", "M"};
  static const char *const code[] = {"23", "24", "25", "26", "26"};
  for (int k = 0; k < 5; k++)
    if (!strcasecmp(s, xymt[k])) {
      strcpy(buf, code[k]);
      return;
    }
  if (*s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 10) {
    snprintf(buf, 64, "%lu", strtoul(s, NULL, 10));
    return;
  }
  snprintf(buf, 64, "%s", name);
}

/* A chromosome code as a number (autosomes, X 23 ... MT 26), or -1. */
static long code_number(const char *code)
{
  if (!*code || strspn(code, "0123456789") != strlen(code) || strlen(code) > 9)
    return -1;
  return strtol(code, NULL, 10);
}

int sm_read_chr_in(const char *list, const char *name)
{
  char code[64], item[128], a[64], b[64];
  sm_read_chrom_code(name, code);
  const long num = code_number(code);
  int in = 0;
  for (const char *p = list;;) {
    const size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof item)
      return -1;
    memcpy(item, p, n);
    item[n] = 0;
    const char *dash = strchr(item + 1, '-'); /* (a name may not start a range) */
    if (dash) {
      char lo[64], hi[64];
      snprintf(lo, sizeof lo, "%.*s", (int)(dash - item), item);
      snprintf(hi, sizeof hi, "%s", dash + 1);
      sm_read_chrom_code(lo, a);
      sm_read_chrom_code(hi, b);
      const long x = code_number(a), y = code_number(b);
      if (x < 0 || y < x)
        return -1;
      in |= num >= x && num <= y;
    } else {
      sm_read_chrom_code(item, a);
      in |= !strcmp(a, code);
    }
    p += n;
    if (!*p)
      return in;
    p++;
  }
}

int sm_read_haploid_chrom(const char *name)
{
  char c[64];
  sm_read_chrom_code(name, c);
  return !strcmp(c, "23") ? SM_HAP_X : !strcmp(c, "24") ? SM_HAP_Y : SM_HAP_NONE;
}

long sm_loci_chrom(sm_loci_t *out, const char *name)
{
  /* inputs keep a chromosome's variants together: the last one first,
   * by its name; then by PLINK's code ("chr5" and "5" are one) */
  if (out->nchrom && !strcmp(out->chrom_names[out->nchrom - 1], name))
    return (long)out->nchrom - 1;
  char code[64];
  sm_read_chrom_code(name, code);
  for (size_t k = out->nchrom; k-- > 0;)
    if (!strcmp(out->chrom_codes[k], code))
      return (long)k;
  char **grown = realloc(out->chrom_names, (out->nchrom + 1) * sizeof *grown);
  if (!grown)
    return -1;
  out->chrom_names = grown;
  char **gc = realloc(out->chrom_codes, (out->nchrom + 1) * sizeof *gc);
  if (!gc)
    return -1;
  out->chrom_codes = gc;
  if (!(grown[out->nchrom] = strdup(name)))
    return -1;
  if (!(gc[out->nchrom] = strdup(code))) {
    free(grown[out->nchrom]);
    return -1;
  }
  return (long)out->nchrom++;
}

int sm_loci_add(sm_loci_t *out, size_t *cap, const char *chrom, uint32_t pos,
                const char *id)
{
  if (out->n == *cap) {
    const size_t c = *cap ? 2 * *cap : 4096;
    uint32_t *ch = realloc(out->chrom, c * sizeof *ch);
    if (ch)
      out->chrom = ch;
    uint32_t *p = realloc(out->pos, c * sizeof *p);
    if (p)
      out->pos = p;
    char **ids = id ? realloc(out->ids, c * sizeof *ids) : NULL;
    if (ids)
      out->ids = ids;
    if (!ch || !p || (id && !ids))
      return -1;
    *cap = c;
  }
  const long k = sm_loci_chrom(out, chrom);
  if (k < 0 || (id && !(out->ids[out->n] = strdup(id))))
    return -1;
  out->chrom[out->n] = (uint32_t)k;
  out->pos[out->n++] = pos;
  return 0;
}

int sm_loci_alleles(sm_loci_t *out, size_t cap, const char *a1, const char *a2)
{
  if (!out->akind || cap > out->akind_cap) {
    unsigned char *k = realloc(out->akind, cap ? cap : 1);
    if (!k)
      return -1;
    out->akind = k, out->akind_cap = cap;
  }
  int kind = a1[0] && !a1[1] && a2[0] && !a2[1] ? SM_ALLELES_SNV : 0;
  if (kind && strchr("ACGTacgt0", a1[0]) && strchr("ACGTacgt0", a2[0]))
    kind |= SM_ALLELES_ACGT;
  out->akind[out->n - 1] = (unsigned char)kind;
  return 0;
}

void sm_loci_keep(sm_loci_t *l, const uint32_t *sel, size_t n)
{
  for (size_t k = 0, i = 0; l->ids && i < l->n; i++) { /* the others' ids freed */
    if (k < n && sel[k] == i)
      k++;
    else
      free(l->ids[i]), l->ids[i] = NULL;
  }
  for (size_t k = 0; k < n; k++) { /* sel[k] >= k: moved down in order */
    l->chrom[k] = l->chrom[sel[k]];
    l->pos[k] = l->pos[sel[k]];
    if (l->ids)
      l->ids[k] = l->ids[sel[k]];
    if (l->akind)
      l->akind[k] = l->akind[sel[k]];
  }
  l->n = n;
}

void sm_loci_free(sm_loci_t *l)
{
  for (size_t k = 0; k < l->nchrom; k++)
    free(l->chrom_names[k]), free(l->chrom_codes[k]);
  free(l->chrom_names);
  free(l->chrom_codes);
  for (size_t i = 0; l->ids && i < l->n; i++)
    free(l->ids[i]);
  free(l->ids);
  free(l->akind);
  free(l->chrom);
  free(l->pos);
  memset(l, 0, sizeof *l);
}

enum { VAR_ID_ALLELE_MAX = 23 }; /* plink1.9's --new-id-max-allele-len */

char *sm_read_var_id(const char *tmpl, const char *id, const char *chrom, uint64_t bp,
                     const char *a1, const char *a2)
{
  if (!tmpl || strcmp(id, "."))
    return strdup(id);
  const int order = strcmp(a1, a2) <= 0;
  const char *lo = order ? a1 : a2, *hi = order ? a2 : a1;
  const size_t cap = strlen(tmpl) + strlen(chrom) + 2 * VAR_ID_ALLELE_MAX + 24;
  char *out = malloc(cap), *p = out;
  for (const char *t = tmpl; out && *t; t++) {
    const size_t room = cap - (size_t)(p - out);
    if (*t == '@')
      p += snprintf(p, room, "%s", chrom);
    else if (*t == '#')
      p += snprintf(p, room, "%llu", (unsigned long long)bp);
    else if (*t == '$' && (t[1] == '1' || t[1] == '2'))
      p += snprintf(p, room, "%.*s", VAR_ID_ALLELE_MAX, *++t == '1' ? lo : hi);
    else
      *p++ = *t;
  }
  if (out)
    *p = '\0';
  return out;
}

int sm_read_var_id_template_ok(const char *tmpl)
{
  int at = 0, hash = 0, d1 = 0, d2 = 0, dollar = 0;
  for (const char *t = tmpl; *t; t++) {
    at += *t == '@', hash += *t == '#', dollar += *t == '$';
    if (*t == '$' && t[1] == '1')
      d1++;
    if (*t == '$' && t[1] == '2')
      d2++;
  }
  return at == 1 && hash == 1 && (dollar == 0 || (dollar == 2 && d1 == 1 && d2 == 1));
}
