/* bench/kernels.c: the machine's physical limits for starmet's 2-way
 * kernels, measured with small instruction loops (SIMD min+add in single and
 * double precision, AND+popcount+add on 64-bit words, int8 multiply-adds
 * with VNNI and AMX), and the rate of every 2-way CPU kernel this CPU runs,
 * on one core and on all cores at once (one kernel call per thread, as
 * StarPU's CPU workers do). Prints CSV rows:
 *   what,name,threads,rate,unit,detail,ratio,rate_wall
 * rate from the threads' CPU time (machines are shared: time slices taken
 * by other programs are left out), rate_wall from wall time; ratio
 * (kernels): the kernel's best rate over its limit's best, the limit
 * measured in the limit table and again between the kernel's repetitions.
 * `bench/run` turns them into the README table. Not a test. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kern_finalize_simd.h"
#include "sm_cpu.h"
#include "sm_kern_simd.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---------------------------------------------------------------- limits
 * Each loop runs `it` iterations of independent chains whose operands stay
 * in registers and returns the operations done (element min+add pairs,
 * 64-bit words ANDed and popcounted, or int8 multiply-adds). */
#if defined(__x86_64__) && defined(__GNUC__)
#define ZMM_CLOBBERS                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",        \
      "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",   \
      "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",   \
      "xmm28", "xmm29", "xmm30", "xmm31"
#define YMM_CLOBBERS                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",        \
      "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* acc_k += min(a_k, b): zmm0-11 accumulators, zmm12-23 operands, zmm31 b */
#define MA(op, t, a, acc)                                                                \
  "vmin" op " %%zmm31, %%zmm" #a ", %%zmm" #t "\n\tvadd" op " %%zmm" #t ", %%zmm" #acc   \
  ", %%zmm" #acc "\n\t"
/* clang-format off */
#define MA12(op)                                                                         \
  MA(op, 24, 12, 0) MA(op, 25, 13, 1) MA(op, 26, 14, 2) MA(op, 27, 15, 3)                \
  MA(op, 28, 16, 4) MA(op, 29, 17, 5) MA(op, 24, 18, 6) MA(op, 25, 19, 7)                \
  MA(op, 26, 20, 8) MA(op, 27, 21, 9) MA(op, 28, 22, 10) MA(op, 29, 23, 11)
/* clang-format on */

__attribute__((target("avx512f"))) static double lim_minadd_zmm_s(long it)
{
  __asm__ volatile("vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
                   "1:\n\t" MA12("ps") "dec %0\n\tjnz 1b"
                   : "+r"(it)::ZMM_CLOBBERS);
  return 0;
}
__attribute__((target("avx512f"))) static double lim_minadd_zmm_d(long it)
{
  __asm__ volatile("vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
                   "1:\n\t" MA12("pd") "dec %0\n\tjnz 1b"
                   : "+r"(it)::ZMM_CLOBBERS);
  return 0;
}

/* ymm: accumulators ymm0-7, operands ymm8-11, b ymm15, temporaries 12-14 */
#define MY(op, t, a, acc)                                                                \
  "vmin" op " %%ymm15, %%ymm" #a ", %%ymm" #t "\n\tvadd" op " %%ymm" #t ", %%ymm" #acc   \
  ", %%ymm" #acc "\n\t"
/* clang-format off */
#define MY8(op)                                                                          \
  MY(op, 12, 8, 0) MY(op, 13, 9, 1) MY(op, 14, 10, 2) MY(op, 12, 11, 3)                  \
  MY(op, 13, 8, 4) MY(op, 14, 9, 5) MY(op, 12, 10, 6) MY(op, 13, 11, 7)
/* clang-format on */

__attribute__((target("avx2"))) static double lim_minadd_ymm_s(long it)
{
  __asm__ volatile("vxorps %%ymm15, %%ymm15, %%ymm15\n\t"
                   "1:\n\t" MY8("ps") "dec %0\n\tjnz 1b"
                   : "+r"(it)::YMM_CLOBBERS);
  return 0;
}
__attribute__((target("avx2"))) static double lim_minadd_ymm_d(long it)
{
  __asm__ volatile("vxorps %%ymm15, %%ymm15, %%ymm15\n\t"
                   "1:\n\t" MY8("pd") "dec %0\n\tjnz 1b"
                   : "+r"(it)::YMM_CLOBBERS);
  return 0;
}

/* t = a_k & b; t = popcnt(t); acc_k += t: 6 chains of 8 words */
#define PQ(a, t, acc)                                                                    \
  "vpandq %%zmm31, %%zmm" #a ", %%zmm" #t "\n\tvpopcntq %%zmm" #t ", %%zmm" #t           \
  "\n\tvpaddq %%zmm" #t ", %%zmm" #acc ", %%zmm" #acc "\n\t"
