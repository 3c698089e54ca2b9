/* sm_options.h: the options of `starmet compute` and `starmet synth`,
 * parsed (from the table in sm_options.c) and validated before anything
 * runs. */
#ifndef SM_OPTIONS_H
#define SM_OPTIONS_H

#include <stdio.h>

#include "sm_codelets.h"
#include "sm_optable.h"
#include "sm_output.h"
#include "sm_read.h"
#include "sm_synth.h"

typedef enum sm_method {
  SM_METHOD_TASKS = 0, /* the StarPU task graph (default) */
  SM_METHOD_REF,       /* the reference implementation */
} sm_method_t;

typedef enum sm_ccc_gemm {
  SM_CCC_GEMM_AUTO = 0, /* int8 when the products run on CUDA workers only */
  SM_CCC_GEMM_POPCOUNT, /* bit planes, AND + popcount */
  SM_CCC_GEMM_INT8,     /* cached int8 tiles, int8 GEMMs (cuBLAS on GPUs) */
} sm_ccc_gemm_t;

typedef enum sm_czek_method {
  SM_CZEK_METHOD_AUTO = 0, /* sparse below SM_CZEK_SPARSE_DENSITY non-zeros */
  SM_CZEK_METHOD_DENSE,    /* the min-plus products over every field */
  SM_CZEK_METHOD_SPARSE,   /* packed sparse tiles, minima over shared fields */
} sm_czek_method_t;

typedef enum sm_retry {
  SM_RETRY_AUTO = 0, /* runtime where StarPU has it (1.4), else check */
  SM_RETRY_RUNTIME,  /* StarPU's task retry: the failed task is tried again */
  SM_RETRY_CHECK,    /* a verify task re-runs the kernel on its CPU */
} sm_retry_t;

