/* test_graph.c: the 2-way task graph on real StarPU workers against the
 * reference implementation: CCC tallies (and so values) bit-identical and
 * Czekanowski within 1e-12 for every block size, worker count (STARPU_NCPU
 * 1 and 2) and scheduler (eager, lws, dmda); bit-identical run to run. */
#include <math.h>
#include <starpu.h>

#include "sm_formulas.h"
#include "sm_codelets.h"
#include "sm_graph.h"
#include "sm_ref.h"
#include "sm_runtime.h"
#include "sm_test.h"

typedef struct problem {
  const char *name;
  sm_metric_t metric;
  int single, sparse;
  double miss;
} problem_t;

static const problem_t problems[] = {
    {"ccc dense", SM_METRIC_CCC, 0, 0, 0.0},
    {"ccc sparse", SM_METRIC_CCC, 0, 1, 0.1},
    {"ccc dense with missing", SM_METRIC_CCC, 0, 0, 0.1},
    {"czek double", SM_METRIC_CZEK, 0, 0, 0.0},
    {"czek single", SM_METRIC_CZEK, 1, 0, 0.0},
};

static sm_sink_t new_sink(const problem_t *p)
{
  sm_sink_t s = {.way = 2,
                 .metric = p->metric,
                 .single = p->single,
                 .sparse = p->sparse,
                 .ccc_mult = SM_CCC_MULT_DEFAULT,
                 .ccc_param = SM_CCC_PARAM_DEFAULT,
                 .threshold = -1};
  return s;
}

static int cmp_rec3(const void *a, const void *b)
{
  const sm_rec_t *x = a, *y = b;
  for (int k = 0; k < 3; k++)
    if (x->idx[k] != y->idx[k])
      return x->idx[k] < y->idx[k] ? -1 : 1;
  return (int)x->entry - (int)y->entry;
}

static int cmp_rec(const void *a, const void *b)
{
  const sm_rec_t *x = a, *y = b;
  for (int k = 0; k < 2; k++)
    if (x->idx[k] != y->idx[k])
      return x->idx[k] < y->idx[k] ? -1 : 1;
  return (int)x->entry - (int)y->entry;
}

/* real-valued random data: [0,1) doubles that are not dyadic */
static void make_problem(const problem_t *p, size_t nv, size_t nf, sm_vectors_t *v)
{
  sm_synth_t syn = {.kind = SM_SYNTH_RANDOM,
                    .metric = p->metric,
                    .nv = nv,
                    .nf = nf,
                    .seed = 7,
                    .missing_rate = p->miss};
  ck_assert_int_eq(sm_synth_make(&syn, p->single ? 4 : 8, 0, 0, 0, 0, v), SM_OK);
  if (p->metric == SM_METRIC_CZEK && !p->single)
    for (size_t i = 0; i < nv; i++)
      for (size_t q = 0; q < nf; q++)
        ((double *)sm_vectors_row(v, i))[q] *= 1.0 + 1e-3 * sin((double)(i * nf + q));
}

static sm_sink_t run_graph(const problem_t *p, const sm_vectors_t *v, size_t bs,
                           const char *sched, const char *ncpu)
{
  setenv("STARPU_NCPU", ncpu, 1);
  ck_assert_int_eq(sm_runtime_init(sched, 0), SM_OK);
  ck_assert_int_eq((int)starpu_cpu_worker_get_count(), atoi(ncpu));
  sm_codelets_init(0, SM_KERNEL_AUTO);
  sm_sink_t s = new_sink(p);
  sm_decomp_t d = {.nv = v->nv,
                   .nf = v->nf,
                   .npv = 1,
                   .npf = 1,
                   .npr = 1,
                   .block_size = bs,
                   .num_phase = 1};
  sm_graph_opts_t o = {.d = &d,
                       .single = p->single,
                       .sparse = p->sparse,
                       .ccc_mult = SM_CCC_MULT_DEFAULT,
                       .ccc_param = SM_CCC_PARAM_DEFAULT,
                       .threshold = -1,
                       .emit = 1,
                       .prio = 1};
  sm_graph_stats_t st;
  ck_assert_int_eq(sm_graph2_run(v, &o, &s, &st), SM_OK);
  size_t t = (v->nv + bs - 1) / bs;
  ck_assert_uint_eq(st.nblocks, t * (t + 1) / 2);
  sm_runtime_shutdown();
  return s;
}

