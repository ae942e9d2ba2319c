/* Internal interfaces of the gridscope collectives library. */
#ifndef GS_COLL_INTERNAL_H
#define GS_COLL_INTERNAL_H

#include <mpi.h>
#include <stddef.h>

#include "gridscope/coll.h"
#include "wan.h"

/* Tags of the algorithms' messages (on the communicator's private duplicate, topo->coll_comm;
 * below the MPI minimum MPI_TAG_UB, 32767). Every receive names its source, so FIFO
 * matching keeps successive collectives apart. */
enum {
    /* + an index below GS_TAG_SLICE - GS_TAG_UNIT: one message per unit where units arrive in
     * no fixed order (allgather's forwarded chunks) */
    GS_TAG_UNIT = 16384,
    GS_TAG_SLICE = 32600, /* + the metahost whose partial a slice message carries (< 64) */
    GS_TAG_BASE = 32700,
    GS_TAG_BCAST = GS_TAG_BASE,
    GS_TAG_BCAST_B,
    GS_TAG_REDUCE_UP,
    GS_TAG_REDUCE_X,
    GS_TAG_REDUCE_DOWN,
    GS_TAG_GATHER,
    GS_TAG_ALLGATHER_X,
    GS_TAG_ALLGATHER_DOWN,
    GS_TAG_BARRIER_UP,
    GS_TAG_BARRIER_X,
    GS_TAG_BARRIER_DOWN,
    GS_TAG_ALLTOALL_LOCAL,
    GS_TAG_ALLTOALL_WAN,
    GS_TAG_WAN_ROUTE, /* pieces of a routed leader exchange (wanx.c) */
};

#define GS_MAX_LEVELS 4 /* metahost, node (+ room for more keys) */
#define GS_KEY_LEN 128

/* ---------------------------------------------------------------- topology (topo.c) */

/* A communicator's hierarchy, computed once and cached on it (keyval).
 * level 0 = metahost, level 1 = node; levels that split nothing are dropped. */
typedef struct gsc_topo {
    int size, rank;
    int nlevels;             /* levels kept (0 = everything in one group) */
    int *group[GS_MAX_LEVELS]; /* group[l][r]: index of r's group at level l (dense, by first rank) */
    int ngroups[GS_MAX_LEVELS];
    int nmeta;               /* number of metahosts in the communicator */
    int *meta_start;         /* CSR: ranks of metahost m are meta_ranks[meta_start[m]..m+1) */
    int *meta_ranks;         /* ascending within a metahost */
    int *meta_index;         /* meta_index[r]: position of r inside its metahost */
    int contiguous;          /* 1 when every metahost is a contiguous block of ranks */
    int *meta_width;         /* members of the level below the metahosts in metahost m: its
                              * nodes, or its ranks without a node level (gsc_topo_widths) */
    MPI_Comm level_comm[GS_MAX_LEVELS]; /* comm of my group at each level (PMPI_Comm_split) */
    MPI_Comm leader_comm;    /* metahost leaders (lowest rank of each), else MPI_COMM_NULL */
    MPI_Comm coll_comm;      /* PMPI_Comm_dup of the communicator (when nmeta >= 2): the
                              * algorithms' messages travel there, in their own context as
                              * inside an MPI library, so no user receive can match them */
    gsc_wan_t *wan;          /* WAN graph between metahosts 0..nmeta (GRIDSCOPE_COLL_WAN), or
                              * NULL: unknown, every leader talks over the direct link */
} gsc_topo_t;

/* The number of ranks in metahost m. */
static inline int gsc_meta_size(const gsc_topo_t *t, int m)
{
    return t->meta_start[m + 1] - t->meta_start[m];
}

/* The cached hierarchy of comm (built on first use, collectively). NULL on error. */
gsc_topo_t *gsc_topo_get(MPI_Comm comm);
/* Fills t->meta_width from the groups and the metahost membership (once, at build). With
 * one metahost (GRIDSCOPE_COLL_ONE_SITE) the node level is level 0. */
void gsc_topo_widths(gsc_topo_t *t);

/* ---------------------------------------------------------------- WAN routes (wanx.c) */

