/* Table of pending non-blocking requests, keyed by the MPI_Request handle value.
 * Plain C (no MPI) so it is unit-tested on its own (tests/test_reqtab.c). */
#ifndef GS_REQTAB_H
#define GS_REQTAB_H
#include <stddef.h>
#include <stdint.h>

enum { GS_REQ_ISEND = 1, GS_REQ_IRECV = 2, GS_REQ_ICOLL = 3 };

typedef struct {
    uint64_t handle; /* MPI_Request value; 0 = empty slot */
    uint64_t id;     /* OTF2 request id */
    uint32_t comm;   /* local communicator ref */
    int kind;        /* GS_REQ_ISEND / GS_REQ_IRECV / GS_REQ_ICOLL */
    int cancelled;   /* MPI_Cancel was called on it */
    /* persistent requests (MPI_Send_init ...): what each MPI_Start sends or receives */
    int peer, tag;
    uint64_t bytes;  /* persistent sends: bytes per start; non-blocking collectives: sent */
    /* non-blocking collectives: what NonBlockingCollectiveComplete reports */
    uint64_t recvd;
    int op;          /* OTF2_CollectiveOp */
    int root;        /* rank in comm, -1 = none */
} gs_req_t;

typedef struct {
    gs_req_t *slots;
    size_t cap;   /* power of two */
    size_t count; /* live entries */
    size_t tombs; /* deleted slots awaiting rehash */
} gs_reqtab_t;

int gs_reqtab_init(gs_reqtab_t *t, size_t initial_cap);
void gs_reqtab_destroy(gs_reqtab_t *t);
/* Inserts or replaces the entry of r->handle (handle 0 is not storable). 0 ok, -1 no memory. */
int gs_reqtab_put(gs_reqtab_t *t, const gs_req_t *r);
/* Entry of handle or NULL; the pointer is valid until the next put/remove. */
gs_req_t *gs_reqtab_get(gs_reqtab_t *t, uint64_t handle);
/* Removes handle's entry and copies it to *out when out is non-NULL. Returns 1 if found. */
int gs_reqtab_take(gs_reqtab_t *t, uint64_t handle, gs_req_t *out);

/* The entry of a started non-blocking collective: its request id, and the operation,
 * communicator, root (-1 = none) and bytes its completion reports. */
gs_req_t gs_req_icoll(uint64_t handle, uint64_t id, uint32_t comm, int op, int root,
                      uint64_t sent, uint64_t recvd);

#endif
