"""annotations.text_versions: the versions a sample shows, read under the texts' locks."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Sample, Sense, Setup, Split, Story
from annotations.text_versions import versions_locked
from tests.factories import ambistory_setup

pytestmark = pytest.mark.django_db


def one_setup() -> Split:
    """One setup: 3 stories x 2 senses."""
    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    return Split.objects.get(dataset__name="ambistory", name="dev")


def test_versions_locked_gives_each_samples_setup_story_and_sense_versions():
    split = one_setup()
    judged, plain = split.samples.order_by("position")[:2]
    Setup.objects.filter(pk=judged.story.setup_id).update(version=3)
    Story.objects.filter(pk=judged.story_id).update(version=5)
    Sense.objects.filter(pk=judged.sense_id).update(version=7)
    Sample.objects.filter(pk=plain.pk).update(sense=None)  # as a relatedness sample
    found = versions_locked([judged.pk, plain.pk])
    assert found[judged.pk] == (3, 5, 7)
    assert found[plain.pk] == (3, Story.objects.get(pk=plain.story_id).version, None)


def test_versions_locked_locks_stories_then_setups_then_senses():
    """The order a reference edit locks them (``text_objects``): another order could deadlock
    a run's write against an edit."""
    split = one_setup()
    ids = list(split.samples.values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        versions_locked(ids)
    tables = [model._meta.db_table for model in (Story, Setup, Sense)]
    read = [next(t for t in tables if f'FROM "{t}"' in q["sql"]) for q in queries[1:]]
    assert read == tables
    if connection.vendor == "postgresql":
        assert all("FOR NO KEY UPDATE" in q["sql"] for q in queries[1:])
