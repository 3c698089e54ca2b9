/* sm_sink.c: the record sink: threshold, analytic check, checksum, output,
 * progress. */
#include "sm_sink.h"

#include <signal.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_formulas.h"
#include "sm_types.h"
#include "sm_timer.h"

/* Expected value of a record of the analytic problem. */
static double analytic_value(const sm_sink_t *s, const sm_rec_t *r)
{
  const sm_synth_t *a = s->analytic;
  if (s->metric == SM_METRIC_CZEK) {
    double n2ij, si, sj;
    sm_synth_expect_czek2(a, r->idx[0], r->idx[1], &n2ij, &si, &sj);
    if (s->way == 2)
      return sm_f_czek2(n2ij, si, sj);
    double n2ik, n2jk, sk, d1, d2;
    sm_synth_expect_czek2(a, r->idx[0], r->idx[2], &n2ik, &d1, &sk);
    sm_synth_expect_czek2(a, r->idx[1], r->idx[2], &n2jk, &d1, &d2);
    return sm_f_czek3(n2ij, n2ik, n2jk,
                      sm_synth_expect_czek3_n3(a, r->idx[0], r->idx[1], r->idx[2]), si,
                      sj, sk);
  }
  if (s->way == 2) {
    uint64_t t[4], s1[2], c[2];
    double v[4];
    sm_synth_expect_ccc2(a, s->sparse, r->idx[0], r->idx[1], t, s1, c);
    sm_ccc2_values(t, s1[0], s1[1], c[0], c[1], a->nf, !s->sparse, s->ccc_mult,
                   s->ccc_param, v);
    return v[r->entry & 3];
  }
  uint64_t t[8], s1[3], c[3];
  double v[8];
  sm_synth_expect_ccc3(a, s->sparse, r->idx[0], r->idx[1], r->idx[2], t);
  for (int x = 0; x < 3; x++)
    sm_synth_expect_ccc_sums(a, s->sparse, r->idx[x], &s1[x], &c[x]);
  sm_ccc3_values(t, s1, c, a->nf, !s->sparse, s->ccc_mult, s->ccc_param, v);
  return v[r->entry & 7];
}

double sm_sink_rel_bound(sm_metric_t metric, int single, uint64_t nf)
{
  const double floor = single ? 1e-6 : 1e-12, u = single ? 0x1p-24 : 0x1p-53;
  const double sums = metric == SM_METRIC_CZEK ? 2.0 * (double)nf * u : 0.0;
  return sums > floor ? sums : floor;
}

static void check_analytic(sm_sink_t *s, const sm_rec_t *r)
{
  double want = analytic_value(s, r);
  double err = fabs(r->value - want) / (fabs(want) > 1e-300 ? fabs(want) : 1.0);
  const double tol = sm_sink_rel_bound(s->metric, s->single, s->nf);
  s->nchecked++;
  if (err > s->max_rel_err)
    s->max_rel_err = err;
  if (!(err <= tol)) {
    if (s->nbad < 5)
      sm_log_error("analytic check failed at (%u, %u%s%u) entry %u: got %.17g, "
                   "expected %.17g",
                   r->idx[0], r->idx[1], s->way == 3 ? ", " : "",
                   s->way == 3 ? r->idx[2] : 0, r->entry, r->value, want);
    s->nbad++;
  }
}

static void show_progress(sm_sink_t *s)
{
  double el = sm_now() - s->t_start;
  double frac = s->blocks_total ? (double)s->blocks_done / (double)s->blocks_total : 1;
  double eta = frac > 0 ? el * (1 - frac) / frac : 0;
  fprintf(stderr, "\rstarmet: %llu/%llu blocks  %.1f%%  %.3g values/s  ETA %.0f s   ",
          (unsigned long long)s->blocks_done, (unsigned long long)s->blocks_total,
          100 * frac, el > 0 ? (double)s->nvalues / el : 0.0, eta);
  if (s->blocks_done == s->blocks_total)
    fputc('\n', stderr);
}

static void capture(sm_sink_t *s, const sm_rec_t *r)
{
  if (s->capture_n == s->capture_cap) {
    size_t cap = s->capture_cap ? 2 * s->capture_cap : 1024;
    sm_rec_t *p = realloc(s->capture, cap * sizeof *p);
    if (!p) {
      s->err = SM_ENOMEM;
      return;
    }
    s->capture = p;
    s->capture_cap = cap;
  }
  s->capture[s->capture_n++] = *r;
}

void sm_sink_capture_free(sm_sink_t *s)
{
  free(s->capture);
  s->capture = NULL;
  s->capture_n = s->capture_cap = 0;
}

/* --debug-stop-after-blocks: a kill at a known point, for the resume
 * tests: what is written is made durable (as the periodic sync would have),
 * then the process dies as a SIGKILL would leave it. */
