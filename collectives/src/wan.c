/* WAN graph and routes (see wan.h). */
#include "wan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a path that would carry less than this share of a flow is not worth a message */
#define MIN_SHARE 0.02
/* a split plan is used only when the model says it beats the direct one by this much */
#define SPLIT_GAIN 0.95

void gsc_wan_free(gsc_wan_t *w)
{
    free(w->lat);
    free(w->bw);
    free(w->lan_lat);
    free(w->lan_bw);
    w->lat = w->bw = w->lan_lat = w->lan_bw = NULL;
    w->k = 0;
}

static int site_index(const char *const *names, int k, const char *name)
{
    for (int i = 0; i < k; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int gsc_wan_parse(const char *text, const char *source, const char *const *names, int k,
                  gsc_wan_t *w, char *err, size_t err_len)
{
    memset(w, 0, sizeof *w);
    if (k < 1 || k > GSC_WAN_MAX_SITES) {
        snprintf(err, err_len, "%s: %d metahosts (at most %d)", source, k, GSC_WAN_MAX_SITES);
        return -1;
    }
    w->k = k;
    w->lat = calloc((size_t)k * k, sizeof(double));
    w->bw = calloc((size_t)k * k, sizeof(double));
    w->lan_lat = calloc((size_t)k, sizeof(double));
    w->lan_bw = calloc((size_t)k, sizeof(double));
    if (!w->lat || !w->bw || !w->lan_lat || !w->lan_bw) {
        snprintf(err, err_len, "%s: out of memory", source);
        gsc_wan_free(w);
        return -1;
    }
    for (int i = 0; i < k * k; i++) w->lat[i] = -1.0;
    int line = 0;
    for (const char *p = text; *p;) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char buf[512], a[256], b[256], ls[64], bs[64], extra[8];
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        int got = sscanf(buf, "%255s %255s %63s %63s %7s", a, b, ls, bs, extra);
        if (got > 0) {
            char *e1, *e2;
            errno = 0;
            double lat = got == 4 ? strtod(ls, &e1) : 0, bw = got == 4 ? strtod(bs, &e2) : 0;
            if (got != 4 || *e1 || *e2 || errno || !(lat >= 0) || !(bw > 0) || isinf(lat) ||
                isinf(bw)) {
                snprintf(err, err_len,
                         "%s:%d: want '<from> <to> <latency-s> <bandwidth-B/s>' with latency "
                         ">= 0 and bandwidth > 0",
                         source, line);
                gsc_wan_free(w);
                return -1;
            }
            int ia = site_index(names, k, a), ib = site_index(names, k, b);
            if (ia >= 0 && ib >= 0 && ia != ib) {
                w->lat[ia * k + ib] = lat;
                w->bw[ia * k + ib] = bw;
            } else if (ia >= 0 && ia == ib) {
                w->lan_lat[ia] = lat;
                w->lan_bw[ia] = bw;
            }
        }
        if (!eol) break;
        p = eol + 1;
    }
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
            if (a != b && w->lat[a * k + b] < 0) {
                snprintf(err, err_len, "%s: no link from metahost %s to %s", source, names[a],
                         names[b]);
                gsc_wan_free(w);
                return -1;
            }
    for (int a = 0; a < k; a++) w->lat[a * k + a] = 0.0;
    return 0;
}

void gsc_wan_shortest(const gsc_wan_t *w, double *dist, int *next)
{
    int k = w->k;
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) {
            dist[a * k + b] = a == b ? 0.0 : w->lat[a * k + b];
            next[a * k + b] = b;
        }
    for (int m = 0; m < k; m++)
        for (int a = 0; a < k; a++)
            for (int b = 0; b < k; b++)
                if (dist[a * k + m] + dist[m * k + b] < dist[a * k + b]) {
                    dist[a * k + b] = dist[a * k + m] + dist[m * k + b];
                    next[a * k + b] = next[a * k + m];
                }
}

int gsc_wan_max_pieces(int k, int nflows)
{
    return nflows * (k > 2 ? k : 2);
}

typedef struct {
    int n;
    int site[GSC_WAN_MAX_PATH];
} path_t;

/* Candidate paths s -> d: direct, through each other metahost, and the shortest-latency
 * path when it has more relays than that. */
static int candidates(const gsc_wan_t *w, const int *next, int s, int d, path_t *out)
{
    int k = w->k, n = 0;
    out[n++] = (path_t){2, {s, d}};
    for (int m = 0; m < k; m++)
        if (m != s && m != d) out[n++] = (path_t){3, {s, m, d}};
    path_t sp = {1, {s}};
    for (int a = s; a != d && sp.n < GSC_WAN_MAX_PATH;) sp.site[sp.n++] = a = next[a * k + d];
    if (sp.n > 3 && sp.site[sp.n - 1] == d) out[n++] = sp;
    return n;
}

static double path_latency(const gsc_wan_t *w, const path_t *p)
{
    double l = 0;
    for (int i = 0; i + 1 < p->n; i++) l += w->lat[p->site[i] * w->k + p->site[i + 1]];
    return l;
}

