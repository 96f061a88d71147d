"""The one rule for an undefined figure (``ambisite.finite``): None, NaN and infinities."""

from __future__ import annotations

import json
import math

import numpy as np

from ambisite.finite import json_safe, undefined


def test_none_nan_and_both_infinities_are_undefined_numbers_are_not():
    for value in (None, math.nan, math.inf, -math.inf, np.float64("inf"), np.float32("-inf")):
        assert undefined(value), value
    for value in (0, 1, True, False, 0.0, -2.5, 1e308, np.float64(3.0), np.int64(7), "inf"):
        assert not undefined(value), value


def test_json_safe_makes_every_undefined_figure_null_at_any_depth():
    data = {
        "value": math.inf,
        "interval": (-math.inf, 0.5),
        "rows": [{"rho": math.nan, "n": 3, "flag": True}, [np.float64("-inf"), 2]],
        "name": "Infinity",
    }
    found = json_safe(data)
    assert found == {
        "value": None,
        "interval": [None, 0.5],
        "rows": [{"rho": None, "n": 3, "flag": True}, [None, 2]],
        "name": "Infinity",
    }
    assert json.loads(json.dumps(found, allow_nan=False)) == found  # strict JSON
