"""Data versions: a bump changes exactly the scopes whose data it touches, commits and rolls
back with its write, and a version never comes back with other data."""

from __future__ import annotations

import pytest
from django.db import transaction

from annotations.data_versions import (
    EVERY_KIND,
    RUNS,
    DataVersion,
    data_changed,
    data_version,
)
from annotations.models import TaskKind

pytestmark = pytest.mark.django_db

PLAUS, REL = TaskKind.PLAUSIBILITY, TaskKind.RELATEDNESS


def versions() -> dict[str, str]:
    return {
        "split 1": data_version(kind=PLAUS, split_ids=[1]),
        "split 2": data_version(kind=PLAUS, split_ids=[2]),
        "splits 1+2": data_version(kind=PLAUS, split_ids=[1, 2]),
        "plausibility": data_version(kind=PLAUS),
        "relatedness": data_version(kind=REL),
        "relatedness split 3": data_version(kind=REL, split_ids=[3]),
        "every kind in split 1": data_version(kind=None, split_ids=[1]),
        "every kind in split 3": data_version(kind=None, split_ids=[3]),
        "everything": data_version(kind=None),
    }


def changed(before: dict[str, str]) -> set[str]:
    after = versions()
    return {name for name in before if before[name] != after[name]}


def test_a_split_bump_changes_that_splits_scopes_and_the_kinds_only():
    before = versions()
    data_changed(kind=PLAUS, split_ids=[1])
    assert changed(before) == {
        "split 1",
        "splits 1+2",
        "plausibility",
        "every kind in split 1",
        "everything",
    }


def test_a_whole_kind_bump_changes_every_split_of_that_kind():
    before = versions()
    data_changed(kind=PLAUS)
    assert changed(before) == set(versions()) - {"relatedness", "relatedness split 3"}


def test_an_every_kind_bump_changes_every_scope():
    before = versions()
    data_changed(kind=EVERY_KIND)
    assert changed(before) == set(versions())


def test_a_runs_bump_changes_only_the_versions_that_read_runs():
    without_runs = {
        "split 1": lambda: data_version(kind=PLAUS, split_ids=[1], runs=False),
        "plausibility": lambda: data_version(kind=PLAUS, runs=False),
        "every kind in split 1": lambda: data_version(kind=None, split_ids=[1], runs=False),
        "everything": lambda: data_version(kind=None, runs=False),
    }
    before, before_own = versions(), {name: read() for name, read in without_runs.items()}
    data_changed(kind=RUNS)
    assert changed(before) == set(versions())  # runs=True (the default): every scope
    assert {name: read() for name, read in without_runs.items()} == before_own
    data_changed(kind=PLAUS, split_ids=[1])  # a rating still changes a runs=False version
    assert without_runs["split 1"]() != before_own["split 1"]


def test_a_bump_in_a_rolled_back_transaction_leaves_the_version():
    before = versions()
    with pytest.raises(RuntimeError), transaction.atomic():
        data_changed(kind=PLAUS, split_ids=[1, 2])
        raise RuntimeError("the write failed")
    assert changed(before) == set()


def test_shards_of_a_split_add_up():
    data_changed(kind=PLAUS, split_ids=[1], shard=3)
    data_changed(kind=PLAUS, split_ids=[1], shard=19)  # wraps to shard 3
    data_changed(kind=PLAUS, split_ids=[1], shard=4)
    rows = DataVersion.objects.filter(kind=PLAUS, split_id=1)
    assert sorted(rows.values_list("shard", "n")) == [(3, 2), (4, 1)]
    assert data_version(kind=PLAUS, split_ids=[1]).startswith("3.")


def test_a_restored_count_does_not_bring_an_old_version_back():
    data_changed(kind=PLAUS, split_ids=[1])
    seen = data_version(kind=PLAUS, split_ids=[1])
    DataVersion.objects.all().delete()  # as a database restored from an earlier backup
    data_changed(kind=PLAUS, split_ids=[1])
    again = data_version(kind=PLAUS, split_ids=[1])
    assert again.split(".")[0] == seen.split(".")[0] == "1"
    assert again != seen  # a new stamp (2**-31 to draw the same)
