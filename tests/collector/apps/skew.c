/* Clock-skew test: around MPI_Comm_size calls each rank reads the true clock
 * (CLOCK_MONOTONIC, which the collector's test-only skew does not touch) and writes the
 * windows to OUTDIR/rank<N>.txt: one "before after" line (ns) per marker. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.txt", argc > 1 ? argv[1] : ".", rank);
    FILE *f = fopen(path, "w");
    for (int k = 0; k < 5; k++) {
        long long t0 = now();
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        long long t1 = now();
        fprintf(f, "%lld %lld\n", t0, t1);
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(100000);
    }
    fclose(f);
    MPI_Finalize();
    return 0;
}