__attribute__((target("avx512f,avx512vpopcntdq"))) static double lim_popc_zmm(long it)
{
  __asm__ volatile("1:\n\t" PQ(12, 0, 20) PQ(13, 1, 21) PQ(14, 2, 22) PQ(15, 3, 23)
                       PQ(16, 4, 24) PQ(17, 5, 25) "dec %0\n\tjnz 1b"
                   : "+r"(it)::ZMM_CLOBBERS);
  return 0;
}

/* AVX2 (no vector popcount): t = a & b; per-byte popcounts of t's nibbles
 * from the table (vpshufb); acc += both, 4 chains of 4 words. The byte
 * counters a kernel must also empty now and then (vpsadbw) are left out:
 * the limit only counts what every word costs. */
#define PY(acc, lo, hi)                                                                  \
  "vpand %%ymm15, %%ymm14, %%ymm" #lo "\n\tvpsrlw $4, %%ymm" #lo ", %%ymm" #hi           \
  "\n\tvpand %%ymm13, %%ymm" #lo ", %%ymm" #lo "\n\tvpand %%ymm13, %%ymm" #hi            \
  ", %%ymm" #hi "\n\tvpshufb %%ymm" #lo ", %%ymm12, %%ymm" #lo "\n\tvpshufb %%ymm" #hi   \
  ", %%ymm12, %%ymm" #hi "\n\tvpaddb %%ymm" #lo ", %%ymm" #acc ", %%ymm" #acc            \
  "\n\tvpaddb %%ymm" #hi ", %%ymm" #acc ", %%ymm" #acc "\n\t"
__attribute__((target("avx2"))) static double lim_popc_ymm(long it)
{
  __asm__ volatile("vpcmpeqb %%ymm15, %%ymm15, %%ymm15\n\t"
                   "vpxor %%ymm12, %%ymm12, %%ymm12\n\t"
                   "vpabsb %%ymm15, %%ymm13\n\t"
                   "1:\n\t" PY(0, 4, 5) PY(1, 6, 7) PY(2, 8, 9)
                       PY(3, 10, 11) "dec %0\n\tjnz 1b"
                   : "+r"(it)::YMM_CLOBBERS);
  return 0;
}

