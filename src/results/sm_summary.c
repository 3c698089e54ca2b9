/* sm_summary.c: JSON and printed run summaries (rank 0 writes them, with
 * the totals and per-rank figures gathered from every rank). */
#include "config.h"
#include "sm_summary.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "sm_checksum.h"
#include "sm_codelets.h"
#include "sm_commit.h"
#include "sm_hist.h"
#include "sm_json.h"
#include "sm_observe.h"
#include "sm_sink.h"
#include "sm_sched.h"

double sm_summary_nresults(size_t nv, int way)
{
  double n = (double)nv;
  return way == 2 ? n * (n - 1) / 2 : n * (n - 1) * (n - 2) / 6;
}

/* Strings of the summary that may be unset are written as "" (the file's
 * format since its first version); only "output" uses null. */
static void json_text(sm_json_t *j, const char *key, const char *s)
{
  sm_json_str(j, key, s ? s : "");
}

static const char *metric_name(const sm_summary_t *s)
{
  if (s->opt->metric == SM_METRIC_CCC)
    return s->opt->form == SM_FORM_R2 ? "r2" : s->opt->form == SM_FORM_R ? "r" : "ccc";
  return s->opt->form == SM_FORM_BC        ? "bray-curtis"
         : s->opt->form == SM_FORM_JACCARD ? "jaccard"
                                           : "czekanowski";
}

/* The values are dissimilarities (thresholds keep <= T, top-k the
 * smallest). */
static int dissimilarity(const sm_summary_t *s)
{
  return s->opt->metric == SM_METRIC_CZEK && s->opt->form != SM_FORM_PS;
}

static const char *variant(const sm_summary_t *s)
{
  if (s->opt->metric == SM_METRIC_CCC)
    return s->sparse ? "sparse" : "dense";
  return s->opt->single ? "single" : "double";
}

/* max / mean of the pairs computed per rank (1 = perfect balance) */
/* The compute time rates are taken over; NaN (no rate) when the run did
 * not complete, whose counts are the problem's, not what was computed, or
 * took no measurable time. */
static double rate_time(const sm_summary_t *s)
{
  const int done = !strcmp(s->status, "ok") || !strcmp(s->status, "simulated");
  return done && s->t_compute > 0 ? s->t_compute : NAN;
}

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
  return mode == SM_PRIO_BUCKETS ? "heteroprio buckets"
         : mode == SM_PRIO_DAG   ? "dag"
                                 : "off";
}

/* Every rank's runtime figures (rank 0's alone when not gathered). */
static const sm_runtime_stats_t *rank_rt(const sm_summary_t *s, int r)
{
  return s->rts ? &s->rts[r] : s->rt;
}

static int nrt(const sm_summary_t *s)
{
  return s->rts ? s->nranks : 1;
}

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

/* Runtime figures summed over the ranks, and the codelets merged. */
typedef struct rt_totals {
  uint64_t bus, fin, done, unc, kept_reused, kept_built;
  double unc_s, task_s;
  sm_codelet_stats_t cl[SM_MAX_CODELETS];
  int ncl;
} rt_totals_t;

static void rt_totals(const sm_summary_t *s, rt_totals_t *t)
{
  t->bus = t->fin = t->done = t->unc = t->kept_reused = t->kept_built = 0;
  for (int r = 0; r < nrt(s); r++) {
    t->kept_reused += rank_rt(s, r)->kept_reused;
    t->kept_built += rank_rt(s, r)->kept_built;
    t->bus += rank_rt(s, r)->bus_bytes;
    t->fin += rank_rt(s, r)->fin_bytes;
    t->done += rank_rt(s, r)->tasks_done;
    t->unc += rank_rt(s, r)->uncalibrated;
  }
  t->ncl = s->rts ? sm_observe_merge_codelets(s->rts, s->nranks, t->cl, SM_MAX_CODELETS)
                  : sm_observe_merge_codelets(s->rt, 1, t->cl, SM_MAX_CODELETS);
  t->unc_s = t->task_s = 0;
  for (int k = 0; k < t->ncl; k++) {
    t->unc_s += t->cl[k].uncalibrated_s;
    t->task_s += t->cl[k].total_s;
  }
}

