#ifndef GS_OTF2COLL_H
#define GS_OTF2COLL_H
#include <mpi.h>
#include <otf2/otf2.h>
/* Makes the processes ranks[0..n) of comm (the archive's, its master first) the archive's
 * collective context; me: this process's rank in comm. The callbacks use the collector's
 * tree collectives (toolcoll.h). */
OTF2_ErrorCode gs_otf2_set_collectives(OTF2_Archive *archive, MPI_Comm comm, const int *ranks,
                                       int n, int me);
#endif
