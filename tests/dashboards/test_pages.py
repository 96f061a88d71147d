"""Item explorer, setup view, ending effects and annotator quality."""

from __future__ import annotations

from datetime import timedelta

import pytest

from annotations.models import Rater, RaterExclusion, Rating, Sample
from tests.dashboards.helpers import import_run, import_setups, study_ratings

pytestmark = pytest.mark.django_db


def test_the_item_explorer_sorts_by_disagreement_and_marks_runs(researcher_client):
    split = import_setups(2)
    run = import_run(split, "threes", value=lambda i: 3)
    response = researcher_client.get("/dashboards/items/", {"sort": "sd"})
    rows = response.context["rows"]
    sds = [row.sample.sd for row in rows]
    assert sds == sorted(sds, reverse=True) and len(rows) == 12
    cell = rows[0].cells[0]
    assert cell.run == run and cell.score == 3.0
    from predictions.evaluation import is_within_sd

    assert cell.inside is is_within_sd(3.0, rows[0].labels)
    assert "open-ended" in response.content.decode()


def test_the_item_explorer_filters_and_sorts_by_a_runs_relative_error(researcher_client):
    split = import_setups(2)
    run = import_run(split, "ones", value=lambda i: 1)
    response = researcher_client.get(
        "/dashboards/items/", {"sort": "error", "run": run.id, "homonym": "word1", "ending": "open"}
    )
    rows = response.context["rows"]
    assert len(rows) == 2 and all(r.sample.story.ending == "" for r in rows)
    assert {r.sample.story.setup.homonym.form for r in rows} == {"word1"}
    errors = [r.sample.rel_error for r in rows]
    assert errors == sorted(errors, reverse=True)
    mean, sd = rows[0].sample.mean, rows[0].sample.sd
    assert errors[0] == pytest.approx(abs(1 - mean) / max(sd, 1))


def test_the_setup_view_shows_two_senses_by_three_stories(researcher_client):
    split = import_setups(1)
    import_run(split, "twos", value=lambda i: 2)
    setup_id = split.samples.first().story.setup_id
    response = researcher_client.get(f"/dashboards/setups/{setup_id}/")
    grid = response.context["grid"]
    cells = grid.grid()
    assert len(cells) == 2 and all(len(row) == 3 for _, row in cells)
    assert grid.stories[0].ending == ""  # open-ended first
    assert response.content.decode().count('class="hist"') == 6
    hist = researcher_client.get("/dashboards/charts/setup-histograms.json", {"setup": setup_id})
    assert sum(sum(v) for v in hist.json()["cells"].values()) == 30


def test_ending_effects_list_setups_whose_endings_fail_first(researcher_client):
    split = import_setups(2)
    # make setup 0's endings separate the senses: ending 1 favours sense 1, ending 2 sense 2
    samples = list(Sample.objects.filter(split=split).order_by("position"))
    wanted = {2: 5, 3: 1, 4: 1, 5: 5}  # positions 2..5 are the ended stories of setup 0
    for pos, score in wanted.items():
        Rating.objects.filter(sample=samples[pos]).update(score=score)
    response = researcher_client.get("/dashboards/endings/")
    effects = list(response.context["page"].object_list)
    assert [e.separates for e in effects] == [False, True]
    assert effects[1].homonym == "word0"
    assert effects[1].contrast == pytest.approx(4.0)
    assert "fail to separate" in response.content.decode()


def test_annotator_quality_flags_straight_lining_and_excludes_with_a_reason(researcher_client):
    split = import_setups(1)
    study_ratings(split, {"flat": [3] * 6, "extreme": [1, 5, 1, 5, 5, 1]})
    for k, rating in enumerate(Rating.objects.filter(rater__pseudonym="flat").order_by("id")):
        Rating.objects.filter(pk=rating.pk).update(
            started_at=rating.created_at - timedelta(seconds=1 + k % 3)  # 1, 2, 3, 1, 2, 3
        )
    response = researcher_client.get("/dashboards/annotators/")
    rows = {r.pseudonym: r for r in response.context["page"].object_list}
    assert rows["flat"].median_seconds == pytest.approx(2.0, abs=0.01)
    assert "fast" in rows["flat"].flags and rows["extreme"].median_seconds is None
    assert "straight-lining" in rows["flat"].flags
    assert "extremes only" in rows["extreme"].flags
    assert rows["flat"].items == 6
    flat = Rater.objects.get(pseudonym="flat")
    url = f"/dashboards/annotators/{flat.id}/exclusion/"
    refused = researcher_client.post(url, {"action": "exclude", "reason": ""}, follow=True)
    assert "Give a reason" in refused.content.decode()
    assert not RaterExclusion.objects.exists()
    researcher_client.post(url, {"action": "exclude", "reason": "straight-lining"})
    exclusion = RaterExclusion.objects.get(rater=flat)
    assert exclusion.reason == "straight-lining" and exclusion.source == "quality"
    after = researcher_client.get("/dashboards/annotators/")
    assert "flat" not in {r.pseudonym for r in after.context["page"].object_list}
    assert Rating.objects.filter(rater=flat).count() == 6  # nothing deleted
    researcher_client.post(url, {"action": "include"})
    assert RaterExclusion.objects.get(rater=flat).revoked_at is not None


def test_annotator_quality_shows_attention_check_results_and_flags_a_failure(researcher_client):
    from studies.models import Participant
    from studies.services import participant_arrive
    from tests.studies.helpers import open_study, pid, qualify, rate_all

    study = open_study(2, per_participant=2, ratings=2)
    passed, failed = (participant_arrive(study=study, pid=pid(n)) for n in (1, 2))
    for participant, check in ((passed, None), (failed, 3)):  # 3 is off every check
        participant = Participant.objects.get(pk=participant.pk)
        qualify(participant)
        rate_all(participant, check_score=check)
    response = researcher_client.get("/dashboards/annotators/?include_excluded=on")
    rows = {r.rater_id: r for r in response.context["page"].object_list}
    good, bad = rows[passed.rater_id], rows[failed.rater_id]
    assert (good.participant["checks_passed"], good.participant["checks_failed"]) == (1, 0)
    assert bad.participant["checks_failed"] == 1 and "failed attention check" in bad.flags
    assert "failed attention check" not in good.flags
    assert "1 failed" in response.content.decode()
