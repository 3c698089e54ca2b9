/* test_gpu.c: which CUDA devices a rank takes (sm_gpu.h) as plain
 * arithmetic: for every local size 1..16, device count 0..40 and local
 * rank, the split of the devices against its definition (a partition in
 * balanced contiguous blocks when there are enough devices, otherwise one
 * device each with balanced sharers, named exactly); the launcher variables
 * in their documented order, Slurm's task lists, malformed values; the
 * plan of a process without MPI. */
#include <stdlib.h>

#include "sm_gpu.h"
#include "sm_test.h"

/* ---- the split */

/* Every rank's choice for (size, ndev), checked against the definition. */
static void check_split(int size, int ndev)
{
  sm_gpu_choice_t c[16];
  int owner[64], sharers[64];
  for (int d = 0; d < 64; d++)
    owner[d] = -1, sharers[d] = 0;
  int minn = 1 << 30, maxn = -1;
  for (int r = 0; r < size; r++) {
    ck_assert_int_eq(sm_gpu_choose(r, size, ndev, &c[r]), 0);
    const int n = c[r].ndev;
    if (ndev == 0) {
      ck_assert_int_eq(n, 0);
      ck_assert_int_eq(c[r].shared, 0);
      continue;
    }
    ck_assert_int_ge(n, 1);
    if (n < minn)
      minn = n;
    if (n > maxn)
      maxn = n;
    for (int k = 0; k < n; k++) {
      const int d = c[r].dev[k];
      ck_assert_int_ge(d, 0);
      ck_assert_int_lt(d, ndev);
      if (k)
        ck_assert_int_eq(d, c[r].dev[k - 1] + 1); /* a contiguous block */
      if (r)
        ck_assert_int_ge(d, c[r - 1].dev[0]); /* in rank order */
      sharers[d]++;
      if (owner[d] < 0)
        owner[d] = r;
    }
  }
  if (ndev == 0)
    return;
  for (int d = 0; d < ndev; d++)
    ck_assert_msg(sharers[d] >= 1, "size %d ndev %d: device %d unused", size, ndev, d);
  if (ndev >= size) {
    /* a partition: each device once, blocks within one of each other, the
     * larger ones first */
    for (int d = 0; d < ndev; d++)
      ck_assert_msg(sharers[d] == 1, "size %d ndev %d: device %d taken %d times", size,
                    ndev, d, sharers[d]);
    ck_assert_int_le(maxn - minn, 1);
    for (int r = 1; r < size; r++)
      ck_assert_int_le(c[r].ndev, c[r - 1].ndev);
    for (int r = 0; r < size; r++) {
      ck_assert_int_eq(c[r].shared, 0);
      ck_assert_int_eq(c[r].peer_first, r);
      ck_assert_int_eq(c[r].peer_last, r);
    }
    return;
  }
  /* fewer devices than ranks: one each, as many sharers as possible on
   * each device within one of each other, and the peers named exactly */
  int mins = 1 << 30, maxs = 0;
  for (int d = 0; d < ndev; d++) {
    if (sharers[d] < mins)
      mins = sharers[d];
    if (sharers[d] > maxs)
      maxs = sharers[d];
  }
  ck_assert_int_le(maxs - mins, 1);
  for (int r = 0; r < size; r++) {
    ck_assert_int_eq(c[r].ndev, 1);
    const int d = c[r].dev[0];
    int first = -1, last = -1;
    for (int q = 0; q < size; q++)
      if (c[q].dev[0] == d) {
        if (first < 0)
          first = q;
        last = q;
      }
    ck_assert_msg(c[r].peer_first == first && c[r].peer_last == last,
                  "size %d ndev %d rank %d: peers %d-%d, not %d-%d", size, ndev, r,
                  c[r].peer_first, c[r].peer_last, first, last);
    ck_assert_int_eq(c[r].shared, sharers[d] > 1);
  }
}

START_TEST(split_all_cases)
{
  for (int size = 1; size <= 16; size++)
    for (int ndev = 0; ndev <= 40; ndev++)
      check_split(size, ndev);
}
END_TEST

/* The devices of rank r of size among ndev, as text. */
static const char *devs(int r, int size, int ndev)
{
  static char buf[4][256];
  static int k;
  char *b = buf[k++ & 3];
  sm_gpu_choice_t c;
  ck_assert_int_eq(sm_gpu_choose(r, size, ndev, &c), 0);
  sm_gpu_format(&c, b, sizeof buf[0]);
  return b;
}

