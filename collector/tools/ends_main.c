/* gridscope-trace-ends DIR: where each rank's events end (ends.h), read only; used by
 * `gridscope analyze` on traces of runs that ended early. Exit 0, or 1 with one line on
 * stderr when the trace cannot be read. */
#include <stdarg.h>
#include <stdio.h>

#include <otf2/otf2.h>

#include "ends.h"

static OTF2_ErrorCode quiet(void *data, const char *file, uint64_t line, const char *func,
                            OTF2_ErrorCode code, const char *msg, va_list va)
{
    (void)data, (void)file, (void)line, (void)func, (void)msg, (void)va;
    return code;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gridscope-trace-ends TRACE_DIR\n");
        return 2;
    }
    OTF2_Error_RegisterCallback(quiet, NULL);
    if (gs_trace_ends(argv[1], stdout) < 0) {
        fprintf(stderr, "gridscope: %s: cannot read the trace\n", argv[1]);
        return 1;
    }
    return 0;
}
