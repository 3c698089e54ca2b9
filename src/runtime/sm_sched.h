/* sm_sched.h: the scheduling side of a run: the StarPU policies starmet
 * accepts, task priorities from what a task does (or heteroprio buckets),
 * heteroprio's set-up, and the performance models (directory, calibration). */
#ifndef SM_SCHED_H
#define SM_SCHED_H

#include "sm_codelets.h"
#include "sm_error.h"

struct starpu_conf;

/* How tasks get priorities. */
typedef enum sm_prio_mode {
  SM_PRIO_OFF = 0, /* every task 0 (--no-priorities) */
  SM_PRIO_DAG,     /* what unblocks reductions and output first */
  SM_PRIO_BUCKETS, /* heteroprio: the priority is the task kind's bucket */
} sm_prio_mode_t;

/* What the next sm_runtime_init uses besides the policy. */
typedef struct sm_sched_opts {
  int priorities;            /* 0: --no-priorities */
  int calibrate;             /* --calibrate: record every task in the models */
  const char *perfmodel_dir; /* --perfmodel-dir, or NULL (StarPU's default) */
} sm_sched_opts_t;

/** 1 when name is one of the policies of this StarPU that starmet accepts. */
int sm_sched_known(const char *name);

/** Check a policy name given by `what` (--sched, STARPU_SCHED): SM_OK, or
 * SM_EOPTION with one error line listing the policies. */
sm_err_t sm_sched_check(const char *what, const char *name) SM_MUST_CHECK;

/** The accepted policies, in the order of the list printed by errors (NULL
 * terminated). */
extern const char *const sm_sched_policies[];

/** 1 when the policy decides from performance models (dm*, heft, pheft). */
int sm_sched_uses_models(const char *name);

/** The policy on a node with GPUs when neither --sched nor STARPU_SCHED
 * names one (StarPU's own default, lws, otherwise): on the simulated
 * Summit- and DGX-A100-like nodes, dm was the fastest or within 7% of it
 * for 2-way CCC and Czekanowski and 3-way CCC, dmda 8-17% slower, the
 * policies without models 6-12x slower (docs/scheduling.md, "Simulated GPU nodes"). */
#define SM_GPU_DEFAULT_SCHED "dm"

/** The CUDA workers the next starpu_init will start: STARPU_NCUDA when set,
 * else the GPUs there are (a simulation build: its simulated machine's). */
int sm_sched_expected_gpus(void);

/** Settings for the following sm_runtime_init calls. */
void sm_sched_configure(const sm_sched_opts_t *o);

/** Fill the StarPU configuration (called by sm_runtime_init): the policy
 * (sched, else STARPU_SCHED, both checked), heteroprio's bucket set-up,
 * calibration, and the performance model directory (created if missing).
 * Returns SM_OK or SM_EOPTION / SM_EIO with one error line. */
sm_err_t sm_sched_conf(struct starpu_conf *conf, const char *sched) SM_MUST_CHECK;

/** The policy StarPU runs (after sm_runtime_init), as --sched names it. */
const char *sm_sched_policy_name(void);

/** 1 when StarPU runs heteroprio, in either mode (after sm_runtime_init). */
int sm_sched_heteroprio(void);

/** The priority mode of the running StarPU: its policy and --no-priorities. */
sm_prio_mode_t sm_sched_prio_mode(void);

/** Priority of a task of the given kind under mode (an sm_prio_mode_t). */
int sm_sched_prio(int mode, sm_task_kind_t kind);

/** The performance model directory in use (for the summary). */
const char *sm_sched_perfmodel_dir(void);

/** StarPU's model directory for --perfmodel-dir `dir` (or NULL): dir, else
 * $STARPU_PERF_MODEL_DIR, else StarPU's home's .starpu/sampling (its home:
 * $XDG_CACHE_HOME, $STARPU_HOME, $HOME, then the temporary directory). */
void sm_sched_model_dir(const char *dir, char *buf, size_t len);

/** The path of a simulated machine's platform file (ext: platform.v4.xml,
 * config, ...) in StarPU's model directory for --perfmodel-dir `dir` (or
 * NULL): DIR/bus/$STARPU_HOSTNAME.ext; -1 when STARPU_HOSTNAME is unset
 * (the path then names it NAME). */
int sm_sched_platform_file(const char *dir, const char *ext, char *buf, size_t len);

/** 1 when this run calibrates (--calibrate). */
int sm_sched_calibrating(void);

#endif
