"""Figure 3's Back button in real headless Chromium (issue 31), on a phone-sized screen: a
writer starts the second story, goes Back (what they typed is kept), sees their first
ending with its comment, changes it, and Next brings them to the second story again; the
first ending is changed, not written twice, and the study finishes with the code."""

from __future__ import annotations

import re

import pytest

from studies.models import Study
from tests.conftest import screenshot
from tests.studies.helpers import pid
from tests.writing.helpers import writing_world
from tests.writing.test_writing_browser import arrive_and_qualify, fits_the_phone
from writing.models import Ending, EndingEdit, WrittenSetup

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_writer_goes_back_changes_the_first_ending_and_finishes(browser, live_server):
    from tests.writing.helpers import open_writing_study

    writing_world()
    study = open_writing_study(
        Study.Activity.ENDINGS, slug="back", per=2, setups=[WrittenSetup.objects.get()]
    )
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    arrive_and_qualify(page, live_server, "back", pid(7), study)
    page.wait_for_url(re.compile(r"/s/back/endings/$"))
    assert page.get_attribute("#back", "aria-disabled") == "true"  # nothing before the first
    page.fill("#text", "Everyone talked about it for days.")
    page.fill("#comment", "fun one")
    page.click("#next")
    page.wait_for_load_state()
    assert page.text_content("#progress").strip() == "Finished Samples: 1/2"
    page.fill("#text", "Half a thought")
    page.click("#back")
    page.wait_for_url(re.compile(r"/s/back/endings/0/$"))
    assert page.input_value("#text") == "Everyone talked about it for days."
    assert page.input_value("#comment") == "fun one"
    assert "written this ending already" in page.text_content("#saved-note")
    fits_the_phone(page)
    screenshot(page, "writing-ending-back-phone")
    page.fill("#text", "Everyone talked about it for weeks.")
    page.click("#next")
    page.wait_for_url(re.compile(r"/s/back/endings/$"))
    assert page.input_value("#text") == "Half a thought"  # kept when going back
    page.fill("#text", "Nobody mentioned it again.")
    page.click("#next")
    page.wait_for_url(re.compile(r"/s/back/done/$"))
    assert page.text_content("#code").strip() == study.completion_code
    mine = Ending.objects.filter(participant__study=study).order_by("id")
    assert [e.text for e in mine] == [
        "Everyone talked about it for weeks.",
        "Nobody mentioned it again.",
    ]
    edit = EndingEdit.objects.get()
    assert (edit.text_before, edit.comment_before) == (
        "Everyone talked about it for days.",
        "fun one",
    )
