/* sm_summary.c: JSON and printed run summaries (rank 0 writes them, with
 * the totals and per-rank figures gathered from every rank). */
#include "config.h"
#include "sm_summary.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sm_checksum.h"
#include "sm_observe.h"
#include "sm_sched.h"

double sm_summary_nresults(size_t nv, int way)
{
  double n = (double)nv;
  return way == 2 ? n * (n - 1) / 2 : n * (n - 1) * (n - 2) / 6;
}

static void json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
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

static const char *metric_name(const sm_summary_t *s)
{
  return s->opt->metric == SM_METRIC_CCC ? "ccc" : "czekanowski";
}

static const char *variant(const sm_summary_t *s)
{
  if (s->opt->metric == SM_METRIC_CCC)
    return s->sparse ? "sparse" : "dense";
  return s->opt->single ? "single" : "double";
}

/* max / mean of the pairs computed per rank (1 = perfect balance) */
static double balance(const sm_summary_t *s)
{
  if (!s->ranks || s->nranks < 1)
    return 1.0;
  double max = 0, sum = 0;
  for (int r = 0; r < s->nranks; r++) {
    double w = (double)s->ranks[r].pairs;
    sum += w;
    if (w > max)
      max = w;
  }
  return sum > 0 ? max / (sum / s->nranks) : 1.0;
}

static const char *prio_name(int mode)
{
  return mode == SM_PRIO_BUCKETS ? "heteroprio buckets" : mode == SM_PRIO_DAG ? "dag" : "off";
}

/* Every rank's runtime figures (rank 0's alone when not gathered). */
static const sm_runtime_stats_t *rank_rt(const sm_summary_t *s, int r)
{
  return s->rts ? &s->rts[r] : s->rt;
}

static int nrt(const sm_summary_t *s) { return s->rts ? s->nranks : 1; }

/* Fraction of the workers' time (over all ranks) spent not running tasks. */
static double idle_fraction(const sm_summary_t *s)
{
  double busy = 0, total = 0;
  for (int r = 0; r < nrt(s); r++)
    for (int w = 0; w < rank_rt(s, r)->nworkers; w++) {
      busy += rank_rt(s, r)->w[w].busy_s;
      total += rank_rt(s, r)->w[w].total_s;
    }
  return total > 0 && busy < total ? 1 - busy / total : 0.0;
}

