/* Unit test of the settings (settings.h): defaults, good values, every kind of bad value
 * (one warning naming variable, value and what is allowed; then the fallback), and the
 * generated table against the algorithm registry. No MPI communication. */
#include <stdio.h>
#include <string.h>

#include "gsc_internal.h"
#include "settings.h"
#include "check.h"

/* a fake environment: "NAME=value" strings, NULL-terminated */
static const char *const *env;
static const char *lookup(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

static char lines[8][512];
static int nlines;
static void report(const char *line)
{
    if (nlines < 8) snprintf(lines[nlines], sizeof lines[0], "%s", line);
    nlines++;
}

static gsc_setting_val_t v[GSC_NSETTINGS];
static int read_env(const char *const *e)
{
    env = e;
    nlines = 0;
    return gsc_settings_read(lookup, v, report);
}

static void test_defaults(void)
{
    CHECK(read_env(NULL) == 0 && nlines == 0, "no warnings: %d", nlines);
    CHECK(v[GSC_SET_MODE].set && strcmp(v[GSC_SET_MODE].text, "vanilla") == 0, "mode %s",
          v[GSC_SET_MODE].text);
    CHECK(!v[GSC_SET_BCAST].set && !v[GSC_SET_SEGSIZE].set && !v[GSC_SET_WAN].set,
          "unset stays unset");
    CHECK(v[GSC_SET_LAN_WINDOW].num == 2 && v[GSC_SET_RING_MIN].num == 32768 &&
              v[GSC_SET_SLICE_CHUNK].num == 65536 && v[GSC_SET_ALLTOALL_DIRECT_MIN].num == 131072,
          "integer defaults");
    CHECK(strcmp(v[GSC_SET_ONE_SITE].text, "0") == 0 && strcmp(v[GSC_SET_WAN_PACE].text, "") == 0,
          "flags");
    /* an empty value is no value */
    const char *const empty[] = {"GRIDSCOPE_COLL=", "GRIDSCOPE_COLL_SEGSIZE=", NULL};
    CHECK(read_env(empty) == 0 && strcmp(v[GSC_SET_MODE].text, "vanilla") == 0 &&
              !v[GSC_SET_SEGSIZE].set, "empty = unset");
}

static void test_good(void)
{
    const char *const good[] = {"GRIDSCOPE_COLL=auto", "GRIDSCOPE_COLL_BCAST=multilane",
                                "GRIDSCOPE_COLL_SEGSIZE=4096", "GRIDSCOPE_COLL_RING_MIN=0",
                                "GRIDSCOPE_COLL_WAN_GRADED=16", "GRIDSCOPE_COLL_WAN_PACE=1",
                                "GRIDSCOPE_COLL_RULES=/some/where.rules",
                                "GRIDSCOPE_COLL_SLICE_CHUNK=1099511627776", NULL};
    CHECK(read_env(good) == 0 && nlines == 0, "good values: %d warnings (%s)", nlines, lines[0]);
    CHECK(strcmp(v[GSC_SET_MODE].text, "auto") == 0, "mode");
    CHECK(strcmp(v[GSC_SET_BCAST].text, "multilane") == 0, "bcast");
    CHECK(v[GSC_SET_SEGSIZE].set && v[GSC_SET_SEGSIZE].num == 4096, "segsize");
    CHECK(v[GSC_SET_RING_MIN].set && v[GSC_SET_RING_MIN].num == 0, "ring min 0 is allowed");
    CHECK(v[GSC_SET_WAN_GRADED].num == 16 && strcmp(v[GSC_SET_WAN_PACE].text, "1") == 0, "wan");
    CHECK(strcmp(v[GSC_SET_RULES].text, "/some/where.rules") == 0, "rules path");
    CHECK(v[GSC_SET_SLICE_CHUNK].num == 1099511627776LL, "largest slice chunk");
}

/* one bad NAME=VALUE: exactly one warning, holding want1 and want2; returns the value */
static const gsc_setting_val_t *bad(gsc_setting_id id, const char *assign, const char *want1,
                                    const char *want2)
{
    const char *const e[] = {assign, NULL};
    int n = read_env(e);
    CHECK(n == 1 && nlines == 1, "%s: %d bad, %d lines", assign, n, nlines);
    CHECK(strstr(lines[0], assign) && strstr(lines[0], want1) && strstr(lines[0], want2),
          "%s: warning '%s'", assign, lines[0]);
    return &v[id];
}

static void test_bad(void)
{
    const gsc_setting_val_t *x;
    x = bad(GSC_SET_SEGSIZE, "GRIDSCOPE_COLL_SEGSIZE=64k", "a whole number of bytes from 1 to",
            "using the default (unset)");
    CHECK(!x->set, "64k: unset");
    x = bad(GSC_SET_SEGSIZE, "GRIDSCOPE_COLL_SEGSIZE=0", "from 1 to", "default");
    CHECK(!x->set, "0 is below the minimum");
    x = bad(GSC_SET_SEGSIZE, "GRIDSCOPE_COLL_SEGSIZE=-4096", "from 1 to", "default");
    x = bad(GSC_SET_SEGSIZE, "GRIDSCOPE_COLL_SEGSIZE= 4096", "from 1 to", "default");
    x = bad(GSC_SET_SEGSIZE, "GRIDSCOPE_COLL_SEGSIZE=4096 ", "from 1 to", "default");
    x = bad(GSC_SET_SEGSIZE, "GRIDSCOPE_COLL_SEGSIZE=99999999999999999999999", "from 1 to",
            "default");
    CHECK(!x->set, "overflow: unset");
    x = bad(GSC_SET_LAN_WINDOW, "GRIDSCOPE_COLL_LAN_WINDOW=two", "segments", "using the default (2)");
    CHECK(x->num == 2, "window falls back to 2: %lld", x->num);
    x = bad(GSC_SET_WAN_GRADED, "GRIDSCOPE_COLL_WAN_GRADED=17", "chunks from 1 to 16", "unset");
    CHECK(!x->set, "17 graded chunks: unset");
    x = bad(GSC_SET_MODE, "GRIDSCOPE_COLL=bogus", "one of vanilla, topo, auto",
            "using the default (vanilla)");
    CHECK(strcmp(x->text, "vanilla") == 0, "bad mode: vanilla");
    x = bad(GSC_SET_ONE_SITE, "GRIDSCOPE_COLL_ONE_SITE=yes", "one of 0, 1", "default (0)");
    CHECK(strcmp(x->text, "0") == 0, "one site off");
    x = bad(GSC_SET_WAN_PACE, "GRIDSCOPE_COLL_WAN_PACE=2", "one of 0, 1", "default (unset)");
    CHECK(!x->set, "pace by the links");
    /* an unknown algorithm: that collective runs vanilla (not the mode's choice) */
    x = bad(GSC_SET_BCAST, "GRIDSCOPE_COLL_BCAST=nope", "one of vanilla, default, hier",
            "using vanilla");
    CHECK(x->set && strcmp(x->text, "vanilla") == 0, "unknown bcast algorithm: %s", x->text);
    /* several bad values: one line each, the good ones kept */
    const char *const mixed[] = {"GRIDSCOPE_COLL_ALLTOALL=fast", "GRIDSCOPE_COLL=topo",
                                 "GRIDSCOPE_COLL_RING_MIN=1e6", NULL};
    CHECK(read_env(mixed) == 2 && nlines == 2, "two bad: %d lines", nlines);
    CHECK(strcmp(v[GSC_SET_MODE].text, "topo") == 0 && strcmp(v[GSC_SET_ALLTOALL].text, "vanilla") == 0
              && v[GSC_SET_RING_MIN].num == 32768, "mixed values");
}

/* the declared algorithm names are the registry's, for every collective */
static void test_table_matches_registry(void)
{
    for (int op = 0; op < GSCOLL_NOPS; op++) {
        const char *name = GSColl_Op_name((GSColl_op)op);
        int id = gsc_setting_of_op(name);
        CHECK(id >= 0, "no GRIDSCOPE_COLL_<OP> setting for %s", name);
        if (id < 0) continue;
        const char *const *reg = GSColl_Algorithms((GSColl_op)op);
        const char *const *decl = gsc_setting_decls[id].choices;
        int k = 0;
        for (; reg[k] && decl[k]; k++)
            CHECK(strcmp(reg[k], decl[k]) == 0, "%s: registry %s, settings.toml %s", name, reg[k],
                  decl[k]);
        CHECK(!reg[k] && !decl[k], "%s: registry and settings.toml list different counts", name);
    }
    for (int i = 0; i < GSC_NSETTINGS; i++)
        CHECK(strncmp(gsc_setting_decls[i].name, "GRIDSCOPE_COLL", 14) == 0, "setting %d named %s", i,
              gsc_setting_decls[i].name);
}

int main(void)
{
    test_defaults();
    test_good();
    test_bad();
    test_table_matches_registry();
    if (failures) {
        fprintf(stderr, "test_settings: %d failures\n", failures);
        return 1;
    }
    printf("test_settings: ok\n");
    return 0;
}
