/* sm_vectors.c: allocation and small helpers of the vector set. */
#define _POSIX_C_SOURCE 200809L
#include "sm_vectors.h"
#include "sm_huge.h"
#ifdef HAVE_CONFIG_H /* SM_SMPI (the fuzz targets build without it) */
#include "config.h"
#endif
#include <float.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

size_t sm_vectors_ld(sm_metric_t metric, size_t elem_size, size_t nf)
{
  if (metric == SM_METRIC_CCC) {
    size_t words = (nf + SM_GT_PER_WORD - 1) / SM_GT_PER_WORD;
    words = (words + 7) & ~(size_t)7; /* whole 64-byte lines */
    if (words == 0)
      words = 8;
    if ((words * 8) % 4096 == 0)
      words += 8; /* avoid power-of-two strides (cache set conflicts) */
    return words;
  }
  size_t per_line = 64 / elem_size;
  size_t ld = (nf + per_line - 1) / per_line * per_line;
  if (ld == 0)
    ld = per_line;
  if ((ld * elem_size) % 4096 == 0)
    ld += per_line;
  return ld;
}

sm_err_t sm_vectors_alloc(sm_vectors_t *v, sm_metric_t metric, size_t elem_size,
                          size_t nv, size_t nf)
{
  memset(v, 0, sizeof(*v));
  v->metric = metric;
  v->elem_size = metric == SM_METRIC_CCC ? 8 : elem_size;
  v->nv = nv;
  v->nf = nf;
  v->ld = sm_vectors_ld(metric, v->elem_size, nf);
  /* checked: a product that wraps would allocate too little */
  size_t bytes;
  if (__builtin_mul_overflow(v->ld, v->elem_size, &bytes) ||
      __builtin_mul_overflow(bytes, nv ? nv : 1, &bytes) || bytes > SIZE_MAX - 63) {
    sm_log_error("%zu vectors x %zu fields need more bytes than this machine can address",
                 nv, nf);
    return SM_ENOMEM;
  }
  bytes = (bytes + 63) & ~(size_t)63;
  v->data = sm_huge_alloc(bytes); /* a large set: huge pages, fewer faults */
  if (!v->data) {
    sm_log_error("cannot allocate %zu bytes for %zu vectors x %zu fields", bytes, nv, nf);
    return SM_ENOMEM;
  }
#ifndef SM_SMPI /* SimGrid's MPI: left untouched, no memory for simulated ranks */
  memset(v->data, 0, bytes);
#endif
  return SM_OK;
}

sm_err_t sm_vectors_alloc_sparse(sm_vectors_t *v, size_t elem_size, size_t nv, size_t nf,
                                 uint64_t nnz)
{
  memset(v, 0, sizeof(*v));
  v->metric = SM_METRIC_CZEK;
  v->elem_size = elem_size;
  v->nv = nv;
  v->nf = nf;
  v->ld = sm_vectors_ld(SM_METRIC_CZEK, elem_size, nf);
  const size_t n = nnz ? (size_t)nnz : 1;
  v->csr_off = calloc(nv + 1, sizeof *v->csr_off);
  v->csr_idx = malloc(n * sizeof *v->csr_idx);
  v->csr_val = malloc(n * elem_size);
  if (!v->csr_off || !v->csr_idx || !v->csr_val) {
    sm_log_error("cannot allocate %llu non-zero entries of %zu vectors",
                 (unsigned long long)nnz, nv);
    sm_vectors_free_values(v);
    return SM_ENOMEM;
  }
  return SM_OK;
}

sm_err_t sm_vectors_densify(sm_vectors_t *v)
{
  if (!sm_vectors_is_sparse(v))
    return SM_OK;
  sm_vectors_t d;
  sm_err_t err = sm_vectors_alloc(&d, SM_METRIC_CZEK, v->elem_size, v->nv, v->nf);
  if (err)
    return err;
  for (size_t i = 0; i < v->nv; i++)
    for (uint64_t p = v->csr_off[i]; p < v->csr_off[i + 1]; p++)
      memcpy((char *)sm_vectors_row(&d, i) + (size_t)v->csr_idx[p] * v->elem_size,
             (const char *)v->csr_val + p * v->elem_size, v->elem_size);
  sm_vectors_free_values(v);
  v->data = d.data;
  v->ld = d.ld;
  return SM_OK;
}

