/* sm_memory.c: a run's memory estimate and the process's limits (Linux:
 * /proc/meminfo, cgroup v2 and v1, getrlimit). */
#include "sm_memory.h"

#include "sm_bytes.h"
#include "sm_graph.h"

#include "sm_mpi.h"
#include "sm_vectors.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* what StarPU, its workers and MPI add once started, beyond what the
 * process holds when the estimate is made: with an accelerator that may
 * start (a tiny run's peak RSS was 72 MB with PoCL's device, 20 MB of it
 * before StarPU started; a binary linked with CUDA libraries holds much
 * more from the start, which the current RSS counts), and without one
 * (PoCL and LLVM not loaded: a tiny run's peak 17 MB, 23 MB with 2 MPI
 * ranks) */
#define SM_MEM_RUNTIME ((uint64_t)128 << 20)
#define SM_MEM_RUNTIME_CPU ((uint64_t)48 << 20)
#define SM_MEM_REC_BYTES 32                /* one result record (sm_rec_t), with slack */
#define SM_MEM_TEXT_BYTES 48               /* one formatted TSV line, typical */
#define SM_MEM_NUM_CAP ((uint64_t)8 << 20) /* automatic tiles' numerator budget */

static uint64_t mul(uint64_t a, uint64_t b)
{
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* This process's address space (which 0) or resident memory (which 1)
 * now, in bytes (0 when /proc cannot say). */
static uint64_t current(int which)
{
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long v[2] = {0, 0};
  if (f && fscanf(f, "%llu %llu", &v[0], &v[1]) != 2)
    v[0] = v[1] = 0;
  if (f)
    fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  return mul(v[which], page > 0 ? (uint64_t)page : 4096);
}

static uint64_t current_rss(void)
{
  return current(1);
}

static uint64_t add(uint64_t a, uint64_t b)
{
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void sm_mem_estimate(const sm_mem_run_t *r, sm_mem_need_t *n)
{
  memset(n, 0, sizeof *n);
  n->runtime = add(r->accel ? SM_MEM_RUNTIME : SM_MEM_RUNTIME_CPU, current_rss());
  n->vectors = mul(r->vc, r->row_bytes);
  /* sparse rows (field, value), then their packed tiles (rows and fields:
   * twice that), both held while the tiles are made */
  if (r->nnz_rank)
    n->vectors = add(mul(r->nnz_rank, 3 * (sizeof(uint32_t) + r->pair_bytes)),
                     mul(r->vc, 3 * sizeof(uint64_t)));
  /* a rank row computes its blocks with up to npv/2 other partitions
   * (2-way, block-circulant), every other one for 3-way; StarPU-MPI keeps
   * what it received until the end */
  /* the sparse method receives packed tiles, whose size follows the
   * non-zero entries, unknown before reading (at most 15% of entries
   * under auto, but then the estimate stays the dense one): not counted */
  if (r->npv > 1 && !r->czek_sparse) {
    const uint64_t part =
        mul((r->nv + (size_t)r->npv - 1) / (size_t)r->npv, r->row_bytes);
    n->received = mul(part, (uint64_t)(r->way == 3 ? r->npv - 1 : r->npv / 2));
  }
  if (r->text_input)
    n->reading = mul(mul(r->vc, r->fc), sizeof(double));
  /* tasks in flight: their numerators (automatic tiles keep them within a
   * budget), the finalize's records and text */
  /* automatic tiles: at most 64 vectors (3-way), 512 (CCC with records),
   * 1024 (Czekanowski with records), 2048 */
  const uint64_t cap = r->way == 3 ? 64
                       : r->emit   ? (r->pair_bytes > 8 ? 512 : 1024)
                                   : 2048,
                 bs = r->block_size ? r->block_size : (r->nv < cap ? r->nv : cap);
  uint64_t cells = r->way == 3 ? mul(mul(bs, bs), bs) : mul(bs, bs);
  uint64_t num = mul(cells, r->pair_bytes);
  if (!r->block_size && num > SM_MEM_NUM_CAP)
    num = SM_MEM_NUM_CAP, cells = SM_MEM_NUM_CAP / (r->pair_bytes ? r->pair_bytes : 1);
  /* LD windows of N variants: a row of a tile pair pairs with at most N
   * columns (PLINK's default --r2: 10 of a tile's 512) */
  const uint64_t emitted = r->way == 2 && r->window_n && mul(bs, r->window_n) < cells
                               ? mul(bs, r->window_n)
                               : cells;
  const uint64_t rec = r->emit ? mul(mul(emitted, (uint64_t)r->entries),
                                     SM_MEM_REC_BYTES + (r->text ? SM_MEM_TEXT_BYTES : 0))
                               : 0;
  /* numerators: computed, waiting for their finalize; records: a
   * finalize's, until the sink has written them in the file's order, so
   * up to the finalize tasks of the window of tasks in flight
   * (sm_graph_in_flight: a third of them finalize; LD windows: 4 times as
   * many) */
  const uint64_t w = (uint64_t)(r->workers > 0 ? r->workers : 1);
  uint64_t fin = sm_graph_in_flight((unsigned)w, (unsigned)r->npf, r->windowed) / 3;
  /* no more finalizes waiting than the run has tile pairs (triples) */
  const uint64_t nt = bs ? ((uint64_t)r->nv + bs - 1) / bs : 1,
                 blocks =
                     r->way == 3 ? mul(mul(nt, nt + 1), nt + 2) / 6 : mul(nt, nt + 1) / 2;
  fin = blocks && blocks < fin ? blocks : fin;
  n->tasks = add(mul(num, fin / (uint64_t)(r->npf > 0 ? r->npf : 1) / 2), mul(rec, fin));
  n->results = r->topk_bytes;
  n->total = add(add(add(n->runtime, n->vectors), add(n->received, n->reading)),
                 add(n->tasks, n->results));
}

/* The value of a "Key:   N kB" line of /proc/meminfo, in bytes, or 0. */
static uint64_t meminfo(const char *key)
{
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  uint64_t v = 0;
  const size_t kl = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = mul(strtoull(line + kl + 1, NULL, 10), 1024);
      break;
    }
  if (f)
    fclose(f);
  return v;
}

/* A number in a file (cgroup limits: "max" or a count of bytes). */
static int read_u64(const char *path, uint64_t *v)
{
  FILE *f = fopen(path, "r");
  char buf[64];
  int ok = f && fgets(buf, sizeof buf, f) && isdigit((unsigned char)buf[0]);
  if (ok)
    *v = strtoull(buf, NULL, 10);
  if (f)
    fclose(f);
  return ok;
}

/* Room left under this process's cgroup memory limit (v2, then v1), or
 * UINT64_MAX without one. */
static uint64_t cgroup_room(char *what, size_t len)
{
  FILE *f = fopen("/proc/self/cgroup", "r");
  char line[4096], path[4600];
  uint64_t room = UINT64_MAX;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *ctl = strchr(line, ':'), *rel = ctl ? strchr(ctl + 1, ':') : NULL;
    if (!rel)
      continue;
    *rel++ = 0;
    uint64_t max, cur;
    if (!strcmp(ctl + 1, "")) { /* v2: "0::/path" */
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", rel);
      if (!read_u64(path, &max))
        continue;
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", rel);
      if (!read_u64(path, &cur))
        cur = 0;
    } else if (strstr(ctl + 1, "memory")) { /* v1 */
      snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", rel);
      if (!read_u64(path, &max) || max >= ((uint64_t)1 << 62))
        continue;
      snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.usage_in_bytes", rel);
      if (!read_u64(path, &cur))
        cur = 0;
    } else {
      continue;
    }
    const uint64_t left = max > cur ? max - cur : 0;
    if (left < room) {
      room = left;
      *strrchr(path, '/') = 0;
      snprintf(what, len, "the memory limit of the cgroup %s", path);
    }
  }
  if (f)
    fclose(f);
  return room;
}

