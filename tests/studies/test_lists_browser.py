"""A list-design study's page in real headless Chromium at 390x844: the lists table and the
upload form fit the phone (the table scrolls in its own box, never the page), and a bad file's
message names its line."""

from __future__ import annotations

import pytest

from studies import services
from tests.conftest import screenshot

from .helpers import unrated_setups
from .test_study_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_the_lists_section_fits_a_phone_and_an_upload_error_names_the_line(
    browser, live_server, researcher, tmp_path
):
    samples = unrated_setups(4)
    study = services.study_create(
        title="Lists on a phone",
        slug="lists-phone",
        samples=samples,
        assignment="lists",
        ratings_per_sample=5,
        samples_per_participant=4,
        attention_checks_per_batch=0,
    )
    page = browser.new_context(viewport=PHONE).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server, f"/studies/{study.pk}/")
    assert page.is_visible("#lists-none")
    page.click("text=Make lists from the samples")
    page.wait_for_selector("#list-fill")
    assert page.locator("#list-fill tbody tr").count() == 6
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    bad = tmp_path / "lists.csv"
    bad.write_text(f"{samples[0].dataset_id}\n{samples[1].dataset_id},{samples[2].dataset_id}\n")
    page.set_input_files("#lists-upload input[type=file]", str(bad))
    page.click("#lists-upload button")
    page.wait_for_selector(".messages li")
    assert "line 2: list 2:" in page.text_content(".messages li")
    assert page.locator("#list-fill tbody tr").count() == 6  # unchanged
    screenshot(page, "study-lists-390")
    assert errors == []
