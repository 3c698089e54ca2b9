/* sm_read_pick.c: choosing the input reader (sm_read.h), by the format
 * option, the path's extension or the first bytes (a stream's, a BIOM or
 * HDF5 file's), and parsing the format option's value. The readers live
 * in sm_read_{tsv,npy,plink,raw,vcf,biom}.c, what they share in
 * sm_read_util.c. */
#include "sm_read.h"
#include "sm_read_biom.h"

#include "sm_commit.h"
#include "sm_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Does path have this extension (case-insensitive, after the last '/')? */
static int has_ext(const char *path, const char *ext)
{
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash : path, '.');
  return dot && strcasecmp(dot, ext) == 0;
}

/* A PLINK prefix: "P" such that "P.bed" exists. */
static int is_plink_prefix(const char *path)
{
  size_t len = strlen(path);
  char *bed = malloc(len + 5);
  if (!bed)
    return 0; /* falls back to raw, whose open will report any real problem */
  snprintf(bed, len + 5, "%s.bed", path);
  int yes = access(bed, F_OK) == 0;
  free(bed);
  return yes;
}

/* Does path end with suffix (case-insensitive)? (".vcf.gz" has two dots.) */
static int has_suffix(const char *path, const char *suffix)
{
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && strcasecmp(path + n - k, suffix) == 0;
}

/* The first n bytes of the regular file path (a stream is not read: its
 * bytes would be lost), zero-filled; 0 when it cannot be read. */
static int file_head(const char *path, char *head, size_t n)
{
  memset(head, 0, n);
  if (sm_input_is_stream(path))
    return 0;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  const ssize_t got = read(fd, head, n);
  close(fd);
  return got > 0;
}

static sm_input_format_t guess_format(const char *path)
{
  char head[8];
  /* .biom: HDF5 (BIOM 2.1, or 1.0's JSON, which its reader refuses), or
   * the text `biom convert --to-tsv` writes */
  if (has_ext(path, ".biom"))
    return file_head(path, head, sizeof head) &&
                   (head[0] == '#' || !memcmp(head, "\xEF\xBB\xBF#", 4))
               ? SM_INPUT_TSV
               : SM_INPUT_BIOM;
  if (has_suffix(path, ".vcf") || has_suffix(path, ".vcf.gz") ||
      has_suffix(path, ".vcf.bgz") || has_suffix(path, ".bcf"))
    return SM_INPUT_VCF;
  if (has_ext(path, ".tsv") || has_ext(path, ".txt") || has_ext(path, ".csv"))
    return SM_INPUT_TSV;
  if (has_ext(path, ".npy"))
    return SM_INPUT_NPY;
  if (has_ext(path, ".bed") || is_plink_prefix(path))
    return SM_INPUT_PLINK;
  if (file_head(path, head, sizeof head) && !memcmp(head, SM_HDF5_MAGIC, 8))
    return SM_INPUT_BIOM; /* .h5, .hdf5, no extension: HDF5 is BIOM here */
  return SM_INPUT_RAW;
}

static sm_err_t read_loci(const char *path, sm_input_format_t fmt,
                          const sm_read_opts_t *o, int ids, sm_loci_t *out)
{
  memset(out, 0, sizeof *out);
  if (fmt == SM_INPUT_AUTO)
    fmt = guess_format(path);
  if (fmt == SM_INPUT_PLINK)
    return sm_read_plink_loci(path, o, ids, out);
  if (fmt == SM_INPUT_VCF)
    return sm_read_vcf_loci(path, o, ids, out);
  sm_log_error("%s: no chromosomes and positions (PLINK's LD windows and its .ld table "
               "need a PLINK set, a VCF or a BCF)",
               path);
  return SM_EOPTION;
}

sm_err_t sm_read_loci(const char *path, sm_input_format_t fmt, sm_loci_t *out)
{
  const sm_read_opts_t o = {0};
  return read_loci(path, fmt, &o, 0, out);
}

sm_err_t sm_read_loci_ids(const char *path, sm_input_format_t fmt,
                          const sm_read_opts_t *o, sm_loci_t *out)
{
  return read_loci(path, fmt, o, 1, out);
}

sm_input_format_t sm_read_guess_format(const char *path)
{
  return path && !sm_input_is_stream(path) ? guess_format(path) : SM_INPUT_AUTO;
}

/* A stream whose name tells no format (/dev/stdin, a process
 * substitution's /dev/fd/63): the format its first bytes show. It is read
 * into memory now (as text unless it starts as an npy, a gzip, a BCF or an
 * HDF5 file), and its readers read that copy. (A regular file is only
 * peeked at.) */
