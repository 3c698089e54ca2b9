/* sm_hist.c: writing the value histograms of a run. */
#include "sm_hist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_commit.h"

void sm_hist_entry_name(int ccc, int way, uint32_t e, char *buf)
{
  if (!ccc) {
    strcpy(buf, "-");
    return;
  }
  int n = 0;
  for (int b = way - 1; b >= 0; b--)
    buf[n++] = (char)('0' + ((e >> b) & 1u));
  buf[n] = 0;
}

/* The lower and upper edge of slot s (0 below, 1..bins, bins+1 above,
 * bins+2 NaN), and its bin number in the file. */
static long slot_edges(const sm_hist_spec_t *h, uint32_t s, double *lo, double *hi)
{
  const double w = h->hi - h->lo;
  if (s == 0) {
    *lo = -INFINITY, *hi = h->lo;
    return -1;
  }
  if (s == h->bins + 1) {
    *lo = h->hi, *hi = INFINITY;
    return h->bins;
  }
  if (s == h->bins + 2) {
    *lo = *hi = NAN;
    return (long)h->bins + 1;
  }
  *lo = h->lo + w * (double)(s - 1) / h->bins;
  *hi = s == h->bins ? h->hi : h->lo + w * (double)s / h->bins;
  return (long)s - 1;
}

sm_err_t sm_hist_write_tsv(const char *path, const sm_hist_spec_t *h, int ccc, int way,
                           const uint64_t *counts)
{
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 0, "w") != SM_OK) {
    sm_log_error("%s: cannot create the histogram: %s%s", c.tmp,
                 sm_commit_strerror(errno), sm_commit_hint(errno));
    return SM_EIO;
  }
  const char *metric = ccc ? "ccc" : "czekanowski";
  int bad = fputs("metric\tway\tentry\tbin\tlo\thi\tcount\n", c.f) == EOF;
  for (uint32_t e = 0; e < h->nent && !bad; e++) {
    char name[8];
    sm_hist_entry_name(ccc, way, e, name);
    for (uint32_t s = 0; s < sm_hist_row(h) && !bad; s++) {
      double lo, hi;
      const long bin = slot_edges(h, s, &lo, &hi);
      bad = fprintf(c.f, "%s\t%d\t%s\t%ld\t%.17g\t%.17g\t%llu\n", metric, way, name, bin,
                    lo, hi, (unsigned long long)counts[e * sm_hist_row(h) + s]) < 0;
    }
  }
  if (bad || sm_commit_finish(&c) != SM_OK) {
    sm_log_error("%s: cannot write the histogram: %s", path, sm_commit_strerror(errno));
    sm_commit_abort(&c);
    return SM_EIO;
  }
  return SM_OK;
}

void sm_hist_json(sm_json_t *j, const sm_hist_spec_t *h, int ccc, int way,
                  const uint64_t *counts)
{
  sm_json_object(j, "histogram", 4);
  sm_json_u64(j, "bins", h->bins);
  sm_json_real(j, "min", 17, h->lo);
  sm_json_real(j, "max", 17, h->hi);
  sm_json_str(j, "slots", "below min, bins 0..bins-1, above max, NaN");
  sm_json_object(j, "counts", 6);
  for (uint32_t e = 0; e < h->nent; e++) {
    char name[8];
    sm_hist_entry_name(ccc, way, e, name);
    sm_json_array(j, name, 0);
    for (uint32_t s = 0; s < sm_hist_row(h); s++)
      sm_json_u64(j, NULL, counts[e * sm_hist_row(h) + s]);
    sm_json_close(j);
  }
  sm_json_close(j);
  sm_json_close(j);
}

/* Whether prog is an executable file on the PATH. */
static int on_path(const char *prog)
{
  const char *path = getenv("PATH");
  char dir[4096], full[4200];
  while (path && *path) {
    size_t n = strcspn(path, ":");
    snprintf(dir, sizeof dir, "%.*s", (int)n, path);
    snprintf(full, sizeof full, "%s/%s", n ? dir : ".", prog);
    if (access(full, X_OK) == 0)
      return 1;
    path += n + (path[n] == ':');
  }
  return 0;
}

int sm_hist_plot(const char *tsv, const char *png, const sm_hist_spec_t *h, int ccc,
                 int way)
{
  if (!on_path("gnuplot"))
    return 0;
  /* the picture is drawn beside its final name and renamed when gnuplot
   * succeeded; names with quotes would break the script: not drawn */
  if (strpbrk(tsv, "\"'\\\n") || strpbrk(png, "\"'\\\n")) {
    sm_log_warn("%s: not drawn (quotes or backslashes in the file name)", png);
    return -1;
  }
  char part[4200];
  snprintf(part, sizeof part, "%s.part", png);
  FILE *g = popen("gnuplot > /dev/null 2>&1", "w");
  if (!g)
    return -1;
  fprintf(g,
          "set terminal pngcairo size 960,600\n"
          "set output '%s'\n"
          "set datafile separator '\\t'\n"
          "set title '%s %d-way: values per bin (%u bins over [%g, %g])'\n"
          "set xlabel 'value'\nset ylabel 'count'\nset logscale y\nset key outside\n"
          "set grid\n",
          part, ccc ? "ccc" : "czekanowski", way, h->bins, h->lo, h->hi);
  fputs("plot ", g);
  for (uint32_t e = 0; e < h->nent; e++) {
    char name[8];
    sm_hist_entry_name(ccc, way, e, name);
    /* this entry's bins (not the slots below, above and NaN) */
    fprintf(
        g,
        "%s'%s' skip 1 using ((strcol(3) eq '%s' && $4 >= 0 && $4 < %u) ? ($5+$6)/2 : "
        "1/0):($7 > 0 ? $7 : 1/0) with histeps lw 2 title '%s'",
        e ? ", " : "", tsv, name, h->bins, ccc ? name : "values");
  }
  fputs("\n", g);
  const int st = pclose(g);
  if (st != 0 || rename(part, png) != 0) {
    unlink(part);
    sm_log_warn("%s: gnuplot could not draw the histogram", png);
    return -1;
  }
  return 1;
}
