/* sm_compute.c: `starmet compute` from options to output, on one rank or
 * many: size the problem, set up the rank grid, read this rank's slice (or
 * generate it), run the task graph (or the reference loops), commit the
 * output and write the summaries. */
#include "sm_compute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_graph.h"
#include "sm_mpi.h"
#include "sm_ref.h"
#include "sm_observe.h"
#include "sm_runtime.h"
#include "sm_sched.h"
#include "sm_summary.h"
#include "sm_timer.h"
#include "sm_trace.h"

#include <starpu.h>

static sm_read_opts_t read_opts(const sm_options_t *o)
{
  sm_read_opts_t ro = {
      .metric = o->metric,
      .elem_size = o->single ? 4 : 8,
      .transpose = o->transpose,
      .num_vector = o->num_vector,
      .num_field = o->num_field,
      .raw_elem_size = o->raw_elem_size,
  };
  return ro;
}

/* Load vectors [v0, v0+vc) x fields [f0, f0+fc) of the input. */
static sm_err_t load(const sm_options_t *o, size_t v0, size_t vc, size_t f0, size_t fc,
                     sm_vectors_t *v, sm_dims_t *dims)
{
  if (o->synth.kind != SM_SYNTH_NONE) {
    if (dims) {
      dims->nv = o->synth.nv;
      dims->nf = o->synth.nf;
    }
    return sm_synth_make(&o->synth, o->single ? 4 : 8, v0, vc, f0, fc, v);
  }
  sm_read_opts_t ro = read_opts(o);
  ro.v0 = v0;
  ro.vcount = vc;
  ro.f0 = f0;
  ro.fcount = fc;
  return sm_read_input(o->input, o->input_format, &ro, v, dims);
}

static void describe(const sm_options_t *o, char *desc, size_t len)
{
  if (o->synth.kind != SM_SYNTH_NONE)
    snprintf(desc, len, "synthetic %s (seed %llu%s)",
             o->synth.kind == SM_SYNTH_ANALYTIC ? "analytic" : "random",
             (unsigned long long)o->synth.seed,
             o->synth.missing_rate > 0 ? ", missing calls" : "");
  else
    snprintf(desc, len, "%s", o->input);
}

/* Sizes of the whole problem: rank 0 looks (a one-vector read), every rank
 * gets the answer. */
static sm_err_t problem_dims(const sm_options_t *o, sm_dims_t *dims)
{
  struct {
    int err;
    sm_dims_t dims;
  } msg = {0};
  if (sm_mpi_rank() == 0) {
    sm_vectors_t probe = {0};
    msg.err = load(o, 0, 1, 0, 1, &probe, &msg.dims);
    sm_vectors_free(&probe);
  }
  sm_mpi_bcast(&msg, sizeof msg);
  *dims = msg.dims;
  return (sm_err_t)msg.err;
}

/* What must not change between a run and its --resume (the tile size is
 * recorded apart: an automatic one is taken over from the manifest). */
