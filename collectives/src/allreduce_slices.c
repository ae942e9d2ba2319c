/* Allreduce by slices: a reduce-scatter and an allgather inside every metahost, in the manner
 * of Rabenseifner's algorithm, with the WAN step between the slices.
 *   1. Inside each metahost A, member i of its nA members gets slice i of A's partial result
 *      (every member sends each other member that member's slice of its vector, all at once).
 *   2. Every member sends its slice of A's partial to the members of every other metahost B
 *      whose slices overlap it (B cuts the vector into nB slices of its own): the WAN carries
 *      each metahost's partial once per other metahost, in many parallel flows from every
 *      node instead of one leader's link. Where the WAN graph (wan.h) makes a third
 *      metahost R a quicker way from A to B, R's members forward to B the elements of A's
 *      partial that they receive for themselves anyway (no extra traffic from A), for the
 *      share of the elements the plan gives that path.
 *   3. Each member combines, over its slice, the partials of all metahosts in metahost order,
 *      P_0 op (P_1 op (... P_last)), as gsc_allreduce_hier does, so every rank gets
 *      bit-identical results.
 *   4. The members allgather the result slices, node-aware (gsc_local_allgatherv).
 * Long vectors go in chunks: the reduce-scatter of chunk c+1 runs while chunk c crosses the
 * WAN, and only the last chunk's local phases add to the WAN time.
 * Against the tree (hier) the local phases move the vector once through each node link at
 * its full rate, where the tree's up-phase funnels every segment through the leader's link
 * (asym-3, 64 ranks, 64 KiB: Sophia's 21 one-core nodes held the tree's partial after 3.9 ms;
 * docs/perf-collectives.md has the figures). */
#include <stdlib.h>
#include <string.h>

#include "reduce_up.h"
#include "settings.h"

/* Chunks of at least GRIDSCOPE_COLL_SLICE_CHUNK bytes (default 64 KiB, settings.toml). */
/* Units a chunk is cut into for the WAN plan (its shares per path). */
#define GS_SLICE_UNITS 256

typedef struct {
    int relay; /* -1: direct */
    int u0, u1; /* units [u0, u1) of every chunk */
} seg_t;

typedef struct {
    const gsc_topo_t *t;
    MPI_Comm comm;
    MPI_Datatype dt;
    MPI_Op op;
    MPI_Aint ext;
    int nm, A, my, nA, units;
    const int *MA;
    seg_t **seg; /* seg[S * nm + D]: the element shares of flow S -> D, nseg[] of them */
    int *nseg;
} slices_t;

/* A chunk [c0, c0 + n): its members' slices and its shares in elements. */
static int cut(int c0, int n, int parts, int i)
{
    return c0 + (int)((long long)n * i / parts);
}

/* The elements [*a, *b) of share g within my slice [lo, hi) of chunk [c0, c0 + n) (units
 * are spread over the chunk as slices are); 0 when none are. */
static int seg_in_slice(const slices_t *x, const seg_t *g, int c0, int n, int lo, int hi, int *a,
                        int *b)
{
    int ga = cut(c0, n, x->units, g->u0), gb = cut(c0, n, x->units, g->u1);
    *a = ga > lo ? ga : lo;
    *b = gb < hi ? gb : hi;
    return *a < *b;
}

/* Where the WAN graph has quicker ways, the shares of every flow S -> D per path, from one
 * plan that every rank computes alike. A share may go through R only when R gets all of S's
 * partial directly (it forwards what it receives for itself, so the forwarding depends on
 * nothing but S's own sends); paths with more relays go direct. */
