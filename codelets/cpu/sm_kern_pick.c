/* sm_kern_pick.c: which CPU kernel runs: the variant asked for when this
 * CPU can run it, or the fastest usable one (Czekanowski: the widest
 * instruction set; CCC: a short timing of the best popcount kernel against
 * the best int8 GEMM kernel, since which wins depends on the core); and,
 * inside each CCC popcount kernel, its short- or long-vector form by the
 * vectors' length. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sm_cpu.h"
#include "sm_kern_simd.h"
#include "sm_mfix.h"

const char *sm_kern_unusable(sm_kvar_t v, int ccc)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  switch (v) {
  case SM_KVAR_AUTO:
  case SM_KVAR_REF:
  case SM_KVAR_BLOCKED:
    return NULL;
  case SM_KVAR_AVX2:
    return cpu->avx2 ? NULL : "this CPU (or OS) has no AVX2";
  case SM_KVAR_AVX512:
    if (!cpu->avx512)
      return "this CPU (or OS) has no AVX-512";
    return !ccc || cpu->vpopcntdq ? NULL : "this CPU has no AVX-512 VPOPCNTDQ";
  case SM_KVAR_POPC:
    return ccc ? NULL : "popc is a ccc kernel (czekanowski: blocked, avx2, avx512)";
  case SM_KVAR_VNNI:
    if (!ccc)
      return "vnni is a ccc kernel (czekanowski: blocked, avx2, avx512)";
    return cpu->vnni ? NULL : "this CPU has no AVX-512 VNNI";
  case SM_KVAR_AMX:
    if (!ccc)
      return "amx is a ccc kernel (czekanowski: blocked, avx2, avx512)";
    if (!cpu->amx_cpu)
      return "this CPU has no AMX-INT8";
    return cpu->amx ? NULL : "Linux did not grant the AMX tile state (arch_prctl)";
  }
  return "unknown kernel";
}

/* ---- names */

static const char *const variant_names[] = {SM_KERN_VARIANT_NAMES NULL};
enum { NVARIANTS = sizeof variant_names / sizeof variant_names[0] - 1 };

const char *sm_kern_variant_name(sm_kvar_t v)
{
  return (unsigned)v < NVARIANTS ? variant_names[v] : NULL;
}

int sm_kern_variant_parse(const char *name, sm_kvar_t *v)
{
  for (unsigned k = 0; k < NVARIANTS; k++)
    if (strcmp(name, variant_names[k]) == 0) {
      *v = (sm_kvar_t)k;
      return 0;
    }
  return -1;
}

int sm_kern_variant_built(sm_kvar_t v)
{
  switch (v) {
  case SM_KVAR_AVX2:
  case SM_KVAR_AVX512:
  case SM_KVAR_VNNI:
    return SM_BUILD_X86;
  case SM_KVAR_AMX:
    return SM_BUILD_AMX;
  default:
    return (unsigned)v < NVARIANTS;
  }
}

/* ---- Czekanowski: the widest instruction set */

/* The double and float kernels of one implementation, their names and
 * their symmetric variants (NULL: none). */
typedef struct czek2_choice {
  sm_czek2_d_fn d;
  sm_czek2_s_fn s;
  const char *dname, *sname;
  sm_czek2_syrk_d_fn syrk_d;
  sm_czek2_syrk_s_fn syrk_s;
  sm_czek2_lo_d_fn lo_d;
  sm_czek2_lo_s_fn lo_s;
} czek2_choice_t;

#define CZEK2_CHOICE(impl, syrk_d, syrk_s, lo_d, lo_s)                                   \
  (czek2_choice_t)                                                                       \
  {                                                                                      \
    sm_kern_czek2_##impl##_d, sm_kern_czek2_##impl##_s, "sm_kern_czek2_" #impl "_d",     \
        "sm_kern_czek2_" #impl "_s", syrk_d, syrk_s, lo_d, lo_s                          \
  }

