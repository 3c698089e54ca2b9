/* sm_maf_em.c: the site frequency spectrum by EM (realSFS), its updates
 * from sm_maf_fit (plain or Anderson-accelerated, unfolded or folded):
 * E-step tasks per block, ordered reduction of the partial sums per chunk
 * and over the ranks (MPI collectives on these small vectors only; SAF data
 * never move), the same updates on every rank. */
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

/* One E-step at the spectrum in h_phi: tasks on every block (per-site
 * frequencies into maf, or maf_try when try_buf), then the ordered sums
 * over chunks and ranks into tot (nbins gradient sums, sum of ln Z,
 * sites). */
static sm_err_t estep(sm_maf_block_t *blocks, size_t nblocks, size_t len,
                      starpu_data_handle_t h_phi, int convert, int try_buf, double *tot)
{
  sm_err_t err = SM_OK;
  for (size_t k = 0; k < nblocks && !err; k++) {
    sm_maf_block_t *b = &blocks[k];
    if (sm_task_safem(b->h_saf, b->h_info, h_phi, b->h_part,
                      try_buf ? b->h_maf_try : b->h_maf, convert, 1)) {
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

/* The per-site frequencies of the accepted point into maf; free maf_try. */
static void keep_maf(sm_maf_block_t *blocks, size_t nblocks, int in_try)
{
  for (size_t k = 0; k < nblocks; k++) {
    sm_maf_block_t *b = &blocks[k];
    if (in_try && b->maf_try)
      memcpy(b->maf, b->maf_try, b->sites.n * sizeof *b->maf);
    free(b->maf_try);
    b->maf_try = NULL;
  }
}

sm_err_t sm_maf_em_run(sm_maf_block_t *blocks, size_t nblocks, size_t nbins,
                       sm_maf_em_t *em)
{
  const size_t len = nbins + 2;
  sm_err_t err = SM_OK;
  double *tot = malloc(len * sizeof *tot), *q = malloc(nbins * sizeof *q);
  sm_maf_fit_t *fit = sm_maf_fit_create(nbins, em->fold, em->accel, em->tole);
  em->phi = malloc(nbins * sizeof *em->phi);
  int nomem = !tot || !q || !fit || !em->phi;
  for (size_t k = 0; k < nblocks && !nomem; k++)
    nomem = !(blocks[k].maf_try = malloc((blocks[k].sites.n ? blocks[k].sites.n : 1) *
                                         sizeof *blocks[k].maf_try));
  if (nomem) {
    free(tot);
    free(q);
    sm_maf_fit_destroy(fit);
    keep_maf(blocks, nblocks, 0);
    sm_log_error("maf: out of memory for the spectrum's EM (%zu bins)", nbins);
    return sm_mpi_agree(SM_ENOMEM);
  }
  memcpy(q, sm_maf_fit_point(fit), nbins * sizeof *q);
  starpu_data_handle_t h_phi;
  starpu_vector_data_register(&h_phi, STARPU_MAIN_RAM, (uintptr_t)q, nbins,
                              sizeof(double));
  for (size_t k = 0; k < nblocks; k++) {
    sm_maf_block_t *b = &blocks[k];
    starpu_vector_data_register(&b->h_part, STARPU_MAIN_RAM, (uintptr_t)b->part, len,
                                sizeof(double));
    starpu_vector_data_register(&b->h_maf, STARPU_MAIN_RAM, (uintptr_t)b->maf, b->sites.n,
                                sizeof(double));
    starpu_vector_data_register(&b->h_maf_try, STARPU_MAIN_RAM, (uintptr_t)b->maf_try,
                                b->sites.n, sizeof(double));
  }
  /* Every E-step evaluates the fit's next point; its per-site frequencies
   * go to the buffer not holding the accepted point's, which it becomes if
   * the fit accepts the point. The spectrum reported is the last accepted
   * one, with its frequencies and log-likelihood. */
  int esteps = 0, in_try = 1; /* the first E-step writes maf */
  em->converged = 0;
  for (;;) {
    set_phi(h_phi, q, sm_maf_fit_point(fit), nbins);
    if ((err = estep(blocks, nblocks, len, h_phi, esteps == 0, !in_try, tot)))
      break;
    esteps++;
    if (tot[nbins + 1] <= 0) /* no site in the likelihood (the caller has one) */
      break;
    int accepted = 0;
    const sm_maf_fit_status_t st =
        sm_maf_fit_update(fit, tot, tot[nbins], tot[nbins + 1], &accepted);
    if (accepted)
      in_try = !in_try;
    if (st == SM_MAF_FIT_CONVERGED) {
      em->converged = 1;
      break;
    }
    if (esteps >= em->maxiter)
      break;
  }
  const sm_maf_fit_state_t fs = sm_maf_fit_state(fit);
  em->iterations = esteps;
  em->loglik = fs.loglik;
  em->nsites = fs.nsites;
  em->change = fs.change;
  em->gap_bound = fs.gap_bound;
  em->rejected = (int)fs.rejected;
  sm_maf_fit_spectrum(fit, em->phi);
  for (size_t k = 0; k < nblocks; k++) {
    starpu_data_unregister(blocks[k].h_part);
    starpu_data_unregister(blocks[k].h_maf);
    starpu_data_unregister(blocks[k].h_maf_try);
  }
  starpu_data_unregister(h_phi);
  keep_maf(blocks, nblocks, in_try);
  sm_maf_fit_destroy(fit);
  free(tot);
  free(q);
  if (err == SM_ENOMEM)
    sm_log_error("maf: out of memory for the EM sums");
  return err;
}
