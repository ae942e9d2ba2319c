#ifndef GS_OTF2COLL_H
#define GS_OTF2COLL_H
#include <mpi.h>
#include <otf2/otf2.h>
/* Makes comm the archive's collective context (the archive's processes). */
OTF2_ErrorCode gs_otf2_set_collectives(OTF2_Archive *archive, MPI_Comm comm);
#endif
