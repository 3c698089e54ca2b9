/* sm_observe.c: task observation through the codelet layer's hooks: a
 * callback per task reads its profiling info (worker, start, end), adds it
 * to its codelet's figures and, with --trace, to the task's record; the
 * progress line is printed from there too. */
#include "sm_observe.h"

#include <math.h>
#include <pthread.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_codelets.h"
#include "sm_mpi.h"
#include "sm_sched.h"

/* Trace records live in chunks allocated at insertion, so that a callback
 * never sees memory move under it. */
#define CHUNK_BITS 14
#define CHUNK_LEN ((uint64_t)1 << CHUNK_BITS)
#define MAX_CHUNKS ((uint64_t)1 << 16)

typedef struct codelet_slot {
  const struct starpu_codelet *cl;
  sm_codelet_stats_t st;
} codelet_slot_t;

static struct {
  int active, trace, progress;
  /* whether tasks' model predictions are asked for: only where they matter
   * (a policy that schedules by them, or --calibrate), since asking makes
   * StarPU warn about, and calibrate, every model short of samples */
  int ask_models;
  pthread_mutex_t mu;
  int32_t block[3];
  double epoch_us, last_print_us;
  uint64_t done, expected, ninserted, uncalibrated;
  int trace_lost;
  int ncl;
  codelet_slot_t cl[SM_MAX_CODELETS];
  sm_task_rec_t *chunk[MAX_CHUNKS];
  /* per task number, what on_started learns and on_done reads: cal 0 not
   * seen, 1 calibrated, 2 without a calibrated model; the task's work
   * (sm_cl_work: its data may be gone by the time on_done runs); and its
   * block, from insertion */
  struct job_note {
    uint8_t cal;
    int32_t block[3];
    double work;
  } * job;
  size_t njob;
  /* what each worker runs (--task-timeout names the tasks that hang) */
  struct running {
    int on;
    uint64_t id;
    double start_us;
    const char *codelet;
  } running[STARPU_NMAXWORKERS];
} obs = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* The note of task id, the table grown to hold it (under obs.mu); NULL
 * when memory is short. */
static struct job_note *note_of(size_t jid)
{
  if (jid >= obs.njob) {
    size_t n = obs.njob ? obs.njob : 4096;
    while (n <= jid)
      n *= 2;
    struct job_note *p = realloc(obs.job, n * sizeof *p);
    if (!p)
      return NULL;
    memset(p + obs.njob, 0, (n - obs.njob) * sizeof *p);
    obs.job = p;
    obs.njob = n;
  }
  return &obs.job[jid];
}

static sm_task_rec_t *rec_at(uint64_t id)
{
  uint64_t c = id >> CHUNK_BITS;
  if (c >= MAX_CHUNKS || !obs.chunk[c])
    return NULL;
  return &obs.chunk[c][id & (CHUNK_LEN - 1)];
}

static void on_inserted(uint64_t id)
{
  pthread_mutex_lock(&obs.mu); /* tasks may be inserted from workers too */
  if (id >= obs.ninserted)
    obs.ninserted = id + 1;
  struct job_note *note = note_of((size_t)id);
  if (note)
    memcpy(note->block, obs.block, sizeof note->block);
  uint64_t c = id >> CHUNK_BITS;
  if (obs.trace && c < MAX_CHUNKS && !obs.chunk[c])
    obs.chunk[c] = malloc(CHUNK_LEN * sizeof(sm_task_rec_t));
  sm_task_rec_t *r = obs.trace ? rec_at(id) : NULL;
  if (r)
    *r = (sm_task_rec_t){.id = id,
                         .i = obs.block[0],
                         .j = obs.block[1],
                         .k = obs.block[2],
                         .worker = -1,
                         .codelet = -1};
  else if (obs.trace)
    obs.trace_lost = 1;
  pthread_mutex_unlock(&obs.mu);
}

/* Index of t's codelet in obs.cl, added on first sight; -1 (not an error
 * code) when the table is full: the task then goes uncounted. */
