/* sm_kern_cuda.h: C launchers of the CUDA kernels (codelets/device/
 * sm_dev_kernels.h compiled by nvcc in kern_device.cu, and the cuBLAS int8
 * path of kern_ccc2_gemm.cu). Asynchronous on the given stream (StarPU's
 * per-worker stream); no device-wide sync. Each returns 0, or the CUDA
 * error of the launch (sm_cuda_error_string tells what it is). */
#ifndef SM_KERN_CUDA_H
#define SM_KERN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *sm_cuda_stream_t;

/** The text of a launcher's error code. */
const char *sm_cuda_error_string(int err);

/** The CUDA devices the runtime sees (0 when it sees none or fails). */
int sm_cuda_device_count(void);

/** Checking mode (the codelets set it from STARMET_CUDA_SYNC): every
 * launcher then synchronises its stream after each kernel or library call
 * and returns the error of the work itself (an illegal address, a trap),
 * not only the launch's. Set before any launch. */
void sm_cuda_set_sync(int on);
int sm_cuda_sync_mode(void);
/** The kernel or library call whose launch or run failed last on this
 * thread (a launcher's non-zero return), or NULL; reading clears it. */
const char *sm_cuda_take_failed(void);
/** After a library call queued on stream s (cuBLAS) that returned status
 * (non-zero: refused): records what failed and returns -1; else, in
 * checking mode, synchronises and returns the call's CUDA error; 0. */
int sm_cuda_lib_done(const char *what, int status, sm_cuda_stream_t s);

int sm_cuda_czek2_d(size_t m, size_t n, size_t k, const double *A, size_t lda,
                    const double *B, size_t ldb, double *C, size_t ldc,
                    sm_cuda_stream_t stream);
int sm_cuda_czek2_s(size_t m, size_t n, size_t k, const float *A, size_t lda,
                    const float *B, size_t ldb, float *C, size_t ldc,
                    sm_cuda_stream_t stream);
int sm_cuda_ccc2(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                 const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
                 sm_cuda_stream_t stream);

/** One 2-way finalize (sm_fin2_count_* then sm_fin2_emit_* of
 * codelets/device): family 0 CCC, 1 Czekanowski double, 2 single; flags
 * SM_FIN_* (sm_dev.h); num (ld ldn, in pairs) and the sums on the device. */
typedef struct sm_cuda_fin2 {
  int family, m, n, i0, j0, flags, nf;
  double mult, param, thr;
  const void *num, *si, *sj;
  size_t ldn;
} sm_cuda_fin2_t;
int sm_cuda_fin2_count(const sm_cuda_fin2_t *f, uint32_t *rowcnt, uint64_t *part,
                       unsigned groups, sm_cuda_stream_t stream);
int sm_cuda_fin2_emit(const sm_cuda_fin2_t *f, const uint64_t *rowoff, void *rec,
                      unsigned groups, sm_cuda_stream_t stream);

/** The count pass's group sums added up into the slot after them
 * (sm_fin_parts): part holds groups + 1 slots of SM_FIN_PART_WORDS. */
int sm_cuda_fin_parts(unsigned groups, uint64_t *part, sm_cuda_stream_t stream);

/** One 3-way finalize (sm_fin3_count_* then sm_fin3_emit_*): family and
 * flags as for 2-way; the plane numerators num3 (ld3 elements per plane),
 * the 2-way numerators and the sums on the device. */
typedef struct sm_cuda_fin3 {
  int family, g, mx, my, a_glob, a_off, x0, y0, kind, flags, nf;
  double mult, param, thr;
  const void *num3, *nax, *nay, *nxy, *sa, *sx, *sy;
  size_t ld3, ldax, lday, ldxy;
} sm_cuda_fin3_t;
int sm_cuda_fin3_count(const sm_cuda_fin3_t *f, uint32_t *rowcnt, uint64_t *part,
                       unsigned groups, sm_cuda_stream_t stream);
int sm_cuda_fin3_emit(const sm_cuda_fin3_t *f, const uint64_t *rowoff, void *rec,
                      unsigned groups, sm_cuda_stream_t stream);

