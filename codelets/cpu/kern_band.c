/* kern_band.c: the pairs of a tile pair that lie in PLINK's LD windows, as
 * strips of rows (sm_kern.h, "LD windows"). Each vector x knows the last
 * vector win[x] of its window, win never decreasing, so each row of a tile
 * pair has its partners in one run of columns, and the runs move right
 * from row to row: rows grouped into strips whose column ranges hold
 * little more than their rows' runs are products of their own. */
#include "sm_kern.h"

void sm_band_run(const sm_band_t *b, size_t n, size_t i, size_t *lo, size_t *hi)
{
  const size_t x = (size_t)b->a0 + i, b0 = b->b0;
  const size_t last = b->win[x]; /* x's partners: up to last */
  if (b->a0 <= b->b0) {          /* partners after x: those up to last */
    *lo = b->a0 == b->b0 ? i + 1 : 0;
    *hi = last < b0 ? 0 : last - b0 + 1 > n ? n : last - b0 + 1;
    return;
  }
  /* the columns come before x: y is x's partner when win[y] >= x, true from
   * the first such y on */
  size_t l = 0, h = n;
  while (l < h) {
    const size_t mid = l + (h - l) / 2;
    if (b->win[b0 + mid] >= x)
      h = mid;
    else
      l = mid + 1;
  }
  *lo = l, *hi = n;
}

/* --ld-snp (b->index): each index row's run, then each index column's
 * rows (those whose runs hold it: one interval, as runs move right from
 * row to row), a strip each; *row counts rows, then m + the columns. A
 * pair of two index vectors is in two strips (the same values twice). */
static int index_next(const sm_band_t *b, size_t m, size_t n, size_t *row, sm_strip_t *s)
{
  size_t k = *row, lo, hi;
  for (; k < m; k++)
    if ((b->index[b->a0 + k] & 1) && (sm_band_run(b, n, k, &lo, &hi), hi > lo)) {
      *s = (sm_strip_t){k, k + 1, lo, hi};
      *row = k + 1;
      return 1;
    }
  for (size_t c = k - m; c < n; c++) {
    if (!(b->index[b->b0 + c] & 1))
      continue;
    size_t r0 = m, r1 = m;
    for (size_t i = 0; i < m; i++) {
      sm_band_run(b, n, i, &lo, &hi);
      if (lo <= c && c < hi)
        r1 = i + 1, r0 = r0 == m ? i : r0;
      else if (r0 != m)
        break;
    }
    if (r0 < r1) {
      *s = (sm_strip_t){r0, r1, c, c + 1};
      *row = m + c + 1;
      return 1;
    }
  }
  *row = m + n;
  return 0;
}

uint64_t sm_band_pairs(const sm_band_t *b, size_t m, size_t n)
{
  uint64_t p = 0;
  if (b->index) { /* the strips' (pairs of two index vectors twice) */
    size_t row = 0;
    sm_strip_t s;
    while (index_next(b, m, n, &row, &s))
      p += (uint64_t)(s.r1 - s.r0) * (s.c1 - s.c0);
    return p;
  }
  for (size_t i = 0; i < m; i++) {
    size_t lo, hi;
    sm_band_run(b, n, i, &lo, &hi);
    p += hi > lo ? hi - lo : 0;
  }
  return p;
}

/* One pass over the rows (windows without an index): the pairs, the
 * longest run, the rows with pairs and the columns they reach. */
typedef struct band_scan {
  uint64_t pairs;
  size_t run, r0, r1, c0, c1;
} band_scan_t;

static band_scan_t band_scan(const sm_band_t *b, size_t m, size_t n)
{
  band_scan_t sc = {0, 0, m, 0, n, 0};
  for (size_t i = 0; i < m; i++) {
    size_t lo, hi;
    sm_band_run(b, n, i, &lo, &hi);
    if (hi <= lo)
      continue;
    sc.pairs += hi - lo;
    sc.run = hi - lo > sc.run ? hi - lo : sc.run;
    sc.r0 = i < sc.r0 ? i : sc.r0, sc.r1 = i + 1;
    sc.c0 = lo < sc.c0 ? lo : sc.c0, sc.c1 = hi > sc.c1 ? hi : sc.c1;
  }
  if (sc.r0 >= sc.r1)
    sc.r0 = sc.r1 = sc.c0 = sc.c1 = 0;
  return sc;
}

/* Whether the windows' pairs fill half the tile pair (a diagonal one: half
 * of its upper triangle) or more: the whole product then. */
static int whole_by(const sm_band_t *b, size_t m, size_t n, uint64_t pairs)
{
  const uint64_t all = b->a0 == b->b0 ? (uint64_t)m * (m - (m > 0)) / 2 : (uint64_t)m * n;
  return 2 * pairs >= all;
}