static int slot_of(const struct starpu_task *t)
{
  for (int s = 0; s < obs.ncl; s++)
    if (obs.cl[s].cl == t->cl)
      return s;
  if (obs.ncl == SM_MAX_CODELETS)
    return -1;
  codelet_slot_t *c = &obs.cl[obs.ncl];
  c->cl = t->cl;
  snprintf(c->st.name, sizeof c->st.name, "%s", t->cl && t->cl->name ? t->cl->name : "?");
  snprintf(c->st.kind, sizeof c->st.kind, "%s", t->name ? t->name : "?");
  c->st.min_s = INFINITY;
  return obs.ncl++;
}

/* The progress line: at most twice a second, and once at the end. */
static void print_progress(double now_us, int last)
{
  double el = (now_us - obs.epoch_us) * 1e-6;
  double rate = el > 0 ? (double)obs.done / el : 0;
  if (obs.expected) {
    double frac = (double)obs.done / (double)obs.expected;
    if (frac > 1)
      frac = 1;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    fprintf(stderr, "\rstarmet: %llu/%llu tasks  %5.1f%%  %.4g tasks/s  ETA %.0f s   ",
            (unsigned long long)obs.done, (unsigned long long)obs.expected, 100 * frac,
            rate, eta);
  } else {
    fprintf(stderr, "\rstarmet: %llu tasks  %.4g tasks/s   ",
            (unsigned long long)obs.done, rate);
  }
  if (last)
    fprintf(stderr, "\n");
  obs.last_print_us = now_us;
}

/* A task is about to run on this worker, its data handles still
 * registered: whether StarPU can predict its time, i.e. whether its model
 * has the samples StarPU wants (STARPU_CALIBRATE_MINIMUM, 10) for its size
 * on this worker type. */
static void on_started(void)
{
  struct starpu_task *t = starpu_task_get_current();
  const int worker = starpu_worker_get_id();
  if (!t || !t->cl || !t->cl->model || worker < 0)
    return;
  struct starpu_perfmodel_arch *arch =
      starpu_worker_get_perf_archtype(worker, t->sched_ctx);
  const int uncal =
      obs.ask_models &&
      isnan(starpu_task_expected_length(t, arch, starpu_task_get_implementation(t)));
  const double work = sm_cl_work(t);
  /* the task's number (StarPU's job ids are all 0 unless tracing is on) */
  const size_t jid = (size_t)sm_codelets_task_number(t);
  pthread_mutex_lock(&obs.mu);
  struct job_note *note = note_of(jid);
  if (note) {
    note->cal = (uint8_t)(1 + uncal);
    note->work = work;
  }
  if (worker < STARPU_NMAXWORKERS)
    obs.running[worker] = (struct running){
        .on = 1, .id = jid, .start_us = starpu_timing_now(), .codelet = t->cl->name};
  pthread_mutex_unlock(&obs.mu);
}

static void on_done(uint64_t id)
{
  struct starpu_task *t = starpu_task_get_current();
  if (!t)
    return;
  struct starpu_profiling_task_info *pi = t->profiling_info;
  int worker = pi ? pi->workerid : starpu_worker_get_id();
  double start = 0, end = 0;
  if (pi) {
    start = (starpu_timing_timespec_to_us(&pi->start_time) - obs.epoch_us) * 1e-6;
    end = (starpu_timing_timespec_to_us(&pi->end_time) - obs.epoch_us) * 1e-6;
  }
  const size_t jid = (size_t)id;
  double now = starpu_timing_now();
  pthread_mutex_lock(&obs.mu);
  const int uncal = jid < obs.njob && obs.job[jid].cal == 2;
  const double work = jid < obs.njob ? obs.job[jid].work : 0;
  int s = slot_of(t);
  if (s >= 0) {
    sm_codelet_stats_t *c = &obs.cl[s].st;
    double d = end - start;
    c->count++;
    c->uncalibrated += (uint64_t)uncal;
    c->uncalibrated_s += uncal ? d : 0;
    c->total_s += d;
    c->work += work;
    c->min_s = d < c->min_s ? d : c->min_s;
    c->max_s = d > c->max_s ? d : c->max_s;
  }
  obs.uncalibrated += (uint64_t)uncal;
  obs.done++;
  if (worker >= 0 && worker < STARPU_NMAXWORKERS)
    obs.running[worker].on = 0;
  sm_task_rec_t *r = obs.trace ? rec_at(id) : NULL;
  if (r) {
    r->worker = (int16_t)worker;
    r->codelet = (int16_t)s;
    r->priority = t->priority;
    r->start_s = start;
    r->end_s = end;
  }
  if (obs.progress && now - obs.last_print_us > 5e5)
    print_progress(now, 0);
  pthread_mutex_unlock(&obs.mu);
}

