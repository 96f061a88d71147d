"""Study-scoped monitoring, closing with confirmation, the staff preview, the comments and
flags view and the new-study form (issue 12, researcher side)."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Rater, Rating, Sample
from studies import researcher_reads, selectors, services, study_texts
from studies.forms import StudyForm
from studies.models import AttentionAnswer, Participant, Slot, Study
from studies.templatetags.study_text import minutes_text
from tests.factories import ambistory_setup

from .helpers import n_labels, open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db


def rated_setups(n_setups: int, split: str = "rated") -> list[Sample]:
    """``n_setups`` setups x 6 samples, each with 5 imported ratings (like the dev split)."""
    data = {}
    for i in range(n_setups):
        data.update(ambistory_setup(i * 6, homonym=f"word{i}"))
    ambistory_import(samples=parse_ambistory(data), split=split)
    return list(Sample.objects.filter(split__name=split).order_by("position"))


def test_a_study_on_a_rated_split_counts_only_its_own_ratings():
    samples = rated_setups(4)
    study = open_study(samples=samples, per_participant=4, ratings=2)
    stats = {s.pk: s for s in researcher_reads.study_samples_with_stats(study)}
    assert all(s.n_ratings == 0 and s.n_all == 5 and s.mean is None for s in stats.values())
    assert len(researcher_reads.samples_short(study)) == 24
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    rated = set(Rating.objects.filter(rater=participant.rater).values_list("sample_id", flat=True))
    stats = {s.pk: s for s in researcher_reads.study_samples_with_stats(study)}
    for pk in rated:
        assert (stats[pk].n_ratings, stats[pk].mean, stats[pk].n_all) == (1, 3.0, 6)
    assert len(researcher_reads.samples_short(study)) == 24  # 2 wanted: one each is not enough
    assert researcher_reads.study_ratings(study).count() == 4


def test_the_export_holds_the_study_ratings_unless_all_are_asked_for(researcher_client):
    samples = rated_setups(4)
    study = open_study(samples=samples, per_participant=4, ratings=2)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    url = reverse("studies:export", args=[study.pk])
    own = json.loads(b"".join(researcher_client.get(url).streaming_content))
    every = json.loads(b"".join(researcher_client.get(url + "?ratings=all").streaming_content))
    assert sorted(n_labels(r) for r in own.values()) == [0] * 20 + [1] * 4
    assert sorted(n_labels(r) for r in every.values()) == [5] * 20 + [6] * 4


def test_the_export_reads_its_flags_as_every_other_export_and_refuses_a_bad_value(
    researcher_client, researcher
):
    from annotations.services import rater_exclude

    study = open_study(samples=rated_setups(4), per_participant=4, ratings=2)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    rater_exclude(rater=participant.rater, source="manual", reason="test", by=researcher)
    url = reverse("studies:export", args=[study.pk])

    def n_choices(query: str) -> int:
        body = b"".join(researcher_client.get(url + query).streaming_content)
        return sum(n_labels(r) for r in json.loads(body).values())

    assert n_choices("") == 0
    assert n_choices("?include_excluded=1") == n_choices("?include_excluded=true") == 4
    assert n_choices("?ratings=all&include_excluded=yes") == 24 * 5 + 4
    for query, name in (
        ("?include_excluded=maybe", "include_excluded"),
        ("?ratings=al", "ratings"),
    ):
        response = researcher_client.get(url + query)
        assert response.status_code == 400 and name.encode() in response.content


def test_the_study_page_shows_this_study_and_all_ratings(researcher_client):
    study = open_study(samples=rated_setups(4), per_participant=4, ratings=2)
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert re.search(r'id="n-short">24<', page)
    assert 'id="study-ratings">0<' in page
    row = re.search(r'<tr id="sample-\d+">(.*?)</tr>', page, re.S).group(1)
    assert '<td class="num n">0</td>' in row and '<td class="num all">5</td>' in row


def test_closing_asks_for_confirmation_and_says_who_can_finish(researcher_client):
    study = open_study()
    services.participant_arrive(study=study, pid=pid(1))
    url = reverse("studies:close", args=[study.pk])
    page = researcher_client.get(url).content.decode()
    assert "cannot be undone" in page and 'id="n-active">1<' in page
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN  # a GET closes nothing
    response = researcher_client.post(url, {"confirm": "close"})
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED


def test_the_generic_action_url_cannot_close_without_the_confirm_page(researcher_client):
    study = open_study()
    response = researcher_client.post(reverse("studies:action", args=[study.pk, "close"]))
    assert response.status_code == 200 and b"cannot be undone" in response.content
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN


def test_flash_messages_name_no_internal_id(researcher_client):
    study = open_study()
    response = researcher_client.post(
        reverse("studies:action", args=[study.pk, "pause"]), follow=True
    )
    text = [str(m) for m in response.context["messages"]]
    assert text == ["Study paused."]


def _counts() -> tuple:
    return (
        Participant.objects.count(),
        Rater.objects.count(),
        Rating.objects.count(),
        AttentionAnswer.objects.count(),
        list(Slot.objects.order_by("pk").values_list("status", "participant_id")),
    )


@pytest.mark.parametrize("open_it", [False, True])
def test_the_preview_walks_the_whole_flow_and_stores_nothing(researcher_client, open_it):
    samples = rated_setups(4)
    study = services.study_create(
        title="Preview me",
        slug="preview-me",
        samples=samples,
        ratings_per_sample=2,
        samples_per_participant=4,
        attention_checks_per_batch=1,
        completion_code="DONE1234",
        screenout_code="OUT98765",
    )
    if open_it:
        study = services.study_open(study=study)
    before = _counts()
    c = researcher_client
    assert "Welcome" in c.get(reverse("studies:preview", args=[study.pk])).content.decode()
    assert c.get(reverse("studies:preview_guidelines", args=[study.pk])).status_code == 200
    url = reverse("studies:preview_qualification", args=[study.pk])
    page = c.get(url).content.decode()
    assert "The displayed meaning is the only plausible meaning" in page
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.filter(in_qualification=True)}
    response = c.post(url, answers)
    assert response["Location"].endswith("/preview/rate/0/")
    items = selectors.preview_items(study)
    assert len(items) == 5
    for pos in range(5):
        rate_url = reverse("studies:preview_rate", args=[study.pk, pos])
        assert "<h1" in c.get(rate_url).content.decode()
        response = c.post(rate_url, {"score": 3, "comment": "x", "nonsensical": "on"})
        assert response.status_code == 302
    assert response["Location"].endswith("/preview/done/")
    assert "DONE1234" in c.get(response["Location"]).content.decode()
    wrong = {name: 3 for name in answers}
    assert "OUT98765" in c.post(url, wrong).content.decode()
    assert _counts() == before


def test_the_preview_is_for_researchers_only(client):
    study = open_study()
    response = client.get(reverse("studies:preview", args=[study.pk]))
    assert response.status_code == 302 and "login" in response["Location"]


def test_comments_and_flags_per_study_and_per_item(researcher_client):
    study = open_study(samples=rated_setups(4), per_participant=4, ratings=2)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    mine = Rating.objects.filter(rater=participant.rater).order_by("sample_id")
    first, second = mine[0], mine[1]
    Rating.objects.filter(pk=first.pk).update(comment="the ending contradicts itself")
    Rating.objects.filter(pk=second.pk).update(nonsensical=True)
    url = reverse("studies:feedback", args=[study.pk])
    page = researcher_client.get(url).content.decode()
    assert "the ending contradicts itself" in page
    assert page.count('<strong class="excluded">yes</strong>') == 1
    assert participant.prolific_pid not in page and participant.rater.pseudonym in page
    page = researcher_client.get(f"{url}?sample={second.sample_id}").content.decode()
    assert "the ending contradicts itself" not in page and 'id="feedback-sample"' in page
    assert [r.pk for r in researcher_reads.study_feedback(study)] == [second.pk, first.pk] or set(
        r.pk for r in researcher_reads.study_feedback(study)
    ) == {first.pk, second.pk}


def test_the_participants_table_has_times_attention_and_the_exclusion_reason(researcher_client):
    study = open_study(per_participant=4, ratings=2)
    done = services.participant_arrive(study=study, pid=pid(1))
    qualify(done)
    rate_all(done, check_score=3)  # 3 is outside every default check's tolerance
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    row = re.search(rf'<tr id="participant-{done.pk}">(.*?)</tr>', page, re.S).group(1)
    done.refresh_from_db()
    assert done.rater.pseudonym in row and done.prolific_pid in row
    assert "Finished" in row and "1 failed" in row
    assert "excluded</strong>:" in row
    assert done.minutes_taken is not None and done.minutes_taken >= 0


def test_the_new_study_form_has_defaults_labels_and_the_right_split_help():
    form = StudyForm()
    assert form["prolific_completion_url"].value() == (
        "https://app.prolific.com/submissions/complete?cc={code}"
    )
    assert not form.fields["prolific_completion_url"].required
    assert form.fields["time_limit_minutes"].label == "Time limit (minutes)"
    assert "Leave empty" not in form.fields["split"].help_text
    assert "from the title" in form.fields["slug"].help_text
    assert form.fields["slug"].widget.attrs["data-slug-from"] == "id_title"
    study = open_study()
    assert "Leave empty" in StudyForm(instance=study).fields["split"].help_text


def test_minutes_are_pluralised_and_rounded_up():
    assert minutes_text(60) == "1 minute"
    assert minutes_text(61) == "2 minutes"
    assert minutes_text(0) == "0 minutes"
    assert minutes_text(42 * 60) == "42 minutes"


def test_the_duration_estimate_uses_finished_participants_once_there_are_three():
    study = open_study(per_participant=4, ratings=3, minutes=60)
    assert study_texts.duration_estimate(study) == 5 + 4 + 1
    from datetime import timedelta

    for n, minutes in enumerate((12, 20, 30), start=1):
        p = services.participant_arrive(study=study, pid=pid(n))
        Participant.objects.filter(pk=p.pk).update(
            status=Participant.Status.FINISHED,
            finished_at=p.started_at + timedelta(minutes=minutes),
        )
    assert study_texts.duration_estimate(study) == 20


def test_the_duration_estimate_takes_the_lower_middle_of_an_even_count():
    """Four finishers (10, 12, 20, 30 minutes): the estimate is the lower of the two middle
    ones, on PostgreSQL (its percentile_disc) as on SQLite."""
    from datetime import timedelta

    study = open_study(per_participant=4, ratings=3, minutes=60)
    for n, minutes in enumerate((30, 10, 20, 12), start=1):
        p = services.participant_arrive(study=study, pid=pid(n))
        Participant.objects.filter(pk=p.pk).update(
            status=Participant.Status.FINISHED,
            finished_at=p.started_at + timedelta(minutes=minutes, seconds=30),
        )
    assert study_texts.duration_estimate(study) == 13  # 12.5 minutes, rounded up