static int plan_routes(slices_t *x, size_t chunk_bytes)
{
    int nm = x->nm, nf = 0;
    x->seg = calloc((size_t)nm * nm, sizeof(seg_t *));
    x->nseg = calloc((size_t)nm * nm, sizeof(int));
    gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
    if (!x->seg || !x->nseg || !fl) {
        free(fl);
        return -1;
    }
    for (int S = 0; S < nm; S++)
        for (int D = 0; D < nm; D++)
            if (S != D) fl[nf++] = (gsc_wan_flow_t){S, D, (size_t)x->units};
    gsc_wan_piece_t *pc = NULL;
    size_t unit_bytes = chunk_bytes / (size_t)x->units;
    int np = gsc_wan_route_ex(x->t, fl, nf, unit_bytes ? unit_bytes : 1, 1, &pc);
    int *direct = malloc(sizeof(int) * (size_t)(nm * nm));
    for (int i = 0; direct && i < nm * nm; i++) direct[i] = 1;
    for (int p = 0; p < np && direct; p++)
        if (pc[p].n != 2) direct[fl[pc[p].flow].src * nm + fl[pc[p].flow].dst] = 0;
    for (int f = 0; f < nf; f++) {
        int S = fl[f].src, D = fl[f].dst, k = 0;
        seg_t *s = malloc(sizeof(seg_t) * (size_t)(np + 1));
        if (!s) continue;
        if (!np) s[k++] = (seg_t){-1, 0, x->units};
        for (int p = 0; p < np; p++) {
            if (pc[p].flow != f || !pc[p].len) continue;
            int R = pc[p].n == 3 && direct && direct[S * nm + pc[p].path[1]] ? pc[p].path[1] : -1;
            s[k++] = (seg_t){R, (int)pc[p].off, (int)(pc[p].off + pc[p].len)};
        }
        x->seg[S * nm + D] = s;
        x->nseg[S * nm + D] = k;
    }
    free(direct);
    free(pc);
    free(fl);
    return 0;
}

/* Requests of one call: receives carry the metahost whose partial they bring (their group);
 * sends are only waited for at the end. */
typedef struct {
    MPI_Request *rq;
    int *group;
    int n, cap;
    MPI_Request *sq;
    int ns, scap;
} reqs_t;

static MPI_Request *add_recv(reqs_t *r, int group)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rq = realloc(r->rq, sizeof(MPI_Request) * (size_t)r->cap);
        r->group = realloc(r->group, sizeof(int) * (size_t)r->cap);
    }
    r->group[r->n] = group;
    return &r->rq[r->n++];
}

static MPI_Request *add_send(reqs_t *r)
{
    if (r->ns == r->scap) {
        r->scap = r->scap ? 2 * r->scap : 64;
        r->sq = realloc(r->sq, sizeof(MPI_Request) * (size_t)r->scap);
    }
    return &r->sq[r->ns++];
}

/* For elements [a, b) of a chunk [c0, c0 + n): call fn for every member of B whose slice
 * overlaps them, with the overlap. */
typedef void (*overlap_fn)(void *ctx, int rank, int a, int b);
static void each_overlap(const slices_t *x, int B, int c0, int n, int a, int b, overlap_fn fn,
                         void *ctx)
{
    int nB = gsc_meta_size(x->t, B);
    const int *MB = x->t->meta_ranks + x->t->meta_start[B];
    for (int j = 0; j < nB; j++) {
        int lo = cut(c0, n, nB, j), hi = cut(c0, n, nB, j + 1);
        int p = lo > a ? lo : a, q = hi < b ? hi : b;
        if (p < q) fn(ctx, MB[j], p, q);
        if (hi >= b) break;
    }
}

typedef struct {
    slices_t *x;
    reqs_t *r;
    char *buf;  /* element e at buf + (e - base) * ext */
    int base, group, tag;
    int recv;
} post_t;

static void post_one(void *ctx, int rank, int a, int b)
{
    post_t *p = ctx;
    char *at = p->buf + (MPI_Aint)(a - p->base) * p->x->ext;
    if (p->recv)
        PMPI_Irecv(at, b - a, p->x->dt, rank, p->tag, p->x->comm, add_recv(p->r, p->group));
    else
        PMPI_Isend(at, b - a, p->x->dt, rank, p->tag, p->x->comm, add_send(p->r));
}

/* One chunk's WAN step for my slice [lo, hi) of chunk [c0, c0 + n): the direct sends of my
 * slice of A's partial (mine), and the receives of every other metahost's partial over my
 * slice into rem (per metahost in order, hi - lo elements each), directly or from a relay. */
