/* fuzz_read.c: libFuzzer targets for starmet's parsers. Built once per
 * target with -DSM_FUZZ_<TARGET> (scripts/fuzz): TSV, NPY, PLINK (.bim,
 * .fam and .bed), RAW, VCF (genotypes for compute), GL (maf's BEAGLE and
 * VCF GL/PL likelihoods), MANIFEST (the --resume manifest) and OPTIONS
 * (the command lines of compute, synth and maf). Each writes the fuzzer's
 * bytes to files, or splits them into arguments, and runs the parser on
 * them (readers whole and on a slice); a parser may reject the input but
 * must not crash, leak or read out of bounds. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_read.h"
#if defined(SM_FUZZ_GL)
#include "sm_gl.h"
#elif defined(SM_FUZZ_MANIFEST)
#include "sm_resume.h"
#elif defined(SM_FUZZ_OPTIONS)
#include "sm_maf.h"
#include "sm_options.h"
#include "sm_paje.h"
#endif

static char dir[64];

#if defined(SM_FUZZ_OPTIONS)
/* the option parsers' links to the runtime: one rank, every kernel built */
int sm_mpi_rank(void)
{
  return 0;
}
unsigned sm_codelets_where(sm_task_kind_t kind)
{
  return (void)kind, 0;
}
const char *sm_codelets_kernel_check(sm_kernel_t kernel, int ccc)
{
  return (void)kernel, (void)ccc, NULL;
}
int sm_codelets_cuda_devices(void)
{
  return 0;
}
int sm_codelets_runtime_retry_available(void)
{
  return 1;
}
/* a StarPU without FxT, as Debian's: --trace-paje is refused */
int sm_paje_available(char *why, size_t len)
{
  snprintf(why, len, "this StarPU has no FxT");
  return 0;
}
sm_err_t sm_paje_check(const char *path)
{
  return (void)path, SM_OK;
}
#endif

static void put(const char *name, const uint8_t *data, size_t n, char *path, size_t len)
{
  snprintf(path, len, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f)
    abort();
  if (n && fwrite(data, 1, n, f) != n)
    abort();
  fclose(f);
}