/* The "runtime" object: policy, workers of every rank, codelets, transfers. */
static void json_runtime(const sm_summary_t *s, FILE *f)
{
  uint64_t bus = 0, done = 0, unc = 0;
  for (int r = 0; r < nrt(s); r++) {
    bus += rank_rt(s, r)->bus_bytes;
    done += rank_rt(s, r)->tasks_done;
    unc += rank_rt(s, r)->uncalibrated;
  }
  sm_codelet_stats_t cl[SM_MAX_CODELETS];
  int ncl = s->rts ? sm_observe_merge_codelets(s->rts, s->nranks, cl, SM_MAX_CODELETS)
                   : sm_observe_merge_codelets(s->rt, 1, cl, SM_MAX_CODELETS);
  double unc_s = 0, task_s = 0;
  for (int k = 0; k < ncl; k++) {
    unc_s += cl[k].uncalibrated_s;
    task_s += cl[k].total_s;
  }
  fprintf(f, "  \"runtime\": {\"sched\": ");
  json_str(f, s->rt->sched);
  fprintf(f, ", \"priorities\": \"%s\", \"calibrate\": %s, \"perfmodel_dir\": ",
          prio_name(s->prio_mode), sm_sched_calibrating() ? "true" : "false");
  json_str(f, sm_sched_perfmodel_dir());
  fprintf(f, ",\n    \"tasks_executed\": %llu, \"uncalibrated_tasks\": %llu, "
             "\"uncalibrated_time_fraction\": %.6f, \"idle_fraction\": %.6f,\n"
             "    \"workers\": [",
          (unsigned long long)done, (unsigned long long)unc,
          task_s > 0 ? unc_s / task_s : 0.0, idle_fraction(s));
  int first = 1;
  for (int r = 0; r < nrt(s); r++)
    for (int w = 0; w < rank_rt(s, r)->nworkers; w++, first = 0) {
      const sm_worker_stats_t *x = &rank_rt(s, r)->w[w];
      fprintf(f, "%s\n      {\"rank\": %d, \"name\": ", first ? "" : ",", r);
      json_str(f, x->name);
      fprintf(f, ", \"arch\": \"%s\", \"tasks\": %d, \"busy_s\": %.6f, \"idle_s\": %.6f}",
              x->arch, x->executed, x->busy_s,
              x->total_s > x->busy_s ? x->total_s - x->busy_s : 0.0);
    }
  fprintf(f, "],\n    \"codelets\": ["); /* merged over ranks */
  for (int k = 0; k < ncl; k++) {
    fprintf(f, "%s\n      {\"name\": ", k ? "," : "");
    json_str(f, cl[k].name);
    fprintf(f, ", \"kind\": ");
    json_str(f, cl[k].kind);
    fprintf(f, ", \"count\": %llu, \"mean_s\": %.9f, \"min_s\": %.9f, \"max_s\": %.9f, "
               "\"total_s\": %.6f, \"uncalibrated\": %llu, \"uncalibrated_s\": %.6f}",
            (unsigned long long)cl[k].count,
            cl[k].count ? cl[k].total_s / (double)cl[k].count : 0.0, cl[k].min_s, cl[k].max_s,
            cl[k].total_s, (unsigned long long)cl[k].uncalibrated, cl[k].uncalibrated_s);
  }
  fprintf(f, "],\n    \"buses\": [");
  first = 1;
  for (int r = 0; r < nrt(s); r++)
    for (int b = 0; b < rank_rt(s, r)->nbuses; b++, first = 0) {
      const sm_bus_stats_t *x = &rank_rt(s, r)->bus[b];
      fprintf(f, "%s\n      {\"rank\": %d, \"from\": ", first ? "" : ",", r);
      json_str(f, x->src_name);
      fprintf(f, ", \"to\": ");
      json_str(f, x->dst_name);
      fprintf(f, ", \"bytes\": %llu, \"transfers\": %d}", (unsigned long long)x->bytes,
              x->transfers);
    }
  fprintf(f, "],\n    \"bytes_between_memory_nodes\": %llu, \"mpi_bytes_sent\": %llu},\n",
          (unsigned long long)bus, (unsigned long long)s->total.mpi_bytes);
}

