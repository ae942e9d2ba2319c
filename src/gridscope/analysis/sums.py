"""Sums per group of rows, bit for bit as pandas' `groupby(sort=True).sum()`, so that
summary.json and the Cube values do not depend on how the rows came (any -j)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

# Fewer rows than this per step of the longest group: Kahan sums one row at a time (see _kahan_sums).
ROWS_PER_STEP = 64


class KahanSum:
    """A running sum with compensation, step for step as pandas' groupby sum (the reference
    that _kahan_by_row and _kahan_by_step follow)."""

    __slots__ = ("total", "compensation")

    def __init__(self) -> None:
        self.total = 0.0
        self.compensation = 0.0

    def add(self, value: float) -> None:
        if math.isnan(value):  # pandas skips missing values
            return
        y = value - self.compensation
        t = self.total + y
        self.compensation = t - self.total - y
        if self.compensation != self.compensation:  # an infinity: keep it, not NaN
            self.compensation = 0.0
        self.total = t


def group_sums(keys: Sequence[np.ndarray], values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sums of VALUES per distinct key, bit for bit as pandas' `groupby(sort=True).sum()`.

    A key is a row of the integer columns KEYS, compared left to right (codes that order as
    the labels they stand for, as pandas orders the group keys). When the rows come in key
    order and hold no NaN, numpy sums each run of equal keys (pandas' np.add.reduceat path);
    otherwise a Kahan sum per key in row order (its Cython kernel).
    Returns (the first row of each key, its sum), keys in ascending order.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    later = np.zeros(n - 1, dtype=bool)  # row i+1's key > row i's
    same = np.ones(n - 1, dtype=bool)    # row i+1's key == row i's
    for column in keys:
        after, before = column[1:], column[:-1]
        later |= same & (after > before)
        same &= after == before
    if (later | same).all() and not np.isnan(values).any():
        starts = np.flatnonzero(np.concatenate(([True], ~same)))
        return starts, np.add.reduceat(values, starts)
    order = np.lexsort(tuple(reversed(keys)))  # stable: each key's rows stay in row order
    sorted_keys = [column[order] for column in keys]
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for column in sorted_keys:
        new[1:] |= column[1:] != column[:-1]
    starts = np.flatnonzero(new)
    return order[starts], _kahan_sums(values[order], starts)


def _kahan_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """KahanSum of each run VALUES[starts[i]:starts[i+1]]: all runs at once, one numpy step
    per row of the longest run (many short runs), or row by row (a few long ones)."""
    sizes = np.diff(np.append(starts, len(values)))
    if len(values) < ROWS_PER_STEP * int(sizes.max()):
        return _kahan_by_row(values, starts)
    return _kahan_by_step(values, starts, sizes)


def _kahan_by_row(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    bounds = np.append(starts, len(values)).tolist()
    column = values.tolist()
    sums = []
    for begin, end in zip(bounds, bounds[1:]):
        total = compensation = 0.0
        for value in column[begin:end]:
            if value != value:  # NaN: skipped
                continue
            y = value - compensation
            t = total + y
            compensation = t - total - y
            if compensation != compensation:
                compensation = 0.0
            total = t
        sums.append(total)
    return np.asarray(sums, dtype=np.float64)


def _kahan_by_step(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    total = np.zeros(len(starts))
    compensation = np.zeros(len(starts))
    for step in range(int(sizes.max())):
        runs = np.flatnonzero(sizes > step)
        value = values[starts[runs] + step]
        present = ~np.isnan(value)
        runs, value = runs[present], value[present]
        y = value - compensation[runs]
        t = total[runs] + y
        c = t - total[runs] - y
        c[np.isnan(c)] = 0.0
        compensation[runs] = c
        total[runs] = t
    return total
