/* test_maf.c: `starmet maf` on real StarPU workers: the SAF written by the
 * task graph equals the kernel's, bit for bit, for every block size, worker
 * count and scheduler (allele frequencies and spectrum too for a given
 * block size; the EM's log-likelihood within 1e-5 across block sizes); the iterative
 * reference through the command agrees within 1e-12; the binary SAF file holds the same
 * values; the EM recovers the spectrum (unfolded and folded) and allele frequencies of
 * certain genotypes; the ordered chunk reduction. The EM's updates (sm_maf_fit) on
 * likelihoods in memory: Anderson acceleration reaches plain EM's spectrum in fewer
 * E-steps, the log-likelihood of the points kept never decreases, --em-maxiter and the
 * bound on the distance to the maximum, and the folded spectrum equals the unfolded one
 * folded where the two agree. */
#include <math.h>

#include "sm_maf.h"
#include "sm_maf_em.h"
#include "sm_maf_fit.h"
#include "sm_test.h"

static uint64_t rng = 12345;
static double unif(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* A BEAGLE file of ns sites x N individuals; certain: the genotype of
 * individual i at site s is counts[s * N + i] with likelihood 1, the others
 * 1e-12. Returns the path; gl (if not NULL) gets the values written. */
static const char *make_beagle(const char *name, int N, int ns, const int *certain,
                               double *gl)
{
  size_t cap = (size_t)ns * N * 80 + 4096, len = 0;
  char *t = malloc(cap);
  len += (size_t)sprintf(t + len, "marker\tallele1\tallele2");
  for (int i = 0; i < N; i++)
    len += (size_t)sprintf(t + len, "\tInd%d\tInd%d\tInd%d", i, i, i);
  t[len++] = '\n';
  for (int s = 0; s < ns; s++) {
    len += (size_t)sprintf(t + len, "chr%d_%d\tA\tC", 1 + s / 50, 1000 + 7 * s);
    for (int i = 0; i < N; i++) {
      double p[3];
      if (certain)
        for (int g = 0; g < 3; g++)
          p[g] = g == certain[s * N + i] ? 1.0 : 1e-12;
      else if (unif() < 0.1)
        p[0] = p[1] = p[2] = 0.333333;
      else
        p[0] = unif(), p[1] = unif(), p[2] = unif();
      for (int g = 0; g < 3; g++) {
        len += (size_t)sprintf(t + len, "\t%.17g", p[g]);
        if (gl)
          gl[((size_t)s * N + i) * 3 + g] = p[g];
      }
    }
    t[len++] = '\n';
  }
  const char *path = sm_test_write(name, t, len);
  free(t);
  return path;
}

static sm_maf_options_t opts(const char *in, const char *out)
{
  sm_maf_options_t o = {.input = in,
                        .output = out,
                        .output_format = SM_SAF_OUT_TSV,
                        .em_maxiter = 1000,
                        .em_tole = 1e-10,
                        .quiet = 1,
                        .progress = 0};
  return o;
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s missing", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  if (len)
    *len = (size_t)n;
  return s;
}

/* The values of a SAF TSV file: ns rows of nb. */
static double *read_saf_tsv(const char *path, int ns, int nb)
{
  char *s = slurp(path, NULL), *p = strchr(s, '\n') + 1;
  double *v = malloc((size_t)ns * nb * sizeof *v);
  for (int r = 0; r < ns; r++) {
    p = strchr(p, '\t') + 1; /* chrom */
    p = strchr(p, '\t') + 1; /* pos */
    for (int j = 0; j < nb; j++)
      v[(size_t)r * nb + j] = strtod(p, &p);
    ck_assert(*p == '\n');
    p++;
  }
  ck_assert(*p == 0);
  free(s);
  return v;
}

/* The EM's log-likelihood in a JSON summary. */
static double json_loglik(const char *path)
{
  char *s = slurp(path, NULL), *p = strstr(s, "\"loglik\": ");
  ck_assert(p != NULL);
  double v = strtod(p + 10, NULL);
  free(s);
  return v;
}

static const char *path_of(const char *prefix, const char *ext)
{
  static char buf[8][4200];
  static int k;
  char *b = buf[k++ & 7];
  snprintf(b, sizeof buf[0], "%s.%s", prefix, ext);
  return b;
}

static const char *prefix(const char *name)
{
  static char buf[8][4200];
  static int k;
  char *b = buf[k++ & 7];
  snprintf(b, sizeof buf[0], "%s/%s", sm_test_tmpdir(), name);
  return b;
}

START_TEST(graph_equals_kernel)
{
  const int N = 23, ns = 37, nb = 2 * N + 1;
  double *gl = malloc((size_t)ns * N * 3 * sizeof *gl);
  const char *in = make_beagle("g.beagle", N, ns, NULL, gl);
  /* the kernel directly */
  double *want = malloc((size_t)ns * nb * sizeof *want);
  sm_saf_site_t *info = malloc(ns * sizeof *info);
  sm_saf_tab_t *tab = sm_saf_tab_create(N);
  sm_saf_ws_t *ws = sm_saf_ws_create(N);
  sm_kern_saf_tree(tab, ws, 0, ns, gl, 3 * N, want, nb, info);
  sm_saf_ws_destroy(ws);
  sm_saf_tab_destroy(tab);
  static const struct {
    const char *ncpu, *sched;
    size_t bs;
  } runs[] = {{"1", "eager", 3},
              {"2", "lws", 3},
              {"2", "dmda", 3},
              {"2", NULL, 64},
              {"1", NULL, 1}};
  char *first = NULL, *maf_first = NULL, *sfs_first = NULL, first_json[4200];
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
    setenv("STARPU_NCPU", runs[k].ncpu, 1);
    char name[32];
    snprintf(name, sizeof name, "g%zu", k);
    const char *out = prefix(name);
    sm_maf_options_t o = opts(in, out);
    o.block_size = runs[k].bs;
    o.sched = runs[k].sched;
    ck_assert_int_eq(sm_maf_main(&o, "test"), SM_OK);
    double *got = read_saf_tsv(path_of(out, "saf.tsv"), ns, nb);
    for (int i = 0; i < ns * nb; i++)
      ck_assert_msg(got[i] == want[i], "run %zu value %d: %.17g vs %.17g", k, i, got[i],
                    want[i]);
    free(got);
    char *saf = slurp(path_of(out, "saf.tsv"), NULL),
         *maf = slurp(path_of(out, "maf.tsv"), NULL),
         *sfs = slurp(path_of(out, "sfs"), NULL);
    if (!first) {
      first = saf, maf_first = maf, sfs_first = sfs;
      snprintf(first_json, sizeof first_json, "%s", path_of(out, "json"));
      continue;
    }
    ck_assert_str_eq(saf, first);   /* bit-identical files */
    if (runs[k].bs == runs[0].bs) { /* the EM's sums follow the blocks */
      ck_assert_str_eq(maf, maf_first);
      ck_assert_str_eq(sfs, sfs_first);
    } else { /* on this flat likelihood the EM stops at --em-maxiter, a little
              * elsewhere: compare its objective */
      double la = json_loglik(path_of(out, "json")), lb = json_loglik(first_json);
      ck_assert_msg(fabs(la - lb) <= 1e-5 * fabs(lb), "loglik %.17g vs %.17g", la, lb);
    }
    free(saf), free(maf), free(sfs);
  }
  free(first), free(maf_first), free(sfs_first);
  free(want), free(info), free(gl);
}
END_TEST

