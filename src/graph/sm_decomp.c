/* sm_decomp.c: partitions, slices, tiles, the block-circulant 2-way block
 * set, replicas and phases (pure arithmetic, tested exhaustively). */
#include "sm_decomp.h"

#include <stdint.h>
#include <stdlib.h>

sm_err_t sm_decomp_check(const sm_decomp_t *d, int nranks)
{
  if (d->npv < 1 || d->npf < 1 || d->npr < 1) {
    sm_log_error("--num-proc-vector, --num-proc-field and --num-proc-repl must be >= 1");
    return SM_EOPTION;
  }
  if ((long)d->npv * d->npf * d->npr != nranks) {
    sm_log_error("the rank grid %d x %d x %d (--num-proc-vector x --num-proc-field x "
                 "--num-proc-repl) = %ld does not match the %d MPI ranks; make the "
                 "product equal the rank count%s",
                 d->npv, d->npf, d->npr, (long)d->npv * d->npf * d->npr, nranks,
                 nranks == 1 ? " (start the ranks with an MPI launcher: mpirun -np N "
                               "starmet ..., srun ...)"
                             : "");
    return SM_EOPTION;
  }
  if (d->nv < (size_t)d->npv) {
    sm_log_error("%zu vectors cannot fill %d vector partitions (--num-proc-vector): "
                 "use at most %zu",
                 d->nv, d->npv, d->nv);
    return SM_EOPTION;
  }
  if (d->nf < (size_t)d->npf) {
    sm_log_error("%zu fields cannot fill %d field slices (--num-proc-field): use at "
                 "most %zu",
                 d->nf, d->npf, d->nf);
    return SM_EOPTION;
  }
  if (d->num_phase < 1) {
    sm_log_error("--num-phase must be >= 1");
    return SM_EOPTION;
  }
  if (d->block_size < 1) {
    sm_log_error("--block-size must be >= 1");
    return SM_EOPTION;
  }
  return SM_OK;
}

int sm_decomp_rank(const sm_decomp_t *d, int pv, int pf, int pr)
{
  return pv + d->npv * (pr + d->npr * pf);
}

void sm_decomp_coords(const sm_decomp_t *d, int rank, int *pv, int *pf, int *pr)
{
  *pv = rank % d->npv;
  *pr = (rank / d->npv) % d->npr;
  *pf = rank / (d->npv * d->npr);
}

/* balanced cut of n items into p parts: part x is [x n / p, (x+1) n / p) */
static size_t cut_at(size_t n, int p, int x)
{
  /* 64-bit when n x fits (the usual case: no 128-bit division, which is a
   * library call; this runs for every tile of every task submitted) */
  if (n <= UINT32_MAX) /* x < 2^31: n x < 2^63 */
    return (size_t)((uint64_t)n * (unsigned)x / (unsigned)p);
  return (size_t)((unsigned __int128)n * (unsigned)x / (unsigned)p);
}

static void cut(size_t n, int p, int x, size_t *start, size_t *count)
{
  size_t a = cut_at(n, p, x);
  size_t b = cut_at(n, p, x + 1);
  *start = a;
  *count = b - a;
}

void sm_decomp_part(const sm_decomp_t *d, int I, size_t *v0, size_t *nv)
{
  cut(d->nv, d->npv, I, v0, nv);
}

void sm_decomp_slice(const sm_decomp_t *d, int f, size_t *f0, size_t *nf)
{
  cut(d->nf, d->npf, f, f0, nf);
}

int sm_decomp_ntiles(const sm_decomp_t *d, int I)
{
  size_t v0, n;
  sm_decomp_part(d, I, &v0, &n);
  return (int)((n + d->block_size - 1) / d->block_size);
}

void sm_decomp_tile(const sm_decomp_t *d, int I, int t, size_t *v0, size_t *nv)
{
  size_t p0, n;
  sm_decomp_part(d, I, &p0, &n);
  *v0 = (size_t)t * d->block_size;
  *nv = n - *v0 < d->block_size ? n - *v0 : d->block_size;
}

int sm_decomp_row_blocks(const sm_decomp_t *d, int I)
{
  (void)I;
  return d->npv / 2 + 1;
}

int sm_decomp_half_block(const sm_decomp_t *d, int k)
{
  return d->npv % 2 == 0 && d->npv > 1 && k == d->npv / 2;
}