/* scalar: t = a & b; t = popcnt t; acc += t, 4 chains */
__attribute__((target("popcnt"))) static double lim_popc_scalar(long it)
{
  unsigned long a0 = 0x5555, a1 = 0x3333, b = ~0ul, s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0,
                t1, t2, t3;
  __asm__ volatile(
      "1:\n\t"
      "mov %[a0], %[t0]\n\tand %[b], %[t0]\n\tpopcnt %[t0], %[t0]\n\tadd %[t0], %[s0]\n\t"
      "mov %[a1], %[t1]\n\tand %[b], %[t1]\n\tpopcnt %[t1], %[t1]\n\tadd %[t1], %[s1]\n\t"
      "mov %[a0], %[t2]\n\tand %[b], %[t2]\n\tpopcnt %[t2], %[t2]\n\tadd %[t2], %[s2]\n\t"
      "mov %[a1], %[t3]\n\tand %[b], %[t3]\n\tpopcnt %[t3], %[t3]\n\tadd %[t3], %[s3]\n\t"
      "dec %[it]\n\tjnz 1b"
      : [it] "+r"(it), [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3),
        [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
      : [a0] "r"(a0), [a1] "r"(a1), [b] "r"(b));
  return (double)(s0 + s1 + s2 + s3);
}

#define DP(a, acc) "vpdpbusd %%zmm31, %%zmm" #a ", %%zmm" #acc "\n\t"
__attribute__((target("avx512f,avx512vnni"))) static double lim_vnni_zmm(long it)
{
  __asm__ volatile("1:\n\t" DP(12, 0) DP(13, 1) DP(14, 2) DP(15, 3) DP(16, 4) DP(17, 5)
                       DP(18, 6) DP(19, 7) DP(20, 8) DP(21, 9) DP(22, 10)
                           DP(23, 11) "dec %0\n\tjnz 1b"
                   : "+r"(it)::ZMM_CLOBBERS);
  return 0;
}

/* AMX: four independent 16x16 int32 accumulators, each TDPBUSD 16x16x64 */
static double lim_amx(long it)
{
  struct {
    unsigned char palette, start_row, reserved[14];
    unsigned short colsb[16];
    unsigned char rows[16];
  } cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (int t = 0; t < 8; t++) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  __asm__ volatile(
      "ldtilecfg %0\n\t"
      "tilezero %%tmm0\n\ttilezero %%tmm1\n\ttilezero %%tmm2\n\ttilezero %%tmm3\n\t"
      "tilezero %%tmm4\n\ttilezero %%tmm5\n\ttilezero %%tmm6\n\ttilezero %%tmm7\n\t"
      "1:\n\t"
      "tdpbusd %%tmm6, %%tmm4, %%tmm0\n\ttdpbusd %%tmm7, %%tmm4, %%tmm1\n\t"
      "tdpbusd %%tmm6, %%tmm5, %%tmm2\n\ttdpbusd %%tmm7, %%tmm5, %%tmm3\n\t"
      "dec %1\n\tjnz 1b\n\t"
      "tilerelease"
      : "+m"(cfg), "+r"(it)::"memory");
  return 0;
}
#endif

typedef struct limit {
  const char *name, *unit, *detail;
  double (*fn)(long);
  double per_it; /* operations per iteration */
  long it;       /* iterations per run */
  int usable;
  double best[2]; /* best rate measured, on one core and on all */
} limit_t;

/* ---------------------------------------------------------------- threads */
typedef struct team {
  int n;
  pthread_barrier_t go, done;
  /* phase 0 setup, 1 + r the r-th concurrent run, -1 free */
  void (*body)(void *ctx, int tid, int phase);
  void *ctx;
  int reps;
  double *cpu; /* [r][tid]: thread CPU time of run r */
} team_t;

typedef struct member {
  team_t *t;
  int tid;
} member_t;

static void *member_main(void *p)
{
  member_t *m = p;
  team_t *t = m->t;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((int)(m->tid % (ncpu > 0 ? ncpu : 1)), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  t->body(t->ctx, m->tid, 0);
  for (int r = 0; r < t->reps; r++) {
    pthread_barrier_wait(&t->go);
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    t->body(t->ctx, m->tid, 1 + r);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    t->cpu[r * t->n + m->tid] =
        (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    pthread_barrier_wait(&t->done);
  }
  t->body(t->ctx, m->tid, -1);
  return NULL;
}

/* Runs body on n threads (one per core) reps times together; wall[r] is the
 * wall time of concurrent run r, cpu[r] the time that gives the same total
 * rate from each thread's CPU time (n / sum of 1 / cpu time: equal work per
 * thread). On a shared machine the CPU times leave out the time slices
 * other programs took. */
static void team_run(int n, int reps, void (*body)(void *, int, int), void *ctx,
                     double *wall, double *cpu)
{
  double tcpu[64 * 64];
  team_t t = {.n = n, .body = body, .ctx = ctx, .reps = reps, .cpu = tcpu};
  pthread_barrier_init(&t.go, NULL, (unsigned)n + 1);
  pthread_barrier_init(&t.done, NULL, (unsigned)n + 1);
  pthread_t th[64];
  member_t mb[64];
  for (int i = 0; i < n; i++) {
    mb[i] = (member_t){&t, i};
    pthread_create(&th[i], NULL, member_main, &mb[i]);
  }
  for (int r = 0; r < reps; r++) {
    pthread_barrier_wait(&t.go);
    double t0 = now();
    pthread_barrier_wait(&t.done);
    wall[r] = now() - t0;
  }
  for (int i = 0; i < n; i++)
    pthread_join(th[i], NULL);
  for (int r = 0; r < reps; r++) {
    double inv = 0;
    for (int i = 0; i < n; i++)
      inv += 1 / (tcpu[r * n + i] > 0 ? tcpu[r * n + i] : 1e-9);
    cpu[r] = n / inv;
  }
  pthread_barrier_destroy(&t.go);
  pthread_barrier_destroy(&t.done);
}

static double best_of(const double *t, int n, int step, int first)
{
  double b = 1e30;
  for (int r = first; r < n; r += step)
    if (t[r] < b)
      b = t[r];
  return b;
}

static void limit_body(void *ctx, int tid, int phase)
{
  const limit_t *l = ctx;
  if (phase >= 1)
    l->fn(l->it);
}

/* ---------------------------------------------------------------- kernels */
static uint64_t xr(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

typedef struct kjob {
  const limit_t *lim; /* when set, runs on odd reps, the kernel on even ones */
  int ccc, single, sparse;
  size_t m, n, k, ld;
  sm_czek2_d_fn fd;
  sm_czek2_s_fn fs;
  sm_ccc2_fn fc;
  void *A[64], *B[64], *C[64];
} kjob_t;

static void kernel_body(void *ctx, int tid, int phase)
{
  kjob_t *j = ctx;
  if (phase == 0) {
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(tid + 1);
    size_t es = j->ccc ? 8 : j->single ? 4 : 8;
    j->A[tid] = aligned_alloc(64, (j->m * j->ld * es + 63) / 64 * 64);
    j->B[tid] = aligned_alloc(64, (j->n * j->ld * es + 63) / 64 * 64);
    j->C[tid] = aligned_alloc(64, (j->m * j->n * 16 + 63) / 64 * 64);
    if (!j->A[tid] || !j->B[tid] || !j->C[tid]) {
      fprintf(stderr, "bench/kernels: out of memory\n");
      exit(1);
    }
    for (int side = 0; side < 2; side++) {
      size_t nv = side ? j->n : j->m;
      void *X = side ? j->B[tid] : j->A[tid];
      for (size_t v = 0; v < nv; v++)
        for (size_t q = 0; q < j->ld; q++) {
          if (j->ccc) { /* 2-bit codes: 0, 1, 3; sparse also 10% missing (2) */
            uint64_t w = 0;
            for (int f = 0; f < 32 && q * 32 + (size_t)f < j->k; f++) {
              uint64_t r = xr(&s) % 30,
                       c = r < 3 && j->sparse ? 2 : (r % 3 == 2 ? 3 : r % 3);
              w |= c << (2 * f);
            }
            ((uint64_t *)X)[v * j->ld + q] = q * 32 < j->k ? w : 0;
          } else { /* multiples of 1/1024 in [0, 1) */
            double x = q < j->k ? (double)(xr(&s) % 1024) / 1024 : 0;
            if (j->single)
              ((float *)X)[v * j->ld + q] = (float)x;
            else
              ((double *)X)[v * j->ld + q] = x;
          }
        }
    }
  } else if (phase >= 1 && phase % 2 == 0 && j->lim) {
    j->lim->fn(j->lim->it);
  } else if (phase >= 1) {
    if (j->ccc)
      j->fc(j->m, j->n, j->k, j->A[tid], j->ld, j->B[tid], j->ld, j->sparse, j->C[tid],
            j->n);
    else if (j->single)
      j->fs(j->m, j->n, j->k, j->A[tid], j->ld, j->B[tid], j->ld, j->C[tid], j->n);
    else
      j->fd(j->m, j->n, j->k, j->A[tid], j->ld, j->B[tid], j->ld, j->C[tid], j->n);
  } else {
    free(j->A[tid]);
    free(j->B[tid]);
    free(j->C[tid]);
  }
}

/* ---------------------------------------------------------------- main */
static int want(const char *list, const char *name)
{
  if (!list)
    return 1;
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
      return 1;
  return 0;
}

/* ---------------------------------------------------------------- finalize
 * The finalize kernels on one core, in ns per pair (2-way) or per triple
 * (3-way) of thread CPU time: a block (2-way M x M pairs off the diagonal;
 * 3-way G planes x M x M, a volume piece) of numerators from the auto
 * kernel on random codes (1% missing calls when sparse) or reals, for
 * each loop variant this CPU runs and what the run asks besides values
 * and checksum: nothing (output none), a threshold that keeps nothing, a
 * 20-bin histogram, top-5 neighbours (2-way), CoMet's per-entry
 * thresholds (CCC). The numerator kernel's time on the same block gives
 * the finalize's share of the two. Rows (only with --only fin...):
 *   finalize,FAMILY/VARIANT,1,best,ns/pair,MODE ... median worst share,
 *   best over the portable loops' best (same mode),median */
typedef struct fjob {
  int way, ccc, sparse, single;
  uint32_t m, g;
  size_t nf;
  void *num, *sums, *n2; /* numerators, vector sums, 3-way 2-way numerators */
  sm_fin2_args_t a2;
  sm_fin3_args_t a3;
  sm_recbuf_t *rb;
  sm_topk_ent_t *cand;
  double num_ns; /* the numerator kernel, best per result */
} fjob_t;

static double thread_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n vectors of nf fields: 2-bit codes (ld words) or reals in [0, 1). */
static void *fin_vectors(const fjob_t *j, size_t nv, size_t ld, uint64_t *s)
{
  const size_t es = j->ccc ? 8 : j->single ? 4 : 8;
  void *X = calloc(nv * ld + 8, es);
  if (!X)
    return NULL;
  for (size_t v = 0; v < nv; v++)
    for (size_t q = 0; q < j->nf; q++) {
      if (j->ccc) {
        const uint64_t r = xr(s) % 300,
                       c = r < 3 && j->sparse ? 2 : (r % 3 == 2 ? 3 : r % 3);
        ((uint64_t *)X)[v * ld + q / 32] |= c << (2 * (q % 32));
      } else if (j->single)
        ((float *)X)[v * ld + q] = (float)(xr(s) % 1024) / 1024;
      else
        ((double *)X)[v * ld + q] = (double)(xr(s) % 1024) / 1024;
    }
  return X;
}

/* The block's numerators and sums, and the numerator kernel's time. */
static int fin_setup(fjob_t *j, int reps)
{
  uint64_t s = 0x9e3779b97f4a7c15ull;
  const uint32_t m = j->m, g = j->way == 3 ? j->g : 0, nv = g + 2 * m;
  const size_t ld = j->ccc ? (j->nf + 31) / 32 : j->nf, es = j->ccc      ? 4
                                                             : j->single ? 4
                                                                         : 8;
  const size_t nm =
      j->ccc ? (j->way == 2 ? SM_CCC2_NMOM(j->sparse) : SM_CCC3_NMOM(j->sparse)) : 1;
  void *X = fin_vectors(j, nv, ld, &s);
  const size_t nres = j->way == 2 ? (size_t)m * m : (size_t)g * m * m;
  j->num = malloc(nres * nm * es + 64);
  j->sums = malloc(nv * 2 * es + 64);
  j->n2 = malloc(((size_t)2 * g * m + (size_t)m * m) * es + 64);
  if (!X || !j->num || !j->sums || !j->n2)
    return 0;
  const void *P = X, *A = (const char *)X + g * ld * (j->ccc ? 8 : es),
             *B = (const char *)A + m * ld * (j->ccc ? 8 : es);
  sm_ccc2_fn fc = NULL;
  sm_czek2_d_fn fd = NULL;
  sm_czek2_s_fn fs = NULL;
  if (j->ccc) {
    sm_kern_pick_ccc2(SM_KVAR_AUTO, j->sparse, &fc);
    sm_kern_sums_ccc(nv, j->nf, X, ld, j->sparse, j->sums);
  } else if (j->single) {
    sm_kern_pick_czek2_s(SM_KVAR_AUTO, &fs);
    sm_kern_sums_czek_s(nv, j->nf, X, ld, j->sums);
  } else {
    sm_kern_pick_czek2_d(SM_KVAR_AUTO, &fd);
    sm_kern_sums_czek_d(nv, j->nf, X, ld, j->sums);
  }
  j->num_ns = 1e30;
  for (int r = 0; r < reps; r++) {
    const double t0 = thread_now();
    if (j->way == 2 && j->ccc)
      fc(m, m, j->nf, A, ld, B, ld, j->sparse, j->num, m);
    else if (j->way == 2 && j->single)
      fs(m, m, j->nf, A, ld, B, ld, j->num, m);
    else if (j->way == 2)
      fd(m, m, j->nf, A, ld, B, ld, j->num, m);
    else if (j->ccc)
      sm_kern_ccc3_popc(g, m, m, j->nf, P, ld, A, ld, B, ld, j->sparse, j->num);
    else if (j->single)
      sm_kern_czek3_blocked_s(g, m, m, j->nf, P, ld, A, ld, B, ld, j->num);
    else
      sm_kern_czek3_blocked_d(g, m, m, j->nf, P, ld, A, ld, B, ld, j->num);
    const double t = (thread_now() - t0) * 1e9 / (double)nres;
    j->num_ns = t < j->num_ns ? t : j->num_ns;
  }
  if (j->way == 3) { /* 2-way numerators of (p, x), (p, y), (x, y) */
    char *n2 = j->n2;
    const size_t e2 = j->ccc ? 4 : es;
    void *ax = n2, *ay = n2 + (size_t)g * m * e2, *xy = n2 + (size_t)2 * g * m * e2;
    if (j->ccc) {
      sm_kern_ccc2_popc(g, m, j->nf, P, ld, A, ld, 0, ax, m);
      sm_kern_ccc2_popc(g, m, j->nf, P, ld, B, ld, 0, ay, m);
      sm_kern_ccc2_popc(m, m, j->nf, A, ld, B, ld, 0, xy, m);
    } else if (j->single) {
      sm_kern_czek2_blocked_s(g, m, j->nf, P, ld, A, ld, ax, m);
      sm_kern_czek2_blocked_s(g, m, j->nf, P, ld, B, ld, ay, m);
      sm_kern_czek2_blocked_s(m, m, j->nf, A, ld, B, ld, xy, m);
    } else {
      sm_kern_czek2_blocked_d(g, m, j->nf, P, ld, A, ld, ax, m);
      sm_kern_czek2_blocked_d(g, m, j->nf, P, ld, B, ld, ay, m);
      sm_kern_czek2_blocked_d(m, m, j->nf, A, ld, B, ld, xy, m);
    }
  }
  free(X);
  const sm_hist_spec_t none = {0, 0, 0, 0};
  if (j->way == 2)
    j->a2 = (sm_fin2_args_t){.metric = j->ccc,
                             .single = j->single,
                             .sparse = j->sparse,
                             .i0 = 0,
                             .j0 = m,
                             .m = m,
                             .n = m,
                             .nf = j->nf,
                             .ccc_mult = 4.5,
                             .ccc_param = 2.0 / 3,
                             .threshold = -1,
                             .hist = none};
  else
    j->a3 = (sm_fin3_args_t){.metric = j->ccc,
                             .single = j->single,
                             .sparse = j->sparse,
                             .kind = 2,
                             .g = g,
                             .mx = m,
                             .my = m,
                             .a_glob = 0,
                             .a_off = 0,
                             .x0 = g,
                             .y0 = g + m,
                             .nf = j->nf,
                             .ccc_mult = 4.5,
                             .ccc_param = 2.0 / 3,
                             .threshold = -1,
                             .hist = none};
  const uint64_t maxrec =
      j->way == 2 ? sm_fin2_max_records(&j->a2) : sm_fin3_max_records(&j->a3);
  j->rb = malloc(sm_recbuf_hist_offset(maxrec) + 8 * 8 * 64);
  j->cand = malloc((size_t)2 * m * 4 * 5 * sizeof(sm_topk_ent_t));
  return j->rb && j->cand;
}

static void fin_free(fjob_t *j)
{
  free(j->num), free(j->sums), free(j->n2), free(j->rb), free(j->cand);
}

/* One finalize of the block in mode `mode` (0 none, 1 threshold keeping
 * nothing, 2 histogram, 3 top-k, 4 per-entry thresholds). */
static void fin_run(fjob_t *j, int mode)
{
  const double max = j->ccc ? 4.5 : j->way == 2 ? 1.0 : 1.5;
  const sm_hist_spec_t hist = {mode == 2 ? 20 : 0, j->ccc ? (j->way == 2 ? 4u : 8u) : 1u,
                               0, max};
  const sm_thr_list_t lst = {mode == 4 ? j->way + 2 : 0, {4.4, 4.4, 4.4, 4.4, 8.9}};
  const uint32_t m = j->m, g = j->g;
  const size_t es = j->ccc ? 4 : j->single ? 4 : 8, se = j->ccc ? 2 * es : es;
  if (j->way == 2) {
    sm_fin2_args_t a = j->a2;
    a.emit = mode == 1 || mode == 4;
    a.threshold = a.emit ? 0.99 * max : -1;
    a.thr_ent = j->ccc ? lst : (sm_thr_list_t){0, {0}};
    a.hist = hist;
    a.topk = (sm_topk_spec_t){mode == 3 ? 5 : 0, 1, 1};
    sm_kern_finalize2(&a, j->num, m, j->sums, (const char *)j->sums + m * se, j->rb,
                      mode == 3 ? j->cand : NULL);
    return;
  }
  sm_fin3_args_t a = j->a3;
  a.emit = mode == 1 || mode == 4;
  a.threshold = a.emit ? 0.99 * max : -1;
  a.thr_ent = j->ccc ? lst : (sm_thr_list_t){0, {0}};
  a.hist = hist;
  const char *n2 = j->n2, *sums = j->sums;
  const size_t e2 = j->ccc ? 4 : es;
  sm_kern_finalize3(&a, j->num, n2, m, n2 + (size_t)g * m * e2, m,
                    n2 + (size_t)2 * g * m * e2, m, sums, sums + g * se,
                    sums + (g + m) * se, j->rb);
}

static int cmp_double(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static void fin_bench(const char *only, int reps, uint32_t m2, size_t nf2, uint32_t g3,
                      uint32_t m3, size_t nf3)
{
  static const struct {
    const char *family;
    int way, ccc, sparse, single;
  } fam[] = {{"fin2_ccc_sparse", 2, 1, 1, 0}, {"fin2_ccc", 2, 1, 0, 0},
             {"fin2_czek_d", 2, 0, 0, 0},     {"fin2_czek_s", 2, 0, 0, 1},
             {"fin3_ccc_sparse", 3, 1, 1, 0}, {"fin3_ccc", 3, 1, 0, 0},
             {"fin3_czek_d", 3, 0, 0, 0},     {"fin3_czek_s", 3, 0, 0, 1}};
  static const char *const modes[] = {"none", "threshold", "histogram", "top-k",
                                      "entry-thresholds"};
  static const sm_kvar_t vars[] = {SM_KVAR_BLOCKED, SM_KVAR_AVX2, SM_KVAR_AVX512};
  for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
    if (!only || (!want(only, fam[f].family) && !want(only, "fin")))
      continue;
    fjob_t j = {.way = fam[f].way,
                .ccc = fam[f].ccc,
                .sparse = fam[f].sparse,
                .single = fam[f].single,
                .m = fam[f].way == 2 ? m2 : m3,
                .g = g3,
                .nf = fam[f].way == 2 ? nf2 : nf3};
    if (!fin_setup(&j, reps)) {
      fprintf(stderr, "bench/kernels: out of memory\n");
      exit(1);
    }
    const double nres = j.way == 2 ? (double)j.m * j.m : (double)j.g * j.m * j.m;
    const char *unit = j.way == 2 ? "ns/pair" : "ns/triple";
    for (int mode = 0; mode < 5; mode++) {
      if ((mode == 3 && j.way == 3) || (mode == 4 && !j.ccc))
        continue;
      double base = 0;
      for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
        const char *name = sm_kern_fin_variant(vars[v]);
        if (!name)
          continue;
        double t[64];
        fin_run(&j, mode); /* warm */
        for (int r = 0; r < reps && r < 64; r++) {
          const double t0 = thread_now();
          fin_run(&j, mode);
          t[r] = (thread_now() - t0) * 1e9 / nres;
        }
        const int n = reps < 64 ? reps : 64;
        qsort(t, (size_t)n, sizeof t[0], cmp_double);
        if (!base)
          base = t[0];
        printf("finalize,%s/%s,1,%.4g,%s,%s m=%u%s%.0u nf=%zu median=%.4g worst=%.4g "
               "numerator=%.4g share=%.1f%%,%.3f,%.4g\n",
               fam[f].family, name, t[0], unit, modes[mode], j.m, j.way == 3 ? " g=" : "",
               j.way == 3 ? j.g : 0, j.nf, t[n / 2], t[n - 1], j.num_ns,
               100 * t[0] / (t[0] + j.num_ns), t[0] / base, t[n / 2]);
        fflush(stdout);
      }
    }
    sm_kern_fin_variant(SM_KVAR_AUTO);
    fin_free(&j);
  }
}

static void usage(void)
{
  fputs("usage: bench/kernels [--threads N] [--reps R] [--only LIST] [--czek M,K] [--ccc "
        "M,NF]\n"
        "                     [--isa avx2]\n"
        "  --isa avx2: the min+add limits of 256-bit vectors, also on AVX-512\n"
        "  LIST: comma-separated among limits, czek2_d, czek2_s, ccc2, ccc2_sparse;\n"
        "        fin (every finalize family below; only when listed), fin2_ccc_sparse,\n"
        "        fin2_ccc, fin2_czek_d, fin2_czek_s, fin3_ccc_sparse, fin3_ccc, "
        "fin3_czek_d,\n"
        "        fin3_czek_s\n"
        "  --czek M,K: Czekanowski blocks of M x M vectors of K fields per thread\n"
        "  --ccc M,NF: CCC blocks of M x M SNPs of NF samples per thread\n"
        "  --fin M,NF: finalize blocks of M x M pairs of NF fields (default 768,1000)\n"
        "  --fin3 G,M,NF: finalize pieces of G planes x M x M triples (default "
        "8,128,1000)\n",
        stderr);
}

int main(int argc, char **argv)
{
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = ncpu > 0 ? (int)ncpu : 1, reps = 5;
  const char *only = NULL;
  int ymm = 0; /* --isa avx2: the min+add limits of 256-bit vectors, with AVX-512 too */
  size_t czm = 1024, czk = 4096, ccm = 1024, ccnf = 32768;
  unsigned fm = 768, fg3 = 8, fm3 = 128;
  size_t fnf = 1000, fnf3 = 1000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--isa") && i + 1 < argc && !strcmp(argv[i + 1], "avx2"))
      ymm = 1, i++;
    else if (!strcmp(argv[i], "--czek") && i + 1 < argc)
      sscanf(argv[++i], "%zu,%zu", &czm, &czk);
    else if (!strcmp(argv[i], "--ccc") && i + 1 < argc)
      sscanf(argv[++i], "%zu,%zu", &ccm, &ccnf);
    else if (!strcmp(argv[i], "--fin") && i + 1 < argc)
      sscanf(argv[++i], "%u,%zu", &fm, &fnf);
    else if (!strcmp(argv[i], "--fin3") && i + 1 < argc)
      sscanf(argv[++i], "%u,%u,%zu", &fg3, &fm3, &fnf3);
    else {
      usage();
      return 2;
    }
  }
  if (threads < 1 || threads > 64 || reps < 1 || fm < 8 || fm3 < 8 || fg3 < 1 || !fnf ||
      !fnf3) {
    usage();
    return 2;
  }
  const sm_cpu_t *cpu = sm_cpu_get();
  printf("what,name,threads,rate,unit,detail,ratio,rate_wall\n");
  printf("cpu,features,%d,0,,%s\n", threads, sm_cpu_describe());
  int counts[2] = {1, threads};
  int ncounts = threads > 1 ? 2 : 1;

#if defined(__x86_64__) && defined(__GNUC__)
  limit_t limits[] = {
      {"minadd_sp",
       "min+add/s",
       "zmm vminps+vaddps",
       lim_minadd_zmm_s,
       12 * 16,
       50000000,
       cpu->avx512 && !ymm,
       {0, 0}},
      {"minadd_sp",
       "min+add/s",
       "ymm vminps+vaddps",
       lim_minadd_ymm_s,
       8 * 8,
       50000000,
       cpu->avx2 && (!cpu->avx512 || ymm),
       {0, 0}},
      {"minadd_dp",
       "min+add/s",
       "zmm vminpd+vaddpd",
       lim_minadd_zmm_d,
       12 * 8,
       50000000,
       cpu->avx512 && !ymm,
       {0, 0}},
      {"minadd_dp",
       "min+add/s",
       "ymm vminpd+vaddpd",
       lim_minadd_ymm_d,
       8 * 4,
       50000000,
       cpu->avx2 && (!cpu->avx512 || ymm),
       {0, 0}},
      {"and_popcnt",
       "words/s",
       "zmm vpandq+vpopcntq+vpaddq",
       lim_popc_zmm,
       6 * 8,
       50000000,
       cpu->vpopcntdq,
       {0, 0}},
      {"and_popcnt",
       "words/s",
       "scalar and+popcnt+add",
       lim_popc_scalar,
       4,
       200000000,
       !cpu->vpopcntdq,
       {0, 0}},
      {"and_popcnt",
       "words/s",
       "ymm vpand+vpshufb nibble popcount+vpaddb",
       lim_popc_ymm,
       4 * 4,
       50000000,
       cpu->avx2 && !cpu->vpopcntdq,
       {0, 0}},
      {"int8_mac",
       "MAC/s",
       "zmm vpdpbusd",
       lim_vnni_zmm,
       12 * 64,
       30000000,
       cpu->vnni,
       {0, 0}},
      {"int8_mac_amx",
       "MAC/s",
       "amx tdpbusd",
       lim_amx,
       4 * 16 * 16 * 64,
       2000000,
       cpu->amx,
       {0, 0}},
  };
  const size_t nlimits = sizeof limits / sizeof limits[0];
  if (want(only, "limits"))
    for (size_t l = 0; l < nlimits; l++) {
      if (!limits[l].usable)
        continue;
      for (int c = 0; c < ncounts; c++) {
        double wall[64], cput[64];
        team_run(counts[c], reps, limit_body, &limits[l], wall, cput);
        double work = limits[l].per_it * (double)limits[l].it * counts[c];
        double rate = work / best_of(cput, reps, 1, 0);
        limits[l].best[c] = rate;
        printf("limit,%s,%d,%.6g,%s,%s,,%.6g\n", limits[l].name, counts[c], rate,
               limits[l].unit, limits[l].detail, work / best_of(wall, reps, 1, 0));
        fflush(stdout);
      }
    }
#else
  const limit_t *limits = NULL;
  const size_t nlimits = 0;
#endif

  /* kernels: every variant this CPU runs, and the one auto picks */
  static const struct {
    const char *family;
    int ccc, single, sparse;
  } fam[] = {{"czek2_d", 0, 0, 0},
             {"czek2_s", 0, 1, 0},
             {"ccc2", 1, 0, 0},
             {"ccc2_sparse", 1, 0, 1}};
  static const sm_kvar_t vars[] = {SM_KVAR_BLOCKED, SM_KVAR_AVX2, SM_KVAR_AVX512,
                                   SM_KVAR_VNNI,    SM_KVAR_AMX,  SM_KVAR_AUTO};
  for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
    if (!want(only, fam[f].family))
      continue;
    for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
      kjob_t j = {.ccc = fam[f].ccc, .single = fam[f].single, .sparse = fam[f].sparse};
      const char *name;
      if (fam[f].ccc) {
        name = sm_kern_pick_ccc2(vars[v], fam[f].sparse, &j.fc);
        j.m = j.n = ccm;
        j.k = ccnf;
        j.ld = ((ccnf + 31) / 32 + 7) / 8 * 8;
      } else {
        name = fam[f].single ? sm_kern_pick_czek2_s(vars[v], &j.fs)
                             : sm_kern_pick_czek2_d(vars[v], &j.fd);
        j.m = j.n = czm;
        j.k = czk;
        j.ld = (czk + 15) / 16 * 16 + 16;
      }
      if (!name)
        continue;
      /* the limit of the kernel's own formulation, in its units per
       * operation of the limit loop: Czekanowski 1 comparison per min+add;
       * popcount 64 / (2 or 5) sample pairs per word; int8 1 or 1/4 per MAC */
      const char *lname = !fam[f].ccc ? (fam[f].single ? "minadd_sp" : "minadd_dp")
                          : strstr(name, "amx")  ? "int8_mac_amx"
                          : strstr(name, "vnni") ? "int8_mac"
                                                 : "and_popcnt";
      double per_op = !fam[f].ccc                    ? 1.0
                      : !strcmp(lname, "and_popcnt") ? 64.0 / (fam[f].sparse ? 5 : 2)
                                                     : (fam[f].sparse ? 0.25 : 1.0);
      j.lim = NULL; /* the fastest loop of that limit (and_popcnt: scalar or ymm) */
      for (size_t l = 0; l < nlimits; l++)
        if (limits[l].usable && !strcmp(limits[l].name, lname) &&
            (!j.lim || limits[l].best[0] > j.lim->best[0]))
          j.lim = &limits[l];
      for (int c = 0; c < ncounts; c++) {
        /* kernel and limit alternate, so that both see the same machine */
        double wall[64], cput[64], ratio = 0;
        int nr = j.lim ? 2 * reps : reps;
        team_run(counts[c], nr, kernel_body, &j, wall, cput);
        double work = (double)j.m * (double)j.n * (double)j.k * counts[c];
        double rate = work / best_of(cput, nr, j.lim ? 2 : 1, 0);
        double rate_wall = work / best_of(wall, nr, j.lim ? 2 : 1, 0);
        if (j.lim) { /* best kernel over best limit, the limit table's included */
          double lbest =
              j.lim->per_it * (double)j.lim->it * counts[c] / best_of(cput, nr, 2, 1);
          if (lbest < j.lim->best[c])
            lbest = j.lim->best[c];
          ratio = rate / (lbest * per_op);
        }
        printf("kernel%s,%s,%d,%.6g,%s,%s m=n=%zu k=%zu,%.4f,%.6g\n",
               vars[v] == SM_KVAR_AUTO ? "_auto" : "", name, counts[c], rate,
               fam[f].ccc ? "sample-pairs/s" : "comparisons/s", fam[f].family, j.m, j.k,
               ratio, rate_wall);
        fflush(stdout);
      }
    }
  }
  fin_bench(only, reps, fm, fnf, fg3, fm3, fnf3);
  return 0;
}
