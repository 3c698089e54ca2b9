/* test_cuda_checks.c: the checking of the CUDA launchers (sm_kern_cuda.h),
 * in a build with the CUDA codelets. Every launcher that fails names its
 * kernel (sm_cuda_take_failed, cleared once read); a library call's refusal
 * is named with its status; the checking mode is kept. Without a GPU every
 * launch fails (no driver or no device), which exercises the naming of
 * each kernel. With one, a launch on valid memory passes and, in checking
 * mode, a kernel that reads an illegal address is caught by its own
 * launcher, named, instead of at a later synchronisation. */
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "sm_kern_cuda.h"
#include "sm_kern_saf_cuda.h"
#include "sm_test.h"

/* The kernel the last launch failed in: err must be non-zero. */
static void expect_failed(int err, const char *kernel)
{
  ck_assert_int_ne(err, 0);
  const char *f = sm_cuda_take_failed();
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f, kernel);
  ck_assert_ptr_null(sm_cuda_take_failed()); /* read once */
}

START_TEST(test_mode)
{
  sm_cuda_set_sync(1);
  ck_assert_int_eq(sm_cuda_sync_mode(), 1);
  sm_cuda_set_sync(0);
  ck_assert_int_eq(sm_cuda_sync_mode(), 0);
}
END_TEST

START_TEST(test_refused_library)
{
  ck_assert_int_eq(sm_cuda_lib_done("cublasGemmEx", 15, NULL), -1);
  ck_assert_ptr_nonnull(strstr(sm_cuda_error_string(-1), "CUBLAS_STATUS_NOT_SUPPORTED"));
  ck_assert_ptr_nonnull(strstr(sm_cuda_error_string(-1), "status 15"));
  ck_assert_str_eq(sm_cuda_take_failed(), "cublasGemmEx");
  ck_assert_ptr_null(sm_cuda_take_failed());
}
END_TEST

/* No GPU: every launcher fails, naming its kernel. */
START_TEST(test_names_without_gpu)
{
  if (sm_cuda_device_count() > 0)
    return; /* test_gpu's */
  for (int sync = 0; sync < 2; sync++) {
    sm_cuda_set_sync(sync);
    expect_failed(sm_cuda_czek2_d(1, 1, 1, NULL, 1, NULL, 1, NULL, 1, NULL),
                  "sm_czek2_d");
    expect_failed(sm_cuda_czek2_s(1, 1, 1, NULL, 1, NULL, 1, NULL, 1, NULL),
                  "sm_czek2_s");
    const uint32_t keep[4] = {0, 0, 0, 0}; /* the piece's kind, a0, x0, y0 */
    expect_failed(
        sm_cuda_czek3_d(1, 1, 1, 1, NULL, 1, NULL, 1, NULL, 1, NULL, keep, NULL),
        "sm_czek3_d");
    expect_failed(sm_cuda_ccc2(1, 1, 1, NULL, 1, NULL, 1, 1, NULL, 1, NULL),
                  "sm_ccc2_sparse");
    expect_failed(
        sm_cuda_ccc3(1, 1, 1, 1, NULL, 1, NULL, 1, NULL, 1, 0, NULL, keep, NULL),
        "sm_ccc3_dense");
    expect_failed(sm_cuda_fin_parts(1, NULL, NULL), "sm_fin_parts");
    expect_failed(sm_cuda_i8_gather(1, 1, 0, NULL, 4, NULL, 1, NULL), "sm_i8_gather");
    expect_failed(sm_cuda_add(1, 1, 1, NULL, 1, NULL, 1, NULL), "sm_add_f32");
    expect_failed(sm_cuda_add(2, 1, 1, NULL, 1, NULL, 1, NULL), "sm_add_u32");
    sm_cuda_fin2_t f2 = {.family = 2, .m = 1, .n = 1};
    expect_failed(sm_cuda_fin2_count(&f2, NULL, NULL, 1, NULL), "sm_fin2_count_czek_s");
    f2.family = 0;
    expect_failed(sm_cuda_fin2_emit(&f2, NULL, NULL, 1, NULL), "sm_fin2_emit_ccc");
    sm_cuda_fin3_t f3 = {.family = 1, .g = 1, .mx = 1, .my = 1};
    expect_failed(sm_cuda_fin3_count(&f3, NULL, NULL, 1, NULL), "sm_fin3_count_czek_d");
    char rec[8];
    expect_failed(sm_cuda_fin3_emit(&f3, NULL, rec, 1, NULL), "sm_fin3_emit_czek_d");
    expect_failed(sm_cuda_saf(1, 1, NULL, 1, NULL, 1, NULL, NULL), "sm_saf");
    /* a library call that queued fine: only checking mode looks further */
    const int err = sm_cuda_lib_done("cublasGemmEx", 0, NULL);
    if (err)
      ck_assert_str_eq(sm_cuda_take_failed(), "cublasGemmEx");
  }
  sm_cuda_set_sync(0);
}
END_TEST

/* A GPU: a valid launch passes; in checking mode an illegal address is
 * caught by the launcher that queued the kernel (the last test: the error
 * spoils the context). */
START_TEST(test_gpu)
{
  if (sm_cuda_device_count() == 0)
    return;
  double *dev = NULL;
  ck_assert_int_eq(cudaMalloc((void **)&dev, 8192 * sizeof(double)), cudaSuccess);
  ck_assert_int_eq(cudaMemset(dev, 0, 8192 * sizeof(double)), cudaSuccess);
  sm_cuda_set_sync(1);
  ck_assert_int_eq(sm_cuda_czek2_d(2, 2, 4, dev, 4, dev + 8, 4, dev + 16, 2, NULL), 0);
  ck_assert_ptr_null(sm_cuda_take_failed());
  const double *bad = (const double *)(uintptr_t)0x10;
  expect_failed(sm_cuda_czek2_d(64, 64, 64, bad, 64, bad, 64, dev + 4096, 64, NULL),
                "sm_czek2_d");
  sm_cuda_set_sync(0);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("cuda_checks");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_mode);
  tcase_add_test(tc, test_refused_library);
  tcase_add_test(tc, test_names_without_gpu);
  tcase_add_test(tc, test_gpu);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(suite)
