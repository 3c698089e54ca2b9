/* sm_graph_core.c: tiles, sums, tokens and StarPU-MPI registration shared
 * by the 2-way and 3-way graphs. */
#include "sm_graph_core.h"

#include <starpu_mpi.h>
#include <stdlib.h>

#include "sm_codelets.h"
#include "sm_observe.h"
#include "sm_sched.h"

void sm_gcore_register(sm_gcore_t *g, starpu_data_handle_t h, int owner)
{
  int64_t tag = g->tag++;
  if (g->o->use_mpi)
    starpu_mpi_data_register(h, tag, owner);
}

uint64_t sm_gcore_local_tasks(const sm_gcore_t *g, int I, int r, int ffin, int fin)
{
  uint64_t n = 0;
  for (int f = 0; f < g->d->npf; f++)
    n += sm_decomp_rank(g->d, I, f, r) == g->me;
  if (sm_decomp_rank(g->d, I, ffin, r) == g->me)
    n += (uint64_t)(g->d->npf - 1) + (fin ? 2 : 0);
  return n;
}

int sm_gcore_add_type(const sm_gcore_t *g)
{
  return g->ccc ? SM_ADD_U32 : (g->o->single ? SM_ADD_F32 : SM_ADD_F64);
}

unsigned sm_gcore_window(const sm_gcore_t *g)
{
  return (unsigned)(3 * (4 * starpu_worker_get_count() + 4) * (unsigned)g->d->npf);
}

static size_t slice_ld(const sm_gcore_t *g, int f)
{
  size_t f0, nf;
  sm_decomp_slice(g->d, f, &f0, &nf);
  return sm_vectors_ld(g->v->metric, g->v->elem_size, nf);
}

static void register_tiles(sm_gcore_t *g)
{
  const sm_decomp_t *d = g->d;
  const size_t es = g->v->elem_size;
  const size_t sum_elem = g->ccc ? sizeof(uint32_t) : es;
  for (int I = 0; I < d->npv; I++)
    for (int t = 0; t < sm_decomp_ntiles(d, I); t++) {
      size_t tv0, tn;
      sm_decomp_tile(d, I, t, &tv0, &tn);
      int tile = g->tile_base[I] + t;
      for (int f = 0; f < d->npf; f++)
        for (int r = 0; r < d->npr; r++) {
          int owner = sm_decomp_rank(d, I, f, r);
          size_t ld = slice_ld(g, f), k = sm_gcore_hidx(g, tile, f, r);
          if (owner == g->me)
            starpu_matrix_data_register(&g->x[k], STARPU_MAIN_RAM,
                                        (uintptr_t)sm_vectors_row(g->v, tv0), ld, ld, tn, es);
          else
            starpu_matrix_data_register(&g->x[k], -1, 0, ld, ld, tn, es);
          sm_gcore_register(g, g->x[k], owner);
          size_t snx = g->ccc ? 2 * tn : tn;
          starpu_matrix_data_register(&g->sums[k], -1, 0, snx, snx, 1, sum_elem);
          sm_gcore_register(g, g->sums[k], owner);
        }
    }
}

/* Denominators: sums of every tile on every field slice, then the field
 * reduction into the f = 0 handle, slices added in order. */
static int submit_sums(sm_gcore_t *g, uint64_t *ntasks)
{
  const sm_decomp_t *d = g->d;
  const int prio = sm_sched_prio(g->o->prio, SM_TK_SUMS);
  int ret = 0;
  for (int I = 0; I < d->npv && !ret; I++)
    for (int t = 0; t < sm_decomp_ntiles(d, I) && !ret; t++)
      for (int r = 0; r < d->npr && !ret; r++) {
        int tile = g->tile_base[I] + t;
        sm_observe_block(tile, -1, -1);
        g->local_tasks += sm_gcore_local_tasks(g, I, r, 0, 0);
        for (int f = 0; f < d->npf && !ret; f++) {
          size_t f0, nf, k = sm_gcore_hidx(g, tile, f, r);
          sm_decomp_slice(d, f, &f0, &nf);
          ret = g->ccc ? sm_task_sums_ccc(g->x[k], g->sums[k], g->o->sparse, nf, prio)
                       : sm_task_sums_czek(g->x[k], g->sums[k], g->o->single, nf, prio);
          ++*ntasks;
        }
        for (int f = 1; f < d->npf && !ret; f++) {
          ret = sm_task_add(g->sums[sm_gcore_hidx(g, tile, 0, r)],
                            g->sums[sm_gcore_hidx(g, tile, f, r)], sm_gcore_add_type(g), prio);
          ++*ntasks;
        }
      }
  return ret;
}

static void unregister_all(sm_gcore_t *g)
{
  size_t nh = (size_t)g->ntiles * g->d->npf * g->d->npr;
  for (size_t k = 0; k < nh; k++) {
    if (g->x && g->x[k])
      starpu_data_unregister(g->x[k]);
    if (g->sums && g->sums[k])
      starpu_data_unregister(g->sums[k]);
  }
  for (int k = 0; g->token && k < g->nranks; k++)
    if (g->token[k])
      starpu_data_unregister(g->token[k]);
  free(g->x);
  free(g->sums);
  free(g->token);
  free(g->tile_base);
  g->x = g->sums = g->token = NULL;
  g->tile_base = NULL;
}

sm_err_t sm_gcore_init(sm_gcore_t *g, const sm_vectors_t *local, const sm_graph_opts_t *o,
                       sm_graph_stats_t *st)
{
  const sm_decomp_t *d = o->d;
  *g = (sm_gcore_t){.d = d, .o = o, .v = local, .ccc = local->metric == SM_METRIC_CCC,
                    .me = o->rank, .nranks = d->npv * d->npf * d->npr};
  sm_decomp_coords(d, o->rank, &g->pv, &g->pf, &g->pr);
  g->tile_base = calloc((size_t)d->npv + 1, sizeof(int));
  if (!g->tile_base)
    return SM_ENOMEM;
  for (int I = 0; I < d->npv; I++)
    g->tile_base[I + 1] = g->tile_base[I] + sm_decomp_ntiles(d, I);
  g->ntiles = g->tile_base[d->npv];
  st->ntiles = (size_t)g->ntiles;
  size_t nh = (size_t)g->ntiles * d->npf * d->npr;
  g->x = calloc(nh, sizeof *g->x);
  g->sums = calloc(nh, sizeof *g->sums);
  g->token = calloc((size_t)g->nranks, sizeof *g->token);
  if (!g->x || !g->sums || !g->token) {
    unregister_all(g);
    return SM_ENOMEM;
  }
  register_tiles(g);
  for (int k = 0; k < g->nranks; k++) {
    if (k == g->me)
      starpu_variable_data_register(&g->token[k], STARPU_MAIN_RAM,
                                    (uintptr_t)&g->token_value, sizeof g->token_value);
    else
      starpu_variable_data_register(&g->token[k], -1, 0, sizeof g->token_value);
    sm_gcore_register(g, g->token[k], k);
  }
  if (submit_sums(g, &st->ntasks)) {
    sm_log_error("task insertion failed");
    starpu_task_wait_for_all();
    unregister_all(g);
    return SM_ERUNTIME;
  }
  return SM_OK;
}

void sm_gcore_fini(sm_gcore_t *g)
{
  starpu_task_wait_for_all();
  if (g->o->use_mpi)
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  unregister_all(g);
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int sm_graph_skipped(const sm_graph_opts_t *o, uint64_t id)
{
  return o->nskip && bsearch(&id, o->skip, o->nskip, sizeof id, cmp_u64) != NULL;
}
