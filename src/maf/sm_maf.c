/* sm_maf.c: `starmet maf` from options to files: read the genotype
 * likelihoods a block of sites at a time (chunks of blocks dealt round-robin
 * to the ranks), one SAF task per block with a bounded number in flight,
 * the SAF written as blocks complete, then the spectrum EM, the allele
 * frequencies and the summaries. */
#include "config.h"

#include "sm_maf.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_codelets.h"
#include "sm_commit.h"
#include "sm_lock.h"
#include "sm_maf_em.h"
#include "sm_maf_output.h"
#include "sm_maf_report.h"
#include "sm_mpi.h"
#include "sm_preflight.h"
#include "sm_stream.h"
#include "sm_runtime.h"
#include "sm_sched.h"
#include "sm_timer.h"

/* Blocks per chunk: the unit dealt to ranks and of the EM's ordered sums. */
#define SM_MAF_CHUNK_BLOCKS 4

typedef struct run {
  const sm_maf_options_t *o;
  int me, P;
  sm_gl_reader_t *rd;
  size_t nind, nbins, bs;
  sm_saf_tab_t *tab;
  sm_maf_block_t *blk;
  size_t nblk, cap, ndone; /* blocks; blocks whose SAF has been written */
  sm_maf_writer_t *saf_w, *maf_w, *sfs_w;
  sm_lockset_t lock; /* rank 0's, on the output's names */
  uint64_t computed, nodata, with_missing, bins_total, bins_dropped;
  uint64_t tot[5]; /* those five summed over the ranks */
  int progress;
  double t_start, t_last;
  const char *command;
  double t0, t_init, t_saf, t_em, t_out;
  char saf_path[4096], maf_path[4096], sfs_path[4096], json_path[4096];
  int runtime_up, em_ran;
  sm_maf_em_t em;
  sm_runtime_stats_t rs;
} run_t;

/* Output paths: PREFIX.<ext>, PREFIX_<rank>.<ext> for a per-rank file under
 * several ranks. */
static void out_path(char *buf, size_t len, const run_t *r, const char *ext, int per_rank)
{
  if (per_rank && r->P > 1)
    snprintf(buf, len, "%s_%d.%s", r->o->output, r->me, ext);
  else
    snprintf(buf, len, "%s.%s", r->o->output, ext);
}

/* Open the input (rank 0 first) and size its blocks. */
static sm_err_t open_input(run_t *r)
{
  /* a stream is read once, by one process */
  const int stream = r->P > 1 && sm_input_is_stream(r->o->input);
  if (sm_mpi_agree(stream ? SM_EOPTION : SM_OK)) {
    if (r->me == 0)
      sm_log_error(
          "%s is a stream (a pipe, a FIFO or a device), which one process reads "
          "once: %d MPI ranks cannot share it; write it to a file for an MPI run",
          r->o->input, r->P);
    return SM_EOPTION;
  }
  /* rank 0 first, so a bad input is reported once */
  sm_err_t err = SM_OK;
  if (r->me == 0)
    err = sm_gl_open(r->o->input, r->o->input_format, &r->rd);
  err = sm_mpi_agree(err);
  if (!err && r->me != 0)
    err = sm_gl_open(r->o->input, r->o->input_format, &r->rd);
  err = sm_mpi_agree(err);
  if (err)
    return err;
  r->nind = sm_gl_nind(r->rd);
  r->nbins = 2 * r->nind + 1;
  if (r->nind > (1u << 24)) {
    if (r->me == 0)
      sm_log_error("%s: %zu individuals is beyond what starmet maf handles (2^24)",
                   r->o->input, r->nind);
    return SM_EDEGEN;
  }
  r->bs = r->o->block_size ? r->o->block_size : sm_maf_auto_block(r->nind);
  return SM_OK;
}

static sm_maf_block_t *new_block(run_t *r, uint64_t chunk)
{
  if (r->nblk == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    sm_maf_block_t *grown = realloc(r->blk, cap * sizeof *grown);
    if (!grown)
      return NULL;
    r->blk = grown;
    r->cap = cap;
  }
  sm_maf_block_t *b = &r->blk[r->nblk++];
  memset(b, 0, sizeof *b);
  b->chunk = chunk;
  return b;
}

static void free_block(sm_maf_block_t *b)
{
  sm_gl_sites_free(&b->sites);
  free(b->saf);
  free(b->info);
  free(b->maf);
  free(b->part);
}