/* "workers": every worker of every rank. */
static void json_workers(sm_json_t *j, const sm_summary_t *s)
{
  sm_json_array(j, "workers", 6);
  for (int r = 0; r < nrt(s); r++)
    for (int w = 0; w < rank_rt(s, r)->nworkers; w++) {
      const sm_worker_stats_t *x = &rank_rt(s, r)->w[w];
      sm_json_object(j, NULL, 0);
      sm_json_int(j, "rank", r);
      json_text(j, "name", x->name);
      json_text(j, "arch", x->arch);
      sm_json_int(j, "tasks", x->executed);
      sm_json_fixed(j, "busy_s", 6, x->busy_s);
      sm_json_fixed(j, "idle_s", 6,
                    x->total_s > x->busy_s ? x->total_s - x->busy_s : 0.0);
      sm_json_close(j);
    }
  sm_json_close(j);
}

/* "binding": the CPUs each rank's workers were kept to (sm_bind.h). */
static void json_binding(sm_json_t *j, const sm_summary_t *s)
{
  sm_json_array(j, "binding", 6);
  for (int r = 0; r < nrt(s); r++) {
    sm_json_object(j, NULL, 0);
    sm_json_int(j, "rank", r);
    json_text(j, "mode", rank_rt(s, r)->bind_mode);
    json_text(j, "cpus", rank_rt(s, r)->bind_cpus);
    sm_json_close(j);
  }
  sm_json_close(j);
}

/* "gpus": each rank's local rank on its node (and where it was read) and
 * the CUDA devices it was given (sm_gpu.h). */
static void json_gpus(sm_json_t *j, const sm_summary_t *s)
{
  sm_json_array(j, "gpus", 6);
  for (int r = 0; r < nrt(s); r++) {
    const sm_gpu_plan_t *g = &rank_rt(s, r)->gpu;
    sm_json_object(j, NULL, 0);
    sm_json_int(j, "rank", r);
    sm_json_int(j, "local_rank", g->local.rank);
    sm_json_int(j, "local_size", g->local.size);
    json_text(j, "local_rank_from", g->local.from);
    sm_json_int(j, "visible_devices", g->visible);
    sm_json_array(j, "cuda_devices", 0);
    for (int k = 0; k < g->choice.ndev; k++)
      sm_json_int(j, NULL, g->choice.dev[k]);
    sm_json_close(j);
    json_text(j, "cuda_devices_from", g->how);
    sm_json_bool(j, "shared", g->choice.shared);
    sm_json_close(j);
  }
  sm_json_close(j);
}

/* "codelets": merged over ranks. */
static void json_codelets(sm_json_t *j, const rt_totals_t *t)
{
  sm_json_array(j, "codelets", 6);
  for (int k = 0; k < t->ncl; k++) {
    const sm_codelet_stats_t *c = &t->cl[k];
    sm_json_object(j, NULL, 0);
    json_text(j, "name", c->name);
    json_text(j, "kind", c->kind);
    sm_json_u64(j, "count", c->count);
    sm_json_fixed(j, "mean_s", 9, c->count ? c->total_s / (double)c->count : 0.0);
    sm_json_fixed(j, "min_s", 9, c->min_s);
    sm_json_fixed(j, "max_s", 9, c->max_s);
    sm_json_fixed(j, "total_s", 6, c->total_s);
    /* comparisons (numerators) or bytes (the others): the work its rate
     * counts (scripts/sim-calibrate reads it) */
    sm_json_fixed(j, "work", 0, c->work);
    sm_json_u64(j, "uncalibrated", c->uncalibrated);
    sm_json_fixed(j, "uncalibrated_s", 6, c->uncalibrated_s);
    sm_json_close(j);
  }
  sm_json_close(j);
}

/* "buses": the transfers between memory nodes of every rank. */
static void json_buses(sm_json_t *j, const sm_summary_t *s)
{
  sm_json_array(j, "buses", 6);
  for (int r = 0; r < nrt(s); r++)
    for (int b = 0; b < rank_rt(s, r)->nbuses; b++) {
      const sm_bus_stats_t *x = &rank_rt(s, r)->bus[b];
      sm_json_object(j, NULL, 0);
      sm_json_int(j, "rank", r);
      json_text(j, "from", x->src_name);
      json_text(j, "to", x->dst_name);
      sm_json_u64(j, "bytes", x->bytes);
      sm_json_int(j, "transfers", x->transfers);
      sm_json_close(j);
    }
  sm_json_close(j);
}

