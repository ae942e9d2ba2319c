/* Metahost resolution (see include/gridscope/metahost.h and docs/metahosts.md).
 * Plain C, no MPI: used by the collector and by the collectives library. */
#define _GNU_SOURCE
#include "gridscope/metahost.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SimGrid: weak references, non-NULL only when the program runs under SMPI (libsimgrid
 * loaded). The englobing zone has no C accessor in SimGrid 3.32, so the s4u member
 * function is bound by its Itanium-ABI name (a const method taking only `this`). */
extern void *sg_host_self(void) __attribute__((weak));
extern const char *sg_zone_get_name(const void *zone) __attribute__((weak));
extern const void *gs_sg_host_englobing_zone(const void *host)
    __asm__("_ZNK7simgrid3s4u4Host18get_englobing_zoneEv") __attribute__((weak));

static void set_err(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static int copy_name(const char *value, char *name, size_t name_len, char *err, size_t err_len)
{
    if (strlen(value) + 1 > name_len) {
        set_err(err, err_len, "metahost name '%s' is longer than %zu characters", value,
                name_len - 1);
        return -1;
    }
    memcpy(name, value, strlen(value) + 1);
    return 0;
}

/* ---- a small JSON reader for {"name": "sel" | ["sel", ...], ...} ---- */

typedef struct {
    const char *p;
    const char *src;
    char *err;
    size_t err_len;
} parser_t;

static void skip_ws(parser_t *ps)
{
    while (*ps->p && isspace((unsigned char)*ps->p)) ps->p++;
}

static int fail(parser_t *ps, const char *what)
{
    set_err(ps->err, ps->err_len, "%s: not a valid metahost map: %s", ps->src, what);
    return -1;
}

/* Reads a JSON string into a malloc'd buffer; returns NULL on error. */
static char *read_string(parser_t *ps)
{
    skip_ws(ps);
    if (*ps->p != '"') {
        fail(ps, "expected a string");
        return NULL;
    }
    ps->p++;
    size_t cap = 32, n = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    while (*ps->p && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\') {
            char e = *ps->p++;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *ps->p++;
                    if (!isxdigit((unsigned char)h)) {
                        free(out);
                        fail(ps, "bad \\u escape");
                        return NULL;
                    }
                    v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0'
                                                                       : (tolower(h) - 'a' + 10));
                }
                if (v >= 0x80) {
                    free(out);
                    fail(ps, "non-ASCII \\u escape");
                    return NULL;
                }
                c = (char)v;
                break;
            }
            default:
                free(out);
                fail(ps, "bad escape in string");
                return NULL;
            }
        } else if ((unsigned char)c < 0x20) {
            free(out);
            fail(ps, "control character in string");
            return NULL;
        }
        if (n + 2 > cap) {
            cap *= 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        out[n++] = c;
    }
    if (*ps->p != '"') {
        free(out);
        fail(ps, "unterminated string");
        return NULL;
    }
    ps->p++;
    out[n] = '\0';
    return out;
}

/* Selector check; returns 1 match, 0 no match, -1 invalid selector. */
static int selector_matches(parser_t *ps, const char *sel, int rank, const char *host)
{
    if (!*sel) return fail(ps, "empty selector");
    if (strncmp(sel, "rank:", 5) == 0) {
        const char *q = sel + 5;
        char *end;
        if (!isdigit((unsigned char)*q)) goto bad;
        long lo = strtol(q, &end, 10), hi = lo;
        if (*end == '-') {
            q = end + 1;
            if (!isdigit((unsigned char)*q)) goto bad;
            hi = strtol(q, &end, 10);
        }
        if (*end) goto bad;
        if (hi < lo) {
            set_err(ps->err, ps->err_len, "%s: empty rank range '%s'", ps->src, sel);
            return -1;
        }
        return rank >= lo && rank <= hi;
    bad:
        set_err(ps->err, ps->err_len, "%s: bad rank selector '%s' (want rank:LO-HI)", ps->src,
                sel);
        return -1;
    }
    return fnmatch(sel, host ? host : "", 0) == 0;
}

