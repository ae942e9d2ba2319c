/* gridscope: which metahost (cluster of a metacomputer) a process belongs to.
 *
 * Resolution order (docs/metahosts.md):
 *   1. env GRIDSCOPE_METAHOST (the name itself);
 *   2. the JSON map file named by env GRIDSCOPE_METAHOST_MAP,
 *      {"metahost": ["host-glob", "rank:LO-HI", ...], ...}; first metahost in file
 *      order with a matching selector wins (same rules as gridscope/metahosts.py);
 *   3. under SimGrid SMPI: the name of the netzone englobing the simulated host;
 *   4. otherwise the single metahost "default".
 * Needs no MPI: callers pass their MPI_COMM_WORLD rank and hostname.
 */
#ifndef GRIDSCOPE_METAHOST_H
#define GRIDSCOPE_METAHOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_METAHOST_ENV "GRIDSCOPE_METAHOST"
#define GS_METAHOST_MAP_ENV "GRIDSCOPE_METAHOST_MAP"
#define GS_METAHOST_DEFAULT "default"

/* Writes the metahost name of (world_rank, hostname) into name (NUL-terminated).
 * Returns 0 on success; -1 with a one-line message in err when the map file is
 * unreadable or invalid, matches nothing, or the name does not fit. */
int gs_metahost_resolve(int world_rank, const char *hostname, char *name, size_t name_len,
                        char *err, size_t err_len);

/* Same as step 2 on a map given as JSON text (source names it in messages).
 * Returns 1 when a metahost matched, 0 when none did, -1 on a parse error. */
int gs_metahost_from_map_text(const char *json, const char *source, int world_rank,
                              const char *hostname, char *name, size_t name_len,
                              char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