START_TEST(reference_and_binary)
{
  const int N = 40, ns = 12, nb = 2 * N + 1;
  const char *in = make_beagle("r.beagle", N, ns, NULL, NULL);
  setenv("STARPU_NCPU", "2", 1);
  const char *ot = prefix("tree"), *orf = prefix("ref"), *ob = prefix("bin");
  sm_maf_options_t o = opts(in, ot);
  ck_assert_int_eq(sm_maf_main(&o, "test"), SM_OK);
  o = opts(in, orf);
  o.method = SM_SAF_REF;
  ck_assert_int_eq(sm_maf_main(&o, "test"), SM_OK);
  o = opts(in, ob);
  o.output_format = SM_SAF_OUT_BIN;
  ck_assert_int_eq(sm_maf_main(&o, "test"), SM_OK);
  double *t = read_saf_tsv(path_of(ot, "saf.tsv"), ns, nb),
         *r = read_saf_tsv(path_of(orf, "saf.tsv"), ns, nb);
  for (int i = 0; i < ns * nb; i++)
    if (r[i] >= -50)
      ck_assert_msg(fabs(t[i] - r[i]) <= 1e-12, "value %d: %.17g vs %.17g", i, t[i],
                    r[i]);
  /* the binary file: header, then chrom, pos, first bin, count, values */
  size_t len;
  unsigned char *b = (unsigned char *)slurp(path_of(ob, "saf.bin"), &len);
  ck_assert(memcmp(b, "STARSAF\0", 8) == 0);
  uint32_t u32[4];
  uint64_t nsites;
  memcpy(u32, b + 8, 16);
  memcpy(&nsites, b + 24, 8);
  ck_assert_uint_eq(u32[0], 1);
  ck_assert_uint_eq(u32[1], N);
  ck_assert_uint_eq(u32[2], nb);
  ck_assert_uint_eq(u32[3], 8);
  ck_assert_uint_eq(nsites, ns);
  size_t off = 64;
  for (int s = 0; s < ns; s++) {
    uint32_t clen, first, cnt;
    uint64_t pos;
    memcpy(&clen, b + off, 4);
    off += 4 + clen;
    memcpy(&pos, b + off, 8);
    memcpy(&first, b + off + 8, 4);
    memcpy(&cnt, b + off + 12, 4);
    off += 16;
    ck_assert_uint_eq(pos, 1000 + 7 * s);
    for (uint32_t j = 0; j < (uint32_t)nb; j++) {
      double v = -INFINITY;
      if (j >= first && j < first + cnt)
        memcpy(&v, b + off + 8 * (j - first), 8);
      ck_assert(v == t[s * nb + j]);
    }
    off += 8 * (size_t)cnt;
  }
  ck_assert_uint_eq(off, len);
  free(b), free(t), free(r);
}
END_TEST

