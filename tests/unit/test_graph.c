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
  /* 3-way, CPUs: tiles of 16..64, raised by 16 for short problems until a
   * tile triple is worth a task (at least 3 tiles): 1.3e8 comparisons, a
   * millisecond of the CCC kernels */
  ck_assert_uint_eq(sm_graph_auto_block3(800, 8192, 0, 1.3e8), 64);
  ck_assert_uint_eq(sm_graph_auto_block3(200, 8192, 0, 1.3e8), 32);
  ck_assert_uint_eq(sm_graph_auto_block3(200, 1 << 20, 0, 1.3e8), 16);
  ck_assert_uint_eq(sm_graph_auto_block3(60, 100, 0, 1.3e8), 16);
  ck_assert_uint_eq(sm_graph_auto_block3(300, 2000, 0, 1.3e8),
                    48);                                        /* 32^3 x 2000 short */
  ck_assert_uint_eq(sm_graph_auto_block3(200, 8192, 0, 0), 16); /* no least work */
  /* Czekanowski double, ~1e10 comparisons/s: a millisecond is 1e7, which
   * 16^3 x 4000 already is (the whole-tile waste of diagonal blocks kept
   * small) */
  ck_assert_uint_eq(sm_graph_auto_block3(200, 4000, 0, 1e7), 16);
  for (size_t nv = 3; nv < 3000; nv += 37)
    for (size_t nf = 1; nf < 100000; nf = nf * 3 + 1)
      for (double w = 1e6; w < 1e10; w *= 10) {
        const size_t bs = sm_graph_auto_block3(nv, nf, 0, w);
        ck_assert(bs >= 16 && bs <= 64 && bs % 16 == 0);
        ck_assert(bs == 16 || bs == 64 || (double)bs * bs * bs * nf >= w ||
                  bs + 16 > nv / 3);
        ck_assert(bs >= sm_graph_auto_block3(nv, nf, 0, 0)); /* only raised */
      }
  /* 3-way, GPUs: tiles of 256..1024 (a Summit-like node: 6 GPUs) */
  ck_assert_uint_eq(sm_graph_auto_block3(6000, 8192, 6, 1.3e8), 512);
  ck_assert_uint_eq(sm_graph_auto_block3(100000, 8192, 6, 1.3e8), 1024);
  ck_assert_uint_eq(sm_graph_auto_block3(2000, 8192, 6, 1.3e8), 256);
  ck_assert_uint_eq(sm_graph_auto_block3(100, 8192, 6, 1.3e8), 100); /* one tile */
  /* planes per task: GPUs get millions of triples (2^20 with records, 2^23
   * without), CPUs 2^16 / 2^18 or a millisecond's work */
  ck_assert_uint_eq(sm_graph_plane_group(1, 6, 8192, 512, 512), 4);
  ck_assert_uint_eq(sm_graph_plane_group(0, 6, 8192, 512, 512), 32);
  ck_assert_uint_eq(sm_graph_plane_group(1, 0, 8192, 64, 64), 16);
  ck_assert_uint_eq(sm_graph_plane_group(0, 0, 8192, 64, 64), 64);
  ck_assert_uint_eq(sm_graph_plane_group(0, 0, 100, 16, 16), 5078);
  ck_assert_uint_eq(sm_graph_plane_group(1, 0, 100, 1024, 1024), 1);
}
END_TEST

/* The task grain: defaults per family, and the 2-way tile raised for short
 * vectors to a least work per task within the buffers' bounds. */
