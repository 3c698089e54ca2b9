/* sm_read_plink.c: PLINK 1 binary filesets (prefix.bed/.bim/.fam, SNP-major)
 * for CCC. The .bim and .fam are read whole (to count SNPs and samples and
 * keep the slice's SNP ids); the .bed slice is read by file offset. */
#include "sm_read.h"
#include "sm_read_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Packed rows are filled by copying .bed bytes into uint64_t words. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm_read_plink.c assumes a little-endian host"
#endif

/* Split a line in place into whitespace-separated words; returns how many
 * there are (only the first max are stored). */
static size_t split_words(char *s, char **w, size_t max)
{
  size_t n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(s, " \t\r\n", &save); tok;
       tok = strtok_r(NULL, " \t\r\n", &save)) {
    if (n < max)
      w[n] = tok;
    n++;
  }
  return n;
}

/* The .bim file: counts the SNPs (non-empty lines), checks that each has 6
 * columns, and keeps the ids of SNPs [v0, v0 + vcount) (vcount 0: to the
 * end) in *ids (grown as needed, *nids of them). */
static sm_err_t read_bim(const char *path, size_t v0, size_t vcount, size_t *nsnp,
                         char ***ids, size_t *nids)
{
  sm_err_t err = SM_OK;
  char *line = NULL;
  size_t cap = 0, idcap = 0, lineno = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    sm_log_error("%s: cannot open: %s; a PLINK fileset needs prefix.bed, "
                 "prefix.bim and prefix.fam",
                 path, strerror(errno));
    return SM_EIO;
  }
  *nsnp = 0;
  while (getline(&line, &cap, f) >= 0) {
    lineno++;
    char *w[6];
    size_t n = split_words(line, w, 6);
    if (n == 0)
      continue;
    if (n != 6) {
      sm_log_error("%s:%zu: expected 6 columns (chrom, id, cm, pos, A1, A2), "
                   "found %zu; check the .bim file",
                   path, lineno, n);
      err = SM_EFORMAT;
      goto done;
    }
    size_t k = (*nsnp)++;
    if (k < v0 || (vcount && k >= v0 + vcount))
      continue;
    if (*nids == idcap) {
      idcap = idcap ? 2 * idcap : 1024;
      char **grown = realloc(*ids, idcap * sizeof *grown);
      if (!grown)
        goto nomem;
      *ids = grown;
    }
    if (!((*ids)[*nids] = strdup(w[1])))
      goto nomem;
    (*nids)++;
  }
  if (ferror(f)) {
    sm_log_error("%s: read error after line %zu: %s", path, lineno, strerror(errno));
    err = SM_EIO;
  }
  goto done;
nomem:
  sm_log_error("%s:%zu: out of memory for the SNP ids", path, lineno);
  err = SM_ENOMEM;
done:
  free(line);
  fclose(f);
  return err;
}

/* The .fam file: the number of samples is its number of non-empty lines. */
static sm_err_t count_fam(const char *path, size_t *nsample)
{
  char *line = NULL;
  size_t cap = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    sm_log_error("%s: cannot open: %s; a PLINK fileset needs prefix.bed, "
                 "prefix.bim and prefix.fam",
                 path, strerror(errno));
    return SM_EIO;
  }
  *nsample = 0;
  while (getline(&line, &cap, f) >= 0)
    if (line[strspn(line, " \t\r\n")] != '\0')
      (*nsample)++;
  sm_err_t err = SM_OK;
  if (ferror(f)) {
    sm_log_error("%s: read error: %s", path, strerror(errno));
    err = SM_EIO;
  }
  free(line);
  fclose(f);
  return err;
}

/* Decode samples [f0, f0 + nf) of one SNP (its bytes from f0 / 4 on) into a
 * packed row. CoMet's code is 3 - PLINK's code, i.e. the bitwise NOT of each
 * 2-bit field; so byte-aligned slices are copied, inverted word by word and
 * the bits past nf cleared. Others go field by field. */
static void decode_snp(const unsigned char *buf, size_t f0, size_t nf, uint64_t *row)
{
  if (f0 % 4 == 0) {
    size_t nwords = (nf + SM_GT_PER_WORD - 1) / SM_GT_PER_WORD;
    memcpy(row, buf, (nf + 3) / 4);
    for (size_t w = 0; w < nwords; w++)
      row[w] = ~row[w];
    if (nf % SM_GT_PER_WORD)
      row[nwords - 1] &= ((uint64_t)1 << (2 * (nf % SM_GT_PER_WORD))) - 1;
    return;
  }
  for (size_t f = 0; f < nf; f++) {
    size_t g = f0 % 4 + f; /* sample index relative to the first byte read */
    sm_gt_set(row, f, 3u - ((buf[g / 4] >> (2 * (g % 4))) & 3u));
  }
}

/* What snp_row needs besides the row. */
typedef struct bed_slice {
  size_t f0; /* first sample kept */
  sm_vectors_t *out;
} bed_slice_t;

/* One SNP's bytes into row i of the slice. An sm_read_row_fn. */
static sm_err_t snp_row(void *ctx, const unsigned char *buf, size_t v, off_t off,
                        size_t i)
{
  const bed_slice_t *s = ctx;
  (void)v;
  (void)off;
  decode_snp(buf, s->f0, s->out->nf, sm_vectors_row(s->out, i));
  return SM_OK;
}