/* The "runtime" object: policy, workers of every rank, codelets, transfers. */
static void json_runtime(sm_json_t *j, const sm_summary_t *s)
{
  rt_totals_t t;
  rt_totals(s, &t);
  sm_json_object(j, "runtime", 0);
  json_text(j, "sched", s->rt->sched);
  sm_json_str(j, "priorities", prio_name(s->prio_mode));
  sm_json_bool(j, "calibrate", sm_sched_calibrating());
  json_text(j, "perfmodel_dir", sm_sched_perfmodel_dir());
  sm_json_break(j, 4);
  sm_json_u64(j, "tasks_executed", t.done);
  sm_json_u64(j, "uncalibrated_tasks", t.unc);
  sm_json_fixed(j, "uncalibrated_time_fraction", 6,
                t.task_s > 0 ? t.unc_s / t.task_s : 0.0);
  sm_json_fixed(j, "idle_fraction", 6, idle_fraction(s));
  sm_json_break(j, 4);
  json_workers(j, s);
  sm_json_break(j, 4);
  json_binding(j, s);
  sm_json_break(j, 4);
  json_gpus(j, s);
  sm_json_break(j, 4);
  json_codelets(j, &t);
  sm_json_break(j, 4);
  json_buses(j, s);
  sm_json_break(j, 4);
  sm_json_u64(j, "bytes_between_memory_nodes", t.bus);
  sm_json_u64(j, "bytes_copied_by_device_finalize", t.fin);
  sm_json_u64(j, "mpi_bytes_sent", s->total.mpi_bytes);
  sm_json_break(j, 4);
  /* the CPU kernels' derived tile data: found kept, built (sm_sidecache.h) */
  sm_json_u64(j, "tile_data_reused", t.kept_reused);
  sm_json_u64(j, "tile_data_built", t.kept_built);
  sm_json_close(j);
}

/* "problem" and "decomposition": what was computed, and how it was cut. */
static void json_problem(sm_json_t *j, const sm_summary_t *s)
{
  const sm_decomp_t *d = s->decomp;
  sm_json_object(j, "problem", 0);
  sm_json_str(j, "metric", metric_name(s));
  if (s->opt->binary) /* presence/absence */
    sm_json_bool(j, "binary", 1);
  if (s->opt->metric == SM_METRIC_CZEK && s->opt->num_way == 2 &&
      (dissimilarity(s) || s->opt->zero_pairs)) /* the value of two empty vectors */
    sm_json_str(j, "zero_pairs", s->opt->zero_pairs ? "nan" : "zero");
  sm_json_str(j, "variant", variant(s));
  sm_json_int(j, "num_way", s->opt->num_way);
  sm_json_u64(j, "num_vector", s->nv);
  sm_json_u64(j, "num_field", s->nf);
  sm_json_u64(j, "missing_calls", s->nmissing);
  json_text(j, "input", s->input_desc);
  if (s->text_header) {
    sm_json_str(j, "text_header", s->text_header);
    sm_json_str(j, "text_row_names", s->text_row_names);
  }
  if (s->compare) /* a BIOM table: its vectors are its samples or its observations */
    sm_json_str(j, "compare", s->compare);
  /* what the ids of text outputs are: vector names, or numbers from 0 */
  sm_json_str(j, "keys", s->names ? "names" : "index");
  sm_json_close(j);
  if (s->mem_estimate) {
    sm_json_object(j, "memory", 0);
    sm_json_u64(j, "estimate_bytes", s->mem_estimate);
    sm_json_u64(j, "peak_rss_bytes", s->mem_peak);
    sm_json_close(j);
  }
  sm_json_str(j, "method", s->opt->method == SM_METHOD_REF ? "ref" : "tasks");
  json_text(j, "kernel", s->kernel);
  if (s->czek_method) {
    sm_json_str(j, "czek_method", s->czek_method);
    sm_json_real(j, "nonzero_fraction", 6, s->density);
  }
  sm_json_object(j, "decomposition", 0);
  sm_json_int(j, "num_proc", s->nranks);
  sm_json_int(j, "num_proc_vector", d ? d->npv : 1);
  sm_json_int(j, "num_proc_field", d ? d->npf : 1);
  sm_json_int(j, "num_proc_repl", d ? d->npr : 1);
  sm_json_int(j, "num_phase", d ? d->num_phase : 1);
  sm_json_int(j, "phase_min", s->phase_min);
  sm_json_int(j, "phase_max", s->phase_max);
  sm_json_int(j, "num_stage", 1);
  if (s->graph) {
    sm_json_u64(j, "block_size", s->graph->block_size);
    sm_json_u64(j, "tiles", s->graph->ntiles);
    sm_json_u64(j, "blocks", s->graph->nblocks);
    sm_json_u64(j, "tasks", s->graph->ntasks);
  }
  sm_json_close(j);
  if (s->graph && s->graph->grain.way) { /* what the task grain came from */
    const sm_grain_t *g = &s->graph->grain;
    sm_json_object(j, "grain", 0);
    sm_json_str(j, "source", g->source);
    json_text(j, "model", g->model[0] ? g->model : NULL);
    sm_json_u64(j, "model_samples", g->samples);
    json_text(j, "finalize_model", g->fin_model[0] ? g->fin_model : NULL);
    sm_json_u64(j, "finalize_samples", g->fin_samples);
    sm_json_real(j, "rate_per_worker", 4, g->rate);
    sm_json_real(j, "gpu_rate_per_worker", 4, g->gpu_rate);
    sm_json_real(j, "overhead_s", 4, g->overhead);
    sm_json_bool(j, "overhead_from_model", g->model_overhead);
    sm_json_real(j, "target_task_s", 4, g->target);
    sm_json_real(j, "min_task_comparisons", 4, g->min_work);
    sm_json_u64(j, "block_size", g->block);
    sm_json_str(j, "block_size_from", g->block_from);
    sm_json_u64(j, "plane_group", g->group);
    sm_json_close(j);
  }
}

