"""The API's JSON writer: the same text as json.dumps, numpy integer arrays included."""

import json

import numpy as np

from gridscope.viewer import fastjson


def test_small_integer_arrays_read_back_exactly():
    values = np.array([-1, 0, 7, 10, 999, 1000, 65535], dtype=np.int32)
    assert fastjson.int_array(values) == "[-1,0,7,10,999,1000,65535]"
    assert fastjson.int_array(np.zeros(0, np.int32)) == "[]"


def test_large_or_negative_values_take_the_plain_way():
    values = np.array([-5, 1 << 40], dtype=np.int64)
    assert fastjson.int_array(values) == "[-5,1099511627776]"


def test_nested_answer_equals_json_dumps():
    obj = {"t0": 1, "rows": [{"row": 0, "exact": False, "cp": np.array([3, -1, 2], np.int32),
                              "mpi": np.array([0, 500, 1000], np.int32)},
                             {"row": 1, "exact": True, "cp": [1], "start": [5], "end": [9]}],
           "messages": {"from": [], "bytes": [np.int64(8)], "grid": [True]}, "name": "<b>\u00e9",
           "x": np.float64(0.5), "none": None}
    plain = json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else o.item()))
    text = fastjson.dumps(obj)
    assert json.loads(text) == plain
    assert text == json.dumps(plain, separators=(",", ":")).encode()
