"""writing/pool.py: an entry's new senses go in in one order whatever the order
of its two meanings, and two pool files that bring the same new senses in other orders at
once do not deadlock."""

from __future__ import annotations

import pytest
from django.db import connection

from annotations.models import Homonym, Sense
from tests.locks import others_wait_then_commit, second_waits_on_first
from writing.importers import PairRow
from writing.models import SensePair
from writing.pool import pair_add, pool_import


def _physical_order(glosses: set[str]) -> list[str]:
    """These senses' glosses in the order their rows lie in the table: the order they were
    inserted in, rows of one statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT gloss FROM annotations_sense WHERE gloss = ANY(%s) ORDER BY ctid",
            [sorted(glosses)],
        )
        return [gloss for (gloss,) in cursor.fetchall()]


@pytest.mark.django_db
@pytest.mark.parametrize("first", ["an institution", "sloping land"])
def test_a_pool_entrys_new_senses_go_in_in_one_order_and_keep_their_a_and_b(first):
    """The senses are inserted sorted by their natural key, whichever is meaning a, so two
    entries with the same new senses in opposite orders take them in one order; meaning a
    stays a (and gets the lower id, the file's order). Before, a was inserted first."""
    second = ({"an institution", "sloping land"} - {first}).pop()
    pair, created = pair_add(form="bank", gloss_a=first, gloss_b=second)
    assert created
    assert (pair.sense_a.gloss, pair.sense_b.gloss) == (first, second)
    assert pair.sense_a.pk < pair.sense_b.pk
    assert _physical_order({first, second}) == ["an institution", "sloping land"]


def _row(meaning_1: str, meaning_2: str) -> PairRow:
    return PairRow(word="bank", meaning_1=meaning_1, meaning_2=meaning_2)


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_pool_files_with_the_same_new_senses_in_other_orders_at_once_both_succeed():
    """The files hold the entries A/C and C/B, and B/C and C/A (one pair each, either
    order). A third transaction holds the sense C uncommitted until both imports wait, then
    commits. Each import creates all its senses first, in sorted order (A, B, C), so the
    second waits on the first's A and then finds both entries stored. Before, each created
    its senses row by row in the file's order: the first A, the second B, both waited on C,
    and then each waited on the sense the other held (A, B): a deadlock, one import failed."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    bank = Homonym.objects.create(form="bank")
    a, b, c = "a river side", "b money house", "c row of things"
    outcome = others_wait_then_commit(
        lambda: Sense.objects.create(homonym=bank, gloss=c, example_sentence=""),
        [
            lambda: pool_import(rows=[_row(a, c), _row(c, b)]),
            lambda: pool_import(rows=[_row(b, c), _row(c, a)]),
        ],
    )
    assert [type(o) for o in outcome] == [Sense, tuple, tuple], outcome
    assert sorted(outcome[1:]) == [(0, 2), (2, 0)], outcome
    assert sorted(Sense.objects.filter(homonym=bank).values_list("gloss", flat=True)) == [a, b, c]
    pairs = SensePair.objects.filter(homonym=bank)
    assert sorted(sorted((p.sense_a.gloss, p.sense_b.gloss)) for p in pairs) == [[a, c], [b, c]]


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("swapped", [True, False])
def test_the_same_stored_senses_added_as_a_pair_twice_at_once_make_one_entry(swapped):
    """Two entries of two stored senses at once, the second with a and b swapped or not:
    the second waits for the first's commit and gets its entry. Before, swapped, neither
    waited (``unique_sense_pair`` holds for one order) and two entries of one pair were
    stored; not swapped, the second failed on that constraint (an IntegrityError)."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    bank = Homonym.objects.create(form="bank")
    for gloss in ("an institution", "sloping land"):
        Sense.objects.create(homonym=bank, gloss=gloss, example_sentence="")
    glosses = ("an institution", "sloping land")
    second = glosses[::-1] if swapped else glosses
    outcome = second_waits_on_first(
        lambda: pair_add(form="bank", gloss_a=glosses[0], gloss_b=glosses[1]),
        lambda: pair_add(form="bank", gloss_a=second[0], gloss_b=second[1]),
    )
    assert [type(o) for o in outcome] == [tuple, tuple], outcome
    (pair, created), (again, created_again) = outcome
    assert (created, created_again) == (True, False)
    assert again.pk == pair.pk and SensePair.objects.filter(homonym=bank).count() == 1
