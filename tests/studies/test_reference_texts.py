"""Issue 28, item 1: reference data is immutable by default. A correction made in a study is
the study's own version and never changes the benchmark (the dev reference export stays
byte-identical to the official solution, runs are scored on all 588 samples); changing a
reference text is a separate action, confirmed with the number of labels it changes; the
scoring pages say when a split's labels differ from the imported ones, and only then."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotations.exporters import iter_ambistory_json, iter_reference_jsonl
from annotations.models import Rating, Sample, TextVersion
from predictions.io.importers import predictions_import
from predictions.runs.scoring import run_score
from studies import researcher_reads, selectors, services
from studies.forms import SampleTextsForm
from studies.models import StudyText
from studies.shown_texts import shown_texts_of
from tests.conftest import CONFORMANCE, DATA

from .helpers import open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db

NEW_ENDING = "A small trail of drool appeared on his chin as he watched the puppies play."
NOTICE = "differ from its imported state"


def _reference_export(split) -> str:
    return "".join(iter_reference_jsonl(Sample.objects.filter(split=split)))


def _official_solution() -> str:
    return (CONFORMANCE / "dev_solution.jsonl").read_text(encoding="utf-8")


def _dev_run(split):
    with open(CONFORMANCE / "pred_random.jsonl", encoding="utf-8") as handle:
        return predictions_import(split=split, name="pred_random", lines=handle)


def _dev8_and_study(dev_split):
    """dev/8 and a pilot study of its story's two samples (both senses)."""
    sample = Sample.objects.with_related().get(split=dev_split, dataset_id="8")
    pair = list(Sample.objects.filter(story=sample.story).order_by("position"))
    study = open_study(samples=pair, per_participant=1, ratings=1, checks=0, slug="pilot")
    return sample, study


def _post_texts(client, name: str, study, sample, **texts):
    url = reverse(f"studies:{name}", args=[study.pk, sample.pk])
    return client.post(url, {**SampleTextsForm.initial_for(sample), **texts})


def _scored_pages(client, run) -> tuple[str, str]:
    board = client.get("/dashboards/leaderboard/").content.decode()
    page = client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    return board, page


def test_a_dev_ending_corrected_in_a_study_leaves_the_reference_export_and_all_588_scores(
    researcher_client, dev_split
):
    run = _dev_run(dev_split)
    before = dict(run.scores)
    sample, study = _dev8_and_study(dev_split)
    response = _post_texts(researcher_client, "sample_texts", study, sample, ending=NEW_ENDING)
    assert response.status_code == 302
    assert shown_texts_of(study, sample)["ending"] == NEW_ENDING  # the study's version
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    assert selectors.batch_items(participant)[0].ending == NEW_ENDING
    rate_all(participant)  # a rating of the corrected text
    assert Rating.objects.get(rater=participant.rater).story_version == 2

    assert _reference_export(dev_split) == _official_solution()  # byte for byte
    ambistory = "".join(iter_ambistory_json(Sample.objects.filter(split=dev_split)))
    assert ambistory == (DATA / "dev.json").read_text(encoding="utf-8")
    assert run_score(run=run)["total"] == 588
    assert {k: v for k, v in run.scores.items() if k != "scored_at"} == {
        k: v for k, v in before.items() if k != "scored_at"
    }
    board, page = _scored_pages(researcher_client, run)
    assert "263/588" in board and "263/588" in page
    assert NOTICE not in board and NOTICE not in page


