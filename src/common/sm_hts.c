/* sm_hts.c: what starmet's two VCF/BCF readers (genotypes for compute,
 * likelihoods for maf) do alike with htslib: gVCF's symbolic allele, a
 * compressed stream cut short, a header's sample names. */
#include "sm_hts.h"

#include <errno.h>
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/khash_str2int.h>
#include <htslib/tbx.h> /* hts_get_bgzfp (declared there in htslib 1.16) */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* gVCF's symbolic ALT, "any allele not listed": <NON_REF> (GATK) or <*>
 * (bcftools). */
int sm_vcf_is_nonref(const char *a)
{
  return !strcmp(a, "<NON_REF>") || !strcmp(a, "<*>");
}

/* A record's ALT, the symbolic one not counting: its index when it is the
 * only other ALT; 0 for a gVCF reference block (no ALT but the symbolic
 * one); -1 when the record is not bi-allelic. */
int sm_vcf_the_alt(bcf1_t *rec)
{
  bcf_unpack(rec, BCF_UN_STR);
  int alt = -1, nalt = 0, nsym = 0;
  for (int k = 1; k < rec->n_allele; k++) {
    if (sm_vcf_is_nonref(rec->d.allele[k]))
      nsym++;
    else
      alt = k, nalt++;
  }
  return nalt == 1 ? alt : nalt == 0 && nsym ? 0 : -1;
}

/* Whether an htslib input's compressed stream is whole: SM_OK, or
 * SM_EFORMAT (logged) when a gzip or BGZF stream was cut short (htslib sets BGZF_ERR_IO
 * and reports the end of the file; a BGZF file must also end with its
 * end-of-file block) or its compressed data is damaged. where: what was
 * read, for the message. */
sm_err_t sm_hts_stream_whole(const char *path, htsFile *fp, const char *where)
{
  const BGZF *bg = hts_get_bgzfp(fp);
  const int errcode = bg ? bg->errcode : 0;
  const int marker = hts_check_EOF(fp); /* 1 present, 0 absent; 2, 3 cannot tell */
  if (marker == 0 || ((errcode & BGZF_ERR_IO) && marker != 1)) {
    sm_log_error(
        "%s: ends before the end of its gzip stream: the file is truncated (%s); "
        "copy or download it again%s",
        path, marker == 0 ? "its BGZF end-of-file block is missing" : where,
        marker == 0 ? " (a file known to be whole but written without that "
                      "block: zcat it | bgzip)"
                    : "");
    return SM_EFORMAT;
  }
  if (errcode) {
    sm_log_error(
        "%s: its compressed data is damaged (%s, htslib BGZF error %d): the file "
        "is corrupt",
        path, where, errcode);
    return SM_EFORMAT;
  }
  return SM_OK;
}

/* Why htslib refused the header of a file it detected as VCF or BCF, when
 * it is the #CHROM line's sample names (htslib's own message is easy to
 * miss): a name given twice, or an empty one. Logs that and returns 1;
 * returns 0 when the names are not the reason. */
static int bad_sample_names(const char *path, const char *src)
{
  struct stat sb; /* read again: only a file (a stream was read once) */
  if (stat(src, &sb) != 0 || !S_ISREG(sb.st_mode))
    return 0;
  htsFile *fp = hts_open(src, "r");
  if (!fp)
    return 0;
  kstring_t s = {0, 0, NULL};
  char *line = NULL;
  if (hts_get_format(fp)->format == bcf) {
    /* "BCF\2\2", the header text's length (32 bits, little endian), the text */
    BGZF *bg = hts_get_bgzfp(fp);
    uint8_t h[9];
    if (bg && bgzf_read(bg, h, 9) == 9) {
      size_t len = h[5] | (size_t)h[6] << 8 | (size_t)h[7] << 16 | (size_t)h[8] << 24;
      if (len < (1u << 30) && ks_resize(&s, len + 1) == 0 &&
          bgzf_read(bg, s.s, len) == (ssize_t)len) {
        s.s[len] = 0;
        char *nl = (line = strstr(s.s, "\n#CHROM")) ? strchr(++line, '\n') : NULL;
        if (nl)
          *nl = 0;
      }
    }
  } else {
    while (!line && hts_getline(fp, '\n', &s) >= 0 && s.l && s.s[0] == '#')
      if (!strncmp(s.s, "#CHROM", 6))
        line = s.s;
  }
  int bad = 0;
  void *seen = line ? khash_str2int_init() : NULL;
  if (!seen)
    line = NULL; /* (out of memory: htslib's message stands) */
  for (int col = 1; line && !bad; col++) {
    char *tab = strchr(line, '\t');
    if (tab)
      *tab = 0;
    if (col > 9 && !line[strspn(line, " \t\r")]) {
      sm_log_error("%s: column %d of the header line (#CHROM) is an empty sample name (a "
                   "stray tab?)",
                   path, col);
      bad = 1;
    } else if (col > 9 && khash_str2int_has_key(seen, line)) {
      sm_log_error("%s: sample '%s' appears twice in the header line (#CHROM); sample "
                   "names must be unique (bcftools reheader --samples renames them)",
                   path, line);
      bad = 1;
    } else if (col > 9 && khash_str2int_inc(seen, line) < 0) {
      break;
    }
    line = tab ? tab + 1 : NULL;
  }
  if (seen)
    khash_str2int_destroy(seen);
  free(s.s);
  hts_close(fp);
  return bad;
}

sm_err_t sm_vcf_open(const char *path, const char *not_vcf_hint, htsFile **fp,
                     bcf_hdr_t **hdr)
{
  return sm_vcf_open_as(path, path, not_vcf_hint, fp, hdr);
}

sm_err_t sm_vcf_open_as(const char *path, const char *src, const char *not_vcf_hint,
                        htsFile **fp, bcf_hdr_t **hdr)
{
  /* htslib's own messages on a failed open name src and say less than
   * the one below */
  hts_set_log_level(HTS_LOG_OFF);
  errno = 0;
  *fp = hts_open(src, "r");
  hts_set_log_level(HTS_LOG_ERROR);
  if (!*fp && errno == ENOEXEC) { /* htslib's "unknown format" */
    sm_log_error("%s: not a VCF or BCF file (htslib recognises no format in its first "
                 "bytes)%s",
                 path, not_vcf_hint);
    return SM_EFORMAT;
  }
  if (!*fp) {
    sm_log_error("%s: cannot open: %s", path, errno ? strerror(errno) : "unknown format");
    return SM_EIO;
  }
  sm_err_t err = sm_hts_stream_whole(path, *fp, "in its first block");
  if (err)
    return err;
  if (hts_get_format(*fp)->category != variant_data) {
    sm_log_error("%s: not a VCF or BCF file (no valid header)%s", path, not_vcf_hint);
    return SM_EFORMAT;
  }
  if ((*hdr = bcf_hdr_read(*fp)))
    return SM_OK;
  if ((err = sm_hts_stream_whole(path, *fp, "in its header")))
    return err;
  if (!bad_sample_names(path, src))
    sm_log_error("%s: its VCF header cannot be read (htslib's message above says why)",
                 path);
  return SM_EFORMAT;
}