/* Certain genotypes: the EM's spectrum is the histogram of the counts (folded:
 * of the minor allele's counts) and each site's frequency its count / 2N. */
START_TEST(em_recovers_spectrum)
{
  const int N = 3, ns = 60, nb = 2 * N + 1;
  int *g = malloc((size_t)ns * N * sizeof *g);
  double hist[7] = {0};
  for (int s = 0; s < ns; s++) {
    int c = 0;
    for (int i = 0; i < N; i++) {
      g[s * N + i] = (s * 7 + i * (s % 5)) % 3 * (s % 4 != 0);
      c += g[s * N + i];
    }
    hist[c]++;
  }
  const char *in = make_beagle("c.beagle", N, ns, g, NULL);
  const char *out = prefix("c");
  setenv("STARPU_NCPU", "2", 1);
  sm_maf_options_t o = opts(in, out);
  o.block_size = 7;
  ck_assert_int_eq(sm_maf_main(&o, "test"), SM_OK);
  char *sfs = slurp(path_of(out, "sfs"), NULL), *p = sfs;
  for (int j = 0; j < nb; j++) {
    double v = strtod(p, &p);
    ck_assert_msg(fabs(v - hist[j]) < 1e-3, "bin %d: %g sites, %g expected", j, v,
                  hist[j]);
  }
  char *maf = slurp(path_of(out, "maf.tsv"), NULL), *q = strchr(maf, '\n') + 1;
  for (int s = 0; s < ns; s++) {
    int c = 0;
    for (int i = 0; i < N; i++)
      c += g[s * N + i];
    for (int k = 0; k < 5; k++)
      q = strchr(q, '\t') + 1;
    double f = strtod(q, &q), m = strtod(q + 1, &q); /* alt_freq, minor_freq */
    ck_assert_msg(fabs(f - c / 6.0) < 1e-6, "site %d: %g, %g expected", s, f, c / 6.0);
    ck_assert(m == (f <= 0.5 ? f : 1 - f));
    ck_assert(*q == '\n');
    q++;
  }
  char *js = slurp(path_of(out, "json"), NULL);
  ck_assert(strstr(js, "\"converged\": true") != NULL);
  ck_assert(strstr(js, "\"computed\": 60") != NULL);
  ck_assert(strstr(js, "\"folded\": false") != NULL);
  free(js), free(sfs), free(maf);
  /* folded: the histogram of min(count, 6 - count), bins 4..6 zero; the
   * allele frequencies unchanged (a count is certain whatever the prior) */
  const char *fout = prefix("cf");
  o = opts(in, fout);
  o.block_size = 7;
  o.fold = 1;
  ck_assert_int_eq(sm_maf_main(&o, "test"), SM_OK);
  sfs = slurp(path_of(fout, "sfs"), NULL), p = sfs;
  for (int j = 0; j < nb; j++) {
    double v = strtod(p, &p), want = j < N    ? hist[j] + hist[nb - 1 - j]
                                     : j == N ? hist[N]
                                              : 0;
    ck_assert_msg(fabs(v - want) < 1e-3, "folded bin %d: %g sites, %g expected", j, v,
                  want);
    if (j > N)
      ck_assert(v == 0);
  }
  maf = slurp(path_of(fout, "maf.tsv"), NULL), q = strchr(maf, '\n') + 1;
  for (int s = 0; s < ns; s++) {
    int c = 0;
    for (int i = 0; i < N; i++)
      c += g[s * N + i];
    for (int k = 0; k < 5; k++)
      q = strchr(q, '\t') + 1;
    double f = strtod(q, &q), m = strtod(q + 1, &q);
    ck_assert_msg(fabs(f - c / 6.0) < 1e-6, "folded, site %d: %g, %g expected", s, f,
                  c / 6.0);
    ck_assert(m == (f <= 0.5 ? f : 1 - f)); /* minor_freq */
    ck_assert(*q == '\n');
    q++;
  }
  js = slurp(path_of(fout, "json"), NULL);
  ck_assert(strstr(js, "\"folded\": true") != NULL);
  ck_assert(strstr(js, "\"converged\": true") != NULL);
  free(js), free(sfs), free(maf), free(g);
}
END_TEST

