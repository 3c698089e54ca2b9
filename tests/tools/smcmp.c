/* smcmp.c: compare two result files record by record, whatever their
 * order: starmet TSV, starmet binary, or CoMet records (optionally gzip).
 * Used by the shell tests.
 *   smcmp [--comet-way N] [--ccc] [--allow-empty] [--tol-rel X | --ulp32 N] A B
 * --comet-way applies to files without the starmet magic (CoMet layout;
 * --ccc: coordinates are 2 x vector + table bit). Exits 0 when both hold the
 * same keys and every value agrees, and hold at least one record (unless
 * --allow-empty). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct rec {
  char key[96];
  double value;
  float f32;
} rec_t;

typedef struct set {
  rec_t *r;
  size_t n, cap;
} set_t;

static int comet_way, comet_ccc;

static void add(set_t *s, const char *key, double v, float f)
{
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->r = realloc(s->r, s->cap * sizeof *s->r);
    if (!s->r) {
      perror("realloc");
      exit(2);
    }
  }
  snprintf(s->r[s->n].key, sizeof s->r[0].key, "%s", key);
  s->r[s->n].value = v;
  s->r[s->n].f32 = f;
  s->n++;
}

static unsigned char *slurp(const char *path, size_t *len)
{
  gzFile g = gzopen(path, "rb");
  if (!g) {
    fprintf(stderr, "smcmp: cannot open %s\n", path);
    exit(2);
  }
  size_t cap = 1 << 20, n = 0;
  unsigned char *b = malloc(cap);
  int k;
  while ((k = gzread(g, b + n, (unsigned)(cap - n))) > 0) {
    n += (size_t)k;
    if (n == cap)
      b = realloc(b, cap *= 2);
  }
  gzclose(g);
  *len = n;
  return b;
}

static uint32_t u32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* key of a numeric record: indices ascending, entry bits carried along */
static void numkey(char *key, size_t len, int way, uint32_t *v, unsigned *bits, int ccc)
{
  for (int a = 1; a < way; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      uint32_t t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
      unsigned u = bits[b];
      bits[b] = bits[b - 1];
      bits[b - 1] = u;
    }
  int n = 0;
  for (int a = 0; a < way; a++)
    n += snprintf(key + n, len - (size_t)n, "%u ", v[a]);
  if (ccc)
    for (int a = 0; a < way; a++)
      n += snprintf(key + n, len - (size_t)n, "%u", bits[a]);
}

static void load(const char *path, set_t *s)
{
  size_t len;
  unsigned char *b = slurp(path, &len);
  char key[96];
  if (len >= 64 && !memcmp(b, "STARMET\0", 8)) {
    int way = (int)u32(b + 12), ccc = u32(b + 16) == 1, vb = (int)u32(b + 20);
    size_t rs = (size_t)(4 * way + (ccc ? 1 : 0) + vb);
    for (size_t o = 64; o + rs <= len; o += rs) {
      uint32_t v[3];
      unsigned bits[3] = {0, 0, 0};
      for (int a = 0; a < way; a++)
        v[a] = u32(b + o + 4 * a);
      if (ccc)
        for (int a = 0; a < way; a++)
          bits[a] = (b[o + 4 * way] >> (way - 1 - a)) & 1;
      numkey(key, sizeof key, way, v, bits, ccc);
      double val;
      if (vb == 4) {
        float f;
        memcpy(&f, b + o + rs - 4, 4);
        val = f;
      } else {
        memcpy(&val, b + o + rs - 8, 8);
      }
      add(s, key, val, (float)val);
    }
  } else if (comet_way) {
    size_t rs = (size_t)(4 * comet_way + 4);
    for (size_t o = 0; o + rs <= len; o += rs) {
      uint32_t v[3];
      unsigned bits[3] = {0, 0, 0};
      for (int a = 0; a < comet_way; a++) {
        uint32_t c = u32(b + o + 4 * a);
        v[a] = comet_ccc ? c / 2 : c;
        bits[a] = comet_ccc ? c % 2 : 0;
      }
      numkey(key, sizeof key, comet_way, v, bits, comet_ccc);
      float f;
      memcpy(&f, b + o + 4 * comet_way, 4);
      add(s, key, f, f);
    }
  } else {
    /* TSV: header line, then key columns and the value last */
    char *text = (char *)b, *save = NULL;
    b = realloc(b, len + 1);
    text = (char *)b;
    text[len] = 0;
    char *line = strtok_r(text, "\n", &save);
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      char *last = strrchr(line, '\t');
      if (!last) {
        fprintf(stderr, "smcmp: %s: bad line '%s'\n", path, line);
        exit(2);
      }
      *last = 0;
      double v = strtod(last + 1, NULL);
      /* key columns: 2 or 3 ids (czekanowski), plus as many table bits (ccc) */
      char *tok[8], *sv = NULL;
      int nt = 0;
      for (char *t = strtok_r(line, "\t", &sv); t && nt < 8;
           t = strtok_r(NULL, "\t", &sv))
        tok[nt++] = t;
      int way = nt == 4 ? 2 : nt == 6 ? 3 : nt;
      int n = 0;
      for (int a = 0; a < way; a++)
        n += snprintf(key + n, sizeof key - (size_t)n, "%s ", tok[a]);
      for (int a = way; a < nt; a++)
        n += snprintf(key + n, sizeof key - (size_t)n, "%s", tok[a]);
      add(s, key, v, (float)v);
    }
  }
  free(b);
}