/* When a piece of `bytes` sent along p at once has arrived: the path's latency plus, store
 * and forward, every link's time for all it carries in turn, or, pipelined (relays forward
 * unit by unit), the busiest link's time for all it carries (the links' other loads run
 * beside the piece, so only the busiest one counts). */
static double path_end(const gsc_wan_t *w, const double *load, const path_t *p, int pipelined,
                       double bytes)
{
    double q = 0;
    for (int i = 0; i + 1 < p->n; i++) {
        int l = p->site[i] * w->k + p->site[i + 1];
        double t = (load[l] + bytes) / w->bw[l];
        q = pipelined ? (t > q ? t : q) : q + t;
    }
    return path_latency(w, p) + q;
}

/* The most bytes p can deliver by time T (path_end inverted; 0 when T is too early). */
static double path_bytes(const gsc_wan_t *w, const double *load, const path_t *p, int pipelined,
                         double T)
{
    double room = T - path_latency(w, p), y = INFINITY, inv = 0, busy = 0;
    for (int i = 0; i + 1 < p->n; i++) {
        int l = p->site[i] * w->k + p->site[i + 1];
        if (pipelined) {
            double yl = room * w->bw[l] - load[l];
            if (yl < y) y = yl;
        } else {
            inv += 1.0 / w->bw[l];
            busy += load[l] / w->bw[l];
        }
    }
    if (!pipelined) y = (room - busy) / inv;
    return y > 0 ? y : 0;
}

static void add_load(const gsc_wan_t *w, double *load, const path_t *p, double bytes)
{
    for (int i = 0; i + 1 < p->n; i++) load[p->site[i] * w->k + p->site[i + 1]] += bytes;
}

/* Modelled completion time of a plan: each piece arrives after its path's latency plus the
 * time its links need for everything planned on them. */
static double plan_time(const gsc_wan_t *w, const gsc_wan_piece_t *pc, int npc, size_t unit,
                        int pipelined)
{
    int k = w->k;
    double *load = calloc((size_t)k * k, sizeof(double)), worst = 0;
    if (!load) return INFINITY;
    for (int i = 0; i < npc; i++) {
        path_t p = {pc[i].n, {0}};
        memcpy(p.site, pc[i].path, sizeof(int) * (size_t)pc[i].n);
        add_load(w, load, &p, (double)pc[i].len * (double)unit);
    }
    for (int i = 0; i < npc; i++) {
        path_t p = {pc[i].n, {0}};
        memcpy(p.site, pc[i].path, sizeof(int) * (size_t)pc[i].n);
        double t = pc[i].len ? path_end(w, load, &p, pipelined, 0) : path_latency(w, &p);
        if (t > worst) worst = t;
    }
    free(load);
    return worst;
}

static int put_piece(gsc_wan_piece_t *pc, int npc, int max, int flow, size_t off, size_t len,
                     const path_t *p)
{
    if (npc >= max) return -1;
    pc[npc].flow = flow;
    pc[npc].off = off;
    pc[npc].len = len;
    pc[npc].n = p->n;
    memcpy(pc[npc].path, p->site, sizeof(int) * (size_t)p->n);
    return npc + 1;
}

int gsc_wan_plan_direct(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows,
                        size_t unit_bytes, gsc_wan_piece_t *pieces, int max_pieces,
                        double *estimate)
{
    int npc = 0;
    for (int f = 0; f < nflows; f++) {
        path_t p = {2, {flows[f].src, flows[f].dst}};
        npc = put_piece(pieces, npc, max_pieces, f, 0, flows[f].units, &p);
        if (npc < 0) return -1;
    }
    if (estimate) *estimate = plan_time(w, pieces, npc, unit_bytes, 0);
    return npc;
}

/* Flow indices, largest first (ties: lower index first). */
static void flow_order(const gsc_wan_flow_t *flows, int nflows, int *ord)
{
    for (int i = 0; i < nflows; i++) ord[i] = i;
    for (int i = 1; i < nflows; i++)
        for (int j = i; j > 0; j--) {
            int a = ord[j - 1], b = ord[j];
            if (flows[b].units > flows[a].units) {
                ord[j - 1] = b;
                ord[j] = a;
            } else
                break;
        }
}

/* Water filling: the time T at which the candidate paths, each carrying what it can deliver
 * by T, carry V bytes together (bisection: path_bytes grows with T). */
