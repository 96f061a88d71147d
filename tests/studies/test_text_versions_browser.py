"""Issue 17 in real headless Chromium: a researcher edits an ending while the study is open;
the next participant rates the new text; the study page shows the old ratings as outdated
and the samples as short again."""

from __future__ import annotations

import re

import pytest

from annotations.models import Rating, Sample
from studies import services
from studies.models import Participant
from tests.conftest import screenshot

from .helpers import open_study, pid, qualify, rate_all
from .test_study_browser import arrive, log_in
from .test_study_browser import qualify as qualify_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_ENDING = "The track ended at a locked gate, and nobody had the key."


def test_an_ending_edited_during_an_open_study_is_rated_anew_and_old_ratings_show_outdated(
    browser, live_server, researcher
):
    study = open_study(1, per_participant=1, ratings=1, checks=0, slug="edit")
    for n in range(6):  # every sample rated once: the study is full
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant)
    sample = Sample.objects.filter(studies=study).exclude(story__ending="").first()
    pair = set(Sample.objects.filter(story=sample.story).values_list("pk", flat=True))

    staff = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(staff, live_server, f"/studies/{study.pk}/")
    assert staff.text_content("#n-short").strip() == "0"
    staff.click(f"#sample-{sample.pk} a.edit-texts")
    staff.wait_for_url(re.compile(rf"/samples/{sample.pk}/texts/$"))
    staff.fill("#id_ending", NEW_ENDING)
    staff.click("#save-texts")
    staff.wait_for_url(re.compile(rf"/studies/{study.pk}/(#sample-\d+)?$"))
    screenshot(staff, "study-after-text-edit")
    assert staff.text_content("#n-short").strip() == "2"  # the story's two senses
    for pk in pair:
        assert staff.text_content(f"#sample-{pk} td.outdated").strip() == "1 outdated"
        assert staff.text_content(f"#sample-{pk} td.n").strip() == "0"
    staff.goto(f"{live_server.url}/studies/{study.pk}/?short=1")  # the short filter
    shown = staff.locator("#sample-stats tbody tr[id^=sample-]").evaluate_all(
        "rows => rows.map(r => Number(r.id.slice(7)))"
    )
    assert set(shown) == pair
    staff.goto(f"{live_server.url}/studies/{study.pk}/")

    crowd = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    arrive(crowd, live_server, "edit", pid(50))
    crowd.click("#start-qualification")
    qualify_in_page(crowd, study)
    crowd.wait_for_url(re.compile(r"/s/edit/rate/0/$"))
    assert NEW_ENDING in crowd.text_content("#story")
    crowd.keyboard.press("4")
    crowd.keyboard.press("Enter")
    crowd.wait_for_url(re.compile(r"/s/edit/done/$"))
    newcomer = Participant.objects.get(prolific_pid=pid(50))
    rating = Rating.objects.get(rater=newcomer.rater)
    assert rating.sample_id in pair and rating.story_version == 2

    staff.reload()
    assert staff.text_content("#n-short").strip() == "1"
    assert staff.text_content(f"#sample-{rating.sample_id} td.n").strip() == "1"
    assert staff.text_content(f"#sample-{rating.sample_id} td.mean").strip() == "4.00"
    staff.click(f"#sample-{rating.sample_id} a.edit-texts")
    rows = staff.locator("#sample-ratings tbody tr")
    assert rows.count() == 2
    assert "outdated" in rows.nth(0).text_content() and "1.1.1" in rows.nth(0).text_content()
    assert "current text" in rows.nth(1).text_content() and "1.2.1" in rows.nth(1).text_content()
    assert staff.locator("#text-history tbody tr").count() == 1


def test_the_reference_edit_is_confirmed_with_its_label_count_on_a_phone_with_the_keyboard(
    browser, live_server, researcher
):
    """The reference-edit page at 390x844: the first step shows the number of labels that
    change (announced as a status), the keyboard confirms it, and the study page says so."""
    study = open_study(1, per_participant=1, ratings=1, checks=0, slug="reference")
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    rated = Rating.objects.get(rater=participant.rater).sample
    staff = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(staff, live_server, f"/studies/{study.pk}/samples/{rated.pk}/texts/")
    staff.click("#edit-reference")
    staff.wait_for_url(re.compile(rf"/samples/{rated.pk}/reference/$"))
    staff.fill("#id_sentence", "They followed it closely.")
    staff.focus("#check-reference")
    staff.keyboard.press("Enter")
    staff.wait_for_selector("#impact")
    assert staff.get_attribute("#impact", "role") == "status"
    assert "This changes the labels of 1 sample" in staff.text_content("#impact")
    assert staff.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(staff, "reference-edit-impact-phone")
    staff.focus("#confirm-reference")
    staff.keyboard.press("Enter")
    staff.wait_for_url(re.compile(rf"/studies/{study.pk}/(#sample-\d+)?$"))
    assert "the labels of 1 sample changed" in staff.text_content("body")
    rated.story.setup.refresh_from_db()
    assert rated.story.setup.sentence == "They followed it closely."
    assert not Rating.objects.valid().filter(sample__studies=study).exists()