START_TEST(no_site_with_data)
{
  const int N = 2, ns = 3;
  char text[512] = "marker a1 a2 I I I J J J\n";
  for (int s = 0; s < ns; s++)
    strcat(text, "c_1 A C 0.2 0.2 0.2 0 0 0\n");
  const char *in = sm_test_write("m.beagle", text, strlen(text));
  const char *out = prefix("m");
  sm_maf_options_t o = opts(in, out);
  (void)N;
  ck_assert_int_eq(sm_maf_main(&o, "test"), SM_EDEGEN);
  ck_assert(access(path_of(out, "saf.tsv"), F_OK) != 0);
  ck_assert(access(path_of(out, "saf.tsv.part"), F_OK) != 0);
  ck_assert(access(path_of(out, "sfs"), F_OK) != 0);
}
END_TEST

START_TEST(chunk_reduction)
{
  const uint64_t ids[3] = {0, 2, 5};
  const double vec[6] = {1e16, 1, 1, 2, -1e16, 3};
  double out[2];
  ck_assert_int_eq(sm_maf_reduce_chunks(ids, vec, 3, 2, out), SM_OK);
  ck_assert(out[0] == (1e16 + 1) - 1e16); /* in chunk order */
  ck_assert(out[1] == 6);
}
END_TEST

/* ---- the EM's updates (sm_maf_fit) on likelihoods held in memory */

/* ns sites x nb bins of linear likelihoods, the E-step's input. */
typedef struct lik {
  int ns, nb;
  double *L;
} lik_t;

/* Pooled reads: per site a count j of 2N drawn from a spectrum ~ (3, 1/j),
 * then depth reads, each of the counted allele with probability j / 2N
 * (1% error); L[s][j] the binomial likelihood of the reads at count j. */