START_TEST(split_examples)
{
  /* one rank takes every device; one per rank; 8 on 3 */
  ck_assert_str_eq(devs(0, 1, 4), "0,1,2,3");
  ck_assert_str_eq(devs(0, 4, 4), "0");
  ck_assert_str_eq(devs(3, 4, 4), "3");
  ck_assert_str_eq(devs(0, 3, 8), "0,1,2");
  ck_assert_str_eq(devs(1, 3, 8), "3,4,5");
  ck_assert_str_eq(devs(2, 3, 8), "6,7");
  ck_assert_str_eq(devs(1, 2, 8), "4,5,6,7");
  /* 4 ranks on 2 devices, 2 on 1, 3 on 2 */
  ck_assert_str_eq(devs(0, 4, 2), "0");
  ck_assert_str_eq(devs(1, 4, 2), "0");
  ck_assert_str_eq(devs(2, 4, 2), "1");
  ck_assert_str_eq(devs(3, 4, 2), "1");
  sm_gpu_choice_t c;
  ck_assert_int_eq(sm_gpu_choose(1, 2, 1, &c), 0);
  ck_assert(c.shared && c.peer_first == 0 && c.peer_last == 1 && c.dev[0] == 0);
  ck_assert_int_eq(sm_gpu_choose(2, 3, 2, &c), 0);
  ck_assert(!c.shared && c.dev[0] == 1 && c.peer_first == 2 && c.peer_last == 2);
  ck_assert_int_eq(sm_gpu_choose(1, 3, 2, &c), 0);
  ck_assert(c.shared && c.dev[0] == 0 && c.peer_first == 0 && c.peer_last == 1);
  /* no device: nothing, nobody shares */
  ck_assert_str_eq(devs(1, 2, 0), "");
  /* more devices than one rank can name */
  ck_assert_int_eq(sm_gpu_choose(0, 1, 100, &c), 0);
  ck_assert_int_eq(c.ndev, SM_GPU_MAX);
  ck_assert_int_eq(c.dev[SM_GPU_MAX - 1], SM_GPU_MAX - 1);
  /* out of range: refused, no device */
  ck_assert_int_eq(sm_gpu_choose(2, 2, 4, &c), -1);
  ck_assert_int_eq(c.ndev, 0);
  ck_assert_int_eq(sm_gpu_choose(-1, 2, 4, &c), -1);
  ck_assert_int_eq(sm_gpu_choose(0, 0, 4, &c), -1);
  ck_assert_int_eq(sm_gpu_choose(0, 2, -1, &c), -1);
  /* the text is cut, never overrun */
  char small[4];
  ck_assert_int_eq(sm_gpu_choose(0, 1, 12, &c), 0);
  sm_gpu_format(&c, small, sizeof small);
  ck_assert_str_eq(small, "0,1");
}
END_TEST

/* ---- the launcher's variables */

typedef struct {
  const char *vars[24][2];
} env_t;

static const char *env_lookup(const char *name, void *ctx)
{
  const env_t *e = ctx;
  for (int k = 0; k < 24 && e->vars[k][0]; k++)
    if (!strcmp(e->vars[k][0], name))
      return e->vars[k][1];
  return NULL;
}

/* Local rank and size from e: "rank/size from" or "none". */
static const char *local_of(const env_t *e, const char **bad)
{
  static char buf[128];
  sm_gpu_local_t l;
  if (!sm_gpu_local_from_env(env_lookup, (void *)e, &l, bad)) {
    ck_assert(l.rank == 0 && l.size == 1 && !l.from[0]);
    return "none";
  }
  snprintf(buf, sizeof buf, "%d/%d %s", l.rank, l.size, l.from);
  return buf;
}

