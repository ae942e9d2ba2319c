/* Rule table for GRIDSCOPE_COLL=auto (see rules.h). */
#include "rules.h"
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULES 256

typedef struct {
    char op[16];
    char layout[16];
    unsigned long long max_bytes;
    char algo[32];
} rule_t;

static rule_t rules[MAX_RULES];
static int nrules = -1; /* -1: not loaded */
static char bad[512];
static const char *path;

const char *gsc_rules_path(void)
{
    return path ? path : "GRIDSCOPE_COLL_RULES";
}

int gsc_rules_parse(const char *text, const char *source, char *err, size_t err_len)
{
    int n = 0, line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char buf[256];
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        char op[64], layout[64], maxb[64], algo[64], extra[8];
        int k = sscanf(buf, "%63s %63s %63s %63s %7s", op, layout, maxb, algo, extra);
        if (k > 0) {
            if (k != 4) {
                snprintf(err, err_len, "%s:%d: want '<op> <layout> <max_bytes> <algorithm>'",
                         source, line);
                return -1;
            }
            if (strcmp(layout, "block") && strcmp(layout, "interleaved") && strcmp(layout, "any")) {
                snprintf(err, err_len, "%s:%d: layout '%s' is not block, interleaved or any",
                         source, line, layout);
                return -1;
            }
            unsigned long long mb;
            if (strcmp(maxb, "inf") == 0)
                mb = ~0ULL;
            else {
                char *end;
                errno = 0;
                mb = strtoull(maxb, &end, 10);
                if (*end || errno || maxb[0] == '-') {
                    snprintf(err, err_len, "%s:%d: max_bytes '%s' is not a byte count or inf",
                             source, line, maxb);
                    return -1;
                }
            }
            if (n == MAX_RULES || strlen(op) >= 16 || strlen(algo) >= 32) {
                snprintf(err, err_len, "%s:%d: too many rules or names too long", source, line);
                return -1;
            }
            strcpy(rules[n].op, op);
            strcpy(rules[n].layout, layout);
            rules[n].max_bytes = mb;
            strcpy(rules[n].algo, algo);
            n++;
        }
        if (!eol) break;
        p = eol + 1;
    }
    nrules = n;
    return n;
}

const char *gsc_rules_lookup(const char *op, int contiguous, size_t bytes)
{
    const char *layout = contiguous ? "block" : "interleaved";
    for (int i = 0; i < nrules; i++)
        if (strcmp(rules[i].op, op) == 0 &&
            (strcmp(rules[i].layout, layout) == 0 || strcmp(rules[i].layout, "any") == 0) &&
            (unsigned long long)bytes <= rules[i].max_bytes)
            return rules[i].algo;
    return NULL;
}

static void load(void)
{
    path = gsc_setting_text(GSC_SET_RULES);
    nrules = 0;
    if (!*path) {
        path = NULL;
        return;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(bad, sizeof bad, "%s: cannot read the rule table: %s", path, strerror(errno));
        return;
    }
    size_t cap = 1 << 16;
    char *text = malloc(cap);
    size_t got = text ? fread(text, 1, cap - 1, f) : 0;
    fclose(f);
    if (!text) return;
    text[got] = '\0';
    if (gsc_rules_parse(text, path, bad, sizeof bad) < 0) nrules = 0;
    free(text);
}

const char *gsc_rules_choose(const char *op, int contiguous, size_t bytes, char *err,
                            size_t err_len)
{
    if (nrules < 0) load();
    if (bad[0]) {
        snprintf(err, err_len, "%s", bad);
        return NULL;
    }
    return gsc_rules_lookup(op, contiguous, bytes);
}