/* The kernels of usable variant v (AUTO resolved); 0 when v is unusable. */
static int czek2_variant(sm_kvar_t v, czek2_choice_t *c)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  if (sm_kern_unusable(v, 0))
    return 0;
  if (v == SM_KVAR_AUTO)
    v = cpu->avx512 ? SM_KVAR_AVX512 : cpu->avx2 ? SM_KVAR_AVX2 : SM_KVAR_BLOCKED;
  switch (v) {
  case SM_KVAR_REF:
    *c = CZEK2_CHOICE(ref, NULL, NULL, NULL, NULL);
    break;
  case SM_KVAR_AVX512:
    *c = CZEK2_CHOICE(avx512, sm_kern_czek2_syrk_avx512_d, sm_kern_czek2_syrk_avx512_s,
                      sm_kern_czek2_lo_avx512_d, sm_kern_czek2_lo_avx512_s);
    break;
  case SM_KVAR_AVX2:
    *c = CZEK2_CHOICE(avx2, sm_kern_czek2_syrk_avx2_d, sm_kern_czek2_syrk_avx2_s,
                      sm_kern_czek2_lo_avx2_d, sm_kern_czek2_lo_avx2_s);
    break;
  default:
    *c = CZEK2_CHOICE(blocked, NULL, NULL, NULL, NULL);
    break;
  }
  return 1;
}

const char *sm_kern_pick_czek2_d(sm_kvar_t v, sm_czek2_d_fn *fn)
{
  czek2_choice_t c;
  if (!czek2_variant(v, &c))
    return NULL;
  *fn = c.d;
  return c.dname;
}

const char *sm_kern_pick_czek2_s(sm_kvar_t v, sm_czek2_s_fn *fn)
{
  czek2_choice_t c;
  if (!czek2_variant(v, &c))
    return NULL;
  *fn = c.s;
  return c.sname;
}

/* ---- CCC popcount kernels: the short-vector form or the long one */

/* Below these lengths (fields; [dense, sparse]) the short-vector form
 * (sm_ccc_short.h) is the faster one. Measured on one core of an AVX-512
 * VPOPCNTDQ Xeon (2 cores, L2 2 MB), 1024 x 1024 blocks, each form's rate
 * against the AND + popcount limit (bench/kernels): at 1000 fields short
 * 78% dense and 71% sparse against long 37% and 27%; the forms cross at
 * 20480 (tied to 24576, long ahead from 32768: 74% against 70%) dense and
 * 49152 sparse (short 73% against 71% at 40960, long 69% against 67% at
 * 49152), as a register tile's planes outgrow L1 (the long form blocks
 * the fields, the short one does not). AVX2 (same core): short ahead to
 * 32768 (24% against 22%), tied at 65536. Portable (scalar popcount):
 * short ahead to 24576 dense, 12288 sparse (76% against 75%), long ahead
 * from 32768 dense (89% against 86%) and 16384 sparse. */
static const size_t short_avx512[2] = {20480, 49152};
static const size_t short_avx2[2] = {65536, 65536};
static const size_t short_popc[2] = {32768, 16384};

/* Sparse moments with few missing calls: the dense product plus sums
 * over the missing fields (kern_mfix.c), when that is less work. */
