/* sm_kern_variants.h: the CPU kernel variants (the --kernel choices), listed
 * once: the enum sm_kvar_t, the option's names and the name lookups all
 * derive from SM_KERN_VARIANTS. Plain C, no runtime header. */
#ifndef SM_KERN_VARIANTS_H
#define SM_KERN_VARIANTS_H

/* X(ID, "name", what it is), in enum order (AUTO first: 0 is the default). */
#define SM_KERN_VARIANTS(X)                                                              \
  X(AUTO, "auto", "the fastest usable one")                                              \
  X(REF, "ref", "the plain reference twins")                                             \
  X(BLOCKED, "blocked", "portable C (czek blocked, ccc 64-bit popcount)")                \
  X(AVX2, "avx2", "czek: AVX2 micro-kernel")                                             \
  X(AVX512, "avx512", "czek: AVX-512 micro-kernel; ccc: VPOPCNTDQ bit planes")           \
  X(POPC, "popc", "ccc: the best usable popcount kernel")                                \
  X(VNNI, "vnni", "ccc: int8 GEMM with VPDPBUSD")                                        \
  X(AMX, "amx", "ccc: int8 GEMM on AMX tiles")

#define SM_KVAR_ENUM_(id, name, doc) SM_KVAR_##id,
typedef enum sm_kvar { SM_KERN_VARIANTS(SM_KVAR_ENUM_) } sm_kvar_t;
#undef SM_KVAR_ENUM_

/* The names in enum order, for a NULL-terminated initializer:
 * static const char *const names[] = {SM_KERN_VARIANT_NAMES NULL}; */
#define SM_KERN_VARIANT_NAME_(id, name, doc) name,
#define SM_KERN_VARIANT_NAMES SM_KERN_VARIANTS(SM_KERN_VARIANT_NAME_)

/** The --kernel name of variant v ("auto", "ref", ...); NULL when v is not
 * a variant. */
const char *sm_kern_variant_name(sm_kvar_t v);

/** The variant named `name` in *v; returns 0, or -1 (v untouched) when no
 * variant has that name. */
int sm_kern_variant_parse(const char *name, sm_kvar_t *v);

/* Whether this compiler builds the instruction-set kernels: x86-64
 * intrinsics with a GNU compiler (the AVX2, AVX-512 and VNNI files), AMX
 * tiles with GCC 11 or later. The kernel files and sm_kern_variant_built
 * both read these. */
#if defined(__x86_64__) && defined(__GNUC__)
#define SM_BUILD_X86 1
#else
#define SM_BUILD_X86 0
#endif
#if SM_BUILD_X86 && !defined(__clang__) && __GNUC__ >= 11
#define SM_BUILD_AMX 1
#else
#define SM_BUILD_AMX 0
#endif

/** 1 when this build holds variant v's own code (its instruction set was
 * compiled in), 0 when v would fall back to the portable kernels or is not
 * a variant. Whether this CPU can run it is another matter (--kernel
 * refuses what it cannot). */
int sm_kern_variant_built(sm_kvar_t v);

#endif
