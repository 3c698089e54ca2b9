/* sm_compute.c: `starmet compute` from options to output: load or generate
 * the vectors, validate them, run the task graph (or the reference loops),
 * commit the output and write the summaries. */
#include "sm_compute.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sm_graph.h"
#include "sm_ref.h"
#include "sm_runtime.h"
#include "sm_summary.h"
#include "sm_timer.h"

static sm_err_t load(const sm_options_t *o, sm_vectors_t *v, char *desc, size_t len)
{
  size_t es = o->single ? 4 : 8;
  if (o->synth.kind != SM_SYNTH_NONE) {
    snprintf(desc, len, "synthetic %s (seed %llu%s)",
             o->synth.kind == SM_SYNTH_ANALYTIC ? "analytic" : "random",
             (unsigned long long)o->synth.seed,
             o->synth.missing_rate > 0 ? ", missing calls" : "");
    return sm_synth_make(&o->synth, es, 0, 0, 0, 0, v);
  }
  snprintf(desc, len, "%s", o->input);
  sm_read_opts_t ro = {
      .metric = o->metric,
      .elem_size = es,
      .transpose = o->transpose,
      .num_vector = o->num_vector,
      .num_field = o->num_field,
      .raw_elem_size = o->raw_elem_size,
  };
  return sm_read_input(o->input, o->input_format, &ro, v, NULL);
}