/* STARMET_MEMORY_LIMIT: bytes, with K, M, G or T; "none" turns the check
 * off. 1 when set (and *v then holds it, UINT64_MAX for none). */
static int env_limit(uint64_t *v)
{
  const char *s = getenv("STARMET_MEMORY_LIMIT");
  if (!s || !*s)
    return 0;
  if (!strcmp(s, "none")) {
    *v = UINT64_MAX;
    return 1;
  }
  char *end;
  const unsigned long long x = strtoull(s, &end, 10);
  const char *const units = "KMGT";
  const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
  *v = x;
  for (const char *p = units; u && p <= u; p++)
    *v = mul(*v, 1024);
  return end != s && (!*end || (u && !end[1]));
}

void sm_mem_room(uint64_t *room, char *what, size_t len, uint64_t *as, char *as_what,
                 size_t as_len)
{
  uint64_t env;
  *as = UINT64_MAX;
  snprintf(as_what, as_len, "no limit");
  if (env_limit(&env)) {
    *room = env;
    snprintf(what, len, "STARMET_MEMORY_LIMIT");
  } else {
    const uint64_t avail = meminfo("MemAvailable");
    *room = avail ? add(avail, meminfo("SwapFree")) : UINT64_MAX;
    snprintf(what, len, "this machine's available memory (MemAvailable + SwapFree)");
    char cg[4800];
    const uint64_t c = cgroup_room(cg, sizeof cg);
    if (c < *room) {
      *room = c;
      snprintf(what, len, "%s", cg);
    }
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    *as = (uint64_t)rl.rlim_cur;
    snprintf(as_what, as_len, "the address-space limit (ulimit -v)");
  }
  if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (uint64_t)rl.rlim_cur < *as) {
    *as = (uint64_t)rl.rlim_cur;
    snprintf(as_what, as_len, "the data-segment limit (ulimit -d)");
  }
}