/* Plan for flows between metahost leaders (metahost indices of t): the number of pieces
 * (*pieces malloc'ed) when routing over the WAN graph beats sending each flow whole over
 * its direct link, else 0 (no graph, or the direct plan is as good: callers keep their
 * direct exchange). */
int gsc_wan_route(const gsc_topo_t *t, const gsc_wan_flow_t *flows, int nflows,
                  size_t unit_bytes, gsc_wan_piece_t **pieces);
/* The same for a plan that will run unit by unit (gsc_wan_plan_ex's pipelined). */
int gsc_wan_route_ex(const gsc_topo_t *t, const gsc_wan_flow_t *flows, int nflows,
                     size_t unit_bytes, int pipelined, gsc_wan_piece_t **pieces);
int gsc_alltoall_route_ex(const gsc_topo_t *t, size_t bsz, int pipelined);
/* Runs such a plan; called by the leaders of all metahosts (leaders[m]: m's leader, me_site:
 * the caller's metahost). A unit is unit_elems elements of dt; send[f] holds flow f at its
 * source, recv[f] receives it at its destination (other entries unused). */
/* The same in two steps: start posts the receives and the first hops of the caller's own
 * pieces; finish forwards what the caller relays and waits for everything. */
typedef struct {
    int h, p;
} gsc_wan_hop_t;
typedef struct {
    MPI_Comm comm;
    int me, npc, nh, unit_elems, tag;
    const int *leaders;
    const gsc_wan_piece_t *pc;
    MPI_Datatype dt;
    MPI_Aint ext;
    char *const *send;
    gsc_wan_hop_t *hops;
    MPI_Request *rreq, *sreq;
    void **origin;
    char **relay;
    int *rindex;
    const int *const *owner, *const *downer;
} gsc_wan_xchg_t;
/* Where unit u of flow f is sent from (at_dest 0, at its owner) or lands (1, at its
 * destination rank), for gsc_wan_start_units. */
typedef char *(*gsc_wan_unit_buf_fn)(void *ctx, int flow, size_t unit, int at_dest);
int gsc_wan_start(gsc_wan_xchg_t *x, MPI_Comm comm, int me_site, const int *leaders,
                  const gsc_wan_piece_t *pc, int npc, MPI_Datatype dt, int unit_elems,
                  char *const *send, char *const *recv, int tag);
int gsc_wan_finish(gsc_wan_xchg_t *x);
/* The same where the first hop of every piece (one unit each) is sent by the rank owning that
 * unit, owner[f][u], from its buffer own, instead of by its metahost's leader; every rank
 * taking part calls it (me_rank: the caller). Relays and destinations are leaders. */
int gsc_wan_start_owned(gsc_wan_xchg_t *x, MPI_Comm comm, int me_rank, const int *leaders,
                        const gsc_wan_piece_t *pc, int npc, MPI_Datatype dt, int unit_elems,
                        const int *const *owner, const char *own, char *const *send,
                        char *const *recv, int tag);
/* The most general form: one-unit pieces that start at their owner rank (owner[f][u]) and
 * end at their destination rank (downer[f][u], or NULL: the destination's leader), buffers
 * given per unit by unit_buf (or NULL: own, send, recv as above). */
int gsc_wan_start_units(gsc_wan_xchg_t *x, MPI_Comm comm, int me_rank, const int *leaders,
                        const gsc_wan_piece_t *pc, int npc, MPI_Datatype dt, int unit_elems,
                        const int *const *owner, const int *const *downer,
                        gsc_wan_unit_buf_fn unit_buf, void *ctx, const char *own,
                        char *const *send, char *const *recv, int tag);
/* Cuts every piece of a plan into one-unit pieces (for gsc_wan_start_owned); NULL: no memory. */
gsc_wan_piece_t *gsc_wan_unit_pieces(const gsc_wan_piece_t *pc, int npc, int *nout);
int gsc_wan_run(MPI_Comm comm, int me_site, const int *leaders, const gsc_wan_piece_t *pc,
                int npc, MPI_Datatype dt, int unit_elems, char *const *send, char *const *recv,
                int tag);

/* ---------------------------------------------------------------- trees (tree.c) */