/* Register a block's data and insert its SAF task. */
static sm_err_t submit(run_t *r, sm_maf_block_t *b)
{
  const size_t n = b->sites.n, ldgl = 3 * r->nind;
  b->saf = malloc(n * r->nbins * sizeof *b->saf);
  b->info = calloc(n, sizeof *b->info);
  b->maf = malloc(n * sizeof *b->maf);
  b->part = calloc(r->nbins + 2, sizeof *b->part);
  if (!b->saf || !b->info || !b->maf || !b->part) {
    sm_log_error("%s: out of memory for a block of %zu sites x %zu bins", r->o->input, n,
                 r->nbins);
    return SM_ENOMEM;
  }
  starpu_matrix_data_register(&b->h_gl, STARPU_MAIN_RAM, (uintptr_t)b->sites.gl, ldgl,
                              ldgl, n, sizeof(double));
  starpu_matrix_data_register(&b->h_saf, STARPU_MAIN_RAM, (uintptr_t)b->saf, r->nbins,
                              r->nbins, n, sizeof(double));
  starpu_vector_data_register(&b->h_info, STARPU_MAIN_RAM, (uintptr_t)b->info, n,
                              sizeof(sm_saf_site_t));
  if (sm_task_saf(b->h_gl, b->h_saf, b->h_info, r->tab, r->o->method, r->o->band_tol,
                  1)) {
    sm_log_error("maf: StarPU refused a SAF task (no worker can run it)");
    starpu_data_unregister(b->h_gl);
    starpu_data_unregister(b->h_saf);
    starpu_data_unregister(b->h_info);
    b->h_gl = b->h_saf = b->h_info = NULL;
    return SM_ERUNTIME;
  }
  return SM_OK;
}

static void progress(run_t *r, int last)
{
  double t = sm_now();
  if (!r->progress || (!last && t - r->t_last < 0.5))
    return;
  r->t_last = t;
  double dt = t - r->t_start;
  fprintf(stderr, "\rstarmet maf: %llu sites, %.0f sites/s%s",
          (unsigned long long)r->computed, dt > 0 ? (double)r->computed / dt : 0.0,
          last ? "\n" : "");
}

/* Wait for the oldest block in flight, write its SAF, free its input. */
static sm_err_t complete(run_t *r)
{
  sm_maf_block_t *b = &r->blk[r->ndone++];
  sm_err_t err = SM_OK;
  starpu_data_acquire(b->h_saf, STARPU_R);
  starpu_data_acquire(b->h_info, STARPU_R);
  for (size_t s = 0; s < b->sites.n; s++) {
    const sm_saf_site_t *in = &b->info[s];
    if (in->ndata == 0) {
      r->nodata++;
      continue;
    }
    r->computed++;
    r->with_missing += in->ndata < r->nind;
    r->bins_total += r->nbins;
    r->bins_dropped += in->dropped;
    if (r->saf_w && !err)
      err = sm_maf_writer_saf(r->saf_w, sm_gl_chrom(r->rd, b->sites.chrom[s]),
                              b->sites.pos[s], b->saf + s * r->nbins, in->lo, in->hi);
  }
  starpu_data_release(b->h_info);
  starpu_data_release(b->h_saf);
  if (r->o->debug_pause_after == r->ndone) /* tests: act beside a run in flight */
    raise(SIGSTOP);
  starpu_data_unregister(b->h_gl);
  b->h_gl = NULL;
  sm_gl_sites_drop_gl(&b->sites);
  progress(r, 0);
  return err;
}

/* Read the whole input, a chunk at a time; compute this rank's chunks. */
static sm_err_t compute_saf(run_t *r)
{
  const size_t window = 2 * (size_t)starpu_worker_get_count() + 2;
  sm_gl_sites_t skip = {0};
  sm_err_t err = SM_OK;
  int eof = 0;
  for (uint64_t c = 0; !eof && !err; c++) {
    const int mine = (int)(c % (uint64_t)r->P) == r->me;
    for (int k = 0; k < SM_MAF_CHUNK_BLOCKS && !eof && !err; k++) {
      sm_maf_block_t *b = mine ? new_block(r, c) : NULL;
      if (mine && !b) {
        sm_log_error("maf: out of memory for the block list");
        err = SM_ENOMEM;
        break;
      }
      size_t got = 0;
      err = sm_gl_read(r->rd, r->bs, mine, mine ? &b->sites : &skip, &got);
      eof = got < r->bs;
      if (mine && !err && got > 0)
        err = submit(r, b);
      if (mine && (err || got == 0)) { /* nothing in flight for it */
        free_block(b);
        r->nblk--;
        continue;
      }
      while (!err && r->nblk - r->ndone > window)
        err = complete(r);
    }
  }
  while (r->ndone < r->nblk) { /* every submitted task must finish */
    sm_err_t e = complete(r);
    err = err ? err : e;
  }
  progress(r, 1);
  sm_gl_sites_free(&skip);
  return err;
}

