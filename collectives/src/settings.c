/* Reading and checking the settings (settings.h); the table is generated from
 * collectives/settings.toml. */
#include "settings.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in_choices(const char *const *choices, const char *v)
{
    for (; *choices; choices++)
        if (strcmp(*choices, v) == 0) return 1;
    return 0;
}

/* Decimal digits only (no sign, blank or suffix), within [min, max]. */
static int parse_integer(const char *v, long long min, long long max, long long *out)
{
    if (*v < '0' || *v > '9') return -1;
    for (const char *p = v; *p; p++)
        if (*p < '0' || *p > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || x > (unsigned long long)max || (long long)x < min) return -1;
    *out = (long long)x;
    return 0;
}

/* text as the declaration's default or fallback (already checked by the generator) */
static void take(const gsc_setting_decl_t *d, const char *text, gsc_setting_val_t *out)
{
    out->set = *text != '\0';
    out->text = text;
    out->num = d->type == GSC_TYPE_INTEGER && out->set ? strtoll(text, NULL, 10) : 0;
}

int gsc_setting_parse(const gsc_setting_decl_t *d, const char *raw, gsc_setting_val_t *out,
                      char *warn, size_t warn_len)
{
    if (!raw || !*raw) {
        take(d, d->dflt, out);
        return 0;
    }
    int ok = 1;
    long long num = 0;
    if (d->type == GSC_TYPE_CHOICE || d->type == GSC_TYPE_ALGORITHM)
        ok = in_choices(d->choices, raw);
    else if (d->type == GSC_TYPE_INTEGER)
        ok = parse_integer(raw, d->min, d->max, &num) == 0;
    if (ok) {
        out->set = 1;
        out->text = raw;
        out->num = num;
        return 0;
    }
    const char *fb = *d->fallback ? d->fallback : d->dflt;
    take(d, fb, out);
    if (*d->fallback)
        snprintf(warn, warn_len, "gridscope-coll: %s=%s: not %s; using %s", d->name, raw,
                 d->allowed, fb);
    else
        snprintf(warn, warn_len, "gridscope-coll: %s=%s: not %s; using the default (%s)",
                 d->name, raw, d->allowed, *fb ? fb : "unset");
    return -1;
}

int gsc_settings_read(const char *(*lookup)(const char *), gsc_setting_val_t *out,
                      void (*report)(const char *line))
{
    int bad = 0;
    for (int i = 0; i < GSC_NSETTINGS; i++) {
        char warn[512];
        if (gsc_setting_parse(&gsc_setting_decls[i], lookup(gsc_setting_decls[i].name), &out[i],
                              warn, sizeof warn) < 0) {
            bad++;
            report(warn);
        }
    }
    return bad;
}

int gsc_setting_of_op(const char *op_name)
{
    for (int i = 0; i < GSC_NSETTINGS; i++)
        if (gsc_setting_decls[i].type == GSC_TYPE_ALGORITHM &&
            strcmp(gsc_setting_decls[i].op, op_name) == 0)
            return i;
    return -1;
}

static const char *from_environment(const char *name)
{
    return getenv(name);
}

/* Every rank reads the same environment: one rank says what is wrong. */
static void report_once(const char *line)
{
    int up = 0, rank = 0;
    MPI_Initialized(&up);
    if (up) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) fprintf(stderr, "%s\n", line);
}

const gsc_setting_val_t *gsc_setting(gsc_setting_id id)
{
    static gsc_setting_val_t values[GSC_NSETTINGS];
    static int loaded;
    if (!loaded) {
        gsc_settings_read(from_environment, values, report_once);
        loaded = 1;
    }
    return &values[id];
}
