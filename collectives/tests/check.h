/* The collectives' C unit tests' one assertion: CHECK(cond, fmt, ...) counts a failure in
 * `failures` and names the line, the condition and what was found, then goes on (so one
 * run shows every failing case). Each test's main returns failures != 0. */
#ifndef GSC_TESTS_CHECK_H
#define GSC_TESTS_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                                      \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

#endif
