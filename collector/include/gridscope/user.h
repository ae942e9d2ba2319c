/* gridscope user regions: mark parts of a program so they appear in the trace.
 *
 *   #include <gridscope/user.h>
 *   GS_REGION_BEGIN("solver");
 *   ...
 *   GS_REGION_END("solver");
 *
 * Regions must nest properly (end the innermost first). Outside a measured run (no
 * collector linked or preloaded) the macros cost one function call and do nothing.
 * Link: the collector defines the functions; without it, define GS_USER_DISABLE.
 */
#ifndef GRIDSCOPE_USER_H
#define GRIDSCOPE_USER_H

#ifdef __cplusplus
extern "C" {
#endif

void gs_user_region_begin(const char *name) __attribute__((weak));
void gs_user_region_end(const char *name) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#ifdef GS_USER_DISABLE
#define GS_REGION_BEGIN(name) ((void)0)
#define GS_REGION_END(name) ((void)0)
#else
/* Weak references: a program built with these macros also runs without the collector. */
#define GS_REGION_BEGIN(name) \
    do { if (gs_user_region_begin) gs_user_region_begin(name); } while (0)
#define GS_REGION_END(name) \
    do { if (gs_user_region_end) gs_user_region_end(name); } while (0)
#endif

#endif