START_TEST(graph_vs_ref)
{
  const problem_t *p = &problems[_i];
  const size_t nv = 61, nf = 133;
  sm_vectors_t v;
  make_problem(p, nv, nf, &v);
  sm_sink_t ref = new_sink(p);
  sm_ref_opts_t ro = {.way = 2,
                      .sparse = p->sparse,
                      .ccc_mult = SM_CCC_MULT_DEFAULT,
                      .ccc_param = SM_CCC_PARAM_DEFAULT};
  ck_assert_int_eq(sm_ref_run(&v, &ro, &ref), SM_OK);
  qsort(ref.capture, ref.capture_n, sizeof(sm_rec_t), cmp_rec);
  static const size_t bss[] = {1, 7, 61};
  static const char *const scheds[] = {"eager", "lws", "dmda"};
  static const char *const ncpus[] = {"1", "2"};
  sm_rec_t *first = NULL;
  for (int b = 0; b < 3; b++)
    for (int sc = 0; sc < 3; sc++)
      for (int c = 0; c < 2; c++) {
        if (bss[b] == 1 && sc != 0) /* tiny tiles: one scheduler is enough */
          continue;
        sm_sink_t s = run_graph(p, &v, bss[b], scheds[sc], ncpus[c]);
        ck_assert_uint_eq(s.capture_n, ref.capture_n);
        qsort(s.capture, s.capture_n, sizeof(sm_rec_t), cmp_rec);
        for (size_t r = 0; r < s.capture_n; r++) {
          const sm_rec_t *x = &s.capture[r], *y = &ref.capture[r];
          ck_assert(cmp_rec(x, y) == 0);
          if (p->metric == SM_METRIC_CCC)
            ck_assert_msg(x->value == y->value,
                          "%s bs=%zu %s ncpu=%s (%u,%u,%u): %.17g vs %.17g", p->name,
                          bss[b], scheds[sc], ncpus[c], x->idx[0], x->idx[1], x->entry,
                          x->value, y->value);
          else
            ck_assert_msg(
                fabs(x->value - y->value) <= (p->single ? 1e-5 : 1e-12) * fabs(y->value),
                "%s bs=%zu: %.17g vs %.17g", p->name, bss[b], x->value, y->value);
        }
        /* same block size: bit-identical whatever the scheduler and workers */
        if (bss[b] == 7) {
          if (!first) {
            first = s.capture;
            s.capture = NULL;
          } else {
            for (size_t r = 0; r < s.capture_n; r++)
              ck_assert_msg(s.capture[r].value == first[r].value, "%s not reproducible",
                            p->name);
          }
        }
        sm_sink_capture_free(&s);
      }
  free(first);
  sm_sink_capture_free(&ref);
  sm_vectors_free(&v);
}
END_TEST

