/* Private to the measurement core (core.c): the start-up checks and inputs of
 * core_checks.c. */
#ifndef GS_CORE_CHECKS_H
#define GS_CORE_CHECKS_H
#include <stddef.h>
#include <stdint.h>

/* Start-up checks fail in stages (metahost, folder, buffer, archive); the first stage
 * that fails anywhere is reported by its lowest failing rank, in one line. key: this
 * rank's stage * size + rank, or -1 if it passed; returns whether any rank failed. */
int gs_agree_failure(int64_t key, int64_t first, const char *msg);
int64_t gs_failure_key(int stage);
int gs_mkdir_p(const char *path);
/* The trace folder: GRIDSCOPE_TRACE_DIR, "%m" replaced by the metahost name (one archive
 * part per metahost, for machines without a shared file system). */
int gs_trace_folder(char *out, size_t len, const char *metahost, int *parts);
int gs_check_folder(const char *dir, char *err, size_t err_len);
void gs_parse_skew(const char *metahost);
void gs_read_cmdline(int *argc, char ***argv, char **name, int *nargs, char ***args);

#endif
