/* sm_hts.h: what starmet's two VCF/BCF readers (genotypes for compute in
 * src/input, likelihoods for maf in src/maf) share about htslib's
 * records. */
#ifndef SM_HTS_H
#define SM_HTS_H

#include <htslib/hts.h>
#include <htslib/vcf.h>

#include "sm_error.h"

/** gVCF's symbolic ALT, "any allele not listed": <NON_REF> (GATK) or <*>
 * (bcftools). */
int sm_vcf_is_nonref(const char *allele);

/** A record's ALT, the symbolic one not counting: its index when it is the
 * only other ALT; 0 for a gVCF reference block (no ALT but the symbolic
 * one); -1 when the record is not bi-allelic. */
int sm_vcf_the_alt(bcf1_t *rec);

/** Whether an htslib input's compressed stream is whole: SM_OK, or
 * SM_EFORMAT (logged, naming path) when a gzip or BGZF stream was cut short
 * (or a BGZF file lacks its end-of-file block) or its compressed data is
 * damaged. where: what was read, for the message. */
sm_err_t sm_hts_stream_whole(const char *path, htsFile *fp, const char *where);

/** Open path with htslib and read its VCF/BCF header into *fp and *hdr:
 * SM_OK, or the error, logged naming path: cannot open (SM_EIO), a stream
 * cut short, not a VCF or BCF (not_vcf_hint appended to the message), a
 * header htslib refuses (naming the sample twice in it, or empty, when
 * that is why). *fp may be open on error: the caller closes it. */
sm_err_t sm_vcf_open(const char *path, const char *not_vcf_hint, htsFile **fp,
                     bcf_hdr_t **hdr) SM_MUST_CHECK;

/** sm_vcf_open of the file src, named path in the messages (src: a
 * stream's in-memory copy, sm_stream.h). */
sm_err_t sm_vcf_open_as(const char *path, const char *src, const char *not_vcf_hint,
                        htsFile **fp, bcf_hdr_t **hdr) SM_MUST_CHECK;

/* The problems htslib found in a record that make it unusable (0: none).
 * A contig or a tag missing from the header is not one: htslib adds it to
 * the header and parses the record, as bcftools reads such files (many
 * VCFs have no ##contig lines). */
static inline int sm_vcf_record_error(const bcf1_t *rec)
{
  return rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF);
}

/* The header's Type of FORMAT field tag (BCF_HT_STR, _INT, _REAL, ...),
 * or -1 when the header does not declare it. */
static inline int sm_vcf_format_type(const bcf_hdr_t *hdr, const char *tag)
{
  const int id = bcf_hdr_id2int(hdr, BCF_DT_ID, tag);
  return bcf_hdr_idinfo_exists(hdr, BCF_HL_FMT, id)
             ? (int)bcf_hdr_id2type(hdr, BCF_HL_FMT, id)
             : -1;
}

/* Whether FORMAT field tag of an unpacked record can be decoded: 1 when it
 * holds numbers (integers of any width or floats), 0 when the record has
 * no such field, -1 when it holds something else (a damaged record: htslib
 * would end the process on it rather than return an error). */
static inline int sm_vcf_fmt_ok(const bcf_hdr_t *hdr, bcf1_t *rec, const char *tag)
{
  const bcf_fmt_t *f = bcf_get_fmt(hdr, rec, tag);
  if (!f)
    return 0;
  return f->type == BCF_BT_INT8 || f->type == BCF_BT_INT16 || f->type == BCF_BT_INT32 ||
                 f->type == BCF_BT_FLOAT
             ? 1
             : -1;
}

/* A header Type's name, for messages. */
static inline const char *sm_vcf_type_name(int type)
{
  return type == BCF_HT_STR    ? "String"
         : type == BCF_HT_INT  ? "Integer"
         : type == BCF_HT_REAL ? "Float"
         : type == BCF_HT_FLAG ? "Flag"
                               : "unknown";
}

#endif
