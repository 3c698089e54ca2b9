/* sm_cl_devfin.h: the host side of a finalize on a device (CUDA, OpenCL),
 * shared by the 2-way and 3-way finalize codelets. Their kernels
 * (codelets/device) run in two passes over rows: the count pass gives
 * each row's kept values and each group's checksum sums; here the counts
 * become each row's first record and the sums the record buffer's header,
 * written to the host; the emit pass then writes the records into the
 * device's scratch, and the kept records alone are copied into the
 * record buffer, which stays in the host's memory
 * (sm_devfin_records_on_host): a block that keeps nothing moves its row
 * counts and group sums only. */
#ifndef SM_CL_DEVFIN_H
#define SM_CL_DEVFIN_H

#include "sm_cl_common.h"
#include "sm_opencl.h"

typedef struct sm_devfin {
  const char *codelet; /* for errors */
  size_t rows;         /* rows of both passes */
  int emit;            /* records are wanted */
  /* the header of count records from the sums of the checksum terms
   * (sm_kern_fin2_header, sm_kern_fin3_header on args) */
  void (*header)(const void *args, uint64_t count, const uint64_t sums[4],
                 sm_recbuf_t *h);
  const void *args;
} sm_devfin_t;

/** Where a finalize codelet cl may run: with the numerators
 * (sm_cl_end_where), or on CPUs when cpu_only (histograms, per-entry
 * thresholds) or when cl has no CUDA implementation in a simulation that
 * keeps the finalize on CPUs (sm_cl_sim_gpu_finalize, sm_codelets_init). */
unsigned long long sm_devfin_where(const struct starpu_codelet *cl, int cpu_only);

/** Keep buffer `rec` of finalize codelet cl (its record buffer) in the
 * host's memory whatever worker runs it (StarPU's specific nodes); the
 * device implementations copy only the kept records there. */
void sm_devfin_records_on_host(struct starpu_codelet *cl, int rec);

/** Kernel family of a finalize: 0 CCC, 1 Czekanowski double, 2 single;
 * sm_devfin_elem[family]: the bytes of its numerators' and sums' element. */
static inline int sm_devfin_family(int metric, int single)
{
  return metric == 1 ? 0 : single ? 2 : 1;
}
extern const size_t sm_devfin_elem[3];

#ifdef STARPU_USE_OPENCL
/** Run both passes on the calling OpenCL worker: kernels
 * <prefix>_count_<family> and <prefix>_emit_<family>, whose leading
 * arguments are args[0..k) (room for 3 more after them), records into
 * variable buffer rec (in the host's memory). */
void sm_ocl_finalize(const sm_devfin_t *f, const char *prefix, int family,
                     sm_ocl_arg_t *args, int k, void *rec);
#endif

#ifdef SM_USE_CUDA
/* The two passes' launchers (sm_kern_cuda.h) on their argument struct. */
typedef int (*sm_devfin_count_fn)(const void *launch, uint32_t *rowcnt, uint64_t *part,
                                  unsigned groups, sm_cuda_stream_t stream);
typedef int (*sm_devfin_emit_fn)(const void *launch, const uint64_t *rowoff, void *rec,
                                 unsigned groups, sm_cuda_stream_t stream);
/** Run both passes on the calling CUDA worker's stream, records into
 * variable buffer rec (in the host's memory). */
void sm_cuda_finalize(const sm_devfin_t *f, sm_devfin_count_fn count,
                      sm_devfin_emit_fn emit, const void *launch, void *rec);
#endif

#endif