/* Unregister and free every block. */
static void cleanup(run_t *r)
{
  for (size_t k = 0; k < r->nblk; k++) {
    sm_maf_block_t *b = &r->blk[k];
    if (b->h_gl)
      starpu_data_unregister(b->h_gl);
    if (b->h_saf)
      starpu_data_unregister(b->h_saf);
    if (b->h_info)
      starpu_data_unregister(b->h_info);
    free_block(b);
  }
  free(r->blk);
  r->blk = NULL;
  r->nblk = 0;
}

/* The allele frequencies of this rank's sites, in input order. */
static sm_err_t write_maf(run_t *r)
{
  sm_err_t err = SM_OK;
  for (size_t k = 0; k < r->nblk && !err; k++) {
    const sm_maf_block_t *b = &r->blk[k];
    for (size_t s = 0; s < b->sites.n && !err; s++)
      if (b->info[s].ndata)
        err =
            sm_maf_writer_maf(r->maf_w, sm_gl_chrom(r->rd, b->sites.chrom[s]),
                              b->sites.pos[s], sm_gl_allele(&b->sites, s, 0),
                              sm_gl_allele(&b->sites, s, 1), b->info[s].ndata, b->maf[s]);
  }
  return err;
}

/* Open the outputs: every path, the SAF and MAF writers; the tables. */
static sm_err_t open_outputs(run_t *r)
{
  const sm_maf_options_t *o = r->o;
  const char *saf_ext = o->output_format == SM_SAF_OUT_BIN ? "saf.bin" : "saf.tsv";
  sm_err_t err = SM_OK;
  if (o->output) {
    if (o->output_format != SM_SAF_OUT_NONE)
      out_path(r->saf_path, sizeof r->saf_path, r, saf_ext, 1);
    out_path(r->maf_path, sizeof r->maf_path, r, "maf.tsv", 1);
    out_path(r->sfs_path, sizeof r->sfs_path, r, "sfs", 0);
    out_path(r->json_path, sizeof r->json_path, r, "json", 0);
  }
  if (o->summary)
    snprintf(r->json_path, sizeof r->json_path, "%s", o->summary);
  /* the lock on the output's names (rank 0), as compute takes it */
  char stem[2][4200] = {"", ""}, lock[2][4300] = {"", ""};
  if (o->output)
    snprintf(stem[0], sizeof stem[0], "%s", o->output);
  if (o->summary)
    sm_lock_stem(o->summary, stem[1], sizeof stem[1]);
  for (int k = 0; k < 2 && r->me == 0; k++)
    if (stem[k][0] && (k == 0 || strcmp(stem[0], stem[1])))
      snprintf(lock[k], sizeof lock[k], "%s.lock", stem[k]);
  const char *outs[] = {r->saf_path,  r->maf_path, r->sfs_path,
                        r->json_path, lock[0],     lock[1]};
  const char *what[] = {"--output", "--output",
                        "--output", o->summary ? "--summary" : "--output",
                        "--output", "--summary"};
  if ((err = sm_mpi_agree(sm_commit_check_outputs(outs, what, 6, &o->input, 1))))
    return err;
  char label[2][4300];
  snprintf(label[0], sizeof label[0], "--output %s", o->output ? o->output : "");
  snprintf(label[1], sizeof label[1], "--summary %s", o->summary ? o->summary : "");
  const char *stems[] = {stem[0], stem[1]}, *opts[] = {label[0], label[1]};
  if (r->me == 0)
    err = sm_lock_take(&r->lock, stems, opts, 2, r->command);
  if ((err = sm_mpi_agree(err)))
    return err;
  if (r->saf_path[0])
    err = sm_maf_writer_open(&r->saf_w, r->saf_path,
                             o->output_format == SM_SAF_OUT_BIN ? SM_MAF_FILE_SAF_BIN
                                                                : SM_MAF_FILE_SAF_TSV,
                             r->nind, o->band_tol);
  if (!err && r->maf_path[0])
    err = sm_maf_writer_open(&r->maf_w, r->maf_path, SM_MAF_FILE_MAF_TSV, r->nind, 0);
  if ((err = sm_mpi_agree(err)))
    return err;
  if (!(r->tab = sm_saf_tab_create(r->nind))) {
    sm_log_error("maf: out of memory for the tables of %zu individuals", r->nind);
    err = SM_ENOMEM;
  }
  return sm_mpi_agree(err);
}

