/* sm_read.h: input readers. Each reads a whole file or only a slice of it
 * (a range of vectors and a range of fields, for one rank's share) into an
 * sm_vectors_t, validating as it goes. Errors are logged once, naming the
 * file, the place and what to do, and returned as codes. The readers
 * live in sm_read_<format>.c, the choice among them in sm_read_pick.c. */
#ifndef SM_READ_H
#define SM_READ_H

#include "sm_vectors.h"

typedef enum sm_input_format {
  SM_INPUT_AUTO = 0, /* by extension: .tsv/.txt/.csv, .npy, .bed (or prefix),
                        .vcf/.vcf.gz/.vcf.bgz/.bcf, .biom or HDF5's
                        signature, else raw */
  SM_INPUT_TSV,      /* delimited text (tab, comma, or spaces; auto-detected) */
  SM_INPUT_NPY,      /* NumPy .npy, 2-D [vector, field] */
  SM_INPUT_PLINK,    /* PLINK 1 .bed/.bim/.fam (SNP-major), path is the prefix */
  SM_INPUT_RAW,      /* CoMet raw layout (float32/float64 or 2-bit packed) */
  SM_INPUT_VCF,      /* VCF/BCF genotypes (GT) through htslib, for CCC */
  SM_INPUT_BIOM,     /* BIOM 2.1 table (HDF5), observations x samples */
} sm_input_format_t;

typedef struct sm_read_opts {
  sm_metric_t metric; /* what the data are for: czekanowski or ccc */
  size_t elem_size;   /* czekanowski: 4 (single) or 8 (double) */
  int transpose;      /* text: columns are the vectors */
  /* BIOM layouts (a .biom table, or one written as text by `biom convert
   * --to-tsv`: observations as rows): SM_COMPARE_SAMPLES (also
   * SM_COMPARE_AUTO, 0) makes the samples the vectors, as if transposed;
   * SM_COMPARE_OBSERVATIONS the observations. Other inputs ignore it. */
  int compare;
  /* raw input: the sizes (raw files have no header). num_field is required
   * for raw; num_vector 0 means "as many as the file holds" (the file size
   * must then be a whole number of vectors). raw czekanowski files hold
   * elem_size-wide floats unless raw_elem_size says otherwise (4 or 8). */
  size_t num_vector, num_field, raw_elem_size;
  /* The slice to keep: vectors [v0, v0 + vcount) and fields [f0, f0 + fcount)
   * of the whole set; a count of 0 means "to the end". */
  size_t v0, vcount, f0, fcount;
  /* text input: whether the first line is a header and the first column
   * row names: SM_TEXT_YES, SM_TEXT_NO or SM_TEXT_AUTO (the default, 0:
   * decided from the file, with a warning when ids look like data) */
  int header, row_names;
  /* czekanowski: readers that can (BIOM HDF5) keep the slice in compressed
   * sparse rows (sm_vectors_t.csr_off), memory after the non-zero entries;
   * the others read dense as always */
  int czek_sparse;
  /* PLINK sets: the calls of samples with a parent in the .fam (either
   * parent id not "0") read as missing, PLINK 1.9's founders-only rule
   * for its LD (r2, r) */
  int founders_only;
  /* PLINK sets: PLINK 1.9's LD coding of the haploid chromosomes (r2, r):
   * on X (23) a male's heterozygous call is missing and his homozygous
   * calls count 0 or 1 copies of the minor allele; on Y (24) only males'
   * homozygous calls count (sm_read_plink.c, haploid_code) */
  int ld_haploid;
  /* with ld_haploid: PLINK's --keep-allele-order (no allele flip on X) */
  int ld_a1;
  /* PLINK's --set-missing-var-ids: the names of variants whose id is "."
   * from this template (sm_read_var_id), or NULL */
  const char *var_id_tmpl;
  /* VCF/BCF: a half-call (0/.) is missing (SM_HALF_MISSING), haploid, of
   * REF for its missing allele, or an error (plink1.9's --vcf-half-call) */
  int half_call;
  /* with ld_haploid: PLINK's --nonfounders: its allele flip on X counts
   * every sample's calls, not the founders' only */
  int freq_all;
  /* a probe of the sizes (a one-vector read before the real one): the
   * readers keep their informational lines for the real read, where the
   * slice holding the first vector and field says them, of the whole file */
  int probe;
  /* PLINK sets, VCF/BCF: the variants kept (--chr, --extract, --exclude),
   * increasing indices among the file's variants (a VCF's
   * records but gVCF blocks): vector k is the file's variant vsel[k], and v0, vcount and
   * the sizes count the kept ones. NULL: every variant. */
  const uint32_t *vsel;
  size_t nvsel;
  /* VCF/BCF: the names are the ID column as written, "." too (PLINK's
   * .ld prints it so), not chrom:pos for "." */
  int raw_ids;
  /* PLINK sets: the samples kept (--keep, --remove, --keep-fam,
   * --remove-fam; sm_read_plink_keep), increasing indices among the
   * .fam's samples: field q is the file's sample ssel[q], and f0, fcount
   * and the sizes count the kept ones. NULL: every sample. */
  const uint32_t *ssel;
  size_t nssel;
} sm_read_opts_t;

