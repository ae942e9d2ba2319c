/* Minimal assertions for the collector's unit tests: report every failure, exit 1. */
#ifndef GS_CHECK_H
#define GS_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
static int gs_failures;
#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            gs_failures++;                                                            \
        }                                                                             \
    } while (0)
#define CHECK_EQ_U64(a, b)                                                                 \
    do {                                                                                   \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                  \
        if (a_ != b_) {                                                                    \
            fprintf(stderr, "%s:%d: %s == %" PRIu64 ", want %" PRIu64 "\n", __FILE__,   \
                    __LINE__, #a, a_, b_);                                                 \
            gs_failures++;                                                                 \
        }                                                                                  \
    } while (0)
#define CHECK_DONE()                                                             \
    do {                                                                         \
        if (gs_failures) fprintf(stderr, "%d check(s) failed\n", gs_failures); \
        return gs_failures ? 1 : 0;                                              \
    } while (0)
#endif