static void debug_stop(sm_sink_t *s)
{
  if (s->manifest && s->writer && !s->err) {
    uint64_t end;
    uint32_t crc; /* nothing since the last block's entry */
    int fd;
    if (sm_writer_flush(s->writer, &end, &fd, &crc) == SM_OK &&
        sm_manifest_add(s->manifest, NULL, fd, 1) != SM_OK)
      s->err = SM_EIO;
  }
  raise(SIGKILL);
}

/* --debug-pause-after-blocks: the process stops (SIGSTOP) once what is
 * written is on disk, so that a test can change its files as another
 * process would, then lets it go on (SIGCONT). */
static void debug_pause(sm_sink_t *s)
{
  uint64_t end;
  uint32_t crc;
  int fd;
  if (s->writer && !s->err && sm_writer_flush(s->writer, &end, &fd, &crc) == SM_OK &&
      s->manifest && sm_manifest_add(s->manifest, NULL, fd, 1) != SM_OK)
    s->err = SM_EIO;
  raise(SIGSTOP);
}

/* The block's histogram counts into the run's: the finalize's, or (the
 * reference loops, which pass every value as a record) its records'. */
static void add_histogram(sm_sink_t *s, const sm_recbuf_t *rb)
{
  const uint64_t *h = sm_recbuf_hist(rb);
  if (h) {
    for (uint64_t k = 0; k < sm_hist_words(&s->hist); k++)
      s->hist_counts[k] += h[k];
  } else if (s->apply_threshold) {
    for (uint64_t r = 0; r < rb->count; r++)
      s->hist_counts[rb->rec[r].entry * sm_hist_row(&s->hist) +
                     sm_hist_slot(&s->hist, rb->rec[r].value)]++;
  }
}

/* Whether record r of rb passes the threshold, for records that arrive
 * unthresholded; CoMet's per-entry thresholds need the other entries of
 * the same result, which arrive next to it. */
static int keep_record(const sm_sink_t *s, const sm_recbuf_t *rb, uint64_t r)
{
  const sm_rec_t *x = &rb->rec[r];
  if (!s->thr_ent.n || s->metric != SM_METRIC_CCC)
    return sm_threshold_keep_dis(s->dis, s->threshold, s->thr_f32, x->value);
  double v[8];
  for (int e = 0; e < 8; e++)
    v[e] = NAN;
  uint64_t a = r, b = r;
  while (a > 0 && !memcmp(rb->rec[a - 1].idx, x->idx, sizeof x->idx))
    a--;
  while (b + 1 < rb->count && !memcmp(rb->rec[b + 1].idx, x->idx, sizeof x->idx))
    b++;
  for (uint64_t k = a; k <= b; k++)
    v[rb->rec[k].entry & 7] = rb->rec[k].value;
  return sm_thr_list_keep(&s->thr_ent, s->way, s->thr_f32, v, x->entry & 7);
}

/* Whether the sink writes this record (the threshold, when the sink
 * applies it). */
static int sink_thresholds(const sm_sink_t *s)
{
  return s->apply_threshold && (s->threshold >= 0 || s->thr_ent.n);
}

static int sink_writes(const sm_sink_t *s, const sm_recbuf_t *rb, uint64_t r)
{
  return !sink_thresholds(s) || keep_record(s, rb, r);
}

int sm_sink_text(const sm_sink_t *s)
{
  return sm_writer_formats_text(s->writer);
}

void sm_sink_release(sm_sink_t *s)
{
  sm_sink_capture_free(s);
  free(s->upto);
  s->upto = NULL;
  s->nupto = s->cap_upto = 0;
}

void sm_sink_expect_block(sm_sink_t *s, uint32_t lowest)
{
  if (!s->writer || !sm_writer_pieces(s->writer) || s->upto_lost)
    return;
  if (s->nupto == s->cap_upto) {
    const uint64_t c = s->cap_upto ? 2 * s->cap_upto : 1024;
    uint32_t *g = realloc(s->upto, c * sizeof *g);
    if (!g) {
      s->upto_lost = 1;
      return;
    }
    s->upto = g, s->cap_upto = c;
  }
  s->upto[s->nupto++] = lowest;
}

/* Below which first variant the lines are complete once block is written:
 * the lowest of the blocks after it (0 for a block not announced). */
static uint32_t block_upto(sm_sink_t *s, uint64_t block)
{
  if (!s->upto_ready) { /* suffix minima, in place */
    uint32_t low = UINT32_MAX;
    for (uint64_t k = s->nupto; k-- > 0;) {
      const uint32_t here = s->upto[k];
      s->upto[k] = low;
      low = here < low ? here : low;
    }
    s->upto_ready = 1;
  }
  return block < s->nupto && !s->upto_lost ? s->upto[block] : 0;
}

/* A block's records that the sink writes (*n of them), as the writer's
 * piece: NULL without memory. */
