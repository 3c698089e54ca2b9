/* sm_read_plink.c: PLINK 1 binary filesets (prefix.bed/.bim/.fam, SNP-major)
 * for CCC. The .bim and .fam are read whole (to count SNPs and samples and
 * keep the slice's SNP ids); the .bed slice is read by file offset. */
#include "sm_read.h"
#include "sm_read_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Packed rows are filled by copying .bed bytes into uint64_t words. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm_read_plink.c assumes a little-endian host"
#endif

/* Split a line in place into whitespace-separated words; returns how many
 * there are (only the first max are stored). */
static int is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t split_words(char *s, char **w, size_t max)
{
  size_t n = 0;
  for (;;) {
    while (is_blank(*s))
      s++;
    if (!*s)
      return n;
    if (n < max)
      w[n] = s;
    n++;
    while (*s && !is_blank(*s))
      s++;
    if (!*s)
      return n;
    *s++ = '\0';
  }
}

/* A PLINK text file (.bim or .fam) read one record (line) at a time. The
 * rules, as PLINK's format documentation states them: no header or comment
 * line, one line per SNP or sample with exactly 6 whitespace-separated
 * fields, no blank line between them. Blank lines after the last record
 * are accepted (they can shift nothing); PLINK 1.9 itself is more lenient
 * (it skips '#' and blank lines anywhere), but a header read as a sample
 * would be decoded from the .bed's padding bits. */
typedef struct plink_text {
  const char *path;
  const char *kind;   /* "bim", "fam" */
  const char *unit;   /* what a line is: "SNP", "sample" */
  const char *fields; /* the 6 fields PLINK expects, for messages */
  FILE *f;
  char *line;
  size_t cap, lineno;
  size_t blank; /* the first blank line since the last record (0: none) */
} plink_text_t;