uint64_t sm_mem_address_need(const sm_mem_need_t *n)
{
  /* what is mapped now (libraries, counted whole), what the run will add */
  const uint64_t rss = current_rss(), more = n->total > rss ? n->total - rss : 0;
  return add(add(current(0), more), SM_MEM_STARTUP_AS);
}

/* Before anything large is allocated: this rank's estimate (times the
 * ranks on this machine) against what the machine, the cgroup and the
 * limits leave. SM_ENOMEM, said with the estimate and what to change. */
sm_err_t sm_mem_check_compute(const sm_options_t *o, const sm_decomp_t *d, int me,
                              const char *desc, int text_input, uint64_t nnz, int accel,
                              uint64_t *estimate)
{
  const int ccc = o->metric == SM_METRIC_CCC;
  int pv, pf, pr;
  sm_decomp_coords(d, me, &pv, &pf, &pr);
  size_t v0, vc, f0, fc;
  sm_decomp_part(d, pv, &v0, &vc);
  sm_decomp_slice(d, pf, &f0, &fc);
  const size_t elem = ccc ? sizeof(uint64_t) : o->single ? sizeof(float) : sizeof(double);
  const char *ncpu = getenv("STARPU_NCPU");
  const long cpus = ncpu && atoi(ncpu) > 0 ? atol(ncpu) : sysconf(_SC_NPROCESSORS_ONLN);
  const int entries = ccc ? (o->num_way == 3 ? 8 : 4) : 1;
  const sm_mem_run_t mr = {
      .nv = d->nv,
      .nf = d->nf,
      .vc = vc,
      .fc = fc,
      .row_bytes = sm_vectors_ld(o->metric, elem, fc) * elem,
      .npv = d->npv,
      .npf = d->npf,
      .way = o->num_way,
      .text_input = text_input,
      .block_size = o->block_size,
      .pair_bytes = ccc ? (size_t)(o->num_way == 3 ? 2 : 1) * 4 * SM_CCC2_NMOM(1) : elem,
      .entries = entries,
      .emit = o->output_format != SM_OUT_NONE || o->synth.kind == SM_SYNTH_ANALYTIC,
      .text = o->output_format == SM_OUT_TSV,
      .workers = cpus > 0 ? (int)cpus : 1,
      .windowed = o->ld_windowed,
      .window_n = o->ld_windowed ? o->ld_window : 0,
      .accel = accel,
      .topk_bytes = me == 0
                        ? (uint64_t)d->nv * o->topk * (ccc && o->topk_by_entry ? 4 : 1) *
                              sizeof(sm_topk_ent_t)
                        : 0,
      .czek_sparse =
          nnz || (!ccc && o->num_way == 2 && o->czek_method == SM_CZEK_METHOD_SPARSE),
      /* the rank's share, taking the entries as spread evenly */
      .nnz_rank = nnz ? (uint64_t)((double)nnz * ((double)vc / (double)d->nv) *
                                   ((double)fc / (double)d->nf)) +
                            1
                      : 0,
  };
  sm_mem_need_t n;
  sm_mem_estimate(&mr, &n);
  *estimate = n.total;
  int zero = 0, index, here;
  sm_mpi_node_peers(&zero, sizeof zero, &index, &here);
  uint64_t room, as;
  char what[4900], as_what[64], b[7][32], rank[32] = "";
  sm_mem_room(&room, what, sizeof what, &as, as_what, sizeof as_what);
  if (sm_mpi_size() > 1)
    snprintf(rank, sizeof rank, "rank %d: ", me);
  const uint64_t node =
      n.total > UINT64_MAX / (uint64_t)here ? UINT64_MAX : n.total * (uint64_t)here;
  const uint64_t space = sm_mem_address_need(&n);
  if (node <= room && space <= as)
    return SM_OK;
  char parts[600], each[96] = "";
  snprintf(
      parts, sizeof parts,
      "its vectors %s, partitions received %s, the reader's copy %s, tasks in flight "
      "%s, top-k lists %s, the program and StarPU %s",
      sm_human_bytes(n.vectors, b[0], 32), sm_human_bytes(n.received, b[1], 32),
      sm_human_bytes(n.reading, b[2], 32), sm_human_bytes(n.tasks, b[3], 32),
      sm_human_bytes(n.results, b[4], 32), sm_human_bytes(n.runtime, b[5], 32));
  if (here > 1)
    snprintf(each, sizeof each, ", %d ranks on this machine: %s", here,
             sm_human_bytes(node, b[6], 32));
  /* what to change: what dominates */
  char fix[300];
  if (n.tasks > n.vectors + n.received + n.reading)
    snprintf(fix, sizeof fix, "use smaller tiles (--block-size%s)",
             o->block_size ? " below yours" : " N; automatic tiles are at most 2048");
  else
    snprintf(fix, sizeof fix,
             "spread the run over more machines (a rank of --num-proc-field N holds "
             "1/N of the fields)%s",
             !ccc && !o->single ? ", or halve them with --precision single" : "");
  if (node > room)
    sm_log_error("%s%s: this run needs about %s of memory per rank (%s)%s, but %s leaves "
                 "%s: %s; STARMET_MEMORY_LIMIT=none skips this check",
                 rank, desc, sm_human_bytes(n.total, b[0], 32), parts, each, what,
                 sm_human_bytes(room, b[1], 32), fix);
  else
    sm_log_error("%s%s: this run needs about %s of address space (what its libraries "
                 "map, %s, and about %s that StarPU reserves at start-up), but %s is %s: "
                 "raise it (ulimit -v unlimited), or %s",
                 rank, desc, sm_human_bytes(space, b[0], 32), parts,
                 sm_human_bytes(SM_MEM_STARTUP_AS, b[6], 32), as_what,
                 sm_human_bytes(as, b[1], 32), fix);
  return SM_ENOMEM;
}

