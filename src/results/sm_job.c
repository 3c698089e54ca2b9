/* sm_job.c: the lock, the resume state and the two-agreement commit of a
 * run's result files over every rank (sm_job.h). Each step computes this
 * rank's verdict, then every rank meets in one sm_mpi_agree: no collective
 * sits in a branch that depends on one rank's own state. */
#include "sm_job.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_commit.h"
#include "sm_mpi.h"
#include "sm_timer.h"

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

sm_err_t sm_job_lock(sm_job_t *j, const char *const *stems, const char *const *what,
                     int n, const char *command)
{
  memset(j, 0, sizeof *j);
  j->me = sm_mpi_rank();
  j->P = sm_mpi_size();
  sm_err_t err = SM_OK;
  if (j->me == 0)
    err = sm_lock_take(&j->lock, stems, what, n, command);
  return (sm_err_t)sm_mpi_agree(err);
}

/* What this rank keeps of an interrupted run: the blocks whose bytes its
 * partial output still holds. The final file stands in for the partial
 * one after the job's commit line (the rank renamed it, another rank did
 * not); it then goes back to its temporary name, to be renamed again when
 * this run commits. *off, *crc: the kept bytes. */
static sm_err_t keep_partial(sm_job_t *j, const char *out_path, uint64_t *off,
                             uint32_t *crc)
{
  char part[SM_COMMIT_NAME_MAX];
  snprintf(part, sizeof part, "%s.part", out_path);
  int from_final = 0;
  int fd = open(part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && j->man.complete) {
    fd = open(out_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    from_final = fd >= 0;
  }
  struct stat sb;
  if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
    close(fd);
    fd = -1;
    errno = ENOTSUP;
  }
  if (fd < 0) {
    sm_log_warn("%s: the partial output of the interrupted run cannot be read (%s): "
                "computing its %zu completed blocks again",
                part, errno == ENOENT ? "it is missing" : sm_commit_strerror(errno),
                j->man.ndone);
    sm_manifest_forget(&j->man);
    return SM_OK;
  }
  const char *name = from_final ? out_path : part;
  sm_err_t err = sm_manifest_trim(&j->man, fd, name, off, crc);
  close(fd);
  if (err || !j->man.ndone)
    return err;
  if (from_final && rename(out_path, part) != 0) {
    sm_log_error("%s: cannot take the file back to %s to complete the job: %s", out_path,
                 part, strerror(errno));
    return SM_EIO;
  }
  if (from_final)
    sm_log_info("--resume: %s was committed by its rank before the job stopped; it "
                "checks out and is kept",
                out_path);
  return SM_OK;
}

sm_err_t sm_job_open(sm_job_t *j, const sm_job_spec_t *spec)
{
  j->hint = spec->finish_hint;
  j->stop_at = spec->stop_at;
  j->use_man = spec->man_path && spec->man_path[0];
  uint64_t off = 0;
  uint32_t crc = 0;
  sm_err_t err = SM_OK;
  if (j->use_man) {
    err = sm_manifest_read(&j->man, spec->man_path, spec->fingerprint, spec->resume);
    if (!err && j->man.ndone)
      err = keep_partial(j, spec->out_path, &off, &crc);
    if (!err && spec->resume && j->man.ndone)
      sm_log_info("--resume: the partial output checks out (%zu blocks)", j->man.ndone);
  }
  err = (sm_err_t)sm_mpi_agree(err);
  /* the tile size of what is kept, the same on every rank */
  const size_t bs = err ? 0 : j->man.ndone ? j->man.block_size : 0;
  double rbs = (double)bs;
  sm_mpi_max_double(&rbs, 1);
  if (!err && bs && (double)bs != rbs) {
    sm_log_error("%s: its tile size %zu is not the %.0f of another rank's manifest: the "
                 "manifests are from different runs; rerun without --resume",
                 spec->man_path, bs, rbs);
    err = SM_EINCONSIST;
  } else if (!err && rbs > 0 && spec->block_size && (size_t)rbs != spec->block_size) {
    sm_log_error("%s: the interrupted run used --block-size %zu, not %zu", spec->man_path,
                 (size_t)rbs, spec->block_size);
    err = SM_EINCONSIST;
  }
  j->block_size = (size_t)rbs;
  j->kept = !err && j->man.ndone > 0;
  /* every rank's kept blocks: the graph is submitted whole on every rank */
  uint64_t *ids = j->kept ? malloc(j->man.ndone * sizeof *ids) : NULL;
  if (j->kept && !ids)
    err = SM_ENOMEM;
  for (size_t k = 0; ids && k < j->man.ndone; k++) {
    ids[k] = j->man.done[k].block;
    j->kept_count += j->man.done[k].count;
  }
  err = (sm_err_t)sm_mpi_agree(err);
  if (!err)
    err = (sm_err_t)sm_mpi_agree(
        sm_mpi_allgather_u64(ids, ids ? j->man.ndone : 0, &j->skip, &j->nskip));
  free(ids);
  if (!err && j->nskip) {
    qsort(j->skip, j->nskip, sizeof *j->skip, cmp_u64);
    sm_log_info("--resume: %zu output blocks were complete; computing the rest",
                j->nskip);
  } else if (!err && spec->resume) {
    sm_log_info("--resume: no completed block recorded; computing everything");
  }
  if (err)
    return err;
  /* the writer, and a fresh file's header for the manifest */
  const char *path = spec->out_path && spec->out_path[0] ? spec->out_path : NULL;
  err = sm_writer_open(&j->w, path, spec->info, j->kept ? off : 0, j->kept_count, crc);
  if (!err && !j->kept) {
    int fd;
    err = sm_writer_flush(j->w, &j->hdr_end, &fd, &j->hdr_crc);
  }
  return (sm_err_t)sm_mpi_agree(err);
}

