/* bench/maf.c: sites per second of the SAF computation for N = 100, 1024
 * and 4096 individuals, exact and banded: the tree kernel on one core, the
 * iterative reference on one core, and the StarPU tasks on every CPU
 * worker; with the banded result's largest difference to the exact one.
 * Built and run by `make bench-maf` (not part of make check). Sites are
 * simulated from a read model (allele frequency, depth 0..5, 1% error, 5%
 * of individuals without data). Usage: bench/maf [--band-tol T] [--quick] */
#include <math.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_codelets.h"
#include "sm_codelets_saf.h"
#include "sm_kern_saf.h"
#include "sm_runtime.h"
#include "sm_timer.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double unif(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static void make_sites(int N, size_t ns, double *gl)
{
  for (size_t s = 0; s < ns; s++) {
    const double f = unif() * unif(); /* mostly rare variants */
    for (int i = 0; i < N; i++) {
      double *p = gl + (s * N + i) * 3;
      p[0] = p[1] = p[2] = 1.0;
      if (unif() < 0.05)
        continue;
      int g = (unif() < f) + (unif() < f), d = (int)(unif() * 6);
      for (int r = 0; r < d; r++) {
        int der = unif() < (g / 2.0) * 0.99 + (1 - g / 2.0) * 0.01;
        for (int h = 0; h < 3; h++) {
          double q = (h / 2.0) * 0.99 + (1 - h / 2.0) * 0.01;
          p[h] *= der ? q : 1 - q;
        }
      }
    }
  }
}

/* Sites per second of a kernel on one core. */
static double kernel_rate(int N, size_t ns, const double *gl, double *out,
                          sm_saf_site_t *info, int ref, double tol)
{
  sm_saf_tab_t *tab = sm_saf_tab_create(N);
  sm_saf_ws_t *ws = sm_saf_ws_create(N);
  const size_t nb = 2 * (size_t)N + 1;
  double t0 = sm_now();
  if (ref)
    sm_kern_saf_ref(tab, ws, ns, gl, 3 * (size_t)N, out, nb, info);
  else
    sm_kern_saf_tree(tab, ws, tol, ns, gl, 3 * (size_t)N, out, nb, info);
  double dt = sm_now() - t0;
  sm_saf_ws_destroy(ws);
  sm_saf_tab_destroy(tab);
  return (double)ns / dt;
}

/* Sites per second of the SAF tasks on every worker, blocks of bs sites. */
static double task_rate(int N, size_t ns, const double *gl, double *out,
                        sm_saf_site_t *info, double tol, size_t bs)
{
  const size_t nb = 2 * (size_t)N + 1, nblk = (ns + bs - 1) / bs;
  sm_saf_tab_t *tab = sm_saf_tab_create(N);
  starpu_data_handle_t *h = malloc(3 * nblk * sizeof *h);
  double t0 = sm_now();
  for (size_t b = 0; b < nblk; b++) {
    size_t s0 = b * bs, n = s0 + bs > ns ? ns - s0 : bs;
    starpu_matrix_data_register(&h[3 * b], STARPU_MAIN_RAM, (uintptr_t)(gl + s0 * 3 * N),
                                3 * N, 3 * N, n, sizeof(double));
    starpu_matrix_data_register(&h[3 * b + 1], STARPU_MAIN_RAM,
                                (uintptr_t)(out + s0 * nb), nb, nb, n, sizeof(double));
    starpu_vector_data_register(&h[3 * b + 2], STARPU_MAIN_RAM, (uintptr_t)(info + s0), n,
                                sizeof(sm_saf_site_t));
    if (sm_task_saf(h[3 * b], h[3 * b + 1], h[3 * b + 2], tab, SM_SAF_TREE, tol, 0))
      abort();
  }
  starpu_task_wait_for_all();
  double dt = sm_now() - t0;
  for (size_t k = 0; k < 3 * nblk; k++)
    starpu_data_unregister(h[k]);
  free(h);
  sm_saf_tab_destroy(tab);
  return (double)ns / dt;
}

