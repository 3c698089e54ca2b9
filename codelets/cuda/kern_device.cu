/* kern_device.cu: the device kernels of codelets/device/sm_dev_kernels.h
 * compiled as CUDA, and their C launchers. The launch geometry is
 * sm_dev.h's, as for the OpenCL launches (codelet_*.c), and grids are
 * capped at the CUDA limits (the kernels stride over the rest). Every
 * launch is checked; in checking mode (sm_cuda_set_sync) every kernel's
 * run too, and a failure names its kernel (sm_cuda_take_failed). */
#include <cstdio>

#include <cublas_v2.h>

#include "sm_formulas.h"
#include "sm_saf_step.h"

#include "sm_dev.h"

#include "sm_dev_kernels.h"

#include "sm_kern_cuda.h"
#include "sm_kern_saf_cuda.h"

namespace
{

unsigned groups(size_t n, size_t tile)
{
  size_t g = (n + tile - 1) / tile;
  if (g > SM_DEV_MAX_GROUPS)
    g = SM_DEV_MAX_GROUPS;
  return (unsigned)(g ? g : 1);
}

int sync_mode;                   /* set once, before any launch */
thread_local const char *failed; /* what failed last on this thread */
thread_local int lib_status;     /* the status a library refused with */

/* 0, or the error of the launch of kernel just queued on s and, in
 * checking mode, of its run */
int launched(const char *kernel, cudaStream_t s)
{
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && sync_mode)
    e = cudaStreamSynchronize(s);
  if (e != cudaSuccess)
    failed = kernel;
  return (int)e;
}

/* the kernel of family 0 (CCC), 1 (Czekanowski double) or 2 (single) */
const char *of_family(int family, const char *ccc, const char *czek_d, const char *czek_s)
{
  return family == 0 ? ccc : family == 1 ? czek_d : czek_s;
}

const dim3 block2(SM_DEV_TX, SM_DEV_TY);

} // namespace

extern "C" const char *sm_cuda_error_string(int err)
{
  static thread_local char refused[96];
  if (err == -1) {
    snprintf(refused, sizeof refused, "cuBLAS refused the GEMM: %s (status %d)",
             cublasGetStatusName((cublasStatus_t)lib_status), lib_status);
    return refused;
  }
  return err == -2 ? "the int8 GEMM's shape is outside cuBLAS's int8 rules (sm_i8_gemm.h)"
                   : cudaGetErrorString((cudaError_t)err);
}

extern "C" int sm_cuda_device_count(void)
{
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" void sm_cuda_set_sync(int on)
{
  sync_mode = on;
}

extern "C" int sm_cuda_sync_mode(void)
{
  return sync_mode;
}

extern "C" const char *sm_cuda_take_failed(void)
{
  const char *f = failed;
  failed = NULL;
  return f;
}

extern "C" int sm_cuda_lib_done(const char *what, int status, sm_cuda_stream_t s)
{
  if (status) {
    failed = what;
    lib_status = status;
    return -1;
  }
  return launched(what, (cudaStream_t)s);
}

namespace
{

/* one precision's Czekanowski launches (kernels of sm_dev_kernels.h) */
template <typename T>
int czek2(void (*kernel)(int, int, int, const T *, int, int, const T *, int, int, T *,
                         int, int),
          const char *name, size_t m, size_t n, size_t k, const T *A, size_t lda,
          const T *B, size_t ldb, T *C, size_t ldc, sm_cuda_stream_t s)
{
  dim3 grid(groups(n, SM_DEV_CZ_COLS), groups(m, SM_DEV_CZ_ROWS));
  kernel<<<grid, block2, 0, (cudaStream_t)s>>>((int)m, (int)n, (int)k, A, 0, (int)lda, B,
                                               0, (int)ldb, C, 0, (int)ldc);
  return launched(name, (cudaStream_t)s);
}

template <typename T>
int czek3(void (*kernel)(int, int, int, int, const T *, int, int, const T *, int, int,
                         const T *, int, int, T *, int, int, int, int, int),
          const char *name, size_t g, size_t mx, size_t my, size_t k, const T *P,
          size_t ldp, const T *X, size_t ldx, const T *Y, size_t ldy, T *out,
          const uint32_t *keep, sm_cuda_stream_t s)
{
  dim3 grid(groups(my, SM_DEV_CZ_COLS), groups(mx, SM_DEV_CZ_ROWS), groups(g, 1));
  kernel<<<grid, block2, 0, (cudaStream_t)s>>>(
      (int)g, (int)mx, (int)my, (int)k, P, 0, (int)ldp, X, 0, (int)ldx, Y, 0, (int)ldy,
      out, 0, (int)keep[0], (int)keep[1], (int)keep[2], (int)keep[3]);
  return launched(name, (cudaStream_t)s);
}

} // namespace

extern "C" int sm_cuda_czek2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                               const double *B, size_t ldb, double *C, size_t ldc,
                               sm_cuda_stream_t s)
{
  return czek2<double>(sm_czek2_d, "sm_czek2_d", m, n, k, A, lda, B, ldb, C, ldc, s);
}

