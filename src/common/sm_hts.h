/* sm_hts.h: what starmet's two VCF/BCF readers (genotypes for compute in
 * src/input, likelihoods for maf in src/maf) share about htslib's
 * records. */
#ifndef SM_HTS_H
#define SM_HTS_H

#include <htslib/vcf.h>

/* The problems htslib found in a record that make it unusable (0: none).
 * A contig or a tag missing from the header is not one: htslib adds it to
 * the header and parses the record, as bcftools reads such files (many
 * VCFs have no ##contig lines). */
static inline int sm_vcf_record_error(const bcf1_t *rec)
{
  return rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF);
}

#endif