#define SM_CCC2_BY_LENGTH(isa)                                                           \
  void sm_kern_ccc2_##isa(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,  \
                          const uint64_t *B, size_t ldb, int sparse, uint32_t *C,        \
                          size_t ldc)                                                    \
  {                                                                                      \
    if (sparse && !sm_ccc2_sparse_fix(sm_kern_ccc2_##isa, sm_kern_ccc2_syrk_##isa,       \
                                      SM_MFIX_ISA_##isa, m, n, nf, A, lda, B, ldb, 0, 0, \
                                      C, ldc, NULL, 0))                                  \
      return;                                                                            \
    (nf < short_##isa[!!sparse] ? sm_kern_ccc2_short_##isa : sm_kern_ccc2_long_##isa)(   \
        m, n, nf, A, lda, B, ldb, sparse, C, ldc);                                       \
  }                                                                                      \
  void sm_kern_ccc2_syrk_##isa(size_t n, size_t nf, const uint64_t *A, size_t lda,       \
                               int sparse, uint32_t *C, size_t ldc)                      \
  {                                                                                      \
    if (sparse && !sm_ccc2_sparse_fix(sm_kern_ccc2_##isa, sm_kern_ccc2_syrk_##isa,       \
                                      SM_MFIX_ISA_##isa, n, n, nf, A, lda, A, lda, 1, 0, \
                                      C, ldc, NULL, 0))                                  \
      return;                                                                            \
    (nf < short_##isa[!!sparse]                                                          \
         ? sm_kern_ccc2_syrk_short_##isa                                                 \
         : sm_kern_ccc2_syrk_long_##isa)(n, nf, A, lda, sparse, C, ldc);                 \
  }

SM_CCC2_BY_LENGTH(avx512)
SM_CCC2_BY_LENGTH(avx2)
SM_CCC2_BY_LENGTH(popc)

/* ---- CCC */

typedef struct ccc_choice {
  sm_ccc2_fn fn;
  const char *name;
} ccc_choice_t;

static ccc_choice_t ccc_variant(sm_kvar_t v)
{
  switch (v) {
  case SM_KVAR_REF:
    return (ccc_choice_t){sm_kern_ccc2_ref, "sm_kern_ccc2_ref"};
  case SM_KVAR_AVX512:
    return (ccc_choice_t){sm_kern_ccc2_avx512, "sm_kern_ccc2_avx512"};
  case SM_KVAR_VNNI:
    return (ccc_choice_t){sm_kern_ccc2_vnni, "sm_kern_ccc2_vnni"};
  case SM_KVAR_AMX:
    return (ccc_choice_t){sm_kern_ccc2_amx, "sm_kern_ccc2_amx"};
  case SM_KVAR_AVX2:
    return (ccc_choice_t){sm_kern_ccc2_avx2, "sm_kern_ccc2_avx2"};
  case SM_KVAR_POPC: /* the fastest popcount kernel this CPU runs */
    if (sm_cpu_get()->vpopcntdq)
      return ccc_variant(SM_KVAR_AVX512);
    if (sm_cpu_get()->avx2)
      return ccc_variant(SM_KVAR_AVX2);
    return (ccc_choice_t){sm_kern_ccc2_popc, "sm_kern_ccc2_popc"};
  default:
    return ccc_variant(SM_KVAR_POPC);
  }
}

static uint64_t rng_next(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A small random problem (every code, missing calls in the sparse one). */
enum { CAL_N = 128, CAL_NF = 4096, CAL_W = CAL_NF / 32 };

static uint64_t *cal_codes(int sparse)
{
  uint64_t *x = malloc((size_t)CAL_N * CAL_W * sizeof(uint64_t)),
           s = 0x9e3779b97f4a7c15ull;
  if (!x)
    return NULL;
  for (size_t w = 0; w < (size_t)CAL_N * CAL_W; w++) {
    uint64_t r = rng_next(&s);
    if (!sparse) /* dense inputs have no code 10 */
      r |= (r >> 1) & 0x5555555555555555ull;
    x[w] = r;
  }
  return x;
}

static double seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Best of 3 runs on the calibration problem; < 0 when its moments differ
 * from the portable popcount kernel's (then it is not used). */
static double cal_time(sm_ccc2_fn fn, const uint64_t *X, int sparse, uint32_t *C,
                       const uint32_t *want)
{
  size_t nc = (size_t)CAL_N * CAL_N * SM_CCC2_NMOM(sparse);
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    memset(C, 0xff, nc * sizeof(uint32_t));
    double t = seconds();
    fn(CAL_N, CAL_N, CAL_NF, X, CAL_W, X, CAL_W, sparse, C, CAL_N);
    t = seconds() - t;
    if (memcmp(C, want, nc * sizeof(uint32_t)) != 0)
      return -1;
    if (t < best)
      best = t;
  }
  return best;
}

static ccc_choice_t ccc_auto[2];
static int amx_ok[2] = {-1, -1};

/* The usable popcount kernel and the usable int8 kernel, timed; an int8
 * kernel that disagrees with the popcount one is never chosen. */
static void ccc_calibrate(int sparse)
{
  const sm_cpu_t *cpu = sm_cpu_get();
  ccc_choice_t popc = ccc_variant(SM_KVAR_POPC);
  ccc_choice_t i8 = {NULL, NULL};
  if (cpu->amx)
    i8 = ccc_variant(SM_KVAR_AMX);
  else if (cpu->vnni)
    i8 = ccc_variant(SM_KVAR_VNNI);
  ccc_auto[sparse] = popc;
  if (!i8.fn)
    return;
  size_t nc = (size_t)CAL_N * CAL_N * SM_CCC2_NMOM(sparse);
  uint64_t *X = cal_codes(sparse);
  uint32_t *want = malloc(nc * sizeof(uint32_t)), *C = malloc(nc * sizeof(uint32_t));
  if (X && want && C) {
    popc.fn(CAL_N, CAL_N, CAL_NF, X, CAL_W, X, CAL_W, sparse, want, CAL_N);
    double tp = cal_time(popc.fn, X, sparse, C, want);
    double ti = cal_time(i8.fn, X, sparse, C, want);
    if (cpu->amx)
      amx_ok[sparse] = ti >= 0;
    if (ti >= 0 && ti < tp)
      ccc_auto[sparse] = i8;
  }
  free(X);
  free(want);
  free(C);
}

static void ccc_calibrate_dense(void)
{
  ccc_calibrate(0);
}
static void ccc_calibrate_sparse(void)
{
  ccc_calibrate(1);
}
static pthread_once_t ccc_once[2] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};