enum { SM_TEXT_AUTO = 0, SM_TEXT_YES = 1, SM_TEXT_NO = 2 };
enum {
  SM_HALF_MISSING = 0,
  SM_HALF_HAPLOID = 1,
  SM_HALF_REFERENCE = 2,
  SM_HALF_ERROR = 3
};
enum { SM_COMPARE_AUTO = 0, SM_COMPARE_SAMPLES = 1, SM_COMPARE_OBSERVATIONS = 2 };

typedef struct sm_dims {
  size_t nv, nf; /* sizes of the whole input, before slicing */
  /* text input: what was found (SM_TEXT_YES / SM_TEXT_NO; 0 otherwise) */
  int header, row_names;
  /* a BIOM layout: the axis whose items are the vectors (SM_COMPARE_SAMPLES
   * or SM_COMPARE_OBSERVATIONS); 0 for other inputs */
  int compare;
  /* a BIOM table: its non-zero values (0 for other inputs: not known) */
  uint64_t nnz;
} sm_dims_t;

/* Every reader: fills *out with the slice (names included when the input
 * has them: TSV row/column names, PLINK .bim SNP ids) and, when dims is not
 * NULL, the whole input's sizes. Czekanowski values are checked (finite,
 * >= 0: SM_EVALUE otherwise). CCC inputs are 2-bit codes (sm_vectors.h)
 * and out->nmissing counts the missing calls of the slice.
 * An input with no vectors or no fields is SM_EDEGEN. */

/** Delimited text. Czekanowski only. Rows are vectors (columns with
 * transpose). A first row whose cells (after the first) are not all numbers
 * is a header giving names (used with transpose); a first column that is not
 * numeric gives row names. Ragged rows and non-numeric cells are SM_EFORMAT
 * with file:line:column. A BIOM table written as text (a '# Constructed
 * from biom file' line, or a header headed '#OTU ID' or 'OTU ID') compares
 * its samples (columns) unless o->compare says observations, and skips a
 * last column of observation metadata (taxonomy); dims->compare says so. */
sm_err_t sm_read_tsv(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims) SM_MUST_CHECK;

/** NumPy .npy (format 1.0/2.0/3.0), 2-D, C order, little-endian.
 * czekanowski: float32, float64 or any integer dtype (converted);
 * ccc: integer dtype holding 2-bit codes 0..3 (CoMet's), other values are
 * SM_EVALUE. Other dtypes, Fortran order, big-endian, other ranks:
 * SM_EFORMAT naming the dtype found and what is accepted. Reads the slice
 * by offset. */
sm_err_t sm_read_npy(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims) SM_MUST_CHECK;

/** PLINK 1 binary fileset prefix.bed/.bim/.fam, SNP-major. Vectors are SNPs
 * (names from .bim column 2), fields are samples (.fam lines). Allele "1" of
 * CCC is the .bim A1 allele: PLINK code 00 (hom A1) -> SM_GT_2, 10 (het) ->
 * SM_GT_1, 11 (hom A2) -> SM_GT_0, 01 (missing) -> SM_GT_MISSING.
 * Checks the magic (0x6c 0x1b 0x01; sample-major is refused), the .bed size
 * against the .bim and .fam line counts. Reads the slice by offset. */