sm_err_t sm_job_begin(sm_job_t *j, size_t block_size)
{
  sm_err_t err = SM_OK;
  if (j->use_man)
    err = sm_manifest_begin(&j->man, block_size, j->hdr_end, j->hdr_crc);
  return (sm_err_t)sm_mpi_agree(err);
}

/* This rank's part, before the first agreement: the output as written,
 * and every completed block recorded on disk. */
static sm_err_t verify_part(sm_job_t *j)
{
  if (!j->w)
    return SM_OK;
  sm_err_t err = sm_writer_verify(j->w);
  const int fd = sm_writer_fd(j->w);
  if (err == SM_EIO && j->use_man && fd >= 0) {
    if (sm_manifest_add(&j->man, NULL, fd, 1) != SM_OK) {
      /* logged; the blocks already on disk still locate the change */
    }
    sm_manifest_locate(&j->man, fd, sm_writer_part(j->w));
    sm_log_error("%s: not committed; it and %s are kept: run the same command with "
                 "--resume to compute what is bad again",
                 sm_writer_part(j->w), j->man.path);
  }
  if (!err && j->use_man)
    err = sm_manifest_add(&j->man, NULL, fd, 1);
  return err;
}

/* --debug-stop-in-commit: a kill at a known step, as a crash would leave
 * the files. */
static void stop_here(const sm_job_t *j, int step)
{
  if (j->stop_at == step)
    raise(SIGKILL);
}

/* sm_mpi_agree, timed into j->t_agree. */
static sm_err_t agree(sm_job_t *j, sm_err_t err)
{
  const double t0 = sm_now();
  err = (sm_err_t)sm_mpi_agree(err);
  j->t_agree += sm_now() - t0;
  return err;
}

/* sm_mpi_gather_blobs's hand-over to the writer of rank 0. */
static sm_err_t take_part(void *ctx, int from, const void *buf, size_t n)
{
  return sm_writer_unpack(ctx, from, buf, n);
}

/* ld under mpirun: the other ranks' parts of the table to rank 0, once
 * every rank's blocks are done (collective). */
static sm_err_t gather_table(sm_job_t *j, sm_err_t err)
{
  if (!sm_mpi_agree(sm_writer_gathers(j->w))) /* the same on every rank */
    return err;
  unsigned char *buf = NULL;
  size_t len = 0;
  if (!err)
    err = sm_writer_pack(j->w, &buf, &len);
  if (!(err = agree(j, err)))
    err = agree(j, sm_mpi_gather_blobs(buf, len, take_part, j->w));
  free(buf);
  return err;
}

sm_err_t sm_job_commit(sm_job_t *j, sm_err_t err)
{
  err = gather_table(j, err);
  if (!err) /* what the run itself needs on disk; the read-back comes after */
    err = sm_writer_sync(j->w);
  const double t0 = sm_now();
  if (!err)
    err = verify_part(j);
  j->out_check = sm_writer_check(j->w);
  j->t_readback = sm_now() - t0;
  sm_mpi_max_double(&j->t_readback, 1);
  if ((err = agree(j, err)))
    return err;
  /* every rank has its part complete and checked: from here the job
   * renames; a --resume after a stop here completes it */
  stop_here(j, 1);
  sm_err_t mine = SM_OK;
  if (j->use_man && j->w)
    mine =
        sm_manifest_mark_complete(&j->man, sm_writer_final_crc(j->w, j->man.header_end));
  stop_here(j, 2);
  if (!mine)
    mine = sm_writer_seal(j->w);
  if ((err = agree(j, mine)))
    return err;
  char tmp[SM_COMMIT_NAME_MAX] = "";
  if (j->w && sm_writer_path(j->w))
    snprintf(tmp, sizeof tmp, "%s.part", sm_writer_path(j->w));
  if (sm_writer_rename(j->w) != SM_OK) {
    const char *path = sm_writer_path(j->w);
    if (errno == ENOTSUP)
      sm_log_error(
          "%s: cannot rename the complete output %s to it: the path is now taken "
          "by what is not a regular file (a directory?). The complete output "
          "stays in %s%s%s: move %s away, then %s",
          path, tmp, tmp, j->use_man ? " with its manifest " : "",
          j->use_man ? j->man.path : "", path,
          j->use_man ? j->hint : "rename the .part file to it");
    else
      sm_log_error("%s: cannot rename the complete output %s to it: %s. It stays in %s: "
                   "%s",
                   path, tmp, strerror(errno), tmp,
                   j->use_man ? j->hint : "rename the .part file to it");
    mine = SM_EIO;
  }
  stop_here(j, 3);
  return agree(j, mine);
}

void sm_job_end(sm_job_t *j, sm_err_t err, uint64_t wrote)
{
  const int keep = err && j->use_man && (j->kept || wrote > 0 || j->man.complete);
  sm_writer_close(j->w, keep);
  j->w = NULL;
  /* a manifest this run did not write (a refused --resume) stays as it is */
  sm_manifest_close(&j->man, !keep && j->man.f != NULL);
  free(j->skip);
  j->skip = NULL;
  sm_lock_release(&j->lock);
}