static void read_twice(sm_err_t (*rd)(const char *, const sm_read_opts_t *,
                                      sm_vectors_t *, sm_dims_t *),
                       const char *path, sm_read_opts_t o)
{
  sm_vectors_t v;
  sm_dims_t dims;
  if (rd(path, &o, &v, &dims) == SM_OK) {
    sm_vectors_free(&v);
    /* a slice in the middle, as one rank of several reads */
    o.v0 = dims.nv / 2;
    o.vcount = dims.nv - o.v0 > 3 ? 3 : 0;
    o.f0 = dims.nf / 3;
    if (rd(path, &o, &v, NULL) == SM_OK)
      sm_vectors_free(&v);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  snprintf(dir, sizeof dir, "/tmp/smfuzz.XXXXXX");
  if (!mkdtemp(dir))
    abort();
  /* errors are expected by the thousand: keep them quiet */
  sm_log_set_quiet(getenv("SM_FUZZ_VERBOSE") ? 0 : 2);
#if defined(SM_FUZZ_OPTIONS)
  /* --help and --sched help print their text: not needed here */
  if (!getenv("SM_FUZZ_VERBOSE") && !freopen("/dev/null", "w", stdout))
    abort();
#endif
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[128];
  sm_read_opts_t o = {.metric = SM_METRIC_CZEK, .elem_size = 8};
#if defined(SM_FUZZ_TSV)
  put("in.tsv", data, size, path, sizeof path);
  o.transpose = size & 1;
  read_twice(sm_read_tsv, path, o);
#elif defined(SM_FUZZ_NPY)
  put("in.npy", data, size, path, sizeof path);
  read_twice(sm_read_npy, path, o);
  o.metric = SM_METRIC_CCC;
  read_twice(sm_read_npy, path, o);
#elif defined(SM_FUZZ_PLINK)
  /* the input is .bim, a NUL, .fam, a NUL, then the .bed bytes */
  const uint8_t *z1 = memchr(data, 0, size);
  size_t n1 = z1 ? (size_t)(z1 - data) : size;
  const uint8_t *rest = z1 ? z1 + 1 : data + size;
  size_t nrest = size - (size_t)(rest - data);
  const uint8_t *z2 = memchr(rest, 0, nrest);
  size_t n2 = z2 ? (size_t)(z2 - rest) : nrest;
  const uint8_t *bed = z2 ? z2 + 1 : rest + nrest;
  size_t n3 = size - (size_t)(bed - data);
  char prefix[80];
  put("g.bim", data, n1, path, sizeof path);
  put("g.fam", rest, n2, path, sizeof path);
  put("g.bed", bed, n3, path, sizeof path);
  snprintf(prefix, sizeof prefix, "%s/g", dir);
  o.metric = SM_METRIC_CCC;
  read_twice(sm_read_plink, prefix, o);
#elif defined(SM_FUZZ_RAW)
  put("in.bin", data, size, path, sizeof path);
  o.num_field = 1 + (size ? data[0] % 37 : 0);
  read_twice(sm_read_raw, path, o);
  o.raw_elem_size = 4;
  read_twice(sm_read_raw, path, o);
  o.metric = SM_METRIC_CCC;
  read_twice(sm_read_raw, path, o);
#elif defined(SM_FUZZ_VCF)
  put("in.vcf", data, size, path, sizeof path);
  o.metric = SM_METRIC_CCC;
  read_twice(sm_read_vcf, path, o);
#elif defined(SM_FUZZ_GL)
  /* the first byte chooses the format, the rest is the file */
  const int vcf = size && (data[0] & 1);
  put(vcf ? "in.vcf" : "in.beagle", size ? data + 1 : data, size ? size - 1 : 0, path,
      sizeof path);
  sm_gl_reader_t *r = NULL;
  if (sm_gl_open(path, vcf ? SM_GL_VCF : SM_GL_BEAGLE, &r) == SM_OK) {
    sm_gl_sites_t b = {0};
    size_t n = 0;
    for (int k = 0; k < 64; k++)
      if (sm_gl_read(r, 3, k & 1, &b, &n) != SM_OK || n < 3)
        break;
    sm_gl_sites_free(&b);
  }
  sm_gl_close(r);
#elif defined(SM_FUZZ_MANIFEST)
  /* a manifest for the fingerprint "fp", resumed */
  put("m.manifest", data, size, path, sizeof path);
  sm_manifest_t m;
  if (sm_manifest_read(&m, path, "fp", 1) == SM_OK) {
    for (size_t k = 0; k < 4; k++)
      (void)sm_manifest_is_done(&m, k);
    /* its own bytes as the partial output it vouches for */
    const int fd = open(path, O_RDONLY);
    uint64_t end;
    uint32_t crc;
    if (fd >= 0) {
      if (sm_manifest_trim(&m, fd, "m.part", &end, &crc) == SM_OK)
        for (size_t k = 0; k < 4; k++)
          (void)sm_manifest_is_done(&m, k);
      close(fd);
    }
  }
  sm_manifest_close(&m, 0);
#elif defined(SM_FUZZ_OPTIONS)
  /* the first byte picks the command, the rest are its arguments separated
   * by NUL bytes (at most 48, copied so the parser may keep pointers) */
  enum { MAXARG = 48 };
  static const char *const cmds[] = {"compute", "synth", "maf"};
  char *buf = malloc(size + 1);
  char *argv[MAXARG + 2];
  int argc = 0;
  if (!buf)
    abort();
  if (size)
    memcpy(buf, data + 1, size - 1);
  buf[size ? size - 1 : 0] = 0;
  argv[argc++] = (char *)cmds[size ? data[0] % 3 : 0];
  for (size_t at = 0; size > 1 && at < size - 1 && argc <= MAXARG;
       at += strlen(buf + at) + 1)
    argv[argc++] = buf + at;
  argv[argc] = NULL;
  int done = 0;
  if (argv[0][0] == 'm') {
    sm_maf_options_t mo;
    (void)sm_maf_options_parse(argc, argv, &mo, &done);
  } else {
    sm_options_t co;
    if (argv[0][0] == 'c')
      (void)sm_options_parse_compute(argc, argv, &co, &done);
    else
      (void)sm_options_parse_synth(argc, argv, &co, &done);
  }
  free(buf);
#else
#error "define one of SM_FUZZ_TSV, NPY, PLINK, RAW, VCF, GL, MANIFEST, OPTIONS"
#endif
  return 0;
}
