/* Hierarchical ping-pong clock synchronisation; the maths lives in clockmath.c. */
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "sync.h"

/* Tags near 32767 (the smallest MPI_TAG_UB allowed), as in toolcoll.c: under SMPI the
 * synchronisation runs on MPI_COMM_WORLD (core.c). */
enum { TAG_PING = 32750, TAG_PONG = 32751, TAG_RESULT = 32752 };

/* Rows are fixed-width, NUL-padded records (a node key holds two names). */
static int index_of(const char *rows, int n, size_t width, const char *name)
{
    for (int i = 0; i < n; i++)
        if (memcmp(rows + (size_t)i * width, name, width) == 0) return i;
    return -1;
}

void gs_topology_build(gs_topology_t *t, int size, const char *mhs, const char *hosts,
                       size_t width)
{
    t->size = size;
    t->metahost = malloc((size_t)size * sizeof(int));
    t->node = malloc((size_t)size * sizeof(int));
    t->metahost_master = malloc((size_t)size * sizeof(int));
    t->node_master = malloc((size_t)size * sizeof(int));
    t->host = malloc((size_t)size * sizeof(int));
    t->nmetahosts = t->nnodes = 0;
    t->skewed = 0;
    int nhosts = 0;
    char *mh_names = malloc((size_t)size * width);
    char *node_names = malloc((size_t)size * 2 * width);
    char *host_names = malloc((size_t)size * width);
    for (int r = 0; r < size; r++) {
        char mh[256];
        memset(mh, 0, sizeof mh);
        strncpy(mh, mhs + (size_t)r * width, width - 1);
        int m = index_of(mh_names, t->nmetahosts, width, mh);
        if (m < 0) {
            m = t->nmetahosts++;
            memcpy(mh_names + (size_t)m * width, mh, width);
            t->metahost_master[m] = r;
        }
        t->metahost[r] = m;
        char key[2 * 256];
        memset(key, 0, sizeof key);
        memcpy(key, mh, width);
        strncpy(key + width, hosts + (size_t)r * width, width - 1);
        int nd = index_of(node_names, t->nnodes, 2 * width, key);
        if (nd < 0) {
            nd = t->nnodes++;
            memcpy(node_names + (size_t)nd * 2 * width, key, 2 * width);
            t->node_master[nd] = r;
        }
        t->node[r] = nd;
        int h = index_of(host_names, nhosts, width, key + width);
        if (h < 0) {
            h = nhosts++;
            memcpy(host_names + (size_t)h * width, key + width, width);
        }
        t->host[r] = h;
    }
    free(mh_names);
    free(node_names);
    free(host_names);
}

/* Whether ranks a and b read one clock (one host, no test skew). */
static int same_clock(const gs_topology_t *t, int a, int b)
{
    return !t->skewed && t->host[a] == t->host[b];
}

/* Client side: ping-pongs with server until gs_sync_enough says the bound is found (at
 * most rounds), then a last message tells the server this client is done. */
static gs_offset_t ping(MPI_Comm comm, int server, int rounds, int64_t *at)
{
    gs_pingpong_t s[GS_SYNC_METAHOST_ROUNDS];
    int n = 0;
    do {
        int64_t more = 1, remote = 0;
        s[n].t_send = (int64_t)gs_time();
        PMPI_Send(&more, 1, MPI_INT64_T, server, TAG_PING, comm);
        PMPI_Recv(&remote, 1, MPI_INT64_T, server, TAG_PONG, comm, MPI_STATUS_IGNORE);
        s[n].t_recv = (int64_t)gs_time();
        s[n].t_server = remote;
        n++;
    } while (!gs_sync_enough(s, n, rounds));
    int64_t done = 0;
    PMPI_Send(&done, 1, MPI_INT64_T, server, TAG_PING, comm);
    gs_offset_t best = gs_offset_best(s, n);
    /* Local time of the best exchange's midpoint: where the offset holds. */
    int64_t best_rtt = -1;
    for (int i = 0; i < n; i++) {
        int64_t rtt = s[i].t_recv - s[i].t_send;
        if (best_rtt < 0 || rtt < best_rtt) {
            best_rtt = rtt;
            *at = s[i].t_send + rtt / 2;
        }
    }
    return best;
}