void sm_vectors_free_values(sm_vectors_t *v)
{
  free(v->data);
  free(v->csr_off);
  free(v->csr_idx);
  free(v->csr_val);
  v->data = NULL;
  v->csr_off = NULL;
  v->csr_idx = NULL;
  v->csr_val = NULL;
}

void sm_vectors_free(sm_vectors_t *v)
{
  if (!v)
    return;
  sm_vectors_free_values(v);
  if (v->names) {
    for (size_t i = 0; i < v->nv; i++)
      free(v->names[i]);
    free(v->names);
  }
  v->data = NULL;
  v->names = NULL;
}

/* the hardware popcount where the CPU has it (GCC's clones) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
void sm_vectors_count_missing(sm_vectors_t *v)
{
  size_t n = 0;
  if (v->metric == SM_METRIC_CCC) {
    for (size_t i = 0; i < v->nv; i++) {
      const uint64_t *row = sm_vectors_row(v, i);
      for (size_t w = 0; w < v->ld; w++) {
        /* code 10: high bit set, low bit clear */
        uint64_t hi = (row[w] >> 1) & 0x5555555555555555ull;
        uint64_t lo = row[w] & 0x5555555555555555ull;
        n += (size_t)__builtin_popcountll(hi & ~lo);
      }
    }
  }
  v->nmissing = n;
}

sm_err_t sm_vectors_set_names(sm_vectors_t *v, char **names)
{
  if (v->names) {
    for (size_t i = 0; i < v->nv; i++)
      free(v->names[i]);
    free(v->names);
    v->names = NULL;
  }
  if (!names)
    return SM_OK;
  v->names = calloc(v->nv ? v->nv : 1, sizeof(char *));
  if (!v->names)
    return SM_ENOMEM;
  for (size_t i = 0; i < v->nv; i++) {
    v->names[i] = strdup(names[i]);
    if (!v->names[i])
      return SM_ENOMEM;
  }
  return SM_OK;
}

sm_err_t sm_vectors_check_czek(const sm_vectors_t *v, const char *what)
{
  for (size_t i = 0; i < v->nv; i++) {
    for (size_t f = 0; f < v->nf; f++) {
      double x = v->elem_size == 4 ? ((const float *)sm_vectors_row(v, i))[f]
                                   : ((const double *)sm_vectors_row(v, i))[f];
      if (!(x >= 0.0) || isinf(x)) {
        char idx[32];
        snprintf(idx, sizeof idx, "%zu", i + 1);
        sm_log_error("%s: vector %s, field %zu: value %g is not allowed for "
                     "czekanowski (entries must be finite and >= 0)",
                     what, v->names ? v->names[i] : idx, f + 1, x);
        return SM_EVALUE;
      }
    }
  }
  return SM_OK;
}

double sm_vectors_max_sum(const sm_vectors_t *v)
{
  long double best = 0; /* long double: no overflow for any float or double row */
  for (size_t i = 0; v->metric == SM_METRIC_CZEK && i < v->nv; i++) {
    long double s = 0;
    if (sm_vectors_is_sparse(v)) {
      for (uint64_t p = v->csr_off[i]; p < v->csr_off[i + 1]; p++)
        s += v->elem_size == 4 ? (long double)((const float *)v->csr_val)[p]
                               : (long double)((const double *)v->csr_val)[p];
      if (s > best)
        best = s;
      continue;
    }
    const void *row = sm_vectors_row(v, i);
    for (size_t q = 0; q < v->nf; q++)
      s += v->elem_size == 4 ? (long double)((const float *)row)[q]
                             : (long double)((const double *)row)[q];
    if (s > best)
      best = s;
  }
  return best > DBL_MAX ? INFINITY : (double)best;
}
