"""Unit tests of the level-of-detail functions on hand-made segment arrays."""

import numpy as np

from gridscope.viewer import lod

# one location: region 0 (user) 0-100, region 1 (MPI) 100-300, user 300-400, terminator at 400
SEG_TIME = np.array([0, 100, 300, 400], dtype=np.int64)
SEG_CP = np.array([0, 1, 0, -1], dtype=np.int32)
SEG_MPICUM = np.array([0, 0, 200, 200], dtype=np.int64)
CP_IS_MPI = np.array([False, True])


def test_cumulative_mpi_at_and_between_segments():
    t = np.array([-5, 0, 50, 100, 150, 300, 350, 400, 1000])
    got = lod.cumulative_mpi(t, SEG_TIME, SEG_CP, SEG_MPICUM, CP_IS_MPI)
    assert got.tolist() == [0, 0, 0, 0, 50, 200, 200, 200, 200]


def test_exact_segments_when_few():
    d = lod.row_detail(SEG_TIME, SEG_CP, SEG_MPICUM, CP_IS_MPI, 50, 350, width=100)
    assert d.exact
    assert d.start.tolist() == [0, 100, 300]
    assert d.end.tolist() == [100, 300, 400]
    assert d.cp.tolist() == [0, 1, 0]


def test_binned_when_more_segments_than_pixels():
    d = lod.row_detail(SEG_TIME, SEG_CP, SEG_MPICUM, CP_IS_MPI, 0, 400, width=2)
    assert not d.exact
    assert d.cp.tolist() == [1, 0]                 # centre 100 is in MPI, centre 300 starts user code
    assert np.allclose(d.mpi_fraction, [0.5, 0.5])  # 100 of 200 ns in each half


def test_binned_fractions_sum_to_total_mpi_time():
    rng = np.random.default_rng(3)
    durations = rng.integers(1, 50, size=2000)
    times = np.concatenate([[0], np.cumsum(durations)])
    cps = np.append(rng.integers(0, 2, size=2000).astype(np.int32), -1)
    mpi = np.where(CP_IS_MPI[cps[:-1]], durations, 0)
    mpicum = np.concatenate([[0], np.cumsum(mpi)])
    d = lod.row_detail(times, cps, mpicum, CP_IS_MPI, 0, int(times[-1]), width=100)
    assert not d.exact
    widths = d.end - d.start
    assert abs(float((d.mpi_fraction * widths).sum()) - float(mpi.sum())) < 1e-6 * mpi.sum()


def test_window_messages_overlap():
    send = np.array([0, 10, 20, 30])
    recv = np.array([5, 50, 21, 31])
    got, _ = lod.window_sample(*lod.in_window(send, recv, 40, 22, 29), m=10)
    assert got.tolist() == [1]  # only the message in flight from 10 to 50


def test_thin_keeps_one_per_pixel_and_counts():
    a = np.array([0, 0, 0, 1])
    b = np.array([1, 1, 1, 0])
    t = np.array([0, 1, 99, 2])
    pos, count = lod.thin(a, b, t, 0, 100, width=2, limit=3)
    assert sorted(zip(pos.tolist(), count.tolist())) == [(0, 2), (2, 1), (3, 1)]
    pos, count = lod.thin(a, b, t, 0, 100, width=2, limit=10)
    assert pos.tolist() == [0, 1, 2, 3] and count.tolist() == [1, 1, 1, 1]


def test_thin_never_exceeds_the_limit_and_keeps_the_total():
    n = 10_000
    a = np.arange(n) % 50
    b = (np.arange(n) + 1) % 50
    t = np.arange(n)
    pos, count = lod.thin(a, b, t, 0, n, width=1000, limit=300)
    assert len(pos) <= 300
    assert int(count.sum()) == n
    assert np.all(np.diff(pos) > 0)


