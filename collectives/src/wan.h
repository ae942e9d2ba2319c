/* The WAN graph between the metahosts of a communicator and the routes over it (plain
 * functions, no MPI: unit-tested in gscoll_unit).
 *
 * The library learns the graph from a file named by GRIDSCOPE_COLL_WAN, one directed link
 * per line, end-to-end figures between two metahosts:
 *     <from-metahost> <to-metahost> <latency-seconds> <bandwidth-bytes-per-second>
 * `gridscope record --platform` renders it from the platform TOML (wan.txt beside the
 * trace); on a real grid it is written by hand or from measurements. '#' starts a comment.
 * A line from a metahost to itself gives what one transfer between two of its nodes gets
 * (optional; the local tree shapes use it, see gsc_lan_shape).
 *
 * A transfer of V bytes from metahost s to metahost d is cut into pieces, each sent along a
 * path of metahosts (direct, or relayed by the leaders of other metahosts): the latency of
 * the path plus the time each link on it needs for the bytes already planned on it and the
 * piece (store and forward at every relay). Pieces are sized so that all paths used finish
 * together (water filling); a tiny message therefore takes the shortest-latency path alone,
 * a large one spreads over the paths whose extra latency its size amortises. */
#ifndef GS_COLL_WAN_H
#define GS_COLL_WAN_H
#include <stddef.h>

#define GSC_WAN_MAX_SITES 64
#define GSC_WAN_MAX_PATH 8 /* metahosts on one path, ends included */

typedef struct {
    int k;        /* metahosts */
    double *lat;  /* lat[a*k+b]: seconds, a != b */
    double *bw;   /* bw[a*k+b]: bytes per second */
    double *lan_lat, *lan_bw; /* [a]: between two nodes of metahost a; 0 when not given */
} gsc_wan_t;

/* One transfer the plan must route: units of unit_bytes each from metahost src to dst. */
typedef struct {
    int src, dst;
    size_t units;
} gsc_wan_flow_t;

/* A piece of flow `flow`: units [off, off+len) travel along path[0] = src ... path[n-1] = dst. */
typedef struct {
    int flow;
    size_t off, len;
    int n;
    int path[GSC_WAN_MAX_PATH];
} gsc_wan_piece_t;

/* Reads the graph for the metahosts names[0..k) from text (see above). Returns 0, or -1
 * with a one-line message in err (bad line, a metahost pair without a link). Lines about
 * other metahosts are ignored. w's arrays are malloc'ed (gsc_wan_free). */
int gsc_wan_parse(const char *text, const char *source, const char *const *names, int k,
                  gsc_wan_t *w, char *err, size_t err_len);
void gsc_wan_free(gsc_wan_t *w);

/* Shortest-latency paths (Floyd-Warshall): dist[a*k+b] seconds, next[a*k+b] the metahost
 * after a on the way to b (b itself when the direct link is best). */
void gsc_wan_shortest(const gsc_wan_t *w, double *dist, int *next);

/* Plans flows[0..nflows) (all sent at once) on w: writes at most max_pieces pieces and
 * returns their count (-1: too many). Deterministic: every process computes the same plan.
 * *estimate (if not NULL) is the plan's modelled completion time in seconds. */
int gsc_wan_plan(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows, size_t unit_bytes,
                 gsc_wan_piece_t *pieces, int max_pieces, double *estimate);
/* The same; pipelined: the pieces will be cut into units that relays forward one by one,
 * so a path moves bytes at its narrowest link's rate instead of paying every link in turn. */
int gsc_wan_plan_ex(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows,
                    size_t unit_bytes, int pipelined, gsc_wan_piece_t *pieces, int max_pieces,
                    double *estimate);
/* The plan that sends every flow whole over its direct link, and its modelled time (w may
 * be NULL, no graph known, when estimate is NULL). */
int gsc_wan_plan_direct(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows,
                        size_t unit_bytes, gsc_wan_piece_t *pieces, int max_pieces,
                        double *estimate);
/* 1 when every piece is a whole flow on its direct link. */
int gsc_wan_plan_is_direct(const gsc_wan_piece_t *pieces, int npieces, const gsc_wan_flow_t *flows);
/* Routes for data every metahost sends to every other (allgather, allreduce), where a relay
 * R forwards what it receives from S for itself: a share of S's data for D through R costs
 * nothing on S -> R (which must then carry all of S's data directly) and rides R -> D beside
 * R's own. bytes[S], units[S]: S's data and the units it may be split in. On return
 * via[(S * k + D) * k + R] holds S's units for D through R, R == D being the direct link
 * (every unit direct when routing gains nothing, with more than 8 metahosts, or fewer than
 * 3). Greedy: the flow that ends last moves one unit at a time to the relay that lowers the
 * plan's modelled end most. Returns 1 when some unit is relayed. */
int gsc_wan_plan_shared(const gsc_wan_t *w, const double *bytes, const int *units, int *via);
/* Upper bound on the pieces a plan of nflows flows on k metahosts can have. */
int gsc_wan_max_pieces(int k, int nflows);
#endif
