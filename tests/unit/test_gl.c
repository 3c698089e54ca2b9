/* test_gl.c: the genotype-likelihood readers (BEAGLE plain and gzip, VCF
 * and BCF with GL or PL) on good and bad files, and the VCF genotype reader
 * of `starmet compute` (ALT dosage, haploid and missing calls, multi-allelic
 * records skipped, slices). */
#include <htslib/hts.h>
#include <htslib/vcf.h>
#include <math.h>
#include <zlib.h>

#include "sm_gl.h"
#include "sm_read.h"
#include "sm_test.h"

static const char beagle[] =
    "marker\tallele1\tallele2\tInd0\tInd0\tInd0\tInd1\tInd1\tInd1\n"
    "chr1_100\t0\t1\t0.9\t0.09\t0.01\t0.333333\t0.333333\t0.333333\n"
    "scaffold_7_2500\tA\tG\t1e-3\t0.5\t0.499\t0\t0\t1\n"
    "\n"
    "rs42\tC\tT\t0.2\t0.3\t0.5 0.1 0.1 0.8\n";

static sm_gl_reader_t *open_ok(const char *path, sm_gl_format_t fmt)
{
  sm_gl_reader_t *r = NULL;
  ck_assert_int_eq(sm_gl_open(path, fmt, &r), SM_OK);
  return r;
}

