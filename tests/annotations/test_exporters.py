"""Exports that round-trip the imported files."""

import json

import pytest

from annotations.exporters import iter_ambistory_json, iter_reference_jsonl
from annotations.models import Sample
from tests.conftest import CONFORMANCE, DATA

pytestmark = pytest.mark.django_db


def test_the_dev_export_equals_dev_json_as_parsed_json_and_byte_for_byte(dev_split, dev_json):
    text = "".join(iter_ambistory_json(Sample.objects.filter(split=dev_split)))
    assert json.loads(text) == dev_json
    assert list(json.loads(text)) == list(dev_json)  # same ids in the same order
    assert text == (DATA / "dev.json").read_text(encoding="utf-8")


def test_the_reference_export_equals_the_official_solution_line_for_line(dev_split):
    lines = "".join(iter_reference_jsonl(Sample.objects.filter(split=dev_split)))
    expected = (CONFORMANCE / "dev_solution.jsonl").read_text()
    assert lines.splitlines() == expected.splitlines()


def test_the_export_is_a_stream_of_small_chunks(dev_split):
    chunks = iter_ambistory_json(Sample.objects.filter(split=dev_split))
    sizes = [len(chunk) for chunk in chunks]
    assert len(sizes) == 588 + 2
    assert max(sizes) < 5000


def test_the_reference_leaves_out_samples_without_a_rating_in_its_scope(dev_split):
    """A reference line needs a label (the official scorer divides by its length and
    ``parse_reference`` refuses an empty one): samples the scope has no rating of, such as
    those a study did not reach, are left out, so the file scores as it is."""
    from annotations.models import Rating
    from predictions.evaluation import parse_reference

    samples = Sample.objects.filter(split=dev_split)
    rated = list(samples.order_by("position")[:3])
    ratings = Rating.objects.filter(sample__in=rated)
    lines = list(iter_reference_jsonl(samples, ratings=ratings))
    reference = parse_reference(lines)
    assert list(reference) == [s.dataset_id for s in rated]
    assert all(
        len(labels) == ratings.filter(sample=s).count()
        for s, labels in zip(rated, reference.values())
    )
