"""Cube4 experiments: the model, a ``.cubex`` writer and reader, and the algebra.

>>> from gridscope.cube import Metric, Experiment, write_cubex, read_cubex
"""

from gridscope.cube.model import Experiment, Metric
from gridscope.cube.reader import read_cubex
from gridscope.cube.writer import write_cubex

__all__ = ["Experiment", "Metric", "read_cubex", "write_cubex"]
