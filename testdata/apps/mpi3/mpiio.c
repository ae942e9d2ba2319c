/* A short MPI-IO write and read: every rank writes its block of COUNT ints at offset
 * rank*COUNT*4 into one shared file (MPI_File_write_at_all), closes it, reopens it and
 * reads its block back (MPI_File_read_at), checks it, and rank 0 deletes the file.
 * Usage: mpiio FILE. Prints "mpiio ok" on rank 0 when every rank read its own data. */
#include <mpi.h>
#include <stdio.h>

enum { COUNT = 256 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *path = argc > 1 ? argv[1] : "mpiio.dat";
    int out[COUNT], in[COUNT];
    for (int i = 0; i < COUNT; i++) out[i] = me * COUNT + i;
    MPI_Offset at = (MPI_Offset)me * COUNT * (MPI_Offset)sizeof(int);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, at, out, COUNT, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, at, in, COUNT, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    int bad = 0;
    for (int i = 0; i < COUNT; i++) bad |= in[i] != out[i];
    int ok = !bad, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        if (all) printf("mpiio ok\n");
    }
    MPI_Finalize();
    return 0;
}