static double fill_level(const gsc_wan_t *w, const double *load, const path_t *cand, int nc,
                         int pipelined, double V)
{
    double lo = INFINITY, hi = INFINITY;
    for (int c = 0; c < nc; c++) {
        double e0 = path_end(w, load, &cand[c], pipelined, 0);
        double eV = path_end(w, load, &cand[c], pipelined, V);
        if (e0 < lo) lo = e0;
        if (eV < hi) hi = eV;
    }
    for (int it = 0; it < 100 && hi - lo > 1e-12 * (hi > 1 ? hi : 1); it++) {
        double mid = (lo + hi) / 2, got = 0;
        for (int c = 0; c < nc; c++) got += path_bytes(w, load, &cand[c], pipelined, mid);
        if (got >= V)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static int plan_split(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows,
                      size_t unit, gsc_wan_piece_t *pc, int max, int pipelined)
{
    int k = w->k, npc = 0;
    double *dist = malloc(sizeof(double) * (size_t)k * k);
    int *next = malloc(sizeof(int) * (size_t)k * k);
    double *load = calloc((size_t)k * k, sizeof(double));
    int *ord = malloc(sizeof(int) * (size_t)(nflows + 1));
    path_t cand[GSC_WAN_MAX_SITES + 1];
    double x[GSC_WAN_MAX_SITES + 1];
    if (!dist || !next || !load || !ord) {
        npc = -1;
        goto out;
    }
    gsc_wan_shortest(w, dist, next);
    flow_order(flows, nflows, ord);
    for (int i = 0; i < nflows && npc >= 0; i++) {
        int f = ord[i];
        int nc = candidates(w, next, flows[f].src, flows[f].dst, cand);
        double V = (double)flows[f].units * (double)unit;
        int best = 0;
        double best_end = INFINITY;
        for (int c = 0; c < nc; c++) {
            double e = path_end(w, load, &cand[c], pipelined, 0);
            if (e < best_end - 1e-12) {
                best = c;
                best_end = e;
            }
        }
        if (flows[f].units == 0) { /* an empty message: the quickest path */
            npc = put_piece(pc, npc, max, f, 0, 0, &cand[best]);
            continue;
        }
        double T = fill_level(w, load, cand, nc, pipelined, V);
        int top = 0;
        for (int c = 0; c < nc; c++) {
            x[c] = path_bytes(w, load, &cand[c], pipelined, T);
            if (x[c] < MIN_SHARE * V) x[c] = 0;
            if (x[c] > x[top]) top = c;
        }
        size_t given = 0, u[GSC_WAN_MAX_SITES + 1];
        for (int c = 0; c < nc; c++) given += u[c] = (size_t)floor(x[c] / (double)unit);
        if (given > flows[f].units) { /* rounding cannot overshoot, but keep it safe */
            for (int c = 0; c < nc; c++) u[c] = 0;
            given = 0;
        }
        /* whole units left by the rounding: each to the used path that then ends first */
        for (; given < flows[f].units; given++) {
            int to = top;
            double end = INFINITY;
            for (int c = 0; c < nc; c++) {
                double e = path_end(w, load, &cand[c], pipelined, (double)(u[c] + 1) * (double)unit);
                if (x[c] > 0 && e < end) {
                    end = e;
                    to = c;
                }
            }
            u[to]++;
        }
        size_t off = 0;
        for (int c = 0; c < nc && npc >= 0; c++) {
            if (!u[c]) continue;
            npc = put_piece(pc, npc, max, f, off, u[c], &cand[c]);
            off += u[c];
            add_load(w, load, &cand[c], (double)u[c] * (double)unit);
        }
    }
out:
    free(dist);
    free(next);
    free(load);
    free(ord);
    return npc;
}

int gsc_wan_plan(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows, size_t unit_bytes,
                 gsc_wan_piece_t *pieces, int max_pieces, double *estimate)
{
    return gsc_wan_plan_ex(w, flows, nflows, unit_bytes, 0, pieces, max_pieces, estimate);
}

int gsc_wan_plan_ex(const gsc_wan_t *w, const gsc_wan_flow_t *flows, int nflows,
                    size_t unit_bytes, int pipelined, gsc_wan_piece_t *pieces, int max_pieces,
                    double *estimate)
{
    double t_direct = 0;
    int nd = gsc_wan_plan_direct(w, flows, nflows, unit_bytes, pieces, max_pieces, &t_direct);
    if (nd < 0) return -1;
    gsc_wan_piece_t *split = malloc(sizeof(gsc_wan_piece_t) * (size_t)(max_pieces + 1));
    if (!split) return nd;
    int ns = plan_split(w, flows, nflows, unit_bytes, split, max_pieces, pipelined);
    double t_split = ns >= 0 ? plan_time(w, split, ns, unit_bytes, pipelined) : INFINITY;
    if (ns >= 0 && t_split < SPLIT_GAIN * t_direct) {
        memcpy(pieces, split, sizeof(gsc_wan_piece_t) * (size_t)ns);
        nd = ns;
        t_direct = t_split;
    }
    free(split);
    if (estimate) *estimate = t_direct;
    return nd;
}

int gsc_wan_plan_is_direct(const gsc_wan_piece_t *pieces, int npieces, const gsc_wan_flow_t *flows)
{
    for (int i = 0; i < npieces; i++)
        if (pieces[i].n != 2 || pieces[i].len != flows[pieces[i].flow].units) return 0;
    return 1;
}