def test_the_reference_edit_reports_the_changed_labels_then_changes_them_once_confirmed(
    researcher_client, dev_split
):
    run = _dev_run(dev_split)
    sample, study = _dev8_and_study(dev_split)
    shown = _post_texts(researcher_client, "reference_texts", study, sample, ending=NEW_ENDING)
    html = shown.content.decode()
    assert shown.status_code == 200 and shown.context["impact"].labels == 2
    assert "This changes the labels of 2 samples" in html
    assert "10 ratings stop counting, 10 of them imported" in html
    assert 'name="confirm_labels" value="2"' in html
    assert _reference_export(dev_split) == _official_solution()  # nothing written yet

    wrong = _post_texts(
        researcher_client, "reference_texts", study, sample, ending=NEW_ENDING, confirm_labels=1
    )
    assert wrong.status_code == 200 and "changes the labels of 2 samples, not 1" in (
        wrong.content.decode()
    )
    assert not TextVersion.objects.exists()
    board, page = _scored_pages(researcher_client, run)
    assert NOTICE not in board and NOTICE not in page

    done = _post_texts(
        researcher_client, "reference_texts", study, sample, ending=NEW_ENDING, confirm_labels=2
    )
    assert done.status_code == 302
    sample.story.refresh_from_db()
    assert (sample.story.ending, sample.story.version) == (NEW_ENDING, 2)
    lines = _reference_export(dev_split).splitlines()
    official = _official_solution().splitlines()
    # the 2 samples whose labels stopped counting are left out (no label to write), the
    # other 586 lines are the official ones
    story_ids = set(Sample.objects.filter(story=sample.story).values_list("dataset_id", flat=True))
    assert len(story_ids) == 2
    assert [line for line in official if line not in lines] == [
        line for line in official if json.loads(line)["id"] in story_ids
    ]
    assert len(lines) == 586 and set(lines) <= set(official)
    assert run_score(run=run)["total"] == 586
    board, page = _scored_pages(researcher_client, run)
    assert NOTICE in board and NOTICE in page
    assert "10 imported ratings no longer count" in page


def test_a_study_correction_made_the_reference_brings_the_studys_ratings_into_the_labels(
    dev_split,
):
    from studies.text_corrections import sample_reference_edit, sample_texts_correct

    sample, study = _dev8_and_study(dev_split)
    sample_texts_correct(study=study, sample=sample, texts={"ending": NEW_ENDING})
    participant = services.participant_arrive(study=study, pid=pid(2))
    qualify(participant)
    rate_all(participant)
    rating = Rating.objects.get(rater=participant.rater)
    assert not Rating.objects.valid().filter(pk=rating.pk).exists()
    with pytest.raises(services.StudyError):
        sample_reference_edit(sample=sample, texts={"ending": NEW_ENDING}, confirm_labels=0)
    done = sample_reference_edit(sample=sample, texts={"ending": NEW_ENDING}, confirm_labels=2)
    assert (done.impact.leaving, done.impact.imported, done.impact.joining) == (10, 10, 1)
    assert Rating.objects.valid().filter(sample=rating.sample).get() == rating
    assert StudyText.objects.get(study=study).version == sample.story.version + 1 == 2
    assert researcher_reads.sample_study_ratings(study, rating.sample).get().is_current
    assert TextVersion.objects.get(kind="story").text == {"ending": sample.story.ending}


def test_a_reference_edit_requeues_studies_showing_the_reference_but_not_their_own_version(
    dev_split,
):
    from studies.models import Slot
    from studies.text_corrections import sample_reference_edit, sample_texts_correct

    sample, study = _dev8_and_study(dev_split)
    pair = list(Sample.objects.filter(story=sample.story))
    other = open_study(samples=pair, per_participant=1, ratings=1, checks=0, slug="other")
    for n, each in enumerate((study, other)):
        participant = services.participant_arrive(study=each, pid=pid(10 + n))
        qualify(participant)
        rate_all(participant)
    sample_texts_correct(study=study, sample=sample, texts={"ending": "Its own ending."})
    assert Slot.objects.filter(study=study, status="outdated").count() == 1
    sample_reference_edit(sample=sample, texts={"ending": NEW_ENDING}, confirm_labels=2)
    assert Slot.objects.filter(study=study, status="outdated").count() == 1  # kept its own
    assert Slot.objects.filter(study=other, status="outdated").count() == 1
    sample = Sample.objects.with_related().get(pk=sample.pk)
    assert shown_texts_of(study, sample)["ending"] == "Its own ending."
    assert shown_texts_of(other, sample)["ending"] == NEW_ENDING