int gs_metahost_from_map_text(const char *json, const char *source, int world_rank,
                              const char *hostname, char *name, size_t name_len, char *err,
                              size_t err_len)
{
    parser_t ps = {json, source ? source : "<map>", err, err_len};
    char *found = NULL;
    int entries = 0;
    skip_ws(&ps);
    if (*ps.p != '{') return fail(&ps, "a metahost map is a non-empty JSON object");
    ps.p++;
    skip_ws(&ps);
    if (*ps.p == '}') return fail(&ps, "a metahost map is a non-empty JSON object");
    for (;;) {
        char *key = read_string(&ps);
        if (!key) goto error;
        if (!*key || strchr(key, '/')) {
            set_err(err, err_len, "%s: bad metahost name '%s'", ps.src, key);
            free(key);
            goto error;
        }
        skip_ws(&ps);
        if (*ps.p != ':') {
            free(key);
            fail(&ps, "expected ':'");
            goto error;
        }
        ps.p++;
        skip_ws(&ps);
        int is_list = *ps.p == '[', matched = 0, nsel = 0;
        if (is_list) {
            ps.p++;
            skip_ws(&ps);
        }
        while (!is_list || *ps.p != ']') {
            char *sel = read_string(&ps);
            if (!sel) {
                free(key);
                goto error;
            }
            int m = selector_matches(&ps, sel, world_rank, hostname);
            free(sel);
            if (m < 0) {
                free(key);
                goto error;
            }
            matched |= m;
            nsel++;
            if (!is_list) break;
            skip_ws(&ps);
            if (*ps.p == ',') {
                ps.p++;
                continue;
            }
            if (*ps.p != ']') {
                free(key);
                fail(&ps, "expected ',' or ']'");
                goto error;
            }
        }
        if (is_list) ps.p++;
        if (nsel == 0) {
            set_err(err, err_len, "%s: metahost '%s' needs a list of selectors", ps.src, key);
            free(key);
            goto error;
        }
        entries++;
        if (matched && !found)
            found = key;
        else
            free(key);
        skip_ws(&ps);
        if (*ps.p == ',') {
            ps.p++;
            continue;
        }
        if (*ps.p == '}') break;
        fail(&ps, "expected ',' or '}'");
        goto error;
    }
    ps.p++;
    skip_ws(&ps);
    if (*ps.p) {
        fail(&ps, "text after the JSON object");
        goto error;
    }
    if (!found) return 0;
    int rc = copy_name(found, name, name_len, err, err_len);
    free(found);
    return rc < 0 ? -1 : 1;
error:
    free(found);
    return -1;
}

static char *read_file(const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_len, "%s: cannot read metahost map: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            } else
                buf = grown;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        set_err(err, err_len, "%s: cannot read metahost map", path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static const char *simulated_zone_name(void)
{
    if (!sg_host_self || !sg_zone_get_name || !gs_sg_host_englobing_zone) return NULL;
    void *host = sg_host_self();
    if (!host) return NULL;
    const void *zone = gs_sg_host_englobing_zone(host);
    return zone ? sg_zone_get_name(zone) : NULL;
}

int gs_metahost_resolve(int world_rank, const char *hostname, char *name, size_t name_len,
                        char *err, size_t err_len)
{
    if (err && err_len) err[0] = '\0';
    const char *env = getenv(GS_METAHOST_ENV);
    if (env && *env) return copy_name(env, name, name_len, err, err_len);

    const char *map = getenv(GS_METAHOST_MAP_ENV);
    if (map && *map) {
        char *text = read_file(map, err, err_len);
        if (!text) return -1;
        int rc = gs_metahost_from_map_text(text, map, world_rank, hostname, name, name_len, err,
                                           err_len);
        free(text);
        if (rc == 0)
            set_err(err, err_len, "%s: no metahost matches rank %d on host '%s'", map,
                    world_rank, hostname ? hostname : "");
        return rc == 1 ? 0 : -1;
    }

    const char *zone = simulated_zone_name();
    if (zone && *zone) return copy_name(zone, name, name_len, err, err_len);
    return copy_name(GS_METAHOST_DEFAULT, name, name_len, err, err_len);
}
