/* The allgather's WAN sender: a rank's chunks to its partners in the other metahosts,
 * windowed (two in flight per destination) or paced (each when its link has had time for
 * the bytes before it), and the chunks it forwards as a relay, all kept moving whenever the
 * rank waits for anything else (gsc_wan_tx_wait). */
#include <math.h>
#include <stdlib.h>

#include "allgather_wan_tx.h"

/* Paced, a waiting rank looks for arrivals at least this often (seconds): well below a LAN
 * latency (0.05-0.1 ms on the testbed's platforms) */
#define PACE_POLL_S 2e-5

#ifdef GS_SMPI
#include <sys/types.h>
extern int smpi_usleep(useconds_t usecs);
static void pause_for(double s)
{
    smpi_usleep((useconds_t)(s * 1e6) + 1);
}
#else
#include <time.h>
static void pause_for(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}
#endif

/* posts every forward whose chunk is in (an empty request: completed and waited for;
 * SimGrid 3.32's MPI_Test leaves the flag unset for an empty request with
 * MPI_STATUS_IGNORE, so that case is tested here) */
static void fwd_progress(gsc_wan_tx_t *w)
{
    for (int i = 0; i < w->nfw; i++) {
        gsc_fwd_duty_t *f = &w->fw[i];
        int flag = *f->src == MPI_REQUEST_NULL;
        if (f->posted || f->due > PMPI_Wtime()) continue;
        if (!flag) PMPI_Test(f->src, &flag, MPI_STATUS_IGNORE);
        if (!flag) continue;
        PMPI_Isend(f->buf, f->len, MPI_BYTE, f->to, f->tag, w->comm, &w->fq[i]);
        f->posted = 1;
    }
}

void gsc_wan_tx_post(gsc_wan_tx_t *w, int d)
{
    int c = w->next[d]++;
    size_t off = w->coff[c], len = w->coff[c + 1] - off;
    /* synchronous when windowed: completion then means the chunk arrived */
    if (w->sync)
        PMPI_Issend(w->buf + off, (int)len, MPI_BYTE, w->dst[d], GS_TAG_ALLGATHER_X, w->comm,
                   &w->rq[d * w->nck + c]);
    else
        PMPI_Isend(w->buf + off, (int)len, MPI_BYTE, w->dst[d], GS_TAG_ALLGATHER_X, w->comm,
                  &w->rq[d * w->nck + c]);
}

/* paced: when destination d's next chunk leaves */
static double next_due_of(const gsc_wan_tx_t *w, int d)
{
    return gsc_wan_tx_due(w, w->step[d], w->next[d]);
}

/* post every chunk whose predecessor-but-one has completed */
void gsc_wan_tx_refill(gsc_wan_tx_t *w)
{
    double now = w->step ? PMPI_Wtime() : 0;
    for (int d = 0; d < w->nd; d++) {
        if (w->step && w->step[d] > 0) {
            while (w->next[d] < w->nck && next_due_of(w, d) <= now) gsc_wan_tx_post(w, d);
            continue;
        }
        while (w->next[d] < w->nck && w->rq[d * w->nck + w->next[d] - 2] == MPI_REQUEST_NULL)
            gsc_wan_tx_post(w, d);
    }
}

/* the time of the next paced post or forward (INFINITY: none) */
static double next_due(const gsc_wan_tx_t *w)
{
    double t = INFINITY, now = w->nfw ? PMPI_Wtime() : 0;
    for (int d = 0; w->step && d < w->nd; d++)
        if (w->step[d] > 0 && w->next[d] < w->nck && next_due_of(w, d) < t)
            t = next_due_of(w, d);
    for (int i = 0; i < w->nfw; i++)
        if (!w->fw[i].posted && w->fw[i].due > now && w->fw[i].due < t) t = w->fw[i].due;
    return t;
}

/* A request of gsc_wan_tx_wait's set completed: mark it (who: a forward's chunk, a windowed
 * send, or reqs[-1 - who]). */