sm_err_t sm_summary_write_json(const sm_summary_t *s, const char *path)
{
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.part.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    sm_log_error("%s: cannot write the summary: %s", tmp, strerror(errno));
    return SM_EIO;
  }
  const sm_rank_stats_t *t = &s->total;
  const sm_decomp_t *d = s->decomp;
  double nres = sm_summary_nresults(s->nv, s->opt->num_way);
  double cmp = nres * (double)s->nf;
  char cks[128];
  sm_checksum_format(&t->cksum, cks, sizeof cks);
  fprintf(f, "{\n  \"starmet_version\": \"%s\",\n  \"status\": ", PACKAGE_VERSION);
  json_str(f, s->status);
  fprintf(f, ",\n  \"command\": ");
  json_str(f, s->command);
  fprintf(f, ",\n  \"problem\": {\"metric\": \"%s\", \"variant\": \"%s\", \"num_way\": %d, "
             "\"num_vector\": %zu, \"num_field\": %zu, \"missing_calls\": %zu, \"input\": ",
          metric_name(s), variant(s), s->opt->num_way, s->nv, s->nf, s->nmissing);
  json_str(f, s->input_desc);
  fprintf(f, "},\n  \"method\": \"%s\",\n  \"kernel\": ",
          s->opt->method == SM_METHOD_REF ? "ref" : "tasks");
  json_str(f, s->kernel);
  fprintf(f, ",\n  \"decomposition\": {\"num_proc\": %d, \"num_proc_vector\": %d, "
             "\"num_proc_field\": %d, \"num_proc_repl\": %d, \"num_phase\": %d, "
             "\"phase_min\": %d, \"phase_max\": %d, \"num_stage\": 1",
          s->nranks, d ? d->npv : 1, d ? d->npf : 1, d ? d->npr : 1,
          d ? d->num_phase : 1, s->phase_min, s->phase_max);
  if (s->graph)
    fprintf(f, ", \"block_size\": %zu, \"tiles\": %zu, \"blocks\": %llu, \"tasks\": %llu",
            s->graph->block_size, s->graph->ntiles, (unsigned long long)s->graph->nblocks,
            (unsigned long long)s->graph->ntasks);
  fprintf(f, "},\n");
  fprintf(f, "  \"timings_s\": {\"input\": %.6f, \"runtime_init\": %.6f, \"compute\": %.6f, "
             "\"output_close\": %.6f, \"total\": %.6f",
          s->t_input, s->t_init, s->t_compute, s->t_output, s->t_total);
  if (s->graph)
    fprintf(f, ", \"task_submission\": %.6f", s->graph->t_submit);
  fprintf(f, "},\n  \"counts\": {\"results\": %.0f, \"values\": %llu, \"written\": %llu, "
             "\"element_comparisons\": %.0f},\n",
          nres, (unsigned long long)t->nvalues, (unsigned long long)t->nwritten, cmp);
  double tc = s->t_compute > 0 ? s->t_compute : 1e-9;
  double frac = 1.0;
  if (d && d->num_phase > 1)
    frac = (double)(s->phase_max - s->phase_min + 1) / d->num_phase;
  fprintf(f, "  \"rates\": {\"results_per_s\": %.6g, \"comparisons_per_s\": %.6g},\n",
          frac * nres / tc, frac * cmp / tc);
  fprintf(f, "  \"checksum\": \"%s\",\n", cks);
  fprintf(f, "  \"threshold\": %.17g,\n", s->opt->threshold);
  if (s->opt->synth.kind == SM_SYNTH_ANALYTIC)
    fprintf(f, "  \"analytic_check\": {\"checked\": %llu, \"failed\": %llu, "
               "\"max_rel_error\": %.3g},\n",
            (unsigned long long)t->nchecked, (unsigned long long)t->nbad, t->max_rel_err);
  fprintf(f, "  \"reexecuted_tasks\": %llu,\n", (unsigned long long)t->reexecuted);
  fprintf(f, "  \"resilience\": {\"verify\": %s, \"inject_rate\": %.17g, \"checks\": %llu, "
             "\"failures_caught\": %llu, \"reexecuted\": %llu, \"faults_injected\": %llu},\n",
          s->opt->verify ? "true" : "false", s->opt->inject_rate,
          (unsigned long long)t->checks, (unsigned long long)t->failures,
          (unsigned long long)t->reexecuted, (unsigned long long)t->injected);
  if (s->ranks) {
    fprintf(f, "  \"load_balance\": {\"max_over_mean_pairs\": %.6f},\n", balance(s));
    fprintf(f, "  \"ranks\": [");
    for (int r = 0; r < s->nranks; r++) {
      const sm_rank_stats_t *x = &s->ranks[r];
      fprintf(f, "%s\n    {\"rank\": %d, \"tile_pairs\": %llu, \"pairs\": %llu, "
                 "\"blocks_written\": %llu, \"values\": %llu, \"written\": %llu, "
                 "\"compute_s\": %.6f, \"mpi_bytes_sent\": %llu, \"workers\": %d}",
              r ? "," : "", r, (unsigned long long)x->subblocks,
              (unsigned long long)x->pairs, (unsigned long long)x->outputs,
              (unsigned long long)x->nvalues, (unsigned long long)x->nwritten, x->t_compute,
              (unsigned long long)x->mpi_bytes, x->nworkers);
    }
    fprintf(f, "],\n");
  }
  if (s->rt)
    json_runtime(s, f);
  fprintf(f, "  \"output\": ");
  if (s->output_path)
    json_str(f, s->output_path);
  else
    fputs("null", f);
  fprintf(f, "\n}\n");
  int bad = ferror(f);
  bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    sm_log_error("%s: cannot write the summary: %s", path, strerror(errno));
    unlink(tmp);
    return SM_EIO;
  }
  return SM_OK;
}

