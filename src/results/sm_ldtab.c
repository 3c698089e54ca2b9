/* sm_ldtab.c: PLINK 1.9's .ld table (sm_ldtab.h). */
#include "sm_ldtab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct ld_row {
  uint32_t i, j;
  double v;
} ld_row_t;

struct sm_ldtab {
  int r2;
  const sm_loci_t *loci;
  char *const *names;
  size_t nv, width; /* PLINK's SNP column width */
  ld_row_t *rows;
  size_t n, cap;
};

sm_err_t sm_ldtab_open(sm_ldtab_t **tp, int r2, const sm_loci_t *loci, char *const *names,
                       size_t nv)
{
  sm_ldtab_t *t = calloc(1, sizeof *t);
  if (!(*tp = t))
    return SM_ENOMEM;
  t->r2 = r2, t->loci = loci, t->names = names, t->nv = nv;
  /* PLINK's width: 4, or the longest id + 2 once an id is longer */
  t->width = 4;
  for (size_t k = 0; names && k < nv; k++) {
    const size_t len = strlen(names[k]);
    if (len > t->width)
      t->width = len + 2;
  }
  return SM_OK;
}

int sm_ldtab_put(sm_ldtab_t *t, const sm_rec_t *rec, size_t n)
{
  for (size_t k = 0; k < n; k++) {
    if (rec[k].value != rec[k].value)
      continue;
    if (t->n == t->cap) {
      const size_t c = t->cap ? 2 * t->cap : 4096;
      ld_row_t *g = realloc(t->rows, c * sizeof *g);
      if (!g)
        return -1;
      t->rows = g, t->cap = c;
    }
    const uint32_t a = rec[k].idx[0], b = rec[k].idx[1];
    t->rows[t->n++] = (ld_row_t){a < b ? a : b, a < b ? b : a, rec[k].value};
  }
  return 0;
}

static int row_cmp(const void *x, const void *y)
{
  const ld_row_t *a = x, *b = y;
  return a->i != b->i ? (a->i > b->i) - (a->i < b->i) : (a->j > b->j) - (a->j < b->j);
}

/* x (>= 0) rounded to an integer, halves to the even one, a half being
 * anything within 5e-9 of it (PLINK's rounding of printed digits). */
static uint32_t round_even_fuzzy(double x)
{
  const uint32_t t = (uint32_t)(int32_t)x;
  return t +
         (uint32_t)(int32_t)((x - (int32_t)t) + ((t & 1) ? 0.500000005 : 0.499999995));
}

/* The digits of q (< 10^k) with k places, trailing zeros dropped (at
 * least one digit kept when keep1). */
static size_t put_digits(uint32_t q, int k, int keep1, char *buf)
{
  char d[16];
  for (int p = k - 1; p >= 0; p--, q /= 10)
    d[p] = (char)('0' + q % 10);
  int n = k;
  while (n > (keep1 ? 1 : 0) && d[n - 1] == '0')
    n--;
  memcpy(buf, d, (size_t)n);
  return (size_t)n;
}

