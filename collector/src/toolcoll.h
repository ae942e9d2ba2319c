/* The collector's own collectives, built from point-to-point calls over a binomial tree of
 * a group's members (root first). With ranks placed site by site a path from the root
 * crosses each wide-area link at most once, so a broadcast or a gather costs about one
 * WAN latency whatever the number of ranks (plus log2(members) local steps), where MPI's
 * own algorithms may cross the WAN at every step; under SMPI they also need no new
 * communicator, whose creation SimGrid makes linear in the ranks (docs/collector.md,
 * "What start-up and finalize cost"). */
#ifndef GS_TOOLCOLL_H
#define GS_TOOLCOLL_H
#include <mpi.h>
#include <stdint.h>

typedef struct {
    MPI_Comm comm;
    int n;      /* members */
    int *ranks; /* their ranks in comm, root first */
    int me;     /* this process's index among them, -1 if not a member */
} gs_tc_group_t;

/* MPI_COMM_WORLD's processes on the collector's communicator, rank 0 first (core.c). */
extern gs_tc_group_t gs_tc_world;

/* ranks[0..n) become the members (copied); me_rank: this process's rank in comm. */
void gs_tc_group_init(gs_tc_group_t *g, MPI_Comm comm, const int *ranks, int n, int me_rank);
void gs_tc_group_free(gs_tc_group_t *g);

/* Root's *buf (*len bytes) to every member; others get a malloc'd copy in *buf. */
void gs_tc_bcast(const gs_tc_group_t *g, char **buf, int *len);
/* Every member's bytes, packed, at the root (*out malloc'd; NULL elsewhere). */
void gs_tc_gather(const gs_tc_group_t *g, const void *mine, int len, char **out, int *outlen);
/* gs_tc_gather then gs_tc_bcast: every member gets the packed blocks. */
void gs_tc_allgather(const gs_tc_group_t *g, const void *mine, int len, char **out,
                     int *outlen);
/* Points block[i] at member i's bytes inside a packed buffer, lens[i] its length. */
void gs_tc_unpack(const char *packed, int plen, int n, const char **block, int *lens);
/* Minimum (want_min) or maximum over the members, known to all of them. */
int64_t gs_tc_allreduce_i64(const gs_tc_group_t *g, int64_t v, int want_min);
/* Element-wise minimum of v[0..n) (n <= 8) over the members, into v on all of them. */
void gs_tc_allreduce_min(const gs_tc_group_t *g, int64_t *v, int n);
#endif
