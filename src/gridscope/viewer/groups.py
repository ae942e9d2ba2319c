"""A collapsed metahost group drawn as one row: per pixel, what its locations do.

For each pixel of the window the answer holds how many of the group's locations are in each
region category at the pixel's centre (the same sample a binned row of the timeline shows),
the exact MPI share of the pixel's time averaged over the locations (from the dump's
cumulative MPI time), and the most common call path. The cost is locations x pixels, as for
the rows themselves. The function filter's regions may be passed: the other regions'
locations are then counted apart (`filtered`), as the rows grey or hide their bars.
"""

from __future__ import annotations

import numpy as np

from gridscope.viewer import lod


def group_summary(trace, locations: list[int], t0: int, t1: int, width: int,
                  keep_regions: set[int] | None = None) -> dict:
    """Per-pixel summary of the given locations (indices into the trace) over [t0, t1).
    With KEEP_REGIONS (the function filter) a location in any other region counts in
    `filtered` per pixel instead of in its category, so the page can grey or hide it."""
    ncat = int(trace.cp_category.max(initial=0)) + 1
    ncp = len(trace.cp_category)
    cps = np.full((len(locations), width), -1, dtype=np.int64)
    mpi = np.zeros(width, dtype=np.float64)
    for k, loc in enumerate(locations):
        seg_time, seg_cp, seg_mpicum = trace.segments(loc)
        # exact_factor 0: always per-pixel samples, unless the location has nothing in the window
        d = lod.row_detail(seg_time, seg_cp, seg_mpicum, trace.cp_is_mpi, t0, t1, width, exact_factor=0)
        if d.exact:
            continue
        cps[k] = d.cp
        mpi += d.mpi_fraction
    cat = np.where(cps >= 0, trace.cp_category[np.clip(cps, 0, None)], 0).astype(np.int64)
    filtered = None
    if keep_regions is not None:
        kept = np.isin(trace.cp_region, np.fromiter(keep_regions, dtype=np.int64, count=len(keep_regions)))
        out = (cps >= 0) & ~kept[np.clip(cps, 0, None)]
        filtered = out.sum(axis=0)
        cat[out] = 0  # not in a category: counted as filtered
    pixel = np.broadcast_to(np.arange(width, dtype=np.int64), cps.shape)
    counts = np.bincount((cat * width + pixel).ravel(), minlength=ncat * width).reshape(ncat, width)
    dominant, dominant_count = _most_common(cps, pixel, ncp, width)
    answer = {
        "t0": t0, "t1": t1, "width": width, "locations": len(locations),
        "mpi": np.rint(mpi / max(len(locations), 1) * 1000).astype(np.int32).tolist(),
        # idle (category 0) is what is left: locations outside any region at the pixel
        "categories": {str(c): counts[c].tolist() for c in range(1, ncat) if counts[c].any()},
        "dominant": dominant.tolist(), "dominant_count": dominant_count.tolist(),
    }
    if filtered is not None:
        answer["filtered"] = filtered.tolist()
    return answer


def _most_common(cps: np.ndarray, pixel: np.ndarray, ncp: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel the call path most locations are in (ties: the lower id) and how many; -1, 0: none."""
    valid = cps >= 0
    keys, counts = np.unique(pixel[valid] * ncp + cps[valid], return_counts=True)
    px, cp = keys // max(ncp, 1), keys % max(ncp, 1)
    order = np.lexsort((-counts, px))  # by pixel, then the largest count first
    px, cp, counts = px[order], cp[order], counts[order]
    first = np.ones(len(px), dtype=bool)
    first[1:] = px[1:] != px[:-1]
    dominant = np.full(width, -1, dtype=np.int64)
    dominant_count = np.zeros(width, dtype=np.int64)
    dominant[px[first]] = cp[first]
    dominant_count[px[first]] = counts[first]
    return dominant, dominant_count