/* Open the .bed, check its magic and its size against the counts. */
static sm_err_t open_bed(const char *path, size_t nsnp, size_t nsample, const char *bim,
                         const char *fam, int *fdp)
{
  unsigned char magic[3];
  struct stat st;
  int fd = open(path, O_RDONLY);
  if (fd < 0 || fstat(fd, &st) != 0) {
    sm_log_error("%s: cannot open: %s; a PLINK fileset needs prefix.bed, "
                 "prefix.bim and prefix.fam",
                 path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return SM_EIO;
  }
  sm_err_t err = SM_OK;
  if (st.st_size < 3 || sm_read_at(fd, magic, 3, 0) || magic[0] != 0x6c ||
      magic[1] != 0x1b) {
    sm_log_error("%s: not a PLINK 1 .bed file (bad magic bytes at offset 0); "
                 "re-export it with plink --make-bed",
                 path);
    err = SM_EFORMAT;
  } else if (magic[2] != 0x01) {
    sm_log_error("%s: %s .bed file (mode byte 0x%02x); only SNP-major is "
                 "supported: re-export it with plink --make-bed",
                 path, magic[2] == 0 ? "sample-major" : "unknown-mode", magic[2]);
    err = SM_EFORMAT;
  } else {
    size_t bps = (nsample + 3) / 4;
    size_t want = 3 + nsnp * bps;
    if ((size_t)st.st_size != want) {
      sm_log_error("%s: size is %lld bytes but %zu SNPs (%s) x %zu samples (%s) "
                   "need 3 + %zu x %zu = %zu; the fileset is inconsistent",
                   path, (long long)st.st_size, nsnp, bim, nsample, fam, nsnp, bps, want);
      err = SM_EINCONSIST;
    }
  }
  if (err) {
    close(fd);
    return err;
  }
  *fdp = fd;
  return SM_OK;
}

/* The fileset's names: prefix.bed, .bim and .fam (the prefix may be given
 * with its ".bed"). The caller frees them, also on failure. */
static sm_err_t fileset_names(const char *prefix, char **bed, char **bim, char **fam)
{
  size_t len = strlen(prefix);
  if (len >= 4 && strcmp(prefix + len - 4, ".bed") == 0)
    len -= 4;
  *bed = malloc(len + 5);
  *bim = malloc(len + 5);
  *fam = malloc(len + 5);
  if (!*bed || !*bim || !*fam) {
    sm_log_error("%s: out of memory", prefix);
    return SM_ENOMEM;
  }
  snprintf(*bed, len + 5, "%.*s.bed", (int)len, prefix);
  snprintf(*bim, len + 5, "%.*s.bim", (int)len, prefix);
  snprintf(*fam, len + 5, "%.*s.fam", (int)len, prefix);
  return SM_OK;
}

sm_err_t sm_read_plink(const char *prefix, const sm_read_opts_t *o, sm_vectors_t *out,
                       sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  int fd = -1;
  char *bed = NULL, *bim = NULL, *fam = NULL;
  char **ids = NULL;
  size_t nids = 0, nsnp = 0, nsample = 0;
  sm_read_begin(out, dims);

  if (o->metric != SM_METRIC_CCC) {
    sm_log_error("%s: PLINK genotypes are for the CCC metric; use --metric ccc "
                 "(czekanowski needs TSV, npy or raw input)",
                 prefix);
    err = SM_EOPTION;
    goto fail;
  }
  if ((err = fileset_names(prefix, &bed, &bim, &fam)) ||
      (err = read_bim(bim, o->v0, o->vcount, &nsnp, &ids, &nids)) ||
      (err = count_fam(fam, &nsample)))
    goto fail;
  if (nsnp == 0 || nsample == 0) {
    sm_log_error("%s: no %s", nsnp == 0 ? bim : fam,
                 nsnp == 0 ? "SNPs (no vectors)" : "samples (no fields)");
    err = SM_EDEGEN;
    goto fail;
  }
  if ((err = open_bed(bed, nsnp, nsample, bim, fam, &fd)))
    goto fail;

  size_t nvk, nfk;
  if ((err = sm_read_slice_axis(prefix, "vector", nsnp, o->v0, o->vcount, &nvk)) ||
      (err = sm_read_slice_axis(prefix, "field", nsample, o->f0, o->fcount, &nfk)))
    goto fail;
  if ((err = sm_vectors_alloc(out, SM_METRIC_CCC, 8, nvk, nfk)))
    goto fail;
  /* read_bim kept exactly the slice's ids: hand them over. */
  out->names = ids;
  ids = NULL;

  const sm_read_rows_t rows = {.path = bed,
                               .what = "SNP",
                               .fd = fd,
                               .first = (off_t)(3 + o->f0 / 4),
                               .stride = (nsample + 3) / 4,
                               .nbytes = (o->f0 + nfk + 3) / 4 - o->f0 / 4};
  bed_slice_t slice = {.f0 = o->f0, .out = out};
  err = sm_read_rows(&rows, o->v0, nvk, snp_row, &slice);
fail:
  for (size_t i = 0; ids && i < nids; i++)
    free(ids[i]);
  free(ids);
  if (fd >= 0)
    close(fd);
  free(bed);
  free(bim);
  free(fam);
  return sm_read_end(err, out, dims, nsnp, nsample);
}
