/* kern_czek2_sparse_impl.h: the sparse Czekanowski 2-way numerators, sums
 * and check, written once for float and double. Included by
 * kern_czek2_sparse.c with SM_T (element type) and SM_SFX (name suffix)
 * defined. */

#define SM_CAT_(a, b) a##b
#define SM_CAT(a, b) SM_CAT_(a, b)
#define SM_NAME(name) SM_CAT(name, SM_SFX)

void SM_NAME(sm_kern_czek2_sparse_)(const void *Abuf, const void *Bbuf, SM_T *C,
                                    size_t ldc)
{
  const sm_csr_view_t A = sm_csr_view(Abuf), B = sm_csr_view(Bbuf);
  const SM_T *av = A.val, *bv = B.cval;
  const int diag = Abuf == Bbuf;
  for (size_t i = 0; i < A.rows; i++)
    for (size_t j = 0; j < B.rows; j++)
      C[i * ldc + j] = 0;
  /* each C[i][j] adds its terms in ascending field order (the order of
   * row i's entries), as the reference's merge does */
  for (size_t i = 0; i < A.rows; i++) {
    SM_T *restrict Ci = C + i * ldc;
    for (uint64_t p = A.roff[i]; p < A.roff[i + 1]; p++) {
      const uint32_t f = A.idx[p];
      const SM_T a = av[p];
      const uint32_t q0 = B.coff[f], q1 = B.coff[f + 1];
      if (diag) { /* only the pairs j > i: those the finalize reads */
        for (uint32_t q = q1; q > q0 && B.ridx[q - 1] > i; q--) {
          const SM_T b = bv[q - 1];
          Ci[B.ridx[q - 1]] += a < b ? a : b;
        }
      } else {
        for (uint32_t q = q0; q < q1; q++) {
          const SM_T b = bv[q];
          Ci[B.ridx[q]] += a < b ? a : b;
        }
      }
    }
  }
}

void SM_NAME(sm_kern_czek2_sparse_ref_)(const void *Abuf, const void *Bbuf, SM_T *C,
                                        size_t ldc)
{
  const sm_csr_view_t A = sm_csr_view(Abuf), B = sm_csr_view(Bbuf);
  const SM_T *av = A.val, *bv = B.val;
  const int diag = Abuf == Bbuf;
  for (size_t i = 0; i < A.rows; i++)
    for (size_t j = 0; j < B.rows; j++) {
      SM_T s = 0;
      if (!diag || j > i) { /* merge of the two rows' ascending fields */
        uint64_t p = A.roff[i], q = B.roff[j];
        while (p < A.roff[i + 1] && q < B.roff[j + 1]) {
          if (A.idx[p] < B.idx[q])
            p++;
          else if (A.idx[p] > B.idx[q])
            q++;
          else {
            const SM_T a = av[p++], b = bv[q++];
            s += a < b ? a : b;
          }
        }
      }
      C[i * ldc + j] = s;
    }
}

void SM_NAME(sm_kern_sums_czek_sparse_)(const void *Xbuf, SM_T *s)
{
  const sm_csr_view_t X = sm_csr_view(Xbuf);
  const SM_T *xv = X.val;
  for (size_t v = 0; v < X.rows; v++) {
    double t = 0; /* as the dense sums: in double, fields in order */
    for (uint64_t p = X.roff[v]; p < X.roff[v + 1]; p++)
      t += xv[p];
    s[v] = (SM_T)t;
  }
}

int SM_NAME(sm_kern_verify_czek2_sparse_)(const void *Abuf, const void *Bbuf,
                                          const SM_T *C, size_t ldc)
{
  const sm_csr_view_t A = sm_csr_view(Abuf), B = sm_csr_view(Bbuf);
  SM_T *R = malloc((A.rows * B.rows + 1) * sizeof *R);
  if (!R)
    return 0; /* cannot check: the task is not vouched for */
  SM_NAME(sm_kern_czek2_sparse_ref_)(Abuf, Bbuf, R, B.rows);
  int ok = 1;
  /* the same sums in the same order: equal bit for bit (NaN-safe compare) */
  for (size_t i = 0; i < A.rows && ok; i++)
    ok = memcmp(R + i * B.rows, C + i * ldc, B.rows * sizeof *R) == 0;
  free(R);
  return ok;
}

#undef SM_NAME
#undef SM_CAT
#undef SM_CAT_
