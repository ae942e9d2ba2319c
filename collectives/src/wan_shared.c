/* Routes for collectives in which every metahost sends its data to every other metahost
 * (allgather, allreduce): a relay forwards what it receives for itself (see wan.h,
 * gsc_wan_plan_shared). Plain arithmetic, unit-tested in gscoll_unit. */
#include "wan.h"

#include <stdlib.h>
#include <string.h>

/* More metahosts than this: every flow direct (the search below grows as k^6). */
#define SHARED_MAX_SITES 8

typedef struct {
    const gsc_wan_t *w;
    const double *bytes; /* per metahost */
    const int *units;    /* per metahost: its data in units */
    int *via;            /* via[(S * k + D) * k + R]: S's units for D through R (R == D: direct) */
    double *load;        /* per link a * k + b, bytes */
} shared_t;

static double unit_bytes(const shared_t *s, int S)
{
    return s->units[S] ? s->bytes[S] / s->units[S] : 0.0;
}

static void loads(shared_t *s)
{
    int k = s->w->k;
    memset(s->load, 0, sizeof(double) * (size_t)(k * k));
    for (int S = 0; S < k; S++)
        for (int D = 0; D < k; D++) {
            if (S == D) continue;
            const int *v = s->via + (S * k + D) * k;
            for (int R = 0; R < k; R++)
                if (R == D)
                    s->load[S * k + D] += v[R] * unit_bytes(s, S);
                else if (R != S)
                    s->load[R * k + D] += v[R] * unit_bytes(s, S); /* S -> R is S's own flow */
        }
}

/* When D has all of S's data: every path the flow uses, its latency plus the time its links
 * need for all they carry; a relayed share rides on S -> R, which R receives at that link's
 * pace, and leaves R at R -> D's (pipelined, chunk by chunk). */
static double finish(const shared_t *s, int S, int D)
{
    const gsc_wan_t *w = s->w;
    int k = w->k;
    const int *v = s->via + (S * k + D) * k;
    double worst = 0;
    for (int R = 0; R < k; R++) {
        if (R == S || (!v[R] && !(R == D && !s->units[S]))) continue;
        double t;
        if (R == D) {
            t = w->lat[S * k + D] + s->load[S * k + D] / w->bw[S * k + D];
        } else {
            double a = s->load[S * k + R] / w->bw[S * k + R];
            double b = s->load[R * k + D] / w->bw[R * k + D];
            t = w->lat[S * k + R] + w->lat[R * k + D] + (a > b ? a : b);
        }
        if (t > worst) worst = t;
    }
    return worst;
}

static double worst_pair(const shared_t *s, int *wS, int *wD)
{
    int k = s->w->k;
    double m = -1;
    for (int S = 0; S < k; S++)
        for (int D = 0; D < k; D++) {
            if (S == D) continue;
            double f = finish(s, S, D);
            if (f > m + 1e-12) {
                m = f;
                *wS = S;
                *wD = D;
            }
        }
    return m;
}

/* R may relay S's data for D when S -> R stays whole and direct, and S -> D is no first hop
 * of another of S's relayed shares (that one must stay direct too). */
static int may_relay(const shared_t *s, int S, int D, int R)
{
    int k = s->w->k;
    if (s->via[(S * k + R) * k + R] != s->units[S]) return 0;
    for (int X = 0; X < k; X++)
        if (X != S && X != D && s->via[(S * k + X) * k + D]) return 0;
    return 1;
}

int gsc_wan_plan_shared(const gsc_wan_t *w, const double *bytes, const int *units, int *via)
{
    int k = w->k, changed = 0;
    memset(via, 0, sizeof(int) * (size_t)(k * k * k));
    for (int S = 0; S < k; S++)
        for (int D = 0; D < k; D++)
            if (S != D) via[(S * k + D) * k + D] = units[S];
    if (k < 3 || k > SHARED_MAX_SITES) return 0;
    double *load = malloc(sizeof(double) * (size_t)(k * k));
    if (!load) return 0;
    shared_t s = {w, bytes, units, via, load};
    /* greedy: move units of the flow that ends last from its direct link to the relay that
     * most lowers the plan's end (or, at an equal end, the flow's own); stop when no move
     * helps. Units only ever leave the direct link, so this ends. */
    for (;;) {
        int S = 0, D = 0;
        loads(&s);
        double before = worst_pair(&s, &S, &D), own = finish(&s, S, D);
        int *v = via + (S * k + D) * k, best = -1;
        double best_end = before, best_own = own;
        int step = 0;
        for (int R = 0; R < k && v[D] > 0; R++) {
            if (R == S || R == D || !may_relay(&s, S, D, R)) continue;
            /* 1, 2, 4 ... units, and every unit still direct: the step that ends the plan
             * soonest (a path that is only quicker by its latency gains nothing until the
             * direct link is left altogether; a large step may overshoot) */
            for (int n = 1; n <= v[D]; n = n == v[D] ? n + 1 : 2 * n < v[D] ? 2 * n : v[D]) {
                v[D] -= n;
                v[R] += n;
                loads(&s);
                int a, b;
                double end = worst_pair(&s, &a, &b), mine = finish(&s, S, D);
                if (end < best_end - 1e-12 ||
                    (end <= best_end + 1e-12 && mine < best_own - 1e-12)) {
                    best = R;
                    step = n;
                    best_end = end;
                    best_own = mine;
                }
                v[R] -= n;
                v[D] += n;
            }
        }
        if (best < 0) break;
        v[D] -= step;
        v[best] += step;
        changed = 1;
    }
    free(load);
    return changed;
}