extern "C" int sm_cuda_czek2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                               const float *B, size_t ldb, float *C, size_t ldc,
                               sm_cuda_stream_t s)
{
  return czek2<float>(sm_czek2_s, "sm_czek2_s", m, n, k, A, lda, B, ldb, C, ldc, s);
}

extern "C" int sm_cuda_czek3_d(size_t g, size_t mx, size_t my, size_t k, const double *P,
                               size_t ldp, const double *X, size_t ldx, const double *Y,
                               size_t ldy, double *out, const uint32_t *keep,
                               sm_cuda_stream_t s)
{
  return czek3<double>(sm_czek3_d, "sm_czek3_d", g, mx, my, k, P, ldp, X, ldx, Y, ldy,
                       out, keep, s);
}

extern "C" int sm_cuda_czek3_s(size_t g, size_t mx, size_t my, size_t k, const float *P,
                               size_t ldp, const float *X, size_t ldx, const float *Y,
                               size_t ldy, float *out, const uint32_t *keep,
                               sm_cuda_stream_t s)
{
  return czek3<float>(sm_czek3_s, "sm_czek3_s", g, mx, my, k, P, ldp, X, ldx, Y, ldy, out,
                      keep, s);
}

extern "C" int sm_cuda_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                            const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                            size_t ldc, sm_cuda_stream_t s)
{
  dim3 grid(groups(n, SM_DEV_C2_COLS), groups(m, SM_DEV_C2_ROWS));
  (sparse ? sm_ccc2_sparse : sm_ccc2_dense)<<<grid, block2, 0, (cudaStream_t)s>>>(
      (int)m, (int)n, (int)nf, A, 0, (int)lda, B, 0, (int)ldb, C, 0, (int)ldc);
  return launched(sparse ? "sm_ccc2_sparse" : "sm_ccc2_dense", (cudaStream_t)s);
}

extern "C" int sm_cuda_i8_expand(size_t rows, size_t prows, size_t nf, size_t kpad,
                                 const uint64_t *X, size_t ldx, int sparse,
                                 signed char *R, size_t ldr, sm_cuda_stream_t s)
{
  if (prows == 0)
    return 0;
  dim3 grid(groups(kpad, SM_DEV_TX), groups(prows, SM_DEV_TY));
  sm_i8_expand<<<grid, block2, 0, (cudaStream_t)s>>>(
      (int)rows, (int)prows, (int)nf, (int)kpad, X, 0, (int)ldx, sparse, R, 0, (int)ldr);
  return launched("sm_i8_expand", (cudaStream_t)s);
}

extern "C" int sm_cuda_i8_gather(size_t m, size_t n, int sparse, const int *G, size_t ldg,
                                 uint32_t *C, size_t ldc, sm_cuda_stream_t s)
{
  if (m == 0 || n == 0)
    return 0;
  dim3 grid(groups(n, SM_DEV_TX), groups(m, SM_DEV_TY));
  sm_i8_gather<<<grid, block2, 0, (cudaStream_t)s>>>((int)m, (int)n, sparse, G, 0,
                                                     (int)ldg, C, 0, (int)ldc);
  return launched("sm_i8_gather", (cudaStream_t)s);
}

