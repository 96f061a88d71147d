"""Item content versioning: a text corrected in a study is the study's own version; the
study's ratings of the old text are kept but outdated for the study (out of its aggregates)
and the sample is re-queued there. The reference text and its ratings stay as they were."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotations.exporters import iter_ambistory_json
from annotations.models import Rating, Sample, TextVersion
from annotations.rating_exports import iter_ratings_csv, ratings_for_export
from studies import researcher_reads, selectors, services
from studies.models import Slot, StudyText
from studies.text_corrections import sample_texts_correct

from .helpers import n_labels, open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db


def _rated_study():
    """One setup (6 samples), one rating each, everything rated."""
    study = open_study(1, per_participant=1, ratings=1, checks=0)
    for n in range(6):
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant)
    return study


def _with_ending(study) -> Sample:
    return Sample.objects.filter(studies=study).exclude(story__ending="").first()


def test_correcting_an_ending_makes_the_studys_own_version_and_outdates_its_ratings_there():
    study = _rated_study()
    sample = _with_ending(study)
    old = sample.story.ending
    changed = sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    both = set(Sample.objects.filter(story=sample.story).values_list("pk", flat=True))
    assert {s.pk for s in changed} == both and len(both) == 2  # the story's two senses
    sample.story.refresh_from_db()
    assert sample.story.ending == old and sample.story.version == 1  # the reference stays
    kept = TextVersion.objects.get(kind="story", object_id=sample.story_id)
    assert kept.version == 2 and kept.text == {"ending": "A new ending."}
    pin = StudyText.objects.get(study=study)
    assert (pin.kind, pin.object_id, pin.version) == ("story", sample.story_id, 2)
    rating = Rating.objects.get(sample=sample)
    assert rating.story_version == 1  # kept, on the version it was given on
    assert Rating.objects.valid().filter(sample=sample).get() == rating  # reference label
    assert not researcher_reads.sample_study_ratings(study, sample).get().is_current
    slots = Slot.objects.filter(study=study, sample=sample)
    assert sorted(slots.values_list("status", flat=True)) == ["free", "outdated"]
    short = researcher_reads.samples_short(study)
    assert {s.pk for s in short} == both and {s.n_outdated for s in short} == {1}
    assert {s.n_all for s in short} == {1}  # the reference's ratings still count


def test_the_next_participant_rates_the_new_text_and_it_counts():
    study = _rated_study()
    sample = _with_ending(study)
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    participant = services.participant_arrive(study=study, pid=pid(50))
    qualify(participant)
    item = selectors.batch_items(participant)[0]
    assert item.ending == "A new ending." and item.text_version == "1.2.1"
    rate_all(participant)
    assert Sample.objects.get(pk=item.sample_id).story_id == sample.story_id
    rating = Rating.objects.get(sample_id=item.sample_id, rater=participant.rater)
    assert (rating.setup_version, rating.story_version, rating.sense_version) == (1, 2, 1)
    assert researcher_reads.sample_study_ratings(study, rating.sample).get(pk=rating.pk).is_current
    assert len(researcher_reads.samples_short(study)) == 1  # the story's other sense, not yet
    # not a label of the reference text: the benchmark keeps the rating of the old ending
    assert not Rating.objects.valid().filter(pk=rating.pk).exists()
    assert Rating.objects.valid().filter(sample_id=item.sample_id).count() == 1


def test_an_answer_to_a_page_showing_the_old_text_is_refused_and_nothing_is_stored():
    study = open_study(1, per_participant=1, ratings=1, checks=0)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    item = selectors.batch_items(participant)[0]
    sample = Sample.objects.get(pk=item.sample_id)
    sample_texts_correct(study=study, sample=sample, texts={"sentence": "They followed it."})
    answer = services.Answer(score=4, text_version=item.text_version)
    with pytest.raises(services.TextChanged):
        services.item_save(participant=participant, position=item.position, answer=answer)
    assert not Rating.objects.filter(rater=participant.rater).exists()
    assert Slot.objects.get(participant=participant).status == "reserved"


def test_a_setup_edit_changes_every_sample_of_the_setup():
    study = _rated_study()
    sample = _with_ending(study)
    changed = sample_texts_correct(
        study=study, sample=sample, texts={"precontext": "Once upon a time."}
    )
    assert len(changed) == 6
    assert Slot.objects.filter(study=study, status="outdated").count() == 6
    assert Slot.objects.filter(study=study, status="free").count() == 6


def test_an_unchanged_text_makes_no_version():
    study = _rated_study()
    sample = _with_ending(study)
    assert (
        sample_texts_correct(study=study, sample=sample, texts={"ending": sample.story.ending})
        == []
    )
    assert not TextVersion.objects.exists()


def test_benchmark_exports_keep_the_reference_text_and_flag_study_versions_in_long_format(
    researcher_client,
):
    study = _rated_study()
    sample = _with_ending(study)
    old = sample.story.ending
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    newcomer = services.participant_arrive(study=study, pid=pid(50))
    qualify(newcomer)
    rate_all(newcomer)  # one of the story's samples, on the study's ending
    data = json.loads("".join(iter_ambistory_json(Sample.objects.filter(studies=study))))
    assert data[sample.dataset_id]["ending"] == old
    assert sum(n_labels(r) for r in data.values()) == 6  # the reference's ratings
    lines = "".join(iter_ratings_csv(ratings_for_export(include_outdated=True))).splitlines()
    assert lines[0].endswith(",setup_version,story_version,sense_version,outdated")
    flagged = [line for line in lines[1:] if line.endswith(",true")]
    assert len(flagged) == 1 and flagged[0].endswith(",1,2,1,true")
    default = "".join(iter_ratings_csv(ratings_for_export())).splitlines()
    assert len(default) == 1 + 6  # the ratings of the reference texts only by default
    # the study's own export: its texts, and its ratings given on them
    own = researcher_client.get(reverse("studies:export", args=[study.pk]))
    mine = json.loads(b"".join(own.streaming_content))
    assert mine[sample.dataset_id]["ending"] == "A new ending."
    assert sum(n_labels(r) for r in mine.values()) == 4 + 1  # 2 outdated, 1 new


def _one_sample_study(sample: Sample, slug: str):
    study = services.study_create(
        title=slug,
        slug=slug,
        samples=[sample],
        ratings_per_sample=1,
        samples_per_participant=1,
        attention_checks_per_batch=0,
        time_limit_minutes=60,
        completion_code="DONE1234",
        screenout_code="OUT98765",
    )
    return services.study_open(study=study)


def test_another_study_of_the_same_sample_keeps_showing_the_reference_text():
    study = _rated_study()
    sample = _with_ending(study)
    old = sample.story.ending
    other = _one_sample_study(sample, "other")
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    participant = services.participant_arrive(study=other, pid=pid(70))
    qualify(participant)
    item = selectors.batch_items(participant)[0]
    assert (item.ending, item.text_version) == (old, "1.1.1")
    rate_all(participant)
    rating = Rating.objects.get(rater=participant.rater)
    assert rating.story_version == 1 and Rating.objects.valid().filter(pk=rating.pk).exists()
    assert not Slot.objects.filter(study=other, status="outdated").exists()


def test_the_preview_shows_the_studys_own_version():
    study = _rated_study()
    sample = _with_ending(study)
    mine = _one_sample_study(sample, "mine")
    sample_texts_correct(study=mine, sample=sample, texts={"ending": "A new ending."})
    item = selectors.preview_items(mine)[0]
    assert (item.ending, item.text_version) == ("A new ending.", "1.2.1")
    assert selectors.preview_items(study)[0].text_version == "1.1.1"


def test_the_same_correction_in_two_studies_shares_a_version_and_undoing_it_unpins():
    study = _rated_study()
    sample = _with_ending(study)
    old = sample.story.ending
    second = _one_sample_study(sample, "second")
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    sample_texts_correct(study=second, sample=sample, texts={"ending": "A new ending."})
    assert TextVersion.objects.count() == 1
    assert set(StudyText.objects.values_list("version", flat=True)) == {2}
    sample_texts_correct(study=study, sample=sample, texts={"ending": old})
    assert list(StudyText.objects.values_list("study_id", flat=True)) == [second.pk]
    assert researcher_reads.sample_study_ratings(study, sample).get().is_current  # v1 again


def test_a_participant_cannot_change_an_answer_whose_text_was_edited():
    study = open_study(1, per_participant=1, ratings=1, checks=0)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    item = selectors.batch_items(participant)[0]
    services.item_save(participant=participant, position=item.position, answer=services.Answer(3))
    sample = Sample.objects.get(pk=item.sample_id)
    sample_texts_correct(study=study, sample=sample, texts={"sentence": "They followed it."})
    participant.refresh_from_db()
    with pytest.raises(services.StudyError):
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(5)
        )


def test_the_rating_page_sends_the_versions_it_showed_and_a_stale_answer_shows_the_new_text(
    client,
):
    from django.urls import reverse

    from .test_participant_views import arrive, qualify_by_post

    study = open_study(1, per_participant=1, ratings=1, checks=0, slug="stale")
    arrive(client, study, pid(1))
    qualify_by_post(client, study)
    url = reverse("participate:rate", args=["stale", 0])
    page = client.get(url).content.decode()
    assert 'name="text_version" value="1.1.1"' in page
    slot = Slot.objects.get(participant__prolific_pid=pid(1))
    sample_texts_correct(study=study, sample=slot.sample, texts={"sentence": "They followed it."})
    answer = {"score": 4, "comment": "", "text_version": "1.1.1"}
    response = client.post(url, answer)
    assert response.status_code == 303 and response["Location"] == url
    assert not Rating.objects.exists()
    page = client.get(url).content.decode()
    assert "They followed it." in page and "just been corrected" in page
    assert 'name="text_version" value="2.1.1"' in page
    response = client.post(url, {**answer, "text_version": "2.1.1"})
    assert response.status_code == 303 and response["Location"].endswith("/done/")
    assert Rating.objects.get().setup_version == 2


def test_the_script_gets_the_new_text_and_the_notice_in_its_answer(client):
    """participant.js posts a stale answer: nothing is stored and its answer is the same item
    with the new text and the notice (a redirect would be followed by fetch(), using the
    notice up before the script loads the page)."""
    from django.urls import reverse

    from .test_participant_views import arrive, qualify_by_post

    study = open_study(1, per_participant=1, ratings=1, checks=0, slug="stale-script")
    arrive(client, study, pid(2))
    qualify_by_post(client, study)
    url = reverse("participate:rate", args=["stale-script", 0])
    client.get(url)
    slot = Slot.objects.get(participant__prolific_pid=pid(2))
    sample_texts_correct(study=study, sample=slot.sample, texts={"sentence": "They followed it."})
    answer = {"score": 4, "comment": "", "text_version": "1.1.1"}
    response = client.post(url, answer, headers={"X-Rating-Page": "1"})
    assert response.status_code == 200 and response["X-Page-Url"] == url
    page = response.content.decode()
    assert "They followed it." in page and "just been corrected" in page
    assert 'name="text_version" value="2.1.1"' in page
    assert not Rating.objects.exists()
    assert "just been corrected" not in client.get(url).content.decode()  # shown once


def _statuses(study, sample) -> list[str]:
    return sorted(Slot.objects.filter(study=study, sample=sample).values_list("status", flat=True))


def test_excluding_a_rater_whose_rating_was_outdated_opens_no_second_replacement():
    study = _rated_study()
    sample = _with_ending(study)
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    assert _statuses(study, sample) == ["free", "outdated"]
    rater = Rating.objects.get(sample=sample).rater
    services.participant_exclude(rater=rater, source="manual", reason="bot")
    assert _statuses(study, sample) == ["free", "outdated"]  # one rating wanted, one place
    services.participant_include(rater=rater)
    assert _statuses(study, sample) == ["free", "outdated"]  # still a rating of the old text


def test_including_again_a_rater_whose_rating_was_outdated_meanwhile_keeps_the_new_place():
    study = _rated_study()
    sample = _with_ending(study)
    rater = Rating.objects.get(sample=sample).rater
    services.participant_exclude(rater=rater, source="manual", reason="bot")
    assert _statuses(study, sample) == ["free", "void"]
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    services.participant_include(rater=rater)
    assert _statuses(study, sample) == ["free", "outdated"]  # the new text still needs a rating
    assert sample.pk in {s.pk for s in researcher_reads.samples_short(study)}
