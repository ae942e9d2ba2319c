/* Run-time choice of an algorithm: forced (GSColl_Force) > GRIDSCOPE_COLL_<OP> >
 * GRIDSCOPE_COLL (vanilla | topo | auto). auto reads a rule table measured on the platform
 * (GRIDSCOPE_COLL_RULES, see rules.c). Communicators that are not grid-spanning (one
 * metahost), intercommunicators and size-1 communicators run vanilla. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"
#include "rules.h"
#include "settings.h"

int gsc_in_collective;
static const char *forced[GSCOLL_NOPS];
static const char *last[GSCOLL_NOPS];

static void die(MPI_Comm comm, const char *msg)
{
    fprintf(stderr, "gridscope-coll: %s\n", msg);
    PMPI_Abort(comm, 2);
}

int GSColl_Force(GSColl_op op, const char *algorithm)
{
    if (op < 0 || op >= GSCOLL_NOPS) return -1;
    if (algorithm && !gsc_registry_find(op, algorithm)) return -1;
    forced[op] = algorithm;
    return 0;
}

const char *GSColl_Last_algorithm(GSColl_op op)
{
    return op >= 0 && op < GSCOLL_NOPS ? last[op] : NULL;
}

void gsc_note_last(GSColl_op op, const char *name)
{
    last[op] = name;
}

/* GRIDSCOPE_COLL_<OP>, or NULL when unset (an unknown name already became vanilla) */
static const char *env_choice(GSColl_op op)
{
    int id = gsc_setting_of_op(GSColl_Op_name(op));
    return id >= 0 && gsc_setting_set((gsc_setting_id)id) ? gsc_setting_text((gsc_setting_id)id)
                                                          : NULL;
}

static int one_site_enabled(void)
{
    return strcmp(gsc_setting_text(GSC_SET_ONE_SITE), "1") == 0;
}

const gsc_algo_t *gsc_select(GSColl_op op, MPI_Comm comm, size_t bytes, gsc_topo_t **topo)
{
    char msg[512];
    *topo = NULL;
    (void)gsc_setting(GSC_SET_MODE); /* the first call reads and checks every setting */
    const char *name = forced[op] ? forced[op] : env_choice(op);
    int automatic = 0;
    if (!name) {
        const char *mode = gsc_setting_text(GSC_SET_MODE); /* checked: vanilla, topo or auto */
        if (strcmp(mode, "topo") == 0)
            name = "default";
        else if (strcmp(mode, "auto") == 0)
            automatic = 1;
        else
            name = "vanilla";
    }
    const gsc_algo_t *a = NULL;
    if (!automatic) {
        /* the settings table holds the registry's names (collectives.unit checks) */
        a = gsc_registry_find(op, name);
        if (!a || gsc_algo_is_vanilla(a)) return &gsc_vanilla;
    }
    int inter = 0, size = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) return &gsc_vanilla;
    PMPI_Comm_size(comm, &size);
    if (size < 2) return &gsc_vanilla;
    gsc_topo_t *t = gsc_topo_get(comm);
    if (!t) return &gsc_vanilla;
    if (t->nmeta < 2) {
        /* one metahost: vanilla, unless a named one-site algorithm is asked for there (the
         * same choice on every rank, so all or none take part in the dup) */
        if (automatic || !a->one_site || !one_site_enabled()) return &gsc_vanilla;
        if (t->coll_comm == MPI_COMM_NULL) PMPI_Comm_dup(comm, &t->coll_comm);
    }
    if (automatic) {
        char err[512] = "";
        const char *choice = gsc_rules_choose(GSColl_Op_name(op), t->contiguous, bytes, err,
                                             sizeof err);
        if (!choice) {
            if (err[0]) die(comm, err);
            return &gsc_vanilla;
        }
        a = gsc_registry_find(op, choice);
        if (!a) {
            snprintf(msg, sizeof msg, "%s: unknown algorithm '%s' for %s", gsc_rules_path(),
                     choice, GSColl_Op_name(op));
            die(comm, msg);
        }
        if (gsc_algo_is_vanilla(a)) return &gsc_vanilla;
    }
    *topo = t;
    return a;
}

int GSColl_Metahosts(MPI_Comm comm)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) return -1;
    gsc_topo_t *t = gsc_topo_get(comm);
    return t ? t->nmeta : -1;
}