START_TEST(grain_rules)
{
  sm_grain_t g;
  sm_grain_default(&g, 2, 1, 1, 0); /* sparse CCC: 1.3e11/s, tasks of 2 ms */
  ck_assert_str_eq(g.source, "default");
  ck_assert(fabs(g.rate - 1.3e11) < 1 && fabs(g.target - 2e-3) < 1e-12);
  ck_assert(fabs(g.min_work - 2.6e8) < 1);
  sm_grain_default(&g, 3, 0, 0, 1); /* 3-way single Czekanowski: 1 ms */
  ck_assert(fabs(g.target - 1e-3) < 1e-12 && g.rate > 0 && g.min_work == g.rate * 1e-3);
  sm_grain_default(&g, 2, 0, 0, 0);
  ck_assert(g.rate > 0 && g.overhead > 0 && g.target >= SM_GRAIN_K * g.overhead);
  /* large problems: the buffers' bounds decide, as without a least work */
  ck_assert_uint_eq(sm_graph_auto_block_cost(28501, 1000, 2, 0, 0, 1, 16, 2.6e8), 713);
  ck_assert_uint_eq(sm_graph_auto_block_cost(40000, 1000, 2, 0, 1, 1, 16, 2.6e8), 507);
  /* 3000 sparse CCC vectors of 1000 samples: 6 tiles of 500 are tasks of
   * 2.5e8 comparisons; 5 tiles of 600 reach 2.6e8 */
  ck_assert_uint_eq(sm_graph_auto_block_cost(3000, 1000, 2, 0, 0, 1, 16, 0), 500);
  ck_assert_uint_eq(sm_graph_auto_block_cost(3000, 1000, 2, 0, 0, 1, 16, 2.6e8), 600);
  /* the bounds alone: numerators 8 MiB (sparse CCC: 724), records (CCC
   * 512, Czekanowski 1024), GPUs their own */
  ck_assert_uint_eq(sm_graph_auto_block_cap(0, 0, 1, 16), 724);
  ck_assert_uint_eq(sm_graph_auto_block_cap(0, 1, 1, 16), 512);
  ck_assert_uint_eq(sm_graph_auto_block_cap(0, 1, 0, 8), 1024);
  ck_assert_uint_eq(sm_graph_auto_block_cap(2, 1, 1, 16), 1024);
  /* a threshold's records are records: 100000 x 1000 stays at 511 */
  ck_assert_uint_eq(sm_graph_auto_block_cost(100000, 1000, 2, 0, 1, 1, 16, 2.6e8), 511);
  /* ... unless the records bound them (512 with CCC records) */
  ck_assert_uint_eq(sm_graph_auto_block_cost(3000, 1000, 2, 0, 1, 1, 16, 2.6e8), 500);
  /* 100 fields: the numerator budget (724) */
  ck_assert_uint_eq(sm_graph_auto_block_cost(3000, 100, 2, 0, 0, 1, 16, 2.6e8), 600);
  ck_assert_uint_eq(sm_graph_auto_block_cost(20000, 100, 2, 0, 0, 1, 16, 2.6e8), 715);
  /* small problems: 4 tile pairs per worker at least (4 tiles for 2) */
  ck_assert_uint_eq(sm_graph_auto_block_cost(400, 500, 2, 0, 0, 1, 16, 2.6e8), 100);
  ck_assert_uint_eq(sm_graph_auto_block_cost(800, 8192, 2, 0, 0, 1, 16, 7e8), 200);
  ck_assert_uint_eq(sm_graph_auto_block(800, 2, 0, 0, 1, 16), 134); /* 6 tiles */
  /* GPUs: their own rules */
  ck_assert_uint_eq(sm_graph_auto_block_cost(40000, 1000, 3, 1, 1, 1, 0, 1e12), 1000);
  for (size_t nv = 1; nv < 60000; nv = nv * 5 / 4 + 1)
    for (size_t nf = 1; nf < 200000; nf = nf * 4 + 1)
      for (int emit = 0; emit < 2; emit++)
        for (double w = 1e6; w < 1e11; w *= 10) {
          const size_t pb = 16, old = sm_graph_auto_block(nv, 2, 0, emit, 1, pb),
                       bs = sm_graph_auto_block_cost(nv, nf, 2, 0, emit, 1, pb, w);
          const size_t cap = sm_graph_auto_block_cap(0, emit, 1, pb);
          ck_assert_uint_eq(cap, emit ? 512 : 724);
          ck_assert_uint_ge(bs, old); /* only raised */
          ck_assert(bs <= cap || bs <= 16 || bs == nv);
          /* below the least work only where a bound or the vectors stop it */
          const size_t n = (nv + bs - 1) / bs;
          ck_assert((double)bs * bs * nf >= w * 0.999 || bs >= nv ||
                    (double)cap * cap * nf < w || (nv + n - 2) / (n - 1) > cap || n <= 4);
          ck_assert(n >= 4 || bs <= 16 || n == (nv + old - 1) / old); /* balance */
        }
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
  tcase_add_test(tc, grain_rules);
  tcase_add_loop_test(tc, graph3_vs_ref, 0, (int)(sizeof problems / sizeof problems[0]));
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(graph_suite)
