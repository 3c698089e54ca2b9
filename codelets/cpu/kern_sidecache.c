/* kern_sidecache.c: derived tile data kept between kernel calls
 * (sm_sidecache.h). A list under one lock: lookups are by place and
 * shape, then the codes are compared outside the lock while the entry is
 * pinned. An item is kept from the second time its place and shape are
 * asked for (a table of the places asked for once): the strips of LD
 * windows and other parts of tiles, seldom asked for again, cost no copy
 * and take no room. When the budget is full a random entry not in use
 * makes room (tile pairs visit tiles in sweeps, where evicting the oldest
 * would keep nothing of the next sweep). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sm_sidecache.h"

typedef struct sm_side_ent {
  struct sm_side_ent *next;
  int kind;
  const uint64_t *X;
  size_t nv, nf, ldx;
  uint64_t *copy; /* the codes when built: nv x ncw words */
  void *item;
  sm_side_drop_fn drop;
  size_t bytes; /* item, copy and entry */
  int pins;     /* calls holding it */
  int stale;    /* unlinked: freed when the last holder releases it */
} side_ent_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static side_ent_t *head;
static size_t held, limit;
static int limit_set;
static uint64_t hits, builds, rng = 0x9e3779b97f4a7c15ull;

/* Places and shapes asked for once (a hash of them, direct-mapped). */
enum { SEEN = 4096 };
static uint64_t seen[SEEN];

static uint64_t place_key(int kind, const uint64_t *X, size_t nv, size_t nf, size_t ldx)
{
  uint64_t h = (uint64_t)(uintptr_t)X * 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t)nv << 40) ^ ((uint64_t)nf << 20) ^ (uint64_t)ldx ^
       ((uint64_t)kind << 56);
  h *= 0xbf58476d1ce4e5b9ull;
  return (h ^ (h >> 31)) | 1; /* 0: an empty slot */
}

/* Whether the place was asked for before (then forgotten: kept now);
 * else remembered (under the lock). */
static int seen_before(uint64_t key)
{
  uint64_t *slot = &seen[key % SEEN];
  if (*slot == key) {
    *slot = 0;
    return 1;
  }
  *slot = key;
  return 0;
}

static void limit_init(void)
{
  if (limit_set)
    return;
  limit = (size_t)256 << 20;
  const char *e = getenv("STARMET_SIDE_CACHE_MB");
  if (e && *e) {
    char *end;
    const unsigned long long mb = strtoull(e, &end, 10);
    if (!*end && mb < ((size_t)-1 >> 20))
      limit = (size_t)mb << 20;
  }
  limit_set = 1;
}

static size_t ncw_of(size_t nf)
{
  return (nf + 31) / 32;
}

static int same_codes(const side_ent_t *e, const uint64_t *X)
{
  const size_t ncw = ncw_of(e->nf);
  for (size_t v = 0; v < e->nv; v++)
    if (memcmp(e->copy + v * ncw, X + v * e->ldx, ncw * sizeof *X))
      return 0;
  return 1;
}

static void ent_free(side_ent_t *e)
{
  e->drop(e->item);
  free(e->copy);
  free(e);
}

/* Unlinks e (under the lock); freed outside it, by the last holder. */
static void unlink_ent(side_ent_t *e)
{
  for (side_ent_t **p = &head; *p; p = &(*p)->next)
    if (*p == e) {
      *p = e->next;
      held -= e->bytes;
      return;
    }
}

/* An entry not in use, at random; NULL when every entry is in use. */
static side_ent_t *victim(void)
{
  size_t n = 0;
  for (side_ent_t *e = head; e; e = e->next)
    n += !e->pins;
  if (!n)
    return NULL;
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  size_t k = (size_t)(rng % n);
  for (side_ent_t *e = head; e; e = e->next)
    if (!e->pins && !k--)
      return e;
  return NULL;
}

/* An item for this call alone (released by dropping it). */
static const void *side_build_only(const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                                   sm_side_build_fn build, sm_side_ref_t *ref)
{
  size_t bytes;
  ref->item = build(X, nv, nf, ldx, &bytes);
  return ref->item;
}

