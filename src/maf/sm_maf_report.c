/* sm_maf_report.c: the JSON and printed summaries of `starmet maf`. */
#include "config.h"
#include "sm_maf_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void json_str(FILE *f, const char *s)
{
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

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

sm_err_t sm_maf_report_json(const sm_maf_report_t *r, const char *path)
{
  size_t n = strlen(path) + 8;
  char *tmp = malloc(n);
  if (!tmp)
    return SM_ENOMEM;
  snprintf(tmp, n, "%s.part", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    sm_log_error("%s: cannot create the summary: %s", tmp, strerror(errno));
    free(tmp);
    return SM_EIO;
  }
  fprintf(f, "{\n  \"starmet_version\": \"%s\",\n  \"command\": ", PACKAGE_VERSION);
  json_str(f, r->command);
  fprintf(f, ",\n  \"status\": ");
  json_str(f, r->status);
  fprintf(f, ",\n  \"analysis\": \"maf\",\n  \"input\": ");
  json_str(f, r->opt->input);
  fprintf(f, ",\n  \"input_format\": ");
  json_str(f, r->format);
  fprintf(f, ",\n  \"individuals\": %zu,\n  \"kernel\": ", r->nind);
  json_str(f, kernel_name(r));
  fprintf(f, ",\n  \"band_tol\": %.17g,\n  \"block_size\": %zu,\n", r->opt->band_tol,
          r->block_size);
  fprintf(f,
          "  \"sites\": {\"records\": %llu, \"read\": %llu, \"computed\": %llu, "
          "\"skipped_no_data\": %llu, \"skipped_multiallelic\": %llu, "
          "\"not_diploid\": %llu, \"with_missing_individuals\": %llu},\n",
          (unsigned long long)r->records, (unsigned long long)r->sites,
          (unsigned long long)r->computed, (unsigned long long)r->nodata,
          (unsigned long long)r->multiallelic, (unsigned long long)r->not_diploid,
          (unsigned long long)r->with_missing);
  fprintf(f, "  \"banding\": {\"bins\": %llu, \"bins_dropped\": %llu},\n",
          (unsigned long long)r->bins_total, (unsigned long long)r->bins_dropped);
  if (r->em) {
    fprintf(f,
            "  \"sfs_em\": {\"iterations\": %d, \"converged\": %s, \"loglik\": %.17g, "
            "\"sites\": %.0f, \"tol\": %.17g, \"maxiter\": %d, \"sfs\": [",
            r->em->iterations, r->em->converged ? "true" : "false", r->em->loglik,
            r->em->nsites, r->em->tol, r->em->maxiter);
    for (size_t j = 0; j < 2 * r->nind + 1; j++)
      fprintf(f, "%s%.17g", j ? ", " : "", r->em->phi[j] * r->em->nsites);
    fprintf(f, "]},\n");
  }
  fprintf(f,
          "  \"timings_s\": {\"runtime_init\": %.6f, \"saf\": %.6f, \"em\": %.6f, "
          "\"output\": %.6f, \"total\": %.6f},\n",
          r->t_init, r->t_saf, r->t_em, r->t_output, r->t_total);
  fprintf(f, "  \"rates\": {\"sites_per_s\": %.6g},\n", rate(r));
  fprintf(f, "  \"ranks\": [");
  for (int k = 0; k < r->nranks && r->ranks; k++)
    fprintf(
        f,
        "%s\n    {\"rank\": %d, \"blocks\": %llu, \"sites\": %llu, \"computed\": %llu, "
        "\"saf_s\": %.6f, \"workers\": %d}",
        k ? "," : "", k, (unsigned long long)r->ranks[k].blocks,
        (unsigned long long)r->ranks[k].sites, (unsigned long long)r->ranks[k].computed,
        r->ranks[k].t_saf, r->ranks[k].nworkers);
  fprintf(f, "],\n");
  if (r->rt) {
    fprintf(f, "  \"runtime\": {\"sched\": ");
    json_str(f, r->rt->sched);
    fprintf(f, ", \"workers\": [");
    for (int w = 0; w < r->rt->nworkers; w++) {
      fprintf(f, "%s\n    {\"name\": ", w ? "," : "");
      json_str(f, r->rt->w[w].name);
      fprintf(f, ", \"tasks\": %d, \"busy_s\": %.6f}", r->rt->w[w].executed,
              r->rt->w[w].busy_s);
    }
    fprintf(f, "]},\n");
  }
  fprintf(f, "  \"output\": {\"saf\": ");
  json_str(f, r->saf_path);
  fprintf(f, ", \"maf\": ");
  json_str(f, r->maf_path);
  fprintf(f, ", \"sfs\": ");
  json_str(f, r->sfs_path);
  fprintf(f, "}\n}\n");
  int bad = ferror(f);
  bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    sm_log_error("%s: cannot write the summary: %s", path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return SM_EIO;
  }
  free(tmp);
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
  if (r->em)
    fprintf(f, "  sfs em      %d iterations (%s), log-likelihood %.10g over %.0f sites\n",
            r->em->iterations, r->em->converged ? "converged" : "stopped at --em-maxiter",
            r->em->loglik, r->em->nsites);
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
