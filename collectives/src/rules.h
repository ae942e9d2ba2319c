/* The rule table `auto` reads (GRIDSCOPE_COLL_RULES). One rule per line:
 *     <op> <layout> <max_bytes> <algorithm>
 * op: bcast, reduce, ...; layout: block (every metahost a contiguous block of ranks),
 * interleaved, or any; max_bytes: an integer or "inf". For a call, the first rule of its op
 * and layout with bytes <= max_bytes wins; none: vanilla. '#' starts a comment. */
#ifndef GS_RULES_H
#define GS_RULES_H
#include <stddef.h>

/* Algorithm name, or NULL (vanilla). On a bad table NULL and a one-line message in err. */
const char *gsc_rules_choose(const char *op, int contiguous, size_t bytes, char *err,
                            size_t err_len);
const char *gsc_rules_path(void);
/* Parses text (for tests): returns the number of rules, -1 with err on a bad line. */
int gsc_rules_parse(const char *text, const char *source, char *err, size_t err_len);
const char *gsc_rules_lookup(const char *op, int contiguous, size_t bytes);
#endif
