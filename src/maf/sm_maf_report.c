/* sm_maf_report.c: the JSON and printed summaries of `starmet maf`. */
#include "config.h"
#include "sm_maf_report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "sm_commit.h"
#include "sm_json.h"

static const char *kernel_name(const sm_maf_report_t *r)
{
  if (r->opt->method == SM_SAF_REF)
    return "sm_kern_saf_ref (iterative)";
  return r->opt->band_tol > 0 ? "sm_kern_saf_tree (banded)" : "sm_kern_saf_tree (exact)";
}

static double rate(const sm_maf_report_t *r)
{
  return r->t_saf > 0 ? (double)r->computed / r->t_saf : 0.0;
}

/* "sites" and "banding": what was read, computed and skipped. */
static void json_sites(sm_json_t *j, const sm_maf_report_t *r)
{
  sm_json_object(j, "sites", 0);
  sm_json_u64(j, "records", r->records);
  sm_json_u64(j, "read", r->sites);
  sm_json_u64(j, "computed", r->computed);
  sm_json_u64(j, "skipped_no_data", r->nodata);
  sm_json_u64(j, "skipped_multiallelic", r->multiallelic);
  sm_json_u64(j, "not_diploid", r->not_diploid);
  sm_json_u64(j, "with_missing_individuals", r->with_missing);
  sm_json_close(j);
  sm_json_object(j, "banding", 0);
  sm_json_u64(j, "bins", r->bins_total);
  sm_json_u64(j, "bins_dropped", r->bins_dropped);
  sm_json_close(j);
}

static const char *accel_name(const sm_maf_em_t *em)
{
  return em->accel == SM_MAF_ACCEL_NONE ? "none" : "anderson";
}

/* "sfs_em": the spectrum's EM and the spectrum (expected site counts). */
static void json_em(sm_json_t *j, const sm_maf_report_t *r)
{
  const sm_maf_em_t *em = r->em;
  sm_json_object(j, "sfs_em", 0);
  sm_json_bool(j, "folded", em->fold);
  sm_json_str(j, "accel", accel_name(em));
  sm_json_int(j, "iterations", em->iterations);
  sm_json_bool(j, "converged", em->converged);
  sm_json_real(j, "loglik", 17, em->loglik);
  sm_json_real(j, "loglik_change", 17, em->change);
  sm_json_real(j, "loglik_gap_bound", 17, em->gap_bound);
  sm_json_int(j, "rejected", em->rejected);
  sm_json_fixed(j, "sites", 0, em->nsites);
  sm_json_real(j, "tole", 17, em->tole);
  sm_json_int(j, "maxiter", em->maxiter);
  sm_json_array(j, "sfs", 0);
  for (size_t k = 0; k < 2 * r->nind + 1; k++)
    sm_json_real(j, NULL, 17, em->phi[k] * em->nsites);
  sm_json_close(j);
  sm_json_close(j);
}

/* "timings_s", "rates", "ranks" and "runtime": where the time went. */
static void json_timings(sm_json_t *j, const sm_maf_report_t *r)
{
  sm_json_object(j, "timings_s", 0);
  sm_json_fixed(j, "runtime_init", 6, r->t_init);
  sm_json_fixed(j, "saf", 6, r->t_saf);
  sm_json_fixed(j, "em", 6, r->t_em);
  sm_json_fixed(j, "output", 6, r->t_output);
  sm_json_fixed(j, "total", 6, r->t_total);
  sm_json_close(j);
  sm_json_object(j, "rates", 0);
  sm_json_real(j, "sites_per_s", 6, rate(r));
  sm_json_close(j);
  sm_json_array(j, "ranks", 4);
  for (int k = 0; k < r->nranks && r->ranks; k++) {
    sm_json_object(j, NULL, 0);
    sm_json_int(j, "rank", k);
    sm_json_u64(j, "blocks", r->ranks[k].blocks);
    sm_json_u64(j, "sites", r->ranks[k].sites);
    sm_json_u64(j, "computed", r->ranks[k].computed);
    sm_json_fixed(j, "saf_s", 6, r->ranks[k].t_saf);
    sm_json_int(j, "workers", r->ranks[k].nworkers);
    sm_json_close(j);
  }
  sm_json_close(j);
  if (!r->rt)
    return;
  sm_json_object(j, "runtime", 0);
  sm_json_str(j, "sched", r->rt->sched);
  sm_json_str(j, "binding", r->rt->bind_mode);
  sm_json_str(j, "cpus", r->rt->bind_cpus);
  sm_json_array(j, "workers", 4);
  for (int w = 0; w < r->rt->nworkers; w++) {
    sm_json_object(j, NULL, 0);
    sm_json_str(j, "name", r->rt->w[w].name);
    sm_json_int(j, "tasks", r->rt->w[w].executed);
    sm_json_fixed(j, "busy_s", 6, r->rt->w[w].busy_s);
    sm_json_close(j);
  }
  sm_json_close(j);
  sm_json_close(j);
}

