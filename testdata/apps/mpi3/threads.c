/* MPI_THREAD_MULTIPLE with two threads per rank doing point-to-point at the same time:
 * the main thread and one Pthread each pass ITERATIONS messages around a ring, to the same
 * thread of the right neighbour and from the same thread of the left one (tag = thread
 * number, so the two rings never mix): MPI_Irecv from the left, MPI_Send to the right,
 * MPI_Wait. The Pthread works inside a user region "worker" (recorded when the collector's
 * <gridscope/user.h> is on the include path). The main thread then joins the Pthread and
 * checks every value with one MPI_Allreduce. Prints "threads ok" on rank 0, or
 * "threads: MPI_THREAD_MULTIPLE not provided" and exits 1 when the library lacks it. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#include "gs_app.h"

enum { ITERATIONS = 10, COUNT = 8, THREADS = 2 };

typedef struct {
    int thread, me, n, bad;
} ring_t;

static void ring(ring_t *r)
{
    int right = (r->me + 1) % r->n, left = (r->me + r->n - 1) % r->n;
    for (int it = 0; it < ITERATIONS; it++) {
        int out[COUNT], in[COUNT];
        for (int i = 0; i < COUNT; i++) out[i] = 1000 * it + 10 * r->me + r->thread;
        MPI_Request req;
        MPI_Irecv(in, COUNT, MPI_INT, left, r->thread, MPI_COMM_WORLD, &req);
        MPI_Send(out, COUNT, MPI_INT, right, r->thread, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        r->bad |= in[COUNT - 1] != 1000 * it + 10 * left + r->thread;
    }
}

static void *worker(void *arg)
{
    APP_REGION_BEGIN("worker");
    ring(arg);
    APP_REGION_END("worker");
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ring_t rings[THREADS];
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (me == 0) printf("threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 1;
    }
    for (int t = 0; t < THREADS; t++) rings[t] = (ring_t){t, me, n, 0};
    pthread_t other;
    pthread_create(&other, NULL, worker, &rings[1]);
    ring(&rings[0]);
    pthread_join(other, NULL);
    int ok = !rings[0].bad && !rings[1].bad, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0 && all) printf("threads ok\n");
    MPI_Finalize();
    return 0;
}
