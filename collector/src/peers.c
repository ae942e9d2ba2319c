/* See peers.h. */
#define _GNU_SOURCE
#include "peers.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int rank;
    pid_t pid;
} peer_t;

static peer_t *peers;
static int npeers;

void gs_peers_init(MPI_Comm comm, int rank, int size, const char *hosts, size_t name_len)
{
#ifdef GS_MPICH
    int me = (int)getpid();
    int *pids = malloc((size_t)size * sizeof *pids);
    PMPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, comm);
    peers = calloc((size_t)size, sizeof *peers);
    for (int r = 0; r < size; r++)
        if (r != rank && strncmp(hosts + (size_t)r * name_len, hosts + (size_t)rank * name_len,
                                 name_len) == 0)
            peers[npeers++] = (peer_t){r, (pid_t)pids[r]};
    free(pids);
#else
    (void)comm, (void)rank, (void)size, (void)hosts, (void)name_len;
#endif
}

int gs_peers_is_peer(pid_t pid)
{
    for (int i = 0; i < npeers; i++)
        if (peers[i].pid == pid) return 1;
    return 0;
}

static int peer_done(const peer_t *p, const char *dir, int wait_files)
{
    if (kill(p->pid, 0) != 0) return 1;
    if (!wait_files) return 0;
    char path[4400];
    snprintf(path, sizeof path, "%s/traces/%d.gsunify", dir, p->rank);
    return access(path, F_OK) == 0;
}

void gs_peers_flush_and_wait(const char *dir, int wait_files, int max_ms)
{
    if (!npeers) return;
    for (int i = 0; i < npeers; i++) kill(peers[i].pid, SIGTERM);
    for (int ms = 0; ms < max_ms; ms++) {
        int all = 1;
        for (int i = 0; i < npeers && all; i++) all = peer_done(&peers[i], dir, wait_files);
        if (all) return;
        usleep(1000);
    }
}