/* StarPU on each rank; ranks meet only in the EM's sums. */
static sm_err_t start_runtime(run_t *r)
{
  double t1 = sm_now();
  sm_err_t err = sm_mpi_agree(sm_runtime_init(r->o->sched, 0));
  r->t_init = sm_now() - t1;
  if (err)
    return err;
  r->runtime_up = 1;
  if ((err = sm_codelets_init(0, SM_KERNEL_AUTO)))
    return err;
  static const unsigned long long where[] = {STARPU_CPU | STARPU_CUDA | STARPU_OPENCL,
                                             STARPU_CPU, STARPU_CUDA | STARPU_OPENCL};
  sm_codelets_set_devices(where[r->o->devices]);
  if (r->o->devices == 2 &&
      starpu_opencl_worker_get_count() + starpu_cuda_worker_get_count() == 0) {
    sm_log_error("--devices accel: StarPU has no CUDA or OpenCL worker here (for a CPU "
                 "OpenCL device set STARPU_OPENCL_ON_CPUS=1 and STARPU_NOPENCL=1)");
    return SM_ERUNTIME;
  }
  if (r->o->devices == 2 && (r->o->method != SM_SAF_TREE || r->o->band_tol > 0)) {
    sm_log_error("--devices accel: only the exact tree's tasks have a device kernel; "
                 "drop --kernel ref or --band-tol");
    return SM_ERUNTIME;
  }
  r->progress =
      r->me == 0 && (r->o->progress < 0 ? isatty(2) && !r->o->quiet : r->o->progress);
  r->t_start = r->t_last = sm_now();
  return SM_OK;
}

/* The SAF of every site of this rank; the counts over every rank, and
 * at least one site with data. */
static sm_err_t compute_sites(run_t *r)
{
  sm_err_t err = sm_mpi_agree(compute_saf(r));
  r->t_saf = sm_now() - r->t_start;
  sm_mpi_max_double(&r->t_saf, 1); /* the slowest rank sets the rate */
  if (err)
    return err;
  uint64_t *tot = r->tot;
  tot[0] = r->computed, tot[1] = r->nodata, tot[2] = r->with_missing;
  tot[3] = r->bins_total, tot[4] = r->bins_dropped;
  sm_mpi_sum_u64(tot, 5);
  if (tot[0] == 0) {
    sm_gl_stats_t st0;
    sm_gl_get_stats(r->rd, &st0); /* every rank read every site */
    if (r->me == 0 && st0.sites == 0)
      sm_log_error("%s: no site%s: nothing to estimate", r->o->input,
                   st0.records ? " with two alleles" : "s after the header");
    else if (r->me == 0)
      sm_log_error("%s: no site has data (every individual of every site has equal "
                   "likelihoods): nothing to estimate",
                   r->o->input);
    return SM_EDEGEN;
  }
  return SM_OK;
}

/* The spectrum EM over every rank's sites; a warning when --em-maxiter
 * stopped it before --em-tole. */
static sm_err_t run_em(run_t *r)
{
  double t2 = sm_now();
  sm_err_t err = sm_maf_em_run(r->blk, r->nblk, r->nbins, &r->em);
  r->t_em = sm_now() - t2;
  r->em_ran = !err;
  const sm_maf_em_t *em = &r->em;
  if (!err && !em->converged && r->me == 0 && isnan(em->change))
    sm_log_warn("maf: the SFS EM stopped at --em-maxiter %d before --em-tole %g: one "
                "E-step evaluates the flat spectrum only; raise --em-maxiter",
                em->maxiter, em->tole);
  else if (!err && !em->converged && r->me == 0)
    sm_log_warn(
        "maf: the SFS EM stopped at --em-maxiter %d before --em-tole %g: its "
        "last iteration raised the log-likelihood by %.3g, which is now at most "
        "%.3g below its maximum; the spectrum and the allele frequencies may still "
        "move: raise --em-maxiter (or --em-tole)",
        em->maxiter, em->tole, em->change, em->gap_bound);
  return err;
}