sm_err_t sm_observe_start(int trace, int progress)
{
  sm_observe_free();
  pthread_mutex_lock(&obs.mu);
  obs.active = 1;
  obs.ask_models = sm_sched_uses_models(sm_sched_policy_name()) || sm_sched_calibrating();
  obs.trace = trace;
  obs.progress = progress;
  obs.block[0] = obs.block[1] = obs.block[2] = -1;
  obs.done = obs.expected = obs.ninserted = obs.uncalibrated = 0;
  obs.trace_lost = 0;
  obs.ncl = 0;
  memset(obs.running, 0, sizeof obs.running);
  memset(obs.cl, 0, sizeof obs.cl);
  pthread_mutex_unlock(&obs.mu);
  sm_err_t err = (sm_err_t)sm_mpi_agree(SM_OK); /* ranks start together */
  sm_runtime_reset_counters();
  obs.epoch_us = obs.last_print_us = starpu_timing_now();
  sm_codelets_observe(on_inserted, on_started, on_done);
  sm_runtime_set_running_report(sm_observe_report_running);
  return err;
}

void sm_observe_block(int i, int j, int k)
{
  obs.block[0] = i;
  obs.block[1] = j;
  obs.block[2] = k;
}

void sm_observe_expect(uint64_t ntasks)
{
  obs.expected = ntasks;
}

void sm_observe_stop(sm_runtime_stats_t *st)
{
  sm_codelets_observe(NULL, NULL, NULL);
  pthread_mutex_lock(&obs.mu);
  if (obs.active && obs.progress)
    print_progress(starpu_timing_now(), 1);
  st->ncodelets = obs.ncl;
  for (int s = 0; s < obs.ncl; s++) {
    st->cl[s] = obs.cl[s].st;
    if (!st->cl[s].count)
      st->cl[s].min_s = 0;
  }
  st->tasks_done = obs.done;
  st->uncalibrated = obs.uncalibrated;
  obs.active = 0;
  pthread_mutex_unlock(&obs.mu);
  if (obs.trace_lost)
    sm_log_warn("--trace: out of memory for task records: the trace misses tasks");
}

int sm_observe_report_running(double min_s)
{
  const double now = starpu_timing_now();
  int n = 0;
  pthread_mutex_lock(&obs.mu);
  for (int w = 0; w < STARPU_NMAXWORKERS; w++) {
    const struct running *r = &obs.running[w];
    if (!r->on || now - r->start_us < min_s * 1e6)
      continue;
    char name[64] = "?";
    if (w < (int)starpu_worker_get_count())
      starpu_worker_get_name(w, name, sizeof name);
    const struct job_note *note = r->id < obs.njob ? &obs.job[r->id] : NULL;
    char blk[96] = "";
    if (note && note->block[0] >= 0)
      snprintf(blk, sizeof blk, ", block of tiles (%d, %d%s", (int)note->block[0],
               (int)note->block[1], note->block[2] >= 0 ? ", " : ")");
    if (note && note->block[0] >= 0 && note->block[2] >= 0)
      snprintf(blk + strlen(blk), sizeof blk - strlen(blk), "%d)", (int)note->block[2]);
    sm_log_error("task %llu of codelet %s%s has been running on %s for %.1f s",
                 (unsigned long long)r->id, r->codelet ? r->codelet : "?", blk, name,
                 (now - r->start_us) * 1e-6);
    n++;
  }
  pthread_mutex_unlock(&obs.mu);
  return n;
}

const sm_task_rec_t *sm_observe_record(uint64_t id)
{
  return rec_at(id);
}

uint64_t sm_observe_ninserted(void)
{
  return obs.ninserted;
}

