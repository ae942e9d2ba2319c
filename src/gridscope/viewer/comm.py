"""Communication matrices (who sent how much to whom) from the trace's matched messages."""

from __future__ import annotations

import numpy as np


def matrix(sender: np.ndarray, receiver: np.ndarray, nbytes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Bytes and message counts per (sender, receiver) for codes in [0, size)."""
    flat = sender.astype(np.int64) * size + receiver.astype(np.int64)
    count = np.bincount(flat, minlength=size * size).reshape(size, size)
    volume = np.bincount(flat, weights=nbytes.astype(np.float64), minlength=size * size).reshape(size, size)
    return volume, count


def sparse(volume: np.ndarray, count: np.ndarray) -> list[list[float]]:
    """Non-empty cells as [row, column, bytes, messages]."""
    rows, cols = np.nonzero(count)
    return [[int(r), int(c), float(volume[r, c]), int(count[r, c])] for r, c in zip(rows, cols)]
