/* Helpers of the Fortran entry points of the Open MPI build (generated fwrappers.c,
 * docs/collector.md "Fortran"): Open MPI's Fortran bindings call PMPI_ directly, so the
 * collector wraps their entry points, decodes the arguments its events need and calls
 * the library's own Fortran binding for the work. */
#ifndef GS_FORTRAN_H
#define GS_FORTRAN_H
#include <mpi.h>
#include <stddef.h>

/* A Fortran status is MPI_Status's memory seen as MPI_Fints (Open MPI: 6). */
#define GS_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* A Fortran buffer argument as C sees it: Fortran's MPI_IN_PLACE and MPI_BOTTOM are
 * addresses of common blocks, mapped to C's constants. */
const void *gs_fbuf(const void *f);
/* A CHARACTER argument of `len` characters as a C string, trailing blanks removed (malloc'ed). */
char *gs_fstr(const char *f, size_t len);
/* Whether a Fortran status (array) argument is MPI_STATUS(ES)_IGNORE. */
int gs_fstatus_ignored(const MPI_Fint *f);
int gs_fstatuses_ignored(const MPI_Fint *f);
/* The C datatypes of a Fortran array of datatypes with one entry per process of comm
 * (neighbor = 0) or per neighbourhood slot of its topology (neighbor = 1); malloc'ed. */
MPI_Datatype *gs_f2c_types(const MPI_Fint *f, MPI_Comm comm, int neighbor);

#endif