void sm_summary_print(const sm_summary_t *s, FILE *f)
{
  const sm_rank_stats_t *t = &s->total;
  double nres = sm_summary_nresults(s->nv, s->opt->num_way);
  double cmp = nres * (double)s->nf;
  double tc = s->t_compute > 0 ? s->t_compute : 1e-9;
  char cks[128];
  sm_checksum_format(&t->cksum, cks, sizeof cks);
  fprintf(f, "starmet %s: %s %d-way (%s), %zu vectors x %zu fields, %s\n",
          s->status, metric_name(s), s->opt->num_way, variant(s), s->nv, s->nf,
          s->input_desc);
  fprintf(f, "  method      %s, kernel %s", s->opt->method == SM_METHOD_REF ? "ref" : "tasks",
          s->kernel ? s->kernel : "none");
  if (s->graph)
    fprintf(f, ", block %zu, %zu tiles, %llu tile pairs, %llu tasks",
            s->graph->block_size, s->graph->ntiles, (unsigned long long)s->graph->nblocks,
            (unsigned long long)s->graph->ntasks);
  fputc('\n', f);
  if (s->decomp && s->nranks > 1)
    fprintf(f, "  ranks       %d = %d vector x %d field x %d repl, load balance %.4f "
               "(max/mean pairs), %llu bytes sent by StarPU-MPI\n",
            s->nranks, s->decomp->npv, s->decomp->npf, s->decomp->npr, balance(s),
            (unsigned long long)t->mpi_bytes);
  if (s->decomp && s->decomp->num_phase > 1)
    fprintf(f, "  phases      %d..%d of %d\n", s->phase_min, s->phase_max,
            s->decomp->num_phase);
  if (s->rt) {
    fprintf(f, "  workers     %d (%d cpu, %d cuda, %d opencl)%s, sched %s, priorities %s, "
               "%llu bytes moved, idle %.1f%%\n",
            s->rt->nworkers, s->rt->ncpu, s->rt->ncuda, s->rt->nopencl,
            s->nranks > 1 ? " on rank 0" : "", s->rt->sched, prio_name(s->prio_mode),
            (unsigned long long)s->rt->bus_bytes, 100 * idle_fraction(s));
    for (int w = 0; w < s->rt->nworkers; w++) {
      const sm_worker_stats_t *x = &s->rt->w[w];
      fprintf(f, "    %-24s %6d tasks  busy %.3f s  idle %.3f s\n", x->name, x->executed,
              x->busy_s, x->total_s > x->busy_s ? x->total_s - x->busy_s : 0.0);
    }
    sm_codelet_stats_t cl[SM_MAX_CODELETS];
    int ncl = s->rts ? sm_observe_merge_codelets(s->rts, s->nranks, cl, SM_MAX_CODELETS)
                     : sm_observe_merge_codelets(s->rt, 1, cl, SM_MAX_CODELETS);
    for (int k = 0; k < ncl; k++) {
      fprintf(f, "  %-11s %-22s %6llu tasks  mean %.3f ms", k ? "" : "codelets", cl[k].name,
              (unsigned long long)cl[k].count,
              cl[k].count ? 1e3 * cl[k].total_s / (double)cl[k].count : 0.0);
      if (cl[k].uncalibrated)
        fprintf(f, "  (%llu without a calibrated model)",
                (unsigned long long)cl[k].uncalibrated);
      fputc('\n', f);
    }
  }
  fprintf(f, "  results     %.0f, values %llu, written %llu\n", nres,
          (unsigned long long)t->nvalues, (unsigned long long)t->nwritten);
  fprintf(f, "  time        input %.3f s, init %.3f s, compute %.3f s, output %.3f s, "
             "total %.3f s\n",
          s->t_input, s->t_init, s->t_compute, s->t_output, s->t_total);
  double frac = 1.0;
  if (s->decomp && s->decomp->num_phase > 1)
    frac = (double)(s->phase_max - s->phase_min + 1) / s->decomp->num_phase;
  fprintf(f, "  rate        %.4g results/s, %.4g comparisons/s\n", frac * nres / tc,
          frac * cmp / tc);
  if (s->opt->synth.kind == SM_SYNTH_ANALYTIC)
    fprintf(f, "  analytic    %llu values checked, %llu wrong, max rel error %.3g\n",
            (unsigned long long)t->nchecked, (unsigned long long)t->nbad, t->max_rel_err);
  if (s->opt->verify || s->opt->inject_rate > 0)
    fprintf(f, "  verify      %llu checks, %llu failures caught, %llu re-executed, %llu faults "
               "injected\n",
            (unsigned long long)t->checks, (unsigned long long)t->failures,
            (unsigned long long)t->reexecuted, (unsigned long long)t->injected);
  fprintf(f, "  checksum    %s\n", cks);
  if (s->output_path)
    fprintf(f, "  output      %s%s\n", s->output_path, s->nranks > 1 ? " (one file per rank)" : "");
}
