"""The official metrics, checked against the official scorer's own results."""

import json
import statistics

import numpy as np
import pytest

from predictions.evaluation import (
    ScoringError,
    is_within_sd,
    label_sd,
    parse_predictions,
    parse_reference,
    score,
    score_lists,
)
from tests.conftest import CONFORMANCE

EXPECTED = json.loads((CONFORMANCE / "expected.json").read_text())
GOOD = sorted(name for name in EXPECTED if name.startswith("pred_"))
BAD = sorted(name for name in EXPECTED if name.startswith("bad_"))


def _reference():
    with open(CONFORMANCE / "dev_solution.jsonl") as handle:
        return parse_reference(handle)


@pytest.mark.parametrize("name", GOOD)
def test_it_reproduces_the_official_scores(name):
    reference = _reference()
    with open(CONFORMANCE / name) as handle:
        result = score(reference, parse_predictions(handle, list(reference)))
    expected = EXPECTED[name]
    assert result.correct == expected["correct"]
    assert result.total == expected["total"]
    assert result.accuracy == expected["accuracy"]
    if expected["spearman"] is None:
        assert result.spearman is None
    else:
        assert result.spearman == pytest.approx(expected["spearman"], abs=1e-12)


@pytest.mark.parametrize("name", BAD)
def test_it_rejects_each_bad_file_naming_the_id_or_line(name):
    reference = _reference()
    with open(CONFORMANCE / name) as handle, pytest.raises(ScoringError) as caught:
        parse_predictions(handle, list(reference))
    message = str(caught.value)
    assert EXPECTED[name]["error"] in message
    if "appears twice" in message or "not in the reference" in message or "number" in message:
        assert message.startswith("line ")  # the line as well as the id


def test_the_rule_uses_strict_inequalities_and_the_sample_sd():
    labels = [3, 3, 3, 3, 3]
    assert is_within_sd(3.0, labels)  # |avg - pred| < 1
    assert is_within_sd(3.99, labels)
    assert not is_within_sd(4.0, labels)  # exactly 1 away is outside
    spread = [1, 2, 3, 4, 5]
    sd = statistics.stdev(spread)  # sample SD, about 1.58
    assert is_within_sd(3 + sd - 1e-9, spread)
    assert not is_within_sd(3 + sd, spread)  # the edge itself is outside
    assert not is_within_sd(3 - sd, spread)


def test_a_vectorised_sd_can_differ_from_statistics_stdev_in_the_last_bit():
    # This is why label_sd never uses numpy: pred_boundary.jsonl sits on such edges.
    reference = _reference()
    differ = [
        labels
        for labels in reference.values()
        if float(np.std(labels, ddof=1)) != statistics.stdev(labels)
    ]
    assert differ, "expected at least one dev sample where numpy's SD differs"
    assert all(label_sd(labels) == statistics.stdev(labels) for labels in differ)


def test_constant_predictions_have_no_spearman():
    result = score_lists([[1, 2], [4, 5], [3, 3]], [4, 4, 4])
    assert result.spearman is None
    assert result.correct == 1


def test_it_names_a_missing_prediction_value_and_a_non_object_line():
    with pytest.raises(ScoringError, match="line 1: prediction is missing"):
        parse_predictions(['{"id": "0"}'], ["0"])
    with pytest.raises(ScoringError, match="line 2 is not a JSON object"):
        parse_predictions(['{"id": "0", "prediction": 1}', "[1, 2]"])
    with pytest.raises(ScoringError, match=r"line 1: prediction is not a number \(id 0\)"):
        parse_predictions(['{"id": "0", "prediction": true}'])