static lik_t reads_lik(int N, int ns, int depth)
{
  lik_t p = {ns, 2 * N + 1, malloc((size_t)ns * (2 * N + 1) * sizeof(double))};
  double w[64], tot = 0;
  for (int j = 0; j < p.nb; j++)
    tot += w[j] = j ? 1.0 / j : 3.0;
  for (int s = 0; s < ns; s++) {
    double u = unif() * tot;
    int c = 0;
    while (c < p.nb - 1 && (u -= w[c]) > 0)
      c++;
    const double e = 0.01,
                 pc = (double)c / (p.nb - 1) * (1 - e) + (1 - (double)c / (p.nb - 1)) * e;
    int x = 0;
    for (int r = 0; r < depth; r++)
      x += unif() < pc;
    for (int j = 0; j < p.nb; j++) {
      const double q =
          (double)j / (p.nb - 1) * (1 - e) + (1 - (double)j / (p.nb - 1)) * e;
      p.L[(size_t)s * p.nb + j] = pow(q, x) * pow(1 - q, depth - x);
    }
  }
  return p;
}

/* Every site twice: as it is and with its alleles swapped (bins reversed):
 * the unfolded maximum is then symmetric and folds to the folded one. */
static lik_t mirrored(lik_t a)
{
  lik_t p = {2 * a.ns, a.nb, malloc((size_t)2 * a.ns * a.nb * sizeof(double))};
  for (int s = 0; s < a.ns; s++)
    for (int j = 0; j < a.nb; j++) {
      p.L[(size_t)s * a.nb + j] = a.L[(size_t)s * a.nb + j];
      p.L[(size_t)(a.ns + s) * a.nb + j] = a.L[(size_t)s * a.nb + a.nb - 1 - j];
    }
  free(a.L);
  return p;
}

/* The E-step as the kernel does it: grad[j] = sum_s L_sj / Z_s; returns the
 * sum of ln Z_s. */
static double lik_estep(const lik_t *p, const double *q, double *grad)
{
  double ll = 0;
  for (int j = 0; j < p->nb; j++)
    grad[j] = 0;
  for (int s = 0; s < p->ns; s++) {
    const double *l = p->L + (size_t)s * p->nb;
    double z = 0;
    for (int j = 0; j < p->nb; j++)
      z += q[j] * l[j];
    for (int j = 0; j < p->nb; j++)
      grad[j] += l[j] / z;
    ll += log(z);
  }
  return ll;
}

typedef struct fit_run {
  double spec[64], loglik;
  int esteps, converged;
  sm_maf_fit_state_t st;
} fit_run_t;

/* Fit p with E-steps at most maxe; checks that the accepted points'
 * log-likelihood never decreases and that every point sums to 1. */
static fit_run_t run_fit(const lik_t *p, int fold, sm_maf_accel_t accel, int maxe)
{
  fit_run_t r = {.loglik = -INFINITY};
  sm_maf_fit_t *f = sm_maf_fit_create((size_t)p->nb, fold, accel, 1e-10);
  ck_assert(f != NULL);
  double grad[64];
  while (r.esteps < maxe) {
    const double *q = sm_maf_fit_point(f);
    double sum = 0;
    for (int j = 0; j < p->nb; j++) {
      ck_assert_msg(q[j] > 0, "E-step %d: bin %d is %g", r.esteps, j, q[j]);
      if (fold) /* the unfolded spectrum the E-steps see stays symmetric */
        ck_assert(q[j] == q[p->nb - 1 - j]);
      sum += q[j];
    }
    ck_assert_msg(fabs(sum - 1) < 1e-12, "E-step %d: sums to %.17g", r.esteps, sum);
    const double ll = lik_estep(p, q, grad);
    r.esteps++;
    int acc = 0;
    const sm_maf_fit_status_t st = sm_maf_fit_update(f, grad, ll, p->ns, &acc);
    if (acc) {
      ck_assert_msg(ll >= r.loglik, "E-step %d: accepted %.17g after %.17g", r.esteps, ll,
                    r.loglik);
      r.loglik = ll;
    } else
      ck_assert(ll < r.loglik || isnan(ll));
    if (st == SM_MAF_FIT_CONVERGED) {
      r.converged = 1;
      break;
    }
  }
  r.st = sm_maf_fit_state(f);
  ck_assert(r.st.loglik == r.loglik);
  ck_assert(r.st.gap_bound >= 0);
  sm_maf_fit_spectrum(f, r.spec);
  sm_maf_fit_destroy(f);
  return r;
}

