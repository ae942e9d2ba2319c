/* Tree collectives of the collector's own traffic (toolcoll.h). */
#include <stdlib.h>
#include <string.h>

#include "toolcoll.h"

/* Tags near 32767, the smallest MPI_TAG_UB the standard allows: programs rarely use them,
 * and every receive below names its source. */
enum { TAG_UP = 32740, TAG_DOWN = 32741 };

gs_tc_group_t gs_tc_world;

void gs_tc_group_init(gs_tc_group_t *g, MPI_Comm comm, const int *ranks, int n, int me_rank)
{
    g->comm = comm;
    g->n = n;
    g->ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    g->me = -1;
    for (int i = 0; i < n; i++) {
        g->ranks[i] = ranks[i];
        if (ranks[i] == me_rank) g->me = i;
    }
}

void gs_tc_group_free(gs_tc_group_t *g)
{
    free(g->ranks);
    g->ranks = NULL;
    g->n = 0;
}

/* Binomial tree over indices: the parent clears the lowest set bit; the children of i
 * are i + 2^k for every 2^k below i's lowest set bit (any 2^k < n for the root). */
static int lowbit_limit(int i, int n)
{
    if (i == 0) {
        int k = 1;
        while (k < n) k <<= 1;
        return k;
    }
    return i & -i;
}

static int parent_of(int i)
{
    return i & (i - 1);
}

/* Members i + k, k a power of two below lowbit_limit(i): i's children, nearest first. */
static int children(const gs_tc_group_t *g, int i, int *out)
{
    int n = 0;
    for (int k = 1; k < lowbit_limit(i, g->n) && i + k < g->n; k <<= 1) out[n++] = i + k;
    return n;
}

static void wait_all(int n, MPI_Request *req)
{
    MPI_Status st[32]; /* (MPI_STATUSES_IGNORE makes GCC warn about Open MPI's Waitall) */
    if (n) PMPI_Waitall(n, req, st);
}

/* Sends to all children at once: a simulated MPI (SMPI) starts a message's transfer only
 * when its receive is matched, so one blocking call after the other would add their
 * latencies; so would a real network's rendezvous messages. */
static void send_down(const gs_tc_group_t *g, const void *buf, int len)
{
    int kids[32];
    MPI_Request req[32];
    int nk = children(g, g->me, kids);
    for (int c = nk - 1; c >= 0; c--) /* farthest subtree first */
        PMPI_Isend(buf, len, MPI_BYTE, g->ranks[kids[c]], TAG_DOWN, g->comm, &req[c]);
    wait_all(nk, req);
}

void gs_tc_bcast(const gs_tc_group_t *g, char **buf, int *len)
{
    int i = g->me;
    if (i < 0) return;
    if (i != 0) {
        int64_t n = 0;
        PMPI_Recv(&n, 1, MPI_INT64_T, g->ranks[parent_of(i)], TAG_DOWN, g->comm,
                  MPI_STATUS_IGNORE);
        *len = (int)n;
        *buf = malloc((size_t)(n > 0 ? n : 1));
        PMPI_Recv(*buf, *len, MPI_BYTE, g->ranks[parent_of(i)], TAG_DOWN, g->comm,
                  MPI_STATUS_IGNORE);
    }
    int64_t n = *len;
    send_down(g, &n, sizeof n);
    send_down(g, *buf, *len);
}

/* Packed record: int32 member index, int32 length, the bytes padded to 8. */
static size_t record_size(int len)
{
    return 8 + (((size_t)len + 7) & ~(size_t)7);
}

void gs_tc_gather(const gs_tc_group_t *g, const void *mine, int len, char **out, int *outlen)
{
    int i = g->me;
    *out = NULL;
    *outlen = 0;
    if (i < 0) return;
    int kids[32];
    MPI_Request req[32];
    int64_t sizes[32];
    int nk = children(g, i, kids);
    /* Sizes from all children at once, then their data at once. */
    for (int c = 0; c < nk; c++)
        PMPI_Irecv(&sizes[c], 1, MPI_INT64_T, g->ranks[kids[c]], TAG_UP, g->comm, &req[c]);
    wait_all(nk, req);
    size_t used = record_size(len);
    for (int c = 0; c < nk; c++) used += (size_t)sizes[c];
    char *buf = calloc(1, used), *at = buf + record_size(len);
    int32_t head[2] = {i, len};
    memcpy(buf, head, 8);
    if (len) memcpy(buf + 8, mine, (size_t)len);
    for (int c = 0; c < nk; c++) {
        PMPI_Irecv(at, (int)sizes[c], MPI_BYTE, g->ranks[kids[c]], TAG_UP, g->comm, &req[c]);
        at += sizes[c];
    }
    wait_all(nk, req);
    if (i != 0) {
        int64_t n = (int64_t)used;
        int parent = g->ranks[parent_of(i)];
        PMPI_Send(&n, 1, MPI_INT64_T, parent, TAG_UP, g->comm);
        PMPI_Send(buf, (int)used, MPI_BYTE, parent, TAG_UP, g->comm);
        free(buf);
        return;
    }
    *out = buf;
    *outlen = (int)used;
}

void gs_tc_allgather(const gs_tc_group_t *g, const void *mine, int len, char **out,
                     int *outlen)
{
    gs_tc_gather(g, mine, len, out, outlen);
    gs_tc_bcast(g, out, outlen);
}

void gs_tc_unpack(const char *packed, int plen, int n, const char **block, int *lens)
{
    for (int i = 0; i < n; i++) {
        block[i] = NULL;
        lens[i] = 0;
    }
    for (size_t at = 0; at + 8 <= (size_t)plen;) {
        int32_t head[2];
        memcpy(head, packed + at, 8);
        if (head[0] >= 0 && head[0] < n) {
            block[head[0]] = packed + at + 8;
            lens[head[0]] = head[1];
        }
        at += record_size(head[1]);
    }
}

static void allreduce(const gs_tc_group_t *g, int64_t *v, int n, int want_min)
{
    int i = g->me;
    if (i < 0) return;
    int kids[32];
    MPI_Request req[32];
    int64_t got[32][8];
    int nk = children(g, i, kids);
    for (int c = 0; c < nk; c++)
        PMPI_Irecv(got[c], n, MPI_INT64_T, g->ranks[kids[c]], TAG_UP, g->comm, &req[c]);
    wait_all(nk, req);
    for (int c = 0; c < nk; c++)
        for (int e = 0; e < n; e++)
            if (want_min ? got[c][e] < v[e] : got[c][e] > v[e]) v[e] = got[c][e];
    if (i != 0) {
        PMPI_Send(v, n, MPI_INT64_T, g->ranks[parent_of(i)], TAG_UP, g->comm);
        PMPI_Recv(v, n, MPI_INT64_T, g->ranks[parent_of(i)], TAG_DOWN, g->comm,
                  MPI_STATUS_IGNORE);
    }
    send_down(g, v, n * (int)sizeof *v);
}

int64_t gs_tc_allreduce_i64(const gs_tc_group_t *g, int64_t v, int want_min)
{
    allreduce(g, &v, 1, want_min);
    return v;
}

void gs_tc_allreduce_min(const gs_tc_group_t *g, int64_t *v, int n)
{
    allreduce(g, v, n > 8 ? 8 : n, 1);
}