/* Server side: answers the pings of its clients in whatever order they come, with a
 * receive posted for each of them, so all of them measure at once (a simulated MPI starts
 * a message only when its receive is matched), until each has said it is done. */
static void serve(MPI_Comm comm, const int *clients, int n)
{
    MPI_Request *req = malloc((size_t)(n > 0 ? n : 1) * sizeof *req);
    int64_t *more = malloc((size_t)(n > 0 ? n : 1) * sizeof *more);
    for (int c = 0; c < n; c++)
        PMPI_Irecv(&more[c], 1, MPI_INT64_T, clients[c], TAG_PING, comm, &req[c]);
    for (int left = n; left > 0;) {
        int c = 0;
        PMPI_Waitany(n, req, &c, MPI_STATUS_IGNORE);
        if (!more[c]) {
            left--;
            continue;
        }
        int64_t now = (int64_t)gs_time();
        PMPI_Send(&now, 1, MPI_INT64_T, clients[c], TAG_PONG, comm);
        PMPI_Irecv(&more[c], 1, MPI_INT64_T, clients[c], TAG_PING, comm, &req[c]);
    }
    free(req);
    free(more);
}

gs_offset_t gs_sync_clocks(MPI_Comm comm, const gs_topology_t *t, int me, int64_t *at)
{
    gs_offset_t mine = {0, 0};
    int64_t when = (int64_t)gs_time();
    int mh = t->metahost[me], nd = t->node[me];
    int root = 0, master = t->metahost_master[mh];

    /* Levels 1 and 2 (GUIDE §2) at once where they can be: a metahost master first serves
     * its node masters (local network), then measures against the global master, which
     * serves every metahost master and its own node masters together. */
    if (master == me) {
        int *clients = malloc((size_t)(t->nnodes + t->nmetahosts) * sizeof(int)), nc = 0;
        for (int n = 0; n < t->nnodes; n++)
            if (t->node_master[n] != me && t->metahost[t->node_master[n]] == mh)
                clients[nc++] = t->node_master[n];
        if (me == root)
            for (int m = 0; m < t->nmetahosts; m++)
                if (t->metahost_master[m] != root && !same_clock(t, t->metahost_master[m], root))
                    clients[nc++] = t->metahost_master[m];
        serve(comm, clients, nc);
        free(clients);
        if (me != root && !same_clock(t, me, root))
            mine = ping(comm, root, GS_SYNC_METAHOST_ROUNDS, &when);
        for (int n = 0; n < t->nnodes; n++) {
            int client = t->node_master[n];
            if (client == me || t->metahost[client] != mh) continue;
            int64_t msg[2] = {mine.offset, mine.error};
            PMPI_Send(msg, 2, MPI_INT64_T, client, TAG_RESULT, comm);
        }
    } else if (t->node_master[nd] == me) {
        gs_offset_t to_master = ping(comm, master, GS_SYNC_NODE_ROUNDS, &when);
        int64_t msg[2];
        PMPI_Recv(msg, 2, MPI_INT64_T, master, TAG_RESULT, comm, MPI_STATUS_IGNORE);
        gs_offset_t master_to_root = {msg[0], msg[1]};
        mine = gs_offset_compose(to_master, master_to_root);
    }
    /* Level 3: processes of a node share its clock and its master's offset. */
    if (t->node_master[nd] == me) {
        for (int r = 0; r < t->size; r++) {
            if (r == me || t->node[r] != nd) continue;
            int64_t msg[3] = {mine.offset, mine.error, when};
            PMPI_Send(msg, 3, MPI_INT64_T, r, TAG_RESULT, comm);
        }
    } else {
        int64_t msg[3];
        PMPI_Recv(msg, 3, MPI_INT64_T, t->node_master[nd], TAG_RESULT, comm, MPI_STATUS_IGNORE);
        mine.offset = msg[0];
        mine.error = msg[1];
        when = msg[2];
    }
    *at = when;
    return mine;
}