/* Fan-out shape used among the members of one level. */
/* GS_SHAPE_FLAT_WAN, at the metahost level only: flat, and the root also takes the node
 * leaders of every other metahost as its own children (one WAN hop to every node). */
typedef enum {
    GS_SHAPE_FLAT,
    GS_SHAPE_BINARY,
    GS_SHAPE_CHAIN,
    GS_SHAPE_BINOMIAL,
    GS_SHAPE_FLAT_WAN
} gsc_shape_t;

/* A spanning tree over the communicator (all ranks computed on every process). */
typedef struct {
    int n, root;
    int *parent;      /* -1 at the root (and at every metahost leader when root < 0) */
    int *child_start; /* CSR children lists, in the order data is forwarded */
    int *child;
    int *depth_level; /* level at which a rank hangs under its parent (0 top) */
} gsc_tree_t;

/* Hierarchical tree: root (or, when root < 0, each metahost's lowest rank) is the leader
 * of its groups at every level; the leaders of sibling groups hang under their parent
 * group's leader in shape[level] order. */
int gsc_tree_build(const gsc_topo_t *t, int root, const gsc_shape_t *shape, gsc_tree_t *out);
/* The same, with metahost m's nodes attached in meta_shape[m] instead of shape[1]. */
int gsc_tree_build_meta(const gsc_topo_t *t, int root, const gsc_shape_t *shape,
                        const gsc_shape_t *meta_shape, gsc_tree_t *out);
/* Shape between the members of a metahost (its nodes) for a pipelined message of BYTES in
 * nseg segments: flat for a tiny message, a chain when the pipeline is long enough to hide
 * the chain's depth, else a binomial tree. */
gsc_shape_t gsc_local_shape(const gsc_topo_t *t, size_t bytes, int nseg);
/* Shape between the nodes of metahost m for a pipelined message of BYTES in segments of SEG
 * bytes: the chain, binary or binomial tree that the model of pipe_time (tree.c) finishes
 * first with the WAN graph's figures between m's nodes (wan.h). The model starts from the
 * whole message at m's leader: the WAN segments are all sent at once and, sharing their
 * link, arrive together (a binary tree fed at the WAN's rate lost at 256 KiB and 1 MiB on
 * grid5000-2, 27.74 and 86.03 ms against a chain's 26.46 and 80.20). FALLBACK
 * (gsc_local_shape's choice) when it is flat or the figures are not known. */
gsc_shape_t gsc_lan_shape(const gsc_topo_t *t, int m, size_t bytes, size_t seg,
                          gsc_shape_t fallback);
/* gsc_lan_shape of every metahost (malloc'ed, for gsc_tree_build_meta), or NULL without a
 * WAN graph. */
gsc_shape_t *gsc_lan_shapes(const gsc_topo_t *t, size_t bytes, size_t seg, gsc_shape_t fallback);
void gsc_tree_free(gsc_tree_t *tr);
int gsc_tree_nchild(const gsc_tree_t *tr, int r);
const int *gsc_tree_children(const gsc_tree_t *tr, int r);
/* Ranks of r's subtree in ascending order (out must hold n ints); returns their count. */
int gsc_tree_subtree(const gsc_tree_t *tr, int r, int *out);
/* Leader of metahost m for a tree built with this root (< 0: lowest rank). */
int gsc_meta_leader(const gsc_topo_t *t, int m, int root);

/* ---------------------------------------------------------------- p2p helpers (p2p.c) */

/* Segment size in bytes for a message of total bytes (env GRIDSCOPE_COLL_SEGSIZE). */
size_t gsc_segsize(size_t total_bytes);

/* Sends to one destination with at most `win` in flight: segments then cross a link one
 * after the other (all at once they would share its bandwidth and arrive together, which
 * defeats pipelining), while enough stay in flight to cover the link's latency. */
typedef struct {
    MPI_Request *req;
    int head, tail, cap, win;
} gsc_sendq_t;
int gsc_sendq_init(gsc_sendq_t *q, int cap, int win);
int gsc_sendq_isend(gsc_sendq_t *q, const void *buf, int cnt, MPI_Datatype dt, int dst, int tag,
                   MPI_Comm comm);
