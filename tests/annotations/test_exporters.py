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


def test_an_unlabelled_split_exports_redacted_and_imports_back():
    """An unlabelled split (imported from a redacted test file) was exported with
    ``"choices": []`` and ``"average": null``, which the import refuses even with
    ``allow_redacted``; its labels are now ``"(???)"`` as in the official test files."""
    from annotations.importers import ambistory_import, parse_ambistory
    from tests.factories import ambistory_setup

    hidden = dict.fromkeys(("choices", "average", "stdev", "nonsensical"), "(???)")
    redacted = {sid: {**s, **hidden} for sid, s in ambistory_setup(0).items()}
    ambistory_import(samples=parse_ambistory(redacted, allow_redacted=True), split="test")
    text = "".join(iter_ambistory_json(Sample.objects.filter(split__name="test")))
    assert json.loads(text) == redacted
    parsed = parse_ambistory(json.loads(text), allow_redacted=True)
    assert not any(s.labelled for s in parsed)
    Sample.objects.filter(split__name="test").delete()  # a story is in one split only
    ambistory_import(samples=parsed, split="test-again")
    again = "".join(iter_ambistory_json(Sample.objects.filter(split__name="test-again")))
    assert again == text