static void *make_piece(const sm_sink_t *s, const sm_recbuf_t *rb, uint64_t *n)
{
  void *piece = NULL;
  *n = rb->count;
  if (!sink_thresholds(s)) {
    if (sm_writer_piece(s->writer, rb->rec, rb->count, &piece))
      return NULL;
    return piece;
  }
  sm_rec_t *kept = malloc((rb->count ? rb->count : 1) * sizeof *kept);
  if (!kept)
    return NULL;
  *n = 0;
  for (uint64_t r = 0; r < rb->count; r++)
    if (keep_record(s, rb, r))
      kept[(*n)++] = rb->rec[r];
  if (sm_writer_piece(s->writer, kept, *n, &piece))
    piece = NULL;
  free(kept);
  return piece;
}

void sm_sink_format(void *ctx, const sm_recbuf_t *rb, sm_textbuf_t *text)
{
  const sm_sink_t *s = ctx; /* only read: blocks are formatted in parallel */
  if (sm_writer_pieces(s->writer)) {
    uint64_t n;
    void *piece = make_piece(s, rb, &n);
    *text = (sm_textbuf_t){0}; /* without memory: the output task tries again */
    if (piece)
      *text = (sm_textbuf_t){.piece = piece, .count = n, .done = 1};
    return;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  uint64_t n = 0;
  int bad = 0;
  for (uint64_t r = 0; r < rb->count && !bad; r++)
    if (sink_writes(s, rb, r)) {
      bad = sm_writer_text_append(s->writer, &rb->rec[r], &buf, &len, &cap);
      n++;
    }
  if (bad) { /* no memory for the text: the output task writes the records */
    free(buf);
    *text = (sm_textbuf_t){0};
    return;
  }
  *text = (sm_textbuf_t){.data = buf, .len = len, .count = n, .done = 1};
}

int sm_sink_put(void *ctx, const sm_recbuf_t *rb, const sm_textbuf_t *text,
                uint64_t block)
{
  sm_sink_t *s = ctx;
  const int formatted = text && text->done; /* else the records are written */
  int taken = 0;                            /* text's piece given to the writer */
  sm_cksum_merge(&s->cksum, &rb->cksum);
  s->nvalues += rb->nvalues;
  if (s->hist.bins && s->hist_counts)
    add_histogram(s, rb);
  if (s->analytic)
    for (uint64_t r = 0; r < rb->count; r++)
      check_analytic(s, &rb->rec[r]);
  uint64_t written_before = s->nwritten;
  if (!s->err) {
    sm_err_t err = SM_OK;
    if (s->writer && sm_writer_pieces(s->writer)) { /* in order across blocks */
      uint64_t n = formatted ? text->count : 0;
      void *piece = formatted ? text->piece : make_piece(s, rb, &n);
      taken = 1; /* the writer's now */
      if (!piece) {
        sm_log_error("out of memory formatting a block of %llu records",
                     (unsigned long long)rb->count);
        err = SM_ENOMEM;
      } else {
        err = sm_writer_put_piece(s->writer, piece, n, block_upto(s, block));
        if (s->capture_cap)
          for (uint64_t r = 0; r < rb->count; r++)
            if (sink_writes(s, rb, r))
              capture(s, &rb->rec[r]);
        s->nwritten += n;
      }
    } else if (formatted) {
      err = s->writer ? sm_writer_put_text(s->writer, text->data, text->len, text->count)
                      : SM_OK;
      if (s->capture_cap || !s->writer)
        for (uint64_t r = 0; r < rb->count; r++)
          if (sink_writes(s, rb, r))
            capture(s, &rb->rec[r]);
      s->nwritten += text->count;
    } else if (sink_thresholds(s)) {
      for (uint64_t r = 0; r < rb->count && !err; r++)
        if (keep_record(s, rb, r)) {
          err = s->writer ? sm_writer_put(s->writer, &rb->rec[r], 1) : SM_OK;
          if (s->capture_cap || !s->writer)
            capture(s, &rb->rec[r]);
          s->nwritten++;
        }
    } else {
      err = s->writer ? sm_writer_put(s->writer, rb->rec, rb->count) : SM_OK;
      if (s->capture_cap || !s->writer)
        for (uint64_t r = 0; r < rb->count; r++)
          capture(s, &rb->rec[r]);
      s->nwritten += rb->count;
    }
    if (!err && s->manifest && s->writer) {
      /* the block is in the file: record it for --resume */
      sm_resume_entry_t e = {.block = block,
                             .count = s->nwritten - written_before,
                             .nvalues = rb->nvalues,
                             .cksum = rb->cksum};
      int fd;
      err = sm_writer_flush(s->writer, &e.end_off, &fd, &e.bytes_crc);
      if (!err)
        err = sm_manifest_add(s->manifest, &e, fd, 0);
    }
    if (err)
      s->err = err;
  }
  s->blocks_done++;
  if (s->progress)
    show_progress(s);
  ++s->stop_count;
  if (s->stop_after && s->stop_count >= s->stop_after)
    debug_stop(s);
  if (s->pause_after && s->stop_count == s->pause_after)
    debug_pause(s);
  if (text) { /* sm_sink_format's; nothing reads them after this task */
    free(text->data);
    if (!taken)
      sm_writer_piece_free(text->piece);
  }
  return s->err ? -1 : 0;
}