sm_err_t sm_maf_report_json(const sm_maf_report_t *r, const char *path)
{
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 0, "w") != SM_OK) {
    sm_log_error("%s: cannot create the summary: %s", c.tmp, sm_commit_strerror(errno));
    return SM_EIO;
  }
  sm_json_t j;
  sm_json_begin(&j, c.f);
  sm_json_str(&j, "starmet_version", PACKAGE_VERSION);
  sm_json_str(&j, "command", r->command);
  sm_json_str(&j, "status", r->status);
  sm_json_str(&j, "analysis", "maf");
  sm_json_str(&j, "input", r->opt->input);
  sm_json_str(&j, "input_format", r->format);
  sm_json_u64(&j, "individuals", r->nind);
  sm_json_str(&j, "kernel", kernel_name(r));
  sm_json_real(&j, "band_tol", 17, r->opt->band_tol);
  sm_json_u64(&j, "block_size", r->block_size);
  json_sites(&j, r);
  if (r->em)
    json_em(&j, r);
  json_timings(&j, r);
  sm_json_object(&j, "output", 0);
  sm_json_str(&j, "saf", r->saf_path);
  sm_json_str(&j, "maf", r->maf_path);
  sm_json_str(&j, "sfs", r->sfs_path);
  sm_json_close(&j);
  sm_json_end(&j);
  if (sm_commit_finish(&c) != SM_OK) {
    sm_log_error("%s: cannot write the summary: %s", path, sm_commit_strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

void sm_maf_report_print(const sm_maf_report_t *r, FILE *f)
{
  fprintf(f, "starmet %s: maf, %zu individuals, %s (%s)\n", PACKAGE_VERSION, r->nind,
          r->opt->input, r->format ? r->format : "?");
  fprintf(f, "  kernel      %s", kernel_name(r));
  if (r->opt->band_tol > 0)
    fprintf(f, ", band tolerance %g nats", r->opt->band_tol);
  fprintf(f, ", %zu sites per task\n", r->block_size);
  fprintf(f, "  sites       %llu read, %llu computed, %llu without data (skipped)",
          (unsigned long long)r->sites, (unsigned long long)r->computed,
          (unsigned long long)r->nodata);
  if (r->multiallelic)
    fprintf(f, ", %llu not bi-allelic (skipped)", (unsigned long long)r->multiallelic);
  if (r->not_diploid)
    fprintf(f, ", %llu with non-diploid likelihoods", (unsigned long long)r->not_diploid);
  fprintf(f, "\n");
  if (r->with_missing)
    fprintf(f,
            "  missing     %llu sites have individuals without data (they add no "
            "information)\n",
            (unsigned long long)r->with_missing);
  if (r->opt->band_tol > 0)
    fprintf(f, "  banding     %llu of %llu bins dropped (%.2f%%)\n",
            (unsigned long long)r->bins_dropped, (unsigned long long)r->bins_total,
            r->bins_total ? 100.0 * (double)r->bins_dropped / (double)r->bins_total
                          : 0.0);
  if (r->em) {
    const sm_maf_em_t *em = r->em;
    fprintf(f,
            "  sfs em      %s, %s: %d iterations (%s), log-likelihood %.10g over %.0f "
            "sites\n",
            em->fold ? "folded" : "unfolded", accel_name(em), em->iterations,
            em->converged ? "converged" : "stopped at --em-maxiter", em->loglik,
            em->nsites);
    if (isfinite(em->change))
      fprintf(f,
              "              last change %.3g (--em-tole %g), at most %.3g below the "
              "maximum\n",
              em->change, em->tole, em->gap_bound);
    else
      fprintf(f, "              one E-step, at most %.3g below the maximum\n",
              em->gap_bound);
  }
  if (r->rt) {
    fprintf(f, "  workers     %d per rank, %d rank%s, sched %s\n", r->rt->nworkers,
            r->nranks, r->nranks == 1 ? "" : "s", r->rt->sched);
    for (int w = 0; w < r->rt->nworkers; w++)
      fprintf(f, "    %-24s %6d tasks  busy %.3f s\n", r->rt->w[w].name,
              r->rt->w[w].executed, r->rt->w[w].busy_s);
  }
  fprintf(
      f,
      "  time        init %.3f s, saf %.3f s, em %.3f s, output %.3f s, total %.3f s\n",
      r->t_init, r->t_saf, r->t_em, r->t_output, r->t_total);
  fprintf(f, "  rate        %.4g sites/s\n", rate(r));
  if (r->saf_path)
    fprintf(f, "  saf         %s\n", r->saf_path);
  if (r->maf_path)
    fprintf(f, "  maf         %s\n", r->maf_path);
  if (r->sfs_path)
    fprintf(f, "  sfs         %s\n", r->sfs_path);
  if (strcmp(r->status, "ok"))
    fprintf(f, "  status      %s\n", r->status);
}