const void *sm_side_get(int kind, const uint64_t *X, size_t nv, size_t nf, size_t ldx,
                        sm_side_build_fn build, sm_side_drop_fn drop, sm_side_ref_t *ref)
{
  *ref = (sm_side_ref_t){NULL, NULL, drop};
  if (nv < SM_SIDE_MIN_VECTORS) /* a part of a tile: built for this call */
    return build ? side_build_only(X, nv, nf, ldx, build, ref) : NULL;
  side_ent_t *e = NULL;
  pthread_mutex_lock(&mu);
  limit_init();
  for (e = head; e; e = e->next)
    if (!e->stale && e->kind == kind && e->X == X && e->nv == nv && e->nf == nf &&
        e->ldx == ldx) {
      e->pins++;
      break;
    }
  pthread_mutex_unlock(&mu);
  if (e) {
    if (same_codes(e, X)) {
      pthread_mutex_lock(&mu);
      hits++;
      pthread_mutex_unlock(&mu);
      ref->ent = e, ref->item = e->item;
      return e->item;
    }
    /* other codes at the same place: this entry is of no more use */
    pthread_mutex_lock(&mu);
    if (!e->stale)
      unlink_ent(e), e->stale = 1;
    const int last = --e->pins == 0;
    pthread_mutex_unlock(&mu);
    if (last)
      ent_free(e);
  }
  if (!build) /* only a kept one was asked for */
    return NULL;
  size_t bytes = 0;
  void *item = build(X, nv, nf, ldx, &bytes);
  if (!item)
    return NULL;
  ref->item = item;
  pthread_mutex_lock(&mu);
  builds++;
  const size_t ncw = ncw_of(nf), cb = nv * ncw * sizeof *X,
               total = bytes + cb + sizeof(side_ent_t);
  const int fits = total <= limit / 4 && seen_before(place_key(kind, X, nv, nf, ldx));
  pthread_mutex_unlock(&mu);
  if (!fits)
    return item; /* the caller's alone */
  side_ent_t *n = malloc(sizeof *n);
  uint64_t *copy = malloc(cb ? cb : 1);
  if (!n || !copy) {
    free(n), free(copy);
    return item;
  }
  for (size_t v = 0; v < nv; v++)
    memcpy(copy + v * ncw, X + v * ldx, ncw * sizeof *X);
  *n = (side_ent_t){.kind = kind,
                    .X = X,
                    .nv = nv,
                    .nf = nf,
                    .ldx = ldx,
                    .copy = copy,
                    .item = item,
                    .drop = drop,
                    .bytes = total,
                    .pins = 1};
  side_ent_t *gone = NULL; /* evicted, freed outside the lock */
  pthread_mutex_lock(&mu);
  while (held + total > limit) {
    side_ent_t *v = victim();
    if (!v)
      break;
    unlink_ent(v);
    v->next = gone, gone = v;
  }
  int keep = held + total <= limit;
  for (side_ent_t *o = head; o && keep; o = o->next) /* built meanwhile elsewhere */
    keep = !(o->kind == kind && o->X == X && o->nv == nv && o->nf == nf && o->ldx == ldx);
  if (keep) {
    n->next = head, head = n;
    held += total;
  }
  pthread_mutex_unlock(&mu);
  while (gone) {
    side_ent_t *next = gone->next;
    ent_free(gone);
    gone = next;
  }
  if (!keep) {
    free(copy), free(n);
    return item;
  }
  ref->ent = n;
  return item;
}

void sm_side_release(sm_side_ref_t *ref)
{
  side_ent_t *e = ref->ent;
  if (!e) {
    if (ref->item)
      ref->drop(ref->item);
    *ref = (sm_side_ref_t){NULL, NULL, NULL};
    return;
  }
  pthread_mutex_lock(&mu);
  const int last = --e->pins == 0 && e->stale; /* unlinked while in use */
  pthread_mutex_unlock(&mu);
  if (last)
    ent_free(e);
  *ref = (sm_side_ref_t){NULL, NULL, NULL};
}

void sm_side_flush(void)
{
  side_ent_t *gone = NULL;
  pthread_mutex_lock(&mu);
  for (side_ent_t **p = &head; *p;) {
    side_ent_t *e = *p;
    *p = e->next;
    held -= e->bytes;
    e->stale = 1; /* in use: its last holder frees it */
    if (!e->pins)
      e->next = gone, gone = e;
  }
  pthread_mutex_unlock(&mu);
  while (gone) {
    side_ent_t *next = gone->next;
    ent_free(gone);
    gone = next;
  }
}

void sm_side_set_limit(size_t bytes)
{
  pthread_mutex_lock(&mu);
  limit = bytes, limit_set = 1;
  memset(seen, 0, sizeof seen);
  pthread_mutex_unlock(&mu);
  sm_side_flush();
}

void sm_side_stats(uint64_t *h, uint64_t *b)
{
  pthread_mutex_lock(&mu);
  *h = hits, *b = builds;
  pthread_mutex_unlock(&mu);
}