int sm_compute_main(const sm_options_t *o, const char *command)
{
  double t0 = sm_now();
  sm_log_set_quiet(o->quiet);
  sm_vectors_t v = {0};
  char desc[4096];
  sm_err_t err = load(o, &v, desc, sizeof desc);
  if (err)
    return err;
  double t_input = sm_now() - t0;
  if (v.nv < (size_t)o->num_way) {
    sm_log_error("%s: %zu vector%s: %d-way metrics need at least %d vectors", desc,
                 v.nv, v.nv == 1 ? "" : "s", o->num_way, o->num_way);
    sm_vectors_free(&v);
    return SM_EDEGEN;
  }
  if (v.nv > UINT32_MAX) {
    sm_log_error("%s: %zu vectors is more than starmet indexes (2^32 - 1)", desc, v.nv);
    sm_vectors_free(&v);
    return SM_EDEGEN;
  }
  if (v.metric == SM_METRIC_CCC && v.nf > (1u << 28)) {
    sm_log_error("%s: %zu fields exceeds the 2^28 that CCC tallies hold exactly", desc,
                 v.nf);
    sm_vectors_free(&v);
    return SM_EDEGEN;
  }
  int sparse = 0;
  if (o->metric == SM_METRIC_CCC) {
    sparse = o->sparse < 0 ? v.nmissing > 0 : o->sparse;
    if (o->sparse < 0 && sparse)
      sm_log_info("%s has %zu missing calls: using the sparse CCC method", desc,
                  v.nmissing);
    else if (!sparse && v.nmissing)
      sm_log_warn("%s has %zu missing calls but --no-sparse was given: dense CCC "
                  "counts them as one copy of allele 1", desc, v.nmissing);
  }
  if (o->num_way == 3 && o->method != SM_METHOD_REF) {
    sm_log_error("--num-way 3 runs with --compute-method ref in this version "
                 "(the 3-way task graph is not part of it)");
    sm_vectors_free(&v);
    return SM_EOPTION;
  }

  /* output */
  char out_path[4096] = "", json_path[4096] = "";
  sm_writer_info_t wi = {
      .fmt = o->output_format,
      .way = o->num_way,
      .metric = o->metric,
      .single = o->single,
      .nv = v.nv,
      .nf = v.nf,
      .names = v.names,
  };
  if (o->output && o->output_format != SM_OUT_NONE)
    sm_output_path(out_path, sizeof out_path, o->output, o->output_format, 0, 1);
  if (o->summary)
    snprintf(json_path, sizeof json_path, "%s", o->summary);
  else if (o->output)
    snprintf(json_path, sizeof json_path, "%s.json", o->output);
  sm_writer_t *w = NULL;
  if ((err = sm_writer_open(&w, out_path, &wi))) {
    sm_vectors_free(&v);
    return err;
  }
  sm_sink_t sink = {
      .writer = w,
      .way = o->num_way,
      .metric = o->metric,
      .single = o->single,
      .sparse = sparse,
      .ccc_mult = o->ccc_mult,
      .ccc_param = o->ccc_param,
      .threshold = o->threshold,
      .thr_f32 = o->single || o->output_format == SM_OUT_COMET,
      .analytic = o->synth.kind == SM_SYNTH_ANALYTIC ? &o->synth : NULL,
      .progress = o->progress < 0 ? isatty(2) && !o->quiet : o->progress,
      .t_start = sm_now(),
  };
  sm_summary_t sum = {
      .opt = o,
      .command = command,
      .input_desc = desc,
      .nv = v.nv,
      .nf = v.nf,
      .sparse = sparse,
      .nmissing = v.nmissing,
      .nranks = 1,
      .sink = &sink,
      .t_input = t_input,
  };
  sm_graph_stats_t gs = {0};
  sm_runtime_stats_t rs;
  double t1 = sm_now();
  if (o->method == SM_METHOD_REF) {
    sink.apply_threshold = 1;
    sum.kernel = "reference loops";
    sm_ref_opts_t ro = {.way = o->num_way, .sparse = sparse, .ccc_mult = o->ccc_mult,
                        .ccc_param = o->ccc_param};
    err = sm_ref_run(&v, &ro, &sink);
    sum.t_compute = sm_now() - t1;
  } else {
    err = sm_runtime_init(o->sched);
    sum.t_init = sm_now() - t1;
    if (!err) {
      sm_codelets_init(0, o->kernel);
      sum.kernel = sm_codelets_kernel_name(
          o->metric == SM_METRIC_CCC ? "ccc2" : (o->single ? "czek2_s" : "czek2_d"));
      sm_graph_opts_t go = {
          .single = o->single,
          .sparse = sparse,
          .ccc_mult = o->ccc_mult,
          .ccc_param = o->ccc_param,
          .block_size = o->block_size,
          .threshold = o->threshold,
          .thr_f32 = sink.thr_f32,
          .emit = o->output_format != SM_OUT_NONE || sink.analytic != NULL,
          .keep_all = sink.analytic != NULL,
          .prio = 1,
      };
      sink.apply_threshold = go.keep_all;
      err = sm_graph2_run(&v, &go, &sink, &gs);
      sum.t_compute = gs.t_run;
      sm_runtime_collect(&rs);
      sm_runtime_shutdown();
      sum.graph = &gs;
      sum.rt = &rs;
    }
  }
  if (!err && sink.nbad) {
    sm_log_error("analytic problem: %llu of %llu values differ from the closed form",
                 (unsigned long long)sink.nbad, (unsigned long long)sink.nchecked);
    err = SM_ECHECK;
  }
  double t2 = sm_now();
  sm_err_t cerr = sm_writer_close(w, err == SM_OK);
  if (!err)
    err = cerr;
  sum.t_output = sm_now() - t2;
  sum.t_total = sm_now() - t0;
  sum.output_path = err == SM_OK && out_path[0] ? out_path : NULL;
  sum.status = err == SM_OK ? "ok" : sm_strerror(err);
  if (json_path[0]) {
    sm_err_t jerr = sm_summary_write_json(&sum, json_path);
    if (!err)
      err = jerr;
  }
  sm_summary_print(&sum, stdout);
  sm_vectors_free(&v);
  return err;
}

int sm_synth_main(const sm_options_t *o)
{
  sm_vectors_t v = {0};
  sm_err_t err = sm_synth_make(&o->synth, o->single ? 4 : 8, 0, 0, 0, 0, &v);
  if (err)
    return err;
  err = sm_vectors_write(&v, o->input_format, o->output);
  if (!err)
    sm_log_info("wrote %zu vectors x %zu fields to %s", v.nv, v.nf, o->output);
  sm_vectors_free(&v);
  return err;
}
