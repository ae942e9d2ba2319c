#include "clockmath.h"

gs_offset_t gs_offset_best(const gs_pingpong_t *s, int n)
{
    gs_offset_t best = {0, -1};
    int64_t best_rtt = 0;
    for (int i = 0; i < n; i++) {
        int64_t rtt = s[i].t_recv - s[i].t_send;
        if (rtt < 0) continue;
        if (best.error < 0 || rtt < best_rtt) {
            best_rtt = rtt;
            /* The server's clock was read at the midpoint of the exchange at best. */
            best.offset = s[i].t_server - (s[i].t_send + rtt / 2);
            best.error = (rtt + 1) / 2;
        }
    }
    if (best.error < 0) best.error = 0;
    return best;
}

int gs_sync_enough(const gs_pingpong_t *s, int n, int max_rounds)
{
    if (n >= max_rounds) return 1;
    int64_t best = -1;
    for (int i = 0; i < n; i++) {
        int64_t rtt = s[i].t_recv - s[i].t_send;
        if (rtt >= 0 && (best < 0 || rtt < best)) best = rtt;
    }
    if (best < 0) return 0;
    int64_t within = best + best * GS_SYNC_SAME_RTT_PER_10K / 10000;
    int close = 0;
    for (int i = 0; i < n; i++) {
        int64_t rtt = s[i].t_recv - s[i].t_send;
        if (rtt >= 0 && rtt <= within) close++;
    }
    return close >= 2;
}

gs_offset_t gs_offset_compose(gs_offset_t a, gs_offset_t b)
{
    gs_offset_t r = {a.offset + b.offset, a.error + b.error};
    return r;
}

int64_t gs_offset_interpolate(int64_t t, int64_t l0, int64_t o0, int64_t l1, int64_t o1)
{
    if (l1 == l0) return t + o0;
    long double slope = (long double)(o1 - o0) / (long double)(l1 - l0);
    return t + o0 + (int64_t)(slope * (long double)(t - l0));
}

int64_t gs_skew_apply(int64_t t, int64_t offset, double drift)
{
    return t + offset + (int64_t)((long double)drift * (long double)t);
}
