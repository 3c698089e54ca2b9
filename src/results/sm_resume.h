/* sm_resume.h: the resume manifest. While a run writes its output, every
 * completed output block is recorded (file offset after it, record count,
 * checksum) in PREFIX[_rank].manifest, synced to disk together with the
 * partial output file at least every half second. A run killed at any
 * moment and started again with --resume truncates the partial file to the
 * last recorded block, skips the recorded blocks and appends the rest in
 * the same order, so the final file equals an uninterrupted run's. Each
 * line carries its own CRC-32C and that of the output bytes it vouches
 * for, which a resume checks before it trusts them: blocks whose bytes
 * changed are computed again. A last line, written once every rank has
 * verified its part, says the job is renaming its files (sm_job.h). */
#ifndef SM_RESUME_H
#define SM_RESUME_H

#include <stdint.h>
#include <stdio.h>

#include "sm_error.h"
#include "sm_types.h"

typedef struct sm_resume_entry {
  uint64_t block;   /* global output block id */
  uint64_t end_off; /* output file size after the block */
  uint64_t count;   /* records written for the block */
  uint64_t nvalues; /* values computed */
  sm_cksum_t cksum;
  uint32_t bytes_crc; /* CRC-32C of the output bytes since the previous entry */
  unsigned line;      /* its line in the manifest (read entries) */
} sm_resume_entry_t;

typedef struct sm_manifest {
  char *path;
  FILE *f; /* open for appending from sm_manifest_begin on */
  char *fingerprint;
  size_t block_size;       /* 0: not known (a fresh manifest) */
  uint64_t header_end;     /* output file size after its header */
  uint32_t header_crc;     /* CRC-32C of those bytes */
  int complete;            /* a commit line: every rank's part was complete */
  uint32_t final_crc;      /* and the CRC-32C of the final header it names */
  sm_resume_entry_t *done; /* blocks already complete (read at start), by id */
  size_t ndone;
  sm_resume_entry_t *pending; /* written since the last sync */
  size_t npending, cap;
  double last_sync;
} sm_manifest_t;

/** Path of the manifest of rank `rank` of `nranks` for prefix. */
void sm_manifest_path(char *buf, size_t len, const char *prefix, int rank, int nranks);

/** Start with the manifest at path: with resume, and a manifest there, read
 * it: its fingerprint must equal `fingerprint` (else SM_EINCONSIST naming
 * the difference), a damaged line is refused (SM_EFORMAT), a torn last
 * line dropped; m->block_size, the header's size and CRC and the completed
 * blocks are then what it recorded. A manifest another process holds is
 * refused (SM_EIO), with or without resume. Nothing is written:
 * sm_manifest_begin does. */
sm_err_t sm_manifest_read(sm_manifest_t *m, const char *path, const char *fingerprint,
                          int resume) SM_MUST_CHECK;

/** Keep of the completed blocks only those whose bytes the output (fd,
 * named part in messages) still holds: its header must have the recorded
 * CRC (or, after a commit line, the final header's), then each block, in
 * the order written, its range's CRC-32C. The first block that does not
 * check out (edited, cut short, a manifest line before it missing) and
 * every block after it are dropped with a warning naming it, and so is
 * everything when the header does not match: what is dropped is computed
 * again. *kept_end gets the file size the kept blocks end at (0 when none
 * are kept) and *kept_crc the CRC-32C of those bytes (from the manifest's
 * CRCs, not the file's). SM_OK, or SM_EIO / SM_ENOMEM (logged) when the
 * file cannot be read. */
sm_err_t sm_manifest_trim(sm_manifest_t *m, int fd, const char *part, uint64_t *kept_end,
                          uint32_t *kept_crc) SM_MUST_CHECK;

/** Drop every completed block (the output they were in is gone). */
void sm_manifest_forget(sm_manifest_t *m);

/** Write the manifest afresh (to a temporary, renamed over the old one):
 * the fingerprint, the tile size and the output header's size and CRC
 * (those recorded, when blocks were kept; else header_end, header_crc),
 * and the kept blocks; then keep it open and locked for sm_manifest_add. */
sm_err_t sm_manifest_begin(sm_manifest_t *m, size_t block_size, uint64_t header_end,
                           uint32_t header_crc) SM_MUST_CHECK;

/** Record a completed block; sync (output file descriptor out_fd, then the
 * manifest) when force or at least 0.5 s passed since the last sync. */
sm_err_t sm_manifest_add(sm_manifest_t *m, const sm_resume_entry_t *e, int out_fd,
                         int force) SM_MUST_CHECK;

/** The commit line: every rank verified its part and the job renames its
 * files now; final_crc is the CRC-32C of the output's header as it will be
 * in the final file. Synced before it returns. */
sm_err_t sm_manifest_mark_complete(sm_manifest_t *m, uint32_t final_crc) SM_MUST_CHECK;

/** After the output failed its check at commit: read the manifest back
 * from disk and log the first block whose bytes in fd (named part) differ
 * from what it recorded. Logs nothing when it cannot tell. */
void sm_manifest_locate(const sm_manifest_t *m, int fd, const char *part);

/** 1 when block id was completed by an earlier run. */
int sm_manifest_is_done(const sm_manifest_t *m, uint64_t block);

/** Close; remove the manifest file when remove != 0. */
void sm_manifest_close(sm_manifest_t *m, int remove);

#endif