static void post_wan(slices_t *x, reqs_t *r, int c0, int n, int lo, int hi, char *mine,
                     char *rem)
{
    int nm = x->nm, A = x->A;
    for (int B = 0, k = 0; B < nm; B++) {
        if (B == A) continue;
        /* S = B's partial to me; S = A's (mine) to B */
        for (int dir = 0; dir < 2; dir++) {
            int S = dir ? A : B, D = dir ? B : A;
            for (int s = 0; s < x->nseg[S * nm + D]; s++) {
                const seg_t *g = &x->seg[S * nm + D][s];
                int a, b;
                if (!seg_in_slice(x, g, c0, n, lo, hi, &a, &b)) continue;
                if (dir && g->relay >= 0) continue; /* the relay forwards it */
                post_t p = {x, r, dir ? mine : rem + (MPI_Aint)k * (hi - lo) * x->ext, lo, S,
                            GS_TAG_SLICE + S, !dir};
                each_overlap(x, dir ? D : (g->relay >= 0 ? g->relay : S), c0, n, a, b, post_one,
                             &p);
            }
        }
        k++;
    }
}

/* Forwards, as a relay, S's partial over my slice (now in rem_S) to the members of every
 * metahost D whose share of S -> D goes through me. */
static void forward(slices_t *x, reqs_t *r, int S, int c0, int n, int lo, int hi, char *rem_S)
{
    int nm = x->nm, A = x->A;
    for (int D = 0; D < nm; D++) {
        if (D == S || D == A) continue;
        for (int s = 0; s < x->nseg[S * nm + D]; s++) {
            const seg_t *g = &x->seg[S * nm + D][s];
            int a, b;
            if (g->relay != A || !seg_in_slice(x, g, c0, n, lo, hi, &a, &b)) continue;
            post_t p = {x, r, rem_S, lo, S, GS_TAG_SLICE + S, 0};
            each_overlap(x, D, c0, n, a, b, post_one, &p);
        }
    }
}

static int relays_for(const slices_t *x, int S)
{
    for (int D = 0; D < x->nm; D++)
        for (int s = 0; D != S && s < x->nseg[S * x->nm + D]; s++)
            if (x->seg[S * x->nm + D][s].relay == x->A) return 1;
    return 0;
}

typedef struct {
    int c0, n, lo, hi;
    int r0, r1;     /* its receives in reqs_t */
    char *mine, *rem;
    char *fwd_done; /* per metahost: its forwards are posted (or there are none) */
} chunk_t;

/* Posts the forwards of every chunk whose source metahost's receives are all in. */
static void progress(slices_t *x, reqs_t *r, chunk_t *ch, int nch)
{
    for (int c = 0; c < nch; c++) {
        if (!ch[c].fwd_done) continue;
        for (int B = 0, k = 0; B < x->nm; B++) {
            if (B == x->A) continue;
            /* in chunk order: a relay's messages to one member for one source then go in
             * the order that member posted its receives */
            if (!ch[c].fwd_done[B] && (c == 0 || ch[c - 1].fwd_done[B])) {
                int all = 1;
                for (int i = ch[c].r0; i < ch[c].r1 && all; i++)
                    if (r->group[i] == B && r->rq[i] != MPI_REQUEST_NULL) {
                        int flag = 0;
                        PMPI_Test(&r->rq[i], &flag, MPI_STATUS_IGNORE);
                        all = flag;
                    }
                if (all) {
                    ch[c].fwd_done[B] = 1;
                    forward(x, r, B, ch[c].c0, ch[c].n, ch[c].lo, ch[c].hi,
                            ch[c].rem + (MPI_Aint)k * (ch[c].hi - ch[c].lo) * x->ext);
                }
            }
            k++;
        }
    }
}

/* Waits for chunk c's receives, posting every chunk's forwards as their data arrive: a
 * relay waiting here never holds back data another metahost waits for. */