/* synth builds its vectors whole before writing them: they must fit in the
 * memory compute's check allows (sm_mem_room), else an overcommitted
 * allocation would end in the kernel's out-of-memory killer, not a message */
sm_err_t sm_mem_check_synth(const sm_options_t *o)
{
  const int ccc = o->metric == SM_METRIC_CCC;
  const size_t elem = ccc ? sizeof(uint64_t) : o->single ? sizeof(float) : sizeof(double);
  const uint64_t row = (uint64_t)sm_vectors_ld(o->metric, elem, o->synth.nf) * elem;
  if (row && o->synth.nv > UINT64_MAX / row)
    return SM_OK; /* past 2^64: sm_vectors_alloc says so */
  const uint64_t need = row * o->synth.nv;
  uint64_t room, as;
  char what[4900], as_what[64], b[2][32];
  sm_mem_room(&room, what, sizeof what, &as, as_what, sizeof as_what);
  const uint64_t limit = room < as ? room : as;
  if (need <= limit)
    return SM_OK;
  sm_log_error("synth: %zu vectors x %zu fields are built whole before they are written, "
               "about %s, but %s leaves %s: make fewer, or several smaller sets; %s",
               o->synth.nv, o->synth.nf, sm_human_bytes(need, b[0], 32),
               room < as ? what : as_what, sm_human_bytes(limit, b[1], 32),
               room < as ? "STARMET_MEMORY_LIMIT=none skips this check"
                         : "or raise the limit (ulimit -v unlimited)");
  return SM_ENOMEM;
}