sm_subblock_t *sm_decomp_subblocks2(const sm_decomp_t *d, int I, int pr, size_t *n,
                                    sm_err_t *err)
{
  *n = 0;
  *err = SM_OK;
  size_t cap = 0;
  int nb = sm_decomp_row_blocks(d, I);
  int tI = sm_decomp_ntiles(d, I);
  for (int k = 0; k < nb; k++) {
    int J = (I + k) % d->npv, tJ = sm_decomp_ntiles(d, J);
    cap += k == 0 ? (size_t)tI * (tI + 1) / 2 : (size_t)tI * tJ;
  }
  sm_subblock_t *s = malloc((cap ? cap : 1) * sizeof *s);
  if (!s) {
    *err = SM_ENOMEM;
    return NULL;
  }
  /* the row's tile pairs in order, dealt round-robin over the replicas
   * (rotated by the row, so rows' extra pairs land on different replicas),
   * then this replica's pairs dealt round-robin over the phases */
  uint64_t row_idx = 0;
  for (int k = 0; k < nb; k++) {
    int J = (I + k) % d->npv, tJ = sm_decomp_ntiles(d, J);
    /* for even npv, rows I and I + npv/2 both reach this block and share
     * it: tile pairs of even a + b on the lower row, odd on the upper one
     * (the pair (a, b) of one row is (b, a) of the other) */
    const int half = sm_decomp_half_block(d, k), upper = I >= d->npv / 2;
    for (int a = 0; a < tI; a++)
      for (int b = k == 0 ? a : 0; b < tJ; b++) {
        if (half && (a + b) % 2 != upper)
          continue;
        if ((int)((row_idx++ + (uint64_t)I) % (uint64_t)d->npr) != pr)
          continue;
        sm_subblock_t *x = &s[*n];
        x->I = I;
        x->J = J;
        x->tI = a;
        x->tJ = b;
        x->k = k;
        x->seq = *n;
        x->phase = (int)(*n % (size_t)d->num_phase);
        (*n)++;
      }
  }
  if (!*n) {
    free(s);
    return NULL;
  }
  return s;
}

void sm_decomp_stage(size_t a0, size_t a1, int st, int nst, size_t *lo, size_t *hi)
{
  size_t n = a1 - a0, s0, c;
  cut(n, nst, st, &s0, &c);
  *lo = a0 + s0;
  *hi = a0 + s0 + c;
}

/* rank of the permutation (I,J,K) of three distinct values among the six
 * lexicographic orderings of their sorted set */
static int perm_rank(int I, int J, int K)
{
  int r1 = (I > J) + (I > K); /* position of I in the sorted triple */
  int r2 = J > K;             /* order of the remaining two */
  return 2 * r1 + r2;
}

sm_slice3_t *sm_decomp_slices3(const sm_decomp_t *d, int I, int pr, size_t *n,
                               sm_err_t *err)
{
  const int npv = d->npv;
  size_t cap = (size_t)(npv + 1) * (npv + 2);
  *n = 0;
  *err = SM_OK;
  sm_slice3_t *out = malloc(cap * sizeof *out);
  if (!out) {
    *err = SM_ENOMEM;
    return NULL;
  }
  uint64_t sb = 0; /* the row's slice counter, dealt over the replicas */
  size_t nI, v0;
  sm_decomp_part(d, I, &v0, &nI);
#define SM_PUSH(kind_, J_, K_, pa_, px_, py_, s_, na_)                                   \
  do {                                                                                   \
    if ((int)((sb++ + (uint64_t)I) % (uint64_t)d->npr) == pr) {                          \
      sm_slice3_t *x = &out[*n];                                                         \
      size_t c0, cc;                                                                     \
      cut((na_), 6, (s_), &c0, &cc);                                                     \
      *x = (sm_slice3_t){.kind = (kind_),                                                \
                         .I = I,                                                         \
                         .J = (J_),                                                      \
                         .K = (K_),                                                      \
                         .pa = (pa_),                                                    \
                         .px = (px_),                                                    \
                         .py = (py_),                                                    \
                         .s = (s_),                                                      \
                         .a0 = c0,                                                       \
                         .a1 = c0 + cc,                                                  \
                         .seq = *n,                                                      \
                         .phase = (int)(*n % (size_t)d->num_phase)};                     \
      (*n)++;                                                                            \
    }                                                                                    \
  } while (0)
  for (int s = 0; s < 6; s++)
    SM_PUSH(SM_SLICE_DIAG, I, I, I, I, I, s, nI);
  for (int k = 1; k < npv; k++) {
    int J = (I + k) % npv;
    for (int s = 0; s < 6; s++)
      SM_PUSH(SM_SLICE_FACE, J, J, I, J, J, s, nI);
  }
  for (int kj = 1; kj < npv; kj++)
    for (int kk = 1; kk < npv; kk++) {
      if (kk == kj)
        continue;
      int J = (I + kj) % npv, K = (I + kk) % npv;
      int lo = I < J ? (I < K ? I : K) : (J < K ? J : K);
      int hi = I > J ? (I > K ? I : K) : (J > K ? J : K);
      int mid = I + J + K - lo - hi;
      size_t na, a00;
      sm_decomp_part(d, lo, &a00, &na);
      SM_PUSH(SM_SLICE_VOLUME, J, K, lo, mid, hi, perm_rank(I, J, K), na);
    }
#undef SM_PUSH
  if (!*n) {
    free(out);
    return NULL;
  }
  return out;
}
