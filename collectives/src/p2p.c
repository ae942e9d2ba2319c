/* Point-to-point helpers: segment sizes, pipelined streams, typed and packed buffers.
 * Everything goes through PMPI_, as inside an MPI library's own collective: a tracer
 * records the collective call, not the messages of its algorithm (docs/collectives.md). */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"
#include "settings.h"

size_t gsc_segsize(size_t total)
{
    if (gsc_setting_set(GSC_SET_SEGSIZE)) return (size_t)gsc_setting_num(GSC_SET_SEGSIZE);
    /* about 32 segments: short enough to pipeline through a local chain, long enough that
     * latency (0.1 ms on a LAN) does not dominate */
    size_t s = total / 32;
    if (s < 4096) s = 4096;
    if (s > 65536) s = 65536;
    return s;
}

int gsc_sendq_init(gsc_sendq_t *q, int cap, int win)
{
    q->req = malloc(sizeof(MPI_Request) * (size_t)(cap > 0 ? cap : 1));
    q->head = q->tail = 0;
    q->cap = cap;
    q->win = win < 1 ? 1 : win;
    return q->req ? 0 : -1;
}

int gsc_sendq_isend(gsc_sendq_t *q, const void *buf, int cnt, MPI_Datatype dt, int dst, int tag,
                   MPI_Comm comm)
{
    if (q->tail - q->head >= q->win) PMPI_Wait(&q->req[q->head++], MPI_STATUS_IGNORE);
    /* synchronous when windowed: completion then means the segment was received (a short
     * standard send may complete at once, buffered, which would make the window void) */
    if (q->win < (1 << 20)) return PMPI_Issend(buf, cnt, dt, dst, tag, comm, &q->req[q->tail++]);
    return PMPI_Isend(buf, cnt, dt, dst, tag, comm, &q->req[q->tail++]);
}

int gsc_sendq_drain(gsc_sendq_t *q)
{
    int rc = MPI_SUCCESS;
    if (q->tail > q->head)
        rc = PMPI_Waitall(q->tail - q->head, q->req + q->head, MPI_STATUSES_IGNORE);
    free(q->req);
    q->req = NULL;
    return rc;
}

int gsc_window(const gsc_topo_t *t, int a, int b, size_t seg_bytes)
{
    (void)seg_bytes;
    /* Across a WAN, every segment goes at once: flows sharing a link progress together, and
     * a window that waits for arrivals would leave the link idle for a latency each time.
     * Inside a metahost, two segments in flight keep a link busy while the segments still
     * arrive one after the other, so the next level can forward them (pipelining). */
    int wan = t && t->nmeta >= 2 && t->nlevels > 0 && t->group[0][a] != t->group[0][b];
    return wan ? 1 << 20 : (int)gsc_setting_num(GSC_SET_LAN_WINDOW);
}

int gsc_nsegs(int count, int seg_elems)
{
    if (count <= 0) return 0;
    return (count + seg_elems - 1) / seg_elems;
}

/* Several streams, each progressing on its own: a segment is forwarded as soon as it is
 * here and its destination's window has room, whatever the other streams do. Processing
 * the streams in lockstep (segment s of every stream before segment s+1 of any) couples
 * them: in the multi-lane broadcast a leaf of Tree_A waits for M_B's segment from a leaf
 * of Tree_B, which waits for M_A's segment from it, so every segment cost a round trip
 * between the trees (seed 001 on presto-2nic-32, 4 MiB: 161 ms instead of ~20 ms). */
static int streams_independent(gsc_stream_t *st, int ns, MPI_Request **recv, gsc_sendq_t **q,
                               MPI_Comm comm)
{
    int nreq = 0;
    int *avail = calloc((size_t)ns, sizeof(int)), **fwd = calloc((size_t)ns, sizeof(int *));
    for (int i = 0; i < ns; i++) {
        nreq += 1 + st[i].ndst;
        fwd[i] = calloc((size_t)st[i].ndst + 1, sizeof(int));
        if (!recv[i] && !st[i].ready) avail[i] = gsc_nsegs(st[i].count, st[i].seg_elems);
    }
    MPI_Request *wait = malloc(sizeof(MPI_Request) * (size_t)nreq);
    MPI_Request **origin = malloc(sizeof(MPI_Request *) * (size_t)nreq);
    int *who = malloc(sizeof(int) * (size_t)nreq); /* stream * 65536 + dst + 1, 0 dst = recv */
    for (;;) {
        int n = 0;
        for (int i = 0; i < ns; i++) {
            int k = gsc_nsegs(st[i].count, st[i].seg_elems);
            for (int d = 0; d < st[i].ndst; d++) {
                gsc_sendq_t *sq = &q[i][d];
                while (fwd[i][d] < avail[i] && sq->tail - sq->head < sq->win) {
                    int off = fwd[i][d]++ * st[i].seg_elems;
                    int cnt = st[i].count - off < st[i].seg_elems ? st[i].count - off
                                                                   : st[i].seg_elems;
                    gsc_sendq_isend(sq, st[i].buf + (MPI_Aint)off * st[i].extent, cnt, st[i].dt,
                                   st[i].dst[d], st[i].tag, comm);
                }
                if (fwd[i][d] < k && sq->tail > sq->head) { /* window full: its oldest */
                    wait[n] = sq->req[sq->head];
                    origin[n] = &sq->req[sq->head];
                    who[n++] = i * 65536 + d + 1;
                }
            }
            while (avail[i] < k && !recv[i] && st[i].ready[avail[i]] == MPI_REQUEST_NULL)
                avail[i]++; /* local segments already there */
            if (avail[i] < k) {
                MPI_Request *r = recv[i] ? &recv[i][avail[i]] : &st[i].ready[avail[i]];
                wait[n] = *r;
                origin[n] = r;
                who[n++] = i * 65536;
            }
        }
        if (n == 0) break;
        int idx = MPI_UNDEFINED;
        PMPI_Waitany(n, wait, &idx, MPI_STATUS_IGNORE);
        if (idx == MPI_UNDEFINED) break;
        *origin[idx] = MPI_REQUEST_NULL;
        int i = who[idx] / 65536, d = who[idx] % 65536 - 1;
        if (d < 0) avail[i]++;
        else q[i][d].head++;
    }
    for (int i = 0; i < ns; i++) free(fwd[i]);
    free(fwd);
    free(avail);
    free(wait);
    free(origin);
    free(who);
    return MPI_SUCCESS;
}