int main(int argc, char **argv)
{
  double tol = 30.0;
  int quick = 0;
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--band-tol") && k + 1 < argc)
      tol = atof(argv[++k]);
    else if (!strcmp(argv[k], "--quick"))
      quick = 1;
    else {
      fprintf(stderr, "usage: bench/maf [--band-tol T] [--quick]\n");
      return 2;
    }
  }
  if (sm_runtime_init(NULL, 0) != SM_OK)
    return 1;
  sm_codelets_init(0, SM_KERNEL_AUTO);
  const int workers = (int)starpu_cpu_worker_get_count();
  printf("starmet maf benchmark: sites/s of the SAF (band tolerance %g nats for "
         "\"banded\"),\n"
         "one core for the kernels, %d CPU workers for the tasks\n\n",
         tol, workers);
  printf("%6s %8s | %12s %12s %12s | %12s %12s | %9s %12s %12s\n", "N", "sites",
         "tree exact", "tree banded", "iterative", "tasks exact", "tasks band", "dropped",
         "band err", "err >= -10");
  static const int Ns[] = {100, 1024, 4096};
  for (size_t k = 0; k < 3; k++) {
    const int N = Ns[k];
    const size_t nb = 2 * (size_t)N + 1;
    size_t ns = N == 100 ? 4000 : N == 1024 ? 300 : 40;
    if (quick)
      ns /= 4;
    const size_t nref = N == 4096 ? 2 : N == 1024 ? 8 : 100;
    double *gl = malloc(ns * 3 * N * sizeof *gl);
    double *ex = malloc(ns * nb * sizeof *ex), *bd = malloc(ns * nb * sizeof *bd);
    sm_saf_site_t *ie = malloc(ns * sizeof *ie), *ib = malloc(ns * sizeof *ib);
    make_sites(N, ns, gl);
    starpu_pause(); /* idle workers spin: keep them off the one-core runs */
    double r_ex = kernel_rate(N, ns, gl, ex, ie, 0, 0);
    double r_bd = kernel_rate(N, ns, gl, bd, ib, 0, tol);
    double *rf = malloc(nref * nb * sizeof *rf);
    sm_saf_site_t *ir = malloc(nref * sizeof *ir);
    double r_ref = kernel_rate(N, nref, gl, rf, ir, 1, 0);
    free(rf), free(ir);
    starpu_resume();
    const size_t bs = N == 4096 ? 1 : N == 1024 ? 4 : 64;
    double t_ex = task_rate(N, ns, gl, ex, ie, 0, bs);
    double t_bd = task_rate(N, ns, gl, bd, ib, tol, bs);
    double err = 0, err10 = 0, dropped = 0;
    for (size_t s = 0; s < ns; s++) {
      dropped += ib[s].dropped;
      for (size_t j = 0; j < nb; j++) {
        const double d = fabs(ex[s * nb + j] - bd[s * nb + j]);
        if (ex[s * nb + j] >= -tol / 2)
          err = d > err ? d : err;
        if (ex[s * nb + j] >= -10)
          err10 = d > err10 ? d : err10;
      }
    }
    printf("%6d %8zu | %12.1f %12.1f %12.2f | %12.1f %12.1f | %8.1f%% %12.3g %12.3g\n", N,
           ns, r_ex, r_bd, r_ref, t_ex, t_bd, 100.0 * dropped / (double)(ns * nb), err,
           err10);
    fflush(stdout);
    free(gl), free(ex), free(bd), free(ie), free(ib);
  }
  printf("\n\"band err\": largest |banded - exact| over bins within T/2 of the maximum;\n"
         "\"err >= -10\": over bins within 10 nats of it (natural-log SAF values).\n");
  sm_runtime_shutdown();
  return 0;
}