/* The allele frequencies (every rank) and the spectrum (rank 0). */
static sm_err_t write_results(run_t *r)
{
  double t3 = sm_now();
  sm_err_t err = SM_OK;
  if (r->maf_w)
    err = write_maf(r);
  if (!err && r->me == 0 && r->sfs_path[0]) {
    err = sm_maf_writer_open(&r->sfs_w, r->sfs_path, SM_MAF_FILE_SFS, 0, 0);
    if (!err)
      err = sm_maf_writer_sfs(r->sfs_w, r->em.phi, r->nbins, r->em.nsites);
  }
  err = sm_mpi_agree(err);
  r->t_out = sm_now() - t3;
  return err;
}

/* Rank 0: the JSON summary and the printed one. */
static sm_err_t print_report(run_t *r, sm_err_t err, const sm_maf_rank_t *ranks,
                             const sm_gl_stats_t *st, uint64_t nd)
{
  const sm_maf_options_t *o = r->o;
  sm_maf_report_t rep = {.opt = o,
                         .command = r->command,
                         .status = err ? sm_strerror(err) : "ok",
                         .format = sm_gl_format_name(r->rd),
                         .nind = r->nind,
                         .block_size = r->bs,
                         .nranks = r->P,
                         .records = st->records,
                         .sites = st->sites,
                         .computed = r->tot[0],
                         .nodata = r->tot[1],
                         .multiallelic = st->multiallelic,
                         .not_diploid = nd,
                         .with_missing = r->tot[2],
                         .bins_total = r->tot[3],
                         .bins_dropped = r->tot[4],
                         .em = r->em_ran ? &r->em : NULL,
                         .ranks = ranks,
                         .rt = &r->rs,
                         .t_init = r->t_init,
                         .t_saf = r->t_saf,
                         .t_em = r->t_em,
                         .t_output = r->t_out,
                         .t_total = sm_now() - r->t0};
  char saf_all[4200], maf_all[4200];
  if (!err && r->saf_path[0]) {
    if (r->P > 1)
      snprintf(saf_all, sizeof saf_all, "%s_<rank>.%s", o->output,
               o->output_format == SM_SAF_OUT_BIN ? "saf.bin" : "saf.tsv");
    else
      snprintf(saf_all, sizeof saf_all, "%s", r->saf_path);
    rep.saf_path = saf_all;
  }
  if (!err && r->maf_path[0]) {
    if (r->P > 1)
      snprintf(maf_all, sizeof maf_all, "%s_<rank>.maf.tsv", o->output);
    else
      snprintf(maf_all, sizeof maf_all, "%s", r->maf_path);
    rep.maf_path = maf_all;
    rep.sfs_path = r->sfs_path;
  }
  if (r->json_path[0]) {
    sm_err_t jerr = sm_maf_report_json(&rep, r->json_path);
    err = err ? err : jerr;
  }
  if (!o->quiet)
    sm_maf_report_print(&rep, stdout);
  return err;
}

/* The files of every rank committed together: each verified (they hold
 * what was written), one agreement, then sealed, a second agreement, then
 * renamed. A file that fails its rename is kept complete under its
 * temporary name; the others are committed all the same. */
static sm_err_t commit_files(run_t *r, sm_err_t err)
{
  sm_maf_writer_t *w[3] = {r->saf_w, r->maf_w, r->sfs_w};
  for (int k = 0; k < 3 && !err; k++)
    err = sm_maf_writer_verify(w[k]);
  if ((err = sm_mpi_agree(err)))
    return err;
  for (int k = 0; k < 3 && !err; k++)
    err = sm_maf_writer_seal(w[k]);
  if ((err = sm_mpi_agree(err)))
    return err;
  for (int k = 0; k < 3; k++) {
    const sm_err_t e = sm_maf_writer_rename(w[k]);
    err = err ? err : e;
  }
  return sm_mpi_agree(err);
}