/* The checksum of the values; none in a simulation build (no kernel ran). */
static void summary_checksum(const sm_rank_stats_t *t, char *buf, size_t len)
{
#ifdef SM_SIMULATION
  (void)t;
  snprintf(buf, len, "none (simulated: kernels did not run)");
#else
  sm_checksum_format(&t->cksum, buf, len);
#endif
}

/* "timings_s", "counts", "rates", "checksum", "threshold". */
static void json_figures(sm_json_t *j, const sm_summary_t *s)
{
  const sm_rank_stats_t *t = &s->total;
  const sm_decomp_t *d = s->decomp;
  double nres = s->npairs > 0 ? s->npairs : sm_summary_nresults(s->nv, s->opt->num_way);
  double cmp = nres * (double)s->nf;
  sm_json_object(j, "timings_s", 0);
  sm_json_fixed(j, "input", 6, s->t_input);
  sm_json_fixed(j, "runtime_init", 6, s->t_init);
  sm_json_fixed(j, "compute", 6, s->t_compute);
  sm_json_fixed(j, "output_close", 6, s->t_output);
  sm_json_fixed(j, "output_read_back", 6, s->t_readback);
  sm_json_fixed(j, "commit_agreements", 6, s->t_agree);
  sm_json_fixed(j, "total", 6, s->t_total);
  if (s->graph)
    sm_json_fixed(j, "task_submission", 6, s->graph->t_submit);
  sm_json_close(j);
  sm_json_object(j, "counts", 0);
  sm_json_fixed(j, "results", 0, nres);
  sm_json_u64(j, "values", t->nvalues);
  sm_json_u64(j, "written", t->nwritten);
  sm_json_fixed(j, "element_comparisons", 0, cmp);
  sm_json_close(j);
  const double tc = rate_time(s);
  double frac = 1.0;
  if (d && d->num_phase > 1)
    frac = (double)(s->phase_max - s->phase_min + 1) / d->num_phase;
  sm_json_object(j, "rates", 0); /* null: no rate (rate_time) */
  sm_json_real(j, "results_per_s", 6, frac * nres / tc);
  sm_json_real(j, "comparisons_per_s", 6, frac * cmp / tc);
  sm_json_close(j);
  char cks[128];
  summary_checksum(t, cks, sizeof cks);
  sm_json_str(j, "checksum", cks);
#ifdef SM_SIMULATION
  sm_json_object(j, "simulation", 0);
  sm_json_str(j, "platform", sm_cl_sim_platform());
  sm_json_str(j, "models", sm_cl_sim_models_path());
  sm_json_close(j);
#endif
  sm_json_real(j, "threshold", 17, s->opt->threshold);
  if (dissimilarity(s) && s->opt->threshold >= 0)
    sm_json_str(j, "threshold_keeps", "<="); /* the near pairs */
  if (s->opt->thr_ent.n) {                   /* CoMet's, per table entry */
    sm_json_array(j, "threshold_entries", 0);
    for (int k = 0; k < s->opt->thr_ent.n; k++)
      sm_json_real(j, NULL, 15, s->opt->thr_ent.t[k]); /* as given */
    sm_json_close(j);
  }
  if (s->topk_path) {
    sm_json_object(j, "top_k", 0);
    sm_json_u64(j, "k", s->opt->topk);
    sm_json_str(j, "by",
                s->opt->metric != SM_METRIC_CCC
                    ? (dissimilarity(s) ? "smallest value" : "value")
                : s->opt->topk_by_entry ? "entry"
                                        : "max");
    sm_json_str(j, "file", s->topk_path);
    sm_json_u64(j, "rows", s->topk_rows);
    sm_json_close(j);
  }
  if (s->hist && s->hist_counts) {
    const int vm =
        s->opt->metric == SM_METRIC_CCC ? (s->opt->form == SM_FORM_R2  ? SM_METRIC_R2
                                           : s->opt->form == SM_FORM_R ? SM_METRIC_R
                                                                       : SM_METRIC_CCC)
        : dissimilarity(s)
            ? (s->opt->form == SM_FORM_BC ? SM_METRIC_BRAY_CURTIS : SM_METRIC_JACCARD)
            : SM_METRIC_CZEK;
    sm_hist_json(j, s->hist, vm, s->opt->num_way, s->hist_counts);
    sm_json_str(j, "histogram_file", s->hist_path);
    sm_json_str(j, "histogram_picture", s->hist_png);
  }
}

