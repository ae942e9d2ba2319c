/* Where each rank's events end in a trace of a run that ended early (docs/collector.md,
 * "Memory, flushes, crashes"): read with libotf2 after the repair, one line per rank on
 * `out`, tab-separated:
 *
 *   RANK  KIND  EVENTS  END_S  REGION  STATUS  ENTER_S
 *
 * KIND: `complete` (the program's end recorded through MPI_Finalize), `flushed` (ended
 * early; its events were flushed up to its end: ProgramEnd with the crash path's exit
 * STATUS), `cut` (killed outright: the events up to its last buffer flush), `none` (no
 * event survived). END_S: seconds from the trace's start to its last event. REGION: the
 * innermost region open at the end ("-" if none). STATUS: ProgramEnd's exit status, or
 * "-". ENTER_S: when the rank entered REGION (seconds from the trace's start, "-" without
 * REGION). Returns the number of ranks, or -1 when the archive cannot be read. */
#ifndef GS_ENDS_H
#define GS_ENDS_H
#include <stdio.h>

int gs_trace_ends(const char *dir, FILE *out);
#endif
