/* Clock-offset maths: best ping-pong, composition along levels, interpolation, skew. */
#include "check.h"
#include "clockmath.h"

int main(void)
{
    /* Server clock = local + 1000; exchanges with round trips 100, 40, 60 (asymmetric
     * delays shift the estimate by at most half the round trip). */
    gs_pingpong_t s[3] = {
        {0, 0 + 1000 + 80, 100},   /* slow way out */
        {500, 500 + 1000 + 20, 540}, /* symmetric, shortest */
        {900, 900 + 1000 + 10, 960},
    };
    gs_offset_t o = gs_offset_best(s, 3);
    CHECK_EQ_U64(o.offset, 1000);
    CHECK_EQ_U64(o.error, 20);

    /* Ties keep the first one. */
    gs_pingpong_t tie[2] = {{0, 1010, 20}, {100, 1105, 120}};
    CHECK_EQ_U64(gs_offset_best(tie, 2).offset, 1000);

    /* Node -> metahost master (+5, err 2) then master -> root (-300, err 7). */
    gs_offset_t a = {5, 2}, b = {-300, 7};
    gs_offset_t c = gs_offset_compose(a, b);
    CHECK(c.offset == -295 && c.error == 9);

    /* A linear drift is recovered exactly between and beyond the two sync points. */
    int64_t off0 = 1000000, drift_ppm = 50;
    /* Sync points at true times T0, T1: local = T + off0 + drift*T, offset = T - local. */
    int64_t T0 = 10000000, T1 = 90000000;
    int64_t l0 = T0 + off0 + T0 * drift_ppm / 1000000, l1 = T1 + off0 + T1 * drift_ppm / 1000000;
    int64_t o0 = T0 - l0, o1 = T1 - l1;
    for (int64_t truth = 0; truth <= 100000000; truth += 12500000) {
        int64_t local = truth + off0 + truth * drift_ppm / 1000000;
        int64_t corrected = gs_offset_interpolate(local, l0, o0, l1, o1);
        int64_t diff = corrected - truth;
        CHECK(diff >= -1 && diff <= 1);
    }
    CHECK_EQ_U64(gs_offset_interpolate(50, 7, 3, 7, 9), 53); /* one point: constant */

    /* Enough exchanges: the shortest round trip seen twice (within 1/10000), or the cap. */
    gs_pingpong_t q[4] = {{0, 0, 50000}, {0, 0, 10000}, {0, 0, 10001}, {0, 0, 10000}};
    CHECK(!gs_sync_enough(q, 1, 15));      /* one exchange proves nothing */
    CHECK(!gs_sync_enough(q, 2, 15));      /* a late server: the first one was long */
    CHECK(gs_sync_enough(q, 3, 15));       /* 10001 is within 1/10000 of 10000 */
    gs_pingpong_t noisy[3] = {{0, 0, 10000}, {0, 0, 12000}, {0, 0, 10002}};
    CHECK(!gs_sync_enough(noisy, 3, 15));  /* 10002 is not: a real network's jitter */
    CHECK(gs_sync_enough(noisy, 3, 3));    /* but the cap is reached */
    gs_pingpong_t same[2] = {{0, 0, 10000000}, {5, 0, 10000005}};
    CHECK(gs_sync_enough(same, 2, 15));    /* a network without jitter: two suffice */

    CHECK_EQ_U64(gs_skew_apply(1000000000, 500, 0.001), 1000000000 + 500 + 1000000);
    CHECK_DONE();
}
