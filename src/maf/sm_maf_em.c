/* sm_maf_em.c: the site frequency spectrum by EM (realSFS), accelerated by
 * SQUAREM: E-step tasks per block, ordered reduction of the partial sums per
 * chunk and over the ranks (MPI collectives on these small vectors only; SAF
 * data never move), M-step and extrapolation on every rank alike. */
#include "sm_maf_em.h"

#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sm_codelets_saf.h"
#include "sm_mpi.h"

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = **(const uint64_t *const *)a, y = **(const uint64_t *const *)b;
  return x < y ? -1 : x > y;
}

sm_err_t sm_maf_reduce_chunks(const uint64_t *ids, const double *vec, size_t nmine,
                              size_t len, double *out)
{
  memset(out, 0, len * sizeof *out);
  const int P = sm_mpi_size();
  if (!sm_mpi_active() || P == 1) {
    for (size_t c = 0; c < nmine; c++)
      for (size_t j = 0; j < len; j++)
        out[j] += vec[c * len + j];
    return SM_OK;
  }
  int mine = (int)nmine;
  int *cnt = calloc((size_t)P, sizeof *cnt), *off = calloc((size_t)P, sizeof *off);
  int *vcnt = calloc((size_t)P, sizeof *vcnt), *voff = calloc((size_t)P, sizeof *voff);
  uint64_t *all_ids = NULL, **order = NULL;
  double *all = NULL;
  sm_err_t err = SM_ENOMEM;
  if (!cnt || !off || !vcnt || !voff)
    goto done;
  MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
  size_t total = 0;
  for (int r = 0; r < P; r++) {
    off[r] = (int)total;
    vcnt[r] = cnt[r] * (int)len;
    voff[r] = (int)(total * len);
    total += (size_t)cnt[r];
  }
  all_ids = malloc((total ? total : 1) * sizeof *all_ids);
  all = malloc((total ? total : 1) * len * sizeof *all);
  order = malloc((total ? total : 1) * sizeof *order);
  if (!all_ids || !all || !order)
    goto done;
  MPI_Allgatherv(ids, mine, MPI_UINT64_T, all_ids, cnt, off, MPI_UINT64_T,
                 MPI_COMM_WORLD);
  MPI_Allgatherv(vec, mine * (int)len, MPI_DOUBLE, all, vcnt, voff, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  for (size_t c = 0; c < total; c++)
    order[c] = &all_ids[c];
  qsort(order, total, sizeof *order, cmp_u64);
  for (size_t k = 0; k < total; k++) {
    const double *v = all + (size_t)(order[k] - all_ids) * len;
    for (size_t j = 0; j < len; j++)
      out[j] += v[j];
  }
  err = SM_OK;
done:
  free(cnt), free(off), free(vcnt), free(voff), free(all_ids), free(all), free(order);
  return err;
}

/* This rank's chunk sums: the blocks' E-step sums added in block order. */
static sm_err_t chunk_sums(sm_maf_block_t *b, size_t nb, size_t len, uint64_t **ids,
                           double **vec, size_t *nc)
{
  *nc = 0;
  *ids = malloc((nb ? nb : 1) * sizeof **ids);
  *vec = calloc((nb ? nb : 1) * len, sizeof **vec);
  if (!*ids || !*vec)
    return SM_ENOMEM;
  for (size_t k = 0; k < nb; k++) {
    if (*nc == 0 || (*ids)[*nc - 1] != b[k].chunk)
      (*ids)[(*nc)++] = b[k].chunk;
    double *acc = *vec + (*nc - 1) * len;
    starpu_data_acquire(b[k].h_part, STARPU_R);
    for (size_t j = 0; j < len; j++)
      acc[j] += b[k].part[j];
    starpu_data_release(b[k].h_part);
  }
  return SM_OK;
}

/* One E-step at the spectrum in h_phi: tasks on every block, then the
 * ordered sums over chunks and ranks into tot (nbins posterior sums, sum of
 * ln Z, sites). */
static sm_err_t estep(sm_maf_block_t *blocks, size_t nblocks, size_t len,
                      starpu_data_handle_t h_phi, int convert, double *tot)
{
  sm_err_t err = SM_OK;
  for (size_t k = 0; k < nblocks && !err; k++) {
    sm_maf_block_t *b = &blocks[k];
    if (sm_task_safem(b->h_saf, b->h_info, h_phi, b->h_part, b->h_maf, convert, 1)) {
      sm_log_error("maf: StarPU refused an EM task (no worker can run it)");
      err = SM_ERUNTIME;
    }
  }
  starpu_task_wait_for_all();
  uint64_t *ids = NULL;
  double *vec = NULL;
  size_t nc = 0;
  if (!err)
    err = chunk_sums(blocks, nblocks, len, &ids, &vec, &nc);
  /* idle workers would spin against the ranks' collectives */
  if (sm_mpi_size() > 1)
    starpu_pause();
  err = sm_mpi_agree(err);
  if (!err)
    err = sm_mpi_agree(sm_maf_reduce_chunks(ids, vec, nc, len, tot));
  if (sm_mpi_size() > 1)
    starpu_resume();
  free(ids);
  free(vec);
  return err;
}

/* Set the spectrum the tasks read. */
static void set_phi(starpu_data_handle_t h_phi, double *phi, const double *v, size_t n)
{
  starpu_data_acquire(h_phi, STARPU_W);
  memcpy(phi, v, n * sizeof *phi);
  starpu_data_release(h_phi);
}

sm_err_t sm_maf_em_run(sm_maf_block_t *blocks, size_t nblocks, size_t nbins,
                       sm_maf_em_t *em)
{
  const size_t len = nbins + 2;
  sm_err_t err = SM_OK;
  double *tot = malloc(len * sizeof *tot), *work = malloc(4 * nbins * sizeof *work);
  em->phi = malloc(nbins * sizeof *em->phi);
  if (!tot || !work || !em->phi) {
    free(tot);
    free(work);
    sm_log_error("maf: out of memory for the spectrum (%zu bins)", nbins);
    return sm_mpi_agree(SM_ENOMEM);
  }
  double *p0 = work, *p1 = work + nbins, *p2 = work + 2 * nbins, *pa = work + 3 * nbins;
  for (size_t j = 0; j < nbins; j++) /* start from the flat spectrum */
    p0[j] = 1.0 / (double)nbins;
  memcpy(em->phi, p0, nbins * sizeof *p0);
  starpu_data_handle_t h_phi;
  starpu_vector_data_register(&h_phi, STARPU_MAIN_RAM, (uintptr_t)em->phi, nbins,
                              sizeof(double));
  for (size_t k = 0; k < nblocks; k++) {
    sm_maf_block_t *b = &blocks[k];
    starpu_vector_data_register(&b->h_part, STARPU_MAIN_RAM, (uintptr_t)b->part, len,
                                sizeof(double));
    starpu_vector_data_register(&b->h_maf, STARPU_MAIN_RAM, (uintptr_t)b->maf, b->sites.n,
                                sizeof(double));
  }
  /* SQUAREM (Varadhan and Roland 2008) around the EM map M: from p0, two EM
   * steps p1 = M(p0), p2 = M(p1); r = p1 - p0, v = p2 - p1 - r; the
   * extrapolation p0 - 2 a r + a^2 v with a = -|r| / |v| (at most -1, moved
   * toward -1 until every bin is positive; a = -1 gives p2), then one EM
   * step from it, kept when its log-likelihood is at least p1's (else p2).
   * The log-likelihood never decreases; em->iterations counts E-steps, at
   * most em->maxiter (the last one evaluates the spectrum reported). */
  double prev = -INFINITY;
  int esteps = 0;
  em->converged = 0;
  for (;;) {
    /* E-step at p0: the log-likelihood and allele frequencies reported */
    if ((err = estep(blocks, nblocks, len, h_phi, esteps == 0, tot)))
      break;
    esteps++;
    em->loglik = tot[nbins];
    em->nsites = tot[nbins + 1];
    if (em->nsites <= 0)
      break;
    if (esteps > 1 && em->loglik - prev < em->tol) {
      em->converged = 1;
      break;
    }
    if (esteps >= em->maxiter)
      break;
    prev = em->loglik;
    for (size_t j = 0; j < nbins; j++)
      p1[j] = tot[j] / em->nsites;
    set_phi(h_phi, em->phi, p1, nbins);
    if (esteps + 2 > em->maxiter) { /* room for a plain EM step only */
      memcpy(p0, p1, nbins * sizeof *p0);
      continue;
    }
    if ((err = estep(blocks, nblocks, len, h_phi, 0, tot)))
      break;
    esteps++;
    const double ll1 = tot[nbins];
    double sr = 0, sv = 0;
    for (size_t j = 0; j < nbins; j++) {
      p2[j] = tot[j] / em->nsites;
      double r = p1[j] - p0[j], v = p2[j] - 2 * p1[j] + p0[j];
      sr += r * r;
      sv += v * v;
    }
    double a = sv > 0 ? -sqrt(sr / sv) : -1.0;
    a = a > -1.0 ? -1.0 : a;
    int ok = 0;
    for (int tries = 0; tries < 8 && !ok && a < -1.0; tries++, a = (a - 1.0) / 2) {
      ok = 1;
      for (size_t j = 0; j < nbins && ok; j++) {
        double r = p1[j] - p0[j], v = p2[j] - 2 * p1[j] + p0[j];
        pa[j] = p0[j] - 2 * a * r + a * a * v;
        ok = pa[j] > 0;
      }
    }
    double *next = p2;
    if (ok && esteps + 2 <= em->maxiter) { /* and the next evaluation */
      double sum = 0;
      for (size_t j = 0; j < nbins; j++)
        sum += pa[j];
      for (size_t j = 0; j < nbins; j++)
        pa[j] /= sum;
      set_phi(h_phi, em->phi, pa, nbins);
      if ((err = estep(blocks, nblocks, len, h_phi, 0, tot)))
        break;
      esteps++;
      if (tot[nbins] >= ll1) { /* the extrapolation helped: one EM step from it */
        for (size_t j = 0; j < nbins; j++)
          pa[j] = tot[j] / em->nsites;
        next = pa;
      }
    }
    memcpy(p0, next, nbins * sizeof *p0);
    set_phi(h_phi, em->phi, p0, nbins);
  }
  em->iterations = esteps;
  for (size_t k = 0; k < nblocks; k++) {
    starpu_data_unregister(blocks[k].h_part);
    starpu_data_unregister(blocks[k].h_maf);
  }
  starpu_data_unregister(h_phi);
  free(tot);
  free(work);
  if (err == SM_ENOMEM)
    sm_log_error("maf: out of memory for the EM sums");
  return err;
}