def test_in_window_splits_items_running_at_t0_from_those_starting_inside():
    start = np.array([0, 10, 20, 30, 40])
    end = np.array([5, 50, 21, 31, 45])
    head, mid, hi = lod.in_window(start, end, longest=40, t0=22, t1=35)
    assert head.tolist() == [1]        # 10-50 still runs at 22; 0-5 and 20-21 are over
    assert (mid, hi) == (3, 4)         # 30-31 starts inside; 40 is after t1


def test_even_sample_positions_and_what_each_stands_for():
    pos, weight = lod.even_sample(10, 4)
    assert pos.tolist() == [0, 2, 5, 7] and weight.tolist() == [2, 3, 2, 3]
    pos, weight = lod.even_sample(3, 4)
    assert pos.tolist() == [0, 1, 2] and weight.tolist() == [1, 1, 1]


def test_sample_items_over_head_and_range():
    idx, weight = lod.sample_items(np.array([1, 4]), 10, 14, m=3)  # items 1, 4, 10, 11, 12, 13
    assert idx.tolist() == [1, 10, 12] and weight.tolist() == [2, 2, 2]
    idx, weight = lod.sample_items(np.zeros(0, np.int64), 5, 7, m=3)
    assert idx.tolist() == [5, 6] and weight.tolist() == [1, 1]


def test_thin_with_weights_sums_them():
    a = np.array([0, 0, 0, 1])
    b = np.array([1, 1, 1, 0])
    t = np.array([0, 1, 99, 2])
    pos, count = lod.thin(a, b, t, 0, 100, width=2, limit=3, weights=np.array([5, 1, 2, 7]))
    assert pos.tolist() == [0, 2, 3] and count.tolist() == [6, 2, 7]
    pos, count = lod.thin(a, b, t, 0, 100, width=2, limit=10, weights=np.array([5, 1, 2, 7]))
    assert pos.tolist() == [0, 1, 2, 3] and count.tolist() == [5, 1, 2, 7]


def test_rows_detail_equals_row_detail_per_row():
    # three locations in flat columns: the hand-made one, an empty one, a random long one
    rng = np.random.default_rng(5)
    durations = rng.integers(1, 30, size=500)
    long_time = np.concatenate([[3], 3 + np.cumsum(durations)])
    long_cp = np.append(rng.integers(-1, 2, size=500).astype(np.int32), -1)
    long_mpi = np.concatenate([[0], np.cumsum(np.where((long_cp[:-1] >= 0) & CP_IS_MPI[np.clip(long_cp[:-1], 0, None)],
                                                       durations, 0))])
    seg_time = np.concatenate([SEG_TIME, long_time])
    seg_cp = np.concatenate([SEG_CP, long_cp])
    seg_mpicum = np.concatenate([SEG_MPICUM, long_mpi])
    offsets = [(0, 4), (4, 4), (4, 505)]
    for t0, t1, width in ((0, 400, 2), (0, 400, 100), (-50, 9000, 64), (100, 2000, 7), (5, 6, 3)):
        got = lod.rows_detail(seg_time, seg_cp, seg_mpicum, offsets, CP_IS_MPI, t0, t1, width)
        for (a, b), d in zip(offsets, got):
            want = lod.row_detail(seg_time[a:b], seg_cp[a:b], seg_mpicum[a:b], CP_IS_MPI, t0, t1, width)
            assert d.exact == want.exact
            assert d.start.tolist() == want.start.tolist() and d.end.tolist() == want.end.tolist()
            assert d.cp.tolist() == want.cp.tolist()
            if not d.exact:
                assert d.mpi_fraction.tolist() == want.mpi_fraction.tolist()


def test_rows_detail_two_pixels_of_the_hand_made_location():
    (d,) = lod.rows_detail(SEG_TIME, SEG_CP, SEG_MPICUM, [(0, 4)], CP_IS_MPI, 0, 400, 2)
    assert not d.exact
    assert d.cp.tolist() == [1, 0] and d.mpi_fraction.tolist() == [0.5, 0.5]
