/* sm_job.h: a run's result files as one job over every rank: the lock on
 * the names it writes (rank 0), each rank's output file and its resume
 * manifest, what an interrupted run left that every rank agrees to keep,
 * and the commit that renames any rank's output only once every rank has
 * finished and verified its own. Every function here is collective: each
 * rank calls it, whatever its own state, and all get the same verdict. */
#ifndef SM_JOB_H
#define SM_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"
#include "sm_lock.h"
#include "sm_output.h"
#include "sm_resume.h"

typedef struct sm_job_spec {
  const char *out_path;         /* this rank's final output, or "" (none) */
  const sm_writer_info_t *info; /* its format and contents */
  const char *man_path;         /* its manifest, or "" (no resume record) */
  const char *fingerprint;      /* what a --resume must find unchanged */
  int resume;                   /* --resume */
  size_t block_size;            /* --block-size (0: automatic) */
  const char *finish_hint;      /* how a user finishes a job whose rename
                                   failed ("run the same command with
                                   --resume") */
  int stop_at;                  /* tests: SIGKILL in the commit at step 1
                                   (verified and agreed), 2 (commit line
                                   written) or 3 (renamed); 0: never */
} sm_job_spec_t;

typedef struct sm_job {
  int me, P;
  sm_lockset_t lock; /* rank 0's */
  sm_manifest_t man;
  int use_man;
  int kept;       /* this rank keeps blocks of an interrupted run */
  uint64_t *skip; /* the blocks every rank keeps, sorted */
  size_t nskip;
  uint64_t kept_count;   /* records in this rank's kept blocks */
  size_t block_size;     /* the interrupted run's tile size (0: none kept) */
  sm_writer_t *w;        /* this rank's output (NULL: none) */
  uint64_t hdr_end;      /* its size after its header (fresh files) */
  uint32_t hdr_crc;      /* and their CRC-32C */
  const char *hint;      /* sm_job_spec_t.finish_hint */
  int stop_at;           /* sm_job_spec_t.stop_at */
  double t_readback;     /* the commit's read-back (slowest rank), s */
  const char *out_check; /* sm_writer_check of this rank's output */
  double t_agree;        /* this rank's time in the commit's agreements, s */
} sm_job_t;

/** Rank 0 locks the stems stems[0..n) (sm_lock_take; what[k] the option
 * behind each, command the run's command line); the ranks agree.
 * SM_OK or SM_EIO. j is zeroed first. */
sm_err_t sm_job_lock(sm_job_t *j, const char *const *stems, const char *const *what,
                     int n, const char *command) SM_MUST_CHECK;

/** Open this rank's output: with --resume, read its manifest and keep the
 * blocks whose bytes the partial output (or, after the job's commit line,
 * the final file, which then goes back to its temporary name) still
 * holds; agree on the tile size they were computed with and gather every
 * rank's kept blocks (j->skip); then open the writer, appending to the
 * kept part or on a new file. */
sm_err_t sm_job_open(sm_job_t *j, const sm_job_spec_t *spec) SM_MUST_CHECK;

/** Once the tile size is known: write each manifest afresh (what is kept,
 * the tile size, the output's header), to record blocks from now on. */
sm_err_t sm_job_begin(sm_job_t *j, size_t block_size) SM_MUST_CHECK;

/** Commit the outputs (err: the run's own verdict, agreed). Each rank
 * verifies its output (sm_writer_verify; a block that changed is named
 * from the manifest), then one agreement; only then the commit lines, the
 * final headers, a second agreement, and the renames, agreed. Returns the
 * agreed error: on failure no file is renamed unless every rank had
 * agreed to, and each kept part says how it is finished. */
sm_err_t sm_job_commit(sm_job_t *j, sm_err_t err) SM_MUST_CHECK;

/** The job's end (err agreed): the manifests go when every file was
 * committed; otherwise each rank keeps its partial output and manifest
 * when they hold completed blocks (wrote: blocks written by this run), for
 * --resume. Then the lock is released. */
void sm_job_end(sm_job_t *j, sm_err_t err, uint64_t wrote);

#endif