sm_err_t sm_read_plink(const char *prefix, const sm_read_opts_t *o, sm_vectors_t *out,
                       sm_dims_t *dims) SM_MUST_CHECK;

/** CoMet raw layout, no header. czekanowski: float32 or float64 per
 * raw_elem_size (default elem_size), vector after vector, field fastest.
 * ccc: 2-bit values, 4 fields per byte, field f at bits 2*(f%4), each
 * vector padded to a whole byte. The file size must match the sizes. */
sm_err_t sm_read_raw(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims) SM_MUST_CHECK;

/** VCF or BCF (plain, bgzip or gzip) through htslib, for CCC. Vectors are
 * the records but gVCF reference blocks, as plink1.9 --vcf reads them (a
 * multi-allelic record's ALT: the most common of its ALTs over every
 * sample, a call with another missing; counted in the log once per run;
 * ALT ".": calls of REF), fields are the samples.
 * Allele "1" of CCC is the ALT allele: a call's code is its ALT dosage
 * (0/0 -> SM_GT_0, 0/1 and 1/0 -> SM_GT_1, 1/1 -> SM_GT_2, phased or not);
 * a haploid call counts as homozygous (0 -> SM_GT_0, 1 -> SM_GT_2, as PLINK
 * does); a call with a missing allele, or of ploidy above 2, is
 * SM_GT_MISSING (the sparse method then applies). Names: the ID column, or
 * chrom:pos when it is "." (o->raw_ids: "."). The header must declare FORMAT/GT. The file
 * is read in order; the slice is kept. */
sm_err_t sm_read_vcf(const char *path, const sm_read_opts_t *o, sm_vectors_t *out,
                     sm_dims_t *dims) SM_MUST_CHECK;

/** Where the variants of a genotype input are (PLINK's LD windows and its
 * .ld table): for each of the n vectors in the input's order (every
 * vector, not a slice) its chromosome, an index into the nchrom names as
 * the input writes them, and its bp position. */
typedef struct sm_loci {
  size_t n, nchrom;
  uint32_t *chrom, *pos;
  char **chrom_names;   /* as first read */
  char **chrom_codes;   /* and as PLINK reads it (sm_read_chrom_code) */
  char **ids;           /* with sm_read_loci_ids: each variant's id (the .bim's
                           column 2; a VCF's ID, chrom:pos when "."), else NULL */
  unsigned char *akind; /* with ids: each variant's alleles (the .bim's two, a
                           VCF's REF and the ALT read): SM_ALLELES_ bits */
  size_t akind_cap;
} sm_loci_t;
/** A variant's alleles as PLINK's --snps-only sees them: both one
 * character; both one of A, C, G, T (either case) or the missing code 0
 * (just-acgt). */
enum { SM_ALLELES_SNV = 1, SM_ALLELES_ACGT = 2 };

/** The loci of a PLINK set (its .bim) or of a VCF/BCF (CHROM, POS of the
 * records read as vectors); fmt as sm_read_input's. SM_EOPTION for an
 * input without loci. */
sm_err_t sm_read_loci(const char *path, sm_input_format_t fmt, sm_loci_t *out);
/** sm_read_loci with each variant's id in out->ids as well (a "." id made
 * from tmpl, PLINK's --set-missing-var-ids, unless NULL); o: the options
 * the genotypes are read with (a VCF's half-calls choose an ALT). */
sm_err_t sm_read_loci_ids(const char *path, sm_input_format_t fmt,
                          const sm_read_opts_t *o, sm_loci_t *out);
sm_err_t sm_read_plink_loci(const char *prefix, const sm_read_opts_t *o, int ids,
                            sm_loci_t *out);
sm_err_t sm_read_vcf_loci(const char *path, const sm_read_opts_t *o, int ids,
                          sm_loci_t *out);
/** The index of chromosome name `name` in out (added when new), or -1
 * without memory (sm_read_loci's readers; this and the next two:
 * sm_read_util.c). */
