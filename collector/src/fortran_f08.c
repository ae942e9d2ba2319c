/* mpi_f08 argument decoding and library entry points for the MPICH build (fortran_f08.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "fortran_f08.h"

/* MPICH's mpi_f08 MPI_STATUS(ES)_IGNORE are the objects mpi.h declares as
 * MPIR_F08_MPI_STATUS(ES)_IGNORE_OBJ; its f08 procedures compare the argument's address
 * with them (through the GOT, as this file does: both see the same definition). */

int gs_f08_status_ignored(const MPI_Status *f)
{
    return f && (const void *)f == (const void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ;
}

int gs_f08_statuses_ignored(const MPI_Status *f)
{
    return f && (const void *)f == (const void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
}

void *gs_f08_next(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "gridscope: %s: not defined by the MPI library's Fortran bindings\n",
                name);
        abort();
    }
    return p;
}