int gsc_stream_run(gsc_stream_t *st, int ns, MPI_Comm comm)
{
    int maxseg = 0, total_send = 0;
    for (int i = 0; i < ns; i++) {
        int k = gsc_nsegs(st[i].count, st[i].seg_elems);
        if (k > maxseg) maxseg = k;
        total_send += k * st[i].ndst;
    }
    MPI_Request **recv = calloc((size_t)ns, sizeof *recv);
    gsc_sendq_t **q = calloc((size_t)ns, sizeof *q);
    int rc = MPI_SUCCESS;
    (void)total_send;
    for (int i = 0; i < ns; i++) {
        int k = gsc_nsegs(st[i].count, st[i].seg_elems), size = 0;
        PMPI_Type_size(st[i].dt, &size);
        q[i] = calloc((size_t)st[i].ndst + 1, sizeof(gsc_sendq_t));
        int me = 0;
        if (st[i].topo) me = st[i].topo->rank;
        for (int d = 0; d < st[i].ndst; d++)
            gsc_sendq_init(&q[i][d], k, gsc_window(st[i].topo, me, st[i].dst[d],
                                                 (size_t)st[i].seg_elems * (size_t)size));
    }
    for (int i = 0; i < ns; i++) {
        int k = gsc_nsegs(st[i].count, st[i].seg_elems);
        if (st[i].src < 0 || k == 0) continue;
        recv[i] = malloc(sizeof(MPI_Request) * (size_t)k);
        for (int s = 0; s < k; s++) {
            int off = s * st[i].seg_elems;
            int cnt = st[i].count - off < st[i].seg_elems ? st[i].count - off : st[i].seg_elems;
            PMPI_Irecv(st[i].buf + (MPI_Aint)off * st[i].extent, cnt, st[i].dt, st[i].src,
                      st[i].tag, comm, &recv[i][s]);
        }
    }
    if (ns > 1) /* one stream: in order, as below (its figures are measured that way) */
        streams_independent(st, ns, recv, q, comm);
    else for (int s = 0; s < maxseg; s++) {
        for (int i = 0; i < ns; i++) {
            int k = gsc_nsegs(st[i].count, st[i].seg_elems);
            if (s >= k) continue;
            if (recv[i])
                PMPI_Wait(&recv[i][s], MPI_STATUS_IGNORE);
            else if (st[i].ready && st[i].ready[s] != MPI_REQUEST_NULL)
                PMPI_Wait(&st[i].ready[s], MPI_STATUS_IGNORE);
            int off = s * st[i].seg_elems;
            int cnt = st[i].count - off < st[i].seg_elems ? st[i].count - off : st[i].seg_elems;
            for (int d = 0; d < st[i].ndst; d++)
                gsc_sendq_isend(&q[i][d], st[i].buf + (MPI_Aint)off * st[i].extent, cnt, st[i].dt,
                               st[i].dst[d], st[i].tag, comm);
        }
    }
    for (int i = 0; i < ns; i++) {
        for (int d = 0; d < st[i].ndst; d++) {
            int r = gsc_sendq_drain(&q[i][d]);
            if (r != MPI_SUCCESS) rc = r;
        }
        free(q[i]);
        free(recv[i]);
    }
    free(q);
    free(recv);
    return rc;
}

void *gsc_typed_alloc(int count, MPI_Datatype dt, void **origin)
{
    MPI_Aint lb, extent, tlb, textent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    size_t bytes = count > 0 ? (size_t)(textent + (MPI_Aint)(count - 1) * extent) : 1;
    char *mem = malloc(bytes ? bytes : 1);
    *origin = mem;
    return mem ? mem - tlb : NULL;
}

size_t gsc_type_bytes(int count, MPI_Datatype dt)
{
    int size = 0;
    PMPI_Type_size(dt, &size);
    return (size_t)size * (size_t)(count > 0 ? count : 0);
}

char *gsc_pack(const void *buf, int count, MPI_Datatype dt, size_t *bytes)
{
    int cap = 0, pos = 0;
    PMPI_Pack_size(count, dt, MPI_COMM_SELF, &cap);
    char *out = malloc(cap > 0 ? (size_t)cap : 1);
    if (!out) return NULL;
    if (count > 0) PMPI_Pack(buf, count, dt, out, cap, &pos, MPI_COMM_SELF);
    *bytes = (size_t)pos;
    return out;
}

int gsc_unpack(const char *packed, size_t bytes, void *buf, int count, MPI_Datatype dt)
{
    int pos = 0;
    if (count <= 0) return MPI_SUCCESS;
    return PMPI_Unpack(packed, (int)bytes, &pos, buf, count, dt, MPI_COMM_SELF);
}