/* "analytic_check", "reexecuted_tasks", "resilience": the self-checks. */
static void json_checks(sm_json_t *j, const sm_summary_t *s)
{
  const sm_rank_stats_t *t = &s->total;
  if (s->opt->synth.kind == SM_SYNTH_ANALYTIC) {
    sm_json_object(j, "analytic_check", 0);
    sm_json_u64(j, "checked", t->nchecked);
    sm_json_u64(j, "failed", t->nbad);
    sm_json_real(j, "max_rel_error", 3, t->max_rel_err);
    sm_json_real(j, "tolerance", 3,
                 sm_sink_rel_bound(s->opt->metric, s->opt->single, s->nf));
    sm_json_close(j);
  }
  sm_json_u64(j, "reexecuted_tasks", t->reexecuted);
  sm_json_object(j, "resilience", 0);
  sm_json_bool(j, "verify", s->verify);
  sm_json_bool(j, "verify_default", s->verify_default);
  sm_json_real(j, "inject_rate", 17, s->opt->inject_rate);
  sm_json_u64(j, "checks", t->checks);
  sm_json_u64(j, "failures_caught", t->failures);
  sm_json_u64(j, "reexecuted", t->reexecuted);
  sm_json_u64(j, "faults_injected", t->injected);
  sm_json_str(j, "output_check", s->out_check ? s->out_check : "none");
  if (s->verify) {
    static const char *const arch[3] = {"cpu", "cuda", "opencl"};
    sm_json_str(j, "verify_mode", s->verify == SM_VERIFY_FULL ? "full" : "checksum");
    sm_json_str(j, "retry", s->retry);
    sm_json_array(j, "retries", 0);
    for (int c = 0; c < SM_RETRY_CODELETS && t->retry[c].codelet[0]; c++) {
      sm_json_object(j, NULL, 0);
      sm_json_str(j, "codelet", t->retry[c].codelet);
      sm_json_object(j, "failed_tries", 0);
      for (int a = 0; a < 3; a++)
        sm_json_u64(j, arch[a], t->retry[c].failed[a]);
      sm_json_close(j);
      sm_json_object(j, "retries_ran_on", 0);
      for (int a = 0; a < 3; a++)
        sm_json_u64(j, arch[a], t->retry[c].tries[a]);
      sm_json_close(j);
      sm_json_close(j);
    }
    sm_json_close(j);
  }
  sm_json_close(j);
}

