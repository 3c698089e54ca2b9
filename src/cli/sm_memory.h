/* sm_memory.h: what a compute run will hold in memory, estimated before it
 * allocates anything, and how much the process may use (available memory,
 * its cgroup's limit, ulimit -v), so that a run that cannot fit is refused
 * with the estimate instead of being ended by the OOM killer or an
 * allocation failure deep inside StarPU. */
#ifndef SM_MEMORY_H
#define SM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "sm_decomp.h"
#include "sm_error.h"
#include "sm_options.h"

/* One rank's estimate, in bytes. */
typedef struct sm_mem_need {
  uint64_t vectors;  /* its slice of the input */
  uint64_t received; /* the partitions other ranks send it, kept for the run */
  uint64_t reading;  /* the reader's copy while it parses (text: doubles) */
  uint64_t tasks;    /* numerators and result records of the tasks in flight */
  uint64_t results;  /* what is kept to the end (top-k lists) */
  uint64_t runtime;  /* the program as it is now, and what StarPU and MPI add */
  uint64_t total;
} sm_mem_need_t;

/* What the estimate needs to know of a run. */
typedef struct sm_mem_run {
  size_t nv, nf;       /* the problem */
  size_t vc, fc;       /* this rank's vectors and fields */
  size_t row_bytes;    /* bytes of one vector's fc fields as stored */
  int npv, npf, way;   /* vector and field partitions; 2 or 3 */
  int text_input;      /* parsed from text (kept as doubles first) */
  size_t block_size;   /* vectors per tile (0: automatic, at most 2048) */
  size_t pair_bytes;   /* numerator bytes per pair (per triple, 3-way) */
  int entries;         /* values per pair (CCC: 4 table entries) */
  int emit;            /* result records are made (output or checks) */
  int text;            /* ... and formatted as text (TSV output) */
  int workers;         /* CPU workers (tasks in flight follow them) */
  int windowed;        /* LD windows (more tasks in flight: sm_graph_in_flight) */
  size_t window_n;     /* LD windows of at most window_n variants (0: no cap):
                          a tile pair's records are at most its rows x window_n */
  int accel;           /* an OpenCL or CUDA device may start (the runtime holds more) */
  uint64_t topk_bytes; /* top-k lists (rank 0) */
  int czek_sparse;     /* the sparse method: other ranks' tiles arrive packed */
  uint64_t nnz_rank;   /* > 0: the rank's non-zero entries, read as sparse rows */
} sm_mem_run_t;

/** The estimate of a run (upper bounds where a count depends on the
 * schedule: 2 workers + 2 tasks' buffers alive at once). */
void sm_mem_estimate(const sm_mem_run_t *run, sm_mem_need_t *need);

/** The bytes this process may still take, *room (UINT64_MAX: no limit
 * found), and what sets it, in what (e.g. "MemAvailable + SwapFree",
 * "the cgroup's memory.max", "STARMET_MEMORY_LIMIT"). as: the same for its
 * address space (ulimit -v, ulimit -d), which also counts what StarPU
 * reserves (thread stacks, device drivers). */
void sm_mem_room(uint64_t *room, char *what, size_t len, uint64_t *as, char *as_what,
                 size_t as_len);

/** The address space the run will need: what the process maps now
 * (its libraries whole), what the estimate adds, and what StarPU's
 * start-up reserves (SM_MEM_STARTUP_AS). */
uint64_t sm_mem_address_need(const sm_mem_need_t *need);

/** Address space StarPU's start-up reserves beyond what a run holds
 * (measured: ~460 MB of VmSize over VmRSS with CPU and PoCL workers). */
#define SM_MEM_STARTUP_AS ((uint64_t)512 << 20)

/** Before a compute run allocates anything: rank me's estimate (times the
 * ranks on this machine) for options o on grid d against what the
 * machine, the cgroup and the limits leave (sm_mem_room). desc names the
 * input in messages; text_input: parsed from text; accel: an OpenCL or
 * CUDA device may start (sm_preflight_opencl, sm_sched_expected_gpus);
 * nnz: the input's non-zero values when it is read into sparse rows (a
 * BIOM table under the sparse method), else 0. *estimate gets the estimate. SM_ENOMEM,
 * logged with the estimate and what to change; a collective over the
 * machine's ranks. */
sm_err_t sm_mem_check_compute(const sm_options_t *o, const sm_decomp_t *d, int me,
                              const char *desc, int text_input, uint64_t nnz, int accel,
                              uint64_t *estimate) SM_MUST_CHECK;

/** synth builds its vectors whole before writing them: they must fit in
 * what compute's check allows. SM_ENOMEM, logged. */
sm_err_t sm_mem_check_synth(const sm_options_t *o) SM_MUST_CHECK;

#endif
