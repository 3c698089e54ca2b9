/* sm_preflight.h: what a run needs from its environment, checked before
 * StarPU starts and before any output file is opened: the directories
 * StarPU (and PoCL) create and write at start-up, enough open files for
 * the workers, MPI and the run's files, and a file-size limit that the
 * expected output fits under. A run that cannot have them is refused with
 * the directory or limit named and what to change, instead of StarPU
 * aborting (exit 134) after a manifest and a .part were created. Beside
 * the memory estimate (sm_memory.c), which is checked just before. */
#ifndef SM_PREFLIGHT_H
#define SM_PREFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "sm_decomp.h"
#include "sm_error.h"
#include "sm_options.h"

/* What a run will do, as far as its environment is concerned. */
typedef struct sm_preflight {
  const char *command;       /* "compute" or "maf", for messages */
  int starpu;                /* StarPU starts (0: --compute-method ref) */
  const char *perfmodel_dir; /* --perfmodel-dir, or NULL (maf has none) */
  const char *sched;         /* --sched, or NULL */
  int calibrate;             /* --calibrate */
  int rank, ranks;           /* this rank and the job's ranks (0 and 1 alone) */
  int ranks_here;            /* the job's ranks on this machine */
  int opencl;                /* an OpenCL device may start (sm_preflight_opencl) */
  int cuda;                  /* CUDA devices StarPU may drive (0: none) */
  int files;                 /* files the run holds open at once (inputs, outputs) */
  const char *out_path;      /* the largest file this rank writes, or NULL */
  uint64_t out_fixed;        /* bytes it holds before any result (header; npy: all) */
  uint64_t out_bytes;        /* its expected size in the end, 0 when unknown */
  int out_exact;             /* out_bytes is what is written (no --threshold) */
  const char *out_fewer;     /* how a run writes less there, or NULL */
} sm_preflight_t;

/** At the start of the process (main.c), before MPI starts: SIGXFSZ is
 * ignored, so that a write past the file-size limit (ulimit -f) fails with
 * EFBIG, which every writer checks and reports, instead of killing the
 * process; and the open-file soft limit is raised towards its hard limit
 * (up to 1024) when it is lower, as MPI_Init and StarPU need some. */
void sm_preflight_process(void);

/** The checks, in this order: StarPU's home and performance-model
 * directories (and PoCL's kernel cache when its CPU device is asked for)
 * can be created and written (a read-only one will do for a run that
 * only reads it: this machine's bus files there, a policy without
 * performance models, no calibration); the open-file limit covers what the run
 * needs (the soft limit is raised when the hard one allows, and said);
 * the file-size limit holds the output's fixed part and, when its size is
 * known, all of it (a bound with --threshold: a warning). Logs one error
 * naming the directory or limit and what to change; SM_EIO (directories,
 * file size) or SM_ERUNTIME (open files). Creates only the directories
 * StarPU would create at start-up. */
sm_err_t sm_preflight_check(const sm_preflight_t *p) SM_MUST_CHECK;

/** 1 when StarPU may start an OpenCL device here: STARPU_NOPENCL is not 0,
 * and an OpenCL driver other than PoCL is installed, or PoCL's CPU device
 * is asked for (STARPU_OPENCL_ON_CPUS). */
int sm_preflight_opencl(void);

/* A run's result file, for its expected size. */
typedef struct sm_preflight_out {
  sm_outfmt_t fmt;
  int way;      /* 2 or 3 */
  int ccc;      /* CCC: 2^way table entries per tuple */
  int single;   /* float32 values */
  size_t nv;    /* vectors */
  double share; /* the part of every tuple in this file (phases, ranks) */
} sm_preflight_out_t;

/** The expected bytes of a result file (*fixed: those written before any
 * result: the header, the whole npy matrix). Exact for bin, comet and npy;
 * for tsv a rough estimate, on the low side: ids are taken as indices
 * (names are longer) and a value as 17 characters (9 in single
 * precision). With --threshold it is the size if every value passed. */
uint64_t sm_preflight_out_bytes(const sm_preflight_out_t *out, uint64_t *fixed);

/** The checks for `starmet compute` o on decomposition d (after the
 * memory check; collective: every rank calls it). */
sm_err_t sm_preflight_compute(const sm_options_t *o, const sm_decomp_t *d) SM_MUST_CHECK;

#endif
