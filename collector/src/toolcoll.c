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

static int recv_any_length(const gs_tc_group_t *g, int from, int tag, char **buf)
{
    MPI_Status st;
    int len = 0;
    PMPI_Probe(g->ranks[from], tag, g->comm, &st);
    PMPI_Get_count(&st, MPI_BYTE, &len);
    *buf = malloc((size_t)(len > 0 ? len : 1));
    PMPI_Recv(*buf, len, MPI_BYTE, g->ranks[from], tag, g->comm, MPI_STATUS_IGNORE);
    return len;
}

void gs_tc_bcast(const gs_tc_group_t *g, char **buf, int *len)
{
    int i = g->me;
    if (i < 0) return;
    if (i != 0) *len = recv_any_length(g, parent_of(i), TAG_DOWN, buf);
    /* Farthest subtree first: it has the most steps left. */
    for (int k = lowbit_limit(i, g->n) >> 1; k > 0; k >>= 1)
        if (i + k < g->n)
            PMPI_Send(*buf, *len, MPI_BYTE, g->ranks[i + k], TAG_DOWN, g->comm);
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
    size_t cap = record_size(len), used = cap;
    char *buf = calloc(1, cap);
    int32_t head[2] = {i, len};
    memcpy(buf, head, 8);
    if (len) memcpy(buf + 8, mine, (size_t)len);
    for (int k = 1; k < lowbit_limit(i, g->n); k <<= 1) {
        if (i + k >= g->n) break;
        char *part = NULL;
        int plen = recv_any_length(g, i + k, TAG_UP, &part);
        if (used + (size_t)plen > cap) {
            cap = 2 * (used + (size_t)plen);
            buf = realloc(buf, cap);
        }
        memcpy(buf + used, part, (size_t)plen);
        used += (size_t)plen;
        free(part);
    }
    if (i != 0) {
        PMPI_Send(buf, (int)used, MPI_BYTE, g->ranks[parent_of(i)], TAG_UP, g->comm);
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
    for (int k = 1; k < lowbit_limit(i, g->n); k <<= 1) {
        if (i + k >= g->n) break;
        int64_t c[8];
        PMPI_Recv(c, n, MPI_INT64_T, g->ranks[i + k], TAG_UP, g->comm, MPI_STATUS_IGNORE);
        for (int e = 0; e < n; e++)
            if (want_min ? c[e] < v[e] : c[e] > v[e]) v[e] = c[e];
    }
    if (i != 0) {
        PMPI_Send(v, n, MPI_INT64_T, g->ranks[parent_of(i)], TAG_UP, g->comm);
        PMPI_Recv(v, n, MPI_INT64_T, g->ranks[parent_of(i)], TAG_DOWN, g->comm,
                  MPI_STATUS_IGNORE);
    }
    for (int k = lowbit_limit(i, g->n) >> 1; k > 0; k >>= 1)
        if (i + k < g->n) PMPI_Send(v, n, MPI_INT64_T, g->ranks[i + k], TAG_DOWN, g->comm);
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
