"""Headless Chromium on a phone: the word page warns that always pressing 4 passes a draft
study's identity-only gold pairs, and a researcher adds a gold pair of two unrelated uses
with the form under the study, after which the warning is gone, then removes an identity
pair with its button."""

from __future__ import annotations

import pytest

from tests.conftest import goto_settled, screenshot
from tests.test_mobile_browser import CULPRITS, WIDTHS, log_in
from wug.crowd import crowd_study_create
from wug.models import GoldPair, UsePair

from .crowd_helpers import small_word

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_a_researcher_adds_a_gold_pair_on_a_phone_the_warning_goes_and_removes_one(
    browser, live_server, researcher
):
    word = small_word(6)
    crowd = crowd_study_create(
        words=[word], title="Plane pairs", slug="pairs", pairs_per_round=3,
        judgments_per_pair=1, pairs_per_participant=3, gold_pairs_total=2,
        gold_per_participant=2,
    )  # fmt: skip
    asked = {
        frozenset(p)
        for p in UsePair.objects.filter(round__crowd_study=crowd).values_list(
            "use1__identifier", "use2__identifier"
        )
    }
    a, b = next(
        (f"u{i}", f"u{j}")
        for i in range(6)
        for j in range(i + 1, 6)
        if frozenset((f"u{i}", f"u{j}")) not in asked
    )
    context = browser.new_context(viewport=PHONE, has_touch=True)
    tab = context.new_page()
    try:
        log_in(tab, live_server)
        goto_settled(tab, f"{live_server.url}/wug/{word.name}/")
        warning = tab.locator(".gold-warning")
        assert "Pressing 3 or 4 every time" in warning.text_content()
        assert tab.locator(".crowd-golds .gold-pair").count() == 2
        assert tab.evaluate(WIDTHS)[0] <= PHONE["width"], tab.evaluate(CULPRITS)
        screenshot(tab, "wug-gold-warning-phone")
        form = tab.locator(".gold-form")
        form.locator("input[name=use1]").fill(a)
        form.locator("input[name=use2]").fill(b)
        form.locator("select[name=expected]").select_option("1")
        form.locator("button[type=submit]").click()
        tab.wait_for_load_state("networkidle")
        assert tab.locator(".gold-warning").count() == 0
        assert f"{a} ~ {b}: answer 1" in tab.locator(".crowd-golds").text_content()
        assert GoldPair.objects.filter(question__study=crowd.study).count() == 3
        first = tab.locator(".crowd-golds .gold-pair").first.text_content().split(":")[0]
        tab.locator(".crowd-golds summary").click()  # closed once no warning opens it
        tab.locator(".gold-remove button").first.click()
        tab.wait_for_load_state("networkidle")
        assert f"Gold pair {first.strip()} is removed" in tab.content()
        assert tab.locator(".crowd-golds .gold-pair").count() == 2
        assert tab.locator(".gold-warning").count() == 0
        assert tab.evaluate(WIDTHS)[0] <= PHONE["width"], tab.evaluate(CULPRITS)
        assert GoldPair.objects.filter(question__study=crowd.study).count() == 2
    finally:
        context.close()