long sm_loci_chrom(sm_loci_t *out, const char *name);
/** A chromosome name as PLINK 1.9 reads and prints it by default: a "chr"
 * prefix dropped, autosomes as numbers, X 23, Y 24, XY 25, MT (M) 26,
 * other names as given; into buf (at least 64 bytes). Two names of one
 * code are one chromosome (sm_loci_chrom). */
void sm_read_chrom_code(const char *name, char *buf);
/** Whether chromosome `name` is in `list`, PLINK's --chr: items separated
 * by commas, each a chromosome (any name: compared by PLINK's code) or a
 * range A-B of two numeric codes (X 23 ... MT 26 count: 1-26 is every
 * human chromosome). -1 when the list is malformed (an empty item, a range
 * whose ends are not numbers or are decreasing). */
int sm_read_chr_in(const char *list, const char *name);
/** Whether tmpl is a --set-missing-var-ids template plink1.9 takes:
 * exactly one '@' and one '#', and no '$' or exactly one "$1" and one
 * "$2". */
int sm_read_var_id_template_ok(const char *tmpl);
/** PLINK's variant filters (sm_read_select.c): --chr's list (NULL: every
 * chromosome) and --not-chr's (NULL: none), --extract's and --exclude's
 * files of variant ids (NULL: none); the positions PLINK 1.9 reads them
 * at from its .bim: --from and --to (variant ids, NULL: none), --from-bp
 * and --to-bp (kb and mb converted; -1: not given), --snp and
 * --exclude-snp (ids, NULL: none) with --window's half width in bp (-1:
 * no --window). */
typedef struct sm_vfilter {
  const char *chr, *not_chr, *extract, *exclude;
  const char *from, *to, *snp, *exclude_snp;
  const char *snps, *exclude_snps; /* PLINK's ranges of ids (NULL: none) */
  int snps_only; /* PLINK's --snps-only: SM_ALLELES_ bits required (0: none) */
  int64_t from_bp, to_bp, window_bp;
} sm_vfilter_t;
/** The variants of l that f keeps, as PLINK 1.9 keeps them: on a chosen
 * chromosome (--chr, not --not-chr); with --from/--to, on the chromosome
 * of those variants at a position between theirs (both included, in
 * either order; --from-bp/--to-bp likewise on --chr's one chromosome);
 * with --snp, that variant, or with --window every variant on its
 * chromosome within the half width of its position; without the variant
 * of --exclude-snp (with --window every variant within the half width of
 * it); then with --snps in (--exclude-snps out of) its ranges of ids
 * (ID1-ID2: the variants between them in the file's order, both included,
 * each end one of the variants left); then listed by --extract and not
 * by --exclude (ids listed that the
 * input lacks are ignored; a list is words separated by white space).
 * Their increasing indices in *sel (malloc'd, *nsel of them). l holds ids
 * when a list or an id is given (sm_read_loci_ids). With say, logs what
 * each filter left and the errors; no variant left is SM_EDEGEN, an id
 * not found or found twice SM_EOPTION, a list that cannot be read
 * SM_EIO. */
sm_err_t sm_read_select(const char *input, const sm_loci_t *l, const sm_vfilter_t *f,
                        int say, uint32_t **sel, size_t *nsel) SM_MUST_CHECK;
/** PLINK's --ld-snp (id: the first variant of that id) or --ld-snp-list
 * (list, a file of ids: every variant's id must be unique, as PLINK
 * requires, else SM_EINCONSIST): per variant of l (read with ids) whether
 * it is one of them, in *is_index (malloc'd, l->n bytes). None of them is
 * SM_EDEGEN (logged with say). With ranges (PLINK's --ld-snps, id and
 * list NULL): the variants of l in those ranges of ids (in the file's
 * order, both ends included; each end one of l's variants, the second
 * not before the first). */
sm_err_t sm_read_ld_snps(const char *input, const sm_loci_t *l, const char *id,
                         const char *list, const char *ranges, int say,
                         unsigned char **is_index) SM_MUST_CHECK;
/** A sample's status as PLINK reads it (a .fam's parents and sex; a VCF's
 * samples are founders of unknown sex). */