typedef struct sm_options {
  /* what */
  sm_metric_t metric;
  int metric_from_input; /* no --metric: ccc, as the input holds genotypes */
  int form;              /* czekanowski 2-way: SM_FORM_* (sm_formulas.h): --metric
                            czekanowski (PS), bray-curtis or jaccard */
  int binary;            /* czekanowski: presence/absence, every value > 0 read as 1 */
  int zero_pairs;        /* czekanowski 2-way, a pair of two zero sums: 1 NaN, 0 the
                            value of nothing in common (PS 0, a dissimilarity 1); -1
                            until checked: NaN for the dissimilarities, 0 for PS */
  int num_way;           /* 2 or 3 */
  int single;            /* czekanowski --precision single */
  int sparse;            /* ccc: -1 auto (sparse when missing calls), 0, 1 */
  double ccc_param, ccc_mult;
  sm_method_t method;
  sm_kernel_t kernel;
  sm_ccc_gemm_t ccc_gemm;       /* CCC 2-way products */
  sm_czek_method_t czek_method; /* Czekanowski 2-way numerators */
  /* input */
  const char *input; /* path, or PLINK prefix with --bfile */
  sm_input_format_t input_format;
  int transpose;
  int compare;                     /* BIOM inputs: SM_COMPARE_* (sm_read.h) */
  int text_header, text_row_names; /* SM_TEXT_AUTO / _YES / _NO (sm_read.h) */
  size_t num_vector, num_field, raw_elem_size;
  sm_synth_t synth; /* kind SM_SYNTH_NONE when reading a file */
  /* output */
  const char *output; /* prefix, or NULL (--output, PLINK's --out) */
  sm_outfmt_t output_format;
  double threshold;      /* < 0: none */
  sm_thr_list_t thr_ent; /* CCC: CoMet's thresholds per table entry (n 4 or 5) */
  uint32_t hist_bins;    /* --histogram: bins, 0: none */
  size_t topk;           /* --top-k: neighbours per vector, 0: none */
  /* PLINK's LD windows (r2, r, ccc on genotypes): --ld-window N (0: not
   * given), --ld-window-kb KB and --ld-window-r2 R (< 0: not given),
   * --inter-chr; once checked: ld_windowed (pairs within windows of
   * ld_window variants and ld_window_bp bp on one chromosome) and ld_min
   * (r, r2: the filter, < 0 none) */
  size_t ld_window;
  int nonfounders; /* r2, r: every sample (--all-samples), not founders only */
  int ld_a1;       /* r2, r: count the file's A1, not the minor allele
                      (PLINK's --keep-allele-order) */
  const char *chr; /* PLINK's --chr: the chromosomes kept (genotypes), or NULL */
  const char *extract, *exclude; /* PLINK's --extract, --exclude: files of
                                    variant ids kept, dropped (or NULL) */
  /* PLINK's --keep, --remove (files of family and sample ids), --keep-fam,
   * --remove-fam (of family ids): the samples kept, dropped (or NULL) */
  const char *keep, *remove, *keep_fam, *remove_fam;
  /* PLINK's --filter-males/-females (1, 2), --filter-founders/-nonfounders
   * (1, 2), --filter-controls/-cases (1, 2); 0: not given */
  int filter_sex, filter_founder, filter_pheno;
  const char *ld_snps;              /* PLINK's --ld-snps RANGES (of ids), or NULL */
  const char *ld_snp, *ld_snp_list; /* PLINK's --ld-snp ID, --ld-snp-list FILE:
                                       the .ld's pairs with these variants */
  int plink_said; /* PLINK's --allow-extra-chr / --allow-no-sex given: what
                     starmet does anyway */
  double ld_window_kb, ld_window_r2;
  /* PLINK's QC filters of variants (--geno, --maf, --max-maf; -1: not
   * given), and --nonfounders (their allele counts of every sample) */
  double geno, maf, max_maf;
  double mind; /* PLINK's --mind: samples' missing call rate at most (-1: not given) */
  int mac, max_mac; /* PLINK's --mac, --max-mac: minor allele counts (-1: not given) */
  /* PLINK's --hwe P [midp] [include-nonctrl] (hwe 0: not given) and
   * --allow-no-sex (a sample of unknown sex keeps its phenotype) */
  double hwe;
  int hwe_given, hwe_midp, hwe_all, allow_no_sex;
  /* PLINK's filters of positions, as plink1.9 reads its .bim: --not-chr's
   * list, --from/--to, --snp, --exclude-snp (variant ids), or NULL;
   * --from-bp/--to-bp (-kb, -mb converted to bp as plink1.9 does) and
   * --window's half width (bp), or -1; --bp-space (0: not given);
   * --autosome given (then chr is "1-22") */
  const char *not_chr, *from, *to, *snp, *exclude_snp, *snps, *exclude_snps;
  long long from_bp, to_bp, window_bp;
  int bp_space;
  int autosome;
  int snps_only; /* PLINK's --snps-only [just-acgt]: SM_ALLELES_ bits (0: not given) */
  int qc_nonfounders;
  int vcf_half_call;       /* sm_read_opts_t's */
  int ld_gz;               /* PLINK's --r2 gz: the .ld table gzip-compressed */
  int ld_freqs;            /* PLINK's --r2 with-freqs: MAF_A, MAF_B columns */
  const char *var_id_tmpl; /* PLINK's --set-missing-var-ids */
  int inter_chr, ld_windowed;
  int ld_modifier; /* --r2, --r followed by a PLINK modifier starmet lacks: the
                      first one's index in the list + 1 (else 0) */
  /* r2, r with --output and no --output-format: PLINK's .ld table, and
   * with no window option nor --inter-chr PLINK's default window, as
   * plink1.9 --r2 (ld_default_format, ld_default_window say which) */
  int ld_default_format, ld_default_window;
  int output_loci; /* tsv of genotypes: chromosome and position columns */
  uint32_t ld_window_bp;
  double ld_min;
  int topk_by_entry;       /* CCC: a list per table entry (else the largest) */
  double hist_lo, hist_hi; /* its range (NaN: the metric's) */
  const char *summary;     /* JSON summary path (default PREFIX.json) */
  int keys_index;          /* text output keys: vector numbers, not names */
  /* decomposition */
  int npv, npf, npr;        /* rank grid; 0 = default (npv = ranks, 1, 1) */
  int num_phase;            /* phases (default 1) */
  int phase_min, phase_max; /* 0-based, inclusive; -1 = last phase */
  int num_stage;            /* 3-way stages (default 1) */
  int stage_min, stage_max; /* 0-based, inclusive; -1 = last stage */
  /* runtime */
  size_t block_size; /* vectors per tile; 0 = automatic */
  size_t threads;    /* CPU workers per rank (--threads: STARPU_NCPU); 0 = default */
  const char *sched; /* StarPU policy or NULL */
  int no_priorities; /* every task at priority 0 */
  int calibrate;     /* record every task in the performance models */
  const char *perfmodel_dir; /* StarPU's model directory, or NULL */
  const char *trace;         /* per-task CSV, or NULL */
  const char *trace_paje;    /* StarPU's FxT trace as Paje (sm_paje.h), or NULL */
  int progress;              /* 1 on, 0 off, -1 when stderr is a terminal */
  int quiet;
  int resume;               /* continue an interrupted run */
  size_t debug_stop_after;  /* tests: die (SIGKILL) after N output blocks */
  size_t debug_stop_commit; /* tests: die in the commit, at step N (sm_job.h) */
  size_t debug_pause_after; /* tests: SIGSTOP after N output blocks */
  size_t debug_hang_block;  /* tests: block N's numerator tasks never end (N + 1) */
  int verify; /* sm_verify_t: check each numerator task, re-execute on failure;
               * SM_VERIFY_AUTO (the default) until sm_compute.c decides:
               * checksums for CCC products on CPUs, off otherwise */
  unsigned long long devices; /* worker types for the numerator tasks */
  double inject_rate;         /* corrupt numerator results at this rate (testing) */
  uint64_t inject_seed;
  int inject_kind;     /* SM_INJECT_BIT or SM_INJECT_ROW */
  sm_retry_t retry;    /* how a numerator that fails --verify is re-run */
  double task_timeout; /* s a run may finish no task before it fails; 0: off */
} sm_options_t;

/** The commands, the most common runs and where the guide is (what starmet
 * without arguments prints). */
void sm_options_short_usage(FILE *f);

/** Parse and check the arguments of `starmet compute` (argv[0] is
 * "compute"). Returns SM_OK or SM_EOPTION (logged); *done is set when
 * an option did the whole job (--help, --sched help). */
sm_err_t sm_options_parse_compute(int argc, char **argv, sm_options_t *o,
                                  int *done) SM_MUST_CHECK;

/** The problem o (parsed from argc, argv by sm_options_parse_compute) as
 * text that ranks compare (sm_opt_canonical): malloc'd, NULL without
 * memory. */
char *sm_options_canonical_compute(int argc, char **argv, const sm_options_t *o);

/** Parse `starmet synth` (writes a synthetic problem to a file); returns
 * and sets *done as sm_options_parse_compute. */
sm_err_t sm_options_parse_synth(int argc, char **argv, sm_options_t *o,
                                int *done) SM_MUST_CHECK;

/** The top-level help text. */
void sm_options_usage(FILE *f);

/** The option table of compute (synth 0) or synth (1): both commands
 * share one table, in which bit 1 << k of a row's commands is
 * sm_options_cmd_names[k]. For the manual page and the completion. */
const sm_optcmd_t *sm_options_command(int synth);
extern const char *const sm_options_cmd_names[];

#endif
