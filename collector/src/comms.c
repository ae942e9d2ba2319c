/* Communicator registry (see comms.h). */
#include <stdio.h>
#include <stdlib.h>

#include "collector.h"
#include "comms.h"

gs_comm_def_t *gs_comm_defs;
uint32_t gs_comm_ndefs;
static uint32_t defs_cap;

/* handle -> local ref, open addressing; key 0 never stored (handles are non-zero or
 * compared through MPI_COMM_WORLD fast path). */
typedef struct {
    uint64_t key;
    uint32_t ref;
    int used;
} slot_t;
static slot_t *slots;
static size_t nslots, nused;
static MPI_Group world_group;

static size_t hkey(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 17);
}

static void map_put(uint64_t key, uint32_t ref)
{
    if ((nused + 1) * 2 > nslots) {
        size_t old = nslots;
        slot_t *o = slots;
        nslots = nslots ? nslots * 2 : 64;
        slots = calloc(nslots, sizeof *slots);
        nused = 0;
        for (size_t i = 0; i < old; i++)
            if (o[i].used == 1) map_put(o[i].key, o[i].ref);
        free(o);
    }
    size_t i = hkey(key) & (nslots - 1);
    while (slots[i].used == 1 && slots[i].key != key) i = (i + 1) & (nslots - 1);
    if (slots[i].used != 1) nused++;
    slots[i].key = key;
    slots[i].ref = ref;
    slots[i].used = 1;
}

static slot_t *map_find(uint64_t key)
{
    if (!nslots) return NULL;
    size_t i = hkey(key) & (nslots - 1);
    while (slots[i].used) {
        if (slots[i].used == 1 && slots[i].key == key) return &slots[i];
        i = (i + 1) & (nslots - 1);
    }
    return NULL;
}

static uint32_t add_def(int kind, int size, int *members, const char *name)
{
    if (gs_comm_ndefs == defs_cap) {
        defs_cap = defs_cap ? defs_cap * 2 : 16;
        gs_comm_defs = realloc(gs_comm_defs, defs_cap * sizeof *gs_comm_defs);
    }
    uint32_t seq = 0;
    for (uint32_t i = 0; i < gs_comm_ndefs; i++) {
        gs_comm_def_t *d = &gs_comm_defs[i];
        if (d->kind == kind && d->size == size &&
            memcmp(d->members, members, (size_t)size * sizeof(int)) == 0)
            seq++;
    }
    gs_comm_def_t *d = &gs_comm_defs[gs_comm_ndefs];
    d->kind = kind;
    d->seq = seq;
    d->size = size;
    d->members = members;
    snprintf(d->name, sizeof d->name, "%s", name ? name : "");
    return gs_comm_ndefs++;
}

static int *world_members(MPI_Comm comm, int *size)
{
    MPI_Group g;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_group(comm, &g); /* local group of an inter-communicator */
    PMPI_Group_size(g, size);
    int *ranks = malloc((size_t)*size * sizeof(int));
    int *out = malloc((size_t)*size * sizeof(int));
    for (int i = 0; i < *size; i++) ranks[i] = i;
    PMPI_Group_translate_ranks(g, *size, ranks, world_group, out);
    PMPI_Group_free(&g);
    free(ranks);
    return out;
}

void gs_comms_init(int world_rank, int world_size)
{
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int *all = malloc((size_t)world_size * sizeof(int));
    for (int i = 0; i < world_size; i++) all[i] = i;
    add_def(GS_COMM_WORLD_KIND, world_size, all, "MPI_COMM_WORLD");
    int *self = malloc(sizeof(int));
    self[0] = world_rank;
    add_def(GS_COMM_SELF_KIND, 1, self, "MPI_COMM_SELF");
    map_put(gs_handle_key(&(MPI_Comm){MPI_COMM_SELF}, sizeof(MPI_Comm)), 1);
}

static uint32_t define(MPI_Comm comm, int kind)
{
    int size = 0;
    int *members = world_members(comm, &size);
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    PMPI_Comm_get_name(comm, name, &len);
    uint32_t ref = add_def(kind, size, members, name);
    map_put(gs_handle_key(&comm, sizeof comm), ref);
    return ref;
}

uint32_t gs_comm_ref(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return 0;
    if (comm == MPI_COMM_NULL) return OTF2_UNDEFINED_COMM;
    gs_lock(); /* threads of the rank share the registry */
    slot_t *s = map_find(gs_handle_key(&comm, sizeof comm));
    uint32_t ref = s ? s->ref : define(comm, GS_COMM_LAZY);
    gs_unlock();
    return ref;
}

void gs_comm_created(MPI_Comm newcomm)
{
    if (newcomm == MPI_COMM_NULL) return;
    gs_lock();
    define(newcomm, GS_COMM_CREATED);
    gs_unlock();
}

void gs_comm_named(MPI_Comm comm)
{
    uint32_t ref = gs_comm_ref(comm); /* defines it if it is new */
    if (ref <= 1 || ref == OTF2_UNDEFINED_COMM) return; /* WORLD and SELF keep their names */
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    PMPI_Comm_get_name(comm, name, &len);
    gs_lock();
    snprintf(gs_comm_defs[ref].name, sizeof gs_comm_defs[ref].name, "%s", name);
    gs_unlock();
}

void gs_comm_freed(MPI_Comm comm)
{
    gs_lock();
    slot_t *s = map_find(gs_handle_key(&comm, sizeof comm));
    if (s && s->ref > 1) s->used = 2; /* tombstone: the handle may be reused */
    gs_unlock();
}