int gsc_sendq_drain(gsc_sendq_t *q); /* waits for everything and frees */
/* Window for segments of seg_bytes from rank a to rank b of a topology (NULL: one level). */
int gsc_window(const gsc_topo_t *t, int a, int b, size_t seg_bytes);

/* One pipelined stream: nseg segments of a typed buffer flow from src (or from local
 * ready requests) to every dst. */
typedef struct {
    char *buf;
    MPI_Datatype dt;
    MPI_Aint extent;
    int count;     /* elements */
    int seg_elems; /* elements per segment */
    int src;       /* rank to receive from, -1: data is local */
    MPI_Request *ready; /* when src < 0: per-segment request to complete first (or NULL) */
    int ndst;
    const int *dst;
    int tag;
    const gsc_topo_t *topo; /* for the send windows (NULL: LAN windows) */
} gsc_stream_t;

/* Runs the streams together, segment by segment (stream order within a segment). */
int gsc_stream_run(gsc_stream_t *s, int nstreams, MPI_Comm comm);
int gsc_nsegs(int count, int seg_elems);

/* Buffers of typed data: size needed for count elements, and the base pointer. */
void *gsc_typed_alloc(int count, MPI_Datatype dt, void **origin);

/* Packs count elements of dt into a new byte buffer (*bytes set). */
char *gsc_pack(const void *buf, int count, MPI_Datatype dt, size_t *bytes);
int gsc_unpack(const char *packed, size_t bytes, void *buf, int count, MPI_Datatype dt);
size_t gsc_type_bytes(int count, MPI_Datatype dt);

/* ---------------------------------------------------------------- algorithms */

typedef int (*gsc_bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm, gsc_topo_t *);
typedef int (*gsc_reduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm,
                            gsc_topo_t *);
typedef int (*gsc_allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm,
                               gsc_topo_t *);
typedef int (*gsc_gather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
                            MPI_Comm, gsc_topo_t *);
typedef int (*gsc_allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                               MPI_Comm, gsc_topo_t *);
typedef int (*gsc_barrier_fn)(MPI_Comm, gsc_topo_t *);
typedef int (*gsc_alltoall_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                              MPI_Comm, gsc_topo_t *);

int gsc_bcast_hier(void *, int, MPI_Datatype, int, MPI_Comm, gsc_topo_t *);
int gsc_bcast_hier_nopipe(void *, int, MPI_Datatype, int, MPI_Comm, gsc_topo_t *);
int gsc_bcast_multilane(void *, int, MPI_Datatype, int, MPI_Comm, gsc_topo_t *);
int gsc_bcast_binary(void *, int, MPI_Datatype, int, MPI_Comm, gsc_topo_t *);
int gsc_bcast_binomial(void *, int, MPI_Datatype, int, MPI_Comm, gsc_topo_t *);
int gsc_reduce_hier(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm, gsc_topo_t *);
int gsc_allreduce_hier(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, gsc_topo_t *);
/* Reduce-scatter / WAN slice exchange / allgather (allreduce_slices.c), for long vectors. */
int gsc_allreduce_slices(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, gsc_topo_t *);
int gsc_gather_hier(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm,
                   gsc_topo_t *);
int gsc_allgather_hier(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                      gsc_topo_t *);
/* The routed plan for an allgather of bsz-byte blocks (fl: nmeta^2 flows S -> D of nS
 * blocks; pipelined as in gsc_wan_route_ex): its piece count, 0 when the direct exchange is
 * as good. */
int gsc_allgather_route(const gsc_topo_t *t, size_t bsz, int pipelined, gsc_wan_flow_t *fl,
                        int *nf, gsc_wan_piece_t **route);
/* Allgatherv inside metahost members MA[0..nA) (I am member my; counts/displs in bytes, all
 * receives every part), node-aware: each member sends its part to its node mates and to the
 * leader (lowest member) of every other node, and leaders pass what they receive on to their
 * node mates, so every byte crosses each node's network link once (allgather_local.c). */
int gsc_local_allgatherv(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                         char *all, const int *counts, const int *displs, int tag_a, int tag_b,
                         MPI_Comm comm);