/** C += B on ny rows of nx elements: type 0 double, 1 float, 2 uint32. */
int sm_cuda_add(int type, size_t nx, size_t ny, void *C, size_t ldc, const void *B,
                size_t ldb, sm_cuda_stream_t stream);

/* keep[4]: the piece's kind, a0, x0, y0 (sm_keep3_t): blocks of (x, y)
 * with no kept triple are not computed (zeros), as on the CPU. */
int sm_cuda_czek3_d(size_t g, size_t mx, size_t my, size_t k, const double *P, size_t ldp,
                    const double *X, size_t ldx, const double *Y, size_t ldy, double *out,
                    const uint32_t *keep, sm_cuda_stream_t stream);
int sm_cuda_czek3_s(size_t g, size_t mx, size_t my, size_t k, const float *P, size_t ldp,
                    const float *X, size_t ldx, const float *Y, size_t ldy, float *out,
                    const uint32_t *keep, sm_cuda_stream_t stream);
int sm_cuda_ccc3(size_t g, size_t mx, size_t my, size_t nf, const uint64_t *P, size_t ldp,
                 const uint64_t *X, size_t ldx, const uint64_t *Y, size_t ldy, int sparse,
                 uint32_t *out, const uint32_t *keep, sm_cuda_stream_t stream);

/** The int8 form of rows code rows (sm_i8_expand of codelets/device): r
 * in rows 0..rows-1 and, sparse, m in rows rows..2 rows-1, then zero rows
 * up to prows (sm_i8_gemm_rows), kpad bytes of them at ld ldr. And the
 * int32 GEMM result G (ldg) -> interleaved moments of m x n pairs
 * (sm_i8_gather). */
int sm_cuda_i8_expand(size_t rows, size_t prows, size_t nf, size_t kpad,
                      const uint64_t *X, size_t ldx, int sparse, signed char *R,
                      size_t ldr, sm_cuda_stream_t stream);
int sm_cuda_i8_gather(size_t m, size_t n, int sparse, const int *G, size_t ldg,
                      uint32_t *C, size_t ldc, sm_cuda_stream_t stream);

/* CCC 2-way moments of m x n pairs through cuBLAS int8 GEMMs (tensor
 * cores where the GPU has them), in scratch (device memory of the
 * _scratch() bytes, free until the stream has run the task; 0 bytes: no
 * plan, the run returns -2). The shapes are sm_i8_gemm.h's plans.
 * cublas_handle: the worker's cublasHandle_t. Return 0, -1 when cuBLAS
 * refuses, -2 when the shape breaks cuBLAS's int8 rules (no plan, or
 * operands not 16-byte aligned), or a CUDA error.
 * sm_cuda_ccc2_gemm expands both code tiles into scratch first;
 * sm_cuda_ccc2_i8 takes tiles already in int8 form (sm_cuda_i8_expand:
 * arows and brows rows, sm_i8_gemm_rows(m or n, sparse), of lda8 / ldb8
 * bytes, kpad used: the graph's cached int8 tiles), its scratch holding
 * the int32 result only. */
size_t sm_cuda_ccc2_gemm_scratch(size_t m, size_t n, size_t nf, int sparse);
int sm_cuda_ccc2_gemm(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, uint32_t *C, size_t ldc,
                      void *scratch, sm_cuda_stream_t stream, void *cublas_handle);
size_t sm_cuda_ccc2_i8_scratch(size_t m, size_t n, size_t kpad, int sparse, size_t arows,
                               size_t lda8, size_t brows, size_t ldb8);
int sm_cuda_ccc2_i8(size_t m, size_t n, size_t kpad, const signed char *A8, size_t arows,
                    size_t lda8, const signed char *B8, size_t brows, size_t ldb8,
                    int sparse, uint32_t *C, size_t ldc, void *scratch,
                    sm_cuda_stream_t stream, void *cublas_handle);

#ifdef __cplusplus
}
#endif

#endif