size_t sm_ldtab_fmt_g(double v, char *buf)
{
  size_t len = 0;
  if (v != v) {
    memcpy(buf, "nan", 4);
    return 3;
  }
  if (v < 0) {
    buf[len++] = '-';
    v = -v;
  }
  if (v == 0) {
    buf[len++] = '0';
    buf[len] = 0;
    return len;
  }
  /* the boundaries between forms are the values that round to the next
   * power of ten in 6 digits */
  if (v < 9.9999949999999e-5 || v >= 999999.49999999) {
    /* d.ddddde-XX / e+XX: scaled to [1, 10) by powers of ten taken from
     * the largest down */
    static const double up[] = {1e256, 1e128, 1e64, 1e32, 1e16, 1e8, 1e4, 1e2, 1e1};
    static const double down[] = {1e-256, 1e-128, 1e-64, 1e-32, 1e-16,
                                  1e-8,   1e-4,   1e-2,  1e-1};
    static const double lo[] = {
        9.9999949999999e-256, 9.9999949999999e-128, 9.9999949999999e-64,
        9.9999949999999e-32,  9.9999949999999e-16,  9.9999949999999e-8,
        9.9999949999999e-4,   9.9999949999999e-2,   9.9999949999999e-1};
    static const double hi[] = {
        9.9999949999999e255, 9.9999949999999e127, 9.9999949999999e63,
        9.9999949999999e31,  9.9999949999999e15,  9.9999949999999e7,
        9.9999949999999e3,   9.9999949999999e1,   9.9999949999999e0};
    static const int ex[] = {256, 128, 64, 32, 16, 8, 4, 2, 1};
    const int small = v < 1;
    int e = 0;
    for (int k = 0; k < 9; k++)
      if (small ? v < lo[k] : v >= hi[k]) {
        v = small ? v * up[k] : v * down[k];
        e += ex[k];
      }
    if (isinf(v)) {
      memcpy(buf + len, "inf", 4);
      return len + 3;
    }
    const uint32_t q = round_even_fuzzy(v * 100000);
    buf[len++] = (char)('0' + q / 100000);
    if (q % 100000) {
      buf[len++] = '.';
      len += put_digits(q % 100000, 5, 0, buf + len);
    }
    len += (size_t)snprintf(buf + len, 16, "e%c%02d", small ? '-' : '+', e);
    return len;
  }
  if (v < 0.99999949999999) { /* 0.dddddd, down to 0.0001 */
    memcpy(buf + len, "0.", 2);
    len += 2;
    if (v < 9.9999949999999e-3) {
      v *= 100;
      memcpy(buf + len, "00", 2);
      len += 2;
    }
    if (v < 9.9999949999999e-2) {
      v *= 10;
      buf[len++] = '0';
    }
    len += put_digits(round_even_fuzzy(v * 1000000), 6, 1, buf + len);
    buf[len] = 0;
    return len;
  }
  /* [1, 10^6): 6 significant digits, the point where they say */
  int ipart = 1;
  double lim = 9.9999949999999;
  while (ipart < 6 && v >= lim) {
    ipart++;
    lim *= 10;
  }
  static const double scale[] = {1e5, 1e4, 1e3, 1e2, 1e1, 1};
  const uint32_t q = round_even_fuzzy(v * scale[ipart - 1]);
  uint32_t p10 = 1;
  for (int k = 0; k < 6 - ipart; k++)
    p10 *= 10;
  len += (size_t)snprintf(buf + len, 16, "%u", q / p10);
  if (q % p10) {
    buf[len++] = '.';
    len += put_digits(q % p10, 6 - ipart, 0, buf + len);
  }
  buf[len] = 0;
  return len;
}

void sm_ldtab_chrom(const char *name, char *buf)
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

/* Right-aligned in width (longer: as it is). */
static size_t put_right(char *buf, size_t width, const char *s)
{
  const size_t n = strlen(s), pad = n < width ? width - n : 0;
  memset(buf, ' ', pad);
  memcpy(buf + pad, s, n);
  return pad + n;
}

sm_err_t sm_ldtab_text(sm_ldtab_t *t, int (*put)(void *ctx, const void *p, size_t n),
                       void *ctx)
{
  qsort(t->rows, t->n, sizeof *t->rows, row_cmp);
  const size_t w = t->width;
  char *line = malloc(2 * w + 200 + 128);
  if (!line)
    return SM_ENOMEM;
  size_t len = 0;
  len += (size_t)sprintf(line, " CHR_A         BP_A ");
  len += put_right(line + len, w, "SNP_A");
  len += (size_t)sprintf(line + len, "  CHR_B         BP_B ");
  len += put_right(line + len, w, "SNP_B");
  /* 11 spaces, then "R2 " or " R " (PLINK's header, one column wider for R) */
  len += (size_t)sprintf(line + len, "           %s\n", t->r2 ? "R2 " : " R ");
  int bad = put(ctx, line, len);
  char ca[64], cb[64], num[32], pos[16], val[32];
  for (size_t k = 0; k < t->n && !bad; k++) {
    const ld_row_t *x = &t->rows[k];
    len = 0;
    for (int side = 0; side < 2; side++) {
      const uint32_t v = side ? x->j : x->i;
      sm_ldtab_chrom(t->loci->chrom_names[t->loci->chrom[v]], side ? cb : ca);
      len += put_right(line + len, 6, side ? cb : ca);
      snprintf(pos, sizeof pos, "%u", t->loci->pos[v]);
      len += (size_t)sprintf(line + len, "   ");
      len += put_right(line + len, 10, pos);
      line[len++] = ' ';
      if (t->names)
        len += put_right(line + len, w, t->names[v]);
      else {
        snprintf(num, sizeof num, "%u", v);
        len += put_right(line + len, w, num);
      }
      line[len++] = ' ';
    }
    sm_ldtab_fmt_g(x->v, val);
    len += put_right(line + len, 12, val);
    line[len++] = ' ';
    line[len++] = '\n';
    bad = put(ctx, line, len);
  }
  free(line);
  return bad ? SM_EIO : SM_OK;
}

void sm_ldtab_free(sm_ldtab_t *t)
{
  if (!t)
    return;
  free(t->rows);
  free(t);
}
