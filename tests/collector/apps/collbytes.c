/* Byte counts of collectives with roots, MPI_IN_PLACE and v-variants on 4 ranks (in the
 * style of Score-P's collectives_byte_calc_test). Output buffers are pre-filled with a
 * sentinel and every result is checked, so the wrappers must also pass data unchanged.
 * Prints "collbytes ok" on rank 0 when every result is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SENT -777
static int bad;
static void fill(int *b, int n) { for (int i = 0; i < n; i++) b[i] = SENT; }
static void expect(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "collbytes: %s: got %d want %d\n", what, got, want);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int buf[64], out[64], counts[16], displs[16];
    int root = 2;

    /* 1 Reduce in place at the root (2 ints). */
    buf[0] = me; buf[1] = 1;
    if (me == root) MPI_Reduce(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    else MPI_Reduce(buf, NULL, 2, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (me == root) { expect(buf[0], n * (n - 1) / 2, "reduce"); expect(buf[1], n, "reduce"); }
    /* 2 Allreduce in place (3 ints). */
    for (int i = 0; i < 3; i++) buf[i] = me + i;
    MPI_Allreduce(MPI_IN_PLACE, buf, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    expect(buf[2], n - 1 + 2, "allreduce");
    /* 3 Gather in place at the root (1 int each). */
    fill(out, 64);
    out[me] = 10 * me;
    if (me == root) MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, root, MPI_COMM_WORLD);
    else MPI_Gather(&out[me], 1, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD);
    if (me == root) for (int i = 0; i < n; i++) expect(out[i], 10 * i, "gather");
    /* 4 Scatter in place at the root (2 ints each). */
    for (int i = 0; i < 2 * n; i++) out[i] = i;
    fill(buf, 64);
    if (me == root) MPI_Scatter(out, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, MPI_COMM_WORLD);
    else MPI_Scatter(NULL, 0, MPI_INT, buf, 2, MPI_INT, root, MPI_COMM_WORLD);
    if (me != root) { expect(buf[0], 2 * me, "scatter"); expect(buf[2], SENT, "scatter"); }
    /* 5 Allgather in place (1 int each). */
    fill(out, 64);
    out[me] = me + 100;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) expect(out[i], i + 100, "allgather");
    expect(out[n], SENT, "allgather sentinel");
    /* 6 Gatherv: rank i contributes i+1 ints. */
    for (int i = 0, off = 0; i < n; i++) { counts[i] = i + 1; displs[i] = off; off += i + 1; }
    for (int i = 0; i <= me; i++) buf[i] = me;
    fill(out, 64);
    MPI_Gatherv(buf, me + 1, MPI_INT, out, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) expect(out[displs[n - 1]], n - 1, "gatherv");
    /* 7 Scatterv from root 1: rank i gets i+1 ints. */
    for (int i = 0; i < 64; i++) out[i] = i;
    fill(buf, 64);
    MPI_Scatterv(out, counts, displs, MPI_INT, buf, me + 1, MPI_INT, 1, MPI_COMM_WORLD);
    expect(buf[me], displs[me] + me, "scatterv");
    expect(buf[me + 1], SENT, "scatterv sentinel");
    /* 8 Allgatherv. */
    fill(out, 64);
    MPI_Allgatherv(buf, me + 1, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD);
    expect(out[displs[n - 1]], displs[n - 1], "allgatherv");
    /* 9 Reduce_scatter: rank i keeps i+1 ints. */
    int total = n * (n + 1) / 2;
    for (int i = 0; i < total; i++) buf[i] = 1;
    fill(out, 64);
    MPI_Reduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(out[me], n, "reduce_scatter");
    /* 10 Reduce_scatter_block in place: 2 ints per rank. */
    for (int i = 0; i < 2 * n; i++) buf[i] = 1;
    MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(buf[1], n, "reduce_scatter_block");
    /* 11 Scan, 12 Exscan (1 int). */
    int v = me + 1, s = SENT;
    MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(s, (me + 1) * (me + 2) / 2, "scan");
    s = SENT;
    MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me > 0) expect(s, me * (me + 1) / 2, "exscan");
    /* 13 Alltoallw: 1 int to everybody, 1 double from everybody. */
    int sc[16], sd[16], rc[16], rd[16];
    MPI_Datatype st[16], rt[16];
    double dout[16];
    for (int i = 0; i < n; i++) {
        sc[i] = rc[i] = 1; sd[i] = i * (int)sizeof(int); rd[i] = i * (int)sizeof(int);
        st[i] = rt[i] = MPI_INT; buf[i] = me;
    }
    (void)dout;
    fill(out, 64);
    MPI_Alltoallw(buf, sc, sd, st, out, rc, rd, rt, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) expect(out[i], i, "alltoallw");
    /* 14 Bcast from the last rank, 4 ints. */
    for (int i = 0; i < 4; i++) buf[i] = me == n - 1 ? 40 + i : SENT;
    MPI_Bcast(buf, 4, MPI_INT, n - 1, MPI_COMM_WORLD);
    expect(buf[3], 43, "bcast");

    int ok = !bad, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0 && all == 1) printf("collbytes ok\n");
    MPI_Finalize();
    return 0;
}