enum {
  SM_SAMPLE_NONFOUNDER = 1,
  SM_SAMPLE_MALE = 2,
  SM_SAMPLE_FEMALE = 4,
  /* a .fam's case/control phenotype as plink1.9 reads it: 1 a control, 2 a
   * case (-9, 0 and words missing); neither bit on any sample when one value
   * is another number (a quantitative trait) */
  SM_SAMPLE_CONTROL = 8,
  SM_SAMPLE_CASE = 16
};
/** Each sample's SM_SAMPLE_ bits of a PLINK set's .fam (*st malloc'd, *n
 * samples): of the samples ssel[0..nssel) when ssel is not NULL
 * (sm_read_opts_t.ssel). */
sm_err_t sm_read_plink_samples(const char *prefix, const uint32_t *ssel, size_t nssel,
                               unsigned char **st, size_t *n) SM_MUST_CHECK;
/** PLINK's sample filters: files of sample ids (NULL: not given): keep
 * and remove list a family id and a sample id a line (the first two
 * words; more are ignored), keep_fam and remove_fam a family id (the
 * first word); blank lines are skipped. */
typedef struct sm_sfilter {
  const char *keep, *remove, *keep_fam, *remove_fam;
} sm_sfilter_t;
/** The samples of a PLINK set's .fam that f keeps, as plink1.9 keeps
 * them (listed by --keep and --keep-fam when given, by neither --remove
 * nor --remove-fam; ids the .fam lacks are ignored): their increasing
 * indices in *sel (malloc'd, *nsel). With say, logs what each filter
 * left, as plink1.9 does. A line with fewer words than its list needs is
 * SM_EFORMAT, a list that cannot be read SM_EIO, no sample left
 * SM_EDEGEN (all logged). */
sm_err_t sm_read_plink_keep(const char *prefix, const sm_sfilter_t *f, int say,
                            uint32_t **sel, size_t *nsel) SM_MUST_CHECK;

/** PLINK's QC filters of variants (plink1.9's --geno, --maf, --max-maf,
 * --mac, --max-mac; negative: not given). */
typedef struct sm_qc {
  double geno, maf, max_maf;
  int64_t mac, max_mac;
  /* --hwe's p-value threshold (0: not given), its midp and
   * include-nonctrl modifiers, and --allow-no-sex (then a sample of
   * unknown sex keeps its phenotype) */
  double hwe;
  int hwe_midp, hwe_all, allow_no_sex;
} sm_qc_t;
/** The variants of v (whole rows of every sample, codes as read without
 * PLINK's LD coding; loci l, st each sample's SM_SAMPLE_ bits) that pass q
 * as plink1.9 decides (its calc_freqs_and_hwe): a call rate over every
 * sample (on Y males' over the males) at least 1 - geno; a minor allele
 * frequency over the founders (all samples with nonfounders; on X males
 * count one allele, the others two; on Y males only, one allele; 0.5
 * without calls) in
 * [maf, max_maf]; a minor allele count (the same alleles counted; 0
 * without calls) in [mac, max_mac]; Hardy-Weinberg's exact test (Wigginton
 * et al. 2005, plink1.9's SNPHWE2, mid-p with hwe_midp) of the founder
 * controls' calls (every founder's with hwe_all, or when the samples have
 * no control, or a chromosome's variants are split; on X the non-males';
 * Y and MT not tested) at p >= hwe (1 - 2^-44). Their indices into *keep (malloc'd,
 * *nkeep; none is SM_EDEGEN, logged), the counts removed said (say). */
sm_err_t sm_read_qc(const char *input, const sm_vectors_t *v, const sm_loci_t *l,
                    const unsigned char *st, int nonfounders, const sm_qc_t *q, int say,
                    uint32_t **keep, size_t *nkeep) SM_MUST_CHECK;
/** Whether genotype counts het, hom1, hom2 fail Hardy-Weinberg's exact
 * test (Wigginton, Cutler and Abecasis 2005; Graffelman and Moreno's
 * mid-p with midp, thresh then below 0.5) at thresh (already widened by
 * the caller), decided as plink1.9's --hwe decides it (SNPHWE_t,
 * SNPHWE_midp_t): p < thresh, except where its walk of the far tail ends
 * undecided, which fails (then p may be above thresh). */