static void fingerprint(const sm_options_t *o, const sm_decomp_t *d, int sparse,
                        int rank, int P, char *buf, size_t len)
{
  char input[4200];
  if (o->synth.kind != SM_SYNTH_NONE) {
    snprintf(input, sizeof input, "synthetic=%d seed=%llu missing=%.17g", (int)o->synth.kind,
             (unsigned long long)o->synth.seed, o->synth.missing_rate);
  } else {
    struct stat sb;
    char bed[4200];
    const char *path = o->input;
    if (o->input_format == SM_INPUT_PLINK) {
      snprintf(bed, sizeof bed, "%s.bed", o->input);
      if (stat(o->input, &sb) != 0)
        path = bed;
    }
    if (stat(path, &sb) != 0)
      sb.st_size = -1, sb.st_mtime = 0;
    snprintf(input, sizeof input, "input=%s size=%lld mtime=%lld", o->input,
             (long long)sb.st_size, (long long)sb.st_mtime);
  }
  snprintf(buf, len,
           "metric=%d way=%d single=%d sparse=%d nv=%zu nf=%zu %s grid=%dx%dx%d rank=%d/%d "
           "phases=%d:%d-%d stages=%d:%d-%d threshold=%.17g format=%d g=%.17g m=%.17g "
           "kernel=%d",
           (int)o->metric, o->num_way, o->single, sparse, d->nv, d->nf, input, d->npv, d->npf,
           d->npr, rank, P, d->num_phase, o->phase_min, o->phase_max, o->num_stage,
           o->stage_min, o->stage_max, o->threshold, (int)o->output_format, o->ccc_param,
           o->ccc_mult, (int)o->kernel);
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static sm_err_t make_decomp(const sm_options_t *o, const sm_dims_t *dims, sm_decomp_t *d)
{
  const int P = sm_mpi_size();
  d->nv = dims->nv;
  d->nf = dims->nf;
  d->npf = o->npf ? o->npf : 1;
  d->npr = o->npr ? o->npr : 1;
  d->npv = o->npv ? o->npv : (P % (d->npf * d->npr) == 0 ? P / (d->npf * d->npr) : 0);
  d->num_phase = o->num_phase;
  d->block_size = o->block_size ? o->block_size : 1;
  if (d->npv == 0) {
    if (sm_mpi_rank() == 0)
      sm_log_error("%d ranks cannot be split into --num-proc-field %d x --num-proc-repl "
                   "%d; choose factors of the rank count", P, d->npf, d->npr);
    return SM_EOPTION;
  }
  sm_err_t err = SM_OK;
  if (sm_mpi_rank() == 0)
    err = sm_decomp_check(d, P);
  return (sm_err_t)sm_mpi_agree(err);
}

int sm_compute_main(const sm_options_t *o, const char *command)
{
  double t0 = sm_now();
  const int me = sm_mpi_rank(), P = sm_mpi_size();
  sm_log_set_quiet(o->quiet || me != 0);
  char desc[4096];
  describe(o, desc, sizeof desc);
  if (P > 1 && o->method == SM_METHOD_REF) {
    if (me == 0)
      sm_log_error("--compute-method ref runs on one rank (run it without mpirun)");
    return SM_EOPTION;
  }
  sm_dims_t dims;
  sm_err_t err = problem_dims(o, &dims);
  if (err)
    return err;
  if (dims.nv < (size_t)o->num_way) {
    if (me == 0)
      sm_log_error("%s: %zu vector%s: %d-way metrics need at least %d vectors", desc,
                   dims.nv, dims.nv == 1 ? "" : "s", o->num_way, o->num_way);
    return SM_EDEGEN;
  }
  if (dims.nv > UINT32_MAX || (o->metric == SM_METRIC_CCC && dims.nf > (1u << 28))) {
    if (me == 0)
      sm_log_error("%s: %zu vectors x %zu fields is beyond what starmet indexes "
                   "(2^32 - 1 vectors; CCC: 2^28 fields)", desc, dims.nv, dims.nf);
    return SM_EDEGEN;
  }
  sm_decomp_t d;
  if ((err = make_decomp(o, &dims, &d)))
    return err;
  int pv, pf, pr;
  sm_decomp_coords(&d, me, &pv, &pf, &pr);

  /* this rank's slice */
  size_t v0, vc, f0, fc;
  sm_decomp_part(&d, pv, &v0, &vc);
  sm_decomp_slice(&d, pf, &f0, &fc);
  sm_vectors_t v = {0};
  err = (sm_err_t)sm_mpi_agree(load(o, v0, vc, f0, fc, &v, NULL));
  if (err) {
    sm_vectors_free(&v);
    return err;
  }
  double t_input = sm_now() - t0;
  /* sparse when any slice has missing calls */
  uint64_t nmissing = pr == 0 ? v.nmissing : 0;
  sm_mpi_sum_u64(&nmissing, 1);
  int sparse = 0;
  if (o->metric == SM_METRIC_CCC) {
    sparse = o->sparse < 0 ? nmissing > 0 : o->sparse;
    if (o->sparse < 0 && sparse)
      sm_log_info("%s has %llu missing calls: using the sparse CCC method", desc,
                  (unsigned long long)nmissing);
    else if (!sparse && nmissing && me == 0)
      sm_log_warn("%s has %llu missing calls but --no-sparse was given: dense CCC "
                  "counts them as one copy of allele 1", desc, (unsigned long long)nmissing);
  }
  /* names of every vector, for text output */
  char **names = NULL;
  if (o->output_format == SM_OUT_TSV) {
    int have = v.names != NULL;
    have = sm_mpi_agree(have);
    if (have && (err = sm_mpi_allgather_names(v.names, v0, vc, pf == 0 && pr == 0, d.nv,
                                               &names))) {
      sm_vectors_free(&v);
      return err;
    }
  }

  /* output */
  char out_path[4096] = "", json_path[4096] = "";
  sm_writer_info_t wi = {
      .fmt = o->output_format,
      .way = o->num_way,
      .metric = o->metric,
      .single = o->single,
      .nv = d.nv,
      .nf = d.nf,
      .names = names,
  };
  if (o->output && o->output_format != SM_OUT_NONE)
    sm_output_path(out_path, sizeof out_path, o->output, o->output_format, me, P);
  if (o->summary)
    snprintf(json_path, sizeof json_path, "%s", o->summary);
  else if (o->output)
    snprintf(json_path, sizeof json_path, "%s.json", o->output);
  /* --resume: what an interrupted run completed (every rank must know all
   * of it, since the graph is submitted whole on every rank) */
  sm_manifest_t man = {0};
  int use_man = out_path[0] && o->method != SM_METHOD_REF, resumed = 0;
  uint64_t *skip = NULL, resume_off = 0, resume_count = 0;
  size_t nskip = 0;
  if (use_man) {
    char mpath[4200], fp[8192];
    sm_manifest_path(mpath, sizeof mpath, o->output, me, P);
    fingerprint(o, &d, sparse, me, P, fp, sizeof fp);
    size_t bs = o->block_size;
    err = sm_manifest_open(&man, mpath, fp, o->resume, &bs, &resumed);
    double rbs = resumed ? (double)bs : 0;
    sm_mpi_max_double(&rbs, 1);
    if (rbs > 0 && !o->block_size)
      d.block_size = (size_t)rbs; /* the interrupted run's automatic tile size */
    else if (rbs > 0 && (size_t)rbs != o->block_size && !err) {
      sm_log_error("%s: the interrupted run used --block-size %zu, not %zu", mpath,
                   (size_t)rbs, o->block_size);
      err = SM_EINCONSIST;
    }
    uint64_t *ids = man.ndone ? malloc(man.ndone * sizeof *ids) : NULL;
    for (size_t k = 0; k < man.ndone && ids; k++) {
      ids[k] = man.done[k].block;
      if (man.done[k].end_off > resume_off)
        resume_off = man.done[k].end_off;
      resume_count += man.done[k].count;
    }
    err = (sm_err_t)sm_mpi_agree(err ? err : (man.ndone && !ids ? SM_ENOMEM : SM_OK));
    if (!err)
      err = (sm_err_t)sm_mpi_agree(sm_mpi_allgather_u64(ids, ids ? man.ndone : 0, &skip, &nskip));
    free(ids);
    if (!err && nskip) {
      qsort(skip, nskip, sizeof *skip, cmp_u64);
      sm_log_info("--resume: %zu output blocks were complete; computing the rest", nskip);
    } else if (!err && o->resume) {
      sm_log_info("--resume: no completed block recorded; computing everything");
    }
  }
  sm_writer_t *w = NULL;
  if (!err)
    err = (sm_err_t)sm_mpi_agree(sm_writer_open(&w, out_path, &wi, resume_off, resume_count));
  if (!err && use_man && !resume_off) {
    uint64_t hdr;
    int fd;
    err = sm_writer_flush(w, &hdr, &fd);
    man.block_size = d.block_size;
    if (!err && !resumed)
      err = sm_manifest_header(&man, hdr);
    err = (sm_err_t)sm_mpi_agree(err);
  }
  if (err) {
    /* a refused or failed start leaves an interrupted run's files alone */
    sm_writer_close(w, resumed ? -1 : 0);
    sm_manifest_close(&man, 0);
    free(skip);
    sm_vectors_free(&v);
    for (size_t i = 0; names && i < d.nv; i++)
      free(names[i]);
    free(names);
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
      .progress = me == 0 && (o->progress < 0 ? isatty(2) && !o->quiet : o->progress),
      .t_start = sm_now(),
      .manifest = use_man ? &man : NULL,
  };
  for (size_t k = 0; k < man.ndone; k++) { /* what the interrupted run did */
    sm_cksum_merge(&sink.cksum, &man.done[k].cksum);
    sink.nvalues += man.done[k].nvalues;
    sink.nwritten += man.done[k].count;
  }
  sm_summary_t sum = {
      .opt = o,
      .command = command,
      .input_desc = desc,
      .nv = d.nv,
      .nf = d.nf,
      .sparse = sparse,
      .nmissing = (size_t)nmissing,
      .nranks = P,
      .decomp = &d,
      .phase_min = o->phase_min,
      .phase_max = o->phase_max,
      .t_input = t_input,
  };
  sm_graph_stats_t gs = {0};
  sm_runtime_stats_t rs = {0}, *rts = NULL;
  double t1 = sm_now();
  if (o->method == SM_METHOD_REF) {
    sink.apply_threshold = 1;
    sum.kernel = "reference loops";
    sm_ref_opts_t ro = {.way = o->num_way, .sparse = sparse, .ccc_mult = o->ccc_mult,
                        .ccc_param = o->ccc_param};
    err = sm_ref_run(&v, &ro, &sink);
    sum.t_compute = sm_now() - t1;
  } else {
    sm_sched_configure(&(sm_sched_opts_t){.priorities = !o->no_priorities,
                                           .calibrate = o->calibrate,
                                           .perfmodel_dir = o->perfmodel_dir});
    sm_codelets_set_devices(o->devices); /* before heteroprio's set-up */
    err = (sm_err_t)sm_mpi_agree(sm_runtime_init(o->sched, P > 1));
    sum.t_init = sm_now() - t1;
    if (!err) {
      const int progress = sink.progress; /* the observer counts tasks instead */
      sink.progress = 0;
      sm_codelets_init(P > 1, o->kernel);
      sm_codelets_set_resilience(o->verify, o->inject_rate, o->inject_seed);
      sm_codelets_set_devices(o->devices);
      if (!(o->devices & STARPU_CPU) && starpu_opencl_worker_get_count() +
                                                starpu_cuda_worker_get_count() == 0) {
        sm_log_error("--devices accel: StarPU has no CUDA or OpenCL worker here (for a CPU "
                     "OpenCL device set STARPU_OPENCL_ON_CPUS=1 and STARPU_NOPENCL=1)");
        err = SM_ERUNTIME;
      }
      sum.kernel = sm_codelets_kernel_name(
          o->num_way == 3 ? (o->metric == SM_METRIC_CCC ? "ccc3" : "czek3")
                          : (o->metric == SM_METRIC_CCC ? "ccc2" : (o->single ? "czek2_s" : "czek2_d")));
      int emit = o->output_format != SM_OUT_NONE || sink.analytic != NULL;
      if (!o->block_size) { /* rank 0 decides, every rank uses it */
        size_t bs = o->num_way == 3 ? sm_graph_auto_block3(vc)
                                    : sm_graph_auto_block(vc, (int)starpu_worker_get_count(),
                                                          emit, o->metric == SM_METRIC_CCC);
        sm_mpi_bcast(&bs, sizeof bs);
        d.block_size = bs;
      }
      sm_graph_opts_t go = {
          .d = &d,
          .rank = me,
          .use_mpi = P > 1,
          .phase_min = o->phase_min,
          .phase_max = o->phase_max,
          .num_stage = o->num_stage,
          .stage_min = o->stage_min,
          .stage_max = o->stage_max,
          .single = o->single,
          .sparse = sparse,
          .ccc_mult = o->ccc_mult,
          .ccc_param = o->ccc_param,
          .threshold = o->threshold,
          .thr_f32 = sink.thr_f32,
          .emit = emit,
          .keep_all = sink.analytic != NULL,
          .prio = sm_sched_prio_mode(),
      };
      sink.apply_threshold = go.keep_all;
      sum.prio_mode = go.prio;
      go.skip = skip;
      go.nskip = nskip;
      err = sm_observe_start(o->trace != NULL, progress);
      if (!err)
        err = o->num_way == 3 ? sm_graph3_run(&v, &go, &sink, &gs)
                              : sm_graph2_run(&v, &go, &sink, &gs);
      sum.t_compute = gs.t_run;
      sm_runtime_collect(&rs);
      sm_observe_stop(&rs);
      sm_runtime_shutdown();
      /* every rank's workers and codelets, the trace, calibration */
      sm_err_t oerr = sm_observe_gather(&rs, &rts);
      if (!oerr && o->trace && sm_mpi_agree(err) == SM_OK)
        oerr = sm_trace_write(o->trace, rts);
      sm_observe_free();
      if (rts)
        sm_observe_report_calibration(rts, P);
      if (!err)
        err = oerr;
      sum.graph = &gs;
      sum.rt = &rs;
      sum.rts = rts;
    }
  }
  /* gather what every rank did */
  sm_rank_stats_t mine = {
      .cksum = sink.cksum,
      .nvalues = sink.nvalues,
      .nwritten = sink.nwritten,
      .nchecked = sink.nchecked,
      .nbad = sink.nbad,
      .subblocks = gs.my_subblocks,
      .pairs = gs.my_pairs,
      .outputs = gs.my_outputs,
      .mpi_bytes = rs.mpi_bytes,
      .bus_bytes = rs.bus_bytes,
      .t_compute = sum.t_compute,
      .max_rel_err = sink.max_rel_err,
      .nworkers = rs.nworkers,
  };
  sm_resilience_stats_t rst = {0};
  if (o->method != SM_METHOD_REF)
    sm_codelets_resilience_stats(&rst);
  mine.checks = rst.checks;
  mine.failures = rst.failures;
  mine.reexecuted = rst.reexecuted;
  mine.injected = rst.injected;
  if (!err && rst.unrecovered) {
    sm_log_error("output block %llu still fails its checks after re-executing its tasks "
                 "%d times: the hardware may be faulty (rank %d)",
                 (unsigned long long)rst.unrecovered_block, 5, me);
    err = SM_ECHECK;
  }
  sm_rank_stats_t *all = me == 0 ? calloc((size_t)P, sizeof *all) : NULL;
  sm_rank_stats_t dummy[1];
  sm_mpi_gather_bytes(&mine, sizeof mine, all ? all : dummy);
  if (all)
    for (int r = 0; r < P; r++) {
      sm_rank_stats_t *x = &all[r];
      sm_cksum_merge(&sum.total.cksum, &x->cksum);
      sum.total.nvalues += x->nvalues;
      sum.total.nwritten += x->nwritten;
      sum.total.nchecked += x->nchecked;
      sum.total.nbad += x->nbad;
      sum.total.mpi_bytes += x->mpi_bytes;
      sum.total.checks += x->checks;
      sum.total.failures += x->failures;
      sum.total.reexecuted += x->reexecuted;
      sum.total.injected += x->injected;
      if (x->max_rel_err > sum.total.max_rel_err)
        sum.total.max_rel_err = x->max_rel_err;
      if (x->t_compute > sum.t_compute)
        sum.t_compute = x->t_compute;
    }
  sum.ranks = all;
  if (!err && sink.nbad) {
    sm_log_error("analytic problem: %llu of %llu values differ from the closed form",
                 (unsigned long long)sink.nbad, (unsigned long long)sink.nchecked);
    err = SM_ECHECK;
  }
  err = (sm_err_t)sm_mpi_agree(err);
  double t2 = sm_now();
  /* on failure, the partial output and its manifest stay for --resume
   * (a ".part" file never looks complete) */
  sm_err_t cerr = (sm_err_t)sm_mpi_agree(sm_writer_close(w, err == SM_OK ? 1 : use_man ? -1 : 0));
  if (!err)
    err = cerr;
  sm_manifest_close(&man, err == SM_OK);
  free(skip);
  sum.t_output = sm_now() - t2;
  sum.t_total = sm_now() - t0;
  sum.output_path = err == SM_OK && out_path[0] ? out_path : NULL;
  if (P > 1 && sum.output_path) /* name the set of files */
    sm_output_path(out_path, sizeof out_path, o->output, o->output_format, -1, P);
  sum.status = err == SM_OK ? "ok" : sm_strerror(err);
  if (me == 0) {
    if (json_path[0]) {
      sm_err_t jerr = sm_summary_write_json(&sum, json_path);
      if (!err)
        err = jerr;
    }
    sm_summary_print(&sum, stdout);
  }
  free(all);
  free(rts);
  sm_vectors_free(&v);
  for (size_t i = 0; names && i < d.nv; i++)
    free(names[i]);
  free(names);
  return sm_mpi_agree(err);
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
