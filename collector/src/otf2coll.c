/* OTF2 collective callbacks implemented with PMPI_ calls, so the collector's own
 * traffic never passes through its wrappers (and is never recorded). */
#include <stdlib.h>

#include "otf2coll.h"

struct OTF2_CollectiveContext {
    MPI_Comm comm;
    int size, rank;
};

static MPI_Datatype mpi_type(OTF2_Type t)
{
    switch (t) {
    case OTF2_TYPE_UINT8: return MPI_UNSIGNED_CHAR;
    case OTF2_TYPE_INT8: return MPI_SIGNED_CHAR;
    case OTF2_TYPE_UINT16: return MPI_UNSIGNED_SHORT;
    case OTF2_TYPE_INT16: return MPI_SHORT;
    case OTF2_TYPE_UINT32: return MPI_UNSIGNED;
    case OTF2_TYPE_INT32: return MPI_INT;
    case OTF2_TYPE_UINT64: return MPI_UINT64_T;
    case OTF2_TYPE_INT64: return MPI_INT64_T;
    case OTF2_TYPE_FLOAT: return MPI_FLOAT;
    case OTF2_TYPE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

#define CHECK(call) ((call) == MPI_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR)

static OTF2_CallbackCode get_size(void *u, OTF2_CollectiveContext *c, uint32_t *size)
{
    (void)u;
    *size = (uint32_t)c->size;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode get_rank(void *u, OTF2_CollectiveContext *c, uint32_t *rank)
{
    (void)u;
    *rank = (uint32_t)c->rank;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CollectiveContext *context(MPI_Comm comm)
{
    OTF2_CollectiveContext *c = malloc(sizeof *c);
    c->comm = comm;
    PMPI_Comm_size(comm, &c->size);
    PMPI_Comm_rank(comm, &c->rank);
    return c;
}

static OTF2_CallbackCode create_local(void *u, OTF2_CollectiveContext **local,
                                      OTF2_CollectiveContext *global, uint32_t grank,
                                      uint32_t gsize, uint32_t lrank, uint32_t lsize,
                                      uint32_t file, uint32_t nfiles)
{
    (void)u, (void)gsize, (void)lrank, (void)lsize, (void)nfiles;
    MPI_Comm comm;
    if (PMPI_Comm_split(global->comm, (int)file, (int)grank, &comm) != MPI_SUCCESS)
        return OTF2_CALLBACK_ERROR;
    *local = context(comm);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode free_local(void *u, OTF2_CollectiveContext *local)
{
    (void)u;
    PMPI_Comm_free(&local->comm);
    free(local);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode barrier(void *u, OTF2_CollectiveContext *c)
{
    (void)u;
    return CHECK(PMPI_Barrier(c->comm));
}

static OTF2_CallbackCode bcast(void *u, OTF2_CollectiveContext *c, void *data, uint32_t n,
                               OTF2_Type t, uint32_t root)
{
    (void)u;
    return CHECK(PMPI_Bcast(data, (int)n, mpi_type(t), (int)root, c->comm));
}

static OTF2_CallbackCode gather(void *u, OTF2_CollectiveContext *c, const void *in, void *out,
                                uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)u;
    return CHECK(PMPI_Gather((void *)in, (int)n, mpi_type(t), out, (int)n, mpi_type(t),
                             (int)root, c->comm));
}

static int *displs_of(OTF2_CollectiveContext *c, const uint32_t *counts)
{
    int *d = malloc((size_t)c->size * 2 * sizeof(int));
    int off = 0;
    for (int i = 0; i < c->size; i++) {
        d[i] = off;
        d[c->size + i] = (int)counts[i];
        off += (int)counts[i];
    }
    return d;
}

static OTF2_CallbackCode gatherv(void *u, OTF2_CollectiveContext *c, const void *in,
                                 uint32_t n, void *out, const uint32_t *counts, OTF2_Type t,
                                 uint32_t root)
{
    (void)u;
    int *d = c->rank == (int)root ? displs_of(c, counts) : NULL;
    int rc = PMPI_Gatherv((void *)in, (int)n, mpi_type(t), out, d ? d + c->size : NULL, d,
                          mpi_type(t), (int)root, c->comm);
    free(d);
    return CHECK(rc);
}

static OTF2_CallbackCode scatter(void *u, OTF2_CollectiveContext *c, const void *in,
                                 void *out, uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)u;
    return CHECK(PMPI_Scatter((void *)in, (int)n, mpi_type(t), out, (int)n, mpi_type(t),
                              (int)root, c->comm));
}

static OTF2_CallbackCode scatterv(void *u, OTF2_CollectiveContext *c, const void *in,
                                  const uint32_t *counts, void *out, uint32_t n, OTF2_Type t,
                                  uint32_t root)
{
    (void)u;
    int *d = c->rank == (int)root ? displs_of(c, counts) : NULL;
    int rc = PMPI_Scatterv((void *)in, d ? d + c->size : NULL, d, mpi_type(t), out, (int)n,
                           mpi_type(t), (int)root, c->comm);
    free(d);
    return CHECK(rc);
}

static const OTF2_CollectiveCallbacks callbacks = {
    .otf2_release = NULL,
    .otf2_get_size = get_size,
    .otf2_get_rank = get_rank,
    .otf2_create_local_comm = create_local,
    .otf2_free_local_comm = free_local,
    .otf2_barrier = barrier,
    .otf2_bcast = bcast,
    .otf2_gather = gather,
    .otf2_gatherv = gatherv,
    .otf2_scatter = scatter,
    .otf2_scatterv = scatterv,
};

OTF2_ErrorCode gs_otf2_set_collectives(OTF2_Archive *archive, MPI_Comm comm)
{
    return OTF2_Archive_SetCollectiveCallbacks(archive, &callbacks, NULL, context(comm), NULL);
}