static void done_one(gsc_wan_tx_t *w, MPI_Request *reqs, int who)
{
    if (who >= w->nd)
        *w->fw[who - w->nd].src = MPI_REQUEST_NULL;
    else if (who >= 0)
        w->rq[who * w->nck + w->next[who] - 2] = MPI_REQUEST_NULL;
    else
        reqs[-1 - who] = MPI_REQUEST_NULL;
}

/* Wait for reqs[0..n) while keeping the WAN window moving (a rank never blocks without
 * posting its next chunks, so no receiver waits on a sender that waits on it), and, paced,
 * posting chunks and forwards when they are due. */
int gsc_wan_tx_wait(gsc_wan_tx_t *w, MPI_Request *reqs, int n)
{
    if (!w) return n ? PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    MPI_Request *arr = malloc(sizeof(MPI_Request) * (size_t)(n + w->nd + w->nfw + 1));
    int *who = malloc(sizeof(int) * (size_t)(n + w->nd + w->nfw + 1)), rc = MPI_SUCCESS;
    int *ind = malloc(sizeof(int) * (size_t)(n + w->nd + w->nfw + 1));
    for (;;) {
        gsc_wan_tx_refill(w);
        fwd_progress(w);
        int m = 0;
        for (int i = 0; i < n; i++)
            if (reqs[i] != MPI_REQUEST_NULL) {
                arr[m] = reqs[i];
                who[m++] = -1 - i;
            }
        if (m == 0) break;
        for (int d = 0; d < w->nd; d++)
            if (w->next[d] < w->nck && !(w->step && w->step[d] > 0)) {
                arr[m] = w->rq[d * w->nck + w->next[d] - 2];
                who[m++] = d;
            }
        /* chunks to forward wake this rank too (once per receive; those among reqs are) */
        for (int i = 0; i < w->nfw; i++) {
            MPI_Request *src = w->fw[i].src;
            if (w->fw[i].posted || *src == MPI_REQUEST_NULL || (src >= reqs && src < reqs + n) ||
                (i > 0 && w->fw[i - 1].src == src))
                continue;
            arr[m] = *src;
            who[m++] = w->nd + i;
        }
        double due = next_due(w);
        if (due < INFINITY) {
            /* paced: whatever is in, else a short pause before looking again (MPI_Testsome:
             * SimGrid 3.32's MPI_Testany did not report these receives complete, so the
             * rounds waited until the rank's last post) */
            int got = 0;
            rc = PMPI_Testsome(m, arr, &got, ind, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS) break;
            if (got == MPI_UNDEFINED || got == 0) {
                double wait = due - PMPI_Wtime();
                pause_for(wait < PACE_POLL_S ? (wait > 0 ? wait : 1e-6) : PACE_POLL_S);
                continue;
            }
            for (int i = 0; i < got; i++) done_one(w, reqs, who[ind[i]]);
            continue;
        }
        int idx;
        rc = PMPI_Waitany(m, arr, &idx, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED) break;
        done_one(w, reqs, who[idx]);
    }
    free(arr);
    free(who);
    free(ind);
    return rc;
}

void gsc_wan_tx_drain(gsc_wan_tx_t *w)
{
    for (double due; w->step && (due = next_due(w)) < INFINITY;) {
        double wait = due - PMPI_Wtime();
        if (wait > 0) pause_for(wait);
        gsc_wan_tx_refill(w);
        fwd_progress(w);
    }
    for (int d = 0; d < w->nd; d++)
        while (w->next[d] < w->nck) {
            PMPI_Wait(&w->rq[d * w->nck + w->next[d] - 2], MPI_STATUS_IGNORE);
            gsc_wan_tx_post(w, d);
        }
    if (w->nd > 0) PMPI_Waitall(w->nd * w->nck, w->rq, MPI_STATUSES_IGNORE);
    fwd_progress(w); /* every chunk I receive is in: the last forwards go now */
    if (w->nfw > 0) PMPI_Waitall(w->nfw, w->fq, MPI_STATUSES_IGNORE);
}