static int wait_chunk(slices_t *x, reqs_t *r, chunk_t *ch, int nch, int c)
{
    int cap = r->n + 1;
    MPI_Request *set = malloc(sizeof(MPI_Request) * (size_t)cap);
    int *idx = malloc(sizeof(int) * (size_t)cap), rc = MPI_SUCCESS;
    if (!set || !idx) rc = MPI_ERR_NO_MEM;
    while (rc == MPI_SUCCESS) {
        progress(x, r, ch, nch);
        int m = 0, mine_left = 0;
        for (int i = 0; i < r->n; i++) {
            if (r->rq[i] == MPI_REQUEST_NULL) continue;
            int in_c = i >= ch[c].r0 && i < ch[c].r1;
            int k = 0;
            for (; k < nch && !(i >= ch[k].r0 && i < ch[k].r1); k++) {}
            int feeds = k < nch && ch[k].fwd_done && !ch[k].fwd_done[r->group[i]];
            if (in_c || feeds) {
                set[m] = r->rq[i];
                idx[m++] = i;
                mine_left += in_c;
            }
        }
        if (!mine_left) break;
        int got;
        rc = PMPI_Waitany(m, set, &got, MPI_STATUS_IGNORE);
        if (got != MPI_UNDEFINED) r->rq[idx[got]] = MPI_REQUEST_NULL;
    }
    progress(x, r, ch, nch);
    free(set);
    free(idx);
    return rc;
}

/* Step 1 for one chunk: my slice [lo, hi) of A's partial into mine. */
static int reduce_scatter(slices_t *x, const char *in, chunk_t *k)
{
    int nA = x->nA, my = x->my, len = k->hi - k->lo, nr = 0, rc = MPI_SUCCESS;
    void *origin = NULL;
    char *part = gsc_typed_alloc(len * (nA - 1), x->dt, &origin);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)(2 * nA));
    if (!origin || !rq) {
        free(origin);
        free(rq);
        return MPI_ERR_NO_MEM;
    }
    for (int j = 0, q = 0; j < nA && len; j++)
        if (j != my)
            PMPI_Irecv(part + (MPI_Aint)(q++) * len * x->ext, len, x->dt, x->MA[j],
                       GS_TAG_REDUCE_UP, x->comm, &rq[nr++]);
    for (int j = 0; j < nA; j++) {
        int jl = cut(k->c0, k->n, nA, j), jn = cut(k->c0, k->n, nA, j + 1) - jl;
        if (j != my && jn)
            PMPI_Isend(in + (MPI_Aint)jl * x->ext, jn, x->dt, x->MA[j], GS_TAG_REDUCE_UP,
                       x->comm, &rq[nr++]);
    }
    if (nr) rc = PMPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS && len) {
        /* members in order: x_0 op (x_1 op (... x_last)) */
        const char *own = in + (MPI_Aint)k->lo * x->ext;
        gsc_copy(my == nA - 1 ? own : part + (MPI_Aint)(nA - 2) * len * x->ext, k->mine, len,
                 x->dt);
        for (int j = nA - 2; j >= 0; j--)
            PMPI_Reduce_local(j == my ? own : part + (MPI_Aint)(j < my ? j : j - 1) * len * x->ext,
                              k->mine, len, x->dt, x->op);
    }
    free(origin);
    free(rq);
    return rc;
}

/* Steps 3 and 4 for one chunk, its receives complete: the result over my slice, then every
 * member's into out. */
static int combine_and_share(slices_t *x, chunk_t *k, char *out)
{
    int nm = x->nm, A = x->A, len = k->hi - k->lo, rc = MPI_SUCCESS;
    char *res = out + (MPI_Aint)k->lo * x->ext;
    if (len) {
        const char *last = A == nm - 1 ? k->mine : k->rem + (MPI_Aint)(nm - 2) * len * x->ext;
        gsc_copy(last, res, len, x->dt);
        for (int B = nm - 2; B >= 0; B--)
            PMPI_Reduce_local(B == A ? k->mine : k->rem + (MPI_Aint)(B < A ? B : B - 1) * len * x->ext,
                              res, len, x->dt, x->op);
    }
    int nA = x->nA;
    int *counts = malloc(sizeof(int) * (size_t)nA), *displs = malloc(sizeof(int) * (size_t)nA);
    size_t esz = gsc_type_bytes(1, x->dt), total = gsc_type_bytes(k->n, x->dt), b = 0;
    char *all = malloc(total ? total : 1), *p = gsc_pack(res, len, x->dt, &b);
    if (!counts || !displs || !all || !p) {
        rc = MPI_ERR_NO_MEM;
    } else {
        for (int j = 0; j < nA; j++) {
            displs[j] = (int)((size_t)(cut(k->c0, k->n, nA, j) - k->c0) * esz);
            counts[j] = (int)((size_t)(cut(k->c0, k->n, nA, j + 1) - cut(k->c0, k->n, nA, j)) * esz);
        }
        rc = gsc_local_allgatherv(x->t, x->MA, nA, x->my, p, all, counts, displs,
                                  GS_TAG_REDUCE_DOWN, GS_TAG_BCAST, x->comm);
        if (rc == MPI_SUCCESS)
            rc = gsc_unpack(all, total, out + (MPI_Aint)k->c0 * x->ext, k->n, x->dt);
    }
    free(counts);
    free(displs);
    free(all);
    free(p);
    return rc;
}