const char *sm_kern_pick_ccc2(sm_kvar_t v, int sparse, sm_ccc2_fn *fn)
{
  sparse = !!sparse;
  if (sm_kern_unusable(v, 1))
    return NULL;
  ccc_choice_t c;
  if (v == SM_KVAR_AUTO || v == SM_KVAR_AMX) {
    /* AMX runs only after the calibration problem checked it */
    pthread_once(&ccc_once[sparse], sparse ? ccc_calibrate_sparse : ccc_calibrate_dense);
    if (v == SM_KVAR_AMX && amx_ok[sparse] == 0)
      v = SM_KVAR_POPC; /* AMX gave wrong moments: never run it */
    c = v == SM_KVAR_AUTO ? ccc_auto[sparse] : ccc_variant(v);
  } else
    c = ccc_variant(v);
  *fn = c.fn;
  return c.name;
}

size_t sm_kern_ccc2_short_nf(sm_kvar_t v, int sparse)
{
  sm_ccc2_fn f;
  if (!sm_kern_pick_ccc2(v, sparse, &f))
    return 0;
  sparse = !!sparse;
  return f == sm_kern_ccc2_avx512 ? short_avx512[sparse]
         : f == sm_kern_ccc2_avx2 ? short_avx2[sparse]
         : f == sm_kern_ccc2_popc ? short_popc[sparse]
                                  : 0;
}

/* ---- symmetric variants: by the kernel the pick gives */

sm_czek2_syrk_d_fn sm_kern_syrk_czek2_d(sm_kvar_t v)
{
  czek2_choice_t c;
  return czek2_variant(v, &c) ? c.syrk_d : NULL;
}

sm_czek2_syrk_s_fn sm_kern_syrk_czek2_s(sm_kvar_t v)
{
  czek2_choice_t c;
  return czek2_variant(v, &c) ? c.syrk_s : NULL;
}

sm_czek2_lo_d_fn sm_kern_lo_czek2_d(sm_kvar_t v)
{
  czek2_choice_t c;
  return czek2_variant(v, &c) ? c.lo_d : NULL;
}

sm_czek2_lo_s_fn sm_kern_lo_czek2_s(sm_kvar_t v)
{
  czek2_choice_t c;
  return czek2_variant(v, &c) ? c.lo_s : NULL;
}

const char *sm_kern_pick_czek3_d(sm_kvar_t v, sm_czek3_d_kern_fn *fn)
{
  czek2_choice_t c;
  if (!czek2_variant(v, &c))
    return NULL;
  if (c.d == sm_kern_czek2_avx512_d) {
    *fn = sm_kern_czek3_avx512_d;
    return "sm_kern_czek3_avx512_d";
  }
  if (c.d == sm_kern_czek2_avx2_d) {
    *fn = sm_kern_czek3_avx2_d;
    return "sm_kern_czek3_avx2_d";
  }
  return NULL;
}