int sm_band_whole(const sm_band_t *b, size_t m, size_t n)
{
  if (!b || !b->win)
    return 1;
  /* the product of the whole tile (a diagonal one: its half) unless the
   * windows hold under half of its pairs */
  return whole_by(b, m, n, sm_band_pairs(b, m, n));
}

/* Rows of a strip at most: 16, or for runs of SM_STRIP_LONG columns or
 * more as many as the strip's first run (in multiples of 16); a strip's
 * rectangle at most twice its rows' runs (and 64 pairs more). A strip
 * costs its product and, apart from it, about what its columns cost to
 * derive (the checks' sides, the counters' planes): taller strips share
 * that among more rows while the rectangle's waste grows with the square
 * of their height. On 28,500 SNPs x 2,000 samples, windows of 200 kb to 1
 * Mb (runs of 190 to 950) computed 9-30% faster than with 16 rows; runs
 * of 50 to 95 were 6-9% slower, so short runs keep 16. */
#define SM_STRIP_ROWS 16
#define SM_STRIP_LONG 128

int sm_band_next(const sm_band_t *b, size_t m, size_t n, size_t *row, sm_strip_t *s)
{
  if (b->index)
    return index_next(b, m, n, row, s);
  size_t i = *row, lo = 0, hi = 0;
  for (; i < m; i++) { /* the next row with partners */
    sm_band_run(b, n, i, &lo, &hi);
    if (hi > lo)
      break;
  }
  if (i >= m) {
    *row = m;
    return 0;
  }
  const size_t r0 = i, run = hi - lo,
               most = run >= SM_STRIP_LONG ? run / 16 * 16 : SM_STRIP_ROWS;
  uint64_t need = hi - lo;
  for (i = r0 + 1; i < m && i - r0 < most; i++) {
    size_t l2, h2;
    sm_band_run(b, n, i, &l2, &h2);
    if (h2 <= l2)
      break;
    const size_t nlo = l2 < lo ? l2 : lo, nhi = h2 > hi ? h2 : hi;
    if ((uint64_t)(i + 1 - r0) * (nhi - nlo) > 2 * (need + (h2 - l2)) + 64)
      break;
    lo = nlo, hi = nhi, need += h2 - l2;
  }
  s->r0 = r0, s->r1 = i, s->c0 = lo, s->c1 = hi;
  *row = i;
  return 1;
}

uint64_t sm_band_area(const sm_band_t *b, size_t m, size_t n)
{
  if (!b || !b->win)
    return (uint64_t)m * n;
  if (!b->index) {
    const band_scan_t sc = band_scan(b, m, n);
    if (whole_by(b, m, n, sc.pairs))
      return (uint64_t)m * n;
    if (sc.run <= SM_BAND_DIRECT_RUN) /* sm_band_direct's */
      return sc.pairs;
  } else if (sm_band_whole(b, m, n))
    return (uint64_t)m * n;
  uint64_t area = 0;
  size_t row = 0;
  sm_strip_t s;
  while (sm_band_next(b, m, n, &row, &s))
    area += (uint64_t)(s.r1 - s.r0) * (s.c1 - s.c0);
  return area;
}

int sm_band_span(const sm_band_t *b, size_t m, size_t n, size_t *r0, size_t *r1,
                 size_t *c0, size_t *c1, size_t *run)
{
  if (!b || !b->win || b->index)
    return 0;
  const band_scan_t sc = band_scan(b, m, n);
  *r0 = sc.r0, *r1 = sc.r1, *c0 = sc.c0, *c1 = sc.c1, *run = sc.run;
  return 1;
}

int sm_band_direct(const sm_band_t *b, size_t m, size_t n, size_t *r0, size_t *r1,
                   size_t *c0, size_t *c1)
{
  if (!b || !b->win || b->index)
    return 0;
  const band_scan_t sc = band_scan(b, m, n);
  if (whole_by(b, m, n, sc.pairs) || sc.run > SM_BAND_DIRECT_RUN)
    return 0;
  *r0 = sc.r0, *r1 = sc.r1, *c0 = sc.c0, *c1 = sc.c1;
  return 1;
}

int sm_band_plan(const sm_band_t *b, size_t m, size_t n, int one, sm_band_plan_t *p)
{
  size_t c0, c1;
  if (!sm_band_direct(b, m, n, &p->r0, &p->r1, &c0, &c1))
    return 0;
  p->one = one;
  p->ra = one && c0 < p->r0 ? c0 : p->r0;
  p->na = (one && c1 > p->r1 ? c1 : p->r1) - p->ra;
  p->cb = one ? p->ra : c0;
  p->nb = one ? 0 : c1 - c0;
  return 1;
}
