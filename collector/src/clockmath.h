/* Clock-offset maths of the hierarchical synchronisation (GUIDE §2, EPIK elg_offset).
 * Plain C, unit-tested in tests/test_clockmath.c. Times are integer ticks (ns). */
#ifndef GS_CLOCKMATH_H
#define GS_CLOCKMATH_H
#include <stdint.h>

/* One ping-pong seen from the client: local send time, the server's clock when it
 * answered, local receive time. */
typedef struct {
    int64_t t_send, t_server, t_recv;
} gs_pingpong_t;

/* offset: add to a local time to get the server's time; error: half the round trip of
 * the exchange it came from, i.e. the largest possible error of that offset. */
typedef struct {
    int64_t offset;
    int64_t error;
} gs_offset_t;

/* Offset from the exchange with the shortest round trip (the first one on ties). */
gs_offset_t gs_offset_best(const gs_pingpong_t *samples, int n);
/* Whether n exchanges suffice: n reached max_rounds, or two of them came within 1/10000
 * of the shortest round trip. The error bound is half that round trip. A network without
 * jitter (the simulated one) shows the same round trip at once, and more exchanges
 * cannot shorten it; any real network varies by far more than 1/10000 between exchanges
 * (a 10 ms WAN by more than 1 us), so there the exchanges go on up to max_rounds, as
 * EPIK's fixed counts did. */
enum { GS_SYNC_SAME_RTT_PER_10K = 1 };
int gs_sync_enough(const gs_pingpong_t *samples, int n, int max_rounds);
/* Offsets compose along the hierarchy: local->parent, then parent->root. */
gs_offset_t gs_offset_compose(gs_offset_t to_parent, gs_offset_t parent_to_root);
/* Corrected time by linear interpolation between two (local time, offset) points, as
 * OTF2 readers do with two ClockOffset records. */
int64_t gs_offset_interpolate(int64_t t, int64_t l0, int64_t o0, int64_t l1, int64_t o1);
/* Test-only skew: t + offset + drift * t. */
int64_t gs_skew_apply(int64_t t, int64_t offset, double drift);

#endif