/* The largest difference of two spectra, in sites. */
static double spec_diff(const fit_run_t *a, const fit_run_t *b, int nb, int ns)
{
  double d = 0;
  for (int j = 0; j < nb; j++)
    d = fmax(d, fabs(a->spec[j] - b->spec[j]) * ns);
  return d;
}

/* The accelerated EM reaches the plain EM's spectrum in far fewer E-steps,
 * unfolded and folded, on a well-determined spectrum (tight) and a flat
 * likelihood (plain EM: thousands of steps). */
START_TEST(fit_accelerated_equals_plain)
{
  static const struct {
    int N, ns, depth;
    double tol;  /* sites per bin */
    int speedup; /* E-steps of plain EM over Anderson's, at least */
  } cases[] = {{3, 2000, 30, 0.01, 1}, {5, 2000, 25, 0.01, 20}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int fold = 0; fold < 2; fold++) {
      rng = 777 + c;
      lik_t p = reads_lik(cases[c].N, cases[c].ns, cases[c].depth);
      fit_run_t pl = run_fit(&p, fold, SM_MAF_ACCEL_NONE, 200000),
                an = run_fit(&p, fold, SM_MAF_ACCEL_ANDERSON, 200000);
      ck_assert(pl.converged && an.converged);
      ck_assert_uint_le(pl.st.rejected, 1); /* its last step, when rounding stops it */
      ck_assert_msg(fabs(an.loglik - pl.loglik) < 1e-6,
                    "case %zu fold %d: %.17g vs %.17g", c, fold, an.loglik, pl.loglik);
      const double d = spec_diff(&an, &pl, p.nb, p.ns);
      ck_assert_msg(d < cases[c].tol, "case %zu fold %d: spectra differ by %g sites", c,
                    fold, d);
      ck_assert_msg(cases[c].speedup * an.esteps < pl.esteps,
                    "case %zu fold %d: %d E-steps vs plain %d", c, fold, an.esteps,
                    pl.esteps);
      ck_assert(an.st.change < 1e-10 && pl.st.change < 1e-10);
      ck_assert_msg(an.st.gap_bound < 1e-2, "bound %g", an.st.gap_bound);
      printf("test_maf: N = %d, depth %d%s: plain EM %d E-steps, Anderson %d (%llu "
             "refused), spectra within %.2g sites\n",
             cases[c].N, cases[c].depth, fold ? ", folded" : "", pl.esteps, an.esteps,
             (unsigned long long)an.st.rejected, d);
      free(p.L);
    }
}
END_TEST

/* A flat likelihood (N = 10, 8 reads a site): extrapolations are refused
 * now and then, the log-likelihood still never drops (run_fit), and
 * --em-maxiter stops the fit with its last change above the tolerance. */
START_TEST(fit_monotone_and_maxiter)
{
  rng = 4242;
  lik_t p = reads_lik(10, 2000, 8);
  fit_run_t an = run_fit(&p, 0, SM_MAF_ACCEL_ANDERSON, 100000);
  ck_assert(an.converged);
  ck_assert(an.st.rejected > 0);
  fit_run_t pl = run_fit(&p, 0, SM_MAF_ACCEL_NONE, an.esteps);
  ck_assert(!pl.converged);
  ck_assert(pl.loglik < an.loglik);
  fit_run_t few = run_fit(&p, 0, SM_MAF_ACCEL_ANDERSON, 20);
  ck_assert(!few.converged && few.esteps == 20);
  ck_assert(few.st.change > 1e-10 && few.loglik < an.loglik);
  ck_assert(few.st.gap_bound > an.st.gap_bound);
  /* the bound holds: the maximum is within it of every point */
  ck_assert(an.loglik - few.loglik <= few.st.gap_bound);
  ck_assert(an.loglik - pl.loglik <= pl.st.gap_bound);
  double sum = 0;
  for (int j = 0; j < p.nb; j++)
    sum += few.spec[j];
  ck_assert(fabs(sum - 1) < 1e-12);
  printf("test_maf: N = 10, depth 8: Anderson %d E-steps (%llu refused); plain EM after "
         "as many %.3g below\n",
         an.esteps, (unsigned long long)an.st.rejected, an.loglik - pl.loglik);
  free(p.L);
}
END_TEST

