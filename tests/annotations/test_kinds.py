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
    assert set(GRADED_KINDS) == {TaskKind.PLAUSIBILITY, TaskKind.RELATEDNESS, TaskKind.USE_PAIR}


def test_no_kind_means_plausibility_and_an_unknown_one_is_refused():
    assert kinds.kind(None) is kinds.PLAUSIBILITY
    assert defaults.item_nouns("relatedness") == ("pair", "pairs")
    try:
        kinds.kind("tagging")
    except KeyError as exc:
        assert "tagging" in str(exc)
    else:
        raise AssertionError("an unknown kind was accepted")


def test_every_task_kind_has_its_page_part_and_cannot_decide_never_passes_a_check():
    from studies import kind_pages

    assert {k: kind_pages.get(k).kind for k in kinds.KINDS} == {k: k for k in kinds.KINDS}
    assert kinds.USE_PAIR.undecided == 0 and kinds.RELATEDNESS.undecided is None
    assert not kinds.check_passes("use_pair", expected=1, tolerance=1, score=0)
    assert kinds.check_passes("use_pair", expected=1, tolerance=1, score=2)
    assert kinds.check_passes("relatedness", expected=1, tolerance=1, score=0)
