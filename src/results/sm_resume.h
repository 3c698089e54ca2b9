/* sm_resume.h: the resume manifest. While a run writes its output, every
 * completed output block is recorded (file offset after it, record count,
 * checksum) in PREFIX[_rank].manifest, synced to disk together with the
 * partial output file at least every half second. A run killed at any
 * moment and started again with --resume truncates the partial file to the
 * last recorded block, skips the recorded blocks and appends the rest in
 * the same order, so the final file equals an uninterrupted run's. Each
 * line carries its own CRC-32C and that of the output bytes it vouches
 * for, which a resume checks before it trusts them. */
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
  FILE *f;
  char *fingerprint;
  size_t block_size;
  uint64_t header_end;     /* output file size after its header */
  uint32_t header_crc;     /* CRC-32C of those bytes */
  sm_resume_entry_t *done; /* blocks already complete (read at start) */
  size_t ndone;
  sm_resume_entry_t *pending; /* written since the last sync */
  size_t npending, cap;
  double last_sync;
} sm_manifest_t;

/** Path of the manifest of rank `rank` of `nranks` for prefix. */
void sm_manifest_path(char *buf, size_t len, const char *prefix, int rank, int nranks);

/** Start a manifest. With resume and an existing manifest, read it: its
 * fingerprint must equal `fingerprint` (else SM_EINCONSIST naming the
 * difference) and *block_size gets the tile size it recorded. Without
 * resume (or no manifest), create a fresh one recording *block_size.
 * *resumed is 1 when completed blocks were found. */
sm_err_t sm_manifest_open(sm_manifest_t *m, const char *path, const char *fingerprint,
                          int resume, size_t *block_size, int *resumed) SM_MUST_CHECK;

/** Record the output header's size and CRC-32C (fresh manifests). */
sm_err_t sm_manifest_header(sm_manifest_t *m, uint64_t header_end,
                            uint32_t header_crc) SM_MUST_CHECK;

/** Check that the partial output (descriptor fd, named part in messages)
 * holds the bytes the manifest vouches for: its header, then each block in
 * the order written, each range's CRC-32C as recorded. A missing line, an
 * edited or shortened file fail here: SM_EINCONSIST naming the first block
 * that does not match (SM_EIO when the file cannot be read). */
sm_err_t sm_manifest_verify(const sm_manifest_t *m, int fd,
                            const char *part) SM_MUST_CHECK;

/** Record a completed block; sync (output file descriptor out_fd, then the
 * manifest) when force or at least 0.5 s passed since the last sync. */
sm_err_t sm_manifest_add(sm_manifest_t *m, const sm_resume_entry_t *e, int out_fd,
                         int force) SM_MUST_CHECK;

/** 1 when block id was completed by an earlier run. */
int sm_manifest_is_done(const sm_manifest_t *m, uint64_t block);

/** Close; remove the manifest when the run completed (done != 0). */
void sm_manifest_close(sm_manifest_t *m, int done);

#endif