const char *sm_kern_pick_czek3_s(sm_kvar_t v, sm_czek3_s_kern_fn *fn)
{
  czek2_choice_t c;
  if (!czek2_variant(v, &c))
    return NULL;
  if (c.s == sm_kern_czek2_avx512_s) {
    *fn = sm_kern_czek3_avx512_s;
    return "sm_kern_czek3_avx512_s";
  }
  if (c.s == sm_kern_czek2_avx2_s) {
    *fn = sm_kern_czek3_avx2_s;
    return "sm_kern_czek3_avx2_s";
  }
  return NULL;
}

sm_ccc2_syrk_fn sm_kern_syrk_ccc2(sm_kvar_t v, int sparse)
{
  sm_ccc2_fn f;
  if (!sm_kern_pick_ccc2(v, sparse, &f))
    return NULL;
  return f == sm_kern_ccc2_avx512 ? sm_kern_ccc2_syrk_avx512
         : f == sm_kern_ccc2_vnni ? sm_kern_ccc2_syrk_vnni
         : f == sm_kern_ccc2_amx  ? sm_kern_ccc2_syrk_amx
         : f == sm_kern_ccc2_avx2 ? sm_kern_ccc2_syrk_avx2
         : f == sm_kern_ccc2_popc ? sm_kern_ccc2_syrk_popc
                                  : NULL;
}

int sm_kern_ccc2_ld(sm_kvar_t v, size_t m, size_t n, size_t nf, const uint64_t *A,
                    size_t lda, const uint64_t *B, size_t ldb, int sym, uint32_t *C,
                    size_t ldc, uint32_t *H, size_t ldh)
{
  sm_ccc2_fn f = sm_kern_ccc2_popc;
  sm_kern_pick_ccc2(v, 1, &f);
  if (f == sm_kern_ccc2_avx512 &&
      !sm_ccc2_sparse_fix(sm_kern_ccc2_avx512, sm_kern_ccc2_syrk_avx512,
                          SM_MFIX_ISA_avx512, m, n, nf, A, lda, B, ldb, sym, 0, C, ldc, H,
                          ldh))
    return 0;
  const sm_ccc2_syrk_fn sy = sym ? sm_kern_syrk_ccc2(v, 1) : NULL;
  if (sy)
    sy(n, nf, A, lda, 1, C, ldc);
  else
    f(m, n, nf, A, lda, B, ldb, 1, C, ldc);
  return sm_kern_ld_hom(m, n, nf, A, lda, B, ldb, H, ldh);
}

int sm_kern_ccc2_ld_band(sm_kvar_t v, const sm_band_t *b, size_t m, size_t n, size_t nf,
                         const uint64_t *A, size_t lda, const uint64_t *B, size_t ldb,
                         uint32_t *C, size_t ldc, uint32_t *H, size_t ldh)
{
  sm_ccc2_fn f = sm_kern_ccc2_popc;
  sm_kern_pick_ccc2(v, 1, &f);
  if (f != sm_kern_ccc2_avx512)
    return 1;
  return sm_ccc2_band_fix(b, m, n, nf, A, lda, B, ldb, C, ldc, H, ldh);
}

/* ---- LD windows pair by pair: the popcount kernels' word pairs (AVX2's
 * where the CPU has it, also under AVX-512: pairs of short runs gain
 * nothing from wider vectors); the reference and int8 kernels compute
 * strips instead. */
sm_ccc2_band_fn sm_kern_pick_ccc2_band(sm_kvar_t v)
{
  if (sm_kern_unusable(v, 1) || v == SM_KVAR_REF || v == SM_KVAR_VNNI || v == SM_KVAR_AMX)
    return NULL;
  return sm_cpu_get()->avx2 && v != SM_KVAR_BLOCKED ? sm_kern_ccc2_band_avx2
                                                    : sm_kern_ccc2_band_popc;
}