/* Folding: where realSFS's folded EM and folding the unfolded estimate
 * agree, they agree. Sites and their mirror images: the folded spectrum is
 * the unfolded one folded (k with 2N - k, the middle bin alone, N + 1.. 0).
 * Certain counts: the folded spectrum is the folded histogram. */
START_TEST(fit_fold)
{
  rng = 99;
  lik_t p = mirrored(reads_lik(5, 1000, 20));
  const int nb = p.nb, n = nb / 2;
  fit_run_t u = run_fit(&p, 0, SM_MAF_ACCEL_ANDERSON, 100000),
            f = run_fit(&p, 1, SM_MAF_ACCEL_ANDERSON, 100000);
  ck_assert(u.converged && f.converged);
  for (int k = 0; k <= n; k++) {
    const double want = k < n ? u.spec[k] + u.spec[nb - 1 - k] : u.spec[n];
    ck_assert_msg(fabs(f.spec[k] - want) * p.ns < 1e-3, "bin %d: %.10g vs %.10g sites", k,
                  f.spec[k] * p.ns, want * p.ns);
  }
  for (int k = n + 1; k < nb; k++)
    ck_assert(f.spec[k] == 0);
  ck_assert(fabs(u.loglik - f.loglik) < 1e-6);
  free(p.L);
  /* certain counts: site s has count s % 11 for s < 700, else count 2 */
  lik_t c = {1100, 11, calloc(1100 * 11, sizeof(double))};
  double hist[11] = {0};
  for (int s = 0; s < c.ns; s++) {
    const int k = s < 700 ? s % 11 : 2;
    c.L[(size_t)s * 11 + k] = 1;
    hist[k < 5 ? k : k > 5 ? 10 - k : 5] += 1;
  }
  fit_run_t cf = run_fit(&c, 1, SM_MAF_ACCEL_ANDERSON, 100000),
            cu = run_fit(&c, 0, SM_MAF_ACCEL_ANDERSON, 100000);
  ck_assert(cf.converged && cu.converged);
  for (int k = 0; k < 11; k++) {
    ck_assert_msg(fabs(cf.spec[k] * c.ns - hist[k]) < 1e-6,
                  "certain, bin %d: %.10g vs %g", k, cf.spec[k] * c.ns, hist[k]);
    const double want = k < 5 ? cu.spec[k] + cu.spec[10 - k] : k == 5 ? cu.spec[5] : 0;
    ck_assert(fabs(cf.spec[k] - want) * c.ns < 1e-6);
  }
  free(c.L);
}
END_TEST

static Suite *maf_suite(void)
{
  Suite *s = suite_create("maf");
  TCase *tc = tcase_create("command");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, graph_equals_kernel);
  tcase_add_test(tc, reference_and_binary);
  tcase_add_test(tc, em_recovers_spectrum);
  tcase_add_test(tc, no_site_with_data);
  tcase_add_test(tc, chunk_reduction);
  suite_add_tcase(s, tc);
  TCase *tf = tcase_create("fit");
  tcase_set_timeout(tf, 120);
  tcase_add_test(tf, fit_accelerated_equals_plain);
  tcase_add_test(tf, fit_monotone_and_maxiter);
  tcase_add_test(tf, fit_fold);
  suite_add_tcase(s, tf);
  return s;
}

SM_TEST_MAIN(maf_suite)