extern "C" int sm_cuda_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P,
                            size_t ldp, const uint64_t *X, size_t ldx, const uint64_t *Y,
                            size_t ldy, int sparse, uint32_t *out, const uint32_t *keep,
                            sm_cuda_stream_t s)
{
  dim3 grid(groups(my, SM_DEV_C3_COLS), groups(mx, SM_DEV_C3_ROWS), groups(g, 1));
  (sparse ? sm_ccc3_sparse : sm_ccc3_dense)<<<grid, block2, 0, (cudaStream_t)s>>>(
      (int)g, (int)mx, (int)my, (int)nf, P, 0, (int)ldp, X, 0, (int)ldx, Y, 0, (int)ldy,
      out, 0, (int)keep[0], (int)keep[1], (int)keep[2], (int)keep[3]);
  return launched(sparse ? "sm_ccc3_sparse" : "sm_ccc3_dense", (cudaStream_t)s);
}

extern "C" int sm_cuda_add(int type, size_t nx, size_t ny, void *C, size_t ldc,
                           const void *B, size_t ldb, sm_cuda_stream_t s)
{
  if (nx == 0 || ny == 0)
    return 0;
  dim3 grid(groups(nx, SM_DEV_TX), groups(ny, SM_DEV_TY));
  const cudaStream_t st = (cudaStream_t)s;
  if (type == 0)
    sm_add_f64<<<grid, block2, 0, st>>>((int)nx, (int)ny, (double *)C, 0, (int)ldc,
                                        (const double *)B, 0, (int)ldb);
  else if (type == 1)
    sm_add_f32<<<grid, block2, 0, st>>>((int)nx, (int)ny, (float *)C, 0, (int)ldc,
                                        (const float *)B, 0, (int)ldb);
  else
    sm_add_u32<<<grid, block2, 0, st>>>((int)nx, (int)ny, (sm_u32 *)C, 0, (int)ldc,
                                        (const sm_u32 *)B, 0, (int)ldb);
  return launched(type == 0 ? "sm_add_f64" : type == 1 ? "sm_add_f32" : "sm_add_u32", st);
}

#define SM_FIN2_ARGS f->m, f->n, f->i0, f->j0, f->flags, f->nf, f->mult, f->param, f->thr
extern "C" int sm_cuda_fin2_count(const sm_cuda_fin2_t *f, uint32_t *rowcnt,
                                  uint64_t *part, unsigned groups, sm_cuda_stream_t s)
{
  const cudaStream_t st = (cudaStream_t)s;
  const int ld = (int)f->ldn;
  if (f->family == 0)
    sm_fin2_count_ccc<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(
        SM_FIN2_ARGS, (const sm_u32 *)f->num, 0, ld, (const sm_u32 *)f->si, 0,
        (const sm_u32 *)f->sj, 0, rowcnt, (sm_u64 *)part);
  else if (f->family == 1)
    sm_fin2_count_czek_d<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(
        SM_FIN2_ARGS, (const double *)f->num, 0, ld, (const double *)f->si, 0,
        (const double *)f->sj, 0, rowcnt, (sm_u64 *)part);
  else
    sm_fin2_count_czek_s<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(
        SM_FIN2_ARGS, (const float *)f->num, 0, ld, (const float *)f->si, 0,
        (const float *)f->sj, 0, rowcnt, (sm_u64 *)part);
  return launched(of_family(f->family, "sm_fin2_count_ccc", "sm_fin2_count_czek_d",
                            "sm_fin2_count_czek_s"),
                  st);
}

extern "C" int sm_cuda_fin2_emit(const sm_cuda_fin2_t *f, const uint64_t *rowoff,
                                 void *rec, unsigned groups, sm_cuda_stream_t s)
{
  const cudaStream_t st = (cudaStream_t)s;
  const int ld = (int)f->ldn;
  unsigned char *r = (unsigned char *)rec;
  if (f->family == 0)
    sm_fin2_emit_ccc<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(
        SM_FIN2_ARGS, (const sm_u32 *)f->num, 0, ld, (const sm_u32 *)f->si, 0,
        (const sm_u32 *)f->sj, 0, (const sm_u64 *)rowoff, r, 0);
  else if (f->family == 1)
    sm_fin2_emit_czek_d<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(
        SM_FIN2_ARGS, (const double *)f->num, 0, ld, (const double *)f->si, 0,
        (const double *)f->sj, 0, (const sm_u64 *)rowoff, r, 0);
  else
    sm_fin2_emit_czek_s<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(
        SM_FIN2_ARGS, (const float *)f->num, 0, ld, (const float *)f->si, 0,
        (const float *)f->sj, 0, (const sm_u64 *)rowoff, r, 0);
  return launched(of_family(f->family, "sm_fin2_emit_ccc", "sm_fin2_emit_czek_d",
                            "sm_fin2_emit_czek_s"),
                  st);
}

