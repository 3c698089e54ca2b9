/* sm_cpu.c: run-time CPU feature detection for kernel selection: cpuid for
 * what the CPU has, xgetbv for what the OS saves on context switches, and
 * arch_prctl for the AMX tile state (Linux grants it per process). */
#include "sm_cpu.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#define SM_X86 1
#endif

static sm_cpu_t cpu;
static char described[96];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#ifdef SM_X86
static uint64_t xgetbv0(void)
{
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

/* Ask Linux for the AMX tile data state; 1 when granted. */
static int amx_request(void)
{
#if defined(__linux__) && defined(SYS_arch_prctl)
  const long ARCH_GET_XCOMP_PERM = 0x1022, ARCH_REQ_XCOMP_PERM = 0x1023;
  const int XFEATURE_XTILEDATA = 18;
  if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0)
    return 0;
  unsigned long mask = 0;
  if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &mask) != 0)
    return 0;
  return (mask >> XFEATURE_XTILEDATA) & 1;
#else
  return 0;
#endif
}

static void detect(void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return;
  int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
  if (!osxsave || !avx)
    return;
  uint64_t xcr0 = xgetbv0();
  int ymm_os = (xcr0 & 6) == 6, zmm_os = (xcr0 & 0xe6) == 0xe6;
  int amx_os = (xcr0 & 0x60000) == 0x60000;
  if (__get_cpuid_max(0, NULL) < 7)
    return;
  __cpuid_count(7, 0, a, b, c, d);
  int avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1, f = (b >> 16) & 1, bw = (b >> 30) & 1,
      vl = (b >> 31) & 1;
  int vnni = (c >> 11) & 1, popc = (c >> 14) & 1;
  int amx_tile = (d >> 24) & 1, amx_int8 = (d >> 25) & 1;
  cpu.avx2 = ymm_os && avx2 && fma;
  cpu.avx512 = cpu.avx2 && zmm_os && f && bw && vl;
  cpu.vpopcntdq = cpu.avx512 && popc;
  /* the int8 kernels pack with AVX-512BW and BMI2 */
  cpu.vnni = cpu.avx512 && bmi2 && vnni;
  cpu.amx_cpu = amx_tile && amx_int8;
  cpu.amx = cpu.amx_cpu && cpu.avx512 && bmi2 && amx_os && amx_request();
}
#else
static void detect(void) {}
#endif

/* STARMET_CPU_DISABLE=name,name: hide features (testing the fallbacks). */
static void apply_disable(void)
{
  const char *e = getenv("STARMET_CPU_DISABLE");
  if (!e)
    return;
  struct {
    const char *name;
    int *flag;
  } names[] = {
      {"avx2", &cpu.avx2}, {"avx512", &cpu.avx512}, {"vpopcntdq", &cpu.vpopcntdq},
      {"vnni", &cpu.vnni}, {"amx", &cpu.amx},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t len = strlen(names[i].name);
    for (const char *p = e; (p = strstr(p, names[i].name)) != NULL; p += len)
      if ((p == e || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
        *names[i].flag = 0;
  }
  /* wider sets imply the narrower ones */
  if (!cpu.avx2)
    cpu.avx512 = 0;
  if (!cpu.avx512)
    cpu.vpopcntdq = cpu.vnni = cpu.amx = 0;
}

static void init(void)
{
  detect();
  apply_disable();
  described[0] = '\0';
  const struct {
    const char *name;
    int on;
  } f[] = {
      {"avx2", cpu.avx2}, {"avx512", cpu.avx512}, {"vpopcntdq", cpu.vpopcntdq},
      {"vnni", cpu.vnni}, {"amx", cpu.amx},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (f[i].on) {
      if (described[0])
        strcat(described, " ");
      strcat(described, f[i].name);
    }
  if (!described[0])
    strcpy(described, "portable");
}

const sm_cpu_t *sm_cpu_get(void)
{
  pthread_once(&once, init);
  return &cpu;
}

const char *sm_cpu_describe(void)
{
  pthread_once(&once, init);
  return described;
}
