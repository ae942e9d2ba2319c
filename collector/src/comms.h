/* Communicator registry: every communicator an event names gets a local definition.
 * Identity across ranks (for unification at finalize) is (kind, members in world-rank
 * order, sequence number among same-kind communicators with the same members); it needs
 * no communication, so communicators created behind the collector's back (PMPI_) are
 * defined lazily when they first appear. */
#ifndef GS_COMMS_H
#define GS_COMMS_H
#include <stdint.h>

enum { GS_COMM_WORLD_KIND = 0, GS_COMM_SELF_KIND = 1, GS_COMM_CREATED = 2, GS_COMM_LAZY = 3 };

typedef struct {
    int kind;
    uint32_t seq;
    int size;
    int *members; /* world ranks, comm rank order */
    char name[64];
} gs_comm_def_t;

/* Local definitions in creation order; ref = index. 0 = WORLD, 1 = SELF. */
extern gs_comm_def_t *gs_comm_defs;
extern uint32_t gs_comm_ndefs;

void gs_comms_init(int world_rank, int world_size);
#endif
