"""Adaptive allocation: the pure growth rule, growth rounds on a study, and arrivals told to
come back while the ratings that decide growth are still being given."""

from __future__ import annotations

import math

import pytest

from annotations.models import Rating, Sample
from studies import services
from studies.adaptive import SampleState, grow, interval_width
from studies.growth import slots_grow
from studies.models import Slot

from .helpers import open_study, pid, qualify


def test_interval_width_is_the_95_percent_t_interval():
    assert interval_width([1, 5]) == pytest.approx(2 * 12.706 * math.sqrt(8) / math.sqrt(2))
    assert interval_width([3, 3, 3]) == 0
    assert interval_width([3, 3, 3], sd_floor=0.5) == pytest.approx(2 * 4.303 * 0.5 / math.sqrt(3))
    assert interval_width([4]) == math.inf


def _state(key, group, scores, wanted=None, pending=0):
    return SampleState(key, group, tuple(scores), wanted or len(scores), pending)


def test_growth_goes_to_the_widest_samples_never_above_the_maximum():
    states = [
        _state("wide", 1, [1, 5, 3]),
        _state("narrow", 2, [3, 3, 4]),
        _state("agreed", 3, [2, 2, 2]),
        _state("full", 4, [1, 5, 1, 5]),
        _state("waiting", 5, [1, 5], wanted=3, pending=1),
    ]
    # eligible: "wide" and "narrow" ("agreed" is precise, "full" at its maximum, "waiting"
    # still waits for a rating); a round takes the widest half, at least one batch's worth
    picks = grow(states, maximum=4, target_width=1.0, budget_left=10, batch_groups=1)
    assert picks == ["wide"]
    picks = grow(states, maximum=4, target_width=1.0, budget_left=10, batch_groups=2)
    assert picks == ["wide", "narrow"]
    assert grow(states, maximum=4, target_width=1.0, budget_left=1, batch_groups=2) == []


def test_growth_adds_nothing_that_no_batch_of_distinct_setups_could_use():
    states = [_state("a", 1, [1, 5, 3]), _state("b", 1, [1, 4, 3])]
    assert grow(states, maximum=9, target_width=0, budget_left=10, batch_groups=2) == []
    free = frozenset({7})
    picks = grow(
        states, maximum=9, target_width=0, budget_left=10, batch_groups=2, free_groups=free
    )
    assert sorted(picks) == ["a", "b"]


def _rate(participant, disagreed: set[int]) -> None:
    """3 for most samples; 1, 5, 1, ... in turn for the ``disagreed`` ones."""
    from studies.selectors import batch_items

    slots = {s.position: s.sample_id for s in Slot.objects.filter(participant=participant)}
    for item in batch_items(participant):
        sample_id = slots[item.position]
        score = 3
        if sample_id in disagreed:
            score = 5 if Rating.objects.filter(sample_id=sample_id).count() % 2 else 1
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )


@pytest.mark.django_db
@pytest.mark.parametrize("rule", ["widest", "variance"])
def test_a_study_grows_the_disagreed_samples_until_the_budget_and_then_is_full(rule):
    study = open_study(
        2, per_participant=2, ratings=2, checks=0, adaptive=True, max_ratings_per_sample=3,
        target_width=0.5, rating_budget=26, adaptive_rule=rule,
    )  # fmt: skip
    samples = list(study.samples.order_by("position").values_list("id", flat=True))
    assert Slot.objects.filter(study=study).count() == 24
    n = 0
    disagreed = {samples[0], samples[6]}
    while True:
        try:
            participant = services.participant_arrive(study=study, pid=pid(n))
        except services.StudyFull:
            break
        qualify(participant)
        _rate(participant, disagreed)
        n += 1
    counted = Slot.objects.filter(study=study).exclude(status="void")
    assert counted.count() == 26  # the budget: 24 + one more for each disagreed sample
    per_sample = {sid: counted.filter(sample_id=sid).count() for sid in samples}
    assert per_sample[samples[0]] == per_sample[samples[6]] == 3
    assert sum(per_sample.values()) == 26
    assert Rating.objects.filter(rater__participant__study=study).count() == 26
    assert not counted.exclude(status="done").exists()


@pytest.mark.django_db
def test_an_arrival_while_growth_waits_for_ratings_is_told_to_come_back():
    study = open_study(
        1, per_participant=1, ratings=1, checks=0, adaptive=True, max_ratings_per_sample=3,
        target_width=0.1,
    )  # fmt: skip
    held = [services.participant_arrive(study=study, pid=pid(n)) for n in range(6)]
    with pytest.raises(services.StudyBusy):
        services.participant_arrive(study=study, pid=pid(99))
    assert slots_grow(study) == 0  # nothing rated yet: nothing to decide on
    for participant in held:
        qualify(participant)
    with pytest.raises(services.StudyBusy, match="ratings being given"):
        services.participant_arrive(study=study, pid=pid(99))


@pytest.mark.django_db
def test_a_fixed_study_never_grows():
    study = open_study(2, per_participant=2, ratings=1, checks=0)
    assert slots_grow(study) == 0


@pytest.mark.django_db
def test_growth_reads_only_the_ratings_of_the_current_texts():
    from studies.growth import _growth_states
    from studies.text_corrections import sample_texts_correct

    study = open_study(1, per_participant=1, ratings=2, checks=0, adaptive=True)
    target = Sample.objects.filter(studies=study).order_by("position").first()
    for n in range(12):
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        _rate(participant, {target.pk})
    before = {s.key: s for s in _growth_states(study)}[target.pk]
    assert sorted(before.scores) == [1, 5] and before.pending == 0
    sample_texts_correct(study=study, sample=target, texts={"sentence": "They followed it."})
    after = {s.key: s for s in _growth_states(study)}
    assert after[target.pk].scores == () and after[target.pk].wanted == 2  # re-queued
    assert all(s.pending == 2 for s in after.values())  # the whole setup was edited


@pytest.mark.django_db
def test_the_study_form_refuses_a_maximum_below_the_ratings_naming_the_field():
    from annotations.models import Split
    from studies.forms import StudyForm

    from .helpers import unrated_setups

    unrated_setups(2)
    data = {
        "title": "Adaptive", "slug": "adaptive", "split": Split.objects.get(name="study").pk,
        "endings": "all", "ratings_per_sample": 5, "samples_per_participant": 2,
        "time_limit_minutes": 30, "completion_code": "C", "screenout_code": "S",
        "guidelines": "g", "adaptive": "on", "max_ratings_per_sample": 3,
    }  # fmt: skip
    form = StudyForm(data)
    assert not form.is_valid()
    assert form.errors["max_ratings_per_sample"] == [
        "The maximum ratings per sample must be at least the ratings per sample."
    ]
    assert StudyForm({**data, "max_ratings_per_sample": 5}).is_valid()
    assert StudyForm({**data, "adaptive": "", "max_ratings_per_sample": 3}).is_valid()