START_TEST(graph_analytic_and_tiny)
{
  /* two vectors, one field: the smallest problem; and the analytic check */
  for (int metric = 0; metric < 2; metric++) {
    sm_synth_t syn = {
        .kind = SM_SYNTH_ANALYTIC, .metric = (sm_metric_t)metric, .seed = 3};
    static const size_t sizes[][2] = {{2, 1}, {3, 64}, {50, 100}};
    for (int z = 0; z < 3; z++) {
      syn.nv = sizes[z][0];
      syn.nf = sizes[z][1];
      sm_vectors_t v;
      ck_assert_int_eq(sm_synth_make(&syn, 8, 0, 0, 0, 0, &v), SM_OK);
      problem_t p = {"analytic", syn.metric, 0, 0, 0};
      setenv("STARPU_NCPU", "2", 1);
      ck_assert_int_eq(sm_runtime_init(NULL, 0), SM_OK);
      sm_codelets_init(0, SM_KERNEL_AUTO);
      sm_sink_t s = new_sink(&p);
      s.analytic = &syn;
      s.writer = NULL;
      sm_decomp_t d = {.nv = v.nv,
                       .nf = v.nf,
                       .npv = 1,
                       .npf = 1,
                       .npr = 1,
                       .block_size = 16,
                       .num_phase = 1};
      sm_graph_opts_t o = {.d = &d,
                           .ccc_mult = SM_CCC_MULT_DEFAULT,
                           .ccc_param = SM_CCC_PARAM_DEFAULT,
                           .threshold = -1,
                           .emit = 1,
                           .keep_all = 1};
      sm_graph_stats_t st;
      ck_assert_int_eq(sm_graph2_run(&v, &o, &s, &st), SM_OK);
      sm_runtime_shutdown();
      ck_assert_uint_eq(s.nchecked, syn.nv * (syn.nv - 1) / 2 * (metric ? 4 : 1));
      ck_assert_uint_eq(s.nbad, 0);
      sm_sink_capture_free(&s);
      sm_vectors_free(&v);
    }
  }
}
END_TEST

/* 3-way graph vs the reference, odd sizes, several tile sizes and stages */
START_TEST(graph3_vs_ref)
{
  const problem_t *p = &problems[_i];
  const size_t nv = 23, nf = 71;
  sm_vectors_t v;
  make_problem(p, nv, nf, &v);
  sm_sink_t ref = new_sink(p);
  ref.way = 3;
  sm_ref_opts_t ro = {.way = 3,
                      .sparse = p->sparse,
                      .ccc_mult = SM_CCC_MULT_DEFAULT,
                      .ccc_param = SM_CCC_PARAM_DEFAULT};
  ck_assert_int_eq(sm_ref_run(&v, &ro, &ref), SM_OK);
  qsort(ref.capture, ref.capture_n, sizeof(sm_rec_t), cmp_rec3);
  static const size_t bss[] = {4, 7, 23};
  for (int b = 0; b < 3; b++)
    for (int nst = 1; nst <= 2; nst++) {
      setenv("STARPU_NCPU", "2", 1);
      ck_assert_int_eq(sm_runtime_init("lws", 0), SM_OK);
      sm_codelets_init(0, SM_KERNEL_AUTO);
      sm_sink_t s = new_sink(p);
      s.way = 3;
      sm_decomp_t d = {.nv = nv,
                       .nf = nf,
                       .npv = 1,
                       .npf = 1,
                       .npr = 1,
                       .block_size = bss[b],
                       .num_phase = 1};
      sm_graph_opts_t o = {.d = &d,
                           .single = p->single,
                           .sparse = p->sparse,
                           .ccc_mult = SM_CCC_MULT_DEFAULT,
                           .ccc_param = SM_CCC_PARAM_DEFAULT,
                           .threshold = -1,
                           .emit = 1,
                           .prio = 1,
                           .num_stage = nst,
                           .stage_max = nst - 1};
      sm_graph_stats_t st;
      ck_assert_int_eq(sm_graph3_run(&v, &o, &s, &st), SM_OK);
      sm_runtime_shutdown();
      ck_assert_uint_eq(s.capture_n, ref.capture_n);
      qsort(s.capture, s.capture_n, sizeof(sm_rec_t), cmp_rec3);
      for (size_t r = 0; r < s.capture_n; r++) {
        const sm_rec_t *x = &s.capture[r], *y = &ref.capture[r];
        ck_assert(cmp_rec3(x, y) == 0);
        if (p->metric == SM_METRIC_CCC)
          ck_assert_msg(x->value == y->value, "%s bs=%zu (%u,%u,%u,%u): %.17g vs %.17g",
                        p->name, bss[b], x->idx[0], x->idx[1], x->idx[2], x->entry,
                        x->value, y->value);
        else
          ck_assert_msg(fabs(x->value - y->value) <=
                            (p->single ? 1e-5 : 1e-12) * fabs(y->value),
                        "%s bs=%zu: %.17g vs %.17g", p->name, bss[b], x->value, y->value);
      }
      sm_sink_capture_free(&s);
    }
  sm_sink_capture_free(&ref);
  sm_vectors_free(&v);
}
END_TEST