namespace
{
/* one family's two 3-way finalize passes, numerators of type T */
template <typename T>
int fin3(void (*count)(SM_DEV_FIN3_ARGS(T, T), sm_u32 *, sm_u64 *),
         void (*emit)(SM_DEV_FIN3_ARGS(T, T), const sm_u64 *, unsigned char *, int),
         const sm_cuda_fin3_t *f, uint32_t *rowcnt, uint64_t *part,
         const uint64_t *rowoff, void *rec, unsigned groups, cudaStream_t st)
{
#define SM_FIN3_LAUNCH                                                                   \
  f->g, f->mx, f->my, f->a_glob, f->a_off, f->x0, f->y0, f->kind, f->flags, f->nf,       \
      f->mult, f->param, f->thr, (const T *)f->num3, 0, (int)f->ld3, (const T *)f->nax,  \
      0, (int)f->ldax, (const T *)f->nay, 0, (int)f->lday, (const T *)f->nxy, 0,         \
      (int)f->ldxy, (const T *)f->sa, 0, (const T *)f->sx, 0, (const T *)f->sy, 0
  if (rec)
    emit<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(SM_FIN3_LAUNCH, (const sm_u64 *)rowoff,
                                                (unsigned char *)rec, 0);
  else
    count<<<groups, SM_DEV_SAF_THREADS, 0, st>>>(SM_FIN3_LAUNCH, rowcnt, (sm_u64 *)part);
#undef SM_FIN3_LAUNCH
  return launched(rec ? of_family(f->family, "sm_fin3_emit_ccc", "sm_fin3_emit_czek_d",
                                  "sm_fin3_emit_czek_s")
                      : of_family(f->family, "sm_fin3_count_ccc", "sm_fin3_count_czek_d",
                                  "sm_fin3_count_czek_s"),
                  st);
}

int fin3_family(const sm_cuda_fin3_t *f, uint32_t *rowcnt, uint64_t *part,
                const uint64_t *rowoff, void *rec, unsigned groups, sm_cuda_stream_t s)
{
  const cudaStream_t st = (cudaStream_t)s;
  if (f->family == 0)
    return fin3<sm_u32>(sm_fin3_count_ccc, sm_fin3_emit_ccc, f, rowcnt, part, rowoff, rec,
                        groups, st);
  if (f->family == 1)
    return fin3<double>(sm_fin3_count_czek_d, sm_fin3_emit_czek_d, f, rowcnt, part,
                        rowoff, rec, groups, st);
  return fin3<float>(sm_fin3_count_czek_s, sm_fin3_emit_czek_s, f, rowcnt, part, rowoff,
                     rec, groups, st);
}
} // namespace

extern "C" int sm_cuda_fin3_count(const sm_cuda_fin3_t *f, uint32_t *rowcnt,
                                  uint64_t *part, unsigned groups, sm_cuda_stream_t s)
{
  return fin3_family(f, rowcnt, part, NULL, NULL, groups, s);
}

extern "C" int sm_cuda_fin3_emit(const sm_cuda_fin3_t *f, const uint64_t *rowoff,
                                 void *rec, unsigned groups, sm_cuda_stream_t s)
{
  return fin3_family(f, NULL, NULL, rowoff, rec, groups, s);
}

extern "C" int sm_cuda_saf(size_t nsites, size_t nind, const double *gl, size_t ldgl,
                           double *out, size_t ldout, sm_saf_site_t *info,
                           sm_cuda_saf_stream_t s)
{
  if (nsites == 0)
    return 0;
  sm_saf<<<groups(nsites, 1), SM_DEV_SAF_THREADS, 0, (cudaStream_t)s>>>(
      (int)nsites, (int)nind, gl, 0, (int)ldgl, out, 0, (int)ldout, (sm_u32 *)info, 0);
  return launched("sm_saf", (cudaStream_t)s);
}

extern "C" int sm_cuda_fin_parts(unsigned groups, uint64_t *part, sm_cuda_stream_t s)
{
  sm_fin_parts<<<1, SM_DEV_SAF_THREADS, 0, (cudaStream_t)s>>>((int)groups,
                                                              (sm_u64 *)part);
  return launched("sm_fin_parts", (cudaStream_t)s);
}
