/* sm_ref.c: reference implementation: direct triple loops over vectors and
 * fields, no blocking, no bit tricks, double accumulation. */
#include "sm_ref.h"

#include <stdlib.h>

#include "sm_formulas.h"

static double czek_at(const sm_vectors_t *v, size_t i, size_t q)
{
  return v->elem_size == 4 ? (double)((const float *)sm_vectors_row(v, i))[q]
                           : ((const double *)sm_vectors_row(v, i))[q];
}

static unsigned code_at(const sm_vectors_t *v, size_t i, size_t q)
{
  return sm_gt_get(sm_vectors_row(v, i), q);
}

/* copies of allele `a` in entry code c: rho(1) = r, rho(0) = 2 - r */
static unsigned rho(unsigned c, unsigned a)
{
  unsigned r = c == SM_GT_2 ? 2 : (c == SM_GT_0 ? 0 : 1);
  return a ? r : 2 - r;
}

static double czek_n2(const sm_vectors_t *v, size_t i, size_t j)
{
  double s = 0;
  for (size_t q = 0; q < v->nf; q++) {
    double a = czek_at(v, i, q), b = czek_at(v, j, q);
    s += a < b ? a : b;
  }
  return s;
}

static void emit(sm_recbuf_t *rb, int way, size_t i, size_t j, size_t k, unsigned e,
                 double value)
{
  sm_rec_t *r = &rb->rec[rb->count++];
  r->idx[0] = (uint32_t)i;
  r->idx[1] = (uint32_t)j;
  r->idx[2] = way == 3 ? (uint32_t)k : 0;
  r->entry = e;
  r->value = value;
  sm_cksum_add(&rb->cksum, r->idx, way, e, value);
  rb->nvalues++;
}

sm_err_t sm_ref_run(const sm_vectors_t *v, const sm_ref_opts_t *o, sm_sink_t *sink)
{
  const size_t nv = v->nv, nf = v->nf;
  const int ccc = v->metric == SM_METRIC_CCC, sparse = ccc && o->sparse;
  double *sum = calloc(nv ? nv : 1, sizeof *sum);   /* czek sums */
  uint64_t *s1 = calloc(nv ? nv : 1, sizeof *s1);   /* ccc allele-1 */
  uint64_t *cnt = calloc(nv ? nv : 1, sizeof *cnt); /* ccc counted */
  size_t per = (nv ? nv : 1) * (ccc ? 8 : 1);
  sm_recbuf_t *rb = malloc(sizeof *rb + per * sizeof(sm_rec_t));
  if (!sum || !s1 || !cnt || !rb) {
    free(sum), free(s1), free(cnt), free(rb);
    return SM_ENOMEM;
  }
  for (size_t i = 0; i < nv; i++)
    for (size_t q = 0; q < nf; q++) {
      if (!ccc) {
        sum[i] += czek_at(v, i, q);
        continue;
      }
      unsigned c = code_at(v, i, q);
      if (sparse && c == SM_GT_MISSING)
        continue;
      s1[i] += rho(c, 1);
      cnt[i]++;
    }
  uint64_t block = 0;
  for (size_t i = 0; i < nv; i++) {
    *rb = (sm_recbuf_t){0};
    for (size_t j = i + 1; j < nv; j++) {
      if ((o->way == 3 && j + 1 >= nv) || (o->way == 2 && o->ld_win && j > o->ld_win[i]))
        continue;
      if (o->way == 3)
        *rb = (sm_recbuf_t){0};
      if (o->way == 2) {
        if (!ccc) {
          emit(rb, 2, i, j, 0, 0,
               sm_f_minsum2(o->form, o->zero_nan, czek_n2(v, i, j), sum[i], sum[j]));
        } else {
          uint64_t t[4] = {0, 0, 0, 0};
          for (size_t q = 0; q < nf; q++) {
            unsigned ci = code_at(v, i, q), cj = code_at(v, j, q);
            if (sparse && (ci == SM_GT_MISSING || cj == SM_GT_MISSING))
              continue;
            for (unsigned e = 0; e < 4; e++)
              t[e] += rho(ci, e >> 1) * rho(cj, e & 1);
          }
          double val[4];
          sm_ccc2_values(t, s1[i], s1[j], cnt[i], cnt[j], nf, !sparse, o->ccc_mult,
                         o->ccc_param, val);
          for (unsigned e = 0; e < 4; e++)
            emit(rb, 2, i, j, 0, e, val[e]);
        }
      } else {
        const double n2ij = ccc ? 0 : czek_n2(v, i, j);
        for (size_t k = j + 1; k < nv; k++) {
          if (!ccc) {
            double n3 = 0;
            for (size_t q = 0; q < nf; q++) {
              double a = czek_at(v, i, q), b = czek_at(v, j, q), c = czek_at(v, k, q);
              double m = a < b ? a : b;
              n3 += m < c ? m : c;
            }
            emit(rb, 3, i, j, k, 0,
                 sm_f_czek3(n2ij, czek_n2(v, i, k), czek_n2(v, j, k), n3, sum[i], sum[j],
                            sum[k]));
            continue;
          }
          uint64_t t[8] = {0};
          for (size_t q = 0; q < nf; q++) {
            unsigned ci = code_at(v, i, q), cj = code_at(v, j, q), ck = code_at(v, k, q);
            if (sparse &&
                (ci == SM_GT_MISSING || cj == SM_GT_MISSING || ck == SM_GT_MISSING))
              continue;
            for (unsigned e = 0; e < 8; e++)
              t[e] += rho(ci, e >> 2) * rho(cj, (e >> 1) & 1) * rho(ck, e & 1);
          }
          uint64_t ss[3] = {s1[i], s1[j], s1[k]}, cc[3] = {cnt[i], cnt[j], cnt[k]};
          double val[8];
          sm_ccc3_values(t, ss, cc, nf, !sparse, o->ccc_mult, o->ccc_param, val);
          for (unsigned e = 0; e < 8; e++)
            emit(rb, 3, i, j, k, e, val[e]);
        }
      }
      if (o->way == 3)
        sm_sink_put(sink, rb, NULL, block++);
    }
    if (o->way == 2)
      sm_sink_put(sink, rb, NULL, block++);
  }
  free(sum), free(s1), free(cnt), free(rb);
  return sink->err ? (sm_err_t)sink->err : SM_OK;
}