START_TEST(launcher_variables)
{
  const char *bad;
  env_t none = {{{NULL}}};
  ck_assert_str_eq(local_of(&none, &bad), "none");
  ck_assert_ptr_null(bad);
  /* each launcher alone */
  env_t ompi = {
      {{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}};
  ck_assert_str_eq(local_of(&ompi, NULL), "1/2 OMPI_COMM_WORLD_LOCAL_RANK");
  env_t mv2 = {{{"MV2_COMM_WORLD_LOCAL_RANK", "3"}, {"MV2_COMM_WORLD_LOCAL_SIZE", "4"}}};
  ck_assert_str_eq(local_of(&mv2, NULL), "3/4 MV2_COMM_WORLD_LOCAL_RANK");
  env_t hydra = {{{"MPI_LOCALRANKID", "0"}, {"MPI_LOCALNRANKS", "8"}}};
  ck_assert_str_eq(local_of(&hydra, NULL), "0/8 MPI_LOCALRANKID");
  env_t pmi = {{{"PMI_LOCAL_RANK", "5"}, {"PMI_LOCAL_SIZE", "6"}}};
  ck_assert_str_eq(local_of(&pmi, NULL), "5/6 PMI_LOCAL_RANK");
  env_t pals = {{{"PALS_LOCAL_RANKID", "2"}, {"PALS_LOCAL_SIZE", "4"}}};
  ck_assert_str_eq(local_of(&pals, NULL), "2/4 PALS_LOCAL_RANKID");
  env_t jsm = {{{"JSM_NAMESPACE_LOCAL_RANK", "1"}, {"JSM_NAMESPACE_LOCAL_SIZE", "6"}}};
  ck_assert_str_eq(local_of(&jsm, NULL), "1/6 JSM_NAMESPACE_LOCAL_RANK");
  /* Slurm: the node's entry of the step's list, else the job's */
  env_t slurm = {{{"SLURM_LOCALID", "2"},
                  {"SLURM_NODEID", "2"},
                  {"SLURM_STEP_TASKS_PER_NODE", "4(x2),3"},
                  {"SLURM_TASKS_PER_NODE", "8(x3)"}}};
  ck_assert_str_eq(local_of(&slurm, NULL), "2/3 SLURM_LOCALID");
  env_t slurm_job = {
      {{"SLURM_LOCALID", "5"}, {"SLURM_NODEID", "1"}, {"SLURM_TASKS_PER_NODE", "8(x3)"}}};
  ck_assert_str_eq(local_of(&slurm_job, NULL), "5/8 SLURM_LOCALID");

  /* the documented order: mpirun inside a Slurm job, and the others */
  env_t both = {{{"SLURM_LOCALID", "0"},
                 {"SLURM_NODEID", "0"},
                 {"SLURM_TASKS_PER_NODE", "1"},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", "3"},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
                 {"MPI_LOCALRANKID", "1"},
                 {"MPI_LOCALNRANKS", "2"}}};
  ck_assert_str_eq(local_of(&both, NULL), "3/4 OMPI_COMM_WORLD_LOCAL_RANK");
  env_t hydra_slurm = {{{"SLURM_LOCALID", "0"},
                        {"SLURM_NODEID", "0"},
                        {"SLURM_TASKS_PER_NODE", "1"},
                        {"PALS_LOCAL_RANKID", "1"},
                        {"PALS_LOCAL_SIZE", "2"},
                        {"MPI_LOCALRANKID", "1"},
                        {"MPI_LOCALNRANKS", "3"}}};
  ck_assert_str_eq(local_of(&hydra_slurm, NULL), "1/3 MPI_LOCALRANKID");

  /* malformed or inconsistent pairs are skipped, the first one named */
  env_t out_of_range = {{{"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                         {"MPI_LOCALRANKID", "1"},
                         {"MPI_LOCALNRANKS", "2"}}};
  ck_assert_str_eq(local_of(&out_of_range, &bad), "1/2 MPI_LOCALRANKID");
  ck_assert_str_eq(bad, "OMPI_COMM_WORLD_LOCAL_RANK");
  const char *junk[] = {"", "x", "1x", "-1", " 1", "99999999999"};
  for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++) {
    env_t e = {{{"PMI_LOCAL_RANK", junk[k]}, {"PMI_LOCAL_SIZE", "4"}}};
    ck_assert_str_eq(local_of(&e, &bad), "none");
    ck_assert_str_eq(bad, "PMI_LOCAL_RANK");
    env_t f = {{{"PMI_LOCAL_RANK", "0"}, {"PMI_LOCAL_SIZE", junk[k]}}};
    ck_assert_str_eq(local_of(&f, &bad), "none");
  }
  env_t no_size = {{{"MV2_COMM_WORLD_LOCAL_RANK", "0"}}};
  ck_assert_str_eq(local_of(&no_size, &bad), "none");
  ck_assert_str_eq(bad, "MV2_COMM_WORLD_LOCAL_RANK");
  env_t slurm_no_node = {{{"SLURM_LOCALID", "0"}, {"SLURM_TASKS_PER_NODE", "2"}}};
  ck_assert_str_eq(local_of(&slurm_no_node, &bad), "none");
  ck_assert_str_eq(bad, "SLURM_LOCALID");
  env_t slurm_past = {
      {{"SLURM_LOCALID", "0"}, {"SLURM_NODEID", "3"}, {"SLURM_TASKS_PER_NODE", "2(x3)"}}};
  ck_assert_str_eq(local_of(&slurm_past, &bad), "none");
}
END_TEST

START_TEST(slurm_lists)
{
  const int want[] = {2, 2, 2, 1};
  for (int n = 0; n < 4; n++)
    ck_assert_int_eq(sm_gpu_slurm_tasks("2(x3),1", n), want[n]);
  ck_assert_int_eq(sm_gpu_slurm_tasks("2(x3),1", 4), -1);
  ck_assert_int_eq(sm_gpu_slurm_tasks("16", 0), 16);
  ck_assert_int_eq(sm_gpu_slurm_tasks("1,2,3", 2), 3);
  ck_assert_int_eq(sm_gpu_slurm_tasks("4(x2),3(x2),1", 4), 1);
  ck_assert_int_eq(sm_gpu_slurm_tasks("4(x2),3(x2),1", 3), 3);
  const char *bad[] = {"", "a", "2(x0)", "2(y3)", "2(x3", "4,,2", "4;2", "2(x)", "-1"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    ck_assert_msg(sm_gpu_slurm_tasks(bad[k], 1) == -1, "'%s' accepted", bad[k]);
  ck_assert_int_eq(sm_gpu_slurm_tasks(NULL, 0), -1);
  ck_assert_int_eq(sm_gpu_slurm_tasks("2", -1), -1);
}
END_TEST

/* ---- the plan of a process without MPI (this program does not start it) */

START_TEST(plan_without_mpi)
{
  unsetenv("STARPU_WORKERS_CUDAID");
  unsetenv("STARPU_NCUDA");
  unsetenv("CUDA_VISIBLE_DEVICES");
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1); /* alone without MPI whatever */
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1); /* the launcher said */
  sm_gpu_plan_t p;
  char b[64];
  sm_gpu_plan(4, &p);
  ck_assert(p.local.rank == 0 && p.local.size == 1);
  ck_assert_str_eq(p.local.from, "no MPI");
  ck_assert_int_eq(p.applied, 1);
  sm_gpu_format(&p.choice, b, sizeof b);
  ck_assert_str_eq(b, "0,1,2,3");
  ck_assert_int_eq(p.visible, 4);
  sm_gpu_plan(0, &p);
  ck_assert_int_eq(p.choice.ndev, 0);
  ck_assert_str_eq(p.how, "none (no CUDA device visible)");
  sm_gpu_plan(-1, &p);
  ck_assert_int_eq(p.applied, 0);
  ck_assert_str_eq(p.how, "no CUDA in this build");
  /* the user's own choices are left alone */
  setenv("STARPU_WORKERS_CUDAID", "1", 1);
  sm_gpu_plan(4, &p);
  ck_assert(!p.applied && p.choice.ndev == 0 && strstr(p.how, "STARPU_WORKERS_CUDAID"));
  unsetenv("STARPU_WORKERS_CUDAID");
  setenv("STARPU_NCUDA", "0", 1);
  sm_gpu_plan(4, &p);
  ck_assert(!p.applied && strstr(p.how, "STARPU_NCUDA=0"));
  setenv("STARPU_NCUDA", "1", 1); /* StarPU takes one of them */
  sm_gpu_plan(4, &p);
  ck_assert(p.applied && p.choice.ndev == 4);
  unsetenv("STARPU_NCUDA");
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}
END_TEST

static Suite *gpu_suite(void)
{
  Suite *s = suite_create("gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, split_all_cases);
  tcase_add_test(tc, split_examples);
  tcase_add_test(tc, launcher_variables);
  tcase_add_test(tc, slurm_lists);
  tcase_add_test(tc, plan_without_mpi);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(gpu_suite)