static void check_beagle(const char *path)
{
  sm_gl_reader_t *r = open_ok(path, SM_GL_AUTO);
  ck_assert_uint_eq(sm_gl_nind(r), 2);
  ck_assert_str_eq(sm_gl_format_name(r), "beagle");
  sm_gl_sites_t b = {0};
  size_t n;
  ck_assert_int_eq(sm_gl_read(r, 10, 1, &b, &n), SM_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_uint_eq(b.n, 3);
  ck_assert_str_eq(sm_gl_chrom(r, b.chrom[0]), "chr1");
  ck_assert_uint_eq(b.pos[0], 100);
  ck_assert_str_eq(sm_gl_chrom(r, b.chrom[1]), "scaffold_7");
  ck_assert_uint_eq(b.pos[1], 2500);
  ck_assert_str_eq(sm_gl_allele(&b, 1, 0), "A");
  ck_assert_str_eq(sm_gl_allele(&b, 1, 1), "G");
  ck_assert_str_eq(sm_gl_chrom(r, b.chrom[2]), "rs42"); /* no position in the marker */
  ck_assert_uint_eq(b.pos[2], 0);
  ck_assert(b.gl[0] == 0.9 && b.gl[2] == 0.01 && b.gl[6 + 0] == 1e-3 && b.gl[6 + 5] == 1);
  ck_assert(b.gl[12 + 5] == 0.8);
  ck_assert_int_eq(sm_gl_read(r, 10, 1, &b, &n), SM_OK);
  ck_assert_uint_eq(n, 0);
  sm_gl_sites_free(&b);
  sm_gl_close(r);
}

START_TEST(beagle_plain_and_gzip)
{
  check_beagle(sm_test_write("a.beagle", beagle, strlen(beagle)));
  char gz[4200];
  snprintf(gz, sizeof gz, "%s/a.beagle.gz", sm_test_tmpdir());
  gzFile f = gzopen(gz, "wb");
  ck_assert(f != NULL);
  ck_assert_int_eq(gzwrite(f, beagle, (unsigned)strlen(beagle)), (int)strlen(beagle));
  gzclose(f);
  check_beagle(gz);
}
END_TEST

START_TEST(beagle_skip_counts)
{
  /* skipping (another rank's chunk) counts the same sites */
  sm_gl_reader_t *r =
      open_ok(sm_test_write("s.beagle", beagle, strlen(beagle)), SM_GL_BEAGLE);
  sm_gl_sites_t b = {0};
  size_t n;
  ck_assert_int_eq(sm_gl_read(r, 2, 0, &b, &n), SM_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(sm_gl_read(r, 2, 1, &b, &n), SM_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(sm_gl_chrom(r, b.chrom[0]), "rs42");
  sm_gl_sites_free(&b);
  sm_gl_close(r);
}
END_TEST

/* Open (and read) a bad file: the error code. */
static sm_err_t read_all(const char *name, const char *text)
{
  const char *path = sm_test_write(name, text, strlen(text));
  sm_gl_reader_t *r = NULL;
  sm_err_t err = sm_gl_open(path, SM_GL_AUTO, &r);
  sm_gl_sites_t b = {0};
  size_t n = 1;
  while (!err && n)
    err = sm_gl_read(r, 4, 1, &b, &n);
  sm_gl_sites_free(&b);
  sm_gl_close(r);
  return err;
}

START_TEST(beagle_bad)
{
  const char *h = "marker\tallele1\tallele2\tI\tI\tI\tJ\tJ\tJ\n";
  char buf[1024];
  snprintf(buf, sizeof buf, "%sc_1\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\n", h);
  ck_assert_int_eq(read_all("short.beagle", buf), SM_EFORMAT); /* ragged: short */
  snprintf(buf, sizeof buf, "%sc_1\t0\t1\t0.1\t0.2\t0.7\t0.3\t0.3\t0.3\t0.1\n", h);
  ck_assert_int_eq(read_all("long.beagle", buf), SM_EFORMAT); /* ragged: long */
  snprintf(buf, sizeof buf, "%sc_1\t0\t1\t0.1\t-0.2\t0.7\t0.3\t0.3\t0.3\n", h);
  ck_assert_int_eq(read_all("neg.beagle", buf), SM_EVALUE);
  snprintf(buf, sizeof buf, "%sc_1\t0\t1\t0.1\tx\t0.7\t0.3\t0.3\t0.3\n", h);
  ck_assert_int_eq(read_all("nan.beagle", buf), SM_EFORMAT);
  snprintf(buf, sizeof buf, "%sc_1\t0\t1\t0.1\tinf\t0.7\t0.3\t0.3\t0.3\n", h);
  ck_assert_int_eq(read_all("inf.beagle", buf), SM_EVALUE);
  ck_assert_int_eq(read_all("hdr.beagle", "marker\tallele1\tallele2\tI\tI\tI\tJ\n"),
                   SM_EFORMAT); /* header of the wrong column count */
  ck_assert_int_eq(read_all("empty.beagle", ""), SM_EDEGEN);
  sm_gl_reader_t *r = NULL;
  ck_assert_int_eq(sm_gl_open("/nonexistent/x.beagle", SM_GL_AUTO, &r), SM_EIO);
  ck_assert(r == NULL);
}
END_TEST

static const char vcf_head[] =
    "##fileformat=VCFv4.2\n"
    "##contig=<ID=1,length=1000>\n"
    "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n";
static const char vcf_gl[] =
    "##FORMAT=<ID=GL,Number=G,Type=Float,Description=\"log10 likelihoods\">\n";
static const char vcf_pl[] =
    "##FORMAT=<ID=PL,Number=G,Type=Integer,Description=\"phred likelihoods\">\n";

/* Write header + body as .vcf, and convert it with htslib to `mode` (wb:
 * BCF, wz: bgzipped VCF) when ext is not "vcf". */
static const char *write_vcf(const char *name, const char *fmtline, const char *body,
                             const char *mode)
{
  char text[8192];
  snprintf(text, sizeof text,
           "%s%s#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\tS2"
           "\tS3\n%s",
           vcf_head, fmtline, body);
  const char *vcf = sm_test_write(name, text, strlen(text));
  if (!mode)
    return vcf;
  static char out[4][4200];
  static int k;
  char *o = out[k++ & 3];
  snprintf(o, sizeof out[0], "%s.%s", vcf, mode[1] == 'b' ? "bcf" : "gz");
  htsFile *in = hts_open(vcf, "r"), *w = hts_open(o, mode);
  ck_assert(in && w);
  bcf_hdr_t *hdr = bcf_hdr_read(in);
  ck_assert_int_eq(bcf_hdr_write(w, hdr), 0);
  bcf1_t *rec = bcf_init();
  while (bcf_read(in, hdr, rec) == 0)
    ck_assert_int_eq(bcf_write(w, hdr, rec), 0);
  bcf_destroy(rec);
  bcf_hdr_destroy(hdr);
  hts_close(in);
  hts_close(w);
  return o;
}

static const char gl_body[] =
    "1\t10\t.\tA\tG\t.\t.\t.\tGT:GL\t0/0:0,-1,-2\t0/1:.\t1/1:-3,-1.5,0\n"
    "1\t20\t.\tA\tC,T\t.\t.\t.\tGT:GL\t0/0:0,-1,-2,-1,-2,-3\t0/1:.\t1/1:.\n"
    "1\t30\tx\tC\tT\t.\t.\t.\tGT:GL\t0/1:-400,0,-400\t./.:.\t0/0:0,0,0\n";

static void check_gl_sites(const char *path, int pl)
{
  sm_gl_reader_t *r = open_ok(path, SM_GL_AUTO);
  ck_assert_uint_eq(sm_gl_nind(r), 3);
  sm_gl_sites_t b = {0};
  size_t n;
  ck_assert_int_eq(sm_gl_read(r, 8, 1, &b, &n), SM_OK);
  ck_assert_uint_eq(n, 2); /* the tri-allelic record is skipped */
  sm_gl_stats_t st;
  sm_gl_get_stats(r, &st);
  ck_assert_uint_eq(st.records, 3);
  ck_assert_uint_eq(st.multiallelic, 1);
  ck_assert_str_eq(sm_gl_chrom(r, b.chrom[0]), "1");
  ck_assert_uint_eq(b.pos[0], 10);
  ck_assert_uint_eq(b.pos[1], 30);
  ck_assert_str_eq(sm_gl_allele(&b, 0, 1), "G");
  const double *p = b.gl;
  const double tol = pl ? 1e-12 : 1e-6; /* GL is float */
  ck_assert(fabs(p[0] - 1) < tol && fabs(p[1] - 0.1) < tol && fabs(p[2] - 0.01) < tol);
  ck_assert(p[3] == 1 && p[4] == 1 && p[5] == 1); /* missing: no data */
  ck_assert(fabs(p[6] - 1e-3) < tol * 1e-3 && fabs(p[8] - 1) < tol);
  p = b.gl + 9;
  ck_assert(p[1] == 1 && p[0] < 1e-300); /* -400 kept relative to the best */
  ck_assert(p[3] == 1 && p[4] == 1 && p[5] == 1);
  ck_assert(p[6] == 1 && p[7] == 1 && p[8] == 1);
  sm_gl_sites_free(&b);
  sm_gl_close(r);
}

START_TEST(vcf_gl_pl_bcf)
{
  check_gl_sites(write_vcf("g.vcf", vcf_gl, gl_body, NULL), 0);
  check_gl_sites(write_vcf("g2.vcf", vcf_gl, gl_body, "wb"), 0);
  check_gl_sites(write_vcf("g3.vcf", vcf_gl, gl_body, "wz"), 0);
  static const char pl_body[] =
      "1\t10\t.\tA\tG\t.\t.\t.\tGT:PL\t0/0:0,10,20\t0/1:.\t1/1:30,15,0\n"
      "1\t20\t.\tA\tC,T\t.\t.\t.\tGT:PL\t0/0:0,1,2,1,2,3\t0/1:.\t1/1:.\n"
      "1\t30\tx\tC\tT\t.\t.\t.\tGT:PL\t0/1:4000,0,4000\t./.:.\t0/0:0,0,0\n";
  check_gl_sites(write_vcf("p.vcf", vcf_pl, pl_body, NULL), 1);
  check_gl_sites(write_vcf("p2.vcf", vcf_pl, pl_body, "wb"), 1);
}
END_TEST

START_TEST(vcf_bad)
{
  sm_gl_reader_t *r = NULL;
  const char *nogl =
      write_vcf("nogl.vcf", "", "1\t10\t.\tA\tG\t.\t.\t.\tGT\t0/0\t0/1\t1/1\n", NULL);
  ck_assert_int_eq(sm_gl_open(nogl, SM_GL_AUTO, &r), SM_EFORMAT);
  ck_assert(r == NULL);
  const char *neg =
      write_vcf("neg.vcf", vcf_pl,
                "1\t10\t.\tA\tG\t.\t.\t.\tGT:PL\t0/0:0,-10,20\t0/1:.\t1/1:.\n", NULL);
  r = open_ok(neg, SM_GL_AUTO);
  sm_gl_sites_t b = {0};
  size_t n;
  ck_assert_int_eq(sm_gl_read(r, 8, 1, &b, &n), SM_EVALUE);
  sm_gl_sites_free(&b);
  sm_gl_close(r);
  const char *text = sm_test_write("notvcf.vcf", "hello\n", 6);
  ck_assert_int_ne(sm_gl_open(text, SM_GL_AUTO, &r), SM_OK);
}
END_TEST

/* starmet compute's VCF reader: GT to ALT dosage codes. */
START_TEST(vcf_genotypes)
{
  static const char body[] = "1\t10\trs1\tA\tG\t.\t.\t.\tGT\t0/0\t0|1\t1/1\n"
                             "1\t20\t.\tA\tC,T\t.\t.\t.\tGT\t0/0\t0/1\t1/2\n"
                             "1\t30\t.\tC\tT\t.\t.\t.\tGT\t./.\t1\t0\n"
                             "1\t40\trs4\tG\tA\t.\t.\t.\tGT\t1/0\t0/.\t0/0\n";
  const char *paths[2] = {write_vcf("gt.vcf", "", body, NULL),
                          write_vcf("gt2.vcf", "", body, "wb")};
  for (int k = 0; k < 2; k++) {
    sm_read_opts_t o = {.metric = SM_METRIC_CCC};
    sm_vectors_t v;
    sm_dims_t d;
    ck_assert_int_eq(sm_read_input(paths[k], SM_INPUT_AUTO, &o, &v, &d), SM_OK);
    ck_assert_uint_eq(d.nv, 4);
    ck_assert_uint_eq(d.nf, 3);
    /* the multi-allelic record as plink1.9 --vcf reads it: C (called
     * twice) is ALT, the 1/2 call (T) missing */
    static const unsigned want[4][3] = {{SM_GT_0, SM_GT_1, SM_GT_2},
                                        {SM_GT_0, SM_GT_1, SM_GT_MISSING},
                                        {SM_GT_MISSING, SM_GT_2, SM_GT_0},
                                        {SM_GT_1, SM_GT_MISSING, SM_GT_0}};
    for (int i = 0; i < 4; i++)
      for (int f = 0; f < 3; f++)
        ck_assert_uint_eq(sm_gt_get(sm_vectors_row(&v, i), f), want[i][f]);
    ck_assert_str_eq(v.names[0], "rs1");
    ck_assert_str_eq(v.names[1], "1:20");
    ck_assert_str_eq(v.names[2], "1:30");
    ck_assert_uint_eq(v.nmissing, 3);
    sm_vectors_free(&v);
    /* a slice: variants 2..3, samples 1..2 */
    o.v0 = 2, o.vcount = 2, o.f0 = 1, o.fcount = 2;
    ck_assert_int_eq(sm_read_input(paths[k], SM_INPUT_VCF, &o, &v, NULL), SM_OK);
    ck_assert_uint_eq(v.nv, 2);
    ck_assert_uint_eq(v.nf, 2);
    ck_assert_uint_eq(sm_gt_get(sm_vectors_row(&v, 0), 0), SM_GT_2);
    ck_assert_uint_eq(sm_gt_get(sm_vectors_row(&v, 1), 1), SM_GT_0);
    ck_assert_str_eq(v.names[1], "rs4");
    sm_vectors_free(&v);
  }
  sm_input_format_t fmt;
  ck_assert_int_eq(sm_input_format_parse("vcf", &fmt), SM_OK);
  ck_assert_int_eq(fmt, SM_INPUT_VCF);
  /* czekanowski cannot use genotypes; a VCF without GT is refused */
  sm_read_opts_t oz = {.metric = SM_METRIC_CZEK, .elem_size = 8};
  sm_vectors_t v;
  ck_assert_int_eq(sm_read_vcf(paths[0], &oz, &v, NULL), SM_EOPTION);
  sm_read_opts_t oc = {.metric = SM_METRIC_CCC};
  const char *nogt = write_vcf("nogt.vcf", vcf_gl, "", NULL);
  char text[4096];
  FILE *f = fopen(nogt, "r");
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  char *gt = strstr(text, "##FORMAT=<ID=GT");
  memmove(gt, strchr(gt, '\n') + 1, strlen(strchr(gt, '\n') + 1) + 1);
  nogt = sm_test_write("nogt2.vcf", text, strlen(text));
  ck_assert_int_eq(sm_read_vcf(nogt, &oc, &v, NULL), SM_EFORMAT);
}
END_TEST

/* Many VCFs have no ##contig lines: htslib adds the contig to the header
 * and parses the record; both readers take such files. */
START_TEST(vcf_no_contig)
{
  static const char text[] =
      "##fileformat=VCFv4.2\n"
      "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
      "##FORMAT=<ID=GL,Number=G,Type=Float,Description=\"log10 likelihoods\">\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\tS2\n"
      "chr7\t10\trs1\tA\tG\t.\t.\t.\tGT:GL\t0/1:-1,0,-1\t1/1:-2,-1,0\n"
      "chr9\t20\trs2\tC\tT\t.\t.\t.\tGT:GL\t0/0:0,-1,-2\t./.:.\n";
  const char *path = sm_test_write("nocontig.vcf", text, strlen(text));
  sm_read_opts_t o = {.metric = SM_METRIC_CCC};
  sm_vectors_t v;
  sm_dims_t d;
  ck_assert_int_eq(sm_read_vcf(path, &o, &v, &d), SM_OK);
  ck_assert_uint_eq(d.nv, 2);
  ck_assert_uint_eq(d.nf, 2);
  ck_assert_uint_eq(sm_gt_get(sm_vectors_row(&v, 0), 0), SM_GT_1);
  ck_assert_uint_eq(sm_gt_get(sm_vectors_row(&v, 1), 1), SM_GT_MISSING);
  sm_vectors_free(&v);
  sm_gl_reader_t *r = open_ok(path, SM_GL_AUTO);
  sm_gl_sites_t b = {0};
  size_t n;
  ck_assert_int_eq(sm_gl_read(r, 8, 1, &b, &n), SM_OK);
  ck_assert_uint_eq(n, 2);
  sm_gl_sites_free(&b);
  sm_gl_close(r);
}
END_TEST

static Suite *gl_suite(void)
{
  Suite *s = suite_create("gl");
  TCase *tc = tcase_create("readers");
  tcase_add_test(tc, beagle_plain_and_gzip);
  tcase_add_test(tc, beagle_skip_counts);
  tcase_add_test(tc, beagle_bad);
  tcase_add_test(tc, vcf_gl_pl_bcf);
  tcase_add_test(tc, vcf_bad);
  tcase_add_test(tc, vcf_genotypes);
  tcase_add_test(tc, vcf_no_contig);
  suite_add_tcase(s, tc);
  return s;
}

SM_TEST_MAIN(gl_suite)
