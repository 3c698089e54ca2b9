/* sm_grain.h: what the automatic task grain (tile size; planes per 3-way
 * task) is chosen from: the numerators' rate (element comparisons per
 * second of one worker) and the fixed cost of a block's tasks. Both are
 * read from StarPU's history-based models of the numerator and finalize
 * codelets when a calibrated model exists for this machine (the numerator
 * tasks carry their comparisons as StarPU flops, so the models keep the
 * work of every footprint beside its time); else from defaults measured on
 * a 2-core AVX-512 Xeon (docs/performance.md, "Task grain"). The rules
 * that use them are sm_graph_auto_block_cost and sm_graph_auto_block3. */
#ifndef SM_GRAIN_H
#define SM_GRAIN_H

#include <stddef.h>
#include <stdint.h>

/* The least time of a numerator task (seconds): 2-way and 3-way. */
#define SM_GRAIN_T2 2e-3
#define SM_GRAIN_T3 1e-3
/* The task time is also at least this many times a block's fixed cost,
 * so that the fixed cost stays below a tenth of it. */
#define SM_GRAIN_K 10.0
/* The fixed cost of a block beyond its codelets' run time (seconds): the
 * insertion of its 3 to 5 tasks and handles, StarPU's scheduling and
 * callbacks; a run of 17,766 blocks of 16 x 16 x 4 fields cost 2 ms a
 * block on 2 cores under a load of 13, far less on an idle machine. */
#define SM_GRAIN_RUNTIME_COST 1e-4

typedef struct sm_grain {
  int way;         /* 2 or 3 */
  double rate;     /* comparisons per second of one numerator worker */
  double overhead; /* seconds a block costs beyond its comparisons */
  double target;   /* least numerator task time aimed at (seconds) */
  double min_work; /* rate x target: the least comparisons of a task */
  /* where rate and overhead come from: "model" (StarPU's models),
   * "default"; the models read and their samples */
  char source[16];
  char model[32], fin_model[32];
  uint64_t samples, fin_samples;
  int model_overhead; /* overhead includes the codelets' fixed costs the
                         models showed (else the default alone) */
  double gpu_rate;    /* the same for one CUDA worker (models only; 0: none) */
  /* what was chosen with it (filled in by the caller): tile size, planes
   * per 3-way task (0: not 3-way) and how the tile was set ("auto",
   * "option": --block-size, "resume": the interrupted run's) */
  size_t block, group;
  char block_from[8];
} sm_grain_t;

/** The default grain of a family (way 2 or 3; ccc: CCC, sparse its
 * method; single: Czekanowski in float): documented per-core rates of the
 * numerator kernels and the runtime's cost per block. */
void sm_grain_default(sm_grain_t *g, int way, int ccc, int sparse, int single);

/** The grain from StarPU's models of this family's numerator and finalize
 * codelets, for the worker types started (StarPU initialized): CPU
 * workers' rate (OpenCL's when no CPU runs numerators), and CUDA workers'
 * for the summary. Falls back to sm_grain_default, source "default", when
 * no calibrated model exists (fewer than 10 samples with their work). */
void sm_grain_measure(sm_grain_t *g, int way, int ccc, int sparse, int single, int i8,
                      int cpus_run_numerators);

#endif