/* Gather every rank's counts, commit the SAF and MAF files, report. */
static sm_err_t report(run_t *r, sm_err_t err)
{
  sm_maf_rank_t mine = {.blocks = r->nblk, .computed = r->computed, .t_saf = r->t_saf};
  for (size_t k = 0; k < r->nblk; k++)
    mine.sites += r->blk[k].sites.n;
  sm_runtime_collect(&r->rs);
  mine.nworkers = r->rs.nworkers;
  sm_maf_rank_t *ranks = r->me == 0 ? calloc((size_t)r->P, sizeof *ranks) : NULL,
                dummy[1];
  sm_mpi_gather_bytes(&mine, sizeof mine, ranks ? ranks : dummy);
  sm_gl_stats_t st;
  sm_gl_get_stats(r->rd, &st);
  uint64_t nd = st.not_diploid;
  sm_mpi_sum_u64(&nd, 1);
  double t4 = sm_now();
  err = commit_files(r, err);
  r->t_out += sm_now() - t4;
  if (r->me == 0)
    err = print_report(r, err, ranks, &st, nd);
  free(ranks);
  return err;
}

/* The one cleanup: a failed run leaves no finished-looking file. */
static void finish(run_t *r, sm_err_t err)
{
  (void)err; /* files not sealed are removed; sealed ones are complete */
  sm_maf_writer_close(r->saf_w);
  sm_maf_writer_close(r->maf_w);
  sm_maf_writer_close(r->sfs_w);
  cleanup(r);
  if (r->runtime_up)
    sm_runtime_shutdown();
  sm_saf_tab_destroy(r->tab);
  free(r->em.phi);
  sm_gl_close(r->rd);
}

/* The environment checks (sm_preflight.h) for `starmet maf` o on nind
 * individuals (before its outputs are opened; collective). */
static sm_err_t maf_preflight(const sm_maf_options_t *o, size_t nind)
{
  int zero = 0, index, here;
  sm_mpi_node_peers(&zero, sizeof zero, &index, &here);
  const int P = sm_mpi_size(), me = sm_mpi_rank();
  char path[4200] = "";
  uint64_t fixed = 0;
  if (o->output && o->output_format == SM_SAF_OUT_TSV) {
    /* "chrom\tpos", "\tsaf_J" for J = 0 .. 2N, "\n" */
    fixed = 10;
    for (size_t j = 0, d = 1, next = 10; j <= 2 * nind; j++) {
      if (j == next)
        d++, next *= 10;
      fixed += 5 + d;
    }
  } else if (o->output && o->output_format == SM_SAF_OUT_BIN) {
    fixed = SM_SAF_BIN_HEADER;
  }
  if (o->output) {
    const char *ext = o->output_format == SM_SAF_OUT_BIN   ? "saf.bin"
                      : o->output_format == SM_SAF_OUT_TSV ? "saf.tsv"
                                                           : "maf.tsv";
    if (P > 1)
      snprintf(path, sizeof path, "%s_%d.%s", o->output, me, ext);
    else
      snprintf(path, sizeof path, "%s.%s", o->output, ext);
  }
  const sm_preflight_t p = {
      .command = "maf",
      .starpu = 1,
      .sched = o->sched,
      .rank = me,
      .ranks = P,
      .ranks_here = here,
      .opencl = sm_preflight_opencl(),
      .cuda = sm_sched_expected_gpus(),
      /* the input, SAF, MAF, SFS, summary, lock */
      .files = 6,
      .out_path = path[0] ? path : NULL,
      .out_fixed = fixed,
  };
  return sm_preflight_check(&p);
}

int sm_maf_main(const sm_maf_options_t *o, const char *command)
{
  run_t r = {.o = o,
             .command = command,
             .t0 = sm_now(),
             .me = sm_mpi_rank(),
             .P = sm_mpi_size(),
             .em = {.maxiter = o->em_maxiter,
                    .tole = o->em_tole,
                    .fold = o->fold,
                    .accel = o->em_accel}};
  sm_log_set_quiet(o->quiet || r.me != 0);
#ifdef SM_SIMULATION
  sm_log_error(
      "maf: this starmet is a simulation build (StarPU with SimGrid): kernels do "
      "not run, and maf's results are its output; use a regular build");
  return SM_EOPTION;
#endif
  sm_err_t err = open_input(&r);
  if (!err) /* StarPU's directories, open files, file size: before any output */
    err = sm_mpi_agree(maf_preflight(o, r.nind));
  if (!err)
    err = open_outputs(&r);
  if (!err)
    err = sm_mpi_agree(start_runtime(&r)); /* its own steps end on one rank */
  if (!err)
    err = compute_sites(&r);
  if (!err)
    err = run_em(&r);
  if (!err)
    err = report(&r, write_results(&r));
  finish(&r, err);
  err = sm_mpi_agree(err);
  sm_lock_release(&r.lock);
  return err;
}