/* The allgather's WAN sender (allgather_wan_tx.h), kept moving by the local rounds below. */
typedef struct gsc_wan_tx gsc_wan_tx_t;
/* The same for long parts: a ring or Bruck's steps over the nodes (allgather_local.c). */
int gsc_allgatherv_long(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                        char *all, const int *counts, const int *displs, int tag, MPI_Comm comm,
                        gsc_wan_tx_t *w);
/* Direct for short parts, gsc_allgatherv_long for long ones. */
int gsc_allgatherv_meta(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                        char *all, const int *counts, const int *displs, int tag_a, int tag_b,
                        MPI_Comm comm, gsc_wan_tx_t *w);
int gsc_allgather_lg(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                    gsc_topo_t *);
int gsc_barrier_hier(MPI_Comm, gsc_topo_t *);
/* LG relay: index in S of the process that forwards s_i's block for d_j (alltoall.c). */
int gsc_lg_relay(int nS, int nD, int i, int j);
/* Direct alltoall, other metahosts' exchanges first, and topo's choice between it and LG
 * by the WAN volume (alltoall_direct.c). */
int gsc_alltoall_direct(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                        gsc_topo_t *);
int gsc_alltoall_topo(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                      gsc_topo_t *);
/* Leader-routed alltoall (alltoall_hier.c), and whether the WAN graph routes its leaders'
 * exchange of bsz-byte blocks differently from the direct links (plan pieces, or 0). */
int gsc_alltoall_hier(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                      gsc_topo_t *);
/* Block-by-block routed alltoall (long buffers; alltoall_hier.c). */
int gsc_alltoall_units(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                       gsc_topo_t *);
/* This rank's n send blocks of bsz bytes packed in destination order into P (alltoall.c). */
void gsc_alltoall_pack_mine(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int n, size_t bsz, char *P);
/* hier or units where the WAN graph has quicker routes for bsz-byte blocks, else NULL (alltoall.c). */
gsc_alltoall_fn gsc_alltoall_routed(gsc_topo_t *t, size_t bsz);
int gsc_alltoall_lg(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                   gsc_topo_t *);
/* LG over the direct WAN links only (gsc_alltoall_lg takes the routed forms first). */
int gsc_alltoall_lg_unrouted(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                           gsc_topo_t *);

/* ---------------------------------------------------------------- registry (registry.c) */

/* An algorithm's function: the member of its collective's type (NULL = vanilla). */
typedef union {
    gsc_bcast_fn bcast;
    gsc_reduce_fn reduce;
    gsc_allreduce_fn allreduce;
    gsc_gather_fn gather;
    gsc_allgather_fn allgather;
    gsc_barrier_fn barrier;
    gsc_alltoall_fn alltoall;
} gsc_algo_fn;

typedef struct {
    const char *name;
    gsc_algo_fn fn; /* set in the member of the table's collective; none for vanilla */
    int needs_commutative; /* reductions: falls back to vanilla for non-commutative ops */
    int one_site; /* also runs inside one metahost when named and GRIDSCOPE_COLL_ONE_SITE=1
                   * (seed 001's single-site broadcasts); otherwise one metahost = vanilla */
} gsc_algo_t;

/* What gsc_select returns for vanilla (PMPI_<Op>), whatever the collective. */
extern const gsc_algo_t gsc_vanilla;
int gsc_algo_is_vanilla(const gsc_algo_t *a);
const gsc_algo_t *gsc_registry(GSColl_op op, int *count);
const gsc_algo_t *gsc_registry_find(GSColl_op op, const char *name);

/* ---------------------------------------------------------------- selection (select.c) */

/* Algorithm to run for op on comm with bytes (the per-rank message size).
 * *topo is set (built) unless the choice is vanilla. */
const gsc_algo_t *gsc_select(GSColl_op op, MPI_Comm comm, size_t bytes, gsc_topo_t **topo);
void gsc_note_last(GSColl_op op, const char *name);

/* Re-entry guard: set while one of our algorithms runs, so a nested GSColl_* call (from a
 * tracer or a library we call) goes straight to PMPI. Our own traffic is PMPI_ anyway. */
extern int gsc_in_collective;

#endif