int sm_hwe_fails(int64_t het, int64_t hom1, int64_t hom2, double thresh, int midp);
/** PLINK's --bp-space (plink1.9's enforce_min_bp_space): of l's variants
 * (positions sorted within each chromosome, else SM_EOPTION, logged), the
 * first of each chromosome and each one at least space bp after the last
 * kept; their indices into *keep (malloc'd, *nkeep), the count removed
 * said (say). */
sm_err_t sm_read_bp_space(const char *input, const sm_loci_t *l, uint32_t space, int say,
                          uint32_t **keep, size_t *nkeep) SM_MUST_CHECK;
/** PLINK's --mind (plink1.9's mind_filter): of v's samples (v, l, st as
 * sm_read_qc's), those missing at most (int)(mind x V x (1 + 2^-44))
 * calls, V the variants for a male, those not on Y for the others (whose
 * Y calls are not counted). Their indices into *keep (malloc'd, *nkeep);
 * none left is SM_EDEGEN (logged); the count removed said (say). */
sm_err_t sm_read_mind(const char *input, const sm_vectors_t *v, const sm_loci_t *l,
                      const unsigned char *st, double mind, int say, uint32_t **keep,
                      size_t *nkeep) SM_MUST_CHECK;
/** PLINK's allele choice and frequencies (v, l, st as sm_read_qc's; over
 * the founders, or every sample with nonfounders), counted as
 * calc_freqs_and_hwe counts (on X a male one allele, on Y males only):
 * rev[i] = 1 when variant i's allele 1 is its major allele
 * (calc_marker_reverse_bin reverses it; never with keep_a1, PLINK's
 * --keep-allele-order), freq[i] the frequency of the allele PLINK counts
 * (its --r2 with-freqs MAF columns). Either may be NULL. */
sm_err_t sm_read_ld_alleles(const sm_vectors_t *v, const sm_loci_t *l,
                            const unsigned char *st, int nonfounders, int keep_a1,
                            unsigned char *rev, double *freq) SM_MUST_CHECK;
/** The alleles a1, a2 of the last locus added (cap: sm_loci_add's), as
 * its SM_ALLELES_ bits in out->akind; -1 without memory. */
int sm_loci_alleles(sm_loci_t *out, size_t cap, const char *a1, const char *a2);
/** Add a locus (id: kept when not NULL); -1 without memory. */
int sm_loci_add(sm_loci_t *out, size_t *cap, const char *chrom, uint32_t pos,
                const char *id);
/** Keep the loci of the variants sel[0..n) (increasing indices) only. */
void sm_loci_keep(sm_loci_t *l, const uint32_t *sel, size_t n);
void sm_loci_free(sm_loci_t *l);

/** The format SM_INPUT_AUTO reads path as, by its name (and the first
 * bytes of a file without an extension); SM_INPUT_AUTO for a stream. */
sm_input_format_t sm_read_guess_format(const char *path);

/** Dispatch on fmt (SM_INPUT_AUTO: by the path's extension; a path whose
 * prefix.bed exists is PLINK; a .biom file is BIOM (text starting with '#':
 * its text form); a file of another extension starting with HDF5's
 * signature is BIOM; a stream of no telling name, without num_field, by its
 * first bytes: npy, VCF/BCF, HDF5, else text). BIOM is read by
 * sm_read_biom (sm_read_biom.h). Every reader
 * reads a stream (a pipe, a FIFO, /dev/stdin, a device) once, into
 * memory, and later reads in the process read that copy (sm_stream.h);
 * a stream cannot be a PLINK prefix. */
sm_err_t sm_read_input(const char *path, sm_input_format_t fmt, const sm_read_opts_t *o,
                       sm_vectors_t *out, sm_dims_t *dims) SM_MUST_CHECK;

/** Parse a format name ("auto", "tsv", "csv", "npy", "plink", "raw", "vcf",
 * "biom"). */
sm_err_t sm_input_format_parse(const char *s, sm_input_format_t *fmt) SM_MUST_CHECK;

#endif