static int cmp_rec(const void *a, const void *b)
{
  return strcmp(((const rec_t *)a)->key, ((const rec_t *)b)->key);
}

int main(int argc, char **argv)
{
  double tol = 0;
  int ulp = -1, k = 1, allow_empty = 0;
  for (; k < argc && argv[k][0] == '-' && argv[k][1] == '-'; k++) {
    if (!strcmp(argv[k], "--comet-way") && k + 1 < argc)
      comet_way = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--ccc"))
      comet_ccc = 1;
    else if (!strcmp(argv[k], "--allow-empty"))
      allow_empty = 1;
    else if (!strcmp(argv[k], "--tol-rel") && k + 1 < argc)
      tol = atof(argv[++k]);
    else if (!strcmp(argv[k], "--ulp32") && k + 1 < argc)
      ulp = atoi(argv[++k]);
    else {
      fprintf(stderr, "smcmp: unknown option %s\n", argv[k]);
      return 2;
    }
  }
  if (argc - k != 2) {
    fprintf(
        stderr,
        "usage: smcmp [--comet-way N] [--ccc] [--allow-empty] [--tol-rel X | --ulp32 N] "
        "A B\n");
    return 2;
  }
  set_t a = {0}, b = {0};
  load(argv[k], &a);
  load(argv[k + 1], &b);
  if (a.n) /* qsort wants a valid pointer even for 0 elements */
    qsort(a.r, a.n, sizeof *a.r, cmp_rec);
  if (b.n)
    qsort(b.r, b.n, sizeof *b.r, cmp_rec);
  size_t bad = 0, dup = 0;
  double maxrel = 0;
  for (size_t x = 1; x < a.n; x++)
    dup += !strcmp(a.r[x].key, a.r[x - 1].key);
  for (size_t x = 1; x < b.n; x++)
    dup += !strcmp(b.r[x].key, b.r[x - 1].key);
  if (!a.n && !b.n && !allow_empty) {
    /* two empty sets agree on nothing: a comparison that proves nothing */
    printf("smcmp: both files hold no record (--allow-empty if that is expected)\n");
    return 1;
  }
  if (a.n != b.n || dup) {
    printf("smcmp: %zu records vs %zu, %zu duplicate keys\n", a.n, b.n, dup);
    return 1;
  }
  for (size_t x = 0; x < a.n; x++) {
    if (strcmp(a.r[x].key, b.r[x].key)) {
      if (bad++ < 5)
        printf("smcmp: key '%s' vs '%s'\n", a.r[x].key, b.r[x].key);
      continue;
    }
    double va = a.r[x].value, vb = b.r[x].value;
    double rel = fabs(va - vb) / (fabs(va) > 1e-300 ? fabs(va) : 1.0);
    if (rel > maxrel)
      maxrel = rel;
    int ok;
    if (ulp >= 0) {
      int32_t ia, ib;
      memcpy(&ia, &a.r[x].f32, 4);
      memcpy(&ib, &b.r[x].f32, 4);
      ok = abs(ia - ib) <= ulp;
    } else {
      ok = tol > 0 ? rel <= tol : va == vb;
    }
    if (!ok && bad++ < 5)
      printf("smcmp: '%s': %.17g vs %.17g\n", a.r[x].key, va, vb);
  }
  printf("smcmp: %zu records, %zu differ, max relative difference %.3g\n", a.n, bad,
         maxrel);
  free(a.r);
  free(b.r);
  return bad ? 1 : 0;
}
