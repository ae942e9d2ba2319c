/* Algorithm registry: name -> function per collective. "vanilla" is PMPI_<Op>; "default"
 * is what GRIDSCOPE_COLL=topo runs. */
#include <string.h>

#include "gsc_internal.h"

#define END {NULL, NULL, 0, 0}
static const gsc_algo_t bcast[] = {{"vanilla", NULL, 0, 0},
                                  {"default", (void *)gsc_bcast_hier, 0, 0},
                                  {"hier", (void *)gsc_bcast_hier, 0, 1},
                                  {"hier_nopipe", (void *)gsc_bcast_hier_nopipe, 0, 1},
                                  {"multilane", (void *)gsc_bcast_multilane, 0, 1},
                                  {"binary", (void *)gsc_bcast_binary, 0, 1},
                                  {"binomial", (void *)gsc_bcast_binomial, 0, 1},
                                  END};
static const gsc_algo_t reduce[] = {{"vanilla", NULL, 0, 0},
                                   {"default", (void *)gsc_reduce_hier, 1, 0},
                                   {"hier", (void *)gsc_reduce_hier, 1, 0},
                                   END};
static const gsc_algo_t allreduce[] = {{"vanilla", NULL, 0, 0},
                                      {"default", (void *)gsc_allreduce_slices, 1, 0},
                                      {"hier", (void *)gsc_allreduce_hier, 1, 0},
                                      {"slices", (void *)gsc_allreduce_slices, 1, 0},
                                      END};
static const gsc_algo_t gather[] = {{"vanilla", NULL, 0, 0},
                                   {"default", (void *)gsc_gather_hier, 0, 0},
                                   {"hier", (void *)gsc_gather_hier, 0, 0},
                                   END};
static const gsc_algo_t allgather[] = {{"vanilla", NULL, 0, 0},
                                      {"default", (void *)gsc_allgather_lg, 0, 0},
                                      {"hier", (void *)gsc_allgather_hier, 0, 0},
                                      {"lg", (void *)gsc_allgather_lg, 0, 0},
                                      END};
static const gsc_algo_t barrier[] = {{"vanilla", NULL, 0, 0},
                                    {"default", (void *)gsc_barrier_hier, 0, 0},
                                    {"hier", (void *)gsc_barrier_hier, 0, 0},
                                    END};
static const gsc_algo_t alltoall[] = {{"vanilla", NULL, 0, 0},
                                     {"default", (void *)gsc_alltoall_topo, 0, 0},
                                     {"lg", (void *)gsc_alltoall_lg, 0, 0},
                                     {"direct", (void *)gsc_alltoall_direct, 0, 0},
                                     {"hier", (void *)gsc_alltoall_hier, 0, 0},
                                     {"units", (void *)gsc_alltoall_units, 0, 0},
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