/* The automatic 2-way tile size: CPU workers share many tiles, bounded by
 * the record buffers; GPUs get a few large tiles each. */
START_TEST(auto_block)
{
  /* 2 CPU workers: ceil(sqrt(32)) = 6 tiles a side */
  ck_assert_uint_eq(sm_graph_auto_block(600, 2, 0, 1, 1, 0), 100);
  ck_assert_uint_eq(sm_graph_auto_block(40000, 2, 0, 1, 1, 0),
                    507); /* CCC records: 512 at most */
  ck_assert_uint_eq(sm_graph_auto_block(40000, 2, 0, 1, 0, 0),
                    1000); /* Czekanowski: 1024 */
  ck_assert_uint_eq(sm_graph_auto_block(40000, 2, 0, 0, 1, 0),
                    2000); /* no records: 2048 */
  ck_assert_uint_eq(sm_graph_auto_block(50, 2, 0, 1, 1, 0), 16);
  /* with GPUs: ceil(sqrt(4 g)) tiles a side, at least 512 (or every vector) */
  ck_assert_uint_eq(sm_graph_auto_block(40000, 3, 1, 1, 1, 0), 1000);
  ck_assert_uint_eq(sm_graph_auto_block(40000, 3, 1, 0, 1, 0), 4000);
  ck_assert_uint_eq(sm_graph_auto_block(6000, 10, 8, 0, 1, 0), 512);
  ck_assert_uint_eq(sm_graph_auto_block(30000, 42, 6, 0, 1, 0), 2143); /* 14 tiles */
  ck_assert_uint_eq(sm_graph_auto_block(3000, 10, 8, 0, 1, 0), 512);
  ck_assert_uint_eq(sm_graph_auto_block(300, 3, 1, 1, 1, 0), 300);
  /* CPU tiles: a numerator buffer of 8 MiB at most (16 bytes a pair: sparse
   * CCC, 724; 8: double Czekanowski, 1024), GPU tiles unbounded by it;
   * every size evened out over the tiles it needs (40000 / 56, 40) */
  ck_assert_uint_eq(sm_graph_auto_block(40000, 2, 0, 0, 1, 16), 715);
  ck_assert_uint_eq(sm_graph_auto_block(40000, 2, 0, 0, 0, 8), 1000);
  ck_assert_uint_eq(sm_graph_auto_block(40000, 2, 0, 1, 1, 4), 507);
  ck_assert_uint_eq(sm_graph_auto_block(4000, 2, 0, 0, 1, 16), 667);
  ck_assert_uint_eq(sm_graph_auto_block(40000, 3, 1, 0, 1, 16), 4000);
  ck_assert_uint_eq(sm_graph_auto_block(16000, 2, 0, 0, 1, 4),
                    1334); /* 12, not 11 + 72 */
  ck_assert_uint_eq(sm_graph_auto_block(28501, 2, 0, 0, 1, 16), 713);
}
END_TEST

static Suite *graph_suite(void)
{
  Suite *s = suite_create("graph");
  TCase *tc = tcase_create("graph2");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, graph_vs_ref, 0, (int)(sizeof problems / sizeof problems[0]));
  tcase_add_test(tc, graph_analytic_and_tiny);
  tcase_add_test(tc, auto_block);
  tcase_add_loop_test(tc, graph3_vs_ref, 0, (int)(sizeof problems / sizeof problems[0]));
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(graph_suite)