static size_t chunk_min_bytes(void)
{
    return (size_t)gsc_setting_num(GSC_SET_SLICE_CHUNK);
}

int gsc_allreduce_slices(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, gsc_topo_t *t)
{
    if (count <= 0) return MPI_SUCCESS;
    slices_t x = {t, comm, dt, op, 0, t->nmeta, t->group[0][t->rank], t->meta_index[t->rank], 0,
                  0, NULL, NULL, NULL};
    MPI_Aint lb;
    PMPI_Type_get_extent(dt, &lb, &x.ext);
    x.nA = gsc_meta_size(t, x.A);
    x.MA = t->meta_ranks + t->meta_start[x.A];
    const char *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    size_t bytes = gsc_type_bytes(count, dt);
    int nch = (int)(bytes / chunk_min_bytes());
    if (nch < 1) nch = 1;
    if (nch > count) nch = count;
    int n0 = cut(0, count, nch, 1);
    x.units = n0 < GS_SLICE_UNITS ? n0 : GS_SLICE_UNITS;
    int rc = plan_routes(&x, gsc_type_bytes(n0, dt));
    chunk_t *ch = calloc((size_t)nch, sizeof(chunk_t));
    void **origins = calloc((size_t)nch * 2, sizeof(void *));
    reqs_t r = {0};
    if (rc != 0 || !ch || !origins) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    /* 1 and 2, chunk after chunk: each chunk's WAN step runs on while the next is reduced */
    for (int c = 0; c < nch && rc == MPI_SUCCESS; c++) {
        chunk_t *k = &ch[c];
        k->c0 = cut(0, count, nch, c);
        k->n = cut(0, count, nch, c + 1) - k->c0;
        k->lo = cut(k->c0, k->n, x.nA, x.my);
        k->hi = cut(k->c0, k->n, x.nA, x.my + 1);
        int len = k->hi - k->lo;
        k->mine = gsc_typed_alloc(len, dt, &origins[2 * c]);
        k->rem = gsc_typed_alloc(len * (x.nm - 1), dt, &origins[2 * c + 1]);
        k->fwd_done = calloc((size_t)x.nm, 1);
        if (!origins[2 * c] || !origins[2 * c + 1] || !k->fwd_done) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        for (int B = 0; B < x.nm; B++) k->fwd_done[B] = B == x.A || !relays_for(&x, B);
        rc = reduce_scatter(&x, in, k);
        k->r0 = r.n;
        if (rc == MPI_SUCCESS) post_wan(&x, &r, k->c0, k->n, k->lo, k->hi, k->mine, k->rem);
        k->r1 = r.n;
        progress(&x, &r, ch, c + 1);
    }
    /* 3 and 4, chunk after chunk as they arrive */
    for (int c = 0; c < nch && rc == MPI_SUCCESS; c++) {
        rc = wait_chunk(&x, &r, ch, nch, c);
        if (rc == MPI_SUCCESS) rc = combine_and_share(&x, &ch[c], recvbuf);
    }
    if (r.ns) {
        int r2 = PMPI_Waitall(r.ns, r.sq, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS) rc = r2;
    }
out:
    for (int c = 0; ch && c < nch; c++) free(ch[c].fwd_done);
    for (int i = 0; origins && i < 2 * nch; i++) free(origins[i]);
    free(origins);
    free(ch);
    free(r.rq);
    free(r.group);
    free(r.sq);
    for (int i = 0; x.seg && i < x.nm * x.nm; i++) free(x.seg[i]);
    free(x.seg);
    free(x.nseg);
    return rc;
}