void sm_summary_merge_retries(sm_retry_stats_t *to, const sm_retry_stats_t *from)
{
  for (int c = 0; c < SM_RETRY_CODELETS && from[c].codelet[0]; c++) {
    int k = 0;
    while (k < SM_RETRY_CODELETS && to[k].codelet[0] &&
           strcmp(to[k].codelet, from[c].codelet) != 0)
      k++;
    if (k == SM_RETRY_CODELETS)
      continue;
    memcpy(to[k].codelet, from[c].codelet, sizeof to[k].codelet);
    for (int a = 0; a < 3; a++) {
      to[k].tries[a] += from[c].tries[a];
      to[k].failed[a] += from[c].failed[a];
    }
  }
}

/* The human line of a codelet's retries: its failed tries and where the
 * retries ran, by worker type. */
static void print_retries(FILE *f, const sm_retry_stats_t *r)
{
  static const char *const arch[3] = {"cpu", "cuda", "opencl"};
  for (int c = 0; c < SM_RETRY_CODELETS && r[c].codelet[0]; c++) {
    uint64_t nf = 0, nt = 0;
    for (int a = 0; a < 3; a++)
      nf += r[c].failed[a], nt += r[c].tries[a];
    if (!nf)
      continue;
    fprintf(f, "  retries     %s: %llu failed tries (", r[c].codelet,
            (unsigned long long)nf);
    for (int a = 0, first = 1; a < 3; a++)
      if (r[c].failed[a]) {
        fprintf(f, "%s%s %llu", first ? "" : ", ", arch[a],
                (unsigned long long)r[c].failed[a]);
        first = 0;
      }
    fprintf(f, "), %llu retries ran on ", (unsigned long long)nt);
    for (int a = 0, first = 1; a < 3; a++)
      if (r[c].tries[a]) {
        fprintf(f, "%s%s %llu", first ? "" : ", ", arch[a],
                (unsigned long long)r[c].tries[a]);
        first = 0;
      }
    fprintf(f, "%s\n", nt ? "" : "none");
  }
}

/* "load_balance" and "ranks": every rank's share (rank 0 only). */
static void json_ranks(sm_json_t *j, const sm_summary_t *s)
{
  sm_json_object(j, "load_balance", 0);
  sm_json_fixed(j, "max_over_mean_pairs", 6, balance(s));
  sm_json_close(j);
  sm_json_array(j, "ranks", 4);
  for (int r = 0; r < s->nranks; r++) {
    const sm_rank_stats_t *x = &s->ranks[r];
    sm_json_object(j, NULL, 0);
    sm_json_int(j, "rank", r);
    sm_json_u64(j, "tile_pairs", x->subblocks);
    sm_json_u64(j, "pairs", x->pairs);
    sm_json_u64(j, "blocks_written", x->outputs);
    sm_json_u64(j, "values", x->nvalues);
    sm_json_u64(j, "written", x->nwritten);
    sm_json_fixed(j, "compute_s", 6, x->t_compute);
    sm_json_u64(j, "mpi_bytes_sent", x->mpi_bytes);
    sm_json_int(j, "workers", x->nworkers);
    sm_json_close(j);
  }
  sm_json_close(j);
}

sm_err_t sm_summary_write_json(const sm_summary_t *s, const char *path)
{
  sm_commit_t c;
  if (sm_commit_open(&c, path, ".part", 1, "w") != SM_OK) {
    sm_log_error("%s: cannot write the summary: %s", c.tmp, sm_commit_strerror(errno));
    return SM_EIO;
  }
  sm_json_t j;
  sm_json_begin(&j, c.f);
  sm_json_str(&j, "starmet_version", PACKAGE_VERSION);
  json_text(&j, "status", s->status);
  json_text(&j, "command", s->command);
  json_problem(&j, s);
  json_figures(&j, s);
  json_checks(&j, s);
  if (s->ranks)
    json_ranks(&j, s);
  if (s->rt)
    json_runtime(&j, s);
  sm_json_str(&j, "output", s->output_path);
  sm_json_end(&j);
  if (sm_commit_finish(&c) != SM_OK) {
    sm_log_error("%s: cannot write the summary: %s", path, sm_commit_strerror(errno));
    return SM_EIO;
  }
  return SM_OK;
}

