/* MPICH's launcher (hydra) SIGKILLs every other process of the job the moment one ends
 * abnormally (MPI_Abort, a fatal signal, exit without MPI_Finalize), so without help
 * their events still in memory, and the archive master's side file, were lost. The
 * process that ends first asks the other ranks on its host to flush (SIGTERM, which
 * their handlers turn into a crash flush) and leaves only when each has written its
 * side file or is gone; a rank asked this way waits after its flush to be killed.
 * Open MPI's mpirun sends SIGTERM itself and waits (odls_base_sigkill_timeout), so
 * this is the MPICH build's only (GS_MPICH). docs/collector.md, "Memory, flushes,
 * crashes". */
#ifndef GS_PEERS_H
#define GS_PEERS_H
#include <mpi.h>
#include <stddef.h>
#include <sys/types.h>

/* At MPI_Init (collective on comm): learns the processes of the other ranks on this
 * host (hosts: name_len bytes per rank). A no-op outside the MPICH build. */
void gs_peers_init(MPI_Comm comm, int rank, int size, const char *hosts, size_t name_len);
/* Whether pid is one of those processes. */
int gs_peers_is_peer(pid_t pid);
/* Asks them to flush and waits until each has left traces/<rank>.gsunify in dir (or,
 * with wait_files == 0, has ended), at most about max_ms milliseconds in all. */
void gs_peers_flush_and_wait(const char *dir, int wait_files, int max_ms);
#endif
