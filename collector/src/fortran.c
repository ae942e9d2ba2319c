/* Fortran argument decoding for the Open MPI build (fortran.h). */
#include <stdlib.h>
#include <string.h>

#include "fortran.h"

/* Open MPI's Fortran constants are common blocks; it compares against every name mangling
 * (ompi/mpi/fortran/base/constants.h), of which a gfortran build defines the
 * `lower_` one. Weak: a C program has none of them. */
#define GS_SENTINEL(x)                                                                   \
    extern char x##_ __attribute__((weak)), x __attribute__((weak)),                     \
        x##__ __attribute__((weak))
GS_SENTINEL(mpi_fortran_in_place);
GS_SENTINEL(mpi_fortran_bottom);
GS_SENTINEL(mpi_fortran_status_ignore);
GS_SENTINEL(mpi_fortran_statuses_ignore);
extern char MPI_FORTRAN_IN_PLACE __attribute__((weak)), MPI_FORTRAN_BOTTOM __attribute__((weak)),
    MPI_FORTRAN_STATUS_IGNORE __attribute__((weak)),
    MPI_FORTRAN_STATUSES_IGNORE __attribute__((weak));

static int is(const void *p, const char *a, const char *b, const char *c, const char *d)
{
    return p && (p == a || p == b || p == c || p == d);
}

const void *gs_fbuf(const void *f)
{
    if (is(f, &mpi_fortran_in_place_, &mpi_fortran_in_place, &mpi_fortran_in_place__,
           &MPI_FORTRAN_IN_PLACE))
        return MPI_IN_PLACE;
    if (is(f, &mpi_fortran_bottom_, &mpi_fortran_bottom, &mpi_fortran_bottom__,
           &MPI_FORTRAN_BOTTOM))
        return MPI_BOTTOM;
    return f;
}

int gs_fstatus_ignored(const MPI_Fint *f)
{
    return is(f, &mpi_fortran_status_ignore_, &mpi_fortran_status_ignore,
              &mpi_fortran_status_ignore__, &MPI_FORTRAN_STATUS_IGNORE);
}

int gs_fstatuses_ignored(const MPI_Fint *f)
{
    return is(f, &mpi_fortran_statuses_ignore_, &mpi_fortran_statuses_ignore,
              &mpi_fortran_statuses_ignore__, &MPI_FORTRAN_STATUSES_IGNORE);
}

/* How many entries a per-process or per-neighbour argument array has (the slots
 * mpi_bytes.c reads: every process, or 2*ndims / the degrees of the topology). */
static int slots(MPI_Comm comm, int neighbor)
{
    int n = 0;
    if (!neighbor) {
        PMPI_Comm_size(comm, &n);
        return n;
    }
    int topo = MPI_UNDEFINED, in = 0, out = 0, weighted = 0, me = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors_count(comm, me, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    return in > out ? in : out;
}

MPI_Datatype *gs_f2c_types(const MPI_Fint *f, MPI_Comm comm, int neighbor)
{
    int n = slots(comm, neighbor);
    MPI_Datatype *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    for (int i = 0; c && i < n; i++) c[i] = PMPI_Type_f2c(f[i]);
    return c;
}

char *gs_fstr(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ') len--;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    memcpy(s, f, len);
    s[len] = '\0';
    return s;
}