void sm_summary_print(const sm_summary_t *s, FILE *f)
{
  const sm_rank_stats_t *t = &s->total;
  double nres = s->npairs > 0 ? s->npairs : sm_summary_nresults(s->nv, s->opt->num_way);
  double cmp = nres * (double)s->nf;
  const double tc = rate_time(s);
  char cks[128];
  summary_checksum(t, cks, sizeof cks);
  /* a BIOM table's axes by their names, and which is compared */
  const int obs = s->compare && !strcmp(s->compare, "observations");
  fprintf(f, "starmet %s: %s %d-way (%s), %zu %s x %zu %s%s%s%s, %s\n", s->status,
          metric_name(s), s->opt->num_way, variant(s), s->nv,
          !s->compare ? "vectors"
          : obs       ? "observations"
                      : "samples",
          s->nf,
          !s->compare ? "fields"
          : obs       ? "samples"
                      : "observations",
          s->compare ? " (BIOM: " : "", s->compare ? s->compare : "",
          s->compare ? " compared)" : "", s->input_desc);
  fprintf(f, "  method      %s%s%s, kernel %s",
          s->opt->method == SM_METHOD_REF ? "ref" : "tasks",
          s->czek_method ? " czekanowski " : "", s->czek_method ? s->czek_method : "",
          s->kernel ? s->kernel : "none");
  if (s->graph)
    fprintf(f, ", block %zu, %zu tiles, %llu tile pairs, %llu tasks",
            s->graph->block_size, s->graph->ntiles, (unsigned long long)s->graph->nblocks,
            (unsigned long long)s->graph->ntasks);
  fputc('\n', f);
  if (s->graph && s->graph->grain.way) {
    const sm_grain_t *g = &s->graph->grain;
    fprintf(f, "  grain       block %zu (%s)", g->block, g->block_from);
    if (g->group)
      fprintf(f, ", %zu planes per task", g->group);
    fprintf(f, "; %.3g comparisons/s per worker (%s%s%s), tasks of %.3g ms aimed at\n",
            g->rate, g->source, g->model[0] ? " " : "", g->model, g->target * 1e3);
  }
  if (s->decomp && s->nranks > 1)
    fprintf(f,
            "  ranks       %d = %d vector x %d field x %d repl, load balance %.4f "
            "(max/mean pairs), %llu bytes sent by StarPU-MPI\n",
            s->nranks, s->decomp->npv, s->decomp->npf, s->decomp->npr, balance(s),
            (unsigned long long)t->mpi_bytes);
  if (s->decomp && s->decomp->num_phase > 1)
    fprintf(f, "  phases      %d..%d of %d\n", s->phase_min, s->phase_max,
            s->decomp->num_phase);
  if (s->rt) {
    fprintf(f,
            "  workers     %d (%d cpu, %d cuda, %d opencl)%s on cpus %s (%s), sched %s, "
            "priorities %s, %llu bytes moved, idle %.1f%%\n",
            s->rt->nworkers, s->rt->ncpu, s->rt->ncuda, s->rt->nopencl,
            s->nranks > 1 ? " on rank 0" : "",
            s->rt->bind_cpus[0] ? s->rt->bind_cpus : "?", s->rt->bind_mode, s->rt->sched,
            prio_name(s->prio_mode), (unsigned long long)s->rt->bus_bytes,
            100 * idle_fraction(s));
    for (int w = 0; w < s->rt->nworkers; w++) {
      const sm_worker_stats_t *x = &s->rt->w[w];
      fprintf(f, "    %-24s %6d tasks  busy %.3f s  idle %.3f s\n", x->name, x->executed,
              x->busy_s, x->total_s > x->busy_s ? x->total_s - x->busy_s : 0.0);
    }
    sm_codelet_stats_t cl[SM_MAX_CODELETS];
    int ncl = s->rts ? sm_observe_merge_codelets(s->rts, s->nranks, cl, SM_MAX_CODELETS)
                     : sm_observe_merge_codelets(s->rt, 1, cl, SM_MAX_CODELETS);
    for (int k = 0; k < ncl; k++) {
      fprintf(f, "  %-11s %-22s %6llu tasks  mean %.3f ms", k ? "" : "codelets",
              cl[k].name, (unsigned long long)cl[k].count,
              cl[k].count ? 1e3 * cl[k].total_s / (double)cl[k].count : 0.0);
      if (cl[k].uncalibrated)
        fprintf(f, "  (%llu without a calibrated model)",
                (unsigned long long)cl[k].uncalibrated);
      fputc('\n', f);
    }
    /* where StarPU read and wrote its performance models: $HOME unless told */
    fprintf(f, "  models      %s%s\n", sm_sched_perfmodel_dir(),
            s->opt->perfmodel_dir
                ? " (--perfmodel-dir)"
                : " (StarPU's default; --perfmodel-dir DIR for another)");
  }
  fprintf(f, "  results     %.0f, values %llu, written %llu\n", nres,
          (unsigned long long)t->nvalues, (unsigned long long)t->nwritten);
  fprintf(f,
          "  time        input %.3f s, init %.3f s, compute %.3f s, output %.3f s (read "
          "back %.3f s), total %.3f s\n",
          s->t_input, s->t_init, s->t_compute, s->t_output, s->t_readback, s->t_total);
  double frac = 1.0;
  if (s->decomp && s->decomp->num_phase > 1)
    frac = (double)(s->phase_max - s->phase_min + 1) / s->decomp->num_phase;
  if (s->mem_estimate)
    fprintf(f, "  memory      rank 0: estimated %.3g MB before the run, peak %.3g MB\n",
            (double)s->mem_estimate / 1048576, (double)s->mem_peak / 1048576);
  if (tc == tc)
    fprintf(f, "  rate        %.4g results/s, %.4g comparisons/s\n", frac * nres / tc,
            frac * cmp / tc);
  if (s->opt->synth.kind == SM_SYNTH_ANALYTIC)
    fprintf(f,
            "  analytic    %llu values checked, %llu wrong, max rel error %.3g "
            "(tolerance %.3g)\n",
            (unsigned long long)t->nchecked, (unsigned long long)t->nbad, t->max_rel_err,
            sm_sink_rel_bound(s->opt->metric, s->opt->single, s->nf));
  if (s->verify || s->opt->inject_rate > 0)
    fprintf(
        f,
        "  verify      %llu checks, %llu failures caught, %llu re-executed, %llu faults "
        "injected%s%s%s\n",
        (unsigned long long)t->checks, (unsigned long long)t->failures,
        (unsigned long long)t->reexecuted, (unsigned long long)t->injected,
        s->verify ? "; retry: " : "", s->verify ? s->retry : "",
        s->verify_default && s->verify ? " (on by default for ccc; --no-verify: off)"
                                       : "");
  if (s->verify)
    print_retries(f, t->retry);
  fprintf(f, "  checksum    %s\n", cks);
  if (s->output_path)
    fprintf(f, "  output      %s%s\n", s->output_path,
            s->nranks < 2                        ? ""
            : s->opt->output_format == SM_OUT_LD ? " (one table: rank 0 wrote it)"
                                                 : " (one file per rank)");
  if (s->topk_path)
    fprintf(f, "  top-k       %zu neighbours per vector%s: %s (%llu rows)\n",
            s->opt->topk,
            s->opt->metric != SM_METRIC_CCC
                ? (dissimilarity(s) ? " (the smallest values)" : "")
            : s->opt->form != SM_FORM_PS ? "" /* r2, r: one value per pair */
            : s->opt->topk_by_entry      ? " per table entry"
                                         : " by the largest entry",
            s->topk_path, s->topk_rows);
  if (s->hist && s->hist_path) {
    uint64_t nan = 0; /* NaN values are in no bin: their own slot */
    for (uint32_t e = 0; s->hist_counts && e < s->hist->nent; e++)
      nan += s->hist_counts[e * sm_hist_row(s->hist) + s->hist->bins + 2];
    fprintf(f, "  histogram   %u bins over [%g, %g]: %s%s%s\n", s->hist->bins,
            s->hist->lo, s->hist->hi, s->hist_path, s->hist_png ? ", " : "",
            s->hist_png ? s->hist_png : "");
    if (nan)
      fprintf(f, "              %llu NaN values, in no bin (bin %u of %s)\n",
              (unsigned long long)nan, s->hist->bins + 1, s->hist_path);
  }
}