static sm_err_t sniff_stream(const char *path, sm_input_format_t *fmt)
{
  const sm_stream_rule_t rule = {.magic = {"\x93NUMPY", "\x1f\x8b", "BCF", SM_HDF5_MAGIC},
                                 .text = 1};
  char src[4200], head[16] = {0};
  sm_err_t err = sm_stream_source(path, &rule, src, sizeof src);
  if (err)
    return err;
  const int fd = open(src, O_RDONLY | O_CLOEXEC);
  const ssize_t n = fd >= 0 ? read(fd, head, sizeof head) : -1;
  if (fd >= 0)
    close(fd);
  if (n < 0) {
    sm_log_error("%s: cannot read the stream's copy: %s", path, strerror(errno));
    return SM_EIO;
  }
  *fmt = !memcmp(head, "\x93NUMPY", 6)     ? SM_INPUT_NPY
         : !memcmp(head, SM_HDF5_MAGIC, 8) ? SM_INPUT_BIOM
         : !memcmp(head, "\x1f\x8b", 2) || !memcmp(head, "BCF", 3) ||
                 !memcmp(head, "##fileformat=VCF", 16)
             ? SM_INPUT_VCF
             : SM_INPUT_TSV;
  return SM_OK;
}

sm_err_t sm_read_input(const char *path, sm_input_format_t fmt, const sm_read_opts_t *o,
                       sm_vectors_t *out, sm_dims_t *dims)
{
  sm_err_t err = SM_OK;
  if (fmt == SM_INPUT_AUTO) {
    fmt = guess_format(path);
    /* raw needs --num-field; without it a stream, or a file named as
     * streams are (/dev/stdin redirected from a file), is what it starts
     * as */
    if (fmt == SM_INPUT_RAW && !o->num_field &&
        (sm_input_is_stream(path) || !strncmp(path, "/dev/", 5) ||
         !strncmp(path, "/proc/", 6)))
      err = sniff_stream(path, &fmt);
  }
  if (!err && fmt == SM_INPUT_PLINK && sm_input_is_stream(path) &&
      !has_ext(path, ".bed") && !has_ext(path, ".bim") && !has_ext(path, ".fam")) {
    sm_log_error(
        "%s: a stream (a pipe, FIFO or device) cannot be a PLINK file set, which "
        "is three files: give the prefix of PREFIX.bed, PREFIX.bim and PREFIX.fam "
        "(each may be a FIFO)",
        path);
    err = SM_EOPTION;
  }
  if (err) {
    memset(out, 0, sizeof *out);
    if (dims)
      memset(dims, 0, sizeof *dims);
    return err;
  }
  if (fmt != SM_INPUT_PLINK &&
      sm_check_not_dir(path, "give the file's path (for a PLINK set, --bfile PREFIX: "
                             "the path of its .bed without .bed)")) {
    memset(out, 0, sizeof *out);
    if (dims)
      memset(dims, 0, sizeof *dims);
    return SM_EIO;
  }
  switch (fmt) {
  case SM_INPUT_TSV:
    return sm_read_tsv(path, o, out, dims);
  case SM_INPUT_NPY:
    return sm_read_npy(path, o, out, dims);
  case SM_INPUT_PLINK:
    return sm_read_plink(path, o, out, dims);
  case SM_INPUT_RAW:
    return sm_read_raw(path, o, out, dims);
  case SM_INPUT_VCF:
    return sm_read_vcf(path, o, out, dims);
  case SM_INPUT_BIOM:
    return sm_read_biom(path, o, out, dims);
  default:
    memset(out, 0, sizeof *out);
    if (dims)
      memset(dims, 0, sizeof *dims);
    sm_log_error("%s: unknown input format %d", path, (int)fmt);
    return SM_EOPTION;
  }
}

sm_err_t sm_input_format_parse(const char *s, sm_input_format_t *fmt)
{
  static const struct {
    const char *name;
    sm_input_format_t fmt;
  } names[] = {
      {"auto", SM_INPUT_AUTO}, {"tsv", SM_INPUT_TSV},     {"csv", SM_INPUT_TSV},
      {"npy", SM_INPUT_NPY},   {"plink", SM_INPUT_PLINK}, {"raw", SM_INPUT_RAW},
      {"vcf", SM_INPUT_VCF},   {"bcf", SM_INPUT_VCF},     {"biom", SM_INPUT_BIOM},
  };
  for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++) {
    if (strcasecmp(s, names[i].name) == 0) {
      *fmt = names[i].fmt;
      return SM_OK;
    }
  }
  sm_log_error(
      "unknown input format '%s'; use auto, tsv, csv, npy, plink, raw, vcf or biom",
      s ? s : "");
  return SM_EOPTION;
}