void sm_observe_free(void)
{
  for (uint64_t c = 0; c < MAX_CHUNKS; c++) {
    free(obs.chunk[c]);
    obs.chunk[c] = NULL;
  }
  free(obs.job);
  obs.job = NULL;
  obs.njob = 0;
}

sm_err_t sm_observe_gather(const sm_runtime_stats_t *mine, sm_runtime_stats_t **all)
{
  const int me = sm_mpi_rank(), P = sm_mpi_size();
  sm_runtime_stats_t *buf = me == 0 ? calloc((size_t)P, sizeof *buf) : NULL;
  if (sm_mpi_agree(me == 0 && !buf ? SM_ENOMEM : SM_OK)) {
    free(buf);
    *all = NULL;
    return SM_ENOMEM;
  }
  sm_mpi_gather_bytes(mine, sizeof *mine, buf);
  *all = buf;
  return SM_OK;
}

int sm_observe_merge_codelets(const sm_runtime_stats_t *all, int nranks,
                              sm_codelet_stats_t *out, int max)
{
  int n = 0;
  for (int r = 0; r < nranks; r++)
    for (int s = 0; s < all[r].ncodelets; s++) {
      const sm_codelet_stats_t *c = &all[r].cl[s];
      int k = 0;
      while (k < n && strcmp(out[k].name, c->name))
        k++;
      if (k == n) {
        if (n == max)
          continue;
        out[n++] = *c;
        continue;
      }
      out[k].count += c->count;
      out[k].uncalibrated += c->uncalibrated;
      out[k].uncalibrated_s += c->uncalibrated_s;
      out[k].total_s += c->total_s;
      out[k].work += c->work;
      out[k].min_s = c->min_s < out[k].min_s ? c->min_s : out[k].min_s;
      out[k].max_s = c->max_s > out[k].max_s ? c->max_s : out[k].max_s;
    }
  return n;
}

/* Share of the task time whose model was not calibrated above which a
 * model-based schedule is not representative (tiny tasks, such as output,
 * keep losing their models to StarPU's outlier flushing and do not count). */
#define SM_UNCALIBRATED_MAX 0.05

void sm_observe_report_calibration(const sm_runtime_stats_t *all, int nranks)
{
  sm_codelet_stats_t cl[SM_MAX_CODELETS];
  int n = sm_observe_merge_codelets(all, nranks, cl, SM_MAX_CODELETS);
  uint64_t unc = 0, total = 0;
  double unc_s = 0, total_s = 0;
  char names[512] = "";
  for (int k = 0; k < n; k++) {
    unc += cl[k].uncalibrated;
    total += cl[k].count;
    unc_s += cl[k].uncalibrated_s;
    total_s += cl[k].total_s;
    if (cl[k].uncalibrated) {
      if (names[0])
        strncat(names, ", ", sizeof names - strlen(names) - 1);
      strncat(names, cl[k].name, sizeof names - strlen(names) - 1);
    }
  }
  const double frac = total_s > 0 ? unc_s / total_s : 0;
  const char *dir = sm_sched_perfmodel_dir();
  if (sm_sched_calibrating()) {
    if (frac > SM_UNCALIBRATED_MAX)
      sm_log_info("calibration: %llu of %llu tasks (%.0f%% of the task time) ran before "
                  "their model had enough samples (%s): run --calibrate again (models in "
                  "%s)",
                  (unsigned long long)unc, (unsigned long long)total, 100 * frac, names,
                  dir);
    else
      sm_log_info("calibration: the models cover %.0f%% of the task time of this problem "
                  "(models in %s)",
                  100 * (1 - frac), dir);
  } else if (frac > SM_UNCALIBRATED_MAX && sm_sched_uses_models(all[0].sched)) {
    sm_log_warn("policy %s ran %llu of %llu tasks (%.0f%% of the task time) without a "
                "calibrated performance model (%s), so StarPU placed them to calibrate, "
                "not to be fast: run with --calibrate first (models in %s)",
                all[0].sched, (unsigned long long)unc, (unsigned long long)total,
                100 * frac, names, dir);
  }
}
