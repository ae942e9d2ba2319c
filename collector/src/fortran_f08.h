/* Helpers of the MPICH build's mpi_f08 entry points (generated f08wrappers.c,
 * docs/collector.md "Fortran"): MPICH's mpi_f08 procedures without choice buffers call
 * PMPI_ directly, so the collector wraps them and calls the library's own entry point. */
#ifndef GS_FORTRAN_F08_H
#define GS_FORTRAN_F08_H
#include <mpi.h>

/* Whether an mpi_f08 status (array) argument is MPI_STATUS(ES)_IGNORE: the address of
 * MPICH's MPIR_F08_MPI_STATUS(ES)_IGNORE_OBJ, as MPICH's own f08 procedures compare. */
int gs_f08_status_ignored(const MPI_Status *f);
int gs_f08_statuses_ignored(const MPI_Status *f);
/* The definition of the Fortran entry point `name` that follows the collector's
 * (dlsym(RTLD_NEXT): the MPI library's); aborts with one line if there is none. */
void *gs_f08_next(const char *name);

#endif
