"""The task kinds' one home (``annotations.kinds``) agrees with the database choices and
with the texts studies shows per kind."""

from annotations import kinds
from annotations.models import GRADED_KINDS, TaskKind, score_range
from studies import defaults


def test_every_task_kind_has_one_record_and_its_texts():
    assert set(kinds.KINDS) == set(TaskKind.values) == set(defaults.KIND_TEXTS)


def test_score_ranges_and_graded_kinds_come_from_the_records():
    assert score_range(TaskKind.RELATEDNESS) == kinds.RELATEDNESS.score_range == (0, 4)
    assert score_range(TaskKind.PLAUSIBILITY) == (1, 5)
    assert set(GRADED_KINDS) == {TaskKind.PLAUSIBILITY, TaskKind.RELATEDNESS}


def test_no_kind_means_plausibility_and_an_unknown_one_is_refused():
    assert kinds.kind(None) is kinds.PLAUSIBILITY
    assert defaults.item_nouns("relatedness") == ("pair", "pairs")
    try:
        kinds.kind("tagging")
    except KeyError as exc:
        assert "tagging" in str(exc)
    else:
        raise AssertionError("an unknown kind was accepted")
