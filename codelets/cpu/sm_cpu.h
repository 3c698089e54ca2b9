/* sm_cpu.h: what the CPU (and the operating system) let the kernels use,
 * found once at run time from cpuid, xgetbv and, for AMX, arch_prctl. */
#ifndef SM_CPU_H
#define SM_CPU_H

/* Portable kernels: clones for the widest ISA the CPU reports, chosen at
 * load time (GCC on x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_TARGETS                                                                       \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SM_TARGETS
#endif

/* Instruction sets the kernels care about; 1 = usable now. */
typedef struct sm_cpu {
  int avx2;      /* AVX2 + FMA, YMM state enabled by the OS */
  int avx512;    /* AVX-512 F, BW, VL, ZMM state enabled by the OS */
  int vpopcntdq; /* AVX-512 VPOPCNTDQ (with avx512) */
  int vnni;      /* AVX-512 VNNI (with avx512 and BMI2) */
  int amx;       /* AMX-TILE + AMX-INT8 (with avx512 and BMI2), and Linux
                    granted this process the tile state (arch_prctl
                    ARCH_REQ_XCOMP_PERM) */
  int amx_cpu;   /* the CPU reports AMX (whether or not it is usable) */
} sm_cpu_t;

/** The features of this CPU (detected on the first call, thread-safe).
 * The environment variable STARMET_CPU_DISABLE (comma-separated names among
 * avx2, avx512, vpopcntdq, vnni, amx) hides features, to exercise fallbacks. */
const sm_cpu_t *sm_cpu_get(void);

/** The usable features as a short space-separated list ("avx2 avx512 ..."). */
const char *sm_cpu_describe(void);

#endif
