/* Algorithm registry: name -> function per collective. "vanilla" is PMPI_<Op>; "default"
 * is what GRIDSCOPE_COLL=topo runs. */
#include <string.h>

#include "gsc_internal.h"

#define VANILLA {"vanilla", {NULL}, 0, 0}
#define END {NULL, {NULL}, 0, 0}

const gsc_algo_t gsc_vanilla = VANILLA;

int gsc_algo_is_vanilla(const gsc_algo_t *a)
{
    return strcmp(a->name, "vanilla") == 0;
}

static const gsc_algo_t bcast[] = {VANILLA,
                                  {"default", {.bcast = gsc_bcast_hier}, 0, 0},
                                  {"hier", {.bcast = gsc_bcast_hier}, 0, 1},
                                  {"hier_nopipe", {.bcast = gsc_bcast_hier_nopipe}, 0, 1},
                                  {"multilane", {.bcast = gsc_bcast_multilane}, 0, 1},
                                  {"binary", {.bcast = gsc_bcast_binary}, 0, 1},
                                  {"binomial", {.bcast = gsc_bcast_binomial}, 0, 1},
                                  END};
static const gsc_algo_t reduce[] = {VANILLA,
                                   {"default", {.reduce = gsc_reduce_hier}, 1, 0},
                                   {"hier", {.reduce = gsc_reduce_hier}, 1, 0},
                                   END};
static const gsc_algo_t allreduce[] = {VANILLA,
                                      {"default", {.allreduce = gsc_allreduce_slices}, 1, 0},
                                      {"hier", {.allreduce = gsc_allreduce_hier}, 1, 0},
                                      {"slices", {.allreduce = gsc_allreduce_slices}, 1, 0},
                                      END};
static const gsc_algo_t gather[] = {VANILLA,
                                   {"default", {.gather = gsc_gather_hier}, 0, 0},
                                   {"hier", {.gather = gsc_gather_hier}, 0, 0},
                                   END};
static const gsc_algo_t allgather[] = {VANILLA,
                                      {"default", {.allgather = gsc_allgather_lg}, 0, 0},
                                      {"hier", {.allgather = gsc_allgather_hier}, 0, 0},
                                      {"lg", {.allgather = gsc_allgather_lg}, 0, 0},
                                      END};
static const gsc_algo_t barrier[] = {VANILLA,
                                    {"default", {.barrier = gsc_barrier_hier}, 0, 0},
                                    {"hier", {.barrier = gsc_barrier_hier}, 0, 0},
                                    END};
static const gsc_algo_t alltoall[] = {VANILLA,
                                     {"default", {.alltoall = gsc_alltoall_topo}, 0, 0},
                                     {"lg", {.alltoall = gsc_alltoall_lg}, 0, 0},
                                     {"direct", {.alltoall = gsc_alltoall_direct}, 0, 0},
                                     {"hier", {.alltoall = gsc_alltoall_hier}, 0, 0},
                                     {"units", {.alltoall = gsc_alltoall_units}, 0, 0},
                                     END};

static const gsc_algo_t *const tables[GSCOLL_NOPS] = {bcast,     reduce,  allreduce, gather,
                                                     allgather, barrier, alltoall};
static const char *const op_names[GSCOLL_NOPS] = {"bcast",     "reduce",  "allreduce", "gather",
                                                  "allgather", "barrier", "alltoall"};

const gsc_algo_t *gsc_registry(GSColl_op op, int *count)
{
    const gsc_algo_t *t = tables[op];
    int k = 0;
    while (t[k].name) k++;
    if (count) *count = k;
    return t;
}

const gsc_algo_t *gsc_registry_find(GSColl_op op, const char *name)
{
    for (const gsc_algo_t *a = tables[op]; a->name; a++)
        if (strcmp(a->name, name) == 0) return a;
    return NULL;
}

const char *GSColl_Op_name(GSColl_op op)
{
    return op >= 0 && op < GSCOLL_NOPS ? op_names[op] : NULL;
}

const char *const *GSColl_Algorithms(GSColl_op op)
{
    static const char *names[GSCOLL_NOPS][16];
    if (op < 0 || op >= GSCOLL_NOPS) return NULL;
    int k = 0;
    for (const gsc_algo_t *a = tables[op]; a->name && k < 15; a++) names[op][k++] = a->name;
    names[op][k] = NULL;
    return names[op];
}