static sm_err_t text_open(plink_text_t *t, const char *path, const char *kind,
                          const char *unit, const char *fields)
{
  *t = (plink_text_t){.path = path, .kind = kind, .unit = unit, .fields = fields};
  const sm_stream_rule_t rule = {.text = 1};
  char src[4200];
  sm_err_t err = sm_stream_source(path, &rule, src, sizeof src);
  if (err)
    return err;
  if (!(t->f = fopen(src, "r"))) {
    sm_log_error("%s: cannot open: %s; a PLINK fileset needs prefix.bed, "
                 "prefix.bim and prefix.fam",
                 path, strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

static void text_close(plink_text_t *t)
{
  free(t->line);
  if (t->f)
    fclose(t->f);
}

/* The next record's 6 fields into w (*got = 1), or the end of the file
 * (*got = 0). A line that breaks the rules is logged (file:line, what
 * PLINK expects) and is SM_EFORMAT. */
static sm_err_t text_next(plink_text_t *t, char *w[6], int *got)
{
  ssize_t len;
  *got = 0;
  while ((len = getline(&t->line, &t->cap, t->f)) >= 0) {
    t->lineno++;
    if (memchr(t->line, '\0', (size_t)len)) {
      sm_log_error("%s:%zu: a NUL byte: not a text file; a PLINK .bim/.fam is text, "
                   "one line per %s",
                   t->path, t->lineno, t->unit);
      return SM_EFORMAT;
    }
    const char *first = t->line + strspn(t->line, " \t\r\n");
    if (*first == '\0') {
      if (!t->blank)
        t->blank = t->lineno;
      continue;
    }
    if (t->blank) {
      sm_log_error("%s:%zu: blank line before line %zu; a PLINK .%s has one line per "
                   "%s and no blank line between them: remove it",
                   t->path, t->blank, t->lineno, t->kind, t->unit);
      return SM_EFORMAT;
    }
    if (*first == '#') {
      size_t shown = strcspn(first, "\r\n");
      sm_log_error("%s:%zu: a line starting with '#' ('%.*s%s'): PLINK .fam/.bim files "
                   "have no header line: remove it",
                   t->path, t->lineno, (int)(shown > 40 ? 40 : shown), first,
                   shown > 40 ? "..." : "");
      return SM_EFORMAT;
    }
    size_t n = split_words(t->line, w, 6);
    if (n != 6) {
      sm_log_error("%s:%zu: %zu field%s, but a PLINK .%s line has exactly 6 (%s), "
                   "separated by spaces or tabs",
                   t->path, t->lineno, n, n == 1 ? "" : "s", t->kind, t->fields);
      return SM_EFORMAT;
    }
    *got = 1;
    return SM_OK;
  }
  if (ferror(t->f)) {
    sm_log_error("%s: read error after line %zu: %s", t->path, t->lineno,
                 strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

#define BIM_FIELDS                                                                       \
  "chromosome, SNP id, position in cM, bp position (an integer >= 0), allele 1, "        \
  "allele 2"
#define FAM_FIELDS "family id, sample id, father, mother, sex, phenotype"

/* The .bim line's positions: cM a finite number, bp an integer >= 0 (PLINK
 * skips SNPs with a negative one; starmet would not). */
static sm_err_t check_bim_positions(const plink_text_t *t, char *const w[6])
{
  char *end;
  double cm = strtod(w[2], &end);
  if (end == w[2] || *end || !isfinite(cm)) {
    sm_log_error("%s:%zu: position in cM '%.40s' is not a finite number; a PLINK .bim "
                 "line is: " BIM_FIELDS,
                 t->path, t->lineno, w[2]);
    return SM_EFORMAT;
  }
  const char *d = w[3] + (w[3][0] == '+' || w[3][0] == '-');
  if (!*d || d[strspn(d, "0123456789")]) {
    sm_log_error("%s:%zu: bp position '%.40s' is not an integer; a PLINK .bim line "
                 "is: " BIM_FIELDS,
                 t->path, t->lineno, w[3]);
    return SM_EFORMAT;
  }
  if (w[3][0] == '-' && d[strspn(d, "0")]) {
    sm_log_error("%s:%zu: bp position %.40s is negative: PLINK skips such a SNP and "
                 "starmet does not; remove it (plink --bfile %.*s --keep-allele-order "
                 "--make-bed --out NEW drops it from the .bim and the .bed)",
                 t->path, t->lineno, w[3], (int)strlen(t->path) - 4, t->path);
    return SM_EFORMAT;
  }
  return SM_OK;
}

enum { HAP_X_FLIPPED = SM_HAP_Y + 1 }; /* an X SNP that PLINK flips (x_flipped) */

/* The .bim file: counts the SNPs (*nsnp) and those kept (o->vsel: *nkept),
 * checks each line, and keeps the ids of the kept SNPs [v0, v0 + vcount)
 * (vcount 0: to the end) in *ids (grown as needed, *nids of them) and,
 * with hap, their sm_read_haploid_chrom in *hap and the kept SNPs on X and
 * Y in nxy[0], nxy[1]. */
static sm_err_t read_bim(const char *path, const sm_read_opts_t *o, size_t *nsnp,
                         size_t *nkept, char ***ids, size_t *nids, unsigned char **hap,
                         size_t nxy[2])
{
  const size_t v0 = o->v0, vcount = o->vcount;
  plink_text_t t;
  size_t idcap = 0;
  int got;
  char *w[6];
  *nsnp = *nkept = 0;
  char last[256] = ""; /* the last chromosome name (longer ones: looked up each line) */
  int last_h = SM_HAP_NONE;
  sm_err_t err = text_open(&t, path, "bim", "SNP", BIM_FIELDS);
  while (!err && !(err = text_next(&t, w, &got)) && got &&
         !(err = check_bim_positions(&t, w))) {
    const size_t file_k = (*nsnp)++;
    if (o->vsel && (*nkept >= o->nvsel || o->vsel[*nkept] != file_k))
      continue; /* not kept (--chr, --extract, --exclude) */
    const size_t k = (*nkept)++;
    if (hap && strcmp(w[0], last)) /* a chromosome's lines are together: once each */
      snprintf(last, sizeof last, "%s", w[0]), last_h = sm_read_haploid_chrom(w[0]);
    const int h = hap ? last_h : SM_HAP_NONE;
    if (h)
      nxy[h - 1]++;
    if (k < v0 || (vcount && k >= v0 + vcount))
      continue;
    if (*nids == idcap) {
      idcap = idcap ? 2 * idcap : 1024;
      char **grown = realloc(*ids, idcap * sizeof *grown);
      if (!grown)
        goto nomem;
      *ids = grown;
      unsigned char *gh = hap ? realloc(*hap, idcap) : NULL;
      if (hap && !gh)
        goto nomem;
      if (hap)
        *hap = gh;
    }
    if (!((*ids)[*nids] = sm_read_var_id(o->var_id_tmpl, w[1], w[0],
                                         strtoull(w[3], NULL, 10), w[4], w[5])))
      goto nomem;
    if (hap)
      (*hap)[*nids] = (unsigned char)h;
    (*nids)++;
  }
  goto done;
nomem:
  sm_log_error("%s:%zu: out of memory for the SNP ids", path, t.lineno);
  err = SM_ENOMEM;
done:
  text_close(&t);
  return err;
}

/* A sample's status in the .fam (read_fam): sm_read.h's SM_SAMPLE_ bits. */
enum { FAM_NONFOUNDER = SM_SAMPLE_NONFOUNDER, FAM_MALE = SM_SAMPLE_MALE };

/* The .fam file: the number of samples is its number of lines (each
 * checked); with st, each sample's status as a malloc'd array of nsample
 * bytes: FAM_NONFOUNDER (a parent id other than "0", PLINK 1.9's rule),
 * FAM_MALE (sex code "1"; "2" and every other code are not males, as
 * PLINK reads them). */
static sm_err_t read_fam(const char *path, size_t *nsample, unsigned char **st)
{
  plink_text_t t;
  int got;
  char *w[6];
  size_t cap = 0;
  int quantitative = 0;
  *nsample = 0;
  if (st)
    *st = NULL;
  sm_err_t err = text_open(&t, path, "fam", "sample", FAM_FIELDS);
  while (!err && !(err = text_next(&t, w, &got)) && got) {
    const size_t k = (*nsample)++;
    if (!st)
      continue;
    if (k >= cap) {
      const size_t c = cap ? 2 * cap : 4096;
      unsigned char *g = realloc(*st, c);
      if (!g) {
        sm_log_error("%s: out of memory", path);
        err = SM_ENOMEM;
        break;
      }
      *st = g, cap = c;
    }
    (*st)[k] =
        (unsigned char)((strcmp(w[2], "0") || strcmp(w[3], "0") ? FAM_NONFOUNDER : 0) |
                        (!strcmp(w[4], "1")   ? FAM_MALE
                         : !strcmp(w[4], "2") ? SM_SAMPLE_FEMALE
                                              : 0) |
                        (!strcmp(w[5], "1")   ? SM_SAMPLE_CONTROL
                         : !strcmp(w[5], "2") ? SM_SAMPLE_CASE
                                              : 0));
    /* plink1.9's eval_affection: case/control while every phenotype is
     * -9, a word, or exactly 0, 1 or 2; another number makes it a
     * quantitative trait */
    char *end;
    const double ph = strtod(w[5], &end);
    if (end != w[5] && ph != -9 &&
        !((w[5][0] == '0' || w[5][0] == '1' || w[5][0] == '2') && !w[5][1]))
      quantitative = 1;
  }
  for (size_t k = 0; st && *st && quantitative && k < *nsample; k++)
    (*st)[k] &= (unsigned char)~(SM_SAMPLE_CONTROL | SM_SAMPLE_CASE);
  text_close(&t);
  if (st && err) {
    free(*st);
    *st = NULL;
  }
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
  size_t f0;      /* first sample kept */
  size_t nsample; /* samples in the .fam */
  /* --keep, --remove: field f is the .fam's sample map[f], at bit pair
   * map[f] - base of the bytes read (NULL: sample f0 + f) */
  const uint32_t *map;
  size_t base;
  sm_vectors_t *out;
  size_t npad;   /* SNPs read whose padding bits are not 0 ... */
  size_t pad_v;  /* ... the first one (0-based) */
  off_t pad_off; /* ... and its last byte's offset */
  /* founders only: per code word of a row, the fields of non-founders
   * (both bits set), read as missing */
  const uint64_t *nonf;
  /* PLINK's haploid LD coding: each row's SM_HAP_ kind (NULL: none), and per
   * code word the males' and the other samples' fields (low bit set) */
  const unsigned char *hap;
  const uint64_t *male, *nonmale;
} bed_slice_t;

/* PLINK 1.9's LD reading of a haploid chromosome's calls (its haploid_fix,
 * hh_reset, hh_reset_y in plink_common.c and ld_process_load2's is_x step
 * in plink_ld.c), on a row of CoMet codes (3 - PLINK's: 3 two copies of
 * allele 1, 1 heterozygous, 0 none, 2 missing): on X a male's
 * heterozygous call is missing, and his homozygous calls count one or no
 * copy of PLINK's A1 after its allele flip (the minor allele, see
 * x_flipped): SM_HAP_X (A1 is the file's allele 1) makes 3 a 1, HAP_X_FLIPPED (A1
 * is allele 2) makes 0 a 1, so that r counts 1 for the male's A1 copy; on
 * Y every call but a male's homozygous one is missing. */
static void haploid_code(uint64_t *row, size_t nw, int hap, const uint64_t *male,
                         const uint64_t *nonmale)
{
  const uint64_t m1 = UINT64_C(0x5555555555555555);
  for (size_t w = 0; w < nw; w++) {
    const uint64_t lo = row[w] & m1, hi = (row[w] >> 1) & m1;
    const uint64_t het = lo & ~hi & male[w];
    uint64_t drop = het | (hap == SM_HAP_Y ? nonmale[w] : 0); /* to missing: 10 */
    uint64_t x = row[w];
    if (hap == SM_HAP_X)
      x &= ~((lo & hi & male[w]) << 1); /* 11 -> 01 */
    else if (hap == HAP_X_FLIPPED)
      x |= ~lo & ~hi & male[w]; /* 00 -> 01 */
    row[w] = (x & ~(drop * 3)) | (drop << 1);
  }
}

/* Whether PLINK 1.9 flips an X SNP so that its A1 is the minor allele:
 * calc_freqs_and_hwe's X frequency of allele 2 (2 per call of the other
 * samples, 1 per homozygous male call, heterozygous males not counted)
 * below 0.5 (calc_marker_reverse_bin; no call: 0.5, no flip). row: the
 * SNP's whole .bed row in nw words (PLINK's codes, zero past the last
 * sample); male, other: the samples counted (PLINK's founders, or every
 * sample), their low bits set. */
static int x_flipped(const uint64_t *row, size_t nw, const uint64_t *male,
                     const uint64_t *other)
{
  const uint64_t m1 = UINT64_C(0x5555555555555555);
  uint64_t a2 = 0, all = 0;
  for (size_t w = 0; w < nw; w++) {
    const uint64_t lo = row[w] & m1, hi = (row[w] >> 1) & m1;
    const uint64_t hom2 = lo & hi, het = hi & ~lo, hom1 = m1 & ~(lo | hi);
    a2 += 2 * (uint64_t)__builtin_popcountll(hom2 & other[w]) +
          (uint64_t)__builtin_popcountll(het & other[w]) +
          (uint64_t)__builtin_popcountll(hom2 & male[w]);
    all += 2 * (uint64_t)__builtin_popcountll((hom1 | het | hom2) & other[w]) +
           (uint64_t)__builtin_popcountll((hom1 | hom2) & male[w]);
  }
  return 2 * a2 < all;
}

/* One SNP's bytes into row i of the slice. An sm_read_row_fn. When the
 * slice ends with the last sample, the unused bits of the SNP's last byte
 * are looked at too: PLINK writes them 0 and ignores them, as decode_snp
 * does, but set bits may be a sample the .fam lacks (counted for a
 * warning). */
static sm_err_t snp_row(void *ctx, const unsigned char *buf, size_t v, off_t off,
                        size_t i)
{
  bed_slice_t *s = ctx;
  const size_t nf = s->out->nf;
  uint64_t *row = sm_vectors_row(s->out, i);
  if (s->map) { /* the chosen samples' calls, a word at a time */
    uint64_t acc = 0;
    for (size_t f = 0; f < nf; f++) {
      const size_t g = s->map[f] - s->base;
      acc |= (uint64_t)(3u - ((buf[g / 4] >> (2 * (g % 4))) & 3u))
             << (2 * (f % SM_GT_PER_WORD));
      if (f % SM_GT_PER_WORD == SM_GT_PER_WORD - 1)
        row[f / SM_GT_PER_WORD] = acc, acc = 0;
    }
    if (nf % SM_GT_PER_WORD)
      row[nf / SM_GT_PER_WORD] = acc;
  } else
    decode_snp(buf, s->f0, nf, row);
  const size_t nw = (nf + SM_GT_PER_WORD - 1) / SM_GT_PER_WORD;
  for (size_t w = 0; s->nonf && w < nw; w++)
    row[w] =
        (row[w] & ~s->nonf[w]) | (s->nonf[w] & UINT64_C(0xAAAAAAAAAAAAAAAA)); /* 10 */
  if (s->hap && s->hap[i])
    haploid_code(row, nw, s->hap[i], s->male, s->nonmale);
  if (!s->map && s->f0 + nf == s->nsample && s->nsample % 4) {
    const size_t last = (s->f0 + nf - 1) / 4 - s->f0 / 4;
    if (buf[last] >> (2 * (s->nsample % 4)) && !s->npad++) {
      s->pad_v = v;
      s->pad_off = off + (off_t)last;
    }
  }
  return SM_OK;
}

/* Open the .bed, check its magic and its size against the counts. */
static sm_err_t open_bed(const char *path, size_t nsnp, size_t nsample, const char *bim,
                         const char *fam, int *fdp)
{
  unsigned char magic[3];
  struct stat st;
  const sm_stream_rule_t rule = {.magic = {"\x6c\x1b"}};
  char src[4200];
  sm_err_t err = sm_stream_source(path, &rule, src, sizeof src);
  if (err)
    return err;
  int fd = open(src, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) != 0) {
    sm_log_error("%s: cannot open: %s; a PLINK fileset needs prefix.bed, "
                 "prefix.bim and prefix.fam",
                 path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return SM_EIO;
  }
  /* the hints' command: --keep-allele-order, or PLINK 1.9 makes allele 1
   * the minor allele, which changes CCC's values */
  const int plen = (int)strlen(path) - 4;
  if (st.st_size < 3 || sm_read_at(fd, magic, 3, 0) || magic[0] != 0x6c ||
      magic[1] != 0x1b) {
    sm_log_error("%s: not a PLINK 1 .bed file (bad magic bytes at offset 0: a PLINK 1 "
                 ".bed starts with 6c 1b); a .bed of PLINK before 1.0 (no magic bytes) "
                 "converts with plink --bfile %.*s --keep-allele-order --make-bed --out "
                 "NEW",
                 path, plen, path);
    err = SM_EFORMAT;
  } else if (magic[2] == 0x00) {
    sm_log_error("%s: sample-major .bed file (mode byte 0x00); only SNP-major is "
                 "supported: convert it with plink --bfile %.*s --keep-allele-order "
                 "--make-bed --out NEW",
                 path, plen, path);
    err = SM_EFORMAT;
  } else if (magic[2] != 0x01) {
    sm_log_error("%s: unknown-mode .bed file (mode byte 0x%02x; PLINK writes 0x01, "
                 "SNP-major, or 0x00, sample-major, and reads no other): the file is "
                 "damaged or not a .bed; write it again",
                 path, magic[2]);
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

/* The chosen samples (ssel, increasing, nssel of them; NULL: all) of a
 * .fam of nfile samples: each one's status moved to its place among them
 * (st may be NULL); a choice past the file's end is an error (the .fam
 * changed since the samples were chosen). */
static sm_err_t fam_choose(const char *fam, size_t nfile, const uint32_t *ssel,
                           size_t nssel, unsigned char *st)
{
  if (!ssel)
    return SM_OK;
  if (!nssel || ssel[nssel - 1] >= nfile) {
    sm_log_error("%s: %zu samples, fewer than the samples chosen by --keep/--remove/"
                 "--mind reach: it changed while it was read; run again on files that do "
                 "not change",
                 fam, nfile);
    return SM_EFORMAT;
  }
  for (size_t q = 0; st && q < nssel; q++)
    st[q] = st[ssel[q]]; /* ssel increases: q <= ssel[q] */
  return SM_OK;
}

sm_err_t sm_read_plink_samples(const char *prefix, const uint32_t *ssel, size_t nssel,
                               unsigned char **st, size_t *n)
{
  char *bed = NULL, *bim = NULL, *fam = NULL;
  sm_err_t err = fileset_names(prefix, &bed, &bim, &fam);
  *st = NULL, *n = 0;
  if (!err)
    err = read_fam(fam, n, st);
  if (!err && !(err = fam_choose(fam, *n, ssel, nssel, *st)) && ssel)
    *n = nssel;
  if (!err && !*st) /* no samples */
    err = (*st = calloc(1, 1)) ? SM_OK : SM_ENOMEM;
  if (err)
    free(*st), *st = NULL;
  free(bed), free(bim), free(fam);
  return err;
}

/* A list of sample ids (--keep and the others): per line its first
 * `words` words, a family id and a sample id ("FID\tIID") or the family
 * id, sorted; blank lines skipped, as plink1.9 reads them. */
typedef struct id_list {
  char **k;
  size_t n;
} id_list_t;

static int cmp_id(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void id_list_free(id_list_t *l)
{
  for (size_t i = 0; i < l->n; i++)
    free(l->k[i]);
  free(l->k);
  l->k = NULL, l->n = 0;
}

static sm_err_t id_list_read(const char *path, const char *opt, int words, id_list_t *l)
{
  *l = (id_list_t){0};
  FILE *f = fopen(path, "r");
  if (!f) {
    sm_log_error("--%s %s: cannot open: %s", opt, path, strerror(errno));
    return SM_EIO;
  }
  char *line = NULL;
  size_t cap = 0, kcap = 0, lineno = 0;
  ssize_t len;
  sm_err_t err = SM_OK;
  while (!err && (len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    char *w[2];
    if (memchr(line, '\0', (size_t)len)) {
      sm_log_error("--%s %s:%zu: a NUL byte: not a text file; a --%s file is text, %s "
                   "a line",
                   opt, path, lineno, opt,
                   words == 2 ? "a family id and a sample id" : "a family id");
      err = SM_EFORMAT;
      break;
    }
    const size_t n = (size_t)split_words(line, w, 2);
    if (n == 0)
      continue;
    if (n < (size_t)words) {
      sm_log_error("--%s %s:%zu: one word, but a --%s file has a family id and a "
                   "sample id a line (as plink1.9's; --%s-fam takes family ids alone)",
                   opt, path, lineno, opt, opt);
      err = SM_EFORMAT;
      break;
    }
    if (l->n == kcap) {
      const size_t c = kcap ? 2 * kcap : 256;
      char **g = realloc(l->k, c * sizeof *g);
      if (!g) {
        err = SM_ENOMEM;
        break;
      }
      l->k = g, kcap = c;
    }
    const size_t a = strlen(w[0]), b = words == 2 ? strlen(w[1]) : 0;
    char *key = malloc(a + b + 2);
    if (!key) {
      err = SM_ENOMEM;
      break;
    }
    memcpy(key, w[0], a);
    if (words == 2)
      key[a] = '\t', memcpy(key + a + 1, w[1], b + 1);
    else
      key[a] = '\0';
    l->k[l->n++] = key;
  }
  if (!err && ferror(f)) {
    sm_log_error("--%s %s: read error after line %zu: %s", opt, path, lineno,
                 strerror(errno));
    err = SM_EIO;
  }
  if (err == SM_ENOMEM)
    sm_log_error("--%s %s: out of memory", opt, path);
  free(line);
  fclose(f);
  if (err)
    id_list_free(l);
  else if (l->n)
    qsort(l->k, l->n, sizeof *l->k, cmp_id);
  return err;
}

static int id_listed(const id_list_t *l, const char *key)
{
  return l->n && bsearch(&key, l->k, l->n, sizeof *l->k, cmp_id) != NULL;
}

sm_err_t sm_read_plink_keep(const char *prefix, const sm_sfilter_t *f, int say,
                            uint32_t **sel, size_t *nsel)
{
  /* plink1.9's order (its plink()): --keep-fam, --keep, --remove-fam,
   * --remove; a family list is one word a line */
  const char *const path[4] = {f->keep_fam, f->keep, f->remove_fam, f->remove};
  const char *const opt[4] = {"keep-fam", "keep", "remove-fam", "remove"};
  id_list_t list[4] = {{0}};
  char *bed = NULL, *bim = NULL, *fam = NULL, *key = NULL;
  unsigned char *in = NULL; /* per sample: drop below, or 0 */
  size_t ns = 0, cap = 0, kcap = 0;
  *sel = NULL, *nsel = 0;
  sm_err_t err = fileset_names(prefix, &bed, &bim, &fam);
  for (int k = 0; k < 4 && !err; k++)
    if (path[k])
      err = id_list_read(path[k], opt[k], k % 2 ? 2 : 1, &list[k]);
  plink_text_t t = {0};
  if (!err)
    err = text_open(&t, fam, "fam", "sample", FAM_FIELDS);
  int got;
  char *w[6];
  while (!err && !(err = text_next(&t, w, &got)) && got) {
    const size_t a = strlen(w[0]), b = strlen(w[1]);
    if (a + b + 2 > kcap) {
      char *g = realloc(key, a + b + 2);
      if (!g) {
        err = SM_ENOMEM;
        break;
      }
      key = g, kcap = a + b + 2;
    }
    memcpy(key, w[0], a), key[a] = '\0', memcpy(key + a + 1, w[1], b + 1);
    unsigned char drop = 0; /* the first filter that drops it + 1 */
    for (int k = 0; k < 4 && !drop; k++) {
      key[a] = k % 2 ? '\t' : '\0'; /* the family id, or both ids */
      if (path[k] && id_listed(&list[k], key) == (k >= 2))
        drop = (unsigned char)(k + 1);
    }
    if (ns == cap) {
      const size_t c = cap ? 2 * cap : 4096;
      unsigned char *g = realloc(in, c);
      if (!g) {
        err = SM_ENOMEM;
        break;
      }
      in = g, cap = c;
    }
    in[ns++] = drop;
  }
  text_close(&t);
  if (err == SM_ENOMEM)
    sm_log_error("%s: out of memory", fam);
  size_t left = ns;
  for (int k = 0; k < 4 && !err; k++) { /* what each filter left, in its turn */
    if (!path[k])
      continue;
    for (size_t i = 0; i < ns; i++)
      left -= in[i] == k + 1;
    if (say)
      sm_log_info("--%s %s: %zu of the %zu samples in %s remaining", opt[k], path[k],
                  left, ns, fam);
    if (!left) {
      static const char *const why[4] = {
          "it names none of their families (a family id, the first word of a line)",
          "it names none of them (a family id and a sample id, the first two words of "
          "a line)",
          "it names every family left", "it names every one left"};
      sm_log_error("--%s %s: no sample remaining of the %zu in %s (plink1.9: \"No "
                   "people remaining after --%s\"): %s",
                   opt[k], path[k], ns, fam, opt[k], why[k]);
      err = SM_EDEGEN;
    }
  }
  if (!err && !(*sel = malloc((left ? left : 1) * sizeof **sel)))
    err = SM_ENOMEM;
  for (size_t i = 0; !err && i < ns; i++)
    if (!in[i])
      (*sel)[(*nsel)++] = (uint32_t)i;
  for (int k = 0; k < 4; k++)
    id_list_free(&list[k]);
  free(in), free(key), free(bed), free(bim), free(fam);
  if (err)
    free(*sel), *sel = NULL, *nsel = 0;
  return err;
}

sm_err_t sm_read_plink(const char *prefix, const sm_read_opts_t *o, sm_vectors_t *out,
                       sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  int fd = -1;
  char *bed = NULL, *bim = NULL, *fam = NULL;
  char **ids = NULL;
  unsigned char *st = NULL;  /* each sample's FAM_ status (founders, LD coding) */
  unsigned char *hap = NULL; /* each SNP's SM_HAP_ kind (LD coding) */
  uint64_t *rowbuf = NULL;   /* X SNPs: a whole row and masks (x_flipped) */
  uint64_t *nonf_words = NULL, *male_words = NULL;
  size_t nids = 0, nsnp = 0, nkept = 0, nsample = 0, nxy[2] = {0, 0};
  sm_read_begin(out, dims);

  if (o->metric != SM_METRIC_CCC) {
    sm_log_error("%s: PLINK genotypes are for the CCC metric; use --metric ccc "
                 "(czekanowski needs TSV, npy or raw input)",
                 prefix);
    err = SM_EOPTION;
    goto fail;
  }
  if ((err = fileset_names(prefix, &bed, &bim, &fam)) ||
      (err = read_bim(bim, o, &nsnp, &nkept, &ids, &nids, o->ld_haploid ? &hap : NULL,
                      nxy)) ||
      (err = read_fam(fam, &nsample, o->founders_only || o->ld_haploid ? &st : NULL)))
    goto fail;
  if (nsnp == 0 || nsample == 0) {
    sm_log_error("%s: no %s", nsnp == 0 ? bim : fam,
                 nsnp == 0 ? "SNPs (no vectors)" : "samples (no fields)");
    err = SM_EDEGEN;
    goto fail;
  }
  if ((err = open_bed(bed, nsnp, nsample, bim, fam, &fd)))
    goto fail;
  const size_t nfile = nsample; /* the .fam's samples; nsample: those kept */
  if ((err = fam_choose(fam, nfile, o->ssel, o->nssel, st)))
    goto fail;
  if (o->ssel) /* --keep, --remove, --mind: the samples chosen */
    nsample = o->nssel;
  if (o->vsel && nkept != o->nvsel) { /* the variants were chosen on another .bim */
    sm_log_error("%s: %zu of the %zu SNPs chosen are in the file: it changed while it "
                 "was read; run again on files that do not change",
                 bim, nkept, o->nvsel);
    err = SM_EFORMAT;
    goto fail;
  }

  size_t nvk, nfk;
  if ((err = sm_read_slice_axis(prefix, "vector", nkept, o->v0, o->vcount, &nvk)) ||
      (err = sm_read_slice_axis(prefix, "field", nsample, o->f0, o->fcount, &nfk)))
    goto fail;
  if ((err = sm_vectors_alloc(out, SM_METRIC_CCC, 8, nvk, nfk)))
    goto fail;
  /* read_bim kept exactly the slice's ids: hand them over. */
  out->names = ids;
  ids = NULL;

  /* the bytes of the slice's samples: by file position, or those from the
   * first chosen sample's byte to the last's */
  const size_t lo = o->ssel ? o->ssel[o->f0] : o->f0,
               hi = o->ssel ? (size_t)o->ssel[o->f0 + nfk - 1] + 1 : o->f0 + nfk;
  const sm_read_rows_t rows = {.path = bed,
                               .what = "SNP",
                               .fd = fd,
                               .first = (off_t)(3 + lo / 4),
                               .stride = (nfile + 3) / 4,
                               .nbytes = (hi + 3) / 4 - lo / 4,
                               .map = o->vsel};
  bed_slice_t slice = {.f0 = o->f0,
                       .nsample = nfile,
                       .map = o->ssel ? o->ssel + o->f0 : NULL,
                       .base = lo / 4 * 4,
                       .out = out};
  /* per code word of the slice's rows: its non-founders (both bits), its
   * males and its other samples (low bit) */
  const size_t nw = (nfk + SM_GT_PER_WORD - 1) / SM_GT_PER_WORD;
  size_t nnonf = 0, nmale = 0, nhap = 0, nnonf_all = 0;
  /* said once, of the whole file: by the real read of the first slice */
  const int say = !o->probe && o->v0 == 0 && o->f0 == 0;
  if (st && (!(nonf_words = calloc(nw, sizeof *nonf_words)) ||
             !(male_words = calloc(2 * nw, sizeof *male_words)))) {
    sm_log_error("%s: out of memory", fam);
    err = SM_ENOMEM;
    goto fail;
  }
  for (size_t q = 0; st && q < nfk; q++) {
    const unsigned char f = st[o->f0 + q];
    const uint64_t bit = UINT64_C(1) << (2 * (q % SM_GT_PER_WORD));
    if (o->founders_only && (f & FAM_NONFOUNDER))
      nonf_words[q / SM_GT_PER_WORD] |= 3 * bit, nnonf++;
    male_words[(f & FAM_MALE ? 0 : nw) + q / SM_GT_PER_WORD] |= bit;
  }
  for (size_t k = 0; st && k < nsample; k++)
    nmale += (st[k] & FAM_MALE) != 0, nnonf_all += (st[k] & FAM_NONFOUNDER) != 0;
  if (nnonf) /* their calls read as missing: PLINK's LD counts founders only */
    slice.nonf = nonf_words;
  if (st && o->founders_only && nsample - nnonf_all < 2) {
    /* plink1.9: "Skipping --r2 since there are less than two founders" */
    sm_log_error(
        "%s: %zu founder%s among the %zu samples chosen: PLINK's LD uses founders "
        "only and plink1.9 skips --r2 with fewer than two (--all-samples counts "
        "every sample)",
        fam, nsample - nnonf_all, nsample - nnonf_all == 1 ? "" : "s", nsample);
    err = SM_EDEGEN;
    goto fail;
  }
  if (say && o->founders_only && nnonf_all)
    sm_log_info("%s: %zu sample%s with a parent in the file left out (PLINK's LD uses "
                "founders only; --all-samples keeps every sample)",
                fam, nnonf_all, nnonf_all == 1 ? "" : "s");
  for (size_t i = 0; hap && i < nvk; i++) {
    nhap += hap[i] != SM_HAP_NONE;
    if (hap[i] != SM_HAP_X || !nmale || o->ld_a1)
      continue;
    /* PLINK's allele flip of an X SNP decides which homozygous male call
     * counts one copy: from the whole row, whatever the slice */
    const size_t nwf = (nfile + SM_GT_PER_WORD - 1) / SM_GT_PER_WORD;
    if (!rowbuf) { /* the row, then the counted males' and others' masks */
      if (!(rowbuf = calloc(3 * nwf, sizeof *rowbuf))) {
        sm_log_error("%s: out of memory", bed);
        err = SM_ENOMEM;
        goto fail;
      }
      for (size_t q = 0; q < nsample; q++) { /* kept sample q is the file's k */
        const size_t k = o->ssel ? o->ssel[q] : q;
        if (!o->founders_only || o->freq_all || !(st[q] & FAM_NONFOUNDER))
          rowbuf[(st[q] & FAM_MALE ? nwf : 2 * nwf) + k / SM_GT_PER_WORD] |=
              UINT64_C(1) << (2 * (k % SM_GT_PER_WORD));
      }
    }
    const size_t fv = o->vsel ? o->vsel[o->v0 + i] : o->v0 + i; /* the file's SNP */
    const int e =
        sm_read_at(fd, rowbuf, rows.stride, (off_t)3 + (off_t)(fv * rows.stride));
    if (e) {
      sm_log_error("%s: cannot read SNP %zu: %s", bed, fv + 1, strerror(e));
      err = SM_EIO;
      goto fail;
    }
    if (x_flipped(rowbuf, nwf, rowbuf + nwf, rowbuf + 2 * nwf))
      hap[i] = HAP_X_FLIPPED;
  }
  if (nhap)
    slice.hap = hap, slice.male = male_words, slice.nonmale = male_words + nw;
  if (say && (nxy[0] || nxy[1]))
    sm_log_info("%s: %zu SNP%s on X and %zu on Y read as PLINK's LD reads them (%zu "
                "male%s in %s: on X a male's heterozygous call is missing and his "
                "homozygous calls count 0 or 1 copy of A1, %s; on Y only males' "
                "homozygous calls count)",
                bim, nxy[0], nxy[0] == 1 ? "" : "s", nxy[1], nmale, nmale == 1 ? "" : "s",
                fam,
                o->ld_a1 ? "the .bim's allele 1 (--keep-allele-order)"
                         : "the minor allele as PLINK flips it");
  err = sm_read_rows(&rows, o->v0, nvk, snp_row, &slice);
  if (!err && slice.npad)
    sm_log_warn("%s: padding bits that are not 0 in %zu of the %zu SNPs read (the "
                "unused bits after sample %zu in a SNP's last byte; first: SNP %zu, "
                "byte offset %lld): PLINK ignores them, and so does starmet, but they "
                "may be genotypes of a sample that %s lacks; plink --bfile %.*s "
                "--keep-allele-order --make-bed --out NEW rewrites them as 0",
                bed, slice.npad, nvk, nfile, slice.pad_v + 1, (long long)slice.pad_off,
                fam, (int)strlen(bed) - 4, bed);
fail:
  free(st);
  free(hap);
  free(rowbuf);
  free(nonf_words);
  free(male_words);
  for (size_t i = 0; ids && i < nids; i++)
    free(ids[i]);
  free(ids);
  if (fd >= 0)
    close(fd);
  free(bed);
  free(bim);
  free(fam);
  return sm_read_end(err, out, dims, nkept, nsample);
}

sm_err_t sm_read_plink_loci(const char *prefix, const sm_read_opts_t *o, int ids,
                            sm_loci_t *out)
{
  char *bed = NULL, *bim = NULL, *fam = NULL;
  plink_text_t t = {0};
  size_t cap = 0;
  int got;
  char *w[6];
  sm_err_t err = fileset_names(prefix, &bed, &bim, &fam);
  if (!err)
    err = text_open(&t, bim, "bim", "SNP", BIM_FIELDS);
  while (!err && !(err = text_next(&t, w, &got)) && got &&
         !(err = check_bim_positions(&t, w))) {
    const unsigned long long bp = strtoull(w[3], NULL, 10);
    if (bp > UINT32_MAX) {
      sm_log_error("%s:%zu: bp position %s is beyond 2^32 - 1", bim, t.lineno, w[3]);
      err = SM_EFORMAT;
    } else {
      char *id = ids ? sm_read_var_id(o->var_id_tmpl, w[1], w[0], bp, w[4], w[5]) : NULL;
      if ((ids && !id) || sm_loci_add(out, &cap, w[0], (uint32_t)bp, id) ||
          (ids && sm_loci_alleles(out, cap, w[4], w[5]))) {
        sm_log_error("%s:%zu: out of memory for the SNPs' positions", bim, t.lineno);
        err = SM_ENOMEM;
      }
      free(id);
    }
  }
  text_close(&t);
  free(bed);
  free(bim);
  free(fam);
  if (err)
    sm_loci_free(out);
  return err;
}
